#include "area.hpp"

#include <stdexcept>

namespace nwn {

double switch_area_pitch2(const SwitchDescription& d) {
  // A single crossbar is k x k channel pitches.
  if (d.subswitches.size() == 1) return double(d.subswitches[0].inputs) * d.subswitches[0].outputs;
  throw std::invalid_argument("area: organization " + d.org + " has no floorplan yet");
}

}  // namespace nwn

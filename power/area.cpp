#include "area.hpp"

#include <stdexcept>

namespace nwn {

double switch_area_pitch2(const SwitchDescription& d) {
  if (d.area_pitch2() <= 0) throw std::invalid_argument("area: organization " + d.org + " has no floorplan");
  return d.area_pitch2();
}

}  // namespace nwn

#include "link.hpp"

#include <stdexcept>

namespace nwn {

Link::Link(std::string name, const LinkParams& p)
    : name_(std::move(name)),
      params_(p),
      flits_(4),
      credits_(4) {
  if (p.latency_cycles < 1)
    throw std::invalid_argument("link " + name_ + ": latency_cycles must be >= 1, got " + std::to_string(p.latency_cycles));
  if (p.credit_latency_cycles < 1)
    throw std::invalid_argument("link " + name_ + ": credit_latency_cycles must be >= 1, got " +
                                std::to_string(p.credit_latency_cycles));
  if (p.serialization_cycles < 1)
    throw std::invalid_argument("link " + name_ + ": serialization_cycles must be >= 1");
}

}  // namespace nwn

#include "link.hpp"

#include <stdexcept>

namespace nwn {

Link::Link(std::string name, const LinkParams& p)
    : flits_(4),
      latency_cycles_(p.latency_cycles),
      serialization_cycles_(p.serialization_cycles),
      credits_(4),
      credit_latency_cycles_(p.credit_latency_cycles),
      name_(std::move(name)),
      params_(p) {
  if (p.latency_cycles < 1)
    throw std::invalid_argument("link " + name_ + ": latency_cycles must be >= 1, got " + std::to_string(p.latency_cycles));
  if (p.credit_latency_cycles < 1)
    throw std::invalid_argument("link " + name_ + ": credit_latency_cycles must be >= 1, got " +
                                std::to_string(p.credit_latency_cycles));
  // A bound far past any network's. (PendingInputs keeps arrivals modulo
  // 2^16: an input of a link over 2^15 cycles long may be visited early,
  // which costs a read and changes nothing.)
  if (p.latency_cycles > (1 << 30) || p.credit_latency_cycles > (1 << 30))
    throw std::invalid_argument("link " + name_ + ": latencies must be at most 2^30 cycles");
  if (p.serialization_cycles < 1)
    throw std::invalid_argument("link " + name_ + ": serialization_cycles must be >= 1");
}

}  // namespace nwn

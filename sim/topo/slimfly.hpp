// Slim Fly sizing shared by the generator (slimfly.cpp) and `nwnsim topo search`.
#pragma once
#include <cstdint>
#include <string>

namespace nwn::topo {

struct SlimFlyShape {
  int q = 0, delta = 0, w = 0;
  int network_radix = 0;  // k' = (3q - delta)/2
  std::int64_t routers = 0;  // 2q^2
};

// q must satisfy slimfly_q_valid: a prime power >= 3 (every such q is 4w + delta).
SlimFlyShape slimfly_shape(int q);
bool slimfly_q_valid(int q);
// The valid q just below and above q, for error messages ("5, 7").
std::string slimfly_nearby_q(int q);

}  // namespace nwn::topo

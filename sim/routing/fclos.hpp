// The fclos network's shape and what its routings read (sim/topology_fclos.cpp
// builds the network; sim/routing/fclos.cpp holds the routings).
//
// Labels (Petrini and Vanneschi): router <w, l> has level l (0 = leaf) and a
// label w of n-1 base-h digits (h = k/2). Node p hangs from leaf <p / h, 0>
// at down port p mod h. Up port u of <w, l> leads to <w with digit l set to
// u, l+1>, arriving at its down port w_l. <w, l> is an ancestor of node p
// when w_j = p_(j+1) for every j >= l.
#pragma once
#include <cstdint>
#include <vector>

#include "routing.hpp"

namespace nwn {

struct FclosShape {
  int h = 16;      // half radix
  int levels = 3;  // n
  int per_level = 0;
  std::vector<int> power;  // h^j, j = 0 .. levels
  void set(int half_radix, int n) {
    h = half_radix;
    levels = n;
    power.assign(n + 1, 1);
    for (int j = 1; j <= n; ++j) power[j] = power[j - 1] * h;
    per_level = power[n - 1];
  }
  int digit(int x, int j) const { return x / power[j] % h; }
  int set_digit(int x, int j, int v) const { return x + (v - digit(x, j)) * power[j]; }
};

struct FclosRoutingContext : RoutingContext {
  FclosShape shape;
  std::vector<int> phys;  // logical port -> physical port (down ports 0 .. h-1, up ports h .. 2h-1)
  int vcs = 1;
  int routers = 0;
  std::uint64_t seed = 1;
};

}  // namespace nwn

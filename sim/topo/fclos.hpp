// fclos: a folded Clos (k-ary n-tree) of radix-k routers, (k/2)^n nodes, n
// levels of (k/2)^(n-1) routers (NWN paper §4), built as a graph
// (sim/topo/fclos.cpp) and routed by its own family (sim/routing/fclos.cpp).
//
// Labels (Petrini and Vanneschi): router <w, l> has id l*(k/2)^(n-1) + w,
// level l (0 = leaf) and a label w of n-1 base-h digits (h = k/2). Node p
// hangs from leaf <p / h, 0> at down port p mod h. Up port u of <w, l> leads
// to <w with digit l set to u, l+1>, arriving at its down port w_l. <w, l> is
// an ancestor of node p when w_j = p_(j+1) for every j >= l. Logical ports:
// down ports 0 .. h-1 (terminals at the leaves), up ports h .. 2h-1 (unused
// at the top).
#pragma once
#include <vector>

#include "../config.hpp"

namespace nwn::topo {

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
  int routers() const { return levels * per_level; }
  int nodes() const { return power[levels]; }
  int digit(int x, int j) const { return x / power[j] % h; }
  int set_digit(int x, int j, int v) const { return x + (v - digit(x, j)) * power[j]; }
};

// From router.radix and network.fclos_levels; throws ConfigError for an odd
// radix or a network over the graph size bounds.
FclosShape fclos_shape(const Config& cfg);

}  // namespace nwn::topo

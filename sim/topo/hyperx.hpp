// hyperx: HyperX (L, S, K, T) (Ahn et al. 2009): routers on an L-dimensional
// lattice with S_i routers in dimension i, every router joined to every other
// router that differs in one coordinate by K parallel links, T terminals per
// router. Router radix T + sum_i (S_i - 1) K; router.radix may be larger (the
// extra ports stay unused). A flattened butterfly is a HyperX with K = 1.
// Built as a graph (sim/topo/hyperx.cpp) and routed by its own family
// (sim/routing/hyperx.cpp).
//
// Logical ports: terminals 0..T-1, then for each dimension i, for each other
// coordinate v (in increasing order), K ports.
#pragma once
#include <vector>

#include "../config.hpp"

namespace nwn::topo {

struct HyperXShape {
  std::vector<int> s;  // routers per dimension
  int k = 1, t = 1;
  std::vector<int> stride, offset;  // coordinate strides; first logical port of each dimension
  int routers = 1, ports = 0;

  int coord(int r, int i) const { return (r / stride[i]) % s[i]; }
  int with_coord(int r, int i, int v) const { return r + (v - coord(r, i)) * stride[i]; }
  // Logical port from router r toward coordinate v in dimension i, copy c.
  int port(int r, int i, int v, int c) const {
    const int cur = coord(r, i);
    return offset[i] + (v < cur ? v : v - 1) * k + c;
  }
  int hops(int a, int b) const {
    int h = 0;
    for (std::size_t i = 0; i < s.size(); ++i) h += coord(a, int(i)) != coord(b, int(i));
    return h;
  }
};

// From network.hyperx_s, hyperx_k and hyperx_t; throws ConfigError for a bad
// list, a network over the graph size bounds or a router.radix below its ports.
HyperXShape hyperx_shape(const Config& cfg);

}  // namespace nwn::topo

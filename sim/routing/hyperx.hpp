// The hyperx network's shape and what its routings read (sim/topology_hyperx.cpp
// builds the network; sim/routing/hyperx.cpp holds the routings).
//
// Logical ports: terminals 0..T-1, then for each dimension i, for each other
// coordinate v (in increasing order), K ports.
#pragma once
#include <cstdint>
#include <vector>

#include "routing.hpp"

namespace nwn {

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

struct HyperXRoutingContext : RoutingContext {
  HyperXShape shape;
  std::vector<int> phys;  // logical port -> physical port
  int vcs = 1;
  std::uint64_t seed = 1;
};

}  // namespace nwn

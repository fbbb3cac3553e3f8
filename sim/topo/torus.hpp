// torus and mesh: k-ary n-cubes (with wraparound channels) and meshes
// (without), any k per dimension, t terminals per router.
//
// Router id = c_0 + k_0 (c_1 + k_1 (c_2 + ...)): dimension 0 varies fastest.
// Ports: t terminals, then per dimension i in increasing order the + port
// (toward c_i + 1) and the - port (toward c_i - 1). A torus has both in every
// dimension (with k_i = 2 both lead to the one neighbour: two parallel
// channels); a mesh router at the edge of dimension i lacks the port that
// would leave the mesh, so its later ports move down.
// The graph network's dimension-order routing (sim/topology_graph.cpp) reads
// this shape and port layout through torus_shape() and TorusShape::port().
#pragma once
#include <string>
#include <vector>

#include "../config.hpp"

namespace nwn::topo {

struct TorusShape {
  std::vector<int> k;  // routers per dimension
  bool wrap = true;    // torus (true) or mesh (false)
  int t = 1;           // terminals per router
  int routers = 1;

  int dims() const { return int(k.size()); }
  int coord(int r, int i) const {
    for (int j = 0; j < i; ++j) r /= k[j];
    return r % k[i];
  }
  // Router one step from r in dimension i (dir = +1 or -1), wrapping on a torus.
  int step(int r, int i, int dir) const;
  // Network-port index (0 = first port after the terminals) of the dir port
  // of dimension i at router r, or -1 where a mesh has none.
  int port(int r, int i, int dir) const;
};

// Whether network.topology names a torus or mesh, and its shape (ConfigError
// for malformed dimensions).
bool is_torus_topology(const std::string& name);
TorusShape torus_shape(const Config& cfg);

}  // namespace nwn::topo

// The part the hybrid topologies NestTree and NestGHC share (hybrid-
// topologies paper, "Topologies" and "Connection rules"): QFDBs arranged in
// subtori of t x t x t with wrap-around links, one QFDB in every u with an
// uplink to the upper network (a fat tree in nesttree.cpp, a generalized
// hypercube in nestghc.cpp).
//
// QFDB (s, x, y, z) of subtorus s is router s*t^3 + x + t*y + t^2*z with one
// terminal; its ports: x+, x-, y+, y-, z+, z- (for t = 2 the + and - channels
// are parallel channels to the same neighbour), then its uplink port(s).
// Uplinked QFDBs (Fig. 3; t even):
//   u = 1: every QFDB            u = 2: x even
//   u = 4: x, y, z of one parity (two opposite corners of every 2x2x2 block)
//   u = 8: x, y, z even (one corner of every 2x2x2 block)
// Uplinks are numbered s * (t^3/u) + rank, rank in the order: u = 4 first the
// even corners, then the odd ones; within that by z, y, x (x fastest), as
// the uplink positions of the upper network.
//
// Routing (the paper): within a subtorus, dimension order; between subtori,
// to the source's nearest uplinked QFDB, minimally through the upper network
// to the destination's nearest uplinked QFDB, then dimension order. Nearest
// uplink: u = 2: x - 1; u = 4: move the coordinate whose parity differs from
// the other two, -1 if it is odd, +1 if even; u = 8: every odd coordinate to
// its even neighbour with the smaller value (x - 1, or 0 across the wrap).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph.hpp"

namespace nwn::topo {

struct NestShape {
  std::string name;  // "nesttree" or "nestghc", for key names
  int t = 2, u = 1;
  std::int64_t nodes = 0;  // QFDBs
  int subtori = 0;
  int per_subtorus = 0;  // t^3
  int uplinks_per_subtorus = 0;
  std::vector<int> rank_of;      // local QFDB -> uplink rank, or -1
  std::vector<int> local_of;     // uplink rank -> local QFDB
  std::vector<int> nearest;      // local QFDB -> rank of its nearest uplink
  std::vector<int> nearest_hops; // local QFDB -> torus hops to it

  std::int64_t uplinks() const { return std::int64_t(subtori) * uplinks_per_subtorus; }
  int torus_hops(int a, int b) const;  // dimension-order hops between local QFDBs
  int uplink_router(std::int64_t uplink) const {
    return int(uplink / uplinks_per_subtorus) * per_subtorus + local_of[uplink % uplinks_per_subtorus];
  }
};

// Reads network.<name>.t, .u and .nodes; throws ConfigError naming them.
NestShape nest_shape(const Config& cfg, const std::string& name);

// The subtori: QFDB routers 0 .. nodes-1 with their six torus ports.
void add_subtori(Graph& g, const NestShape& s);

// Distances (QFDB-to-QFDB hops) under the paper's routing, over ordered
// pairs of distinct QFDBs: exact average and maximum. upper(a, b) is the
// minimal hop count between uplinks a and b through the upper network
// (QFDB - switch - ... - QFDB); upper_max its largest value.
struct NestDistances {
  double average = 0;
  int maximum = 0;
};
NestDistances nest_routed_distances(const NestShape& s,
                                    const std::function<int(std::int64_t, std::int64_t)>& upper, int upper_max,
                                    // sum over all ordered uplink pairs (a, b) of c(a) c(b) upper(a, b), c = the
                                    // number of QFDBs whose nearest uplink it is (same-subtorus pairs included)
                                    double weighted_upper_sum);

// The paper's Table 2 estimates: switches x 0.75 QFDB cost and x 0.25 QFDB
// power, relative to the QFDBs (the ratios every row of the table implies).
std::vector<TopologyFigure> nest_figures(const NestShape& s, const Graph& g, const NestDistances& d);

}  // namespace nwn::topo

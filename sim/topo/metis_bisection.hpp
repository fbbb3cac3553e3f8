// One METIS call (Debian's libmetis, 5.1): a balanced bisection of a
// weighted graph by multilevel recursive bisection (METIS_PartGraphRecursive
// with two parts; analysis.cpp makes the balance exact and refines it), or
// a split into more parts (sim/partition.cpp: routers over MPI ranks).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace nwn::topo {

// adjacency[v]: (neighbour, channels between them); vertex_weight[v] >= 0,
// the weight balanced (1 for a router that counts, 0 for one that may go
// to either side). METIS bisects `tries` times (METIS_OPTION_NCUTS) and
// keeps the smallest cut. Returns each vertex's side (0 or 1) and that cut.
// Deterministic for a seed: METIS 5.1 draws from the C library's rand(),
// which the call seeds; calls are serialized so that no other bisection in
// the process draws from it meanwhile. Throws std::runtime_error if METIS
// fails.
struct MetisBisection {
  std::vector<char> side;
  std::int64_t cut = 0;
};
MetisBisection metis_bisection(const std::vector<std::vector<std::pair<int, int>>>& adjacency,
                               const std::vector<int>& vertex_weight, std::uint64_t seed, int tries = 1);

// The same graph in `parts` parts (at least 2) of about equal vertex
// weight, with the fewest channels between parts METIS finds, by recursive
// bisection (METIS_PartGraphRecursive: `ufactor` is each bisection's
// imbalance, in thousandths, and compounds) or directly (METIS_PartGraphKway:
// each part at most (1000 + ufactor) / 1000 of the mean). Neither is best
// everywhere: k-way cut a 3-way split of an 8x8 torus 2.5 times as much.
// Deterministic for a seed, as metis_bisection. A part may come back empty
// (a graph too small for `parts`): the caller checks.
enum class MetisMethod { Recursive, Kway };
struct MetisParts {
  std::vector<int> part;
  std::int64_t cut = 0;
};
MetisParts metis_partition(const std::vector<std::vector<std::pair<int, int>>>& adjacency,
                           const std::vector<int>& vertex_weight, int parts, MetisMethod method, std::uint64_t seed,
                           int tries, int ufactor);

}  // namespace nwn::topo

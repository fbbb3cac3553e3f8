// Graph figures of a topology (`nwnsim topo analyze`): size, radix,
// distances, minimal-path diversity, bisection and the cost figures of the
// papers.
//
// Distances are router-to-router hops (channels crossed). "Endpoint"
// figures are over ordered pairs of distinct endpoints (two endpoints of one
// router are 0 hops apart); path diversity is over ordered pairs of distinct
// routers that have endpoints. Graphs of more than B = min(max_sources,
// max(100, 2e9 / (routers + network ports))) routers are sampled: BFS
// from B/2 routers drawn uniformly (router figures) and B/2 routers with
// endpoints (endpoint figures, path diversity), so averages are estimates
// and diameters lower bounds (`sampled` says so).
//
// Bisection: the fewest channels cut by a partition of the routers whose
// sides hold floor and ceil of half the routers with endpoints (routers
// without endpoints, e.g. switches, go to either side; with balance_routers,
// halves of all routers, as a partitioner balancing vertices does). Exact for at most
// exact_bisection_routers routers (all 2^(n-1) partitions, Gray-code order);
// above, an upper bound by `bisection_method`: fm, the best of multi-start
// Fiduccia-Mattheyses refinement from a split in router-id order and from
// random balanced splits (seeded); metis, METIS's multilevel recursive
// bisection (seeded), balanced exactly and refined by Fiduccia-Mattheyses;
// best, both, keeping the smaller cut (docs/TOPOLOGIES.md compares them).
// beta = cut / (endpoints / 2), the HyperX paper's relative bisection (1 =
// full bisection bandwidth).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph.hpp"

namespace nwn::topo {

enum class BisectionMethod { fm, metis, best };  // in the order of bisection_method_names()
const std::vector<std::string>& bisection_method_names();  // "fm", "metis", "best"
// Throws std::invalid_argument naming the value and the allowed names.
BisectionMethod parse_bisection_method(const std::string& name);

struct AnalysisOptions {
  int max_sources = 2000;            // BFS sources before sampling
  int exact_bisection_routers = 24;  // exhaustive bisection up to this size
  int bisection_starts = 8;          // FM starts (fewer on large graphs, see bisection())
  BisectionMethod bisection_method = BisectionMethod::fm;  // above exact_bisection_routers
  bool balance_routers = false;      // balance all routers instead of those with endpoints
  bool bisection = true;             // false: skip it (cut and beta -1, method "skipped")
  std::uint64_t seed = 1;
  // Progress of the long parts, so a long analysis can say so; may be
  // empty. Called with ("distances", sources done, sources in all) after
  // each BFS source, ("bisection", starts done, starts in all) before
  // each Fiduccia-Mattheyses start and ("bisection (METIS)", 0, 1) before
  // METIS.
  std::function<void(const char* stage, int done, int total)> progress;
};

struct Bisection {
  std::int64_t cut = 0;
  bool exact = false;
  std::string method;
  std::vector<char> side;  // the partition found: side of each router (0 or 1)
};

struct Analysis {
  std::string name;
  int routers = 0, endpoints = 0, terminal_routers = 0;
  std::int64_t channels = 0;
  int radix_max = 0, radix_min = 0;
  int diameter = 0;           // over all router pairs
  int endpoint_diameter = 0;  // over routers with endpoints
  double avg_hops_routers = 0, avg_hops_endpoints = 0;
  double paths_avg = 0, paths_avg_nonadjacent = 0;  // minimal paths per router pair
  double paths_max = 0;
  bool sampled = false;
  int sources = 0;  // BFS sources used
  Bisection bisection;
  double bisection_beta = 0;
  // Cost per endpoint (diameter-two paper, Fig. 3): router ports Np/N and
  // links Nl/N (endpoint links included); power by the Slim Fly model,
  // 4 SerDes lanes x 0.7 W per router port.
  double ports_per_endpoint = 0, links_per_endpoint = 0, power_per_endpoint_w = 0;
  // Direct networks (every router has endpoints): routers over the Moore
  // bound 1 + k sum_{i<D} (k-1)^i for network degree k = the largest number
  // of network ports and diameter D (Slim Fly: about 8/9); 0 otherwise.
  double moore_bound_fraction = 0;
  std::vector<TopologyFigure> figures;  // the topology's own (GraphTopology::figures)
};

Analysis analyze(const Graph& g, const AnalysisOptions& opt);
Bisection bisection(const Graph& g, const AnalysisOptions& opt);

}  // namespace nwn::topo

// A router-level topology graph: routers, the channels between them and the
// terminals hanging from each router. Generators (one file each under
// sim/topo/) build one from their config keys; `nwnsim topo analyze`
// measures it; the graph network (sim/topology_graph.cpp) simulates it with
// a router of the configured organization at every vertex.
//
// Ports: router r has terminals[r] terminal ports (logical ports
// 0 .. terminals[r]-1) followed by its network ports, in the order of
// links[r]. Parallel channels appear once per channel. The graph is
// undirected: finalize() pairs every network port with the port on the far
// router that leads back, and rejects a graph where that is impossible.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../../base/registry.hpp"
#include "../config.hpp"
#include "../routing/routing.hpp"

namespace nwn::topo {

struct Graph {
  std::string name;                     // e.g. "slimfly q=5 p=4"
  std::vector<int> terminals;           // per router
  std::vector<std::vector<int>> links;  // per router: far router of each network port
  // Optional labels for routing and reports (empty when the topology has
  // none): e.g. the Dragonfly group, the fat-tree level, the layer. What
  // they mean is the topology's GraphTopology::group_label.
  std::vector<int> group;
  // Logical port groups for network.port_assignment (interleaved deals their
  // ports out in turn): the sizes of consecutive groups of every router's
  // logical ports (terminals, then network ports), e.g. down and up, or one
  // group per dimension. Empty: two groups per router, its terminals and its
  // network ports. The sum may exceed a router's ports: the last places stay
  // unused (an fclos top router keeps the places of its missing up ports).
  std::vector<int> port_groups;
  // Set by finalize(): far port of each network port (index into links[far]).
  std::vector<std::vector<int>> peer_port;

  int routers() const { return int(links.size()); }
  int endpoints() const;
  int network_ports(int r) const { return int(links[r].size()); }
  // Ports of router r (terminals + network ports), and the largest over
  // routers (at least the places port_groups keeps).
  int radix(int r) const { return terminals[r] + network_ports(r); }
  int max_radix() const;
  std::int64_t channels() const;  // bidirectional router-to-router channels
  // Router and terminal port of endpoint e (endpoints are numbered router by router).
  int router_of_endpoint(int e) const { return endpoint_router_[e]; }
  int first_endpoint(int r) const { return first_endpoint_[r]; }

  // Pairs ports, checks sizes and symmetry; throws std::logic_error naming
  // the first router whose links cannot be paired.
  void finalize();

 private:
  std::vector<int> endpoint_router_, first_endpoint_;
};

// Sizes. Generators compute their counts from config values with size_mul
// and size_add, which saturate at INT64_MAX instead of overflowing, and
// pass them to check_size before they allocate: one bound for every
// topology and every command (topo analyze, run).
constexpr std::int64_t kMaxGraphRouters = 8000000;
constexpr std::int64_t kMaxGraphEndpoints = 4000000;
constexpr std::int64_t kMaxGraphPorts = std::int64_t{1} << 26;  // network ports (two per channel)
std::int64_t size_mul(std::int64_t a, std::int64_t b);  // a, b >= 0
std::int64_t size_add(std::int64_t a, std::int64_t b);
// Throws ConfigError naming `params` (key_values) and the bound passed.
void check_size(const std::string& params, std::int64_t routers, std::int64_t endpoints, std::int64_t ports);
// "network.x.a = 1, network.x.b = 2": the keys and their values, for errors.
std::string key_values(const Config& cfg, const std::vector<std::string>& keys);

// All-pairs hop distances between routers by BFS: routers^2 bytes (a
// 20,000-router graph takes 400 MB; callers check the size first).
std::vector<std::uint8_t> distances(const Graph& g);

// The colours (0, 1) of `n` vertices such that every edge joins two
// colours, each colour holding a vertex; empty when there are none (an odd
// cycle, e.g. a HyperX dimension of three or more routers). Deterministic:
// each connected part's lowest vertex is colour 0. The kernel's two colours
// (models/kernel.hpp): of the clusters in one process, of every router
// under ranks (the overload: the graph's routers over its channels).
std::vector<int> two_colours(std::size_t n, const std::vector<std::pair<std::size_t, std::size_t>>& edges);
std::vector<int> two_colours(const Graph& g);

using GraphFactory = std::function<Graph(const Config&)>;

// A figure a topology computes about itself beyond the generic graph
// analysis (e.g. distances under its paper's routing, or its paper's cost
// model), reported by `nwnsim topo analyze`.
struct TopologyFigure {
  std::string name;  // column name, e.g. "routed_avg_distance"
  double value = 0;
  std::string doc;   // what it is and where it comes from
};
using FigureFunction = std::function<std::vector<TopologyFigure>(const Config&, const Graph&)>;

// What a topology's Graph::group labels are, for the routings (their
// context carries the labels) and the worst-case pattern.
enum class GroupLabel {
  None,   // no labels, or labels only reports and partitions read (tree levels, layers, subtori)
  Group,  // Dragonfly-like groups: routers of a group reach each other by local channels, groups by global
          // channels (worst case: each group sends to the next; PAR reverts within the source group)
};

struct GraphTopology {
  std::string name;  // network.topology value
  std::string doc;   // one line: what it is and its parameters
  std::vector<KeySpec> keys;  // its parameters, named network.<name>.<param>
  GraphFactory build;         // throws ConfigError for parameters it cannot build
  FigureFunction figures = nullptr;  // optional topology-specific figures
  // Its routings: the family "graph" (over the distance tables, every graph
  // topology) or a family of its own (routings over its labels: fclos,
  // hyperx; sim/routing/family.hpp).
  std::string routing_family = "graph";
  // Router names in reports, traces and VCDs (nullptr: r<id>).
  std::function<std::string(const Graph&, int router)> router_name = nullptr;
  GroupLabel group_label = GroupLabel::None;  // what Graph::group means
};

// Name -> topology. A generator registers itself at the bottom of its own
// file with GraphTopologyRegistration; its keys join the config schema.
Registry<GraphTopology>& graph_topology_registry();  // kind "graph topology"
const GraphTopology* find_graph_topology(const std::string& name);
Graph build_graph(const Config& cfg);  // from network.topology

struct GraphTopologyRegistration {
  explicit GraphTopologyRegistration(GraphTopology t) {
    std::string name = t.name;
    config_key_registry().add("network." + name, t.keys);
    if (t.routing_family != "graph") topology_routing_family_registry().add(name, t.routing_family);
    graph_topology_registry().add(name, std::move(t));
  }
};

}  // namespace nwn::topo

// The graph network: every topology but the single router: the graph
// topologies of sim/topo/ (fclos, hyperx, torus, mesh, slimfly, dragonfly,
// fattree, ...) simulated with a router of the configured organization
// (router.org, router.radix) at every vertex. Router r gets its terminals on
// its first logical ports and its network ports after them, in the graph's
// order; network.port_assignment maps the graph's port groups onto physical
// ports (tied or interleaved). Channels have network.link_latency_cycles
// each way. router.radix must cover the largest router of the graph; extra
// ports stay unused.
//
// Routing (network.routing) comes from the topology's routing family
// (sim/routing/): the family "graph" (minimal, minad, valiant, ugal_l,
// ugal_g, dor, ...) reads the all-pairs distance table of the graph
// (routers^2 bytes, so at most kMaxRouters routers; graph.hpp: what they
// share, and the hop-indexed VC classes); a family of its own (fclos,
// hyperx) reads the topology's labels and builds its context itself
// (family.hpp).
//
// traffic.pattern = worst_case (family "graph"): the network chooses a
// permutation of its terminal routers (adversarial_targets below).
#include <fmt/format.h>

#include <algorithm>

#include "exchange.hpp"
#include "network.hpp"
#include "partition.hpp"
#include "routing/family.hpp"
#include "routing/graph.hpp"
#include "topo/graph.hpp"
#include "topo/torus.hpp"

namespace nwn {
namespace {

constexpr int kMaxRouters = 20000;

// --- traffic.pattern = worst_case: a permutation of the terminal routers ---

// Each router in turn takes the farthest router not yet taken (ties: the
// first in cyclic order from half way round the list, i.e. a shift by half).
void farthest_targets(const GraphTables& t, const std::vector<int>& list, std::vector<int>& target) {
  const int n = int(list.size());
  std::vector<char> taken(n, 0);
  for (int i = 0; i < n; ++i) {
    int best = -1, best_d = -1;
    for (int s = 0; s < n; ++s) {
      const int j = (i + n / 2 + s) % n;
      if (!taken[j] && t.d(list[i], list[j]) > best_d) {
        best = j;
        best_d = t.d(list[i], list[j]);
      }
    }
    taken[best] = 1;
    target[list[i]] = list[best];
  }
}

// Dragonfly (Kim et al.): router i of group g sends to router i of group g+1,
// so every group's traffic crosses the one global channel to the next group.
bool group_shift_targets(const topo::Graph& g, const std::vector<int>& term, std::vector<int>& target) {
  if (g.group.empty()) return false;
  std::map<int, std::vector<int>> groups;
  for (int r : term) groups[g.group[r]].push_back(r);
  if (groups.size() < 2) return false;
  for (auto it = groups.begin(); it != groups.end(); ++it) {
    auto next = std::next(it) == groups.end() ? groups.begin() : std::next(it);
    for (std::size_t i = 0; i < it->second.size(); ++i) target[it->second[i]] = next->second[i % next->second.size()];
  }
  return true;
}

// Slim Fly (diameter-two paper §4.2): pairs at distance 2 whose minimal
// routes overlap. Chains v0 v1 v2 ... of adjacent routers with
// d(v_i, v_i+2) = 2, preferring v_i+2 whose only common neighbour with v_i is
// v_i+1; v_i sends to v_i+2, so channel v_i+1 -> v_i+2 carries the flows of
// v_i and v_i+1 (2p flows); the last two of a chain send to its first two.
// Routers left out of chains (fewer than 3) get farthest targets.
void overlapping_chain_targets(const topo::Graph& g, const GraphTables& t, std::vector<int>& target) {
  std::vector<char> used(t.routers, 0);
  std::vector<int> leftover;
  auto usable = [&](int v) { return !used[v] && g.terminals[v] > 0; };
  for (int start = 0; start < t.routers; ++start) {
    if (!usable(start)) continue;
    std::vector<int> chain{start};
    used[start] = 1;
    for (int v : g.links[start])
      if (usable(v)) {
        chain.push_back(v);
        used[v] = 1;
        break;
      }
    for (bool grown = chain.size() == 2; grown;) {
      const int a = chain[chain.size() - 2], b = chain.back();
      int next = -1;  // prefer c whose only common neighbour with a is b: then every minimal route a -> c takes b -> c
      for (int c : g.links[b]) {
        if (!usable(c) || t.d(a, c) != 2) continue;
        if (next < 0) next = c;
        int common = 0;
        for (int x : g.links[a]) common += t.d(x, c) == 1;
        if (common == 1) {
          next = c;
          break;
        }
      }
      grown = next >= 0;
      if (grown) {
        chain.push_back(next);
        used[next] = 1;
      }
    }
    const int len = int(chain.size());
    if (len < 3) {
      leftover.insert(leftover.end(), chain.begin(), chain.end());
      continue;
    }
    for (int i = 0; i < len; ++i) target[chain[i]] = chain[(i + 2) % len];
  }
  if (!leftover.empty()) farthest_targets(t, leftover, target);
}

// The permutation and a line saying how it was chosen.
std::string adversarial_targets(topo::GroupLabel labels, const topo::Graph& g, const GraphTables& t, int diameter,
                                std::vector<int>& target) {
  target.resize(t.routers);
  for (int r = 0; r < t.routers; ++r) target[r] = r;
  std::vector<int> term;
  bool all_terminal = true;
  for (int r = 0; r < t.routers; ++r) {
    if (g.terminals[r] > 0) term.push_back(r);
    all_terminal = all_terminal && g.terminals[r] > 0;
  }
  if (labels == topo::GroupLabel::Group && group_shift_targets(g, term, target))
    return "group shift: router i of group g sends to router i of group g+1";
  if (diameter == 2 && all_terminal) {
    overlapping_chain_targets(g, t, target);
    return "pairs at distance 2 with overlapping minimal routes (Slim Fly worst case)";
  }
  farthest_targets(t, term, target);
  return "each router sends to a router at the largest distance still free (greedy)";
}

// --- the network ---

std::string topology_parameters(const Config& cfg, const topo::Graph& g) {
  std::string s = g.name;
  if (const topo::GraphTopology* t = topo::find_graph_topology(cfg.get_string("network.topology")))
    for (const KeySpec& k : t->keys) s += fmt::format(", {} = {}", k.key, cfg.text(k.key));
  return s;
}

// Logical -> physical port of every router, through network.port_assignment:
// one map for all when the graph gives its port groups, else one per router
// (its terminals, then its network ports).
class PortMaps {
 public:
  PortMaps(const topo::Graph& g, const std::string& assignment, int radix) {
    if (!g.port_groups.empty()) {
      shared_ = Network::port_map(assignment, g.port_groups, radix);
      return;
    }
    own_.resize(g.routers());
    for (int r = 0; r < g.routers(); ++r)
      own_[r] = Network::port_map(assignment, {g.terminals[r], g.network_ports(r)}, radix);
  }
  const std::vector<int>& of(int r) const { return own_.empty() ? shared_ : own_[r]; }
  bool shared() const { return own_.empty(); }

 private:
  std::vector<int> shared_;
  std::vector<std::vector<int>> own_;
};

class GraphNetwork final : public Network {
 public:
  GraphNetwork(const Config& cfg, const Clock& clock, Ranks& ranks) : Network(cfg, clock, ranks) {
    const topo::Graph g = topo::build_graph(cfg);
    const std::string& topology = cfg.get_string("network.topology");
    const std::string params = topology_parameters(cfg, g);
    const bool graph_family = routing_family(topology) == "graph";
    if (graph_family && g.routers() > kMaxRouters)
      throw ConfigError(fmt::format("config error: {} has {} routers; the graph network keeps a routers^2 distance "
                                    "table and simulates at most {} routers",
                                    params, g.routers(), kMaxRouters));
    const int radix = int(cfg.get_int("router.radix"));
    if (radix < g.max_radix())
      throw ConfigError(fmt::format("config error: router.radix = {} is too small for {}: its largest router has {} "
                                    "ports (terminals + network ports); set router.radix >= {}",
                                    radix, params, g.max_radix(), g.max_radix()));
    const PortMaps phys(g, cfg.get_string("network.port_assignment"), radix);
    const std::string& routing_name = cfg.get_string("network.routing");
    const RoutingSpec& routing = find_routing(topology, routing_name);
    std::unique_ptr<RoutingContext> ctx =
        graph_family ? graph_context(cfg, g, phys, params) : family_context(cfg, topology, g, phys);
    check_vcs(cfg, routing, *ctx, graph_family, fmt::format("network.routing = {} on {}", routing_name, params));
    if (g.routers() > 1 && !(graph_family && !cfg.get_bool("network.deadlock_free")))
      check_hop_classes(cfg, routing.vc_need(*ctx).hop_indexed,
                        fmt::format("network.routing = {} on {}", routing_name, params),
                        [&] { return hop_indexed_routings(topology, *ctx); });
    router_count_ = g.routers();
    if (ranks.distributed()) {
      rank_of_router_ = partition_routers(cfg, g, ranks.size(), &partition_);
      router_colour_ = topo::two_colours(g);
      const PartitionScore split = score_partition(g, rank_of_router_, router_colour_, ranks.size());
      colours_cost_ = split.colours_cost;
      if (!split.two_colours) router_colour_.clear();
    }
    make_endpoints(cfg, g.endpoints(), graph_family ? &layout_ : nullptr, local_nodes(g));
    routing_.push_back(routing.make(*ctx));
    if (ranks.distributed() && routing_.back()->reads_other_routers())
      throw ConfigError(fmt::format("config error: network.routing = {} cannot run over {} ranks: it reads every "
                                    "router's credit counters in the middle of a cycle, which another rank cannot "
                                    "give (allowed under mpirun: routings that read only their own router, e.g. "
                                    "ugal_l, the same choice from the source router's counters)",
                                    routing_name, ranks.size()));
    add_routers(cfg, g, radix);
    attach_and_connect(cfg, g, phys);
    if (exchange_) exchange_->finish();
    enable_heatmaps_if(cfg);
  }

 private:
  // The family "graph": distance tables, diameters and the worst-case layout.
  std::unique_ptr<RoutingContext> graph_context(const Config& cfg, const topo::Graph& g, const PortMaps& phys,
                                                const std::string& params) {
    const int n = g.routers(), radix = int(cfg.get_int("router.radix"));
    GraphTables t;
    t.routers = n;
    t.radix = radix;
    t.dist = topo::distances(g);
    int diameter = 0, eccentricity = 0;  // D over terminal routers; E from terminal routers to all routers
    for (int a = 0; a < n; ++a) {
      if (g.terminals[a] == 0) continue;
      for (int b = 0; b < n; ++b) {
        if (t.d(a, b) == 0xff)
          throw ConfigError(fmt::format("config error: {} is not connected (router {} cannot reach router {})", params,
                                        a, b));
        eccentricity = std::max(eccentricity, t.d(a, b));
        if (g.terminals[b] > 0) diameter = std::max(diameter, t.d(a, b));
      }
    }
    t.net_begin.assign(n + 1, 0);
    t.from_terminal.assign(std::size_t(n) * radix, 0);
    for (int r = 0; r < n; ++r) {
      const std::vector<int>& p = phys.of(r);
      t.net_begin[r + 1] = t.net_begin[r] + g.network_ports(r);
      for (int i = 0; i < g.network_ports(r); ++i) {
        t.far.push_back(g.links[r][i]);
        t.net_phys.push_back(std::int16_t(p[g.terminals[r] + i]));
      }
      for (int i = 0; i < g.terminals[r]; ++i) {
        t.term_phys.push_back(std::int16_t(p[i]));
        t.node_router.push_back(r);
        t.from_terminal[std::size_t(r) * radix + p[i]] = 1;
      }
    }
    layout_.first_node.resize(n + 1);
    for (int r = 0; r < n; ++r) layout_.first_node[r] = g.first_endpoint(r);
    layout_.first_node[n] = g.endpoints();
    layout_.node_router = t.node_router;
    const std::string& topology = cfg.get_string("network.topology");
    const topo::GroupLabel labels = topo::find_graph_topology(topology)->group_label;
    if (cfg.get_string("traffic.pattern") == "worst_case")
      layout_.worst_case_rule = adversarial_targets(labels, g, t, diameter, layout_.worst_case_target);

    auto ctx = std::make_unique<GraphRoutingContext>();
    ctx->diameter = diameter;
    ctx->eccentricity = eccentricity;
    if (topo::is_torus_topology(topology)) ctx->torus = topo::torus_shape(cfg);
    ctx->group = g.group;
    ctx->group_label = labels;
    ctx->vcs = int(cfg.get_int("router.vcs"));
    ctx->capacity_flits = ctx->vcs * int(cfg.get_int("router.vc_depth_flits"));
    ctx->routers = &routers_;
    ctx->seed = std::uint64_t(cfg.get_int("sim.seed"));
    ctx->deadlock_free = cfg.get_bool("network.deadlock_free");
    ctx->tables = std::make_shared<const GraphTables>(std::move(t));
    return ctx;
  }

  // A family of its own builds its context from the topology's labels.
  static std::unique_ptr<RoutingContext> family_context(const Config& cfg, const std::string& topology,
                                                        const topo::Graph& g, const PortMaps& phys) {
    const std::string family = routing_family(topology);
    const RoutingContextFactory* make = routing_context_registry().find(family);
    if (!make || !phys.shared())
      throw std::logic_error("graph network: routing family " + family + " needs a context factory and port groups");
    return (*make)(FamilyInput{cfg, g, phys.of(0), int(cfg.get_int("router.vcs")), std::uint64_t(cfg.get_int("sim.seed"))});
  }

  // The routings of `topology` whose VC classes rise on every hop.
  static std::vector<std::string> hop_indexed_routings(const std::string& topology, const RoutingContext& ctx) {
    std::vector<std::string> names;
    for (const std::string& name : topology_routings(topology)) {
      if (name == "auto") continue;
      try {
        if (find_routing(topology, name).vc_need(ctx).hop_indexed) names.push_back(name);
      } catch (const std::exception&) {  // a routing this network cannot take (west_first off a 2-D mesh)
      }
    }
    return names;
  }

  static void check_vcs(const Config& cfg, const RoutingSpec& routing, const RoutingContext& ctx, bool graph_family,
                        const std::string& what) {
    const int vcs = int(cfg.get_int("router.vcs"));
    VcNeed need = routing.vc_need(ctx);
    // The graph routings fold their classes into one (every VC to every packet, for deadlock studies).
    if (graph_family && !cfg.get_bool("network.deadlock_free")) need.classes = 1;
    if (vcs < need.classes)
      throw ConfigError(fmt::format("config error: router.vcs = {}: {} needs at least {} VCs: {}", vcs, what,
                                    need.classes, need.why));
    check_route_vcs(cfg, need.classes, what);
  }

  // Under ranks, this rank's routers and nodes only.
  bool here(int router) const { return rank_of_router_.empty() || rank_of_router_[std::size_t(router)] == ranks().rank(); }
  std::vector<bool> local_nodes(const topo::Graph& g) const {
    if (rank_of_router_.empty()) return {};
    std::vector<bool> local(std::size_t(g.endpoints()), false);
    for (int node = 0; node < g.endpoints(); ++node) local[std::size_t(node)] = here(g.router_of_endpoint(node));
    return local;
  }
  static std::string router_name(const Config& cfg, const topo::Graph& g, int r) {
    const topo::GraphTopology* t = topo::find_graph_topology(cfg.get_string("network.topology"));
    return t->router_name ? t->router_name(g, r) : fmt::format("r{}", r);
  }

  void add_routers(const Config& cfg, const topo::Graph& g, int radix) {
    const RouterParams rp = router_params(cfg, radix);
    by_id_.assign(std::size_t(g.routers()), nullptr);
    for (int r = 0; r < g.routers(); ++r) {
      if (!here(r)) continue;
      routers_.push_back(std::make_unique<Router>(router_name(cfg, g, r).c_str(), r, rp, routing_.back().get(), clock_));
      by_id_[std::size_t(r)] = routers_.back().get();
    }
  }

  // Terminals in node order, then each channel once, from its lower router.
  // A channel to another rank's router gets a copy on each side.
  void attach_and_connect(const Config& cfg, const topo::Graph& g, const PortMaps& phys) {
    for (int node = 0; node < g.endpoints(); ++node) {
      const int r = g.router_of_endpoint(node);
      if (here(r)) attach_terminal(node, *by_id_[std::size_t(r)], phys.of(r)[node - g.first_endpoint(r)]);
    }
    for (int a = 0; a < g.routers(); ++a)
      for (int i = 0; i < g.network_ports(a); ++i) {
        const int b = g.links[a][i], j = g.peer_port[a][i];
        if (a >= b || !(here(a) || here(b))) continue;
        const int pa = phys.of(a)[g.terminals[a] + i], pb = phys.of(b)[g.terminals[b] + j];
        if (here(a) && here(b)) connect(*by_id_[std::size_t(a)], pa, *by_id_[std::size_t(b)], pb, cfg);
        else if (here(a)) connect_to_rank(*by_id_[std::size_t(a)], pa, b, router_name(cfg, g, b), pb, rank_of_router_[std::size_t(b)], cfg);
        else connect_to_rank(*by_id_[std::size_t(b)], pb, a, router_name(cfg, g, a), pa, rank_of_router_[std::size_t(a)], cfg);
      }
  }

  RouterLayout layout_;
  std::vector<Router*> by_id_;  // nullptr: another rank's
};

struct RegisterGraphNetwork {
  RegisterGraphNetwork() {
    graph_network_factory() = [](const Config& cfg, const Clock& clock, Ranks& ranks) {
      return std::unique_ptr<Network>(new GraphNetwork(cfg, clock, ranks));
    };
  }
} register_graph_network;

}  // namespace
}  // namespace nwn

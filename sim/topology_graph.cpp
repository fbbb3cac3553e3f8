// The graph network: any topology of sim/topo/ (torus, mesh, slimfly,
// dragonfly, fattree, ...) simulated with a router of the configured
// organization (router.org, router.radix) at every vertex. Router r gets
// its terminals on its first logical ports and its network ports after them,
// in the graph's order; network.port_assignment maps the two groups onto
// physical ports (tied or interleaved). Channels have
// network.link_latency_cycles each way. router.radix must cover the largest
// router of the graph; extra ports stay unused.
//
// Routing (network.routing) uses the all-pairs distance table of the graph
// (routers^2 bytes, so at most kMaxRouters routers). A port of router r is
// minimal toward router t when its far router is one hop closer to t.
// route_aux: bits 0-7 hops taken, bit 8 phase (1 = heading for the
// destination), bits 10-31 intermediate router + 1 (valiant, ugal).
// Deadlock freedom: except for dor, VC classes are hop-indexed: a packet that
// has taken h router-to-router hops uses class h on its next channel, the
// classes splitting router.vcs into equal ranges. Every channel-to-channel
// dependency goes from class h to class h + 1, so the channel dependency
// graph is acyclic whatever the topology; the cost is one class per hop of
// the longest path (D, the largest distance between routers with terminals,
// for minimal paths; 2E for paths through an intermediate, E the largest
// distance from a terminal router to any router). The ejection channel takes
// any VC (it always drains).
//
//   minimal  random among the minimal ports toward the destination router.
//            D classes.
//   minad    among the minimal ports, the one with the most free downstream
//            credits (Router::output_credits; ties at random). D classes.
//   valiant  at the source router, a uniformly random intermediate router
//            other than the source and destination routers; random minimal
//            ports to it, then to the destination. 2E classes.
//   ugal_l   UGAL with local information, decided once at the source router:
//            q_m = occupancy of the best minimal port toward the destination,
//            q_v = occupancy of the best minimal port toward a random
//            intermediate (as valiant); minimal when q_m x H_m <= q_v x H_v
//            (H = hops of the path: d(s, t), d(s, i) + d(i, t)). Occupancy =
//            downstream buffer space in use = router.vcs x
//            router.vc_depth_flits - output_credits (flits in the next
//            router's input buffer, on the channel, or whose credits are on
//            their way back). After the source: minad toward the current
//            target (intermediate, then destination). 2E classes.
//   ugal_g   UGAL with global information: as ugal_l, but the cost of a
//            candidate is the sum of the occupancies of every channel on it:
//            from the source, at each router the minimal port with the most
//            credits (what minad would take now), reading that router's
//            output_credits directly (one process, so every router's
//            counters are at hand). Minimal when Q_m <= Q_v. A router
//            earlier in the kernel's order may already have updated its
//            counters for this cycle: the reading is at most one cycle
//            stale. The kernel runs such a routing on one thread, cycle by
//            cycle (no blocks), in a fixed order (reads_other_routers), so
//            runs stay bit-reproducible.
//            2E classes.
//   dor      torus and mesh only: dimension order, lowest dimension first,
//            the shorter way around each ring (ties: +). Mesh: acyclic with
//            one class. Torus: dateline scheme with 2 classes: class 0 until
//            the packet takes the wraparound channel of the ring (k-1 -> 0
//            going +, 0 -> k-1 going -), class 1 from that channel on; the
//            class resets to 0 when the packet turns into the next
//            dimension. Within a ring, class 0 never uses the wraparound
//            channel and class 1 never reaches it again (a minimal path goes
//            at most half way around), so neither class closes a cycle;
//            dimensions are taken in increasing order, so there are no
//            cycles across dimensions. The class is computed from the source
//            coordinate (the packet has wrapped if it is below it going +),
//            so it needs no state.
//   auto     dor on torus and mesh, minimal elsewhere.
// Per route: a scan of the router's network ports (ugal_g: of every router
// on the two candidate paths); no allocation.
//
// traffic.pattern = worst_case: the network chooses a permutation of its
// terminal routers (adversarial_targets below).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "../models/rng.hpp"
#include "network.hpp"
#include "topo/graph.hpp"
#include "topo/torus.hpp"

namespace nwn {
namespace {

constexpr int kMaxRouters = 20000;
constexpr std::uint32_t kHopsMask = 0xff, kPhaseBit = 1u << 8;
constexpr int kInterShift = 10;

enum class Algo { Dor, Minimal, MinAd, Valiant, UgalL, UgalG };

// What routing reads: the graph's ports, their physical numbers and the distances.
struct Tables {
  int routers = 0, radix = 0;
  std::vector<int> net_begin;          // network ports of router r: net_begin[r] .. net_begin[r+1]-1
  std::vector<int> far;                // far router of each network port
  std::vector<std::int16_t> net_phys;  // physical port of each network port
  std::vector<std::int16_t> term_phys;  // per node: physical port of its terminal
  std::vector<int> node_router;
  std::vector<std::uint8_t> from_terminal;  // [r * radix + physical input]: a terminal's channel
  std::vector<std::uint8_t> dist;
  int d(int a, int b) const { return dist[std::size_t(a) * routers + b]; }
};

class GraphRouting final : public GlobalRouting {
 public:
  GraphRouting(Tables t, Algo algo, int vcs, int classes, int capacity_flits, std::optional<topo::TorusShape> torus,
               const std::vector<std::unique_ptr<Router>>* routers, std::uint64_t seed)
      : t_(std::move(t)),
        algo_(algo),
        vcs_(vcs),
        classes_(classes),
        capacity_(capacity_flits),
        torus_(std::move(torus)),
        routers_(routers) {
    for (int r = 0; r < t_.routers; ++r) rng_.emplace_back(seed, 0x6772ULL << 32 | std::uint64_t(r));
  }

  bool reads_other_routers() const override { return algo_ == Algo::UgalG; }

  void route(Router& router, int in_port, Flit& head) override {
    const int r = router.id();
    if (t_.from_terminal[std::size_t(r) * t_.radix + in_port]) head.route_aux = 0;  // at the source router
    const int dst = t_.node_router[head.dst];
    if (r == dst) {
      finish(head, t_.term_phys[head.dst], 0, vcs_ - 1);
      return;
    }
    std::uint32_t aux = std::uint32_t(head.route_aux);
    const int hops = int(aux & kHopsMask);
    Rng& rng = rng_[r];
    int port = -1, cls = hops;
    switch (algo_) {
      case Algo::Dor: port = dor_port(r, head, cls); break;
      case Algo::Minimal: port = random_minimal(r, dst, rng); break;
      case Algo::MinAd: port = adaptive_minimal(router, r, dst, rng); break;
      case Algo::Valiant:
      case Algo::UgalL:
      case Algo::UgalG: port = indirect_port(router, r, dst, rng, aux); break;
    }
    if (classes_ == 1) cls = 0;  // network.deadlock_free = false: every VC to every packet
    else if (cls >= classes_) throw std::logic_error("graph routing: VC class beyond the classes counted at construction");
    head.route_aux = std::int32_t((aux & ~kHopsMask) | std::uint32_t(hops + 1));
    finish(head, t_.net_phys[port], cls * vcs_ / classes_, (cls + 1) * vcs_ / classes_ - 1);
  }

 private:
  static void finish(Flit& head, int phys, int lo, int hi) {
    head.router_out = std::int16_t(phys);
    head.router_vc_lo = std::uint8_t(lo);
    head.router_vc_hi = std::uint8_t(hi);
  }
  bool minimal(int p, int target, int want) const { return t_.d(t_.far[p], target) == want; }
  int occupancy(const Router& router, int p) const { return capacity_ - router.output_credits(t_.net_phys[p]); }

  int random_minimal(int r, int target, Rng& rng) const {
    const int want = t_.d(r, target) - 1;
    int count = 0;
    for (int p = t_.net_begin[r]; p < t_.net_begin[r + 1]; ++p) count += minimal(p, target, want);
    int pick = int(rng.below(std::uint32_t(count)));
    for (int p = t_.net_begin[r];; ++p)
      if (minimal(p, target, want) && pick-- == 0) return p;
  }

  // The minimal port with the most free credits; ties at random (with rng) or the first (without).
  int adaptive_minimal(const Router& router, int r, int target, Rng* rng) const {
    const int want = t_.d(r, target) - 1;
    int best = -1, best_credits = -1;
    std::uint32_t ties = 0;
    for (int p = t_.net_begin[r]; p < t_.net_begin[r + 1]; ++p) {
      if (!minimal(p, target, want)) continue;
      const int c = router.output_credits(t_.net_phys[p]);
      if (c > best_credits) {
        best = p;
        best_credits = c;
        ties = 1;
      } else if (c == best_credits && rng && rng->below(++ties) == 0) {
        best = p;
      }
    }
    return best;
  }
  int adaptive_minimal(const Router& router, int r, int target, Rng& rng) const {
    return adaptive_minimal(router, r, target, &rng);
  }

  // Sum of occupancies along the path minad would take now from a to b (ugal_g).
  long path_occupancy(int a, int b) const {
    long q = 0;
    while (a != b) {
      const Router& router = *(*routers_)[a];
      const int p = adaptive_minimal(router, a, b, nullptr);
      q += occupancy(router, p);
      a = t_.far[p];
    }
    return q;
  }

  int indirect_port(Router& router, int r, int dst, Rng& rng, std::uint32_t& aux) const {
    if ((aux & ~kHopsMask) == 0) {  // at the source router: choose the path
      if (t_.routers <= 2) {
        aux |= kPhaseBit;
      } else {
        int inter = int(rng.below(std::uint32_t(t_.routers - 2)));
        for (int x : {std::min(r, dst), std::max(r, dst)})
          if (inter >= x) ++inter;
        bool go_minimal = false;
        if (algo_ == Algo::UgalL) {
          const int pm = adaptive_minimal(router, r, dst, rng), pv = adaptive_minimal(router, r, inter, rng);
          const long cost_m = long(occupancy(router, pm)) * t_.d(r, dst);
          const long cost_v = long(occupancy(router, pv)) * (t_.d(r, inter) + t_.d(inter, dst));
          go_minimal = cost_m <= cost_v;
          if (go_minimal) {
            aux |= kPhaseBit;
            return pm;
          }
          aux |= std::uint32_t(inter + 1) << kInterShift;
          return pv;
        }
        if (algo_ == Algo::UgalG) go_minimal = path_occupancy(r, dst) <= path_occupancy(r, inter) + path_occupancy(inter, dst);
        aux |= go_minimal ? kPhaseBit : std::uint32_t(inter + 1) << kInterShift;
      }
    }
    int target = dst;
    if (!(aux & kPhaseBit)) {
      target = int(aux >> kInterShift) - 1;
      if (target == r) {  // reached the intermediate router
        aux = (aux & kHopsMask) | kPhaseBit;
        target = dst;
      }
    }
    return algo_ == Algo::Valiant ? random_minimal(r, target, rng) : adaptive_minimal(router, r, target, rng);
  }

  int dor_port(int r, const Flit& head, int& cls) const {
    const topo::TorusShape& s = *torus_;
    const int dst = t_.node_router[head.dst], src = t_.node_router[head.src];
    for (int i = 0; i < s.dims(); ++i) {
      const int c = s.coord(r, i), d = s.coord(dst, i);
      if (c == d) continue;
      int dir = d > c ? +1 : -1;
      cls = 0;
      if (s.wrap) {
        const int k = s.k[i], delta = (d - c + k) % k, from = s.coord(src, i);
        dir = 2 * delta <= k ? +1 : -1;
        const bool wrapped = dir > 0 ? (c == k - 1 || c < from) : (c == 0 || c > from);
        cls = wrapped ? 1 : 0;
      }
      return t_.net_begin[r] + s.port(r, i, dir);
    }
    throw std::logic_error("dor: packet at its destination router");
  }

  Tables t_;
  Algo algo_;
  int vcs_, classes_, capacity_;
  std::optional<topo::TorusShape> torus_;
  const std::vector<std::unique_ptr<Router>>* routers_;
  std::vector<Rng> rng_;
};

// --- traffic.pattern = worst_case: a permutation of the terminal routers ---

// Each router in turn takes the farthest router not yet taken (ties: the
// first in cyclic order from half way round the list, i.e. a shift by half).
void farthest_targets(const Tables& t, const std::vector<int>& list, std::vector<int>& target) {
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
void overlapping_chain_targets(const topo::Graph& g, const Tables& t, std::vector<int>& target) {
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
std::string adversarial_targets(const std::string& topology, const topo::Graph& g, const Tables& t, int diameter,
                                std::vector<int>& target) {
  target.resize(t.routers);
  for (int r = 0; r < t.routers; ++r) target[r] = r;
  std::vector<int> term;
  bool all_terminal = true;
  for (int r = 0; r < t.routers; ++r) {
    if (g.terminals[r] > 0) term.push_back(r);
    all_terminal = all_terminal && g.terminals[r] > 0;
  }
  if (topology == "dragonfly" && group_shift_targets(g, term, target))
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

Algo parse_algo(const std::string& name, bool torus) {
  if (name == "auto") return torus ? Algo::Dor : Algo::Minimal;
  if (name == "dor" && torus) return Algo::Dor;
  if (name == "minimal") return Algo::Minimal;
  if (name == "minad") return Algo::MinAd;
  if (name == "valiant") return Algo::Valiant;
  if (name == "ugal_l") return Algo::UgalL;
  if (name == "ugal_g") return Algo::UgalG;
  if (name == "dor")
    throw ConfigError("config error: network.routing = dor needs network.topology = torus or mesh (dimension order "
                      "needs coordinates); use minimal, minad, valiant, ugal_l or ugal_g");
  throw ConfigError("config error: network.routing = '" + name +
                    "' does not apply to graph topologies; use minimal, minad, valiant, ugal_l, ugal_g (and dor on "
                    "torus and mesh)");
}

class GraphNetwork final : public Network {
 public:
  GraphNetwork(const Config& cfg, const Clock& clock) : Network(cfg, clock) {
    const topo::Graph g = topo::build_graph(cfg);
    const std::string& topology = cfg.get_string("network.topology");
    const int n = g.routers();
    if (n > kMaxRouters)
      throw ConfigError(fmt::format("config error: {} has {} routers; the graph network keeps a routers^2 distance "
                                    "table and simulates at most {} routers",
                                    topology_parameters(cfg, g), n, kMaxRouters));
    const int radix = int(cfg.get_int("router.radix"));
    if (radix < g.max_radix())
      throw ConfigError(fmt::format("config error: router.radix = {} is too small for {}: its largest router has {} "
                                    "ports (terminals + network ports); set router.radix >= {}",
                                    radix, topology_parameters(cfg, g), g.max_radix(), g.max_radix()));
    Tables t;
    t.routers = n;
    t.radix = radix;
    t.dist = topo::distances(g);
    int diameter = 0, eccentricity = 0;  // D over terminal routers; E from terminal routers to all routers
    for (int a = 0; a < n; ++a) {
      if (g.terminals[a] == 0) continue;
      for (int b = 0; b < n; ++b) {
        if (t.d(a, b) == 0xff)
          throw ConfigError(fmt::format("config error: {} is not connected (router {} cannot reach router {})",
                                        topology_parameters(cfg, g), a, b));
        eccentricity = std::max(eccentricity, t.d(a, b));
        if (g.terminals[b] > 0) diameter = std::max(diameter, t.d(a, b));
      }
    }
    const bool torus = topo::is_torus_topology(topology);
    const std::string& routing = cfg.get_string("network.routing");
    const Algo algo = parse_algo(routing, torus);
    std::optional<topo::TorusShape> shape;
    if (torus) shape = topo::torus_shape(cfg);
    const int vcs = int(cfg.get_int("router.vcs"));
    int classes = std::max(1, diameter);
    std::string why = fmt::format(
        "one VC class per hop (hop-indexed classes keep the channel dependency graph acyclic), and minimal paths "
        "between routers with terminals take up to {} hops",
        diameter);
    if (algo == Algo::Valiant || algo == Algo::UgalL || algo == Algo::UgalG) {
      classes = std::max(1, 2 * eccentricity);
      why = fmt::format(
          "one VC class per hop (hop-indexed classes keep the channel dependency graph acyclic), and a path through "
          "an intermediate router takes up to 2 x {} = {} hops",
          eccentricity, 2 * eccentricity);
    } else if (algo == Algo::Dor) {
      classes = shape->wrap ? 2 : 1;
      why = "the dateline scheme: one class before and one after the wraparound channel of each ring";
    }
    if (!cfg.get_bool("network.deadlock_free")) classes = 1;
    if (vcs < classes)
      throw ConfigError(fmt::format("config error: router.vcs = {}: network.routing = {} on {} needs at least {} "
                                    "VCs: {}",
                                    vcs, routing, topology_parameters(cfg, g), classes, why));
    check_route_vcs(cfg, classes, fmt::format("network.routing = {} on {}", routing, topology_parameters(cfg, g)));

    // Ports: terminals, then network ports, through the port map.
    const std::string& assignment = cfg.get_string("network.port_assignment");
    std::vector<std::vector<int>> phys(n);
    t.net_begin.assign(n + 1, 0);
    t.from_terminal.assign(std::size_t(n) * radix, 0);
    for (int r = 0; r < n; ++r) {
      phys[r] = port_map(assignment, {g.terminals[r], g.network_ports(r)}, radix);
      t.net_begin[r + 1] = t.net_begin[r] + g.network_ports(r);
      for (int i = 0; i < g.network_ports(r); ++i) {
        t.far.push_back(g.links[r][i]);
        t.net_phys.push_back(std::int16_t(phys[r][g.terminals[r] + i]));
      }
      for (int i = 0; i < g.terminals[r]; ++i) {
        t.term_phys.push_back(std::int16_t(phys[r][i]));
        t.node_router.push_back(r);
        t.from_terminal[std::size_t(r) * radix + phys[r][i]] = 1;
      }
    }
    if (shape) check_torus_ports(*shape, t);

    layout_.first_node.resize(n + 1);
    for (int r = 0; r < n; ++r) layout_.first_node[r] = g.first_endpoint(r);
    layout_.first_node[n] = g.endpoints();
    layout_.node_router = t.node_router;
    if (cfg.get_string("traffic.pattern") == "worst_case")
      layout_.worst_case_rule = adversarial_targets(topology, g, t, diameter, layout_.worst_case_target);
    make_endpoints(cfg, g.endpoints(), &layout_);

    const RouterParams rp = router_params(cfg, radix);
    const int capacity = vcs * int(cfg.get_int("router.vc_depth_flits"));
    routing_.push_back(std::make_unique<GraphRouting>(std::move(t), algo, vcs, classes, capacity, shape, &routers_,
                                                      std::uint64_t(cfg.get_int("sim.seed"))));
    for (int r = 0; r < n; ++r)
      routers_.push_back(std::make_unique<Router>(fmt::format("r{}", r).c_str(), r, rp, routing_.back().get(), clock_));
    for (int node = 0; node < g.endpoints(); ++node) {
      const int r = g.router_of_endpoint(node);
      attach_terminal(node, *routers_[r], phys[r][node - g.first_endpoint(r)]);
    }
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < g.network_ports(a); ++i) {
        const int b = g.links[a][i], j = g.peer_port[a][i];
        if (a < b) connect(*routers_[a], phys[a][g.terminals[a] + i], *routers_[b], phys[b][g.terminals[b] + j], cfg);
      }
    enable_heatmaps_if(cfg);
  }

 private:
  // dor trusts the generator's port layout (sim/topo/torus.hpp); a mismatch is a bug.
  static void check_torus_ports(const topo::TorusShape& s, const Tables& t) {
    for (int r = 0; r < t.routers; ++r)
      for (int i = 0; i < s.dims(); ++i)
        for (int dir : {+1, -1}) {
          const int p = s.port(r, i, dir);
          if ((p < 0) != (s.step(r, i, dir) < 0) || (p >= 0 && t.far[t.net_begin[r] + p] != s.step(r, i, dir)))
            throw std::logic_error(fmt::format("torus: router {} dimension {} port {} does not match the graph", r, i, dir));
        }
  }

  RouterLayout layout_;
};

struct RegisterGraphNetwork {
  RegisterGraphNetwork() {
    graph_network_factory() = [](const Config& cfg, const Clock& clock) {
      return std::unique_ptr<Network>(new GraphNetwork(cfg, clock));
    };
    graph_network_routings() = [](const std::string& topology) {
      std::vector<std::string> r = {"auto", "minimal", "minad", "valiant", "ugal_l", "ugal_g"};
      if (topo::is_torus_topology(topology)) r.push_back("dor");
      return r;
    };
  }
} register_graph_network;

}  // namespace
}  // namespace nwn

// The routings of the graph network (sim/topology_graph.cpp): what they read
// and the parts they share. A routing of any graph topology is one file
// here: a class deriving GraphRouting<Self> with
//   int port(Router&, int r, int dst, Rng&, std::uint32_t& aux, const Flit& head, int& cls)
// (the network port toward router dst; cls: the VC class, preset to the
// hops taken), registered with RoutingRegistration for family "graph".
//
// route_aux: bits 0-7 hops taken, bit 8 phase (1 = heading for the
// destination), bits 10-31 intermediate router + 1 (valiant, ugal).
// Unless a routing says otherwise, VC classes are hop-indexed: a packet that
// has taken h router-to-router hops uses class h on its next channel, the
// classes splitting router.vcs into equal ranges. Every channel-to-channel
// dependency goes from class h to class h + 1, so the channel dependency
// graph is acyclic whatever the topology; the cost is one class per hop of
// the longest path. The ejection channel takes any VC (it always drains).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../../models/rng.hpp"
#include "../../models/router.hpp"
#include "../topo/graph.hpp"
#include "../topo/torus.hpp"
#include "routing.hpp"

namespace nwn {

// What routing reads: the graph's ports, their physical numbers and the distances.
struct GraphTables {
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

struct GraphRoutingContext : RoutingContext {
  std::shared_ptr<const GraphTables> tables;  // set before make()
  int diameter = 0;      // D: the largest distance between routers with terminals
  int eccentricity = 0;  // E: the largest distance from a router with terminals to any router
  std::optional<topo::TorusShape> torus;  // torus and mesh
  // The topology's router labels and what they are (topo::Graph::group,
  // GraphTopology::group_label): e.g. each router's Dragonfly group.
  std::vector<int> group;
  topo::GroupLabel group_label = topo::GroupLabel::None;
  int vcs = 1;
  int capacity_flits = 0;  // router.vcs x router.vc_depth_flits: a port's downstream buffer space
  const std::vector<std::unique_ptr<Router>>* routers = nullptr;  // routings that read other routers
  std::uint64_t seed = 1;
  bool deadlock_free = true;  // network.deadlock_free: false puts every packet on every VC (one class)
};

constexpr std::uint32_t kGraphHopsMask = 0xff, kGraphPhaseBit = 1u << 8;
constexpr int kGraphInterShift = 10;

// The parts every graph routing shares: the tables and port choices.
class GraphRoutingCore {
 public:
  GraphRoutingCore(const RoutingContext& c, int classes) : GraphRoutingCore(static_cast<const GraphRoutingContext&>(c), classes) {}
  GraphRoutingCore(const GraphRoutingContext& c, int classes)
      : keep_(c.tables),
        t_(*keep_),
        vcs_(c.vcs),
        classes_(c.deadlock_free ? classes : 1),
        capacity_(c.capacity_flits),
        one_class_(!c.deadlock_free) {
    for (int r = 0; r < t_.routers; ++r) rng_.emplace_back(c.seed, 0x6772ULL << 32 | std::uint64_t(r));
  }

 protected:
  bool minimal(int p, int target, int want) const { return t_.d(t_.far[p], target) == want; }
  int occupancy(const Router& router, int p) const { return capacity_ - router.output_credits(t_.net_phys[p]); }

  int random_minimal(int r, int target, Rng& rng) const {
    const std::uint64_t* set = minimal_set(r, target);
    int count = 0;
    if (set) count = set_count(set);
    else for_each_minimal(r, target, set, [&](int) { ++count; return false; });
    int pick = int(rng.below(std::uint32_t(count)));
    if (set && set_run(set) >= 0) return t_.net_begin[r] + set_run(set) + pick;
    int chosen = -1;
    for_each_minimal(r, target, set, [&](int p) { return pick-- == 0 && (chosen = p, true); });
    return chosen;
  }

  // Calls f(p) for each minimal port p of router r toward target, in port
  // order, until f returns true: from its set (one lookup) when r has the
  // table, else by reading each port's distance.
  template <typename F>
  void for_each_minimal(int r, int target, const std::uint64_t* set, F&& f) const {
    if (set) {
      for (int w = 1; w <= minimal_sets_[std::size_t(r)].words; ++w)
        for (std::uint64_t bits = set[w]; bits; bits &= bits - 1)
          if (f(t_.net_begin[r] + (w - 1) * 64 + __builtin_ctzll(bits))) return;
      return;
    }
    const int want = t_.d(r, target) - 1;
    for (int p = t_.net_begin[r]; p < t_.net_begin[r + 1]; ++p)
      if (minimal(p, target, want) && f(p)) return;
  }

  // A uniformly random router other than a and b (an intermediate).
  int random_intermediate(int a, int b, Rng& rng) const {
    int inter = int(rng.below(std::uint32_t(t_.routers - 2)));
    for (int x : {std::min(a, b), std::max(a, b)})
      if (inter >= x) ++inter;
    return inter;
  }

  // The router a packet at r heads for: its intermediate (route_aux) until
  // it reaches it, then (phase bit set in aux) the destination.
  int current_target(int r, int dst, std::uint32_t& aux) const {
    if (aux & kGraphPhaseBit) return dst;
    const int target = int(aux >> kGraphInterShift) - 1;
    if (target != r) return target;
    aux = (aux & kGraphHopsMask) | kGraphPhaseBit;  // reached the intermediate router
    return dst;
  }

  // UGAL with router r's own occupancies (ugal_l, par): q_m = occupancy of
  // the best minimal port toward dst, q_v = that toward a random
  // intermediate; minimal when q_m x H_m <= q_v x H_v (H: the path's hops).
  // Sets aux (phase bit, or the intermediate) and returns the port.
  int ugal_local(const Router& router, int r, int dst, Rng& rng, std::uint32_t& aux) const {
    const std::uint32_t hops = aux & kGraphHopsMask;
    const int inter = random_intermediate(r, dst, rng);
    const int pm = adaptive_minimal(router, r, dst, &rng), pv = adaptive_minimal(router, r, inter, &rng);
    const long cost_m = long(occupancy(router, pm)) * t_.d(r, dst);
    const long cost_v = long(occupancy(router, pv)) * (t_.d(r, inter) + t_.d(inter, dst));
    if (cost_m <= cost_v) {
      aux = hops | kGraphPhaseBit;
      return pm;
    }
    aux = hops | std::uint32_t(inter + 1) << kGraphInterShift;
    return pv;
  }

  // The minimal port with the most free credits; ties at random (with rng) or the first (without).
  int adaptive_minimal(const Router& router, int r, int target, Rng* rng) const {
    int best = -1, best_credits = -1;
    std::uint32_t ties = 0;
    for_each_minimal(r, target, minimal_set(r, target), [&](int p) {
      const int c = router.output_credits(t_.net_phys[p]);
      if (c > best_credits) {
        best = p;
        best_credits = c;
        ties = 1;
      } else if (c == best_credits && rng && rng->below(++ties) == 0) {
        best = p;
      }
      return false;
    });
    return best;
  }

  std::shared_ptr<const GraphTables> keep_;
  const GraphTables& t_;
  int vcs_, classes_, capacity_;
  bool one_class_;  // network.deadlock_free = false: every packet on every VC
  std::vector<Rng> rng_;

 private:
  // The minimal ports of router r toward each target, as bit sets over r's
  // network ports (bit i: port net_begin[r] + i): a route reads one set
  // instead of the distance of every port's far router (one cache miss
  // each in a large network: 9 % of a 4,096-node fat tree's time). Few
  // distinct sets per router (a fat-tree router: one per down port, plus
  // all up ports), so each target has a one-byte index into its router's
  // sets: the table is the size of the distance table. Built per router at
  // its first route, by the thread that runs that router (a routing reads
  // only its own router's row, except ugal_g, which runs on one thread); a
  // router with more than 255 distinct sets keeps the scan.
  struct MinimalSets {
    bool built = false;
    int words = 0;                     // words of a set's bits
    std::vector<std::uint8_t> index;   // per target: its set; 0xff: none (the scan)
    // Per set: a word of count (low half) and first port + 1 when the ports
    // are one run (high half; 0: not a run), then the bits.
    std::vector<std::uint64_t> sets;
  };
  static int set_count(const std::uint64_t* set) { return int(set[0] & 0xffffffffu); }
  static int set_run(const std::uint64_t* set) { return int(set[0] >> 32) - 1; }
  const std::uint64_t* minimal_set(int r, int target) const {
    MinimalSets& m = minimal_sets_[std::size_t(r)];
    if (!m.built) build_minimal_sets(r, m);
    const std::uint8_t i = m.index.empty() ? 0xff : m.index[std::size_t(target)];
    return i == 0xff ? nullptr : &m.sets[std::size_t(i) * std::size_t(m.words + 1)];
  }
  void build_minimal_sets(int r, MinimalSets& m) const {
    m.built = true;
    const int ports = t_.net_begin[r + 1] - t_.net_begin[r], n = t_.routers;
    const std::size_t words = std::size_t(ports + 63) / 64;
    m.words = int(words);
    if (words == 0) return;
    // Port by port along the far router's distance row: the same test as
    // minimal(), d(far, target) == d(r, target) - 1, in row order.
    std::vector<std::uint64_t> bits(std::size_t(n) * words, 0);
    const std::uint8_t* from = &t_.dist[std::size_t(r) * std::size_t(n)];
    for (int i = 0; i < ports; ++i) {
      const std::uint8_t* far = &t_.dist[std::size_t(t_.far[std::size_t(t_.net_begin[r] + i)]) * std::size_t(n)];
      const std::uint64_t bit = std::uint64_t{1} << (i % 64);
      std::uint64_t* column = &bits[std::size_t(i) / 64];
      for (int target = 0; target < n; ++target)
        if (int(far[target]) + 1 == int(from[target])) column[std::size_t(target) * words] |= bit;
    }
    std::vector<std::uint8_t> index(std::size_t(n), 0xff);
    std::vector<std::uint64_t> sets;
    const std::size_t stride = words + 1;
    for (int target = 0; target < n; ++target) {
      const std::uint64_t* set = &bits[std::size_t(target) * words];
      if (std::all_of(set, set + words, [](std::uint64_t w) { return w == 0; })) continue;  // none: the scan's behaviour
      std::size_t k = 0;
      const std::size_t distinct = sets.size() / stride;
      while (k < distinct && !std::equal(set, set + words, sets.begin() + std::ptrdiff_t(k * stride + 1))) ++k;
      if (k == distinct) {
        if (distinct == 0xff) return;  // too many distinct sets: the scan
        int count = 0, first = -1, last = -1;
        for (int i = 0; i < ports; ++i)
          if (set[std::size_t(i) / 64] >> (i % 64) & 1) {
            ++count;
            if (first < 0) first = i;
            last = i;
          }
        const bool run = last - first + 1 == count;
        sets.push_back(std::uint64_t(count) | std::uint64_t(run ? first + 1 : 0) << 32);
        sets.insert(sets.end(), set, set + words);
      }
      index[std::size_t(target)] = std::uint8_t(k);
    }
    m.index.swap(index);
    m.sets.swap(sets);
  }
  mutable std::vector<MinimalSets> minimal_sets_ = std::vector<MinimalSets>(std::size_t(t_.routers));
};

template <class Self>
class GraphRouting : public GlobalRouting, protected GraphRoutingCore {
 public:
  using GraphRoutingCore::GraphRoutingCore;

  void route(Router& router, int in_port, Flit& head) final {
    const int r = router.id();
    if (t_.from_terminal[std::size_t(r) * t_.radix + in_port]) head.route_aux = 0;  // at the source router
    const int dst = t_.node_router[head.dst];
    if (r == dst) {
      finish(head, t_.term_phys[head.dst], 0, vcs_ - 1);
      return;
    }
    std::uint32_t aux = std::uint32_t(head.route_aux);
    const int hops = int(aux & kGraphHopsMask);
    int cls = hops;
    const int port = static_cast<Self*>(this)->port(router, r, dst, rng_[r], aux, head, cls);
    if (one_class_) cls = 0;
    else if (cls >= classes_) throw std::logic_error("graph routing: VC class beyond the classes counted at construction");
    head.route_aux = std::int32_t((aux & ~kGraphHopsMask) | std::uint32_t(hops + 1));
    finish(head, t_.net_phys[port], cls * vcs_ / classes_, (cls + 1) * vcs_ / classes_ - 1);
  }

 private:
  static void finish(Flit& head, int phys, int lo, int hi) {
    head.router_out = std::int16_t(phys);
    head.router_vc_lo = std::uint8_t(lo);
    head.router_vc_hi = std::uint8_t(hi);
  }
};

// Hop-indexed classes for minimal paths: D classes.
inline VcNeed minimal_path_classes(const RoutingContext& c) {
  const auto& g = static_cast<const GraphRoutingContext&>(c);
  return {std::max(1, g.diameter),
          "one VC class per hop (hop-indexed classes keep the channel dependency graph acyclic), and minimal paths "
          "between routers with terminals take up to " + std::to_string(g.diameter) + " hops",
          true};
}

// Hop-indexed classes for a path through an intermediate router: 2E classes.
inline VcNeed indirect_path_classes(const RoutingContext& c) {
  const auto& g = static_cast<const GraphRoutingContext&>(c);
  return {std::max(1, 2 * g.eccentricity),
          "one VC class per hop (hop-indexed classes keep the channel dependency graph acyclic), and a path through "
          "an intermediate router takes up to 2 x " + std::to_string(g.eccentricity) + " = " +
              std::to_string(2 * g.eccentricity) + " hops",
          true};
}

}  // namespace nwn

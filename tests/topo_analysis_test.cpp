// Graph analysis (sim/topo/analysis.hpp) on graphs whose figures are known,
// and the nested topologies' routed distances against a brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "sim/config.hpp"
#include "sim/topo/analysis.hpp"
#include "sim/topo/graph.hpp"
#include "sim/topo/metis_bisection.hpp"
#include "sim/topo/nest.hpp"

namespace nwn::topo {
namespace {

Graph build(std::initializer_list<std::string> sets) {
  Config c;
  for (auto& s : sets) c.set_override(s);
  return build_graph(c);
}

Graph by_hand(const std::string& name, int n, const std::function<bool(int, int)>& edge, int terminals = 1) {
  Graph g;
  g.name = name;
  g.terminals.assign(n, terminals);
  g.links.assign(n, {});
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && edge(a, b)) g.links[a].push_back(b);
  g.finalize();
  return g;
}

Graph hypercube(int dims) {
  return by_hand("hypercube", 1 << dims, [](int a, int b) { return __builtin_popcount(a ^ b) == 1; });
}

TEST(TopoAnalysis, HypercubeDistancesPathsAndBisection) {
  const Graph g = hypercube(4);
  AnalysisOptions opt;
  const Analysis a = analyze(g, opt);
  EXPECT_FALSE(a.sampled);
  EXPECT_EQ(a.diameter, 4);
  EXPECT_DOUBLE_EQ(a.avg_hops_routers, 32.0 / 15.0);  // sum_d d * C(4, d) over 15 others
  EXPECT_DOUBLE_EQ(a.paths_max, 24.0);                // 4! paths between antipodes
  // Minimal paths between routers at distance d: d!; average over the 15 others.
  EXPECT_DOUBLE_EQ(a.paths_avg, (4 * 1 + 6 * 2 + 4 * 6 + 1 * 24) / 15.0);
  EXPECT_TRUE(a.bisection.exact);
  EXPECT_EQ(a.bisection.cut, 8);
  EXPECT_DOUBLE_EQ(a.bisection_beta, 1.0);
  EXPECT_EQ(a.channels, 32);
}

TEST(TopoAnalysis, ExactBisectionOfRingsAndCompleteGraphs) {
  AnalysisOptions opt;
  const Graph ring = by_hand("ring", 10, [](int a, int b) { return (a + 1) % 10 == b || (b + 1) % 10 == a; });
  EXPECT_EQ(bisection(ring, opt).cut, 2);
  const Graph k9 = by_hand("K9", 9, [](int, int) { return true; });
  EXPECT_EQ(bisection(k9, opt).cut, 4 * 5);  // odd: sides of 4 and 5
  // Two K5 joined by one channel: the cut is that channel.
  const Graph bar = by_hand("barbell", 10, [](int a, int b) { return (a < 5) == (b < 5) || (a == 4 && b == 5) || (a == 5 && b == 4); });
  EXPECT_EQ(bisection(bar, opt).cut, 1);
}

TEST(TopoAnalysis, FiducciaMattheysesFindsTheExactCutsOfSmallGraphs) {
  AnalysisOptions exact, heuristic;
  heuristic.exact_bisection_routers = 0;
  for (const Graph& g : {hypercube(4), build({"network.topology=slimfly", "network.slimfly.q=3"}),
                         build({"network.topology=fattree", "network.fattree.radix=4", "network.fattree.levels=3"}),
                         build({"network.topology=dragonfly", "network.dragonfly.p=1"})}) {
    SCOPED_TRACE(g.name);
    ASSERT_LE(g.routers(), 24);
    const Bisection e = bisection(g, exact), h = bisection(g, heuristic);
    EXPECT_TRUE(e.exact);
    EXPECT_FALSE(h.exact);
    EXPECT_EQ(h.cut, e.cut);
  }
}

// The partition a bisection reports: balanced, and cutting `cut` channels.
void expect_valid_partition(const Graph& g, const Bisection& b) {
  ASSERT_EQ(int(b.side.size()), g.routers());
  int with_endpoints = 0, on_one = 0;
  std::int64_t cut = 0;
  for (int r = 0; r < g.routers(); ++r) {
    with_endpoints += g.terminals[r] > 0;
    on_one += g.terminals[r] > 0 && b.side[r];
    for (int v : g.links[r]) cut += b.side[r] != b.side[v];
  }
  EXPECT_EQ(cut / 2, b.cut);
  EXPECT_TRUE(on_one == with_endpoints / 2 || on_one == (with_endpoints + 1) / 2) << on_one << " of " << with_endpoints;
}

TEST(TopoAnalysis, BisectionsReportBalancedPartitionsOfTheirCut) {
  AnalysisOptions exact, heuristic;
  heuristic.exact_bisection_routers = 0;
  for (const Graph& g : {hypercube(4), build({"network.topology=slimfly", "network.slimfly.q=7"}),
                         build({"network.topology=oft", "network.oft.k=6"}),
                         build({"network.topology=mlfm", "network.mlfm.h=5"}),
                         build({"network.topology=fattree", "network.fattree.radix=4", "network.fattree.levels=3"})}) {
    SCOPED_TRACE(g.name);
    expect_valid_partition(g, bisection(g, heuristic));
    if (g.routers() <= exact.exact_bisection_routers) expect_valid_partition(g, bisection(g, exact));
  }
}

// Graphs whose minimum bisection is known, too large for the exhaustive
// search: two K_n joined by k channels (k), a ring (2), a 2-D torus of even
// sides a x b, a <= b (2a), a hypercube (2^(d-1)).
Graph two_cliques(int n, int k) {
  // Router i of the first clique and router n + i of the second are joined for i < k.
  return by_hand("two K" + std::to_string(n) + " joined by " + std::to_string(k), 2 * n, [n, k](int a, int b) {
    return (a < n) == (b < n) || (std::min(a, b) < k && std::max(a, b) == std::min(a, b) + n);
  });
}
Graph ring(int n) {
  return by_hand("ring", n, [n](int a, int b) { return (a + 1) % n == b || (b + 1) % n == a; });
}
Graph torus2d(int a, int b) {
  return by_hand("torus", a * b, [a, b](int u, int v) {
    const int ux = u % a, uy = u / a, vx = v % a, vy = v / a;
    return (uy == vy && ((ux + 1) % a == vx || (vx + 1) % a == ux)) ||
           (ux == vx && ((uy + 1) % b == vy || (vy + 1) % b == uy));
  });
}

struct KnownBisection {
  Graph g;
  std::int64_t cut;
};
std::vector<KnownBisection> known_bisections() {
  return {{two_cliques(20, 1), 1}, {two_cliques(20, 3), 3}, {two_cliques(30, 7), 7}, {ring(40), 2},
          {ring(101), 2},          {torus2d(8, 8), 16},     {torus2d(8, 16), 16},   {hypercube(6), 32}};
}

// METIS alone (its own partition and cut, before the exact balance and
// FM), and the metis method as topo analyze runs it.
TEST(TopoAnalysis, MetisFindsKnownMinimumBisections) {
  AnalysisOptions metis;
  metis.exact_bisection_routers = 0;
  metis.bisection_method = BisectionMethod::metis;
  for (const auto& [g, cut] : known_bisections()) {
    SCOPED_TRACE(g.name + " of " + std::to_string(g.routers()));
    std::vector<std::vector<std::pair<int, int>>> adjacency(g.routers());
    for (int r = 0; r < g.routers(); ++r)
      for (int v : g.links[r]) adjacency[r].push_back({v, 1});
    const MetisBisection m = metis_bisection(adjacency, std::vector<int>(g.routers(), 1), 1);
    std::int64_t counted = 0;
    int on_one = 0;
    for (int r = 0; r < g.routers(); ++r) {
      on_one += m.side[r];
      for (int v : g.links[r]) counted += m.side[r] != m.side[v];
    }
    EXPECT_EQ(counted / 2, m.cut) << "METIS's objective is the partition's cut";
    EXPECT_EQ(m.cut, cut);
    EXPECT_LE(std::abs(2 * on_one - g.routers()), 1) << "METIS's sides at these sizes are within one";
    const Bisection b = bisection(g, metis);
    EXPECT_FALSE(b.exact);
    EXPECT_EQ(b.cut, cut);
    expect_valid_partition(g, b);
    EXPECT_NE(b.method.find("METIS"), std::string::npos) << b.method;
  }
}

TEST(TopoAnalysis, MetisCountsParallelChannels) {
  // Two K6 joined by one router pair with 3 parallel channels and another with 1: the cut is 4.
  Graph g = two_cliques(6, 2);
  g.links[0].push_back(6);
  g.links[0].push_back(6);
  g.links[6].push_back(0);
  g.links[6].push_back(0);
  g.finalize();
  AnalysisOptions metis;
  metis.exact_bisection_routers = 0;
  metis.bisection_method = BisectionMethod::metis;
  AnalysisOptions exact;
  EXPECT_EQ(bisection(g, exact).cut, 4);
  const Bisection b = bisection(g, metis);
  EXPECT_EQ(b.cut, 4);
  expect_valid_partition(g, b);
}

TEST(TopoAnalysis, MetisIsDeterministicForASeed) {
  AnalysisOptions metis;
  metis.exact_bisection_routers = 0;
  metis.bisection_method = BisectionMethod::metis;
  for (const Graph& g : {build({"network.topology=slimfly", "network.slimfly.q=13"}),
                         build({"network.topology=dragonfly", "network.dragonfly.p=4"}),
                         build({"network.topology=oft", "network.oft.k=12"})}) {
    SCOPED_TRACE(g.name);
    const Bisection a = bisection(g, metis), b = bisection(g, metis);
    EXPECT_EQ(a.cut, b.cut);
    EXPECT_EQ(a.side, b.side);
    EXPECT_EQ(a.method, b.method);
    // Another rand() user between the two calls changes nothing: METIS seeds it.
    std::srand(12345);
    (void)std::rand();
    EXPECT_EQ(bisection(g, metis).side, a.side);
  }
}

TEST(TopoAnalysis, EveryMethodReportsBalancedPartitionsAndBestIsTheSmaller) {
  AnalysisOptions fm, metis, best;
  fm.exact_bisection_routers = metis.exact_bisection_routers = best.exact_bisection_routers = 0;
  fm.bisection_method = BisectionMethod::fm;
  metis.bisection_method = BisectionMethod::metis;
  best.bisection_method = BisectionMethod::best;
  for (const Graph& g : {build({"network.topology=slimfly", "network.slimfly.q=7"}),
                         build({"network.topology=oft", "network.oft.k=6"}),
                         build({"network.topology=mlfm", "network.mlfm.h=5"}),
                         build({"network.topology=fattree", "network.fattree.radix=8", "network.fattree.levels=3"}),
                         build({"network.topology=nesttree", "network.nesttree.t=2", "network.nesttree.u=2",
                                "network.nesttree.nodes=512", "network.nesttree.switch_radix=8"})}) {
    SCOPED_TRACE(g.name);
    const Bisection f = bisection(g, fm), m = bisection(g, metis), b = bisection(g, best);
    expect_valid_partition(g, f);
    expect_valid_partition(g, m);
    expect_valid_partition(g, b);
    EXPECT_EQ(b.cut, std::min(f.cut, m.cut));
    EXPECT_NE(b.method.find("best of METIS (cut " + std::to_string(m.cut) + ") and Fiduccia-Mattheyses (cut " +
                            std::to_string(f.cut) + ")"),
              std::string::npos)
        << b.method;
  }
}

TEST(TopoAnalysis, BisectionMethodNames) {
  EXPECT_EQ(parse_bisection_method("fm"), BisectionMethod::fm);
  EXPECT_EQ(parse_bisection_method("metis"), BisectionMethod::metis);
  EXPECT_EQ(parse_bisection_method("best"), BisectionMethod::best);
  try {
    parse_bisection_method("kl");
    ADD_FAILURE() << "kl accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'kl' (allowed: fm, metis, best)"), std::string::npos) << e.what();
  }
}

TEST(TopoAnalysis, IndirectNetworksBalanceOnlyRoutersWithEndpoints) {
  // A 4-ary 2-tree of radix-4 routers... here k = 4, n = 2: 2 leaves of 2 terminals under 2 tops.
  const Graph g = build({"network.topology=fattree", "network.fattree.radix=4", "network.fattree.levels=2"});
  ASSERT_EQ(g.routers(), 4);
  const Bisection b = bisection(g, AnalysisOptions{});
  EXPECT_EQ(b.cut, 2);  // one leaf and one top on each side
  const Analysis a = analyze(g, AnalysisOptions{});
  EXPECT_DOUBLE_EQ(a.bisection_beta, 1.0);  // full bisection
  EXPECT_EQ(a.endpoint_diameter, 2);
  EXPECT_DOUBLE_EQ(a.paths_max, 2.0);
}

TEST(TopoAnalysis, SampledFiguresSayTheyAreSampledAndStayClose) {
  const Graph g = build({"network.topology=slimfly", "network.slimfly.q=7"});
  AnalysisOptions all, few;
  few.max_sources = 20;
  const Analysis a = analyze(g, all), s = analyze(g, few);
  EXPECT_FALSE(a.sampled);
  EXPECT_TRUE(s.sampled);
  EXPECT_LE(s.sources, 20);  // 10 routers and 10 with endpoints (some both)
  EXPECT_GE(s.sources, 10);
  EXPECT_LE(s.diameter, a.diameter);
  EXPECT_NEAR(s.avg_hops_endpoints, a.avg_hops_endpoints, 0.05);
  // Same seed, same figures.
  const Analysis s2 = analyze(g, few);
  EXPECT_EQ(s2.avg_hops_routers, s.avg_hops_routers);
  EXPECT_EQ(s2.bisection.cut, s.bisection.cut);
}

// The nested topologies' routed distances: the exact aggregate formulas of
// nest.cpp against routing every pair of a small system one by one.
NestDistances brute_force(const Config& cfg, const std::string& name) {
  const Graph g = build_graph(cfg);
  const NestShape s = nest_shape(cfg, name);
  const int n = int(s.nodes), T = s.per_subtorus;
  // Hops between uplinked QFDBs through the upper network only: BFS over
  // switches and uplink ports (a GHC route passes through uplinked QFDBs
  // between dimensions; no torus port is used).
  std::vector<std::vector<int>> up_dist(n);
  for (int q = 0; q < n; ++q) {
    if (s.rank_of[q % T] < 0) continue;
    std::vector<int> d(g.routers(), -1), queue{q};
    d[q] = 0;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const int u = queue[i];
      for (std::size_t p = u < n ? 6 : 0; p < g.links[u].size(); ++p) {
        const int v = g.links[u][p];
        if (d[v] < 0) {
          d[v] = d[u] + 1;
          queue.push_back(v);
        }
      }
    }
    up_dist[q] = d;
  }
  double sum = 0, pairs = 0;
  int maximum = 0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      int hops;
      if (a / T == b / T) {
        hops = s.torus_hops(a % T, b % T);
      } else {
        const int ua = a / T * T + s.local_of[s.nearest[a % T]], ub = b / T * T + s.local_of[s.nearest[b % T]];
        hops = s.nearest_hops[a % T] + up_dist[ua][ub] + s.nearest_hops[b % T];
      }
      sum += hops;
      pairs += 1;
      maximum = std::max(maximum, hops);
    }
  return {sum / pairs, maximum};
}

double figure(const std::vector<TopologyFigure>& f, const std::string& name) {
  for (auto& x : f)
    if (x.name == name) return x.value;
  ADD_FAILURE() << "no figure " << name;
  return 0;
}

TEST(TopoNest, RoutedDistancesMatchRoutingEveryPair) {
  for (const std::string name : {"nesttree", "nestghc"})
    for (int t : {2, 4})
      for (int u : {1, 2, 4, 8}) {
        SCOPED_TRACE(name + " t=" + std::to_string(t) + " u=" + std::to_string(u));
        Config cfg;
        cfg.set_override("network.topology=" + name);
        cfg.set_override("network." + name + ".t=" + std::to_string(t));
        cfg.set_override("network." + name + ".u=" + std::to_string(u));
        cfg.set_override("network." + name + ".nodes=" + std::to_string(t * t * t * (t == 2 ? 64 : 8)));
        if (name == "nesttree") {
          cfg.set_override("network.nesttree.switch_radix=4");
          cfg.set_override("network.nesttree.levels=2");
        }
        const Graph g = build_graph(cfg);
        const auto f = find_graph_topology(name)->figures(cfg, g);
        const NestDistances want = brute_force(cfg, name);
        EXPECT_NEAR(figure(f, "routed_avg_distance"), want.average, 1e-9);
        EXPECT_EQ(figure(f, "routed_diameter"), want.maximum);
      }
}

TEST(TopoNest, UpperNetworksFollowTheUplinkNumbering) {
  // NestGHC: the switch of dimension i reached from uplink id x leads back, at its port c_i(x), to x.
  Config cfg;
  for (auto s : {"network.topology=nestghc", "network.nestghc.t=2", "network.nestghc.u=2", "network.nestghc.nodes=256",
                 "network.nestghc.sizes=4,2,16"})
    cfg.set_override(s);
  const Graph g = build_graph(cfg);
  const NestShape s = nest_shape(cfg, "nestghc");
  const int sizes[3] = {4, 2, 16};
  ASSERT_EQ(s.uplinks(), 128);
  EXPECT_EQ(g.routers(), 256 + 128 / 4 + 128 / 2 + 128 / 16);
  for (std::int64_t x = 0; x < s.uplinks(); ++x) {
    const int q = s.uplink_router(x);
    ASSERT_EQ(g.network_ports(q), 6 + 3);
    std::int64_t rest = x;
    for (int i = 0; i < 3; ++i) {
      const int sw = g.links[q][6 + i];
      EXPECT_EQ(g.network_ports(sw), sizes[i]);
      EXPECT_EQ(g.links[sw][rest % sizes[i]], q) << "uplink " << x << " dimension " << i;
      rest /= sizes[i];
    }
  }
  // NestTree: leaf b's down port c holds uplink b * (r/2) + c; stage sizes prod up below x prod down above.
  Config tc;
  for (auto s : {"network.topology=nesttree", "network.nesttree.t=2", "network.nesttree.u=1", "network.nesttree.nodes=512",
                 "network.nesttree.switch_radix=8", "network.nesttree.levels=3"})
    tc.set_override(s);
  const Graph t = build_graph(tc);
  const NestShape ts = nest_shape(tc, "nesttree");
  // 512 uplinks: stages (4 down, 4 up), (4, 4), (32 down): 128 leaves, 4 * 32 = 128 middle, 16 top.
  ASSERT_EQ(t.routers(), 512 + 128 + 128 + 16);
  for (std::int64_t x = 0; x < 512; ++x) {
    const int q = ts.uplink_router(x), leaf = 512 + int(x / 4);
    EXPECT_EQ(t.links[q][6], leaf);
    EXPECT_EQ(t.links[leaf][x % 4], q);
  }
  for (int r = 512; r < t.routers(); ++r) EXPECT_EQ(t.radix(r), r < 512 + 256 ? 8 : 32) << r;
  EXPECT_EQ(t.endpoints(), 512);
}

TEST(TopoNest, SubtoriAndUplinks) {
  const Graph g = build({"network.topology=nestghc", "network.nestghc.t=4", "network.nestghc.u=4",
                         "network.nestghc.nodes=1024", "network.nestghc.sizes=4,8,8"});
  const int T = 64, qfdbs = 1024;
  int uplinked = 0;
  for (int q = 0; q < qfdbs; ++q) {
    EXPECT_EQ(g.terminals[q], 1);
    ASSERT_TRUE(g.network_ports(q) == 6 || g.network_ports(q) == 9) << q;
    uplinked += g.network_ports(q) == 9;
    const int x = q % 4, y = q / 4 % 4, z = q % T / 16;
    EXPECT_EQ(g.network_ports(q) == 9, x % 2 == y % 2 && y % 2 == z % 2) << q;
    EXPECT_EQ(g.links[q][0], q - x + (x + 1) % 4);  // x+
    EXPECT_EQ(g.links[q][5], q - z * 16 + (z + 3) % 4 * 16);  // z-
  }
  EXPECT_EQ(uplinked, qfdbs / 4);
  EXPECT_EQ(g.routers() - qfdbs, 256 / 4 + 256 / 8 + 256 / 8);  // switches: U / d_i
  Config bad;
  bad.set_override("network.topology=nesttree");
  bad.set_override("network.nesttree.t=3");
  try {
    build_graph(bad);
    ADD_FAILURE() << "t = 3 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("network.nesttree.t = 3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nwn::topo

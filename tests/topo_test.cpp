// Topology generators (sim/topo/): sizes, degrees, diameters and symmetry
// of the graphs, and the errors for parameters that cannot make one.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/config.hpp"
#include "sim/topo/galois.hpp"
#include "sim/topo/graph.hpp"
#include "sim/topo/oft.hpp"

namespace nwn::topo {
namespace {

Graph build(std::initializer_list<std::string> sets) {
  Config c;
  for (auto& s : sets) c.set_override(s);
  return build_graph(c);
}

int diameter(const Graph& g) {
  const auto d = distances(g);
  int m = 0;
  for (auto x : d) m = std::max(m, int(x));
  return m;
}

// Largest distance between routers that have terminals.
int endpoint_diameter(const Graph& g) {
  const auto d = distances(g);
  const int n = g.routers();
  int m = 0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (g.terminals[a] && g.terminals[b]) m = std::max(m, int(d[std::size_t(a) * n + b]));
  return m;
}

std::set<int> degrees(const Graph& g) {
  std::set<int> s;
  for (int r = 0; r < g.routers(); ++r) s.insert(g.network_ports(r));
  return s;
}

std::string error_of(std::initializer_list<std::string> sets) {
  try {
    build(sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TopoGraph, FinalizePairsParallelChannelsInOrderAndRejectsOneWayChannels) {
  Graph g;
  g.name = "three";
  g.terminals = {1, 0, 1};
  g.links = {{1, 2, 1}, {0, 2, 0}, {1, 0}};
  g.finalize();
  EXPECT_EQ(g.peer_port[0], (std::vector<int>{0, 1, 2}));  // 0's first channel to 1 meets 1's first to 0
  EXPECT_EQ(g.peer_port[1], (std::vector<int>{0, 0, 2}));
  EXPECT_EQ(g.peer_port[2], (std::vector<int>{1, 1}));
  EXPECT_EQ(g.channels(), 4);
  EXPECT_EQ(g.router_of_endpoint(1), 2);
  Graph bad = g;
  bad.links[1] = {0, 2};  // 0 has two channels to 1, 1 one back
  try {
    bad.finalize();
    ADD_FAILURE() << "accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("router 0 has 2 channel(s) to router 1 but 1 back"), std::string::npos)
        << e.what();
  }
}

TEST(TopoGalois, FieldAxiomsAndPrimitiveElement) {
  for (int q : {2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32, 49, 64, 81, 121, 125}) {
    SCOPED_TRACE(q);
    const GaloisField f(q);
    for (int a = 0; a < q; ++a) {
      EXPECT_EQ(f.add(a, 0), a);
      EXPECT_EQ(f.mul(a, 1), a);
      EXPECT_EQ(f.add(a, f.neg(a)), 0);
      int inverses = 0;
      for (int b = 0; b < q; ++b) {
        inverses += f.mul(a, b) == 1;
        EXPECT_EQ(f.mul(a, b), f.mul(b, a));
        for (int c = 0; c < q; c += 3) EXPECT_EQ(f.mul(a, f.add(b, c)), f.add(f.mul(a, b), f.mul(a, c)));
      }
      EXPECT_EQ(inverses, a == 0 ? 0 : 1) << "element " << a;
    }
    std::set<int> powers;
    for (int e = 0; e < q - 1; ++e) powers.insert(f.pow(f.primitive(), e));
    EXPECT_EQ(int(powers.size()), q - 1) << "xi = " << f.primitive() << " is not primitive";
  }
  EXPECT_FALSE(prime_power(6).valid());
  EXPECT_FALSE(prime_power(12).valid());
  EXPECT_EQ(prime_power(27).p, 3);
  EXPECT_EQ(prime_power(27).n, 3);
}

TEST(TopoSlimFly, MmsGraphsHaveDiameterTwoAndTheirRadix) {
  for (int q : {3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29, 31, 32}) {
    SCOPED_TRACE(q);
    const Graph g = build({"network.topology=slimfly", "network.slimfly.q=" + std::to_string(q)});
    const int delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
    const int k_net = (3 * q - delta) / 2;
    EXPECT_EQ(g.routers(), 2 * q * q);
    EXPECT_EQ(degrees(g), std::set<int>{k_net});
    EXPECT_EQ(g.terminals[0], (k_net + 1) / 2);
    EXPECT_EQ(diameter(g), 2);
    // Every router reaches q routers of the other subgraph, one per column.
    for (int r : {0, g.routers() - 1}) {
      int other = 0;
      for (int v : g.links[r]) other += g.group[v] != g.group[r];
      EXPECT_EQ(other, q);
    }
  }
}

TEST(TopoSlimFly, PaperConfigurationsQ13) {
  // Diameter-two paper §4.1: q = 13, p = 9 or 10, R = 338, r = 28 or 29, N = 3042 or 3380.
  const Graph g10 = build({"network.topology=slimfly", "network.slimfly.q=13"});
  EXPECT_EQ(g10.routers(), 338);
  EXPECT_EQ(g10.max_radix(), 29);
  EXPECT_EQ(g10.endpoints(), 3380);
  const Graph g9 = build({"network.topology=slimfly", "network.slimfly.q=13", "network.slimfly.p=9"});
  EXPECT_EQ(g9.max_radix(), 28);
  EXPECT_EQ(g9.endpoints(), 3042);
}

TEST(TopoSlimFly, RejectsQThatIsNotAPrimePower) {
  const std::string e = error_of({"network.topology=slimfly", "network.slimfly.q=6"});
  EXPECT_NE(e.find("network.slimfly.q = 6"), std::string::npos) << e;
  EXPECT_NE(e.find("prime power"), std::string::npos) << e;
  EXPECT_NE(e.find("nearby: 5, 7"), std::string::npos) << e;
  EXPECT_NE(error_of({"network.topology=slimfly", "network.slimfly.q=10"}).find("nearby: 9, 11"), std::string::npos);
}

TEST(TopoDragonfly, BalancedMaximalDragonfly) {
  const Graph g = build({"network.topology=dragonfly", "network.dragonfly.p=2"});
  // a = 4, h = 2, g = 9.
  ASSERT_EQ(g.routers(), 36);
  EXPECT_EQ(g.endpoints(), 72);
  EXPECT_EQ(degrees(g), std::set<int>{3 + 2});
  EXPECT_EQ(diameter(g), 3);
  std::map<std::pair<int, int>, int> global;
  for (int r = 0; r < g.routers(); ++r) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(g.group[g.links[r][i]], g.group[r]);  // local ports first
    for (int i = 3; i < 5; ++i) {
      EXPECT_NE(g.group[g.links[r][i]], g.group[r]);
      ++global[{g.group[r], g.group[g.links[r][i]]}];
    }
  }
  EXPECT_EQ(global.size(), 9u * 8u);
  for (auto& [pair, n] : global) EXPECT_EQ(n, 1) << pair.first << "-" << pair.second;
}

TEST(TopoDragonfly, PalmTreeArrangement) {
  for (const char* groups : {"0", "5"}) {
    SCOPED_TRACE(groups);
    const Graph g = build({"network.topology=dragonfly", "network.dragonfly.p=2", "network.dragonfly.arrangement=palmtree",
                           std::string("network.dragonfly.g=") + groups});
    const int ng = g.routers() / 4, others = ng - 1;
    std::map<std::pair<int, int>, int> global;
    for (int r = 0; r < g.routers(); ++r)
      for (int j = 0; j < 2; ++j) {
        const int G = r / 4, l = (r % 4) * 2 + j;
        if (l >= 8 / others * others) continue;
        const int far = g.links[r][3 + j];
        EXPECT_EQ(g.group[far], (G + l % others + 1) % ng) << "router " << r << " port " << l;
        ++global[{G, g.group[far]}];
      }
    for (auto& [pair, n] : global) EXPECT_EQ(n, 8 / others);
    EXPECT_EQ(int(global.size()), ng * others);
  }
}

TEST(TopoDragonfly, FewerGroupsGetParallelGlobalChannels) {
  const Graph g = build({"network.topology=dragonfly", "network.dragonfly.p=2", "network.dragonfly.g=5"});
  ASSERT_EQ(g.routers(), 20);
  std::map<std::pair<int, int>, int> global;
  for (int r = 0; r < g.routers(); ++r)
    for (int v : g.links[r])
      if (g.group[v] != g.group[r]) ++global[{g.group[r], g.group[v]}];
  EXPECT_EQ(global.size(), 5u * 4u);
  for (auto& [pair, n] : global) EXPECT_EQ(n, 2);  // a*h / (g-1) = 8 / 4
  EXPECT_EQ(degrees(g), std::set<int>{5});
}

TEST(TopoDragonfly, RejectsMoreGroupsThanGlobalChannels) {
  const std::string e = error_of({"network.topology=dragonfly", "network.dragonfly.p=2", "network.dragonfly.g=10"});
  EXPECT_NE(e.find("network.dragonfly.g = 10"), std::string::npos) << e;
  EXPECT_NE(e.find("a*h + 1 = 9"), std::string::npos) << e;
}

TEST(TopoFatTree, UntaperedIsAKaryNTree) {
  const Graph g = build({"network.topology=fattree", "network.fattree.radix=8", "network.fattree.levels=3"});
  EXPECT_EQ(g.routers(), 3 * 16);
  EXPECT_EQ(g.endpoints(), 64);
  EXPECT_EQ(g.channels(), 2 * 16 * 4);
  EXPECT_EQ(endpoint_diameter(g), 4);
  for (int r = 0; r < g.routers(); ++r) EXPECT_EQ(g.radix(r), g.group[r] == 2 ? 4 : 8);
}

TEST(TopoFatTree, FullTopDoublesTheTerminals) {
  // The Slim Fly comparisons' three-level fat tree: k^3/4 terminals, 5k^2/4 routers.
  const Graph g = build({"network.topology=fattree", "network.fattree.radix=8", "network.fattree.full_top=true"});
  EXPECT_EQ(g.endpoints(), 8 * 8 * 8 / 4);
  EXPECT_EQ(g.routers(), 5 * 8 * 8 / 4);
  EXPECT_EQ(g.max_radix(), 8);
  EXPECT_EQ(endpoint_diameter(g), 4);
}

TEST(TopoFatTree, TaperedLeavesHaveFewerUpPorts) {
  const Graph g = build({"network.topology=fattree", "network.fattree.radix=8", "network.fattree.levels=2",
                         "network.fattree.down=6"});
  // Leaves: 6 terminals, 2 up; top: 4 down. Leaves = 4 (top down), tops = 2.
  EXPECT_EQ(g.routers(), 4 + 2);
  EXPECT_EQ(g.endpoints(), 24);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(g.network_ports(r), 2);
  EXPECT_EQ(endpoint_diameter(g), 2);
  EXPECT_NE(error_of({"network.topology=fattree", "network.fattree.radix=8", "network.fattree.down=8"})
                .find("network.fattree.down = 8"),
            std::string::npos);
  EXPECT_NE(error_of({"network.topology=fattree", "network.fattree.radix=7"}).find("must be even"), std::string::npos);
}

// Routers a and b share this many neighbours.
int common_neighbours(const Graph& g, int a, int b) {
  std::set<int> na(g.links[a].begin(), g.links[a].end());
  int n = 0;
  for (int v : std::set<int>(g.links[b].begin(), g.links[b].end())) n += na.count(v);
  return n;
}

TEST(TopoMlfm, PaperSizesAndColumnPathDiversity) {
  // Diameter-two paper §4.1: h = 15: N = 3600, R = 360, r = 30.
  const Graph big = build({"network.topology=mlfm", "network.mlfm.h=15"});
  EXPECT_EQ(big.endpoints(), 3600);
  EXPECT_EQ(big.routers(), 360);
  EXPECT_EQ(big.max_radix(), 30);
  const int h = 4;
  const Graph g = build({"network.topology=mlfm", "network.mlfm.h=4"});
  EXPECT_EQ(g.routers(), 3 * h * (h + 1) / 2);
  EXPECT_EQ(g.endpoints(), h * h * h + h * h);
  for (int r = 0; r < g.routers(); ++r) EXPECT_EQ(g.radix(r), 2 * h);
  EXPECT_EQ(endpoint_diameter(g), 2);
  // LRs of one column (same index, different layers) share h GRs; others one.
  const int lrs = h * (h + 1);
  for (int a = 0; a < lrs; ++a)
    for (int b = a + 1; b < lrs; ++b)
      EXPECT_EQ(common_neighbours(g, a, b), a % (h + 1) == b % (h + 1) ? h : 1) << a << " " << b;
}

TEST(TopoOft, Ml3bTableForK4IsThePapersTable2) {
  const std::vector<std::vector<int>> table2 = {
      {9, 10, 11, 12}, {9, 0, 1, 2},  {9, 3, 4, 5},   {9, 6, 7, 8},   {10, 0, 3, 6},  {10, 1, 4, 7}, {10, 2, 5, 8},
      {11, 0, 4, 8},   {11, 1, 5, 6}, {11, 2, 3, 7},  {12, 0, 5, 7},  {12, 1, 3, 8},  {12, 2, 4, 6}};
  EXPECT_EQ(ml3b_table(4), table2);
}

TEST(TopoOft, SizesAndSinglePathsBetweenLeafRouters) {
  // Diameter-two paper §4.1: k = 12: N = 3192, R = 399, r = 24.
  const Graph big = build({"network.topology=oft", "network.oft.k=12"});
  EXPECT_EQ(big.endpoints(), 3192);
  EXPECT_EQ(big.routers(), 399);
  EXPECT_EQ(big.max_radix(), 24);
  for (int k : {4, 5, 6, 8}) {  // k - 1 = 3, 4 (a prime power), 5, 7
    SCOPED_TRACE(k);
    const Graph g = build({"network.topology=oft", "network.oft.k=" + std::to_string(k)});
    const int rl = k * (k - 1) + 1;
    ASSERT_EQ(g.routers(), 3 * rl);
    EXPECT_EQ(g.endpoints(), 2 * k * k * k - 2 * k * k + 2 * k);
    for (int r = 0; r < g.routers(); ++r) EXPECT_EQ(g.radix(r), 2 * k);
    EXPECT_EQ(endpoint_diameter(g), 2);
    for (int a = 0; a < rl; ++a)
      for (int b = 0; b < rl; ++b) {
        EXPECT_EQ(common_neighbours(g, a, 2 * rl + b), a == b ? k : 1);  // L0 - L2
        if (a != b) {
          EXPECT_EQ(common_neighbours(g, a, b), 1);  // L0 - L0
        }
      }
  }
  const std::string e = error_of({"network.topology=oft", "network.oft.k=7"});
  EXPECT_NE(e.find("network.oft.k = 7"), std::string::npos) << e;
  EXPECT_NE(e.find("nearby: 6, 8"), std::string::npos) << e;
}

TEST(TopoFclosGraph, IsTheFoldedClosOfTheFclosKeys) {
  const Graph g = build({"network.topology=fclos", "router.radix=8", "network.fclos_levels=3"});
  const int h = 4, per_level = 16;
  ASSERT_EQ(g.routers(), 3 * per_level);
  EXPECT_EQ(g.endpoints(), 64);
  // Up port u of <w, l> leads to <w with digit l set to u, l + 1>, arriving at down port digit l of w.
  for (int l = 0; l < 2; ++l)
    for (int w = 0; w < per_level; ++w) {
      const int r = l * per_level + w, first_up = l == 0 ? 0 : h, p = l == 0 ? 1 : 4;
      for (int u = 0; u < h; ++u) {
        const int digit = w / p % h;
        const int upper = (l + 1) * per_level + w + (u - digit) * p;
        EXPECT_EQ(g.links[r][first_up + u], upper);
        EXPECT_EQ(g.links[upper][digit], r);
        EXPECT_EQ(g.peer_port[r][first_up + u], digit);
      }
    }
  // The same graph as the untapered fattree generator, up to labels: the same distance histogram between leaves.
  const Graph f = build({"network.topology=fattree", "network.fattree.radix=8", "network.fattree.levels=3"});
  auto histogram = [](const Graph& x) {
    const auto d = distances(x);
    std::map<int, int> hist;
    for (int a = 0; a < x.routers(); ++a)
      for (int b = 0; b < x.routers(); ++b)
        if (x.terminals[a] && x.terminals[b]) ++hist[d[std::size_t(a) * x.routers() + b]];
    return hist;
  };
  EXPECT_EQ(histogram(g), histogram(f));
  EXPECT_NE(error_of({"network.topology=fclos", "router.radix=7"}).find("router.radix = 7"), std::string::npos);
}

TEST(TopoHyperXGraph, IsTheHyperXOfTheHyperXKeys) {
  const Graph g = build({"network.topology=hyperx", "network.hyperx_s=3,4", "network.hyperx_k=2",
                         "network.hyperx_t=2", "router.radix=16"});
  ASSERT_EQ(g.routers(), 12);
  EXPECT_EQ(g.endpoints(), 24);
  EXPECT_EQ(g.max_radix(), 2 + 2 * 2 + 3 * 2);
  for (int r = 0; r < 12; ++r) {
    std::map<int, int> copies;
    for (int v : g.links[r]) {
      ++copies[v];
      EXPECT_EQ((v % 3 != r % 3) + (v / 3 != r / 3), 1) << r << "->" << v;  // differs in one coordinate
    }
    EXPECT_EQ(copies.size(), 2u + 3u);
    for (auto& [v, n] : copies) EXPECT_EQ(n, 2);
    EXPECT_EQ(g.links[r][0], r / 3 * 3 + (r % 3 == 0 ? 1 : 0));  // dimension 0 first, lowest coordinate first
  }
  EXPECT_EQ(diameter(g), 2);
  const std::string e = error_of({"network.topology=hyperx", "network.hyperx_s=8,8", "router.radix=16"});
  EXPECT_NE(e.find("router.radix = 16"), std::string::npos) << e;
}

}  // namespace
}  // namespace nwn::topo

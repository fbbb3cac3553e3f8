// Topology generators (sim/topo/): sizes, degrees, diameters and symmetry
// of the graphs, and the errors for parameters that cannot make one.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/config.hpp"
#include "sim/topo/galois.hpp"
#include "sim/topo/graph.hpp"

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
  for (int q : {3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27}) {
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

}  // namespace
}  // namespace nwn::topo

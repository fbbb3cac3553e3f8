// Every traffic pattern's destination function on its own (sim/traffic.cpp):
// the permutations node by node, the random patterns' ranges and spread
// (fixed seeds: the counts are the same on every run), and the node counts
// each refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/error.hpp"
#include "sim/traffic.hpp"

namespace nwn {
namespace {

std::unique_ptr<TrafficPattern> pattern(const std::string& name, int nodes, const RouterLayout* layout = nullptr) {
  PatternParams p;
  p.nodes = nodes;
  p.layout = layout;
  return make_traffic_pattern(name, p);
}

// dest(s) for every source s (a permutation draws nothing from the Rng).
std::vector<int> map_of(const std::string& name, int nodes) {
  auto p = pattern(name, nodes);
  Rng rng(1, 0);
  std::vector<int> m;
  for (int s = 0; s < nodes; ++s) m.push_back(p->dest(s, rng));
  return m;
}

bool is_permutation_of_nodes(std::vector<int> m) {
  std::sort(m.begin(), m.end());
  for (int i = 0; i < int(m.size()); ++i)
    if (m[i] != i) return false;
  return true;
}

TEST(TrafficPattern, EveryRegisteredPatternIsTestedHere) {
  const std::vector<std::string> tested = {"bitcomp", "bitrev", "bitrot", "hotspot", "neighbor", "randperm",
                                           "shuffle", "tornado", "transpose", "transpose_random", "uniform",
                                           "worst_case"};
  EXPECT_EQ(registered_names("pattern"), tested);
}

TEST(TrafficPattern, BitPermutations) {
  // 8 nodes, 3 address bits.
  EXPECT_EQ(map_of("bitcomp", 8), (std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(map_of("bitrev", 8), (std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_EQ(map_of("shuffle", 8), (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));  // rotate left
  EXPECT_EQ(map_of("bitrot", 8), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));   // rotate right
  // transpose swaps the upper and lower halves of the bits; an odd count keeps the middle bit.
  EXPECT_EQ(map_of("transpose", 8), (std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7}));
  const std::vector<int> t16 = map_of("transpose", 16);
  EXPECT_EQ(t16[0b0111], 0b1101);
  EXPECT_EQ(t16[0b0010], 0b1000);
  EXPECT_EQ(t16[0b1111], 0b1111);
  for (const char* name : {"bitcomp", "bitrev", "shuffle", "bitrot", "transpose"}) {
    EXPECT_TRUE(is_permutation_of_nodes(map_of(name, 64))) << name;
    EXPECT_THROW(pattern(name, 12), ConfigError) << name << " on 12 nodes";
  }
}

TEST(TrafficPattern, IndexPermutations) {
  EXPECT_EQ(map_of("tornado", 8), (std::vector<int>{3, 4, 5, 6, 7, 0, 1, 2}));  // just under half way
  EXPECT_EQ(map_of("tornado", 7), (std::vector<int>{3, 4, 5, 6, 0, 1, 2}));
  EXPECT_EQ(map_of("neighbor", 5), (std::vector<int>{1, 2, 3, 4, 0}));
}

TEST(TrafficPattern, UniformReachesEveryNodeEvenly) {
  auto p = pattern("uniform", 64);
  Rng rng(7, 1);
  std::vector<int> count(64, 0);
  for (int i = 0; i < 64000; ++i) {
    const int d = p->dest(i % 64, rng);
    ASSERT_GE(d, 0);
    ASSERT_LT(d, 64);
    ++count[d];
  }
  for (int c : count) {
    EXPECT_GT(c, 800);
    EXPECT_LT(c, 1200);
  }
}

TEST(TrafficPattern, HotspotSendsItsFractionToTheFirstNodes) {
  PatternParams p;
  p.nodes = 64;
  p.hotspot_nodes = 4;
  p.hotspot_fraction = 0.5;
  auto h = make_traffic_pattern("hotspot", p);
  Rng rng(3, 2);
  int hot = 0;
  std::set<int> seen;
  for (int i = 0; i < 20000; ++i) {
    const int d = h->dest(0, rng);
    hot += d < 4;
    seen.insert(d);
  }
  // 0.5 directly plus 4/64 of the other half: 0.53.
  EXPECT_GT(hot, 0.50 * 20000);
  EXPECT_LT(hot, 0.56 * 20000);
  EXPECT_EQ(seen.size(), 64u);
  p.hotspot_fraction = 1;
  auto all_hot = make_traffic_pattern("hotspot", p);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(all_hot->dest(5, rng), 4);
  p.hotspot_nodes = 65;
  EXPECT_THROW(make_traffic_pattern("hotspot", p), ConfigError);
}

TEST(TrafficPattern, TransposeRandomSendsRowAToColumnA) {
  auto p = pattern("transpose_random", 16);
  Rng rng(5, 3);
  for (int src = 0; src < 16; ++src) {
    std::set<int> rows;
    for (int i = 0; i < 200; ++i) {
      const int d = p->dest(src, rng);
      EXPECT_EQ(d % 4, src / 4) << "source " << src;
      rows.insert(d / 4);
    }
    EXPECT_EQ(rows.size(), 4u) << "source " << src;
  }
  EXPECT_THROW(pattern("transpose_random", 12), ConfigError);
}

TEST(TrafficPattern, RandpermIsAPermutationFixedBySeed) {
  auto with_seed = [](std::uint64_t seed) {
    PatternParams p;
    p.nodes = 100;
    p.seed = seed;
    auto r = make_traffic_pattern("randperm", p);
    Rng rng(1, 0);
    std::vector<int> m;
    for (int s = 0; s < 100; ++s) m.push_back(r->dest(s, rng));
    return m;
  };
  const std::vector<int> a = with_seed(1);
  EXPECT_TRUE(is_permutation_of_nodes(a));
  EXPECT_EQ(a, with_seed(1));
  EXPECT_NE(a, with_seed(2));
}

TEST(TrafficPattern, WorstCaseFollowsTheNetworksRouterTargets) {
  // Routers 0, 1, 2 with 2, 2 and 1 nodes; 0 -> 2, 1 -> 0, 2 -> 1.
  RouterLayout l;
  l.first_node = {0, 2, 4, 5};
  l.node_router = {0, 0, 1, 1, 2};
  l.worst_case_target = {2, 0, 1};
  auto p = pattern("worst_case", 5, &l);
  Rng rng(1, 0);
  std::vector<int> m;
  for (int s = 0; s < 5; ++s) m.push_back(p->dest(s, rng));
  // Node i of router r sends to node i (mod its count) of the target router.
  EXPECT_EQ(m, (std::vector<int>{4, 4, 0, 1, 2}));
  EXPECT_THROW(pattern("worst_case", 5), ConfigError);
}

TEST(TrafficPattern, UnknownNameIsAConfigError) { EXPECT_THROW(pattern("zigzag", 8), ConfigError); }

}  // namespace
}  // namespace nwn

// The graph network's channels: on every router port the channel of the
// graph, through the graph's port groups (network.port_assignment), and the
// topology's router names. Each TEST elaborates one network (SystemC
// modules), so each runs in its own process under ctest.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "sim/network.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

// The network's router-to-router channels, read from their names
// "<router>.<port>-><router>.<port>" (physical ports; tied = logical);
// ports the topology leaves unconnected carry idle "unused" channels.
struct ChannelsOf : Network {
  static std::map<std::pair<int, int>, std::pair<int, int>> of(const Network& net) {
    const auto member = &ChannelsOf::links_;  // names Network::links_
    std::map<std::string, int> id;
    for (auto& r : net.routers()) id[r->basename()] = r->id();
    std::map<std::pair<int, int>, std::pair<int, int>> out;
    const std::regex name(R"((.+)\.(\d+)->(.+)\.(\d+))");
    for (auto& link : net.*member) {
      std::smatch m;
      const std::string n = link->name();
      if (n.find(".unused-") != std::string::npos) continue;  // idle channels on unconnected ports
      if (!std::regex_match(n, m, name)) {
        ADD_FAILURE() << "channel name " << n;
        continue;
      }
      out[{id.at(m[1]), std::stoi(m[2])}] = {id.at(m[3]), std::stoi(m[4])};
    }
    return out;
  }
};

// Interleaved deals down and up ports in turn: down port i on physical port
// 2i, up port u on 2u + 1; a top router keeps its missing up ports' places
// (odd ports unused), as the fclos network always did.
TEST(TopoNetworkGraph, FclosInterleavedKeepsTheTopRoutersUpPlaces) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Config cfg = test::config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                   "network.port_assignment=interleaved"});
  auto net = make_network(cfg, clock_from(cfg));
  ASSERT_EQ(net->routers().size(), 8u);
  EXPECT_STREQ(net->routers()[1]->basename(), "r0_1");
  EXPECT_STREQ(net->routers()[6]->basename(), "r1_2");
  // Leaf <w, 0> up port u leads to top <u, 1>, arriving at its down port w.
  std::map<std::pair<int, int>, std::pair<int, int>> want;
  for (int w = 0; w < 4; ++w)
    for (int u = 0; u < 4; ++u) {
      want[{w, 2 * u + 1}] = {4 + u, 2 * w};
      want[{4 + u, 2 * w}] = {w, 2 * u + 1};
    }
  EXPECT_EQ(ChannelsOf::of(*net), want);
}

// HyperX ports fall in a group for the terminals and one per dimension:
// interleaved deals them in turn. S = (3), T = 2, K = 1 on radix 4:
// terminal 0 -> 0, toward coordinate a -> 1, terminal 1 -> 2, toward b -> 3.
TEST(TopoNetworkGraph, HyperXInterleavedDealsTerminalsAndDimensions) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Config cfg = test::config({"network.topology=hyperx", "network.hyperx_s=3", "network.hyperx_t=2",
                                   "router.radix=4", "network.port_assignment=interleaved"});
  auto net = make_network(cfg, clock_from(cfg));
  ASSERT_EQ(net->routers().size(), 3u);
  EXPECT_STREQ(net->routers()[2]->basename(), "r2");
  // Router r's first network port leads to the lower other coordinate, its second to the higher one.
  const std::map<std::pair<int, int>, std::pair<int, int>> want{
      {{0, 1}, {1, 1}}, {{0, 3}, {2, 1}}, {{1, 1}, {0, 1}}, {{1, 3}, {2, 3}}, {{2, 1}, {0, 3}}, {{2, 3}, {1, 3}}};
  EXPECT_EQ(ChannelsOf::of(*net), want);
}

}  // namespace
}  // namespace nwn

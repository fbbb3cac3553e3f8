// The graph network's channels: on every router port the channel of the
// graph, through the graph's port groups (network.port_assignment), and the
// topology's router names. Each TEST elaborates one network (SystemC
// modules), so each runs in its own process under ctest.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "sim/network.hpp"
#include "sim/topo/graph.hpp"
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

void expect_same_graph(const Config& cfg) {
  auto net = make_network(cfg, clock_from(cfg));
  const auto channels = ChannelsOf::of(*net);
  const topo::Graph g = topo::build_graph(cfg);
  ASSERT_EQ(int(net->routers().size()), g.routers());
  std::size_t ports = 0;
  for (int r = 0; r < g.routers(); ++r)
    for (int i = 0; i < g.network_ports(r); ++i) {
      ++ports;
      const int port = g.terminals[r] + i, far = g.links[r][i];
      const int far_port = g.terminals[far] + g.peer_port[r][i];
      auto it = channels.find({r, port});
      ASSERT_NE(it, channels.end()) << "router " << r << " port " << port << " has no channel in the network";
      EXPECT_EQ(it->second, std::make_pair(far, far_port)) << "router " << r << " port " << port;
    }
  EXPECT_EQ(ports, channels.size());
}

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

TEST(TopoNetworkGraph, HyperXGraphIsTheHyperXNetwork) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_same_graph(test::config({"network.topology=hyperx", "network.hyperx_s=4,3,2", "network.hyperx_t=2",
                                  "network.hyperx_k=2", "router.radix=16"}));
}

}  // namespace
}  // namespace nwn

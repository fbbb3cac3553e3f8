// Each registered routing (sim/routing/) on its own: the route it chooses at
// one router of a tiny topology, asked directly (no simulation), and the
// registry that the config check and the schema's help read.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/experiment.hpp"
#include "sim/network.hpp"
#include "sim/routing/routing.hpp"
#include "sim/topo/graph.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::config;

// A network built but not run, and the route its routing chooses for one head.
struct Bench {
  Config cfg;
  std::unique_ptr<Network> net;
  explicit Bench(Config c) : cfg(std::move(c)), net(make_network(cfg, clock_from(cfg))) {}
  // The head of a packet src -> dst routed at `router`, arriving on `in_port`
  // (route_aux as a previous hop left it, or -1 fresh from a terminal).
  Flit route(int router, int in_port, int src, int dst, std::int32_t aux = -1) const {
    Flit f;
    f.head = true;
    f.src = src;
    f.dst = dst;
    f.route_aux = aux;
    Router& r = *net->routers()[router];
    r.global_routing()->route(r, in_port, f);
    return f;
  }
};

// Graph topologies, tied ports: router r has its terminals on ports
// 0 .. t-1 and its network ports (graph order) after them.
struct GraphBench : Bench {
  topo::Graph g;
  std::vector<std::uint8_t> dist;
  explicit GraphBench(Config c) : Bench(std::move(c)), g(topo::build_graph(cfg)), dist(topo::distances(g)) {}
  int far(int r, int phys) const { return g.links[r][phys - g.terminals[r]]; }
  int d(int a, int b) const { return dist[std::size_t(a) * g.routers() + b]; }
  // Routes the first packet of node `src` (at its router) to node `dst`.
  Flit first_hop(int src, int dst, std::int32_t aux = -1) const {
    const int r = g.router_of_endpoint(src);
    return route(r, src - g.first_endpoint(r), src, dst, aux);
  }
};

Config mesh(const std::string& routing, const std::string& vcs = "4") {
  return config({"network.topology=mesh", "network.mesh.dims=3,3", "router.radix=8", "router.vcs=" + vcs,
                 "network.routing=" + routing});
}

// Node 0 (router 0, a corner) to node 8 (router 8, the far corner): two minimal first hops.
TEST(GraphRouting, MinimalTakesEveryMinimalPortAtRandomAndOnlyThose) {
  GraphBench b(mesh("minimal"));
  std::set<int> ports;
  for (int i = 0; i < 64; ++i) {
    const Flit f = b.first_hop(0, 8);
    EXPECT_EQ(b.d(b.far(0, f.router_out), 8), b.d(0, 8) - 1);
    EXPECT_EQ(f.router_vc_lo, 0);  // hop-indexed: hop 0 of D = 4 classes, one VC each
    EXPECT_EQ(f.router_vc_hi, 0);
    ports.insert(f.router_out);
  }
  EXPECT_EQ(ports.size(), 2u);
}

TEST(GraphRouting, MinadTakesAMinimalPortWithTheMostCredits) {
  GraphBench b(mesh("minad"));
  std::set<int> ports;
  for (int i = 0; i < 64; ++i) {
    const Flit f = b.first_hop(0, 8);
    EXPECT_EQ(b.d(b.far(0, f.router_out), 8), b.d(0, 8) - 1);
    ports.insert(f.router_out);
  }
  EXPECT_EQ(ports.size(), 2u);  // an idle network: equal credits, ties at random
  // At the second hop (hops taken = 1 in route_aux) the class is 1.
  const Flit second = b.route(1, 1 + 0, 0, 8, 1);
  EXPECT_EQ(second.router_vc_lo, 1);
}

TEST(GraphRouting, ValiantGoesThroughARandomIntermediate) {
  GraphBench b(mesh("valiant", "8"));
  int non_minimal = 0;
  std::set<int> inters;
  for (int i = 0; i < 200; ++i) {
    const Flit f = b.first_hop(0, 1);  // neighbours: only one minimal port
    const int inter = int(std::uint32_t(f.route_aux) >> 10) - 1;
    EXPECT_NE(inter, 0);
    EXPECT_NE(inter, 1);
    inters.insert(inter);
    EXPECT_EQ(b.d(b.far(0, f.router_out), inter), b.d(0, inter) - 1);  // minimal toward the intermediate
    non_minimal += b.far(0, f.router_out) != 1;
    EXPECT_EQ(f.router_vc_hi, 0);  // 2E = 8 classes of 8 VCs: class 0 = VC 0
  }
  EXPECT_EQ(inters.size(), 7u);  // every router but source and destination
  EXPECT_GT(non_minimal, 0);
}

// On an idle network both UGALs see equal (zero) costs and go minimal.
TEST(GraphRouting, UgalOnAnIdleNetworkGoesMinimal) {
  for (const char* routing : {"ugal_l", "ugal_g"}) {
    GraphBench b(mesh(routing, "8"));
    EXPECT_EQ(b.net->routers()[0]->global_routing()->reads_other_routers(), std::string(routing) == "ugal_g");
    for (int i = 0; i < 32; ++i) {
      const Flit f = b.first_hop(0, 8);
      EXPECT_EQ(b.d(b.far(0, f.router_out), 8), b.d(0, 8) - 1) << routing;
      EXPECT_TRUE(std::uint32_t(f.route_aux) & (1u << 8)) << routing << ": phase = toward the destination";
    }
  }
}

// par on a Dragonfly of 9 groups of 4 routers (p = 2, h = 2: router r = 4G + i
// holds nodes 2r and 2r + 1). 7 VCs = 2E + 1 classes, one VC each.
Config dragonfly_par() {
  return config({"network.topology=dragonfly", "network.dragonfly.p=2", "router.radix=12", "router.vcs=7",
                 "network.routing=par", "traffic.pattern=worst_case", "traffic.load=0.9"});
}
// route_aux as a route leaves it: minimal, `hops` taken.
constexpr std::int32_t kMinimalAfter(int hops) { return hops | 1 << 8; }

// Group 0's router x with the global channel to group 1, another router s
// of group 0, and the physical port of x that leads to s.
struct DragonflyPath {
  int x = -1, s = -1, port_from_s = -1;
  explicit DragonflyPath(const topo::Graph& g) {
    for (int r = 0; r < 4 && x < 0; ++r)
      for (int far : g.links[r])
        if (g.group[far] == 1) x = r;
    s = x == 0 ? 1 : 0;
    for (int i = 0; i < g.network_ports(x); ++i)
      if (g.links[x][i] == s) port_from_s = g.terminals[x] + i;
  }
};

// Idle: minimal at the source (as ugal_l) and again at the first router of
// the source group; class = hops taken.
TEST(GraphRouting, ParOnAnIdleDragonflyGoesMinimal) {
  GraphBench b(dragonfly_par());
  const DragonflyPath p(b.g);
  ASSERT_GE(p.port_from_s, 0);
  const int src = 2 * p.s, dst = 2 * 5;  // router 5: group 1
  for (int i = 0; i < 32; ++i) {
    const Flit f = b.first_hop(src, dst);
    EXPECT_EQ(b.d(b.far(p.s, f.router_out), 5), b.d(p.s, 5) - 1);  // minimal (through x or another group)
    EXPECT_EQ(f.route_aux, kMinimalAfter(1));
    EXPECT_EQ(f.router_vc_lo, 0);
    const Flit g = b.route(p.x, p.port_from_s, src, dst, f.route_aux);
    EXPECT_EQ(g.route_aux, kMinimalAfter(2)) << "stays minimal";
    EXPECT_EQ(b.d(b.far(p.x, g.router_out), 5), b.d(p.x, 5) - 1);
    EXPECT_EQ(g.router_vc_lo, 1);
  }
}

// Under the worst case (each group sends to the next) the global channel
// x -> group 1 fills; x then sends some packets that reached it minimally
// from s (same group, one hop) through an intermediate. It never re-decides
// for a packet that took more than one hop or came from another group.
TEST(GraphRouting, ParRevertsOnlyAtTheFirstHopInTheSourceGroup) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  GraphBench b(dragonfly_par());
  const DragonflyPath p(b.g);
  const int src = 2 * p.s, dst = 2 * 5;
  b.net->start(1);
  b.net->advance(3000);
  int reverted = 0;
  for (int i = 0; i < 200; ++i) {
    const Flit f = b.route(p.x, p.port_from_s, src, dst, kMinimalAfter(1));
    EXPECT_EQ(f.router_vc_lo, 1);
    if (f.route_aux == kMinimalAfter(2)) {  // stayed minimal
      EXPECT_EQ(b.d(b.far(p.x, f.router_out), 5), b.d(p.x, 5) - 1);
      continue;
    }
    ++reverted;
    const int inter = int(std::uint32_t(f.route_aux) >> 10) - 1;
    EXPECT_EQ(f.route_aux & 0x3ff, 2) << "phase: toward the intermediate, 2 hops taken";
    EXPECT_NE(inter, p.x);
    EXPECT_NE(inter, 5);
    EXPECT_EQ(b.d(b.far(p.x, f.router_out), inter), b.d(p.x, inter) - 1);  // minimal toward the intermediate
  }
  EXPECT_GT(reverted, 0) << "a full global channel and no revert";
  const int other_group_src = 2 * 8;  // router 8: group 2
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(b.route(p.x, p.port_from_s, src, dst, kMinimalAfter(2)).route_aux, kMinimalAfter(3));
    EXPECT_EQ(b.route(p.x, p.port_from_s, other_group_src, dst, kMinimalAfter(1)).route_aux, kMinimalAfter(2));
  }
}

// 4x4 torus: router r has coordinates (r mod 4, r / 4).
TEST(GraphRouting, DorOnATorusTakesDimensionZeroFirstAndTheDatelineClass) {
  GraphBench b(config({"network.topology=torus", "network.torus.dims=4,4", "router.radix=8",
                       "network.routing=dor"}));
  // 0 -> 5 = (1, 1): dimension 0 first, going +, class 0 (VCs 0-1 of 4).
  Flit f = b.first_hop(0, 5);
  EXPECT_EQ(b.far(0, f.router_out), 1);
  EXPECT_EQ(f.router_vc_lo, 0);
  EXPECT_EQ(f.router_vc_hi, 1);
  // 0 -> 3 = (3, 0): the shorter way is -, over the wraparound channel 0 -> 3: class 1.
  f = b.first_hop(0, 3);
  EXPECT_EQ(b.far(0, f.router_out), 3);
  EXPECT_EQ(f.router_vc_lo, 2);
  EXPECT_EQ(f.router_vc_hi, 3);
  // 0 -> 12 = (0, 3): dimension 0 already right, dimension 1 the - way, wrapping.
  f = b.first_hop(0, 12);
  EXPECT_EQ(b.far(0, f.router_out), 12);
  EXPECT_EQ(f.router_vc_lo, 2);
}

TEST(GraphRouting, DorOnAMeshTakesDimensionZeroFirstOnAnyVc) {
  GraphBench b(mesh("auto"));  // auto = dor on a mesh
  const Flit f = b.first_hop(0, 8);
  EXPECT_EQ(b.far(0, f.router_out), 1);
  EXPECT_EQ(f.router_vc_lo, 0);
  EXPECT_EQ(f.router_vc_hi, 3);  // one class
}

TEST(GraphRouting, AtTheDestinationRouterTheTerminalPortOnAnyVc) {
  GraphBench b(mesh("minimal"));
  const Flit f = b.route(8, 1 + 0, 0, 8, 4);
  EXPECT_EQ(f.router_out, 0);
  EXPECT_EQ(f.router_vc_lo, 0);
  EXPECT_EQ(f.router_vc_hi, 3);
}

// fclos radix 4, 2 levels: leaves 0, 1 (nodes 0-1, 2-3), tops 2, 3; down
// ports 0-1, up ports 2-3 (tied).
Config fclos(const std::string& routing) {
  return config({"network.topology=fclos", "router.radix=4", "network.fclos_levels=2", "network.routing=" + routing});
}

TEST(FclosRouting, DownAtAnAncestorUpOtherwise) {
  for (const char* routing : {"random", "deterministic", "greedy2"}) {
    Bench b(fclos(routing));
    EXPECT_EQ(b.route(0, 0, 0, 1).router_out, 1) << routing;  // same leaf: down port 1 (node 1 mod 2)
    std::set<int> up;
    for (int i = 0; i < 64; ++i) {
      const Flit f = b.route(0, 0, 0, 3);
      EXPECT_GE(f.router_out, 2) << routing;
      EXPECT_EQ(f.router_vc_lo, 0);
      EXPECT_EQ(f.router_vc_hi, 3);  // up*/down*: any VC
      up.insert(f.router_out);
    }
    // deterministic: up port = destination digit 0 = 3 mod 2 = 1, logical 2 + 1;
    // random and greedy2 (an idle network: two ports with equal credits) take both.
    if (std::string(routing) == "deterministic") {
      EXPECT_EQ(up, std::set<int>{3});
    } else {
      EXPECT_EQ(up.size(), 2u) << routing;
    }
    EXPECT_EQ(b.route(2, 2, 0, 3).router_out, 1) << routing;  // top router: down toward leaf 1
  }
}

// HyperX (3, 3), T = 1: router r at (r mod 3, r / 3); ports: terminal 0,
// dimension 0 toward the two other coordinates (1, 2), then dimension 1 (3, 4).
Config hyperx(const std::string& routing) {
  return config({"network.topology=hyperx", "network.hyperx_s=3,3", "network.hyperx_t=1", "router.radix=8",
                 "router.vcs=4", "network.routing=" + routing});
}

TEST(HyperXRouting, EachRoutingsFirstHopOnAnIdleNetwork) {
  struct Want {
    const char* routing;
    int port, vc_lo, vc_hi;
  };
  // 0 -> 4 = (1, 1); dimension 0 toward coordinate 1 is port 1.
  for (const Want& w : {Want{"dor", 1, 0, 3},      // any VC
                        Want{"minad", 1, 0, 1},    // hop 0 of L = 2 classes (ties: the first dimension)
                        Want{"closad", 1, 2, 3},   // minimal wins on an idle network: class 1 (toward the destination)
                        Want{"dal", 1, 0, 0}}) {   // room on the minimal port; hop 0 of 2L = 4 classes
    Bench b(hyperx(w.routing));
    const Flit f = b.route(0, 0, 0, 4);
    EXPECT_EQ(f.router_out, w.port) << w.routing;
    EXPECT_EQ(f.router_vc_lo, w.vc_lo) << w.routing;
    EXPECT_EQ(f.router_vc_hi, w.vc_hi) << w.routing;
  }
}

TEST(HyperXRouting, ValiantGoesToARandomIntermediateInClassZero) {
  Bench b(hyperx("valiant"));
  std::set<int> ports;
  for (int i = 0; i < 100; ++i) {
    const Flit f = b.route(0, 0, 0, 1);  // 0 -> 1: one hop minimal
    ports.insert(f.router_out);
    if (!(std::uint32_t(f.route_aux) >> 16 & 1)) {
      EXPECT_EQ(f.router_vc_hi, 1);  // class 0 toward the intermediate
    }
  }
  EXPECT_GT(ports.size(), 1u);  // not always the minimal port 1
}

// 3x3 mesh: router r at (x, y) = (r mod 3, r / 3); west = x going down.
TEST(WestFirstRouting, WestFirstThenAdaptiveAmongTheProductiveDirections) {
  GraphBench b(mesh("west_first"));
  for (int i = 0; i < 32; ++i) {
    Flit f = b.first_hop(2, 6);  // (2, 0) -> (0, 2): west first, though north is as short
    EXPECT_EQ(b.far(2, f.router_out), 1);
    EXPECT_EQ(f.router_vc_lo, 0);
    EXPECT_EQ(f.router_vc_hi, 3);  // one class: any VC
    f = b.first_hop(8, 0);  // (2, 2) -> (0, 0)
    EXPECT_EQ(b.far(8, f.router_out), 7);
  }
  // (0, 0) -> (2, 2): east and north are both productive; idle credits tie, so both are taken.
  std::set<int> far;
  for (int i = 0; i < 64; ++i) far.insert(b.far(0, b.first_hop(0, 8).router_out));
  EXPECT_EQ(far, (std::set<int>{1, 3}));
  // (1, 2) -> (1, 0): straight south, never west or east.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b.far(7, b.first_hop(7, 1).router_out), 4);
}

TEST(WestFirstRouting, AppliesToTwoDimensionalMeshesOnly) {
  const auto mesh_routings = topology_routings("mesh");
  EXPECT_EQ(std::count(mesh_routings.begin(), mesh_routings.end(), "west_first"), 1);
  const auto torus = topology_routings("torus");
  EXPECT_EQ(std::count(torus.begin(), torus.end(), "west_first"), 0);
  const test::CommandResult r = test::nwnsim("run --set network.topology=mesh --set network.mesh.dims=3,3,3 "
                                             "--set router.radix=8 --set network.routing=west_first");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("network.routing = west_first needs a 2-D mesh, but network.mesh.dims = '3,3,3'"),
            std::string::npos)
      << r.output;
}

// Under transpose traffic at a load past saturation every packet of a batch
// is delivered (no deadlock) over minimal routes, on one VC.
TEST(WestFirstRouting, DeliversEveryPacketMinimallyOnOneVc) {
  Config cfg = config({"network.topology=mesh", "network.mesh.dims=4,4", "network.mesh.t=2", "router.radix=8",
                       "router.vcs=1", "network.routing=west_first", "traffic.mode=batch",
                       "traffic.batch_packets=200", "traffic.pattern=transpose", "traffic.packet_flits=4",
                       "traffic.load=0.9"});
  auto net = make_network(cfg, clock_from(cfg));
  const topo::Graph g = topo::build_graph(cfg);
  const std::vector<std::uint8_t> dist = topo::distances(g);
  std::uint64_t packets = 0, non_minimal = 0;
  net->stats().on_packet = [&](const PacketExtension& p) {
    ++packets;
    const int a = g.router_of_endpoint(p.src), b = g.router_of_endpoint(p.dst);
    non_minimal += int(p.hops) != 1 + dist[std::size_t(a) * g.routers() + b];
  };
  const RunResult r = run_network(cfg, *net);
  EXPECT_EQ(packets, 32u * 200u);
  EXPECT_EQ(r.flits_ejected, r.flits_created);
  EXPECT_EQ(non_minimal, 0u);
}

// Every registered routing ("family/name") and the unit test here that
// asks it for routes: a new routing without one fails this test.
TEST(RoutingRegistry, EveryRegisteredRoutingHasAUnitTestHere) {
  const std::map<std::string, std::string> tested = {
      {"fclos/deterministic", "FclosRouting.DownAtAnAncestorUpOtherwise"},
      {"fclos/greedy2", "FclosRouting.DownAtAnAncestorUpOtherwise"},
      {"fclos/random", "FclosRouting.DownAtAnAncestorUpOtherwise"},
      {"graph/dor", "GraphRouting.DorOnATorusTakesDimensionZeroFirstAndTheDatelineClass"},
      {"graph/minad", "GraphRouting.MinadTakesAMinimalPortWithTheMostCredits"},
      {"graph/minimal", "GraphRouting.MinimalTakesEveryMinimalPortAtRandomAndOnlyThose"},
      {"graph/par", "GraphRouting.ParRevertsOnlyAtTheFirstHopInTheSourceGroup"},
      {"graph/ugal_g", "GraphRouting.UgalOnAnIdleNetworkGoesMinimal"},
      {"graph/ugal_l", "GraphRouting.UgalOnAnIdleNetworkGoesMinimal"},
      {"graph/valiant", "GraphRouting.ValiantGoesThroughARandomIntermediate"},
      {"graph/west_first", "WestFirstRouting.WestFirstThenAdaptiveAmongTheProductiveDirections"},
      {"hyperx/closad", "HyperXRouting.EachRoutingsFirstHopOnAnIdleNetwork"},
      {"hyperx/dal", "HyperXRouting.EachRoutingsFirstHopOnAnIdleNetwork"},
      {"hyperx/dor", "HyperXRouting.EachRoutingsFirstHopOnAnIdleNetwork"},
      {"hyperx/minad", "HyperXRouting.EachRoutingsFirstHopOnAnIdleNetwork"},
      {"hyperx/valiant", "HyperXRouting.ValiantGoesToARandomIntermediateInClassZero"},
  };
  std::set<std::string> tests;  // the tests of this program, "Suite.Name"
  const auto& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const auto& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j)
      tests.insert(std::string(suite.name()) + "." + suite.GetTestInfo(j)->name());
  }
  std::vector<std::string> registered;
  for (auto& [key, spec] : routing_registry()) {
    registered.push_back(key);
    const auto it = tested.find(key);
    if (it == tested.end()) {
      ADD_FAILURE() << key << " is registered but has no unit test in tests/routing_test.cpp (add one and list it here)";
      continue;
    }
    EXPECT_EQ(tests.count(it->second), 1u) << key << ": no test " << it->second;
  }
  EXPECT_EQ(registered.size(), tested.size()) << "a routing listed here is not registered";
}

TEST(RoutingRegistry, ConfigCheckAndHelpReadTheRegistry) {
  EXPECT_EQ(topology_routings("fclos"), (std::vector<std::string>{"auto", "random", "deterministic", "greedy2"}));
  EXPECT_EQ(topology_routings("mesh").at(1), "dor");  // the default first
  const auto slimfly = topology_routings("slimfly");
  EXPECT_EQ(slimfly.at(1), "minimal");
  EXPECT_EQ(std::count(slimfly.begin(), slimfly.end(), "dor"), 0);
  EXPECT_EQ(topology_routings("single"), std::vector<std::string>{"auto"});
  EXPECT_TRUE(topology_routings("no_such_topology").empty());
  const std::string help = find_key("network.routing")->doc;
  for (auto& [key, spec] : routing_registry()) {
    EXPECT_FALSE(spec.deadlock.empty()) << key;
    EXPECT_NE(help.find(spec.name), std::string::npos) << key;
    const auto choices = find_key("network.routing")->choices();
    EXPECT_EQ(std::count(choices.begin(), choices.end(), spec.name), 1) << key;
  }
  EXPECT_THROW(find_routing("slimfly", "dor"), ConfigError);
  EXPECT_EQ(find_routing("torus", "auto").name, "dor");
  EXPECT_EQ(find_routing("hyperx", "auto").name, "dor");
  EXPECT_EQ(find_routing("hyperx", "auto").family, "hyperx");
}

}  // namespace
}  // namespace nwn

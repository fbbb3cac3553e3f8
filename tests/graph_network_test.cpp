// The graph network (sim/topology_graph.cpp): exact zero-load latency, routes
// that are minimal when the routing says so, deadlock-free non-minimal and
// adaptive routing under the topology's worst-case traffic, and the errors
// for too few VCs or ports.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "sim/network.hpp"
#include "sim/topo/graph.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::config;

// Router-to-router hops between routers a and b of a torus or mesh with
// dimensions k (dimension 0 fastest), from the coordinates.
int lattice_hops(int a, int b, const std::vector<int>& k, bool wrap) {
  int h = 0;
  for (int dim : k) {
    const int d = std::abs(a % dim - b % dim);
    h += wrap ? std::min(d, dim - d) : d;
    a /= dim;
    b /= dim;
  }
  return h;
}

struct Check {
  std::uint64_t packets = 0, wrong_latency = 0, non_minimal = 0, not_farthest = 0;
};

// Packets at a low load: latency = 2 terminal channels + hops x router
// pipeline + (hops - 1) global channels exactly (a few may queue), and the
// router hops (crossbar traversals) against the minimal count.
// router_hops(src_node, dst_node) gives the minimal router-to-router hops.
template <typename Hops>
Check run_checked(Config cfg, Hops router_hops, int farthest = -1) {
  cfg.set("sim.warmup_cycles", "0", "test");
  cfg.set("sim.measure_cycles", "30000", "test");
  cfg.set("flit.bits", "64", "test");
  const int router_cycles = 4, link = int(cfg.get_int("network.link_latency_cycles"));
  auto net = make_network(cfg, clock_from(cfg));
  Check c;
  net->stats().on_packet = [&](const PacketExtension& p) {
    ++c.packets;
    const std::uint64_t expect = 2 + p.hops * router_cycles + (p.hops - 1) * link;
    if (p.delivered_cycle - p.created_cycle != expect) ++c.wrong_latency;
    const int min_hops = router_hops(p.src, p.dst);
    if (int(p.hops) != 1 + min_hops) ++c.non_minimal;
    if (farthest >= 0 && min_hops != farthest) ++c.not_farthest;
  };
  run_network(cfg, *net);
  return c;
}

struct Case {
  const char* topology;
  const char* routing;
  bool operator!=(const Case& o) const {
    return std::string(topology) != o.topology || std::string(routing) != o.routing;
  }
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.topology << "/" << c.routing; }
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.topology) + "_" + info.param.routing;
}

// 4x4 torus or 3x4 mesh, 2 terminals per router; 8 VCs cover every routing.
Config lattice(const Case& c) {
  const std::string t = c.topology;
  Config cfg = config({"network.topology=" + t, "network." + t + ".t=2", "router.radix=8", "router.vcs=8"});
  cfg.set("network." + t + ".dims", t == "torus" ? "4,4" : "3,4", "test");
  cfg.set("network.routing", c.routing, "test");
  return cfg;
}
int lattice_node_hops(const Case& c, int a, int b) {
  const bool torus = std::string(c.topology) == "torus";
  return lattice_hops(a / 2, b / 2, torus ? std::vector<int>{4, 4} : std::vector<int>{3, 4}, torus);
}

class GraphNetworkZeroLoad : public ::testing::TestWithParam<Case> {};

// At zero load every algorithm but valiant takes a minimal route, and the
// latency is exact. UGAL's costs tie at 0 and ties go minimal; but the
// occupancy it reads includes flits whose credits are still on their way back,
// so right after a packet left on the minimal port an empty Valiant port can
// win: a few percent of UGAL's packets take a longer route even at this load.
TEST_P(GraphNetworkZeroLoad, LatencyIsExactAndRoutesAreMinimal) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Case k = GetParam();
  Config cfg = lattice(k);
  cfg.set("traffic.load", "0.002", "test");
  const Check c = run_checked(cfg, [&](int a, int b) { return lattice_node_hops(k, a, b); });
  EXPECT_GT(c.packets, 100u);
  EXPECT_LE(c.wrong_latency, c.packets / 200);
  if (std::string(k.routing).rfind("ugal", 0) == 0) {
    EXPECT_LE(c.non_minimal, c.packets / 25);
  } else {
    EXPECT_EQ(c.non_minimal, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Lattice, GraphNetworkZeroLoad,
                         ::testing::Values(Case{"torus", "dor"}, Case{"torus", "minimal"}, Case{"torus", "minad"},
                                           Case{"torus", "ugal_l"}, Case{"torus", "ugal_g"}, Case{"mesh", "dor"},
                                           Case{"mesh", "minimal"}),
                         case_name);

class GraphNetworkMinimalUnderLoad : public ::testing::TestWithParam<Case> {};

// Under load (queues, adaptive choices), minimal routings still never take a
// non-minimal hop.
TEST_P(GraphNetworkMinimalUnderLoad, NeverTakesANonMinimalHop) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Case k = GetParam();
  Config cfg = lattice(k);
  cfg.set("traffic.load", "0.5", "test");
  cfg.set("sim.measure_cycles", "5000", "test");
  const Check c = run_checked(cfg, [&](int a, int b) { return lattice_node_hops(k, a, b); });
  EXPECT_GT(c.packets, 1000u);
  EXPECT_GT(c.wrong_latency, 0u) << "at this load some packets should queue";
  EXPECT_EQ(c.non_minimal, 0u);
}

INSTANTIATE_TEST_SUITE_P(Lattice, GraphNetworkMinimalUnderLoad,
                         ::testing::Values(Case{"torus", "dor"}, Case{"torus", "minimal"}, Case{"torus", "minad"},
                                           Case{"mesh", "minad"}),
                         case_name);

// Valiant goes through an intermediate router: at zero load its latency is
// still exact for the hops it takes, and most routes are longer than minimal.
TEST(GraphNetwork, ValiantTakesNonMinimalRoutesWithExactLatency) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Case k{"torus", "valiant"};
  Config cfg = lattice(k);
  cfg.set("traffic.load", "0.002", "test");
  const Check c = run_checked(cfg, [&](int a, int b) { return lattice_node_hops(k, a, b); });
  EXPECT_GT(c.packets, 100u);
  // Twice the hops of minimal routes: twice the chances that two packets meet.
  EXPECT_LE(c.wrong_latency, c.packets / 100);
  EXPECT_GT(c.non_minimal, c.packets / 2);
}

// worst_case on a 4x4 torus: every router sends to its antipode (4 hops away).
TEST(GraphNetwork, WorstCaseOnATorusSendsToTheFarthestRouter) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Case k{"torus", "dor"};
  Config cfg = lattice(k);
  cfg.set("traffic.load", "0.002", "test");
  cfg.set("traffic.pattern", "worst_case", "test");
  const Check c = run_checked(
      cfg, [&](int a, int b) { return lattice_node_hops(k, a, b); }, 4);
  EXPECT_GT(c.packets, 100u);
  EXPECT_EQ(c.not_farthest, 0u);
  EXPECT_EQ(c.non_minimal, 0u);
}

class GraphNetworkAdversarial : public ::testing::TestWithParam<Case> {};

// Past saturation under the worst case: nothing deadlocks (the watchdog
// would throw), flits are conserved (run_network throws
// ConservationError otherwise), and every node keeps receiving. dor on
// the torus is the exception to the last point: with per-input round-robin
// arbitration a router gives its t terminals t/(t+1) of an output and the
// transit traffic 1/(t+1), so past saturation the flows that merge starve
// (some node may receive almost nothing) and throughput drops (docs/TOPOLOGIES.md).
TEST_P(GraphNetworkAdversarial, EveryDestinationReachedWithoutDeadlock) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = lattice(GetParam());
  if (std::string(GetParam().topology) == "mesh") cfg.set("router.vcs", "10", "test");  // 2 x 5 hop classes
  for (const char* s : {"traffic.load=0.9", "traffic.pattern=worst_case", "traffic.packet_flits=4",
                        "sim.warmup_cycles=1000", "sim.measure_cycles=5000", "sim.drain_cap_cycles=20000",
                        "sim.watchdog_cycles=2000"})
    cfg.set_override(s);
  RunResult r;
  ASSERT_NO_THROW(r = run_experiment(cfg));
  EXPECT_GT(r.accepted_load, 0.05);
  if (GetParam() != Case{"torus", "dor"}) {
    EXPECT_GT(r.accepted_min_node, 0.02) << "a node starved";
  }
}

INSTANTIATE_TEST_SUITE_P(Lattice, GraphNetworkAdversarial,
                         ::testing::Values(Case{"torus", "dor"}, Case{"torus", "minimal"}, Case{"torus", "minad"},
                                           Case{"torus", "valiant"}, Case{"torus", "ugal_l"},
                                           Case{"torus", "ugal_g"}, Case{"mesh", "dor"}, Case{"mesh", "ugal_g"}),
                         case_name);

// Uniform traffic: UGAL beats Valiant's throughput (it routes minimally when
// queues are short). Checked through the command line so one test can run two
// simulations.
TEST(GraphNetwork, UgalAcceptsMoreThanValiantUnderUniformTraffic) {
  const std::string base =
      "run --set network.topology=torus --set network.torus.dims=4,4 --set network.torus.t=2 --set router.radix=8 "
      "--set router.vcs=8 --set traffic.load=0.9 --set sim.measure_cycles=3000 --set sim.drain_cap_cycles=0 "
      "--set network.routing=";
  auto accepted = [&](const char* routing) {
    auto r = test::nwnsim(base + routing + " --json /dev/stdout");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const auto pos = r.output.find("\"accepted_load\":");
    EXPECT_NE(pos, std::string::npos) << r.output;
    return pos == std::string::npos ? 0.0 : std::atof(r.output.c_str() + pos + 16);
  };
  const double valiant = accepted("valiant"), ugal = accepted("ugal_l");
  EXPECT_GT(ugal, valiant + 0.05) << "valiant " << valiant << ", ugal_l " << ugal;
}

// Same config and seed give identical results, also for ugal_g, which reads
// other routers' credit counters.
TEST(GraphNetwork, UgalGRunsAreReproducible) {
  const std::string cmd =
      "run --set network.topology=torus --set network.torus.dims=4,4 --set network.torus.t=2 --set router.radix=8 "
      "--set router.vcs=8 --set traffic.load=0.7 --set sim.measure_cycles=2000 --set network.routing=ugal_g "
      "--set traffic.pattern=worst_case --quiet --json ";
  const std::string ja = test::temp_path("a.json"), jb = test::temp_path("b.json");
  auto a = test::nwnsim(cmd + ja), b = test::nwnsim(cmd + jb);
  EXPECT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(b.exit_code, 0) << b.output;
  // Everything but the provenance (its date may differ by a second).
  EXPECT_EQ(test::without_provenance(ja), test::without_provenance(jb));
  EXPECT_NE(test::without_provenance(ja).find("\"packets_measured\""), std::string::npos);
}

TEST(GraphNetwork, TooFewVcsOrPortsAreClearErrors) {
  const std::string torus = "run --set network.topology=torus --set network.torus.dims=4,4 --set router.radix=8 ";
  auto r = test::nwnsim(torus + "--set network.routing=valiant --set router.vcs=4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs at least 8 VCs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 x 4 = 8 hops"), std::string::npos) << r.output;
  r = test::nwnsim(torus + "--set network.routing=minimal --set router.vcs=3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs at least 4 VCs"), std::string::npos) << r.output;
  r = test::nwnsim(torus + "--set network.routing=dor --set router.vcs=1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs at least 2 VCs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("dateline"), std::string::npos) << r.output;
  r = test::nwnsim("run --set network.topology=torus --set network.torus.dims=4,4,4 --set network.torus.t=2 "
                   "--set router.radix=6");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("router.radix = 6 is too small"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("network.torus.dims = 4,4,4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("router.radix >= 8"), std::string::npos) << r.output;
  r = test::nwnsim("run --set network.topology=torus --set network.torus.dims=4,1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("network.torus.dims = '4,1'"), std::string::npos) << r.output;
  r = test::nwnsim("run --set network.topology=mesh --set network.mesh.dims=4,4 --set router.radix=8 "
                   "--set network.routing=greedy2");
  EXPECT_EQ(r.exit_code, 2);
  // The default first, then the rest by name (whatever routings are registered).
  EXPECT_NE(r.output.find("network.routing = 'greedy2' does not apply to network.topology = mesh (allowed: auto, "
                          "dor, minad, minimal, ugal_g, ugal_l, valiant"),
            std::string::npos)
      << r.output;
  r = test::nwnsim("run --set network.topology=hyperx --set network.hyperx_s=4,4 --set network.hyperx_t=2 "
                   "--set router.radix=8 --set traffic.pattern=worst_case");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("worst_case needs a graph topology"), std::string::npos) << r.output;
}

// Slim Fly q = 5 (50 routers, 4 terminals each, radix 11), Dragonfly
// p = h = 2, a = 4, g = 9 (36 routers, radix 7), fat tree of radix 6
// (27 endpoints, 27 routers): hop counts from the graph's BFS distances.
Config diameter_two_or_three(const std::string& topology, const std::string& routing) {
  Config cfg = config({"network.topology=" + topology, "network.routing=" + routing, "router.radix=12",
                       "router.vcs=8", "network.slimfly.q=5", "network.dragonfly.p=2", "network.fattree.radix=6",
                       "network.fattree.levels=3"});
  return cfg;
}

struct GraphHops {
  topo::Graph g;
  std::vector<std::uint8_t> d;
  explicit GraphHops(const Config& cfg) : g(topo::build_graph(cfg)), d(topo::distances(g)) {}
  int router(int node) const { return g.router_of_endpoint(node); }
  int operator()(int a, int b) const { return d[std::size_t(router(a)) * g.routers() + router(b)]; }
};

class GraphNetworkTopologyZeroLoad : public ::testing::TestWithParam<Case> {};

TEST_P(GraphNetworkTopologyZeroLoad, LatencyIsExactAndRoutesAreMinimal) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = diameter_two_or_three(GetParam().topology, GetParam().routing);
  cfg.set("traffic.load", "0.002", "test");
  const GraphHops hops(cfg);
  const Check c = run_checked(cfg, hops);
  EXPECT_GT(c.packets, 50u);
  EXPECT_LE(c.wrong_latency, c.packets / 100);
  EXPECT_EQ(c.non_minimal, 0u);
}

INSTANTIATE_TEST_SUITE_P(Topologies, GraphNetworkTopologyZeroLoad,
                         ::testing::Values(Case{"slimfly", "minimal"}, Case{"slimfly", "minad"},
                                           Case{"dragonfly", "minimal"}, Case{"dragonfly", "minad"},
                                           Case{"fattree", "minimal"}),
                         case_name);

// worst_case on the Slim Fly: router pairs at distance 2 (the chains cover
// nearly every router); on the Dragonfly: every packet goes to the next group.
TEST(GraphNetwork, WorstCaseOnSlimFlyPairsRoutersAtDistanceTwo) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = diameter_two_or_three("slimfly", "minimal");
  cfg.set("traffic.load", "0.01", "test");
  cfg.set("traffic.pattern", "worst_case", "test");
  const GraphHops hops(cfg);
  const Check c = run_checked(cfg, hops, 2);
  EXPECT_GT(c.packets, 500u);
  EXPECT_LE(c.not_farthest, c.packets / 10);
  EXPECT_EQ(c.non_minimal, 0u);
}

TEST(GraphNetwork, WorstCaseOnDragonflyShiftsGroups) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = diameter_two_or_three("dragonfly", "minimal");
  cfg.set("traffic.load", "0.01", "test");
  cfg.set("traffic.pattern", "worst_case", "test");
  const GraphHops hops(cfg);
  auto net = make_network(cfg, clock_from(cfg));
  std::uint64_t packets = 0, wrong_group = 0;
  net->stats().on_packet = [&](const PacketExtension& p) {
    ++packets;
    const int gs = hops.g.group[hops.router(p.src)], gd = hops.g.group[hops.router(p.dst)];
    if (gd != (gs + 1) % 9) ++wrong_group;
  };
  run_network(cfg, *net);
  EXPECT_GT(packets, 100u);
  EXPECT_EQ(wrong_group, 0u);
}

class GraphNetworkTopologyAdversarial : public ::testing::TestWithParam<Case> {};

TEST_P(GraphNetworkTopologyAdversarial, EveryDestinationReachedWithoutDeadlock) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = diameter_two_or_three(GetParam().topology, GetParam().routing);
  for (const char* s : {"traffic.load=0.9", "traffic.pattern=worst_case", "traffic.packet_flits=4",
                        "sim.warmup_cycles=1000", "sim.measure_cycles=3000", "sim.drain_cap_cycles=20000",
                        "sim.watchdog_cycles=2000"})
    cfg.set_override(s);
  RunResult r;
  ASSERT_NO_THROW(r = run_experiment(cfg));
  // Minimal routing on the Slim Fly's worst case gives each node 1/(2p) = 0.125
  // on average, and less to the unluckiest: starving is well below that.
  EXPECT_GT(r.accepted_min_node, 0.01) << "a node starved";
}

INSTANTIATE_TEST_SUITE_P(Topologies, GraphNetworkTopologyAdversarial,
                         ::testing::Values(Case{"slimfly", "minimal"}, Case{"slimfly", "valiant"},
                                           Case{"slimfly", "ugal_l"}, Case{"slimfly", "ugal_g"},
                                           Case{"dragonfly", "minad"}, Case{"dragonfly", "valiant"},
                                           Case{"dragonfly", "ugal_l"}, Case{"dragonfly", "ugal_g"},
                                           Case{"dragonfly", "par"}, Case{"fattree", "minimal"},
                                           Case{"fattree", "ugal_l"}),
                         case_name);

TEST(GraphNetwork, DragonflyAndSlimFlyErrors) {
  auto r = test::nwnsim("run --set network.topology=dragonfly --set network.dragonfly.p=2 --set router.radix=12 "
                        "--set network.routing=ugal_l --set router.vcs=4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs at least 6 VCs"), std::string::npos) << r.output;
  // par: one hop more than ugal_l (a revert after the first local hop).
  r = test::nwnsim("run --set network.topology=dragonfly --set network.dragonfly.p=2 --set router.radix=12 "
                   "--set network.routing=par --set router.vcs=6");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs at least 7 VCs"), std::string::npos) << r.output;
  // par needs router groups: not on the Slim Fly.
  r = test::nwnsim("run --set network.topology=slimfly --set network.slimfly.q=5 --set router.radix=11 "
                   "--set network.routing=par");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("network.routing = 'par' does not apply to network.topology = slimfly"), std::string::npos)
      << r.output;
  r = test::nwnsim("run --set network.topology=slimfly --set network.slimfly.q=5 --set router.radix=10");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("network.slimfly.q = 5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("router.radix >= 11"), std::string::npos) << r.output;
  r = test::nwnsim("run --set network.topology=slimfly --set network.slimfly.q=5 --set router.radix=11 "
                   "--set network.routing=dor");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("network.routing = 'dor' does not apply to network.topology = slimfly (allowed: auto, "
                          "minimal, minad, ugal_g, ugal_l, valiant"),
            std::string::npos)
      << r.output;
}

TEST(GraphNetwork, MeshAndTorusGraphs) {
  Config cfg = config({"network.topology=mesh", "network.mesh.dims=3,4", "network.mesh.t=2"});
  topo::Graph g = topo::build_graph(cfg);
  EXPECT_EQ(g.routers(), 12);
  EXPECT_EQ(g.endpoints(), 24);
  EXPECT_EQ(g.channels(), 2 * 4 + 3 * 3);  // 4 rows of 2 channels, 3 columns of 3
  EXPECT_EQ(g.max_radix(), 2 + 4);
  const auto d = topo::distances(g);
  EXPECT_EQ(d[0 * 12 + 11], 2 + 3);
  cfg = config({"network.topology=torus", "network.torus.dims=5,2", "network.torus.t=1"});
  g = topo::build_graph(cfg);
  EXPECT_EQ(g.channels(), 2 * 5 + 5 * 2);  // rings of 5; k = 2 rings have two parallel channels
  EXPECT_EQ(topo::distances(g)[0 * 10 + 7], 2 + 1);
}

}  // namespace
}  // namespace nwn

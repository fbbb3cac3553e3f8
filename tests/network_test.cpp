// Global networks: exact zero-load latency, minimal routes, and deadlock-free
// non-minimal routing under adversarial traffic.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/network.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::config;

struct Check {
  std::uint64_t packets = 0, wrong_latency = 0, non_minimal = 0;
};

// Router hops of a minimal path in a k-ary n-tree (h = k/2): 1 + 2 x NCA level.
int fclos_min_hops(int a, int b, int h) {
  int level = 0;
  while (a / h != b / h) {
    a /= h;
    b /= h;
    ++level;
  }
  return 1 + 2 * level;
}

// Router hops of a minimal path in a HyperX: 1 + differing coordinates.
int hyperx_min_hops(int a, int b, int t, const std::vector<int>& s) {
  int ra = a / t, rb = b / t, hops = 1;
  for (int dim : s) {
    hops += ra % dim != rb % dim;
    ra /= dim;
    rb /= dim;
  }
  return hops;
}

// Every packet at zero load: 2 terminal channels + hops x router pipeline +
// (hops - 1) global channels, exactly; and the route is minimal.
template <typename MinHops>
Check run_zero_load(Config cfg, MinHops min_hops) {
  cfg.set("traffic.load", "0.002", "test");
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
    if (int(p.hops) != min_hops(p.src, p.dst)) ++c.non_minimal;
  };
  run_network(cfg, *net);
  return c;
}

TEST(FoldedClos, ZeroLoadLatencyIsExactAndRoutesAreMinimal) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=3"});
  const Check c = run_zero_load(cfg, [](int a, int b) { return fclos_min_hops(a, b, 4); });
  EXPECT_GT(c.packets, 100u);
  // At this load two packets rarely meet; allow a handful of queueing delays.
  EXPECT_LE(c.wrong_latency, c.packets / 200);
  EXPECT_EQ(c.non_minimal, 0u);
}

class HyperXMinimal : public ::testing::TestWithParam<const char*> {};

TEST_P(HyperXMinimal, ZeroLoadLatencyIsExactAndRoutesAreMinimal) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"network.topology=hyperx", "network.hyperx_s=4,3,2", "network.hyperx_t=2",
                       "network.hyperx_k=2", "router.radix=16", "router.vcs=3"});
  cfg.set("network.routing", GetParam(), "test");
  const Check c = run_zero_load(cfg, [](int a, int b) { return hyperx_min_hops(a, b, 2, {4, 3, 2}); });
  EXPECT_GT(c.packets, 100u);
  EXPECT_LE(c.wrong_latency, c.packets / 200);
  EXPECT_EQ(c.non_minimal, 0u);
}

INSTANTIATE_TEST_SUITE_P(Routing, HyperXMinimal, ::testing::Values("dor", "minad"));

struct Adversarial {
  const char* routing;
  const char* pattern;
};
void PrintTo(const Adversarial& a, std::ostream* os) { *os << a.routing << "/" << a.pattern; }

class HyperXAdversarial : public ::testing::TestWithParam<Adversarial> {};

// Past saturation on adversarial permutations: every node keeps receiving,
// nothing deadlocks (the watchdog would throw) and flits are conserved
// (run_network checks).
TEST_P(HyperXAdversarial, EveryDestinationReachedWithoutDeadlock) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"network.topology=hyperx", "network.hyperx_s=4,4", "network.hyperx_t=4",
                       "router.radix=10", "router.vcs=4", "traffic.load=0.9", "sim.warmup_cycles=1000",
                       "sim.measure_cycles=6000", "sim.drain_cap_cycles=20000", "sim.watchdog_cycles=2000"});
  cfg.set("network.routing", GetParam().routing, "test");
  cfg.set("traffic.pattern", GetParam().pattern, "test");
  RunResult r;
  ASSERT_NO_THROW(r = run_experiment(cfg));
  EXPECT_GT(r.accepted_min_node, 0.02) << "a node starved";
}

INSTANTIATE_TEST_SUITE_P(Routing, HyperXAdversarial,
                         ::testing::Values(Adversarial{"valiant", "tornado"}, Adversarial{"valiant", "bitcomp"},
                                           Adversarial{"dal", "tornado"}, Adversarial{"dal", "transpose"},
                                           Adversarial{"closad", "tornado"}, Adversarial{"minad", "transpose"},
                                           Adversarial{"dor", "transpose"}),
                         [](const auto& info) {
                           return std::string(info.param.routing) + "_" + info.param.pattern;
                         });

TEST(FoldedClos, Greedy2SurvivesSaturation) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  RunResult r = run_experiment(config({"network.topology=fclos", "router.radix=8", "network.routing=greedy2",
                                       "traffic.load=1.0", "sim.warmup_cycles=500", "sim.measure_cycles=3000",
                                       "sim.drain_cap_cycles=200", "sim.watchdog_cycles=2000"}));
  EXPECT_GT(r.accepted_load, 0.4);
}

TEST(Topology, BadParametersAreClearErrors) {
  auto r = test::nwnsim("run --set network.topology=hyperx --set network.hyperx_s=4,x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("network.hyperx_s"), std::string::npos) << r.output;
  r = test::nwnsim("run --set network.topology=hyperx --set network.hyperx_s=8,8 --set router.radix=8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs at least 22 ports"), std::string::npos) << r.output;
  r = test::nwnsim("run --set network.topology=hyperx --set network.routing=dal --set router.radix=32");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("at least 6 VCs"), std::string::npos) << r.output;
  r = test::nwnsim("run --set network.topology=fclos --set network.routing=dal --set router.radix=8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("network.routing = 'dal' does not apply to network.topology = fclos (allowed: auto, random, "
                          "deterministic, greedy2)"),
            std::string::npos)
      << r.output;
}

TEST(PortMap, TiedKeepsGroupsTogetherInterleavedDealsThemOut) {
  EXPECT_EQ(Network::port_map("tied", {2, 2}, 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(Network::port_map("interleaved", {2, 2}, 4), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(Network::port_map("interleaved", {1, 3, 2}, 6), (std::vector<int>{0, 1, 3, 5, 2, 4}));
}

// network.eject_vcs. A HyperX (8 routers of 8 terminals, one dimension),
// hx05 routers, dimension order, 4-flit buffers, uniform load 1.0: an
// internal channel of router B carries packets from B's terminals to the
// global port towards C and packets from C to B's terminals, and the same in
// C, so the full channels close a cycle through the two routers and the run
// wedges for every seed tried. With one VC reserved for packets to a
// terminal, the same runs drain (run_network checks that every flit arrives).
const std::string kEjectCycle =
    "run --set router.org=hx05 --set traffic.load=1.0 --set network.topology=hyperx --set network.hyperx_s=8 "
    "--set network.hyperx_t=8 --set router.radix=16 --set network.routing=dor --set "
    "network.port_assignment=interleaved --set router.vcs=4 --set router.vc_depth_flits=4 --set "
    "sim.warmup_cycles=500 --set sim.measure_cycles=3000 --set sim.drain_cap_cycles=3000 --set sim.watchdog_cycles=1000 ";

TEST(EjectVcs, BreakTheCycleThroughTwoRouters) {
  for (const char* seed : {"1", "2", "3"}) {
    SCOPED_TRACE(std::string("seed ") + seed);
    const std::string base = kEjectCycle + "--set sim.seed=" + seed + " ";
    auto shared = test::nwnsim(base + "--set network.eject_vcs=0");
    EXPECT_EQ(shared.exit_code, 3) << shared.output;
    EXPECT_NE(shared.output.find("network.eject_vcs = 1 reserves a VC"), std::string::npos) << shared.output;
    auto reserved = test::nwnsim(base + "--set network.eject_vcs=1");
    EXPECT_EQ(reserved.exit_code, 0) << reserved.output;
  }
}

// The routes of every packet (the packet trace's route events): to another
// router on VCs 0-2 of 4 (the reserved VC 3 never), to a terminal on any
// (0-3); with network.eject_vcs = 0 both on 0-3. Tied ports: 0-7 are the
// terminals, 8-14 the global ports.
TEST(EjectVcs, PacketsForOtherRoutersNeverTakeTheReservedVc) {
  for (const int eject : {0, 1}) {
    SCOPED_TRACE("network.eject_vcs = " + std::to_string(eject));
    const std::string trace = test::temp_path("eject" + std::to_string(eject) + ".trace");
    auto r = test::nwnsim("run --set router.org=hx05 --set network.topology=hyperx --set network.hyperx_s=8 "
                          "--set network.hyperx_t=8 --set router.radix=16 --set network.routing=dor --set "
                          "traffic.load=0.4 --set sim.warmup_cycles=100 --set sim.measure_cycles=400 --set "
                          "sim.packet_trace_every=1 --set network.eject_vcs=" + std::to_string(eject) +
                          " --trace-packets " + trace);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::istringstream in(test::slurp(trace));
    std::string line;
    int to_router = 0, to_terminal = 0;
    while (std::getline(in, line)) {
      const auto at = line.find(" route ");
      if (at == std::string::npos) continue;
      const auto vcs = line.find(" vcs "), out = line.find(" router_out ");
      ASSERT_NE(vcs, std::string::npos) << line;
      ASSERT_NE(out, std::string::npos) << line;
      const std::string range = line.substr(vcs + 5, line.find(' ', vcs + 5) - vcs - 5);
      if (std::stoi(line.substr(out + 12)) >= 8) {
        ++to_router;
        ASSERT_EQ(range, eject ? "0-2" : "0-3") << line;
      } else {
        ++to_terminal;
        ASSERT_EQ(range, "0-3") << line;
      }
    }
    EXPECT_GT(to_router, 1000);
    EXPECT_GT(to_terminal, 1000);
  }
}

// Refused before anything runs, naming the key, the value and what is allowed.
TEST(EjectVcs, BadValuesAreConfigErrors) {
  auto r = test::nwnsim("run --set network.eject_vcs=1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("network.eject_vcs = 1: a network.topology = single router has no router-to-router "
                          "channel"),
            std::string::npos)
      << r.output;
  r = test::nwnsim("run --set network.topology=hyperx --set network.hyperx_s=8 --set network.hyperx_t=8 --set "
                   "router.radix=16 --set router.vcs=4 --set network.routing=valiant --set network.eject_vcs=3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("network.eject_vcs = 3: router.vcs = 4 leaves 1 VCs to packets for other routers, which network.routing = valiant"),
            std::string::npos)
      << r.output;
  r = test::nwnsim("run --set network.eject_vcs=-1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("network.eject_vcs"), std::string::npos) << r.output;
}

// trv in a network (docs/RESULTS.md, "Deadlock across routers"): its
// Valiant internal routing sends every packet through any internal channel,
// so in router A a packet from B that goes on to C waits for an internal VC
// held by a packet from A's terminals to B, which waits for B's input
// buffer, full of packets from A that go on and wait the same way in B: a
// cycle through two routers, all its packets bound for other routers, that
// network.eject_vcs does not break and more VCs do not either (3x3 HyperX,
// dimension order, 12 VCs, 4 reserved: every seed wedged). Hop-indexed
// global classes break it (a packet of hop h waits only for VCs of hop h + 1);
// the config refuses the others, naming the routings allowed.
const std::string kTrvHyperX =
    "run --set router.org=trv --set router.radix=9 --set network.topology=hyperx --set network.hyperx_s=3,3 --set "
    "network.hyperx_t=5 --set traffic.size_mix=bimodal --set traffic.load=1.0 --set network.eject_vcs=4 --set "
    "sim.warmup_cycles=200 --set sim.measure_cycles=800 --set sim.watchdog_cycles=2000 ";

TEST(HopClasses, TrvInANetworkRefusesClassesThatDoNotRiseOnEveryHop) {
  for (const char* routing : {"dor", "valiant", "closad"}) {
    SCOPED_TRACE(routing);
    auto r = test::nwnsim(kTrvHyperX + "--set router.vcs=12 --set network.routing=" + routing);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("config error: router.org = trv in a network of routers with network.routing = " +
                            std::string(routing)),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("allowed: network.routing = dal or minad (hop-indexed VC classes)"), std::string::npos)
        << r.output;
  }
  // A mesh's default, dimension order (one class), likewise; its hop-indexed routings are named.
  auto r = test::nwnsim("run --set router.org=trv --set router.radix=9 --set network.topology=mesh --set "
                        "network.mesh.dims=3,3 --set network.mesh.t=2 --set sim.measure_cycles=100");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("allowed: network.routing = minad or minimal or ugal_g or ugal_l or valiant"),
            std::string::npos)
      << r.output;
  // hxv (Valiant inside a 2-D HyperX of subswitches) wedged the same way: refused too.
  const std::string hxv = "run --set network.topology=hyperx --set network.hyperx_s=4,4 --set network.hyperx_t=21 "
                          "--set router.radix=27 --set router.org=hxv --set traffic.size_mix=bimodal "
                          "--set traffic.load=0.7 --set sim.warmup_cycles=500 --set sim.measure_cycles=2000 ";
  r = test::nwnsim(hxv + "--set router.vcs=8 --set network.eject_vcs=4");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("config error: router.org = hxv in a network of routers with network.routing = auto"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(test::nwnsim(hxv + "--set router.vcs=8 --set network.eject_vcs=4 --set network.routing=minad").exit_code, 0);
  // Hop-indexed classes without ejection VCs: a 1-D HyperX of trv routers
  // with minad wedged (exit 3) at load 0.5; refused, naming the key.
  const std::string line = "run --set network.topology=hyperx --set network.hyperx_s=4 --set network.hyperx_t=8 "
                           "--set router.radix=16 --set router.org=trv --set router.vcs=8 --set traffic.load=0.5 "
                           "--set sim.warmup_cycles=500 --set sim.measure_cycles=2000 ";
  r = test::nwnsim(line + "--set network.routing=minad");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("needs network.eject_vcs >= 1 (now 0)"), std::string::npos) << r.output;
  EXPECT_EQ(test::nwnsim(line + "--set network.routing=minad --set network.eject_vcs=4").exit_code, 0);
  // In one dimension dimension order takes one hop: its class is the hop's.
  EXPECT_EQ(test::nwnsim(line + "--set network.routing=dor --set network.eject_vcs=4").exit_code, 0);
  // trm (minimal internal routes) and a single trv router are not refused.
  EXPECT_EQ(test::nwnsim(kTrvHyperX + "--set router.org=trm --set router.vcs=8 --set network.routing=dor").exit_code,
            0);
  EXPECT_EQ(test::nwnsim("run --set router.org=trv --set router.radix=16 --set sim.measure_cycles=200").exit_code, 0);
}

TEST(HopClasses, TrvInANetworkDrainsWithHopIndexedClasses) {
  for (const char* seed : {"1", "2", "3"}) {
    SCOPED_TRACE(std::string("seed ") + seed);
    auto r = test::nwnsim(kTrvHyperX + "--set router.vcs=12 --set network.routing=minad --set sim.seed=" + seed);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = test::nwnsim("run --set router.org=trv --set router.radix=9 --set network.topology=mesh --set "
                     "network.mesh.dims=3,3 --set network.mesh.t=2 --set network.routing=minimal --set router.vcs=20 "
                     "--set network.eject_vcs=4 --set router.vc_depth_flits=1 --set traffic.load=1.0 --set "
                     "sim.warmup_cycles=200 --set sim.measure_cycles=800 --set sim.watchdog_cycles=2000 --set "
                     "sim.seed=" + std::string(seed));
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
}

}  // namespace
}  // namespace nwn

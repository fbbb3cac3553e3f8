// The run itself: stuck networks are reported (exit 3, with what is stuck)
// however short the run; what is under way (flits and credits on channels,
// pipeline stages) is not a deadlock; topology sizes cannot overflow; trace
// files are read within bounds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "sim/network.hpp"
#include "sim/topo/analysis.hpp"
#include "sim/topo/graph.hpp"
#include "sim/trace_workload.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::config;
using test::nwnsim;
using test::temp_path;

std::string write_trace(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- stuck networks ----

// Terminals that stop accepting after two flits each wedge the router.
class StalledTerminalsNetwork final : public SingleRouterNetwork {
 public:
  using SingleRouterNetwork::SingleRouterNetwork;

 protected:
  int ejection_credits(int) const override { return 2; }
};

// Runs `cfg` on stalled terminals: the DeadlockError's message ("" and a
// failure when the run ends without one).
std::string deadlock_report(const Config& cfg) {
  StalledTerminalsNetwork net(cfg, clock_from(cfg));
  net.build(cfg);
  try {
    run_network(cfg, net);
  } catch (const DeadlockError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a deadlock report";
  return "";
}

// The whole run (warm-up, window, drain) is shorter than the watchdog: the
// wedge must still be reported, not called saturation.
TEST(StuckNetwork, ReportedWhateverTheRunLength) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"router.radix=8", "router.vc_depth_flits=4", "traffic.packet_flits=4", "traffic.load=0.5",
                       "sim.watchdog_cycles=1000", "sim.warmup_cycles=50",
                       "sim.measure_cycles=100", "sim.drain_cap_cycles=100"});
  const std::string msg = deadlock_report(cfg);
  EXPECT_TRUE(has(msg, "128 flit(s) in the network and none moved for")) << msg;
  EXPECT_TRUE(has(msg, "router0.xbar input")) << msg;
  EXPECT_TRUE(has(msg, "to output")) << msg;
  EXPECT_TRUE(has(msg, "front packet")) << msg;
}

// A trace run that wedges before its packets are delivered, with
// sim.max_cycles far below the watchdog.
TEST(StuckNetwork, ReportedWhenTheTraceRunEndsFirst) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const std::string trace = write_trace("t.trace", "0 1 0 4\n0 2 0 4\n1 3 0 4\n");
  Config cfg = config({"router.radix=8", "traffic.source=trace", "traffic.trace_file=" + trace,
                       "sim.watchdog_cycles=500", "sim.max_cycles=50"});
  const std::string msg = deadlock_report(cfg);
  EXPECT_TRUE(has(msg, "router0.xbar input")) << msg;
  EXPECT_TRUE(has(msg, "1->0 head")) << msg;  // the second packet to terminal 0
}

TEST(Watchdog, SomethingUnderWayIsNotAStall) {
  Watchdog w(10);
  auto none = [] { return Cycle(0); };
  auto report = [] { return std::string("report"); };
  // Nothing moves for 100 cycles, but an item on a channel arrives at 150.
  for (Cycle t = 50; t <= 150; ++t) w.check(t, 7, 3, [] { return Cycle(150); }, report);
  EXPECT_FALSE(w.stalled(150));
  w.check(155, 7, 3, none, report);
  EXPECT_TRUE(w.stalled(155));
  EXPECT_THROW(w.check(160, 7, 3, none, report), DeadlockError);
}

// Flits travelling on long channels, or waiting out long pipeline stages,
// with a watchdog far shorter: the runs complete and deliver (exit 0).
TEST(StuckNetwork, WorkUnderWayIsNotADeadlock) {
  const std::string trace = write_trace("one.trace", "0 0 1 1\n");
  const std::string base = "run --set traffic.source=trace --set traffic.trace_file=" + trace + " ";
  for (const char* args : {"--set channel.latency_cycles=20000",
                           "--set channel.latency_cycles=300 --set sim.watchdog_cycles=10",
                           "--set router.rc_cycles=1000 --set sim.watchdog_cycles=10"}) {
    auto r = nwnsim(base + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, "all 1 packets delivered")) << args << "\n" << r.output;
  }
  // Only credits travel: a one-VC, two-flit buffer refills after 500 cycles.
  const std::string three = write_trace("three.trace", "0 0 1 2\n0 0 1 2\n0 0 1 2\n");
  auto c = nwnsim("run --set traffic.source=trace --set traffic.trace_file=" + three +
                  " --set router.vcs=1 --set router.vc_depth_flits=2 --set channel.credit_latency_cycles=500 "
                  "--set sim.watchdog_cycles=10");
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_TRUE(has(c.output, "all 3 packets delivered")) << c.output;
  auto r = nwnsim("run --set network.topology=fclos --set router.radix=4 --set sim.watchdog_cycles=10 "
                  "--set network.link_latency_cycles=100 --set traffic.mode=batch --set traffic.batch_packets=1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "all 8 packets delivered")) << r.output;
  r = nwnsim("run --set network.topology=fclos --set router.radix=4 --set sim.watchdog_cycles=10 "
             "--set network.link_latency_cycles=100 --set traffic.load=0.01 --set sim.warmup_cycles=100 "
             "--set sim.measure_cycles=200");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// ---- sizes ----

struct TooBig {
  const char* name;
  const char* sets;
  std::vector<const char*> must_say;
};
void PrintTo(const TooBig& c, std::ostream* os) { *os << c.sets; }

class TopologySizes : public ::testing::TestWithParam<TooBig> {};

// Sizes that overflow 64 bits or pass the bound: exit 2 naming the keys,
// their values and the bound, in topo analyze and run alike.
TEST_P(TopologySizes, RefusedNamingKeysValuesAndTheBound) {
  const TooBig& c = GetParam();
  for (const char* cmd : {"topo analyze ", "run "}) {
    auto r = nwnsim(std::string(cmd) + c.sets);
    EXPECT_EQ(r.exit_code, 2) << cmd << c.sets << "\n" << r.output;
    for (const char* s : c.must_say) EXPECT_TRUE(has(r.output, s)) << "missing '" << s << "' in:\n" << r.output;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Generators, TopologySizes,
    ::testing::Values(
        TooBig{"Fattree", "--set network.topology=fattree --set network.fattree.radix=4096 --set network.fattree.levels=8",
               {"network.fattree.radix = 4096", "network.fattree.levels = 8", "routers", "at most 8000000"}},
        TooBig{"Dragonfly", "--set network.topology=dragonfly --set network.dragonfly.a=4096 --set network.dragonfly.h=4096",
               {"network.dragonfly.a = 4096", "network.dragonfly.h = 4096", "4294967296 routers", "at most 8000000"}},
        TooBig{"Torus", "--set network.topology=torus --set network.torus.dims=4096,4096,4096,4096,4096,4096,4096,4096",
               {"network.torus.dims = 4096,4096", "more than 2^63 routers", "at most 8000000"}},
        TooBig{"Mlfm", "--set network.topology=mlfm --set network.mlfm.h=2048 --set network.mlfm.p=4096",
               {"network.mlfm.h = 2048", "network.mlfm.p = 4096", "endpoints", "at most 4000000"}},
        TooBig{"Slimfly", "--set network.topology=slimfly --set network.slimfly.q=128 --set network.slimfly.p=4096",
               {"network.slimfly.q = 128", "134217728 endpoints", "at most 4000000"}},
        TooBig{"Oft", "--set network.topology=oft --set network.oft.k=1020",
               {"network.oft.k = 1020", "endpoints", "at most 4000000"}},
        TooBig{"NestghcSizes",
               "--set network.topology=nestghc --set network.nestghc.sizes=9223372036854775807,4 "
               "--set network.nestghc.dimensions=2",
               {"network.nestghc.sizes", "must equal the 131072 uplinks"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TopologySizes, GraphFclosAndHyperxAnalyzeRefuseOverflow) {
  auto r = nwnsim("topo analyze --set network.topology=fclos --set router.radix=4096 --set network.fclos_levels=8");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "router.radix = 4096, network.fclos_levels = 8")) << r.output;
  r = nwnsim("topo analyze --set network.topology=hyperx "
             "--set network.hyperx_s=4096,4096,4096,4096,4096,4096,4096,4096");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "more than 2^63 routers")) << r.output;
}

TEST(TopologySizes, SaturatingArithmetic) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(topo::size_mul(4096, 4096), 16777216);
  EXPECT_EQ(topo::size_mul(std::int64_t{1} << 40, std::int64_t{1} << 40), max);
  EXPECT_EQ(topo::size_mul(max, 0), 0);
  EXPECT_EQ(topo::size_add(max, 1), max);
  EXPECT_THROW(topo::check_size("k = 1", topo::kMaxGraphRouters + 1, 1, 1), ConfigError);
  EXPECT_NO_THROW(topo::check_size("k = 1", topo::kMaxGraphRouters, topo::kMaxGraphEndpoints, topo::kMaxGraphPorts));
}

// The distances report their progress, source by source, to the end.
TEST(TopologySizes, AnalysisReportsProgress) {
  Config cfg = config({"network.topology=torus", "network.torus.dims=8,8"});
  const topo::Graph g = topo::build_graph(cfg);
  topo::AnalysisOptions opt;
  opt.bisection = false;
  opt.max_sources = 20;
  std::vector<std::pair<int, int>> calls;
  opt.progress = [&](const char* stage, int done, int total) {
    if (std::string(stage) == "distances") calls.push_back({done, total});
  };
  const topo::Analysis a = topo::analyze(g, opt);
  ASSERT_EQ(int(calls.size()), a.sources);
  EXPECT_EQ(calls.back(), std::make_pair(a.sources, a.sources));
  EXPECT_EQ(calls.front().first, 1);
}

// ---- trace files ----

TEST(TraceBounds, EndlessOrUnreadableFilesAreClearErrors) {
  auto r = nwnsim("run --set traffic.source=trace --set traffic.trace_file=/dev/zero");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "/dev/zero:1: line longer than 4096 bytes")) << r.output;
  const std::string dir = temp_path("dir.trace");
  std::filesystem::create_directories(dir);
  r = nwnsim("run --set traffic.source=trace --set traffic.trace_file=" + dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "traffic.trace_file = '" + dir + "': cannot read the file: Is a directory")) << r.output;
  // A long line after good ones names its own line number.
  const std::string long_line = write_trace("long.trace", "0 1 2 1\n" + std::string(5000, '7') + "\n");
  r = nwnsim("run --set traffic.source=trace --set traffic.trace_file=" + long_line);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, long_line + ":2: line longer than 4096 bytes")) << r.output;
}

TEST(TraceBounds, CyclesAtOrPastMaxCyclesAreRefused) {
  const std::string trace = write_trace("late.trace", "0 1 2 1\n18446744073709551615 1 2 1\n");
  auto r = nwnsim("run --set traffic.source=trace --set traffic.trace_file=" + trace);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, trace + ":2: cycle = '18446744073709551615'")) << r.output;
  EXPECT_TRUE(has(r.output, "sim.max_cycles = 10000000")) << r.output;
  const std::string edge = write_trace("edge.trace", "0 1 2 1\n100 1 2 1\n");
  r = nwnsim("run --set sim.max_cycles=100 --set traffic.source=trace --set traffic.trace_file=" + edge);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, edge + ":2: cycle = '100'")) << r.output;
  // Scaled below the bound it is fine.
  r = nwnsim("run --set sim.max_cycles=100 --set traffic.trace_time_scale=0.5 --set traffic.source=trace "
             "--set traffic.trace_file=" + edge);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(TraceBounds, ParserBoundsLineLength) {
  TraceLimits lim;
  lim.nodes = 4;
  EXPECT_EQ(parse_trace("0 1 2 1\n", "t", lim).size(), 1u);
  EXPECT_THROW(parse_trace(std::string(kTraceMaxLineBytes + 1, ' ') + "\n", "t", lim), ConfigError);
  lim.max_cycles = 10;
  EXPECT_THROW(parse_trace("10 1 2 1\n", "t", lim), ConfigError);
  EXPECT_EQ(parse_trace("9 1 2 1\n", "t", lim).size(), 1u);
}

}  // namespace
}  // namespace nwn

// Trace-driven and batch workloads: the trace parser's errors, a trace run
// that delivers exactly the trace, batch completion and its determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include "models/rng.hpp"
#include "sim/network.hpp"
#include "sim/trace_workload.hpp"
#include "sim/traffic.hpp"
#include "sim/workload.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

// The workload a config describes, built without a network.
TEST(ConfigWorkload, BuildsEachSourceAndRefusesBadCombinations) {
  ConfigWorkload open = make_workload(test::config({}), 8, 1, nullptr);
  ASSERT_TRUE(open.workload);
  EXPECT_EQ(open.finite, nullptr);
  ConfigWorkload batch =
      make_workload(test::config({"traffic.mode=batch", "traffic.batch_packets=5"}), 8, 1, nullptr);
  ASSERT_NE(batch.finite, nullptr);
  EXPECT_EQ(batch.finite->total_packets(), 40u);
  EXPECT_EQ(make_workload(test::config({"traffic.source=external"}), 8, 1, nullptr).workload->next_creation(0, 0),
            kNever);
  EXPECT_THROW(make_workload(test::config({"traffic.source=trace"}), 8, 1, nullptr), ConfigError);
  EXPECT_THROW(make_workload(test::config({"traffic.pattern=worst_case"}), 8, 1, nullptr), ConfigError);
  EXPECT_THROW(make_workload(test::config({"traffic.packet_flits=17"}), 8, 1, nullptr), ConfigError);
}

using test::config;
using test::nwnsim;
using test::slurp;
using test::temp_path;

const std::string kExampleTrace = std::string(NWNSIM_SOURCE_DIR) + "/configs/traces/example16.trace";

// ---- the parser, through the command line (exit code 2 and the message) ----

struct BadTrace {
  const char* name;
  const char* text;
  const char* sets;  // extra --set options
  int line;          // the line the error must name
  std::vector<const char*> must_say;
};

void PrintTo(const BadTrace& c, std::ostream* os) { *os << c.name; }

class TraceErrors : public ::testing::TestWithParam<BadTrace> {};

TEST_P(TraceErrors, NameFileLineFieldValueAndWhatIsAllowed) {
  const BadTrace& c = GetParam();
  const std::string file = temp_path("bad.trace");
  std::ofstream(file) << c.text;
  auto r = nwnsim("run --set router.radix=16 --set traffic.source=trace --set traffic.trace_file=" + file + " " +
                  c.sets);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("trace error: " + file + ":" + std::to_string(c.line) + ": "), std::string::npos)
      << r.output;
  for (const char* s : c.must_say)
    EXPECT_NE(r.output.find(s), std::string::npos) << "missing '" << s << "' in:\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, TraceErrors,
    ::testing::Values(
        BadTrace{"TooFewFields", "# c s d n\n0 1 2 1\n\n5 1 2\n", "", 4,
                 {"3 fields in '5 1 2'", "cycle source destination size_flits"}},
        BadTrace{"TooManyFields", "0 1 2 1 9\n", "", 1, {"5 fields", "4 whitespace-separated integers"}},
        BadTrace{"NotAnInteger", "0 1 2 1\n3 1 x2 1  # comment\n", "", 2,
                 {"destination = 'x2'", "a node id, an integer from 0 to 15"}},
        BadTrace{"NegativeCycle", "-4 1 2 1\n", "", 1, {"cycle = '-4'", "an integer >= 0"}},
        BadTrace{"SourceOutOfRange", "0 1 2 1\n1 16 2 1\n", "", 2,
                 {"source = '16'", "from 0 to 15 (the network has 16 nodes)"}},
        BadTrace{"ZeroSize", "0 1 2 0\n", "", 1, {"size_flits = '0'", "an integer from 1 to 16"}},
        BadTrace{"LargerThanVctBuffers", "0 1 2 8\n0 2 3 9\n", "--set router.vc_depth_flits=8", 2,
                 {"size_flits = '9'", "from 1 to 8", "router.vc_depth_flits = 8", "virtual cut-through"}},
        BadTrace{"CycleGoesBackwards", "10 1 2 1\n\n12 3 4 1\n11 5 6 1\n", "", 4,
                 {"cycle = '11'", "must not decrease", "line 3 has cycle 12"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TraceErrors, MissingFileEmptyTraceAndMissingKeyAreClear) {
  auto r = nwnsim("run --set traffic.source=trace --set traffic.trace_file=/nonexistent/t.trace");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("traffic.trace_file = '/nonexistent/t.trace': cannot read"), std::string::npos) << r.output;
  r = nwnsim("run --set traffic.source=trace");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("traffic.source = trace needs traffic.trace_file"), std::string::npos) << r.output;
  const std::string empty = temp_path("empty.trace");
  std::ofstream(empty) << "# nothing\n\n";
  r = nwnsim("run --set traffic.source=trace --set traffic.trace_file=" + empty);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(empty + ": no packet lines"), std::string::npos) << r.output;
  r = nwnsim("run --set traffic.source=trace --set traffic.mode=batch --set traffic.trace_file=" + kExampleTrace);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("traffic.mode = batch"), std::string::npos) << r.output;
}

TEST(TraceParse, CommentsBlankLinesTabsAndTimeScale) {
  TraceLimits lim;
  lim.nodes = 4;
  const std::string text = "# header\n\n 0\t1 2 3 # tail comment\r\n5 3 0 1\n5 2 2 16\n";
  auto p = parse_trace(text, "t", lim);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(std::make_tuple(p[0].cycle, p[0].src, p[0].dst, int(p[0].size_flits)), std::make_tuple(0ull, 1, 2, 3));
  EXPECT_EQ(std::make_tuple(p[2].cycle, p[2].src, p[2].dst, int(p[2].size_flits)), std::make_tuple(5ull, 2, 2, 16));
  lim.time_scale = 2.5;
  p = parse_trace(text, "t", lim);
  EXPECT_EQ(p[1].cycle, 13u);  // 5 x 2.5 = 12.5, rounded away from zero
}

// ---- a trace run ----

// Every packet of the trace is delivered once, from its source to its
// destination, with its size and its creation cycle; nothing else is.
TEST(TraceRun, DeliversExactlyTheTracePackets) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"router.radix=16", "traffic.source=trace", "traffic.trace_file=" + kExampleTrace});
  TraceLimits lim;
  lim.nodes = 16;
  std::vector<std::tuple<Cycle, int, int, int>> expected;
  for (const TracePacket& p : read_trace_file(kExampleTrace, lim))
    expected.emplace_back(p.cycle, p.src, p.dst, p.size_flits);
  auto net = make_network(cfg, clock_from(cfg));
  std::vector<std::tuple<Cycle, int, int, int>> delivered;
  net->stats().on_packet = [&](const PacketExtension& p) {
    delivered.emplace_back(p.created_cycle, p.src, p.dst, p.size_flits);
    EXPECT_GE(p.delivered_cycle, p.created_cycle + 6) << "faster than the zero-load latency";
  };
  RunResult r = run_network(cfg, *net);
  std::sort(expected.begin(), expected.end());
  std::sort(delivered.begin(), delivered.end());
  EXPECT_EQ(delivered, expected);
  EXPECT_EQ(r.workload, "trace");
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.packets_measured, expected.size());
  std::uint64_t flits = 0;
  for (auto& e : expected) flits += std::get<3>(e);
  EXPECT_EQ(r.flits_created, flits);
  EXPECT_EQ(r.flits_ejected, flits);
  EXPECT_GE(r.completion_cycles, 250u + 6u);
  EXPECT_EQ(r.completion_node_max, r.completion_cycles);
  EXPECT_LE(r.completion_node_min, r.completion_node_avg);
  EXPECT_LE(r.completion_node_avg, double(r.completion_node_max));
}

// ---- batch mode ----

TEST(BatchRun, EveryNodeSendsItsBatchAndTheRunEndsWhenAllAreDelivered) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"router.radix=16", "traffic.mode=batch", "traffic.batch_packets=200", "traffic.load=0.5",
                       "traffic.packet_flits=2"});
  auto net = make_network(cfg, clock_from(cfg));
  std::vector<int> per_source(16, 0);
  net->stats().on_packet = [&](const PacketExtension& p) { ++per_source[p.src]; };
  RunResult r = run_network(cfg, *net);
  EXPECT_EQ(r.workload, "batch");
  EXPECT_TRUE(r.drained);
  EXPECT_FALSE(r.saturated);
  for (int n = 0; n < 16; ++n) EXPECT_EQ(per_source[n], 200) << "node " << n;
  EXPECT_EQ(r.packets_measured, 16u * 200u);
  EXPECT_EQ(r.flits_created, 16u * 200u * 2u);
  EXPECT_EQ(r.flits_ejected, r.flits_created);
  // 200 packets of 2 flits (4 cycles each on the channel) at half load take
  // about 200 x 8 = 1,600 cycles per node.
  EXPECT_GT(r.completion_cycles, 1300u);
  EXPECT_LT(r.completion_cycles, 2100u);
  EXPECT_EQ(r.completion_node_max, r.completion_cycles);
  EXPECT_LE(r.completion_node_min, r.completion_node_avg);
  EXPECT_NEAR(r.offered_load_measured, 0.5, 0.06);
  EXPECT_EQ(r.window_cycles, r.completion_cycles + 1);
}

// With at most one packet outstanding a node waits a round trip (at least
// the zero-load latency, 6 cycles, plus the cycle after delivery) per packet.
TEST(BatchRun, MaxOutstandingClosesTheLoop) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const int batch = 50;
  Config cfg = config({"router.radix=16", "traffic.mode=batch", "traffic.batch_packets=" + std::to_string(batch),
                       "traffic.load=1.0", "traffic.batch_max_outstanding=1"});
  auto net = make_network(cfg, clock_from(cfg));
  std::vector<std::int64_t> last_delivery(16, -1);
  int overlapping = 0;
  net->stats().on_packet = [&](const PacketExtension& p) {
    // Created before the node's previous packet arrived?
    if (std::int64_t(p.created_cycle) <= last_delivery[p.src]) ++overlapping;
    last_delivery[p.src] = std::int64_t(p.delivered_cycle);
  };
  RunResult r = run_network(cfg, *net);
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.packets_measured, 16u * batch);
  EXPECT_EQ(overlapping, 0);
  EXPECT_GE(r.completion_node_min, std::uint64_t(batch - 1) * 7 + 6);
}

TEST(BatchRun, SameSeedSameResultsAndOutputsCarryCompletion) {
  const std::string a = temp_path("a.json"), b = temp_path("b.json"), c = temp_path("c.json"),
                    csv = temp_path("a.csv");
  const std::string run = "run --set router.radix=16 --set traffic.mode=batch --set traffic.batch_packets=100 "
                          "--set traffic.load=0.8 --set traffic.pattern=uniform ";
  auto first = nwnsim(run + "--json " + a + " --csv " + csv);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("completion: all 1600 packets delivered by cycle"), std::string::npos) << first.output;
  ASSERT_EQ(nwnsim(run + "--json " + b).exit_code, 0);
  ASSERT_EQ(nwnsim(run + "--set sim.seed=7 --json " + c).exit_code, 0);
  EXPECT_EQ(test::without_provenance(a), test::without_provenance(b));
  EXPECT_NE(test::without_provenance(a), test::without_provenance(c));
  const auto j = nlohmann::json::parse(slurp(a))["results"];
  EXPECT_EQ(j["workload"], "batch");
  EXPECT_GT(j["completion_cycles"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["packets_measured"].get<std::uint64_t>(), 1600u);
  std::istringstream lines(slurp(csv));
  std::string comment, header, row;
  std::getline(lines, comment);
  EXPECT_EQ(comment.rfind("# nwnsim ", 0), 0u) << comment;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_NE(header.find("workload,completion_cycles,completion_node_min,completion_node_avg,completion_node_max"),
            std::string::npos)
      << header;
  EXPECT_NE(row.find("batch," + std::to_string(j["completion_cycles"].get<std::uint64_t>()) + ","),
            std::string::npos)
      << row;
}

// The closed loop re-arms sources inside the endpoints' tick: the kernel's
// thread count must not change anything.
TEST(BatchRun, ThreadsDoNotChangeResults) {
  const std::string one = temp_path("t1.json"), three = temp_path("t3.json");
  const std::string run = "run --set router.org=fc --set router.radix=16 --set traffic.mode=batch "
                          "--set traffic.batch_packets=200 --set traffic.load=0.8 "
                          "--set traffic.batch_max_outstanding=3 --quiet ";
  ASSERT_EQ(nwnsim(run + "--threads 1 --json " + one).exit_code, 0);
  ASSERT_EQ(nwnsim(run + "--threads 3 --json " + three).exit_code, 0);
  const auto a = nlohmann::json::parse(slurp(one))["results"], b = nlohmann::json::parse(slurp(three))["results"];
  EXPECT_EQ(a, b);
  EXPECT_TRUE(a["drained"].get<bool>());
}

TEST(BatchRun, SweepOfTheWindowShowsCompletion) {
  const std::string json = temp_path("s.json");
  auto r = nwnsim("sweep --set router.radix=16 --set traffic.mode=batch --set traffic.batch_packets=50 "
                  "--set traffic.load=1.0 --vary traffic.batch_max_outstanding=1,4 -j 2 --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("saturated  completion"), std::string::npos) << r.output;
  const auto points = nlohmann::json::parse(slurp(json))["points"];
  ASSERT_EQ(points.size(), 2u);
  const auto one = points[0]["results"]["completion_cycles"].get<std::uint64_t>();
  const auto four = points[1]["results"]["completion_cycles"].get<std::uint64_t>();
  EXPECT_LT(four, one) << "more packets in flight finish sooner";
  EXPECT_GE(one, 49u * 7u + 6u);
}

TEST(BatchRun, ZeroLoadAndSaturationSearchAreErrors) {
  auto r = nwnsim("run --set traffic.mode=batch --set traffic.load=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("traffic.load = 0 with traffic.mode = batch"), std::string::npos) << r.output;
  r = nwnsim("saturation --set traffic.mode=batch");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("the search varies traffic.load of open-loop synthetic traffic"), std::string::npos)
      << r.output;
}

}  // namespace

// The endpoints ask for a packet and its node's next creation in one call
// (Workload::make_packet_then_next). The synthetic workload's own version
// (a uniform draw without the pattern's virtual call, the packet's draws
// before the gap's) must give exactly what make_packet then next_creation
// give, draw for draw, for every pattern kind, size mix and load.
TEST(SyntheticWorkload, OneCallGivesThePacketAndNextCreationOfTheTwoCalls) {
  struct Case {
    const char* pattern;
    bool bimodal;
    double load;
  };
  for (const Case& c : {Case{"uniform", false, 0.5}, Case{"uniform", true, 0.3}, Case{"bitrev", false, 0.9},
                        Case{"hotspot", true, 0.05}, Case{"uniform", false, 1.0}, Case{"transpose_random", false, 0.7}}) {
    SCOPED_TRACE(std::string(c.pattern) + (c.bimodal ? " bimodal" : "") + " load " + std::to_string(c.load));
    SyntheticParams sp;
    sp.nodes = 64;
    sp.seed = 7;
    sp.load = c.load;
    sp.bimodal = c.bimodal;
    sp.bimodal_small_flits = 1;
    sp.bimodal_large_flits = 5;
    PatternParams pp;
    pp.nodes = 64;
    pp.seed = 7;
    SyntheticWorkload two(sp, make_traffic_pattern(c.pattern, pp)), one(sp, make_traffic_pattern(c.pattern, pp));
    std::uint64_t gaps = 0;
    for (int node : {0, 13, 63}) {
      Cycle now = two.next_creation(node, 0);
      ASSERT_EQ(one.next_creation(node, 0), now);
      for (int k = 0; k < 2000; ++k) {
        const PacketSpec a = two.make_packet(node, now);
        const Cycle next_a = two.next_creation(node, now + 1);
        PacketSpec b;
        const Cycle next_b = one.make_packet_then_next(node, now, b);
        ASSERT_EQ(a.dst, b.dst);
        ASSERT_EQ(a.size_flits, b.size_flits);
        ASSERT_EQ(a.cls, b.cls);
        ASSERT_EQ(next_a, next_b);
        gaps += next_a - (now + 1);
        now = next_a;
      }
    }
    // The gaps are Bernoulli arrivals at the packet probability (not all 0).
    if (c.load < 1.0) {
      EXPECT_GT(gaps, 0u);
    }
  }
}

// SyntheticWorkload's gap (the table's first thresholds searched without a
// branch) is GeometricGaps' for every draw: at random, and at and around
// both bounds of every threshold of the table.
TEST(SyntheticWorkload, BranchFreeGapIsTheTablesGap) {
  for (double p : {0.01, 1.0 / 16, 0.1, 0.3, 0.5, 0.7, 0.9}) {
    SyntheticParams sp;
    sp.nodes = 4;
    sp.load = p;  // 1-flit packets, 1 cycle a flit: the packet probability
    PatternParams pp;
    pp.nodes = 4;
    const SyntheticWorkload w(sp, make_traffic_pattern("uniform", pp));
    ASSERT_EQ(w.packet_probability(), p);
    const GeometricGaps g(p);
    const std::uint64_t top = std::uint64_t{1} << 53;
    auto check = [&](std::uint64_t m) {
      if (m >= top) return;
      ASSERT_EQ(w.gap_of(m), g.gap_of(m)) << "p " << p << " m " << m;
    };
    Rng r(11, 3);
    for (int i = 0; i < 200000; ++i) check(r.next() >> 11);
    for (unsigned i = 0; i < g.table_size(); ++i)
      for (std::uint64_t d = 0; d < 100; ++d)
        for (std::uint64_t b : {g.bounds(i).sure, g.bounds(i).unsure}) {
          check(b + d);
          check(b - 1 - d);
        }
    check(0);
    check(top - 1);
  }
}

// Rng::geometric_log leaves out the floor: for the quotients it takes
// (>= 0) the conversion's truncation is the floor, so every draw is the
// floored quotient of the definition.
TEST(SyntheticWorkload, GeometricGapIsTheFlooredQuotient) {
  for (double p : {1e-6, 0.01, 0.3, 0.5, 0.999}) {
    Rng a(3, 9), b(3, 9);
    const double l = std::log1p(-p);
    for (int i = 0; i < 100000; ++i) {
      const std::uint64_t gap = a.geometric_log(l);
      const double u = 1.0 - b.uniform();
      ASSERT_EQ(gap, std::uint64_t(std::floor(std::log(u) / l))) << "p " << p << " draw " << i;
    }
  }
}

// GeometricGaps draws what Rng::geometric_log draws, from the same next():
// at random, at both bounds of every threshold of its table, and around the
// thresholds themselves (where it computes the log).
TEST(SyntheticWorkload, GeometricGapsTableDrawsWhatTheLogDraws) {
  for (double p : {1e-6, 0.01, 0.0624, 1.0 / 16, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999}) {
    const GeometricGaps g(p);
    const double l = std::log1p(-p);
    ASSERT_EQ(g.log1p_neg_p(), l);
    if (p >= 1.0 / 16) {
      EXPECT_GT(g.table_size(), 0u) << "p " << p;
    } else {
      EXPECT_EQ(g.table_size(), 0u) << "p " << p;
    }
    Rng a(5, 7), b(5, 7);
    for (int i = 0; i < 200000; ++i) ASSERT_EQ(g.draw(a), b.geometric_log(l)) << "p " << p << " draw " << i;
    const std::uint64_t top = std::uint64_t{1} << 53;
    auto check = [&](std::uint64_t m) {
      if (m >= top) return;
      ASSERT_EQ(g.gap_of(m), Rng::geometric_of(m, l)) << "p " << p << " m " << m;
    };
    for (unsigned i = 0; i < g.table_size(); ++i) {
      const GeometricGaps::Bounds& bd = g.bounds(i);
      ASSERT_LT(bd.unsure, bd.sure);
      for (std::uint64_t d = 0; d < 200; ++d) {
        check(bd.sure + d);
        check(bd.sure - 1 - d);
        check(bd.unsure + d);
        check(bd.unsure - 1 - d);
      }
      // The exact threshold of gap i + 1 (the log's answer changes near it).
      const double u = std::exp(double(i + 1) * l);
      const std::uint64_t t = std::uint64_t(double(top) - u * double(top));
      for (std::uint64_t d = 0; d < 2000; ++d) {
        check(t + d);
        check(t - d);
      }
    }
    check(0);
    check(top - 1);
  }
}

}  // namespace nwn

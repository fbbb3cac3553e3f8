// The BookSim2 compatibility preset (configs/booksim-compat.toml) and the two
// options it needs (docs/VALIDATION.md): the figures come from the pipeline,
// not from a run of either tool.
#include <gtest/gtest.h>

#include "sim/network.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

Config compat(std::initializer_list<std::string> sets) {
  Config cfg;
  cfg.load_file(std::string(NWNSIM_SOURCE_DIR) + "/configs/booksim-compat.toml");
  for (auto& s : sets) cfg.set_override(s);
  return cfg;
}

struct CompatZeroLoad {
  const char* name;
  int rc, va;
  std::uint64_t latency;
};

void PrintTo(const CompatZeroLoad& c, std::ostream* os) { *os << c.name; }

class BookSimCompatZeroLoad : public ::testing::TestWithParam<CompatZeroLoad> {};

// BookSim2's iq router at zero load: the traffic manager writes a flit after
// the network has read its channels, so the router sees it two cycles later
// (inject_latency_cycles = 2); then rc + va + sa + st; then the 1-cycle
// ejection channel. Default pipeline 2 + 4 + 1 = 7; speculative with
// lookahead routing (routing_delay = 0, VA and SA in one cycle) 2 + 2 + 1 = 5.
TEST_P(BookSimCompatZeroLoad, IsBookSims) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const CompatZeroLoad c = GetParam();
  Config cfg = compat({"traffic.load=0.004", "sim.warmup_cycles=100", "sim.measure_cycles=20000",
                       "traffic.pattern=randperm"});
  cfg.set("router.rc_cycles", std::to_string(c.rc), "test");
  cfg.set("router.va_cycles", std::to_string(c.va), "test");
  ASSERT_EQ(c.latency, 2u + c.rc + c.va + 1 + 1 + 1);
  RunResult r = run_experiment(cfg);
  ASSERT_GT(r.packets_measured, 200u);
  // A random permutation never collides at an output, and at this load two
  // packets of one source almost never meet.
  EXPECT_EQ(r.latency_p50, c.latency);
  EXPECT_EQ(std::uint64_t(r.latency_avg + 0.5), c.latency) << "average " << r.latency_avg;
  EXPECT_EQ(std::uint64_t(r.network_latency_avg + 0.5), c.latency);
}

INSTANTIATE_TEST_SUITE_P(Pipelines, BookSimCompatZeroLoad,
                         ::testing::Values(CompatZeroLoad{"default", 1, 1, 7}, CompatZeroLoad{"speculative", 0, 0, 5}),
                         [](const auto& info) { return std::string(info.param.name); });

struct NextHeadCase {
  const char* name;
  int next_head_delay, rc, va;
  double throughput;
};

void PrintTo(const NextHeadCase& c, std::ostream* os) { *os << c.name; }

class NextHeadDelay : public ::testing::TestWithParam<NextHeadCase> {};

// With one VC and 1-flit packets on a permutation, an input's packets follow
// each other through its only VC: a tail leaves in switch allocation at cycle
// s, the head behind it is routed from s + next_head_delay_cycles (ready for
// VA rc_cycles later, but VA of cycle s has run: s + 1 at the earliest), and
// is allocated the switch va_cycles after VA. So an input serves one packet
// every max(1, delay + rc) + va cycles; offered 1.0, it accepts the inverse.
TEST_P(NextHeadDelay, SetsThePacketRateOfOneVc) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const NextHeadCase c = GetParam();
  ASSERT_DOUBLE_EQ(c.throughput, 1.0 / (std::max(1, c.next_head_delay + c.rc) + c.va));
  Config cfg = test::config({"router.radix=16", "router.vcs=1", "flit.bits=64", "traffic.pattern=bitcomp",
                             "traffic.load=1.0", "sim.warmup_cycles=1000", "sim.measure_cycles=6000",
                             "sim.drain_cap_cycles=100"});
  cfg.set("router.next_head_delay_cycles", std::to_string(c.next_head_delay), "test");
  cfg.set("router.rc_cycles", std::to_string(c.rc), "test");
  cfg.set("router.va_cycles", std::to_string(c.va), "test");
  RunResult r = run_experiment(cfg);
  EXPECT_NEAR(r.accepted_load, c.throughput, 0.002);
  EXPECT_NEAR(r.accepted_min_node, c.throughput, 0.002);
}

INSTANTIATE_TEST_SUITE_P(Rule, NextHeadDelay,
                         ::testing::Values(NextHeadCase{"nwnsim", 0, 1, 1, 0.5}, NextHeadCase{"booksim", 1, 1, 1, 1.0 / 3},
                                           NextHeadCase{"two", 2, 1, 1, 0.25}, NextHeadCase{"rc2", 1, 2, 1, 0.25},
                                           NextHeadCase{"lookahead", 1, 0, 1, 0.5}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nwn

// Cycle blocks (models/kernel.hpp): a router with its terminals runs several
// cycles in a row when every channel to another router takes at least that
// long. Each case runs a network cycle by cycle (sim.block_cycles = 1) and
// in blocks, on one thread and on two, and asserts that blocks were used
// where they may be, and not where they may not, and that the results are
// the same to the bit. The windows are not multiples of the block, so the
// blocks must stop where the experiment looks at the network. Where the
// routers split in two colours (a fat tree's levels, a torus of even
// sizes, a mesh), the automatic blocks run each colour two blocks in a row,
// and the case says so.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim_util.hpp"

namespace nwn {
namespace {

using test::nwnsim;
using test::slurp;
using test::temp_path;

struct BlockCase {
  const char* name;
  std::string args;
  int block;  // the block the kernel must choose
  int colours;  // 2: the clusters must run in two colours (with automatic blocks)
};

class CycleBlocks : public ::testing::TestWithParam<BlockCase> {};

TEST_P(CycleBlocks, ChangeNothingButSpeed) {
  const BlockCase& c = GetParam();
  struct Run {
    int threads, max_block;
  };
  const std::vector<Run> runs = {{1, 1}, {1, 0}, {2, 0}, {2, 1}};
  std::string first;
  for (const Run& run : runs) {
    const std::string tag = std::to_string(run.threads) + "-" + std::to_string(run.max_block);
    const std::string out = temp_path(tag + ".json"), perf = temp_path(tag + "-perf.json");
    const auto r = nwnsim("run --quiet " + c.args + " --threads " + std::to_string(run.threads) +
                          " --set sim.block_cycles=" + std::to_string(run.max_block) + " --json " + out +
                          " --perf-json " + perf);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto p = nlohmann::json::parse(slurp(perf));
    EXPECT_EQ(p.at("block_cycles").get<int>(), run.max_block == 1 ? 1 : c.block) << tag;
    EXPECT_EQ(p.at("block_colours").get<int>(), run.max_block == 1 ? 1 : c.colours) << tag;
    // Where the threads' time went: reported when two threads ran (a
    // routing that reads other routers runs on one). Every thread
    // publishes its lane in every publish phase; a thread's running time
    // is that of the chunks it ran (a loaded machine may leave a worker
    // none: the kernel's thread takes them all), within the run phases;
    // so what it waited (the phases less what it did, not clamped) is not
    // negative.
    const int threads = p.at("threads").get<int>();
    EXPECT_EQ(p.contains("thread_times"), threads == 2) << tag;
    if (threads == 2) {
      const auto& t = p.at("thread_times");
      const double run_phase = t.at("run_phase_seconds").get<double>();
      ASSERT_EQ(t.at("threads").size(), 2u) << tag;
      std::uint64_t chunks = 0;
      for (const auto& th : t.at("threads")) {
        const std::uint64_t ran = th.at("chunks").get<std::uint64_t>();
        chunks += ran;
        EXPECT_EQ(th.at("run_seconds").get<double>() > 0.0, ran > 0) << tag;
        EXPECT_LE(th.at("run_seconds").get<double>(), run_phase) << tag;
        EXPECT_GT(th.at("publish_seconds").get<double>(), 0.0) << tag;
        EXPECT_GE(th.at("waiting_seconds").get<double>(), 0.0) << tag;
      }
      EXPECT_GT(chunks, 0u) << tag;
    }
    const auto results = nlohmann::json::parse(slurp(out)).at("results");
    EXPECT_GT(results.at("packets_measured").get<int>(), 200) << tag;
    if (first.empty()) first = results.dump();
    EXPECT_EQ(results.dump(), first) << "threads-max_block " << tag;
  }
}

const char* kWindows = "--set sim.warmup_cycles=203 --set sim.measure_cycles=707 --set sim.drain_cap_cycles=3001 ";

INSTANTIATE_TEST_SUITE_P(
    Networks, CycleBlocks,
    ::testing::Values(
        // Global channels of 10 cycles: blocks of 10. fc routers near saturation.
        BlockCase{"FoldedClosFc",
                  std::string(kWindows) + "--set network.topology=fclos --set router.radix=8 --set router.org=fc "
                                          "--set router.subswitch_radix=4 --set traffic.load=0.6",
                  10, 2},
        // Adaptive routing reads the router's own credits; 3-cycle channels.
        BlockCase{"HyperXMinAdShortChannels",
                  std::string(kWindows) + "--set network.topology=hyperx --set network.hyperx_s=4,4 "
                                          "--set network.hyperx_t=4 --set router.radix=16 --set router.org=hc "
                                          "--set network.routing=minad --set network.link_latency_cycles=3 "
                                          "--set traffic.load=0.5 --set traffic.packet_flits=4",
                  3, 1},
        // Terminal channels of 6 cycles at full load inside the clusters:
        // the interfaces' flit rings hold what 6 cycles send (on 2 threads
        // a ring may not grow under the kernel).
        BlockCase{"FoldedClosSixCycleTerminalChannels",
                  std::string(kWindows) + "--set network.topology=fclos --set router.radix=8 "
                                          "--set channel.latency_cycles=6 --set channel.width_bits=128 "
                                          "--set traffic.pattern=neighbor --set traffic.load=1.0",
                  10, 2},
        // Open batch: nodes still run apart.
        BlockCase{"FoldedClosBatch",
                  "--set network.topology=fclos --set router.radix=8 --set traffic.mode=batch "
                  "--set traffic.batch_packets=40 --set traffic.load=0.5",
                  10, 2},
        // Closed loop: a delivery lets its source go on at once, so
        // everything runs in step.
        BlockCase{"FoldedClosClosedLoopBatch",
                  "--set network.topology=fclos --set router.radix=8 --set traffic.mode=batch "
                  "--set traffic.batch_packets=40 --set traffic.batch_max_outstanding=2 --set traffic.load=0.5",
                  1, 1},
        // A graph topology: a torus with dimension-order routing.
        BlockCase{"TorusDor",
                  std::string(kWindows) + "--set network.topology=torus --set network.torus.t=2 "
                                          "--set network.torus.dims=4,4 --set router.radix=8 --set router.vcs=8 "
                                          "--set network.routing=dor --set traffic.load=0.4",
                  10, 2},
        // UGAL with global information reads other routers: in step.
        BlockCase{"TorusUgalG",
                  std::string(kWindows) + "--set network.topology=torus --set network.torus.t=2 "
                                          "--set network.torus.dims=4,4 --set router.radix=8 --set router.vcs=8 "
                                          "--set network.routing=ugal_g --set traffic.load=0.3",
                  1, 1},
        // The benchmark's fat tree on a small scale: 1-cycle channels, so
        // the blocks are a cycle, and the colours run two in a row.
        BlockCase{"FoldedClosOneCycleChannels",
                  std::string(kWindows) + "--set network.topology=fclos --set router.radix=8 "
                                          "--set network.fclos_levels=3 --set network.link_latency_cycles=1 "
                                          "--set traffic.load=0.5",
                  1, 2},
        // A torus of odd size has odd rings: one colour.
        BlockCase{"OddTorusDor",
                  std::string(kWindows) + "--set network.topology=torus --set network.torus.t=2 "
                                          "--set network.torus.dims=3,3 --set router.radix=8 --set router.vcs=8 "
                                          "--set network.routing=dor --set network.link_latency_cycles=2 "
                                          "--set traffic.load=0.3",
                  2, 1}),
    [](const ::testing::TestParamInfo<BlockCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nwn

// The RTL allocators inside the full simulator (router.allocator_impl = rtl,
// nwnsim run --allocator rtl): a whole run with the Verilated allocators in
// every subswitch gives bit-identical results to the C++ allocators, on the
// canonical crossbar and on a multi-subswitch organization.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "sim_util.hpp"

namespace nwn {
namespace {

using test::nwnsim;
using test::slurp;
using test::temp_path;

// Runs the same point with both implementations; returns the RTL run's results.
nlohmann::json expect_identical(const std::string& point) {
  const std::string model = temp_path("model.json"), rtl = temp_path("rtl.json");
  auto m = nwnsim("run " + point + " --allocator model --quiet --json " + model);
  EXPECT_EQ(m.exit_code, 0) << m.output;
  auto r = nwnsim("run " + point + " --allocator rtl --quiet --json " + rtl);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto jm = nlohmann::json::parse(slurp(model));
  const auto jr = nlohmann::json::parse(slurp(rtl));
  EXPECT_EQ(jr["config"]["router.allocator_impl"], "rtl");
  EXPECT_EQ(jm["results"].dump(1), jr["results"].dump(1));
  return jr["results"];
}

// Sizes for which tb/CMakeLists.txt has Verilated configurations: 2 VCs.
const std::string kCommon =
    "--set router.vcs=2 --set sim.warmup_cycles=500 --set sim.measure_cycles=3000 --set traffic.pattern=uniform ";

TEST(SimulatorRtl, CanonicalCrossbarBitIdenticalToModel) {
  // cn radix 8: VC allocator islip 16x16, switch allocator islip 8x8.
  const auto res = expect_identical(kCommon + "--set router.org=cn --set router.radix=8 --set traffic.load=0.8");
  EXPECT_GT(res["packets_measured"].get<long>(), 5000);  // the allocators did real work
}

TEST(SimulatorRtl, FoldedClosBitIdenticalToModel) {
  // fc radix 16: bottom subswitches 4x4 and top 8x8 (VC allocators 8x8, 16x16).
  const auto res = expect_identical(kCommon + "--set router.org=fc --set router.radix=16 --set traffic.load=0.7");
  EXPECT_GT(res["packets_measured"].get<long>(), 8000);
}

TEST(SimulatorRtl, OneChosenRouterOfANetwork) {
  const std::string point = kCommon + "--set network.topology=fclos --set network.fclos_levels=2 --set router.radix=8 "
                                      "--set router.org=cn --set router.rtl_router=3 --set traffic.load=0.5";
  expect_identical(point);
  // The chosen router really ran the Verilated allocator: its trace (the RTL
  // switch allocator of router 3's subswitch) shows grants in the window.
  const std::string vcd = temp_path("router3.vcd");
  auto r = nwnsim("run " + point + " --allocator rtl --trace-rtl " + vcd +
                  " --set router.rtl_trace_from=1000 --set router.rtl_trace_cycles=50 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = slurp(vcd);
  EXPECT_NE(text.find("gnt_o"), std::string::npos) << "no RTL allocator trace from router 3";
  EXPECT_NE(text.find("#2000"), std::string::npos);
}

TEST(SimulatorRtl, MissingConfigurationIsAClearError) {
  auto r = nwnsim("run --set router.radix=64 --set sim.measure_cycles=100 --allocator rtl");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // Every size the network needs, at once: cn radix 64, 4 VCs: 256x256 VC
  // and 64x64 switch allocators.
  EXPECT_NE(r.output.find("no Verilated allocator islip_256x256_it1, islip_64x64_it1 "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("islip_8x8_it1"), std::string::npos) << r.output;  // lists what it has
  EXPECT_NE(r.output.find("-DNWNSIM_RTL_EXTRA='islip_256x256_it1;islip_64x64_it1'"), std::string::npos) << r.output;
}

TEST(SimulatorRtl, TraceWritesAVcdOfTheWindow) {
  const std::string vcd = temp_path("sw.vcd");
  auto r = nwnsim("run " + kCommon + "--set router.radix=8 --set traffic.load=0.5 --allocator rtl --trace-rtl " + vcd +
             " --set router.rtl_trace_from=1000 --set router.rtl_trace_cycles=50 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = slurp(vcd);
  EXPECT_NE(text.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.find("gnt_o"), std::string::npos);
  EXPECT_NE(text.find("#2000"), std::string::npos) << "cycle 1000 starts at time 2000";
  EXPECT_EQ(text.find("#2100"), std::string::npos) << "nothing after the window";
  auto bad = nwnsim("run --set sim.measure_cycles=100 --trace-rtl " + vcd);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("needs router.allocator_impl = rtl"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace nwn

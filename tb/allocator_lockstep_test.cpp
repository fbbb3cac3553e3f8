// Co-simulation of the allocator RTL against the C++ allocators, cycle by
// cycle (tb/lockstep_bench.hpp). Each TEST elaborates its own Verilated
// model, so each must run in its own process (ctest does that).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "Vislip_4x8_it3.h"
#include "Vislip_8x8_it1.h"
#include "Vislip_16x16_it2.h"
#include "Vinput_first_8x8.h"
#include "Voutput_first_8x8.h"
#include "tb/grant_checker.hpp"
#include "tb/lockstep_bench.hpp"
#include "tb/lockstep_gtest.hpp"

namespace nwn::tb {
namespace {

constexpr long kCiCycles = 100000;
constexpr long kLongCycles = 1000000;

TEST(RtlLockstep, Islip8x8OneIteration) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vislip_8x8_it1, 8, 8>("islip", 1, kCiCycles, 1);
}
TEST(RtlLockstep, Islip16x16TwoIterations) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vislip_16x16_it2, 16, 16>("islip", 2, kCiCycles, 2);
}
TEST(RtlLockstep, Islip4x8ThreeIterations) {  // not square: catches swapped indices
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vislip_4x8_it3, 4, 8>("islip", 3, kCiCycles, 3);
}
TEST(RtlLockstep, InputFirst8x8) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vinput_first_8x8, 8, 8>("input_first", 1, kCiCycles, 4);
}
TEST(RtlLockstep, OutputFirst8x8) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Voutput_first_8x8, 8, 8>("output_first", 1, kCiCycles, 5);
}

// A million cycles each, other seeds (ctest label "long").
TEST(RtlLockstepLong, Islip8x8OneIteration) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vislip_8x8_it1, 8, 8>("islip", 1, kLongCycles, 101);
}
TEST(RtlLockstepLong, Islip16x16TwoIterations) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vislip_16x16_it2, 16, 16>("islip", 2, kLongCycles, 102);
}
TEST(RtlLockstepLong, Islip4x8ThreeIterations) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vislip_4x8_it3, 4, 8>("islip", 3, kLongCycles, 103);
}
TEST(RtlLockstepLong, InputFirst8x8) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vinput_first_8x8, 8, 8>("input_first", 1, kLongCycles, 104);
}
TEST(RtlLockstepLong, OutputFirst8x8) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Voutput_first_8x8, 8, 8>("output_first", 1, kLongCycles, 105);
}

// The bench must be able to fail: against a different algorithm the RTL
// diverges, and the report and the VCD of the window appear.
TEST(RtlLockstep, MismatchIsReportedWithAVcd) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const std::string vcd = "lockstep_mismatch_selftest.vcd";
  std::remove(vcd.c_str());
  LockstepBench<Vislip_8x8_it1, 8, 8> bench("islip_vs_input_first");
  LockstepOptions opt;
  opt.cpp_allocator = "input_first";
  opt.cycles = kCiCycles;
  opt.vcd_path = vcd;
  const LockstepResult r = bench.run(opt);
  ASSERT_FALSE(r.ok) << "iSLIP RTL matched the input-first model for " << r.cycles << " cycles";
  std::printf("expected failure report:\n%s", r.failure.c_str());
  EXPECT_NE(r.failure.find("RTL and C++ grants differ"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("cycle " + std::to_string(r.failed_cycle)), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("VCD of the RTL"), std::string::npos) << r.failure;
  std::ifstream in(vcd);
  ASSERT_TRUE(in.good()) << "no VCD written";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.find("gnt_o"), std::string::npos);
  // The trace covers the window before the failing cycle, not the whole run:
  // two time steps per cycle.
  long steps = 0;
  for (std::size_t at = text.find("\n#"); at != std::string::npos; at = text.find("\n#", at + 1)) ++steps;
  EXPECT_GT(steps, 0);
  EXPECT_LE(steps, 2 * (opt.vcd_window_cycles + 2));
}

// The property checker on hand-made grants (no simulation).
TEST(GrantChecker, FlagsEachViolation) {
  BitMatrix req(3, 3), gnt(3, 3);
  req.set(0, 0);
  req.set(1, 0);
  req.set(1, 1);
  {
    GrantChecker c(3, 3, 9);
    gnt.clear();
    gnt.set(2, 2);
    EXPECT_NE(c.check(req, gnt).find("grant without request"), std::string::npos);
  }
  {
    GrantChecker c(3, 3, 9);
    gnt.clear();
    gnt.set(0, 0);
    gnt.set(1, 0);
    EXPECT_NE(c.check(req, gnt).find("output 0 granted twice"), std::string::npos);
  }
  {
    GrantChecker c(3, 3, 9);
    gnt.clear();
    gnt.set(1, 0);
    gnt.set(1, 1);
    EXPECT_NE(c.check(req, gnt).find("input 1 granted twice"), std::string::npos);
  }
  {
    // Fixed priority starves input 1 under unchanged requests.
    GrantChecker c(3, 3, 9);
    gnt.clear();
    gnt.set(0, 0);
    std::string last;
    int cycles = 0;
    while (last.empty() && cycles < 100) {
      last = c.check(req, gnt);
      ++cycles;
    }
    EXPECT_NE(last.find("starvation: input 1"), std::string::npos) << last;
    EXPECT_EQ(cycles, 9);
  }
  {
    // Changing requests restart the count.
    GrantChecker c(3, 3, 9);
    BitMatrix other = req;
    other.set(2, 2);
    gnt.clear();
    gnt.set(0, 0);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(c.check(i % 8 ? req : other, gnt), "");
  }
}

}  // namespace
}  // namespace nwn::tb

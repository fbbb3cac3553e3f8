// The lockstep check as a GoogleTest assertion (tb/lockstep_bench.hpp), for
// the test programs of tb/: tb/allocator_lockstep_test.cpp and, in builds
// that Verilate it, the 64x64 one (tb/allocator_lockstep_64_test.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tb/lockstep_bench.hpp"

namespace nwn::tb {

inline bool& simulated_in_this_process() {
  static bool done = false;
  return done;
}

#define NWN_ONE_SIMULATION_PER_PROCESS()                                                        \
  do {                                                                                          \
    if (simulated_in_this_process())                                                            \
      GTEST_SKIP() << "SystemC allows one simulation per process; run this test through ctest"; \
    simulated_in_this_process() = true;                                                         \
  } while (0)

inline std::string vcd_path(const std::string& name) { return "lockstep_" + name + ".vcd"; }

template <class Model, int N, int M>
void expect_lockstep(const std::string& cpp_name, int iterations, long cycles, std::uint64_t seed) {
  const std::string name = cpp_name + "_" + std::to_string(N) + "x" + std::to_string(M);
  LockstepBench<Model, N, M> bench(name.c_str());
  LockstepOptions opt;
  opt.cpp_allocator = cpp_name;
  opt.iterations = iterations;
  opt.seed = seed;
  opt.cycles = cycles;
  opt.vcd_path = vcd_path(name);
  const LockstepResult r = bench.run(opt);
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.cycles, cycles);
  // The run was not vacuous: every pattern appeared and grants happened.
  for (int p = 0; p < int(Pattern::count); ++p)
    EXPECT_GT(r.pattern_cycles[p], 0) << "pattern " << pattern_name(Pattern(p)) << " never ran";
  EXPECT_GT(r.grants, cycles) << "fewer than one grant per cycle on average";
}

}  // namespace nwn::tb

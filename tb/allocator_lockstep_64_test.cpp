// The lockstep check at the paper's size (docs/RTL.md): a 64x64 iSLIP, the
// switch allocator of a radix-64 cn router and the VC allocator of fc's
// radix-16 tops with 4 VCs, against the C++ model. Built only where
// NWNSIM_RTL_EXTRA Verilates islip_64x64_it1 (scripts/rtl-paper-sizes does);
// ctest label "long".
#include <gtest/gtest.h>

#include "Vislip_64x64_it1.h"
#include "tb/lockstep_gtest.hpp"

namespace nwn::tb {
namespace {

// As the CI runs of the small sizes: a 64x64 cycle costs about 64 times an 8x8 one.
constexpr long kCycles = 100000;

TEST(RtlLockstepLong, Islip64x64OneIteration) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  expect_lockstep<Vislip_64x64_it1, 64, 64>("islip", 1, kCycles, 106);
}

}  // namespace
}  // namespace nwn::tb

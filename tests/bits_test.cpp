// models/bits.hpp: the bit searches the allocators and the switch's VC
// choice use, against a bit-by-bit loop.
#include <gtest/gtest.h>

#include <cstdint>

#include "models/bits.hpp"
#include "models/rng.hpp"

namespace nwn {
namespace {

// The first set bit at or after `start`, else the first: bit by bit.
int first_cyclic_slowly(std::uint64_t x, int start) {
  for (int i = 0; i < 64; ++i)
    if (x >> ((start + i) & 63) & 1) return (start + i) & 63;
  return -1;
}

TEST(Bits, FirstCyclicIsTheFirstBitAtOrAfterTheStartWrappingAround) {
  Rng rng(11, 3);
  for (int trial = 0; trial < 2000; ++trial) {
    // Dense, sparse (a few bits) and single-bit words, the top and bottom bits among them.
    std::uint64_t x = rng.next();
    if (trial % 3 == 1) x &= rng.next() & rng.next() & rng.next();
    if (trial % 3 == 2) x = std::uint64_t{1} << rng.below(64);
    if (trial == 0) x = std::uint64_t{1} << 63;
    if (trial == 1) x = 1;
    if (!x) x = std::uint64_t{1} << 17;
    // Start 64 is 0: iSLIP's unwrapped pointer over 64 requesters.
    for (int start = 0; start <= 64; ++start)
      ASSERT_EQ(bits::first_cyclic(x, start), first_cyclic_slowly(x, start)) << std::hex << x << " from " << std::dec
                                                                             << start;
  }
}

}  // namespace
}  // namespace nwn

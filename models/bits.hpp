// Word-array bit sets for request and grant masks of arbiters and allocators.
#pragma once
#include <cstdint>
#include <vector>

namespace nwn::bits {

// Division of non-negative numbers by a divisor fixed at construction: a
// shift and a mask when it is a power of two (VC counts, speedups), so the
// per-VC index arithmetic of the hot loops has no hardware divide.
class Divisor {
 public:
  explicit Divisor(int d = 1) : d_(d), shift_(d > 0 && (d & (d - 1)) == 0 ? __builtin_ctz(unsigned(d)) : -1) {}
  int quot(int x) const { return shift_ >= 0 ? x >> shift_ : x / d_; }
  int rem(int x) const { return shift_ >= 0 ? x & (d_ - 1) : x % d_; }

 private:
  int d_, shift_;
};

inline int words_for(int nbits) { return (nbits + 63) / 64; }
inline void set(std::uint64_t* w, int i) { w[i >> 6] |= std::uint64_t{1} << (i & 63); }
inline void reset(std::uint64_t* w, int i) { w[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
inline bool test(const std::uint64_t* w, int i) { return (w[i >> 6] >> (i & 63)) & 1U; }

// Zeroes n words; short rows (the common case) without a call to memset.
inline void clear(std::uint64_t* w, int nwords) {
  switch (nwords) {
    case 1: w[0] = 0; return;
    case 2: w[0] = w[1] = 0; return;
    default:
      for (int i = 0; i < nwords; ++i) w[i] = 0;
  }
}

// The bits at or above `from`, for any `from` (all below 0, none from 64),
// without a branch: round-robin pointers relative to a group's first
// output often fall outside its 64 bits, at random.
inline std::uint64_t at_or_above(int from) {
  const int c = from < 0 ? 0 : from;
  return (~std::uint64_t{0} << (c & 63)) & (std::uint64_t{0} - std::uint64_t{c < 64});
}

// First set bit of x at or after `start` (< 64), wrapping around; x != 0.
// The bits rotated down by `start`, so that the first set one is the
// answer, wrapped around or not: one rotate, where the bits at or after
// `start`, else all of them, took a mask and a select (about 5
// instructions more a search in the 10-cycle fat tree's iSLIP).
// `start` may also be 64, taken as 0: a round-robin pointer over 64
// requesters kept unwrapped (iSLIP's) searches from the first. (The mask
// costs nothing: x86 shifts mask their count so.)
inline int first_cyclic(std::uint64_t x, int start) {
  start &= 63;
  return (__builtin_ctzll(x >> start | x << ((64 - start) & 63)) + start) & 63;
}

inline bool any(const std::uint64_t* w, int nwords) {
  for (int i = 0; i < nwords; ++i)
    if (w[i]) return true;
  return false;
}

// First set bit at index >= from, or -1.
inline int find_from(const std::uint64_t* w, int nbits, int from) {
  if (from >= nbits) return -1;
  int wi = from >> 6;
  std::uint64_t word = w[wi] & (~std::uint64_t{0} << (from & 63));
  const int nwords = words_for(nbits);
  while (true) {
    if (word) {
      int i = (wi << 6) + __builtin_ctzll(word);
      return i < nbits ? i : -1;
    }
    if (++wi >= nwords) return -1;
    word = w[wi];
  }
}

// Round-robin search: first set bit at or after `start`, wrapping around; -1 if none.
inline int find_cyclic(const std::uint64_t* w, int nbits, int start) {
  if (nbits <= 64) return w[0] ? first_cyclic(w[0], start) : -1;
  int i = find_from(w, nbits, start);
  if (i >= 0) return i;
  i = find_from(w, nbits, 0);
  return (i >= 0 && i < start) ? i : -1;
}

}  // namespace nwn::bits

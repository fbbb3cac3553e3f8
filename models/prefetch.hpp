// Software prefetch that the compiler keeps.
//
// GCC takes __builtin_prefetch to have no side effect, so its
// interprocedural analysis finds a function made only of prefetches (and of
// reads) `const` or `pure` and deletes every call to it, the result being
// unused: with the unity build (cmake/unity.cmake, CI's and scripts/build's
// default), where a router's and its subswitch's prefetch functions share a
// translation unit, every prefetch stage of a one-subswitch router but the
// first was gone (Router::prefetch_one, Subswitch::prefetch: found
// 2026-11-28 by their absence from a profile; GCC 12 does the same to a
// three-line example). An asm statement with `volatile` is never deleted
// and makes its caller impure, whatever the analysis sees.
//
// Both forms emit prefetcht0, as __builtin_prefetch did in this build for
// reads and writes alike (prefetchw for the writes ran no faster:
// docs/RESULTS.md, the sixteenth session); the name says what the line is
// for. Elsewhere than x86 the builtin remains.
#pragma once

namespace nwn {

// One line of memory, for reading or for writing (the hint the builtin
// takes elsewhere than x86).
template <bool kWrite>
[[gnu::always_inline]] inline void prefetch_line(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %a0" : : "p"(p));
#else
  __builtin_prefetch(p, kWrite ? 1 : 0);
#endif
}

[[gnu::always_inline]] inline void prefetch_read(const void* p) { prefetch_line<false>(p); }
[[gnu::always_inline]] inline void prefetch_write(const void* p) { prefetch_line<true>(p); }

}  // namespace nwn

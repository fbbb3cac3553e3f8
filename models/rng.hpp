// Deterministic random numbers, identical on every platform and library
// version (std:: distributions are not): xoshiro256** seeded by splitmix64.
// Every node, router or pattern owns its own stream, so results do not
// depend on the order in which components are evaluated.
#pragma once
#include <cmath>
#include <cstdint>

namespace nwn {

inline std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1, std::uint64_t stream = 0) { reseed(seed, stream); }
  void reseed(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
    for (auto& w : s_) w = splitmix64(x);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform integer in [0, n).
  std::uint32_t below(std::uint32_t n) {
    return std::uint32_t((std::uint64_t(std::uint32_t(next() >> 32)) * n) >> 32);
  }
  // Uniform double in [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  bool bernoulli(double p) { return uniform() < p; }
  // Failures before the first success of a Bernoulli(p) process.
  std::uint64_t geometric(double p) {
    if (p >= 1.0) return 0;
    return geometric_log(std::log1p(-p));
  }
  // The same draw, for a caller that computed log1p(-p) once (0 < p < 1):
  // the same division by the same value, so the same numbers. The quotient
  // is >= 0 (log u <= 0 for u in (0, 1], log1p(-p) < 0), where the
  // conversion's truncation is the floor.
  std::uint64_t geometric_log(double log1p_neg_p) { return geometric_of(next() >> 11, log1p_neg_p); }
  // The draw geometric_log makes of next()'s 53 high bits `m` (uniform()'s).
  static std::uint64_t geometric_of(std::uint64_t m, double log1p_neg_p) {
    const double u = 1.0 - double(m) * 0x1.0p-53;  // 1 - uniform(): (0, 1]
    return std::uint64_t(std::log(u) / log1p_neg_p);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// Rng::geometric_log's draws (one next(), the same numbers) without the log
// for nearly all of them. The gap is >= k exactly when u = 1 - uniform() <=
// (1-p)^k, i.e. when the 53 bits m are at or above a threshold; the table
// holds each threshold's bounds with a relative margin of 1e-9 in u, a
// million times the error of the computed quotient (log to < 1 ulp, one
// rounded division, k < 64), so m at or above `sure` gives a gap >= k and m
// below `unsure` gives < k. The draws between the bounds (about 2e-9 of
// them) and the long gaps past the table compute the quotient as
// geometric_log does. Tested against it: tests/workload_test.cpp.
class GeometricGaps {
 public:
  // 0 < p < 1. Small p (mean gaps past 16) does without the table: the
  // scan would cost more than the log.
  GeometricGaps() = default;  // no gaps to draw (p = 0 or 1: the workload draws none)
  explicit GeometricGaps(double p) : log1p_neg_p_(std::log1p(-p)) {
    if (!(p >= 1.0 / 16 && p < 1.0)) return;
    constexpr double kMargin = 1e-9, kTwo53 = 0x1.0p53;
    while (n_ < kMaxTable) {
      const double u_k = std::exp(double(n_ + 1) * log1p_neg_p_);  // P(gap >= k), k = n_ + 1
      // The margin must span many m values (2^-53 apart), for the bounds'
      // own rounding (two units each side) to stay inside it.
      if (u_k * kMargin * kTwo53 < 64) break;
      bounds_[n_].sure = std::uint64_t(std::ceil(kTwo53 - u_k * (1 - kMargin) * kTwo53)) + 2;
      bounds_[n_].unsure = std::uint64_t(std::floor(kTwo53 - u_k * (1 + kMargin) * kTwo53)) - 2;
      ++n_;
    }
  }
  double log1p_neg_p() const { return log1p_neg_p_; }
  std::uint64_t draw(Rng& rng) const { return gap_of(rng.next() >> 11); }
  // The gap for next()'s 53 high bits m: Rng::geometric_of(m, log1p(-p)).
  std::uint64_t gap_of(std::uint64_t m) const {
    unsigned k = 0;
    while (k < n_ && m >= bounds_[k].sure) ++k;
    if (k == n_ || m >= bounds_[k].unsure) return Rng::geometric_of(m, log1p_neg_p_);
    return k;
  }
  // The table (tests): entry i bounds the threshold of gap i + 1.
  struct Bounds {
    std::uint64_t sure, unsure;
  };
  unsigned table_size() const { return n_; }
  const Bounds& bounds(unsigned i) const { return bounds_[i]; }

 private:
  static constexpr unsigned kMaxTable = 48;
  double log1p_neg_p_ = 0;
  unsigned n_ = 0;
  Bounds bounds_[kMaxTable] = {};
};

}  // namespace nwn

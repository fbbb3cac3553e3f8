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
  std::uint64_t geometric_log(double log1p_neg_p) {
    const double u = 1.0 - uniform();  // (0, 1]
    return std::uint64_t(std::log(u) / log1p_neg_p);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace nwn

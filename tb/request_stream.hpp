// Seeded request matrices for the co-simulation: phases of one pattern each,
// chosen at random, so that a run covers light and saturated load, contention
// for one output, conflict-free permutations and long stretches of unchanged
// requests (where the starvation bound is checked).
#pragma once
#include <cstdint>
#include <vector>

#include "models/rng.hpp"
#include "tb/bit_matrix.hpp"

namespace nwn::tb {

enum class Pattern {
  idle,         // no requests: pointers must not move
  sparse,       // each pair with a small probability, new every cycle
  dense,        // each pair with a large probability, new every cycle
  hotspot,      // every input requests one output (plus a few others)
  permutation,  // each input requests one output, a new permutation every cycle
  full,         // every input requests every output
  persistent,   // one random matrix held for the whole phase
  one_input,    // a single input requests every output
  count
};
const char* pattern_name(Pattern p);

class RequestStream {
 public:
  RequestStream(int inputs, int outputs, std::uint64_t seed);

  // The next cycle's requests.
  void next(BitMatrix& req);
  Pattern pattern() const { return pattern_; }

 private:
  void start_phase();
  void random_fill(BitMatrix& req, double density);

  int inputs_, outputs_;
  Rng rng_;
  Pattern pattern_ = Pattern::idle;
  long phase_left_ = 0;
  double density_ = 0;
  int focus_ = 0;           // the hot output or the single input
  BitMatrix held_;          // the persistent phase's matrix
  std::vector<int> perm_;   // outputs, shuffled for permutation phases
};

}  // namespace nwn::tb

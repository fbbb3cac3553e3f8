#include "tb/request_stream.hpp"

#include <utility>

namespace nwn::tb {

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::idle: return "idle";
    case Pattern::sparse: return "sparse";
    case Pattern::dense: return "dense";
    case Pattern::hotspot: return "hotspot";
    case Pattern::permutation: return "permutation";
    case Pattern::full: return "full";
    case Pattern::persistent: return "persistent";
    case Pattern::one_input: return "one_input";
    case Pattern::count: break;
  }
  return "?";
}

RequestStream::RequestStream(int inputs, int outputs, std::uint64_t seed)
    : inputs_(inputs), outputs_(outputs), rng_(seed, 0x7262), held_(inputs, outputs), perm_(outputs) {}

void RequestStream::start_phase() {
  pattern_ = Pattern(rng_.below(std::uint32_t(Pattern::count)));
  const long pairs = long(inputs_) * outputs_;
  phase_left_ = 1 + long(rng_.below(std::uint32_t(4 * pairs)));
  switch (pattern_) {
    case Pattern::idle: phase_left_ = 1 + rng_.below(8); break;
    case Pattern::sparse: density_ = 0.02 + 0.15 * rng_.uniform(); break;
    case Pattern::dense: density_ = 0.5 + 0.5 * rng_.uniform(); break;
    case Pattern::hotspot: focus_ = int(rng_.below(std::uint32_t(outputs_))); break;
    case Pattern::one_input: focus_ = int(rng_.below(std::uint32_t(inputs_))); break;
    case Pattern::persistent:
      // Long enough for the starvation bound (inputs x outputs cycles) to bite.
      phase_left_ = 2 * pairs + long(rng_.below(std::uint32_t(2 * pairs)));
      held_.clear();
      random_fill(held_, 0.1 + 0.9 * rng_.uniform());
      break;
    default: break;
  }
}

void RequestStream::random_fill(BitMatrix& req, double density) {
  for (int in = 0; in < inputs_; ++in)
    for (int out = 0; out < outputs_; ++out)
      if (rng_.bernoulli(density)) req.set(in, out);
}

void RequestStream::next(BitMatrix& req) {
  if (phase_left_-- <= 0) {
    start_phase();
    --phase_left_;
  }
  req.clear();
  switch (pattern_) {
    case Pattern::idle: break;
    case Pattern::sparse:
    case Pattern::dense: random_fill(req, density_); break;
    case Pattern::hotspot:
      for (int in = 0; in < inputs_; ++in) req.set(in, focus_);
      random_fill(req, 0.05);
      break;
    case Pattern::permutation:
      for (int i = 0; i < outputs_; ++i) perm_[i] = i;
      for (int i = outputs_ - 1; i > 0; --i) std::swap(perm_[i], perm_[rng_.below(std::uint32_t(i + 1))]);
      // With more inputs than outputs, the surplus inputs wrap around.
      for (int in = 0; in < inputs_; ++in) req.set(in, perm_[in % outputs_]);
      break;
    case Pattern::full:
      for (int in = 0; in < inputs_; ++in)
        for (int out = 0; out < outputs_; ++out) req.set(in, out);
      break;
    case Pattern::persistent: req = held_; break;
    case Pattern::one_input:
      for (int out = 0; out < outputs_; ++out) req.set(focus_, out);
      break;
    case Pattern::count: break;
  }
}

}  // namespace nwn::tb

// iSLIP (McKeown 1999): request, grant, accept, repeated for a configurable
// number of iterations. Each output grants the requesting unmatched input
// next in its round-robin order; each input accepts the granting output next
// in its order. Pointers move (to one past the partner) only for grants
// accepted in the first iteration, which is what desynchronises the pointers
// and gives iSLIP its 100% throughput under uniform traffic.
#include <vector>

#include "allocator.hpp"
#include "arbiter.hpp"

namespace nwn {
namespace {

class IslipAllocator final : public Allocator {
 public:
  bool splits_by_disjoint_outputs() const override { return true; }

  explicit IslipAllocator(const AllocatorParams& p)
      : Allocator(p),
        accept_arb_(p.inputs, RoundRobinArbiter(p.outputs)),
        grant_arb_(p.outputs, RoundRobinArbiter(p.inputs)),
        in_words_(bits::words_for(p.inputs)),
        out_words_(bits::words_for(p.outputs)),
        unmatched_in_(in_words_, 0),
        offers_(std::size_t(p.inputs) * out_words_, 0),
        mask_(in_words_, 0) {}

 private:
  std::uint64_t* offers(int in) { return &offers_[std::size_t(in) * out_words_]; }

  void compute() override {
    if (active_inputs().size() == 1) return compute_one_input();
    if (in_words_ == 1 && out_words_ == 1) return compute_one_word();
    for (int in : active_inputs()) bits::set(unmatched_in_.data(), in);
    for (int it = 0; it < iterations_; ++it) {
      bool any_offer = false;
      for (int out : touched_outputs()) {
        if (grant_of_output(out) >= 0) continue;
        const std::uint64_t* c = col(out);
        for (int w = 0; w < in_words_; ++w) mask_[w] = c[w] & unmatched_in_[w];
        int in = grant_arb_[out].arbitrate(mask_.data());
        if (in < 0) continue;
        bits::set(offers(in), out);
        any_offer = true;
      }
      if (!any_offer) break;
      // Only unmatched inputs receive offers, and each clears its own.
      for (int in : active_inputs()) {
        if (grant_of_input(in) >= 0) continue;
        std::uint64_t* o = offers(in);
        int out = accept_arb_[in].arbitrate(o);
        if (out < 0) continue;
        bits::clear(o, out_words_);
        grant(in, out);
        bits::reset(unmatched_in_.data(), in);
        if (it == 0) {
          accept_arb_[in].update(out);
          grant_arb_[out].update(in);
        }
      }
    }
    for (int in : active_inputs()) bits::reset(unmatched_in_.data(), in);
  }

  // One requester without the matrix: as compute_one_input, on the mask.
  int allocate_one(int in, int base, std::uint64_t mask) override {
    if (!mask) return -1;
    const int rel = accept_arb_[in].pointer() - base;
    std::uint64_t from = mask;
    if (rel > 0) from = rel < 64 ? mask & (~std::uint64_t{0} << rel) : 0;
    const int out = base + __builtin_ctzll(from ? from : mask);
    accept_arb_[in].update(out);
    grant_arb_[out].update(in);
    return out;
  }

  // One requesting input: every output it asks for offers itself to it, so
  // the input's accept arbiter alone decides (the general rounds would
  // compute the same grant and pointer moves).
  void compute_one_input() {
    const int in = active_inputs()[0];
    const int out = accept_arb_[in].arbitrate(row(in));
    grant(in, out);
    accept_arb_[in].update(out);
    grant_arb_[out].update(in);
  }

  // The general rounds on single-word masks (up to 64 inputs and outputs).
  void compute_one_word() {
    std::uint64_t unmatched = 0;
    for (int in : active_inputs()) unmatched |= std::uint64_t{1} << in;
    for (int it = 0; it < iterations_; ++it) {
      bool any_offer = false;
      for (int out : touched_outputs()) {
        if (grant_of_output(out) >= 0) continue;
        const std::uint64_t m = col(out)[0] & unmatched;
        if (!m) continue;
        offers_[bits::first_cyclic(m, grant_arb_[out].pointer())] |= std::uint64_t{1} << out;
        any_offer = true;
      }
      if (!any_offer) break;
      for (int in : active_inputs()) {
        const std::uint64_t o = offers_[in];
        if (!o) continue;
        const int out = bits::first_cyclic(o, accept_arb_[in].pointer());
        offers_[in] = 0;
        grant(in, out);
        unmatched &= ~(std::uint64_t{1} << in);
        if (it == 0) {
          accept_arb_[in].update(out);
          grant_arb_[out].update(in);
        }
      }
    }
  }

  std::vector<RoundRobinArbiter> accept_arb_, grant_arb_;
  int in_words_, out_words_;
  std::vector<std::uint64_t> unmatched_in_;
  std::vector<std::uint64_t> offers_;
  std::vector<std::uint64_t> mask_;
};

AllocatorRegistration reg_islip("islip", [](const AllocatorParams& p) {
  return std::unique_ptr<Allocator>(new IslipAllocator(p));
});

}  // namespace
}  // namespace nwn

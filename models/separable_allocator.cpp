// Separable allocators: one round of input arbitration and one of output
// arbitration, each with round-robin arbiters. Arbiter pointers move only for
// requests that end in a grant (so a losing requester keeps its priority).
#include <vector>

#include "allocator.hpp"
#include "arbiter.hpp"

namespace nwn {
namespace {

class SeparableAllocatorBase : public Allocator {
 public:
  bool splits_by_disjoint_outputs() const override { return true; }

  explicit SeparableAllocatorBase(const AllocatorParams& p)
      : Allocator(p),
        in_arb_(p.inputs, RoundRobinArbiter(p.outputs)),
        out_arb_(p.outputs, RoundRobinArbiter(p.inputs)),
        in_words_(bits::words_for(p.inputs)),
        out_words_(bits::words_for(p.outputs)),
        offers_to_out_(std::size_t(p.outputs) * in_words_, 0),
        offers_to_in_(std::size_t(p.inputs) * out_words_, 0) {}

 protected:
  std::uint64_t* to_out(int out) { return &offers_to_out_[std::size_t(out) * in_words_]; }
  std::uint64_t* to_in(int in) { return &offers_to_in_[std::size_t(in) * out_words_]; }
  void clear_to_out(int out) { for (int w = 0; w < in_words_; ++w) to_out(out)[w] = 0; }
  void clear_to_in(int in) { for (int w = 0; w < out_words_; ++w) to_in(in)[w] = 0; }

  std::vector<RoundRobinArbiter> in_arb_, out_arb_;
  int in_words_, out_words_;
  std::vector<std::uint64_t> offers_to_out_;  // outputs x inputs
  std::vector<std::uint64_t> offers_to_in_;   // inputs x outputs
};

// Each input picks one output among its requests; each output then picks one
// of the inputs that picked it.
class SeparableInputFirstAllocator final : public SeparableAllocatorBase {
 public:
  using SeparableAllocatorBase::SeparableAllocatorBase;

 private:
  void compute() override {
    for (int in : active_inputs()) {
      int out = in_arb_[in].arbitrate(row(in));
      if (out >= 0) bits::set(to_out(out), in);
    }
    for (int out : touched_outputs()) {
      int in = out_arb_[out].arbitrate(to_out(out));
      if (in < 0) continue;
      grant(in, out);
      in_arb_[in].update(out);
      out_arb_[out].update(in);
      clear_to_out(out);
    }
  }
};

// Each output picks one input among its requesters; each input then accepts
// one of the outputs that picked it.
class SeparableOutputFirstAllocator final : public SeparableAllocatorBase {
 public:
  using SeparableAllocatorBase::SeparableAllocatorBase;

 private:
  void compute() override {
    for (int out : touched_outputs()) {
      int in = out_arb_[out].arbitrate(col(out));
      if (in >= 0) bits::set(to_in(in), out);
    }
    for (int in : active_inputs()) {
      int out = in_arb_[in].arbitrate(to_in(in));
      if (out < 0) continue;
      grant(in, out);
      in_arb_[in].update(out);
      out_arb_[out].update(in);
      clear_to_in(in);
    }
  }
};

AllocatorRegistration reg_input_first("input_first", [](const AllocatorParams& p) {
  return std::unique_ptr<Allocator>(new SeparableInputFirstAllocator(p));
});
AllocatorRegistration reg_output_first("output_first", [](const AllocatorParams& p) {
  return std::unique_ptr<Allocator>(new SeparableOutputFirstAllocator(p));
});

}  // namespace
}  // namespace nwn

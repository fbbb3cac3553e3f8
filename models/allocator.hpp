// Allocators match requesters (inputs) to resources (outputs): a grant set in
// which every input and every output appears at most once. They are used for
// both VC allocation (input VCs x output VCs) and switch allocation (crossbar
// inputs x outputs). The request matrix and grant vectors are the whole
// interface, so an RTL allocator (tb/) can stand in for a C++ one.
//
// Algorithms register themselves by name (see NWN_REGISTER_ALLOCATOR).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../base/registry.hpp"
#include "bits.hpp"
#include "prefetch.hpp"

namespace nwn {

struct AllocatorParams {
  int inputs = 1;
  int outputs = 1;
  int iterations = 1;  // iSLIP iterations (ignored by single-pass allocators)
};

class Allocator {
 public:
  explicit Allocator(const AllocatorParams& p);
  virtual ~Allocator() = default;

  int inputs() const { return inputs_; }
  int outputs() const { return outputs_; }

  // Requests for one allocation round.
  void clear();
  void request(int in, int out) {
    if (!row_active_[in]) {
      row_active_[in] = 1;
      active_inputs_.items[active_inputs_.count++] = in;
    }
    if (!col_active_[out]) {
      col_active_[out] = 1;
      touched_outputs_.items[touched_outputs_.count++] = out;
    }
    bits::set(&rows_[std::size_t(in) * row_words_], out);
    bits::set(&cols_[std::size_t(out) * col_words_], in);
  }
  bool requested(int in, int out) const { return bits::test(row(in), out); }
  bool has_requests() const { return active_inputs_.count > 0; }

  // Compute grants from the current requests and update priority state.
  void allocate();
  // The allocation of a round with one requester, `in`, asking for outputs
  // base + b for the bits b of `mask`: returns the output granted (or -1)
  // and updates the priority state exactly as clear(), request()s and
  // allocate() would. An allocator may answer it without the matrix; the
  // grant_of_*() of the round are then not set.
  virtual int allocate_one(int in, int base, std::uint64_t mask);
  // A round of n <= 64 requesters given whole: inputs[i] (ascending) asks
  // for the outputs base + b for the bits b of masks[i]. Writes the output
  // granted to inputs[i] (or -1) to grants[i], with the grants and priority
  // updates of clear(), request()s and allocate(). An allocator may answer
  // it without the matrix (then, as for allocate_one, the round's
  // grant_of_*() are not set); the default goes through the matrix.
  // Returns the places granted (bit i: grants[i] >= 0), for a caller to
  // visit without a test per requester.
  virtual std::uint64_t allocate_group(int n, const int* inputs, const std::uint64_t* masks, int base, int* grants);
  // A round given by its columns, inputs and outputs below 64: the inputs
  // are the bits of `inputs`, the outputs asked for the bits of `outputs`,
  // and cols[b] (for each bit b of `outputs` only) the inputs asking for b.
  // Writes the output granted to each granted input r of `inputs` to
  // grants[r] (the others' entries may be left as they were, or -1), with
  // the grants and priority updates of the same round through
  // allocate_group (its caller spares the transpose when it has the
  // columns at hand: the subswitch's switch allocation). Returns the
  // inputs granted, for a caller to visit without a test per input (and
  // to read only their grants: writing -1 for the others cost a loop over
  // every asking input).
  virtual std::uint64_t allocate_columns(std::uint64_t inputs, std::uint64_t outputs, const std::uint64_t* cols,
                                         int* grants);
  // The requests of one port in VC allocation by ports (allocate_ports):
  // at most 8 requesters. Places 0 to count - 1 hold them; the entries past
  // count may hold anything (a caller fills them as it goes). A cache line
  // and a half: aligned, so that a port's group is found by a shift.
  struct alignas(64) SmallGroup {
    // Byte b: the places (bit i: inputs[i]) asking for output b of the
    // port. Read for the ports asked by several only (a caller may leave a
    // lone requester's unset: its grant reads its mask).
    std::uint64_t cols;
    int count;           // 1 to 8
    int inputs[8];       // ascending
    std::uint64_t masks[8];  // per place: the outputs b of the port it asks for, bits b; not zero
  };
  // The VC allocation of a cycle by output ports: port p has the outputs
  // p * width + b, b < width <= 8, and its requests (groups[p]) go to the
  // allocator as a round of their own (splits_by_disjoint_outputs), with
  // the grants and priority updates of allocate_one (a lone requester) or
  // allocate_group (several). The ports asked are the bits p of `ports`
  // (bit p & 63 of word p >> 6, `words` words), those asked by several
  // requesters the bits of `several` (a subset). Writes each grant as input
  // grant_inputs[k], output grant_outputs[k] (k from 0, in any order; room
  // for one entry per requester) and returns their number. One call for all
  // the ports of a cycle: an allocator answers the lone requesters and the
  // groups in loops of their own, without a virtual call per port; the
  // default calls allocate_one and allocate_group port by port.
  virtual int allocate_ports(int words, const std::uint64_t* ports, const std::uint64_t* several,
                             const SmallGroup* groups, int width, int* grant_inputs, int* grant_outputs);
  // True when the allocation splits into independent ones wherever no two
  // groups of inputs ask for a common output: each group can then be
  // allocated alone (a round with only its requests) with the same grants
  // and priority updates. iSLIP and the separable allocators do (an
  // arbiter moves only for a grant); an RTL model evaluated per round is
  // not asked to.
  virtual bool splits_by_disjoint_outputs() const { return false; }

  int grant_of_input(int in) const { return in_grant_[in]; }
  int grant_of_output(int out) const { return out_grant_[out]; }
  // A fixed array with a count: requests never allocate.
  struct IndexList {
    std::vector<int> items;
    int count = 0;
    const int* begin() const { return items.data(); }
    const int* end() const { return items.data() + count; }
    int size() const { return count; }
    int operator[](int i) const { return items[i]; }
  };
  const IndexList& active_inputs() const { return active_inputs_; }

  // Software prefetch of the state the allocation reads every cycle
  // (hot_state_, when it spans at most 8 cache lines): the subswitch's
  // prefetch stages ask for it before its step. Changes nothing.
  void prefetch_state() const {
    if (hot_state_bytes_ > 512) return;
    const char* p = static_cast<const char*>(hot_state_);
    for (std::uint32_t at = 0; at < hot_state_bytes_; at += 64) prefetch_write(p + at);
  }

 protected:
  virtual void compute() = 0;  // fills in_grant_/out_grant_ via grant()
  void grant(int in, int out) { in_grant_[in] = out; out_grant_[out] = in; }

  const std::uint64_t* row(int in) const { return &rows_[std::size_t(in) * row_words_]; }
  const std::uint64_t* col(int out) const { return &cols_[std::size_t(out) * col_words_]; }
  const IndexList& touched_outputs() const { return touched_outputs_; }

  int inputs_, outputs_, iterations_;
  // The state a subclass reads every cycle (iSLIP: its round-robin
  // pointers), or null: the address in the object's first cache line,
  // beside the sizes, where a subclass's own members come after the
  // vectors below (in a large network each line of an allocator is a
  // cache miss a cycle).
  void* hot_state_ = nullptr;
  std::uint32_t hot_state_bytes_ = 0;  // its size (0 without)

 private:
  int row_words_, col_words_;
  std::vector<std::uint64_t> rows_;  // inputs x outputs
  std::vector<std::uint64_t> cols_;  // outputs x inputs (transpose)
  std::vector<std::uint8_t> row_active_, col_active_;
  IndexList active_inputs_;    // inputs with at least one request
  IndexList touched_outputs_;  // outputs with at least one request
  std::vector<int> in_grant_, out_grant_;
};

using AllocatorFactory = std::function<std::unique_ptr<Allocator>(const AllocatorParams&)>;

// Name -> factory. Adding an allocator touches only its own file.
Registry<AllocatorFactory>& allocator_registry();  // kind "allocator"
std::unique_ptr<Allocator> make_allocator(const std::string& name, const AllocatorParams& p);
std::vector<std::string> allocator_names();

struct AllocatorRegistration {
  AllocatorRegistration(const std::string& name, AllocatorFactory f) {
    allocator_registry().add(name, std::move(f));
  }
};

// Allocators realised in RTL: the Verilated configurations of tb/ that this
// build has register under rtl_allocator_key(algorithm, size). A build
// without them (NWNSIM_RTL=OFF) has none, and asking for one is an error.
struct RtlOptions {
  std::string trace_path;     // VCD of this allocator ("" = none)
  std::int64_t trace_from = 0;  // first traced cycle
  std::int64_t trace_cycles = 0;
  std::int64_t period_ps = 200;  // the datapath clock, to number cycles
};
using RtlAllocatorFactory = std::function<std::unique_ptr<Allocator>(const AllocatorParams&, const RtlOptions&)>;
std::string rtl_allocator_key(const std::string& algorithm, const AllocatorParams& p);
Registry<RtlAllocatorFactory>& rtl_allocator_registry();  // kind "rtl allocator"
std::unique_ptr<Allocator> make_rtl_allocator(const std::string& algorithm, const AllocatorParams& p,
                                              const RtlOptions& options);

// While one is alive, make_rtl_allocator stands the C++ model in for a
// size this build lacks and records it, so that a whole network's missing
// sizes are named in one error (make_network); without one, a missing size
// throws at once.
class RtlMissingSizes {
 public:
  RtlMissingSizes();
  ~RtlMissingSizes();
  RtlMissingSizes(const RtlMissingSizes&) = delete;
  RtlMissingSizes& operator=(const RtlMissingSizes&) = delete;
  // The missing sizes as NWNSIM_RTL_EXTRA names (islip_64x64_it1), sorted.
  const std::set<std::string>& names() const { return names_; }
  void add(const std::string& key);
  // What the build has, as NWNSIM_RTL_EXTRA names, comma-separated.
  static std::string available();

 private:
  std::set<std::string> names_;
  RtlMissingSizes* outer_;
};

struct RtlAllocatorRegistration {
  RtlAllocatorRegistration(const std::string& key, RtlAllocatorFactory f) {
    rtl_allocator_registry().add(key, std::move(f));
  }
};

}  // namespace nwn

// iSLIP (McKeown 1999): request, grant, accept, repeated for a configurable
// number of iterations. Each output grants the requesting unmatched input
// next in its round-robin order; each input accepts the granting output next
// in its order. Pointers move (to one past the partner) only for grants
// accepted in the first iteration, which is what desynchronises the pointers
// and gives iSLIP its 100% throughput under uniform traffic.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "allocator.hpp"
#include "arbiter.hpp"
#include "ring.hpp"  // CacheLineAllocator

namespace nwn {
namespace {

// P: the type of a round-robin pointer, the narrowest that holds every
// input and output number (make_islip): uint8_t up to 256 of each. The
// pointers are the allocator's only state read every cycle, and in a large
// network they are out of the cache each time: a radix-32 router's VC
// allocator (128 input VCs, 128 output VCs) had them as RoundRobinArbiter
// objects (size and pointer, 8 bytes) in two arrays of 16 cache lines,
// and as bytes in one array they take 4.
template <typename P>
class IslipAllocator final : public Allocator {
 public:
  bool splits_by_disjoint_outputs() const override { return true; }

  explicit IslipAllocator(const AllocatorParams& p)
      : Allocator(p),
        pointers_(std::size_t(p.inputs) + std::size_t(p.outputs), P{0}),
        in_words_(bits::words_for(p.inputs)),
        out_words_(bits::words_for(p.outputs)),
        unmatched_in_(in_words_, 0),
        offers_(std::size_t(p.inputs) * out_words_, 0),
        mask_(in_words_, 0) {
    hot_state_ = pointers_.data();
    hot_state_bytes_ = std::uint32_t(std::min<std::size_t>(pointers_.size() * sizeof(P), ~std::uint32_t{0}));
  }
  IslipAllocator(const IslipAllocator&) = delete;  // hot_state_ points into pointers_
  IslipAllocator& operator=(const IslipAllocator&) = delete;

 private:
  // A round-robin pointer over `size` requesters, as RoundRobinArbiter's
  // (arbiter.hpp): the first at or after it wins, and a used grant moves
  // it to one past the winner. Not wrapped: a pointer of `size` (one past
  // the last requester) finds no requester at or after it, so every search
  // wraps to the first, as from 0 (with P's 2^8 or 2^16 it is 0). The
  // compare and select of the wrap were about 3 instructions an update,
  // two updates a grant.
  struct PointerRef {
    P* p;
    int size;
    int pointer() const { return int(*p); }
    int arbitrate(const std::uint64_t* requests) const { return bits::find_cyclic(requests, size, int(*p)); }
    void update(int winner) const { *p = P(winner + 1); }
    // update(winner) if `used`, without a branch.
    void update_if(bool used, int winner) const {
      const int next = winner + 1;
      *p = P(int(*p) + ((next - int(*p)) & -int(used)));
    }
  };
  // Input `in`'s accept pointer (over the outputs), output `out`'s grant pointer (over the inputs).
  // The pointers and their ranges, read once into a function's locals
  // (table()): a store through a byte pointer may alias any member, so
  // through members the compiler read them again after every update.
  struct PointerTable {
    P* accept;  // per input
    P* grant;   // per output
    int outputs, inputs;
    PointerRef acceptor(std::size_t in) const { return PointerRef{accept + in, outputs}; }
    PointerRef granter(std::size_t out) const { return PointerRef{grant + out, inputs}; }
    PointerRef acceptor(int in) const { return acceptor(std::size_t(in)); }
    PointerRef granter(int out) const { return granter(std::size_t(out)); }
  };
  // (Through hot_state_, pointers_.data() in the object's first line.)
  PointerTable table() const {
    P* const p = static_cast<P*>(hot_state_);
    return PointerTable{p, p + inputs_, outputs_, inputs_};
  }

  std::uint64_t* offers(int in) { return &offers_[std::size_t(in) * out_words_]; }

  void compute() override {
    const PointerTable ptrs = table();
    if (active_inputs().size() == 1) return compute_one_input();
    if (in_words_ == 1 && out_words_ == 1) return compute_one_word();
    for (int in : active_inputs()) bits::set(unmatched_in_.data(), in);
    for (int it = 0; it < iterations_; ++it) {
      bool any_offer = false;
      for (int out : touched_outputs()) {
        if (grant_of_output(out) >= 0) continue;
        const std::uint64_t* c = col(out);
        for (int w = 0; w < in_words_; ++w) mask_[w] = c[w] & unmatched_in_[w];
        int in = ptrs.granter(out).arbitrate(mask_.data());
        if (in < 0) continue;
        bits::set(offers(in), out);
        any_offer = true;
      }
      if (!any_offer) break;
      // Only unmatched inputs receive offers, and each clears its own.
      for (int in : active_inputs()) {
        if (grant_of_input(in) >= 0) continue;
        std::uint64_t* o = offers(in);
        int out = ptrs.acceptor(in).arbitrate(o);
        if (out < 0) continue;
        bits::clear(o, out_words_);
        grant(in, out);
        bits::reset(unmatched_in_.data(), in);
        if (it == 0) {
          ptrs.acceptor(in).update(out);
          ptrs.granter(out).update(in);
        }
      }
    }
    for (int in : active_inputs()) bits::reset(unmatched_in_.data(), in);
  }

  // One requester without the matrix: as compute_one_input, on the mask.
  int allocate_one(int in, int base, std::uint64_t mask) override {
    const PointerTable ptrs = table();
    if (!mask) return -1;
    const std::uint64_t from = mask & bits::at_or_above(ptrs.acceptor(in).pointer() - base);
    const int out = base + __builtin_ctzll(from ? from : mask);
    ptrs.acceptor(in).update(out);
    ptrs.granter(out).update(in);
    return out;
  }

  // The general rounds on a group's masks, outputs by their bit b above
  // base. Requesters below 64 (a switch's rows) go by their input number;
  // others by their place i in `inputs`: ascending, so an output's
  // round-robin order over inputs is its order over places, starting at the
  // first input at or after its pointer.
  std::uint64_t allocate_group(int n, const int* inputs, const std::uint64_t* masks, int base,
                               int* grants) override {
    if (inputs[n - 1] < 64) return group_rounds<true>(n, inputs, masks, base, grants);
    return group_rounds<false>(n, inputs, masks, base, grants);
  }

  // The places (of up to 8, lo: places 0-3, hi: 4-7) whose input is at or
  // after `ptr`, lane by lane (and all bits above the eighth): a caller
  // masks them with the places asking, so lanes of no requester may hold
  // anything.
  template <typename Lanes>
  static std::uint64_t places_from(Lanes lo, Lanes hi, int ptr) {
#if defined(__SSE2__)
    const __m128i p = _mm_set1_epi32(ptr);
    __m128i l, h;
    std::memcpy(&l, &lo, sizeof l);
    std::memcpy(&h, &hi, sizeof h);
    return ~(std::uint64_t(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(l, p)))) |
             std::uint64_t(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(h, p)))) << 4);
#else
    std::uint64_t below = 0;
    for (int k = 0; k < 4; ++k) below |= std::uint64_t{lo[k] < ptr} << k | std::uint64_t{hi[k] < ptr} << (k + 4);
    return ~below;
#endif
  }

  // The first of the outputs b of `o` (8 bits) at or after rel, else the
  // first (0 for none): the byte doubled and shifted by rel (clamped to 0
  // to 8), so that the first bit set is the answer, wrapped around or not
  // (bit 16: none, 16 - rel + rel = 0 mod 8).
  static int first_from8(std::uint64_t o, int rel) {
    const int c = rel < 0 ? 0 : rel > 8 ? 8 : rel;
    return (__builtin_ctzll((o | o << 8 | std::uint64_t{1} << 16) >> c) + c) & 7;
  }

  // VC allocation by ports in one iteration: the lone requesters first,
  // each taking the first of its outputs at or after its accept pointer
  // (allocate_one), then the ports asked by several, each in a loop of
  // `width` outputs (fixed length: a loop over the outputs asked
  // mispredicted its exit about once a group) and one of its places.
  int allocate_ports(int words, const std::uint64_t* ports, const std::uint64_t* several, const SmallGroup* groups,
                     int width, int* grant_inputs, int* grant_outputs) override {
    const PointerTable ptrs = table();
    if (iterations_ != 1)
      return Allocator::allocate_ports(words, ports, several, groups, width, grant_inputs, grant_outputs);
    int k = 0;
    {
      // The lone requesters (most of them): the pointers in locals, and
      // the first output at or after the accept pointer by a shift: rel
      // below 0 or past 63 starts at bit 0, and rel past the mask's bits
      // (as an unwrapped pointer's) finds none and wraps to the first.
      // With first_from8 and PointerRef::update (a branch each), about 57
      // instructions a requester in the 10-cycle fat tree of 4,096 nodes.
      P* const accept = ptrs.accept;
      P* const grant = ptrs.grant;
      for (int w = 0; w < words; ++w)
        for (std::uint64_t t = ports[w] & ~several[w]; t; t &= t - 1) {
          const int p = w * 64 + __builtin_ctzll(t), base = p * width;
          const SmallGroup& g = groups[p];
          const int in = g.inputs[0];
          const std::uint64_t mask = g.masks[0];
          const int rel = int(accept[in]) - base;
          const std::uint64_t from = mask & (~std::uint64_t{0} << (unsigned(rel) < 64 ? rel : 0));
          const int out = base + __builtin_ctzll(from ? from : mask);
          accept[in] = P(out + 1);  // unwrapped (PointerRef)
          grant[out] = P(in + 1);
          grant_inputs[k] = in;
          grant_outputs[k++] = out;
        }
    }
    typedef int Lanes __attribute__((vector_size(16)));  // four ints (SSE2)
    for (int w = 0; w < words; ++w)
      for (std::uint64_t t = several[w]; t; t &= t - 1) {
        const int p = w * 64 + __builtin_ctzll(t), base = p * width;
        const SmallGroup& g = groups[p];
        const std::uint64_t cols = g.cols;
        Lanes lo, hi;
        std::memcpy(&lo, g.inputs, sizeof lo);
        std::memcpy(&hi, g.inputs + 4, sizeof hi);
        // Each output asked grants the first place asking at or after its
        // pointer, else the first asking: byte r of offers, the outputs
        // offering to place r.
        // An output no place asks for offers to "place 8": bit 64 + b, none.
        std::uint64_t offers = 0;
        std::uint64_t rest = cols;  // byte 0: the places asking for output b
        for (int b = 0; b < width; ++b, rest >>= 8) {
          const std::uint64_t m = rest & 0xff;
          const std::uint64_t high = m & places_from(lo, hi, ptrs.granter(std::size_t(base + b)).pointer());
          const int at = 8 * __builtin_ctzll((high ? high : m) | 0x100) + b;
          offers |= std::uint64_t{at < 64} << (at & 63);
        }
        // Each place offered accepts the first of its offers at or after
        // its pointer, else the first (a place without an offer: none, and
        // the pointers stay).
        for (int r = 0; r < g.count; ++r) {
          const std::uint64_t o = offers >> (8 * r) & 0xff;
          const int in = g.inputs[r];
          const PointerRef accept = ptrs.acceptor(std::size_t(in));
          const bool take = o != 0;
          const int out = base + first_from8(o, accept.pointer() - base);
          grant_inputs[k] = in;
          grant_outputs[k] = out;
          k += take;
          accept.update_if(take, out);
          ptrs.granter(std::size_t(out)).update_if(take, in);
        }
      }
    return k;
  }

  // group_rounds of a few requesters in one iteration (the usual VC
  // allocation): as rounds, without its loop of iterations, its offers
  // array and its closures. cols: byte b, the places asking for output
  // base + b; lo, hi: the inputs of places 0-3 and 4-7 (the absent ones the
  // largest int). Measured on the single router (booksim-compat, load 0.5):
  // about 320 instructions a group through rounds.
  template <typename Lanes>
  std::uint64_t one_round_of_few(const int* inputs, std::uint64_t cols, std::uint64_t free_outputs, Lanes lo, Lanes hi,
                                 int base, int* grants) {
    const PointerTable ptrs = table();
    std::uint64_t offers = 0;   // byte r: the outputs offering to place r
    std::uint64_t offered = 0;  // places with an offer
    for (std::uint64_t t = free_outputs; t; t &= t - 1) {
      const int b = __builtin_ctzll(t);
      const std::uint64_t m = cols >> (8 * b) & 0xff;  // not 0: some place asks for b
      const int ptr = ptrs.granter(std::size_t(base + b)).pointer();
      // The output grants the first place asking at or after its pointer, else the first asking.
      const std::uint64_t high = m & places_from(lo, hi, ptr);
      // high, else m, without a branch (the compiler made the select one,
      // and which way it goes is as good as random).
      const int r = __builtin_ctzll(high | (m & (std::uint64_t{0} - std::uint64_t{high == 0})));
      offered |= std::uint64_t{1} << r;
      offers |= std::uint64_t{1} << (8 * r + b);
    }
    const std::uint64_t granted = offered;  // each offered place accepts one offer
    for (; offered; offered &= offered - 1) {
      const int r = __builtin_ctzll(offered);
      const int in = inputs[r];
      const std::uint64_t o = offers >> (8 * r) & 0xff;
      const std::uint64_t from = o & bits::at_or_above(ptrs.acceptor(std::size_t(in)).pointer() - base);
      const int out = base + __builtin_ctzll(from | (o & (std::uint64_t{0} - std::uint64_t{from == 0})));
      grants[r] = out;
      ptrs.acceptor(std::size_t(in)).update(out);
      ptrs.granter(std::size_t(out)).update(in);
    }
    return granted;
  }

  // The columns of the transposed 8x8 matrix, byte b read when output b
  // is visited (building all eight took a loop of 8 a group).
  struct ByteColumns {
    std::uint64_t bytes;
    std::uint64_t operator[](int b) const { return bytes >> (8 * b) & 0xff; }
  };

  template <bool kByInput>
  std::uint64_t group_rounds(int n, const int* inputs, const std::uint64_t* masks, int base, int* grants) {
    if (!kByInput && n <= 8) {
      // A few requesters asking for outputs within 8 of base (VC allocation
      // at a port of up to 8 VCs: the usual group): the masks as the bytes
      // of one word, transposed into the columns, and the inputs padded to
      // 8, so that building the columns and counting an output's starting
      // place take loops of fixed length (the bit loops' exits mispredicted
      // about once a loop).
      std::uint64_t rows = 0, free_outputs = 0;
      typedef int Lanes __attribute__((vector_size(16)));  // four ints (SSE2)
      int in8[8];
      for (int k = 0; k < 8; ++k) in8[k] = std::numeric_limits<int>::max();
      for (int i = 0; i < n; ++i) {
        free_outputs |= masks[i];
        rows |= masks[i] << (8 * i);
        in8[i] = inputs[i];
        grants[i] = -1;
      }
      Lanes lo, hi;
      std::memcpy(&lo, in8, sizeof lo);
      std::memcpy(&hi, in8 + 4, sizeof hi);
      if (free_outputs < 256) {
        // The 8x8 bit matrix transposed (Hacker's Delight 7-3): byte b, the places asking for output b.
        std::uint64_t t = (rows ^ (rows >> 7)) & 0x00AA00AA00AA00AAULL;
        rows ^= t ^ (t << 7);
        t = (rows ^ (rows >> 14)) & 0x0000CCCC0000CCCCULL;
        rows ^= t ^ (t << 14);
        t = (rows ^ (rows >> 28)) & 0x00000000F0F0F0F0ULL;
        rows ^= t ^ (t << 28);
        if (iterations_ == 1) return one_round_of_few(inputs, rows, free_outputs, lo, hi, base, grants);
        std::uint64_t granted = 0;  // places
        rounds(
            (std::uint64_t{1} << n) - 1, free_outputs, ByteColumns{rows}, base,
            [&](int ptr) { return places_from(lo, hi, ptr); },
            [&](int r) { return inputs[r]; },
            [&](int r, int out) {
              grants[r] = out;
              granted |= std::uint64_t{1} << r;
            });
        return granted;
      }
    }
    std::uint64_t cols[64];  // per output bit: the requesters asking for it
    std::int8_t place[64];   // kByInput: the place of each input
    std::uint64_t free_outputs = 0, unmatched = 0;
    for (int i = 0; i < n; ++i) free_outputs |= masks[i];
    for (std::uint64_t t = free_outputs; t; t &= t - 1) cols[__builtin_ctzll(t)] = 0;
    for (int i = 0; i < n; ++i) {
      grants[i] = -1;
      const int r = kByInput ? inputs[i] : i;
      if (kByInput) place[r] = std::int8_t(i);
      unmatched |= std::uint64_t{1} << r;
      for (std::uint64_t m = masks[i]; m; m &= m - 1) cols[__builtin_ctzll(m)] |= std::uint64_t{1} << r;
    }
    std::uint64_t granted = 0;  // places
    if (kByInput) {
      rounds(unmatched, free_outputs, cols, base, [](int ptr) { return bits::at_or_above(ptr); },
             [](int r) { return r; },
             [&](int r, int out) {
               grants[place[r]] = out;
               granted |= std::uint64_t{1} << place[r];
             });
    } else {
      // The places of the inputs at or after an output's pointer: a count
      // without branches, where a binary search mispredicted.
      rounds(
          unmatched, free_outputs, cols, base,
          [&](int ptr) {
            int start = 0;
            for (int i = 0; i < n; ++i) start += inputs[i] < ptr;
            return bits::at_or_above(start);
          },
          [&](int r) { return inputs[r]; },
          [&](int r, int out) {
            grants[r] = out;
            granted |= std::uint64_t{1} << r;
          });
    }
    return granted;
  }

  std::uint64_t allocate_columns(std::uint64_t inputs, std::uint64_t outputs, const std::uint64_t* cols,
                                 int* grants) override {
    std::uint64_t granted = 0;  // (no grants[r] = -1 for the others: the caller reads the granted only)
    const auto grant = [&](int r, int out) {
      grants[r] = out;
      granted |= std::uint64_t{1} << r;
    };
    const auto by_input = [](int r) { return r; };
    if (iterations_ == 1 && inputs_ <= 64 && outputs_ <= 64) return one_round_of_columns(inputs, outputs, cols, grants);
    if (inputs_ <= 64 && outputs_ <= 64) {  // every pointer within the words: a plain shift
      rounds<true>(inputs, outputs, cols, 0, [](int ptr) { return ~std::uint64_t{0} << (ptr & 63); }, by_input, grant);
    } else {
      rounds(inputs, outputs, cols, 0, [](int ptr) { return bits::at_or_above(ptr); }, by_input, grant);
    }
    return granted;
  }

  // allocate_columns in one iteration (the usual switch allocation), as
  // rounds<true> without what only later iterations need: every requester
  // and output is unmatched in the first, so no column is masked or found
  // empty, and each offered requester accepts (the requesters granted are
  // those offered). About 80 instructions of rounds a call in the 10-cycle
  // fat tree of 4,096 nodes (of 610).
  std::uint64_t one_round_of_columns(std::uint64_t inputs, std::uint64_t outputs, const std::uint64_t* cols,
                                     int* grants) {
    (void)inputs;  // every column holds only requesters of `inputs`
    const PointerTable ptrs = table();
    static thread_local std::uint64_t offers[64];  // as rounds': all zero between calls
    std::uint64_t offered = 0;
    for (std::uint64_t t = outputs; t; t &= t - 1) {
      const int b = __builtin_ctzll(t);
      const int r = bits::first_cyclic(cols[b], ptrs.grant[b]);
      offered |= std::uint64_t{1} << r;
      offers[r] |= std::uint64_t{1} << b;
    }
    for (std::uint64_t left = offered; left; left &= left - 1) {
      const int r = __builtin_ctzll(left);
      const std::uint64_t o = offers[r];
      offers[r] = 0;
      const int b = bits::first_cyclic(o, ptrs.accept[r]);
      grants[r] = b;
      ptrs.accept[r] = P(b + 1);  // unwrapped (PointerRef)
      ptrs.grant[b] = P(r + 1);
    }
    return offered;
  }

  // The iterations of a group: requesters r (< 64) the bits of `unmatched`,
  // outputs base + b for the bits b of `free_outputs`, cols[b] the
  // requesters asking for b. An output's round-robin search over requesters
  // starts at the requesters high_of(its pointer) (the bits of those at or
  // after it); requester r is input input_of(r), and grant(r, output)
  // records a grant. kWithin64: every pointer is within base + [0, 64]
  // (64, unwrapped, as 0).
  template <bool kWithin64 = false, typename Cols, typename HighOf, typename InputOf, typename Grant>
  void rounds(std::uint64_t unmatched, std::uint64_t free_outputs, Cols cols, int base,
              HighOf high_of, InputOf input_of, Grant grant) {
    const PointerTable ptrs = table();
    // Per requester, the outputs offering to it: all zero between rounds
    // (each offered requester accepts in its iteration, and its accept
    // zeroes its entry), so an offer needs no test of whether its requester
    // had one already, and no round zeroes the array. Per thread, not per
    // allocator: one array, always in cache, for all the routers of a thread.
    static thread_local std::uint64_t offers[64];
    for (int it = 0; it < iterations_; ++it) {
      std::uint64_t offered = 0;  // requesters with an offer
      for (std::uint64_t t = free_outputs; t; t &= t - 1) {
        const int b = __builtin_ctzll(t);
        const std::uint64_t m = cols[b] & unmatched;
        if (!m) continue;
        const std::uint64_t high = m & high_of(ptrs.granter(base + b).pointer());
        const int r = __builtin_ctzll(high ? high : m);
        offered |= std::uint64_t{1} << r;
        offers[r] |= std::uint64_t{1} << b;
      }
      if (!offered) break;
      for (; offered; offered &= offered - 1) {
        const int r = __builtin_ctzll(offered);
        const int in = input_of(r);
        const std::uint64_t o = offers[r];
        offers[r] = 0;
        const int rel = ptrs.acceptor(in).pointer() - base;
        const std::uint64_t from = o & (kWithin64 ? ~std::uint64_t{0} << (rel & 63) : bits::at_or_above(rel));
        const int b = __builtin_ctzll(from ? from : o);
        grant(r, base + b);
        unmatched &= ~(std::uint64_t{1} << r);
        free_outputs &= ~(std::uint64_t{1} << b);
        if (it == 0) {
          ptrs.acceptor(in).update(base + b);
          ptrs.granter(base + b).update(in);
        }
      }
    }
  }

  // One requesting input: every output it asks for offers itself to it, so
  // the input's accept arbiter alone decides (the general rounds would
  // compute the same grant and pointer moves).
  void compute_one_input() {
    const PointerTable ptrs = table();
    const int in = active_inputs()[0];
    const int out = ptrs.acceptor(in).arbitrate(row(in));
    grant(in, out);
    ptrs.acceptor(in).update(out);
    ptrs.granter(out).update(in);
  }

  // The general rounds on single-word masks (up to 64 inputs and outputs).
  void compute_one_word() {
    const PointerTable ptrs = table();
    std::uint64_t unmatched = 0;
    for (int in : active_inputs()) unmatched |= std::uint64_t{1} << in;
    for (int it = 0; it < iterations_; ++it) {
      bool any_offer = false;
      for (int out : touched_outputs()) {
        if (grant_of_output(out) >= 0) continue;
        const std::uint64_t m = col(out)[0] & unmatched;
        if (!m) continue;
        offers_[bits::first_cyclic(m, ptrs.granter(out).pointer())] |= std::uint64_t{1} << out;
        any_offer = true;
      }
      if (!any_offer) break;
      for (int in : active_inputs()) {
        const std::uint64_t o = offers_[in];
        if (!o) continue;
        const int out = bits::first_cyclic(o, ptrs.acceptor(in).pointer());
        offers_[in] = 0;
        grant(in, out);
        unmatched &= ~(std::uint64_t{1} << in);
        if (it == 0) {
          ptrs.acceptor(in).update(out);
          ptrs.granter(out).update(in);
        }
      }
    }
  }

  std::vector<P, CacheLineAllocator<P>> pointers_;  // inputs' accept pointers, then outputs' grant pointers
  int in_words_, out_words_;
  std::vector<std::uint64_t> unmatched_in_;
  std::vector<std::uint64_t> offers_;
  std::vector<std::uint64_t> mask_;
};

AllocatorRegistration reg_islip("islip", [](const AllocatorParams& p) {
  const int most = std::max(p.inputs, p.outputs);
  if (most <= 256) return std::unique_ptr<Allocator>(new IslipAllocator<std::uint8_t>(p));
  if (most <= 65536) return std::unique_ptr<Allocator>(new IslipAllocator<std::uint16_t>(p));
  return std::unique_ptr<Allocator>(new IslipAllocator<std::int32_t>(p));
});

}  // namespace
}  // namespace nwn

// A point-to-point channel: flits travel one way with a fixed latency, credits
// travel back with their own latency. Every item carries its arrival cycle,
// and every latency is at least one cycle, so what a receiver reads in a
// cycle was sent in an earlier one: the two-phase cycle of the model,
// without a per-port sc_signal.
//
// Publication. Under the Kernel (models/kernel.hpp), what a link end sends
// during a cycle becomes visible to the other end only when the kernel
// publishes the link after the cycle (the link waits in its sender's
// outbox). Until then the reader's view of the queue does not change, so
// routers on different threads can run the same cycle while writing each
// other's links, and results do not depend on the thread count. Publishing
// also tells the reading end which of its inputs has something pending, so
// it visits only those. Without an outbox (a link driven by hand, as in the
// subswitch tests), or with one component at both ends, a send is
// published at once.
//
// Serialization: a flit of F bits on a W-bit channel occupies the channel for
// F/W cycles; the sender may not start the next flit before then.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "flit.hpp"
#include "ring.hpp"
#include "prefetch.hpp"

namespace nwn {

class Link;
class PendingInputs;

// The links one thread's components wrote in a block, for the kernel to
// publish after it: each link once a direction, in the lane of the end that
// reads that direction (the end's marks, PendingInputs), so that the lanes
// can be published by as many threads at once with no two marking one end.
// A lane is chosen by the address of the marks against `splits`
// (ascending: the kernel's, parts of the components of about equal
// weight, neighbours together); an end without marks (a stand-in of
// another process, called virtually) is in lane 0. Without splits, one lane.
struct Outbox {
  struct Lane {
    std::vector<Link*> flits, credits;
  };
  std::vector<std::uintptr_t> splits;
  std::vector<Lane> lanes = std::vector<Lane>(1);

  std::size_t lane_of(const PendingInputs* marks) const {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(marks);
    std::size_t lane = 0;
    for (std::uintptr_t s : splits) lane += a >= s;
    return lane;
  }
  template <bool kFlits>
  void add(Link* link, const PendingInputs* marks) {
    Lane& lane = lanes[lane_of(marks)];
    (kFlits ? lane.flits : lane.credits).push_back(link);
  }
};

// An end of links (a router, the endpoints).
class LinkEnd {
 public:
  virtual ~LinkEnd() = default;
  // Where the links this end sent on during the current block wait for
  // the kernel to publish them; null: publish each send at once.
  Outbox* outbox = nullptr;
  // Published: input `tag` (this end's numbering) has flits to read from a
  // later cycle on; output `tag` has credits to read. Called only when the
  // link goes from nothing published and unread to something: an end keeps
  // visiting a link until it has read all that was published (its read
  // says so), so the calls for later items would change nothing, and a
  // busy link is spared a virtual call per item. `at`: the arrival of the
  // first item pending (0: none yet, look at the next tick). An end that
  // keeps it (PendingInputs::mark) visits the link only once that item is
  // due, rather than at its next tick to find it is not, a test whose
  // outcome is as good as random when the link's writer runs in its cluster.
  virtual void flits_pending(int tag, Cycle at) = 0;
  virtual void credits_pending(int tag, Cycle at) = 0;
  // An end that keeps its pending inputs in a PendingInputs (a router, the
  // endpoints) points its links at it, set before any link is attached:
  // a publish then marks it directly (as flits_pending would), without the
  // virtual call (about 50,000 instructions a cycle in the 10-cycle fat
  // tree went to the calls). Null: the link calls flits_pending
  // (credits_pending), as for a stand-in of another process.
  PendingInputs* flit_marks = nullptr;
  PendingInputs* credit_marks = nullptr;
};

// The inputs of a link end with items published and not yet read, and when
// the first of each arrives: a cycle reads a link only when something on it
// is due (the kernel's publish phase marks, the end's tick visits).
// In a large network a mark from another router finds this state out of the
// cache, and a tick reads it cold: with 64 inputs or fewer the marks are one
// word in the object itself (in its owner's first lines, which the kernel
// asks for anyway), and an arrival takes 16 bits, so a radix-32 router's
// arrivals are one cache line (they were 2.5 lines with the word and
// 32-bit arrivals: three lines a direction a router and cycle in the
// 1-cycle fat tree). More inputs keep all their words before the arrivals.
class PendingInputs {
 public:
  void resize(int n) {
    words_ = std::uint32_t((n + 63) / 64);
    // The arrivals padded to 16 (due_in reads them 16 at a time).
    const std::size_t bytes =
        std::size_t(outer_words()) * sizeof(std::uint64_t) + std::size_t((n + 15) & ~15) * sizeof(Arrival);
    data_.reset(CacheLineAllocator<std::uint64_t>().allocate((bytes + 7) / 8));
    std::fill_n(data_.get(), (bytes + 7) / 8, std::uint64_t{0});
    one_word_ = 0;
    count_ = 0;
  }
  // Input i has items pending, the first due at `at` (0: unknown, read at
  // the next tick).
  void mark(int i, Cycle at = 0) {
    std::uint64_t& w = words()[std::size_t(i) >> 6];
    const std::uint64_t b = std::uint64_t{1} << (i & 63);
    if (w & b) return;
    w |= b;
    next_at()[std::size_t(i)] = Arrival(at);
    ++count_;
  }
  int count() const { return count_; }
  // Asks for the marks and arrivals of `n` inputs (the resize's n): the
  // lines visit_due reads (Clocked::prefetch).
  void prefetch(int n) const {
    prefetch_lines(data_.get(), std::size_t(outer_words()) * sizeof(std::uint64_t) + std::size_t(n) * sizeof(Arrival),
                   true);
  }
  // Calls f(i) for every marked input with an item due at `now`, changing nothing.
  template <typename F>
  void for_each_due(Cycle now, F&& f) const {
    const Arrival* next_at = this->next_at();
    const std::uint64_t* words = this->words();
    // A test per marked input, not due_in: the prefetch stages call this
    // several times a cycle, and in the 1-cycle fat tree a router has few
    // inputs marked, where due_in's fixed cost (about 40 instructions)
    // doubled Router::prefetch_one's instructions.
    for (std::size_t w = 0; w < words_; ++w)
      for (std::uint64_t word = words[w]; word; word &= word - 1) {
        const std::size_t i = w * 64 + std::size_t(__builtin_ctzll(word));
        if (due(next_at[i], now)) f(int(i));
      }
  }
  // With one word of marks (64 inputs or fewer): the due inputs as a mask,
  // computed once for a tick that both prefetches and reads them
  // (visit_due_in), rather than once for each (the due test was about
  // 7 % of a radix-64 router's tick).
  bool one_word() const { return words_ == 1; }
  std::uint64_t due_mask(Cycle now) const { return due_in(next_at(), one_word_, now); }
  // visit_due on one word of marks, for the inputs of `due_bits`
  // (due_mask's, with no read since).
  template <typename Read>
  void visit_due_in(std::uint64_t due_bits, Read&& read) {
    Arrival* next_at = this->next_at();
    std::uint64_t done = 0;
    int ended = 0;  // counted here: without -mpopcnt a popcount is a libgcc call
    for (; due_bits; due_bits &= due_bits - 1) {
      const int b = __builtin_ctzll(due_bits);
      const Cycle next = read(b);
      next_at[b] = Arrival(next);
      done |= std::uint64_t(next == kNever) << b;
      ended += next == kNever;
    }
    one_word_ &= ~done;
    count_ -= ended;
  }
  // Calls read(i) for every marked input with an item due at `now`; read
  // returns the arrival of the input's next item, kNever when it has none
  // (the input is then unmarked). Whether an input is due, and whether it
  // has nothing left after its read, are as good as random from one input
  // to the next: both become bits of a mask without a branch, and only the
  // due inputs are visited.
  template <typename Read>
  void visit_due(Cycle now, Read&& read) {
    std::uint64_t* words = this->words();
    for (std::size_t w = 0; w < words_; ++w) {
      Arrival* next_at = this->next_at() + w * 64;
      std::uint64_t due_bits = due_in(next_at, words[w], now);
      std::uint64_t done = 0;
      for (; due_bits; due_bits &= due_bits - 1) {
        const int b = __builtin_ctzll(due_bits);
        const Cycle next = read(int(w * 64) + b);
        next_at[b] = Arrival(next);
        done |= std::uint64_t(next == kNever) << b;
      }
      words[w] &= ~done;
      count_ -= __builtin_popcountll(done);
    }
  }

 private:
  using Arrival = std::uint16_t;
  // An arrival kept in 16 bits is due at `now` when it is not after now
  // modulo 2^16, compared as a signed difference. An end ticks every cycle
  // while it has marks, so a kept arrival is tested at the very tick it
  // falls due, and is due then: an input is never visited late. One more
  // than 2^15 cycles ahead (a latency that long) may test as due before
  // its time, as does an arrival that truncates to 0, the unknown arrival
  // (mark), due at once: such an input is visited early, which reads
  // nothing (a read takes only what is due), keeps its arrival, and
  // changes nothing.
  static bool due(Arrival at, Cycle now) {
    return (at == 0) | (std::int16_t(Arrival(Arrival(now) - at)) >= 0);
  }
  // The bits of `word` (of the 64 inputs whose arrivals start at `at`)
  // whose arrival is due at `now`. With SSE2 sixteen arrivals a step, up to
  // the highest marked input (the arrivals are padded to 16): a test per
  // marked input was about a third of a radix-32 router's tick in the
  // 10-cycle fat tree, where nearly every link has an item in flight and
  // most of them are not due.
  static std::uint64_t due_in(const Arrival* at, std::uint64_t word, Cycle now) {
#if defined(__SSE2__)
    if (!word) return 0;
    const int steps = (64 - __builtin_clzll(word) + 15) >> 4;
    const __m128i n = _mm_set1_epi16(short(Arrival(now)));
    const __m128i all = _mm_set1_epi16(-1), zero = _mm_setzero_si128();
    std::uint64_t bits = 0;
    for (int k = 0; k < steps; ++k) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 16 * k));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 16 * k + 8));
      // due: at == 0, or now - at >= 0 as a signed 16-bit difference (> -1).
      const __m128i da = _mm_or_si128(_mm_cmpgt_epi16(_mm_sub_epi16(n, a), all), _mm_cmpeq_epi16(a, zero));
      const __m128i db = _mm_or_si128(_mm_cmpgt_epi16(_mm_sub_epi16(n, b), all), _mm_cmpeq_epi16(b, zero));
      bits |= std::uint64_t(unsigned(_mm_movemask_epi8(_mm_packs_epi16(da, db)))) << (16 * k);
    }
    return bits & word;
#else
    std::uint64_t bits = 0;
    for (; word; word &= word - 1) {
      const int b = __builtin_ctzll(word);
      bits |= std::uint64_t(due(at[b], now)) << b;
    }
    return bits;
#endif
  }
  // The words in the allocation (none with one word: it is one_word_).
  std::uint32_t outer_words() const { return words_ == 1 ? 0 : words_; }
  std::uint64_t* words() { return words_ == 1 ? &one_word_ : data_.get(); }
  const std::uint64_t* words() const { return words_ == 1 ? &one_word_ : data_.get(); }
  Arrival* next_at() const { return reinterpret_cast<Arrival*>(data_.get() + outer_words()); }
  struct Free {
    void operator()(std::uint64_t* p) const { CacheLineAllocator<std::uint64_t>().deallocate(p, 0); }
  };
  // The marks past 64 inputs (words_ words), then each input's first
  // arrival (16 bits).
  std::unique_ptr<std::uint64_t[], Free> data_;
  std::uint64_t one_word_ = 0;  // the marks of 64 inputs or fewer
  int count_ = 0;
  std::uint32_t words_ = 0;
};
static_assert(sizeof(PendingInputs) == 24, "three words: room in the owner's first cache lines");

// What a drained flit queue's next_at reads instead of its head slot (the
// arrival of no item): the slot is a cache line of its own (a flit's),
// untouched until the writer's next push, and in a large network reading
// it after a link's last item cost a miss per read of a link (1.6 % of the
// 1-cycle fat tree's misses). The address is selected by a mask, not by a
// branch or a select the compiler may turn into one (whether a link has
// another item after the one just read is as good as random).
alignas(64) inline const Cycle kDrainedSpare = kNever;
inline const Cycle* drained_or(const Cycle* slot, bool drained) {
  const std::uintptr_t all = std::uintptr_t{0} - std::uintptr_t{drained};  // all ones when drained
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(slot);
  return reinterpret_cast<const Cycle*>(a ^ ((a ^ reinterpret_cast<std::uintptr_t>(&kDrainedSpare)) & all));
}

// The last cycle a link may be written in: its arrival (at most 2^30
// cycles later, Link's constructor) then fits a credit's 56 bits
// (CreditQueue). The kernel refuses to run past it (Kernel::cycle), once a
// block rather than a test per credit.
constexpr Cycle kLinkCycleBound = (Cycle{1} << 56) - (Cycle{1} << 30) - 1;

struct LinkParams {
  int latency_cycles = 1;         // flit: send at t, readable at t + latency
  int credit_latency_cycles = 1;  // credit: send at t, readable at t + latency
  int serialization_cycles = 1;   // cycles a flit occupies the channel
  double length_mm = 0.0;         // physical length, for wire energy
  int width_bits = 64;
};

// A FIFO of timed items in a fixed ring, written by one end and read by the
// other; the reader sees the items up to the last publish(). The header is
// 24 bytes (storage, and 32-bit positions that wrap: a capacity is a power
// of two, so it divides 2^32), so that a Link keeps each direction's queue
// with everything its two ends touch per item in one cache line.
template <typename T>
class DelayQueue {
 public:
  // A flit with its time fills one cache line exactly; the storage starts
  // on one, so no item straddles two.
  struct Timed {
    Cycle at;
    T item;
  };
  explicit DelayQueue(std::size_t capacity = 4) { reserve(capacity); }
  ~DelayQueue() { CacheLineAllocator<Timed>().deallocate(slots_, std::size_t(mask_) + 1); }
  DelayQueue(const DelayQueue&) = delete;
  DelayQueue& operator=(const DelayQueue&) = delete;

  // Setup only (no items in flight, or none past the first slots). The
  // positions do not move: the items keep theirs in the bigger ring.
  void reserve(std::size_t capacity) {
    std::size_t c = 1;
    while (c < capacity) c <<= 1;
    if (slots_ && c <= std::size_t(mask_) + 1) return;
    if (c > (std::size_t{1} << 31)) throw std::length_error("link queue capacity over 2^31 items");
    CacheLineAllocator<Timed> alloc;
    Timed* bigger = alloc.allocate(c);
    for (std::size_t i = 0; i < c; ++i) new (&bigger[i]) Timed{};
    const std::uint32_t new_mask = std::uint32_t(c - 1);
    for (std::uint32_t p = head_; p != tail_; ++p) bigger[p & new_mask] = slots_[p & mask_];
    if (slots_) alloc.deallocate(slots_, std::size_t(mask_) + 1);
    slots_ = bigger;
    mask_ = new_mask;
  }
  // Writer. A queue that must grow under the kernel (`may_grow` false)
  // means a capacity bound was wrong: an error, not a silent reallocation
  // under a reader on another thread. Returns the items pushed so far,
  // modulo 2^32 (0: the count has just wrapped).
  std::uint32_t push(Cycle when, const T& v, bool may_grow) {
    if (tail_ - head_ > mask_) {
      if (!may_grow) throw std::logic_error("link queue over its capacity bound");
      reserve((std::size_t(mask_) + 1) * 2);
    }
    // Field by field: a Timed{when, v} built first took about 15
    // instructions a flit to assemble and copy.
    Timed& slot = slots_[tail_ & mask_];
    slot.at = when;
    slot.item = v;
    return ++tail_;
  }
  void publish() { visible_tail_ = tail_; }
  // Items pushed, modulo 2^32.
  std::uint32_t pushed() const { return tail_; }

  // Reader.
  bool ready(Cycle now) const { return head_ != visible_tail_ && slots_[head_ & mask_].at <= now; }
  bool drained() const { return head_ == visible_tail_; }
  // The arrival of the first item not yet read, kNever when none is
  // published, without a branch: whether a link has a second item after
  // the one just read is as good as random (a branch on it mispredicted
  // about every second read). Drained, it reads kNever from a spare word,
  // not the head slot (drained_or).
  Cycle next_at() const { return *drained_or(&slots_[head_ & mask_].at, head_ == visible_tail_); }
  // Asks for the cache line of the next item to read (no effect on the queue).
  void prefetch_front() const { prefetch_read(&slots_[head_ & mask_]); }
  // The writer's: the slot of the next item to push.
  void prefetch_back() const { prefetch_write(&slots_[tail_ & mask_]); }
  // Asks for the lines of the first `max` published items not yet read
  // (a slot a line).
  void prefetch_published(std::uint32_t max) const {
    const std::uint32_t n = std::min(visible_tail_ - head_, max);
    for (std::uint32_t k = 0; k < n; ++k) prefetch_read(&slots_[(head_ + k) & mask_]);
  }
  // Items published and not yet read.
  std::uint32_t published() const { return visible_tail_ - head_; }
  const T& front() const { return slots_[head_ & mask_].item; }
  Cycle front_at() const { return slots_[head_ & mask_].at; }
  void pop() { ++head_; }
  // Asks for the line of the item after the first, when it is published
  // (else the first's again), without a branch.
  void prefetch_second() const {
    const std::uint32_t second = std::uint32_t(head_ + 1 != visible_tail_) & std::uint32_t(head_ != visible_tail_);
    prefetch_read(&slots_[(head_ + second) & mask_]);
  }

  // The writer's side of a queue whose reader runs in another process
  // (sim/exchange.hpp), between blocks: every published item, handed to
  // `f` in order and removed.
  template <typename F>
  void take_published(F&& f) {
    for (; head_ != visible_tail_; ++head_) f(slots_[head_ & mask_]);
  }

  // Inspection between cycles: every item sent and not yet read.
  std::size_t size() const { return std::size_t(std::uint32_t(tail_ - head_)); }
  const Timed& at(std::size_t i) const { return slots_[(head_ + std::uint32_t(i)) & mask_]; }
  // Arrival of the last item sent (items arrive in order), 0 when empty.
  Cycle last_at() const { return size() ? at(size() - 1).at : 0; }

 private:
  Timed* slots_ = nullptr;
  std::uint32_t mask_ = 0;  // capacity - 1
  std::uint32_t head_ = 0, tail_ = 0, visible_tail_ = 0;
};

// The credits of a link: each a VC with its arrival, packed in one word
// (arrival << 8 | VC), in a ring that a link keeps inside its credit line
// when its bound (Link::reserve_credits) is two or fewer (a 1-cycle link
// into a subswitch without input speedup or port copies), else in storage
// of its own. A large network does not fit in the caches: in the
// line, a credit's send and its read touch one line of the link each
// rather than two (the line, then the slot), which saved about 6 % of the
// 1-cycle fat tree's cache misses. The header is 32 bytes: the two inline
// slots, or the storage's address in the first, then 32-bit positions
// that wrap (a capacity is a power of two).
class CreditQueue {
 public:
  // An item as it crosses between processes (Link::take_credits, put_credits).
  struct Timed {
    Cycle at;
    int item;
  };
  explicit CreditQueue(std::size_t capacity = 4) { reserve(capacity); }
  ~CreditQueue() { release(); }
  CreditQueue(const CreditQueue&) = delete;
  CreditQueue& operator=(const CreditQueue&) = delete;

  // Setup. An empty queue takes the capacity asked (at least), inline when
  // it is two or less; one with items only grows, keeping their order.
  void reserve(std::size_t capacity) {
    std::size_t c = 1;
    while (c < capacity) c <<= 1;
    if (c > (std::size_t{1} << 31)) throw std::length_error("link credit queue capacity over 2^31 items");
    const std::size_t have = std::size_t(mask_) + 1;
    if (c == have || (c < have && head_ != tail_)) return;
    const bool to_inline = c <= kInline;
    std::uint64_t* bigger = to_inline ? nullptr : CacheLineAllocator<std::uint64_t>().allocate(c);
    if (bigger) std::fill_n(bigger, c, std::uint64_t{0});  // next_at reads the head slot while drained
    std::uint64_t moved[kInline] = {};
    std::uint64_t* dst = to_inline ? moved : bigger;
    const std::uint32_t new_mask = std::uint32_t(c - 1);
    for (std::uint32_t p = head_; p != tail_; ++p) dst[p & new_mask] = slots()[p & mask_];
    release();
    mask_ = new_mask;
    if (to_inline) {
      store_[0] = moved[0];
      store_[1] = moved[1];
    } else {
      store_[0] = reinterpret_cast<std::uintptr_t>(bigger);
    }
  }
  std::size_t capacity() const { return std::size_t(mask_) + 1; }

  // Writer (as DelayQueue::push). A VC takes a byte (VCs are below 64,
  // models/subswitch.hpp) and an arrival the other 56 bits (2^56 cycles:
  // some 2,000 years at 10^9 cycles a second).
  void push(Cycle when, int vc, bool may_grow) {
    if (__builtin_expect((when >> 56) != 0, 0)) too_wide(when, vc);
    push_in_range(when, vc, may_grow);
  }
  // push of an arrival known to be below 2^56 (Link::send_credit: a
  // latency of at most 2^30 after a cycle the kernel bounds, kLinkCycleBound),
  // without the test (about 3 instructions a credit).
  void push_in_range(Cycle when, int vc, bool may_grow) {
    if (tail_ - head_ > mask_) {
      if (!may_grow) throw std::logic_error("link credit queue over its capacity bound");
      reserve((std::size_t(mask_) + 1) * 2);
    }
    slots()[tail_ & mask_] = when << 8 | std::uint64_t(std::uint8_t(vc));
    ++tail_;
  }
  void publish() { visible_tail_ = tail_; }

  // Reader (as DelayQueue's).
  bool ready(Cycle now) const { return head_ != visible_tail_ && (slots()[head_ & mask_] >> 8) <= now; }
  bool drained() const { return head_ == visible_tail_; }
  Cycle next_at() const {
    const Cycle none = Cycle{0} - Cycle{head_ == visible_tail_};  // kNever when drained, else 0
    return (slots()[head_ & mask_] >> 8) | none;
  }
  void prefetch_front() const { prefetch_read(&slots()[head_ & mask_]); }
  // The lines of the first `max` published items not yet read (8 a line):
  // every eighth, and the last (the first may start a line anywhere).
  void prefetch_published(std::uint32_t max) const {
    const std::uint32_t n = std::min(visible_tail_ - head_, max);
    if (!n) return;
    const std::uint64_t* s = slots();
    for (std::uint32_t k = 0; k < n; k += 8) prefetch_read(&s[(head_ + k) & mask_]);
    prefetch_read(&s[(head_ + n - 1) & mask_]);
  }
  void prefetch_back() const { prefetch_write(&slots()[tail_ & mask_]); }
  // The writer's: the slot of the item pushed 7 after the next, the line
  // after the next one's when the next starts a line (8 items a line).
  void prefetch_ahead() const { prefetch_write(&slots()[(tail_ + 7) & mask_]); }
  int front() const { return int(slots()[head_ & mask_] & 0xff); }
  Cycle front_at() const { return slots()[head_ & mask_] >> 8; }
  void pop() { ++head_; }

  template <typename F>
  void take_published(F&& f) {
    for (; head_ != visible_tail_; ++head_) f(at(0));
  }

  // Inspection between cycles.
  std::size_t size() const { return std::size_t(std::uint32_t(tail_ - head_)); }
  Timed at(std::size_t i) const {
    const std::uint64_t w = slots()[(head_ + std::uint32_t(i)) & mask_];
    return Timed{w >> 8, int(w & 0xff)};
  }
  Cycle last_at() const { return size() ? at(size() - 1).at : 0; }

 private:
  static constexpr std::size_t kInline = 2;
  // Inline slots while the capacity is kInline or less, else the storage
  // in store_[0] (a select, not a branch: links of both kinds mix).
  std::uint64_t* slots() const {
    std::uint64_t* inline_slots = const_cast<std::uint64_t*>(store_);
    std::uint64_t* external = reinterpret_cast<std::uint64_t*>(std::uintptr_t(store_[0]));
    return mask_ < kInline ? inline_slots : external;
  }
  void release() {
    if (mask_ >= kInline)
      CacheLineAllocator<std::uint64_t>().deallocate(reinterpret_cast<std::uint64_t*>(std::uintptr_t(store_[0])),
                                                     std::size_t(mask_) + 1);
    store_[0] = store_[1] = 0;
    mask_ = 0;
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void too_wide(Cycle when, int vc) {
    throw std::logic_error("link credit for VC " + std::to_string(vc) + " arriving at cycle " + std::to_string(when) +
                           ": a credit holds cycles below 2^56");
  }

  std::uint64_t store_[kInline] = {};
  std::uint32_t mask_ = 0;  // capacity - 1
  std::uint32_t head_ = 0, tail_ = 0, visible_tail_ = 0;
};
static_assert(sizeof(CreditQueue) == 32, "the credit ring leaves room for the credit side's state in its line");

class alignas(64) Link {
 public:
  Link(std::string name, const LinkParams& p);  // checks the latencies (>= 1 cycle)

  const std::string& name() const { return name_; }
  const LinkParams& params() const { return params_; }

  void set_receiver(LinkEnd* end, int tag) {
    receiver_ = credit_receiver_ = end;
    flit_marks_ = end ? end->flit_marks : nullptr;
    receiver_tag_ = tag;
    update_local();
  }
  void set_sender(LinkEnd* end, int tag) {
    sender_ = credit_sender_ = end;
    credit_marks_ = end ? end->credit_marks : nullptr;
    sender_tag_ = tag;
    update_local();
  }
  LinkEnd* sender() const { return sender_; }
  LinkEnd* receiver() const { return receiver_; }
  // Both ends run in one kernel cluster, one after the other on one thread:
  // sends are published at once, as on a router's internal channel.
  void set_local(bool local) {
    local_ = local;
    update_local();
  }
  bool local() const { return flits_local_; }
  // Capacity bounds, set when the link is wired: flits a sender with
  // `extra_cycles` of pipeline can have in flight, credits a receiver with
  // `buffer_flits` of buffer can owe.
  void reserve_flits(int extra_cycles) {
    extra_cycles_ = extra_cycles;
    flits_.reserve(std::size_t(extra_cycles + params_.latency_cycles + block_ - 1) /
                       std::size_t(params_.serialization_cycles) +
                   2);
  }
  // A receiver returns at most `per_cycle` credits a cycle, and the sender
  // reads each in the cycle it arrives: unread are at most those sent in the
  // last latency + 1 cycles (the credits due now, before the sender's turn,
  // and the ones sent since), or latency + block with blocks (the writer's
  // cluster may run a whole block before the reader's); nor more than the
  // buffer. The bound is exact, so that a 1-cycle link's two credits fit
  // in its credit line (CreditQueue); a ring over it is an error when the
  // kernel runs on several threads, and grows (the same results, a slower
  // run) on one.
  void reserve_credits(int buffer_flits, int per_cycle) {
    credit_buffer_ = buffer_flits;
    credit_rate_ = per_cycle;
    const int in_flight = (params_.credit_latency_cycles + block_) * per_cycle;
    credits_.reserve(std::size_t(std::max(1, std::min(buffer_flits, in_flight))));
  }
  // Between kernel clusters run in blocks of `cycles` (models/kernel.hpp), a
  // writer may be a block ahead of its reader: room for a block more of
  // items. Before the simulation, after the ends reserved.
  void reserve_for_blocks(int cycles) {
    block_ = std::max(1, cycles);
    reserve_flits(extra_cycles_);
    if (credit_rate_ > 0) reserve_credits(credit_buffer_, credit_rate_);
  }

  // Sender side. `extra_cycles` adds pipeline delay before the wire (e.g.
  // switch traversal stages); it must be the same for every flit of a link.
  bool can_send(Cycle now) const { return now >= busy_until_; }
  Cycle free_at() const { return busy_until_; }  // the first cycle a flit sent now may start
  // Flits sent and not yet through serialization at `now` (an output queue
  // of a sender with several crossbar outputs for this link).
  int queued_flits(Cycle now) const {
    return busy_until_ <= now ? 0 : int((busy_until_ - now + serialization_cycles_ - 1) / serialization_cycles_);
  }
  void send(const Flit& f, Cycle now, int extra_cycles = 0) { send_from(now, f, extra_cycles); }
  // As send, but a flit sent while the link is busy waits its turn (an
  // output queue; queued_flits).
  void enqueue(const Flit& f, Cycle now, int extra_cycles) { send_from(std::max(now, busy_until_), f, extra_cycles); }
  bool credit_ready(Cycle now) const { return credits_.ready(now); }
  // Starts loading what reading the next credit (flit) touches, so that a
  // reader with several links to read loads them together rather than one
  // cache miss after another (Router::tick).
  void prefetch_credit() const { credits_.prefetch_front(); }
  void prefetch_flit() const { flits_.prefetch_front(); }
  // The reader's, for a block: the slots of the first `max` flits
  // (credits) published and not yet read, and how many flits are.
  void prefetch_flits(std::uint32_t max) const { flits_.prefetch_published(max); }
  void prefetch_credits(std::uint32_t max) const { credits_.prefetch_published(max); }
  std::uint32_t published_flits() const { return flits_.published(); }
  // Software prefetch (Clocked::prefetch) of what an end writes: the line
  // of the flits' direction (its queue header, the sender's state), of the
  // credits', and the slot of the next flit (credit) to send: its writer's
  // only, who alone moves the tail.
  void prefetch_flit_side() const { prefetch_write(&flits_); }
  void prefetch_credit_side() const { prefetch_write(&credits_); }
  void prefetch_flit_slot_to_send() const { flits_.prefetch_back(); }
  void prefetch_credit_slot_to_send() const { credits_.prefetch_back(); }
  // The first flit not yet read, if published and due by `now` (else null):
  // the reader's only.
  const Flit* due_flit(Cycle now) const { return flits_.ready(now) ? &flits_.front() : nullptr; }
  // Arrival cycle of the first credit not yet read (kNever: none published).
  Cycle next_credit_at() const { return credits_.next_at(); }
  int pop_credit() {
    const int vc = credits_.front();
    credits_.pop();
    return vc;
  }

  // Receiver side.
  bool flit_ready(Cycle now) const { return flits_.ready(now); }
  // Arrival cycle of the first flit not yet read (kNever: none published).
  Cycle next_flit_at() const { return flits_.next_at(); }
  Flit pop_flit() {
    Flit f = flits_.front();
    flits_.pop();
    return f;
  }
  // The first flit not yet read, in its slot (valid until drop_flit).
  const Flit& front_flit() const { return flits_.front(); }
  void drop_flit() { flits_.pop(); }
  // After a read, the line of the flit after the next: the reader takes
  // the next one's arrival at once (next_flit_at), a miss when the link
  // holds several, and the one after's at its next read.
  void prefetch_flit_after_next() const { flits_.prefetch_second(); }
  // `now` at most kLinkCycleBound (the kernel's cycles are), so the
  // credit's arrival fits its 56 bits: no test a credit.
  void send_credit(int vc, Cycle now) {
    Outbox* const outbox = outbox_of(credit_receiver_);
    credits_.push_in_range(now + credit_latency_cycles_, vc, outbox == nullptr);
    // A credit's store to a line not in the cache (every eighth credit of
    // a link whose credits are not in its line) held up the stores behind
    // it, the send's among them: the line a few credits ahead.
    credits_.prefetch_ahead();
    announce<false>(outbox);
  }

  // A link between processes (sim/exchange.hpp) has a copy in each: the
  // sender's process sends on its copy and hands the flits over after each
  // block (take_flits), the receiver's process puts them on its copy
  // (put_flits), and the credits go the other way. Between blocks, on the
  // kernel's thread; the far end of each copy is a stand-in, not a component.
  using TimedFlit = DelayQueue<Flit>::Timed;
  using TimedCredit = CreditQueue::Timed;
  template <typename F>
  void take_flits(F&& f) { flits_.take_published(f); }
  template <typename F>
  void take_credits(F&& f) { credits_.take_published(f); }
  void put_flits(const TimedFlit* items, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) count_push(flits_.push(items[i].at, items[i].item, true));
    flits_put_ += n;
    publish_flits();
  }
  void put_credits(const TimedCredit* items, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) credits_.push(items[i].at, items[i].item, true);
    publish_credits();
  }

  // Makes the sends since the last publish visible to the other ends, both
  // directions: a link driven by hand (the tests). The kernel publishes a
  // direction at a time (publish_direction, from its outboxes' lanes).
  void publish() {
    if (flits_dirty_) publish_flits();
    if (credits_dirty_) publish_credits();
  }
  // One direction of publish(), for a link in that direction's list of an
  // outbox lane (Outbox): it touches only that direction's line and the
  // marks of its reading end, so two threads may publish the two
  // directions of one link at once.
  template <bool kFlits>
  void publish_direction() {
    if (kFlits) publish_flits();
    else publish_credits();
  }

  // Inspection (conservation checks, idle detection, stuck reports).
  std::size_t flits_in_flight() const { return flits_.size(); }
  const Flit& flit_in_flight(std::size_t i) const { return flits_.at(i).item; }
  std::uint64_t flits_sent() const { return (std::uint64_t(flit_push_wraps_) << 32 | flits_.pushed()) - flits_put_; }
  // The last cycle something already sent is due, or the sender is still
  // serializing a flit (the watchdog counts that as progress pending).
  Cycle pending_until() const { return std::max({busy_until_, flits_.last_at(), credits_.last_at()}); }

 private:
  // A dirty flag belongs to the writing end (flits: sender; credits:
  // receiver), so the two ends never write the same flag. A link with one
  // component at both ends (a router's internal channel) is published at
  // once: its reader runs on the writer's thread and reads nothing sent in
  // this cycle (every latency is at least one cycle), and the kernel is
  // spared the work.
  void send_from(Cycle start, const Flit& f, int extra_cycles) {
    busy_until_ = start + serialization_cycles_;
    Outbox* const outbox = outbox_of(sender_);
    count_push(flits_.push(start + extra_cycles + latency_cycles_, f, outbox == nullptr));
    // The slot of the next send, for its stores: the slot a send writes
    // was last touched by the reader a ring ago, out of L2, and the stores
    // of a router's sends waiting for their lines filled the store buffer
    // (about half of the 10-cycle fat tree's samples in the send loop).
    flits_.prefetch_back();
    announce<true>(outbox);
  }
  // The outbox of a link's writer (null: none, or no writer), read once a
  // send: the queue's push (may it grow?) and the announce both ask.
  static Outbox* outbox_of(const LinkEnd* writer) { return writer ? writer->outbox : nullptr; }
  // After a send of flits (kFlits) or credits, `outbox` the writer's: the
  // first of the cycle puts the link in the outbox, or the send is
  // published at once (no outbox, or a local link). Each side reads only
  // its own line. A send published at once leaves the dirty flag as it
  // was, clear (only an outbox's link is ever marked dirty, and the
  // kernel's publish clears it): neither read nor written (the flag's
  // test, set and clear were about 5 instructions a send on one thread).
  template <bool kFlits>
  void announce(Outbox* outbox) {
    if (outbox && !(kFlits ? flits_local_ : credits_local_)) {
      bool& dirty = kFlits ? flits_dirty_ : credits_dirty_;
      if (dirty) return;
      dirty = true;
      outbox->add<kFlits>(this, kFlits ? flit_marks_ : credit_marks_);
    } else if (kFlits) {
      publish_sent_flits();
    } else {
      publish_sent_credits();
    }
  }
  // publish_flits (publish_credits) right after a send: the queue holds
  // the item just sent, so the first published is known to exist, and the
  // dirty flag is clear (announce).
  void publish_sent_flits() {
    const bool was_drained = flits_.drained();
    flits_.publish();
    if (was_drained) flits_pending(flits_.front_at());
  }
  void publish_sent_credits() {
    const bool was_drained = credits_.drained();
    credits_.publish();
    if (was_drained) credits_pending(credits_.front_at());
  }
  // flits_sent counts 2^32 pushes a wrap (the queue counts modulo 2^32).
  void count_push(std::uint32_t pushed) {
    if (__builtin_expect(pushed == 0, 0)) ++flit_push_wraps_;
  }
  void update_local() {
    flits_local_ = credits_local_ = local_ || (sender_ && sender_ == receiver_);
  }
  void publish_flits() {
    flits_dirty_ = false;
    const bool was_drained = flits_.drained();
    flits_.publish();
    // (Nothing new, as from an empty put_flits: 0, read at the next tick.)
    if (was_drained) flits_pending(flits_.drained() ? 0 : flits_.front_at());
  }
  void publish_credits() {
    credits_dirty_ = false;
    const bool was_drained = credits_.drained();
    credits_.publish();
    if (was_drained) credits_pending(credits_.drained() ? 0 : credits_.front_at());
  }
  // Tells the reading end that the link has items published and unread,
  // the first due at `at`: through its marks when it keeps them
  // (LinkEnd::flit_marks), else through the virtual call, out of line.
  void flits_pending(Cycle at) {
    if (flit_marks_)
      flit_marks_->mark(receiver_tag_, at);
    else
      flits_pending_called(at);
  }
  void credits_pending(Cycle at) {
    if (credit_marks_)
      credit_marks_->mark(sender_tag_, at);
    else
      credits_pending_called(at);
  }
  [[gnu::noinline]] void flits_pending_called(Cycle at) {
    if (receiver_) receiver_->flits_pending(receiver_tag_, at);
  }
  [[gnu::noinline]] void credits_pending_called(Cycle at) {
    if (credit_sender_) credit_sender_->credits_pending(sender_tag_, at);
  }

  // A large network does not fit in the caches: each direction keeps all
  // that sending, publishing and reading an item touch of the link in one
  // cache line (the ends' pointers are in both), so a flit-hop costs one
  // header line for the flit and one for its credit, besides the items.
  // Names, parameters and counters that are rarely touched come after.
  // Line 1, flits: the queue, the sender's state, the ends.
  DelayQueue<Flit> flits_;
  Cycle busy_until_ = 0;
  LinkEnd* sender_ = nullptr;
  PendingInputs* flit_marks_ = nullptr;  // the receiver's (LinkEnd::flit_marks)
  int latency_cycles_, serialization_cycles_;
  int receiver_tag_ = 0;
  bool flits_dirty_ = false;  // written by the sender
  bool flits_local_ = false;
  // Line 2, credits: the queue, with its slots when its bound is two or fewer.
  alignas(64) CreditQueue credits_;
  PendingInputs* credit_marks_ = nullptr;  // the credit receiver's, the flits' sender (LinkEnd::credit_marks)
  LinkEnd* credit_receiver_ = nullptr;
  int sender_tag_ = 0;
  int credit_latency_cycles_;
  bool credits_dirty_ = false;  // written by the receiver
  bool credits_local_ = false;
  // Cold.
  alignas(64) std::uint32_t flit_push_wraps_ = 0;
  // The ends as components: the pending calls of an end without marks,
  // the set-up's questions (receiver()).
  LinkEnd* receiver_ = nullptr;
  LinkEnd* credit_sender_ = nullptr;
  bool local_ = false;
  std::uint64_t flits_put_ = 0;  // items put_flits pushed (not sent here)
  std::string name_;
  int extra_cycles_ = 0, credit_buffer_ = 0, credit_rate_ = 0, block_ = 1;
  LinkParams params_;

 public:
  // Software prefetch (Clocked::prefetch) of the reading end of each
  // direction, at its marks (LinkEnd::flit_marks, else nothing: a stand-in
  // is called on the kernel's thread): a send published at once (no
  // outbox) marks the input pending. The pointers are set before the
  // simulation.
  void prefetch_flit_reader() const { prefetch_read(flit_marks_); }
  void prefetch_credit_reader() const { prefetch_read(credit_marks_); }
};
static_assert(sizeof(DelayQueue<Flit>) == 24, "a queue header leaves room for a link side's state in its line");

}  // namespace nwn

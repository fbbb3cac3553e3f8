// FIFO ring buffers. Storage is allocated when the ring is built or when it
// grows past its high-water mark, never per element in steady state. A ring
// built with capacity 0 has no storage until its first push: a large network
// has millions of VC buffers, and most never hold more than a few flits, so
// each grows only to the depth it reaches (the memory of a buffer is its
// high-water mark, not its bound).
#pragma once
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <vector>

#include "prefetch.hpp"

namespace nwn {

// Asks for every cache line of [data, data + bytes): for writing (`write`)
// or reading. Changes nothing (the kernel's software prefetch, Clocked::prefetch).
inline void prefetch_lines(const void* data, std::size_t bytes, bool write) {
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(data), end = begin + bytes;
  for (std::uintptr_t a = begin & ~std::uintptr_t{63}; a < end; a += 64) {
    if (write) prefetch_write(reinterpret_cast<const void*>(a));
    else prefetch_read(reinterpret_cast<const void*>(a));
  }
}

// Storage starting on a cache line: a ring that restarts at its first slot
// (see pop) then keeps a one-item queue in one line.
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, kAlign); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

template <typename T>
class Ring {
 public:
  explicit Ring(std::size_t capacity = 4) : slots_(capacity ? round_up(capacity) : 0) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

  T& front() { assert(size_ > 0); return slots_[head_]; }
  const T& front() const { assert(size_ > 0); return slots_[head_]; }
  const T& at(std::size_t i) const { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  T& at(std::size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }

  void push(const T& v) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = v;
    ++size_;
  }
  // An emptied ring starts again at its first slot, so a lightly used ring
  // keeps touching one cache line instead of sweeping its whole storage.
  void pop() {
    assert(size_ > 0);
    head_ = --size_ == 0 ? 0 : (head_ + 1) & (slots_.size() - 1);
  }
  void clear() { head_ = size_ = 0; }

 private:
  static std::size_t round_up(std::size_t n) {
    std::size_t c = 1;
    while (c < n) c <<= 1;
    return c;
  }
  void grow() {
    std::vector<T, CacheLineAllocator<T>> bigger(slots_.empty() ? 1 : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = at(i);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T, CacheLineAllocator<T>> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

// The storage of CompactRing: blocks of k + 1 cache lines (k < kClasses)
// from free lists shared by all threads, cut from 64 KB chunks; larger
// ones from operator new. A VC buffer grows from one flit by doubling,
// mostly in the first cycles of a run: through glibc's aligned allocation,
// each growth took about 700 instructions (the 1-cycle fat tree of 4,096
// nodes, 283 growths a cycle in its first 120 cycles, spent 2.9 % of them
// there); from these lists, about 45. A block is the ring's storage
// rounded up to a line (16 flits of 56 bytes: 14 lines), as glibc's were.
// The cost is memory: glibc placed about as many bytes of blocks (12 MB)
// in memory the process already held, the lists take new chunks
// (4,096-node fat tree of fc routers, small pages: peak RSS 231 -> 242 MB
// at load 0.3, 319 -> 331 MB at 1.0).
namespace ring_storage {
constexpr unsigned kClasses = 64;  // 64 B to 4 KB
constexpr std::size_t class_bytes(unsigned size_class) { return std::size_t{64} * (size_class + 1); }
// The class of the blocks that hold `bytes` (at least 1); kClasses when none does.
constexpr unsigned class_of(std::size_t bytes) {
  const std::size_t lines = (bytes + 63) / 64;
  return lines <= kClasses ? unsigned(lines - 1) : kClasses;
}
void* take(unsigned size_class);
void give(void* block, unsigned size_class);
inline void* allocate(std::size_t bytes) {
  const unsigned k = class_of(bytes);
  return k < kClasses ? take(k) : ::operator new(bytes, std::align_val_t{64});
}
inline void deallocate(void* block, std::size_t bytes) {
  const unsigned k = class_of(bytes);
  if (k < kClasses) give(block, k);
  else ::operator delete(block, std::align_val_t{64});
}
}  // namespace ring_storage

// A Ring of 16 bytes (Ring is 40: a vector and two sizes), for the many
// small queues of a large network (the flits behind each input VC's front,
// Subswitch): four to a cache line, with its capacity (a power of two) in
// 32 bits: an index is a mask without a division. Like Ring it has no
// storage until its first push and grows by doubling to the depth it
// reaches (the memory of a queue is its high-water mark, not its bound);
// at most 65,535 items. For trivially copyable items only (they are
// copied into raw storage and never destroyed).
template <typename T>
class CompactRing {
  static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_destructible<T>::value,
                "CompactRing copies items as bytes");

 public:
  CompactRing() = default;
  CompactRing(const CompactRing&) = delete;
  CompactRing& operator=(const CompactRing&) = delete;
  // Movable for std::vector's growth only (no move assignment is used).
  CompactRing(CompactRing&& o) noexcept : slots_(o.slots_), capacity_(o.capacity_), head_(o.head_), size_(o.size_) {
    o.slots_ = nullptr;
    o.capacity_ = 0;
    o.head_ = o.size_ = 0;
  }
  ~CompactRing() { release(); }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }

  T& front() { assert(size_ > 0); return slots_[head_]; }
  const T& front() const { assert(size_ > 0); return slots_[head_]; }
  const T& at(std::size_t i) const { return slots_[(head_ + i) & mask()]; }
  T& at(std::size_t i) { return slots_[(head_ + i) & mask()]; }

  void push(const T& v) {
    if (size_ == capacity_) grow();
    new (&slots_[(head_ + size_) & mask()]) T(v);
    ++size_;
  }
  // An emptied ring starts again at its first slot (as Ring::pop).
  void pop() {
    assert(size_ > 0);
    head_ = --size_ == 0 ? 0 : std::uint16_t((head_ + 1) & mask());
  }

 private:
  std::size_t mask() const { return capacity_ - 1; }
  void release() {
    if (slots_) ring_storage::deallocate(slots_, capacity_ * sizeof(T));
    slots_ = nullptr;
  }
  // Out of line: only a queue reaching a new depth gets here.
  [[gnu::noinline, gnu::cold]] void grow() {
    assert(size_ < 0xffff);
    const std::uint32_t capacity = capacity_ ? capacity_ * 2 : 1;
    T* bigger = static_cast<T*>(ring_storage::allocate(capacity * sizeof(T)));
    for (std::size_t i = 0; i < size_; ++i) new (&bigger[i]) T(at(i));
    release();
    slots_ = bigger;
    head_ = 0;
    capacity_ = capacity;
  }

  T* slots_ = nullptr;
  std::uint32_t capacity_ = 0;  // 0 without storage, else a power of two
  std::uint16_t head_ = 0;
  std::uint16_t size_ = 0;
};

}  // namespace nwn

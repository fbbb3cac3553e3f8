// The storage of the small rings (ring_storage in ring.hpp).
#include "ring.hpp"

#include <atomic>
#include <mutex>  // std::lock_guard
#include <thread>

namespace nwn::ring_storage {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{64} << 10;

// A free block holds the next free block of its class.
struct FreeBlock {
  FreeBlock* next;
};

// A lock of one atomic exchange: taken a few times per VC in a run, by at
// most the kernel's threads, it is almost never contended (a std::mutex
// cost about 65 instructions a growth more: the 1-cycle fat tree's lock
// and unlock calls, 18,300 instructions a cycle for 283 growths).
class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire))
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

struct Pool {
  SpinLock lock;
  FreeBlock* free[kClasses] = {};
  // The chunks are never given back: the blocks of a finished network
  // serve the next one of the process, and a block's class never changes.
  std::vector<void*> chunks;
};

// Never destroyed (a ring may outlive the statics of this file) and
// reachable from here to the end, so not a leak to the sanitizers.
Pool& pool() {
  static Pool* const p = new Pool;
  return *p;
}

}  // namespace

void* take(unsigned size_class) {
  Pool& p = pool();
  std::lock_guard<SpinLock> hold(p.lock);
  FreeBlock*& head = p.free[size_class];
  if (!head) {
    // A chunk cut into blocks of this class, in address order.
    const std::size_t block = class_bytes(size_class), n = kChunkBytes / block;
    char* chunk = static_cast<char*>(::operator new(kChunkBytes, std::align_val_t{64}));
    p.chunks.push_back(chunk);
    for (std::size_t i = n; i-- > 0;) {
      FreeBlock* b = reinterpret_cast<FreeBlock*>(chunk + i * block);
      b->next = head;
      head = b;
    }
  }
  FreeBlock* b = head;
  head = b->next;
  return b;
}

void give(void* block, unsigned size_class) {
  Pool& p = pool();
  std::lock_guard<SpinLock> hold(p.lock);
  FreeBlock* b = static_cast<FreeBlock*>(block);
  b->next = p.free[size_class];
  p.free[size_class] = b;
}

}  // namespace nwn::ring_storage

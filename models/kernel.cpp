#include "kernel.hpp"

#include <algorithm>
#include <utility>

namespace nwn {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

Kernel::Kernel(sc_core::sc_module_name name, std::vector<Clocked*> components, int threads, const Clock& clock)
    : sc_module(name), all_(std::move(components)), clock_(clock) {
  threads = std::max(1, std::min<int>(threads, int(all_.size())));
  shares_.resize(threads);
  for (Share& s : shares_) s.outbox.reserve(1024);
  // Chunks of about 1/(16 threads) of the total weight, neighbours in the
  // component order (routers of one level or group) together; a component
  // heavier than that (the endpoints) is a chunk of its own.
  std::int64_t total = 0;
  for (Clocked* c : all_) total += c->weight();
  const std::int64_t target = std::max<std::int64_t>(1, total / (16 * threads));
  std::int64_t acc = 0;
  for (std::size_t i = 0; i < all_.size(); ++i) {
    if (acc == 0 || acc + all_[i]->weight() > target) {
      chunk_begin_.push_back(i);
      acc = 0;
    }
    acc += all_[i]->weight();
  }
  chunk_begin_.push_back(all_.size());
  // On one thread no component runs while another does, so a send can be
  // published at once (no outbox): a reader still sees only items of earlier
  // cycles (every latency is at least one), and the publish phase's second
  // visit to every link written is saved.
  for (std::size_t i = 1; i < shares_.size(); ++i) workers_.emplace_back(&Kernel::worker, this, i);
  SC_METHOD(cycle);
}

Kernel::~Kernel() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
  for (Clocked* c : all_) c->outbox = nullptr;
}

void Kernel::run_share(Share& s, Cycle now) {
  try {
    if (shares_.size() == 1) {
      for (Clocked* c : all_)
        if (c->active(now)) c->tick(now);
      return;
    }
    const std::size_t chunks = chunk_begin_.size() - 1;
    for (std::size_t k; (k = next_chunk_.fetch_add(1, std::memory_order_relaxed)) < chunks;)
      for (std::size_t i = chunk_begin_[k]; i < chunk_begin_[k + 1]; ++i) {
        Clocked* c = all_[i];
        if (!c->active(now)) continue;
        c->outbox = &s.outbox;
        c->tick(now);
      }
  } catch (...) {
    s.error = std::current_exception();
    next_chunk_.store(chunk_begin_.size(), std::memory_order_relaxed);  // the others stop taking chunks
  }
}

void Kernel::worker(std::size_t index) {
  std::uint64_t seen = 0;
  for (;;) {
    // Spin briefly (a cycle of a large network is a few milliseconds), then sleep.
    int spins = 0;
    while (start_generation_.load(std::memory_order_acquire) == seen) {
      if (stop_.load(std::memory_order_acquire)) return;
      if (++spins < 4096) {
        cpu_relax();
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      start_cv_.wait(lock, [&] { return stop_.load() || start_generation_.load() != seen; });
    }
    seen = start_generation_.load(std::memory_order_acquire);
    run_share(shares_[index], cycle_now_);
    running_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void Kernel::cycle() {
  const Cycle now = clock_.now();
  if (now == last_cycle_) {  // cannot happen with one method; kept as a guard
    next_trigger(clock_.period);
    return;
  }
  last_cycle_ = now;

  if (shares_.size() == 1) {
    run_share(shares_[0], now);
  } else {
    cycle_now_ = now;
    next_chunk_.store(0, std::memory_order_relaxed);
    running_.store(int(shares_.size()) - 1, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      start_generation_.fetch_add(1, std::memory_order_acq_rel);
    }
    start_cv_.notify_all();
    run_share(shares_[0], now);
    int spins = 0;
    while (running_.load(std::memory_order_acquire) != 0) {
      if (++spins < 65536) cpu_relax();
      else std::this_thread::yield();
    }
  }
  for (Share& s : shares_)
    if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));

  // Second phase: publish this cycle's sends, in a fixed order.
  for (Share& s : shares_) {
    for (Link* l : s.outbox) l->publish();
    s.outbox.clear();
  }

  const Cycle next = now + 1;
  for (Clocked* c : all_)
    if (c->active(next)) {
      next_trigger(clock_.period);
      return;
    }
  Cycle wake = kNever;
  for (Clocked* c : all_) wake = std::min(wake, c->next_wake());
  if (wake == kNever) next_trigger(never_);
  else next_trigger(clock_.delay(wake - now));
}

}  // namespace nwn

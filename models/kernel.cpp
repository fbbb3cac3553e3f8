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

Kernel::Kernel(sc_core::sc_module_name name, std::vector<std::vector<Clocked*>> clusters, int threads, int block,
               const Clock& clock)
    : sc_module(name), clock_(clock), block_(std::max(1, block)) {
  for (auto& c : clusters) {
    if (c.empty()) continue;
    cluster_begin_.push_back(all_.size());
    all_.insert(all_.end(), c.begin(), c.end());
  }
  cluster_begin_.push_back(all_.size());
  const std::size_t n_clusters = cluster_begin_.size() - 1;
  threads = std::max(1, std::min<int>(threads, int(std::max<std::size_t>(n_clusters, 1))));
  shares_.resize(threads);
  for (Share& s : shares_) s.outbox.reserve(1024);
  // Chunks of about 1/(16 threads) of the total weight, neighbours in the
  // cluster order (routers of one level or group) together; a cluster
  // heavier than that is a chunk of its own.
  std::vector<std::int64_t> weight(n_clusters, 0);
  std::int64_t total = 0;
  for (std::size_t k = 0; k < n_clusters; ++k) {
    for (std::size_t i = cluster_begin_[k]; i < cluster_begin_[k + 1]; ++i) weight[k] += all_[i]->weight();
    total += weight[k];
  }
  const std::int64_t target = std::max<std::int64_t>(1, total / (16 * threads));
  std::int64_t acc = 0;
  for (std::size_t k = 0; k < n_clusters; ++k) {
    if (acc == 0 || acc + weight[k] > target) {
      chunk_begin_.push_back(k);
      acc = 0;
    }
    acc += weight[k];
  }
  chunk_begin_.push_back(n_clusters);
  // On one thread no component runs while another does, so a send can be
  // published at once (no outbox): a reader still sees only items it would
  // see with outboxes (every latency between clusters is at least a block),
  // and the publish phase's second visit to every link written is saved.
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

void Kernel::run_cluster(std::size_t k, Cycle now, Cycle cycles) {
  const std::size_t b = cluster_begin_[k], e = cluster_begin_[k + 1];
  for (Cycle t = now; t < now + cycles; ++t)
    for (std::size_t i = b; i < e; ++i)
      if (all_[i]->active(t)) all_[i]->tick(t);
}

void Kernel::run_share(Share& s, Cycle now, Cycle cycles) {
  try {
    if (shares_.size() == 1) {
      for (std::size_t k = 0; k + 1 < cluster_begin_.size(); ++k) run_cluster(k, now, cycles);
      return;
    }
    const std::size_t chunks = chunk_begin_.size() - 1;
    for (std::size_t k; (k = next_chunk_.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
      for (std::size_t i = cluster_begin_[chunk_begin_[k]]; i < cluster_begin_[chunk_begin_[k + 1]]; ++i)
        all_[i]->outbox = &s.outbox;
      for (std::size_t c = chunk_begin_[k]; c < chunk_begin_[k + 1]; ++c) run_cluster(c, now, cycles);
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
    run_share(shares_[index], cycle_now_, cycle_count_);
    running_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void Kernel::wake_at(Cycle c) {
  if (c >= scheduled_) return;  // evaluated by then anyway; its next_wake() sees the rest
  scheduled_ = c;
  const sc_core::sc_time at = clock_.delay(c) + (half_phase_ ? clock_.period / 2 : sc_core::SC_ZERO_TIME);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  wake_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void Kernel::cycle() {
  if (!started_) {
    started_ = true;
    if (half_phase_) {
      next_trigger(clock_.period / 2);
      return;
    }
  }
  const Cycle now = clock_.now();
  if (last_cycle_ != kNever && now <= last_cycle_) {  // cannot happen with one method; kept as a guard
    next_trigger(clock_.delay(last_cycle_ + 1 - now));
    return;
  }
  last_cycle_ = now;
  ++evaluations_;
  const Cycle cycles = horizon_ > now ? std::min<Cycle>(Cycle(block_), horizon_ - now) : 1;

  if (shares_.size() == 1) {
    run_share(shares_[0], now, cycles);
  } else {
    cycle_now_ = now;
    cycle_count_ = cycles;
    next_chunk_.store(0, std::memory_order_relaxed);
    running_.store(int(shares_.size()) - 1, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      start_generation_.fetch_add(1, std::memory_order_acq_rel);
    }
    start_cv_.notify_all();
    run_share(shares_[0], now, cycles);
    int spins = 0;
    while (running_.load(std::memory_order_acquire) != 0) {
      if (++spins < 65536) cpu_relax();
      else std::this_thread::yield();
    }
  }
  for (Share& s : shares_)
    if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));

  // Second phase: publish this block's sends, in a fixed order.
  for (Share& s : shares_) {
    for (Link* l : s.outbox) l->publish();
    s.outbox.clear();
  }
  if (exchange_) exchange_->after_publish();
  for (Clocked* c : all_) c->end_block();

  const Cycle next = now + cycles;
  last_cycle_ = next - 1;
  if (after_block_) after_block_(next);
  Cycle wake = next;
  if (std::none_of(all_.begin(), all_.end(), [&](const Clocked* c) { return c->active(next); })) {
    wake = kNever;
    for (Clocked* c : all_) wake = std::min(wake, c->next_wake());
  }
  if (exchange_) wake = exchange_->agree_next(std::max(wake, next));
  scheduled_ = wake;
  if (wake == next) next_trigger(clock_.delay(cycles));
  else if (wake == kNever) next_trigger(wake_);
  else next_trigger(clock_.delay(wake - now), wake_);
}

}  // namespace nwn

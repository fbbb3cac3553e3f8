#include "kernel.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

#include "prefetch.hpp"

namespace nwn {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

Kernel::Kernel(sc_core::sc_module_name name, std::vector<std::vector<Clocked*>> clusters, int threads, int block,
               const Clock& clock, std::size_t colour_split)
    : sc_module(name), two_colours_(colour_split != kOneColour), clock_(clock), block_(std::max(1, block)) {
  std::size_t split_at = kOneColour;  // colour 1's first cluster, among the non-empty ones (none: past the last)
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    auto& c = clusters[i];
    if (i == colour_split) split_at = cluster_begin_.size();
    if (c.empty()) continue;
    cluster_begin_.push_back(all_.size());
    all_.insert(all_.end(), c.begin(), c.end());
  }
  cluster_begin_.push_back(all_.size());
  prefetching_.assign(all_.size(), 0);
  for (Clocked* c : all_) {
    c->set_prefetch_useful(cluster_begin_.size() - 1 >= kMinClusters);
    c->set_prefetch_ahead(Cycle(block_ - 1));
  }
  with_end_block_ = all_;
  const std::size_t n_clusters = cluster_begin_.size() - 1;
  threads = std::max(1, std::min<int>(threads, int(std::max<std::size_t>(n_clusters, 1))));
  shares_ = std::vector<Share>(std::size_t(threads));
  set_publish_lanes();
  // Chunks of about 1/(32 threads) of the total weight, neighbours in the
  // cluster order (routers of one level or group) together; a cluster
  // heavier than that is a chunk of its own. Colour 1 starts a chunk.
  std::vector<std::int64_t> weight(n_clusters, 0);
  std::int64_t total = 0;
  for (std::size_t k = 0; k < n_clusters; ++k) {
    for (std::size_t i = cluster_begin_[k]; i < cluster_begin_[k + 1]; ++i) weight[k] += all_[i]->weight();
    total += weight[k];
  }
  const std::int64_t target = std::max<std::int64_t>(1, total / (32 * threads));
  std::int64_t acc = 0;
  for (std::size_t k = 0; k < n_clusters; ++k) {
    if (acc == 0 || acc + weight[k] > target || k == split_at) {
      if (k == split_at) chunk_colour_[1] = chunk_begin_.size();
      chunk_begin_.push_back(k);
      if (!chunk_seconds_.empty()) chunk_seconds_.back() = double(acc);
      chunk_seconds_.push_back(0);
      acc = 0;
    }
    acc += weight[k];
  }
  if (!chunk_seconds_.empty()) chunk_seconds_.back() = double(acc);
  chunk_begin_.push_back(n_clusters);
  chunk_colour_[2] = chunk_seconds_.size();
  if (split_at >= n_clusters) chunk_colour_[1] = chunk_colour_[2];  // one colour, or none of colour 1 here
  // Until the chunks are timed, their weights stand for their times (the
  // split only compares chunks).
  split_chunks(0, chunk_colour_[2]);
  // On one thread no component runs while another does, so a send can be
  // published at once (no outbox): a reader still sees only items it would
  // see with outboxes (every latency between clusters is at least a block),
  // and the publish phase's second visit to every link written is saved.
  for (std::size_t i = 1; i < shares_.size(); ++i) workers_.emplace_back(&Kernel::worker, this, i);
  method_.start("cycle", [this] { cycle(); });
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

// Stage 0 is the kernel's: the lines at the start of each component (its
// vtable pointer and the members active() reads, which the stages after
// read). The others are the component's, when it is active (its own lines
// are in the cache by then). Whether it is active hardly changes before
// its turn (sends from other clusters are published after the block), so
// stage 1 asks once and the later stages read the answer (six calls of
// active() a component and block were about 1 % of the 1-cycle fat tree's
// instructions). It only chooses prefetches: a stale answer changes no
// result.
inline void Kernel::prefetch_cluster(std::size_t k, Cycle now, int stage) {
  const std::size_t b = cluster_begin_[k], e = cluster_begin_[k + 1];
  for (std::size_t i = b; i < e; ++i) {
    const Clocked* c = all_[i];
    if (stage == 0) {
      const char* p = reinterpret_cast<const char*>(c);
      prefetch_read(p);
      prefetch_read(p + 64);
      prefetch_read(p + 128);
      prefetch_read(p + 192);
      continue;
    }
    if (stage == 1) prefetching_[i] = c->active(now);
    if (prefetching_[i]) c->prefetch(now, stage);
  }
}

void Kernel::run_clusters(std::size_t first, std::size_t last, Cycle now, Cycle cycles) {
  if (cluster_begin_.size() - 1 < kMinClusters) {
    for (std::size_t k = first; k < last; ++k) run_cluster(k, now, cycles);
    return;
  }
  constexpr std::size_t S = std::size_t(Clocked::kPrefetchStages);
  // The first clusters get only the kernel's stage before their turn (and
  // the later stages that fall before it below, for which the ones after
  // the first are asked whether they are active here).
  for (std::size_t k = first; k < std::min(last, first + S); ++k) prefetch_cluster(k, now, 0);
  for (std::size_t k = first + 1; k < std::min(last, first + S - 1); ++k)
    for (std::size_t i = cluster_begin_[k]; i < cluster_begin_[k + 1]; ++i) prefetching_[i] = all_[i]->active(now);
  for (std::size_t k = first; k < last; ++k) {
    for (std::size_t j = 1; j <= S && k + j < last; ++j) prefetch_cluster(k + j, now, int(S - j));
    run_cluster(k, now, cycles);
  }
}

// Each share starts on chunks [chunk_split_[i], chunk_split_[i + 1]) of
// chunks [first, last), cut where the smoothed chunk times add up to equal
// parts.
void Kernel::split_chunks(std::size_t first, std::size_t last) {
  const std::size_t chunks = last, n = shares_.size();
  double total = 0;
  for (std::size_t k = first; k < last; ++k) total += chunk_seconds_[k];
  chunk_split_.assign(n + 1, chunks);
  chunk_split_[0] = first;
  double acc = 0;
  std::size_t k = first;
  for (std::size_t i = 1; i < n; ++i) {
    const double goal = total * double(i) / double(n);
    // The cut nearest the goal, leaving every share at least one chunk when there are enough.
    while (k < chunks && acc + chunk_seconds_[k] / 2 < goal) acc += chunk_seconds_[k++];
    k = std::max(k, std::min(chunk_split_[i - 1] + 1, chunks));
    chunk_split_[i] = k;
  }
  for (std::size_t i = 0; i < n; ++i)
    shares_[i].run.store(std::uint64_t(chunk_split_[i]) | std::uint64_t(chunk_split_[i + 1]) << 32,
                         std::memory_order_relaxed);
}

// The next chunk of `s`'s run: its first (its own thread) or its last (a
// thread that has run out of its own); kNoChunk when none is left.
std::size_t Kernel::take_chunk(Share& s, bool front) {
  std::uint64_t run = s.run.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t first = run & 0xffffffffu, end = run >> 32;
    if (first >= end) return kNoChunk;
    const std::uint64_t next = front ? (first + 1) | end << 32 : first | (end - 1) << 32;
    if (s.run.compare_exchange_weak(run, next, std::memory_order_relaxed)) return std::size_t(front ? first : end - 1);
  }
}

void Kernel::run_chunk(Share& s, std::size_t k, Cycle now, Cycle cycles) {
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = cluster_begin_[chunk_begin_[k]]; i < cluster_begin_[chunk_begin_[k + 1]]; ++i)
    if (all_[i]->outbox != &s.outbox) all_[i]->outbox = &s.outbox;
  run_clusters(chunk_begin_[k], chunk_begin_[k + 1], now, cycles);
  const double seconds = seconds_since(t0);
  const double per_cycle = seconds / double(cycles);
  chunk_seconds_[k] = chunks_timed_ ? chunk_seconds_[k] + (per_cycle - chunk_seconds_[k]) / 4 : per_cycle;
  s.time.run_seconds += seconds;
  ++s.time.chunks;
}

void Kernel::run_share(std::size_t index, Cycle now, Cycle cycles) {
  Share& s = shares_[index];
  try {
    if (shares_.size() == 1) {
      run_clusters(chunk_begin_[run_chunks_[0]], chunk_begin_[run_chunks_[1]], now, cycles);
      return;
    }
    for (std::size_t k; (k = take_chunk(s, true)) != kNoChunk;) run_chunk(s, k, now, cycles);
    for (std::size_t j = 1; j < shares_.size(); ++j) {
      Share& other = shares_[(index + j) % shares_.size()];
      for (std::size_t k; (k = take_chunk(other, false)) != kNoChunk; ++s.time.taken_chunks) run_chunk(s, k, now, cycles);
    }
  } catch (...) {
    s.error = std::current_exception();
    for (Share& other : shares_) other.run.store(0, std::memory_order_relaxed);  // the others stop taking chunks
  }
}

void Kernel::set_publish_lanes() {
  const std::size_t lanes = shares_.size();
  std::vector<std::uintptr_t> splits;
  if (lanes > 1) {
    // Each component's marks (a router's and the endpoints' two sets lie
    // together in their object), by address, weighted as the kernel's split.
    std::vector<std::pair<std::uintptr_t, std::int64_t>> marks;
    std::int64_t total = 0;
    for (const Clocked* c : all_) {
      const auto f = reinterpret_cast<std::uintptr_t>(c->flit_marks),
                 k = reinterpret_cast<std::uintptr_t>(c->credit_marks);
      if (!f && !k) continue;
      // The lower of the two: a split there puts both in the lane above
      // (no other component's marks lie between them).
      marks.emplace_back(!f ? k : !k ? f : std::min(f, k), c->weight());
      total += c->weight();
    }
    std::sort(marks.begin(), marks.end());
    std::int64_t acc = 0;
    std::size_t next = 1;
    for (const auto& [address, weight] : marks) {
      // A split at the first component past each lane's share of the weight.
      if (next < lanes && acc * std::int64_t(lanes) >= total * std::int64_t(next)) {
        splits.push_back(address);
        ++next;
      }
      acc += weight;
    }
  }
  for (Share& s : shares_) {
    s.outbox.splits = splits;
    s.outbox.lanes.assign(lanes, Outbox::Lane{});
    for (Outbox::Lane& l : s.outbox.lanes) {
      l.flits.reserve(1024);
      l.credits.reserve(1024);
    }
  }
}

namespace {
// Publishes one direction of every link in `links` and empties it. A
// publish touches the direction's line of the link, last written on
// whichever core ran its writer: ask for it a few links ahead. (The marks
// it sets are the reading end's, which nobody asked for.)
template <bool kFlits>
void publish_list(std::vector<Link*>& links) {
  constexpr std::size_t kAhead = 8;
  const std::size_t n = links.size();
  Link* const* l = links.data();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) prefetch_write(reinterpret_cast<const char*>(l[i + kAhead]) + (kFlits ? 0 : 64));
    l[i]->publish_direction<kFlits>();
  }
  links.clear();
}
}  // namespace

void Kernel::publish_lane(std::size_t lane) {
  for (Share& s : shares_) {
    Outbox::Lane& l = s.outbox.lanes[lane];
    publish_list<true>(l.flits);
    publish_list<false>(l.credits);
  }
}

void Kernel::publish_own_lane(std::size_t index) {
  const auto t0 = std::chrono::steady_clock::now();
  publish_lane(index);
  shares_[index].time.publish_seconds += seconds_since(t0);
}

void Kernel::publish_outboxes() {
  for (std::size_t lane = 0; lane < shares_.size(); ++lane) publish_lane(lane);
}

void Kernel::end_blocks() {
  for (Clocked* c : with_end_block_) c->end_block();
  if (end_blocks_known_) return;
  end_blocks_known_ = true;
  with_end_block_.erase(std::remove_if(with_end_block_.begin(), with_end_block_.end(),
                                       [](const Clocked* c) { return c->end_block_does_nothing(); }),
                        with_end_block_.end());
}

void Kernel::worker(std::size_t index) {
  std::uint64_t seen = 0;
  for (;;) {
    // Spin briefly (between phases the kernel's thread has little to do
    // alone: a worker publishes while it runs end_block), then sleep.
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
    if (phase_ == kRun) run_share(index, cycle_now_, cycle_count_);
    else publish_own_lane(index);
    running_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void Kernel::start_workers(int phase) {
  phase_ = phase;
  running_.store(int(shares_.size()) - 1, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    start_generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  start_cv_.notify_all();
}

void Kernel::wait_for_workers() {
  for (int spins = 0; running_.load(std::memory_order_acquire) != 0; ++spins) {
    if (spins < 65536) cpu_relax();
    else std::this_thread::yield();
  }
}

void Kernel::wake_at(Cycle c) {
  if (c >= scheduled_) return;  // evaluated by then anyway; its next_wake() sees the rest
  scheduled_ = c;
  const sc_core::sc_time at = clock_.delay(c) + (half_phase_ ? clock_.period / 2 : sc_core::SC_ZERO_TIME);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  wake_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void Kernel::run_block(int colour, Cycle now, Cycle cycles) {
  run_chunks_[0] = colour == 1 ? chunk_colour_[1] : 0;
  run_chunks_[1] = colour == 0 ? chunk_colour_[1] : chunk_colour_[2];
  if (shares_.size() == 1) {
    run_share(0, now, cycles);
  } else {
    cycle_now_ = now;
    cycle_count_ = cycles;
    const auto t0 = std::chrono::steady_clock::now();
    split_chunks(run_chunks_[0], run_chunks_[1]);
    start_workers(kRun);
    run_share(0, now, cycles);
    wait_for_workers();
    run_phase_seconds_ += seconds_since(t0);
    chunks_timed_ = true;
  }
  for (Share& s : shares_)
    if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));

  // Second phase: publish this block's sends, a lane of the outboxes a
  // thread (each lane's reading ends are its own: no two threads mark one).
  // The components' end_block (the endpoints' statistics) touches nothing
  // a publish does (links and the marks of pending inputs), so this thread
  // ends the blocks after its lane while the workers publish theirs.
  if (shares_.size() == 1 || exchange_) {
    publish_outboxes();
    if (exchange_) exchange_->after_publish();
    end_blocks();
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    start_workers(kPublish);
    publish_own_lane(0);
    const auto t1 = std::chrono::steady_clock::now();
    end_blocks();
    end_block_seconds_ += seconds_since(t1);
    wait_for_workers();
    publish_phase_seconds_ += seconds_since(t0);
  }
}

Kernel::ThreadTimes Kernel::thread_times() const {
  ThreadTimes t;
  if (shares_.size() < 2 || exchange_) return t;
  t.run_phase_seconds = run_phase_seconds_;
  t.publish_phase_seconds = publish_phase_seconds_;
  t.end_block_seconds = end_block_seconds_;
  for (const Share& s : shares_) t.threads.push_back(s.time);
  return t;
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
  const Cycle blocks = two_colours() ? kColourBlocks : 1;
  const Cycle cycles = horizon_ > now ? std::min<Cycle>(blocks * Cycle(block_), horizon_ - now) : 1;
  // Links take no credit past kLinkCycleBound (its arrival would not fit
  // the credit's 56 bits): tested here, once a block, not per credit.
  if (now > kLinkCycleBound || cycles - 1 > kLinkCycleBound - now)
    throw std::logic_error("cycle " + std::to_string(now + cycles - 1) + ": a link credit holds cycles below 2^56");
  if (cycles <= Cycle(block_)) {
    run_block(2, now, cycles);
  } else {
    // Two colours (kernel.hpp): each runs as far as the other's progress
    // plus a block allows, in turn, until both reach the end.
    const Cycle end = now + cycles;
    Cycle done[2] = {now, now};
    for (int c = 0; done[0] < end || done[1] < end; c = 1 - c) {
      const Cycle to = std::min(end, done[1 - c] + Cycle(block_));
      if (to <= done[c]) continue;
      run_block(c, done[c], to - done[c]);
      done[c] = to;
    }
  }

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

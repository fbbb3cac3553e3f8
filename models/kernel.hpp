// The per-cycle kernel: one SystemC method that runs every clocked
// component of a network (its routers and endpoints) once per cycle, on one
// or more threads, and publishes the links they wrote between cycles.
//
// A cycle has two phases. In the first, the threads run the components; a
// component reads only what its links published before the cycle and writes
// only its own state, its links' write sides (the sends wait in the
// thread's outbox) and per-thread scratch that holds nothing between steps
// (Subswitch::Scratch, iSLIP's offers). In the second, the kernel publishes the outboxes, which
// also marks the inputs that have something pending: on as many threads, each
// the links whose reading ends lie in its lane (Outbox). Nothing a component
// reads can change while the cycle runs, so the result is the same on one
// thread or many, in any order: bit-identical. (On one thread sends are
// published as they happen: a reader reads only items that arrived in
// earlier cycles, so it cannot tell the difference.)
//
// Idle components cost one check a cycle (`active()`); when every component
// is idle the method sleeps until the earliest `next_wake()`.
//
// Cycle blocks. Components come in clusters (a router with the endpoints
// attached to it); a cluster's components run one after the other, cycle by
// cycle, and the links inside a cluster are published at once. Between
// clusters every link takes at least `block` cycles (flits and credits), so
// nothing one cluster sends in cycles [t, t + block) can be read by another
// before t + block: each cluster runs a whole block of cycles in a row, with
// its state still in the cache, and the kernel publishes after the block.
// A block never crosses the horizon (set_horizon), where the caller looks
// at the network between sc_start calls, so what it sees is what it would
// see with blocks of one cycle.
//
// Two colours. When the clusters' graph is bipartite (the levels of a fat
// tree by parity), the clusters come in two colours and every link between
// clusters joins the two. Each colour then runs alone, in turn, as far as
// the other colour's progress plus a block allows: colour 0 runs [t, t + b),
// colour 1 [t, t + 2b), colour 0 [t + b, t + 3b), and so on, each run but
// the first two blocks long. No cluster is ever more than a block ahead of
// a neighbour, so it reads what it would read with blocks, and writes no
// more into a link than a block allows (Link::reserve_for_blocks); but every
// cluster runs twice as many cycles in a row, its state still in the cache
// (with 1-cycle channels, two cycles instead of one). Each run is published
// (and its end_block called) as a block is.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <systemc>

#include "clock.hpp"
#include "guarded_method.hpp"
#include "link.hpp"

namespace nwn {

class Clocked : public LinkEnd {
 public:
  // Work to do this cycle (flits held, inputs pending, packets due).
  virtual bool active(Cycle now) const = 0;
  virtual void tick(Cycle now) = 0;
  // For an inactive component: the first cycle it needs to run again by
  // itself (kNever: only when a link delivers to it).
  virtual Cycle next_wake() const { return kNever; }
  // Relative cost, to balance threads (e.g. subswitches in a router).
  virtual int weight() const { return 1; }
  // After every block, on the kernel's thread, in component order, while
  // another thread may publish the block's sends: it must not touch what
  // publishing does (links, and this end's marks of pending inputs).
  // The default does nothing but note so: the kernel then stops calling it
  // (in a large network each call on a router is a cache miss a block).
  virtual void end_block() { end_block_does_nothing_ = true; }
  bool end_block_does_nothing() const { return end_block_does_nothing_; }
  // Software prefetch: a few clusters before it runs in cycle `now`, the
  // kernel asks an active component for the cache lines its tick will
  // touch, in stages (1 to kPrefetchStages - 1, one cluster apart: stage s
  // runs kPrefetchStages - s clusters ahead), each stage following the
  // pointers of lines the stage before asked for, which have arrived since.
  // It must change nothing (it runs on the component's own thread, but
  // before the components before it in its run), and read only what no
  // other thread writes during a block: the component's own state, and of
  // its links the fields its own end writes (models/link.hpp).
  // In a large network every cache line of a component is out of the cache
  // when its turn comes, and its tick is a chain of dependent misses.
  static constexpr int kPrefetchStages = 7;
  virtual void prefetch(Cycle /*now*/, int /*stage*/) const {}
  // False when the kernel runs a network that stays in the cache from one
  // cycle to the next (it then skips the prefetch stages, Kernel::
  // run_clusters): a prefetch a component makes within its tick is then
  // only instructions.
  bool prefetch_useful() const { return prefetch_useful_; }
  void set_prefetch_useful(bool useful) { prefetch_useful_ = useful; }
  // The last cycle of the block a prefetch in cycle `now` (the block's
  // first) runs ahead of: the cluster runs the block's cycles in a row, so
  // what arrives by then is read while the lines asked for now are still
  // in the cache, where a prefetch for `now` alone left each later
  // cycle's first reads of a link to miss. At most 2^14 cycles on (a
  // pending input's kept arrival is 16 bits, PendingInputs).
  Cycle prefetch_until(Cycle now) const { return now + prefetch_ahead_; }
  void set_prefetch_ahead(Cycle cycles) { prefetch_ahead_ = std::uint16_t(std::min<Cycle>(cycles, 1 << 14)); }

 private:
  bool end_block_does_nothing_ = false;
  bool prefetch_useful_ = true;
  std::uint16_t prefetch_ahead_ = 0;
};

// Ranks (sim/exchange.hpp): the clusters of one network run in several
// processes, each with a kernel of its own; their links to the other
// processes' clusters end in stand-ins there. After every block, each
// process hands over what its clusters sent across (after_publish) and all
// agree on the next cycle any of them has work (agree_next), so every
// process runs the same blocks, and sleeps only when all of them can.
class BlockExchange {
 public:
  virtual ~BlockExchange() = default;
  // After a block's sends are published: deliver what crossed to other
  // processes, and publish what they sent here.
  virtual void after_publish() = 0;
  // The first cycle (>= the block's end) any process needs to run, given
  // this one's (kNever: none, until an outside wake-up).
  virtual Cycle agree_next(Cycle local) = 0;
};

class Kernel : public sc_core::sc_module {
 public:
  // `threads` >= 1. Which thread runs a cluster may change from block to
  // block (run_share); what a component reads does not, so neither does the
  // result. `block` >= 1 cycles: at most the latency of any link between
  // clusters. `colour_split` other than kOneColour: two colours, the first
  // colour_split clusters colour 0 and the rest colour 1 (either may be
  // none: under ranks, the other ranks hold the other colour), and every
  // link between clusters joins the two colours (the caller checks).
  static constexpr std::size_t kOneColour = ~std::size_t{0};
  Kernel(sc_core::sc_module_name name, std::vector<std::vector<Clocked*>> clusters, int threads, int block,
         const Clock& clock, std::size_t colour_split = kOneColour);
  ~Kernel() override;

  int threads() const { return int(shares_.size()); }
  int block() const { return block_; }
  // Whether the clusters run in two colours (above).
  bool two_colours() const { return two_colours_; }
  // The simulation stops at cycle `end` (the next sc_start ends there):
  // blocks stop short of it. Without a horizon ahead, blocks are one cycle.
  void set_horizon(Cycle end) { horizon_ = end; }
  // Evaluate cycle c at SystemC time (c + 1/2) periods instead of c (before
  // the simulation starts): an embedding's outside calls at time t then
  // never race the kernel for cycle ceil(t) (sim/embed.hpp).
  void set_half_period_phase() { half_phase_ = true; }
  // Something outside the components (an embedding's injection) needs cycle
  // `c` evaluated: wakes a sleeping kernel then. Call between evaluations.
  void wake_at(Cycle c);
  // Times the kernel's method ran a block (idle cycles cost none).
  std::uint64_t evaluations() const { return evaluations_; }
  // Called after every block with the next cycle, on the SystemC thread
  // (an embedding's watchdog); before the simulation starts.
  void set_after_block(std::function<void(Cycle)> f) { after_block_ = std::move(f); }
  // Links to other processes (before the simulation starts): exchanged after
  // every block, and the next cycle agreed with the other processes.
  void set_exchange(BlockExchange* exchange) { exchange_ = exchange; }
  // The first cycle not yet evaluated.
  Cycle next_cycle() const { return last_cycle_ == kNever ? 0 : last_cycle_ + 1; }

  // Where the threads' time went (more than one thread, in one process:
  // under ranks the publish runs on one thread with the exchange). Per
  // thread: seconds running chunks (its own and those it took from the
  // others) and publishing its lane of the outboxes, and the chunks it
  // ran and took; the kernel's thread (0) also runs the components'
  // end_block while the others publish. The phases' wall time: from the
  // start of the threads to the last one's end. A thread waits the rest
  // of its phases (at their ends, for the slowest).
  struct ThreadTime {
    double run_seconds = 0, publish_seconds = 0;
    std::uint64_t chunks = 0, taken_chunks = 0;
  };
  struct ThreadTimes {
    double run_phase_seconds = 0, publish_phase_seconds = 0, end_block_seconds = 0;
    std::vector<ThreadTime> threads;
  };
  ThreadTimes thread_times() const;

 private:
  // What one thread needs of its own: its outbox, its run of chunks (the
  // chunks [front, back) not yet taken, packed as front | back << 32: the
  // thread takes from the front, the others from the back when they have
  // run out), and an error it caught.
  struct alignas(64) Share {
    Outbox outbox;
    std::exception_ptr error;
    ThreadTime time;  // written by its thread only (thread_times)
    alignas(64) std::atomic<std::uint64_t> run{0};  // apart from the outbox the thread writes: others take from it
  };
  static constexpr std::size_t kNoChunk = ~std::size_t{0};
  // A small network stays in the cache from one cycle to the next, and the
  // prefetch is only instructions more (one router, 64 nodes: 1.7 % more):
  // with fewer clusters, run_clusters does without it.
  static constexpr std::size_t kMinClusters = 32;
  // With two colours, the blocks one evaluation runs at most: the runs
  // average 2 x kColourBlocks / (kColourBlocks + 1) blocks.
  static constexpr Cycle kColourBlocks = 16;
  void cycle();
  // Runs the clusters of colour `colour` (0, 1; 2: all) for `cycles` from
  // `now`, publishes their sends and ends the block.
  void run_block(int colour, Cycle now, Cycle cycles);
  void run_share(std::size_t index, Cycle now, Cycle cycles);
  void run_chunk(Share& s, std::size_t k, Cycle now, Cycle cycles);
  std::size_t take_chunk(Share& s, bool front);
  void split_chunks(std::size_t first, std::size_t last);
  void run_cluster(std::size_t k, Cycle now, Cycle cycles);
  // Clusters [first, last) one after another, each with the prefetch of
  // the clusters after it (Clocked::prefetch).
  void run_clusters(std::size_t first, std::size_t last, Cycle now, Cycle cycles);
  [[gnu::always_inline]] void prefetch_cluster(std::size_t k, Cycle now, int stage);
  // Publishes every thread's outbox lane `lane` (flits, then credits), in
  // share order; publish_outboxes: every lane, one after another.
  void publish_lane(std::size_t lane);
  // Thread `index`'s lane in the publish phase, timed (thread_times).
  void publish_own_lane(std::size_t index);
  void publish_outboxes();
  // The outboxes' lanes: the marks of the components split in as many
  // parts of about equal weight as there are threads, by address (Outbox).
  void set_publish_lanes();
  void end_blocks();
  void worker(std::size_t index);
  void start_workers(int phase);
  void wait_for_workers();

  std::vector<Clocked*> all_;               // clusters one after another
  // The components whose end_block does something (all of them until the
  // first block's calls tell), in component order.
  std::vector<Clocked*> with_end_block_;
  bool end_blocks_known_ = false;
  std::vector<std::size_t> cluster_begin_;  // cluster k: all_[cluster_begin_[k], cluster_begin_[k + 1])
  // Per component of all_: active when its cluster's prefetch began (prefetch_cluster).
  std::vector<std::uint8_t> prefetching_;
  // Runs of neighbouring clusters; each thread starts a block on its own
  // consecutive chunks, split by what each chunk took in the blocks before
  // (chunk_seconds_), so that a cluster mostly stays on one core (its state
  // in that core's cache) and the threads end together; a thread that runs
  // out early takes the others' last chunks.
  std::vector<std::size_t> chunk_begin_;  // chunk i: clusters [chunk_begin_[i], chunk_begin_[i + 1])
  std::vector<double> chunk_seconds_;     // per cycle, smoothed
  bool chunks_timed_ = false;
  std::vector<std::size_t> chunk_split_;  // share i starts with chunks [chunk_split_[i], chunk_split_[i + 1])
  // Colour c's chunks are [chunk_colour_[c], chunk_colour_[c + 1]) (c = 0, 1);
  // all chunks are [chunk_colour_[0], chunk_colour_[2]). One colour: the
  // first range holds them all and the second is empty.
  std::size_t chunk_colour_[3] = {0, 0, 0};
  bool two_colours_ = false;
  std::size_t run_chunks_[2] = {0, 0};  // the chunks the block being run runs: its colour's, or all
  std::vector<Share> shares_;
  Clock clock_;
  Cycle last_cycle_ = kNever;
  int block_ = 1;
  Cycle horizon_ = 0;
  bool half_phase_ = false, started_ = false;
  Cycle scheduled_ = 0;  // the next cycle the method will evaluate by itself (kNever: asleep on wake_ only)
  std::uint64_t evaluations_ = 0;
  sc_core::sc_event wake_;  // only wake_at notifies it
  std::function<void(Cycle)> after_block_;
  BlockExchange* exchange_ = nullptr;

  // Worker threads wait for a start (a new generation), do the phase asked
  // (run their share of a block, or publish their lane of the outboxes),
  // and report done.
  enum Phase { kRun, kPublish };
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_;
  std::atomic<std::uint64_t> start_generation_{0};
  std::atomic<int> running_{0};
  std::atomic<bool> stop_{false};
  int phase_ = kRun;
  Cycle cycle_now_ = 0, cycle_count_ = 1;
  double run_phase_seconds_ = 0, publish_phase_seconds_ = 0, end_block_seconds_ = 0;  // thread_times
  GuardedMethod method_;  // cycle(); last, so it goes first
};

}  // namespace nwn

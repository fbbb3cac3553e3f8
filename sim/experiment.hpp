// One simulation point: build the network from the config, warm up, measure
// over a window of marked packets, drain them, and check conservation.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "../models/router.hpp"
#include "config.hpp"
#include "ranks.hpp"
#include "run_result.hpp"

namespace nwn {

// The one definition of a saturated point, shared by run, sweep and
// saturation (docs/VALIDATION.md): its marked packets did not drain, or it
// accepted less than sim.saturation_accept_ratio of the load it was offered,
// i.e. its source queues grew over the window.
inline bool is_saturated(bool drained, double accepted, double offered, double accept_ratio) {
  return !drained || accepted < accept_ratio * offered;
}

// Machine-dependent figures, kept out of RunResult so results stay bit-identical.
struct PerfResult {
  double wall_seconds = 0;
  // CPU time of the process (every thread) over the same span as
  // wall_seconds: on a shared machine it says what the simulation cost
  // where wall time cannot.
  double cpu_seconds = 0;
  double cycles_per_second = 0;
  double flit_hops_per_second = 0;
  double peak_rss_mb = 0;  // under ranks: the largest rank's
  int threads = 1;  // kernel threads that ran it (per rank)
  int block_cycles = 1;  // cycles a router ran in a row (models/kernel.hpp)
  int block_colours = 1;  // 2: the routers ran in two colours, two blocks in a row (models/kernel.hpp)
  // Under ranks, a network with two colours: what they cost a block under
  // the partition, against one colour (sim/partition.hpp, colours_cost).
  double colours_cost = 0;
  std::string partition;  // under ranks: the split used (sim/partition.hpp)
  int ranks = 1;         // processes (mpirun -np; sim/ranks.hpp)
  // Under ranks, one object per rank: its routers and nodes, peak memory,
  // seconds computing and exchanging (of which waiting), and what it
  // exchanged (rank_figures in sim/experiment.cpp).
  nlohmann::ordered_json per_rank;
  // With more than one thread in one process: where the threads' time went
  // (thread_figures in sim/experiment.cpp, from Kernel::thread_times).
  nlohmann::ordered_json thread_times;
  nlohmann::ordered_json to_json() const;
};

// The network stopped moving: the message lists the stuck buffers and packets.
class DeadlockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Flits were lost or duplicated.
class ConservationError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Watchdog: flits in the network and no progress for `limit` cycles is a
// deadlock. Something under way (a flit or credit travelling on a channel,
// a pipeline stage, a flit serializing) is progress pending, not a stall.
class Watchdog {
 public:
  explicit Watchdog(std::uint64_t limit_cycles) : limit_(limit_cycles) {}
  // How often to check: often enough to fire within a quarter of the limit late.
  std::uint64_t check_every() const { return std::max<std::uint64_t>(1, std::min<std::uint64_t>(1000, limit_ / 4)); }
  // `progress` is any counter that grows when a flit moves; `pending_until()`
  // the last cycle at which something under way completes. Throws
  // DeadlockError with `report()` appended when stuck.
  template <typename Pending, typename Report>
  void check(std::uint64_t now, std::uint64_t progress, std::uint64_t in_flight, Pending pending_until,
             Report report) {
    if (progress != last_progress_ || in_flight == 0 || pending_until() >= now) {
      last_progress_ = progress;
      last_progress_cycle_ = now;
      return;
    }
    if (now - last_progress_cycle_ >= limit_) throw DeadlockError(message(now, in_flight) + report());
  }
  // The last check saw flits held and nothing moving.
  bool stalled(std::uint64_t now) const { return last_progress_cycle_ < now; }

 private:
  std::string message(std::uint64_t now, std::uint64_t in_flight) const;
  std::uint64_t limit_;
  std::uint64_t last_progress_ = 0, last_progress_cycle_ = 0;
};

class Network;

// Packets that crossed the routers' bisections (from the heatmaps) over all packets routed.
nlohmann::ordered_json bisection_crossing(const Network& net);

// A progress line on stderr about once a second during runs (nwnsim run
// --progress, or on a terminal): the cycle, the phase and cycles per second.
void show_progress(bool on);

// Kernel threads for a run: sim.threads, or one where the run needs every
// cycle in order on one thread (Verilated allocators; a packet trace, whose
// lines then come in a reproducible order).
int run_threads(const Config& cfg, bool packet_trace);
// Cycle blocks for a run: 1 (every component cycle by cycle) where the run
// needs it (the cases of run_threads, and the occupancy VCD, which samples
// one router at the end of every cycle), else `blocks`.
int run_block_cycles(const Config& cfg, bool packet_trace, bool vcd, int blocks);

// Runs one point: open-loop traffic gets warm-up, window and drain; batch
// and trace workloads run until every packet is delivered (docs/WORKLOADS.md).
// Packet traces and the occupancy VCD are attached when the config asks.
// SystemC allows one elaboration per process, so this can be
// called once per process; sweeps run points in child processes.
// `inspect` sees the network after the run (heatmaps, debugging).
// Under `ranks` of more than one process (mpirun), each builds and runs its
// share of the network, and every rank returns the whole result.
// `after`: what becomes of the network once the run is over (NetworkAfterRun).
enum class NetworkAfterRun {
  Destroy,
  // The process ends soon after the run (nwnsim run): the network's threads
  // stop and its memory is left to the process's exit. Taking it down takes
  // as long as building it: SystemC finds each module, port and export it
  // removes by a linear search of its registries, quadratic in the modules
  // (callgrind, the 4,096-node fat tree of scripts/speed-booksim with warmup
  // and measure 1: 1.19 G instructions in all, 0.67 G without). Nothing
  // a destructor would write is lost: the packet trace and occupancy VCD
  // belong to the run, not the network, and a network with Verilated
  // allocators (router.allocator_impl = rtl, whose VCD closes when they go)
  // is destroyed all the same.
  LeaveToExit,
};
RunResult run_experiment(const Config& cfg, PerfResult* perf = nullptr,
                         const std::function<void(const Network&)>& inspect = {}, Ranks& ranks = one_process(),
                         NetworkAfterRun after = NetworkAfterRun::Destroy);
// The exit code of an error: 2 bad input, 3 deadlock, 4 flits not
// conserved, 1 anything else (as the commands map them).
int exit_code_of(const std::exception_ptr& error);
// A command run on every rank: an error every rank agreed on (RanksFailed,
// a deadlock, lost flits) is reported by one rank and ends each with its
// code; any other error on one rank is printed with the rank's number and
// ends all ranks at once (Ranks::abort), as the others cannot know of it.
int run_on_ranks(Ranks& ranks, const std::function<int()>& command);
// The results of a batch, trace or embedding run at cycle `now` (`drained`:
// every packet delivered), and the figures every run reports, with the
// conservation check (throws ConservationError). Shared by run_network and
// the embedding (sim/embed.hpp).
void summarize_completion(const Config& cfg, const Network& net, Cycle now, bool drained, const std::string& workload,
                          RunResult& r);
void summarize_network(const Config& cfg, const Network& net, Cycle now, RunResult& r);
// Channel utilization (RunResult::utilization) of a batch, trace or
// embedding run, whose window is the whole run: after summarize_completion.
void summarize_utilization(Network& net, RunResult& r);
// Turns on the statistics beyond the summary (RunResult's latency_histogram
// and on) for a run of about `expected_cycles`; before the run starts.
void track_statistics(const Config& cfg, Network& net, Cycle expected_cycles);
// The same on a network built by the caller (tests build special ones).
RunResult run_network(const Config& cfg, Network& net, PerfResult* perf = nullptr);

}  // namespace nwn

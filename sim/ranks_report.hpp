// What the ranks of a run report (sim/ranks.hpp): a table of each rank's
// share and costs, and rows of a per-router output in router order.
#pragma once
#include <string>
#include <vector>

#include "experiment.hpp"
#include "ranks.hpp"

namespace nwn {

// One line per rank (PerfResult::per_rank): routers, nodes, peak memory,
// seconds computing and exchanging (waiting), blocks and bytes exchanged.
std::string rank_report(const PerfResult& perf);

// Rows "router,..." of every rank, in router order (a stable sort on the
// first field), on rank 0; elsewhere "".
std::string rows_in_router_order(Ranks& ranks, const std::string& rows);

// A Slurm job that runs one simulation over `ranks` MPI ranks (nwnsim run
// --emit slurm --ranks R): an sbatch script with the memory each rank
// needs, measured by building the largest rank's share of the network here
// (as that rank would, measure_share). `run_args`: nwnsim run's arguments
// for the job (paths absolute); `mem_per_rank_mb` > 0 skips the measurement.
struct RankJob {
  int ranks = 2;
  std::vector<std::string> run_args;
  double mem_per_rank_mb = 0;
};
std::string rank_job_script(const Config& cfg, const RankJob& job);

// The largest rank's share of the network for `ranks` ranks (most routers,
// then most nodes), built in this process as that rank builds it: which
// rank, its routers and nodes, the peak memory (MB) of this process after
// building it, and what its VC buffers take when every one is full (they
// hold no storage until used and grow to the depth they reach:
// models/ring.hpp). Built plus full buffers bounds a rank's memory but for
// source queues, which grow only in a saturated open-loop run
// (docs/SCALING.md, "Memory per rank").
struct ShareMemory {
  int rank = 0, routers = 0, nodes = 0;
  std::string partition;  // the split the ranks will use (auto's choice); empty for one rank
  double built_mb = 0, full_buffers_mb = 0;
  double bound_mb() const { return built_mb + full_buffers_mb; }
};
ShareMemory measure_share(const Config& cfg, int ranks);

}  // namespace nwn

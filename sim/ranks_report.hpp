// What the ranks of a run report (sim/ranks.hpp): a table of each rank's
// share and costs, and rows of a per-router output in router order.
#pragma once
#include <string>

#include "experiment.hpp"
#include "ranks.hpp"

namespace nwn {

// One line per rank (PerfResult::per_rank): routers, nodes, peak memory,
// seconds computing and exchanging (waiting), blocks and bytes exchanged.
std::string rank_report(const PerfResult& perf);

// Rows "router,..." of every rank, in router order (a stable sort on the
// first field), on rank 0; elsewhere "".
std::string rows_in_router_order(Ranks& ranks, const std::string& rows);

}  // namespace nwn

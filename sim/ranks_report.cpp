#include "ranks_report.hpp"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace nwn {

std::string rank_report(const PerfResult& perf) {
  if (!perf.per_rank.is_array()) return "";
  std::string out = fmt::format("nwnsim: {} ranks, block {} cycles\n", perf.ranks, perf.block_cycles);
  out += "  rank  routers    nodes  peak-MB  compute-s  exchange-s  wait-s    blocks  MB-sent  bytes/block\n";
  for (const auto& r : perf.per_rank)
    out += fmt::format("  {:>4}  {:>7}  {:>7}  {:>7.0f}  {:>9.2f}  {:>10.2f}  {:>6.2f}  {:>8}  {:>7.1f}  {:>11.0f}\n",
                       r["rank"].get<int>(), r["routers"].get<int>(), r["nodes"].get<int>(),
                       r["peak_rss_mb"].get<double>(), r["compute_seconds"].get<double>(),
                       r["exchange_seconds"].get<double>(), r["wait_seconds"].get<double>(),
                       r["blocks"].get<std::uint64_t>(), double(r["bytes_sent"].get<std::uint64_t>()) / 1e6,
                       r["bytes_per_block"].get<double>());
  return out;
}

std::string rows_in_router_order(Ranks& ranks, const std::string& rows) {
  if (!ranks.distributed()) return rows;
  const std::vector<std::string> parts = ranks.gather(rows);
  if (!ranks.root()) return "";
  std::vector<std::pair<long long, std::string>> lines;
  for (const std::string& part : parts) {
    std::istringstream in(part);
    for (std::string line; std::getline(in, line);) lines.emplace_back(std::stoll(line), line);
  }
  std::stable_sort(lines.begin(), lines.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::string out;
  for (auto& l : lines) out += l.second + "\n";
  return out;
}

}  // namespace nwn

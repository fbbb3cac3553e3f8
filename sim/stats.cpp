#include "stats.hpp"

#include <cmath>

namespace nwn {

std::uint64_t Histogram::percentile(double q) const {
  if (n_ == 0) return 0;
  const std::uint64_t need = std::uint64_t(std::ceil(q * double(n_)));
  std::uint64_t seen = 0;
  for (std::size_t v = 0; v < counts_.size(); ++v) {
    seen += counts_[v];
    if (seen >= need && seen > 0) return v;
  }
  return max();
}

void Histogram::combine(Ranks& ranks) {
  if (!ranks.distributed()) return;
  counts_.resize(std::size_t(ranks.max(std::uint64_t(counts_.size()))), 0);
  size_ = counts_.size();
  ranks.sum(counts_);
  n_ = ranks.sum(n_);
}

void PacketStats::combine(Ranks& ranks) {
  if (!ranks.distributed()) return;
  latency.combine(ranks);
  network_latency.combine(ranks);
  hops.combine(ranks);
  for (Histogram& h : by_class_) h.combine(ranks);
  for (SizeClass& k : by_size_) {
    k.latency.combine(ranks);
    k.window_flits = ranks.sum(k.window_flits);
  }
  outstanding_ = ranks.sum(outstanding_);  // + at the source's rank, - at the destination's: modulo 2^64
  last_created_ = ranks.max(last_created_);
  ranks.max(last_delivery_);
  ranks.sum(delivered_from_);
  ranks.sum(created_flits_from_);
  ranks.max(last_created_by_);
  ranks.sum(window_flits_from_);
  if (sample_cycles_) {
    // Each rank doubled its intervals for its own last delivery; the
    // longest, that of the last delivery of all, is one process's.
    const Cycle every = Cycle(ranks.max(std::uint64_t(sample_cycles_)));
    while (sample_cycles_ < every) coarsen();
    series_.resize(std::size_t(ranks.max(std::uint64_t(series_.size()))));
    std::vector<std::uint64_t> flat;
    for (const Interval& in : series_) flat.insert(flat.end(), {in.packets, in.flits, in.latency_sum});
    ranks.sum(flat);
    for (std::size_t i = 0; i < series_.size(); ++i) series_[i] = {flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]};
  }
}

}  // namespace nwn

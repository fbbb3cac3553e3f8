// Packet statistics over the marked (measured) packets.
#pragma once
#include <cstdint>
#include <algorithm>
#include <functional>
#include <vector>

#include "../models/endpoint.hpp"

namespace nwn {

// Exact integer histogram (latencies are whole cycles), so percentiles are
// exact and results do not depend on sample order.
class Histogram {
 public:
  void add(std::uint64_t v) {
    if (v >= counts_.size()) counts_.resize(std::max<std::size_t>(v + 1, counts_.size() * 2), 0);
    ++counts_[v];
    ++n_;
    sum_ += v;
    max_ = std::max(max_, v);
  }
  std::uint64_t count() const { return n_; }
  double mean() const { return n_ ? double(sum_) / double(n_) : 0.0; }
  std::uint64_t max() const { return max_; }
  // Smallest value v with at least q of the samples <= v.
  std::uint64_t percentile(double q) const;

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t n_ = 0, sum_ = 0, max_ = 0;
};

class PacketStats final : public PacketObserver {
 public:
  void on_created(const PacketExtension& p) override {
    if (p.measured) ++outstanding_;
    last_created_ = std::max(last_created_, p.created_cycle);
    if (!created_flits_from_.empty()) {
      created_flits_from_[p.src] += p.size_flits;
      last_created_by_.at(p.src) = p.created_cycle;
    }
  }
  void on_delivered(const PacketExtension& p) override {
    if (on_packet) on_packet(p);
    if (!last_delivery_.empty()) {
      last_delivery_[p.src] = std::max(last_delivery_[p.src], p.delivered_cycle);
      ++delivered_from_[p.src];
    }
    if (!p.measured) return;
    --outstanding_;
    latency.add(p.delivered_cycle - p.created_cycle);
    network_latency.add(p.delivered_cycle - p.injected_cycle);
    hops.add(p.hops);
  }
  std::uint64_t outstanding() const { return outstanding_; }
  Cycle last_created() const { return last_created_; }
  // Per source node: the cycle its last packet was delivered, and how many
  // were (batch and trace runs: per-node completion).
  void track_sources(int nodes) {
    last_delivery_.assign(nodes, 0);
    delivered_from_.assign(nodes, 0);
    created_flits_from_.assign(nodes, 0);
    last_created_by_.assign(nodes, 0);
  }
  const std::vector<std::uint64_t>& created_flits_by_source() const { return created_flits_from_; }
  const std::vector<Cycle>& last_created_by_source() const { return last_created_by_; }
  const std::vector<Cycle>& last_delivery_by_source() const { return last_delivery_; }
  const std::vector<std::uint64_t>& delivered_by_source() const { return delivered_from_; }

  Histogram latency, network_latency, hops;
  // Called for every delivered packet, measured or not (tests, packet traces).
  std::function<void(const PacketExtension&)> on_packet;

 private:
  std::uint64_t outstanding_ = 0;
  Cycle last_created_ = 0;
  std::vector<Cycle> last_delivery_;
  std::vector<std::uint64_t> delivered_from_;
  std::vector<std::uint64_t> created_flits_from_;
  std::vector<Cycle> last_created_by_;
};

}  // namespace nwn

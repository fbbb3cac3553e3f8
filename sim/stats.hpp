// Packet statistics over the marked (measured) packets.
#pragma once
#include <cstdint>
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
  }
  void on_delivered(const PacketExtension& p) override {
    if (on_packet) on_packet(p);
    if (!p.measured) return;
    --outstanding_;
    latency.add(p.delivered_cycle - p.created_cycle);
    network_latency.add(p.delivered_cycle - p.injected_cycle);
    hops.add(p.hops);
  }
  std::uint64_t outstanding() const { return outstanding_; }

  Histogram latency, network_latency, hops;
  // Called for every delivered packet, measured or not (tests, packet traces).
  std::function<void(const PacketExtension&)> on_packet;

 private:
  std::uint64_t outstanding_ = 0;
};

}  // namespace nwn

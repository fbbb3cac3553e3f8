// Packet statistics over the marked (measured) packets.
#pragma once
#include <cstdint>
#include <algorithm>
#include <functional>
#include <vector>

#include "../models/endpoint.hpp"
#include "ranks.hpp"

namespace nwn {

// Exact integer histogram (latencies are whole cycles), so percentiles are
// exact and results do not depend on sample order. A sample only counts
// (every delivered packet adds three); the sum and the maximum come from
// the counts when asked.
class Histogram {
 public:
  void add(std::uint64_t v) {
    add_uncounted(v);
    ++n_;
  }
  // add in two halves, for a caller that adds many samples: each sample's
  // count, then how many samples it added (add_count).
  void add_uncounted(std::uint64_t v) {
    if (v >= size_) grow(v);
    ++counts_[v];
  }
  void add_count(std::uint64_t samples) { n_ += samples; }
  std::uint64_t count() const { return n_; }
  double mean() const { return n_ ? double(sum()) / double(n_) : 0.0; }
  std::uint64_t max() const {
    std::size_t v = counts_.size();
    while (v > 0 && !counts_[v - 1]) --v;
    return v ? v - 1 : 0;
  }
  // Of the samples (modulo 2^64, as a running sum would be).
  std::uint64_t sum() const {
    std::uint64_t s = 0;
    for (std::size_t v = 0; v < counts_.size(); ++v) s += std::uint64_t(v) * counts_[v];
    return s;
  }
  // Smallest value v with at least q of the samples <= v.
  std::uint64_t percentile(double q) const;
  // counts()[v]: samples equal to v (may run past max()).
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  // Every rank's samples, on every rank (all ranks call it).
  void combine(Ranks& ranks);

 private:
  [[gnu::noinline]] void grow(std::uint64_t v) {
    counts_.resize(std::max<std::size_t>(v + 1, counts_.size() * 2), 0);
    size_ = counts_.size();
  }

  std::vector<std::uint64_t> counts_;
  std::size_t size_ = 0;  // counts_.size(), a load away
  std::uint64_t n_ = 0;
};

// The packets of one size (synthetic runs with traffic.size_mix): the
// measured ones' latency, and the flits of all ejected in the window.
struct SizeClass {
  int packet_flits = 0;
  Histogram latency;
  std::uint64_t window_flits = 0;
};

// What was delivered in one interval of the run (sim.sample_cycles), all
// packets, measured or not, by delivery cycle.
struct Interval {
  std::uint64_t packets = 0, flits = 0, latency_sum = 0;
  Interval& operator+=(const Interval& o) {
    packets += o.packets;
    flits += o.flits;
    latency_sum += o.latency_sum;
    return *this;
  }
};

class PacketStats final : public PacketObserver {
 public:
  void on_created(const PacketHeader& p) override {
    if (p.measured) ++outstanding_;
    last_created_ = std::max(last_created_, p.created_cycle);
    if (!created_flits_from_.empty()) {
      created_flits_from_[p.src] += p.size_flits;
      last_created_by_.at(p.src) = p.created_cycle;
    }
  }
  bool counts_creations() const override { return created_flits_from_.empty(); }
  void on_created_counts(std::uint64_t measured, Cycle last_created) override {
    outstanding_ += measured;
    last_created_ = std::max(last_created_, last_created);
  }
  void on_delivered(const PacketExtension& p) override {
    // What most runs track is inline; the rest (a callback, per-source
    // completion, classes, sizes) is out of line, so the common delivery
    // saves fewer registers and takes fewer branches.
    if (on_packet || tracks_more_) delivered_more(p);
    if (p.window_flits && !window_flits_from_.empty()) window_flits_from_[std::size_t(p.src)] += p.window_flits;
    const std::uint64_t latency_cycles = p.delivered_cycle - p.created_cycle;
    if (sample_cycles_) sample(p.delivered_cycle, p.size_flits, latency_cycles);
    if (!p.measured) return;
    --outstanding_;
    latency.add(latency_cycles);
    network_latency.add(p.delivered_cycle - p.injected_cycle);
    hops.add(p.hops);
  }
  // The same for each record, with the settings tested once for all, and
  // the counts that every record adds to summed in registers: a group's
  // deliveries of a tick or block (models/endpoint.hpp), nearly all of one
  // sample interval.
  void on_delivered_records(const DeliveredRecord* d, std::size_t n) override {
    if (on_packet || tracks_more_) {
      for (std::size_t i = 0; i < n; ++i) on_delivered(d[i].extension());
      return;
    }
    std::uint64_t* const window_from = window_flits_from_.empty() ? nullptr : window_flits_from_.data();
    Cycle every = sample_cycles_;
    Interval run;  // this interval's samples not yet in series_
    std::uint64_t measured = 0;
    for (const DeliveredRecord* const end = d + n; d != end; ++d) {
      if (d->window_flits && window_from) window_from[std::size_t(d->src)] += d->window_flits;
      const std::uint64_t latency_cycles = d->delivered_cycle - d->created_cycle;
      if (every) {
        if (d->delivered_cycle - interval_begin_ >= every) {
          add_to_interval(run);
          run = Interval{};
          move_interval(d->delivered_cycle);
          every = sample_cycles_;
        }
        ++run.packets;
        run.flits += d->size_flits;
        run.latency_sum += latency_cycles;
      }
      if (!d->measured) continue;
      ++measured;
      latency.add_uncounted(latency_cycles);
      network_latency.add_uncounted(d->delivered_cycle - d->injected_cycle);
      hops.add_uncounted(d->hops);
    }
    if (every) add_to_interval(run);
    outstanding_ -= measured;
    latency.add_count(measured);
    network_latency.add_count(measured);
    hops.add_count(measured);
  }
  std::uint64_t outstanding() const { return outstanding_; }
  Cycle last_created() const { return last_created_; }
  // Per source node: the cycle its last packet was delivered, and how many
  // were (batch and trace runs: per-node completion).
  void track_sources(int nodes) {
    tracks_more_ = true;
    last_delivery_.assign(nodes, 0);
    delivered_from_.assign(nodes, 0);
    created_flits_from_.assign(nodes, 0);
    last_created_by_.assign(nodes, 0);
  }
  const std::vector<std::uint64_t>& created_flits_by_source() const { return created_flits_from_; }
  const std::vector<Cycle>& last_created_by_source() const { return last_created_by_; }
  const std::vector<Cycle>& last_delivery_by_source() const { return last_delivery_; }
  const std::vector<std::uint64_t>& delivered_by_source() const { return delivered_from_; }
  // Per source node: flits ejected in the measurement window (they sum to
  // the window's ejected flits).
  void track_window_sources(int nodes) { window_flits_from_.assign(std::size_t(nodes), 0); }
  const std::vector<std::uint64_t>& window_flits_by_source() const { return window_flits_from_; }
  // Latency of the measured packets of each message class (classes > 1).
  void track_classes(int classes) {
    by_class_.assign(classes > 1 ? std::size_t(classes) : 0, Histogram{});
    tracks_more_ = tracks_more_ || !by_class_.empty();
  }
  const std::vector<Histogram>& latency_by_class() const { return by_class_; }
  // Statistics per packet size, for a workload whose packets have one of
  // `sizes_flits` (the classes in that order, duplicates merged); empty: off.
  void track_sizes(const std::vector<int>& sizes_flits) {
    by_size_.clear();
    size_class_.clear();
    for (int s : sizes_flits) {
      if (std::any_of(by_size_.begin(), by_size_.end(), [&](const SizeClass& k) { return k.packet_flits == s; }))
        continue;
      by_size_.push_back(SizeClass{s, {}, 0});
    }
    int largest = 0;
    for (const SizeClass& k : by_size_) largest = std::max(largest, k.packet_flits);
    if (!by_size_.empty()) size_class_.assign(std::size_t(largest) + 1, -1);  // other sizes: no class
    for (std::size_t i = 0; i < by_size_.size(); ++i) size_class_[std::size_t(by_size_[i].packet_flits)] = int(i);
    tracks_more_ = tracks_more_ || !by_size_.empty();
  }
  const std::vector<SizeClass>& size_classes() const { return by_size_; }
  // A time series of intervals of `cycles` (0: off); `expected_cycles` sizes it up front.
  // At most kMaxIntervals: a run that delivers past that many intervals
  // doubles them (merging pairs) until it fits, so sample_cycles() is
  // `cycles` times a power of two (a trace whose last packet is 10^12
  // cycles in took memory without bound).
  static constexpr std::size_t kMaxIntervals = std::size_t{1} << 17;
  void sample_every(Cycle cycles, Cycle expected_cycles) {
    sample_cycles_ = cycles;
    if (!cycles) return;
    series_.reserve(std::size_t(std::min<Cycle>(expected_cycles / cycles + 1, kMaxIntervals)));
    series_.resize(1);
  }
  Cycle sample_cycles() const { return sample_cycles_; }
  const std::vector<Interval>& series() const { return series_; }
  // Under ranks (sim/ranks.hpp) each rank sees the creations of its nodes
  // and the deliveries to them: the sums, maxima and series of all ranks,
  // on every rank, once the run is over (all ranks call it, once). Integer
  // counts only, so every figure computed from them is what one process
  // computes.
  void combine(Ranks& ranks);

  Histogram latency, network_latency, hops;
  // Called for every delivered packet, measured or not (tests, packet traces).
  std::function<void(const PacketExtension&)> on_packet;

 private:
  [[gnu::noinline]] void delivered_more(const PacketExtension& p) {
    if (on_packet) on_packet(p);
    if (!last_delivery_.empty()) {
      last_delivery_[p.src] = std::max(last_delivery_[p.src], p.delivered_cycle);
      ++delivered_from_[p.src];
    }
    // Untracked, size_class_ is empty: one comparison a packet.
    SizeClass* size = p.size_flits < size_class_.size() && size_class_[p.size_flits] >= 0
                          ? &by_size_[std::size_t(size_class_[p.size_flits])]
                          : nullptr;
    if (size) size->window_flits += p.window_flits;
    if (!p.measured) return;
    const std::uint64_t latency_cycles = p.delivered_cycle - p.created_cycle;
    if (p.cls < by_class_.size()) by_class_[p.cls].add(latency_cycles);
    if (size) size->latency.add(latency_cycles);
  }
  void sample(Cycle delivered_cycle, std::uint16_t size_flits, std::uint64_t latency_cycles) {
    // Deliveries come nearly in cycle order: the last interval is nearly always the one.
    if (delivered_cycle - interval_begin_ >= sample_cycles_) move_interval(delivered_cycle);
    Interval& s = series_[interval_];
    ++s.packets;
    s.flits += size_flits;
    s.latency_sum += latency_cycles;
  }
  void move_interval(Cycle delivered_cycle) {
    while (delivered_cycle / sample_cycles_ >= kMaxIntervals) coarsen();
    interval_ = std::size_t(delivered_cycle / sample_cycles_);
    interval_begin_ = Cycle(interval_) * sample_cycles_;
    if (interval_ >= series_.size()) series_.resize(interval_ + 1);
  }
  // Intervals twice as long: each pair merged.
  void coarsen() {
    for (std::size_t i = 0; i < series_.size(); ++i) {
      const Interval in = series_[i];
      if (i % 2 == 0) series_[i / 2] = in;
      else series_[i / 2] += in;
    }
    series_.resize((series_.size() + 1) / 2);
    sample_cycles_ *= 2;
    interval_ /= 2;
    interval_begin_ = Cycle(interval_) * sample_cycles_;
  }
  void add_to_interval(const Interval& run) { series_[interval_] += run; }

  std::uint64_t outstanding_ = 0;
  Cycle last_created_ = 0;
  std::vector<Cycle> last_delivery_;
  std::vector<std::uint64_t> delivered_from_;
  std::vector<std::uint64_t> created_flits_from_;
  std::vector<Cycle> last_created_by_;
  std::vector<std::uint64_t> window_flits_from_;
  std::vector<Histogram> by_class_;
  std::vector<SizeClass> by_size_;
  std::vector<int> size_class_;  // by packet size in flits: the index in by_size_, or -1
  bool tracks_more_ = false;     // per-source completion, classes or sizes (delivered_more)
  Cycle sample_cycles_ = 0;
  std::vector<Interval> series_;
  std::size_t interval_ = 0;  // the interval of the last delivery, which begins at cycle interval_begin_
  Cycle interval_begin_ = 0;
};

}  // namespace nwn

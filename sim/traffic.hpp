// Synthetic traffic: destination patterns (registered by name), the
// open-loop Bernoulli workload with fixed or bimodal packet sizes, and the
// batch workload built on it. Traces are in trace_workload.hpp.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "../base/registry.hpp"
#include "../models/endpoint.hpp"
#include "../models/rng.hpp"
#include "../models/prefetch.hpp"

namespace nwn {

// Router-level knowledge of a network, for patterns that depend on the
// topology (worst_case). Networks that have it (the graph topologies) pass it
// to Network::make_endpoints; other networks leave PatternParams::layout null
// and those patterns refuse to run.
struct RouterLayout {
  std::vector<int> first_node;  // per router, plus one past the end: router r has nodes first_node[r] .. first_node[r+1]-1
  std::vector<int> node_router;  // per node
  // Per router: the router whose nodes its nodes send to under worst_case,
  // a permutation of the routers with nodes chosen by the network to be
  // adversarial for minimal routing; and how it was chosen.
  std::vector<int> worst_case_target;
  std::string worst_case_rule;
};

struct PatternParams {
  int nodes = 64;
  std::uint64_t seed = 1;
  int hotspot_nodes = 1;
  double hotspot_fraction = 0.2;
  const RouterLayout* layout = nullptr;  // null: the network gives no router-level layout
};

class TrafficPattern {
 public:
  virtual ~TrafficPattern() = default;
  // Stateless: called for many nodes at once (from several threads).
  virtual int dest(int src, Rng& rng) const = 0;
};

using PatternFactory = std::function<std::unique_ptr<TrafficPattern>(const PatternParams&)>;
Registry<PatternFactory>& traffic_pattern_registry();  // kind "pattern"
// Throws ConfigError naming traffic.pattern when the pattern cannot be built
// for this node count (e.g. bit permutations need a power of two).
std::unique_ptr<TrafficPattern> make_traffic_pattern(const std::string& name, const PatternParams& p);

struct PatternRegistration {
  PatternRegistration(const std::string& name, PatternFactory f) { traffic_pattern_registry().add(name, std::move(f)); }
};

struct SyntheticParams {
  int nodes = 64;
  std::uint64_t seed = 1;
  double load = 0.5;               // fraction of terminal channel capacity
  int serialization_cycles = 1;    // cycles per flit on the terminal channel
  bool bimodal = false;
  int packet_flits = 1;
  int bimodal_small_flits = 1, bimodal_large_flits = 5;
};

// Bernoulli packet arrivals (sampled as geometric gaps, so an idle node costs
// nothing between packets) with a per-node random stream.
class SyntheticWorkload final : public Workload {
 public:
  SyntheticWorkload(const SyntheticParams& p, std::unique_ptr<TrafficPattern> pattern);
  Cycle next_creation(int node, Cycle after) override;
  PacketSpec make_packet(int node, Cycle now) override;
  Cycle make_packet_then_next(int node, Cycle now, PacketSpec& spec) override;
  void make_packets_then_next(const int* nodes, void* const* states, std::size_t n, Cycle now, PacketSpec* specs,
                              Cycle* nexts) override;
  // A node's random stream moves to its interface (see rng_of_).
  void place_node_state(int node, void* at) override;
  bool next_after_now() const override { return true; }  // draw_next(node, now + 1)
  bool per_node() const override { return true; }
  // (Placed streams are in the interface's line, which the endpoints prefetch.)
  void prefetch(int node) const override {
    if (!placed_) prefetch_write(&rng_[std::size_t(node)]);
  }
  double packet_probability() const { return p_packet_; }
  // The gap for next()'s 53 high bits m: GeometricGaps::gap_of(m) of the
  // packet probability. The gap is 0 or 1 about as often as not: the
  // table's loop ends at a branch no predictor can learn (one miss a
  // packet), so its first thresholds are searched without a branch and
  // the loop only runs past them.
  std::uint64_t gap_of(std::uint64_t m) const {
    if (searched_) {
      // How many of the sorted thresholds sure_[0..6] m is at or above.
      unsigned k = unsigned(m >= sure_[3]) << 2;
      k += unsigned(m >= sure_[k + 1]) << 1;
      k += unsigned(m >= sure_[k]);
      if (m < unsure_[k]) return k;  // else: past them (unsure_[kSearched] is 0), or near a threshold
    }
    return gaps_.gap_of(m);
  }

 private:
  // The draws of make_packet and next_creation, inlined into both.
  PacketSpec draw_packet(int node);
  Cycle draw_next(int node, Cycle after);

  SyntheticParams params_;
  std::unique_ptr<TrafficPattern> pattern_;
  int uniform_nodes_ = 0;  // the pattern is uniform over this many nodes (drawn here, no virtual call); 0: not
  std::vector<Rng> rng_;
  // Each node's stream: in rng_, or where the endpoints placed it
  // (place_node_state, in the node's interface, next to what its packet's
  // creation reads there). A stream moves once, before any draw of the
  // simulation, and keeps its state: the draws are the same.
  std::vector<Rng*> rng_of_;
  bool placed_ = false;
  double p_packet_;
  GeometricGaps gaps_;  // of p_packet_ when 0 < p_packet_ < 1
  // The first kSearched bounds of gaps_'s table (searched_: it has that many).
  static constexpr unsigned kSearched = 7;
  bool searched_ = false;
  std::uint64_t sure_[kSearched] = {}, unsure_[kSearched + 1] = {};
};

// A workload with a known number of packets (batch, trace): the run ends
// when all of them are delivered (sim/experiment.cpp, run to completion).
class FiniteWorkload : public Workload {
 public:
  virtual std::uint64_t total_packets() const = 0;
};

struct BatchParams {
  std::uint64_t packets_per_node = 100;
  std::uint64_t max_outstanding = 0;  // per node; 0: no limit
};

// Batch mode: each node creates packets_per_node packets of the synthetic
// workload (same pattern, sizes and Bernoulli arrivals at traffic.load),
// then stops. With max_outstanding, a node that has that many undelivered
// packets waits for a delivery (closed loop).
class BatchWorkload final : public FiniteWorkload {
 public:
  BatchWorkload(int nodes, const BatchParams& p, std::unique_ptr<SyntheticWorkload> inner);
  Cycle next_creation(int node, Cycle after) override;
  PacketSpec make_packet(int node, Cycle now) override;
  bool closed_loop() const override { return params_.max_outstanding > 0; }
  bool per_node() const override { return !closed_loop(); }
  bool on_delivered(int src, Cycle now) override;
  void place_node_state(int node, void* at) override { inner_->place_node_state(node, at); }
  std::uint64_t total_packets() const override { return params_.packets_per_node * created_.size(); }

 private:
  BatchParams params_;
  std::unique_ptr<SyntheticWorkload> inner_;
  std::vector<std::uint64_t> created_, outstanding_;
};

}  // namespace nwn

// The result of one simulation point (sim/experiment.hpp runs it; its JSON
// form, to_json, is written there too). Its own header so that what reads a
// result (the network's power, sim/network_power.hpp) need not include the
// experiment that makes it.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "../models/router.hpp"

namespace nwn {

struct RunResult {
  double offered_load = 0;           // configured
  double offered_load_measured = 0;  // flits created in the window / capacity
  double accepted_load = 0;          // flits ejected in the window / capacity
  double accepted_min_node = 0;      // the worst node's accepted load
  std::uint64_t packets_measured = 0;
  double latency_avg = 0;
  std::uint64_t latency_p50 = 0, latency_p99 = 0, latency_max = 0;
  double network_latency_avg = 0;
  double hops_avg = 0;
  bool drained = false;    // every marked packet arrived within the drain cap
  bool saturated = false;  // is_saturated (sim/experiment.hpp)
  std::uint64_t cycles = 0;
  std::uint64_t flits_created = 0, flits_ejected = 0, flits_queued = 0, flits_in_network = 0;
  std::uint64_t flit_hops = 0;
  // Batch and trace runs (workload "batch" or "trace"; "open" leaves them 0):
  // the cycle the last packet was delivered, and over the nodes that sent
  // packets, the earliest, mean and latest cycle a node's last packet was.
  std::string workload = "open";
  std::uint64_t completion_cycles = 0;
  std::uint64_t completion_node_min = 0, completion_node_max = 0;
  double completion_node_avg = 0;
  // What happened during the measurement window, for the power model.
  std::uint64_t window_cycles = 0;
  std::uint64_t window_packets_ejected = 0;
  std::uint64_t window_flits_ejected = 0;
  RouterActivity window_activity;  // summed over routers
  nlohmann::ordered_json power;    // the routers' area and power in the window (sim/network_power.hpp)
  // With sim.heatmap: packets routed through routers, and the fraction whose
  // input and output ports lie in different halves of the router's physical
  // ports (crossing its bisection; Fig. 10 of the NWN paper).
  nlohmann::ordered_json heatmap;
  // Beyond the summary figures (docs/WORKLOADS.md, "Statistics"): the
  // measured packets' exact latency histogram and CDF; the window's ejected
  // flits per source and per destination with Jain's fairness index and the
  // least and most served node; the latency of each message class; the
  // latency and accepted load of each packet size (a synthetic size mix);
  // the packets delivered per interval of sim.sample_cycles; and whether the
  // window's start had settled (open loop). Null where a run has none.
  nlohmann::ordered_json latency_histogram, fairness, classes, size_classes, time_series, warmup_check;
  // Channel utilization over the window (flits sent x cycles per flit /
  // window cycles): every router output port, router by router, and each
  // node's injection and ejection channel, with the busiest port.
  nlohmann::ordered_json utilization;

  nlohmann::ordered_json to_json() const;
};

}  // namespace nwn

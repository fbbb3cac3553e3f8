// Packet traces for debugging: the path of chosen packets through the
// endpoints, routers and subswitches, one line per flit event (format in
// docs/WORKLOADS.md). Chosen by packet id (sim.packet_trace_ids) or every
// Nth packet of every node (sim.packet_trace_every); written to sim.packet_trace_file.
// With sim.threads > 1 the lines of one cycle may come in another order
// (each line is whole); with one thread the file is reproducible.
#pragma once
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../models/packet_tracer.hpp"
#include "atomic_file.hpp"
#include "config.hpp"

namespace nwn {

class Network;

class PacketTraceWriter final : public PacketTracer {
 public:
  // `every`: the k-th packet of node n is traced when (k + n) mod every = 0
  // (ids k x nodes + n): every node's every Nth packet, staggered by node.
  PacketTraceWriter(const std::string& path, std::vector<std::uint64_t> ids, std::uint64_t every,
                    std::uint64_t nodes);
  ~PacketTraceWriter() override;
  bool wants(std::uint64_t packet_id) const override;
  void record(TraceEvent e, Cycle now, const Flit& f, const std::string& unit, const TraceHop& hop) override;

 private:
  StreamFile file_;
  std::vector<std::uint64_t> ids_;  // sorted
  std::uint64_t every_, nodes_;
  fmt::memory_buffer line_;  // reused: no allocation per event once grown
  std::mutex mutex_;         // in case a caller runs routers on several threads (run_network uses one)
};

// The tracer the config asks for, hooked into the network's endpoints and
// subswitches; nullptr when sim.packet_trace_file is empty.
std::unique_ptr<PacketTraceWriter> attach_packet_tracer(const Config& cfg, Network& net);

}  // namespace nwn

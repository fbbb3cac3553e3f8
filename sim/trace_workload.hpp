// Trace-driven traffic: the packets of a text file (format in
// docs/WORKLOADS.md), one per line:
//
//   cycle source destination size_flits      # '#' starts a comment
//
// The file is read line by line and checked when the network is built,
// within bounds (line length, packets, bytes), so a file that is no trace
// (a device, a binary) is refused instead of filling the memory; during the
// run the workload only walks per-node arrays, so there is no allocation
// per packet.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "traffic.hpp"

namespace nwn {

struct TraceLimits {
  int nodes = 64;             // source and destination are 0 .. nodes-1
  int max_packet_flits = 16;  // the largest packet the network can carry
  std::string size_rule;      // why that is the largest, for the error message
  double time_scale = 1.0;    // every cycle is multiplied by this, then rounded
  // sim.max_cycles: the run stops there, so a packet at or after it (after
  // scaling) would never be sent; 0: no bound.
  Cycle max_cycles = 0;
};

// What a trace may hold: longer lines, more packets or more bytes are refused.
constexpr std::size_t kTraceMaxLineBytes = 4096;
constexpr std::uint64_t kTraceMaxPackets = std::uint64_t{1} << 25;  // 33,554,432: about 1.3 GB while reading
constexpr std::uint64_t kTraceMaxBytes = std::uint64_t{1} << 32;    // 4 GiB of text

struct TracePacket {
  Cycle cycle = 0;
  std::int32_t src = 0, dst = 0;
  std::uint16_t size_flits = 1;
};

// Parses trace text (`origin` names the file in errors). Throws ConfigError
// naming the file, the line, the field, its value and what is allowed.
// read_trace_file streams the file; an unreadable path (missing, a
// directory, no permission) is an error naming traffic.trace_file and the
// system's reason.
std::vector<TracePacket> parse_trace(const std::string& text, const std::string& origin, const TraceLimits& limits);
std::vector<TracePacket> read_trace_file(const std::string& path, const TraceLimits& limits);

class TraceWorkload final : public FiniteWorkload {
 public:
  TraceWorkload(const std::vector<TracePacket>& packets, int nodes);
  Cycle next_creation(int node, Cycle after) override;
  PacketSpec make_packet(int node, Cycle now) override;
  bool per_node() const override { return true; }
  std::uint64_t total_packets() const override { return packets_.size(); }

 private:
  struct Entry {
    Cycle cycle;
    std::int32_t dst;
    std::uint16_t size_flits;
  };
  std::vector<Entry> packets_;         // grouped by source, in file order within a source
  std::vector<std::size_t> next_, end_;  // per source: next entry, one past its last
};

}  // namespace nwn

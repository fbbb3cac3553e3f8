// Debug tracing of chosen packets, flit by flit. The endpoints set
// Flit::traced on the flits of the packets a PacketTracer wants; the few hook
// points (endpoint creation, injection and ejection; subswitch buffer write,
// route, VC grant, traversal) test that bit first, so with tracing off the
// cost is one predictable branch on a flit already in a register. The
// tracer (sim/packet_trace.hpp) writes the events to a file.
#pragma once
#include <cstdint>
#include <string>

#include "flit.hpp"

namespace nwn {

class Link;

enum class TraceEvent : std::uint8_t {
  Create,    // the packet is created at its source (queued at the NI)
  Inject,    // a flit enters the injection channel
  Buffer,    // a flit is written into a subswitch input VC buffer
  Route,     // the head's output port (and allowed VCs) is decided
  VcGrant,   // the head is granted an output VC
  Traverse,  // a flit crosses the subswitch crossbar onto an output channel
  Eject,     // a flit arrives at the destination NI
};

// Where an event happened; -1 for what does not apply.
struct TraceHop {
  int in_port = -1, in_vc = -1;
  int out_port = -1, out_vc = -1;
  int vc_lo = -1, vc_hi = -1;  // Route: the VCs the head may take
  const Link* link = nullptr;  // Inject, Traverse: the channel; Buffer: the channel it came on
  Cycle arrives = 0;           // Inject, Traverse: when the flit reaches the far end
};

class PacketTracer {
 public:
  virtual ~PacketTracer() = default;
  // Called once per created packet: should its flits carry the traced bit?
  virtual bool wants(std::uint64_t packet_id) const = 0;
  // `unit` names the subswitch (router.subswitch) or the NI.
  virtual void record(TraceEvent e, Cycle now, const Flit& f, const std::string& unit, const TraceHop& hop) = 0;
};

}  // namespace nwn

// A flit is passed by value everywhere: no heap allocation per flit.
#pragma once
#include <cstdint>

namespace nwn {

using Cycle = std::uint64_t;
constexpr Cycle kNever = ~Cycle{0};

struct Flit {
  std::uint64_t packet_id = 0;
  Cycle created_cycle = 0;   // packet creation at the source (open-loop queue)
  Cycle injected_cycle = 0;  // head flit entered the injection channel
  std::int32_t src = -1;     // terminal ids
  std::int32_t dst = -1;
  std::int16_t vc = -1;            // VC of the buffer the flit is travelling to
  std::uint16_t packet_flits = 1;  // packet length in flits
  std::uint16_t hops = 0;          // crossbar traversals so far (flit-hops)
  std::int16_t router_out = -1;    // lookahead: output port of the router it is crossing
  std::int32_t route_aux = -1;     // global routing state (intermediate router, phase)
  std::int32_t local_aux = -1;     // internal routing state (intermediate subswitch, phase), per router
  std::uint8_t cls = 0;            // traffic class
  std::uint8_t router_vc_lo = 0;   // VCs allowed on the router output (set by global routing)
  std::uint8_t router_vc_hi = 0;
  bool head = false;
  bool tail = false;
  bool measured = false;  // created inside the measurement window
  bool traced = false;    // a packet chosen for debug tracing (models/packet_tracer.hpp)
};

}  // namespace nwn

// Energy and area of a switch organization, in the spirit of DSENT: dynamic
// energy is activity counted by the simulation times a constant per bit;
// static energy is static power (from the structure) times simulated time.
// No dynamic energy is computed without activity from a simulation.
//
//   buffers   : (writes + reads) x flit bits x buffer_fj_per_bit
//   crossbars : flits through each subswitch x its crossbar radix x flit bits x crossbar_fj_per_bit_per_radix
//   wires     : flits on each internal channel x flit bits x wire_fj_per_bit_per_cycle_distance x length / cycle_distance
//   off-chip  : flits entering and leaving the router x flit bits x offchip_fj_per_bit (reported apart:
//               it is the same for every organization)
//   static    : cycles x (crosspoints x radix x crosspoint constant + wire length / cycle_distance x wire constant)
//               [x channel bits for each per-bit reading] + time x (port buffers x input_port_buffer_mw
//               + subswitch buffers x subswitch_buffer_mw)
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "../models/organization.hpp"
#include "../models/router.hpp"
#include "technology.hpp"

namespace nwn {

struct EnergyBreakdown {
  double buffers_pj = 0, crossbars_pj = 0, wires_pj = 0, offchip_pj = 0;
  double static_buffers_pj = 0, static_crosspoints_pj = 0, static_wires_pj = 0;

  double dynamic_pj() const { return buffers_pj + crossbars_pj + wires_pj; }
  double static_pj() const { return static_buffers_pj + static_crosspoints_pj + static_wires_pj; }
  // Switch energy: everything but off-chip transfers.
  double switch_pj() const { return dynamic_pj() + static_pj(); }
  EnergyBreakdown scaled(double f) const;
  nlohmann::ordered_json to_json() const;
};

// Structural figures the static power needs, from the description.
struct StaticStructure {
  int port_buffers = 0;       // buffered router input ports
  int subswitch_buffers = 0;  // buffered subswitch inputs that are not router ports
  double crosspoint_radix = 0;  // sum over subswitches of crosspoints x crossbar radix
  double wire_cycle_distances = 0;  // sum over channels of length / cycle distance
};

// A subswitch's crossbar radix: the larger of its crossbar inputs (ports x
// input speedup) and outputs.
int crossbar_radix(const SubswitchSpec& s);
StaticStructure static_structure(const SwitchDescription& d, const Technology& t);

// Energy of `routers` routers of one organization over `cycles` cycles with
// the given (summed) activity; `terminal_flits` crossed router ports.
EnergyBreakdown switch_energy(const Technology& t, const SwitchDescription& d, const RouterActivity& activity,
                              std::uint64_t cycles, int flit_bits, std::uint64_t terminal_flits, int routers = 1);

}  // namespace nwn

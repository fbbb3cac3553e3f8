#include "power_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace nwn {

EnergyBreakdown EnergyBreakdown::scaled(double f) const {
  EnergyBreakdown e = *this;
  for (double* x : {&e.buffers_pj, &e.crossbars_pj, &e.wires_pj, &e.offchip_pj, &e.static_buffers_pj,
                    &e.static_crosspoints_pj, &e.static_wires_pj})
    *x *= f;
  return e;
}

nlohmann::ordered_json EnergyBreakdown::to_json() const {
  nlohmann::ordered_json j;
  j["buffers_pj"] = buffers_pj;
  j["crossbars_pj"] = crossbars_pj;
  j["wires_pj"] = wires_pj;
  j["static_buffers_pj"] = static_buffers_pj;
  j["static_crosspoints_pj"] = static_crosspoints_pj;
  j["static_wires_pj"] = static_wires_pj;
  j["dynamic_pj"] = dynamic_pj();
  j["static_pj"] = static_pj();
  j["switch_pj"] = switch_pj();
  j["offchip_pj"] = offchip_pj;
  return j;
}

int crossbar_radix(const SubswitchSpec& s) { return std::max(s.inputs * s.input_speedup, s.outputs); }

StaticStructure static_structure(const SwitchDescription& d, const Technology& t) {
  StaticStructure s;
  const Complexity c = complexity(d);
  s.port_buffers = int(d.inputs.size());
  s.subswitch_buffers = c.subswitch_buffers;
  for (const SubswitchSpec& ss : d.subswitches) s.crosspoint_radix += double(ss.crosspoints()) * crossbar_radix(ss);
  for (const ChannelSpec& c : d.channels) s.wire_cycle_distances += c.length_mm / t.cycle_distance_mm;
  return s;
}

EnergyBreakdown switch_energy(const Technology& t, const SwitchDescription& d, const RouterActivity& a,
                              std::uint64_t cycles, int flit_bits, std::uint64_t terminal_flits, int routers) {
  if (a.subswitches.size() != d.subswitches.size() || a.channel_flits.size() != d.channels.size())
    throw std::logic_error("power model: activity does not match the organization " + d.org);
  EnergyBreakdown e;
  const double bits = flit_bits;
  const double fj_to_pj = 1e-3;
  for (std::size_t i = 0; i < d.subswitches.size(); ++i) {
    const SubswitchActivity& s = a.subswitches[i];
    e.buffers_pj += double(s.buffer_writes + s.buffer_reads) * bits * t.buffer_fj_per_bit * fj_to_pj;
    e.crossbars_pj += double(s.crossbar_flits) * crossbar_radix(d.subswitches[i]) * bits *
                      t.crossbar_fj_per_bit_per_radix * fj_to_pj;
  }
  for (std::size_t i = 0; i < d.channels.size(); ++i)
    e.wires_pj += double(a.channel_flits[i]) * bits * t.wire_fj_per_bit_per_cycle_distance *
                  (d.channels[i].length_mm / t.cycle_distance_mm) * fj_to_pj;
  e.offchip_pj = double(terminal_flits) * bits * t.offchip_fj_per_bit * fj_to_pj;

  const StaticStructure st = static_structure(d, t);
  const double wire_bits = t.static_wires_per_bit ? t.channel_width_bits : 1.0;
  const double crosspoint_bits = t.static_crosspoints_per_bit ? t.channel_width_bits : 1.0;
  const double seconds = double(cycles) / (t.clock_ghz * 1e9);
  const double n = routers;
  e.static_crosspoints_pj = n * double(cycles) * st.crosspoint_radix * t.static_crosspoint_fj_per_radix_per_cycle *
                            crosspoint_bits * fj_to_pj;
  e.static_wires_pj = n * double(cycles) * st.wire_cycle_distances *
                      t.static_wire_fj_per_cycle_per_cycle_distance * wire_bits * fj_to_pj;
  e.static_buffers_pj =
      n * seconds * (st.port_buffers * t.input_port_buffer_mw + st.subswitch_buffers * t.subswitch_buffer_mw) * 1e9;
  return e;
}

}  // namespace nwn

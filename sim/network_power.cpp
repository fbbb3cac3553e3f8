// Power and area of a whole network's routers: the power model of power/
// applied to the measurement window's activity summed over every router
// (all routers of a network share one organization and radix).
#include "network_power.hpp"

#include "../power/area.hpp"
#include "../power/power_model.hpp"
#include "../power/technology.hpp"
#include "network.hpp"

namespace nwn {

nlohmann::ordered_json network_power(const Config& cfg, const Network& net, const RunResult& r) {
  const auto& routers = net.routers();
  if (routers.empty()) return nullptr;
  const SwitchDescription& d = routers.front()->description();
  for (auto& rt : routers)
    if (rt->description().subswitches.size() != d.subswitches.size() ||
        rt->description().channels.size() != d.channels.size())
      return nullptr;  // mixed organizations: activity cannot be summed per subswitch
  const std::string& file = cfg.get_string("power.tech_file");
  const Technology tech = file.empty() ? default_technology() : load_technology(file, "power.tech_file");
  const int flit_bits = int(cfg.get_int("flit.bits"));
  // Off-chip: every flit of the window enters and leaves each router it
  // crosses; reported apart, as for one router.
  const int count = net.router_count();  // under ranks, every rank's (the activity is summed over them)
  const EnergyBreakdown e = switch_energy(tech, d, r.window_activity, r.window_cycles, flit_bits,
                                          2 * r.window_flits_ejected, count);
  const double window_ns = double(r.window_cycles) / tech.clock_ghz;
  const double area_mm2 = switch_area_pitch2(d) * tech.channel_pitch_mm() * tech.channel_pitch_mm();
  nlohmann::ordered_json j;
  j["technology"] = tech.name;
  j["routers"] = count;
  j["router_area_mm2"] = area_mm2;
  j["total_area_mm2"] = area_mm2 * double(count);
  j["switch_power_w"] = window_ns > 0 ? e.switch_pj() / window_ns * 1e-3 : 0.0;
  j["dynamic_power_w"] = window_ns > 0 ? e.dynamic_pj() / window_ns * 1e-3 : 0.0;
  j["static_power_w"] = window_ns > 0 ? e.static_pj() / window_ns * 1e-3 : 0.0;
  j["energy_per_packet_pj"] =
      r.window_packets_ejected ? e.switch_pj() / double(r.window_packets_ejected) : 0.0;
  j["window_energy"] = e.to_json();
  return j;
}

}  // namespace nwn

#include "routing.hpp"

#include <algorithm>
#include <stdexcept>

#include "../../base/error.hpp"

namespace nwn {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The family's routings that apply to `topology`, the default first.
std::vector<const RoutingSpec*> applicable(const std::string& topology) {
  const std::string family = routing_family(topology);
  std::vector<const RoutingSpec*> out;
  for (auto& [key, spec] : routing_registry())
    if (spec.family == family && (!spec.applies || spec.applies(topology))) out.push_back(&spec);
  std::stable_partition(out.begin(), out.end(),
                        [&](const RoutingSpec* s) { return s->is_default && s->is_default(topology); });
  return out;
}

}  // namespace

Registry<RoutingSpec>& routing_registry() {
  static Registry<RoutingSpec> registry("routing");
  return registry;
}

RoutingRegistration::RoutingRegistration(RoutingSpec s) {
  const std::string key = s.family + "/" + s.name;
  routing_registry().add(key, std::move(s));
}

Registry<std::string>& topology_routing_family_registry() {
  static Registry<std::string> registry("topology routing family");
  return registry;
}

std::string routing_family(const std::string& topology) {
  if (const std::string* family = topology_routing_family_registry().find(topology)) return *family;
  if (has(registered_names("topology"), topology)) return topology;
  if (has(registered_names("graph topology"), topology)) return "graph";
  return "";
}

std::vector<std::string> topology_routings(const std::string& topology) {
  if (routing_family(topology).empty()) return {};
  std::vector<std::string> names{"auto"};
  for (const RoutingSpec* s : applicable(topology)) names.push_back(s->name);
  return names;
}

std::vector<std::string> routing_names() {
  std::vector<std::string> names{"auto"};
  for (auto& [key, spec] : routing_registry())
    if (!has(names, spec.name)) names.push_back(spec.name);
  std::sort(names.begin() + 1, names.end());
  return names;
}

std::string routing_help() {
  std::string out = "global routing (auto: the topology's default)";
  std::string family;
  for (auto& [key, spec] : routing_registry()) {
    if (spec.family != family) out += spec.family == "graph" ? "; graph topologies (torus, mesh, slimfly, dragonfly, ...): " : "; " + spec.family + ": ";
    else out += ", ";
    family = spec.family;
    out += spec.name;
    if (!spec.note.empty()) out += " (" + spec.note + ")";
  }
  return out + " (docs/TOPOLOGIES.md)";
}

const RoutingSpec& find_routing(const std::string& topology, const std::string& name) {
  const std::vector<const RoutingSpec*> specs = applicable(topology);
  for (const RoutingSpec* s : specs)
    if (name == "auto" ? s->is_default && s->is_default(topology) : s->name == name) return *s;
  if (name == "auto") throw std::logic_error("routing: no default routing registered for " + topology);
  std::vector<std::string> allowed = topology_routings(topology);
  std::string list;
  for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw ConfigError("config error: network.routing = '" + name + "' does not apply to network.topology = " + topology +
                    " (allowed: " + list + ")");
}

}  // namespace nwn

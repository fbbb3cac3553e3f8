// Global routings as registered classes: each routing (or small family) is
// one file under sim/routing/ that registers, by name, the network family it
// runs on, the topologies it applies to, the VC classes it needs and its
// deadlock argument. The config check and the schema's help read this
// registry; networks build their routing from it.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../base/registry.hpp"
#include "../../models/routing.hpp"

namespace nwn {

// What a network family hands its routings (the topology's tables, VCs,
// seed); each family derives its own (graph.hpp, fclos.hpp, hyperx.hpp).
struct RoutingContext {
  virtual ~RoutingContext() = default;
};

// The VC classes a routing splits router.vcs into on a built topology, and why.
struct VcNeed {
  int classes = 1;
  std::string why;
  // The class rises on every hop (hop-indexed classes): no VC is shared by
  // packets of different hops, so an organization whose internal channels
  // mix the hops keeps the dependencies acyclic
  // (SwitchDescription::mixes_hops).
  bool hop_indexed = false;
};

struct RoutingSpec {
  std::string family;      // "graph" (every graph topology of sim/topo/ without a family of its own), "fclos", "hyperx"
  std::string name;        // the value of network.routing
  std::string note;        // for the help text, e.g. "default", "torus and mesh, their default" ("": none)
  std::string deadlock;    // why it is deadlock-free, in one line
  // Narrower than the family (nullptr: every topology of it).
  std::function<bool(const std::string& topology)> applies;
  // network.routing = auto takes this routing on these topologies (nullptr: never).
  std::function<bool(const std::string& topology)> is_default;
  std::function<VcNeed(const RoutingContext&)> vc_need;
  std::function<std::unique_ptr<GlobalRouting>(const RoutingContext&)> make;
};

// Keyed "family/name": the same name may mean different routings on
// different families (dor on hyperx and on a torus).
Registry<RoutingSpec>& routing_registry();
struct RoutingRegistration {
  explicit RoutingRegistration(RoutingSpec s);
};

// Graph topologies whose routings form a family of their own (fclos,
// hyperx) name it here, topology -> family (topo::GraphTopologyRegistration
// does; kind "topology routing family").
Registry<std::string>& topology_routing_family_registry();
// The routing family a topology runs: the family it names, its own name for
// a network with its own Network subclass (single), "graph" for the other
// graph topologies of sim/topo/, "" if it cannot be simulated.
std::string routing_family(const std::string& topology);
// The values of network.routing a topology takes (auto, its default, then
// the rest by name), or none if the topology cannot be simulated.
std::vector<std::string> topology_routings(const std::string& topology);
// Every registered routing name and auto (the schema's choices).
std::vector<std::string> routing_names();
// network.routing's help: each family's routings, with their notes.
std::string routing_help();
// The routing network.routing names on `topology` (auto resolved); a
// routing that does not apply is a ConfigError.
const RoutingSpec& find_routing(const std::string& topology, const std::string& name);

}  // namespace nwn

// Routing families of their own: routings written for one topology's labels
// (fclos levels, hyperx coordinates) rather than the distance tables of the
// family "graph" (graph.hpp). The topology names its family
// (topo::GraphTopology::routing_family); the family registers here how it
// builds the context its routings read from the graph network's parts.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../base/registry.hpp"
#include "../config.hpp"
#include "../topo/graph.hpp"
#include "routing.hpp"

namespace nwn {

struct FamilyInput {
  const Config& cfg;
  const topo::Graph& graph;
  const std::vector<int>& phys;  // logical -> physical port, one map for every router (the graph's port_groups)
  int vcs = 1;
  std::uint64_t seed = 1;
};

using RoutingContextFactory = std::function<std::unique_ptr<RoutingContext>(const FamilyInput&)>;

// Family name -> how it builds its context (kind "routing family").
inline Registry<RoutingContextFactory>& routing_context_registry() {
  static Registry<RoutingContextFactory> registry("routing family");
  return registry;
}
struct RoutingFamilyRegistration {
  RoutingFamilyRegistration(const std::string& family, RoutingContextFactory f) {
    routing_context_registry().add(family, std::move(f));
  }
};

}  // namespace nwn

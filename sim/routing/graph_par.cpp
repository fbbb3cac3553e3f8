// par: progressive adaptive routing (Jiang, Kim and Dally, "Indirect
// adaptive routing on large scale interconnection networks", ISCA 2009) on
// topologies of groups (topo::GroupLabel::Group: the Dragonfly).
//   At the source router it decides as ugal_l (sim/routing/graph_indirect.cpp):
//   q_m = occupancy of the best minimal port toward the destination, q_v =
//   occupancy of the best minimal port toward a random intermediate router;
//   minimal when q_m x H_m <= q_v x H_v. A packet that went minimal and whose
//   first hop kept it in the source group decides once more, the same way,
//   at that second router, with that router's occupancies (its global
//   channel may be the congested one, which the source cannot see): it may
//   revert to a non-minimal path through a random intermediate from there.
//   Afterwards minad toward the current target (intermediate, then
//   destination), as ugal_l.
// VCs: hop-indexed classes (sim/routing/graph.hpp), 2E + 1 of them: a
// reverted packet takes one local hop, then up to E hops to the
// intermediate and E to the destination (E: the largest distance from a
// router with terminals to any router; 3 on a Dragonfly: 7 classes).
// Deadlock-free because every channel dependency goes from class h to class
// h + 1 and no path is longer than 2E + 1 hops.
// Per route: a scan of the router's network ports; no allocation.
#include "graph.hpp"

namespace nwn {
namespace {

class ParRouting final : public GraphRouting<ParRouting> {
 public:
  explicit ParRouting(const RoutingContext& c)
      : GraphRouting(c, classes(c).classes), group_(static_cast<const GraphRoutingContext&>(c).group) {
    if (static_cast<const GraphRoutingContext&>(c).group_label != topo::GroupLabel::Group ||
        int(group_.size()) != t_.routers)
      throw std::logic_error("par: the topology labels no router groups");
  }

  static VcNeed classes(const RoutingContext& c) {
    const auto& g = static_cast<const GraphRoutingContext&>(c);
    return {2 * g.eccentricity + 1,
            "one VC class per hop (hop-indexed classes keep the channel dependency graph acyclic), and a packet that "
            "reverts to a non-minimal path after its first local hop takes up to 1 + 2 x " +
                std::to_string(g.eccentricity) + " = " + std::to_string(2 * g.eccentricity + 1) + " hops",
            true};
  }

  int port(Router& router, int r, int dst, Rng& rng, std::uint32_t& aux, const Flit& head, int&) const {
    const int hops = int(aux & kGraphHopsMask);
    const bool undecided = (aux & ~kGraphHopsMask) == 0;
    const bool minimal_so_far = (aux & ~kGraphHopsMask) == kGraphPhaseBit;
    const bool decides = undecided || (hops == 1 && minimal_so_far && group_[r] == group_[t_.node_router[head.src]]);
    if (decides && t_.routers > 2) return ugal_local(router, r, dst, rng, aux);
    if (decides) aux = (aux & kGraphHopsMask) | kGraphPhaseBit;  // two routers: no intermediate, minimal
    return adaptive_minimal(router, r, current_target(r, dst, aux), &rng);
  }

 private:
  std::vector<int> group_;
};

RoutingRegistration reg_par({"graph", "par", "dragonfly",
                             "hop-indexed VC classes: every dependency goes from class h to h + 1 (acyclic)",
                             [](const std::string& topology) {
                               const topo::GraphTopology* t = topo::find_graph_topology(topology);
                               return t && t->group_label == topo::GroupLabel::Group;
                             },
                             nullptr, ParRouting::classes, [](const RoutingContext& c) {
                               return std::unique_ptr<GlobalRouting>(new ParRouting(c));
                             }});

}  // namespace
}  // namespace nwn

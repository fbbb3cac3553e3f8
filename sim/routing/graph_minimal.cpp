// minimal, minad: minimal routings of any graph topology, hop-indexed VC
// classes (sim/routing/graph.hpp), D classes (D: the largest distance
// between routers with terminals). A port of router r is minimal toward
// router t when its far router is one hop closer to t.
//   minimal  random among the minimal ports toward the destination router.
//   minad    among the minimal ports, the one with the most free downstream
//            credits (Router::output_credits; ties at random).
#include "graph.hpp"

namespace nwn {
namespace {

class MinimalRouting final : public GraphRouting<MinimalRouting> {
 public:
  using GraphRouting::GraphRouting;
  int port(Router&, int r, int dst, Rng& rng, std::uint32_t&, const Flit&, int&) const {
    return random_minimal(r, dst, rng);
  }
};

class MinAdRouting final : public GraphRouting<MinAdRouting> {
 public:
  using GraphRouting::GraphRouting;
  int port(Router& router, int r, int dst, Rng& rng, std::uint32_t&, const Flit&, int&) const {
    return adaptive_minimal(router, r, dst, &rng);
  }
};

const char* kHopIndexed = "hop-indexed VC classes: every dependency goes from class h to h + 1 (acyclic)";

RoutingRegistration reg_minimal({"graph", "minimal", "default except on torus and mesh", kHopIndexed, nullptr,
                                 [](const std::string& t) { return !topo::is_torus_topology(t); },
                                 minimal_path_classes, [](const RoutingContext& c) {
                                   return std::unique_ptr<GlobalRouting>(
                                       new MinimalRouting(c, minimal_path_classes(c).classes));
                                 }});
RoutingRegistration reg_minad({"graph", "minad", "", kHopIndexed, nullptr, nullptr, minimal_path_classes,
                               [](const RoutingContext& c) {
                                 return std::unique_ptr<GlobalRouting>(
                                     new MinAdRouting(c, minimal_path_classes(c).classes));
                               }});

}  // namespace
}  // namespace nwn

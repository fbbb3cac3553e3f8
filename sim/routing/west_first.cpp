// west_first: the west-first turn model (Glass and Ni 1992) on a 2-D mesh,
// minimal and adaptive. West is dimension 0 going -. A packet whose
// destination lies west goes west until it is in the destination's column;
// then (or from the start, when the destination is not west) it takes,
// among the productive directions left (east, north, south), the port with
// the most free downstream credits, ties at random.
// Deadlock freedom with one VC class: every west hop comes before any other
// hop, so no route turns into west; with those two turns (north -> west,
// south -> west) forbidden, the channel dependency graph of the mesh has no
// cycle.
#include <fmt/format.h>

#include "../../base/error.hpp"
#include "graph.hpp"

namespace nwn {
namespace {

class WestFirstRouting final : public GraphRouting<WestFirstRouting> {
 public:
  explicit WestFirstRouting(const RoutingContext& c)
      : GraphRouting(c, 1), s_(*static_cast<const GraphRoutingContext&>(c).torus) {}

  int port(Router& router, int r, int dst, Rng& rng, std::uint32_t&, const Flit&, int& cls) const {
    cls = 0;
    const int x = s_.coord(r, 0), dx = s_.coord(dst, 0), y = s_.coord(r, 1), dy = s_.coord(dst, 1);
    if (dx < x) return t_.net_begin[r] + s_.port(r, 0, -1);
    int best = -1, best_credits = -1;
    std::uint32_t ties = 0;
    auto consider = [&](int dim, int dir) {
      const int p = t_.net_begin[r] + s_.port(r, dim, dir);
      const int c = router.output_credits(t_.net_phys[p]);
      if (c > best_credits) {
        best = p;
        best_credits = c;
        ties = 1;
      } else if (c == best_credits && rng.below(++ties) == 0) {
        best = p;
      }
    };
    if (dx > x) consider(0, +1);
    if (dy != y) consider(1, dy > y ? +1 : -1);
    return best;
  }

 private:
  topo::TorusShape s_;
};

VcNeed west_first_classes(const RoutingContext& c) {
  const topo::TorusShape& s = *static_cast<const GraphRoutingContext&>(c).torus;
  if (s.dims() != 2) {
    std::string dims;
    for (int k : s.k) dims += (dims.empty() ? "" : ",") + std::to_string(k);
    throw ConfigError(fmt::format("config error: network.routing = west_first needs a 2-D mesh, but "
                                  "network.mesh.dims = '{}' has {} dimension(s) (allowed: two, e.g. '4,4')",
                                  dims, s.dims()));
  }
  return {1, "the west-first turn model needs no VC classes"};
}

RoutingRegistration reg_west_first({"graph", "west_first", "2-D mesh",
                                    "turn model: all west hops first, so no turn into west; the mesh's channel "
                                    "dependency graph is acyclic (one class)",
                                    [](const std::string& t) { return t == "mesh"; }, nullptr, west_first_classes,
                                    [](const RoutingContext& c) {
                                      return std::unique_ptr<GlobalRouting>(new WestFirstRouting(c));
                                    }});

}  // namespace
}  // namespace nwn

// dor: dimension-order routing on torus and mesh (their default), lowest
// dimension first, the shorter way around each ring (ties: +).
// Deadlock freedom: mesh: acyclic with one class. Torus: dateline scheme
// with 2 classes: class 0 until the packet takes the wraparound channel of
// the ring (k-1 -> 0 going +, 0 -> k-1 going -), class 1 from that channel
// on; the class resets to 0 when the packet turns into the next dimension.
// Within a ring, class 0 never uses the wraparound channel and class 1 never
// reaches it again (a minimal path goes at most half way around), so neither
// class closes a cycle; dimensions are taken in increasing order, so there
// are no cycles across dimensions. The class is computed from the source
// coordinate (the packet has wrapped if it is below it going +), so it needs
// no state.
#include "graph.hpp"

namespace nwn {
namespace {

class DorRouting final : public GraphRouting<DorRouting> {
 public:
  DorRouting(const RoutingContext& c, int classes)
      : GraphRouting(c, classes), s_(*static_cast<const GraphRoutingContext&>(c).torus) {
    check_ports();
  }

  int port(Router&, int r, int dst, Rng&, std::uint32_t&, const Flit& head, int& cls) const {
    const int src = t_.node_router[head.src];
    for (int i = 0; i < s_.dims(); ++i) {
      const int c = s_.coord(r, i), d = s_.coord(dst, i);
      if (c == d) continue;
      int dir = d > c ? +1 : -1;
      cls = 0;
      if (s_.wrap) {
        const int k = s_.k[i], delta = (d - c + k) % k, from = s_.coord(src, i);
        dir = 2 * delta <= k ? +1 : -1;
        const bool wrapped = dir > 0 ? (c == k - 1 || c < from) : (c == 0 || c > from);
        cls = wrapped ? 1 : 0;
      }
      return t_.net_begin[r] + s_.port(r, i, dir);
    }
    throw std::logic_error("dor: packet at its destination router");
  }

 private:
  // dor trusts the generator's port layout (sim/topo/torus.hpp); a mismatch is a bug.
  void check_ports() const {
    for (int r = 0; r < t_.routers; ++r)
      for (int i = 0; i < s_.dims(); ++i)
        for (int dir : {+1, -1}) {
          const int p = s_.port(r, i, dir);
          if ((p < 0) != (s_.step(r, i, dir) < 0) || (p >= 0 && t_.far[t_.net_begin[r] + p] != s_.step(r, i, dir)))
            throw std::logic_error("torus: router " + std::to_string(r) + " dimension " + std::to_string(i) +
                                   " port " + std::to_string(dir) + " does not match the graph");
        }
  }

  topo::TorusShape s_;
};

VcNeed dor_classes(const RoutingContext& c) {
  if (!static_cast<const GraphRoutingContext&>(c).torus->wrap) return {1, "dimension order on a mesh is acyclic"};
  return {2, "the dateline scheme: one class before and one after the wraparound channel of each ring"};
}

RoutingRegistration reg_dor({"graph", "dor", "torus and mesh, their default",
                             "dimension order; torus: dateline classes per ring (2 classes); mesh: acyclic",
                             topo::is_torus_topology, topo::is_torus_topology, dor_classes,
                             [](const RoutingContext& c) {
                               return std::unique_ptr<GlobalRouting>(new DorRouting(c, dor_classes(c).classes));
                             }});

}  // namespace
}  // namespace nwn

// valiant, ugal_l, ugal_g: routings of any graph topology through a random
// intermediate router, hop-indexed VC classes (sim/routing/graph.hpp), 2E
// classes (E: the largest distance from a router with terminals to any
// router).
//   valiant  at the source router, a uniformly random intermediate router
//            other than the source and destination routers; random minimal
//            ports to it, then to the destination.
//   ugal_l   UGAL with local information, decided once at the source router:
//            q_m = occupancy of the best minimal port toward the destination,
//            q_v = occupancy of the best minimal port toward a random
//            intermediate (as valiant); minimal when q_m x H_m <= q_v x H_v
//            (H = hops of the path: d(s, t), d(s, i) + d(i, t)). Occupancy =
//            downstream buffer space in use = router.vcs x
//            router.vc_depth_flits - output_credits (flits in the next
//            router's input buffer, on the channel, or whose credits are on
//            their way back). After the source: minad toward the current
//            target (intermediate, then destination).
//   ugal_g   UGAL with global information: as ugal_l, but the cost of a
//            candidate is the sum of the occupancies of every channel on it:
//            from the source, at each router the minimal port with the most
//            credits (what minad would take now), reading that router's
//            output_credits directly (one process, so every router's
//            counters are at hand). Minimal when Q_m <= Q_v. A router
//            earlier in the kernel's order may already have updated its
//            counters for this cycle: the reading is at most one cycle
//            stale. The kernel runs such a routing on one thread, cycle by
//            cycle (no blocks), in a fixed order (reads_other_routers), so
//            runs stay bit-reproducible.
// Per route: the router's minimal ports from its table of port sets (graph.hpp; ugal_g: of every router
// on the two candidate paths); no allocation after a router's first route.
#include "graph.hpp"

namespace nwn {
namespace {

enum class Choice { Valiant, UgalL, UgalG };

class IndirectRouting final : public GraphRouting<IndirectRouting> {
 public:
  IndirectRouting(const RoutingContext& c, Choice choice)
      : GraphRouting(c, indirect_path_classes(c).classes),
        choice_(choice),
        routers_(static_cast<const GraphRoutingContext&>(c).routers) {}

  bool reads_other_routers() const override { return choice_ == Choice::UgalG; }

  int port(Router& router, int r, int dst, Rng& rng, std::uint32_t& aux, const Flit&, int&) const {
    if ((aux & ~kGraphHopsMask) == 0) {  // at the source router: choose the path
      if (t_.routers <= 2) {
        aux |= kGraphPhaseBit;
      } else if (choice_ == Choice::UgalL) {
        return ugal_local(router, r, dst, rng, aux);
      } else {
        const int inter = random_intermediate(r, dst, rng);
        bool go_minimal = false;
        if (choice_ == Choice::UgalG)
          go_minimal = path_occupancy(r, dst) <= path_occupancy(r, inter) + path_occupancy(inter, dst);
        aux |= go_minimal ? kGraphPhaseBit : std::uint32_t(inter + 1) << kGraphInterShift;
      }
    }
    const int target = current_target(r, dst, aux);
    return choice_ == Choice::Valiant ? random_minimal(r, target, rng) : adaptive_minimal(router, r, target, &rng);
  }

 private:
  // Sum of occupancies along the path minad would take now from a to b (ugal_g).
  long path_occupancy(int a, int b) const {
    long q = 0;
    while (a != b) {
      const Router& router = *(*routers_)[a];
      const int p = adaptive_minimal(router, a, b, nullptr);
      q += occupancy(router, p);
      a = t_.far[p];
    }
    return q;
  }

  Choice choice_;
  const std::vector<std::unique_ptr<Router>>* routers_;
};

RoutingSpec indirect(const char* name, Choice choice) {
  return {"graph", name, "", "hop-indexed VC classes: every dependency goes from class h to h + 1 (acyclic)", nullptr,
          nullptr, indirect_path_classes, [choice](const RoutingContext& c) {
            return std::unique_ptr<GlobalRouting>(new IndirectRouting(c, choice));
          }};
}

RoutingRegistration reg_valiant(indirect("valiant", Choice::Valiant));
RoutingRegistration reg_ugal_l(indirect("ugal_l", Choice::UgalL));
RoutingRegistration reg_ugal_g(indirect("ugal_g", Choice::UgalG));

}  // namespace
}  // namespace nwn

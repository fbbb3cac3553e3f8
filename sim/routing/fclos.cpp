// random, deterministic, greedy2: the routings of the fclos network
// (up*/down*). At an ancestor of the destination go down port p_l;
// otherwise go up, which reaches a nearest common ancestor in the fewest
// hops whatever up port is taken:
//   random        : a uniformly random up port per hop (random NCA); the default
//   deterministic : up port = destination digit l (destination-mod-k)
//   greedy2       : two distinct random up ports, the one with more free
//                   downstream buffer space (the paper's adaptive greedy r(2))
// Deadlock-free with any VC: no path turns from down to up.
// Labels and logical ports: sim/topo/fclos.hpp.
#include "../../models/bits.hpp"
#include "../../models/rng.hpp"
#include "../../models/router.hpp"
#include "../topo/fclos.hpp"
#include "family.hpp"

namespace nwn {
namespace {

struct FclosRoutingContext : RoutingContext {
  topo::FclosShape shape;
  std::vector<int> phys;  // logical port -> physical port (down ports 0 .. h-1, up ports h .. 2h-1)
  int vcs = 1;
  std::uint64_t seed = 1;
};

enum class UpChoice { Random, Deterministic, Greedy2 };

// One class per up-port choice: random's route is then a leaf function
// (greedy2's reads of the router's credits made every route save and
// restore six registers).
template <UpChoice kChoice>
class FclosRouting final : public GlobalRouting {
 public:
  explicit FclosRouting(const FclosRoutingContext& c) : s_(c.shape), phys_(c.phys), vcs_(c.vcs) {
    here_.reserve(std::size_t(s_.routers()));
    for (int r = 0; r < s_.routers(); ++r) {
      const int level = r / s_.per_level, w = r % s_.per_level;
      // <w, l> is an ancestor of p when w_j = p_(j+1) for every j >= l:
      // when p lies in the span of power[l + 1] nodes from lo.
      here_.push_back({Rng(c.seed, 0x6663ULL << 32 | std::uint64_t(r)), w / s_.power[level] * s_.power[level + 1],
                       std::uint32_t(s_.power[level + 1]), bits::Divisor(s_.power[level])});
    }
  }

  // No division but by the router's precomputed power (a shift for a
  // power-of-two half radix): the level, the ancestor test and the digit
  // were five divisions a head (1-cycle fat tree: 63 instructions a route).
  void route(Router& router, int, Flit& head) override {
    Here& h = here_[std::size_t(router.id())];
    const int p = head.dst;
    int logical;
    if (std::uint32_t(p - h.lo) < h.span) {
      logical = h.down.quot(p - h.lo);  // the down digit p_l: p - lo is below h * power[l]
    } else {
      int u = 0;
      if (kChoice == UpChoice::Random) {
        u = int(h.rng.below(std::uint32_t(s_.h)));
      } else if (kChoice == UpChoice::Deterministic) {
        u = h.down.quot(p) % s_.h;
      } else {
        const int a = int(h.rng.below(std::uint32_t(s_.h)));
        int b = int(h.rng.below(std::uint32_t(s_.h - 1)));
        if (b >= a) ++b;
        u = router.output_credits(phys_[s_.h + b]) > router.output_credits(phys_[s_.h + a]) ? b : a;
      }
      logical = s_.h + u;
    }
    head.router_out = std::int16_t(phys_[logical]);
    head.router_vc_lo = 0;
    head.router_vc_hi = std::uint8_t(vcs_ - 1);
  }
  RouteDecision route_plain(Router& router, int in_port, Flit& head) override {
    FclosRouting::route(router, in_port, head);
    return router.plain_decision(in_port, head);
  }

 private:
  // A router's routing state in one line: its up-port stream, and where
  // its subtree's nodes start and how many there are.
  struct alignas(64) Here {
    Rng rng;
    int lo;
    std::uint32_t span;
    bits::Divisor down;  // power[level]
  };
  topo::FclosShape s_;
  std::vector<int> phys_;
  int vcs_;
  std::vector<Here> here_;
};

RoutingSpec fclos(const char* name, const char* note, UpChoice choice) {
  return {"fclos", name, note, "up*/down*: no path turns from down to up (any VC)", nullptr,
          [choice](const std::string&) { return choice == UpChoice::Random; },
          [](const RoutingContext& c) {
            // Two levels: every path is leaf, top, leaf, so an up link carries
            // first hops only and a down link second hops only: the links
            // index the hops (VcNeed::hop_indexed). With more levels a down
            // link carries packets that went up different heights.
            const bool two = static_cast<const FclosRoutingContext&>(c).shape.levels <= 2;
            return VcNeed{1, "up*/down* needs no VC classes", two};
          },
          [choice](const RoutingContext& c) -> std::unique_ptr<GlobalRouting> {
            const auto& fc = static_cast<const FclosRoutingContext&>(c);
            switch (choice) {
              case UpChoice::Random: return std::make_unique<FclosRouting<UpChoice::Random>>(fc);
              case UpChoice::Deterministic: return std::make_unique<FclosRouting<UpChoice::Deterministic>>(fc);
              case UpChoice::Greedy2: break;
            }
            return std::make_unique<FclosRouting<UpChoice::Greedy2>>(fc);
          }};
}

RoutingFamilyRegistration reg_family("fclos", [](const FamilyInput& in) {
  auto c = std::make_unique<FclosRoutingContext>();
  c->shape = topo::fclos_shape(in.cfg);
  c->phys = in.phys;
  c->vcs = in.vcs;
  c->seed = in.seed;
  return std::unique_ptr<RoutingContext>(std::move(c));
});

RoutingRegistration reg_random(fclos("random", "default", UpChoice::Random));
RoutingRegistration reg_deterministic(fclos("deterministic", "", UpChoice::Deterministic));
RoutingRegistration reg_greedy2(fclos("greedy2", "", UpChoice::Greedy2));

}  // namespace
}  // namespace nwn

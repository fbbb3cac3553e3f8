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

class FclosRouting final : public GlobalRouting {
 public:
  FclosRouting(const FclosRoutingContext& c, UpChoice choice) : s_(c.shape), choice_(choice), phys_(c.phys), vcs_(c.vcs) {
    for (int r = 0; r < s_.routers(); ++r) rng_.emplace_back(c.seed, 0x6663ULL << 32 | std::uint64_t(r));
  }

  void route(Router& router, int, Flit& head) override {
    const int id = router.id();
    const int level = id / s_.per_level, w = id % s_.per_level;
    const int p = head.dst;
    // <w, l> is an ancestor of p when w_j = p_(j+1) for every j >= l.
    const bool ancestor = w / s_.power[level] == p / s_.power[level + 1];
    int logical;
    if (ancestor) {
      logical = s_.digit(p, level);  // down port
    } else {
      int u = 0;
      Rng& rng = rng_[id];
      switch (choice_) {
        case UpChoice::Random: u = int(rng.below(std::uint32_t(s_.h))); break;
        case UpChoice::Deterministic: u = s_.digit(p, level); break;
        case UpChoice::Greedy2: {
          const int a = int(rng.below(std::uint32_t(s_.h)));
          int b = int(rng.below(std::uint32_t(s_.h - 1)));
          if (b >= a) ++b;
          u = router.output_credits(phys_[s_.h + b]) > router.output_credits(phys_[s_.h + a]) ? b : a;
          break;
        }
      }
      logical = s_.h + u;
    }
    head.router_out = std::int16_t(phys_[logical]);
    head.router_vc_lo = 0;
    head.router_vc_hi = std::uint8_t(vcs_ - 1);
  }

 private:
  topo::FclosShape s_;
  UpChoice choice_;
  std::vector<int> phys_;
  int vcs_;
  std::vector<Rng> rng_;
};

RoutingSpec fclos(const char* name, const char* note, UpChoice choice) {
  return {"fclos", name, note, "up*/down*: no path turns from down to up (any VC)", nullptr,
          [choice](const std::string&) { return choice == UpChoice::Random; },
          [](const RoutingContext&) { return VcNeed{1, "up*/down* needs no VC classes"}; },
          [choice](const RoutingContext& c) {
            return std::unique_ptr<GlobalRouting>(
                new FclosRouting(static_cast<const FclosRoutingContext&>(c), choice));
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

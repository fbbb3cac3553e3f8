// dor, minad, valiant, closad, dal: the routings of the hyperx network
// (HyperX paper §3.3) and why each is deadlock-free:
//   dor     dimension order: fix the lowest offset dimension first. A path
//           uses each dimension at most once and in increasing order, so
//           channel dependencies are acyclic: any VC. The default.
//   minad   minimal adaptive: any offset dimension, the one whose port has the
//           most free downstream buffer space. VC class = hops taken so far
//           (classes of router.vcs / L VCs): the class rises on every hop, so
//           dependencies are acyclic. Needs router.vcs >= L.
//   valiant a random intermediate router chosen at the source; dimension
//           order to it (VC class 0), then dimension order to the destination
//           (class 1). Needs router.vcs >= 2.
//   closad  at the source, minimal dimension order or Valiant, whichever has
//           the smaller (hops x queue) estimate on its first hop (Kim, Dally
//           and Abts' Clos-AD decides at the source; its intermediate is
//           drawn from a folded-Clos mapping, ours uniformly); VCs as valiant.
//   dal     at each router: an offset dimension whose minimal port has room;
//           otherwise deroute in an offset dimension not derouted before to a
//           random other coordinate with room; otherwise dimension order.
//           At most one deroute per dimension, so at most 2L hops; VC class =
//           hops taken (classes of router.vcs / 2L VCs), acyclic as for
//           minad. Needs router.vcs >= 2L (the paper used 6 VCs for L = 3).
//           This replaces the paper's escape-VC scheme, which our routing
//           (computed once per hop) could not guarantee deadlock-free.
// Coordinates and logical ports: sim/topo/hyperx.hpp.
#include <algorithm>

#include "../../models/rng.hpp"
#include "../../models/router.hpp"
#include "../topo/hyperx.hpp"
#include "family.hpp"

namespace nwn {
namespace {

struct HyperXRoutingContext : RoutingContext {
  topo::HyperXShape shape;
  std::vector<int> phys;  // logical port -> physical port
  int vcs = 1;
  std::uint64_t seed = 1;
};

enum class Algo { Dor, MinAd, Valiant, ClosAd, Dal };

// route_aux bits: 0-7 hops taken, 8-15 derouted dimensions (dal),
// 16 phase (valiant/closad: 1 = toward the destination), 17-31 intermediate router.
constexpr int kPhaseBit = 16, kInterShift = 17;

class HyperXRouting final : public GlobalRouting {
 public:
  HyperXRouting(const HyperXRoutingContext& c, Algo algo) : sh_(c.shape), algo_(algo), phys_(c.phys), vcs_(c.vcs) {
    for (int r = 0; r < sh_.routers; ++r) rng_.emplace_back(c.seed, 0x6878ULL << 32 | std::uint64_t(r));
  }

  // Router::route's common case with this route inlined (GlobalRouting::route_plain).
  RouteDecision route_plain(Router& router, int in_port, Flit& head) override {
    HyperXRouting::route(router, in_port, head);
    return router.plain_decision(in_port, head);
  }

  void route(Router& router, int in_port, Flit& head) override {
    const int r = router.id();
    const int dst_router = head.dst / sh_.t;
    Rng& rng = rng_[r];
    if (in_port == phys_[head.src % sh_.t] && head.src / sh_.t == r) head.route_aux = 0;  // at the source router
    std::uint32_t aux = std::uint32_t(head.route_aux);
    const int hops = int(aux & 0xff);
    if (r == dst_router) {
      finish(head, head.dst % sh_.t, 0, vcs_ - 1);
      return;
    }
    int logical = -1, cls = 0, classes = 1;
    switch (algo_) {
      case Algo::Dor: logical = dor_port(r, dst_router, rng); break;
      case Algo::MinAd:
        logical = best_minimal_port(router, r, dst_router, rng);
        cls = hops;
        classes = int(sh_.s.size());
        break;
      case Algo::Valiant:
      case Algo::ClosAd: {
        if (hops == 0 && !(aux >> kPhaseBit & 1) && (aux >> kInterShift) == 0) {
          const int inter = int(rng.below(std::uint32_t(sh_.routers)));
          bool minimal = algo_ == Algo::ClosAd && prefer_minimal(router, r, inter, dst_router, rng);
          aux = minimal || inter == r ? (1u << kPhaseBit) : (std::uint32_t(inter) << kInterShift);
        }
        int target = (aux >> kPhaseBit & 1) ? dst_router : int(aux >> kInterShift);
        if (target == r) {  // reached the intermediate router
          aux |= 1u << kPhaseBit;
          target = dst_router;
        }
        logical = dor_port(r, target, rng);
        cls = int(aux >> kPhaseBit & 1);
        classes = 2;
        break;
      }
      case Algo::Dal: {
        logical = dal_port(router, r, dst_router, rng, aux);
        cls = hops;
        classes = 2 * int(sh_.s.size());
        break;
      }
    }
    const int per = vcs_ / classes;
    aux = (aux & ~0xffu) | std::uint32_t(hops + 1);
    head.route_aux = std::int32_t(aux);
    finish(head, logical, cls * per, cls * per + per - 1);
  }

 private:
  void finish(Flit& head, int logical, int lo, int hi) {
    head.router_out = std::int16_t(phys_[logical]);
    head.router_vc_lo = std::uint8_t(lo);
    head.router_vc_hi = std::uint8_t(hi);
  }
  int copy(Rng& rng) const { return sh_.k == 1 ? 0 : int(rng.below(std::uint32_t(sh_.k))); }
  int dor_port(int r, int target, Rng& rng) const {
    for (std::size_t i = 0; i < sh_.s.size(); ++i)
      if (sh_.coord(r, int(i)) != sh_.coord(target, int(i)))
        return sh_.port(r, int(i), sh_.coord(target, int(i)), copy(rng));
    return -1;
  }
  int credits(Router& router, int logical) const { return router.output_credits(phys_[logical]); }
  int best_minimal_port(Router& router, int r, int target, Rng& rng) const {
    int best = -1, best_credits = -1;
    for (std::size_t i = 0; i < sh_.s.size(); ++i) {
      if (sh_.coord(r, int(i)) == sh_.coord(target, int(i))) continue;
      const int p = sh_.port(r, int(i), sh_.coord(target, int(i)), copy(rng));
      const int c = credits(router, p);
      if (c > best_credits) {
        best = p;
        best_credits = c;
      }
    }
    return best;
  }
  bool prefer_minimal(Router& router, int r, int inter, int dst, Rng& rng) const {
    const int min_hops = sh_.hops(r, dst), val_hops = sh_.hops(r, inter) + sh_.hops(inter, dst);
    const int min_port = dor_port(r, dst, rng), val_port = dor_port(r, inter, rng);
    if (val_port < 0) return true;
    // Queue estimate: buffer space in use behind the first hop.
    const int cap = 1 << 16;
    const long q_min = cap - credits(router, min_port), q_val = cap - credits(router, val_port);
    return q_min * min_hops <= q_val * val_hops;
  }
  int dal_port(Router& router, int r, int dst, Rng& rng, std::uint32_t& aux) const {
    const int need = 1;
    // 1. an offset dimension whose minimal port has room (most room first)
    const int p = best_minimal_port(router, r, dst, rng);
    if (credits(router, p) >= need) return p;
    // 2. deroute once in an unmarked offset dimension to a coordinate with room
    for (std::size_t i = 0; i < sh_.s.size(); ++i) {
      const int cur = sh_.coord(r, int(i)), want = sh_.coord(dst, int(i));
      if (cur == want || (aux >> (8 + i) & 1) || sh_.s[i] < 3) continue;
      int v = int(rng.below(std::uint32_t(sh_.s[i] - 2)));
      for (int x : {std::min(cur, want), std::max(cur, want)})
        if (v >= x) ++v;
      const int q = sh_.port(r, int(i), v, copy(rng));
      if (credits(router, q) >= need) {
        aux |= 1u << (8 + i);
        return q;
      }
    }
    // 3. dimension order
    return dor_port(r, dst, rng);
  }

  topo::HyperXShape sh_;
  Algo algo_;
  std::vector<int> phys_;
  int vcs_;
  std::vector<Rng> rng_;
};

// VC classes of each routing on an L-dimensional HyperX.
int classes(Algo algo, int dims) {
  switch (algo) {
    case Algo::Dor: return 1;
    case Algo::MinAd: return dims;
    case Algo::Dal: return 2 * dims;
    case Algo::Valiant:
    case Algo::ClosAd: break;
  }
  return 2;
}

RoutingSpec hyperx(const char* name, const char* note, const char* deadlock, Algo algo) {
  return {"hyperx", name, note, deadlock, nullptr, [algo](const std::string&) { return algo == Algo::Dor; },
          [algo](const RoutingContext& c) {
            const int dims = int(static_cast<const HyperXRoutingContext&>(c).shape.s.size());
            // minad and dal: class = hops taken; dor none, valiant and closad one per phase.
            // In one dimension dor takes one router-to-router hop at most: its
            // one class is the hop's (as minad's there, whose routes it gives).
            const bool hops = algo == Algo::MinAd || algo == Algo::Dal || (algo == Algo::Dor && dims == 1);
            return VcNeed{classes(algo, dims), "one class per hop for deadlock freedom", hops};
          },
          [algo](const RoutingContext& c) {
            return std::unique_ptr<GlobalRouting>(new HyperXRouting(static_cast<const HyperXRoutingContext&>(c), algo));
          }};
}

RoutingFamilyRegistration reg_family("hyperx", [](const FamilyInput& in) {
  auto c = std::make_unique<HyperXRoutingContext>();
  c->shape = topo::hyperx_shape(in.cfg);
  c->phys = in.phys;
  c->vcs = in.vcs;
  c->seed = in.seed;
  return std::unique_ptr<RoutingContext>(std::move(c));
});

RoutingRegistration reg_dor(hyperx("dor", "default", "dimensions in increasing order, each once: acyclic (any VC)",
                                   Algo::Dor));
RoutingRegistration reg_minad(hyperx("minad", "", "VC class = hops taken (L classes): acyclic", Algo::MinAd));
RoutingRegistration reg_valiant(hyperx("valiant", "", "dimension order in each phase, one class per phase",
                                       Algo::Valiant));
RoutingRegistration reg_closad(hyperx("closad", "", "as valiant: one class per phase", Algo::ClosAd));
RoutingRegistration reg_dal(hyperx("dal", "", "at most one deroute per dimension; VC class = hops (2L classes)",
                                   Algo::Dal));

}  // namespace
}  // namespace nwn

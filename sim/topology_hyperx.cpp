// hyperx: HyperX (L, S, K, T) (Ahn et al. 2009): routers on an L-dimensional
// lattice with S_i routers in dimension i, every router joined to every other
// router that differs in one coordinate by K parallel links, T terminals per
// router. Router radix T + sum_i (S_i - 1) K; router.radix may be larger (the
// extra ports stay unused). A flattened butterfly is a HyperX with K = 1.
//
// Logical ports: terminals 0..T-1, then for each dimension i, for each other
// coordinate v (in increasing order), K ports.
//
// Routing (HyperX paper §3.3) and deadlock freedom:
//   dor     dimension order: fix the lowest offset dimension first. A path
//           uses each dimension at most once and in increasing order, so
//           channel dependencies are acyclic: any VC.
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
#include <fmt/format.h>

#include <sstream>

#include "../models/rng.hpp"
#include "network.hpp"

namespace nwn {
namespace {

enum class Algo { Dor, MinAd, Valiant, ClosAd, Dal };

struct Shape {
  std::vector<int> s;  // routers per dimension
  int k = 1, t = 1;
  std::vector<int> stride, offset;  // coordinate strides; first logical port of each dimension
  int routers = 1, ports = 0;

  int coord(int r, int i) const { return (r / stride[i]) % s[i]; }
  int with_coord(int r, int i, int v) const { return r + (v - coord(r, i)) * stride[i]; }
  // Logical port from router r toward coordinate v in dimension i, copy c.
  int port(int r, int i, int v, int c) const {
    const int cur = coord(r, i);
    return offset[i] + (v < cur ? v : v - 1) * k + c;
  }
  int hops(int a, int b) const {
    int h = 0;
    for (std::size_t i = 0; i < s.size(); ++i) h += coord(a, int(i)) != coord(b, int(i));
    return h;
  }
};

// route_aux bits: 0-7 hops taken, 8-15 derouted dimensions (dal),
// 16 phase (valiant/closad: 1 = toward the destination), 17-31 intermediate router.
constexpr int kPhaseBit = 16, kInterShift = 17;

class HyperXRouting final : public GlobalRouting {
 public:
  HyperXRouting(Shape shape, Algo algo, std::vector<int> phys, int vcs, std::uint64_t seed)
      : sh_(std::move(shape)), algo_(algo), phys_(std::move(phys)), vcs_(vcs) {
    for (int r = 0; r < sh_.routers; ++r) rng_.emplace_back(seed, 0x6878ULL << 32 | std::uint64_t(r));
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

  Shape sh_;
  Algo algo_;
  std::vector<int> phys_;
  int vcs_;
  std::vector<Rng> rng_;
};

Shape parse_shape(const Config& cfg) {
  Shape sh;
  const std::string& text = cfg.get_string("network.hyperx_s");
  for (std::int64_t v : int_list(cfg, "network.hyperx_s", 2, 4096, "routers per dimension")) sh.s.push_back(int(v));
  if (sh.s.empty() || sh.s.size() > 8)
    throw ConfigError("config error: network.hyperx_s = '" + text + "': needs 1 to 8 dimensions");
  sh.k = int(cfg.get_int("network.hyperx_k"));
  sh.t = int(cfg.get_int("network.hyperx_t"));
  sh.ports = sh.t;
  double routers = 1;
  for (int s : sh.s) {
    sh.stride.push_back(sh.routers);
    sh.offset.push_back(sh.ports);
    routers *= s;
    if (routers * sh.t > 4e6) throw ConfigError("config error: network.hyperx_s = '" + text + "': over 4,000,000 nodes");
    sh.routers *= s;
    sh.ports += (s - 1) * sh.k;
  }
  return sh;
}

class HyperXNetwork final : public Network {
 public:
  HyperXNetwork(const Config& cfg, const Clock& clock) : Network(cfg, clock) {
    const Shape sh = parse_shape(cfg);
    const int radix = int(cfg.get_int("router.radix"));
    if (radix < sh.ports)
      throw ConfigError(fmt::format("config error: router.radix = {}: HyperX ({}) with K = {} and T = {} needs at "
                                    "least {} ports",
                                    radix, cfg.get_string("network.hyperx_s"), sh.k, sh.t, sh.ports));
    const std::string& name = cfg.get_string("network.routing");
    const int vcs = int(cfg.get_int("router.vcs"));
    const int L = int(sh.s.size());
    Algo algo;
    if (name == "auto" || name == "dor") algo = Algo::Dor;
    else if (name == "minad") algo = Algo::MinAd;
    else if (name == "valiant") algo = Algo::Valiant;
    else if (name == "closad") algo = Algo::ClosAd;
    else if (name == "dal") algo = Algo::Dal;
    else
      throw ConfigError("config error: network.routing = '" + name +
                        "' does not apply to hyperx; use dor, minad, valiant, closad or dal");
    const int classes = algo == Algo::MinAd ? L : algo == Algo::Dal ? 2 * L : (algo == Algo::Dor ? 1 : 2);
    if (vcs < classes)
      throw ConfigError(fmt::format("config error: router.vcs = {}: network.routing = {} on a {}-dimensional HyperX "
                                    "needs at least {} VCs (one class per hop for deadlock freedom)",
                                    vcs, name, L, classes));
    check_route_vcs(cfg, classes, fmt::format("network.routing = {} on a {}-dimensional HyperX", name, L));
    std::vector<int> groups{sh.t};
    for (int s : sh.s) groups.push_back((s - 1) * sh.k);
    const std::vector<int> phys = port_map(cfg.get_string("network.port_assignment"), groups, radix);
    make_endpoints(cfg, sh.routers * sh.t);
    const RouterParams rp = router_params(cfg, radix);
    routing_.push_back(
        std::make_unique<HyperXRouting>(sh, algo, phys, vcs, std::uint64_t(cfg.get_int("sim.seed"))));
    for (int r = 0; r < sh.routers; ++r)
      routers_.push_back(
          std::make_unique<Router>(fmt::format("r{}", r).c_str(), r, rp, routing_.back().get(), clock_));
    for (int n = 0; n < sh.routers * sh.t; ++n) attach_terminal(n, *routers_[n / sh.t], phys[n % sh.t]);
    for (int r = 0; r < sh.routers; ++r)
      for (int i = 0; i < L; ++i)
        for (int v = sh.coord(r, i) + 1; v < sh.s[i]; ++v) {
          const int other = sh.with_coord(r, i, v);
          for (int c = 0; c < sh.k; ++c)
            connect(*routers_[r], phys[sh.port(r, i, v, c)], *routers_[other],
                    phys[sh.port(other, i, sh.coord(r, i), c)], cfg);
        }
    enable_heatmaps_if(cfg);
  }
};

TopologyRegistration reg_hyperx("hyperx", [](const Config& cfg, const Clock& clock) {
  return std::unique_ptr<Network>(new HyperXNetwork(cfg, clock));
}, {"auto", "dor", "minad", "valiant", "closad", "dal"});

}  // namespace
}  // namespace nwn

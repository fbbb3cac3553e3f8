// fclos: a folded Clos (k-ary n-tree) of radix-k routers, (k/2)^n nodes, n
// levels of (k/2)^(n-1) routers. In every router the lower half of the
// logical ports face down and the upper half up (top routers leave their up
// ports unused), as in the NWN paper §4.
//
// Labels (Petrini and Vanneschi): router <w, l> has level l (0 = leaf) and a
// label w of n-1 base-h digits (h = k/2). Node p hangs from leaf <p / h, 0>
// at down port p mod h. Up port u of <w, l> leads to <w with digit l set to
// u, l+1>, arriving at its down port w_l. <w, l> is an ancestor of node p
// when w_j = p_(j+1) for every j >= l.
//
// Routing (up*/down*, deadlock-free with any VC because no path turns from
// down to up): at an ancestor of the destination go down port p_l;
// otherwise go up, which reaches a nearest common ancestor in the fewest
// hops whatever up port is taken:
//   random        : a uniformly random up port per hop (random NCA)
//   deterministic : up port = destination digit l (destination-mod-k)
//   greedy2       : two distinct random up ports, the one with more free
//                   downstream buffer space (the paper's adaptive greedy r(2))
#include <fmt/format.h>

#include "../models/rng.hpp"
#include "network.hpp"

namespace nwn {
namespace {

enum class UpChoice { Random, Deterministic, Greedy2 };

struct FclosShape {
  int h = 16;      // half radix
  int levels = 3;  // n
  int per_level = 0;
  std::vector<int> power;  // h^j, j = 0 .. levels
  void set(int half_radix, int n) {
    h = half_radix;
    levels = n;
    power.assign(n + 1, 1);
    for (int j = 1; j <= n; ++j) power[j] = power[j - 1] * h;
    per_level = power[n - 1];
  }
  int digit(int x, int j) const { return x / power[j] % h; }
  int set_digit(int x, int j, int v) const { return x + (v - digit(x, j)) * power[j]; }
};

class FclosRouting final : public GlobalRouting {
 public:
  FclosRouting(const FclosShape& s, UpChoice choice, std::vector<int> phys, int vcs, std::uint64_t seed, int routers)
      : s_(s), choice_(choice), phys_(std::move(phys)), vcs_(vcs) {
    for (int r = 0; r < routers; ++r) rng_.emplace_back(seed, 0x6663ULL << 32 | std::uint64_t(r));
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
  FclosShape s_;
  UpChoice choice_;
  std::vector<int> phys_;
  int vcs_;
  std::vector<Rng> rng_;
};

class FclosNetwork final : public Network {
 public:
  FclosNetwork(const Config& cfg, const Clock& clock) : Network(cfg, clock) {
    const int k = int(cfg.get_int("router.radix"));
    if (k % 2 != 0 || k < 4)
      throw ConfigError(fmt::format("config error: router.radix = {}: fclos needs an even radix >= 4", k));
    const int levels = int(cfg.get_int("network.fclos_levels"));
    double nodes_d = 1;
    for (int i = 0; i < levels; ++i) nodes_d *= k / 2;
    if (nodes_d > 4e6)
      throw ConfigError(fmt::format("config error: fclos with router.radix = {} and network.fclos_levels = {} has {} "
                                    "nodes; at most 4,000,000 are allowed",
                                    k, levels, nodes_d));
    FclosShape s;
    s.set(k / 2, levels);
    const int nodes = s.power[levels];
    const std::string& routing = cfg.get_string("network.routing");
    UpChoice choice;
    if (routing == "auto" || routing == "random") choice = UpChoice::Random;
    else if (routing == "deterministic") choice = UpChoice::Deterministic;
    else if (routing == "greedy2") choice = UpChoice::Greedy2;
    else
      throw ConfigError("config error: network.routing = '" + routing +
                        "' does not apply to fclos; use random, deterministic or greedy2");
    const std::vector<int> phys = port_map(cfg.get_string("network.port_assignment"), {s.h, s.h}, k);
    make_endpoints(cfg, nodes);
    const RouterParams rp = router_params(cfg, k);
    const int routers = s.levels * s.per_level;
    routing_.push_back(std::make_unique<FclosRouting>(s, choice, phys, rp.vcs,
                                                      std::uint64_t(cfg.get_int("sim.seed")), routers));
    for (int r = 0; r < routers; ++r)
      routers_.push_back(std::make_unique<Router>(fmt::format("r{}_{}", r / s.per_level, r % s.per_level).c_str(), r,
                                                  rp, routing_.back().get(), clock_));
    for (int p = 0; p < nodes; ++p) attach_terminal(p, *routers_[p / s.h], phys[p % s.h]);
    for (int l = 0; l + 1 < s.levels; ++l)
      for (int w = 0; w < s.per_level; ++w)
        for (int u = 0; u < s.h; ++u) {
          Router& lower = *routers_[l * s.per_level + w];
          Router& upper = *routers_[(l + 1) * s.per_level + s.set_digit(w, l, u)];
          connect(lower, phys[s.h + u], upper, phys[s.digit(w, l)], cfg);
        }
    enable_heatmaps_if(cfg);
  }
};

TopologyRegistration reg_fclos("fclos", [](const Config& cfg, const Clock& clock) {
  return std::unique_ptr<Network>(new FclosNetwork(cfg, clock));
}, {"auto", "random", "deterministic", "greedy2"});

}  // namespace
}  // namespace nwn

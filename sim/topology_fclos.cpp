// fclos: a folded Clos (k-ary n-tree) of radix-k routers, (k/2)^n nodes, n
// levels of (k/2)^(n-1) routers. In every router the lower half of the
// logical ports face down and the upper half up (top routers leave their up
// ports unused), as in the NWN paper §4.
//
// Labels and the routings (random, deterministic, greedy2; up*/down*):
// sim/routing/fclos.hpp and sim/routing/fclos.cpp.
#include <fmt/format.h>

#include "network.hpp"
#include "routing/fclos.hpp"

namespace nwn {
namespace {

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
    const RoutingSpec& routing = find_routing("fclos", cfg.get_string("network.routing"));
    const std::vector<int> phys = port_map(cfg.get_string("network.port_assignment"), {s.h, s.h}, k);
    make_endpoints(cfg, nodes);
    const RouterParams rp = router_params(cfg, k);
    const int routers = s.levels * s.per_level;
    FclosRoutingContext ctx;
    ctx.shape = s;
    ctx.phys = phys;
    ctx.vcs = rp.vcs;
    ctx.routers = routers;
    ctx.seed = std::uint64_t(cfg.get_int("sim.seed"));
    routing_.push_back(routing.make(ctx));
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
});

}  // namespace
}  // namespace nwn

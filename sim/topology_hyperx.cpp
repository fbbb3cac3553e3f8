// hyperx: HyperX (L, S, K, T) (Ahn et al. 2009): routers on an L-dimensional
// lattice with S_i routers in dimension i, every router joined to every other
// router that differs in one coordinate by K parallel links, T terminals per
// router. Router radix T + sum_i (S_i - 1) K; router.radix may be larger (the
// extra ports stay unused). A flattened butterfly is a HyperX with K = 1.
//
// The routings (dor, minad, valiant, closad, dal) and why each is
// deadlock-free: sim/routing/hyperx.cpp.
#include <fmt/format.h>

#include <sstream>

#include "network.hpp"
#include "routing/hyperx.hpp"

namespace nwn {
namespace {

HyperXShape parse_shape(const Config& cfg) {
  HyperXShape sh;
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
    const HyperXShape sh = parse_shape(cfg);
    const int radix = int(cfg.get_int("router.radix"));
    if (radix < sh.ports)
      throw ConfigError(fmt::format("config error: router.radix = {}: HyperX ({}) with K = {} and T = {} needs at "
                                    "least {} ports",
                                    radix, cfg.get_string("network.hyperx_s"), sh.k, sh.t, sh.ports));
    const std::string& name = cfg.get_string("network.routing");
    const int vcs = int(cfg.get_int("router.vcs"));
    const int L = int(sh.s.size());
    const RoutingSpec& routing = find_routing("hyperx", name);
    HyperXRoutingContext ctx;
    ctx.shape = sh;
    ctx.vcs = vcs;
    ctx.seed = std::uint64_t(cfg.get_int("sim.seed"));
    const VcNeed need = routing.vc_need(ctx);
    if (vcs < need.classes)
      throw ConfigError(fmt::format("config error: router.vcs = {}: network.routing = {} on a {}-dimensional HyperX "
                                    "needs at least {} VCs ({})",
                                    vcs, name, L, need.classes, need.why));
    check_route_vcs(cfg, need.classes, fmt::format("network.routing = {} on a {}-dimensional HyperX", name, L));
    std::vector<int> groups{sh.t};
    for (int s : sh.s) groups.push_back((s - 1) * sh.k);
    const std::vector<int> phys = port_map(cfg.get_string("network.port_assignment"), groups, radix);
    make_endpoints(cfg, sh.routers * sh.t);
    const RouterParams rp = router_params(cfg, radix);
    ctx.phys = phys;
    routing_.push_back(routing.make(ctx));
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
});

}  // namespace
}  // namespace nwn

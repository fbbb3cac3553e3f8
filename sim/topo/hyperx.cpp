// hyperx: the HyperX of hyperx.hpp as a graph. It reads the keys of the base
// schema (network.hyperx_s, hyperx_k, hyperx_t, router.radix) and declares
// none. Router ids are lattice positions (dimension 0 fastest); ports as in
// hyperx.hpp, in groups for network.port_assignment: the terminals, then
// one group per dimension.
#include "hyperx.hpp"

#include <fmt/format.h>

#include "graph.hpp"

namespace nwn::topo {

HyperXShape hyperx_shape(const Config& cfg) {
  const std::string& text = cfg.get_string("network.hyperx_s");
  HyperXShape sh;
  for (std::int64_t v : int_list(cfg, "network.hyperx_s", 2, 4096, "routers per dimension")) sh.s.push_back(int(v));
  if (sh.s.empty() || sh.s.size() > 8)
    throw ConfigError("config error: network.hyperx_s = '" + text + "': needs 1 to 8 dimensions");
  sh.k = int(cfg.get_int("network.hyperx_k"));
  sh.t = int(cfg.get_int("network.hyperx_t"));
  std::int64_t routers = 1, ports = sh.t;
  for (int x : sh.s) {
    routers = size_mul(routers, x);
    ports = size_add(ports, size_mul(x - 1, sh.k));
  }
  check_size(key_values(cfg, {"network.hyperx_s", "network.hyperx_k", "network.hyperx_t"}), routers,
             size_mul(routers, sh.t), size_mul(routers, ports - sh.t));
  const int radix = int(cfg.get_int("router.radix"));
  if (radix < ports)
    throw ConfigError(fmt::format("config error: router.radix = {}: HyperX ({}) with K = {} and T = {} needs at "
                                  "least {} ports",
                                  radix, text, sh.k, sh.t, ports));
  sh.routers = 1;
  sh.ports = sh.t;
  for (int x : sh.s) {
    sh.stride.push_back(sh.routers);
    sh.offset.push_back(sh.ports);
    sh.routers *= x;
    sh.ports += (x - 1) * sh.k;
  }
  return sh;
}

namespace {

Graph build_hyperx(const Config& cfg) {
  const HyperXShape sh = hyperx_shape(cfg);
  const int L = int(sh.s.size());
  Graph g;
  g.name = fmt::format("hyperx S=({}) K={} T={}", cfg.get_string("network.hyperx_s"), sh.k, sh.t);
  g.terminals.assign(std::size_t(sh.routers), sh.t);
  g.links.assign(std::size_t(sh.routers), {});
  g.port_groups = {sh.t};
  for (int x : sh.s) g.port_groups.push_back((x - 1) * sh.k);
  for (int r = 0; r < sh.routers; ++r)
    for (int i = 0; i < L; ++i)
      for (int v = 0; v < sh.s[i]; ++v)
        if (v != sh.coord(r, i))
          for (int c = 0; c < sh.k; ++c) g.links[r].push_back(sh.with_coord(r, i, v));
  return g;
}

GraphTopology hyperx_topology() {
  GraphTopology t{"hyperx", "HyperX (L, S, K, T): network.hyperx_s, hyperx_k, hyperx_t, router.radix", {},
                  build_hyperx};
  t.routing_family = "hyperx";
  return t;
}

GraphTopologyRegistration reg_hyperx(hyperx_topology());

}  // namespace
}  // namespace nwn::topo

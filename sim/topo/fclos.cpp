// fclos: the folded Clos of fclos.hpp as a graph. It reads router.radix = k
// and network.fclos_levels = n (keys of the base schema) and declares none.
// Every router's logical ports fall in two groups for
// network.port_assignment, down and up; a top router keeps the places of
// its missing up ports. Group label: the level l. Routers are named
// r<l>_<w>.
#include "fclos.hpp"

#include <fmt/format.h>

#include "graph.hpp"

namespace nwn::topo {

FclosShape fclos_shape(const Config& cfg) {
  const int k = int(cfg.get_int("router.radix"));
  const int n = int(cfg.get_int("network.fclos_levels"));
  if (k % 2 != 0 || k < 4)
    throw ConfigError(fmt::format("config error: router.radix = {}: fclos needs an even radix >= 4", k));
  const int h = k / 2;
  // (k/2)^n nodes, n levels of (k/2)^(n-1) routers, k/2 up and k/2 down ports each below the top.
  std::int64_t nodes = 1;
  for (int i = 0; i < n; ++i) nodes = size_mul(nodes, h);
  check_size(key_values(cfg, {"router.radix", "network.fclos_levels"}), size_mul(nodes / h, n), nodes,
             size_mul(size_mul(nodes / h, n - 1), k));
  FclosShape s;
  s.set(h, n);
  return s;
}

namespace {

Graph build_fclos(const Config& cfg) {
  const FclosShape s = fclos_shape(cfg);
  Graph g;
  g.name = fmt::format("fclos k={} n={}", 2 * s.h, s.levels);
  g.terminals.assign(s.routers(), 0);
  g.links.assign(s.routers(), {});
  g.group.assign(s.routers(), 0);
  g.port_groups = {s.h, s.h};
  for (int l = 0; l < s.levels; ++l)
    for (int w = 0; w < s.per_level; ++w) {
      const int r = l * s.per_level + w;
      g.group[r] = l;
      if (l == 0) g.terminals[r] = s.h;
      else g.links[r].assign(s.h, -1);
    }
  for (int l = 0; l + 1 < s.levels; ++l)
    for (int w = 0; w < s.per_level; ++w)
      for (int u = 0; u < s.h; ++u) {
        const int upper = (l + 1) * s.per_level + s.set_digit(w, l, u);
        g.links[l * s.per_level + w].push_back(upper);
        g.links[upper][s.digit(w, l)] = l * s.per_level + w;
      }
  return g;
}

GraphTopology fclos_topology() {
  GraphTopology t{"fclos", "folded Clos (k-ary n-tree): router.radix, network.fclos_levels", {}, build_fclos};
  t.routing_family = "fclos";
  t.router_name = [](const Graph& g, int r) {
    const int per_level = g.routers() / (g.group.back() + 1);
    return fmt::format("r{}_{}", r / per_level, r % per_level);
  };
  return t;
}

GraphTopologyRegistration reg_fclos(fclos_topology());

}  // namespace
}  // namespace nwn::topo

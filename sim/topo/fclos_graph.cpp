// fclos (graph): the router graph of the folded Clos network of
// sim/topology_fclos.cpp, for `nwnsim topo analyze`. It reads that network's
// keys (router.radix = k, network.fclos_levels = n) and declares none.
// Router <w, l> has id l*(k/2)^(n-1) + w as in FclosNetwork; its ports are its
// logical ports there: down ports 0 .. k/2-1 (terminals at the leaves), then
// up port u leading to <w with digit l set to u, l+1>. Top routers have only
// their k/2 down ports. Group label: the level l.
#include <fmt/format.h>

#include "graph.hpp"

namespace nwn::topo {
namespace {

Graph build_fclos(const Config& cfg) {
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
  const int per_level = int(nodes) / h;
  auto pow_h = [h](int j) {
    int p = 1;
    for (int i = 0; i < j; ++i) p *= h;
    return p;
  };
  auto digit = [&](int x, int j) { return x / pow_h(j) % h; };
  Graph g;
  g.name = fmt::format("fclos k={} n={}", k, n);
  g.terminals.assign(n * per_level, 0);
  g.links.assign(n * per_level, {});
  g.group.assign(n * per_level, 0);
  for (int l = 0; l < n; ++l)
    for (int w = 0; w < per_level; ++w) {
      const int r = l * per_level + w;
      g.group[r] = l;
      if (l == 0) g.terminals[r] = h;
      else g.links[r].assign(h, -1);
    }
  for (int l = 0; l + 1 < n; ++l)
    for (int w = 0; w < per_level; ++w)
      for (int u = 0; u < h; ++u) {
        const int upper = (l + 1) * per_level + w + (u - digit(w, l)) * pow_h(l);
        g.links[l * per_level + w].push_back(upper);
        g.links[upper][digit(w, l)] = l * per_level + w;
      }
  return g;
}

GraphTopologyRegistration reg_fclos_graph(GraphTopology{
    "fclos", "folded Clos (k-ary n-tree) of the fclos network: router.radix, network.fclos_levels", {}, build_fclos});

}  // namespace
}  // namespace nwn::topo

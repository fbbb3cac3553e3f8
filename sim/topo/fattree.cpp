// fattree: a (tapered) fat tree of radix-k routers in n levels, built as an
// extended generalized fat tree: level i has down_i ports toward level i-1
// (terminals at level 0) and up_i ports toward level i+1:
//   level 0 (leaves): down_0 = network.fattree.down (k/2 untapered), up_0 = k - down_0
//   levels 1 .. n-2: down = up = k/2
//   level n-1 (top):  down = k/2, or k with network.fattree.full_top (up = 0)
// Routers per level i: prod_{j<i} up_j * prod_{j>i} down_j; terminals
// prod_j down_j. Untapered it is the k-ary n-tree of sim/topo/fclos.cpp
// ((k/2)^n terminals, (k/2)^(n-1) routers per level); with full_top, the
// fat tree of the Slim Fly comparisons (n = 3: k^3/4 terminals, 5k^2/4
// routers). A taper down_0 : up_0 > 1 oversubscribes the leaves.
//
// Router (a, b) of level i (a < prod_{j<i} up_j, b < prod_{j>i} down_j) has
// id offset_i + a * prod_{j>i} down_j + b. Its up port u leads to router
// (a + u * prod_{j<i} up_j, b div down_{i+1}) of level i+1, arriving at that
// router's down port b mod down_{i+1}. Ports: down ports (terminals at the
// leaves) in order, then up ports in order. Group label: the level.
#include <fmt/format.h>

#include "graph.hpp"

namespace nwn::topo {

namespace {

Graph build_fattree(const Config& cfg) {
  const int k = int(cfg.get_int("network.fattree.radix"));
  const int n = int(cfg.get_int("network.fattree.levels"));
  int leaf_down = int(cfg.get_int("network.fattree.down"));
  const bool full_top = cfg.get_bool("network.fattree.full_top");
  if (k % 2 != 0)
    throw ConfigError(fmt::format("config error: network.fattree.radix = {}: the radix must be even (k/2 ports up, "
                                  "k/2 down above the leaves); nearby: {}, {}",
                                  k, k - 1, k + 1));
  if (leaf_down == 0) leaf_down = k / 2;
  if (leaf_down >= k)
    throw ConfigError(fmt::format("config error: network.fattree.down = {}: a leaf of radix {} needs at least one up "
                                  "port; allowed 1 .. {}",
                                  leaf_down, k, k - 1));
  std::vector<std::int64_t> down(n, k / 2), up(n, k / 2);
  down[0] = leaf_down;
  up[0] = k - leaf_down;
  up[n - 1] = 0;
  if (full_top) down[n - 1] = k;
  if (n == 1) down[0] = full_top ? k : leaf_down;
  // prod_{j<i} up_j and prod_{j>i} down_j, and the sizes, checked before anything is allocated.
  std::vector<std::int64_t> up_below(n, 1), down_above(n, 1);
  for (int i = 1; i < n; ++i) up_below[i] = size_mul(up_below[i - 1], up[i - 1]);
  for (int i = n - 2; i >= 0; --i) down_above[i] = size_mul(down_above[i + 1], down[i + 1]);
  std::vector<std::int64_t> offset(n + 1, 0);
  std::int64_t ports = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t level = size_mul(up_below[i], down_above[i]);
    offset[i + 1] = size_add(offset[i], level);
    ports = size_add(ports, size_mul(level, (i > 0 ? down[i] : 0) + up[i]));
  }
  check_size(key_values(cfg, {"network.fattree.radix", "network.fattree.levels", "network.fattree.down",
                              "network.fattree.full_top"}),
             offset[n], size_mul(down[0], down_above[0]), ports);
  Graph g;
  g.name = fmt::format("fattree k={} n={} down={}{}", k, n, leaf_down, full_top ? " full-top" : "");
  const int routers = int(offset[n]);
  g.terminals.assign(routers, 0);
  g.links.assign(routers, {});
  g.group.assign(routers, 0);
  for (int i = 0; i < n; ++i)
    for (std::int64_t a = 0; a < up_below[i]; ++a)
      for (std::int64_t b = 0; b < down_above[i]; ++b) {
        const int r = int(offset[i] + a * down_above[i] + b);
        g.group[r] = i;
        if (i == 0) g.terminals[r] = int(down[0]);
        else g.links[r].resize(down[i], -1);  // filled by the routers below
      }
  for (int i = 0; i + 1 < n; ++i)
    for (std::int64_t a = 0; a < up_below[i]; ++a)
      for (std::int64_t b = 0; b < down_above[i]; ++b) {
        const int r = int(offset[i] + a * down_above[i] + b);
        for (std::int64_t u = 0; u < up[i]; ++u) {
          const std::int64_t a2 = a + u * up_below[i], b2 = b / down[i + 1];
          const int parent = int(offset[i + 1] + a2 * down_above[i + 1] + b2);
          g.links[r].push_back(parent);
          g.links[parent][b % down[i + 1]] = r;
        }
      }
  return g;
}

GraphTopologyRegistration reg_fattree(GraphTopology{
    "fattree",
    "tapered fat tree: n levels of radix-k routers, leaves with `down` terminals and k - down up ports (k-ary n-tree "
    "untapered)",
    {
        {"network.fattree.radix", ValueType::Int, "8", 2, 4096, nullptr, "ports", "fattree: router radix k (even)"},
        {"network.fattree.levels", ValueType::Int, "3", 1, 8, nullptr, "levels", "fattree: levels n"},
        {"network.fattree.down", ValueType::Int, "0", 0, 4096, nullptr, "terminals",
         "fattree: terminals per leaf (0: k/2, untapered); the leaf has k - down up ports (taper down : up)"},
        {"network.fattree.full_top", ValueType::Bool, "false", 0, 0, nullptr, "",
         "fattree: top routers use all k ports downward (twice the terminals of a k-ary n-tree)"},
    },
    build_fattree});

}  // namespace
}  // namespace nwn::topo

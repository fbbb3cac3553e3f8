// nesttree: NestTree(t, u) of the hybrid-topologies paper: subtori of
// t x t x t QFDBs (nest.hpp) whose uplinked QFDBs are the leaves of a fat
// tree. The tree (the paper: three stages, no oversubscription) has
// network.nesttree.levels stages; below the top every switch has r/2 down
// and r/2 up ports (r = network.nesttree.switch_radix); the top switches
// take the remaining uplinks: U / (r/2)^(levels-1) down ports each, U =
// nodes / u uplinks. Stage i has prod_{j<i} up_j * prod_{j>i} down_j
// switches. r = 64 reproduces the switch counts of the paper's Table 2 for
// 131,072 QFDBs (1024 top switches of 16 .. 128 ports).
//
// Switch (a, b) of stage i is router nodes + offset_i + a * prod_{j>i} down_j
// + b; its up port p leads to (a + p * prod_{j<i} up_j, b div down_{i+1}) at
// down port b mod down_{i+1}; leaf b's down port c holds uplink b*down_0 + c.
// Ports: down ports, then up ports; an uplinked QFDB's seventh port is its
// uplink. Group label: the subtorus for QFDBs, subtori + stage for switches.
#include <fmt/format.h>

#include "nest.hpp"

namespace nwn::topo {
namespace {

struct Tree {
  std::vector<std::int64_t> down, up, down_above, up_below, offset;
  int levels() const { return int(down.size()); }
};

Tree tree_shape(const Config& cfg, const NestShape& s) {
  const int levels = int(cfg.get_int("network.nesttree.levels"));
  const int r = int(cfg.get_int("network.nesttree.switch_radix"));
  if (r % 2 != 0)
    throw ConfigError(fmt::format("config error: network.nesttree.switch_radix = {}: must be even (r/2 down, r/2 up)",
                                  r));
  std::int64_t below_top = 1;
  for (int i = 0; i + 1 < levels; ++i) below_top = size_mul(below_top, r / 2);
  const std::int64_t U = s.uplinks();
  if (U % below_top != 0)
    throw ConfigError(fmt::format("config error: network.nesttree.nodes = {} with u = {}: {} uplinks must be a "
                                  "multiple of (switch_radix/2)^(levels-1) = {}",
                                  s.nodes, s.u, U, below_top));
  Tree t;
  t.down.assign(levels, r / 2);
  t.up.assign(levels, r / 2);
  t.down[levels - 1] = U / below_top;
  t.up[levels - 1] = 0;
  t.down_above.assign(levels, 1);
  t.up_below.assign(levels, 1);
  for (int i = 1; i < levels; ++i) t.up_below[i] = t.up_below[i - 1] * t.up[i - 1];
  for (int i = levels - 2; i >= 0; --i) t.down_above[i] = t.down_above[i + 1] * t.down[i + 1];
  t.offset.assign(levels + 1, 0);
  for (int i = 0; i < levels; ++i) t.offset[i + 1] = t.offset[i] + t.up_below[i] * t.down_above[i];
  return t;
}

// Hops between uplinks a and b through the tree: 2 x the stage of their
// nearest common ancestor (+1).
int tree_hops(const Tree& t, std::int64_t a, std::int64_t b) {
  std::int64_t block = 1;
  for (int m = 0; m <= t.levels(); ++m) {
    if (a / block == b / block) return 2 * m;
    if (m < t.levels()) block *= t.down[m];
  }
  return 2 * t.levels();
}

Graph build_nesttree(const Config& cfg) {
  const NestShape s = nest_shape(cfg, "nesttree");
  const Tree t = tree_shape(cfg, s);
  // QFDBs: six torus ports and an uplink each; switches: down and up ports.
  std::int64_t ports = size_add(size_mul(6, s.nodes), s.uplinks());
  for (int i = 0; i < t.levels(); ++i)
    ports = size_add(ports, size_mul(t.offset[i + 1] - t.offset[i], t.down[i] + t.up[i]));
  check_size(key_values(cfg, {"network.nesttree.t", "network.nesttree.u", "network.nesttree.nodes",
                              "network.nesttree.levels", "network.nesttree.switch_radix"}),
             size_add(s.nodes, t.offset[t.levels()]), s.nodes, ports);
  Graph g;
  g.name = fmt::format("nesttree t={} u={} nodes={}", s.t, s.u, s.nodes);
  add_subtori(g, s);
  const int n0 = int(s.nodes);
  const int L = t.levels();
  g.terminals.resize(n0 + t.offset[L], 0);
  g.links.resize(n0 + t.offset[L]);
  g.group.resize(n0 + t.offset[L]);
  for (int i = 0; i < L; ++i)
    for (std::int64_t r = t.offset[i]; r < t.offset[i + 1]; ++r) {
      g.group[n0 + r] = s.subtori + i;
      g.links[n0 + r].assign(t.down[i], -1);
    }
  for (std::int64_t up = 0; up < s.uplinks(); ++up) {
    const int q = s.uplink_router(up), leaf = n0 + int(up / t.down[0]);
    g.links[q].push_back(leaf);
    g.links[leaf][up % t.down[0]] = q;
  }
  for (int i = 0; i + 1 < L; ++i)
    for (std::int64_t a = 0; a < t.up_below[i]; ++a)
      for (std::int64_t b = 0; b < t.down_above[i]; ++b) {
        const int r = n0 + int(t.offset[i] + a * t.down_above[i] + b);
        for (std::int64_t p = 0; p < t.up[i]; ++p) {
          const int parent =
              n0 + int(t.offset[i + 1] + (a + p * t.up_below[i]) * t.down_above[i + 1] + b / t.down[i + 1]);
          g.links[r].push_back(parent);
          g.links[parent][b % t.down[i + 1]] = r;
        }
      }
  return g;
}

std::vector<TopologyFigure> nesttree_figures(const Config& cfg, const Graph& g) {
  const NestShape s = nest_shape(cfg, "nesttree");
  const Tree t = tree_shape(cfg, s);
  const int U = s.uplinks_per_subtorus;
  std::vector<double> clients(U, 0);
  for (int r : s.nearest) clients[r] += 1;
  // Sum of c(a) c(b) hops(a, b): by blocks of the common-ancestor stages.
  double sum = 0, prev = 0;
  std::int64_t block = 1;
  for (int m = 0; m <= t.levels(); ++m) {
    double w = 0;
    for (std::int64_t first = 0; first < s.uplinks(); first += block) {
      double c = 0;
      for (std::int64_t a = first; a < first + block; ++a) c += clients[a % U];
      w += c * c;
    }
    if (m > 0) sum += 2.0 * m * (w - prev);
    prev = w;
    if (m < t.levels()) block *= t.down[m];
  }
  const NestDistances d = nest_routed_distances(
      s, [&t](std::int64_t a, std::int64_t b) { return tree_hops(t, a, b); }, 2 * t.levels(), sum);
  return nest_figures(s, g, d);
}

GraphTopologyRegistration reg_nesttree(GraphTopology{
    "nesttree",
    "NestTree(t, u): t^3 subtori of QFDBs, one uplink every u QFDBs to a fat tree (hybrid-topologies paper)",
    {
        {"network.nesttree.t", ValueType::Int, "2", 2, 64, nullptr, "QFDBs", "nesttree: QFDBs per subtorus dimension (even)"},
        {"network.nesttree.u", ValueType::Int, "1", 1, 8, nullptr, "QFDBs", "nesttree: one uplink every u QFDBs (1, 2, 4, 8)"},
        {"network.nesttree.nodes", ValueType::Int, "131072", 8, 4e6, nullptr, "QFDBs", "nesttree: QFDBs in the system"},
        {"network.nesttree.levels", ValueType::Int, "3", 1, 6, nullptr, "stages", "nesttree: stages of the fat tree"},
        {"network.nesttree.switch_radix", ValueType::Int, "64", 2, 4096, nullptr, "ports",
         "nesttree: switch radix r below the top stage (r/2 down, r/2 up)"},
    },
    build_nesttree, nesttree_figures});

}  // namespace
}  // namespace nwn::topo

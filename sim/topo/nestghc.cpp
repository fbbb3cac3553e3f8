// nestghc: NestGHC(t, u) of the hybrid-topologies paper: subtori of
// t x t x t QFDBs (nest.hpp) whose uplinked QFDBs are the nodes of a
// switch-based generalized hypercube: uplinks on a d_0 x d_1 x ... lattice
// (network.nestghc.sizes; default: network.nestghc.dimensions factors of
// the U = nodes/u uplinks as equal as possible, ascending, the fewest
// switches), one switch of d_i ports per line of dimension i joining the
// d_i uplinks that differ only in coordinate i. An uplinked QFDB has one
// port per dimension. Switches: sum_i U / d_i (Table 2: 2048 .. 8192 for
// 131,072 QFDBs). Between two uplinks: 2 hops per differing coordinate.
//
// Uplink id = c_0 + d_0 (c_1 + d_1 (c_2 + ...)). The switch of dimension i
// for the line through coordinates c is router nodes + offset_i + (the
// coordinates other than c_i in the same mixed radix); its port j leads to
// the uplink with c_i = j. Ports of an uplinked QFDB: six torus ports, then
// dimension 0, 1, ... Group label: subtorus for QFDBs, subtori + i for the
// switches of dimension i.
#include <fmt/format.h>

#include <limits>

#include <functional>
#include <sstream>

#include "nest.hpp"

namespace nwn::topo {
namespace {

// Non-decreasing factorizations of U into `dims` factors >= 2 with the
// fewest switches (sum of U / factor), then the smallest largest factor.
std::vector<std::int64_t> balanced_sizes(std::int64_t U, int dims) {
  std::vector<std::int64_t> best, cur;
  double best_switches = 0;
  std::function<void(std::int64_t, std::int64_t)> rec = [&](std::int64_t rest, std::int64_t min_factor) {
    if (int(cur.size()) == dims - 1) {
      if (rest < min_factor) return;
      cur.push_back(rest);
      double sw = 0;
      for (auto f : cur) sw += double(U / f);
      if (best.empty() || sw < best_switches || (sw == best_switches && cur.back() < best.back())) {
        best = cur;
        best_switches = sw;
      }
      cur.pop_back();
      return;
    }
    for (std::int64_t f = min_factor; f * f <= rest; ++f)
      if (rest % f == 0) {
        cur.push_back(f);
        rec(rest / f, f);
        cur.pop_back();
      }
  };
  if (dims == 1) return {U};
  rec(U, 2);
  return best;
}

std::vector<std::int64_t> ghc_sizes(const Config& cfg, const NestShape& s) {
  const std::string text = cfg.get_string("network.nestghc.sizes");
  const int dims = int(cfg.get_int("network.nestghc.dimensions"));
  const std::int64_t U = s.uplinks();
  std::vector<std::int64_t> sizes;
  if (text.empty()) {
    sizes = balanced_sizes(U, dims);
    if (sizes.empty())
      throw ConfigError(fmt::format("config error: network.nestghc.dimensions = {}: {} uplinks cannot be split into {} "
                                    "factors of at least 2",
                                    dims, U, dims));
    return sizes;
  }
  std::int64_t product = 1;
  for (std::int64_t v : int_list(cfg, "network.nestghc.sizes", 2, std::numeric_limits<std::int64_t>::max(),
                                 "uplinks per dimension")) {
    sizes.push_back(v);
    product = size_mul(product, v);
  }
  if (product != U)
    throw ConfigError(fmt::format("config error: network.nestghc.sizes = '{}': the product {} must equal the {} uplinks "
                                  "(nodes / u)",
                                  text, product, U));
  return sizes;
}

Graph build_nestghc(const Config& cfg) {
  const NestShape s = nest_shape(cfg, "nestghc");
  const auto d = ghc_sizes(cfg, s);
  const int D = int(d.size());
  const std::int64_t U = s.uplinks();
  // QFDBs: six torus ports and an uplink port per dimension; switches of
  // dimension i: d_i ports each, U ports per dimension in all.
  std::int64_t switches = 0;
  for (int i = 0; i < D; ++i) switches = size_add(switches, U / d[i]);
  check_size(key_values(cfg, {"network.nestghc.t", "network.nestghc.u", "network.nestghc.nodes",
                              "network.nestghc.dimensions", "network.nestghc.sizes"}),
             size_add(s.nodes, switches), s.nodes, size_add(size_mul(6, s.nodes), size_mul(2 * D, U)));
  Graph g;
  g.name = fmt::format("nestghc t={} u={} nodes={}", s.t, s.u, s.nodes);
  add_subtori(g, s);
  const int n0 = int(s.nodes);
  std::vector<std::int64_t> offset(D + 1, 0);
  for (int i = 0; i < D; ++i) offset[i + 1] = offset[i] + U / d[i];
  g.terminals.resize(n0 + offset[D], 0);
  g.links.resize(n0 + offset[D]);
  g.group.resize(n0 + offset[D]);
  for (int i = 0; i < D; ++i)
    for (std::int64_t r = offset[i]; r < offset[i + 1]; ++r) {
      g.group[n0 + r] = s.subtori + i;
      g.links[n0 + r].assign(d[i], -1);
    }
  for (std::int64_t up = 0; up < U; ++up) {
    const int q = s.uplink_router(up);
    std::int64_t x = up, stride = 1;
    for (int i = 0; i < D; ++i) {
      const std::int64_t c = x % d[i];
      x /= d[i];
      // Line index: the uplink id with coordinate i removed.
      const std::int64_t line = up % stride + (up / (stride * d[i])) * stride;
      const int sw = n0 + int(offset[i] + line);
      g.links[q].push_back(sw);
      g.links[sw][c] = q;
      stride *= d[i];
    }
  }
  return g;
}

std::vector<TopologyFigure> nestghc_figures(const Config& cfg, const Graph& g) {
  const NestShape s = nest_shape(cfg, "nestghc");
  const auto d = ghc_sizes(cfg, s);
  const int U = s.uplinks_per_subtorus;
  std::vector<double> clients(U, 0);
  for (int r : s.nearest) clients[r] += 1;
  double total = 0;
  for (std::int64_t a = 0; a < s.uplinks(); ++a) total += clients[a % U];
  // Sum of c(a) c(b) * 2 [coordinate i differs], dimension by dimension.
  double sum = 0;
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < d.size(); ++i) {
    std::vector<double> by_value(d[i], 0);
    for (std::int64_t a = 0; a < s.uplinks(); ++a) by_value[a / stride % d[i]] += clients[a % U];
    double same = 0;
    for (double c : by_value) same += c * c;
    sum += 2 * (total * total - same);
    stride *= d[i];
  }
  auto hops = [&d](std::int64_t a, std::int64_t b) {
    int h = 0;
    for (auto di : d) {
      h += a % di != b % di;
      a /= di;
      b /= di;
    }
    return 2 * h;
  };
  return nest_figures(s, g, nest_routed_distances(s, hops, 2 * int(d.size()), sum));
}

GraphTopologyRegistration reg_nestghc(GraphTopology{
    "nestghc",
    "NestGHC(t, u): t^3 subtori of QFDBs, one uplink every u QFDBs to a switch-based generalized hypercube",
    {
        {"network.nestghc.t", ValueType::Int, "2", 2, 64, nullptr, "QFDBs", "nestghc: QFDBs per subtorus dimension (even)"},
        {"network.nestghc.u", ValueType::Int, "1", 1, 8, nullptr, "QFDBs", "nestghc: one uplink every u QFDBs (1, 2, 4, 8)"},
        {"network.nestghc.nodes", ValueType::Int, "131072", 8, 4e6, nullptr, "QFDBs", "nestghc: QFDBs in the system"},
        {"network.nestghc.dimensions", ValueType::Int, "3", 1, 8, nullptr, "dimensions",
         "nestghc: dimensions of the generalized hypercube (when sizes is empty)"},
        {"network.nestghc.sizes", ValueType::String, "", 0, 0, nullptr, "uplinks",
         "nestghc: uplinks per dimension, comma-separated, product = nodes/u (empty: balanced)"},
    },
    build_nestghc, nestghc_figures});

}  // namespace
}  // namespace nwn::topo

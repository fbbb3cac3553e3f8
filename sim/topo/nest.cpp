#include "nest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace nwn::topo {

int NestShape::torus_hops(int a, int b) const {
  int h = 0;
  for (int i = 0; i < 3; ++i, a /= t, b /= t) {
    const int d = std::abs(a % t - b % t);
    h += std::min(d, t - d);
  }
  return h;
}

namespace {

bool uplinked(int u, int x, int y, int z) {
  switch (u) {
    case 1: return true;
    case 2: return x % 2 == 0;
    case 4: return x % 2 == y % 2 && y % 2 == z % 2;
    default: return x % 2 == 0 && y % 2 == 0 && z % 2 == 0;
  }
}

// The nearest uplinked QFDB of (x, y, z) under the paper's rule.
int nearest_local(int u, int t, int x, int y, int z) {
  int c[3] = {x, y, z};
  if (u == 2) {
    if (c[0] % 2) --c[0];
  } else if (u == 4) {
    for (int i = 0; i < 3; ++i) {
      const int a = c[(i + 1) % 3] % 2, b = c[(i + 2) % 3] % 2;
      if (a == b && c[i] % 2 != a) {
        c[i] += c[i] % 2 ? -1 : 1;
        break;
      }
    }
  } else if (u == 8) {
    for (int& v : c)
      if (v % 2) v = v + 1 == t ? 0 : v - 1;
  }
  return c[0] + t * c[1] + t * t * c[2];
}

}  // namespace

NestShape nest_shape(const Config& cfg, const std::string& name) {
  NestShape s;
  s.name = name;
  s.t = int(cfg.get_int("network." + name + ".t"));
  s.u = int(cfg.get_int("network." + name + ".u"));
  s.nodes = cfg.get_int("network." + name + ".nodes");
  if (s.t % 2 != 0)
    throw ConfigError(fmt::format("config error: network.{}.t = {}: the uplink rules need an even subtorus size; "
                                  "nearby: {}, {}",
                                  name, s.t, s.t - 1, s.t + 1));
  if (s.u != 1 && s.u != 2 && s.u != 4 && s.u != 8)
    throw ConfigError(fmt::format("config error: network.{}.u = {}: one uplink every u QFDBs with u in {{1, 2, 4, 8}}",
                                  name, s.u));
  s.per_subtorus = s.t * s.t * s.t;
  if (s.nodes % s.per_subtorus != 0)
    throw ConfigError(fmt::format("config error: network.{}.nodes = {}: must be a multiple of t^3 = {} (whole "
                                  "subtori); nearby: {}, {}",
                                  name, s.nodes, s.per_subtorus, s.nodes / s.per_subtorus * s.per_subtorus,
                                  (s.nodes / s.per_subtorus + 1) * s.per_subtorus));
  s.subtori = int(s.nodes / s.per_subtorus);
  const int t = s.t, T = s.per_subtorus;
  s.rank_of.assign(T, -1);
  // u = 4: even corners first, then odd corners.
  for (int parity = 0; parity < (s.u == 4 ? 2 : 1); ++parity)
    for (int v = 0; v < T; ++v) {
      const int x = v % t, y = v / t % t, z = v / (t * t);
      if (uplinked(s.u, x, y, z) && (s.u != 4 || x % 2 == parity)) {
        s.rank_of[v] = int(s.local_of.size());
        s.local_of.push_back(v);
      }
    }
  s.uplinks_per_subtorus = int(s.local_of.size());
  s.nearest.resize(T);
  s.nearest_hops.resize(T);
  for (int v = 0; v < T; ++v) {
    const int n = nearest_local(s.u, t, v % t, v / t % t, v / (t * t));
    s.nearest[v] = s.rank_of[n];
    s.nearest_hops[v] = s.torus_hops(v, n);
  }
  return s;
}

void add_subtori(Graph& g, const NestShape& s) {
  const int t = s.t, T = s.per_subtorus;
  g.terminals.assign(s.nodes, 1);
  g.links.assign(s.nodes, {});
  g.group.assign(s.nodes, 0);
  for (std::int64_t r = 0; r < s.nodes; ++r) {
    const int base = int(r / T) * T, v = int(r % T);
    const int c[3] = {v % t, v / t % t, v / (t * t)};
    const int stride[3] = {1, t, t * t};
    g.group[r] = int(r / T);
    for (int i = 0; i < 3; ++i)
      for (int dir : {1, -1}) {
        const int nc = (c[i] + dir + t) % t;
        g.links[r].push_back(base + v + (nc - c[i]) * stride[i]);
      }
  }
}

NestDistances nest_routed_distances(const NestShape& s,
                                    const std::function<int(std::int64_t, std::int64_t)>& upper, int upper_max,
                                    double weighted_upper_sum) {
  const int T = s.per_subtorus, U = s.uplinks_per_subtorus, S = s.subtori;
  std::vector<double> clients(U, 0);
  std::vector<int> client_max(U, -1);
  double hops_sum = 0;
  for (int v = 0; v < T; ++v) {
    clients[s.nearest[v]] += 1;
    client_max[s.nearest[v]] = std::max(client_max[s.nearest[v]], s.nearest_hops[v]);
    hops_sum += s.nearest_hops[v];
  }
  // Within a subtorus: dimension-order hops, the same sum from every QFDB.
  double intra_from_one = 0;
  int intra_max = 0;
  for (int v = 0; v < T; ++v) {
    intra_from_one += s.torus_hops(0, v);
    intra_max = std::max(intra_max, s.torus_hops(0, v));
  }
  const double pairs_intra = double(S) * T * (T - 1);
  double sum = double(S) * T * intra_from_one;
  // Between subtori: hops to the source uplink and from the destination's,
  // plus the upper network between the two uplinks (same-subtorus uplink
  // pairs taken out of the full weighted sum).
  const double other = double(S) * (S - 1);
  sum += 2 * other * T * hops_sum;
  double same_subtorus_upper = 0;
  for (int sub = 0; sub < S; ++sub)
    for (int a = 0; a < U; ++a)
      for (int b = 0; b < U; ++b)
        if (a != b) {
          const std::int64_t ua = std::int64_t(sub) * U + a, ub = std::int64_t(sub) * U + b;
          same_subtorus_upper += clients[a] * clients[b] * upper(ua, ub);
        }
  sum += weighted_upper_sum - same_subtorus_upper;
  NestDistances d;
  const double pairs = pairs_intra + other * T * T;
  d.average = pairs > 0 ? sum / pairs : 0;
  // Maximum: search uplink pairs in different subtori for the bound
  // max client hops + upper_max + max client hops, stopping when it is met.
  int cmax = 0;
  for (int m : client_max) cmax = std::max(cmax, m);
  const int bound = 2 * cmax + upper_max;
  int best = T > 1 ? intra_max : 0;
  std::vector<int> ranks(U);
  for (int r = 0; r < U; ++r) ranks[r] = r;
  std::sort(ranks.begin(), ranks.end(), [&](int a, int b) { return client_max[a] > client_max[b]; });
  if (S > 1)
    for (std::int64_t a = 0; a < s.uplinks() && best < bound; ++a) {
      const int sa = int(a / U);
      for (int rb : ranks) {
        if (client_max[a % U] + upper_max + client_max[rb] <= best) break;
        for (int sb = 0; sb < S; ++sb) {
          if (sb == sa) continue;
          const int v = client_max[a % U] + upper(a, std::int64_t(sb) * U + rb) + client_max[rb];
          best = std::max(best, v);
          if (v == client_max[a % U] + upper_max + client_max[rb]) break;
        }
        if (best >= bound) break;
      }
    }
  d.maximum = best;
  return d;
}

std::vector<TopologyFigure> nest_figures(const NestShape& s, const Graph& g, const NestDistances& d) {
  int switches = 0;
  for (int r = 0; r < g.routers(); ++r) switches += g.terminals[r] == 0;
  const double qfdbs = double(s.nodes);
  return {
      {"routed_avg_distance", d.average,
       "average QFDB-to-QFDB hops under the paper's routing (exact over all pairs; hybrid paper Table 1)"},
      {"routed_diameter", double(d.maximum), "largest QFDB-to-QFDB hops under the paper's routing (Table 1)"},
      {"switches", double(switches), "switches of the upper network (Table 2)"},
      {"cost_increase_pct", 100 * 0.75 * switches / qfdbs,
       "cost over the torus-only system: a switch costs 0.75 QFDB (the ratio Table 2 implies)"},
      {"power_increase_pct", 100 * 0.25 * switches / qfdbs,
       "power over the torus-only system: a switch draws 0.25 QFDB (the ratio Table 2 implies)"},
  };
}

}  // namespace nwn::topo

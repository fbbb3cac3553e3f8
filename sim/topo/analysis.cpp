#include "analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <queue>
#include <tuple>

#include "../../models/rng.hpp"
#include "metis_bisection.hpp"

namespace nwn::topo {
namespace {

// One BFS with shortest-path counting.
struct Bfs {
  std::vector<int> dist, queue;
  std::vector<double> paths;
  explicit Bfs(int n) : dist(n), queue(n), paths(n) {}
  void run(const Graph& g, int s) {
    std::fill(dist.begin(), dist.end(), -1);
    std::fill(paths.begin(), paths.end(), 0.0);
    int head = 0, tail = 0;
    dist[s] = 0;
    paths[s] = 1;
    queue[tail++] = s;
    while (head < tail) {
      const int u = queue[head++];
      for (int v : g.links[u]) {
        if (dist[v] < 0) {
          dist[v] = dist[u] + 1;
          queue[tail++] = v;
        }
        if (dist[v] == dist[u] + 1) paths[v] += paths[u];
      }
    }
  }
};

std::vector<int> sample(std::vector<int> pool, int n, Rng& rng) {
  if (int(pool.size()) <= n) return pool;
  for (int i = 0; i < n; ++i) std::swap(pool[i], pool[i + rng.below(std::uint32_t(pool.size() - i))]);
  pool.resize(n);
  std::sort(pool.begin(), pool.end());
  return pool;
}

void distances_and_paths(const Graph& g, const AnalysisOptions& opt, Analysis& a) {
  const int n = g.routers();
  std::vector<int> all(n), with_terminals;
  std::iota(all.begin(), all.end(), 0);
  for (int r = 0; r < n; ++r)
    if (g.terminals[r] > 0) with_terminals.push_back(r);
  Rng rng(opt.seed, 0x746f706fULL);
  // BFS sources: all routers, or at most max_sources and about 2e9 router
  // and port visits in all.
  double work = n;
  for (auto& l : g.links) work += double(l.size());
  const int budget = int(std::min(double(opt.max_sources), std::max(100.0, 2e9 / work)));
  a.sampled = n > budget;
  std::vector<int> router_sources = all, endpoint_sources = with_terminals;
  if (a.sampled) {
    router_sources = sample(all, budget / 2, rng);
    endpoint_sources = sample(with_terminals, budget / 2, rng);
  }
  std::vector<char> is_router_source(n, 0), is_endpoint_source(n, 0);
  for (int s : router_sources) is_router_source[s] = 1;
  for (int s : endpoint_sources) is_endpoint_source[s] = 1;
  int total_sources = 0;
  for (int s = 0; s < n; ++s) total_sources += is_router_source[s] || is_endpoint_source[s];
  Bfs bfs(n);
  double router_hops = 0, router_pairs = 0, endpoint_hops = 0, endpoint_pairs = 0;
  double paths_sum = 0, path_pairs = 0, paths_far = 0, far_pairs = 0;
  for (int s = 0; s < n; ++s) {
    if (!is_router_source[s] && !is_endpoint_source[s]) continue;
    ++a.sources;
    bfs.run(g, s);
    if (opt.progress) opt.progress("distances", a.sources, total_sources);
    for (int v = 0; v < n; ++v) {
      const int d = bfs.dist[v];
      if (d < 0) throw std::runtime_error(fmt::format("{}: router {} cannot reach router {}", g.name, s, v));
      if (is_router_source[s] && v != s) {
        a.diameter = std::max(a.diameter, d);
        router_hops += d;
        router_pairs += 1;
      }
      if (is_endpoint_source[s] && g.terminals[v] > 0) {
        const double pairs = double(g.terminals[s]) * (g.terminals[v] - (v == s));
        endpoint_hops += pairs * d;
        endpoint_pairs += pairs;
        if (v != s) {
          a.endpoint_diameter = std::max(a.endpoint_diameter, d);
          paths_sum += bfs.paths[v];
          path_pairs += 1;
          a.paths_max = std::max(a.paths_max, bfs.paths[v]);
          if (d >= 2) {
            paths_far += bfs.paths[v];
            far_pairs += 1;
          }
        }
      }
    }
  }
  a.avg_hops_routers = router_pairs > 0 ? router_hops / router_pairs : 0;
  a.avg_hops_endpoints = endpoint_pairs > 0 ? endpoint_hops / endpoint_pairs : 0;
  a.paths_avg = path_pairs > 0 ? paths_sum / path_pairs : 0;
  a.paths_avg_nonadjacent = far_pairs > 0 ? paths_far / far_pairs : 0;
}

// Channel multiplicities as (neighbour, count) lists.
std::vector<std::vector<std::pair<int, int>>> weighted_adjacency(const Graph& g) {
  std::vector<std::vector<std::pair<int, int>>> adj(g.routers());
  for (int r = 0; r < g.routers(); ++r) {
    std::vector<int> l = g.links[r];
    std::sort(l.begin(), l.end());
    for (std::size_t i = 0; i < l.size();) {
      std::size_t j = i;
      while (j < l.size() && l[j] == l[i]) ++j;
      adj[r].push_back({l[i], int(j - i)});
      i = j;
    }
  }
  return adj;
}

Bisection exact_bisection(const Graph& g, bool balance_routers) {
  const int n = g.routers();
  const auto adj = weighted_adjacency(g);
  int balanced_total = 0;
  for (int r = 0; r < n; ++r) balanced_total += g.terminals[r] > 0;
  const bool by_terminals = balanced_total > 0 && !balance_routers;
  if (!by_terminals) balanced_total = n;
  auto counts = [&](int r) { return by_terminals ? g.terminals[r] > 0 : true; };
  const int lo = balanced_total / 2, hi = (balanced_total + 1) / 2;
  std::vector<char> side(n, 0);
  std::int64_t cut = 0, best = -1;
  std::uint64_t best_code = 0;  // Gray code of the best partition: bit v-1 = side of vertex v
  int on_one = 0;
  for (std::uint64_t i = 1; i < (std::uint64_t(1) << (n - 1)); ++i) {
    int v = 1;
    while (!((i >> (v - 1)) & 1)) ++v;  // Gray code: flip vertex ctz(i) + 1
    int same = 0, other = 0;
    for (auto [w, c] : adj[v]) (side[w] == side[v] ? same : other) += c;
    cut += same - other;
    side[v] ^= 1;
    if (counts(v)) on_one += side[v] ? 1 : -1;
    if ((on_one == lo || on_one == hi) && (best < 0 || cut < best)) {
      best = cut;
      best_code = i ^ (i >> 1);
    }
  }
  Bisection b;
  b.cut = std::max<std::int64_t>(best, 0);
  b.side.assign(n, 0);
  for (int v = 1; v < n; ++v) b.side[v] = char(best_code >> (v - 1) & 1);
  b.exact = true;
  b.method = fmt::format("exact (all {} partitions)", std::uint64_t(1) << (n - 1));
  return b;
}

// Fiduccia-Mattheyses passes from one start; returns the cut.
class Fm {
 public:
  Fm(const Graph& g, bool balance_routers) : g_(g), adj_(weighted_adjacency(g)), n_(g.routers()) {
    for (int r = 0; r < n_; ++r) total_ += g.terminals[r] > 0;
    by_terminals_ = total_ > 0 && !balance_routers;
    if (!by_terminals_) total_ = n_;
  }
  bool counts(int r) const { return by_terminals_ ? g_.terminals[r] > 0 : true; }
  int total() const { return total_; }
  const std::vector<std::vector<std::pair<int, int>>>& adjacency() const { return adj_; }

  // Moves counted routers off the heavier side, best gain first, until the
  // sides hold floor and ceil of half of them (a partitioner's balance
  // tolerance allows more); returns how many moved.
  int rebalance(std::vector<char>& side) {
    const int lo = total_ / 2, hi = (total_ + 1) / 2;
    int on_one = 0;
    for (int v = 0; v < n_; ++v) on_one += counts(v) && side[v];
    if (on_one >= lo && on_one <= hi) return 0;
    const char heavy = on_one > hi ? 1 : 0;
    std::vector<int> gains(n_);
    std::priority_queue<std::pair<int, int>> heap;  // gain, vertex on the heavy side
    for (int v = 0; v < n_; ++v)
      if (counts(v) && side[v] == heavy) heap.push({gains[v] = gain(side, v), v});
    int moved = 0;
    while (on_one < lo || on_one > hi) {
      const auto [g, v] = heap.top();
      heap.pop();
      if (side[v] != heavy || g != gains[v]) continue;  // moved, or a stale gain
      side[v] ^= 1;
      on_one += heavy ? -1 : 1;
      ++moved;
      for (auto [w, c] : adj_[v])
        if (counts(w) && side[w] == heavy) heap.push({gains[w] = gain(side, w), w});
    }
    return moved;
  }

  std::int64_t refine(std::vector<char>& side) {
    std::int64_t cut = 0;
    for (int v = 0; v < n_; ++v)
      for (auto [w, c] : adj_[v])
        if (side[v] != side[w]) cut += c;
    cut /= 2;
    for (int pass = 0; pass < 20; ++pass) {
      const std::int64_t improved = pass_once(side, cut);
      if (improved < 0 || improved >= cut) break;
      cut = improved;
    }
    return cut;
  }

 private:
  int gain(const std::vector<char>& side, int v) const {
    int g = 0;
    for (auto [w, c] : adj_[v]) g += side[w] != side[v] ? c : -c;
    return g;
  }
  // One pass: move every vertex at most once, best gain first, keeping the
  // counted routers within one of balance; keep the best balanced prefix.
  std::int64_t pass_once(std::vector<char>& side, std::int64_t cut) {
    const int lo = total_ / 2, hi = (total_ + 1) / 2;
    int on_one = 0;
    for (int v = 0; v < n_; ++v) on_one += counts(v) && side[v];
    std::vector<int> gains(n_);
    std::vector<char> locked(n_, 0);
    // Heaps: 0 = uncounted routers, 1 = counted on side 0, 2 = counted on side 1.
    using Item = std::pair<int, int>;  // gain, vertex
    std::priority_queue<Item> heap[3];
    auto kind = [&](int v) { return counts(v) ? 1 + side[v] : 0; };
    for (int v = 0; v < n_; ++v) {
      gains[v] = gain(side, v);
      heap[kind(v)].push({gains[v], v});
    }
    std::vector<int> moved;
    std::int64_t cur = cut, best = cut;
    std::size_t best_len = 0;
    const bool start_balanced = on_one == lo || on_one == hi;
    if (!start_balanced) best = -1;
    while (true) {
      int pick = -1, pick_gain = 0;
      for (int h = 0; h < 3; ++h) {
        while (!heap[h].empty() && (locked[heap[h].top().second] || heap[h].top().first != gains[heap[h].top().second] ||
                                    kind(heap[h].top().second) != h))
          heap[h].pop();
        if (heap[h].empty()) continue;
        if (h == 1 && on_one + 1 > hi + 1) continue;
        if (h == 2 && on_one - 1 < lo - 1) continue;
        if (pick < 0 || heap[h].top().first > pick_gain) {
          pick = heap[h].top().second;
          pick_gain = heap[h].top().first;
        }
      }
      if (pick < 0) break;
      locked[pick] = 1;
      if (counts(pick)) on_one += side[pick] ? -1 : 1;
      side[pick] ^= 1;
      cur -= pick_gain;
      moved.push_back(pick);
      for (auto [w, c] : adj_[pick]) {
        if (locked[w]) continue;
        gains[w] = gain(side, w);
        heap[kind(w)].push({gains[w], w});
      }
      if ((on_one == lo || on_one == hi) && (best < 0 || cur < best)) {
        best = cur;
        best_len = moved.size();
      }
    }
    for (std::size_t i = moved.size(); i > best_len; --i) side[moved[i - 1]] ^= 1;  // undo past the best prefix
    return best;
  }

  const Graph& g_;
  std::vector<std::vector<std::pair<int, int>>> adj_;
  int n_, total_ = 0;
  bool by_terminals_ = true;
};

// Starts of either method: opt.bisection_starts, fewer on large graphs
// (about 4 million channel visits in all for FM), at least one.
int bisection_starts(const Graph& g, const AnalysisOptions& opt) {
  const double work = double(g.routers()) + 2.0 * double(g.channels());
  return std::max(1, std::min(opt.bisection_starts, int(4e6 / work)));
}

// The best of multi-start Fiduccia-Mattheyses: from the split in router-id
// order, then from random balanced splits.
Bisection fm_bisection(const Graph& g, const AnalysisOptions& opt, Fm& fm) {
  const int n = g.routers();
  const int starts = bisection_starts(g, opt);
  Rng rng(opt.seed, 0x62697365ULL);
  std::int64_t best = -1;
  std::vector<char> best_side;
  std::vector<int> counted, free_routers;
  for (int r = 0; r < n; ++r) (fm.counts(r) ? counted : free_routers).push_back(r);
  for (int s = 0; s < starts; ++s) {
    if (opt.progress) opt.progress("bisection", s, starts);
    std::vector<char> side(n, 0);
    if (s == 0) {
      for (std::size_t i = counted.size() / 2; i < counted.size(); ++i) side[counted[i]] = 1;
      for (std::size_t i = free_routers.size() / 2; i < free_routers.size(); ++i) side[free_routers[i]] = 1;
    } else {
      std::vector<int> c = counted;
      for (std::size_t i = c.size(); i > 1; --i) std::swap(c[i - 1], c[rng.below(std::uint32_t(i))]);
      for (std::size_t i = 0; i < c.size() / 2; ++i) side[c[i]] = 1;
      for (int r : free_routers) side[r] = char(rng.below(2));
    }
    const std::int64_t cut = fm.refine(side);
    if (cut >= 0 && (best < 0 || cut < best)) {
      best = cut;
      best_side = side;
    }
  }
  Bisection b;
  b.cut = best;
  b.side = best_side;
  b.method = fmt::format("Fiduccia-Mattheyses, {} start{} (seed {})", starts, starts == 1 ? "" : "s", opt.seed);
  return b;
}

// METIS's multilevel bisection (the best of as many as FM has starts),
// weighting the routers that count, then its sides made exactly floor and
// ceil of half (METIS allows 0.1 % more) and refined by Fiduccia-Mattheyses
// from there.
Bisection metis_then_fm(const Graph& g, const AnalysisOptions& opt, Fm& fm) {
  if (opt.progress) opt.progress("bisection (METIS)", 0, 1);
  std::vector<int> weight(g.routers());
  for (int r = 0; r < g.routers(); ++r) weight[r] = fm.counts(r) ? 1 : 0;
  const int tries = bisection_starts(g, opt);
  MetisBisection m = metis_bisection(fm.adjacency(), weight, opt.seed, tries);
  const int moved = fm.rebalance(m.side);
  Bisection b;
  b.cut = fm.refine(m.side);
  b.side = std::move(m.side);
  b.method = fmt::format("METIS recursive bisection, best of {} (seed {}; its cut {}, {} router{} moved to balance), "
                         "then Fiduccia-Mattheyses",
                         tries, opt.seed, m.cut, moved, moved == 1 ? "" : "s");
  return b;
}

}  // namespace

const std::vector<std::string>& bisection_method_names() {
  static const std::vector<std::string> names{"fm", "metis", "best"};
  return names;
}

BisectionMethod parse_bisection_method(const std::string& name) {
  const auto& names = bisection_method_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return BisectionMethod(i);
  throw std::invalid_argument(fmt::format("bisection method '{}' (allowed: {})", name, fmt::join(names, ", ")));
}

Bisection bisection(const Graph& g, const AnalysisOptions& opt) {
  const int n = g.routers();
  if (n < 2) {
    Bisection b;
    b.exact = true;
    b.method = "exact (one router)";
    b.side.assign(n, 0);
    return b;
  }
  if (n <= opt.exact_bisection_routers) return exact_bisection(g, opt.balance_routers);
  Fm fm(g, opt.balance_routers);
  Bisection b;
  switch (opt.bisection_method) {
    case BisectionMethod::fm:
      b = fm_bisection(g, opt, fm);
      break;
    case BisectionMethod::metis:
      b = metis_then_fm(g, opt, fm);
      break;
    case BisectionMethod::best: {
      Bisection m = metis_then_fm(g, opt, fm), f = fm_bisection(g, opt, fm);
      const std::string both = fmt::format("best of METIS (cut {}) and Fiduccia-Mattheyses (cut {}): ", m.cut, f.cut);
      b = m.cut <= f.cut ? std::move(m) : std::move(f);  // a tie goes to METIS
      b.method = both + b.method;
      break;
    }
  }
  b.method = "upper bound: " + b.method;
  return b;
}

Analysis analyze(const Graph& g, const AnalysisOptions& opt) {
  Analysis a;
  a.name = g.name;
  a.routers = g.routers();
  a.endpoints = g.endpoints();
  a.channels = g.channels();
  a.radix_min = a.routers ? g.radix(0) : 0;
  std::int64_t ports = 0;
  for (int r = 0; r < a.routers; ++r) {
    a.radix_max = std::max(a.radix_max, g.radix(r));
    a.radix_min = std::min(a.radix_min, g.radix(r));
    a.terminal_routers += g.terminals[r] > 0;
    ports += g.radix(r);
  }
  distances_and_paths(g, opt, a);
  if (a.terminal_routers == a.routers && a.diameter > 0) {
    int k = 0;
    for (int r = 0; r < a.routers; ++r) k = std::max(k, g.network_ports(r));
    double moore = 1, term = k;
    for (int i = 0; i < a.diameter; ++i, term *= k - 1) moore += term;
    a.moore_bound_fraction = a.routers / moore;
  }
  if (opt.bisection) {
    a.bisection = bisection(g, opt);
  } else {
    a.bisection.cut = -1;
    a.bisection.method = "skipped";
  }
  if (a.endpoints > 0) {
    a.bisection_beta = opt.bisection ? double(a.bisection.cut) / (a.endpoints / 2.0) : -1;
    a.ports_per_endpoint = double(ports) / a.endpoints;
    a.links_per_endpoint = double(a.endpoints + a.channels) / a.endpoints;
    a.power_per_endpoint_w = double(ports) * 4 * 0.7 / a.endpoints;
  }
  return a;
}

}  // namespace nwn::topo

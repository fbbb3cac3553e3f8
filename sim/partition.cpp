#include "partition.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace nwn {

namespace {

// Units (lists of routers) in order, dealt to `ranks` ranks as contiguous
// runs of about equal weight, at least one unit each.
std::vector<int> deal(const std::vector<std::vector<int>>& units, const std::vector<long long>& weight, int ranks,
                      int routers) {
  std::vector<int> rank_of(std::size_t(routers), -1);
  long long left = 0;
  for (long long w : weight) left += w;
  std::size_t u = 0;
  for (int k = 0; k < ranks; ++k) {
    const long long target = left / (ranks - k);
    long long taken = 0;
    std::size_t n = 0;
    // Take units while the rank is under its share (a unit counts when half
    // of it fits), leaving one unit for each rank after this one.
    while (u < units.size() && units.size() - u > std::size_t(ranks - k - 1) &&
           (n == 0 || k == ranks - 1 || taken + weight[u] / 2 < target)) {
      for (int r : units[u]) rank_of[std::size_t(r)] = k;
      taken += weight[u];
      ++u;
      ++n;
    }
    left -= taken;
  }
  return rank_of;
}

long long router_weight(const topo::Graph& g, int r) { return std::max(1, g.radix(r)); }

// Fat trees: the subtrees left when the top level goes, in order of their
// first router; the top routers are dealt to them in turn.
std::vector<std::vector<int>> pods(const topo::Graph& g) {
  const int n = g.routers();
  const int top = *std::max_element(g.group.begin(), g.group.end());
  std::vector<int> pod(std::size_t(n), -1);
  std::vector<std::vector<int>> units;
  for (int s = 0; s < n; ++s) {
    if (g.group[s] == top || pod[s] >= 0) continue;
    const int id = int(units.size());
    units.emplace_back();
    std::vector<int> stack{s};
    pod[s] = id;
    while (!stack.empty()) {
      const int r = stack.back();
      stack.pop_back();
      units[id].push_back(r);
      for (int f : g.links[r])
        if (g.group[f] != top && pod[f] < 0) {
          pod[f] = id;
          stack.push_back(f);
        }
    }
  }
  if (units.empty()) return {};  // one level: no pods
  int next = 0;
  for (int r = 0; r < n; ++r)
    if (g.group[r] == top) units[std::size_t(next++ % int(units.size()))].push_back(r);
  return units;
}

std::vector<std::vector<int>> labelled_groups(const topo::Graph& g) {
  std::map<int, std::vector<int>> by_label;
  for (int r = 0; r < g.routers(); ++r) by_label[g.group[r]].push_back(r);
  std::vector<std::vector<int>> units;
  for (auto& [label, routers] : by_label) units.push_back(std::move(routers));
  std::sort(units.begin(), units.end(), [](auto& a, auto& b) { return a.front() < b.front(); });
  return units;
}

}  // namespace

std::vector<int> partition_routers(const Config& cfg, const topo::Graph& g, int ranks) {
  const int n = g.routers();
  if (ranks > n)
    throw ConfigError(fmt::format("config error: mpirun -np {} for {} with {} routers: each rank needs a router "
                                  "(allowed: at most {} ranks)",
                                  ranks, g.name, n, n));
  const std::string& how = cfg.get_string("sim.partition");
  std::vector<std::vector<int>> units;
  if (how == "groups") {
    const std::string& topology = cfg.get_string("network.topology");
    const bool tree = topology == "fclos" || topology == "fattree";
    if (!g.group.empty()) units = tree ? pods(g) : labelled_groups(g);
    if (units.size() < 2)
      throw ConfigError(fmt::format("config error: sim.partition = groups: {} has no groups or pods to split along "
                                    "(allowed here: contiguous)",
                                    g.name));
    if (int(units.size()) < ranks)
      throw ConfigError(fmt::format("config error: sim.partition = groups: {} has {} {}, fewer than the {} ranks: "
                                    "start at most {} ranks, or set sim.partition = contiguous",
                                    g.name, units.size(), tree ? "pods" : "groups", ranks, units.size()));
  } else {
    for (int r = 0; r < n; ++r) units.push_back({r});
  }
  std::vector<long long> weight;
  for (auto& u : units) {
    long long w = 0;
    for (int r : u) w += router_weight(g, r);
    weight.push_back(w);
  }
  return deal(units, weight, ranks, n);
}

long long channels_between_ranks(const topo::Graph& g, const std::vector<int>& rank_of_router) {
  long long n = 0;
  for (int a = 0; a < g.routers(); ++a)
    for (int b : g.links[a]) n += rank_of_router[std::size_t(a)] != rank_of_router[std::size_t(b)];
  return n;
}

}  // namespace nwn

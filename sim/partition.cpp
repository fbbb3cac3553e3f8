#include "partition.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "topo/metis_bisection.hpp"

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

// METIS over the router graph: vertices weighted as deal's, edges by the
// channels between two routers (every router-to-router channel of a graph
// network has the same latency, so every cut allows the same block; the
// fewest channels cut is the least exchanged). Of METIS's two methods and
// router-id ranges (`ranges`), the split with the fewest channels between
// ranks whose every rank has routers and at most 3 % over its share (and
// one router): so never worse than contiguous. Ranks numbered in the order
// of their first router. A fixed seed: every rank computes the same.
std::vector<int> metis_ranks(const topo::Graph& g, int ranks, std::vector<int> ranges) {
  const int n = g.routers();
  if (ranks == 1) return ranges;
  std::vector<std::vector<std::pair<int, int>>> adjacency(static_cast<std::size_t>(n));
  std::vector<int> weight(static_cast<std::size_t>(n));
  long long total = 0, heaviest = 0;
  for (int r = 0; r < n; ++r) {
    weight[std::size_t(r)] = int(router_weight(g, r));
    total += weight[std::size_t(r)];
    heaviest = std::max<long long>(heaviest, weight[std::size_t(r)]);
    std::vector<int> far = g.links[std::size_t(r)];
    std::sort(far.begin(), far.end());
    for (std::size_t i = 0; i < far.size();) {
      std::size_t j = i;
      while (j < far.size() && far[j] == far[i]) ++j;
      if (far[i] != r) adjacency[std::size_t(r)].push_back({far[i], int(j - i)});  // METIS takes no self-loop
      i = j;
    }
  }
  std::vector<int> best = std::move(ranges);
  long long best_cut = channels_between_ranks(g, best);
  for (const auto& [method, ufactor] : {std::pair{topo::MetisMethod::Recursive, 10}, {topo::MetisMethod::Kway, 30}}) {
    const std::vector<int> part = topo::metis_partition(adjacency, weight, ranks, method, 1, 1, ufactor).part;
    std::vector<int> renumber(static_cast<std::size_t>(ranks), -1), rank_of(static_cast<std::size_t>(n));
    std::vector<long long> load(static_cast<std::size_t>(ranks), 0);
    int next = 0;
    for (int r = 0; r < n; ++r) {
      int& k = renumber[std::size_t(part[std::size_t(r)])];
      if (k < 0) k = next++;
      rank_of[std::size_t(r)] = k;
      load[std::size_t(k)] += weight[std::size_t(r)];
    }
    if (next < ranks || *std::max_element(load.begin(), load.end()) > total * 103 / 100 / ranks + heaviest) continue;
    const long long cut = channels_between_ranks(g, rank_of);
    if (cut < best_cut) {
      best = std::move(rank_of);
      best_cut = cut;
    }
  }
  return best;
}

// The split by one method: "contiguous", "groups" or "metis". Groups
// throw ConfigError where the topology has none, or fewer than the ranks;
// with `quiet_groups`, an empty split instead (auto tries them).
std::vector<int> split_by(const std::string& how, const Config& cfg, const topo::Graph& g, int ranks,
                          bool quiet_groups) {
  const int n = g.routers();
  std::vector<std::vector<int>> units;
  if (how == "groups") {
    const std::string& topology = cfg.get_string("network.topology");
    const bool tree = topology == "fclos" || topology == "fattree";
    if (!g.group.empty()) units = tree ? pods(g) : labelled_groups(g);
    if ((units.size() < 2 || int(units.size()) < ranks) && quiet_groups) return {};
    if (units.size() < 2)
      throw ConfigError(fmt::format("config error: sim.partition = groups: {} has no groups or pods to split along "
                                    "(allowed here: auto, contiguous or metis)",
                                    g.name));
    if (int(units.size()) < ranks)
      throw ConfigError(fmt::format("config error: sim.partition = groups: {} has {} {}, fewer than the {} ranks: "
                                    "start at most {} ranks, or set sim.partition = auto, contiguous or metis",
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
  std::vector<int> rank_of = deal(units, weight, ranks, n);
  return how == "metis" ? metis_ranks(g, ranks, std::move(rank_of)) : rank_of;
}

}  // namespace

PartitionScore score_partition(const topo::Graph& g, const std::vector<int>& rank_of_router,
                               const std::vector<int>& colour, int ranks) {
  PartitionScore s;
  std::vector<long long> load(std::size_t(ranks), 0);
  for (int r = 0; r < g.routers(); ++r) load[std::size_t(rank_of_router[std::size_t(r)])] += router_weight(g, r);
  s.block_weight = double(*std::max_element(load.begin(), load.end()));
  if (!colour.empty()) {
    s.colours_cost = colours_cost(g, rank_of_router, colour, ranks);
    s.two_colours = s.colours_cost <= kColoursMaxCost;
    if (s.two_colours) s.block_weight *= s.colours_cost;
  }
  s.channels_between = channels_between_ranks(g, rank_of_router);
  return s;
}

bool better_partition(const PartitionScore& a, const PartitionScore& b) {
  const double slack = 1.0 + kPartitionBalanceSlack;
  if (a.block_weight > b.block_weight * slack) return false;
  if (b.block_weight > a.block_weight * slack) return true;
  if (a.two_colours != b.two_colours) return a.two_colours;
  return a.channels_between < b.channels_between;
}

std::vector<int> partition_routers(const Config& cfg, const topo::Graph& g, int ranks, std::string* method) {
  const int n = g.routers();
  if (ranks > n)
    throw ConfigError(fmt::format("config error: mpirun -np {} for {} with {} routers: each rank needs a router "
                                  "(allowed: at most {} ranks)",
                                  ranks, g.name, n, n));
  std::string how = cfg.get_string("sim.partition");
  if (how != "auto" || ranks == 1) {
    if (how == "auto") how = "contiguous";
    if (method) *method = how;
    return split_by(how, cfg, g, ranks, false);
  }
  // Every method, scored as the ranks would run it (better_partition);
  // ties go to the earlier in this order.
  const std::vector<int> colour = topo::two_colours(g);
  std::vector<int> best;
  PartitionScore best_score;
  for (const char* candidate : {"contiguous", "groups", "metis"}) {
    std::vector<int> rank_of = split_by(candidate, cfg, g, ranks, true);
    if (rank_of.empty()) continue;
    const PartitionScore score = score_partition(g, rank_of, colour, ranks);
    if (best.empty() || better_partition(score, best_score)) {
      best = std::move(rank_of);
      best_score = score;
      if (method) *method = candidate;
    }
  }
  return best;
}

double colours_cost(const topo::Graph& g, const std::vector<int>& rank_of_router, const std::vector<int>& colour,
                    int ranks) {
  std::vector<long long> load(std::size_t(2 * ranks), 0);  // rank k, colour c: load[2 k + c]
  for (int r = 0; r < g.routers(); ++r)
    load[std::size_t(2 * rank_of_router[std::size_t(r)] + colour[std::size_t(r)])] += router_weight(g, r);
  long long by_colour[2] = {0, 0}, together = 0;  // the colours' heaviest ranks; the heaviest rank
  for (int k = 0; k < ranks; ++k) {
    for (int c = 0; c < 2; ++c) by_colour[c] = std::max(by_colour[c], load[std::size_t(2 * k + c)]);
    together = std::max(together, load[std::size_t(2 * k)] + load[std::size_t(2 * k + 1)]);
  }
  return double(by_colour[0] + by_colour[1]) / double(std::max(1LL, together));
}

long long channels_between_ranks(const topo::Graph& g, const std::vector<int>& rank_of_router) {
  long long n = 0;
  for (int a = 0; a < g.routers(); ++a)
    for (int b : g.links[a]) n += rank_of_router[std::size_t(a)] != rank_of_router[std::size_t(b)];
  return n;
}

}  // namespace nwn

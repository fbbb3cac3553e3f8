#include "graph.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace nwn::topo {

int Graph::endpoints() const {
  int n = 0;
  for (int t : terminals) n += t;
  return n;
}

int Graph::max_radix() const {
  int k = 0;
  for (int r = 0; r < routers(); ++r) k = std::max(k, radix(r));
  int kept = 0;
  for (int p : port_groups) kept += p;
  return std::max(k, kept);
}

std::int64_t Graph::channels() const {
  std::int64_t n = 0;
  for (auto& l : links) n += std::int64_t(l.size());
  return n / 2;
}

void Graph::finalize() {
  const int n = routers();
  if (int(terminals.size()) != n)
    throw std::logic_error(fmt::format("{}: {} routers but {} terminal counts", name, n, terminals.size()));
  if (!group.empty() && int(group.size()) != n)
    throw std::logic_error(fmt::format("{}: {} routers but {} group labels", name, n, group.size()));
  // Pair the k-th channel a->b with the k-th channel b->a. Each router's
  // ports sorted by far router (stable: port order within a far router), so
  // "the k-th port of b toward a" is a binary search.
  std::vector<std::vector<std::pair<int, int>>> by_far(n);  // (far router, port)
  for (int a = 0; a < n; ++a) {
    auto& v = by_far[a];
    v.reserve(links[a].size());
    for (int i = 0; i < int(links[a].size()); ++i) {
      const int b = links[a][i];
      if (b < 0 || b >= n || b == a)
        throw std::logic_error(fmt::format("{}: router {} port {} leads to router {}", name, a, i, b));
      v.push_back({b, i});
    }
    std::sort(v.begin(), v.end());
  }
  auto ports_toward = [&](int a, int b) {
    const auto& v = by_far[a];
    auto lo = std::lower_bound(v.begin(), v.end(), std::make_pair(b, -1));
    auto hi = std::lower_bound(lo, v.end(), std::make_pair(b + 1, -1));
    return std::make_pair(lo, hi);
  };
  peer_port.assign(n, {});
  for (int a = 0; a < n; ++a) {
    peer_port[a].assign(links[a].size(), -1);
    const auto& v = by_far[a];
    for (std::size_t j = 0; j < v.size();) {
      const int b = v[j].first;
      std::size_t end = j;
      while (end < v.size() && v[end].first == b) ++end;
      const auto [lo, hi] = ports_toward(b, a);
      if (std::size_t(hi - lo) != end - j)
        throw std::logic_error(fmt::format("{}: router {} has {} channel(s) to router {} but {} back", name, a,
                                           end - j, b, hi - lo));
      for (std::size_t k = 0; k < end - j; ++k) peer_port[a][v[j + k].second] = (lo + k)->second;
      j = end;
    }
  }
  endpoint_router_.clear();
  first_endpoint_.assign(n, 0);
  for (int r = 0; r < n; ++r) {
    if (terminals[r] < 0) throw std::logic_error(fmt::format("{}: router {} has {} terminals", name, r, terminals[r]));
    first_endpoint_[r] = int(endpoint_router_.size());
    endpoint_router_.insert(endpoint_router_.end(), terminals[r], r);
  }
}

std::int64_t size_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

std::int64_t size_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

void check_size(const std::string& params, std::int64_t routers, std::int64_t endpoints, std::int64_t ports) {
  auto count = [](std::int64_t n) {
    return n == std::numeric_limits<std::int64_t>::max() ? std::string("more than 2^63") : fmt::format("{}", n);
  };
  auto check = [&](std::int64_t n, std::int64_t limit, const char* what) {
    if (n > limit)
      throw ConfigError(fmt::format("config error: {}: {} {}; at most {} are allowed (topo analyze and run alike)",
                                    params, count(n), what, limit));
  };
  check(routers, kMaxGraphRouters, "routers");
  check(endpoints, kMaxGraphEndpoints, "endpoints");
  check(ports, kMaxGraphPorts, "network ports (two per channel)");
}

std::string key_values(const Config& cfg, const std::vector<std::string>& keys) {
  std::string s;
  for (auto& k : keys) s += (s.empty() ? "" : ", ") + k + " = " + cfg.text(k);
  return s;
}

std::vector<int> two_colours(std::size_t n, const std::vector<std::pair<std::size_t, std::size_t>>& edges) {
  std::vector<std::vector<std::size_t>> neighbours(n);
  for (const auto& [a, b] : edges) {
    neighbours[a].push_back(b);
    neighbours[b].push_back(a);
  }
  std::vector<int> colour(n, -1);
  std::vector<std::size_t> queue;
  for (std::size_t root = 0; root < n; ++root) {
    if (colour[root] >= 0) continue;
    colour[root] = 0;
    queue.assign(1, root);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::size_t i = queue[head];
      for (std::size_t k : neighbours[i]) {
        if (colour[k] < 0) {
          colour[k] = 1 - colour[i];
          queue.push_back(k);
        } else if (colour[k] == colour[i]) {
          return {};
        }
      }
    }
  }
  if (std::count(colour.begin(), colour.end(), 1) == 0) return {};
  return colour;
}

std::vector<int> two_colours(const Graph& g) {
  std::vector<std::pair<std::size_t, std::size_t>> channels;
  for (int a = 0; a < g.routers(); ++a)
    for (int b : g.links[a])
      if (a < b) channels.emplace_back(std::size_t(a), std::size_t(b));
  return two_colours(std::size_t(g.routers()), channels);
}

std::vector<std::uint8_t> distances(const Graph& g) {
  const int n = g.routers();
  std::vector<std::uint8_t> d(std::size_t(n) * n, 0xff);
  std::vector<int> queue(n);
  for (int s = 0; s < n; ++s) {
    std::uint8_t* row = &d[std::size_t(s) * n];
    int head = 0, tail = 0;
    row[s] = 0;
    queue[tail++] = s;
    while (head < tail) {
      const int u = queue[head++];
      for (int v : g.links[u])
        if (row[v] == 0xff) {
          row[v] = std::uint8_t(row[u] + 1);
          queue[tail++] = v;
        }
    }
  }
  return d;
}

Registry<GraphTopology>& graph_topology_registry() {
  static Registry<GraphTopology> registry("graph topology");
  return registry;
}

const GraphTopology* find_graph_topology(const std::string& name) { return graph_topology_registry().find(name); }

Graph build_graph(const Config& cfg) {
  const std::string& name = cfg.get_string("network.topology");
  const GraphTopology* t = find_graph_topology(name);
  if (!t) {
    std::string have;
    for (auto& [n, x] : graph_topology_registry()) have += (have.empty() ? "" : ", ") + n;
    throw ConfigError("config error: network.topology = '" + name + "' has no graph generator (graph topologies: " +
                      have + ")");
  }
  Graph g = t->build(cfg);
  g.finalize();
  return g;
}

}  // namespace nwn::topo

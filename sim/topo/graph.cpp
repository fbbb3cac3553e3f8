#include "graph.hpp"

#include <algorithm>
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
  return k;
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
  // Pair the k-th channel a->b with the k-th channel b->a.
  peer_port.assign(n, {});
  std::map<std::pair<int, int>, std::vector<int>> ports_to;  // (a, b) -> ports of a toward b
  for (int a = 0; a < n; ++a) {
    peer_port[a].assign(links[a].size(), -1);
    for (int i = 0; i < int(links[a].size()); ++i) {
      const int b = links[a][i];
      if (b < 0 || b >= n || b == a)
        throw std::logic_error(fmt::format("{}: router {} port {} leads to router {}", name, a, i, b));
      ports_to[{a, b}].push_back(i);
    }
  }
  for (auto& [ab, ports] : ports_to) {
    auto back = ports_to.find({ab.second, ab.first});
    if (back == ports_to.end() || back->second.size() != ports.size())
      throw std::logic_error(fmt::format("{}: router {} has {} channel(s) to router {} but {} back", name, ab.first,
                                         ports.size(), ab.second,
                                         back == ports_to.end() ? 0 : back->second.size()));
    for (std::size_t k = 0; k < ports.size(); ++k) peer_port[ab.first][ports[k]] = back->second[k];
  }
  endpoint_router_.clear();
  first_endpoint_.assign(n, 0);
  for (int r = 0; r < n; ++r) {
    if (terminals[r] < 0) throw std::logic_error(fmt::format("{}: router {} has {} terminals", name, r, terminals[r]));
    first_endpoint_[r] = int(endpoint_router_.size());
    endpoint_router_.insert(endpoint_router_.end(), terminals[r], r);
  }
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

std::map<std::string, GraphTopology>& graph_topology_registry() {
  static std::map<std::string, GraphTopology> registry;
  return registry;
}

const GraphTopology* find_graph_topology(const std::string& name) {
  auto& reg = graph_topology_registry();
  auto it = reg.find(name);
  return it == reg.end() ? nullptr : &it->second;
}

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

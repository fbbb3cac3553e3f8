// hyperx (graph): the router graph of the HyperX network of
// sim/topology_hyperx.cpp, for `nwnsim topo analyze`. It reads that
// network's keys (network.hyperx_s, network.hyperx_k, network.hyperx_t,
// router.radix) and declares none. Router ids and ports are those of
// HyperXNetwork: T terminals, then for each dimension i, for each other
// coordinate v in increasing order, K parallel channels.
#include <fmt/format.h>

#include <sstream>

#include "graph.hpp"

namespace nwn::topo {
namespace {

Graph build_hyperx(const Config& cfg) {
  const std::string& text = cfg.get_string("network.hyperx_s");
  std::vector<int> s;
  for (std::int64_t v : int_list(cfg, "network.hyperx_s", 2, 4096, "routers per dimension")) s.push_back(int(v));
  if (s.empty() || s.size() > 8)
    throw ConfigError("config error: network.hyperx_s = '" + text + "': needs 1 to 8 dimensions");
  const int K = int(cfg.get_int("network.hyperx_k")), T = int(cfg.get_int("network.hyperx_t"));
  std::int64_t routers = 1, ports = T;
  for (int x : s) {
    routers = size_mul(routers, x);
    ports = size_add(ports, size_mul(x - 1, K));
  }
  check_size(key_values(cfg, {"network.hyperx_s", "network.hyperx_k", "network.hyperx_t"}), routers,
             size_mul(routers, T), size_mul(routers, ports - T));
  std::vector<int> stride{1};
  for (std::size_t i = 0; i + 1 < s.size(); ++i) stride.push_back(stride.back() * s[i]);
  const int radix = int(cfg.get_int("router.radix"));
  if (radix < ports)
    throw ConfigError(fmt::format("config error: router.radix = {}: HyperX ({}) with K = {} and T = {} needs at "
                                  "least {} ports",
                                  radix, text, K, T, ports));
  Graph g;
  g.name = fmt::format("hyperx S=({}) K={} T={}", text, K, T);
  g.terminals.assign(std::size_t(routers), T);
  g.links.assign(std::size_t(routers), {});
  for (int r = 0; r < int(routers); ++r)
    for (std::size_t i = 0; i < s.size(); ++i) {
      const int cur = r / stride[i] % s[i];
      for (int v = 0; v < s[i]; ++v)
        if (v != cur)
          for (int c = 0; c < K; ++c) g.links[r].push_back(r + (v - cur) * stride[i]);
    }
  return g;
}

GraphTopologyRegistration reg_hyperx_graph(GraphTopology{
    "hyperx", "HyperX (L, S, K, T) of the hyperx network: network.hyperx_s, hyperx_k, hyperx_t, router.radix", {},
    build_hyperx});

}  // namespace
}  // namespace nwn::topo

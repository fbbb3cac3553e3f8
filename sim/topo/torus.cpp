#include "torus.hpp"

#include <fmt/format.h>

#include <sstream>

#include "graph.hpp"

namespace nwn::topo {

int TorusShape::step(int r, int i, int dir) const {
  int stride = 1;
  for (int j = 0; j < i; ++j) stride *= k[j];
  const int c = coord(r, i);
  int n = c + dir;
  if (n < 0 || n >= k[i]) {
    if (!wrap) return -1;
    n = (n + k[i]) % k[i];
  }
  return r + (n - c) * stride;
}

int TorusShape::port(int r, int i, int dir) const {
  if (wrap) return 2 * i + (dir > 0 ? 0 : 1);
  int p = 0;
  for (int j = 0; j < i; ++j) {
    const int c = coord(r, j);
    p += (c < k[j] - 1) + (c > 0);
  }
  const int c = coord(r, i);
  if (dir > 0) return c < k[i] - 1 ? p : -1;
  return c > 0 ? p + (c < k[i] - 1) : -1;
}

bool is_torus_topology(const std::string& name) { return name == "torus" || name == "mesh"; }

TorusShape torus_shape(const Config& cfg) {
  const std::string& name = cfg.get_string("network.topology");
  if (!is_torus_topology(name)) throw std::logic_error("torus_shape: network.topology = " + name);
  TorusShape s;
  s.wrap = name == "torus";
  const std::string key = "network." + name + ".dims";
  const std::string text = cfg.get_string(key);
  std::int64_t routers = 1;
  for (std::int64_t v : int_list(cfg, key, 2, 4096, "routers per dimension, e.g. \"8,8\"")) {
    s.k.push_back(int(v));
    routers = size_mul(routers, v);
  }
  if (s.k.empty() || s.k.size() > 8)
    throw ConfigError(fmt::format("config error: {} = '{}': needs 1 to 8 dimensions", key, text));
  s.t = int(cfg.get_int("network." + name + ".t"));
  // Ports: two per router and dimension, less the open ends of a mesh.
  std::int64_t ports = 0;
  for (int k : s.k) ports = size_add(ports, s.wrap ? size_mul(routers, 2) : size_mul(routers / k, 2 * (k - 1)));
  check_size(key_values(cfg, {key, "network." + name + ".t"}), routers, size_mul(routers, s.t), ports);
  s.routers = int(routers);
  return s;
}

namespace {

Graph build_torus(const Config& cfg) {
  const TorusShape s = torus_shape(cfg);
  Graph g;
  std::string dims;
  for (int v : s.k) dims += (dims.empty() ? "" : "x") + std::to_string(v);
  g.name = fmt::format("{} {} t={}", s.wrap ? "torus" : "mesh", dims, s.t);
  g.terminals.assign(s.routers, s.t);
  g.links.resize(s.routers);
  for (int r = 0; r < s.routers; ++r)
    for (int i = 0; i < s.dims(); ++i)
      for (int dir : {+1, -1}) {
        const int far = s.step(r, i, dir);
        if (far >= 0) g.links[r].push_back(far);
      }
  return g;
}

std::vector<KeySpec> keys(const std::string& name, const char* what) {
  return {
      {"network." + name + ".dims", ValueType::String, "4,4", 0, 0, nullptr, "routers",
       name + ": routers per dimension, comma-separated (" + what + ")"},
      {"network." + name + ".t", ValueType::Int, "1", 1, 4096, nullptr, "terminals", name + ": terminals per router"},
  };
}

GraphTopologyRegistration reg_torus({"torus",
                                     "k-ary n-cube with wraparound channels; network.torus.dims = \"k0,k1,...\", "
                                     "network.torus.t terminals per router",
                                     keys("torus", "k-ary n-cube: the ring of each dimension wraps around"),
                                     build_torus});
GraphTopologyRegistration reg_mesh({"mesh",
                                    "mesh (no wraparound); network.mesh.dims = \"k0,k1,...\", network.mesh.t "
                                    "terminals per router",
                                    keys("mesh", "no wraparound channels"), build_torus});

}  // namespace
}  // namespace nwn::topo

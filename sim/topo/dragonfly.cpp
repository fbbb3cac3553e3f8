// dragonfly: the Dragonfly (Kim, Dally, Scott and Abts, ISCA 2008): g groups
// of a routers, each router with p terminals, a - 1 local channels (the
// group is fully connected) and h global channels. Balanced default:
// a = 2p = 2h; g = a*h + 1 (the largest, one global channel between every
// pair of groups).
//
// Global arrangement (default "absolute", also called consecutive): a group's a*h
// global ports are numbered l = i*h + j (router i of the group, global port
// j). With m = floor(a*h / (g - 1)) channels between every pair of groups,
// global port l of group G leads to the (l mod (g-1))-th other group in
// increasing order (skipping G), as its (l div (g-1))-th channel there; ports
// l >= m*(g - 1) stay unused (none when g - 1 divides a*h). For g = a*h + 1,
// group G's port l leads to group l (l < G) or l + 1 (l >= G).
//
// With network.dragonfly.arrangement = palmtree (Camarero, Vallejo and
// Beivide's palm tree) port l leads instead to group G + (l mod (g-1)) + 1
// (mod g), as the same-numbered channel there; the far port is
// (l div (g-1))(g-1) + g - 2 - (l mod (g-1)).
//
// Router id = G*a + i. Ports: p terminals, a - 1 local channels (to routers
// 0 .. a-1 of the group, skipping itself), then the h global ports.
// Group label: G.
#include <fmt/format.h>

#include "graph.hpp"

namespace nwn::topo {
namespace {

struct DragonflyShape {
  int a, p, h, g;
};

DragonflyShape dragonfly_shape(const Config& cfg) {
  DragonflyShape s;
  s.p = int(cfg.get_int("network.dragonfly.p"));
  s.h = int(cfg.get_int("network.dragonfly.h"));
  s.a = int(cfg.get_int("network.dragonfly.a"));
  s.g = int(cfg.get_int("network.dragonfly.g"));
  if (s.h == 0) s.h = s.p;
  if (s.a == 0) s.a = 2 * s.p;
  if (s.a < 1)
    throw ConfigError("config error: network.dragonfly.a = 0 with network.dragonfly.p = 0: set a (routers per group)");
  const std::int64_t max_g = std::int64_t(s.a) * s.h + 1;
  if (s.g == 0) s.g = int(std::min<std::int64_t>(max_g, 1 << 20));
  if (s.g > max_g)
    throw ConfigError(fmt::format("config error: network.dragonfly.g = {}: with a = {} routers per group and h = {} "
                                  "global channels each, at most a*h + 1 = {} groups can be connected",
                                  s.g, s.a, s.h, max_g));
  const std::int64_t routers = size_mul(s.g, s.a);
  check_size(key_values(cfg, {"network.dragonfly.p", "network.dragonfly.h", "network.dragonfly.a",
                              "network.dragonfly.g"}),
             routers, size_mul(routers, s.p), size_mul(routers, std::int64_t(s.a) - 1 + s.h));
  return s;
}

Graph build_dragonfly(const Config& cfg) {
  const DragonflyShape s = dragonfly_shape(cfg);
  Graph g;
  g.name = fmt::format("dragonfly a={} p={} h={} g={}", s.a, s.p, s.h, s.g);
  const int n = s.g * s.a;
  g.terminals.assign(n, s.p);
  g.links.assign(n, {});
  g.group.assign(n, 0);
  const int others = s.g - 1;
  const int per_pair = others > 0 ? s.a * s.h / others : 0;
  const bool palmtree = cfg.get_string("network.dragonfly.arrangement") == "palmtree";
  for (int G = 0; G < s.g; ++G)
    for (int i = 0; i < s.a; ++i) {
      const int r = G * s.a + i;
      g.group[r] = G;
      for (int j = 0; j < s.a; ++j)
        if (j != i) g.links[r].push_back(G * s.a + j);
      for (int j = 0; j < s.h; ++j) {
        const int l = i * s.h + j;
        if (others == 0 || l >= per_pair * others) continue;  // unused global port
        const int k = l % others, copy = l / others;
        int H, back;
        if (palmtree) {
          H = (G + k + 1) % s.g;
          back = copy * others + (s.g - 2 - k);
        } else {
          H = k < G ? k : k + 1;                     // the k-th other group
          back = (G < H ? G : G - 1) + copy * others;  // G is that group's (G or G-1)-th other group
        }
        g.links[r].push_back(H * s.a + back / s.h);
      }
    }
  return g;
}

GraphTopology dragonfly_topology() {
  GraphTopology t{
    "dragonfly",
    "Dragonfly: g fully connected groups of a routers, p terminals and h global channels per router (absolute "
    "arrangement)",
    {
        {"network.dragonfly.p", ValueType::Int, "4", 0, 4096, nullptr, "terminals", "dragonfly: terminals per router"},
        {"network.dragonfly.h", ValueType::Int, "0", 0, 4096, nullptr, "channels",
         "dragonfly: global channels per router (0: p, balanced)"},
        {"network.dragonfly.a", ValueType::Int, "0", 0, 4096, nullptr, "routers",
         "dragonfly: routers per group (0: 2p, balanced)"},
        {"network.dragonfly.g", ValueType::Int, "0", 0, 1e7, nullptr, "groups",
         "dragonfly: groups (0: a*h + 1, the largest)"},
        {"network.dragonfly.arrangement", ValueType::String, "absolute", 0, 0,
         [] { return std::vector<std::string>{"absolute", "palmtree"}; }, "",
         "dragonfly: global channels: absolute (group l or l+1 from port l) or palmtree (group G+l+1)"},
    },
    build_dragonfly};
  t.group_label = GroupLabel::Group;  // group[r]: r's group
  return t;
}

GraphTopologyRegistration reg_dragonfly(dragonfly_topology());

}  // namespace
}  // namespace nwn::topo

// mlfm: the (h, l, p) Multi-Layer Full-Mesh (diameter-two paper §2.2.3): l
// layers of h + 1 local routers (LRs) each, p endpoints per LR. Each layer is
// a full mesh whose direct link between LRs i and j is replaced by two links
// to the global router (GR) {i, j}; the h(h+1)/2 GRs are shared by all layers.
// LR radix h + p, GR radix 2l; h = l = p (the default) gives the h-MLFM with
// every router of radix 2h: 3h(h+1)/2 routers, h^3 + h^2 endpoints, 2 hops
// between any two LRs (h paths within a column, one otherwise).
//
// Router ids: LR i of layer L is L*(h+1) + i; GR {i, j} (i < j) follows the
// LRs in lexicographic order of (i, j). Ports: an LR has its p terminals,
// then its GRs {i, j} by increasing j (skipping j = i); a GR {i, j} has, for
// each layer L = 0 .. l-1, LR i then LR j. Group label: the layer (l for GRs).
#include <fmt/format.h>

#include "graph.hpp"

namespace nwn::topo {
namespace {

Graph build_mlfm(const Config& cfg) {
  const int h = int(cfg.get_int("network.mlfm.h"));
  int l = int(cfg.get_int("network.mlfm.l")), p = int(cfg.get_int("network.mlfm.p"));
  if (l == 0) l = h;
  if (p == 0) p = h;
  // Local routers: p endpoints, h channels; global routers: 2l channels.
  const std::int64_t lrs = size_mul(l, h + 1), grs = size_mul(h, h + 1) / 2;
  check_size(key_values(cfg, {"network.mlfm.h", "network.mlfm.l", "network.mlfm.p"}), size_add(lrs, grs),
             size_mul(lrs, p), size_mul(size_mul(lrs, h), 2));
  std::vector<std::vector<int>> gr_id(h + 1, std::vector<int>(h + 1, -1));
  int next = int(lrs);
  for (int i = 0; i <= h; ++i)
    for (int j = i + 1; j <= h; ++j) gr_id[i][j] = gr_id[j][i] = next++;
  Graph g;
  g.name = fmt::format("mlfm h={} l={} p={}", h, l, p);
  g.terminals.assign(next, 0);
  g.links.assign(next, {});
  g.group.assign(next, l);
  for (int L = 0; L < l; ++L)
    for (int i = 0; i <= h; ++i) {
      const int r = L * (h + 1) + i;
      g.terminals[r] = p;
      g.group[r] = L;
      for (int j = 0; j <= h; ++j)
        if (j != i) g.links[r].push_back(gr_id[i][j]);
    }
  for (int i = 0; i <= h; ++i)
    for (int j = i + 1; j <= h; ++j)
      for (int L = 0; L < l; ++L) {
        g.links[gr_id[i][j]].push_back(L * (h + 1) + i);
        g.links[gr_id[i][j]].push_back(L * (h + 1) + j);
      }
  return g;
}

GraphTopologyRegistration reg_mlfm(GraphTopology{
    "mlfm",
    "Multi-Layer Full-Mesh (h, l, p): l layers of h+1 local routers, h(h+1)/2 global routers (h-MLFM: h = l = p)",
    {
        {"network.mlfm.h", ValueType::Int, "4", 1, 2048, nullptr, "links", "mlfm: global links per local router (h+1 LRs per layer)"},
        {"network.mlfm.l", ValueType::Int, "0", 0, 2048, nullptr, "layers", "mlfm: layers (0: h)"},
        {"network.mlfm.p", ValueType::Int, "0", 0, 4096, nullptr, "endpoints", "mlfm: endpoints per local router (0: h)"},
    },
    build_mlfm});

}  // namespace
}  // namespace nwn::topo

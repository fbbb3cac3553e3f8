// slimfly: the diameter-2 Slim Fly (Besta and Hoefler, SC14) on a McKay-
// Miller-Siran (MMS) graph, as the diameter-two paper (§2.1.2) defines it.
//
// q is a prime power, q = 4w + delta with delta in {-1, 0, 1}; xi is a
// primitive element of GF(q) (galois.hpp). Generator sets:
//   delta = +1: X = {1, xi^2, ..., xi^(q-3)},  X' = {xi, xi^3, ..., xi^(q-2)}
//   delta = -1: X = {1, xi^2, ..., xi^(2w-2), xi^(2w-1), xi^(2w+1), ..., xi^(4w-3)},
//               X' = {xi, xi^3, ..., xi^(2w-1), xi^(2w), xi^(2w+2), ..., xi^(4w-2)}
//   delta =  0: X = {1, xi^2, ..., xi^(q-2)},  X' = {xi, xi^3, ..., xi^(q-1)}
// Routers (s, a, b), s in {0, 1}, a, b in GF(q), numbered s*q^2 + a*q + b:
//   (0, x, y) -- (0, x, y')  if y - y' in X
//   (1, m, c) -- (1, m, c')  if c - c' in X'
//   (0, x, y) -- (1, m, c)   if y = m*x + c
// 2q^2 routers of network radix k' = (3q - delta)/2 (2w intra-subgraph
// channels, q to the other subgraph), diameter 2. Endpoints per router p:
// ceil(k'/2) by default (Besta and Hoefler's rule), or network.slimfly.p.
//
// Ports: terminals, then the 2w intra-subgraph channels by increasing far
// router, then the q channels to the other subgraph: from (0, x, y) to
// (1, m, y - m*x) for m = 0 .. q-1; from (1, m, c) to (0, x, m*x + c) for
// x = 0 .. q-1. Group label: the subgraph s.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "galois.hpp"
#include "graph.hpp"
#include "slimfly.hpp"

namespace nwn::topo {

SlimFlyShape slimfly_shape(int q) {
  SlimFlyShape s;
  s.q = q;
  const int r = q % 4;
  s.delta = r == 1 ? 1 : r == 3 ? -1 : 0;
  s.w = (q - s.delta) / 4;
  s.network_radix = (3 * q - s.delta) / 2;
  s.routers = 2 * std::int64_t(q) * q;
  return s;
}

bool slimfly_q_valid(int q) { return q >= 3 && prime_power(q).valid() && q % 4 != 2; }

std::string slimfly_nearby_q(int q) {
  int lo = q - 1, hi = q + 1;
  while (lo >= 3 && !slimfly_q_valid(lo)) --lo;
  while (!slimfly_q_valid(hi)) ++hi;
  return lo >= 3 ? fmt::format("{}, {}", lo, hi) : fmt::format("{}", hi);
}

namespace {

constexpr int kMaxQ = 128;  // 32,768 routers of network radix 192

// Exponents of xi in X (intra = true) or X' (intra = false).
std::vector<int> generator_exponents(const SlimFlyShape& s, bool x_set) {
  std::vector<int> e;
  const int w = s.w, q = s.q;
  if (s.delta == 1) {
    for (int i = x_set ? 0 : 1; i <= q - 2; i += 2) e.push_back(i);
  } else if (s.delta == 0) {
    for (int i = x_set ? 0 : 1; i <= q - 1; i += 2) e.push_back(i);
  } else if (x_set) {
    for (int i = 0; i <= 2 * w - 2; i += 2) e.push_back(i);
    for (int i = 2 * w - 1; i <= 4 * w - 3; i += 2) e.push_back(i);
  } else {
    for (int i = 1; i <= 2 * w - 1; i += 2) e.push_back(i);
    for (int i = 2 * w; i <= 4 * w - 2; i += 2) e.push_back(i);
  }
  return e;
}

Graph build_slimfly(const Config& cfg) {
  const int q = int(cfg.get_int("network.slimfly.q"));
  if (!slimfly_q_valid(q))
    throw ConfigError(fmt::format("config error: network.slimfly.q = {}: q must be a prime power with q = 4w + d, "
                                  "d in {{-1, 0, 1}}; nearby: {}",
                                  q, slimfly_nearby_q(q)));
  const SlimFlyShape s = slimfly_shape(q);
  int p = int(cfg.get_int("network.slimfly.p"));
  if (p == 0) p = (s.network_radix + 1) / 2;
  check_size(key_values(cfg, {"network.slimfly.q", "network.slimfly.p"}), s.routers, size_mul(s.routers, p),
             size_mul(s.routers, s.network_radix));
  const GaloisField f(q);
  auto generator_set = [&](bool x_set) {
    std::set<int> elems;
    for (int e : generator_exponents(s, x_set)) elems.insert(f.pow(f.primitive(), e));
    return elems;
  };
  const std::set<int> X = generator_set(true), Xp = generator_set(false);
  auto id = [q](int sub, int a, int b) { return sub * q * q + a * q + b; };

  Graph g;
  g.name = fmt::format("slimfly q={} p={}", q, p);
  const int n = 2 * q * q;
  g.terminals.assign(n, p);
  g.links.assign(n, {});
  g.group.assign(n, 0);
  for (int sub = 0; sub < 2; ++sub)
    for (int a = 0; a < q; ++a)
      for (int b = 0; b < q; ++b) {
        const int r = id(sub, a, b);
        g.group[r] = sub;
        std::vector<int> intra;
        for (int b2 = 0; b2 < q; ++b2)
          if (b2 != b && (sub == 0 ? X : Xp).count(f.sub(b, b2))) intra.push_back(id(sub, a, b2));
        std::sort(intra.begin(), intra.end());
        g.links[r] = intra;
        for (int i = 0; i < q; ++i)
          g.links[r].push_back(sub == 0 ? id(1, i, f.sub(b, f.mul(i, a)))    // (0,x=a,y=b) -> (1,m=i,c)
                                        : id(0, i, f.add(f.mul(a, i), b)));  // (1,m=a,c=b) -> (0,x=i,y)
      }
  return g;
}

GraphTopologyRegistration reg_slimfly(GraphTopology{
    "slimfly",
    "Slim Fly (MMS graph, diameter 2): 2q^2 routers of network radix (3q - delta)/2, p endpoints each",
    {
        {"network.slimfly.q", ValueType::Int, "5", 3, kMaxQ, nullptr, "",
         "slimfly: prime power q = 4w + delta, delta in {-1, 0, 1} (2q^2 routers)"},
        {"network.slimfly.p", ValueType::Int, "0", 0, 4096, nullptr, "endpoints",
         "slimfly: endpoints per router (0: ceil(k'/2), Besta and Hoefler's rule)"},
    },
    build_slimfly});

}  // namespace
}  // namespace nwn::topo

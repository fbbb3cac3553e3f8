// oft: the two-level Orthogonal Fat-Tree k-OFT (diameter-two paper §2.2.4):
// levels L0, L1, L2 of R_L = k(k-1) + 1 routers each, radix 2k. (0, i) and
// (2, i) each connect to the k routers (1, j) listed in row i of the k-ML3B
// table and have k endpoints; L1 routers have no endpoints. 3 R_L routers,
// 2k R_L endpoints; one minimal path between L0/L2 routers except (0, i) and
// (2, i), which share all k.
//
// The table (the paper's algorithm, n = k - 1): row 0 holds R_L - k .. R_L - 1;
// the first column of rows 1 .. R_L-1 holds k-1 copies of each of R_L - k ..
// R_L - 1; the remaining k(k-1) x (k-1) block is k squares of n x n: the first
// holds 0 .. n^2-1 row by row, the second its transpose, square s = 2 .. k-1
// the Latin square L(i, j) = i + (s-1) j over GF(n), with column j raised by
// j*n. The paper takes n prime (arithmetic mod n); for a prime power n we use
// GF(n) (galois.hpp), which is the same for prime n.
//
// Router ids: (level, i) = level*R_L + i. Ports: L0/L2: k terminals, then
// row i of the table in order; L1 router j: its L0 neighbours by increasing
// i, then its L2 neighbours by increasing i. Group label: the level.
#include "oft.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "galois.hpp"
#include "graph.hpp"

namespace nwn::topo {

std::vector<std::vector<int>> ml3b_table(int k) {
  const int n = k - 1;
  if (k < 3 || !prime_power(n).valid())
    throw std::invalid_argument(fmt::format("k - 1 = {} is not a prime power", n));
  const int rl = k * n + 1;
  const GaloisField f(n);
  std::vector<std::vector<int>> t(rl, std::vector<int>(k, 0));
  for (int j = 0; j < k; ++j) t[0][j] = rl - k + j;
  for (int row = 1; row < rl; ++row) {
    const int s = (row - 1) / n, i = (row - 1) % n;
    t[row][0] = rl - k + s;
    for (int j = 0; j < n; ++j) {
      int v;
      if (s == 0) v = i * n + j;
      else if (s == 1) v = j * n + i;
      else v = f.add(i, f.mul(s - 1, j)) + j * n;
      t[row][j + 1] = v;
    }
  }
  return t;
}

namespace {

std::string nearby_oft_k(int k) {
  int lo = k - 1, hi = k + 1;
  while (lo >= 3 && !prime_power(lo - 1).valid()) --lo;
  while (!prime_power(hi - 1).valid()) ++hi;
  return lo >= 3 ? fmt::format("{}, {}", lo, hi) : fmt::format("{}", hi);
}

Graph build_oft(const Config& cfg) {
  const int k = int(cfg.get_int("network.oft.k"));
  if (!prime_power(k - 1).valid())
    throw ConfigError(fmt::format("config error: network.oft.k = {}: k - 1 must be a prime (the paper) or a prime "
                                  "power; nearby: {}",
                                  k, nearby_oft_k(k)));
  // 3 rl routers (rl = k(k-1) + 1), k endpoints at each of the 2 rl outer
  // ones, k channels from each outer router: checked before the table.
  const std::int64_t rl_size = size_add(size_mul(k, k - 1), 1);
  check_size(key_values(cfg, {"network.oft.k"}), size_mul(3, rl_size), size_mul(size_mul(2, rl_size), k),
             size_mul(size_mul(4, rl_size), k));
  const auto t = ml3b_table(k);
  const int rl = int(t.size());
  Graph g;
  g.name = fmt::format("oft k={}", k);
  g.terminals.assign(3 * rl, 0);
  g.links.assign(3 * rl, {});
  g.group.assign(3 * rl, 0);
  for (int level : {0, 2})
    for (int i = 0; i < rl; ++i) {
      const int r = level * rl + i;
      g.terminals[r] = k;
      g.group[r] = level;
      for (int j : t[i]) g.links[r].push_back(rl + j);
    }
  for (int level : {0, 2})
    for (int i = 0; i < rl; ++i)
      for (int j : t[i]) g.links[rl + j].push_back(level * rl + i);
  for (int j = 0; j < rl; ++j) g.group[rl + j] = 1;
  return g;
}

GraphTopologyRegistration reg_oft(GraphTopology{
    "oft",
    "two-level Orthogonal Fat-Tree k-OFT: 3(k(k-1)+1) routers of radix 2k from the k-ML3B table (k - 1 prime)",
    {
        {"network.oft.k", ValueType::Int, "4", 3, 1024, nullptr, "ports",
         "oft: network radix k of the L0/L2 routers (router radix 2k); k - 1 a prime (or prime power)"},
    },
    build_oft});

}  // namespace
}  // namespace nwn::topo

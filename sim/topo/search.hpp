// Design-space searches of `nwnsim topo search`.
//
// HyperX (HyperX paper §3.1-3.2): for N terminals, switch radix R and a
// minimum relative bisection B, the (L, S, K, T) with the fewest switches
// P = prod S_k subject to
//   T + sum_k K_k (S_k - 1) <= R     (ports)
//   T * P >= N                       (size)
//   min_k(K_k S_k) / (2T) >= B       (bisection)
//   S_k >= 2
// Regular: one S and one K for every dimension. General: S_1 <= ... <= S_L
// with K_1 >= ... >= K_L (no loss, §3.1.2). For a shape S the smallest
// T = ceil(N/P) and then the smallest K_k = max(1, ceil(2BT/S_k)) are the
// best choice, so the search enumerates shapes (exhaustively, pruned by
// the best switch count so far and by the ports the chosen dimensions
// already need). Ties on P: fewer dimensions, then the lexicographically
// smaller S. Each design also reports T_max, the most terminals per switch
// its (S, K) allow (ports and bisection).
//
// Slim Fly and Dragonfly sizing: the largest network a router radix allows.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace nwn::topo {

struct HyperXRequest {
  std::int64_t endpoints = 131072;  // N
  int radix = 128;                  // R
  double beta = 0.5;                // B
  int regular_k = 0;                // regular designs: K fixed to this (0: any)
  bool t_equals_s = false;          // regular designs: T = S (a flattened butterfly's shape)
};

struct HyperXDesign {
  std::vector<int> S, K;
  int T = 0, T_max = 0;
  std::int64_t switches = 0;
  int ports = 0;  // T + sum K (S - 1)
  double beta = 0;
  std::int64_t terminals() const { return std::int64_t(T) * switches; }
};

std::optional<HyperXDesign> best_regular_hyperx(const HyperXRequest& r);
std::optional<HyperXDesign> best_general_hyperx(const HyperXRequest& r);

struct SlimFlySize {
  int q = 0, delta = 0, network_radix = 0, p = 0;
  std::int64_t routers = 0, endpoints = 0;
  int radix() const { return network_radix + p; }
};
// The largest Slim Fly of router radix <= radix with p = ceil(k'/2)
// (round_up) or floor(k'/2); nullopt when even q = 3 does not fit.
std::optional<SlimFlySize> largest_slimfly(int radix, bool round_up);

struct DragonflySize {
  int p = 0, a = 0, h = 0, g = 0;
  std::int64_t routers = 0, endpoints = 0;
  int radix() const { return p + a - 1 + h; }
};
// The largest balanced Dragonfly (a = 2p = 2h, g = ah + 1) of router radix <= radix.
std::optional<DragonflySize> largest_dragonfly(int radix);

}  // namespace nwn::topo

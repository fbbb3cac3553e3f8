#include "search.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "slimfly.hpp"

namespace nwn::topo {
namespace {

constexpr double kEps = 1e-9;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Smallest K with K*S >= 2BT.
int min_trunk(double beta, int T, int S) { return std::max(1, int(std::ceil(2 * beta * T / S - kEps))); }

// Fills T_max, ports and beta of a design whose S, K, T are set.
void finish(HyperXDesign& d, int radix, double beta) {
  int used = 0, min_ks = 1 << 30;
  for (std::size_t i = 0; i < d.S.size(); ++i) {
    used += d.K[i] * (d.S[i] - 1);
    min_ks = std::min(min_ks, d.K[i] * d.S[i]);
  }
  d.ports = d.T + used;
  d.T_max = std::min(radix - used, int(std::floor(min_ks / (2 * beta) + kEps)));
  d.beta = double(min_ks) / (2.0 * d.T);
}

bool better(const HyperXDesign& a, const std::optional<HyperXDesign>& b) {
  if (!b) return true;
  if (a.switches != b->switches) return a.switches < b->switches;
  if (a.S.size() != b->S.size()) return a.S.size() < b->S.size();
  return a.S < b->S;
}

}  // namespace

std::optional<HyperXDesign> best_regular_hyperx(const HyperXRequest& r) {
  std::optional<HyperXDesign> best;
  for (int L = 1; L < r.radix; ++L) {
    if (best && (std::int64_t(1) << std::min(L, 62)) > best->switches) break;
    for (int S = 2; L * (S - 1) < r.radix; ++S) {
      double P_d = std::pow(double(S), L);
      if (best && P_d > double(best->switches)) break;
      if (P_d > 4e18) break;
      std::int64_t P = 1;
      for (int i = 0; i < L; ++i) P *= S;
      int T;
      if (r.t_equals_s) {
        T = S;
        if (std::int64_t(T) * P < r.endpoints) continue;
      } else {
        const std::int64_t t = ceil_div(r.endpoints, P);
        if (t > r.radix) continue;
        T = int(t);
      }
      const int K = r.regular_k > 0 ? r.regular_k : min_trunk(r.beta, T, S);
      if (K * S < 2 * r.beta * T - kEps) continue;
      if (T + L * K * (S - 1) > r.radix) continue;
      HyperXDesign d;
      d.S.assign(L, S);
      d.K.assign(L, K);
      d.T = T;
      d.switches = P;
      finish(d, r.radix, r.beta);
      if (better(d, best)) best = d;
    }
  }
  return best;
}

std::optional<HyperXDesign> best_general_hyperx(const HyperXRequest& r) {
  std::optional<HyperXDesign> best;
  std::vector<int> S;
  // Ports the chosen dimensions need at least, given the fewest terminals
  // any improving design can have (eq. 9: T >= N / best).
  std::function<void(int, std::int64_t)> extend = [&](int L, std::int64_t P) {
    const std::int64_t bound = best ? best->switches : std::int64_t(4e18);
    const int t_low = int(std::min<std::int64_t>(r.radix + 1, ceil_div(r.endpoints, bound)));
    int ports_low = t_low;
    for (int s : S) ports_low += min_trunk(r.beta, t_low, s) * (s - 1);
    const int remaining = L - int(S.size());
    const int last = S.empty() ? 2 : S.back();
    if (ports_low + remaining * (last - 1) > r.radix) return;
    if (remaining == 0) {
      const std::int64_t t = ceil_div(r.endpoints, P);
      if (t > r.radix) return;
      HyperXDesign d;
      d.S = S;
      d.T = int(t);
      int ports = d.T;
      for (int s : S) {
        d.K.push_back(min_trunk(r.beta, d.T, s));
        ports += d.K.back() * (s - 1);
      }
      if (ports > r.radix) return;
      d.switches = P;
      finish(d, r.radix, r.beta);
      if (better(d, best)) best = d;
      return;
    }
    for (int s = last; s <= r.radix; ++s) {
      // The rest of the dimensions are at least s each.
      double min_total = double(P);
      for (int i = 0; i < remaining; ++i) min_total *= s;
      if (min_total > double(best ? best->switches : std::int64_t(4e18))) break;
      if (ports_low + remaining * (s - 1) > r.radix) break;
      S.push_back(s);
      extend(L, P * s);
      S.pop_back();
    }
  };
  for (int L = 1; L < r.radix; ++L) {
    if (best && (std::int64_t(1) << std::min(L, 62)) > best->switches) break;
    extend(L, 1);
  }
  return best;
}

std::optional<SlimFlySize> largest_slimfly(int radix, bool round_up) {
  std::optional<SlimFlySize> best;
  for (int q = 3; q < 2 * radix; ++q) {
    if (!slimfly_q_valid(q)) continue;
    const SlimFlyShape s = slimfly_shape(q);
    SlimFlySize z;
    z.q = q;
    z.delta = s.delta;
    z.network_radix = s.network_radix;
    z.p = round_up ? (s.network_radix + 1) / 2 : s.network_radix / 2;
    if (z.radix() > radix) continue;
    z.routers = s.routers;
    z.endpoints = z.routers * z.p;
    best = z;
  }
  return best;
}

std::optional<DragonflySize> largest_dragonfly(int radix) {
  const int p = (radix + 1) / 4;  // radix 4p - 1
  if (p < 1) return std::nullopt;
  DragonflySize d;
  d.p = d.h = p;
  d.a = 2 * p;
  d.g = d.a * d.h + 1;
  d.routers = std::int64_t(d.a) * d.g;
  d.endpoints = d.routers * d.p;
  return d;
}

}  // namespace nwn::topo

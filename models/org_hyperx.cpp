// hxv, hxm, hx05, hx10: the HyperX switch (§3.2, Fig. 4c; §5.4).
//
// An (L, S, K, T) HyperX of S^L subswitches: in each of L dimensions every
// subswitch is joined to the S - 1 others that differ only in that
// coordinate, by K parallel 2-cycle channels, and holds T router ports.
// Subswitch radix T + L K (S - 1).
//   hxv, hxm: L = 2, S = T = k^(1/3), K = 2 (Table I); Valiant or minimal.
//   hx05, hx10: S = T and S^(L+1) = k (radix 64: L = 2, S = 4; radix 36:
//   L = 1, S = 6), K = 1 or 2, i.e. bisection ratio beta = K S / (2T) of 0.5
//   or 1.0; minimal routing.
// Ports: 0..T-1 router ports; then, per dimension d and other coordinate
// value v, K ports.
// Routing: dimension order (lowest differing dimension first), one of the K
// channels at random. Minimal routing visits at most L + 1 subswitches and
// its channels form no cycle (dimension order), so it needs one VC class.
// Valiant goes first to a random intermediate subswitch, in class 0, then to
// the output's subswitch in class 1.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "organization.hpp"
#include "rng.hpp"

namespace nwn {
namespace {

struct HxShape {
  int l, s, k, t;
  bool valiant;
};

int int_root(int x, int n) {
  const int r = int(std::lround(std::pow(double(x), 1.0 / n)));
  for (int c = std::max(1, r - 1); c <= r + 1; ++c) {
    long p = 1;
    for (int i = 0; i < n; ++i) p *= c;
    if (p == x) return c;
  }
  return 0;
}

HxShape parse(const OrganizationParams& p) {
  const int k = p.radix;
  const std::string fail = "organization " + p.name + ": radix " + std::to_string(k) + " (allowed: ";
  if (p.name == "hxv" || p.name == "hxm") {
    const int s = int_root(k, 3);
    if (s < 2) throw std::invalid_argument(fail + "a cube radix k = s^3, e.g. 27, 64, 125, 216: the 2D HyperX switch has s^2 subswitches of s router ports)");
    return {2, s, 2, s, p.name == "hxv"};
  }
  if (p.name == "hx05" || p.name == "hx10") {
    for (int l : {2, 1, 3}) {  // the 2D switch where the radix allows it (§5.4)
      const int s = int_root(k, l + 1);
      if (s >= 2) return {l, s, p.name == "hx05" ? 1 : 2, s, false};
    }
    throw std::invalid_argument(fail + "k = S^(L+1) for L = 1, 2 or 3, e.g. 16, 36, 64, 81, 256: S^L subswitches of S "
                                "router ports)");
  }
  throw std::invalid_argument("organization '" + p.name + "': malformed name; allowed: hxv, hxm, hx05 or hx10");
}

class HxRouting final : public InternalRouting {
 public:
  HxRouting(const HxShape& h, std::uint64_t seed, std::string org) : h_(h), rng_(seed, 0x4b), org_(std::move(org)) {
    subswitches_ = 1;
    for (int i = 0; i < h.l; ++i) subswitches_ *= h.s;
  }

  RouteDecision route(int ss, int in, Flit& head) override {
    if (in < h_.t) {  // entering the router
      const int mid = h_.valiant ? int(rng_.below(std::uint32_t(subswitches_))) : ss;
      head.local_aux = mid | (mid == ss ? 1 << 16 : 0);
    }
    std::uint32_t aux = std::uint32_t(head.local_aux);
    const int dest = head.router_out / h_.t;
    if (!(aux & (1u << 16)) && ss == int(aux & 0xffff)) aux |= 1u << 16;
    head.local_aux = std::int32_t(aux);
    const int phase = (aux >> 16) & 1u;
    const int target = phase ? dest : int(aux & 0xffff);
    if (ss == dest && phase) return {head.router_out % h_.t, head.router_vc_lo, head.router_vc_hi};
    int a = ss, b = target, d = 0;
    while (a % h_.s == b % h_.s) {
      a /= h_.s;
      b /= h_.s;
      ++d;
    }
    const int own = a % h_.s, v = b % h_.s;
    const int port = h_.t + (d * (h_.s - 1) + (v < own ? v : v - 1)) * h_.k + int(rng_.below(std::uint32_t(h_.k)));
    if (!h_.valiant) return {port, head.router_vc_lo, head.router_vc_hi};
    return internal_class(head, port, phase, 2, org_);
  }

 private:
  HxShape h_;
  int subswitches_ = 1;
  Rng rng_;
  std::string org_;
};

Organization make_hyperx(const OrganizationParams& prm) {
  const HxShape h = parse(prm);
  int n = 1;
  for (int i = 0; i < h.l; ++i) n *= h.s;
  const int q = h.t + h.l * h.k * (h.s - 1);  // subswitch radix
  Organization org;
  SwitchDescription& d = org.description;
  d.org = prm.name;
  d.radix = prm.radix;
  d.max_subswitch_hops = h.valiant ? 2 * h.l + 1 : h.l + 1;
  d.vc_classes = h.valiant ? 2 : 1;
  // As trv's (a HyperX of hxv routers with dimension order wedged).
  d.mixes_hops = h.valiant;
  // Floorplan: Table I's ((3/2)(5k^(1/3) - 4) k^(1/3) + k)^2 is a square of
  // S subswitch tiles of 1.5 q pitches per side plus the k K/2 channels that
  // cross it; with K = 1 half of those wires (hx05 lands 8 % below fc at
  // radix 64, as §5.4 reports).
  // The S^L tiles sit in a S^ceil(L/2) x S^floor(L/2) grid.
  int cols = 1, rows = 1;
  for (int i = 0; i < h.l; ++i) (i % 2 ? rows : cols) *= h.s;
  const double wires = double(prm.radix) * h.k / 2;
  d.width_pitch = 1.5 * q * cols + wires;
  d.height_pitch = 1.5 * q * rows + wires;
  d.floorplan_rule = "(3/2) q S^ceil(L/2) + k K / 2 by (3/2) q S^floor(L/2) + k K / 2, q = T + L K (S - 1)";
  const double channel_length = d.width_pitch / h.s * (h.s + 1) / 3.0;  // mean distance between two tiles of a row
  auto coord = [&](int ss, int dim) {
    for (int i = 0; i < dim; ++i) ss /= h.s;
    return ss % h.s;
  };
  auto port_of = [&](int dim, int own, int v, int kk) { return h.t + (dim * (h.s - 1) + (v < own ? v : v - 1)) * h.k + kk; };
  for (int i = 0; i < n; ++i) {
    SubswitchSpec ss = make_subswitch(prm, "h" + std::to_string(i), q, q, true);
    for (int a = 0; a < h.t; ++a) ss.forbid(a, a);
    for (int in = h.t; in < q; ++in) {
      const int din = (in - h.t) / (h.k * (h.s - 1));
      for (int out = h.t; out < q; ++out) {
        const int dout = (out - h.t) / (h.k * (h.s - 1));
        const bool ok = h.valiant ? in != out : dout > din;  // minimal: later dimensions only
        if (!ok) ss.forbid(in, out);
      }
    }
    add_subswitch(d, ss);
    for (int a = 0; a < h.t; ++a) {
      d.inputs.push_back({i, a});
      d.outputs.push_back({i, a});
    }
  }
  int stride = 1;
  for (int dim = 0; dim < h.l; ++dim, stride *= h.s)
    for (int i = 0; i < n; ++i) {
      const int own = coord(i, dim);
      for (int v = 0; v < h.s; ++v) {
        if (v == own) continue;
        const int j = i + (v - own) * stride;
        for (int kk = 0; kk < h.k; ++kk)
          add_channel(d, i, port_of(dim, own, v, kk), j, port_of(dim, v, own, kk), 2, channel_length, prm);
      }
    }
  org.routing = std::make_unique<HxRouting>(h, prm.seed, prm.name);
  return org;
}

OrganizationRegistration reg_hxv("hxv", make_hyperx);
OrganizationRegistration reg_hxm("hxm", make_hyperx);
OrganizationRegistration reg_hx05("hx05", make_hyperx);
OrganizationRegistration reg_hx10("hx10", make_hyperx);

}  // namespace
}  // namespace nwn

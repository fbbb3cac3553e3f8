// trv, trm: the folded 2D torus switch (§3.2, Fig. 4b).
//
// k subswitches form a sqrt(k)-ary 2-cube (folded, so every link spans two
// tiles and has the same 2-cycle latency). Each logical channel between
// neighbours is c = sqrt(k)/4 physical channels (at least 1), so a subswitch
// has radix 4c + 1: port 0 is the router port of the same index, then
// c ports per direction x+, x-, y+, y-. Input port (d, i) receives the flits
// travelling in direction d over physical channel i.
//
// Routing is dimension order (x, then y), the shorter way round each ring
// (ties: +). trm goes straight to the output's subswitch; trv first to a
// random intermediate subswitch (Valiant), then to the output's.
// Deadlock freedom: each ring is broken by a dateline (the wrap link); a
// packet moves to the second VC class after it crosses the wrap of the
// dimension it travels in, and starts again in the first class in the next
// dimension (dimension order makes the dimensions' channels acyclic).
// Valiant's two phases use separate pairs of classes. So trm needs 2 VC
// classes and trv 4, carved out of the VCs the global route allows.
#include <cmath>
#include <stdexcept>
#include <string>

#include "organization.hpp"
#include "rng.hpp"

namespace nwn {
namespace {

enum Dir { XP = 0, XM = 1, YP = 2, YM = 3 };

// local_aux: bits 0-15 intermediate subswitch, bit 16 phase (1 = to the
// output), bit 17 crossed the dateline of the current dimension, bits 18-20
// the direction of the last hop + 1 (0: none yet; y- is 4, so three bits).
class TorusRouting final : public InternalRouting {
 public:
  TorusRouting(int s, int c, bool valiant, std::uint64_t seed, std::string org)
      : s_(s), c_(c), valiant_(valiant), rng_(seed, 0x7a), org_(std::move(org)) {}

  RouteDecision route(int ss, int in, Flit& head) override {
    const int k = s_ * s_;
    if (in == 0) {  // entering the router
      const int mid = valiant_ ? int(rng_.below(std::uint32_t(k))) : ss;
      head.local_aux = mid | (mid == ss ? 1 << 16 : 0);
    }
    std::uint32_t aux = std::uint32_t(head.local_aux);
    int target = (aux & (1u << 16)) ? head.router_out : int(aux & 0xffff);
    if (!(aux & (1u << 16)) && ss == target) {  // reached the intermediate
      aux = (aux | (1u << 16)) & ~((1u << 17) | (7u << 18));
      target = head.router_out;
    }
    if (ss == target) {
      head.local_aux = std::int32_t(aux);
      return {0, head.router_vc_lo, head.router_vc_hi};
    }
    const int x = ss % s_, y = ss / s_, tx = target % s_, ty = target / s_;
    Dir dir;
    int pos;
    if (x != tx) {
      dir = ((tx - x + s_) % s_) <= s_ / 2 ? XP : XM;
      pos = x;
    } else {
      dir = ((ty - y + s_) % s_) <= s_ / 2 ? YP : YM;
      pos = y;
    }
    const int last = int((aux >> 18) & 7u) - 1;
    bool crossed = (aux & (1u << 17)) && last >= 0 && (last / 2) == (dir / 2);
    if ((dir == XP || dir == YP) ? pos == s_ - 1 : pos == 0) crossed = true;  // this hop wraps
    aux = (aux & 0xffffu) | (aux & (1u << 16)) | (crossed ? 1u << 17 : 0u) | (std::uint32_t(dir + 1) << 18);
    head.local_aux = std::int32_t(aux);
    const int phase = (aux >> 16) & 1u;
    const int cls = valiant_ ? phase * 2 + crossed : crossed;
    const int port = 1 + dir * c_ + int(rng_.below(std::uint32_t(c_)));
    return internal_class(head, port, cls, valiant_ ? 4 : 2, org_);
  }

 private:
  int s_, c_;
  bool valiant_;
  Rng rng_;
  std::string org_;
};

Organization make_torus(const OrganizationParams& prm) {
  const int k = prm.radix;
  const bool valiant = prm.name == "trv";
  if (!valiant && prm.name != "trm")
    throw std::invalid_argument("organization '" + prm.name + "': malformed name; allowed: trv (Valiant) or trm (minimal)");
  const int s = int(std::lround(std::sqrt(double(k))));
  if (s * s != k || s < 3)
    throw std::invalid_argument("organization " + prm.name + ": radix " + std::to_string(k) +
                                " (allowed: a square radix k = s^2 with s >= 3, e.g. 16, 36, 64, 144, 256: the "
                                "folded 2D torus has k subswitches in an s x s grid)");
  const int c = std::max(1, s / 4);
  const int radix = 4 * c + 1;
  Organization org;
  SwitchDescription& d = org.description;
  d.org = prm.name;
  d.radix = k;
  d.max_subswitch_hops = valiant ? 2 * s + 1 : s + 1;
  d.vc_classes = valiant ? 4 : 2;
  // trv: a packet that arrived from router B and goes on waits for an
  // internal VC held by a packet from a terminal going to B, which waits
  // for B's input buffer, full of packets that wait the same way in B.
  d.mixes_hops = valiant;
  // Floorplan (Table I): k tiles of (3/2)(sqrt(k) + 1) pitches square.
  const double tile = 1.5 * (s + 1);
  d.width_pitch = d.height_pitch = s * tile;
  d.floorplan_rule = "square of side sqrt(k) (3/2)(sqrt(k) + 1)";
  auto opposite = [](int dir) { return dir ^ 1; };
  for (int i = 0; i < k; ++i) {
    SubswitchSpec ss = make_subswitch(prm, "t" + std::to_string(i % s) + "_" + std::to_string(i / s), radix, radix, true);
    ss.forbid(0, 0);
    for (int din = 0; din < 4; ++din)
      for (int a = 0; a < c; ++a) {
        const int in = 1 + din * c + a;
        for (int dout = 0; dout < 4; ++dout)
          for (int b = 0; b < c; ++b) {
            const int out = 1 + dout * c + b;
            // Valiant: anything but a U-turn; minimal: on in the same
            // direction, or from x onto y.
            const bool ok = valiant ? !(dout == opposite(din) && a == b)
                                    : (dout == din || (din < 2 && dout >= 2));
            if (!ok) ss.forbid(in, out);
          }
      }
    add_subswitch(d, ss);
    d.inputs.push_back({i, 0});
    d.outputs.push_back({i, 0});
  }
  const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
  for (int i = 0; i < k; ++i)
    for (int dir = 0; dir < 4; ++dir) {
      const int nx = (i % s + dx[dir] + s) % s, ny = (i / s + dy[dir] + s) % s;
      for (int a = 0; a < c; ++a) add_channel(d, i, 1 + dir * c + a, ny * s + nx, 1 + dir * c + a, 2, 2 * tile, prm);
    }
  org.routing = std::make_unique<TorusRouting>(s, c, valiant, prm.seed, prm.name);
  return org;
}

OrganizationRegistration reg_trv("trv", make_torus);
OrganizationRegistration reg_trm("trm", make_torus);

}  // namespace
}  // namespace nwn

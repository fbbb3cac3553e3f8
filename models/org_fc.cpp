// fc, fcM, fcM-isuS: the folded-Clos switch (§3.2, Fig. 4a, 8b), and bb, the
// bilateral butterfly for routers inside a folded-Clos network (§4.2, Fig. 8, 9).
//
// fc: r bottom subswitches of radix n + m (n = k/r router ports, m up
// channels) and m top subswitches of radix r; bottom b's up port n + j and
// top j's port b are joined by a pair of 2-cycle channels. A packet whose
// output hangs on its own bottom turns there; any other goes up to a top
// chosen at random (oblivious load balance, as Valiant over the tops), then
// down to the output's bottom. Three subswitches at most, no cycle: internal
// deadlock freedom needs no VC classes. isuS: input speedup S on the bottom
// subswitches, in one of two readings (router.isu_reading): `ports`, each
// router port of a bottom is S crossbar ports on both its input and its
// output side (the bottom is a crossbar of nS + m ports, the up ports single:
// Table II's crosspoints and fanouts; VC v of a router input uses copy v mod
// S, and the S crossbar outputs of a router output feed its channel through
// an output queue of S flits); `rows`, every bottom input (router and up
// ports) is S crossbar rows, the outputs single.
//
// bb: for a router whose upper k/2 ports go up a folded-Clos network. The
// r/2 bottoms hold the k/2 down ports; the tops hold the k/2 up ports
// directly (each top radix r: r/2 bottoms + r/2 up ports). Down -> down as
// in fc; down -> up: bottom, then the top of that up port; up -> down: top,
// then the bottom. A folded-Clos network never routes up -> up; bb rejects it.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "organization.hpp"
#include "rng.hpp"

namespace nwn {
namespace {

struct FcShape {
  int k, r, n, m, s;
  bool bb;
  int copies = 1;  // crossbar ports per router port of a bottom, each side (isu_reading = ports)
  int rows = 1;    // crossbar rows per bottom input (isu_reading = rows)
  int up_base() const { return n * copies; }  // a bottom's first up port
};

// r = 2 sqrt(k) by default (Fig. 5); a non-square radix takes the divisor of
// k closest to it.
int default_r(int k) {
  const double want = 2.0 * std::sqrt(double(k));
  int best = 0;
  for (int r = 2; r <= k; ++r)
    if (k % r == 0 && k / r >= 1 && (best == 0 || std::fabs(r - want) < std::fabs(best - want))) best = r;
  return best;
}

// A positive decimal number without sign or leading zeros; 0 if `s` is not one.
long number(const std::string& s) {
  if (s.empty() || s.size() > 6 || s[0] == '0' ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return std::stol(s);
}

// Names: fc, fcM, fcM-isuS (M top subswitches, S input speedup on the
// bottoms); bb, bb-isuS (bb's m is n: its up ports hang on the tops).
FcShape parse(const OrganizationParams& p) {
  FcShape f{};
  f.k = p.radix;
  f.bb = p.name.rfind("bb", 0) == 0;
  const std::string family = f.bb ? "bb" : "fc";
  const std::string fail = "organization '" + p.name + "' at radix " + std::to_string(f.k) + ": ";
  const std::string grammar = f.bb ? "bb or bb-isuS (S input speedup on the bottoms)"
                                   : "fc, fcM or fcM-isuS (M top subswitches, S input speedup on the bottoms), "
                                     "e.g. fc6-isu2";
  const int subswitch_radix = organization_key(p, "router.subswitch_radix");
  f.r = subswitch_radix > 0 ? subswitch_radix : default_r(f.k);
  if (f.r < 2 || f.k % f.r != 0)
    throw std::invalid_argument(fail + "subswitch radix r = " + std::to_string(f.r) +
                                " (router.subswitch_radix; allowed: 0 for the divisor of k nearest 2 sqrt(k), or a "
                                "divisor of " + std::to_string(f.k) + " from 2 up)");
  f.n = f.k / f.r;
  f.m = f.n;
  f.s = p.input_speedup;
  // The name: family, then digits M (fc only), then -isuS.
  std::string rest = p.name.substr(2);
  const std::size_t dash = rest.find('-');
  const std::string m_text = rest.substr(0, dash), isu = dash == std::string::npos ? "" : rest.substr(dash);
  const bool m_ok = m_text.empty() || (!f.bb && number(m_text) > 0);
  const bool s_ok = isu.empty() || (isu.rfind("-isu", 0) == 0 && number(isu.substr(4)) > 0 && (f.bb || !m_text.empty()));
  if (!m_ok || !s_ok) throw std::invalid_argument(fail + "malformed name; allowed: " + grammar);
  // 2n - 1 tops make a Clos strictly non-blocking; more tops than that and
  // than the r bottoms only add area.
  if (!m_text.empty()) {
    const long m = number(m_text), max_m = std::max(f.r, 2 * f.n - 1);
    if (m > max_m)
      throw std::invalid_argument(fail + "M = " + m_text + " top subswitches (allowed: " + family +
                                  "M with M from 1 to " + std::to_string(max_m) + " = max(r, 2n - 1), r = " +
                                  std::to_string(f.r) + " bottoms of n = " + std::to_string(f.n) +
                                  " router ports: from 2n - 1 tops on the switch is strictly non-blocking)");
    f.m = int(m);
  }
  if (!isu.empty()) {
    // Beyond n + M crossbar inputs per port a bottom has more rows than outputs.
    const long s = number(isu.substr(4)), max_s = f.n + f.m;
    if (s > max_s)
      throw std::invalid_argument(fail + "S = " + isu.substr(4) + " (allowed: input speedup S from 1 to n + M = " +
                                  std::to_string(max_s) + ", the outputs of a bottom subswitch)");
    f.s = int(s);
  }
  (p.isu_ports ? f.copies : f.rows) = f.s;
  if (f.bb && (f.k % 2 || f.r % 2 || (f.k / 2) % f.n))
    throw std::invalid_argument(fail + "bb needs an even radix k and an even subswitch radix r, so that r/2 bottoms "
                                "hold the k/2 down ports; got k = " + std::to_string(f.k) + ", r = " +
                                std::to_string(f.r) + " (router.subswitch_radix)");
  return f;
}

// Ports: bottom b = subswitch b, ports 0..n-1 router ports, then (isu_reading
// = ports) their copies, copy c of port i at cn + i, then the m up ports.
// Top j = subswitch nb + j, port b from bottom b; in bb, ports nb..r-1 are
// router up ports.
class FcRouting final : public InternalRouting {
 public:
  FcRouting(const FcShape& f, int bottoms, std::uint64_t seed, std::string org)
      : f_(f), bottoms_(bottoms), rng_(seed, 0xfc), org_(std::move(org)) {}
  RouteDecision route(int ss, int in, Flit& head) override {
    const int out = head.router_out;
    const int down_ports = bottoms_ * f_.n;
    int port;
    if (ss < bottoms_) {
      const int up = f_.up_base();
      if (out < down_ports && out / f_.n == ss) {
        port = out % f_.n;  // turns in its own bottom
      } else if (in >= up) {
        throw std::logic_error(org_ + ": packet from a top for another bottom");
      } else if (out >= down_ports) {
        port = up + (out - down_ports) / (f_.r - bottoms_);  // bb: the top holding the up port
      } else {
        port = up + int(rng_.below(std::uint32_t(f_.m)));  // any top
      }
    } else {
      if (out >= down_ports) {
        if (in >= bottoms_)
          throw std::runtime_error(org_ + ": a packet routed up -> up (router output " + std::to_string(out) +
                                   "); a bilateral butterfly serves folded-Clos routing only");
        port = bottoms_ + (out - down_ports) % (f_.r - bottoms_);
      } else {
        port = out / f_.n;
      }
    }
    return {port, head.router_vc_lo, head.router_vc_hi};
  }

 private:
  FcShape f_;
  int bottoms_;
  Rng rng_;
  std::string org_;
};

Organization make_fc(const OrganizationParams& prm) {
  const FcShape f = parse(prm);
  const int bottoms = f.bb ? f.r / 2 : f.r;
  Organization org;
  SwitchDescription& d = org.description;
  d.org = prm.name;
  d.radix = f.k;
  d.max_subswitch_hops = 3;
  // Floorplan (Fig. 8b): tops in a middle band, half the bottoms on each
  // side. W = (r/2) max(3m, m + 2nS), H = (r + 2) m + r + 2nS channel
  // pitches: Table I's (3/2) k (4k/r + k + r) at m = n, S = 1, and Table II's
  // fc5, fc6, fc5-isu2 and fc6-isu2 areas. bb drops one side band of
  // bottoms: W = (r/2) max(2m, m + nS).
  if (f.bb) {
    d.needs_topology = "fclos";
    d.needs_port_assignment = "tied";
    d.needs_why = "its up ports hang on the top subswitches, and it cannot route up -> up";
    d.width_pitch = f.r / 2.0 * std::max(2 * f.m, f.m + f.n * f.s);
    d.floorplan_rule = "(r/2) max(2m, m + nS) x ((r + 2) m + r + 2nS)";
  } else {
    d.width_pitch = f.r / 2.0 * std::max(3 * f.m, f.m + 2 * f.n * f.s);
    d.floorplan_rule = "(r/2) max(3m, m + 2nS) x ((r + 2) m + r + 2nS)";
  }
  d.height_pitch = double(f.r + 2) * f.m + f.r + 2.0 * f.n * f.s;
  const double channel_length = d.width_pitch / 3;  // across one band
  const int up = f.up_base(), ports = up + f.m;
  for (int b = 0; b < bottoms; ++b) {
    SubswitchSpec s = make_subswitch(prm, "bottom" + std::to_string(b), ports, ports, true);
    s.input_speedup = f.rows;
    // No U-turn to the same crossbar port (with copies, as Table II counts:
    // the pairs between two copies of a router port stay, though no route
    // turns back to its own router port).
    for (int i = 0; i < up; ++i) s.forbid(i, i);
    for (int i = up; i < ports; ++i)
      for (int o = up; o < ports; ++o) s.forbid(i, o);  // from a top only down
    if (f.copies > 1) {
      s.copy_of.assign(std::size_t(ports), -1);
      for (int i = f.n; i < up; ++i) s.copy_of[std::size_t(i)] = i % f.n;
    }
    add_subswitch(d, s);
  }
  for (int j = 0; j < f.m; ++j) {
    SubswitchSpec s = make_subswitch(prm, "top" + std::to_string(j), f.r, f.r, false);
    for (int i = 0; i < f.r; ++i) s.forbid(i, i);
    if (f.bb)
      for (int i = bottoms; i < f.r; ++i)
        for (int o = bottoms; o < f.r; ++o) s.forbid(i, o);  // no up -> up
    add_subswitch(d, s);
  }
  for (int b = 0; b < bottoms; ++b)
    for (int i = 0; i < f.n; ++i) {
      d.inputs.push_back({b, i});
      d.outputs.push_back({b, i});
    }
  if (f.bb) {
    // Up port u (router port k/2 + u) is port r/2 + u mod (r/2) of top
    // u / (r/2), as the routing above assumes.
    const int per_top = f.r - bottoms;
    for (int u = 0; u < f.k / 2; ++u) {
      d.inputs.push_back({bottoms + u / per_top, bottoms + u % per_top});
      d.outputs.push_back({bottoms + u / per_top, bottoms + u % per_top});
    }
  }
  for (int b = 0; b < bottoms; ++b)
    for (int j = 0; j < f.m; ++j) {
      add_channel(d, b, up + j, bottoms + j, b, 2, channel_length, prm);
      add_channel(d, bottoms + j, b, b, up + j, 2, channel_length, prm);
    }
  org.routing = std::make_unique<FcRouting>(f, bottoms, prm.seed, prm.name);
  return org;
}

// bb (registered with the same factory) reads the same key.
OrganizationRegistration reg_fc("fc", make_fc,
                                {{"router.subswitch_radix", ValueType::Int, "0", 0, 4096, nullptr, "ports",
                                  "fc, bb: top subswitch radix r (0: the divisor of k nearest 2 sqrt(k))"}});
OrganizationRegistration reg_bb("bb", make_fc);

}  // namespace
}  // namespace nwn

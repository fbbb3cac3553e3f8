// hc: the hierarchical crossbar of the YARC router (§3.1, Fig. 3).
//
// (k/p)^2 tiles of p x p subswitches in a k/p x k/p grid. Input port i sits
// in row R = i / p and drives a row broadcast bus along its row (modelled as
// a 1 x (k/p) bus with the input-port buffer; 4-cycle channels, the row's
// whole width long) into row buffer i % p of every tile of the row. Output
// port o sits in tile column C = o mod (k/p) at position j = o / (k/p): tile
// (R, C) output j leads over a column channel (2 cycles) to column buffer R
// of output o, whose (k/p) x 1 multiplexer drives the port. With inputs
// row-major and outputs column-interleaved, transpose-random traffic (a row
// of the terminal matrix to a column) loads one tile per row: the paper's
// worst case for hc [Kim et al. 2005].
// Route: bus -> tile of the output's column -> mux. Every path visits three
// subswitches, so the internal network is acyclic and deadlock-free, and a
// packet's VCs inside are those the global route allows on the output.
#include <cmath>
#include <stdexcept>
#include <string>

#include "organization.hpp"

namespace nwn {
namespace {

int default_p(int k) {
  const int p = int(std::lround(std::sqrt(double(k))));
  return p * p == k ? p : 0;
}

class HcRouting final : public InternalRouting {
 public:
  HcRouting(int k, int p) : k_(k), p_(p) {}
  RouteDecision route(int ss, int, Flit& head) override {
    const int out = head.router_out;
    int port = 0;
    const int t = k_ / p_;
    if (ss < k_) port = out % t;                  // row bus: the output's tile column
    else if (ss < k_ + t * t) port = out / t;     // tile: the output within the column
    return {port, head.router_vc_lo, head.router_vc_hi};
  }

 private:
  int k_, p_;
};

Organization make_hc(const OrganizationParams& prm) {
  if (prm.name != "hc") throw std::invalid_argument("organization '" + prm.name + "': malformed name; allowed: hc");
  const int k = prm.radix;
  const int subswitch_radix = organization_key(prm, "router.subswitch_radix");
  const int p = subswitch_radix > 0 ? subswitch_radix : default_p(k);
  if (p <= 1 || k % p != 0)
    throw std::invalid_argument("organization hc at radix " + std::to_string(k) + ": subswitch radix p = " +
                                std::to_string(p) + " (router.subswitch_radix; allowed: a divisor of " +
                                std::to_string(k) + " from 2 up, or 0 for sqrt(k), which needs a square radix)");
  const int t = k / p;  // tiles per row and column
  Organization org;
  SwitchDescription& d = org.description;
  d.org = prm.name;
  d.radix = k;
  // Floorplan (Table I): k^3/p for the k row buses and k^2/p column channels
  // crossing the tile grid, plus 2kp for the tiles and their buffers:
  // a square of (k/p)(k^2 + 2p^2) channel pitches^2.
  const double area = double(t) * (double(k) * k + 2.0 * p * p);
  d.width_pitch = d.height_pitch = std::sqrt(area);
  d.floorplan_rule = "square of (k/p)(k^2 + 2p^2)";
  d.max_subswitch_hops = 3;
  for (int i = 0; i < k; ++i) {
    SubswitchSpec bus = make_subswitch(prm, "row" + std::to_string(i), 1, t, true);
    bus.kind = SubswitchKind::Bus;
    add_subswitch(d, bus);
    d.inputs.push_back({i, 0});
  }
  const int first_tile = k;
  for (int r = 0; r < t; ++r)
    for (int c = 0; c < t; ++c)
      add_subswitch(d, make_subswitch(prm, "tile" + std::to_string(r) + "_" + std::to_string(c), p, p, false));
  const int first_mux = k + t * t;
  for (int o = 0; o < k; ++o) {
    SubswitchSpec mux = make_subswitch(prm, "col" + std::to_string(o), t, 1, false);
    mux.kind = SubswitchKind::Mux;
    add_subswitch(d, mux);
    d.outputs.push_back({first_mux + o, 0});
  }
  const double row_length = d.width_pitch, column_length = d.height_pitch / 2;
  for (int i = 0; i < k; ++i)
    for (int c = 0; c < t; ++c) add_channel(d, i, c, first_tile + (i / p) * t + c, i % p, 4, row_length, prm);
  for (int r = 0; r < t; ++r)
    for (int c = 0; c < t; ++c)
      for (int j = 0; j < p; ++j) add_channel(d, first_tile + r * t + c, j, first_mux + j * t + c, r, 2, column_length, prm);
  org.routing = std::make_unique<HcRouting>(k, p);
  return org;
}

OrganizationRegistration reg_hc("hc", make_hc,
                              {{"router.subswitch_radix", ValueType::Int, "0", 0, 4096, nullptr, "ports",
                                "hc: subswitch radix p (0: sqrt(k))"}});

}  // namespace
}  // namespace nwn

// Routing interfaces. A router computes the global route (which router output
// port) and the local route (which subswitch output inside the router) at its
// input, in one step, as in the paper; subswitches then only allocate and
// traverse.
#pragma once
#include "flit.hpp"

namespace nwn {

struct RouteDecision {
  int out_port = -1;  // subswitch output port
  int vc_lo = 0;      // allowed output VCs [vc_lo, vc_hi]
  int vc_hi = 0;
};

// VCs [lo, hi] of `from` VCs scaled into `to` VCs, both counted from 0:
// ranges keep their order and stay apart; empty (hi < lo) where `to` is too
// few. How message classes (Router::narrow_to_class) and eject VCs
// (Router::split_eject, checked by check_route_vcs) fit a routing's classes
// into fewer VCs.
struct VcRange {
  int lo, hi;
};
inline VcRange scale_vcs(int lo, int hi, int from, int to) { return {lo * to / from, (hi + 1) * to / from - 1}; }

// Route of a head flit at one subswitch input; implemented by the router,
// which combines the global routing with its organization's internal routing.
class SubswitchRouting {
 public:
  virtual ~SubswitchRouting() = default;
  virtual RouteDecision route(int subswitch, int in_port, Flit& head) = 0;
};

class Router;

// The global route: which output port of a router a packet takes.
// Implementations document their VC use and why they are deadlock-free.
// Adaptive algorithms read congestion from the router (Router::output_credits).
class GlobalRouting {
 public:
  virtual ~GlobalRouting() = default;
  // Sets head.router_out and head.router_vc_lo/hi (the VCs the packet may use
  // on that output); may keep routing state in head.route_aux.
  virtual void route(Router& router, int in_port, Flit& head) = 0;
  // True when route() reads the state of routers other than `router`: such a
  // routing sees other routers mid-cycle, so the kernel runs on one thread
  // (a fixed order) to keep results reproducible.
  virtual bool reads_other_routers() const { return false; }
  // True when route() does nothing but set router_out to head.dst and the
  // VCs to all of the router's (RouterParams::vcs), and keeps no state: a
  // router then does so itself, without the call (one router).
  virtual bool routes_to_destination() const { return false; }
  // route(), then the decision of a router whose one subswitch takes the
  // global route as it is (Router::plain_decision): the router's common
  // case, one call from Router::route. A routing overrides it to have its
  // route inlined there (sim/routing/fclos.cpp): one call and return a
  // head instead of three (router.cpp).
  virtual RouteDecision route_plain(Router& router, int in_port, Flit& head);
};

}  // namespace nwn

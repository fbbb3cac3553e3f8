// A router: the subswitches and internal links of its organization, run by
// the kernel (models/kernel.hpp) in the cycles it has work: flits in a
// buffer, or flits or credits pending on a link. Published links mark their
// inputs pending, and a cycle visits only those: an idle router costs one
// check a cycle, and a busy one polls no idle link.
#pragma once
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "clock.hpp"
#include "kernel.hpp"
#include "link.hpp"
#include "organization.hpp"
#include "subswitch.hpp"

namespace nwn {

struct RouterParams {
  OrganizationParams org;
  int vcs = 4;
  SwitchPolicy policy;  // every subswitch's
  // The Verilated RTL in place of the C++ allocators (tb/rtl_allocator.hpp):
  // in every router (rtl_router < 0) or in router rtl_router only. The
  // switch allocator of that router's first subswitch is traced when
  // rtl.trace_path is set.
  bool rtl_allocators = false;
  int rtl_router = -1;
  RtlOptions rtl;
  int internal_serialization_cycles = 1;  // flit cycles on internal channels
  // Message classes (an embedding's requests and responses, flit.cls): the
  // global routing picks VCs in [0, vcs) and class c gets them scaled into
  // [c*vcs/n, (c+1)*vcs/n), so the classes share no buffer (EndpointParams).
  int message_classes = 1;
  // VCs reserved, in every message class, for packets to this router's own
  // terminals (network.eject_vcs; 0: none), which may take the others too.
  // Packets to another router get the others only, the global routing's VCs
  // scaled into them. An internal channel
  // that carries packets both to a global port and to a terminal can
  // otherwise close a cycle through two routers (docs/RESULTS.md, "Deadlock
  // across routers").
  int eject_vcs = 0;
};

// Activity counters of one router, in the order of its description's
// subswitches and channels: what the power model multiplies by energies.
struct RouterActivity {
  std::vector<SubswitchActivity> subswitches;
  std::vector<std::uint64_t> channel_flits;  // flits sent on each internal channel
  RouterActivity& operator+=(const RouterActivity& o);
  RouterActivity operator-(const RouterActivity& o) const;
};

class Router : public sc_core::sc_module, public Clocked, public SubswitchRouting {
 public:
  Router(sc_core::sc_module_name name, int id, const RouterParams& p, GlobalRouting* global, const Clock& clock);

  int id() const { return id_; }
  GlobalRouting* global_routing() const { return global_; }
  int radix() const { return int(org_.description.inputs.size()); }
  int eject_vcs() const { return eject_vcs_; }
  const SwitchDescription& description() const { return org_.description; }
  const std::vector<std::unique_ptr<Subswitch>>& subswitches() const { return subswitches_; }
  const std::vector<std::unique_ptr<Link>>& internal_links() const { return internal_; }

  // External channels. downstream_depth_flits = 0: the far end always accepts.
  void attach_input(int port, Link* link);
  void attach_output(int port, Link* link, int downstream_depth_flits);
  // Router output `port` leads to a terminal (RouterParams::eject_vcs).
  void mark_terminal_output(int port);

  // Kernel interface.
  bool active(Cycle) const override { return busy_ || pending_flits_.count() > 0 || pending_credits_.count() > 0; }
  void tick(Cycle now) override;
  int weight() const override { return weight_; }
  // With the first item's arrival: the input is visited only once it is due.
  void flits_pending(int input, Cycle at) override { pending_flits_.mark(input, at); }
  void credits_pending(int output, Cycle at) override { pending_credits_.mark(output, at); }
  RouteDecision route(int subswitch, int in_port, Flit& head) override;
  void prefetch(Cycle now, int stage) const override;

  std::uint64_t buffered_flits() const;
  std::uint64_t crossbar_flits() const;  // flit-hops inside this router
  RouterActivity activity() const;
  // Free buffer space (credits, all VCs) behind router output `port`: the
  // congestion measure of adaptive routing.
  int output_credits(int port) const;
  // The decision for a head whose global route is set, when the router's
  // one subswitch takes it as it is (GlobalRouting::route_plain).
  RouteDecision plain_decision(int in_port, Flit& head) {
    if (__builtin_expect(head.traced, 0)) return route_traced(0, in_port, head);
    return {head.router_out, head.router_vc_lo, head.router_vc_hi};
  }
  // Counts packets from each input port to each output port (Fig. 6, 7).
  void enable_heatmap();
  const std::vector<std::uint64_t>& heatmap() const { return heatmap_; }  // inputs x outputs
  void report_buffers(std::ostream& os) const;
  // The last cycle at which something under way in the router (a pipeline
  // stage, a flit or credit on an internal channel) completes; 0: none.
  Cycle pending_until() const;

 private:
  // route() for a packet chosen for debug tracing: also records the decision.
  [[gnu::cold, gnu::noinline]] RouteDecision route_traced(int subswitch, int in_port, Flit& head);
  // route() for the heads route() does not finish itself (a router that
  // is not plain, a traced head of one router), out of line: the plain
  // cases then save and restore no registers.
  [[gnu::noinline]] RouteDecision route_general(int subswitch, int in_port, Flit& head);
  void narrow_to_class(Flit& head) const;
  // tick and prefetch with one subswitch (only_ss_).
  void tick_one(Cycle now);
  void prefetch_one(Cycle now, int stage) const;
  void split_eject(Flit& head) const;
  // A flattened subswitch input or output: its subswitch and port, and
  // its link (prefetched in tick), in one entry: tick reads both.
  struct PortRef {
    const Link* link;
    std::uint32_t ss, port;
  };

  // The members tick, route and the kernel's active() read first and
  // together, the set-up's last: in a large network each router's state
  // is out of the cache when it is next visited, so each cache line these
  // touch is a miss.
  PendingInputs pending_flits_;    // flattened subswitch inputs
  PendingInputs pending_credits_;  // flattened subswitch outputs
  bool busy_ = false;  // a buffer held flits after the last tick
  bool direct_routing_ = false;  // org_.routing->direct()
  bool heatmap_on_ = false;  // enable_heatmap (heatmap_ is read only then)
  // route's common case, a plain router: one subswitch whose input i is
  // router input i, direct internal routing, one message class, no eject
  // VCs, no heatmap. Its global routing either routes to the destination
  // (GlobalRouting::routes_to_destination: to_destination_) or not
  // (plain_global_).
  bool to_destination_ = false;
  bool plain_global_ = false;
  int id_;  // read by the global routing
  // The only subswitch (null with several): prefetch reaches it without
  // the line of subswitches_.
  Subswitch* only_ss_ = nullptr;
  // prefetch_one's due inputs and outputs, found in its stage 2 for the
  // stages after (with one word of marks each).
  mutable std::uint64_t prefetch_due_flits_ = 0, prefetch_due_credits_ = 0;
  int message_classes_ = 1, eject_vcs_ = 0;
  GlobalRouting* global_;
  std::vector<PortRef> input_ref_, output_ref_;  // flattened index -> subswitch, port and link
  std::vector<std::unique_ptr<Subswitch>> subswitches_;
  std::vector<int> router_input_of_;  // (ss, port) -> router input port or -1, flattened
  // First flattened index of each subswitch's inputs (the first's is 0:
  // route reads it for the others only).
  std::vector<int> port_base_;
  std::vector<std::uint64_t> heatmap_;
  int weight_ = 1;
  int vcs_ = 1;
  Organization org_;
  Clock clock_;
  std::vector<std::unique_ptr<Link>> internal_;
  std::vector<int> out_base_;         // first flattened index of each subswitch's outputs
  std::vector<char> terminal_output_;  // per router output port
};

}  // namespace nwn

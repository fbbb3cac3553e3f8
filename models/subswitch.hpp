// A subswitch: an input-buffered crossbar with V virtual channels per input,
// VC allocation and switch allocation, credit-based flow control, virtual
// cut-through (default) or wormhole, and optional input speedup. Every
// router organization is a set of subswitches joined by links; the canonical
// crossbar is a router of one radix-k subswitch.
//
// Pipeline of a head flit written into the buffer at cycle a:
//   route computation  : ready for VA at a + rc_cycles
//   VC allocation (t_va): ready for SA at t_va + va_cycles
//   switch allocation (t_sa): leaves on the output link at t_sa + sa_cycles + st_cycles
// so the zero-load latency through a subswitch is the sum of the four stage
// latencies, and body flits follow the head one serialization time apart.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "allocator.hpp"
#include "link.hpp"
#include "packet_tracer.hpp"
#include "ring.hpp"
#include "routing.hpp"
#include "prefetch.hpp"

namespace nwn {

// How a switch moves packets: flow control and allocation, the same for
// every subswitch of a router (RouterParams holds it, the router copies it
// into each subswitch's SubswitchParams).
struct SwitchPolicy {
  // The fields the per-cycle code reads come first: SubswitchParams keeps
  // them in the cache line of its stage latencies (the allocator names
  // below are read once, by the constructor).
  bool wormhole = false;  // false: virtual cut-through
  int allocator_iterations = 1;
  // Cycles between a tail leaving a VC and the route computation of the head
  // behind it: 0 computes the route in the tail's cycle; BookSim's iq router
  // starts it in the next cycle (1).
  int next_head_delay_cycles = 0;
  // Packet-level switch holding (BookSim's hold_switch_for_packet): a
  // crossbar row and output that pass a head stay with its packet until
  // the tail, while the VC has a flit and a credit each cycle; otherwise
  // every flit is allocated on its own.
  bool hold_switch_for_packet = false;
  // VC allocation grants only an output VC with credits for the packet
  // (VCT) or for one flit (wormhole). false: any free output VC, whatever
  // its credits, as BookSim's iq router (vc_busy_when_full = 0): the head
  // then holds that VC and waits in switch allocation for a credit, and a
  // VCT packet may no longer fit whole downstream when it is granted.
  bool va_requires_credit = true;
  std::string switch_allocator = "islip";
  std::string vc_allocator = "islip";
};

struct SubswitchParams {
  // What the per-cycle code reads, in one cache line at the head of a
  // Subswitch (policy's flags included): a large network visits every
  // router each cycle, and each line of its state is a miss.
  int inputs = 2;
  int outputs = 2;
  int vcs = 4;
  int vc_depth_flits = 16;
  int input_speedup = 1;  // crossbar inputs per buffered input port
  int rc_cycles = 1;
  int va_cycles = 1;
  int sa_cycles = 1;
  int st_cycles = 1;
  int inner_rc_cycles = 0;
  int inner_va_cycles = 0;
  SwitchPolicy policy;
  // Inputs that are not router inputs (internal channels) skip route
  // computation and VC allocation latency: the router computed the route at
  // its input (lookahead), and subswitches "only allocate and traverse"
  // (inner_rc_cycles, inner_va_cycles).
  std::vector<std::uint8_t> router_input;  // per input; empty = every input is a router input
  // Ports that are further crossbar ports of another port on both sides
  // (SubswitchSpec::copy_of; empty: none). A port's flits on VC v go to its
  // copy v mod copies (each copy one crossbar row), and its copies' crossbar
  // outputs feed its link through an output queue of one flit per crossbar
  // output; credits, VC state and the link are the port's.
  std::vector<int> copy_of;
  bool rtl_allocators = false;   // Verilated RTL allocators (make_rtl_allocator)
  RtlOptions rtl_switch_options;  // for the switch allocator (tracing)
};

// Activity counted for the power model and the benchmark.
struct SubswitchActivity {
  std::uint64_t buffer_writes = 0;  // flits
  std::uint64_t buffer_reads = 0;   // flits
  std::uint64_t crossbar_flits = 0; // flits through the crossbar (flit-hops)
};

class alignas(64) Subswitch {
 public:
  Subswitch(std::string name, int id, const SubswitchParams& p, SubswitchRouting* routing);

  const std::string& name() const { return name_; }
  int id() const { return id_; }
  const SubswitchParams& params() const { return params_; }

  // Wiring. An output without credit tracking (a terminal that always
  // accepts) has downstream_depth_flits = 0.
  void connect_input(int port, Link* link);
  void connect_output(int port, Link* link, int downstream_depth_flits);
  Link* input_link(int port) const { return port_link(port); }
  Link* output_link(int port) const { return out_[port].link; }

  // One clock cycle: receive flits and credits (polling every link), then step.
  void cycle(Cycle now);
  // The parts of a cycle, for an owner that knows which links deliver
  // (models/router.hpp): take the flits readable now on input `port`, the
  // credits readable now on output `port` (each returns when the link's next
  // item arrives, kNever if it has none); then route, allocate, traverse.
  Cycle receive_flits(int port, Cycle now);
  Cycle receive_credits(int port, Cycle now);
  void step(Cycle now);

  // Debug tracing of flits with Flit::traced set (nullptr: off).
  void set_tracer(PacketTracer* tracer) { tracer_ = tracer; }
  // The routing decision for a traced head at input `port` (called by the
  // router's SubswitchRouting, which computes it).
  [[gnu::cold, gnu::noinline]] void trace_route(Cycle now, int port, const Flit& head, const RouteDecision& d) const;

  bool has_flits() const { return buffered_flits_ > 0; }
  // Flits buffered at input `port`, all VCs (occupancy VCD).
  int buffered_flits_at(int port) const {
    int n = 0;
    for (int vc = 0; vc < params_.vcs; ++vc) n += int(queued(port * params_.vcs + vc));
    return n;
  }
  std::uint64_t buffered_flits() const { return buffered_flits_; }
  const SubswitchActivity& activity() const { return activity_; }
  // Credits of output `port` summed over VCs (a large number if untracked).
  int output_credits(int port) const;

  // The last cycle a buffered flit finishes a pipeline stage or a crossbar
  // row finishes serializing (0: none): progress pending, for the watchdog.
  // (Between cycles: every Routing VC's stage and every sa_wait VC's ends
  // after the last step; the other VCs' ended before it.)
  Cycle pending_until() const {
    Cycle t = 0;
    for (std::size_t w = 0; w < vc_words_.size(); ++w)
      for (std::uint64_t word = vc_words_[w].routing | vc_words_[w].sa_wait; word; word &= word - 1)
        t = std::max(t, ready_at(vcs_[w * 64 + std::size_t(__builtin_ctzll(word))].stage, last_step_));
    for (const Row& r : rows_) t = std::max(t, r.busy_until);
    return t;
  }
  // Lists every non-empty VC buffer: port, VC, state, route, credits, front packet.
  void report_buffers(std::ostream& os) const;
  // Visit every flit held in a buffer (for conservation checks).
  template <typename F>
  void for_each_buffered_flit(F&& f) const {
    for (std::size_t idx = 0; idx < vcs_.size(); ++idx) {
      if (!vcs_[idx].has_front) continue;
      f(vcs_[idx].front);
      if (vcs_[idx].behind)
        for (std::size_t i = 0; i < behind_[idx].size(); ++i) f(behind_[idx].at(i));
    }
  }

 private:
  enum class VcState : std::uint8_t { Idle, Routing, VcAlloc, Active };
  // An input VC's buffer front and state in one cache line: receiving,
  // routing, VC and switch allocation and traversal of a flit each read
  // or write the VC in a different cycle, and in a large network the line
  // is out of the cache every time, so the flit beside the state spares a
  // miss per stage (a ring's storage was a line of its own). Flits behind
  // the front wait in behind_ (a packet of several flits, or a queue).
  struct InputVc {
    Flit front;              // the first flit in the buffer (has_front)
    VcState state = VcState::Idle;
    std::int8_t out_vc = -1;  // VCs are below 64 (OutputPort's masks)
    // VcAlloc: the VCs [vc_lo(), vc_hi()] of out_port it may take, a byte
    // each. Routing and Active: the low 16 bits of the cycle its stage ends
    // (route computation; VC allocation latency), tested by stage_due(): the
    // stage latencies are below 2^14 (checked by the constructor) and a
    // subswitch holding flits steps every cycle, so the ready time is
    // within 2^15 of every cycle it is tested at. In the VC's line: a
    // vector of ready times beside the VCs was 16 more lines of a
    // radix-32 subswitch, about 8k cache misses a cycle in the 1-cycle fat
    // tree of 4,096 nodes.
    std::uint16_t stage = 0;
    std::int16_t out_port = -1;  // outputs below 2^15 (checked by the constructor)
    bool has_front = false;  // the buffer holds a flit
    bool behind = false;     // and more in behind_
    int vc_lo() const { return stage & 0xff; }
    int vc_hi() const { return stage >> 8; }
  };
  // Ready time bits of a Routing or Active VC whose stage ends at `ready`.
  static std::uint16_t ready_bits(Cycle ready) { return std::uint16_t(ready); }
  // A stage that ends at the cycle of `ready` bits has ended by `now`.
  static bool stage_due(std::uint16_t ready, Cycle now) {
    return std::int16_t(std::uint16_t(ready - std::uint16_t(now))) <= 0;
  }
  // The cycle of `ready` bits, within 2^15 of `ref`.
  static Cycle ready_at(std::uint16_t ready, Cycle ref) {
    return ref + Cycle(std::int64_t(std::int16_t(std::uint16_t(ready - std::uint16_t(ref)))));
  }
  static constexpr int kMaxStageCycles = (1 << 14) - 1;
  static_assert(sizeof(InputVc) == 64, "a flit and an input VC's state fit one cache line");
  // Flits in the buffer of VC `idx`.
  std::size_t queued(int idx) const {
    const InputVc& v = vcs_[std::size_t(idx)];
    return std::size_t(v.has_front) + (v.behind ? behind_[std::size_t(idx)].size() : 0);
  }
  // Removes the front flit of VC `idx`: the next one, if any, moves to the front.
  void pop_front(InputVc& v, int idx) {
    if (!v.behind) {
      v.has_front = false;
      return;
    }
    CompactRing<Flit>& b = behind_[std::size_t(idx)];
    v.front = b.front();
    b.pop();
    v.behind = !b.empty();
  }
  // A crossbar row (an input port without input speedup): its link (its
  // port's; a copy's is its port's), when its current send ends, the VCs
  // that ask switch allocation this cycle and the round-robin VC pointer,
  // in one entry: receiving, switch allocation and the send each read the
  // row, and in a large network each array is out of the cache every time.
  struct Row {
    Link* link = nullptr;
    Cycle busy_until = 0;
    // Bit k: VC first + k * speedup asked this cycle (switch allocation's
    // requests; with vc_bytes_, byte k: the output it asked for, plus one).
    std::uint64_t vcs_asking = 0;
    std::int32_t serialization_cycles = 1;  // the link's: how long a send keeps the row
    std::int32_t vc_pointer = 0;  // round-robin VC choice (with vc_bytes_ it may be the VC count: as 0)
  };
  static_assert(sizeof(Row) == 32, "two crossbar rows a cache line, none across two");
  Link* port_link(int port) const { return rows_[std::size_t(port) * std::size_t(params_.input_speedup)].link; }
  // An output port's state and, up to kInlineCredits VCs, its credit
  // counts, in one cache line: receiving a credit, VC allocation and
  // traversal each read the port and a count, and in a large network both
  // are out of the cache every time (with the counts apart, two misses).
  static constexpr int kInlineCredits = 7;
  struct alignas(64) OutputPort {
    Link* link = nullptr;
    // Per downstream VC: inline_credits, or with more VCs this output's
    // row of credits_; a copy's points to its port's.
    int* credits = nullptr;
    std::uint64_t vc_owned = 0;   // bit per VC allocated to a packet in flight
    // Bit per VC with a credit (credits > 0), kept with the credits; every
    // VC when credits are not tracked: VC and switch allocation test it
    // with a mask instead of reading the counts.
    std::uint64_t credit_vcs = 0;
    bool track_credits = false;
    int inline_credits[kInlineCredits] = {};
    bool owned(int vc) const { return vc_owned >> vc & 1; }
  };
  static_assert(sizeof(OutputPort) == 64, "an output port and its credits fit one cache line");

  InputVc& vc_at(int port, int vc) { return vcs_[std::size_t(port) * params_.vcs + vc]; }
  const InputVc& vc_at(int port, int vc) const { return vcs_[std::size_t(port) * params_.vcs + vc]; }
  void route_and_allocate_vcs(Cycle now);
  void allocate_switch(Cycle now);
  void traverse(int port, int vc, Cycle now);
  struct VcWords;  // (below)
  // A flit's departure from input VC v (index idx, its bit set `words`
  // and bit; VC vc of an input port whose link is in_link) to its output
  // port o, the same on both switch paths (traverse, and the plain
  // switch's send inlined into its loop). queue: the output port has
  // copies (Link::enqueue); extra_cycles: sa_cycles + st_cycles;
  // head_ready: when the route computation of a head behind a tail would
  // end. The caller counts the flit (buffered_flits_, activity_): the
  // plain switch once a step.
  [[gnu::always_inline]] void depart(InputVc& v, int idx, VcWords& words, std::uint64_t bit, int vc, Link* in_link,
                                     OutputPort& o, bool queue, int extra_cycles, Cycle head_ready, Cycle now);
  void start_packet_if_any(InputVc& v, VcWords& words, std::uint64_t bit, Cycle ready, Cycle now);
  [[noreturn, gnu::cold, gnu::noinline]] void bad_vc(int vc) const;
  [[noreturn, gnu::cold, gnu::noinline]] void overflow(int port, int vc) const;
  [[noreturn, gnu::cold, gnu::noinline]] void body_at_idle_front() const;
  [[noreturn, gnu::cold, gnu::noinline]] void invalid_route() const;
  [[noreturn, gnu::cold, gnu::noinline]] void no_vc_asking(int row) const;  // a switch grant nobody asked for
  void release_hold(int row, int out);
  bool is_router_input(int port) const { return all_router_inputs_ || params_.router_input[std::size_t(port)]; }
  int rc_cycles(int port) const { return is_router_input(port) ? params_.rc_cycles : params_.inner_rc_cycles; }
  int va_cycles(int port) const { return is_router_input(port) ? params_.va_cycles : params_.inner_va_cycles; }
  // Visits, in index order, the VCs switch allocation may serve: holding
  // flits and an output VC, past their VC allocation latency (sa_wait,
  // end_sa_waits), so neither scan tests a VC's ready time.
  template <typename F>
  void for_each_switch_ready_vc(F&& f) {
    for (std::size_t w = 0; w < vc_words_.size(); ++w)
      for (std::uint64_t word = vc_words_[w].occupied & vc_words_[w].active & ~vc_words_[w].sa_wait; word;
           word &= word - 1)
        f(int(w * 64) + __builtin_ctzll(word));
  }
  // Visits, in index order, the VCs in VcAlloc: every occupied VC neither
  // Active nor Routing (ready since its route computation ended: its ready
  // time is that end), with its state.
  template <typename F>
  void for_each_vc_allocation_vc(F&& f) {
    for (std::size_t w = 0; w < vc_words_.size(); ++w)
      for (std::uint64_t word = vc_words_[w].occupied & ~(vc_words_[w].active | vc_words_[w].routing); word;
           word &= word - 1) {
        const int idx = int(w * 64) + __builtin_ctzll(word);
        f(idx, static_cast<const InputVc&>(vcs_[std::size_t(idx)]));
      }
  }
  void grant_vc(int req, int g, Cycle now);
  void request_vcs(int input, int base, std::uint64_t mask);
  void grant_vc_round(Cycle now);
  void allocate_vc_ports(int n, int ports, Cycle now);
  bool allocate_vcs_small(Cycle now);
  std::uint64_t va_mask(const InputVc& v) const;
  // va_mask with the credit test (va_requires_credit) decided by the
  // caller, once a step, and the output port passed in.
  template <bool kCredit>
  std::uint64_t va_mask_in(const InputVc& v, const OutputPort& o) const;
  void route_vc(int idx);
  // Per 64 VCs, the bit sets the per-cycle scans read, side by side: a
  // radix-32 subswitch of 4 VCs keeps all four in one cache line (a large
  // network visits every router each cycle, and its state is not in cache).
  struct VcWords {
    std::uint64_t occupied = 0;  // VCs holding flits: the scans visit only these
    std::uint64_t active = 0;    // VCs in state Active (holding an output VC)
    // VCs in state Routing: route_and_allocate_vcs tests their ready times
    // without a branch, then routes the due ones and asks for output VCs
    // for the rest (all ready), each in a loop of its own; one loop with a
    // branch per VC on state and time mispredicted about every second VC.
    std::uint64_t routing = 0;
    // Active VCs whose VC allocation latency has not passed (ready after
    // this step): set at the grant, cleared by step() once their time has
    // come, so that switch allocation's scan skips them without reading
    // them (a branch per VC that mispredicted). On a Routing VC the bit
    // means that the next route test would find its time not come (set
    // when it becomes Routing: at an arrival with a route computation of
    // a cycle or more, or after a tail with the next head's due after the
    // next step), and that test skips it and clears the bit: every head
    // was tested twice (the router case, about 640 instructions a cycle).
    std::uint64_t sa_wait = 0;
  };
  static std::uint64_t bit_of(int idx) { return std::uint64_t{1} << (idx & 63); }
  VcWords& words_of(int idx) { return vc_words_[std::size_t(idx >> 6)]; }
  void end_sa_waits(Cycle now);
  int output_room(int port, Cycle now) const;  // crossbar outputs of `port` its queue can take now
  // A VC allocation request before it reaches the allocator: the input VC,
  // the output port, and the VCs of the port it may take (bits from 0).
  struct Request {
    int input, port;
    std::uint64_t mask;
  };
  // VC allocation by output port (va_splits_): the requests of a port and,
  // once counted, where its group starts among the sorted requests.
  struct PortRequests {
    int count = 0, offset = 0;
  };
  void send_from_row(int row, int column, Cycle now);
  void allocate_switch_rows(int rows, bool ascending, Cycle now);
  // kAllRouterInputs: all_router_inputs_, a constant of the send loop
  // (a test and a copy of head_ready a send, about 4 instructions).
  template <bool kVcBytes, bool kAllRouterInputs>
  void allocate_switch_plain(Cycle now);
  // What each send of a plain switch step reads besides its row, VC and
  // output, read once a step into locals: through the members the
  // compiler read them again after every send (a store to a VC's int8_t
  // field may alias any member).
  struct PlainSend {
    Row* rows;
    InputVc* vcs;
    OutputPort* outs;
    VcWords* words;
    int vcs_per_port;
    int extra_cycles;  // sa_cycles + st_cycles
    Cycle head_ready;  // now + next_head_delay_cycles (+ rc_cycles if all_router_inputs): a head's ready time less rc
    Cycle now;
  };
  template <bool kVcBytes, bool kAllRouterInputs>
  void send_from_row_plain(const PlainSend& send, int row, int out);
  // Only flits with Flit::traced get here: cold, out of line and with few
  // arguments (the rest is read from the VC's state), so the hooks leave
  // the per-cycle code as it was.
  [[gnu::cold, gnu::noinline]] void trace(TraceEvent e, Cycle now, int port, int vc, const Flit& f) const;
  [[gnu::cold, gnu::noinline]] void trace_vc_grants(Cycle now, int requests);

  // The members in the order the per-cycle code reads them, the rest last:
  // in a large network each router's state is out of the cache when it is
  // next visited, so every cache line a step touches is a miss, and the
  // members it reads packed together touch fewer lines (the class is
  // line-aligned). params_ first: its head line holds all the per-cycle
  // parameters, its strings and vectors follow (read by the constructor).
  SubswitchParams params_;
  // The members read every cycle start on a line of their own: the 256
  // bytes from here to sw_alloc_ take four lines, not five.
  alignas(64) std::uint64_t buffered_flits_ = 0;
  Cycle sa_wait_until_ = 0;  // the latest ready time of the sa_wait VCs (0: none)
  Cycle last_step_ = 0;  // the cycle of the last step (pending_until's reference for ready bits)
  SubswitchActivity activity_;
  PacketTracer* tracer_ = nullptr;
  SubswitchRouting* routing_;
  bits::Divisor by_vcs_;  // params_.vcs
  int id_;
  bool plain_switch_ = false;  // allocate_switch_plain applies
  // allocate_switch_plain with at most 8 VCs: Row::vcs_asking holds a byte
  // per VC, the output it asked for plus one (0: none), not a bit.
  bool vc_bytes_ = false;
  bool va_splits_ = false;  // vc_alloc_->splits_by_disjoint_outputs()
  bool va_small_ = false;   // and at most 8 VCs: allocate_vcs_small applies
  bool va_small_fixed_ = false;  // and at most 64 inputs and outputs: its scratch is of fixed size
  // Every input a router input (params_.router_input all set or empty):
  // the stage latencies without reading the vector.
  bool all_router_inputs_ = true;
  // An output link takes more than a cycle a flit: only then can it be
  // busy when the plain switch's scan asks (its sends end by the next
  // cycle), and the scan reads the link.
  bool outputs_serialize_ = false;
  std::vector<VcWords, CacheLineAllocator<VcWords>> vc_words_;
  std::vector<Row, CacheLineAllocator<Row>> rows_;  // inputs x speedup crossbar rows
  std::vector<OutputPort, CacheLineAllocator<OutputPort>> out_;  // one cache line each
  std::vector<InputVc, CacheLineAllocator<InputVc>> vcs_;  // inputs x vcs, one cache line each
  // Per VC: the flits behind the front (empty until a second flit waits:
  // each grows only to the depth it reaches), 16 bytes a VC.
  std::vector<CompactRing<Flit>> behind_;
  // copy_of only (empty otherwise): the crossbar ports of each port (itself
  // first, then its copies; empty for a copy) and the port of each crossbar port.
  std::vector<std::vector<int>> crossbar_ports_;
  // The allocations' scratch, rewritten every cycle: one per thread
  // (scratch()), not per subswitch, so that it stays in the cache.
  struct Scratch;
  Scratch& scratch() const;
  std::size_t requests_max_ = 0;  // VC allocation requests a cycle, at most
  std::unique_ptr<Allocator> vc_alloc_;
  std::unique_ptr<Allocator> sw_alloc_;
  // Read only by the general switch allocation (input speedup, port
  // copies, held connections) and the set-up; its requests beside
  // Row::vcs_asking: the crossbar outputs asked for (sw_out_words_ words a
  // row) and the rows that asked, in scan order.
  bits::Divisor by_speedup_;  // params_.input_speedup
  int sw_out_words_ = 1;
  std::vector<std::uint64_t> row_outputs_;
  std::vector<int> asking_rows_;
  std::vector<int> port_of_;
  std::vector<int> credits_;  // outputs x vcs past kInlineCredits VCs (read through OutputPort::credits)
  // hold_switch_for_packet only (empty otherwise): the VC a row is held for,
  // the row an output is held by (-1: none), and this cycle's held sends
  // (~index: a held VC that cannot send, released after the scan).
  std::vector<int> row_hold_vc_, out_held_by_, held_sends_;
  std::string name_;

  // Visits f(index, VC) for every buffered VC past route computation (the
  // ones a prefetch stage follows to their output port and links).
  template <typename F>
  void for_each_routed_vc(F&& f) const {
    for (std::size_t w = 0; w < vc_words_.size(); ++w)
      for (std::uint64_t word = vc_words_[w].occupied & ~vc_words_[w].routing; word; word &= word - 1) {
        const std::size_t idx = w * 64 + std::size_t(__builtin_ctzll(word));
        f(idx, vcs_[idx]);
      }
  }

 public:
  // Software prefetch (Clocked::prefetch, through the router), stage 1 to
  // 6, each following the lines the one before asked for; changes nothing.
  void prefetch(Cycle now, int stage) const;
  // What receiving a flit on VC `vc` of input `port` (a credit on output
  // `port`) writes.
  void prefetch_arrival(int port, int vc) const;
  // What receiving flits on any VC of input `port` writes: its VCs and
  // their rings' headers; false (nothing asked for) with more than 8 VCs
  // or port copies.
  bool prefetch_port_arrivals(int port) const;
  void prefetch_credit_arrival(int port) const { prefetch_write(&out_[std::size_t(port)]); }
  // The row of input `port` (its link, which receiving a flit reads).
  void prefetch_input_row(int port) const {
    prefetch_write(&rows_[std::size_t(port) * std::size_t(params_.input_speedup)]);
  }
};

// In the header, so that the router's visit of its due inputs (Router::tick)
// inlines it: a call per flit cost about 20 instructions of entry and exit.
[[gnu::always_inline]] inline Cycle Subswitch::receive_flits(int port, Cycle now) {
  Link* link = port_link(port);
  Cycle at;
  while ((at = link->next_flit_at()) <= now) {
    const Flit& f = link->front_flit();  // in the link's slot: copied once, into the buffer
    const int vc = f.vc;
    if (unsigned(vc) >= unsigned(params_.vcs)) bad_vc(vc);
    int p = port;
    if (!crossbar_ports_.empty()) {  // VC v of a port with copies: its copy v mod copies
      const std::vector<int>& ports = crossbar_ports_[std::size_t(port)];
      p = ports[std::size_t(vc) % ports.size()];
    }
    const int idx = p * params_.vcs + vc;
    InputVc& v = vcs_[std::size_t(idx)];
    const Flit* buffered = &v.front;
    if (!v.has_front) {
      words_of(idx).occupied |= bit_of(idx);
      v.front = f;
      v.has_front = true;
    } else {
      CompactRing<Flit>& b = behind_[std::size_t(idx)];
      if (int(b.size()) + 1 >= params_.vc_depth_flits) overflow(p, vc);
      b.push(f);
      v.behind = true;
      buffered = &b.at(b.size() - 1);
    }
    link->drop_flit();
    link->prefetch_flit_after_next();
    ++buffered_flits_;
    ++activity_.buffer_writes;
    if (tracer_ && buffered->traced) trace(TraceEvent::Buffer, now, p, vc, *buffered);
    if (v.state == VcState::Idle) {
      if (!v.front.head) body_at_idle_front();
      v.state = VcState::Routing;
      const int rc = rc_cycles(p);
      v.stage = ready_bits(now + Cycle(rc));
      VcWords& words = words_of(idx);
      words.routing |= bit_of(idx);
      words.sa_wait |= bit_of(idx) & (std::uint64_t{0} - std::uint64_t{rc > 0});  // not due in this cycle's step
    }
  }
  return at;
}

// In the header for the same reason (the router's visit of its due outputs
// inlines it): a call per credit cost about 20 of its 66 instructions.
[[gnu::always_inline]] inline Cycle Subswitch::receive_credits(int p, Cycle now) {
  OutputPort& o = out_[std::size_t(p)];
  Link* const link = o.link;
  Cycle at;
  while ((at = link->next_credit_at()) <= now) {
    const int vc = link->pop_credit();
    if (o.track_credits && o.credits[vc]++ == 0) o.credit_vcs |= std::uint64_t{1} << vc;
  }
  return at;
}

}  // namespace nwn

// The model's rules, each checked exactly on a case small enough to work out
// by hand: the cycle a flit leaves after a credit comes back, virtual
// cut-through at injection and inside the router, wormhole, the output VC a
// packet holds until its tail leaves, serialization, the iSLIP pointer rule
// against a reference implementation, every traffic pattern's destination
// map, and the latency percentiles. Most run without a simulation kernel
// (the subswitch and network interfaces clocked by hand), so a mutant of
// one of these rules dies in milliseconds (scripts/mutation-test).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/allocator.hpp"
#include "models/endpoint.hpp"
#include "models/rng.hpp"
#include "models/subswitch.hpp"
#include "sim/stats.hpp"
#include "sim/traffic.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

// ---------------------------------------------------------------------------
// One subswitch clocked by hand, with chosen link parameters.

class ToDestination final : public SubswitchRouting {
 public:
  ToDestination(int lo, int hi) : lo_(lo), hi_(hi) {}
  RouteDecision route(int, int, Flit& head) override { return {head.dst, lo_, hi_}; }

 private:
  int lo_, hi_;
};

struct Rig {
  struct Options {
    int vcs = 1;
    bool wormhole = false;
    int downstream_depth = 0;  // 0: outputs always accept
    LinkParams in, out;
    int route_vc_lo = 0, route_vc_hi = -1;  // -1: the last VC
    int rc_cycles = 1;
    bool hold_switch = false;  // router.hold_switch_for_packet: the general switch path, not the plain one
  };
  explicit Rig(const Options& o)
      : routing(o.route_vc_lo, o.route_vc_hi < 0 ? o.vcs - 1 : o.route_vc_hi) {
    SubswitchParams p;
    p.inputs = p.outputs = 2;
    p.vcs = o.vcs;
    p.vc_depth_flits = 64;  // the rig feeds flits without upstream credits
    p.policy.wormhole = o.wormhole;
    p.rc_cycles = o.rc_cycles;
    p.policy.hold_switch_for_packet = o.hold_switch;
    for (int i = 0; i < 2; ++i) {
      in.push_back(std::make_unique<Link>("in" + std::to_string(i), o.in));
      out.push_back(std::make_unique<Link>("out" + std::to_string(i), o.out));
    }
    ss = std::make_unique<Subswitch>("ss", 0, p, &routing);
    for (int i = 0; i < 2; ++i) {
      ss->connect_input(i, in[i].get());
      ss->connect_output(i, out[i].get(), o.downstream_depth);
    }
  }
  // A packet of `n` flits on input `port` for output `dst`, flit i sent at
  // start + i * gap.
  void packet(int port, int dst, int n, std::uint64_t id, Cycle start, int vc = 0, int gap = 1) {
    for (int i = 0; i < n; ++i) {
      Flit f;
      f.packet_id = id;
      f.dst = dst;
      f.vc = std::int16_t(vc);
      f.packet_flits = std::uint16_t(n);
      f.head = i == 0;
      f.tail = i == n - 1;
      sends.push_back({start + Cycle(i * gap), port, f});
    }
  }
  // A credit for VC `vc` of output `port`, returned by the downstream buffer at cycle `at`.
  void credit(int port, int vc, Cycle at) { credits.push_back({at, port, vc}); }
  void run(Cycle to) {
    for (Cycle t = 0; t < to; ++t) {
      for (auto& s : sends)
        if (s.at == t) in[s.port]->send(s.flit, t);
      for (auto& c : credits)
        if (c.at == t) out[c.port]->send_credit(c.vc, t);
      ss->cycle(t);
      for (int o = 0; o < 2; ++o)
        while (out[o]->flit_ready(t + 1)) received.push_back({t + 1, o, out[o]->pop_flit()});
    }
  }
  // Arrival cycles at the far end of the output links of packet `id`'s flits.
  std::vector<Cycle> arrivals(std::uint64_t id) const {
    std::vector<Cycle> v;
    for (auto& r : received)
      if (r.flit.packet_id == id) v.push_back(r.at);
    return v;
  }
  struct Timed {
    Cycle at;
    int port;
    Flit flit;
  };
  struct Credit {
    Cycle at;
    int port, vc;
  };
  ToDestination routing;
  std::vector<std::unique_ptr<Link>> in, out;
  std::unique_ptr<Subswitch> ss;
  std::vector<Timed> sends, received;
  std::vector<Credit> credits;
};

using Cycles = std::vector<Cycle>;

// Default pipeline: rc = va = sa = st = 1; the input link takes 1 cycle.
// A head written at a leaves the crossbar at a + rc + va and reaches the far
// end of an output link of latency L at a + rc + va + sa + st + L.

// VCT, one VC, one flit of room downstream. Packet 1 takes the credit;
// packet 2 (same input VC, behind it) waits in VC allocation until a credit
// the downstream buffer returns at cycle c is read at c + credit latency:
// then VA, SA, and the link.
class CreditRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(CreditRoundTrip, ACreditSentAtCIsUsableAtCPlusItsLatency) {
  const int credit_latency = GetParam();
  Rig::Options o;
  o.downstream_depth = 1;
  o.out.latency_cycles = 2;
  o.out.credit_latency_cycles = credit_latency;
  Rig rig(o);
  rig.packet(0, 0, 1, 1, 0);
  rig.packet(0, 0, 1, 2, 1);
  const Cycle c = 20;
  rig.credit(0, 0, c);
  rig.run(60);
  // Written at 1: rc 2, VA 2, SA 3, on the wire at 3 + sa + st = 5, arrives 7.
  EXPECT_EQ(rig.arrivals(1), (Cycles{7}));
  EXPECT_EQ(rig.arrivals(2), (Cycles{c + credit_latency + 1 + 1 + 1 + 2}));
}

// Wormhole: the body of a packet that holds its output VC waits only for the
// credit; it crosses in the cycle the credit becomes readable.
TEST_P(CreditRoundTrip, ABlockedWormholeBodyLeavesWhenTheCreditArrives) {
  const int credit_latency = GetParam();
  Rig::Options o;
  o.wormhole = true;
  o.downstream_depth = 1;
  o.out.latency_cycles = 2;
  o.out.credit_latency_cycles = credit_latency;
  Rig rig(o);
  rig.packet(0, 0, 2, 1, 0);
  const Cycle c = 20;
  rig.credit(0, 0, c);
  rig.run(60);
  EXPECT_EQ(rig.arrivals(1), (Cycles{7, c + credit_latency + 1 + 1 + 2}));
}

INSTANTIATE_TEST_SUITE_P(Latencies, CreditRoundTrip, ::testing::Values(1, 3, 7));

// Virtual cut-through inside the router: a head takes an output VC only
// when the VC has credits for the whole packet, and then the whole packet
// goes without stopping. 4-flit packets, 5 flits of room: packet 1 leaves 1
// credit; packet 2 needs the third of the credits returned at 30, 31, 32.
TEST(VirtualCutThrough, AHeadWaitsForRoomForTheWholePacket) {
  Rig::Options o;
  o.downstream_depth = 5;
  Rig rig(o);
  rig.packet(0, 0, 4, 1, 0);
  rig.packet(0, 0, 4, 2, 4);
  rig.credit(0, 0, 30);
  rig.credit(0, 0, 31);
  rig.credit(0, 0, 32);
  rig.run(80);
  EXPECT_EQ(rig.arrivals(1), (Cycles{6, 7, 8, 9}));
  // Read at 33: VA 33, SA 34..37, arrive 34 + 2 + 1 = 37 onwards.
  EXPECT_EQ(rig.arrivals(2), (Cycles{37, 38, 39, 40}));
}

// Wormhole: the same packet starts with one credit and stops when they run out.
TEST(Wormhole, AHeadStartsWithOneCreditAndTheBodyFollowsTheCredits) {
  Rig::Options o;
  o.wormhole = true;
  o.downstream_depth = 5;
  Rig rig(o);
  rig.packet(0, 0, 4, 1, 0);
  rig.packet(0, 0, 4, 2, 4);
  rig.credit(0, 0, 30);
  rig.credit(0, 0, 40);
  rig.run(80);
  EXPECT_EQ(rig.arrivals(1), (Cycles{6, 7, 8, 9}));
  // Packet 1's tail crosses at 6; packet 2's head routes at 7, takes the one
  // credit left (VA 7, SA 8, arrives 11). Its body waits for the credits of
  // 30 and 40 (read at 31 and 41); the tail for one that never comes.
  EXPECT_EQ(rig.arrivals(2), (Cycles{11, 34, 44}));
}

// An output VC belongs to one packet from its VC grant until its tail
// crosses: two packets for one output with one VC go one after the other,
// never interleaved, and the second gets the VC the cycle after the first's
// tail crossed (VA runs before SA in a cycle).
TEST(VcAllocation, AnOutputVcIsHeldUntilTheTailCrosses) {
  Rig::Options o;
  Rig rig(o);
  rig.packet(0, 0, 3, 1, 0);
  rig.packet(1, 0, 3, 2, 0);
  rig.run(40);
  // Both heads ask at 2; iSLIP's pointers start at input 0.
  EXPECT_EQ(rig.arrivals(1), (Cycles{6, 7, 8}));
  // Tail of 1 crosses at 5; packet 2 gets the VC at 6, crosses 7, 8, 9.
  EXPECT_EQ(rig.arrivals(2), (Cycles{10, 11, 12}));
}

// With two output VCs the second packet takes the free one; both share the
// output link cycle by cycle.
TEST(VcAllocation, ASecondVcLetsTwoPacketsShareAnOutput) {
  Rig::Options o;
  o.vcs = 2;
  Rig rig(o);
  rig.packet(0, 0, 3, 1, 0);
  rig.packet(1, 0, 3, 2, 0);
  rig.run(40);
  std::vector<int> vcs;
  for (auto& r : rig.received) vcs.push_back(r.flit.vc);
  ASSERT_EQ(rig.received.size(), 6u);
  // One-iteration iSLIP: both VCs offer themselves to input 0, which takes
  // VC 0; input 1 gets VC 1 a cycle later. The link alternates after that.
  EXPECT_EQ(rig.arrivals(1), (Cycles{6, 8, 10}));
  EXPECT_EQ(rig.arrivals(2), (Cycles{7, 9, 11}));
  for (auto& r : rig.received) EXPECT_EQ(r.flit.vc, r.flit.packet_id == 1 ? 0 : 1);
}

// The next packet of an input VC starts route computation when the tail
// before it crosses: with rc = 2, packet 2 (written at 2, behind packet 1)
// is ready for VA 2 cycles after packet 1's tail crossed at 4.
TEST(VcAllocation, TheNextPacketOfAVcRoutesAfterTheTailCrosses) {
  Rig::Options o;
  o.rc_cycles = 2;
  Rig rig(o);
  rig.packet(0, 0, 1, 1, 0);
  rig.packet(0, 0, 1, 2, 1);
  rig.run(40);
  // Packet 1: written 1, VA 3, SA 4, arrives 7. Packet 2: VA 6, SA 7, arrives 10.
  EXPECT_EQ(rig.arrivals(1), (Cycles{7}));
  EXPECT_EQ(rig.arrivals(2), (Cycles{10}));
}

// A crossbar row serves the VCs that want the granted output in turn:
// packets on VCs 0 and 1 of one input, for one output, interleave flit by
// flit once both hold an output VC.
TEST(SwitchAllocation, ACrossbarRowServesItsVcsInTurn) {
  Rig::Options o;
  o.vcs = 2;
  Rig rig(o);
  rig.packet(0, 0, 3, 1, 0, 0);
  rig.packet(0, 0, 3, 2, 0, 1);
  rig.run(40);
  // Both heads ask for an output VC at 2; one-iteration iSLIP gives VC 0 to
  // the first, VC 1 to the second a cycle later.
  EXPECT_EQ(rig.arrivals(1), (Cycles{6, 8, 10}));
  EXPECT_EQ(rig.arrivals(2), (Cycles{7, 9, 11}));
}

// Only a VC with a credit asks for its output. Wormhole, three VCs, one
// flit of room each:
//   A (input 0 -> output VC 0): its head takes VC 0's credit at 3, its body
//     waits for a credit that never comes.
//   F and G (input 1, VCs 0 and 1, written at 4): F gets output VC 1 and
//     crosses at 6, G gets VC 2 a cycle later and crosses at 7.
// Had A's row asked for the output anyway, the output's pointer (on input 0
// since F crossed) would grant it at 7, nothing would cross, and G would
// wait a cycle.
TEST(SwitchAllocation, ARowAsksOnlyForOutputsItHasCreditsFor) {
  Rig::Options o;
  o.vcs = 3;
  o.wormhole = true;
  o.downstream_depth = 1;
  Rig rig(o);
  rig.packet(0, 0, 2, 1, 0);
  rig.packet(1, 0, 1, 2, 3, 0);
  rig.packet(1, 0, 1, 3, 3, 1);
  rig.run(40);
  EXPECT_EQ(rig.arrivals(1), (Cycles{6}));
  EXPECT_EQ(rig.arrivals(2), (Cycles{9}));
  EXPECT_EQ(rig.arrivals(3), (Cycles{10}));
}

// Within a row, a VC without a credit is passed over for one that has one:
// A's body (VC 0) is stuck when B's body (VC 1) gets its credit, although
// the row's turn is on VC 0.
TEST(SwitchAllocation, ARowPassesOverAVcWithoutCredits) {
  Rig::Options o;
  o.vcs = 2;
  o.wormhole = true;
  o.downstream_depth = 1;
  Rig rig(o);
  rig.packet(0, 0, 2, 1, 0, 0);
  rig.packet(0, 0, 2, 2, 3, 1);
  rig.credit(0, 1, 7);
  rig.run(40);
  // A: head crosses 3. B: head crosses 6 (output VC 1), body when the credit
  // is read at 8.
  EXPECT_EQ(rig.arrivals(1), (Cycles{6}));
  EXPECT_EQ(rig.arrivals(2), (Cycles{9, 11}));
}

// A packet may take only the VCs its route allows.
TEST(VcAllocation, OnlyTheRoutedVcRangeIsGranted) {
  Rig::Options o;
  o.vcs = 4;
  o.route_vc_lo = 2;
  o.route_vc_hi = 3;
  Rig rig(o);
  rig.packet(0, 1, 1, 1, 0);
  rig.packet(1, 1, 1, 2, 0);
  rig.packet(0, 1, 1, 3, 1, 1);
  rig.run(40);
  ASSERT_EQ(rig.received.size(), 3u);
  for (auto& r : rig.received) {
    EXPECT_GE(r.flit.vc, 2) << "packet " << r.flit.packet_id;
    EXPECT_LE(r.flit.vc, 3) << "packet " << r.flit.packet_id;
  }
}

// A flit of S cycles occupies its channel, and its crossbar input, for S
// cycles: the flits of a packet leave S cycles apart, whichever of the two
// is the slower. Both switch paths: the plain one, and the general one (here
// through held connections: the head is allocated, the body follows on the
// connection), which keep a crossbar row busy in different places.
TEST(Serialization, MultiCycleFlitsLeaveTheirSerializationTimeApart) {
  for (bool hold : {false, true}) {
    for (auto [in_s, out_s] : {std::pair{1, 3}, {3, 1}, {2, 2}}) {
      SCOPED_TRACE("input " + std::to_string(in_s) + ", output " + std::to_string(out_s) +
                   (hold ? ", held connections" : ""));
      Rig::Options o;
      o.in.serialization_cycles = in_s;
      o.out.serialization_cycles = out_s;
      o.hold_switch = hold;
      Rig rig(o);
      rig.packet(0, 1, 4, 1, 0);  // flits written 1, 2, 3, 4 (the rig ignores the input's pacing)
      rig.run(60);
      const Cycle s = Cycle(std::max(in_s, out_s));
      EXPECT_EQ(rig.arrivals(1), (Cycles{6, 6 + s, 6 + 2 * s, 6 + 3 * s}));
    }
  }
}

TEST(Serialization, ALinkRefusesASecondFlitUntilTheFirstHasCrossed) {
  LinkParams p;
  p.serialization_cycles = 3;
  p.latency_cycles = 2;
  Link l("l", p);
  Flit f;
  EXPECT_TRUE(l.can_send(10));
  l.send(f, 10);
  EXPECT_FALSE(l.can_send(11));
  EXPECT_FALSE(l.can_send(12));
  EXPECT_TRUE(l.can_send(13));
  EXPECT_FALSE(l.flit_ready(11));
  EXPECT_TRUE(l.flit_ready(12));
  l.send_credit(0, 10);
  EXPECT_FALSE(l.credit_ready(10));
  EXPECT_TRUE(l.credit_ready(11));
}

// ---------------------------------------------------------------------------
// Network interfaces clocked by hand: injection with credits.

// Node 0 creates packets of `flits` flits for node 1 at the given cycles.
class Scripted final : public Workload {
 public:
  Scripted(std::vector<Cycle> at, int flits) : at_(std::move(at)), flits_(flits) {}
  Cycle next_creation(int node, Cycle) override { return node == 0 && next_ < at_.size() ? at_[next_] : kNever; }
  PacketSpec make_packet(int, Cycle) override {
    ++next_;
    return {1, flits_, 0};
  }
  bool per_node() const override { return true; }

 private:
  std::vector<Cycle> at_;
  std::size_t next_ = 0;
  int flits_;
};

struct InjectedFlit {
  Cycle at;  // cycle the NI sent it
  Flit flit;
};

// Runs node 0's NI for `cycles` cycles; `credits` are (cycle, VC) returns
// from the router's input buffer.
std::vector<InjectedFlit> inject(EndpointParams p, Workload& w, const std::vector<std::pair<Cycle, int>>& credits,
                                 Cycle cycles) {
  PacketStats stats;
  Endpoints e("endpoints", 2, p, &w, &stats, Clock{});
  e.make_groups({});
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration binds the TLM sockets
  Link& link = *e.inject_link(0);
  std::vector<InjectedFlit> out;
  for (Cycle t = 0; t < cycles; ++t) {
    for (auto& [at, vc] : credits)
      if (at == t) link.send_credit(vc, t);
    e.groups()[0]->tick(t);
    while (link.flit_ready(t + Cycle(p.inject_link.latency_cycles)))
      out.push_back({t, link.pop_flit()});
  }
  return out;
}

// A created packet joins its NI's source queue of its class; a class the NI
// has no queue for is refused: by the NI, and by the endpoints as an error
// naming the interface when a packet of that class comes from outside.
// (No TLM socket sits between a terminal and its NI: the embedding's
// sockets, tested by Embed*, are the only TLM boundary.)
TEST(SourceQueues, APacketJoinsTheQueueOfItsClassAndAClassWithoutOneIsRefused) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  EndpointParams p;
  p.message_classes = 2;
  EndpointShared shared;
  shared.nodes = 2;
  NetworkInterface ni(1, p, shared);
  EXPECT_EQ(ni.name(), "ni1");
  PacketHeader h;
  h.src = 1;
  h.dst = 0;
  h.size_flits = 3;
  h.cls = 1;
  EXPECT_TRUE(ni.accept(h));
  EXPECT_EQ(ni.queued_flits(), 3u);
  EXPECT_TRUE(ni.busy());
  h.cls = 2;  // no queue for it
  EXPECT_FALSE(ni.accept(h));
  EXPECT_EQ(ni.queued_flits(), 3u);

  Scripted w({}, 1);
  PacketStats stats;
  Endpoints e("endpoints", 2, p, &w, &stats, Clock{});
  e.make_groups({});
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  e.inject_external(0, PacketSpec{1, 2, 1}, 3);  // created first, before any injection
  e.inject_external(0, PacketSpec{1, 2, 2}, 3);
  try {
    e.groups()[0]->tick(3);
    ADD_FAILURE() << "a packet of class 2 was accepted";
  } catch (const std::logic_error& err) {
    EXPECT_NE(std::string(err.what()).find("ni0: no source queue for a packet of class 2"), std::string::npos)
        << err.what();
  }
  EXPECT_EQ(e.queued_flits(), 2u);
}

// Packets created in the measurement window [5, 10) are marked, the others not.
TEST(MeasurementWindow, PacketsCreatedInTheWindowAreMarked) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Scripted w({4, 5, 9, 10}, 1);
  EndpointParams p;
  PacketStats stats;
  Endpoints e("endpoints", 2, p, &w, &stats, Clock{});
  e.make_groups({});
  e.set_measure_window(5, 10);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  Link& link = *e.inject_link(0);
  std::vector<bool> measured;
  for (Cycle t = 0; t < 20; ++t) {
    e.groups()[0]->tick(t);
    while (link.flit_ready(t + 1)) measured.push_back(link.pop_flit().measured);
  }
  EXPECT_EQ(measured, (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(stats.outstanding(), 2u);
}

std::vector<Cycle> heads(const std::vector<InjectedFlit>& v) {
  std::vector<Cycle> c;
  for (auto& f : v)
    if (f.flit.head) c.push_back(f.at);
  return c;
}

EndpointParams one_vc(int depth, bool wormhole) {
  EndpointParams p;
  p.vcs = 1;
  p.router_buffer_depth_flits = depth;
  p.wormhole = wormhole;
  p.inject_link.credit_latency_cycles = 2;
  p.eject_link = p.inject_link;
  return p;
}

// Each node creates packets at its own listed cycles; records the order of
// the make_packet calls (cycle, node).
class ScriptedNodes final : public Workload {
 public:
  explicit ScriptedNodes(std::vector<std::vector<Cycle>> at) : at_(std::move(at)), next_(at_.size(), 0) {}
  Cycle next_creation(int node, Cycle) override {
    return next_[node] < at_[node].size() ? at_[node][next_[node]] : kNever;
  }
  PacketSpec make_packet(int node, Cycle now) override {
    ++next_[std::size_t(node)];
    calls.emplace_back(now, node);
    return {(node + 1) % int(at_.size()), 1, 0};
  }
  bool per_node() const override { return true; }
  std::vector<std::pair<Cycle, int>> calls;

 private:
  std::vector<std::vector<Cycle>> at_;
  std::vector<std::size_t> next_;
};

// The endpoints keep creation cycles on a 64-cycle calendar and a heap for
// the rest: gaps of 0, 1, 63, 64, 65 and more cycles, and several packets
// of one node in one cycle, are created at their cycles, in cycle order and
// node order within a cycle, as a single ordered queue would.
TEST(Creation, EveryGapIsCreatedAtItsCycleInNodeOrder) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const std::vector<std::vector<Cycle>> at = {
      {5, 70, 70, 200, 263, 264}, {5, 6, 69, 133, 134, 134, 134}, {0, 5, 64, 65, 129, 130, 400}};
  ScriptedNodes w(at);
  EndpointParams p;
  p.router_buffer_depth_flits = 64;
  PacketStats stats;
  Endpoints e("endpoints", 3, p, &w, &stats, Clock{});
  e.make_groups({});
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (Cycle t = 0; t < 450; ++t) e.groups()[0]->tick(t);  // 64 flits of room a VC: no credits needed
  std::vector<std::pair<Cycle, int>> expected;
  for (int n = 0; n < 3; ++n)
    for (Cycle c : at[std::size_t(n)]) expected.emplace_back(c, n);
  std::stable_sort(expected.begin(), expected.end());
  EXPECT_EQ(w.calls, expected);
}

// Virtual cut-through at injection: 3-flit packets into a 4-flit buffer.
// The second packet's head waits until three credits are back: the credits
// returned at 10 and 15 are read at 12 and 17.
TEST(VirtualCutThrough, InjectionWaitsForRoomForTheWholePacket) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Scripted w({0, 0}, 3);
  const auto f = inject(one_vc(4, false), w, {{10, 0}, {15, 0}}, 40);
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(heads(f), (Cycles{0, 17}));
  EXPECT_EQ(f[4].at, 18u);
  EXPECT_EQ(f[5].at, 19u);
}

// Wormhole at injection: the second head goes with the one credit left, its
// body with each returned credit.
TEST(Wormhole, InjectionStartsWithOneCredit) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Scripted w({0, 0}, 3);
  const auto f = inject(one_vc(4, true), w, {{10, 0}, {15, 0}}, 40);
  ASSERT_EQ(f.size(), 6u);
  std::vector<Cycle> at;
  for (auto& x : f) at.push_back(x.at);
  EXPECT_EQ(at, (Cycles{0, 1, 2, 3, 12, 17}));
}

// A network interface sends one flit per serialization time, and starts the
// next packet on the next VC with room (round-robin over the VCs).
TEST(Serialization, InjectionSendsOneFlitPerSerializationTime) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Scripted w({0, 0, 0}, 2);
  EndpointParams p = one_vc(16, false);
  p.vcs = 2;
  p.inject_link.serialization_cycles = 3;
  const auto f = inject(p, w, {}, 40);
  ASSERT_EQ(f.size(), 6u);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f[i].at, 3 * i) << "flit " << i;
    EXPECT_EQ(f[i].flit.vc, int(i / 2 % 2)) << "flit " << i;
  }
}

// ---------------------------------------------------------------------------
// iSLIP (McKeown 1999), written out plainly: the reference the allocator's
// fast paths (one requester, one word of masks, the general rounds, the
// matrix-free allocate_one) must all agree with.
struct ReferenceIslip {
  ReferenceIslip(int inputs, int outputs, int iterations)
      : ni(inputs), no(outputs), it(iterations), grant_ptr(outputs, 0), accept_ptr(inputs, 0) {}
  std::vector<int> allocate(const std::vector<std::vector<bool>>& req) {
    std::vector<int> in_grant(ni, -1), out_grant(no, -1);
    for (int iter = 0; iter < it; ++iter) {
      std::vector<std::vector<bool>> offer(ni, std::vector<bool>(no, false));
      bool any = false;
      for (int out = 0; out < no; ++out) {
        if (out_grant[out] >= 0) continue;
        for (int k = 0; k < ni; ++k) {
          const int in = (grant_ptr[out] + k) % ni;
          if (req[in][out] && in_grant[in] < 0) {
            offer[in][out] = any = true;
            break;
          }
        }
      }
      if (!any) break;
      for (int in = 0; in < ni; ++in) {
        if (in_grant[in] >= 0) continue;
        for (int k = 0; k < no; ++k) {
          const int out = (accept_ptr[in] + k) % no;
          if (!offer[in][out]) continue;
          in_grant[in] = out;
          out_grant[out] = in;
          if (iter == 0) {  // only first-iteration accepts move pointers
            accept_ptr[in] = (out + 1) % no;
            grant_ptr[out] = (in + 1) % ni;
          }
          break;
        }
      }
    }
    return in_grant;
  }
  int ni, no, it;
  std::vector<int> grant_ptr, accept_ptr;
};

// A grant refused in iteration 1 leaves the output's pointer where it was.
// Inputs 0 and 1 both ask for outputs 0 and 1. Round 1: both outputs grant
// input 0 (pointers at 0); input 0 accepts output 0, so output 1's grant is
// refused and its pointer must stay on input 0. Round 2: output 0 (pointer
// now 1) grants input 1, output 1 (pointer still 0) grants input 0: a full
// matching. Had output 1's pointer moved, both would grant input 1 and
// input 0 would get nothing. Checked on both matrix paths (up to 64 ports
// in one word; more in the general rounds) and with 1 and 2 iterations.
TEST(Islip, ARefusedGrantLeavesThePointer) {
  for (int ports : {2, 65})
    for (int iterations : {1, 2}) {
      SCOPED_TRACE(std::to_string(ports) + " ports, " + std::to_string(iterations) + " iterations");
      auto a = make_allocator("islip", {ports, ports, iterations});
      auto round = [&] {
        a->clear();
        for (int i : {0, 1})
          for (int o : {0, 1}) a->request(i, o);
        a->allocate();
      };
      round();
      EXPECT_EQ(a->grant_of_input(0), 0);
      // A second iteration matches input 1 with output 1, but that accept
      // is not in the first iteration: it moves no pointer either.
      EXPECT_EQ(a->grant_of_input(1), iterations > 1 ? 1 : -1);
      round();
      EXPECT_EQ(a->grant_of_input(0), 1);
      EXPECT_EQ(a->grant_of_input(1), 0);
    }
}

// Accepts in later iterations move no pointer: three inputs contend for
// three outputs over random rounds with two iterations, where second
// iterations match often; the grants follow the reference's in every round.
TEST(Islip, OnlyFirstIterationAcceptsMovePointers) {
  for (int ports : {3, 65}) {
    SCOPED_TRACE(std::to_string(ports) + " ports");
    auto a = make_allocator("islip", {ports, ports, 2});
    ReferenceIslip ref(ports, ports, 2);
    Rng rng(3, std::uint64_t(ports));
    for (int round = 0; round < 400; ++round) {
      std::vector<std::vector<bool>> req(ports, std::vector<bool>(ports, false));
      a->clear();
      for (int i = 0; i < 3; ++i)
        for (int o = 0; o < 3; ++o)
          if (rng.uniform() < 0.6) {
            req[i][o] = true;
            a->request(i, o);
          }
      a->allocate();
      const auto want = ref.allocate(req);
      for (int i = 0; i < 3; ++i) ASSERT_EQ(a->grant_of_input(i), want[i]) << "round " << round << " input " << i;
    }
  }
}

class IslipReference : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

// Random rounds, some with a single requester: the same grants as the
// reference in every round, so the pointers moved the same way.
TEST_P(IslipReference, SameGrantsAsThePlainAlgorithm) {
  const auto [ni, no, iterations] = GetParam();
  auto a = make_allocator("islip", {ni, no, iterations});
  ReferenceIslip ref(ni, no, iterations);
  Rng rng(11, std::uint64_t(ni * 131 + no * 7 + iterations));
  for (int round = 0; round < 300; ++round) {
    std::vector<std::vector<bool>> req(ni, std::vector<bool>(no, false));
    a->clear();
    const bool single = round % 5 == 0;
    const int lone = int(rng.below(std::uint32_t(ni)));
    const double density = 0.05 + 0.1 * (round % 4);
    for (int i = 0; i < ni; ++i) {
      if (single && i != lone) continue;
      for (int o = 0; o < no; ++o)
        if (rng.uniform() < (single ? 0.3 : density)) {
          req[i][o] = true;
          a->request(i, o);
        }
    }
    a->allocate();
    const auto want = ref.allocate(req);
    for (int i = 0; i < ni; ++i) ASSERT_EQ(a->grant_of_input(i), want[i]) << "round " << round << " input " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, IslipReference,
                         ::testing::Values(std::tuple{4, 4, 1}, std::tuple{5, 7, 1}, std::tuple{7, 5, 3},
                                           std::tuple{70, 70, 1}, std::tuple{70, 9, 2}, std::tuple{9, 70, 3}));

// allocate_one (one requester, no matrix): the reference's grant and pointer moves.
TEST(Islip, AllocateOneIsTheReferenceForOneRequester) {
  const int ni = 6, no = 24;
  auto a = make_allocator("islip", {ni, no, 1});
  ReferenceIslip ref(ni, no, 1);
  Rng rng(5, 5);
  for (int round = 0; round < 500; ++round) {
    const int in = int(rng.below(ni)), base = 8 * int(rng.below(3));
    const std::uint64_t mask = rng.next() & 0xff;
    std::vector<std::vector<bool>> req(ni, std::vector<bool>(no, false));
    for (int b = 0; b < 8; ++b) req[in][base + b] = mask >> b & 1;
    const int want = ref.allocate(req)[in];
    ASSERT_EQ(a->allocate_one(in, base, mask), want) << "round " << round;
  }
}

// ---------------------------------------------------------------------------
// Traffic patterns: the exact destination of every source.

std::vector<int> destinations(const std::string& pattern, int nodes, std::uint64_t seed = 1) {
  PatternParams p;
  p.nodes = nodes;
  p.seed = seed;
  auto t = make_traffic_pattern(pattern, p);
  Rng rng(1, 1);
  std::vector<int> d(nodes);
  for (int s = 0; s < nodes; ++s) d[s] = t->dest(s, rng);
  return d;
}

TEST(Patterns, PermutationsMapEverySourceExactly) {
  using V = std::vector<int>;
  EXPECT_EQ(destinations("bitcomp", 16), (V{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(destinations("bitrev", 16), (V{0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15}));
  EXPECT_EQ(destinations("bitrev", 8), (V{0, 4, 2, 6, 1, 5, 3, 7}));
  // Swap the halves of the address; with 3 bits the middle one stays.
  EXPECT_EQ(destinations("transpose", 16), (V{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}));
  EXPECT_EQ(destinations("transpose", 8), (V{0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_EQ(destinations("transpose", 32)[0b00011], 0b11000);
  EXPECT_EQ(destinations("transpose", 32)[0b10100], 0b00110);
  // Rotate the address left (shuffle) or right (bitrot) by one bit.
  EXPECT_EQ(destinations("shuffle", 16), (V{0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15}));
  EXPECT_EQ(destinations("bitrot", 16), (V{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}));
  // Just under half way around the ring; the next node.
  EXPECT_EQ(destinations("tornado", 16), (V{7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(destinations("tornado", 5), (V{2, 3, 4, 0, 1}));
  EXPECT_EQ(destinations("neighbor", 6), (V{1, 2, 3, 4, 5, 0}));
}

// randperm: a permutation drawn once from the seed (pinned for seed 1, so a
// change of the shuffle is seen), other than the identity, another per seed.
TEST(Patterns, RandomPermutationIsAPermutationFixedBySeed) {
  const auto a = destinations("randperm", 16, 1), b = destinations("randperm", 16, 2);
  for (const auto& d : {a, b}) {
    std::vector<int> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(16);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all);
  }
  EXPECT_NE(a, b);
  EXPECT_EQ(a, destinations("randperm", 16, 1));
  EXPECT_EQ(a, (std::vector<int>{5, 2, 1, 0, 9, 10, 7, 11, 4, 13, 8, 14, 12, 6, 15, 3}));
}

// Random patterns: where each may send, and that every allowed destination is used.
TEST(Patterns, RandomPatternsSendWhereTheyMay) {
  PatternParams p;
  p.nodes = 16;
  Rng rng(2, 2);
  auto tr = make_traffic_pattern("transpose_random", p);
  auto uni = make_traffic_pattern("uniform", p);
  p.hotspot_nodes = 2;
  p.hotspot_fraction = 0.5;
  auto hot = make_traffic_pattern("hotspot", p);
  for (int src = 0; src < 16; ++src) {
    std::vector<int> tr_seen(16, 0), uni_seen(16, 0);
    int hot_hits = 0;
    const int draws = 4000;
    for (int i = 0; i < draws; ++i) {
      ++tr_seen[tr->dest(src, rng)];
      ++uni_seen[uni->dest(src, rng)];
      hot_hits += hot->dest(src, rng) < 2;
    }
    // Transpose-random: row A (src / 4) sends to column A, every row of it.
    for (int d = 0; d < 16; ++d) {
      if (d % 4 == src / 4) {
        EXPECT_GT(tr_seen[d], draws / 4 - 200) << src << "->" << d;
      } else {
        EXPECT_EQ(tr_seen[d], 0) << src << "->" << d;
      }
      EXPECT_GT(uni_seen[d], draws / 16 - 100) << "uniform " << src << "->" << d;
    }
    // Hotspot: half the packets to nodes 0-1, the rest uniform (1/8 of them
    // to 0-1 too): 0.5 + 0.5 * 2/16 = 0.5625, sampling sd 0.008.
    EXPECT_NEAR(double(hot_hits) / draws, 0.5625, 0.035) << src;
  }
}

TEST(Patterns, WorstCaseSendsNodeIOfARouterToNodeIOfItsTarget) {
  RouterLayout l;
  l.first_node = {0, 2, 4, 7};  // routers of 2, 2 and 3 nodes
  l.node_router = {0, 0, 1, 1, 2, 2, 2};
  l.worst_case_target = {2, 0, 1};
  PatternParams p;
  p.nodes = 7;
  p.layout = &l;
  auto t = make_traffic_pattern("worst_case", p);
  Rng rng(1, 1);
  std::vector<int> d;
  for (int s = 0; s < 7; ++s) d.push_back(t->dest(s, rng));
  EXPECT_EQ(d, (std::vector<int>{4, 5, 0, 1, 2, 3, 2}));
}

// ---------------------------------------------------------------------------
// Latency statistics: percentiles of a known set.

TEST(Histogram, PercentilesAndMaximumOfAKnownSet) {
  Histogram h;
  for (std::uint64_t v = 1; v <= 100; ++v) h.add(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
  EXPECT_EQ(h.percentile(0.5), 50u);
  EXPECT_EQ(h.percentile(0.99), 99u);
  EXPECT_EQ(h.percentile(1.0), 100u);
  EXPECT_EQ(h.max(), 100u);
  // The smallest value with at least q of the samples at or below it.
  Histogram g;
  for (std::uint64_t v : {9, 5, 7, 5, 1000}) g.add(v);
  EXPECT_EQ(g.percentile(0.2), 5u);
  EXPECT_EQ(g.percentile(0.4), 5u);
  EXPECT_EQ(g.percentile(0.41), 7u);
  EXPECT_EQ(g.percentile(0.5), 7u);
  EXPECT_EQ(g.percentile(0.8), 9u);
  EXPECT_EQ(g.percentile(0.99), 1000u);
  EXPECT_EQ(g.max(), 1000u);
  EXPECT_EQ(Histogram().percentile(0.5), 0u);
}

// The endpoints hand a tick's or block's deliveries to the statistics in
// one call (PacketStats::on_delivered_records, which sums in registers);
// that must count exactly what one call a delivery counts
// (PacketStats::on_delivered). The records cross sample intervals and go
// back in time as a block's groups pass theirs one group after another.
TEST(Statistics, DeliveriesInOneCallCountWhatOneCallAPacketCounts) {
  std::vector<DeliveredRecord> records;
  Rng rng(7, 1);
  std::uint64_t measured = 0;
  for (int group = 0; group < 3; ++group)
    for (Cycle t = 5; t < 60; t += 1 + rng.next() % 3) {
      Flit tail;
      tail.packet_id = records.size();
      tail.src = std::int32_t(rng.next() % 4);
      tail.dst = std::int32_t(rng.next() % 4);
      tail.created_cycle = t - 1 - rng.next() % 5;
      tail.injected_cycle = tail.created_cycle + rng.next() % 2;
      tail.hops = std::uint16_t(1 + rng.next() % 3);
      tail.packet_flits = std::uint16_t(1 + rng.next() % 4);
      tail.measured = rng.next() % 4 != 0;
      measured += tail.measured;
      records.emplace_back(tail, t + Cycle(group), std::uint16_t(rng.next() % 3));
    }
  auto stats = [&] {
    auto s = std::make_unique<PacketStats>();
    s->sample_every(10, 100);
    s->track_window_sources(4);
    s->on_created_counts(measured, 0);
    return s;
  };
  auto batched = stats(), one_by_one = stats();
  for (std::size_t i = 0; i < records.size(); i += 7)
    batched->on_delivered_records(&records[i], std::min<std::size_t>(7, records.size() - i));
  for (const DeliveredRecord& r : records) one_by_one->on_delivered(r.extension());

  EXPECT_EQ(batched->outstanding(), 0u);
  EXPECT_EQ(one_by_one->outstanding(), 0u);
  for (auto hist : {&PacketStats::latency, &PacketStats::network_latency, &PacketStats::hops}) {
    EXPECT_EQ(((*batched).*hist).count(), measured);
    EXPECT_EQ(((*batched).*hist).counts(), ((*one_by_one).*hist).counts());
    EXPECT_EQ(((*batched).*hist).count(), ((*one_by_one).*hist).count());
  }
  EXPECT_EQ(batched->window_flits_by_source(), one_by_one->window_flits_by_source());
  ASSERT_EQ(batched->series().size(), one_by_one->series().size());
  EXPECT_GE(batched->series().size(), 6u);
  for (std::size_t i = 0; i < batched->series().size(); ++i) {
    EXPECT_EQ(batched->series()[i].packets, one_by_one->series()[i].packets) << "interval " << i;
    EXPECT_EQ(batched->series()[i].flits, one_by_one->series()[i].flits) << "interval " << i;
    EXPECT_EQ(batched->series()[i].latency_sum, one_by_one->series()[i].latency_sum) << "interval " << i;
  }
}

// Deliveries past PacketStats::kMaxIntervals intervals double them until
// the run fits (pairs merged), whether they come one call a packet or a
// block's in one call: the same series, and each packet in the interval of
// its delivery.
TEST(Statistics, IntervalsDoubleWhenDeliveriesPassTheLimit) {
  constexpr Cycle kEvery = 10, kLimit = kEvery * PacketStats::kMaxIntervals;
  std::vector<DeliveredRecord> records;
  for (Cycle t : {Cycle(5), Cycle(17), Cycle(39), Cycle(41), kLimit - 1, kLimit + 3, 2 * kLimit + 7, 3 * kLimit - 2,
                  3 * kLimit + 50}) {
    Flit tail;
    tail.packet_id = records.size();
    tail.src = 0;
    tail.dst = 1;
    tail.created_cycle = t - 2;
    tail.injected_cycle = t - 2;
    tail.hops = 1;
    tail.packet_flits = 2;
    tail.measured = true;
    records.emplace_back(tail, t, std::uint16_t(0));
  }
  auto stats = [&] {
    auto s = std::make_unique<PacketStats>();
    s->sample_every(kEvery, 100);
    s->on_created_counts(records.size(), 0);
    return s;
  };
  auto batched = stats(), one_by_one = stats();
  for (std::size_t i = 0; i < records.size(); i += 4)
    batched->on_delivered_records(&records[i], std::min<std::size_t>(4, records.size() - i));
  for (const DeliveredRecord& r : records) one_by_one->on_delivered(r.extension());
  // 3 x kLimit + 50 needs intervals of 4 x kEvery: 0.75 x kMaxIntervals of them.
  for (const PacketStats* s : {batched.get(), one_by_one.get()}) {
    EXPECT_EQ(s->sample_cycles(), 4 * kEvery);
    ASSERT_LE(s->series().size(), PacketStats::kMaxIntervals);
    std::vector<std::uint64_t> want(s->series().size(), 0);
    for (const DeliveredRecord& r : records) ++want.at(std::size_t(r.delivered_cycle / (4 * kEvery)));
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(s->series()[i].packets, want[i]) << "interval " << i;
      EXPECT_EQ(s->series()[i].flits, 2 * want[i]) << "interval " << i;
      EXPECT_EQ(s->series()[i].latency_sum, 2 * want[i]) << "interval " << i;
    }
  }
}

}  // namespace
}  // namespace nwn

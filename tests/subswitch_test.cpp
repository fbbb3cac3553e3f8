// The subswitch on its own, clocked by hand (no SystemC kernel): credits,
// virtual cut-through versus wormhole, pipeline timing, input speedup.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <sstream>

#include "models/subswitch.hpp"

namespace nwn {
namespace {

// Route every packet to output dst, any VC.
class ToDestination final : public SubswitchRouting {
 public:
  explicit ToDestination(int vcs) : vcs_(vcs) {}
  RouteDecision route(int, int, Flit& head) override { return {head.dst, 0, vcs_ - 1}; }

 private:
  int vcs_;
};

struct Bench {
  Bench(int vcs, bool wormhole, int downstream_depth, int speedup = 1, int ports = 2, bool hold = false,
        bool va_requires_credit = true, const std::function<void(SubswitchParams&)>& tweak = nullptr)
      : routing(vcs) {
    SubswitchParams p;
    p.policy.hold_switch_for_packet = hold;
    p.policy.va_requires_credit = va_requires_credit;
    p.inputs = p.outputs = ports;
    p.vcs = vcs;
    p.vc_depth_flits = 64;  // the test feeds flits without upstream credits
    p.policy.wormhole = wormhole;
    p.input_speedup = speedup;
    if (tweak) tweak(p);
    for (int i = 0; i < ports; ++i) {
      in.push_back(std::make_unique<Link>("in" + std::to_string(i), LinkParams{}));
      out.push_back(std::make_unique<Link>("out" + std::to_string(i), LinkParams{}));
    }
    ss = std::make_unique<Subswitch>("ss", 0, p, &routing);
    for (int i = 0; i < ports; ++i) {
      ss->connect_input(i, in[i].get());
      ss->connect_output(i, out[i].get(), downstream_depth);
    }
  }
  // Queue a packet of `n` flits on input `port` for output `dst`, one flit per cycle from `start`.
  void packet(int port, int dst, int n, std::uint64_t id, Cycle start, int vc = 0) {
    for (int i = 0; i < n; ++i) {
      Flit f;
      f.packet_id = id;
      f.dst = dst;
      f.vc = std::int16_t(vc);
      f.packet_flits = std::uint16_t(n);
      f.head = i == 0;
      f.tail = i == n - 1;
      pending.push_back({start + Cycle(i), port, f});
    }
  }
  // Runs cycles [from, to), delivering queued flits and collecting outputs.
  void run(Cycle from, Cycle to) {
    for (Cycle t = from; t < to; ++t) {
      for (auto& p : pending)
        if (p.at == t) in[p.port]->send(p.flit, t);
      ss->cycle(t);
      for (int o = 0; o < int(out.size()); ++o)
        while (out[o]->flit_ready(t + 1)) received.push_back({t + 1, o, out[o]->pop_flit()});
      for (auto& l : in)
        while (l->credit_ready(t + 1)) {
          l->pop_credit();
          ++credits_upstream;
        }
    }
  }
  int count(std::uint64_t id) const {
    int n = 0;
    for (auto& r : received) n += r.flit.packet_id == id;
    return n;
  }
  struct Timed {
    Cycle at;
    int port;
    Flit flit;
  };
  ToDestination routing;
  std::vector<std::unique_ptr<Link>> in, out;
  std::unique_ptr<Subswitch> ss;
  std::vector<Timed> pending, received;
  int credits_upstream = 0;
};

TEST(Subswitch, VirtualCutThroughTakesAVcOnlyWhenThePacketFits) {
  Bench b(/*vcs=*/1, /*wormhole=*/false, /*downstream_depth=*/6);
  b.packet(0, 0, 5, 1, 0);
  b.packet(1, 0, 5, 2, 0);
  b.run(0, 60);
  // One of the two went (5 of 6 credits); the other cannot: 1 credit < 5 flits.
  const int first = b.count(1) == 5 ? 1 : 2, second = 3 - first;
  EXPECT_EQ(b.count(first), 5);
  EXPECT_EQ(b.count(second), 0) << "VCT must not start a packet that does not fit";
  // Three credits back: 4 < 5, still nothing; the fourth makes it fit.
  for (int i = 0; i < 3; ++i) b.out[0]->send_credit(0, 60);
  b.run(60, 100);
  EXPECT_EQ(b.count(second), 0);
  b.out[0]->send_credit(0, 100);
  b.run(100, 140);
  EXPECT_EQ(b.count(second), 5);
}

TEST(Subswitch, WormholeStartsWithOneCreditAndStalls) {
  Bench b(1, /*wormhole=*/true, 6);
  b.packet(0, 0, 5, 1, 0);
  b.packet(1, 0, 5, 2, 0);
  b.run(0, 60);
  const int first = b.count(1) == 5 ? 1 : 2, second = 3 - first;
  EXPECT_EQ(b.count(first), 5);
  EXPECT_EQ(b.count(second), 1) << "wormhole sends what the credits allow";
  b.out[0]->send_credit(0, 60);
  b.run(60, 80);
  EXPECT_EQ(b.count(second), 2);
}

TEST(Subswitch, EveryFlitLeavingTheBufferReturnsOneCredit) {
  Bench b(2, false, 0);  // outputs always accept
  for (int i = 0; i < 10; ++i) b.packet(i % 2, (i / 2) % 2, 3, std::uint64_t(i), Cycle(i) * 7, i % 2);
  b.run(0, 200);
  EXPECT_EQ(b.received.size(), 30u);
  EXPECT_EQ(b.credits_upstream, 30);
  EXPECT_FALSE(b.ss->has_flits());
  EXPECT_EQ(b.ss->activity().buffer_writes, 30u);
  EXPECT_EQ(b.ss->activity().buffer_reads, 30u);
  EXPECT_EQ(b.ss->activity().crossbar_flits, 30u);
}

TEST(Subswitch, FlitsOfAPacketStayInOrderAndContiguousPerVc) {
  Bench b(2, true, 0);
  b.packet(0, 1, 4, 7, 0, 0);
  b.packet(1, 1, 4, 8, 0, 1);
  b.run(0, 50);
  int last_seq_7 = -1;
  for (auto& r : b.received)
    if (r.flit.packet_id == 7) {
      EXPECT_EQ(r.flit.head, last_seq_7 == -1);
      ++last_seq_7;
    }
  EXPECT_EQ(last_seq_7, 3);
}

TEST(Subswitch, ZeroLoadTimingIsTheSumOfStages) {
  Bench b(1, false, 0);
  b.packet(0, 1, 1, 1, 10);
  b.run(0, 40);
  ASSERT_EQ(b.received.size(), 1u);
  // Sent at 10, arrives 11 (link), rc 1 + va 1 + sa 1 + st 1 -> leaves at 15, link 1 -> 16.
  EXPECT_EQ(b.received[0].at, 16u);
}

// A packet queued behind another in a VC computes its route after the one
// before it leaves: rc_cycles at a router input, inner_rc_cycles at an input
// fed from inside the router. Port 0 is a router input (route 1 cycle),
// port 1 an internal one (route 3 cycles); each receives two 1-flit packets
// on VC 0, one cycle apart, so the second waits behind the first.
TEST(Subswitch, TheNextPacketOfAVcComputesItsRouteAsItsInputDoes) {
  for (int port : {0, 1}) {
    Bench b(1, false, 0, 1, 2, false, true, [](SubswitchParams& p) {
      p.router_input = {1, 0};
      p.inner_rc_cycles = 3;
      p.inner_va_cycles = 1;
    });
    b.packet(port, 1, 1, 1, 10);
    b.packet(port, 1, 1, 2, 11);
    b.run(0, 60);
    ASSERT_EQ(b.received.size(), 2u) << "port " << port;
    const int rc = port == 0 ? 1 : 3;
    // The first: arrives 11, route rc, va 1, sa 1, st 1, link 1.
    EXPECT_EQ(b.received[0].at, Cycle(11 + rc + 4)) << "port " << port;
    // The second is buffered by then. Its route starts when the first
    // leaves the buffer (the first's switch allocation, one VA cycle after
    // the first's route ended) and takes rc: it follows rc + va later.
    EXPECT_EQ(b.received[1].at - b.received[0].at, Cycle(rc + 1)) << "port " << port;
  }
}

TEST(Subswitch, InputSpeedupLetsOneInputFeedTwoOutputsPerCycle) {
  // Input 0 receives two 4-flit packets per 4 cycles, one on each VC, for
  // different outputs (the test's link carries two flits per cycle). With
  // speedup 1 the input's single crossbar port drains one flit per cycle;
  // with speedup 2, VC 0 and VC 1 each have their own crossbar input.
  auto last_departure = [](int speedup) {
    Bench b(2, false, 0, speedup);
    for (int i = 0; i < 5; ++i) {
      b.packet(0, 0, 4, std::uint64_t(2 * i), Cycle(4 * i), 0);
      b.packet(0, 1, 4, std::uint64_t(2 * i + 1), Cycle(4 * i), 1);
    }
    b.run(0, 200);
    EXPECT_EQ(b.received.size(), 40u);
    Cycle last = 0;
    for (auto& r : b.received) last = std::max(last, r.at);
    return last;
  };
  const Cycle one = last_departure(1), two = last_departure(2);
  EXPECT_GE(one, 40u) << "40 flits through one crossbar input take at least 40 cycles";
  // Each VC sends a 4-flit packet in 4 cycles plus a 2-cycle bubble (RC and
  // VA of the next head start when the previous tail leaves): 5 x 6 cycles.
  EXPECT_LE(two, 32u) << "two crossbar inputs drain both VCs in parallel";
}

}  // namespace
}  // namespace nwn

namespace nwn {
namespace {

// Packet-level switch holding (router.hold_switch_for_packet): two 4-flit
// packets from two inputs meet at one output. Flit by flit, iSLIP's output
// pointer alternates between the inputs, so the packets interleave on the
// output; held, the first packet granted keeps the row and the output until
// its tail, so each packet's flits leave back to back.
TEST(Subswitch, HoldingTheSwitchSendsAPacketWhole) {
  for (bool hold : {false, true}) {
    SCOPED_TRACE(hold);
    Bench b(2, false, 64, 1, 3, hold);
    b.packet(0, 2, 4, 1, 0);
    b.packet(1, 2, 4, 2, 0);
    b.run(0, 40);
    ASSERT_EQ(b.received.size(), 8u);
    int switches = 0;
    for (std::size_t i = 1; i < b.received.size(); ++i) {
      switches += b.received[i].flit.packet_id != b.received[i - 1].flit.packet_id;
      EXPECT_EQ(b.received[i].at, b.received[i - 1].at + 1) << "one flit a cycle on the output";
    }
    if (hold)
      EXPECT_EQ(switches, 1);
    else
      EXPECT_GT(switches, 1);
  }
}

}  // namespace
}  // namespace nwn

namespace nwn {
namespace {

std::string buffers(const Subswitch& ss) {
  std::ostringstream os;
  ss.report_buffers(os);
  return os.str();
}

Cycle arrival(const Bench& b, std::uint64_t id) {
  for (auto& r : b.received)
    if (r.flit.packet_id == id) return r.at;
  return kNever;
}

// router.va_requires_credit = false (BookSim's VA, vc_busy_when_full = 0):
// one output VC of depth 1; packet 1 takes its only credit. Packet 2's head
// is ready for VA at 12. Requiring a credit, it waits in VA; without, VA
// grants it the full VC at 12 and it waits in switch allocation. A credit
// sent at 20 is readable at 21: the granted head goes through SA at 21 and
// arrives at 21 + sa + st + link = 24; the other is granted the VC at 21,
// SA at 22, arrives at 25.
TEST(Subswitch, VaWithoutCreditGrantsAFullVcAndTheHeadWaitsInSwitchAllocation) {
  for (bool requires_credit : {true, false}) {
    SCOPED_TRACE(requires_credit);
    Bench b(1, false, /*downstream_depth=*/1, 1, 2, false, requires_credit);
    b.packet(0, 1, 1, 1, 0);
    b.packet(0, 1, 1, 2, 10);
    b.run(0, 20);
    EXPECT_EQ(arrival(b, 1), 6u);
    EXPECT_EQ(b.count(2), 0);
    const std::string waiting = buffers(*b.ss);
    if (requires_credit)
      EXPECT_NE(waiting.find("state vc-alloc, to output 1 vcs 0 (credits 0)"), std::string::npos) << waiting;
    else
      EXPECT_NE(waiting.find("state active, to output 1 vc 0 (credits 0)"), std::string::npos) << waiting;
    b.out[1]->send_credit(0, 20);
    b.run(20, 40);
    EXPECT_EQ(arrival(b, 2), requires_credit ? 25u : 24u);
  }
}

// The head keeps the full VC it was granted: two output VCs, both full
// (packets 1 and 2); packet 3's head is granted one of them without a
// credit. A credit for the other VC does not move it (it holds its VC and
// waits in SA); with credits required it takes the VC the credit came for.
TEST(Subswitch, VaWithoutCreditTiesTheHeadToItsFullVc) {
  for (bool requires_credit : {true, false}) {
    SCOPED_TRACE(requires_credit);
    Bench b(2, false, /*downstream_depth=*/1, 1, 3, false, requires_credit);
    b.packet(0, 2, 1, 1, 0);
    b.packet(1, 2, 1, 2, 0, 1);
    b.packet(0, 2, 1, 3, 10);
    b.run(0, 20);
    ASSERT_EQ(b.count(1) + b.count(2), 2);
    ASSERT_EQ(b.count(3), 0);
    const std::string waiting = buffers(*b.ss);
    int held = -1;
    for (int vc : {0, 1})
      if (waiting.find("state active, to output 2 vc " + std::to_string(vc) + " (credits 0)") != std::string::npos)
        held = vc;
    if (requires_credit) {
      EXPECT_EQ(held, -1) << waiting;
      held = 0;
    }
    ASSERT_GE(held, 0) << waiting;
    b.out[2]->send_credit(1 - held, 20);
    b.run(20, 40);
    if (requires_credit) {
      EXPECT_EQ(arrival(b, 3), 25u) << "granted the VC whose credit came back";
      continue;
    }
    EXPECT_EQ(b.count(3), 0) << "tied to VC " << held << ", which has no credit";
    b.out[2]->send_credit(held, 40);
    b.run(40, 60);
    EXPECT_EQ(arrival(b, 3), 44u);
  }
}

}  // namespace
}  // namespace nwn

namespace nwn {
namespace {

// A port with a copy (SubswitchSpec::copy_of, fcM-isu2 as Table II counts
// it): ports 0 and 1, port 2 a copy of port 0 on both sides. The copy is a
// second crossbar row of port 0's buffers (VC 1) and a second crossbar
// output into port 0's link, through an output queue.
struct CopyBench {
  explicit CopyBench(bool copies, int serialization) : routing(2) {
    SubswitchParams p;
    p.inputs = p.outputs = copies ? 3 : 2;
    p.vcs = 2;
    p.vc_depth_flits = 64;
    // Two iSLIP iterations: with one, both outputs' grant pointers start at
    // the same row, and the second row is matched a cycle later.
    p.policy.allocator_iterations = 2;
    if (copies) p.copy_of = {-1, -1, 0};
    LinkParams lp;
    lp.serialization_cycles = serialization;
    for (int i = 0; i < 2; ++i) {
      in.push_back(std::make_unique<Link>("in" + std::to_string(i), LinkParams{}));
      out.push_back(std::make_unique<Link>("out" + std::to_string(i), lp));
    }
    ss = std::make_unique<Subswitch>("ss", 0, p, &routing);
    for (int i = 0; i < 2; ++i) {
      ss->connect_input(i, in[i].get());
      ss->connect_output(i, out[i].get(), 0);
    }
  }
  void flit(int port, int vc, int dst, std::uint64_t id, Cycle at) {
    Flit f;
    f.packet_id = id;
    f.dst = dst;
    f.vc = std::int16_t(vc);
    f.packet_flits = 1;
    f.head = f.tail = true;
    pending.push_back({at, port, f});
  }
  void run(Cycle from, Cycle to) {
    for (Cycle t = from; t < to; ++t) {
      for (auto& p : pending)
        if (p.at == t) in[p.port]->send(p.flit, t);
      ss->cycle(t);
      for (int o = 0; o < 2; ++o)
        while (out[o]->flit_ready(t + 1)) arrivals.push_back({t + 1, o, out[o]->pop_flit()});
      for (int i = 0; i < 2; ++i)
        while (in[i]->credit_ready(t + 1)) {
          in[i]->pop_credit();
          credits.push_back({t + 1, i});
        }
    }
  }
  struct Timed {
    Cycle at;
    int port;
    Flit flit;
  };
  ToDestination routing;
  std::vector<std::unique_ptr<Link>> in, out;
  std::unique_ptr<Subswitch> ss;
  std::vector<Timed> pending, arrivals;
  std::vector<std::pair<Cycle, int>> credits;
};

// Output side: flits from ports 0 and 1 for output 0 arrive together (ready
// for SA at 13). One crossbar output: they cross at 13 and, when the channel
// (2 cycles a flit) is free, 15. Two: both at 13 (their credits return
// together, at 14), and the second waits in the output queue for the
// channel: arrivals 16 and 18 either way, the channel's pace.
TEST(Subswitch, CopiesOfAnOutputCrossTogetherAndQueueForTheChannel) {
  for (bool copies : {false, true}) {
    SCOPED_TRACE(copies);
    CopyBench b(copies, 2);
    b.flit(0, 0, 0, 1, 10);
    b.flit(1, 0, 0, 2, 10);
    b.run(0, 40);
    ASSERT_EQ(b.arrivals.size(), 2u);
    EXPECT_EQ(b.arrivals[0].at, 16u);
    EXPECT_EQ(b.arrivals[1].at, 18u);
    ASSERT_EQ(b.credits.size(), 2u);
    EXPECT_EQ(b.credits[0].first, 14u);
    EXPECT_EQ(b.credits[1].first, copies ? 14u : 16u) << "one crossbar output: the channel is free at 15";
  }
}

// The queue holds one flit per crossbar output: three flits for output 0
// (ports 0 and 1, then port 1 again on its other VC) cross at 13, 13 and 15
// (at 14 the channel still owes two flits); the channel sends one every two
// cycles: 16, 18, 20.
TEST(Subswitch, AnOutputQueueHoldsOneFlitPerCrossbarOutput) {
  CopyBench b(true, 2);
  b.flit(0, 0, 0, 1, 10);
  b.flit(1, 0, 0, 2, 10);
  b.flit(1, 1, 0, 3, 11);
  b.run(0, 40);
  ASSERT_EQ(b.arrivals.size(), 3u);
  EXPECT_EQ(b.arrivals[2].at, 20u);
  ASSERT_EQ(b.credits.size(), 3u);
  EXPECT_EQ(b.credits[2].first, 16u) << "crossed at 15, when the queue had room again";
}

// Input side: port 0's VC 0 (for output 1) and VC 1 (for output 0), sent
// together (the test's link carries two flits a cycle), are two crossbar
// rows with the copy, so both cross at 13; with one row, at 13 and 14.
TEST(Subswitch, ACopyOfAnInputIsASecondCrossbarRow) {
  for (bool copies : {false, true}) {
    SCOPED_TRACE(copies);
    CopyBench b(copies, 1);
    b.flit(0, 0, 1, 1, 10);
    b.flit(0, 1, 0, 2, 10);
    b.run(0, 40);
    ASSERT_EQ(b.arrivals.size(), 2u);
    Cycle last = 0;
    for (auto& a : b.arrivals) last = std::max(last, a.at);
    EXPECT_EQ(last, copies ? 16u : 17u);
  }
}

// The first cycle each packet's flits leave on any output, and whether they
// leave back to back (one a cycle, none of another packet between).
struct Departures {
  std::vector<std::uint64_t> order;  // packets by their head's departure
  bool whole = true;                 // each packet's flits in consecutive cycles
  int most_in_one_cycle = 0;         // flits received in one cycle, over all outputs
};

Departures departures(const Bench& b) {
  Departures d;
  std::map<std::uint64_t, Cycle> last;
  std::map<Cycle, int> per_cycle;
  for (const auto& r : b.received) {
    const std::uint64_t id = r.flit.packet_id;
    d.most_in_one_cycle = std::max(d.most_in_one_cycle, ++per_cycle[r.at]);
    if (r.flit.head) d.order.push_back(id);
    else d.whole = d.whole && last.count(id) && r.at == last[id] + 1;
    last[id] = r.at;
  }
  return d;
}

// Held (router.hold_switch_for_packet), a packet keeps its crossbar row and
// its output from head to tail: another VC of the same input waits for the
// row, whatever output it goes to, and one to the same output waits too,
// though the row's VC turn would pick it. Flit by flit, both interleave.
TEST(Subswitch, AHeldPacketKeepsItsRowFromHeadToTail) {
  for (bool same_output : {false, true}) {
    for (bool hold : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "same output " << same_output << ", hold " << hold);
      Bench b(2, false, 64, 1, 3, hold);
      b.packet(0, 1, 4, 1, 0, 0);
      b.packet(0, same_output ? 1 : 2, 4, 2, 0, 1);
      b.run(0, 40);
      ASSERT_EQ(b.received.size(), 8u);
      const Departures d = departures(b);
      EXPECT_EQ(d.most_in_one_cycle, 1) << "one crossbar row: one flit a cycle";
      EXPECT_EQ(d.whole, hold);
    }
  }
}

// The tail releases the row and the output even when its VC holds the next
// packet: that packet routes and allocates a VC anew, and a packet waiting
// at another input takes the output first.
TEST(Subswitch, AHeldOutputIsFreeAfterTheTail) {
  Bench b(2, false, 64, 1, 3, true);
  b.packet(0, 2, 4, 1, 0);
  b.packet(0, 2, 4, 2, 4);  // right behind packet 1 on the same VC
  b.packet(1, 2, 4, 3, 2);
  b.run(0, 60);
  ASSERT_EQ(b.received.size(), 12u);
  const Departures d = departures(b);
  EXPECT_TRUE(d.whole);
  EXPECT_EQ(d.order, (std::vector<std::uint64_t>{1, 3, 2}));
}

// A held packet that runs out of credits (wormhole, 2-flit buffers
// downstream) gives the output back, as BookSim does: a packet from another
// input takes it on another output VC meanwhile.
TEST(Subswitch, AHeldPacketBlockedForCreditsReleasesTheOutput) {
  Bench b(2, true, 2, 1, 3, true);
  b.packet(0, 2, 4, 1, 0);
  b.packet(1, 2, 4, 2, 0);
  b.run(0, 40);
  EXPECT_EQ(b.count(1), 2) << "two credits of its output VC";
  EXPECT_EQ(b.count(2), 2) << "the other packet used the released output";
}

}  // namespace
}  // namespace nwn

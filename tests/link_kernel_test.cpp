// The kernel's building blocks on their own: Ring, CompactRing, PendingInputs, Link
// (latency, serialization, credits, publication) and Kernel (blocks, publish
// after the block, the same arrivals on one thread or two).
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "models/kernel.hpp"
#include "models/link.hpp"
#include "models/ring.hpp"
#include "models/rng.hpp"

namespace nwn {
namespace {

TEST(Ring, FifoOrderAcrossWrapAndGrowth) {
  Ring<int> r(4);
  EXPECT_EQ(r.capacity(), 4u);
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 3; ++round) {  // wrap: push 3, pop 2, so the head walks round
    for (int i = 0; i < 3 && r.size() < 4; ++i) r.push(next_in++);
    for (int i = 0; i < 2; ++i, r.pop()) EXPECT_EQ(r.front(), next_out++);
  }
  for (int i = 0; i < 9; ++i) r.push(next_in++);  // grows past 4 with the head mid-ring
  EXPECT_GE(r.capacity(), r.size());
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r.at(i), next_out + int(i));
  while (!r.empty()) {
    EXPECT_EQ(r.front(), next_out++);
    r.pop();
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(Ring, ARingOfCapacityZeroGrowsToItsHighWaterMark) {
  Ring<int> r(0);
  EXPECT_EQ(r.capacity(), 0u);  // no storage until the first push
  r.push(7);
  EXPECT_EQ(r.capacity(), 1u);
  EXPECT_EQ(r.front(), 7);
  r.pop();
  for (int round = 0; round < 5; ++round) {  // three at a time: grows to 4, then stays
    for (int i = 0; i < 3; ++i) r.push(10 * round + i);
    for (int i = 0; i < 3; ++i, r.pop()) EXPECT_EQ(r.front(), 10 * round + i);
  }
  EXPECT_EQ(r.capacity(), 4u);
}

TEST(Ring, AnEmptiedRingRestartsAtItsFirstSlot) {
  Ring<int> r(8);
  r.push(1);
  const int* first = &r.front();
  r.push(2);
  r.pop();
  EXPECT_NE(&r.front(), first);  // the head moved on
  r.pop();
  r.push(3);
  EXPECT_EQ(&r.front(), first);
}

// CompactRing (the flits behind a subswitch VC's front) keeps Ring's
// behaviour in 16 bytes: the same order across wrap and growth, storage
// only from the first push, a restart at the first slot once emptied.
TEST(CompactRing, FifoOrderAcrossWrapAndGrowth) {
  static_assert(sizeof(CompactRing<int>) == 16, "a pointer, a capacity, a head and a size");
  CompactRing<int> r;
  EXPECT_EQ(r.capacity(), 0u);  // no storage until the first push
  int next_in = 0, next_out = 0;
  for (int i = 0; i < 4; ++i) r.push(next_in++);
  EXPECT_EQ(r.capacity(), 4u);
  for (int round = 0; round < 5; ++round) {  // keep 2 to 4 in the ring: the head walks round it
    for (int i = 0; i < 2; ++i, r.pop()) EXPECT_EQ(r.front(), next_out++);
    for (int i = 0; i < 2; ++i) r.push(next_in++);
    EXPECT_EQ(r.capacity(), 4u);
  }
  for (int i = 0; i < 9; ++i) r.push(next_in++);  // grows past 4 with the head mid-ring
  EXPECT_EQ(r.capacity(), 16u);
  EXPECT_EQ(r.size(), 13u);
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r.at(i), next_out + int(i));
  CompactRing<int> moved(std::move(r));
  EXPECT_EQ(r.capacity(), 0u);
  while (!moved.empty()) {
    EXPECT_EQ(moved.front(), next_out++);
    moved.pop();
  }
  EXPECT_EQ(next_out, next_in);
}

// The rings' storage (ring_storage): blocks of whole cache lines, a freed
// block served again to the next request of its class, larger requests
// from operator new, and whole and distinct blocks for threads taking and
// giving at once.
TEST(RingStorage, BlocksOfCacheLinesReusedByClassAndSafeAcrossThreads) {
  using namespace ring_storage;
  EXPECT_EQ(class_of(1), 0u);
  EXPECT_EQ(class_of(64), 0u);
  EXPECT_EQ(class_of(65), 1u);
  EXPECT_EQ(class_of(896), 13u);  // 16 flits of 56 bytes: 14 lines
  EXPECT_EQ(class_bytes(13), 896u);
  EXPECT_EQ(class_of(4096), 63u);
  EXPECT_EQ(class_of(4097), kClasses);  // operator new's
  void* a = allocate(100);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
  deallocate(a, 100);
  void* b = allocate(128);  // the same class (2 lines): the block just freed
  EXPECT_EQ(b, a);
  void* big = allocate(10000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big) % 64, 0u);
  deallocate(big, 10000);
  deallocate(b, 128);

  // Two threads each hold 40 blocks of every class at once, filled with
  // their own marks, and give them back: no block is served twice.
  auto churn = [](unsigned char mark, bool* ok) {
    std::vector<std::pair<void*, std::size_t>> held;
    for (int round = 0; round < 3; ++round) {
      for (unsigned k = 0; k < kClasses; ++k)
        for (int i = 0; i < 40; ++i) {
          void* p = allocate(class_bytes(k));
          std::memset(p, mark, class_bytes(k));
          held.emplace_back(p, class_bytes(k));
        }
      for (auto& [p, bytes] : held) {
        const auto* c = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < bytes; ++i) *ok = *ok && c[i] == mark;
        deallocate(p, bytes);
      }
      held.clear();
    }
  };
  bool ok1 = true, ok2 = true;
  std::thread t([&] { churn(0x5a, &ok2); });
  churn(0xa5, &ok1);
  t.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

TEST(CompactRing, AnEmptiedRingRestartsAtItsFirstSlot) {
  CompactRing<int> r;
  for (int i = 0; i < 3; ++i) r.push(i);
  const int* first = &r.front();
  r.pop();
  EXPECT_NE(&r.front(), first);  // the head moved on
  r.pop();
  r.pop();
  r.push(3);
  EXPECT_EQ(&r.front(), first);
  EXPECT_EQ(r.front(), 3);
}

TEST(PendingInputs, VisitsOnlyMarkedInputsWhenDue) {
  PendingInputs p;
  p.resize(130);  // three words
  p.mark(3);
  p.mark(3);  // once
  p.mark(64);
  p.mark(129);
  EXPECT_EQ(p.count(), 3);
  std::vector<int> seen;
  // Input 3 has its next item at cycle 5, 64 none, 129 at cycle 1.
  p.visit_due(0, [&](int i) {
    seen.push_back(i);
    return i == 3 ? Cycle{5} : i == 129 ? Cycle{1} : kNever;
  });
  EXPECT_EQ(seen, (std::vector<int>{3, 64, 129}));
  EXPECT_EQ(p.count(), 2);  // 64 had nothing more: unmarked
  seen.clear();
  p.visit_due(1, [&](int i) {
    seen.push_back(i);
    return kNever;
  });
  EXPECT_EQ(seen, std::vector<int>{129});  // 3 is not due before cycle 5
  seen.clear();
  p.visit_due(5, [&](int i) {
    seen.push_back(i);
    return kNever;
  });
  EXPECT_EQ(seen, std::vector<int>{3});
  EXPECT_EQ(p.count(), 0);
  p.visit_due(6, [&](int i) {
    seen.push_back(i);
    return kNever;
  });
  EXPECT_EQ(seen.size(), 1u);
}

TEST(PendingInputs, AnInputMarkedWithItsArrivalIsVisitedOnlyThen) {
  PendingInputs p;
  p.resize(70);
  p.mark(2, 4);
  p.mark(2, 1);  // already marked: the first arrival stands
  p.mark(66, 3);
  p.mark(5);  // arrival unknown: visited at the next tick
  std::vector<std::pair<int, Cycle>> seen;
  auto visit = [&](Cycle now, Cycle next) {
    p.visit_due(now, [&](int i) {
      seen.push_back({i, now});
      return next;
    });
  };
  for (Cycle now = 0; now < 6; ++now) visit(now, kNever);
  EXPECT_EQ(seen, (std::vector<std::pair<int, Cycle>>{{5, 0}, {66, 3}, {2, 4}}));
  EXPECT_EQ(p.count(), 0);
  p.mark(66, 7);
  visit(7, 9);  // still pending: kept, due again at 9
  visit(8, kNever);
  EXPECT_EQ(p.count(), 1);
  visit(9, kNever);
  EXPECT_EQ(p.count(), 0);
  EXPECT_EQ(seen.size(), 5u);
}

// The due test of due_mask and visit_due (sixteen arrivals at a time with
// SSE2) against the one-input-at-a-time test of for_each_due, on random
// marks and arrivals around `now`, some inputs unmarked, some arrivals
// unknown (0), in one word and in three.
TEST(PendingInputs, TheWideDueTestAgreesWithTheOneInputTest) {
  Rng rng(7, 1);
  for (int n : {64, 40, 130}) {
    for (int trial = 0; trial < 300; ++trial) {
      PendingInputs p;
      p.resize(n);
      const Cycle now = 100 + rng.below(70000);
      for (int i = 0; i < n; ++i) {
        const std::uint32_t kind = rng.below(4);
        if (kind == 0) continue;  // unmarked
        p.mark(i, kind == 1 ? Cycle{0} : now - 20 + rng.below(40));
      }
      std::vector<int> one, wide;
      p.for_each_due(now, [&](int i) { one.push_back(i); });
      if (p.one_word()) {
        for (std::uint64_t m = p.due_mask(now); m; m &= m - 1) wide.push_back(__builtin_ctzll(m));
      } else {
        p.visit_due(now, [&](int i) {
          wide.push_back(i);
          return kNever;
        });
      }
      ASSERT_EQ(wide, one) << "n " << n << " trial " << trial;
    }
  }
}

TEST(PendingInputs, AnArrivalPastTheKeptBitsIsVisitedNoLater) {
  // Arrivals are kept modulo 2^16: one further ahead may be visited early
  // (harmless: a read takes only what is due), never late.
  PendingInputs p;
  p.resize(3);
  const Cycle far = 70000, wraps = 65536;  // 65536 truncates to the unknown arrival, 0
  p.mark(0, far);
  p.mark(2, wraps);
  Cycle last_far = 0, last_wraps = 0;
  for (Cycle now = 1; now <= far && p.count() > 0; ++now)
    p.visit_due(now, [&](int i) {
      const Cycle at = i == 0 ? far : wraps;
      (i == 0 ? last_far : last_wraps) = now;
      return now >= at ? kNever : at;
    });
  EXPECT_EQ(p.count(), 0);
  EXPECT_EQ(last_far, far);
  EXPECT_EQ(last_wraps, wraps);
}

// A link end that records what publication tells it.
struct RecordingEnd : LinkEnd {
  std::vector<int> flits, credits;  // tags
  std::vector<std::pair<int, Cycle>> flits_at, credits_at;  // tags and first arrivals
  void flits_pending(int tag, Cycle at) override {
    flits.push_back(tag);
    flits_at.push_back({tag, at});
  }
  void credits_pending(int tag, Cycle at) override {
    credits.push_back(tag);
    credits_at.push_back({tag, at});
  }
};

Flit flit(std::uint64_t id) {
  Flit f;
  f.packet_id = id;
  return f;
}

TEST(Link, LatencySerializationAndCredits) {
  LinkParams lp;
  lp.latency_cycles = 3;
  lp.credit_latency_cycles = 2;
  lp.serialization_cycles = 2;
  Link l("l", lp);
  ASSERT_TRUE(l.can_send(10));
  l.send(flit(7), 10, 1);  // one extra pipeline cycle: readable at 10 + 1 + 3
  EXPECT_FALSE(l.can_send(11));  // serializing for 2 cycles
  EXPECT_TRUE(l.can_send(12));
  EXPECT_EQ(l.next_flit_at(), 14u);
  EXPECT_FALSE(l.flit_ready(13));
  ASSERT_TRUE(l.flit_ready(14));
  EXPECT_EQ(l.pending_until(), 14u);
  EXPECT_EQ(l.pop_flit().packet_id, 7u);
  EXPECT_EQ(l.next_flit_at(), kNever);
  l.send_credit(2, 14);
  EXPECT_FALSE(l.credit_ready(15));
  ASSERT_TRUE(l.credit_ready(16));
  EXPECT_EQ(l.pop_credit(), 2);
  EXPECT_EQ(l.flits_sent(), 1u);
  EXPECT_THROW(Link("bad", LinkParams{0, 1, 1, 0.0, 64}), std::exception);
}

// An end that keeps its pending inputs in a PendingInputs (a router, the
// endpoints: LinkEnd::flit_marks, credit_marks) is marked by the link
// directly, the virtual calls unused; an end without marks (a stand-in of
// another process) hears the same tags and arrivals through them.
TEST(Link, MarksTheEndsPendingInputsDirectlyOrThroughTheCalls) {
  RecordingEnd with_marks, without;
  PendingInputs flit_marks, credit_marks;
  flit_marks.resize(4);
  credit_marks.resize(4);
  with_marks.flit_marks = &flit_marks;  // before the links are attached, as Router and EndpointGroup do
  with_marks.credit_marks = &credit_marks;
  LinkParams lp;
  lp.latency_cycles = 3;
  lp.credit_latency_cycles = 2;
  Link marked("marked", lp), called("called", lp);
  marked.set_receiver(&with_marks, 2);
  marked.set_sender(&with_marks, 3);
  called.set_receiver(&without, 2);
  called.set_sender(&without, 3);
  for (Link* l : {&marked, &called}) {
    l->send(flit(1), 10);  // no outbox: published at once
    l->send_credit(0, 10);
  }
  EXPECT_TRUE(with_marks.flits.empty());
  EXPECT_TRUE(with_marks.credits.empty());
  auto due = [](const PendingInputs& p, Cycle now) {
    std::vector<int> d;
    p.for_each_due(now, [&](int i) { d.push_back(i); });
    return d;
  };
  EXPECT_EQ(flit_marks.count(), 1);
  EXPECT_TRUE(due(flit_marks, 12).empty());
  EXPECT_EQ(due(flit_marks, 13), std::vector<int>{2});
  EXPECT_EQ(credit_marks.count(), 1);
  EXPECT_TRUE(due(credit_marks, 11).empty());
  EXPECT_EQ(due(credit_marks, 12), std::vector<int>{3});
  using Marks = std::vector<std::pair<int, Cycle>>;
  EXPECT_EQ(without.flits_at, (Marks{{2, 13}}));
  EXPECT_EQ(without.credits_at, (Marks{{3, 12}}));
}

// A queue grows only where it may (a link between processes: put_flits);
// growing with the head mid-ring keeps the order, and a queue that may not
// grow says so.
TEST(DelayQueue, GrowsMidRingInOrderOrRefuses) {
  DelayQueue<int> q(4);
  int next_in = 0, next_out = 0;
  for (int i = 0; i < 3; ++i) q.push(Cycle(next_in), next_in, false), ++next_in;
  q.publish();
  for (int i = 0; i < 2; ++i, q.pop()) EXPECT_EQ(q.front(), next_out++);  // the head is at slot 2
  for (int i = 0; i < 9; ++i) q.push(Cycle(next_in), next_in, true), ++next_in;  // grows past 4
  q.publish();
  EXPECT_EQ(q.size(), std::size_t(next_in - next_out));
  EXPECT_EQ(q.last_at(), Cycle(next_in - 1));
  for (; !q.drained(); q.pop()) {
    EXPECT_EQ(q.front_at(), Cycle(next_out));
    EXPECT_EQ(q.front(), next_out++);
  }
  EXPECT_EQ(next_out, next_in);
  DelayQueue<int> full(2);
  full.push(0, 0, false);
  full.push(0, 1, false);
  EXPECT_THROW(full.push(0, 2, false), std::logic_error);
}

// The credit ring keeps two credits in the link's line and moves to storage
// of its own when it grows, in order, with the head mid-ring; an empty ring
// shrinks back; a credit's VC and arrival survive the packing.
TEST(CreditQueue, InlineGrowsInOrderAndShrinksWhenEmpty) {
  CreditQueue q(2);
  EXPECT_EQ(q.capacity(), 2u);
  int next_in = 0, next_out = 0;
  const auto push = [&](bool may_grow) {
    q.push(Cycle(1000 + next_in), next_in % 200, may_grow);
    ++next_in;
  };
  push(false);
  push(false);
  EXPECT_THROW(push(false), std::logic_error);
  q.publish();
  EXPECT_EQ(q.front(), next_out % 200);
  EXPECT_EQ(q.front_at(), Cycle(1000 + next_out));
  q.pop(), ++next_out;  // the head is at slot 1
  for (int i = 0; i < 9; ++i) push(true);  // grows past the line
  EXPECT_GE(q.capacity(), 16u);
  q.publish();
  EXPECT_EQ(q.size(), std::size_t(next_in - next_out));
  EXPECT_EQ(q.last_at(), Cycle(1000 + next_in - 1));
  for (; !q.drained(); q.pop(), ++next_out) {
    EXPECT_TRUE(q.ready(Cycle(1000 + next_out)));
    EXPECT_FALSE(q.ready(Cycle(1000 + next_out - 1)));
    EXPECT_EQ(q.next_at(), Cycle(1000 + next_out));
    EXPECT_EQ(q.front(), next_out % 200);
  }
  EXPECT_EQ(q.next_at(), kNever);
  q.reserve(2);  // empty: back in the line
  EXPECT_EQ(q.capacity(), 2u);
  push(false);
  q.publish();
  std::vector<CreditQueue::Timed> taken;
  q.take_published([&](const CreditQueue::Timed& t) { taken.push_back(t); });
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].at, Cycle(1000 + next_in - 1));
  EXPECT_EQ(taken[0].item, (next_in - 1) % 200);
  EXPECT_THROW(q.push(Cycle{1} << 56, 0, true), std::logic_error);
}

// flits_sent counts what this end sent, not what another process's copy
// handed over (put_flits).
TEST(Link, FlitsSentCountsSendsNotPuts) {
  Link l("l", LinkParams{});
  l.send(flit(1), 0);
  const Link::TimedFlit put[2] = {{5, flit(2)}, {6, flit(3)}};
  l.put_flits(put, 2);
  EXPECT_EQ(l.flits_sent(), 1u);
  EXPECT_EQ(l.flits_in_flight(), 3u);
}

// Link `l` between two components whose sends wait in outboxes (one vector
// may serve both) until publish: tags 4 and 9 unless given, room for what
// these tests send.
void connect_with_outboxes(Link& l, RecordingEnd& sender, Outbox& sender_outbox, RecordingEnd& receiver,
                           Outbox& receiver_outbox, int sender_tag = 4, int receiver_tag = 9) {
  sender.outbox = &sender_outbox;
  receiver.outbox = &receiver_outbox;
  l.set_sender(&sender, sender_tag);
  l.set_receiver(&receiver, receiver_tag);
  l.reserve_flits(0);
  l.reserve_credits(4, 1);
}

TEST(Link, WithAnOutboxASendIsSeenOnlyAfterPublish) {
  Link l("l", LinkParams{});
  RecordingEnd sender, receiver;
  Outbox outbox;
  connect_with_outboxes(l, sender, outbox, receiver, outbox);
  l.send(flit(1), 0);
  l.send(flit(2), 1);  // the same cycle's link goes to the outbox once
  EXPECT_EQ(outbox.lanes[0].flits, std::vector<Link*>{&l});
  EXPECT_TRUE(outbox.lanes[0].credits.empty());
  EXPECT_EQ(l.next_flit_at(), kNever);  // unpublished: the reader sees nothing
  EXPECT_FALSE(l.flit_ready(5));
  EXPECT_TRUE(receiver.flits.empty());
  l.publish();
  EXPECT_EQ(receiver.flits, std::vector<int>{9});
  EXPECT_EQ(l.next_flit_at(), 1u);
  EXPECT_TRUE(l.flit_ready(1));
  l.send_credit(0, 2);
  EXPECT_TRUE(sender.credits.empty());
  EXPECT_EQ(l.next_credit_at(), kNever);
  l.publish();
  EXPECT_EQ(sender.credits, std::vector<int>{4});
  EXPECT_EQ(l.next_credit_at(), 3u);
}

// Publication names the arrival of the first item pending, so that the
// reading end need not visit the link before then.
// Link::reserve_credits's bound, (credit latency + block) x credits a
// cycle, is exact: the credits' writer a whole block ahead of their reader
// and sending at the full rate never overruns it. An overrun throws when
// the writer has an outbox (as on a multi-threaded kernel). On a 1-cycle
// link the bound, two, is the ring in the link's credit line: a third
// unread credit throws.
TEST(Link, CreditRingHoldsItsBoundExactly) {
  for (int latency : {1, 3, 10})
    for (int rate : {1, 2})
      for (int block : {1, latency}) {
        LinkParams lp;
        lp.latency_cycles = lp.credit_latency_cycles = latency;
        Link l("l", lp);
        RecordingEnd sender, receiver;
        Outbox outbox;
        connect_with_outboxes(l, sender, outbox, receiver, outbox);
        l.reserve_credits(64, rate);
        l.reserve_for_blocks(block);
        int sent = 0, read = 0;
        for (Cycle b = 0; b < 40 * Cycle(block); b += Cycle(block)) {
          // The receiver's block: rate credits a cycle, then the publish.
          for (Cycle t = b; t < b + Cycle(block); ++t)
            for (int k = 0; k < rate; ++k, ++sent) ASSERT_NO_THROW(l.send_credit(k, t)) << latency << rate << block;
          l.publish();
          outbox.lanes[0].credits.clear();
          // The sender's block: every credit due by each of its cycles.
          for (Cycle t = b; t < b + Cycle(block); ++t)
            while (l.next_credit_at() <= t) {
              l.pop_credit();
              ++read;
            }
        }
        EXPECT_EQ(sent - read, latency * rate) << latency << rate << block;  // the ones still on the wire
      }
  LinkParams lp;
  Link l("l", lp);
  RecordingEnd sender, receiver;
  Outbox outbox;
  connect_with_outboxes(l, sender, outbox, receiver, outbox);
  l.reserve_credits(64, 1);
  l.send_credit(0, 0);
  l.send_credit(1, 0);
  EXPECT_THROW(l.send_credit(2, 0), std::logic_error);
}

TEST(Link, PublicationTellsWhenTheFirstItemArrives) {
  Link l("l", LinkParams{3, 2, 1, 0.0, 64});
  RecordingEnd a, b;
  Outbox outbox_a, outbox_b;
  connect_with_outboxes(l, a, outbox_a, b, outbox_b, 7);
  l.send(flit(1), 10);
  l.send_credit(0, 11);
  l.publish();
  l.send(flit(2), 12);  // not drained: no new call
  l.publish();
  EXPECT_EQ(b.flits_at, (std::vector<std::pair<int, Cycle>>{{9, 13}}));
  EXPECT_EQ(a.credits_at, (std::vector<std::pair<int, Cycle>>{{7, 13}}));
  EXPECT_TRUE(a.flits.empty());  // flits go to the receiver only, credits to the sender only
  EXPECT_TRUE(b.credits.empty());
}

TEST(Link, ALocalLinkPublishesAtOnce) {
  Link l("l", LinkParams{});
  RecordingEnd end;
  Outbox outbox;
  end.outbox = &outbox;
  l.set_sender(&end, 0);
  l.set_receiver(&end, 0);  // one component at both ends
  l.reserve_flits(0);
  l.send(flit(1), 0);
  EXPECT_TRUE(outbox.lanes[0].flits.empty());
  EXPECT_EQ(l.next_flit_at(), 1u);
}

// An outbox keeps each direction of a link in the lane of the end that
// reads it (the address of its marks against the splits), so that two
// threads publishing two lanes never mark one end; and publishing one
// direction marks only its reader.
TEST(Link, AnOutboxLaneIsTheReadingEnds) {
  PendingInputs marks[2];  // [0]: the flits' sender's credit marks, [1]: the receiver's flit marks
  for (auto& m : marks) m.resize(16);
  const auto lo = std::min(reinterpret_cast<std::uintptr_t>(&marks[0]), reinterpret_cast<std::uintptr_t>(&marks[1]));
  const auto hi = std::max(reinterpret_cast<std::uintptr_t>(&marks[0]), reinterpret_cast<std::uintptr_t>(&marks[1]));
  Outbox outbox;
  outbox.splits = {hi};  // the higher marks in lane 1, the lower (and none) in lane 0
  outbox.lanes.resize(2);
  EXPECT_EQ(outbox.lane_of(nullptr), 0u);
  EXPECT_EQ(outbox.lane_of(reinterpret_cast<const PendingInputs*>(lo)), 0u);
  EXPECT_EQ(outbox.lane_of(reinterpret_cast<const PendingInputs*>(hi)), 1u);
  const std::size_t credit_lane = outbox.lane_of(&marks[0]), flit_lane = outbox.lane_of(&marks[1]);
  ASSERT_NE(credit_lane, flit_lane);
  Link l("l", LinkParams{});
  RecordingEnd sender, receiver;
  sender.credit_marks = &marks[0];
  receiver.flit_marks = &marks[1];
  connect_with_outboxes(l, sender, outbox, receiver, outbox, 3, 5);
  l.send(flit(1), 0);
  l.send_credit(0, 0);
  EXPECT_EQ(outbox.lanes[flit_lane].flits, std::vector<Link*>{&l});
  EXPECT_TRUE(outbox.lanes[flit_lane].credits.empty());
  EXPECT_EQ(outbox.lanes[credit_lane].credits, std::vector<Link*>{&l});
  EXPECT_TRUE(outbox.lanes[credit_lane].flits.empty());
  l.publish_direction<true>();
  EXPECT_EQ(marks[1].count(), 1);
  EXPECT_EQ(marks[0].count(), 0);
  EXPECT_EQ(l.next_credit_at(), kNever);  // the credit still unpublished
  l.publish_direction<false>();
  EXPECT_EQ(marks[0].count(), 1);
  EXPECT_EQ(l.next_credit_at(), 1u);
  EXPECT_TRUE(sender.credits.empty() && receiver.flits.empty());  // through the marks, not the calls
}

// Kernel: a pinger (its own cluster) sends flit c in cycle c for c < 12 on
// a link of latency 4; a ponger (another cluster) records each flit's id
// and the cycle it read it. Both log their ticks.
using TickLog = std::vector<std::pair<char, Cycle>>;

struct Pinger : Clocked {
  Link* out = nullptr;
  TickLog* log = nullptr;
  bool active(Cycle now) const override { return now < 12; }
  void tick(Cycle now) override {
    log->push_back({'a', now});
    out->send(flit(now), now);
  }
  void flits_pending(int, Cycle) override {}
  void credits_pending(int, Cycle) override {}
};

struct Ponger : Clocked {
  Link* in = nullptr;
  TickLog* log = nullptr;
  PendingInputs pending;
  std::vector<std::pair<std::uint64_t, Cycle>> got;
  Ponger() { pending.resize(1); }
  bool active(Cycle) const override { return pending.count() > 0; }
  void tick(Cycle now) override {
    log->push_back({'b', now});
    pending.visit_due(now, [&](int) {
      while (in->flit_ready(now)) got.push_back({in->pop_flit().packet_id, now});
      return in->next_flit_at();
    });
  }
  void flits_pending(int i, Cycle at) override { pending.mark(i, at); }
  void credits_pending(int, Cycle) override {}
  void end_block() override { ++end_blocks; }
  std::uint64_t end_blocks = 0;
};

struct PingPong {
  Link link{"ping", LinkParams{4, 4, 1, 0.0, 64}};
  Pinger a;
  Ponger b;
  TickLog log;
  TickLog log_b;  // on several threads the two tick at once: the ponger logs apart
  std::unique_ptr<Kernel> kernel;
  PingPong(const char* name, int threads, int block, const Clock& clock) {
    a.out = b.in = &link;
    a.log = &log;
    b.log = threads > 1 ? &log_b : &log;
    link.set_sender(&a, 0);
    link.set_receiver(&b, 0);
    link.reserve_flits(0);
    link.reserve_for_blocks(block);
    kernel = std::make_unique<Kernel>(name, std::vector<std::vector<Clocked*>>{{&a}, {&b}}, threads, block, clock);
    kernel->set_horizon(40);
  }
};

TEST(Kernel, BlocksAndThreadsChangeTheOrderOfTicksNotTheArrivals) {
  const Clock clock;
  PingPong step("step", 1, 1, clock), block("block", 1, 4, clock), two("two", 2, 4, clock);
  sc_core::sc_start(clock.delay(40));
  std::vector<std::pair<std::uint64_t, Cycle>> want;
  for (Cycle c = 0; c < 12; ++c) want.push_back({c, c + 4});
  EXPECT_EQ(step.b.got, want);
  EXPECT_EQ(block.b.got, want);
  EXPECT_EQ(two.b.got, want);
  EXPECT_EQ(step.kernel->block(), 1);
  EXPECT_EQ(block.kernel->block(), 4);
  EXPECT_EQ(two.kernel->threads(), 2);
  // Cycle by cycle the two alternate; in blocks of 4 the pinger runs cycles
  // 0-3 before the ponger's cycle 0 (its state stays in the cache).
  EXPECT_EQ(TickLog(step.log.begin(), step.log.begin() + 4), (TickLog{{'a', 0}, {'b', 0}, {'a', 1}, {'b', 1}}));
  EXPECT_EQ(TickLog(block.log.begin(), block.log.begin() + 5),
            (TickLog{{'a', 0}, {'a', 1}, {'a', 2}, {'a', 3}, {'b', 0}}));
  // Idle cycles cost no evaluation: after the last delivery (cycle 15) the kernel sleeps.
  EXPECT_LT(block.kernel->evaluations(), 40u / 4);
  // A component's own end_block runs after every block; the default one
  // tells the kernel it does nothing, and is not called again.
  for (const PingPong* p : {&step, &block, &two}) {
    EXPECT_EQ(p->b.end_blocks, p->kernel->evaluations());
    EXPECT_FALSE(p->b.end_block_does_nothing());
    EXPECT_TRUE(p->a.end_block_does_nothing());
  }
}

// Under MPI ranks a rank may hold clusters of one colour only (the others
// hold the rest): its kernel still runs both colours' turns (the exchange
// after each is collective), the empty colour's doing nothing, and every
// cluster it holds ticks each cycle once, in order, as with one colour.
struct Counter : Clocked {
  std::vector<Cycle> ticks;
  bool active(Cycle now) const override { return now < 30; }
  void tick(Cycle now) override { ticks.push_back(now); }
  void flits_pending(int, Cycle) override {}
  void credits_pending(int, Cycle) override {}
  void end_block() override { ++end_blocks; }
  std::uint64_t end_blocks = 0;
};

TEST(Kernel, ARankWithOneColourRunsBothColoursTurns) {
  const Clock clock;
  std::vector<Cycle> want(30);
  for (Cycle c = 0; c < 30; ++c) want[c] = c;
  struct Case {
    const char* name;
    std::size_t colour_split;  // 0: both counters colour 1; 2: both colour 0
    int threads;
  };
  Counter counters[4][2];
  std::vector<std::unique_ptr<Kernel>> kernels;
  const Case cases[] = {{"all1", 0, 1}, {"all0", 2, 1}, {"all1t2", 0, 2}, {"all0t2", 2, 2}};
  for (std::size_t i = 0; i < 4; ++i) {
    kernels.push_back(std::make_unique<Kernel>(cases[i].name,
                                               std::vector<std::vector<Clocked*>>{{&counters[i][0]}, {&counters[i][1]}},
                                               cases[i].threads, 4, clock, cases[i].colour_split));
    kernels.back()->set_horizon(40);
  }
  Counter one_colour[2];
  Kernel plain("plain", {{&one_colour[0]}, {&one_colour[1]}}, 1, 4, clock);
  plain.set_horizon(40);
  sc_core::sc_start(clock.delay(40));
  EXPECT_FALSE(plain.two_colours());
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(kernels[i]->two_colours()) << cases[i].name;
    EXPECT_EQ(kernels[i]->threads(), cases[i].threads) << cases[i].name;
    for (const Counter& c : counters[i]) {
      EXPECT_EQ(c.ticks, want) << cases[i].name;
      // Both colours' turns end a block: more of them than one colour's blocks.
      EXPECT_GT(c.end_blocks, one_colour[0].end_blocks) << cases[i].name;
    }
  }
  for (const Counter& c : one_colour) EXPECT_EQ(c.ticks, want);
}

}  // namespace
}  // namespace nwn

// Terminals and network interfaces. A node's terminal is its group's
// creation of packets (the workload's, or an embedding's through
// Endpoints::inject_external): the group puts a created packet's header
// straight into the NetworkInterface's queue, and the NI hands a delivered
// packet to its group, which passes the tick's deliveries to the observer
// in one call. Neither is a SystemC object: the only
// TLM sockets are an embedding's (sim/embed.hpp). The NetworkInterface
// keeps an unbounded source queue (open-loop measurement), cuts packets into
// flits, injects them with credit flow control, reassembles arriving flits
// and delivers each packet to the observer when the tail
// arrives. The interfaces run in groups (EndpointGroup), each a component of
// the kernel (models/kernel.hpp): all nodes in one group, or one group per
// router with the nodes attached to it, so that a router and its terminals
// can run on their own (cycle blocks). In a cycle a group visits only the
// nodes with something to do: packets due (a calendar of creation cycles), flits
// or credits pending on their links (marked when the links are published),
// or a source queue to inject from (the active list).
//
// Packet ids: the k-th packet created by node n has id k x nodes + n, so a
// node numbers its packets without asking the others.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "clock.hpp"
#include "kernel.hpp"
#include "link.hpp"
#include "network_interface.hpp"
#include "packet.hpp"
#include "packet_tracer.hpp"
#include "ring.hpp"

namespace nwn {

// What terminals send: the open-loop, batch or trace workload, owned by sim/.
class Workload {
 public:
  virtual ~Workload() = default;
  // First cycle >= `after` at which node creates a packet, or kNever. A
  // cycle before `after` (a trace with several packets of a node in one
  // cycle) creates the packet at once, in the current cycle.
  virtual Cycle next_creation(int node, Cycle after) = 0;
  virtual PacketSpec make_packet(int node, Cycle now) = 0;
  // Both for one packet of node at `now`, in one call: its spec, and its
  // next creation (next_creation(node, now + 1)). The endpoints call this;
  // a workload may override it to do both without two virtual calls, with
  // the same draws in the same order.
  virtual Cycle make_packet_then_next(int node, Cycle now, PacketSpec& spec) {
    spec = make_packet(node, now);
    return next_creation(node, now + 1);
  }
  // As make_packet_then_next for each of `n` nodes (in increasing order)
  // at `now`, in one call: specs[i] and the returned next creation in
  // nexts[i]; states[i] is where node i's state was placed
  // (place_node_state). The endpoints call it only when next_after_now()
  // (a node's next creation is never at `now` or before, so none of them
  // has to be created before the later nodes of the call).
  virtual void make_packets_then_next(const int* nodes, void* const* /*states*/, std::size_t n, Cycle now,
                                      PacketSpec* specs, Cycle* nexts) {
    for (std::size_t i = 0; i < n; ++i) nexts[i] = make_packet_then_next(nodes[i], now, specs[i]);
  }
  // True when make_packet_then_next(node, now, ...) always returns a cycle
  // after now (or kNever), and its calls for a node touch only that node's
  // state: the endpoints may then draw a cycle's packets of several nodes
  // before creating them (make_packets_then_next).
  virtual bool next_after_now() const { return false; }
  // Closed-loop workloads (a node waits for its packets to be delivered)
  // return true; the endpoints then report every delivery to on_delivered.
  virtual bool closed_loop() const { return false; }
  // True when the calls for a node touch only that node's state (and
  // on_delivered is never called): nodes may then run in separate groups,
  // on different threads and in different cycles.
  virtual bool per_node() const { return false; }
  // A packet created by `src` was delivered. Returns true only if `src` had
  // stopped (its last next_creation gave kNever) and may create packets
  // again: the endpoints then ask next_creation once more.
  virtual bool on_delivered(int /*src*/, Cycle /*now*/) { return false; }
  // The endpoints offer, before the simulation, kWorkloadStateBytes
  // (8-byte aligned) in each of their nodes' interfaces, in the cache line
  // a creation reads anyway: a workload may keep the node's state there
  // from then on (it must stay where it was placed).
  virtual void place_node_state(int /*node*/, void* /*at*/) {}
  // Software prefetch (EndpointGroup::prefetch) of what make_packet_then_next
  // reads of `node` (its random stream): it must change nothing.
  virtual void prefetch(int /*node*/) const {}
};

// What an embedding (sim/embed.hpp) hears from the endpoints. Calls come
// after each kernel block (EndpointGroup::end_block), on the SystemC thread,
// group by group, each group's in the order things happened.
class ExternalSink {
 public:
  virtual ~ExternalSink() = default;
  // The tail of a packet reached its destination's NI, on VC `vc` of the
  // ejection channel; its flits' credits wait for release_ejection.
  virtual void delivered(const ExternalPacket& p, int vc) = 0;
  // A packet of class `cls` left node's source queue (its tail was injected).
  virtual void dequeued(int node, int cls) = 0;
};

// The nodes of one kernel component: their packet creations, injections and
// ejections. With more than one group, the observer's calls wait in the
// group until the end of the kernel's block (end_block), where the groups
// pass them on one after another: the observer is never called from two
// threads at once, and always in the same order. One group passes them at
// the end of each tick (a virtual call a tick, not one a packet).
class EndpointGroup final : public Clocked, public InterfaceGroup {
 public:
  // `nodes` in increasing order, with their interfaces.
  EndpointGroup(const EndpointShared& shared, std::vector<int> nodes, std::vector<NetworkInterface*> nis, bool defer);

  const std::vector<int>& nodes() const { return nodes_; }

  // Kernel interface.
  bool active(Cycle now) const override {
    return !active_.empty() || pending_flits_.count() > 0 || pending_credits_.count() > 0 ||
           next_creation_at() <= now || (!due_.empty() && due_.front().at <= now) || release_min_ <= now;
  }
  void tick(Cycle now) override;
  Cycle next_wake() const override {
    return std::min(next_creation_at(), std::min(due_.empty() ? kNever : due_.front().at, release_min_));
  }
  int weight() const override { return int(nodes_.size()) / 2 + 1; }
  void flits_pending(int local, Cycle at) override { pending_flits_.mark(local, at); }
  void credits_pending(int local, Cycle at) override { pending_credits_.mark(local, at); }
  void end_block() override;

  // InterfaceGroup: a closed-loop source that may create again (one group only).
  void source_delivered(int src, Cycle now) override;
  // From outside the kernel (Endpoints::inject_external, release_ejection).
  void schedule(Cycle at, int local, const PacketSpec& spec, std::uint64_t id);
  void schedule_release(Cycle at, int local, int vc, int flits);

  std::uint64_t created_flits = 0, window_created_flits = 0;

 private:
  void create_packet(int local, Cycle now);
  // The packets of the nodes of `bits` (word w of a wheel slot), in one
  // workload call (batch_).
  void create_packets(std::size_t w, std::uint64_t bits, Cycle now);
  // The creation calendar (see creations_).
  [[gnu::always_inline]] inline void push_creation(Cycle at, int local);
  void advance_calendar(Cycle now);
  void run_creations(Cycle now);
  Cycle next_creation_at() const {
    Cycle at = creations_.empty() ? kNever : creations_.front().at;
    if (occupied_) {
      const unsigned first = unsigned(base_ + 1) % kWheelCycles;  // the slot of cycle base_ + 1
      const std::uint64_t from_first = (occupied_ >> first) | (first ? occupied_ << (kWheelCycles - first) : 0);
      at = std::min(at, base_ + 1 + Cycle(__builtin_ctzll(from_first)));
    }
    return at;
  }
  // Inlined into its callers (endpoint.cpp): a call less a packet. kPlain:
  // the caller knows there is no tracer and the observer counts creations
  // (create_packets tests that once a word, not once a packet).
  template <bool kPlain = false>
  [[gnu::always_inline]] inline void create(int local, Cycle now, const PacketSpec& spec, std::uint64_t id);
  void resume(int local, Cycle now);
  void run_actions(Cycle now);
  void run_releases(Cycle now);
  void activate(int local);
  void pass_to_observer();
  [[gnu::cold, gnu::noinline]] void trace_create(int local, Cycle now);
  // The node's interface has no queue for the packet's class.
  [[noreturn, gnu::cold, gnu::noinline]] void refused(int local) const;

  struct Creation {
    Cycle at;
    int local;  // index in nodes_ (increasing with the node id)
    bool operator>(const Creation& o) const { return at != o.at ? at > o.at : local > o.local; }
  };
  // An outside packet to create at a cycle.
  struct Action {
    Cycle at;
    std::uint64_t seq;  // order of the outside calls
    PacketSpec spec;
    std::uint64_t id = 0;
  };
  // The first action of a node's queue (stale once that action is gone or
  // another one comes before it).
  struct Due {
    Cycle at;
    std::uint64_t seq;
    int local;
    bool operator>(const Due& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  // Ejection credits to return (few, mostly due next cycle: a list, in call order).
  struct Release {
    Cycle at;
    int local, vc, flits;
  };

  const EndpointShared& shared_;
  std::vector<int> nodes_;
  std::vector<NetworkInterface*> nis_;     // per local node
  // The next packet of every node, created in (cycle, node) order. Most
  // are due within kWheelCycles: a timing wheel, a slot per cycle in
  // (base_, base_ + kWheelCycles), each a bitmap of the nodes (words_ words),
  // read in increasing node order; occupied_ marks the slots with a node.
  // The rest (due later, or by base_ itself: a trace's packets of one cycle)
  // wait in a min-heap on (cycle, node), merged with the slot when due.
  static constexpr unsigned kWheelCycles = 64;  // one bit of occupied_ per slot
  std::size_t words_ = 0;
  std::vector<std::uint64_t> wheel_;  // kWheelCycles x words_
  std::uint64_t occupied_ = 0;
  Cycle base_ = 0;                   // the cycle last ticked (its slot is empty)
  std::vector<Creation> creations_;  // min-heap on (cycle, node)
  PendingInputs pending_flits_, pending_credits_;  // per node: eject flits, inject credits
  std::vector<int> active_;                        // nodes whose source queue holds packets
  std::vector<std::uint8_t> is_active_;
  PacketHeader created_;  // the packet being created (the observer's record; the NI queues it)
  bool defer_;
  bool batch_;  // the workload's next_after_now(): create_packets
  // Creations for the observer, waiting for end_block (defer_; the
  // deliveries wait in InterfaceGroup::deliveries_). A PacketHeader is half
  // a cache line, and the observer hears of a block's creations before its
  // deliveries (they count apart: PacketObserver).
  std::vector<PacketHeader> creations_made_;
  // Or only counted (PacketObserver::counts_creations, asked at each tick):
  // the measured ones, and the last cycle with one (created_any_).
  bool count_creations_ = false;
  bool created_any_ = false;
  std::uint64_t created_measured_ = 0;
  Cycle created_last_ = 0;
  // Outside packets to create: per node in (cycle, call order), since one
  // initiator's calls mostly come in time order; and a min-heap of the
  // queues' first actions, so the group creates them in (cycle, call order).
  std::vector<Ring<Action>> actions_;
  std::vector<Due> due_;
  std::vector<Release> releases_;
  Cycle release_min_ = kNever;
  std::uint64_t action_seq_ = 0;

 public:
  void prefetch(Cycle now, int stage) const override;
};

class Endpoints : public sc_core::sc_module {
 public:
  // `local`: the nodes this process simulates, one flag per node (a rank's
  // share, sim/ranks.hpp); empty: all. The others are only numbers here:
  // packet ids and destinations count them, nothing else exists of them.
  Endpoints(sc_core::sc_module_name name, int nodes, const EndpointParams& p, Workload* workload,
            PacketObserver* observer, const Clock& clock, const std::vector<bool>& local = {});
  ~Endpoints() override;

  int nodes() const { return int(nis_.size()); }
  bool has(int node) const { return nis_[std::size_t(node)] != nullptr; }
  Link* inject_link(int node);  // connect to the router input
  Link* eject_link(int node);   // connect to the router output

  // Splits the nodes into kernel components, once, before the simulation:
  // `groups` lists every node here once (each list in increasing order);
  // empty: one group of all nodes here. Several groups need a per_node() workload.
  void make_groups(std::vector<std::vector<int>> groups);
  const std::vector<std::unique_ptr<EndpointGroup>>& groups() const { return groups_; }

  // Packets created in [begin, end) are marked for measurement.
  void set_measure_window(Cycle begin, Cycle end) {
    shared_.measure_begin = begin;
    shared_.measure_end = end;
  }
  // Debug tracing of the packets `tracer` wants (nullptr: off).
  void set_tracer(PacketTracer* tracer) { shared_.tracer = tracer; }

  // Packets from outside (sim/embed.hpp), before the simulation starts:
  // deliveries then wait for release_ejection, and the sink hears of them.
  void set_external(ExternalSink* sink) { shared_.sink = sink; }
  // Between kernel blocks, on the SystemC thread: node creates a packet at
  // cycle `at` (not before the next cycle the kernel runs). Returns its id.
  std::uint64_t inject_external(int node, const PacketSpec& spec, Cycle at);
  // The outside took a delivered packet: its `flits` credits of ejection VC
  // `vc` go back to the router at cycle `at`.
  void release_ejection(int node, int vc, int flits, Cycle at);

  std::uint64_t created_flits() const { return sum(&EndpointGroup::created_flits); }
  std::uint64_t ejected_flits() const { return sum(&EndpointGroup::ejected_flits); }
  std::uint64_t queued_flits() const;  // created but not yet injected
  std::uint64_t ejected_flits_of(int node) const;  // 0 for a node not here
  // Flits each node ejected during the measurement window (0: not here).
  std::uint64_t window_ejected_flits_of(int node) const;
  std::uint64_t window_created_flits() const { return sum(&EndpointGroup::window_created_flits); }
  std::uint64_t window_ejected_packets() const { return sum(&EndpointGroup::window_ejected_packets); }

 private:
  std::uint64_t sum(std::uint64_t EndpointGroup::*counter) const {
    std::uint64_t n = 0;
    for (auto& g : groups_) n += (*g).*counter;
    return n;
  }

  EndpointShared shared_;  // before nis_: every interface holds a reference to it
  std::vector<std::unique_ptr<NetworkInterface>> nis_;
  std::vector<std::unique_ptr<EndpointGroup>> groups_;
  std::vector<EndpointGroup*> group_of_;  // per node
  Clock clock_;
};

}  // namespace nwn

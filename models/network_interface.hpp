// The network side of a terminal: an unbounded source queue per message
// class, flit injection with credit flow control, and ejection with packet
// delivery to the observer on the tail flit.
//
// A NetworkInterface reads only what it is given: the settings its
// Endpoints share with every node (EndpointShared) and the group that runs
// it (InterfaceGroup: counters and events it leaves there). The group
// (models/endpoint.hpp) calls it to take credits and flits and to inject.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "link.hpp"
#include "packet.hpp"
#include "packet_tracer.hpp"
#include "ring.hpp"
#include "prefetch.hpp"

namespace nwn {

class Workload;
class ExternalSink;

// Bytes of a node's state that a workload may keep in the node's interface
// (Workload::place_node_state): a random stream (models/rng.hpp).
constexpr std::size_t kWorkloadStateBytes = 32;

// Receives created and delivered packets (statistics live in sim/). The
// creations come in their order, and so do the deliveries, but with several
// groups (models/endpoint.hpp) and cycle blocks (models/kernel.hpp) a
// block's creations of a group come before its deliveries, and the calls
// of different nodes and cycles may come in another order than cycle by
// cycle (a block's calls, group after group): an observer must not depend
// on the order of creations against deliveries, nor on the order across
// nodes (PacketStats keeps exact histograms, maxima and per-source series).
class PacketObserver {
 public:
  virtual ~PacketObserver() = default;
  virtual void on_created(const PacketHeader& p) = 0;
  virtual void on_delivered(const PacketExtension& p) = 0;
  // The deliveries of a group's tick or block, in their order: one call
  // rather than one a packet (an observer may loop without the virtual
  // call and with its settings' tests out of the loop).
  virtual void on_delivered_records(const DeliveredRecord* d, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) on_delivered(d[i].extension());
  }
  // True when the observer needs of the creations only how many were
  // measured and the last creation cycle (PacketStats tracking no source):
  // the endpoints may then, instead of calling on_created for each, count
  // and call on_created_counts (several groups: once a group and block,
  // rather than keeping a record of every creation for the block's end).
  // Asked once a group and cycle.
  virtual bool counts_creations() const { return false; }
  virtual void on_created_counts(std::uint64_t /*measured*/, Cycle /*last_created*/) {}
};

struct EndpointParams {
  int vcs = 4;
  int router_buffer_depth_flits = 16;  // depth per VC of the router input buffer
  bool wormhole = false;
  // Message classes (requests 0, responses 1 of an embedding in
  // request/response mode): class c injects on VCs [c*vcs/n, (c+1)*vcs/n)
  // and has a source queue of its own; 1: every packet on every VC.
  int message_classes = 1;
  // Flits per VC the NI buffers for its outside target before it returns
  // credits (sim/embed.hpp); 0: ejection always accepts (standalone runs).
  int eject_buffer_flits = 0;
  LinkParams inject_link;  // NI -> router
  LinkParams eject_link;   // router -> NI
};

// What every node of one Endpoints reads from it: owned by the Endpoints,
// which sets it before the simulation (the measurement window moves between
// kernel blocks).
struct EndpointShared {
  int nodes = 0;
  Workload* workload = nullptr;
  PacketObserver* observer = nullptr;
  bool closed_loop = false;  // the workload waits for deliveries (one group holds every node)
  Cycle measure_begin = kNever, measure_end = kNever;
  PacketTracer* tracer = nullptr;  // debug tracing (nullptr: off)
  ExternalSink* sink = nullptr;    // an embedding's outside packets (nullptr: none)

  bool in_window(Cycle now) const { return now >= measure_begin && now < measure_end; }
};

// The group a network interface runs in, as the interface sees it: the
// settings of its Endpoints, the counters it adds to, where its delivered
// packets go, the events for the sink that wait for the end of the
// kernel's block, and the closed-loop sources it wakes.
class InterfaceGroup {
 public:
  std::uint64_t ejected_flits = 0, window_ejected_packets = 0;
  // The cycle being ticked is in the measurement window (set by the
  // group's tick: the window moves only between kernel blocks).
  bool in_window_now = false;

  const EndpointShared& shared() const { return *settings_; }
  // Only with a sink (EndpointShared::sink): a packet left the source queue
  // of class `cls`, or reached its destination on ejection VC `vc`.
  void sink_dequeued(const ExternalPacket& p, int cls) { sink_events_.push_back({SinkEvent::Dequeued, std::int16_t(cls), p}); }
  void sink_delivered(const ExternalPacket& p, int vc) { sink_events_.push_back({SinkEvent::Sink, std::int16_t(vc), p}); }
  // Closed loop: a packet created by node `src` was delivered at `now`.
  virtual void source_delivered(int src, Cycle now) = 0;
  // The packet `tail` closes was delivered at `now` with `window_flits` of
  // its flits ejected in the measurement window: kept in deliveries_ for
  // the observer, which hears of them at the end of the group's tick (one
  // group) or of the kernel's block (several).
  void delivered(const Flit& tail, Cycle now, std::uint16_t window_flits) {
    deliveries_.emplace_back(tail, now, window_flits);
  }

 protected:
  explicit InterfaceGroup(const EndpointShared& shared) : settings_(&shared) {}
  ~InterfaceGroup() = default;
  struct SinkEvent {  // for the ExternalSink (always deferred: TLM calls)
    enum Kind : std::uint8_t { Sink, Dequeued } kind;
    std::int16_t arg;  // Sink: the ejection VC; Dequeued: the class
    ExternalPacket packet;
  };
  std::vector<SinkEvent> sink_events_;
  std::vector<DeliveredRecord> deliveries_;  // in delivery order, for the observer at the tick's or block's end

 private:
  const EndpointShared* settings_;
};

// Not a SystemC object: nothing outside its group calls it, and a large
// network's start-up would name, register and tear down one per node.
//
// A large network does not fit in the caches, and a node is visited a few
// times for each of its packets, cycles apart: a creation, its injection,
// the credit that comes back, an ejection. All that a creation, an
// injection and a credit touch of the interface itself is in its first
// cache line (the VC state, the credits of up to kInlineVcs VCs, the packet
// numbering, the workload's random stream of the node), all that an
// ejection touches in its second (the ejection counts); the links follow,
// then what only packets that wait in a source queue, more VCs and set-up
// read. (The 1-cycle fat tree took about 25 cache lines
// of the endpoints a packet, six of them in the interface's scattered
// members and vectors.)
class alignas(64) NetworkInterface {
 public:
  NetworkInterface(int id, const EndpointParams& p, const EndpointShared& shared);
  NetworkInterface(const NetworkInterface&) = delete;
  NetworkInterface& operator=(const NetworkInterface&) = delete;

  // "ni<id>": the unit packet traces name, and its links' prefix.
  std::string name() const { return "ni" + std::to_string(id_); }

  // Joins a group as its node `local`: `end` reads the links, `group` hears
  // the rest (its delivered packets too).
  void join(InterfaceGroup& group, LinkEnd& end, int local);
  int local() const { return local_; }
  // The id of the next packet this node creates (see models/endpoint.hpp).
  // (The k-th is k x nodes + id: one addition a packet, modulo 2^64 as the product.)
  std::uint64_t next_packet_id() {
    const std::uint64_t id = next_id_;
    next_id_ += std::uint64_t(group_->shared().nodes);
    return id;
  }
  // Where the workload may keep this node's state (Workload::place_node_state).
  void* workload_state() { return workload_state_; }

  Link* inject_link() { return &inject_; }
  Link* eject_link() { return &eject_; }
  bool busy() const { return queued_ != 0; }
  std::uint64_t queued_flits() const;
  // The outside took a delivered packet: `flits` credits of VC `vc` go back.
  void release(int vc, int flits, Cycle now) {
    for (int i = 0; i < flits; ++i) eject_.send_credit(vc, now);
  }
  std::uint64_t ejected() const { return ejected_; }
  std::uint64_t window_ejected() const { return window_ejected_; }
  // The lines a packet's creation and injection read of the interface (the
  // first, and with packets queued, the source queues'): Clocked::prefetch.
  void prefetch_state() const { prefetch_write(this); }
  // The line an ejection reads of the interface.
  void prefetch_eject_state() const { prefetch_write(&eject_group_); }
  void prefetch_queues() const { prefetch_write(&queue_); }

  // Each returns when the link's next item arrives (kNever: none pending).
  // One test a round (kNever is after every cycle): after the item due now
  // the next is nearly always later or not there, and a second test
  // (ready, then the next arrival) would be a second guess of that.
  Cycle take_credits(Cycle now) {
    Cycle at;
    while ((at = inject_.next_credit_at()) <= now) add_credit(inject_.pop_credit(), 1);
    return at;
  }
  Cycle take_flits(Cycle now) {
    Cycle at;
    while ((at = eject_.next_flit_at()) <= now) {
      receive(eject_.front_flit(), now);  // read in its slot, not copied
      eject_.drop_flit();
    }
    return at;
  }
  void inject_if_possible(Cycle now) {
    if (busy() && inject_.can_send(now)) inject(now);
  }
  // A one-flit packet created at `now` with nothing queued before it goes
  // straight onto the link, as inject would send it later in the cycle,
  // without passing through the source queue; false: it joins the queue
  // (accept). Only for packets that nobody traces and no sink waits for:
  // their events keep the order of creations first, then injections.
  [[gnu::always_inline]] inline bool inject_at_once(const PacketHeader& p, Cycle now);
  // A packet joins the source queue of its class; false: a class this
  // interface has no queue for. The group's terminals hand their packets
  // here.
  bool accept(const PacketHeader& p) {
    if (one_class_) {
      queue_[0].push(p);
      queued_ |= 1;
      return true;
    }
    // Two classes at most (request and reply); the second test also tells
    // the compiler the index is in range.
    if (p.cls >= message_classes_ || p.cls >= int(std::size(queue_))) return false;
    queue_[p.cls].push(p);
    queued_ |= std::uint8_t(1u << p.cls);
    return true;
  }

 private:
  static constexpr int kInlineVcs = 4;  // VCs whose credits and window counts are inline

  void inject(Cycle now);
  // `need`: the credits a VC must have (vc_need).
  bool choose_vc(int need);
  int vc_need(const PacketHeader& p) const { return wormhole_ ? 1 : p.size_flits; }
  // A flit of p whose head was injected at `injected`.
  [[gnu::always_inline]] inline void send_flit(const PacketHeader& p, Cycle now, Cycle injected, bool head, bool tail);
  // Inlined into the group's tick (take_flits): a call less a flit.
  [[gnu::always_inline]] inline void receive(const Flit& f, Cycle now);
  [[noreturn, gnu::cold, gnu::noinline]] void misdelivered(const Flit& f) const;
  [[gnu::cold, gnu::noinline]] void trace_inject(Cycle now);
  [[gnu::cold, gnu::noinline]] void trace_eject(Cycle now, const Flit& f);
  // Router input buffer space of VC vc (a select on a flag of the first
  // line: every interface of a run takes the same side); flits of VC vc
  // ejected in the window since its last tail.
  int credit(int vc) const { return inline_vcs_ ? credits_[vc] : more_credits_[std::size_t(vc)]; }
  void add_credit(int vc, int n) {
    if (inline_vcs_) credits_[vc] = std::int16_t(credits_[vc] + n);
    else more_credits_[std::size_t(vc)] += n;
  }
  std::uint16_t& window_flits_on_vc(int vc) { return window_flits_[vc]; }

  // Line 1: what a packet's creation, injection and credits touch (64
  // bytes; the settings come through group_, whose object its group's
  // tick has in the cache), with the workload's state of the node (its
  // random stream: Workload::place_node_state), which a creation reads
  // too (a line of its own cost the 1-cycle fat tree about 1.3k cache
  // misses a cycle).
  InterfaceGroup* group_ = nullptr;
  std::uint64_t next_id_;  // of the next packet this node creates (see models/endpoint.hpp)
  alignas(8) unsigned char workload_state_[kWorkloadStateBytes] = {};
  std::int16_t credits_[kInlineVcs] = {};           // router input buffer space per VC (inline_vcs_)
  std::uint8_t vc_ = 0, vc_pointer_ = 0, cur_ = 0;  // VCs are below 64 (models/subswitch.hpp)
  std::uint8_t vcs_per_class_;                      // injection VCs of a message class
  std::uint8_t queued_ = 0;                         // bit c: source queue c holds packets
  bool one_class_, wormhole_;
  bool inline_vcs_;  // credits_ and window_flits_on_vc_ hold every VC (else more_*)
  // Line 2: what an ejection touches (a node's ejections come at other
  // times than its creations): its own way to the group, and the window
  // counts of each VC, reached through one pointer (window_flits_, to
  // window_flits_on_vc_ or more_window_flits_).
  alignas(64) InterfaceGroup* eject_group_ = nullptr;
  std::uint16_t* window_flits_;
  std::uint64_t ejected_ = 0, window_ejected_ = 0;
  std::int32_t id_;
  std::uint16_t window_flits_on_vc_[kInlineVcs] = {};  // flits ejected in the window of each VC's current packet
  // The links (their lines: flits, credits, cold).
  Link inject_, eject_;
  // Cold: set-up, queued packets, more VCs.
  const EndpointShared& shared_;
  int message_classes_;
  int local_ = 0;
  Ring<PacketHeader> queue_[2];  // unbounded source queues, per message class
  Cycle injected_ = 0;           // when the head of the packet being sent was injected
  std::uint16_t sent_of_current_ = 0;  // flits of the packet being sent (< its 16-bit size)
  std::vector<std::int32_t> more_credits_;       // !inline_vcs_
  std::vector<std::uint16_t> more_window_flits_;  // !inline_vcs_
};

// In the header, inlined into the group's creation (models/endpoint.cpp)
// and inject: a one-flit packet at moderate load takes no call of its own.
// Virtual cut-through takes a VC only when the whole packet fits; a message
// class takes VCs of its own range. False: no VC has the credits yet.
// True: the packet's head goes on VC vc_.
inline bool NetworkInterface::choose_vc(int need) {
  const int per = vcs_per_class_, first = cur_ * per;
  // Round robin from vc_pointer_ (< per), wrapping without a division.
  for (int i = 0, next = vc_pointer_; i < per; ++i) {
    const int vc = first + next;
    if (++next == per) next = 0;
    if (credit(vc) >= need) {
      vc_ = std::uint8_t(vc);
      vc_pointer_ = std::uint8_t(next);
      return true;
    }
  }
  return false;
}

// A flit of p, on VC vc_ (which has a credit for it), onto the link.
inline void NetworkInterface::send_flit(const PacketHeader& p, Cycle now, Cycle injected, bool head, bool tail) {
  const Flit f = packet_flit(p, injected, vc_, head, tail);
  add_credit(vc_, -1);
  if (p.traced) trace_inject(now);  // rebuilds the flit from the members, so nothing stays live for it
  inject_.send(f, now);
}

inline bool NetworkInterface::inject_at_once(const PacketHeader& p, Cycle now) {
  if (p.size_flits != 1 || p.traced || !one_class_ || busy() || group_->shared().sink || !inject_.can_send(now))
    return false;
  cur_ = 0;  // as inject takes it (one class)
  if (!choose_vc(1)) return false;  // one flit: one credit, wormhole or not
  send_flit(p, now, now, true, true);  // (injected_ is the queued packets': a line a packet spared)
  return true;
}

inline void NetworkInterface::receive(const Flit& f, Cycle now) {
  if (f.dst != id_) misdelivered(f);
  if (f.traced) trace_eject(now, f);
  ++ejected_;
  InterfaceGroup& g = *eject_group_;
  ++g.ejected_flits;
  const EndpointShared& shared = g.shared();
  const bool in_window = g.in_window_now;  // shared.in_window(now)
  std::uint16_t& window_flits = window_flits_on_vc(f.vc);
  if (in_window) {
    ++window_ejected_;
    ++window_flits;
  }
  if (!f.tail) return;
  if (in_window) ++g.window_ejected_packets;
  // A VC's flits arrive packet after packet: its count since the last tail is this packet's.
  const std::uint16_t packet_window_flits = window_flits;
  window_flits = 0;
  g.delivered(f, now, packet_window_flits);
  if (shared.sink) g.sink_delivered(external_packet(f, now), f.vc);
  if (shared.closed_loop) g.source_delivered(f.src, now);
}

}  // namespace nwn

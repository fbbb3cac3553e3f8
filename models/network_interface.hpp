// The network side of a terminal: an unbounded source queue per message
// class, flit injection with credit flow control, and ejection with packet
// delivery to the observer on the tail flit.
//
// A NetworkInterface reads only what it is given: the settings its
// Endpoints share with every node (EndpointShared) and the group that runs
// it (InterfaceGroup: counters and events it leaves there). The group
// (models/endpoint.hpp) calls it to take credits and flits and to inject.
#pragma once
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "link.hpp"
#include "packet.hpp"
#include "packet_tracer.hpp"
#include "ring.hpp"

namespace nwn {

class Workload;
class ExternalSink;

// Receives created and delivered packets (statistics live in sim/). The
// calls of one cycle and node come in order, but with cycle blocks
// (models/kernel.hpp) the calls of different nodes and cycles may come in
// another order than cycle by cycle (a block's calls, group after group):
// an observer must not depend on that order across nodes (PacketStats keeps
// exact histograms, maxima and per-source series).
class PacketObserver {
 public:
  virtual ~PacketObserver() = default;
  virtual void on_created(const PacketExtension& p) = 0;
  virtual void on_delivered(const PacketExtension& p) = 0;
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
// counters it adds to, the events for the sink that wait for the end of
// the kernel's block, and the closed-loop sources it wakes.
class InterfaceGroup {
 public:
  std::uint64_t ejected_flits = 0, window_ejected_packets = 0;

  // Only with a sink (EndpointShared::sink): a packet left the source queue
  // of class `cls`, or reached its destination on ejection VC `vc`.
  void sink_dequeued(const ExternalPacket& p, int cls) { sink_events_.push_back({SinkEvent::Dequeued, std::int16_t(cls), p}); }
  void sink_delivered(const ExternalPacket& p, int vc) { sink_events_.push_back({SinkEvent::Sink, std::int16_t(vc), p}); }
  // Closed loop: a packet created by node `src` was delivered at `now`.
  virtual void source_delivered(int src, Cycle now) = 0;

 protected:
  ~InterfaceGroup() = default;
  struct SinkEvent {  // for the ExternalSink (always deferred: TLM calls)
    enum Kind : std::uint8_t { Sink, Dequeued } kind;
    std::int16_t arg;  // Sink: the ejection VC; Dequeued: the class
    ExternalPacket packet;
  };
  std::vector<SinkEvent> sink_events_;
};

// Not a SystemC object: nothing outside its group calls it, and a large
// network's start-up would name, register and tear down one per node.
class NetworkInterface {
 public:
  NetworkInterface(int id, const EndpointParams& p, const EndpointShared& shared);
  NetworkInterface(const NetworkInterface&) = delete;
  NetworkInterface& operator=(const NetworkInterface&) = delete;

  // "ni<id>": the unit packet traces name, and its links' prefix.
  std::string name() const { return "ni" + std::to_string(id_); }

  // Joins a group as its node `local`: `end` reads the links, `group` hears
  // the rest, `observer` the delivered packets.
  void join(InterfaceGroup& group, LinkEnd& end, int local, PacketObserver* observer);
  int local() const { return local_; }
  // The id of the next packet this node creates (see models/endpoint.hpp).
  std::uint64_t next_packet_id() { return next_seq_++ * std::uint64_t(shared_.nodes) + std::uint64_t(id_); }

  Link* inject_link() { return &inject_; }
  Link* eject_link() { return &eject_; }
  bool busy() const { return !queue_[0].empty() || !queue_[1].empty(); }
  std::uint64_t queued_flits() const;
  // The outside took a delivered packet: `flits` credits of VC `vc` go back.
  void release(int vc, int flits, Cycle now) {
    for (int i = 0; i < flits; ++i) eject_.send_credit(vc, now);
  }
  std::uint64_t ejected() const { return ejected_; }
  std::uint64_t window_ejected() const { return window_ejected_; }

  // Each returns when the link's next item arrives (kNever: none pending).
  // One test a round (kNever is after every cycle): after the item due now
  // the next is nearly always later or not there, and a second test
  // (ready, then the next arrival) would be a second guess of that.
  Cycle take_credits(Cycle now) {
    Cycle at;
    while ((at = inject_.next_credit_at()) <= now) ++credits_[inject_.pop_credit()];
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
  bool inject_at_once(const PacketHeader& p, Cycle now);
  // A packet joins the source queue of its class; false: a class this
  // interface has no queue for. The group's terminals hand their packets
  // here.
  bool accept(const PacketHeader& p) {
    if (params_.message_classes <= 1) {
      queue_[0].push(p);
      return true;
    }
    // Two classes at most (request and reply); the second test also tells
    // the compiler the index is in range.
    if (p.cls >= params_.message_classes || p.cls >= int(std::size(queue_))) return false;
    queue_[p.cls].push(p);
    return true;
  }
 private:
  void inject(Cycle now);
  bool choose_vc(const PacketHeader& p, Cycle now);
  inline void send_flit(const PacketHeader& p, Cycle now, bool head, bool tail);
  void receive(const Flit& f, Cycle now);
  [[gnu::cold, gnu::noinline]] void trace_inject(Cycle now);
  [[gnu::cold, gnu::noinline]] void trace_eject(Cycle now, const Flit& f);

  int id_;
  EndpointParams params_;
  const EndpointShared& shared_;
  InterfaceGroup* group_ = nullptr;
  PacketObserver* observer_ = nullptr;
  int local_ = 0;
  std::uint64_t next_seq_ = 0;
  Link inject_, eject_;
  Ring<PacketHeader> queue_[2];  // unbounded source queues, per message class
  std::vector<int> credits_;        // router input buffer space per VC
  int vcs_per_class_;               // injection VCs of a message class
  int vc_ = 0, vc_pointer_ = 0, cur_ = 0;
  std::uint64_t sent_of_current_ = 0;
  Cycle injected_ = 0;  // when the head of the packet being sent was injected
  std::uint64_t ejected_ = 0, window_ejected_ = 0;
  std::vector<std::uint16_t> window_flits_on_vc_;  // flits ejected in the window of each VC's current packet
  PacketExtension delivered_;  // the packet a tail closes, for the observer
};

}  // namespace nwn

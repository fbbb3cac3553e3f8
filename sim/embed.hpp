// nwnsim as a component of a SystemC/TLM-2.0 virtual platform: a router or a
// whole network, built from a Config, with a TLM-2.0 target socket and an
// initiator socket per terminal node (docs/EMBEDDING.md).
//
//   nwn::Config cfg;                       // every key at its default
//   cfg.load_string("[router]\nradix = 16\n", "inline");
//   nwn::TlmNetwork net("noc", cfg);       // traffic.source = external
//   cpu.socket.bind(net.target(0));        // the user's initiator sends into node 0
//   net.initiator(5).bind(mem.socket);     // node 5 delivers to the user's target
//   net.address_map().add(0x1000, 0x1000, 5);
//
// Timing. The network runs on its own clock (sim.clock_ghz, or the period
// given), cycle c evaluated at time (c + 1/2) periods. A transaction arriving
// at local time t (sc_time_stamp() plus the annotated delay) creates its
// packet at cycle ceil(t / period): the kernel never evaluates that cycle
// before every call that could still name it, so results do not depend on
// process order, and they are bit-identical on any sim.threads. An idle
// network costs nothing: the kernel sleeps until the next injection.
// Lookahead (embed.lookahead_cycles, docs/EMBEDDING.md): at 1, the default,
// an outside call may name the very next cycle, so the kernel runs one
// cycle at a time; at L > 1 it runs blocks of up to L cycles (bounded by the
// links between routers) ahead of SystemC time, and a call naming a cycle
// already run enters at the first cycle not yet run (at most block - 1
// cycles late). The occupancy VCD, a packet trace and Verilated allocators
// need every cycle in order: with any of them the kernel runs one cycle at
// a time whatever L.
//
// Protocol (embed.protocol):
// - request_response: the initiator's transaction travels to the target node
//   as a request packet (message class 0), the network sends BEGIN_REQ to the
//   user's target there, and the target's response travels back as a
//   response packet (class 1; the classes have half the VCs each, so a
//   response never waits behind a request). The initiator's transaction
//   completes after the round trip: b_transport returns, or BEGIN_RESP
//   arrives on the backward path.
// - posted: one packet; the initiator's transaction ends when the network
//   accepts it (the network carries a copy). Reads get an error response.
//
// Backpressure: a node accepts up to embed.source_queue_packets transactions
// it has not yet injected; beyond that END_REQ is withheld (AT) or
// b_transport waits (LT: the packet is then created at the later of the
// initiator's local time and the time room appeared, and the returned delay
// keeps the rest of the initiator's offset). A node delivers one transaction at a time to its
// target and holds the packet's flits (no credits to the router) until the
// target's END_REQ (or BEGIN_RESP): a target that stalls backs the network up.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.hpp"
#include "experiment.hpp"
#include "network.hpp"
#include "occupancy_vcd.hpp"
#include "packet_trace.hpp"

namespace nwn {

// Bus width of the sockets, in bits (TLM-2.0 BUSWIDTH; it sets no timing:
// a packet's flits follow from its data length and flit.bits).
constexpr unsigned kTlmBusWidth = 64;

// Names the destination node of a transaction (instead of the address map)
// and, optionally, its packet sizes in flits. Other values than these get
// TLM_GENERIC_ERROR_RESPONSE (a node: TLM_ADDRESS_ERROR_RESPONSE) and a
// warning naming the field.
struct NodeExtension : tlm::tlm_extension<NodeExtension> {
  int node = -1;          // destination terminal, 0 to nodes() - 1 (-1: the address map's)
  int request_flits = 0;  // >= 1 (0: embed.header_flits + data flits of a write)
  int response_flits = 0; // >= 1 (0: embed.header_flits + data flits of a read)
  tlm::tlm_extension_base* clone() const override { return new NodeExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const NodeExtension&>(other);
  }
};

// Address ranges to terminal nodes, as a memory-mapped interconnect decodes.
class AddressMap {
 public:
  // Nodes 0 to nodes - 1 (any node >= 0 when `nodes` < 0).
  explicit AddressMap(int nodes = -1) : nodes_(nodes) {}
  // [base, base + size) goes to `node`; ranges may not overlap. Throws
  // std::invalid_argument naming the range and node otherwise.
  void add(std::uint64_t base, std::uint64_t size, int node);
  // The node of [address, address + length), or -1 when no single range holds it.
  int node_of(std::uint64_t address, std::uint64_t length) const;
  bool empty() const { return ranges_.empty(); }

 private:
  struct Range {
    std::uint64_t base, end;  // [base, end)
    int node;
  };
  std::vector<Range> ranges_;  // sorted by base
  int nodes_ = -1;
};

class TlmNetwork : public sc_core::sc_module, private ExternalSink {
 public:
  using TargetSocket = tlm_utils::simple_target_socket_tagged_optional<TlmNetwork, kTlmBusWidth>;
  using InitiatorSocket = tlm_utils::simple_initiator_socket_tagged_optional<TlmNetwork, kTlmBusWidth>;

  // The network the config describes (network.topology, router.*), with
  // traffic.source = external; the clock from sim.clock_ghz or `period`.
  TlmNetwork(sc_core::sc_module_name name, const Config& cfg);
  TlmNetwork(sc_core::sc_module_name name, const Config& cfg, const sc_core::sc_time& period);
  ~TlmNetwork() override;

  int nodes() const;
  // Node n's sockets: the user's initiators bind to target(n), and
  // initiator(n) binds to the user's target. Either may stay unbound; a
  // packet for a node whose initiator(n) is unbound is an error (SC_REPORT_ERROR).
  // A node outside 0 to nodes() - 1 throws std::out_of_range naming it.
  TargetSocket& target(int node);
  InitiatorSocket& initiator(int node);
  AddressMap& address_map() { return map_; }

  const sc_core::sc_time& period() const { return clock_.period; }
  Network& network() { return *net_; }
  const Config& config() const { return cfg_; }
  // Transactions accepted and not yet finished.
  std::size_t outstanding() const { return live_; }
  // The run so far, as the standalone simulator reports a trace run
  // (workload "external"): latency, loads, hops, activity and power. Checks
  // flit conservation (throws ConservationError).
  RunResult results() const;

 private:
  struct Txn;
  struct Node;
  Node& node(int n, const char* socket);  // nodes_[n], or out_of_range naming `socket`
  enum class Style { LT, AT };

  // ExternalSink: after each kernel cycle, on the SystemC thread.
  void delivered(const ExternalPacket& p, int vc) override;
  void dequeued(int node, int cls) override;

  void b_transport(int node, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(int node, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int node, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);

  // Checks and sizes a new transaction; false: gp carries the error response.
  bool admit(int src, tlm::tlm_generic_payload& gp, Txn& t);
  void inject(Txn* t, int node, int dst, int flits, int cls, Cycle at);
  void accept(int src, Txn* t, Cycle at);
  void copy_posted(const tlm::tlm_generic_payload& user, Txn& t);
  void try_deliver_request(int node);
  void try_deliver_response(int node);
  void target_accepted(int node, const sc_core::sc_time& delay, bool answered);
  void target_responded(int node, Txn* t, const sc_core::sc_time& delay);
  Txn* new_txn();
  void finish(Txn* t);
  Cycle cycle_at(const sc_core::sc_time& delay) const;
  sc_core::sc_time ahead(Cycle c) const;
  // Every few cycles: a network that holds flits, moves none and waits for
  // no user component for sim.watchdog_cycles is stuck (SC_REPORT_ERROR
  // with the stuck buffers and packets), never a silent hang.
  void watch(Cycle next);
  bool waiting_for_user() const;
  void end_response(int node, const sc_core::sc_time& delay);

  Config cfg_;
  Clock clock_;
  std::unique_ptr<Network> net_;
  AddressMap map_;
  bool posted_ = false;
  int queue_limit_ = 4, header_flits_ = 1, flit_bits_ = 128, max_flits_ = 65535;
  std::string max_flits_rule_;
  std::vector<std::unique_ptr<Node>> nodes_;
  // The transaction of each packet in flight, per injecting node by the
  // packet's sequence number there (id = k x nodes + node): no allocation per packet.
  struct InFlight {
    std::deque<Txn*> txns;  // sequence numbers base .. base + size - 1; null once delivered
    std::uint64_t base = 0;
  };
  std::vector<InFlight> in_flight_;
  // Transactions are pooled (no allocation per transaction once warm).
  std::vector<std::unique_ptr<Txn>> pool_;
  std::vector<Txn*> free_;
  std::size_t live_ = 0;
  Watchdog watchdog_{1};
  Cycle watch_every_ = 1000, next_watch_ = 0;
  std::unique_ptr<PacketTraceWriter> tracer_;
  std::unique_ptr<OccupancyVcd> vcd_;
};

}  // namespace nwn

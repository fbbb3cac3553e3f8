#include "embed.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace nwn {

namespace {
const char* const kMsgType = "nwnsim/embed";

Config external(Config cfg) {
  cfg.set("traffic.source", "external", "nwn::TlmNetwork");
  return cfg;
}

Clock clock_of(const sc_core::sc_time& period) {
  Clock c;
  c.period = period;
  return c;
}
}  // namespace

// --- AddressMap ---

void AddressMap::add(std::uint64_t base, std::uint64_t size, int node) {
  if (size == 0 || base + size < base)
    throw std::invalid_argument(fmt::format("address map: range at {:#x} of size {:#x} is empty or wraps", base, size));
  if (node < 0 || (nodes_ >= 0 && node >= nodes_))
    throw std::invalid_argument(fmt::format("address map: [{:#x}, {:#x}) for node {}: no such node (allowed: {})",
                                            base, base + size, node,
                                            nodes_ > 0 ? fmt::format("0 to {}", nodes_ - 1) : std::string("0 or more")));
  const Range r{base, base + size, node};
  auto at = std::lower_bound(ranges_.begin(), ranges_.end(), r, [](const Range& a, const Range& b) {
    return a.base < b.base;
  });
  if ((at != ranges_.end() && at->base < r.end) || (at != ranges_.begin() && std::prev(at)->end > r.base))
    throw std::invalid_argument(fmt::format("address map: [{:#x}, {:#x}) for node {} overlaps another range", r.base,
                                            r.end, node));
  ranges_.insert(at, r);
}

int AddressMap::node_of(std::uint64_t address, std::uint64_t length) const {
  auto at = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                             [](std::uint64_t a, const Range& r) { return a < r.base; });
  if (at == ranges_.begin()) return -1;
  const Range& r = *std::prev(at);
  const std::uint64_t last = address + std::max<std::uint64_t>(length, 1) - 1;
  return address >= r.base && last >= address && last < r.end ? r.node : -1;
}

// --- TlmNetwork ---

struct TlmNetwork::Txn {
  tlm::tlm_generic_payload* gp = nullptr;  // the initiator's, or `copy` (posted)
  Style style = Style::AT;
  int src = -1, dst = -1;
  int request_flits = 1, response_flits = 1;
  int vc = -1, flits = 0;  // the delivered packet: ejection VC and flits, until the user takes it
  Cycle arrival = 0;       // the cycle it was delivered
  bool acquired = false;   // gp->acquire() was called (a payload with a memory manager)
  bool ack_only = false;   // posted, accepted late: only BEGIN_RESP to the initiator remains
  std::unique_ptr<sc_core::sc_event> done;  // LT request/response: the response arrived (made on first use)
  bool in_use = false;
  std::unique_ptr<tlm::tlm_generic_payload> copy;  // kept for the next posted transaction
  std::vector<unsigned char> data, byte_enables;
  std::vector<std::uint8_t> copy_holds;  // extension slots `copy` holds
};

struct TlmNetwork::Node {
  std::unique_ptr<TargetSocket> target;
  std::unique_ptr<InitiatorSocket> initiator;
  int accepted = 0;               // requests accepted whose tail is not yet injected
  Txn* waiting = nullptr;         // AT: BEGIN_REQ held while the queue is full
  Cycle waiting_at = 0;
  sc_core::sc_event space;        // LT: the queue has room again
  int space_waiters = 0;          // LT callers waiting on it
  std::deque<Txn*> requests, responses;  // delivered here, waiting for the user
  Txn* request_busy = nullptr;    // BEGIN_REQ sent to the target, END_REQ awaited
  Txn* response_busy = nullptr;   // BEGIN_RESP sent to the initiator, END_RESP awaited
  std::vector<Txn*> at_target;    // accepted by the target, response awaited (few)
  Txn* take_at_target(const tlm::tlm_generic_payload* gp) {
    for (std::size_t i = 0; i < at_target.size(); ++i)
      if (at_target[i]->gp == gp) {
        Txn* t = at_target[i];
        at_target.erase(at_target.begin() + std::ptrdiff_t(i));
        return t;
      }
    return nullptr;
  }
};

TlmNetwork::TlmNetwork(sc_core::sc_module_name name, const Config& cfg)
    : TlmNetwork(name, cfg, clock_from(cfg).period) {}

TlmNetwork::TlmNetwork(sc_core::sc_module_name name, const Config& cfg, const sc_core::sc_time& period)
    : sc_module(name), cfg_(external(cfg)), clock_(clock_of(period)) {
  if (period == sc_core::SC_ZERO_TIME) throw ConfigError("nwn::TlmNetwork: the clock period must be above zero");
  net_ = make_network(cfg_, clock_);
  posted_ = cfg_.get_string("embed.protocol") == "posted";
  queue_limit_ = int(cfg_.get_int("embed.source_queue_packets"));
  header_flits_ = int(cfg_.get_int("embed.header_flits"));
  flit_bits_ = int(cfg_.get_int("flit.bits"));
  // The largest packet: under virtual cut-through every buffer it enters
  // (router and subswitch VCs, the ejection buffer) holds it whole.
  if (cfg_.get_string("router.flow_control") == "vct") {
    const SmallestBuffer b = smallest_vc_buffer(cfg_);
    max_flits_ = b.flits;
    max_flits_rule_ = fmt::format("{} = {}: virtual cut-through needs every buffer a packet enters to hold it whole",
                                  b.key, b.flits);
  } else {
    max_flits_rule_ = "a packet has at most 65535 flits";
  }
  Endpoints& e = net_->endpoints();
  e.set_external(this);
  e.set_measure_window(0, kNever);
  net_->stats().track_sources(e.nodes());
  track_statistics(cfg_, *net_, 0);
  for (int n = 0; n < e.nodes(); ++n) {
    auto node = std::make_unique<Node>();
    node->target = std::make_unique<TargetSocket>(fmt::format("target_{}", n).c_str());
    node->initiator = std::make_unique<InitiatorSocket>(fmt::format("initiator_{}", n).c_str());
    node->target->register_b_transport(this, &TlmNetwork::b_transport, n);
    node->target->register_nb_transport_fw(this, &TlmNetwork::nb_transport_fw, n);
    node->initiator->register_nb_transport_bw(this, &TlmNetwork::nb_transport_bw, n);
    nodes_.push_back(std::move(node));
  }
  in_flight_.resize(nodes_.size());
  map_ = AddressMap(nodes());
  tracer_ = attach_packet_tracer(cfg_, *net_);
  vcd_ = make_occupancy_vcd(cfg_, *net_, true);
  // Blocks of up to embed.lookahead_cycles (1: outside calls may name any
  // next cycle), with no end ahead: sc_start decides. What needs every
  // cycle in order (the VCD's samples, a packet trace, Verilated
  // allocators) runs cycle by cycle, as in standalone runs.
  net_->start(run_threads(cfg_, tracer_ != nullptr),
              run_block_cycles(cfg_, tracer_ != nullptr, vcd_ != nullptr, int(cfg_.get_int("embed.lookahead_cycles"))));
  net_->kernel()->set_half_period_phase();
  net_->kernel()->set_horizon(kNever);
  watchdog_ = Watchdog(Cycle(cfg_.get_int("sim.watchdog_cycles")));
  watch_every_ = watchdog_.check_every();
  net_->kernel()->set_after_block([this](Cycle next) { watch(next); });
}

bool TlmNetwork::waiting_for_user() const {
  for (const auto& n : nodes_)
    if (n->request_busy || n->response_busy || !n->requests.empty() || !n->responses.empty() || n->waiting)
      return true;
  return false;
}

void TlmNetwork::watch(Cycle next) {
  if (next < next_watch_) return;
  next_watch_ = next + watch_every_;
  const Endpoints& e = net_->endpoints();
  // Flits held while a user target or initiator takes its time are not stuck.
  const std::uint64_t in_flight =
      waiting_for_user() ? 0 : e.created_flits() - e.ejected_flits() - e.queued_flits();
  try {
    watchdog_.check(next, net_->flit_hops() + e.ejected_flits(), in_flight, [&] { return net_->pending_until(); },
                    [&] {
                      std::ostringstream os;
                      net_->report_stuck(os);
                      return os.str();
                    });
  } catch (const DeadlockError& d) {
    SC_REPORT_ERROR(kMsgType, (name() + std::string(": ") + d.what()).c_str());
  }
}

TlmNetwork::~TlmNetwork() {
  // Sockets newest first (SystemC's registries search from the newest).
  for (std::size_t n = nodes_.size(); n-- > 0;) {
    nodes_[n]->initiator.reset();
    nodes_[n]->target.reset();
  }
  for (auto& t : pool_)
    if (t->in_use && t->acquired) t->gp->release();
}

int TlmNetwork::nodes() const { return int(nodes_.size()); }
TlmNetwork::Node& TlmNetwork::node(int n, const char* socket) {
  if (n < 0 || n >= nodes())
    throw std::out_of_range(fmt::format("{}: {}({}): no such node (allowed: 0 to {})", name(), socket, n, nodes() - 1));
  return *nodes_[std::size_t(n)];
}
TlmNetwork::TargetSocket& TlmNetwork::target(int n) { return *node(n, "target").target; }
TlmNetwork::InitiatorSocket& TlmNetwork::initiator(int n) { return *node(n, "initiator").initiator; }

Cycle TlmNetwork::cycle_at(const sc_core::sc_time& delay) const {
  const std::uint64_t t = (sc_core::sc_time_stamp() + delay).value(), p = clock_.period.value();
  return std::max<Cycle>((t + p - 1) / p, net_->kernel()->next_cycle());
}

// The delay from now to cycle c's evaluation time, (c + 1/2) periods: zero
// for a packet of the block just run with lookahead 1; later cycles of a
// longer block are still ahead of SystemC time.
sc_core::sc_time TlmNetwork::ahead(Cycle c) const {
  const sc_core::sc_time at = clock_.delay(c) + clock_.period / 2, now = sc_core::sc_time_stamp();
  return at > now ? at - now : sc_core::SC_ZERO_TIME;
}

bool TlmNetwork::admit(int src, tlm::tlm_generic_payload& gp, Txn& t) {
  NodeExtension* ext = nullptr;
  gp.get_extension(ext);
  const std::uint64_t bytes = gp.get_data_length();
  const bool read = gp.get_command() == tlm::TLM_READ_COMMAND;
  auto refuse = [&](tlm::tlm_response_status status, const std::string& why) {
    SC_REPORT_WARNING(kMsgType, fmt::format("{}: node {}: {} transaction at address {:#x}, {} bytes: {}", name(), src,
                                            read ? "read" : "write", gp.get_address(), bytes, why)
                                    .c_str());
    gp.set_response_status(status);
    return false;
  };
  if (posted_ && read)
    return refuse(tlm::TLM_COMMAND_ERROR_RESPONSE, "embed.protocol = posted carries no response (allowed: writes; "
                                                   "reads need embed.protocol = request_response)");
  const bool named = ext && ext->node != -1;
  if (named && (ext->node < 0 || ext->node >= nodes()))
    return refuse(tlm::TLM_ADDRESS_ERROR_RESPONSE,
                  fmt::format("NodeExtension names node {} (allowed: 0 to {}, or -1 for the address map's)", ext->node,
                              nodes() - 1));
  const int dst = named ? ext->node : map_.node_of(gp.get_address(), bytes);
  if (dst < 0)
    return refuse(tlm::TLM_ADDRESS_ERROR_RESPONSE,
                  ext ? "no range of the address map holds it, and its NodeExtension names no node (node = -1)"
                      : "no range of the address map holds it, and it carries no NodeExtension");
  if (ext)
    for (auto [field, flits] : {std::pair{"request_flits", ext->request_flits}, {"response_flits", ext->response_flits}})
      if (flits < 0)
        return refuse(tlm::TLM_GENERIC_ERROR_RESPONSE,
                      fmt::format("NodeExtension {} = {} (allowed: 1 or more, or 0 for the size from the data length)",
                                  field, flits));
  const std::uint64_t data_flits = (bytes * 8 + std::uint64_t(flit_bits_) - 1) / std::uint64_t(flit_bits_);
  auto size = [&](int given, bool with_data) {
    if (given > 0) return std::uint64_t(given);
    return std::max<std::uint64_t>(1, std::uint64_t(header_flits_) + (with_data ? data_flits : 0));
  };
  const std::uint64_t req = size(ext ? ext->request_flits : 0, !read), resp = size(ext ? ext->response_flits : 0, read);
  const std::uint64_t largest = posted_ ? req : std::max(req, resp);
  if (largest > std::uint64_t(max_flits_))
    return refuse(tlm::TLM_BURST_ERROR_RESPONSE,
                  fmt::format("its {} packet takes {} flits (flit.bits = {}); {}", largest == req ? "request" : "response",
                              largest, flit_bits_, max_flits_rule_));
  t.src = src;
  t.dst = dst;
  t.request_flits = int(req);
  t.response_flits = int(resp);
  return true;
}

void TlmNetwork::inject(Txn* t, int node, int dst, int flits, int cls, Cycle at) {
  PacketSpec spec;
  spec.dst = dst;
  spec.size_flits = flits;
  spec.cls = cls;
  const std::uint64_t id = net_->endpoints().inject_external(node, spec, at);
  InFlight& f = in_flight_[std::size_t(node)];
  if (id / std::uint64_t(nodes()) != f.base + f.txns.size())
    throw std::logic_error(fmt::format("{}: packet {} out of sequence at node {}", name(), id, node));
  f.txns.push_back(t);
  net_->kernel()->wake_at(at);
}

// The network's own copy of a posted write, in t->copy: the fields, data
// and byte enables, and one pass over the extension slots (extensions the
// copy already holds are copied into, the user's new ones cloned, ones the
// user's payload lacks freed): what deep_copy_from and a clean-up pass did
// in three passes.
void TlmNetwork::copy_posted(const tlm::tlm_generic_payload& user, Txn& t) {
  tlm::tlm_generic_payload& c = *t.copy;
  const unsigned length = user.get_data_length();
  t.data.resize(length);
  if (length && user.get_data_ptr()) std::memcpy(t.data.data(), user.get_data_ptr(), length);
  const unsigned be = user.get_byte_enable_ptr() ? user.get_byte_enable_length() : 0;
  t.byte_enables.resize(be);
  if (be) std::memcpy(t.byte_enables.data(), user.get_byte_enable_ptr(), be);
  c.set_command(user.get_command());
  c.set_address(user.get_address());
  c.set_data_ptr(length ? t.data.data() : nullptr);
  c.set_data_length(length);
  c.set_byte_enable_ptr(be ? t.byte_enables.data() : nullptr);
  c.set_byte_enable_length(be);
  c.set_streaming_width(user.get_streaming_width());
  c.set_dmi_allowed(user.is_dmi_allowed());
  c.set_gp_option(user.get_gp_option());
  c.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const unsigned n = tlm::max_num_extensions();
  t.copy_holds.resize(n);  // which slots of the copy hold an extension (asking costs a call)
  for (unsigned i = 0; i < n; ++i) {
    const tlm::tlm_extension_base* from = user.get_extension(i);
    if (from && t.copy_holds[i]) {
      c.get_extension(i)->copy_from(*from);
    } else if (from) {
      c.set_extension(i, from->clone());
      t.copy_holds[i] = c.get_extension(i) != nullptr;  // clone() may decline
    } else if (t.copy_holds[i]) {
      c.set_extension(i, nullptr)->free();
      t.copy_holds[i] = 0;
    }
  }
}

// The request enters node src's source queue at cycle `at`.
void TlmNetwork::accept(int src, Txn* t, Cycle at) {
  ++nodes_[std::size_t(src)]->accepted;
  if (posted_) {  // the initiator may reuse its payload at once: the network carries a copy
    if (!t->copy) t->copy = std::make_unique<tlm::tlm_generic_payload>();
    copy_posted(*t->gp, *t);
    t->gp = t->copy.get();
  } else if (t->gp->has_mm()) {
    t->gp->acquire();
    t->acquired = true;
  }
  inject(t, src, t->dst, t->request_flits, 0, at);
}

TlmNetwork::Txn* TlmNetwork::new_txn() {
  if (free_.empty()) {
    pool_.push_back(std::make_unique<Txn>());
    free_.push_back(pool_.back().get());
  }
  Txn* t = free_.back();
  free_.pop_back();
  t->gp = nullptr;
  t->style = Style::AT;
  t->vc = -1;
  t->flits = 0;
  t->acquired = t->ack_only = false;
  t->in_use = true;
  ++live_;
  return t;
}

void TlmNetwork::finish(Txn* t) {
  if (t->acquired) t->gp->release();
  t->in_use = false;
  --live_;
  free_.push_back(t);
}

// --- From the user's initiators (target sockets) ---

void TlmNetwork::b_transport(int src, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  Txn* t = new_txn();
  t->gp = &gp;
  t->style = Style::LT;
  if (!admit(src, gp, *t)) return finish(t);
  Node& node = *nodes_[std::size_t(src)];
  // Backpressure: wait (in simulated time) for room in the source queue.
  // The initiator's local time stands: a quantum keeper's initiator running
  // ahead of the time room appeared keeps the rest of its offset, and its
  // packet is created at the later of the two.
  if (node.accepted >= queue_limit_) {
    const sc_core::sc_time local = sc_core::sc_time_stamp() + delay;
    while (node.accepted >= queue_limit_) {
      ++node.space_waiters;
      sc_core::wait(node.space);
      --node.space_waiters;
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    delay = local > now ? local - now : sc_core::SC_ZERO_TIME;
  }
  accept(src, t, cycle_at(delay));
  if (posted_) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    t->style = Style::AT;  // nobody waits for it any more
    return;
  }
  if (!t->done) t->done = std::make_unique<sc_core::sc_event>();
  sc_core::wait(*t->done);
  delay = ahead(t->arrival);  // returns at the response's arrival
  finish(t);
}

tlm::tlm_sync_enum TlmNetwork::nb_transport_fw(int src, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                               sc_core::sc_time& delay) {
  Node& node = *nodes_[std::size_t(src)];
  if (phase == tlm::END_RESP) {
    if (!node.response_busy || node.response_busy->gp != &gp) {
      SC_REPORT_ERROR(kMsgType, fmt::format("{}: END_RESP on target({}) for a transaction without a response in "
                                            "progress",
                                            name(), src)
                                    .c_str());
      return tlm::TLM_COMPLETED;
    }
    end_response(src, delay);
    try_deliver_response(src);  // the node's next response waited for this END_RESP
    return tlm::TLM_COMPLETED;
  }
  if (phase != tlm::BEGIN_REQ) {
    SC_REPORT_ERROR(kMsgType, fmt::format("{}: target({}) got phase {} (allowed: BEGIN_REQ, END_RESP)", name(), src,
                                          phase.get_name())
                                  .c_str());
    return tlm::TLM_COMPLETED;
  }
  if (node.waiting) {
    SC_REPORT_ERROR(kMsgType, fmt::format("{}: BEGIN_REQ on target({}) before END_REQ of the previous one (TLM-2.0 "
                                          "request exclusion rule)",
                                          name(), src)
                                  .c_str());
    return tlm::TLM_COMPLETED;
  }
  Txn* t = new_txn();
  t->gp = &gp;
  if (!admit(src, gp, *t)) {
    finish(t);
    return tlm::TLM_COMPLETED;
  }
  if (node.accepted >= queue_limit_) {  // END_REQ withheld until the queue has room (dequeued)
    node.waiting = t;
    node.waiting_at = cycle_at(delay);
    return tlm::TLM_ACCEPTED;
  }
  accept(src, t, cycle_at(delay));
  if (posted_) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

// --- The endpoints' news, after every kernel cycle ---

void TlmNetwork::dequeued(int src, int cls) {
  if (cls != 0) return;
  Node& node = *nodes_[std::size_t(src)];
  --node.accepted;
  if (node.space_waiters) node.space.notify(sc_core::SC_ZERO_TIME);
  if (!node.waiting) return;
  Txn* t = std::exchange(node.waiting, nullptr);
  tlm::tlm_generic_payload& user = *t->gp;
  accept(src, t, std::max(node.waiting_at, cycle_at(sc_core::SC_ZERO_TIME)));
  if (posted_) {  // the copy travels on; the initiator's transaction ends with a BEGIN_RESP
    user.set_response_status(tlm::TLM_OK_RESPONSE);
    Txn* a = new_txn();
    a->gp = &user;
    a->ack_only = true;
    node.responses.push_back(a);
    try_deliver_response(src);
    return;
  }
  tlm::tlm_phase phase = tlm::END_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  (*node.target)->nb_transport_bw(user, phase, delay);
}

void TlmNetwork::delivered(const ExternalPacket& p, int vc) {
  InFlight& f = in_flight_[std::size_t(p.packet_id % std::uint64_t(nodes()))];
  const std::uint64_t k = p.packet_id / std::uint64_t(nodes());
  Txn* t = k >= f.base && k - f.base < f.txns.size() ? f.txns[std::size_t(k - f.base)] : nullptr;
  if (!t) throw std::logic_error(fmt::format("{}: packet {} delivered twice or never sent", name(), p.packet_id));
  f.txns[std::size_t(k - f.base)] = nullptr;
  while (!f.txns.empty() && !f.txns.front()) {
    f.txns.pop_front();
    ++f.base;
  }
  t->vc = vc;
  t->flits = p.size_flits;
  t->arrival = p.at;
  if (p.cls == 1) {
    nodes_[std::size_t(p.dst)]->responses.push_back(t);
    try_deliver_response(p.dst);
  } else {
    nodes_[std::size_t(p.dst)]->requests.push_back(t);
    try_deliver_request(p.dst);
  }
}

// --- To the user's targets (initiator sockets) ---

void TlmNetwork::try_deliver_request(int n) {
  Node& node = *nodes_[std::size_t(n)];
  while (!node.request_busy && !node.requests.empty()) {
    if (node.initiator->size() == 0) {
      SC_REPORT_ERROR(kMsgType, fmt::format("{}: a packet from node {} reached node {}, but initiator({}) is bound "
                                            "to no target",
                                            name(), node.requests.front()->src, n, n)
                                    .c_str());
      return;
    }
    Txn* t = node.requests.front();
    node.requests.pop_front();
    node.request_busy = t;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = ahead(t->arrival);
    switch ((*node.initiator)->nb_transport_fw(*t->gp, phase, delay)) {
      case tlm::TLM_ACCEPTED: break;  // END_REQ or BEGIN_RESP comes on the backward path
      case tlm::TLM_UPDATED:
        if (phase != tlm::END_REQ && phase != tlm::BEGIN_RESP) {
          SC_REPORT_ERROR(kMsgType, fmt::format("{}: the target of initiator({}) answered BEGIN_REQ with TLM_UPDATED "
                                                "and phase {} (allowed: END_REQ, BEGIN_RESP)",
                                                name(), n, phase.get_name())
                                        .c_str());
          return;
        }
        target_accepted(n, delay, phase == tlm::BEGIN_RESP);
        if (phase == tlm::BEGIN_RESP) {
          tlm::tlm_generic_payload& gp = *t->gp;  // t may finish in target_responded
          target_responded(n, t, delay);
          tlm::tlm_phase end = tlm::END_RESP;
          sc_core::sc_time d = sc_core::SC_ZERO_TIME;
          (*node.initiator)->nb_transport_fw(gp, end, d);
        }
        break;
      case tlm::TLM_COMPLETED:
        target_accepted(n, delay, true);
        target_responded(n, t, delay);
        break;
    }
  }
}

// The target took node n's request in progress: its flits' credits go back.
// Unless it answered at once (`answered`), it holds the transaction until
// its response.
void TlmNetwork::target_accepted(int n, const sc_core::sc_time& delay, bool answered) {
  Node& node = *nodes_[std::size_t(n)];
  Txn* t = std::exchange(node.request_busy, nullptr);
  const Cycle at = cycle_at(delay);
  net_->endpoints().release_ejection(n, t->vc, t->flits, at);
  net_->kernel()->wake_at(at);
  if (!answered) node.at_target.push_back(t);
}

// The target at node n answered `t` (no longer held at the target): the
// response travels back (posted: done).
void TlmNetwork::target_responded(int n, Txn* t, const sc_core::sc_time& delay) {
  if (posted_) finish(t);
  else inject(t, n, t->src, t->response_flits, 1, cycle_at(delay));
}

tlm::tlm_sync_enum TlmNetwork::nb_transport_bw(int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                               sc_core::sc_time& delay) {
  Node& node = *nodes_[std::size_t(n)];
  Txn* answered = nullptr;
  if (node.request_busy && node.request_busy->gp == &gp && (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP)) {
    Txn* t = node.request_busy;
    target_accepted(n, delay, phase == tlm::BEGIN_RESP);
    if (phase == tlm::END_REQ) {
      try_deliver_request(n);
      return tlm::TLM_ACCEPTED;
    }
    answered = t;  // BEGIN_RESP without END_REQ
  } else if (phase == tlm::BEGIN_RESP) {
    answered = node.take_at_target(&gp);
  }
  if (!answered) {
    SC_REPORT_ERROR(kMsgType, fmt::format("{}: initiator({}) got phase {} for a transaction it has not sent",
                                          name(), n, phase.get_name())
                                  .c_str());
    return tlm::TLM_COMPLETED;
  }
  target_responded(n, answered, delay);
  try_deliver_request(n);
  return tlm::TLM_COMPLETED;  // END_RESP
}

// --- Responses back to the user's initiators ---

void TlmNetwork::try_deliver_response(int n) {
  Node& node = *nodes_[std::size_t(n)];
  while (!node.response_busy && !node.responses.empty()) {
    Txn* t = node.responses.front();
    node.responses.pop_front();
    if (t->style == Style::LT) {
      const Cycle at = cycle_at(sc_core::SC_ZERO_TIME);
      net_->endpoints().release_ejection(n, t->vc, t->flits, at);
      net_->kernel()->wake_at(at);
      t->done->notify(sc_core::SC_ZERO_TIME);  // b_transport returns and finishes it
      continue;
    }
    node.response_busy = t;
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = t->ack_only ? sc_core::SC_ZERO_TIME : ahead(t->arrival);
    const tlm::tlm_sync_enum s = (*node.target)->nb_transport_bw(*t->gp, phase, delay);
    if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::END_RESP)) end_response(n, delay);
  }
}

void TlmNetwork::end_response(int n, const sc_core::sc_time& delay) {
  Node& node = *nodes_[std::size_t(n)];
  Txn* t = std::exchange(node.response_busy, nullptr);
  if (!t->ack_only) {
    const Cycle at = cycle_at(delay);
    net_->endpoints().release_ejection(n, t->vc, t->flits, at);
    net_->kernel()->wake_at(at);
  }
  finish(t);
}

RunResult TlmNetwork::results() const {
  RunResult r;
  const Cycle now = clock_.now();
  r.window_activity = net_->activity();
  summarize_completion(cfg_, *net_, now, live_ == 0 && net_->stats().outstanding() == 0, "external", r);
  summarize_utilization(*net_, r);
  summarize_network(cfg_, *net_, now, r);
  return r;
}

}  // namespace nwn

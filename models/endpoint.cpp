#include "endpoint.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "ring.hpp"

namespace nwn {

// The network side of a terminal: source queue, flit injection with credits,
// and ejection with packet delivery on the tail flit.
class NetworkInterface : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<NetworkInterface> from_terminal;
  tlm_utils::simple_initiator_socket<NetworkInterface> to_terminal;

  NetworkInterface(sc_core::sc_module_name name, int id, const EndpointParams& p, Endpoints* owner)
      : sc_module(name),
        from_terminal("from_terminal"),
        to_terminal("to_terminal"),
        id_(id),
        params_(p),
        owner_(owner),
        inject_(std::string(name) + ".inject", p.inject_link),
        eject_(std::string(name) + ".eject", p.eject_link),
        queue_{Ring<PacketExtension>(0), Ring<PacketExtension>(0)},  // grow when packets wait (models/ring.hpp)
        credits_(p.vcs, p.router_buffer_depth_flits),
        window_flits_on_vc_(p.vcs, 0) {
    from_terminal.register_b_transport(this, &NetworkInterface::b_transport);
    inject_.reserve_flits(0);  // the sending end sizes the flit ring (no pipeline before the wire)
    if (p.eject_buffer_flits > 0) {  // credits go back when the outside takes a packet, all at once
      const int buffer = p.vcs * p.eject_buffer_flits;
      eject_.reserve_credits(buffer, buffer);
    }
    deliver_ext_ = new PacketExtension;
    deliver_.set_extension(deliver_ext_);
  }

  // Joins a group as its node `local`: the group reads the links.
  void join(EndpointGroup* group, int local) {
    group_ = group;
    local_ = local;
    inject_.set_sender(group, local);
    eject_.set_receiver(group, local);
  }
  int local() const { return local_; }
  // The id of the next packet this node creates (see models/endpoint.hpp).
  std::uint64_t next_packet_id() { return next_seq_++ * std::uint64_t(owner_->nodes()) + std::uint64_t(id_); }

  Link* inject_link() { return &inject_; }
  Link* eject_link() { return &eject_; }
  bool busy() const { return !queue_[0].empty() || !queue_[1].empty(); }
  std::uint64_t queued_flits() const {
    std::uint64_t n = 0;
    for (const auto& q : queue_)
      for (std::size_t i = 0; i < q.size(); ++i) n += q.at(i).size_flits;
    return n - sent_of_current_;
  }
  void release(int vc, int flits, Cycle now) {
    for (int i = 0; i < flits; ++i) eject_.send_credit(vc, now);
  }
  std::uint64_t ejected() const { return ejected_; }
  std::uint64_t window_ejected() const { return window_ejected_; }

  // Each returns when the link's next item arrives (kNever: none pending).
  Cycle take_credits(Cycle now) {
    while (inject_.credit_ready(now)) ++credits_[inject_.pop_credit()];
    return inject_.next_credit_at();
  }
  Cycle take_flits(Cycle now) {
    while (eject_.flit_ready(now)) receive(eject_.pop_flit(), now);
    return eject_.next_flit_at();
  }
  void inject_if_possible(Cycle now) {
    if (busy() && inject_.can_send(now)) inject(now);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
    const PacketExtension* ext = nullptr;
    trans.get_extension(ext);
    if (!ext) {
      trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    if (params_.message_classes > 1 && ext->cls >= params_.message_classes) {
      trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    queue_[params_.message_classes > 1 ? ext->cls : 0].push(*ext);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  void inject(Cycle now) {
    if (sent_of_current_ == 0) cur_ = queue_[1].empty() ? 0 : 1;  // responses first, packet by packet
    PacketExtension& p = queue_[cur_].front();
    if (sent_of_current_ == 0) {
      // Virtual cut-through takes a VC only when the whole packet fits; a
      // message class takes VCs of its own range.
      const int need = params_.wormhole ? 1 : p.size_flits;
      const int per = params_.vcs / params_.message_classes, first = cur_ * per;
      int chosen = -1;
      for (int i = 0; i < per; ++i) {
        const int vc = first + (vc_pointer_ + i) % per;
        if (credits_[vc] >= need) {
          chosen = vc;
          break;
        }
      }
      if (chosen < 0) return;
      vc_ = chosen;
      vc_pointer_ = (chosen - first + 1) % per;
      p.injected_cycle = now;
    }
    if (credits_[vc_] <= 0) return;
    Flit f;
    f.packet_id = p.packet_id;
    f.created_cycle = p.created_cycle;
    f.injected_cycle = p.injected_cycle;
    f.src = p.src;
    f.dst = p.dst;
    f.vc = std::int16_t(vc_);
    f.packet_flits = p.size_flits;
    f.cls = p.cls;
    f.measured = p.measured;
    f.traced = p.traced;
    f.head = sent_of_current_ == 0;
    f.tail = sent_of_current_ + 1 == p.size_flits;
    --credits_[vc_];
    if (p.traced) trace_inject(now);  // reads the flit from the members, so nothing stays live for it
    inject_.send(f, now);
    if (f.tail) {
      if (owner_->sink_)
        group_->sink_events_.push_back({EndpointGroup::SinkEvent::Dequeued, std::int16_t(cur_),
                                        {p.packet_id, p.src, p.dst, p.size_flits, p.cls, now}});
      queue_[cur_].pop();
      sent_of_current_ = 0;
    } else {
      ++sent_of_current_;
    }
  }

  void receive(const Flit& f, Cycle now) {
    if (f.dst != id_) throw std::logic_error(name() + std::string(": flit of packet ") + std::to_string(f.packet_id) +
                                             " for node " + std::to_string(f.dst) + " ejected at node " +
                                             std::to_string(id_));
    if (f.traced) trace_eject(now, f);
    ++ejected_;
    ++group_->ejected_flits;
    const bool in_window = now >= owner_->measure_begin_ && now < owner_->measure_end_;
    if (in_window) {
      ++window_ejected_;
      ++window_flits_on_vc_[std::size_t(f.vc)];
    }
    if (!f.tail) return;
    if (in_window) ++group_->window_ejected_packets;
    PacketExtension& e = *deliver_ext_;
    // A VC's flits arrive packet after packet: its count since the last tail is this packet's.
    e.window_flits = window_flits_on_vc_[std::size_t(f.vc)];
    window_flits_on_vc_[std::size_t(f.vc)] = 0;
    e.packet_id = f.packet_id;
    e.src = f.src;
    e.dst = f.dst;
    e.size_flits = f.packet_flits;
    e.cls = f.cls;
    e.measured = f.measured;
    e.created_cycle = f.created_cycle;
    e.injected_cycle = f.injected_cycle;
    e.delivered_cycle = now;
    e.hops = f.hops;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    to_terminal->b_transport(deliver_, delay);
    if (owner_->sink_)
      group_->sink_events_.push_back({EndpointGroup::SinkEvent::Sink, f.vc, {e.packet_id, e.src, e.dst, e.size_flits, e.cls, now}});
    if (owner_->closed_loop_) {  // one group: the source's is this one
      const NetworkInterface& src = *owner_->nis_[std::size_t(f.src)];
      owner_->group_of_[std::size_t(f.src)]->resume(src.local_, now);
    }
  }

  // Only flits with Flit::traced get here (cold, out of line).
  [[gnu::cold, gnu::noinline]] void trace_inject(Cycle now) {
    const PacketExtension& p = queue_[cur_].front();
    Flit f;
    f.packet_id = p.packet_id;
    f.created_cycle = p.created_cycle;
    f.src = p.src;
    f.dst = p.dst;
    f.vc = std::int16_t(vc_);
    f.packet_flits = p.size_flits;
    f.head = sent_of_current_ == 0;
    f.tail = sent_of_current_ + 1 == p.size_flits;
    f.traced = true;
    TraceHop hop;
    hop.out_vc = vc_;
    hop.link = &inject_;
    hop.arrives = now + inject_.params().latency_cycles;
    if (owner_->tracer_) owner_->tracer_->record(TraceEvent::Inject, now, f, basename(), hop);
  }
  [[gnu::cold, gnu::noinline]] void trace_eject(Cycle now, const Flit& f) {
    TraceHop hop;
    hop.in_vc = f.vc;
    hop.link = &eject_;
    hop.arrives = now;
    if (owner_->tracer_) owner_->tracer_->record(TraceEvent::Eject, now, f, basename(), hop);
  }

  int id_;
  EndpointParams params_;
  Endpoints* owner_;
  EndpointGroup* group_ = nullptr;
  int local_ = 0;
  std::uint64_t next_seq_ = 0;
  Link inject_, eject_;
  Ring<PacketExtension> queue_[2];  // unbounded source queues, per message class
  std::vector<int> credits_;        // router input buffer space per VC
  int vc_ = 0, vc_pointer_ = 0, cur_ = 0;
  std::uint64_t sent_of_current_ = 0;
  std::uint64_t ejected_ = 0, window_ejected_ = 0;
  std::vector<std::uint16_t> window_flits_on_vc_;  // flits ejected in the window of each VC's current packet
  tlm::tlm_generic_payload deliver_;
  PacketExtension* deliver_ext_;  // owned by deliver_
};

Terminal::Terminal(sc_core::sc_module_name name, int id, PacketObserver* observer)
    : sc_module(name), to_ni("to_ni"), from_ni("from_ni"), id_(id), observer_(observer) {
  from_ni.register_b_transport(this, &Terminal::b_transport);
}

void Terminal::send(tlm::tlm_generic_payload& trans) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  to_ni->b_transport(trans, delay);
  if (trans.get_response_status() != tlm::TLM_OK_RESPONSE)
    throw std::logic_error(name() + std::string(": network interface refused a packet"));
}

void Terminal::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  const PacketExtension* ext = nullptr;
  trans.get_extension(ext);
  if (!ext || ext->dst != id_) throw std::logic_error(name() + std::string(": misdelivered packet"));
  observer_->on_delivered(*ext);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

Endpoints::Endpoints(sc_core::sc_module_name name, int nodes, const EndpointParams& p, Workload* workload,
                     PacketObserver* observer, const Clock& clock, const std::vector<bool>& local)
    : sc_module(name), workload_(workload), observer_(observer), clock_(clock) {
  if (!local.empty() && local.size() != std::size_t(nodes))
    throw std::logic_error("endpoints: a local flag for each of the nodes");
  for (int n = 0; n < nodes; ++n) {
    if (!local.empty() && !local[std::size_t(n)]) {
      terminals_.emplace_back();
      nis_.emplace_back();
      continue;
    }
    terminals_.push_back(std::make_unique<Terminal>(("terminal" + std::to_string(n)).c_str(), n, observer));
    nis_.push_back(std::make_unique<NetworkInterface>(("ni" + std::to_string(n)).c_str(), n, p, this));
    terminals_[n]->to_ni.bind(nis_[n]->from_terminal);
    nis_[n]->to_terminal.bind(terminals_[n]->from_ni);
  }
  closed_loop_ = workload_->closed_loop();
}

// SystemC's port and export registries find an entry by searching from the
// newest: destroyed newest first, each is found at once (oldest first, a
// large network's teardown is quadratic: seconds at 32,768 nodes).
Endpoints::~Endpoints() {
  for (std::size_t n = nis_.size(); n-- > 0;) {
    nis_[n].reset();
    terminals_[n].reset();
  }
}

void Endpoints::make_groups(std::vector<std::vector<int>> groups) {
  if (!groups_.empty()) throw std::logic_error("endpoints: make_groups called twice");
  if (groups.empty()) {
    groups.emplace_back();
    for (std::size_t n = 0; n < nis_.size(); ++n)
      if (nis_[n]) groups[0].push_back(int(n));
    // A process whose share has routers and no node here has no group.
    if (groups[0].empty() && std::any_of(nis_.begin(), nis_.end(), [](auto& ni) { return !ni; })) groups.clear();
  }
  if (groups.size() > 1 && !workload_->per_node())
    throw std::logic_error("endpoints: groups need a workload whose nodes run apart (per_node)");
  group_of_.assign(nis_.size(), nullptr);
  const bool defer = groups.size() > 1;
  for (auto& nodes : groups) {
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i] < 0 || nodes[i] >= this->nodes() || !has(nodes[i]) || group_of_[nodes[i]] ||
          (i && nodes[i] <= nodes[i - 1]))
        throw std::logic_error("endpoints: groups must list each node once, in increasing order");
    groups_.push_back(std::make_unique<EndpointGroup>(this, std::move(nodes), defer));
    EndpointGroup* g = groups_.back().get();
    for (std::size_t i = 0; i < g->nodes().size(); ++i) {
      const int n = g->nodes()[i];
      group_of_[n] = g;
      nis_[n]->join(g, int(i));
      terminals_[n]->set_observer(g);
    }
  }
  for (std::size_t n = 0; n < nis_.size(); ++n)
    if (nis_[n] && !group_of_[n]) throw std::logic_error("endpoints: node " + std::to_string(n) + " is in no group");
}

namespace {
// Only this process's nodes have links (Endpoints' `local`).
template <typename Ni>
Ni& here(const std::vector<std::unique_ptr<Ni>>& nis, int node) {
  Ni* ni = nis.at(std::size_t(node)).get();
  if (!ni) throw std::logic_error("endpoints: node " + std::to_string(node) + " is simulated by another process");
  return *ni;
}
}  // namespace

Link* Endpoints::inject_link(int node) { return here(nis_, node).inject_link(); }

std::uint64_t Endpoints::inject_external(int node, const PacketSpec& spec, Cycle at) {
  NetworkInterface& ni = *nis_.at(std::size_t(node));
  const std::uint64_t id = ni.next_packet_id();
  group_of_[std::size_t(node)]->schedule(at, ni.local(), spec, id);
  return id;
}

void Endpoints::release_ejection(int node, int vc, int flits, Cycle at) {
  NetworkInterface& ni = *nis_.at(std::size_t(node));
  group_of_[std::size_t(node)]->schedule_release(at, ni.local(), vc, flits);
}

Link* Endpoints::eject_link(int node) { return here(nis_, node).eject_link(); }

std::uint64_t Endpoints::queued_flits() const {
  std::uint64_t n = 0;
  for (auto& ni : nis_)
    if (ni) n += ni->queued_flits();
  return n;
}
std::uint64_t Endpoints::ejected_flits_of(int node) const {
  const auto& ni = nis_.at(std::size_t(node));
  return ni ? ni->ejected() : 0;
}
std::uint64_t Endpoints::window_ejected_flits_of(int node) const {
  const auto& ni = nis_.at(std::size_t(node));
  return ni ? ni->window_ejected() : 0;
}

EndpointGroup::EndpointGroup(Endpoints* owner, std::vector<int> nodes, bool defer)
    : owner_(owner), nodes_(std::move(nodes)), defer_(defer) {
  is_active_.assign(nodes_.size(), 0);
  creations_.reserve(nodes_.size());
  active_.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Cycle first = owner_->workload_->next_creation(nodes_[i], 0);
    if (first != kNever) creations_.push_back({first, int(i)});
  }
  std::make_heap(creations_.begin(), creations_.end(), std::greater<>());
  ext_ = new PacketExtension;
  trans_.set_extension(ext_);
  trans_.set_command(tlm::TLM_WRITE_COMMAND);
  pending_flits_.resize(int(nodes_.size()));
  pending_credits_.resize(int(nodes_.size()));
}

void EndpointGroup::on_created(const PacketExtension& p) {
  if (defer_) events_.push_back({Event::Created, p});
  else owner_->observer_->on_created(p);
}

void EndpointGroup::on_delivered(const PacketExtension& p) {
  if (defer_) events_.push_back({Event::Delivered, p});
  else owner_->observer_->on_delivered(p);
}

void EndpointGroup::end_block() {
  for (const Event& e : events_) {
    if (e.kind == Event::Created) owner_->observer_->on_created(e.packet);
    else owner_->observer_->on_delivered(e.packet);
  }
  events_.clear();
  // The observer only counts: its calls and the sink's may come in any order.
  for (const SinkEvent& e : sink_events_) {
    if (e.kind == SinkEvent::Sink) owner_->sink_->delivered(e.packet, e.arg);
    else owner_->sink_->dequeued(e.packet.src, e.arg);
  }
  sink_events_.clear();
}

void EndpointGroup::schedule(Cycle at, int local, const PacketSpec& spec, std::uint64_t id) {
  if (actions_.empty()) actions_.resize(nodes_.size());
  Ring<Action>& q = actions_[std::size_t(local)];
  q.push({at, action_seq_++, spec, id});
  // A call for an earlier cycle than the node's last (another initiator, or
  // a smaller annotated delay) moves forward to its place.
  std::size_t i = q.size() - 1;
  for (; i > 0 && q.at(i - 1).at > at; --i) std::swap(q.at(i - 1), q.at(i));
  if (i == 0) {  // a new first action (an older Due entry of this node goes stale)
    due_.push_back({at, q.front().seq, local});
    std::push_heap(due_.begin(), due_.end(), std::greater<>());
  }
}

void EndpointGroup::schedule_release(Cycle at, int local, int vc, int flits) {
  releases_.push_back({at, local, vc, flits});
  release_min_ = std::min(release_min_, at);
}

void EndpointGroup::run_releases(Cycle now) {
  std::size_t kept = 0;
  release_min_ = kNever;
  for (const Release& r : releases_) {
    if (r.at <= now) {
      owner_->nis_[nodes_[r.local]]->release(r.vc, r.flits, now);
    } else {
      releases_[kept++] = r;
      release_min_ = std::min(release_min_, r.at);
    }
  }
  releases_.resize(kept);
}

// Outside work due by `now`, in the order of the outside calls.
void EndpointGroup::run_actions(Cycle now) {
  while (!due_.empty() && due_.front().at <= now) {
    std::pop_heap(due_.begin(), due_.end(), std::greater<>());
    const Due d = due_.back();
    due_.pop_back();
    Ring<Action>& q = actions_[std::size_t(d.local)];
    if (q.empty() || q.front().seq != d.seq) continue;  // stale
    const Action a = q.front();
    q.pop();
    create(d.local, now, a.spec, a.id);
    if (!q.empty()) {
      due_.push_back({q.front().at, q.front().seq, d.local});
      std::push_heap(due_.begin(), due_.end(), std::greater<>());
    }
  }
}

void EndpointGroup::activate(int local) {
  if (is_active_[local]) return;
  is_active_[local] = 1;
  active_.push_back(local);
}

void EndpointGroup::create_packet(int local, Cycle now) {
  const int node = nodes_[local];
  const PacketSpec spec = owner_->workload_->make_packet(node, now);
  create(local, now, spec, owner_->nis_[node]->next_packet_id());
  const Cycle next = owner_->workload_->next_creation(node, now + 1);
  if (next != kNever) {
    creations_.push_back({next, local});
    std::push_heap(creations_.begin(), creations_.end(), std::greater<>());
  }
}

void EndpointGroup::create(int local, Cycle now, const PacketSpec& spec, std::uint64_t id) {
  const int node = nodes_[local];
  PacketExtension& e = *ext_;
  e = PacketExtension{};
  e.packet_id = id;
  e.src = node;
  e.dst = spec.dst;
  e.size_flits = std::uint16_t(spec.size_flits);
  e.cls = std::uint8_t(spec.cls);
  e.created_cycle = now;
  e.measured = now >= owner_->measure_begin_ && now < owner_->measure_end_;
  if (owner_->tracer_) trace_create(node, now);
  created_flits += spec.size_flits;
  if (e.measured) window_created_flits += spec.size_flits;
  on_created(e);
  owner_->terminals_[node]->send(trans_);
  activate(local);
}

// Marks the packet in ext_ for tracing if the tracer wants it.
void EndpointGroup::trace_create(int node, Cycle now) {
  PacketExtension& e = *ext_;
  if (!owner_->tracer_->wants(e.packet_id)) return;
  e.traced = true;
  Flit f;
  f.packet_id = e.packet_id;
  f.created_cycle = now;
  f.src = node;
  f.dst = e.dst;
  f.packet_flits = e.size_flits;
  f.cls = e.cls;
  f.head = true;
  f.tail = e.size_flits == 1;
  f.traced = true;
  owner_->tracer_->record(TraceEvent::Create, now, f, owner_->nis_[node]->basename(), TraceHop{});
}

// A closed-loop source that was waiting for a delivery gets its next
// creation back on the heap (deliveries come before creations in a tick).
void EndpointGroup::resume(int local, Cycle now) {
  const int node = nodes_[local];
  if (!owner_->workload_->on_delivered(node, now)) return;
  const Cycle next = owner_->workload_->next_creation(node, now + 1);
  if (next == kNever) return;
  creations_.push_back({next, local});
  std::push_heap(creations_.begin(), creations_.end(), std::greater<>());
}

void EndpointGroup::tick(Cycle now) {
  auto& nis = owner_->nis_;
  pending_credits_.visit_due(now, [&](int i) { return nis[nodes_[i]]->take_credits(now); });
  pending_flits_.visit_due(now, [&](int i) { return nis[nodes_[i]]->take_flits(now); });
  if (release_min_ <= now) run_releases(now);
  if (!due_.empty()) run_actions(now);
  // Creations in (cycle, node) order, whatever the heap's layout.
  while (!creations_.empty() && creations_.front().at <= now) {
    std::pop_heap(creations_.begin(), creations_.end(), std::greater<>());
    const int local = creations_.back().local;
    creations_.pop_back();
    create_packet(local, now);  // one packet; its next creation goes back on the heap
  }
  std::size_t kept = 0;
  for (int local : active_) {
    NetworkInterface& ni = *nis[nodes_[local]];
    ni.inject_if_possible(now);
    if (ni.busy()) active_[kept++] = local;
    else is_active_[local] = 0;
  }
  active_.resize(kept);
}

}  // namespace nwn

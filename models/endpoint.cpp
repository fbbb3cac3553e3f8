#include "endpoint.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "ring.hpp"
#include "prefetch.hpp"

namespace nwn {

Endpoints::Endpoints(sc_core::sc_module_name name, int nodes, const EndpointParams& p, Workload* workload,
                     PacketObserver* observer, const Clock& clock, const std::vector<bool>& local)
    : sc_module(name), clock_(clock) {
  if (!local.empty() && local.size() != std::size_t(nodes))
    throw std::logic_error("endpoints: a local flag for each of the nodes");
  shared_.nodes = nodes;
  shared_.workload = workload;
  shared_.observer = observer;
  shared_.closed_loop = workload->closed_loop();
  for (int n = 0; n < nodes; ++n) {
    if (!local.empty() && !local[std::size_t(n)]) nis_.emplace_back();
    else nis_.push_back(std::make_unique<NetworkInterface>(n, p, shared_));
  }
  for (int n = 0; n < nodes; ++n)
    if (nis_[std::size_t(n)]) workload->place_node_state(n, nis_[std::size_t(n)]->workload_state());
}

Endpoints::~Endpoints() = default;

void Endpoints::make_groups(std::vector<std::vector<int>> groups) {
  if (!groups_.empty()) throw std::logic_error("endpoints: make_groups called twice");
  if (groups.empty()) {
    groups.emplace_back();
    for (std::size_t n = 0; n < nis_.size(); ++n)
      if (nis_[n]) groups[0].push_back(int(n));
    // A process whose share has routers and no node here has no group.
    if (groups[0].empty() && std::any_of(nis_.begin(), nis_.end(), [](auto& ni) { return !ni; })) groups.clear();
  }
  if (groups.size() > 1 && !shared_.workload->per_node())
    throw std::logic_error("endpoints: groups need a workload whose nodes run apart (per_node)");
  group_of_.assign(nis_.size(), nullptr);
  const bool defer = groups.size() > 1;
  for (auto& nodes : groups) {
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i] < 0 || nodes[i] >= this->nodes() || !has(nodes[i]) || group_of_[nodes[i]] ||
          (i && nodes[i] <= nodes[i - 1]))
        throw std::logic_error("endpoints: groups must list each node once, in increasing order");
    std::vector<NetworkInterface*> nis;
    for (int n : nodes) nis.push_back(nis_[n].get());
    groups_.push_back(std::make_unique<EndpointGroup>(shared_, std::move(nodes), std::move(nis), defer));
    EndpointGroup* g = groups_.back().get();
    for (std::size_t i = 0; i < g->nodes().size(); ++i) {
      const int n = g->nodes()[i];
      group_of_[n] = g;
      nis_[n]->join(*g, *g, int(i));
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

EndpointGroup::EndpointGroup(const EndpointShared& shared, std::vector<int> nodes, std::vector<NetworkInterface*> nis,
                             bool defer)
    : InterfaceGroup(shared),
      shared_(shared),
      nodes_(std::move(nodes)),
      nis_(std::move(nis)),
      defer_(defer),
      batch_(shared.workload->next_after_now()) {
  // Before any link is attached: a link marks these directly (LinkEnd::flit_marks).
  flit_marks = &pending_flits_;
  credit_marks = &pending_credits_;
  is_active_.assign(nodes_.size(), 0);
  // Room for a few cycles' packets (grown in the first cycles otherwise).
  if (defer_) creations_made_.reserve(4 * nodes_.size());
  deliveries_.reserve(4 * nodes_.size());
  creations_.reserve(nodes_.size());
  active_.reserve(nodes_.size());
  words_ = (nodes_.size() + 63) / 64;
  wheel_.assign(kWheelCycles * words_, 0);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Cycle first = shared_.workload->next_creation(nodes_[i], 0);
    if (first != kNever) push_creation(first, int(i));
  }
  pending_flits_.resize(int(nodes_.size()));
  pending_credits_.resize(int(nodes_.size()));
}

// The creations (recorded or counted) and deliveries kept for the observer.
void EndpointGroup::pass_to_observer() {
  PacketObserver& observer = *shared_.observer;
  for (const PacketHeader& p : creations_made_) observer.on_created(p);
  creations_made_.clear();
  if (created_any_) {
    observer.on_created_counts(created_measured_, created_last_);
    created_any_ = false;
    created_measured_ = 0;
  }
  if (!deliveries_.empty()) observer.on_delivered_records(deliveries_.data(), deliveries_.size());
  deliveries_.clear();
}

void EndpointGroup::end_block() {
  pass_to_observer();
  // The observer only counts: its calls and the sink's may come in any order.
  for (const SinkEvent& e : sink_events_) {
    if (e.kind == SinkEvent::Sink) shared_.sink->delivered(e.packet, e.arg);
    else shared_.sink->dequeued(e.packet.src, e.arg);
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
      nis_[r.local]->release(r.vc, r.flits, now);
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

// The packet's next creation is drawn before the packet goes to its NI
// (one workload call): the draws of a node are the workload's alone, and
// nothing the creation does reaches the workload.
void EndpointGroup::create_packet(int local, Cycle now) {
  PacketSpec spec;
  const Cycle next = shared_.workload->make_packet_then_next(nodes_[local], now, spec);
  create(local, now, spec, nis_[local]->next_packet_id());
  if (next != kNever) push_creation(next, local);
}

// As create_packet for each node of `bits`, one after the other, but with
// the workload's draws for all of them first, in one call: a node's draws
// are its own (next_after_now), and nothing a creation does reaches the
// workload, so the draws, the packets and their order are the same.
void EndpointGroup::create_packets(std::size_t w, std::uint64_t bits, Cycle now) {
  int locals[64], nodes[64];
  void* states[64];
  PacketSpec specs[64];
  Cycle nexts[64];
  std::size_t n = 0;
  for (; bits; bits &= bits - 1, ++n) {
    locals[n] = int(w * 64 + unsigned(__builtin_ctzll(bits)));
    nodes[n] = nodes_[std::size_t(locals[n])];
    states[n] = nis_[std::size_t(locals[n])]->workload_state();
  }
  shared_.workload->make_packets_then_next(nodes, states, n, now, specs, nexts);
  const auto create_all = [&](auto plain) {
    for (std::size_t i = 0; i < n; ++i) {
      const int local = locals[i];
      create<decltype(plain)::value>(local, now, specs[i], nis_[std::size_t(local)]->next_packet_id());
      if (nexts[i] != kNever) push_creation(nexts[i], local);
    }
  };
  // The settings' tests once for the word (most runs: no tracer, counted creations).
  if (!shared_.tracer && count_creations_) create_all(std::true_type{});
  else create_all(std::false_type{});
}

void EndpointGroup::push_creation(Cycle at, int local) {
  if (at > base_ && at - base_ < kWheelCycles) {
    const unsigned slot = unsigned(at % kWheelCycles);
    wheel_[slot * words_ + std::size_t(local) / 64] |= std::uint64_t{1} << (local % 64);
    occupied_ |= std::uint64_t{1} << slot;
    return;
  }
  creations_.push_back({at, local});
  std::push_heap(creations_.begin(), creations_.end(), std::greater<>());
}

// The wheel moves on to cycle `now`. Its slots hold cycles in (base_, base_ +
// kWheelCycles); those of cycles before `now` (not ticked: none, unless the
// kernel skipped a due cycle) go to the heap, which keeps their order.
void EndpointGroup::advance_calendar(Cycle now) {
  if (now <= base_) return;
  for (Cycle c = base_ + 1; occupied_ && c < now && c - base_ < kWheelCycles; ++c) {
    const unsigned slot = unsigned(c % kWheelCycles);
    if (!(occupied_ >> slot & 1)) continue;
    occupied_ &= ~(std::uint64_t{1} << slot);
    for (std::size_t w = 0; w < words_; ++w)
      for (std::uint64_t& bits = wheel_[slot * words_ + w]; bits; bits &= bits - 1) {
        creations_.push_back({c, int(w * 64 + unsigned(__builtin_ctzll(bits)))});
        std::push_heap(creations_.begin(), creations_.end(), std::greater<>());
      }
  }
  base_ = now;
}

// Creations due by `now` in (cycle, node) order: the heap's (earlier cycles,
// or this one) merged with this cycle's slot. A creation never lands in this
// slot meanwhile (push_creation puts cycles <= base_ on the heap).
void EndpointGroup::run_creations(Cycle now) {
  const unsigned slot = unsigned(now % kWheelCycles);
  std::uint64_t* bucket = nullptr;
  if (occupied_ >> slot & 1) {
    occupied_ &= ~(std::uint64_t{1} << slot);
    bucket = &wheel_[slot * words_];
  }
  const auto heap_due = [&] { return !creations_.empty() && creations_.front().at <= now; };
  std::size_t w = 0;
  if (bucket) {
    // Nearly always the heap has nothing due: the slot's nodes in order, a
    // word at a time, until it has (a trace's second packet of the cycle).
    for (; w < words_; ++w) {
      std::uint64_t& bits = bucket[w];
      // A word in one workload call: its creations put nothing due now on the heap (batch_).
      if (batch_ && bits && !heap_due()) {
        create_packets(w, bits, now);
        bits = 0;
        continue;
      }
      while (bits && !heap_due()) {
        const int local = int(w * 64 + unsigned(__builtin_ctzll(bits)));
        bits &= bits - 1;
        create_packet(local, now);
      }
      if (bits) break;
    }
    if (w == words_) bucket = nullptr;
  }
  for (;;) {
    int local = -1;  // the slot's next node
    if (bucket) {
      while (w < words_ && !bucket[w]) ++w;
      if (w < words_) local = int(w * 64 + unsigned(__builtin_ctzll(bucket[w])));
      else bucket = nullptr;
    }
    if (!creations_.empty() && creations_.front().at <= now &&
        (local < 0 || creations_.front().at < now || creations_.front().local < local)) {
      std::pop_heap(creations_.begin(), creations_.end(), std::greater<>());
      local = creations_.back().local;
      creations_.pop_back();
    } else if (local >= 0) {
      bucket[w] &= bucket[w] - 1;
    } else {
      return;
    }
    create_packet(local, now);  // one packet; its next creation goes back on the calendar
  }
}

template <bool kPlain>
void EndpointGroup::create(int local, Cycle now, const PacketSpec& spec, std::uint64_t id) {
  const int node = nodes_[local];
  PacketHeader& e = created_;
  e.packet_id = id;
  e.src = node;
  e.dst = spec.dst;
  e.size_flits = std::uint16_t(spec.size_flits);
  e.cls = std::uint8_t(spec.cls);
  e.created_cycle = now;
  e.measured = in_window_now;  // shared_.in_window(now), set by the tick
  e.traced = false;
  if (!kPlain && shared_.tracer) trace_create(local, now);
  created_flits += spec.size_flits;
  if (e.measured) window_created_flits += spec.size_flits;
  if (kPlain || count_creations_) {  // creations come in cycle order: `now` is the last
    created_any_ = true;
    created_measured_ += e.measured;
    created_last_ = now;
  } else if (!defer_) {
    shared_.observer->on_created(e);
  } else {
    creations_made_.push_back(e);
  }
  NetworkInterface& ni = *nis_[local];
  if (ni.inject_at_once(e, now)) return;  // most packets at moderate load: no queue, no active entry
  if (!ni.accept(e)) refused(local);
  activate(local);
}

void EndpointGroup::refused(int local) const {
  throw std::logic_error(nis_[local]->name() + ": no source queue for a packet of class " +
                         std::to_string(int(created_.cls)));
}

// Marks the packet in created_ for tracing if the tracer wants it.
void EndpointGroup::trace_create(int local, Cycle now) {
  PacketHeader& e = created_;
  if (!shared_.tracer->wants(e.packet_id)) return;
  e.traced = true;
  shared_.tracer->record(TraceEvent::Create, now, packet_flit(e, 0, -1, true, e.size_flits == 1), nis_[local]->name(),
                         TraceHop{});
}

// A closed loop has one group, of every node: the source is one of ours.
void EndpointGroup::source_delivered(int src, Cycle now) {
  const auto it = std::lower_bound(nodes_.begin(), nodes_.end(), src);
  if (it == nodes_.end() || *it != src)
    throw std::logic_error("endpoints: a closed-loop delivery for node " + std::to_string(src) +
                           ", which is not in the group");
  resume(int(it - nodes_.begin()), now);
}

// A closed-loop source that was waiting for a delivery gets its next
// creation back on the calendar (deliveries come before creations in a tick).
void EndpointGroup::resume(int local, Cycle now) {
  const int node = nodes_[local];
  if (!shared_.workload->on_delivered(node, now)) return;
  const Cycle next = shared_.workload->next_creation(node, now + 1);
  if (next != kNever) push_creation(next, local);
}

void EndpointGroup::tick(Cycle now) {
  count_creations_ = shared_.observer->counts_creations();
  in_window_now = shared_.in_window(now);
  advance_calendar(now);  // before the deliveries: a closed-loop source may resume
  pending_credits_.visit_due(now, [&](int i) { return nis_[i]->take_credits(now); });
  pending_flits_.visit_due(now, [&](int i) { return nis_[i]->take_flits(now); });
  if (release_min_ <= now) run_releases(now);
  if (!due_.empty()) run_actions(now);
  run_creations(now);
  std::size_t kept = 0;
  for (int local : active_) {
    NetworkInterface& ni = *nis_[local];
    ni.inject_if_possible(now);
    if (ni.busy()) active_[kept++] = local;
    else is_active_[local] = 0;
  }
  active_.resize(kept);
  // One group tells the observer at once, a tick at a time (its calls
  // count: their order against other ticks' does not matter, PacketObserver).
  if (!defer_) pass_to_observer();
}

}  // namespace nwn

namespace nwn {

// Stage 1: the marks of pending inputs, the interfaces' table, the active
// list and the calendar's slot of `now`; 2: the interfaces (their first
// line: models/network_interface.hpp) and links of the due inputs, active
// nodes and nodes that create a packet now (with their workload state),
// and the source queues of the active ones; 3: the items to read and the
// slots to send into.
void EndpointGroup::prefetch(Cycle now, int stage) const {
  const Cycle until = prefetch_until(now);  // the inputs read in the block's cycles
  // The nodes the slot of `now` holds (the creations run_creations makes
  // from the wheel; those from the heap are rare).
  const auto for_each_creating = [&](auto&& f) {
    const unsigned slot = unsigned(now % kWheelCycles);
    if (now <= base_ || now - base_ >= kWheelCycles || !(occupied_ >> slot & 1)) return;
    for (std::size_t w = 0; w < words_; ++w)
      for (std::uint64_t bits = wheel_[slot * words_ + w]; bits; bits &= bits - 1)
        f(nis_[w * 64 + unsigned(__builtin_ctzll(bits))], nodes_[w * 64 + unsigned(__builtin_ctzll(bits))]);
  };
  if (stage == 1) {
    pending_flits_.prefetch(int(nodes_.size()));
    pending_credits_.prefetch(int(nodes_.size()));
    for (std::size_t i = 0; i < nis_.size(); i += 8) prefetch_read(&nis_[i]);
    if (!active_.empty()) prefetch_read(active_.data());
    prefetch_read(&wheel_[unsigned(now % kWheelCycles) * words_]);
  } else if (stage == 2) {
    for_each_creating([&](NetworkInterface* ni, int node) {
      ni->prefetch_state();
      ni->inject_link()->prefetch_flit_side();
      shared_.workload->prefetch(node);
    });
    pending_credits_.for_each_due(until, [&](int i) {
      NetworkInterface* ni = nis_[std::size_t(i)];
      ni->inject_link()->prefetch_credit_side();
      ni->prefetch_state();
    });
    pending_flits_.for_each_due(until, [&](int i) {
      NetworkInterface* ni = nis_[std::size_t(i)];
      ni->eject_link()->prefetch_flit_side();
      ni->eject_link()->prefetch_credit_side();
      ni->prefetch_eject_state();
    });
    for (int local : active_) {
      NetworkInterface* ni = nis_[std::size_t(local)];
      ni->prefetch_state();
      ni->inject_link()->prefetch_flit_side();
      ni->prefetch_queues();
    }
  } else if (stage == 3) {
    pending_credits_.for_each_due(until, [&](int i) { nis_[std::size_t(i)]->inject_link()->prefetch_credit(); });
    pending_flits_.for_each_due(until, [&](int i) {
      const Link* l = nis_[std::size_t(i)]->eject_link();
      l->prefetch_flit();
      l->prefetch_credit_slot_to_send();  // the credit for the flit it takes
    });
    for (int local : active_) nis_[std::size_t(local)]->inject_link()->prefetch_flit_slot_to_send();
    for_each_creating([](NetworkInterface* ni, int) { ni->inject_link()->prefetch_flit_slot_to_send(); });
  }
}

}  // namespace nwn

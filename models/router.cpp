#include "router.hpp"

#include "prefetch.hpp"
#include "rng.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace nwn {

namespace {
OrganizationParams with_seed(OrganizationParams p, int router) {
  std::uint64_t x = p.seed ^ (0x726f75746572ULL + std::uint64_t(router));
  p.seed = splitmix64(x);
  return p;
}
}  // namespace

Router::Router(sc_core::sc_module_name name, int id, const RouterParams& p, GlobalRouting* global,
               const Clock& clock)
    : sc_module(name),
      id_(id),
      message_classes_(std::max(1, p.message_classes)),
      eject_vcs_(p.eject_vcs),
      global_(global),
      vcs_(p.vcs),
      org_(make_organization(with_seed(p.org, id))),
      clock_(clock) {
  // Before any link is attached (the internal ones below): a link marks these directly.
  flit_marks = &pending_flits_;
  credit_marks = &pending_credits_;
  const SwitchDescription& d = org_.description;
  direct_routing_ = org_.routing && org_.routing->direct();
  const auto external = router_input_mask(d);
  for (std::size_t s = 0; s < d.subswitches.size(); ++s) {
    const SubswitchSpec& spec = d.subswitches[s];
    SubswitchParams sp;
    sp.inputs = spec.inputs;
    sp.outputs = spec.outputs;
    sp.vcs = p.vcs;
    sp.vc_depth_flits = spec.vc_depth_flits;
    sp.policy = p.policy;
    sp.rtl_allocators = p.rtl_allocators && (p.rtl_router < 0 || p.rtl_router == id);
    sp.rtl_switch_options = p.rtl;
    sp.rtl_switch_options.period_ps = std::int64_t(clock.period.to_seconds() * 1e12 + 0.5);
    if (s != 0 || id != std::max(p.rtl_router, 0)) sp.rtl_switch_options.trace_path.clear();
    sp.input_speedup = spec.input_speedup;
    sp.rc_cycles = spec.rc_cycles;
    sp.va_cycles = spec.va_cycles;
    sp.sa_cycles = spec.sa_cycles;
    sp.st_cycles = spec.st_cycles;
    sp.inner_rc_cycles = spec.inner_rc_cycles;
    sp.inner_va_cycles = spec.inner_va_cycles;
    sp.router_input = external[s];
    sp.copy_of = spec.copy_of;
    subswitches_.push_back(std::make_unique<Subswitch>(std::string(basename()) + "." + spec.name, int(s), sp, this));
    port_base_.push_back(int(router_input_of_.size()));
    router_input_of_.resize(router_input_of_.size() + spec.inputs, -1);
    out_base_.push_back(int(output_ref_.size()));
    for (int i = 0; i < spec.inputs; ++i) input_ref_.push_back({nullptr, std::uint32_t(s), std::uint32_t(i)});
    for (int o = 0; o < spec.outputs; ++o) output_ref_.push_back({nullptr, std::uint32_t(s), std::uint32_t(o)});
  }
  for (std::size_t i = 0; i < d.inputs.size(); ++i)
    router_input_of_[port_base_[d.inputs[i].ss] + d.inputs[i].port] = int(i);
  for (std::size_t s = 0; s < d.subswitches.size(); ++s)  // a copy carries its port's packets
    for (int c = 0; c < d.subswitches[s].inputs; ++c)
      if (d.subswitches[s].is_copy(c))
        router_input_of_[port_base_[s] + c] = router_input_of_[port_base_[s] + d.subswitches[s].copy_of[std::size_t(c)]];
  for (const ChannelSpec& c : d.channels) {
    LinkParams lp;
    lp.latency_cycles = c.latency_cycles;
    lp.credit_latency_cycles = c.latency_cycles;
    lp.serialization_cycles = p.internal_serialization_cycles;
    lp.length_mm = c.length_mm;
    auto link = std::make_unique<Link>(std::string(basename()) + "." + d.subswitches[c.from_ss].name + "." +
                                           std::to_string(c.from_port) + "->" + d.subswitches[c.to_ss].name + "." +
                                           std::to_string(c.to_port),
                                       lp);
    link->set_sender(this, out_base_[c.from_ss] + c.from_port);
    link->set_receiver(this, port_base_[c.to_ss] + c.to_port);
    output_ref_[std::size_t(out_base_[c.from_ss] + c.from_port)].link = link.get();
    input_ref_[std::size_t(port_base_[c.to_ss] + c.to_port)].link = link.get();
    subswitches_[c.from_ss]->connect_output(c.from_port, link.get(), d.subswitches[c.to_ss].vc_depth_flits);
    subswitches_[c.to_ss]->connect_input(c.to_port, link.get());
    internal_.push_back(std::move(link));
  }
  pending_flits_.resize(int(input_ref_.size()));
  pending_credits_.resize(int(output_ref_.size()));
  weight_ = int(input_ref_.size());
  if (subswitches_.size() == 1) only_ss_ = subswitches_[0].get();
  bool identity = only_ss_ != nullptr;
  for (std::size_t i = 0; i < router_input_of_.size(); ++i) identity = identity && router_input_of_[i] == int(i);
  const bool plain = identity && direct_routing_ && message_classes_ == 1 && eject_vcs_ == 0;
  const bool route_to_destination = global_ && global_->routes_to_destination();
  to_destination_ = plain && route_to_destination;
  plain_global_ = plain && global_ && !route_to_destination;
}

// Stage 1: the marks of pending inputs, the port tables and the subswitch
// objects; 2: the due links' lines; 3: their next items; 4: the input VCs
// the due flits go to. Due: by the block's last cycle (prefetch_until).
// The subswitches follow their own stages alongside (one later with
// several, through the line of subswitches_).
// With one subswitch the links come from its own tables (prefetch_one).
void Router::prefetch(Cycle now, int stage) const {
  if (only_ss_) return prefetch_one(now, stage);
  const Cycle until = prefetch_until(now);
  if (stage == 1) {
    pending_flits_.prefetch(int(input_ref_.size()));
    pending_credits_.prefetch(int(output_ref_.size()));
    if (pending_flits_.count() > 0) prefetch_lines(input_ref_.data(), input_ref_.size() * sizeof(PortRef), false);
    if (pending_credits_.count() > 0) prefetch_lines(output_ref_.data(), output_ref_.size() * sizeof(PortRef), false);
    prefetch_read(subswitches_.data());
  } else if (stage == 2) {
    pending_flits_.for_each_due(until, [&](int i) {
      if (const Link* l = input_ref_[std::size_t(i)].link) l->prefetch_flit_side();
    });
    pending_credits_.for_each_due(until, [&](int o) {
      if (const Link* l = output_ref_[std::size_t(o)].link) l->prefetch_credit_side();
    });
  } else if (stage == 3) {
    pending_flits_.for_each_due(until, [&](int i) {
      if (const Link* l = input_ref_[std::size_t(i)].link) l->prefetch_flit();
    });
    pending_credits_.for_each_due(until, [&](int o) {
      if (const Link* l = output_ref_[std::size_t(o)].link) l->prefetch_credit();
    });
  }
  if (stage >= 2)
    for (const auto& ss : subswitches_)
      if (ss->has_flits() || stage == 2) ss->prefetch(now, stage - 1);
}

namespace {
// The published items of a link stage 4 asks for at most: two flits (two
// lines) and 16 credits (two or three lines). Eight flits and 32 credits
// asked for too many lines at once: the prefetches themselves then waited
// for fill buffers (docs/RESULTS.md, the seventeenth session).
constexpr std::uint32_t kPrefetchFlits = 2, kPrefetchCredits = 16;
}  // namespace

// One subswitch: flattened input (output) i is its port i, and the link of
// a due port comes from the subswitch's row (output port), which receiving
// reads anyway, rather than from input_ref_ (output_ref_): those tables
// were about 4 % of the 1-cycle fat tree's cache misses. Stage 1: the
// marks; 2: the rows and output ports of the due ones; 3: their links'
// lines; 4: their first published items; 5: the input VCs the due flits
// go to (due, as in prefetch: by the block's last cycle).
void Router::prefetch_one(Cycle now, int stage) const {
  const Subswitch& ss = *only_ss_;
  const Cycle until = prefetch_until(now);
  // The cycles this block runs: a link's items arrive a cycle apart at
  // least, so it reads at most this many of a link's flits (and, but with
  // input speedup, of its credits).
  const Cycle cycles = until - now + 1;
  // Stage 2 finds the due inputs (a test per marked input) and keeps them
  // as masks for stages 3 to 5 (with one word of marks each), which then
  // test nothing: four scans of the marks a direction were 0.8M of the
  // 1-cycle fat tree's 7.4M instructions a cycle. Marks made after stage 2
  // (a publish, a prefetch of the same cycle) only make a prefetch missed
  // or needless: the masks choose prefetches, not reads.
  const bool masks = pending_flits_.one_word() && pending_credits_.one_word();
  auto each_flit = [&](auto&& f) {
    if (!masks) return pending_flits_.for_each_due(until, f);
    for (std::uint64_t m = prefetch_due_flits_; m; m &= m - 1) f(__builtin_ctzll(m));
  };
  auto each_credit = [&](auto&& f) {
    if (!masks) return pending_credits_.for_each_due(until, f);
    for (std::uint64_t m = prefetch_due_credits_; m; m &= m - 1) f(__builtin_ctzll(m));
  };
  if (stage == 1) {
    pending_flits_.prefetch(int(input_ref_.size()));
    pending_credits_.prefetch(int(output_ref_.size()));
  } else if (stage == 2) {
    std::uint64_t flits = 0, credits = 0;
    pending_flits_.for_each_due(until, [&](int i) {
      flits |= std::uint64_t{1} << (i & 63);
      ss.prefetch_input_row(i);
    });
    pending_credits_.for_each_due(until, [&](int o) {
      credits |= std::uint64_t{1} << (o & 63);
      ss.prefetch_credit_arrival(o);
    });
    prefetch_due_flits_ = flits;
    prefetch_due_credits_ = credits;
  } else if (stage == 3) {
    each_flit([&](int i) {
      if (const Link* l = ss.input_link(i)) l->prefetch_flit_side();
    });
    each_credit([&](int o) {
      if (const Link* l = ss.output_link(o)) l->prefetch_credit_side();
    });
  } else if (stage == 4) {
    // A block of several cycles reads several items of a link (the
    // 10-cycle fat tree's routers run 20 cycles in a row), not the first
    // alone: its second flit's arrival was the next miss of a read.
    const auto flits = std::uint32_t(std::min<Cycle>(cycles, kPrefetchFlits));
    const auto credits = std::uint32_t(std::min<Cycle>(cycles, kPrefetchCredits));
    each_flit([&](int i) {
      if (const Link* l = ss.input_link(i)) l->prefetch_flits(flits);
    });
    each_credit([&](int o) {
      if (const Link* l = ss.output_link(o)) l->prefetch_credits(credits);
    });
  } else if (stage == 5) {
    // The input VCs the arrivals write: the first flit's, or with more
    // than one flit published every VC of the port and their rings'
    // headers (rather than reading each flit's VC from its slot).
    each_flit([&](int i) {
      const Link* l = ss.input_link(i);
      if (!l) return;
      if (cycles > 1 && l->published_flits() > 1 && ss.prefetch_port_arrivals(i)) return;
      if (const Flit* f = l->due_flit(until)) ss.prefetch_arrival(i, f->vc);
    });
  }
  ss.prefetch(now, stage);
}

void Router::attach_input(int port, Link* link) {
  const PortAttachment& a = org_.description.inputs.at(port);
  subswitches_[a.ss]->connect_input(a.port, link);
  link->set_receiver(this, port_base_[a.ss] + a.port);
  input_ref_[std::size_t(port_base_[a.ss] + a.port)].link = link;
}

void Router::attach_output(int port, Link* link, int downstream_depth_flits) {
  const PortAttachment& a = org_.description.outputs.at(port);
  subswitches_[a.ss]->connect_output(a.port, link, downstream_depth_flits);
  link->set_sender(this, out_base_[a.ss] + a.port);
  output_ref_[std::size_t(out_base_[a.ss] + a.port)].link = link;
}

void Router::mark_terminal_output(int port) {
  terminal_output_.resize(std::size_t(radix()), 0);
  terminal_output_.at(std::size_t(port)) = 1;
}

RouteDecision Router::route(int subswitch, int in_port, Flit& head) {
  // Global and local route are computed together at the router input; the
  // global decision travels in the head flit to the inner subswitches.
  if (to_destination_) {
    // One router (a plain router routing to the destination): what its
    // routing would do, in a function that calls none and so saves no
    // register (the route thunk's 53 instructions a route were 36 with
    // the call, and are 16 without).
    const std::int16_t out = std::int16_t(head.dst);
    const std::uint8_t hi = std::uint8_t(vcs_ - 1);
    head.router_out = out;
    head.router_vc_lo = 0;
    head.router_vc_hi = hi;
    if (__builtin_expect(!head.traced, 1)) return {out, 0, hi};
  }
  // The common case of a network: the routing's route and the decision in
  // one call (route_plain), without route_general's frame (fat tree: 36
  // instructions a route). A plain router is one of these two cases
  // (every router has a global routing): route_general has the others.
  if (plain_global_) return global_->route_plain(*this, in_port, head);
  return route_general(subswitch, in_port, head);
}

// Out of line: inlined into route() as a guess at the callee, its call
// made route() save registers for every route.
[[gnu::noinline]] RouteDecision GlobalRouting::route_plain(Router& router, int in_port, Flit& head) {
  route(router, in_port, head);
  return router.plain_decision(in_port, head);
}

// A router that is not plain (several subswitches, message classes,
// eject VCs, the heatmap): the router input of the subswitch's input, and
// the organization's internal routing. And a traced head of one router,
// whose route route() has set (a third call there made every route save
// registers).
RouteDecision Router::route_general(int subswitch, int in_port, Flit& head) {
  if (to_destination_) return route_traced(subswitch, in_port, head);
  const int base = subswitch == 0 ? 0 : port_base_[std::size_t(subswitch)];
  const int router_in = router_input_of_[std::size_t(base + in_port)];
  if (router_in >= 0) {
    global_->route(*this, router_in, head);
    if (message_classes_ > 1) narrow_to_class(head);
    if (eject_vcs_ > 0) split_eject(head);
    if (heatmap_on_) ++heatmap_[std::size_t(router_in) * radix() + head.router_out];
  }
  if (head.traced) return route_traced(subswitch, in_port, head);
  if (direct_routing_) return {head.router_out, head.router_vc_lo, head.router_vc_hi};
  return org_.routing->route(subswitch, in_port, head);
}

void Router::narrow_to_class(Flit& head) const {
  const int per = vcs_ / message_classes_, base = head.cls * per;
  const VcRange r = scale_vcs(head.router_vc_lo, head.router_vc_hi, vcs_, per);
  const int lo = base + r.lo, hi = base + r.hi;
  if (head.cls >= message_classes_ || hi < lo)
    throw std::logic_error(name() + std::string(": VCs ") + std::to_string(head.router_vc_lo) + ".." +
                           std::to_string(head.router_vc_hi) + " of the routing leave none for message class " +
                           std::to_string(head.cls) + " of " + std::to_string(message_classes_) +
                           " (router.vcs is too small for request/response)");
  head.router_vc_lo = std::uint8_t(lo);
  head.router_vc_hi = std::uint8_t(hi);
}

void Router::split_eject(Flit& head) const {
  // Within the packet's message class [base, base + per): the last
  // eject_vcs_ VCs only to packets for a terminal, the global routing's VCs
  // scaled into the others for packets to other routers (its classes keep
  // their order and stay apart). A packet for a terminal may take any VC of
  // its class: the reserved ones are held only by such packets, which leave
  // (a terminal always takes its flits), so it always gets one in the end.
  // Where the organization splits a route's VCs into internal classes, that
  // holds in the last class only: there it gets the reserved VCs alone.
  const int per = vcs_ / message_classes_, base = head.cls * per, transit = per - eject_vcs_;
  int lo, hi;
  if (std::size_t(head.router_out) < terminal_output_.size() && terminal_output_[std::size_t(head.router_out)]) {
    lo = org_.description.vc_classes > 1 ? base + transit : base;
    hi = base + per - 1;
  } else {
    const VcRange r = scale_vcs(head.router_vc_lo - base, head.router_vc_hi - base, per, transit);
    lo = base + r.lo;
    hi = base + r.hi;
  }
  if (transit < 1 || hi < lo)
    throw std::logic_error(name() + std::string(": network.eject_vcs = ") + std::to_string(eject_vcs_) +
                           " leaves no VC for VCs " + std::to_string(head.router_vc_lo) + ".." +
                           std::to_string(head.router_vc_hi) + " of the routing (check_config should have refused)");
  head.router_vc_lo = std::uint8_t(lo);
  head.router_vc_hi = std::uint8_t(hi);
}

RouteDecision Router::route_traced(int subswitch, int in_port, Flit& head) {
  const RouteDecision d = org_.routing->route(subswitch, in_port, head);
  subswitches_[subswitch]->trace_route(clock_.now(), in_port, head, d);
  return d;
}

void Router::tick(Cycle now) {
  // Arrivals first: every link takes at least a cycle, so nothing sent in
  // this cycle can arrive in it, and the order of the subswitches is free.
  // In a large network each link read is a cache miss or two (its queue
  // header, then the item): asking for every due link's next item first
  // lets the misses overlap instead of following one another.
  if (only_ss_) return tick_one(now);
  if (pending_flits_.count() + pending_credits_.count() > 1) {
    pending_flits_.for_each_due(now, [&](int i) {
      if (const Link* l = input_ref_[std::size_t(i)].link) l->prefetch_flit();
    });
    pending_credits_.for_each_due(now, [&](int o) {
      if (const Link* l = output_ref_[std::size_t(o)].link) l->prefetch_credit();
    });
  }
  pending_flits_.visit_due(now, [&](int i) {
    return subswitches_[input_ref_[i].ss]->receive_flits(int(input_ref_[i].port), now);
  });
  pending_credits_.visit_due(now, [&](int o) {
    return subswitches_[output_ref_[o].ss]->receive_credits(int(output_ref_[o].port), now);
  });
  bool busy = false;
  for (auto& ss : subswitches_) {
    if (!ss->has_flits()) continue;
    ss->step(now);
    busy = busy || ss->has_flits();
  }
  busy_ = busy;
}

// tick with one subswitch: flattened input (output) i is its port i, and
// its link is the subswitch's (prefetch_one).
void Router::tick_one(Cycle now) {
  Subswitch& ss = *only_ss_;
  if (pending_flits_.one_word() && pending_credits_.one_word()) {
    // The due inputs once, for the prefetch and the reads.
    const std::uint64_t flits = pending_flits_.due_mask(now), credits = pending_credits_.due_mask(now);
    // More than one due (without a popcount: this build's is a libgcc call).
    const bool several = ((flits & (flits - 1)) | (credits & (credits - 1))) != 0 || (flits != 0 && credits != 0);
    if (prefetch_useful() && several) {
      for (std::uint64_t m = flits; m; m &= m - 1)
        if (const Link* l = ss.input_link(__builtin_ctzll(m))) l->prefetch_flit();
      for (std::uint64_t m = credits; m; m &= m - 1)
        if (const Link* l = ss.output_link(__builtin_ctzll(m))) l->prefetch_credit();
    }
    pending_flits_.visit_due_in(flits, [&](int i) { return ss.receive_flits(i, now); });
    pending_credits_.visit_due_in(credits, [&](int o) { return ss.receive_credits(o, now); });
    if (ss.has_flits()) ss.step(now);
    busy_ = ss.has_flits();
    return;
  }
  if (pending_flits_.count() + pending_credits_.count() > 1) {
    pending_flits_.for_each_due(now, [&](int i) {
      if (const Link* l = ss.input_link(i)) l->prefetch_flit();
    });
    pending_credits_.for_each_due(now, [&](int o) {
      if (const Link* l = ss.output_link(o)) l->prefetch_credit();
    });
  }
  pending_flits_.visit_due(now, [&](int i) { return ss.receive_flits(i, now); });
  pending_credits_.visit_due(now, [&](int o) { return ss.receive_credits(o, now); });
  if (ss.has_flits()) ss.step(now);
  busy_ = ss.has_flits();
}

std::uint64_t Router::buffered_flits() const {
  std::uint64_t n = 0;
  for (auto& ss : subswitches_) n += ss->buffered_flits();
  return n;
}

std::uint64_t Router::crossbar_flits() const {
  std::uint64_t n = 0;
  for (auto& ss : subswitches_) n += ss->activity().crossbar_flits;
  return n;
}

int Router::output_credits(int port) const {
  const PortAttachment& a = org_.description.outputs.at(port);
  return subswitches_[a.ss]->output_credits(a.port);
}

void Router::enable_heatmap() {
  heatmap_.assign(std::size_t(radix()) * radix(), 0);
  heatmap_on_ = true;
  to_destination_ = plain_global_ = false;
}

RouterActivity Router::activity() const {
  RouterActivity a;
  for (auto& ss : subswitches_) a.subswitches.push_back(ss->activity());
  for (auto& l : internal_) a.channel_flits.push_back(l->flits_sent());
  return a;
}

RouterActivity& RouterActivity::operator+=(const RouterActivity& o) {
  if (subswitches.empty()) {
    *this = o;
    return *this;
  }
  for (std::size_t i = 0; i < subswitches.size() && i < o.subswitches.size(); ++i) {
    subswitches[i].buffer_writes += o.subswitches[i].buffer_writes;
    subswitches[i].buffer_reads += o.subswitches[i].buffer_reads;
    subswitches[i].crossbar_flits += o.subswitches[i].crossbar_flits;
  }
  for (std::size_t i = 0; i < channel_flits.size() && i < o.channel_flits.size(); ++i)
    channel_flits[i] += o.channel_flits[i];
  return *this;
}

RouterActivity RouterActivity::operator-(const RouterActivity& o) const {
  RouterActivity d = *this;
  for (std::size_t i = 0; i < d.subswitches.size() && i < o.subswitches.size(); ++i) {
    d.subswitches[i].buffer_writes -= o.subswitches[i].buffer_writes;
    d.subswitches[i].buffer_reads -= o.subswitches[i].buffer_reads;
    d.subswitches[i].crossbar_flits -= o.subswitches[i].crossbar_flits;
  }
  for (std::size_t i = 0; i < d.channel_flits.size() && i < o.channel_flits.size(); ++i)
    d.channel_flits[i] -= o.channel_flits[i];
  return d;
}

void Router::report_buffers(std::ostream& os) const {
  for (auto& ss : subswitches_)
    if (ss->has_flits()) ss->report_buffers(os);
}

Cycle Router::pending_until() const {
  Cycle t = 0;
  for (auto& ss : subswitches_) t = std::max(t, ss->pending_until());
  for (auto& l : internal_) t = std::max(t, l->pending_until());
  return t;
}

}  // namespace nwn

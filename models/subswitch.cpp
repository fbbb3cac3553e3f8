#include "subswitch.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nwn {

namespace {
const char* state_name(int s) {
  static const char* names[] = {"idle", "routing", "vc-alloc", "active"};
  return names[s];
}
}  // namespace

// The allocations' scratch: written and read within one allocation step of
// one subswitch, so one per thread serves every subswitch the thread runs.
// A large network does not fit in the cache, and per subswitch these lines
// were missed every cycle (about 14 of a radix-32 router's 270 a cycle in
// the 1-cycle fat tree). Between steps the counts of port_requests are
// zero; the rest holds nothing.
struct Subswitch::Scratch {
  std::vector<Request> requests;  // this cycle's VC allocation requests, in scan order
  // VC allocation by output port (va_splits_): per port its count and
  // group offset, the ports asked (in the order of their first requests;
  // the scan writes one past them), those asked by one request and those
  // asked by more, and the requests sorted by port (each port's in scan
  // order, ascending inputs): inputs, masks and grants, a group a slice.
  std::vector<PortRequests> port_requests;
  std::vector<int> ports_asking, single_ports, group_ports;
  std::vector<int> va_inputs, va_grants;
  std::vector<std::uint64_t> va_masks;
  std::vector<int> row_grant;  // per crossbar row: its grant in a group round
  // allocate_vcs_small: per output port its group of requests, valid
  // where the port's bit in va_ports is set; the ports asked (va_ports)
  // and those asked by several (va_several), zero between steps.
  std::vector<Allocator::SmallGroup> va_groups;
  std::vector<std::uint64_t> va_ports, va_several;
  // A group of at most 64 requesters handed whole to the allocator
  // (Allocator::allocate_group): the requesters, their masks, their grants.
  int group_inputs[64] = {}, group_grants[64] = {};
  std::uint64_t group_masks[64] = {};

  // Grows (never shrinks) to what a subswitch needs: done once per thread
  // and size, not per cycle.
  void fit(std::size_t requests_max, std::size_t outputs, std::size_t rows) {
    if (requests.size() < requests_max) {
      requests.resize(requests_max);
      va_inputs.resize(requests_max);
      va_grants.resize(requests_max);
      va_masks.resize(requests_max);
    }
    if (port_requests.size() < outputs) {
      port_requests.resize(outputs);  // the new counts zero, the others zero already
      ports_asking.resize(outputs + 1);
      single_ports.resize(outputs);
      group_ports.resize(outputs);
      va_groups.resize(outputs);
      va_ports.resize(std::size_t(bits::words_for(int(outputs))));  // the new words zero, the others zero already
      va_several.resize(va_ports.size());
    }
    if (row_grant.size() < rows) row_grant.resize(rows);
  }
};

Subswitch::Scratch& Subswitch::scratch() const {
  static thread_local Scratch s;
  const std::size_t outputs = std::size_t(params_.outputs);
  if (__builtin_expect(s.requests.size() < requests_max_ || s.port_requests.size() < outputs ||
                           s.row_grant.size() < rows_.size(),
                       0))
    s.fit(requests_max_, outputs, rows_.size());
  return s;
}

Subswitch::Subswitch(std::string name, int id, const SubswitchParams& p, SubswitchRouting* routing)
    : params_(p),
      routing_(routing),
      by_vcs_(p.vcs),
      id_(id),
      out_(p.outputs),
      by_speedup_(p.input_speedup),
      name_(std::move(name)) {
  if (p.inputs < 1 || p.outputs < 1) throw std::invalid_argument(name_ + ": a subswitch needs inputs and outputs");
  if (p.vcs < 1) throw std::invalid_argument(name_ + ": vcs must be >= 1");
  if (p.vc_depth_flits < 1) throw std::invalid_argument(name_ + ": vc_depth_flits must be >= 1");
  if (p.input_speedup < 1 || p.input_speedup > p.vcs)
    throw std::invalid_argument(name_ + ": input_speedup must be between 1 and the VC count");
  // Buffers grow to the depth they reach (at most vc_depth_flits, checked
  // in receive_flits), not to the bound: most of a large network's stay short.
  if (p.outputs > 32767) throw std::invalid_argument(name_ + ": outputs = " + std::to_string(p.outputs) + " (at most 32767)");
  if (p.vcs > 64) throw std::invalid_argument(name_ + ": vcs = " + std::to_string(p.vcs) + " (at most 64)");
  if (!p.router_input.empty() && int(p.router_input.size()) != p.inputs)
    throw std::invalid_argument(name_ + ": router_input needs one entry per input");
  all_router_inputs_ = std::all_of(p.router_input.begin(), p.router_input.end(), [](std::uint8_t r) { return r != 0; });
  vcs_.resize(std::size_t(p.inputs) * p.vcs);
  if (p.vc_depth_flits > 65536)  // the flits behind a VC's front fit CompactRing
    throw std::invalid_argument(name_ + ": vc_depth_flits = " + std::to_string(p.vc_depth_flits) + " (at most 65536)");
  behind_.resize(vcs_.size());
  for (int c : {p.rc_cycles, p.va_cycles, p.inner_rc_cycles, p.inner_va_cycles,
                p.policy.next_head_delay_cycles + std::max(p.rc_cycles, p.inner_rc_cycles)})
    if (c < 0 || c > kMaxStageCycles)  // InputVc::stage holds ready times within 2^15 of now
      throw std::invalid_argument(name_ + ": a pipeline stage of " + std::to_string(c) + " cycles (0 to " +
                                  std::to_string(kMaxStageCycles) + ")");
  if (p.vcs > kInlineCredits) credits_.assign(std::size_t(p.outputs) * p.vcs, 0);
  for (int o = 0; o < p.outputs; ++o)  // out_ is never resized: the inline counts stay put
    out_[o].credits = p.vcs > kInlineCredits ? &credits_[std::size_t(o) * p.vcs] : out_[o].inline_credits;
  vc_words_.resize(std::size_t(bits::words_for(p.inputs * p.vcs)));
  int columns = 1;  // crossbar outputs per port, at most
  if (!p.copy_of.empty()) {
    if (int(p.copy_of.size()) != p.inputs || p.inputs != p.outputs)
      throw std::invalid_argument(name_ + ": copy_of needs one entry per port and as many inputs as outputs");
    crossbar_ports_.resize(std::size_t(p.inputs));
    port_of_.resize(std::size_t(p.inputs));
    for (int c = 0; c < p.inputs; ++c) {
      const int port = p.copy_of[std::size_t(c)] < 0 ? c : p.copy_of[std::size_t(c)];
      if (port >= p.inputs || p.copy_of[std::size_t(port)] >= 0)
        throw std::invalid_argument(name_ + ": port " + std::to_string(c) + " copies a port that is a copy or none");
      port_of_[std::size_t(c)] = port;
    }
    for (int c = 0; c < p.inputs; ++c)
      if (port_of_[std::size_t(c)] == c) crossbar_ports_[std::size_t(c)].push_back(c);
    for (int c = 0; c < p.inputs; ++c)
      if (port_of_[std::size_t(c)] != c) crossbar_ports_[std::size_t(port_of_[std::size_t(c)])].push_back(c);
    for (const auto& ports : crossbar_ports_) columns = std::max(columns, int(ports.size()));
    if (columns > p.vcs) throw std::invalid_argument(name_ + ": more crossbar ports per port than VCs to feed them");
  }
  requests_max_ = std::size_t(p.inputs) * p.vcs * columns;
  rows_.resize(std::size_t(p.inputs) * p.input_speedup);
  sw_out_words_ = bits::words_for(p.outputs);
  row_outputs_.assign(rows_.size() * std::size_t(sw_out_words_), 0);
  asking_rows_.assign(rows_.size(), 0);
  plain_switch_ = !p.policy.hold_switch_for_packet && p.copy_of.empty() && p.input_speedup == 1 && p.inputs <= 64 &&
                  p.outputs <= 64;
  vc_bytes_ = plain_switch_ && p.vcs <= 8;
  if (p.policy.hold_switch_for_packet) {
    row_hold_vc_.assign(rows_.size(), -1);
    out_held_by_.assign(std::size_t(p.outputs), -1);
    held_sends_.reserve(row_hold_vc_.size());
  }
  const AllocatorParams vc{p.inputs * p.vcs, p.outputs * p.vcs, p.policy.allocator_iterations};
  const AllocatorParams sw{p.inputs * p.input_speedup, p.outputs, p.policy.allocator_iterations};
  if (p.rtl_allocators) {
    RtlOptions vc_options = p.rtl_switch_options;
    vc_options.trace_path.clear();
    vc_alloc_ = make_rtl_allocator(p.policy.vc_allocator, vc, vc_options);
    sw_alloc_ = make_rtl_allocator(p.policy.switch_allocator, sw, p.rtl_switch_options);
  } else {
    vc_alloc_ = make_allocator(p.policy.vc_allocator, vc);
    sw_alloc_ = make_allocator(p.policy.switch_allocator, sw);
  }
  va_splits_ = vc_alloc_->splits_by_disjoint_outputs();
  va_small_ = va_splits_ && p.vcs <= 8;
  va_small_fixed_ = va_small_ && p.inputs <= 64 && p.outputs <= 64;
}

void Subswitch::connect_input(int port, Link* link) {
  if (port < 0 || port >= params_.inputs) throw std::out_of_range(name_ + ": no input " + std::to_string(port));
  const int S = params_.input_speedup;
  const auto attach = [&](int c) {  // every row of port c
    for (int k = 0; k < S; ++k) {
      rows_[std::size_t(c * S + k)].link = link;
      rows_[std::size_t(c * S + k)].serialization_cycles = link->params().serialization_cycles;
    }
  };
  attach(port);
  int rows = S;
  if (!crossbar_ports_.empty()) {  // the copies return their credits on the port's link
    for (int c : crossbar_ports_.at(port)) attach(c);
    rows *= int(crossbar_ports_[port].size());
  }
  link->reserve_credits(params_.vcs * params_.vc_depth_flits, rows);
}

void Subswitch::connect_output(int port, Link* link, int downstream_depth_flits) {
  OutputPort& o = out_.at(port);
  o.link = link;
  outputs_serialize_ = outputs_serialize_ || link->params().serialization_cycles > 1;
  o.track_credits = downstream_depth_flits > 0;
  std::fill(o.credits, o.credits + params_.vcs, o.track_credits ? downstream_depth_flits : 0);
  o.credit_vcs = params_.vcs == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << params_.vcs) - 1;
  o.vc_owned = 0;
  int queued = 0;  // flits that may wait for the link behind the one it sends
  if (!crossbar_ports_.empty()) {
    for (int c : crossbar_ports_.at(port)) {
      if (c == port) continue;
      out_[c].link = link;
      out_[c].credits = o.credits;  // one channel, one set of downstream credits
      out_[c].track_credits = o.track_credits;
      // Not credit_vcs: a copy would go stale. Allocation and traverse read
      // the credit mask through the port (a VC's out_port is never a copy).
    }
    queued = int(crossbar_ports_[port].size()) - 1;
  }
  link->reserve_flits(params_.sa_cycles + params_.st_cycles + queued * link->params().serialization_cycles);
}

int Subswitch::output_room(int port, Cycle now) const {
  return int(crossbar_ports_[std::size_t(port)].size()) - out_[port].link->queued_flits(now);
}

int Subswitch::output_credits(int port) const {
  const OutputPort& o = out_.at(port);
  if (!o.track_credits) return 1 << 20;
  int n = 0;
  for (int vc = 0; vc < params_.vcs; ++vc) n += o.credits[vc];
  return n;
}

void Subswitch::cycle(Cycle now) {
  const auto own = [&](int p) { return port_of_.empty() || port_of_[std::size_t(p)] == p; };  // not a copy
  for (int p = 0; p < params_.inputs; ++p)
    if (port_link(p) && own(p)) receive_flits(p, now);
  for (int p = 0; p < params_.outputs; ++p)
    if (out_[p].link && own(p)) receive_credits(p, now);
  step(now);
}

void Subswitch::step(Cycle now) {
  last_step_ = now;
  if (buffered_flits_ == 0) return;
  // Before this step's grants: every wait cleared here ended in an earlier
  // cycle's step, so the test below goes the same way for nearly all.
  end_sa_waits(now);
  route_and_allocate_vcs(now);
  allocate_switch(now);
}

// Clears the sa_wait bits of the VCs ready by `now`: afterwards a bit is
// set exactly for the Active VCs with ready > now (steps skipped while the
// subswitch held no flits only delay the clearing). The Routing VCs' bits
// are the route test's (VcWords::sa_wait).
void Subswitch::end_sa_waits(Cycle now) {
  if (sa_wait_until_ <= now) {  // all of them (with a VC allocation latency of one cycle, every step)
    if (sa_wait_until_ > 0)
      for (VcWords& w : vc_words_) w.sa_wait &= w.routing;
    sa_wait_until_ = 0;
    return;
  }
  Cycle until = 0;
  for (std::size_t w = 0; w < vc_words_.size(); ++w) {
    std::uint64_t done = 0;
    for (std::uint64_t word = vc_words_[w].sa_wait & ~vc_words_[w].routing; word; word &= word - 1) {
      const int b = __builtin_ctzll(word);
      const Cycle ready = ready_at(vcs_[w * 64 + std::size_t(b)].stage, now);
      done |= std::uint64_t{ready <= now} << b;
      until = std::max(until, ready);
    }
    vc_words_[w].sa_wait &= ~done;
  }
  sa_wait_until_ = until;
}

// (During a step, after its route test: the next test is the next step's.)
// v is a VC whose tail has just left; words and bit, its bit set and bit.
inline void Subswitch::start_packet_if_any(InputVc& v, VcWords& words, std::uint64_t bit, Cycle ready, Cycle now) {
  if (!v.has_front) {
    v.state = VcState::Idle;
    return;
  }
  v.state = VcState::Routing;
  v.stage = ready_bits(ready);
  words.routing |= bit;
  words.sa_wait |= bit & (std::uint64_t{0} - std::uint64_t{ready > now + 1});
}

void Subswitch::invalid_route() const {
  throw std::logic_error(name_ + ": routing returned an invalid port or VC range");
}

void Subswitch::body_at_idle_front() const {
  throw std::logic_error(name_ + ": body flit at the front of an idle VC");
}

void Subswitch::bad_vc(int vc) const {
  throw std::logic_error(name_ + ": flit arrived on invalid VC " + std::to_string(vc));
}

void Subswitch::no_vc_asking(int row) const {
  throw std::logic_error(name_ + ": switch grant to crossbar row " + std::to_string(row) + " with no VC asking for it");
}

void Subswitch::overflow(int p, int vc) const {
  throw std::logic_error(name_ + ": buffer overflow on input " + std::to_string(p) + " VC " + std::to_string(vc) +
                         " (credit protocol violated)");
}

// The route of Routing VC `idx`, whose route computation ends now: on to VcAlloc.
inline void Subswitch::route_vc(int idx) {
  const int V = params_.vcs;
  InputVc& v = vcs_[std::size_t(idx)];
  RouteDecision r = routing_->route(id_, by_vcs_.quot(idx), v.front);
  // One branch: a negative vc_lo with a valid vc_hi is a large unsigned above it.
  if ((unsigned(r.out_port) >= unsigned(params_.outputs)) | (unsigned(r.vc_hi) >= unsigned(V)) |
      (unsigned(r.vc_lo) > unsigned(r.vc_hi)))
    invalid_route();
  // VC allocation reads the output port next, in this step: no prefetch
  // stage could know it, so ask for it now, before the other routes.
  prefetch_write(&out_[std::size_t(r.out_port)]);
  v.out_port = std::int16_t(r.out_port);
  v.stage = std::uint16_t(r.vc_lo | r.vc_hi << 8);
  v.state = VcState::VcAlloc;
}

void Subswitch::route_and_allocate_vcs(Cycle now) {
  const int V = params_.vcs;
  // Route computation first, in VC order (a routing may draw random
  // numbers): the Routing VCs whose time has come, found without a branch.
  // The VCs whose sa_wait bit says their time has not come are skipped (and their bits cleared).
  for (std::size_t w = 0; w < vc_words_.size(); ++w) {
    std::uint64_t due = 0;
    const std::uint64_t routing = vc_words_[w].routing;
    for (std::uint64_t word = routing & ~vc_words_[w].sa_wait; word; word &= word - 1) {
      const int b = __builtin_ctzll(word);
      due |= std::uint64_t{stage_due(vcs_[w * 64 + std::size_t(b)].stage, now)} << b;
    }
    vc_words_[w].sa_wait &= ~routing;
    vc_words_[w].routing = routing & ~due;
    for (; due; due &= due - 1) route_vc(int(w * 64) + __builtin_ctzll(due));
  }
  if (va_small_ && !tracer_ && allocate_vcs_small(now)) return;
  Scratch& s = scratch();
  int n = 0;  // requests of this cycle: input VC, its output port, and the VCs of the port it may take
  int ports = 0;  // ports asked (ports_asking)
  for_each_vc_allocation_vc([&](int idx, const InputVc& v) {
    const std::uint64_t mask = va_mask(v);
    if (!mask) return;
    // Counted by port, the ports in the order of their first requests:
    // without a branch (whether a port was asked already is random).
    PortRequests& pr = s.port_requests[std::size_t(v.out_port)];
    s.ports_asking[std::size_t(ports)] = v.out_port;
    ports += pr.count == 0;
    ++pr.count;
    s.requests[std::size_t(n++)] = Request{idx, v.out_port, mask};
  });
  if (n == 0) return;
  if (va_splits_) {
    // An input VC asks for VCs of one output port only, so the requests of
    // different ports never meet: each port's is an allocation of its own,
    // and a port asked by one input VC (the usual case) needs no matrix.
    allocate_vc_ports(n, ports, now);
  } else {
    // The counts are the split allocation's: zero again for the next
    // subswitch of this thread.
    for (int j = 0; j < ports; ++j) s.port_requests[std::size_t(s.ports_asking[std::size_t(j)])].count = 0;
    if (n == 1) {  // one requester: the allocator's answer without the matrix
      const Request& r = s.requests[0];
      const int g = vc_alloc_->allocate_one(r.input, r.port * V, r.mask);
      if (g >= 0) grant_vc(r.input, g, now);
    } else {
      vc_alloc_->clear();
      for (int i = 0; i < n; ++i) request_vcs(s.requests[i].input, s.requests[i].port * V, s.requests[i].mask);
      grant_vc_round(now);
    }
  }
  if (tracer_) trace_vc_grants(now, n);
}

// The VCs VcAlloc VC v may take: the free VCs of [vc_lo, vc_hi] of its
// output port with credits for what the packet needs (bits from 0).
template <bool kCredit>
inline std::uint64_t Subswitch::va_mask_in(const InputVc& v, const OutputPort& o) const {
  std::uint64_t mask = (~std::uint64_t{0} >> (63 - v.vc_hi())) & (~std::uint64_t{0} << v.vc_lo()) & ~o.vc_owned;
  if (kCredit) {
    mask &= o.credit_vcs;  // need >= 1
    const int need = params_.policy.wormhole ? 1 : v.front.packet_flits;
    if (need > 1 && o.track_credits)
      for (std::uint64_t m = mask; m; m &= m - 1)
        if (o.credits[__builtin_ctzll(m)] < need) mask &= ~(m & -m);
  }
  return mask;
}

inline std::uint64_t Subswitch::va_mask(const InputVc& v) const {
  const OutputPort& o = out_[v.out_port];
  return params_.policy.va_requires_credit ? va_mask_in<true>(v, o) : va_mask_in<false>(v, o);
}

namespace {
// allocate_vcs_small's scratch for a subswitch of at most 64 inputs and
// outputs (so at most 512 requests of up to 8 VCs each): a plain
// thread_local of fixed size, as PlainSwitchScratch, read without
// scratch()'s call and size tests (about 43 instructions a step in the
// 10-cycle fat tree of 4,096 nodes). The port words zero between steps.
struct SmallVcScratch {
  Allocator::SmallGroup groups[64];
  std::uint64_t ports, several;
  int inputs[512], grants[512];
};
thread_local SmallVcScratch small_vc_scratch;
}  // namespace

// The VC allocation of a step with at most 8 VCs (va_small_): the requests
// go straight into their port's group as the scan finds them (no list to
// sort by port), the columns of the groups of several are built after it,
// and the allocator answers all the ports in one call
// (Allocator::allocate_ports). Returns false, having granted nothing, when
// a port has more than 8 requests: the general code then allocates the step.
bool Subswitch::allocate_vcs_small(Cycle now) {
  const int V = params_.vcs;
  std::uint64_t *ports, *several;
  Allocator::SmallGroup* groups;
  int *va_inputs, *va_grants;
  if (va_small_fixed_) {
    SmallVcScratch& f = small_vc_scratch;
    ports = &f.ports;
    several = &f.several;
    groups = f.groups;
    va_inputs = f.inputs;
    va_grants = f.grants;
  } else {
    Scratch& s = scratch();
    ports = s.va_ports.data();
    several = s.va_several.data();
    groups = s.va_groups.data();
    va_inputs = s.va_inputs.data();
    va_grants = s.va_grants.data();
  }
  // The arrays in locals: the scan's stores (bytes among them) may alias
  // any member, and through the members the compiler read every vector's
  // start again after each store (about 11 instructions a request).
  const InputVc* const vcs = vcs_.data();
  const OutputPort* const outs = out_.data();
  const VcWords* const vc_words = vc_words_.data();
  const std::size_t nwords = vc_words_.size();
  unsigned overfull = 0;  // some port's ninth request (bit 3 of its place)
  // The scan, with va_mask's credit test decided once a step (a setting
  // of the run), not per request. With at most 64 outputs (one_word) the
  // ports asked and those asked by several are two locals, not words in
  // memory to index (about 6 instructions a request fewer).
  std::uint64_t ports1 = 0, several1 = 0;
  const auto scan = [&](auto requires_credit, auto one_word) {
    for (std::size_t w = 0; w < nwords; ++w)
      for (std::uint64_t word = vc_words[w].occupied & ~(vc_words[w].active | vc_words[w].routing); word;
           word &= word - 1) {
        const int idx = int(w * 64) + __builtin_ctzll(word);
        const InputVc& v = vcs[std::size_t(idx)];
        const std::uint64_t mask = va_mask_in<decltype(requires_credit)::value>(v, outs[std::size_t(v.out_port)]);
        if (!mask) continue;
        // Into the port's group, a new one at its first request: without a
        // branch (whether a port was asked already is random), by masks
        // (with selects, the compiler made two paths of the rest).
        const int port = v.out_port;
        const std::uint64_t bit = std::uint64_t{1} << (port & 63);
        std::uint64_t& asked_word = decltype(one_word)::value ? ports1 : ports[port >> 6];
        const std::uint64_t asked = std::uint64_t{0} - (asked_word >> (port & 63) & 1);  // all ones: not the first
        asked_word |= bit;
        Allocator::SmallGroup& g = groups[std::size_t(port)];
        const int place = g.count & int(asked);
        overfull |= unsigned(place);
        g.count = place + 1;
        (decltype(one_word)::value ? several1 : several[port >> 6]) |= bit & asked;
        g.inputs[place & 7] = idx;
        g.masks[place & 7] = mask;
      }
  };
  if (va_small_fixed_) {
    if (params_.policy.va_requires_credit) scan(std::true_type{}, std::true_type{});
    else scan(std::false_type{}, std::true_type{});
    *ports = ports1;
    *several = several1;
  } else {
    if (params_.policy.va_requires_credit) scan(std::true_type{}, std::false_type{});
    else scan(std::false_type{}, std::false_type{});
  }
  const int words = bits::words_for(params_.outputs);
  int k = 0;
  if (!(overfull & 8)) {
    // The columns of the ports asked by several (allocate_ports reads no
    // lone requester's): built here, from the masks, and not per request
    // in the scan, where most requests are a port's only one (about 13
    // instructions a request in the 10-cycle fat tree of 4,096 nodes).
    for (int w = 0; w < words; ++w)
      for (std::uint64_t t = several[w]; t; t &= t - 1) {
        Allocator::SmallGroup& g = groups[w * 64 + __builtin_ctzll(t)];
        // The mask's bit b to bit 0 of byte b (bits 0-6 by a multiply whose
        // eight shifted copies do not overlap, bit 7 apart), at the place.
        const auto spread = [](std::uint64_t mask) {
          return ((mask & 0x7f) * 0x0002040810204081ULL & 0x0101010101010101ULL) | (mask >> 7) << 56;
        };
        // Places 0 and 1 (a group of several has both) without the loop,
        // whose exit then mispredicts only past the usual two.
        std::uint64_t cols = spread(g.masks[0]) | spread(g.masks[1]) << 1;
        for (int r = 2; r < g.count; ++r) cols |= spread(g.masks[r]) << r;
        g.cols = cols;
      }
    k = vc_alloc_->allocate_ports(words, ports, several, groups, V, va_inputs, va_grants);
  }
  // (One word without the loop: the compiler made it two calls of memset.)
  if (words == 1) ports[0] = several[0] = 0;
  else for (int w = 0; w < words; ++w) ports[w] = several[w] = 0;
  if (overfull & 8) return false;
  if (k == 0) return true;
  // grant_vc with the latency read once (the usual case: every input a
  // router input, a VC allocation latency of at least a cycle).
  if (!all_router_inputs_ || params_.va_cycles < 1) {
    for (int i = 0; i < k; ++i) grant_vc(va_inputs[i], va_grants[i], now);
    return true;
  }
  const Cycle ready = now + params_.va_cycles;
  const std::uint16_t ready16 = ready_bits(ready);
  // In locals, as the scan's: each grant stores bytes.
  const int* const inputs = va_inputs;
  const int* const grants = va_grants;
  InputVc* const vcs_w = vcs_.data();
  OutputPort* const outs_w = out_.data();
  VcWords* const words_w = vc_words_.data();
  for (int i = 0; i < k; ++i) {
    const int req = inputs[i];
    InputVc& v = vcs_w[std::size_t(req)];
    const int port = v.out_port;
    const int out_vc = grants[i] - port * V;
    v.out_vc = std::int8_t(out_vc);
    outs_w[std::size_t(port)].vc_owned |= std::uint64_t{1} << out_vc;
    v.state = VcState::Active;
    v.stage = ready16;
    VcWords& vw = words_w[std::size_t(req >> 6)];
    vw.active |= bit_of(req);
    vw.sa_wait |= bit_of(req);
  }
  sa_wait_until_ = std::max(sa_wait_until_, ready);
  return true;
}

// Input VC `req` takes output VC `g` (numbered port x vcs + vc).
inline void Subswitch::grant_vc(int req, int g, Cycle now) {
  InputVc& v = vcs_[std::size_t(req)];
  // g is numbered from the VC's own output port (ports below 2^15, VCs at most 64).
  const int out_vc = g - v.out_port * params_.vcs;
  v.out_vc = std::int8_t(out_vc);
  out_[v.out_port].vc_owned |= std::uint64_t{1} << out_vc;
  v.state = VcState::Active;
  // The latency without dividing req (the usual case: every input a router input).
  const int va = all_router_inputs_ ? params_.va_cycles : va_cycles(by_vcs_.quot(req));
  const Cycle ready = now + Cycle(va);
  v.stage = ready_bits(ready);
  words_of(req).active |= bit_of(req);
  if (ready > now) {
    words_of(req).sa_wait |= bit_of(req);
    sa_wait_until_ = std::max(sa_wait_until_, ready);
  }
}

// A round through the allocator's matrix: input VC `input` asks for the
// output VCs base + b of the bits b of `mask` (after clear()); then
// grant_vc_round allocates and grants.
void Subswitch::request_vcs(int input, int base, std::uint64_t mask) {
  for (std::uint64_t m = mask; m; m &= m - 1) vc_alloc_->request(input, base + __builtin_ctzll(m));
}

void Subswitch::grant_vc_round(Cycle now) {
  vc_alloc_->allocate();
  for (int req : vc_alloc_->active_inputs()) {
    const int g = vc_alloc_->grant_of_input(req);
    if (g >= 0) grant_vc(req, g, now);
  }
}

// The VC allocation of this cycle's n requests, port by port (va_splits_):
// each port's an allocation of its own, in any order. The ports asked by
// one request and by more go to two lists (without a branch: which a port
// is, is random), and the requests are sorted by port into slices (a
// counting sort, stable: each slice in scan order, its inputs ascending),
// so that neither the grouping nor the allocations test per port which
// kind it is.
void Subswitch::allocate_vc_ports(int n, int ports, Cycle now) {
  const int V = params_.vcs;
  Scratch& s = scratch();
  int singles = 0, groups = 0, offset = 0;
  for (int j = 0; j < ports; ++j) {
    const int port = s.ports_asking[std::size_t(j)];
    PortRequests& pr = s.port_requests[std::size_t(port)];
    pr.offset = offset;
    offset += pr.count;
    s.single_ports[std::size_t(singles)] = port;
    s.group_ports[std::size_t(groups)] = port;
    singles += pr.count == 1;
    groups += pr.count != 1;
  }
  for (int i = 0; i < n; ++i) {  // after this, a port's offset is the end of its slice
    const Request& r = s.requests[std::size_t(i)];
    const int at = s.port_requests[std::size_t(r.port)].offset++;
    s.va_inputs[std::size_t(at)] = r.input;
    s.va_masks[std::size_t(at)] = r.mask;
  }
  for (int j = 0; j < singles; ++j) {
    const int port = s.single_ports[std::size_t(j)];
    PortRequests& pr = s.port_requests[std::size_t(port)];
    pr.count = 0;
    const int at = pr.offset - 1;
    const int g = vc_alloc_->allocate_one(s.va_inputs[std::size_t(at)], port * V, s.va_masks[std::size_t(at)]);
    if (g >= 0) grant_vc(s.va_inputs[std::size_t(at)], g, now);
  }
  for (int j = 0; j < groups; ++j) {
    const int port = s.group_ports[std::size_t(j)];
    PortRequests& pr = s.port_requests[std::size_t(port)];
    const int count = pr.count, first = pr.offset - count;
    pr.count = 0;
    const int* inputs = &s.va_inputs[std::size_t(first)];
    if (count <= 64) {  // a group (its inputs ascending)
      int* grants = &s.va_grants[std::size_t(first)];
      // The granted places as a mask: no test per requester (granted or not is random).
      for (std::uint64_t g = vc_alloc_->allocate_group(count, inputs, &s.va_masks[std::size_t(first)], port * V, grants);
           g; g &= g - 1) {
        const int i = __builtin_ctzll(g);
        grant_vc(inputs[i], grants[i], now);
      }
      continue;
    }
    vc_alloc_->clear();
    for (int i = 0; i < count; ++i) request_vcs(inputs[i], port * V, s.va_masks[std::size_t(first + i)]);
    grant_vc_round(now);
  }
}

namespace {
// allocate_switch_plain's scratch, one per thread as Subswitch::Scratch,
// of fixed size (at most 64 rows and outputs): a plain thread_local, read
// without a call and a size test a step (scratch() cost about 43
// instructions a step). Per output, the rows asking for it (set for the
// outputs asked only); per row, its grant.
struct alignas(64) PlainSwitchScratch {
  std::uint64_t cols[64];
  int grants[64];
};
thread_local PlainSwitchScratch plain_switch_scratch;
}  // namespace

// The common switch (no held connections, no port copies, no input
// speedup, at most 64 inputs and outputs): allocate_switch with the
// allocator's columns (the rows asking for each output) built in the scan,
// so neither side builds and clears per-row masks, and the sends in
// ascending rows (the scan's order). The same requests, grants and sends as
// the general code.
template <bool kVcBytes, bool kAllRouterInputs>
void Subswitch::allocate_switch_plain(Cycle now) {
  std::uint64_t rows = 0, outputs = 0;  // asking rows, outputs asked for
  PlainSwitchScratch& s = plain_switch_scratch;
  std::uint64_t* const cols = s.cols;
  // The arrays and parameters in locals, read once: through the members
  // the compiler read them again after each store that may alias them.
  // With every input a router input, head_ready holds the route
  // computation too (added once a step, not per send: about 2
  // instructions a send in the 10-cycle fat tree of 4,096 nodes).
  const PlainSend send{rows_.data(), vcs_.data(), out_.data(), vc_words_.data(), params_.vcs,
                       params_.sa_cycles + params_.st_cycles,
                       now + params_.policy.next_head_delay_cycles + (kAllRouterInputs ? params_.rc_cycles : 0), now};
  const bool outputs_serialize = outputs_serialize_;
  for_each_switch_ready_vc([&](int idx) {
    const InputVc& v = send.vcs[idx];
    const int p = by_vcs_.quot(idx);
    Row& r = send.rows[p];
    if (r.busy_until > now) return;
    const int out = v.out_port;
    const OutputPort& o = send.outs[out];
    // The output's link line only when a send can keep it busy past this
    // cycle (outputs_serialize_): a VC that does not send is spared it.
    if (!(o.credit_vcs >> v.out_vc & 1) || (outputs_serialize && !o.link->can_send(now))) return;
    const std::uint64_t row_bit = std::uint64_t{1} << p, out_bit = std::uint64_t{1} << out;
    rows |= row_bit;
    const int k = idx - p * send.vcs_per_port;
    r.vcs_asking |= kVcBytes ? std::uint64_t(out + 1) << (8 * k) : std::uint64_t{1} << k;
    cols[out] |= row_bit;  // zero between steps
    outputs |= out_bit;
  });
  if (!rows) return;
  int* const grants = s.grants;
  std::uint64_t granted;
  {
    // The columns asked zero again once allocated (also if the allocator
    // throws: the next subswitch of the thread reads them): a store an
    // output, where starting each column afresh at its first request (a
    // mask) took about 8 more instructions a request. (Starting a row's
    // requests afresh the same way, instead of the loop clearing those of
    // the rows not granted below, cost more instructions than that loop's
    // mispredicted exits.)
    // With at most 32 outputs (the fat tree's radix-32 routers), the 32
    // columns zero in 16 stores without a branch: the loop over the
    // outputs asked took about 60 instructions a step (of 3,000) in the
    // 10-cycle fat tree of 4,096 nodes, its exit mispredicted.
    const struct ClearColumns {
      std::uint64_t* cols;
      std::uint64_t outputs;
      bool upto32;
      ~ClearColumns() {
        if (upto32) {
#if defined(__SSE2__)
          // (Stores of 16 bytes by hand: the compiler made a loop of them a call of memset.)
#pragma GCC unroll 16
          for (int i = 0; i < 32; i += 2) _mm_store_si128(reinterpret_cast<__m128i*>(cols + i), _mm_setzero_si128());
#else
          for (int i = 0; i < 32; ++i) cols[i] = 0;
#endif
          return;
        }
        for (std::uint64_t t = outputs; t; t &= t - 1) cols[__builtin_ctzll(t)] = 0;
      }
    } clear{cols, outputs, params_.outputs <= 32};
    if (!(rows & (rows - 1))) {  // one row: as allocate_switch_rows, its outputs from its lowest
      const int row = __builtin_ctzll(rows), lo = __builtin_ctzll(outputs);
      grants[row] = sw_alloc_->allocate_one(row, lo, outputs >> lo);
      granted = std::uint64_t{grants[row] >= 0} << row;
    } else {
      granted = sw_alloc_->allocate_columns(rows, outputs, cols, grants);
    }
  }
  // The requests of the rows not granted are spent (a send spends its row's).
  for (std::uint64_t left = rows & ~granted; left; left &= left - 1)
    send.rows[__builtin_ctzll(left)].vcs_asking = 0;
  // The sends in ascending rows, as the scan; the granted rows come as a
  // mask, so no branch asks which rows were granted. The flits are counted
  // once, after them.
  std::uint64_t sends = 0;
  for (; granted; granted &= granted - 1, ++sends) {
    const int row = __builtin_ctzll(granted);
    send_from_row_plain<kVcBytes, kAllRouterInputs>(send, row, grants[row]);
  }
  buffered_flits_ -= sends;
  activity_.buffer_reads += sends;
  activity_.crossbar_flits += sends;
}

void Subswitch::allocate_switch(Cycle now) {
  if (plain_switch_) {
    if (all_router_inputs_)
      return vc_bytes_ ? allocate_switch_plain<true, true>(now) : allocate_switch_plain<false, true>(now);
    return vc_bytes_ ? allocate_switch_plain<true, false>(now) : allocate_switch_plain<false, false>(now);
  }
  const int V = params_.vcs;
  const int S = params_.input_speedup;
  int rows = 0;  // crossbar rows asking this cycle (asking_rows_)
  bool ascending = true;  // asking_rows_ in ascending order (always without input speedup)
  const bool hold = params_.policy.hold_switch_for_packet;
  held_sends_.clear();
  for_each_switch_ready_vc([&](int idx) {
    const int p = by_vcs_.quot(idx), vc = idx - p * V;
    InputVc& v = vcs_[idx];
    const int row = p * S + by_speedup_.rem(vc);
    if (rows_[std::size_t(row)].busy_until > now) return;
    const OutputPort& o = out_[v.out_port];
    const bool held = hold && row_hold_vc_[row] == vc;
    if (hold && !held && (row_hold_vc_[row] >= 0 || out_held_by_[v.out_port] >= 0)) return;
    // Crossbar outputs the output's link can take now: 1 without copies
    // (the link is free), else as many as its queue has room for.
    const int room = crossbar_ports_.empty() ? int(o.link->can_send(now)) : output_room(v.out_port, now);
    if (!(o.credit_vcs >> v.out_vc & 1) || room <= 0) {
      if (held) held_sends_.push_back(~idx);  // released after the scan: back to switch allocation, as BookSim
      return;
    }
    if (held) {  // the connection is the packet's: no allocation
      held_sends_.push_back(idx);
      return;
    }
    if (!rows_[std::size_t(row)].vcs_asking) {
      ascending = ascending && (rows == 0 || row > asking_rows_[std::size_t(rows - 1)]);
      asking_rows_[std::size_t(rows++)] = row;
    }
    rows_[std::size_t(row)].vcs_asking |= std::uint64_t{1} << by_speedup_.quot(vc);
    std::uint64_t* outputs = &row_outputs_[std::size_t(row) * sw_out_words_];
    bits::set(outputs, v.out_port);
    for (int k = 1; k < room; ++k) bits::set(outputs, crossbar_ports_[std::size_t(v.out_port)][std::size_t(k)]);
  });
  for (int idx : held_sends_) {
    if (idx < 0) {
      release_hold(~idx / V * S + ~idx % V % S, vcs_[~idx].out_port);
      continue;
    }
    const int p = idx / V;
    traverse(p, idx % V, now);
    Row& held_row = rows_[std::size_t(p * S + idx % V % S)];
    held_row.busy_until = now + Cycle(held_row.serialization_cycles);
  }
  if (rows == 0) return;
  allocate_switch_rows(rows, ascending, now);
  for (int i = 0; i < rows; ++i) {  // the requests are spent
    const int row = asking_rows_[std::size_t(i)];
    rows_[std::size_t(row)].vcs_asking = 0;
    bits::clear(&row_outputs_[std::size_t(row) * sw_out_words_], sw_out_words_);
  }
}

// The allocation of this cycle's `rows` asking crossbar rows, and their sends.
void Subswitch::allocate_switch_rows(int rows, bool ascending, Cycle now) {
  const int W = sw_out_words_;
  Scratch& s = scratch();
  if (rows == 1) {  // one asking row: its outputs within 64 of each other go without the matrix
    const int row = asking_rows_[0];
    const std::uint64_t* outputs = &row_outputs_[std::size_t(row) * W];
    int lo = -1, hi = -1;
    for (int w = 0; w < W; ++w) {
      if (!outputs[w]) continue;
      if (lo < 0) lo = w * 64 + __builtin_ctzll(outputs[w]);
      hi = w * 64 + 63 - __builtin_clzll(outputs[w]);
    }
    if (hi - lo < 64) {
      const int shift = lo & 63, w = lo >> 6;
      std::uint64_t mask = outputs[w] >> shift;
      if (shift && w + 1 < W) mask |= outputs[w + 1] << (64 - shift);
      const int out = sw_alloc_->allocate_one(row, lo, mask);
      if (out >= 0) send_from_row(row, out, now);
      return;
    }
  }
  if (W == 1 && rows <= 64) {  // one word of outputs a row: the rows as one group, ascending
    const int n = rows;
    if (ascending) {  // the scan order is the group's: grants straight to sends
      const int* inputs = asking_rows_.data();
      for (int i = 0; i < n; ++i) s.group_masks[std::size_t(i)] = row_outputs_[std::size_t(inputs[i])];
      sw_alloc_->allocate_group(n, inputs, s.group_masks, 0, s.group_grants);
      for (int i = 0; i < n; ++i)
        if (s.group_grants[std::size_t(i)] >= 0) send_from_row(inputs[i], s.group_grants[std::size_t(i)], now);
      return;
    }
    for (int i = 0; i < n; ++i) s.group_inputs[std::size_t(i)] = asking_rows_[std::size_t(i)];
    std::sort(s.group_inputs, s.group_inputs + n);
    for (int i = 0; i < n; ++i) s.group_masks[std::size_t(i)] = row_outputs_[std::size_t(s.group_inputs[std::size_t(i)])];
    sw_alloc_->allocate_group(n, s.group_inputs, s.group_masks, 0, s.group_grants);
    for (int i = 0; i < n; ++i) s.row_grant[std::size_t(s.group_inputs[std::size_t(i)])] = s.group_grants[std::size_t(i)];
    for (int i = 0; i < rows; ++i) {  // sends in scan order, as the matrix's active inputs
      const int row = asking_rows_[std::size_t(i)];
      if (s.row_grant[std::size_t(row)] >= 0) send_from_row(row, s.row_grant[std::size_t(row)], now);
    }
    return;
  }
  sw_alloc_->clear();
  for (int i = 0; i < rows; ++i) {
    const int row = asking_rows_[std::size_t(i)];
    const std::uint64_t* outputs = &row_outputs_[std::size_t(row) * W];
    for (int w = 0; w < W; ++w)
      for (std::uint64_t m = outputs[w]; m; m &= m - 1) sw_alloc_->request(row, w * 64 + __builtin_ctzll(m));
  }
  sw_alloc_->allocate();
  for (int row : sw_alloc_->active_inputs()) {
    const int out = sw_alloc_->grant_of_input(row);
    if (out >= 0) send_from_row(row, out, now);
  }
}

// Sends from crossbar `row`, granted crossbar output `column`, one of the
// row's VCs that asked for the column's port: round-robin from the row's
// pointer. The VCs that asked passed every check this cycle, and nothing
// since has changed them (each output is granted once).
void Subswitch::send_from_row(int row, int column, Cycle now) {
  const int V = params_.vcs;
  const int S = params_.input_speedup;
  const int out = port_of_.empty() ? column : port_of_[std::size_t(column)];
  const int p = by_speedup_.quot(row);
  const int first = row - p * S;
  const int nrow_vcs = by_speedup_.quot(V - first + S - 1);
  Row& r = rows_[std::size_t(row)];
  const std::uint64_t asking = r.vcs_asking;
  std::uint64_t candidates = asking & (asking - 1) ? 0 : asking;  // one VC asked: it asked for the grant
  for (std::uint64_t m = candidates ? 0 : asking; m; m &= m - 1) {
    const int k = __builtin_ctzll(m);
    if (vc_at(p, first + k * S).out_port == out) candidates |= std::uint64_t{1} << k;
  }
  int& ptr = r.vc_pointer;
  if (!candidates) no_vc_asking(row);
  const int k = bits::first_cyclic(candidates, ptr);
  traverse(p, first + k * S, now);
  r.busy_until = now + Cycle(r.serialization_cycles);
  ptr = k + 1 == nrow_vcs ? 0 : k + 1;
}

inline void Subswitch::depart(InputVc& v, int idx, VcWords& words, std::uint64_t bit, int vc, Link* in_link,
                              OutputPort& o, bool queue, int extra_cycles, Cycle head_ready, Cycle now) {
  Flit& f = v.front;  // sent from its slot, then popped
  // Without a branch: whether more flits wait is as good as random.
  words.occupied &= ~(bit & (std::uint64_t{0} - std::uint64_t{!v.behind}));
  in_link->send_credit(vc, now);
  const int out_vc = v.out_vc;
  f.vc = std::int16_t(out_vc);
  ++f.hops;
  if (o.track_credits && --o.credits[out_vc] == 0) o.credit_vcs &= ~(std::uint64_t{1} << out_vc);
  if (queue) o.link->enqueue(f, now, extra_cycles);
  else o.link->send(f, now, extra_cycles);
  const bool tail = f.tail;
  pop_front(v, idx);
  if (tail) {
    o.vc_owned &= ~(std::uint64_t{1} << out_vc);
    v.out_port = v.out_vc = -1;
    words.active &= ~bit;
    start_packet_if_any(v, words, bit, head_ready, now);
  }
}

// send_from_row of the common switch: a row is an input port, its VCs all
// of the port's; with traverse's work for that switch (no held
// connections, no port copies: the row's link is the port's, the output's
// link takes the flit now), inlined into the send loop: the two calls a
// flit cost about 30 instructions of entry and exit.
template <bool kVcBytes, bool kAllRouterInputs>
[[gnu::always_inline]] inline void Subswitch::send_from_row_plain(const PlainSend& send, int row, int out) {
  const int V = send.vcs_per_port;
  Row& port_row = send.rows[row];
  const std::uint64_t asking = port_row.vcs_asking;
  port_row.vcs_asking = 0;  // the request is spent
  int& ptr = port_row.vc_pointer;
  int k;
  if (kVcBytes) {
    // Byte k of `asking` is the output VC k asked for, plus one (0: it did
    // not ask): the bytes equal to out + 1, found without a loop or a
    // branch (testing each asking VC's port mispredicted about every
    // second send). Exact per byte: no carry crosses a byte.
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kLow7 = 0x7f7f7f7f7f7f7f7fULL;
    const std::uint64_t t = asking ^ (kOnes * std::uint64_t(out + 1));
    const std::uint64_t match = ~(((t & kLow7) + kLow7) | t | kLow7);  // 0x80 in each byte of t that is 0
    if (!match) no_vc_asking(row);
    // The first match at or after the pointer's byte. The pointer may be
    // V, not wrapped (below): byte V and above hold no match (no VC there
    // asked), so a search from it wraps to the first, as one from 0 does,
    // and with 8 VCs its byte 8 is bit 64, 0 after the mask.
    k = bits::first_cyclic(match, (ptr * 8) & 63) >> 3;
  } else {
    std::uint64_t candidates = asking;  // one VC asked: it asked for the grant
    if (asking & (asking - 1)) {
      const InputVc* vcs = &send.vcs[std::size_t(row) * V];
      candidates = 0;
      for (std::uint64_t m = asking; m; m &= m - 1)
        if (vcs[__builtin_ctzll(m)].out_port == out) candidates |= m & -m;
      if (!candidates) no_vc_asking(row);
    }
    k = bits::first_cyclic(candidates, ptr);
  }
  const Cycle now = send.now;
  port_row.busy_until = now + Cycle(port_row.serialization_cycles);
  // With VC bytes without the wrap (a compare and a select a send, and V
  // off the stack): the search above takes V as 0.
  ptr = kVcBytes || k + 1 != V ? k + 1 : 0;
  // traverse(row, k, now) of this switch.
  const int idx = row * V + k;
  InputVc& v = send.vcs[idx];
  if (v.front.traced) trace(TraceEvent::Traverse, now, row, k, v.front);
  const Cycle head_ready = kAllRouterInputs ? send.head_ready : send.head_ready + Cycle(rc_cycles(row));
  depart(v, idx, send.words[idx >> 6], bit_of(idx), k, port_row.link, send.outs[out], false, send.extra_cycles,
         head_ready, now);
}

void Subswitch::traverse(int port, int vc, Cycle now) {
  InputVc& v = vc_at(port, vc);
  OutputPort& o = out_[v.out_port];
  if (v.front.traced) trace(TraceEvent::Traverse, now, port, vc, v.front);
  if (params_.policy.hold_switch_for_packet) {
    const int row = port * params_.input_speedup + vc % params_.input_speedup;
    if (v.front.tail || !v.behind) {  // the packet's last flit, or the buffer's
      release_hold(row, v.out_port);
    } else {
      row_hold_vc_[row] = vc;
      out_held_by_[v.out_port] = row;
    }
  }
  const int idx = port * params_.vcs + vc;
  --buffered_flits_;
  ++activity_.buffer_reads;
  ++activity_.crossbar_flits;
  depart(v, idx, words_of(idx), bit_of(idx), vc, port_link(port), o, !crossbar_ports_.empty(),
         params_.sa_cycles + params_.st_cycles, now + params_.policy.next_head_delay_cycles + rc_cycles(port), now);
}

void Subswitch::release_hold(int row, int out) {
  row_hold_vc_[row] = -1;
  out_held_by_[out] = -1;
}

void Subswitch::trace_route(Cycle now, int port, const Flit& head, const RouteDecision& d) const {
  if (!tracer_) return;
  TraceHop hop;
  hop.in_port = port;
  hop.in_vc = head.vc;
  hop.out_port = d.out_port;
  hop.vc_lo = d.vc_lo;
  hop.vc_hi = d.vc_hi;
  tracer_->record(TraceEvent::Route, now, head, name_, hop);
}

// After VC allocation: the grants of this cycle to traced heads. A second
// pass over the cycle's n requests (a request was granted when its VC went
// active), so the allocation itself has no hook.
void Subswitch::trace_vc_grants(Cycle now, int n) {
  const int V = params_.vcs;
  const Scratch& s = scratch();
  for (int i = 0; i < n; ++i) {
    const int idx = s.requests[std::size_t(i)].input;
    const InputVc& v = vcs_[idx];
    if (v.state == VcState::Active && v.front.traced) trace(TraceEvent::VcGrant, now, idx / V, idx % V, v.front);
  }
}

void Subswitch::trace(TraceEvent e, Cycle now, int port, int vc, const Flit& f) const {
  if (!tracer_) return;
  const InputVc& v = vc_at(port, vc);
  TraceHop hop;
  hop.in_port = port;
  hop.in_vc = vc;
  if (e == TraceEvent::Buffer) {
    hop.link = port_link(port);
    hop.arrives = now;
  } else {
    hop.out_port = v.out_port;
  }
  if (e == TraceEvent::Route) {
    hop.vc_lo = v.vc_lo();
    hop.vc_hi = v.vc_hi();
  }
  if (e == TraceEvent::VcGrant) hop.out_vc = v.out_vc;
  if (e == TraceEvent::Traverse) {
    const Link* link = out_[v.out_port].link;
    hop.out_vc = v.out_vc;
    hop.link = link;
    const Cycle start = crossbar_ports_.empty() ? now : std::max(now, link->free_at());  // behind the output queue
    hop.arrives = start + params_.sa_cycles + params_.st_cycles + link->params().latency_cycles;
  }
  tracer_->record(e, now, f, name_, hop);
}

void Subswitch::report_buffers(std::ostream& os) const {
  for (int p = 0; p < params_.inputs; ++p) {
    for (int vc = 0; vc < params_.vcs; ++vc) {
      const InputVc& v = vc_at(p, vc);
      if (!v.has_front) continue;
      const Flit& f = v.front;
      os << "  " << name_ << " input " << p << " vc " << vc << ": " << queued(p * params_.vcs + vc) << " flit(s), state "
         << state_name(int(v.state));
      if (v.out_port >= 0) {
        const OutputPort& o = out_[v.out_port];
        os << ", to output " << v.out_port;
        if (v.out_vc >= 0) {
          os << " vc " << int(v.out_vc);
          if (o.track_credits) os << " (credits " << o.credits[v.out_vc] << ")";
        } else if (v.state == VcState::VcAlloc) {  // what each VC it may take lacks
          os << " vcs";
          for (int ov = v.vc_lo(); ov <= v.vc_hi(); ++ov) {
            os << " " << ov;
            if (o.owned(ov)) os << " (held)";
            else if (o.track_credits) os << " (credits " << o.credits[ov] << ")";
          }
        }
      }
      os << "; front packet " << f.packet_id << " " << f.src << "->" << f.dst << (f.head ? " head" : " body")
         << "\n";
    }
  }
}

}  // namespace nwn

namespace nwn {

// Stage 1: this object's per-cycle lines; 2: the VC bit sets and the
// allocators; 3: the occupied VCs (with their ready times) and their rows;
// 4: the output ports of those holding a route; 5: the links of those
// (the send and its credit back); 6: what a send writes on those links.
void Subswitch::prefetch(Cycle /*now*/, int stage) const {
  switch (stage) {
    case 1: {
      prefetch_read(this);
      const char* hot = reinterpret_cast<const char*>(&buffered_flits_);
      prefetch_lines(hot, std::size_t(reinterpret_cast<const char*>(&sw_alloc_ + 1) - hot), true);
      break;
    }
    case 2:
      prefetch_lines(vc_words_.data(), vc_words_.size() * sizeof(VcWords), true);
      if (buffered_flits_ == 0) break;
      prefetch_read(vc_alloc_.get());
      prefetch_read(sw_alloc_.get());
      break;
    case 3:
      if (buffered_flits_ == 0) break;
      // The allocators' round-robin pointers (their objects came in stage 2).
      vc_alloc_->prefetch_state();
      sw_alloc_->prefetch_state();
      for (std::size_t w = 0; w < vc_words_.size(); ++w) {
        for (std::uint64_t word = vc_words_[w].occupied; word; word &= word - 1) {
          const std::size_t idx = w * 64 + std::size_t(__builtin_ctzll(word));
          prefetch_write(&vcs_[idx]);
          prefetch_write(&rows_[std::size_t(by_vcs_.quot(int(idx))) * std::size_t(params_.input_speedup)]);
        }
      }
      break;
    case 4:
      if (buffered_flits_ == 0) break;
      for_each_routed_vc([&](std::size_t, const InputVc& v) {
        if (v.out_port >= 0) prefetch_write(&out_[std::size_t(v.out_port)]);
      });
      break;
    case 5:
      // Every buffered flit may leave this cycle (one-flit packets are
      // routed and allocated in the cycles just before): the links of all
      // routed ones.
      if (buffered_flits_ == 0) break;
      for_each_routed_vc([&](std::size_t idx, const InputVc& v) {
        if (v.out_port >= 0)
          if (const Link* l = out_[std::size_t(v.out_port)].link) l->prefetch_flit_side();
        if (const Link* l = port_link(by_vcs_.quot(int(idx)))) l->prefetch_credit_side();
      });
      break;
    case 6:
      // What traverse writes (their headers came in stage 5): on the
      // output link the flit's slot, on the input link the credit's; and
      // the LinkEnd of each link's reader, which a publish calls.
      if (buffered_flits_ == 0) break;
      for_each_routed_vc([&](std::size_t idx, const InputVc& v) {
        if (v.out_port >= 0)
          if (const Link* l = out_[std::size_t(v.out_port)].link) {
            l->prefetch_flit_slot_to_send();
            l->prefetch_flit_reader();
          }
        if (const Link* l = port_link(by_vcs_.quot(int(idx)))) {
          l->prefetch_credit_slot_to_send();
          l->prefetch_credit_reader();
        }
      });
      break;
    default:
      break;
  }
}

bool Subswitch::prefetch_port_arrivals(int port) const {
  const std::size_t V = std::size_t(params_.vcs);
  if (!crossbar_ports_.empty() || V > 8) return false;
  const std::size_t first = std::size_t(port) * V;
  prefetch_lines(&vcs_[first], V * sizeof(vcs_[0]), true);
  prefetch_lines(&behind_[first], V * sizeof(behind_[0]), true);
  return true;
}

void Subswitch::prefetch_arrival(int port, int vc) const {
  if (!crossbar_ports_.empty() || unsigned(vc) >= unsigned(params_.vcs)) return;
  const std::size_t idx = std::size_t(port) * std::size_t(params_.vcs) + std::size_t(vc);
  prefetch_write(&vcs_[idx]);
}

}  // namespace nwn

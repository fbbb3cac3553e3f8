#include "network_interface.hpp"

#include <algorithm>
#include <stdexcept>

namespace nwn {

NetworkInterface::NetworkInterface(int id, const EndpointParams& p, const EndpointShared& shared)
    : next_id_(std::uint64_t(id)),
      vcs_per_class_(std::uint8_t(p.vcs / std::max(1, p.message_classes))),
      one_class_(p.message_classes <= 1),
      wormhole_(p.wormhole),
      inline_vcs_(p.vcs <= kInlineVcs && p.router_buffer_depth_flits <= INT16_MAX),
      id_(id),
      inject_(name() + ".inject", p.inject_link),
      eject_(name() + ".eject", p.eject_link),
      shared_(shared),
      message_classes_(p.message_classes),
      queue_{Ring<PacketHeader>(0), Ring<PacketHeader>(0)} {  // grow when packets wait (models/ring.hpp)
  if (p.vcs > 255) throw std::logic_error(name() + ": more than 255 VCs");  // the VC state is 8 bits
  if (inline_vcs_) {
    for (int vc = 0; vc < p.vcs; ++vc) credits_[vc] = std::int16_t(p.router_buffer_depth_flits);
  } else {
    more_credits_.assign(std::size_t(p.vcs), p.router_buffer_depth_flits);
    more_window_flits_.assign(std::size_t(p.vcs), 0);
  }
  window_flits_ = inline_vcs_ ? window_flits_on_vc_ : more_window_flits_.data();
  inject_.reserve_flits(0);  // the sending end sizes the flit ring (no pipeline before the wire)
  if (p.eject_buffer_flits > 0) {  // credits go back when the outside takes a packet, all at once
    const int buffer = p.vcs * p.eject_buffer_flits;
    eject_.reserve_credits(buffer, buffer);
  }
}

void NetworkInterface::join(InterfaceGroup& group, LinkEnd& end, int local) {
  group_ = eject_group_ = &group;
  local_ = local;
  inject_.set_sender(&end, local);
  eject_.set_receiver(&end, local);
}

std::uint64_t NetworkInterface::queued_flits() const {
  std::uint64_t n = 0;
  for (const auto& q : queue_)
    for (std::size_t i = 0; i < q.size(); ++i) n += q.at(i).size_flits;
  return n - sent_of_current_;
}

void NetworkInterface::inject(Cycle now) {
  if (sent_of_current_ == 0) cur_ = queued_ >> 1 & 1;  // responses first, packet by packet
  PacketHeader& p = queue_[cur_].front();
  if (sent_of_current_ == 0) {
    if (!choose_vc(vc_need(p))) return;
    injected_ = now;
  }
  if (credit(vc_) <= 0) return;
  const bool tail = sent_of_current_ + 1 == p.size_flits;
  send_flit(p, now, injected_, sent_of_current_ == 0, tail);
  if (tail) {
    if (shared_.sink) group_->sink_dequeued(external_packet(p, now), cur_);
    queue_[cur_].pop();
    if (queue_[cur_].empty()) queued_ &= std::uint8_t(~(1u << cur_));
    sent_of_current_ = 0;
  } else {
    ++sent_of_current_;
  }
}

void NetworkInterface::misdelivered(const Flit& f) const {
  throw std::logic_error(name() + std::string(": flit of packet ") + std::to_string(f.packet_id) + " for node " +
                         std::to_string(f.dst) + " ejected at node " + std::to_string(id_));
}

// Only flits with Flit::traced get here (cold, out of line).
void NetworkInterface::trace_inject(Cycle now) {
  const PacketHeader& p = queue_[cur_].front();
  const Flit f = packet_flit(p, injected_, vc_, sent_of_current_ == 0, sent_of_current_ + 1 == p.size_flits);
  TraceHop hop;
  hop.out_vc = vc_;
  hop.link = &inject_;
  hop.arrives = now + inject_.params().latency_cycles;
  if (shared_.tracer) shared_.tracer->record(TraceEvent::Inject, now, f, name(), hop);
}

void NetworkInterface::trace_eject(Cycle now, const Flit& f) {
  TraceHop hop;
  hop.in_vc = f.vc;
  hop.link = &eject_;
  hop.arrives = now;
  if (shared_.tracer) shared_.tracer->record(TraceEvent::Eject, now, f, name(), hop);
}

}  // namespace nwn

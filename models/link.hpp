// A point-to-point channel: flits travel one way with a fixed latency, credits
// travel back with their own latency. Every item carries its arrival cycle, so
// a sender may write in the same cycle a receiver reads, in any order: with a
// latency of at least one cycle, what the receiver sees never depends on
// which of the two was evaluated first. This is the two-phase cycle of the
// model, without a per-port sc_signal.
//
// Serialization: a flit of F bits on a W-bit channel occupies the channel for
// F/W cycles; the sender may not start the next flit before then.
#pragma once
#include <cstdint>
#include <string>

#include "flit.hpp"
#include "ring.hpp"

namespace nwn {

// Something that sleeps while idle and must be woken when an item will arrive.
class Wakeable {
 public:
  virtual ~Wakeable() = default;
  virtual void wake_at(Cycle cycle) = 0;
};

struct LinkParams {
  int latency_cycles = 1;         // flit: send at t, readable at t + latency
  int credit_latency_cycles = 1;  // credit: send at t, readable at t + latency
  int serialization_cycles = 1;   // cycles a flit occupies the channel
  double length_mm = 0.0;         // physical length, for wire energy
  int width_bits = 64;
};

class Link {
 public:
  Link(std::string name, const LinkParams& p);

  const std::string& name() const { return name_; }
  const LinkParams& params() const { return params_; }

  void set_receiver(Wakeable* w) { receiver_ = w; }
  void set_sender(Wakeable* w) { sender_ = w; }

  // Sender side. `extra_cycles` adds pipeline delay before the wire (e.g.
  // switch traversal stages); it must be the same for every flit of a link.
  bool can_send(Cycle now) const { return now >= busy_until_; }
  void send(const Flit& f, Cycle now, int extra_cycles = 0) {
    busy_until_ = now + params_.serialization_cycles;
    Cycle at = now + extra_cycles + params_.latency_cycles;
    flits_.push(Timed<Flit>{at, f});
    ++flits_sent_;
    if (receiver_) receiver_->wake_at(at);
  }
  bool credit_ready(Cycle now) const { return !credits_.empty() && credits_.front().at <= now; }
  int pop_credit() { int vc = credits_.front().item; credits_.pop(); return vc; }

  // Receiver side.
  bool flit_ready(Cycle now) const { return !flits_.empty() && flits_.front().at <= now; }
  Flit pop_flit() { Flit f = flits_.front().item; flits_.pop(); return f; }
  void send_credit(int vc, Cycle now) {
    Cycle at = now + params_.credit_latency_cycles;
    credits_.push(Timed<int>{at, vc});
    if (sender_) sender_->wake_at(at);
  }

  // Inspection (conservation checks, idle detection, stuck reports).
  std::size_t flits_in_flight() const { return flits_.size(); }
  Cycle next_flit_arrival() const { return flits_.empty() ? kNever : flits_.front().at; }
  Cycle next_credit_arrival() const { return credits_.empty() ? kNever : credits_.front().at; }
  const Flit& flit_in_flight(std::size_t i) const { return flits_.at(i).item; }
  std::uint64_t flits_sent() const { return flits_sent_; }

 private:
  template <typename T>
  struct Timed {
    Cycle at;
    T item;
  };
  std::string name_;
  LinkParams params_;
  Ring<Timed<Flit>> flits_;
  Ring<Timed<int>> credits_;
  Cycle busy_until_ = 0;
  std::uint64_t flits_sent_ = 0;
  Wakeable* receiver_ = nullptr;
  Wakeable* sender_ = nullptr;
};

}  // namespace nwn

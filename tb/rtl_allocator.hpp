// A Verilated allocator (rtl/, built --sc as for the lockstep bench) behind
// the C++ Allocator interface, so that a subswitch of the full simulator can
// use the RTL in place of the model (router.allocator_impl = rtl).
//
// How it is driven. A router allocates and traverses within one tick per
// cycle (called by the kernel's SC_METHOD), so the RTL must answer within
// that call: there
// is no room for the delta cycles an sc_signal needs. The model's ports are
// therefore bound to ImmediateWire channels, whose read() returns what was
// last written, and the model's eval() is called directly:
//   compute(): requests -> req_i, eval(): gnt_o settles; grants are read;
//              clk_i 1, eval(): pointers move on the edge; clk_i 0, eval().
// That is exactly the cycle of the lockstep bench (tb/lockstep_bench.hpp),
// without the SystemC scheduler in between. The wires never notify, so the
// model's own SC_METHOD, sensitive to them, runs only once at start-up.
//
// Verilator 5 makes an --sc model's eval_step() private (SystemC is meant to
// call it). NWN_RTL_EVAL_ACCESS(Model) takes its address through an explicit
// template instantiation, the one place C++ lets code name a private member,
// so the same Verilated library serves the bench and the simulator.
//
// Tracing (router.rtl_trace_file): a plain VerilatedVcdC that this class
// dumps itself, two time steps per cycle (requests and grants with the clock
// low, then the clock high), in a window of cycles.
#pragma once
#include <systemc>
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "models/allocator.hpp"
#include "models/clock.hpp"

namespace nwn::tb {

// A channel whose value changes the moment it is written. Only the model
// reads and writes it, from inside the router's process.
template <class T>
class ImmediateWire : public sc_core::sc_signal_inout_if<T> {
 public:
  const T& read() const override { return value_; }
  const T& get_data_ref() const override { return value_; }
  void write(const T& v) override { value_ = v; }
  const sc_core::sc_event& value_changed_event() const override { return never_; }
  const sc_core::sc_event& default_event() const override { return never_; }
  bool event() const override { return false; }

 private:
  T value_{};
  sc_core::sc_event never_;
};

class ImmediateBoolWire : public sc_core::sc_signal_inout_if<bool> {
 public:
  const bool& read() const override { return value_; }
  const bool& get_data_ref() const override { return value_; }
  void write(const bool& v) override { value_ = v; }
  const sc_core::sc_event& value_changed_event() const override { return never_; }
  const sc_core::sc_event& posedge_event() const override { return never_; }
  const sc_core::sc_event& negedge_event() const override { return never_; }
  const sc_core::sc_event& default_event() const override { return never_; }
  bool event() const override { return false; }
  bool posedge() const override { return false; }
  bool negedge() const override { return false; }

 private:
  bool value_ = false;
  sc_core::sc_event never_;
};

template <class Model>
struct RtlEval {
  static inline void (Model::*step)() = nullptr;
};
template <class Model, void (Model::*Step)()>
struct RtlEvalAccess {
  static inline const bool taken = (RtlEval<Model>::step = Step, true);
};
#define NWN_RTL_EVAL_ACCESS(Model) template struct ::nwn::tb::RtlEvalAccess<Model, &Model::eval_step>

template <class Model, int N, int M>
class RtlAllocator final : public Allocator {
 public:
  static constexpr int kBits = N * M;

  RtlAllocator(const AllocatorParams& p, const RtlOptions& options) : Allocator(p), opt_(options) {
    if (!RtlEval<Model>::step) throw std::logic_error("RtlAllocator: NWN_RTL_EVAL_ACCESS missing for this model");
    clock_.period = sc_core::sc_time(double(options.period_ps), sc_core::SC_PS);
    if (!opt_.trace_path.empty()) Verilated::traceEverOn(true);  // before the model is built
    model_ = std::make_unique<Model>(sc_core::sc_gen_unique_name("rtl_allocator"));
    model_->clk_i(clk_);
    model_->rst_ni(rst_n_);
    model_->req_i(req_);
    model_->gnt_o(gnt_);
  }

  ~RtlAllocator() override {
    if (vcd_) vcd_->close();
    model_->final();
  }

 protected:
  void compute() override {
    if (!started_) start();
    const Cycle now = clock_.now();
    if (tracing(now) && now > last_cycle_ + 1) dump_idle(last_cycle_ + 1);  // a cycle without requests
    last_cycle_ = now;

    for (int w = 0; w < (kBits + 31) / 32; ++w) bv_.set_word(w, 0);
    for (int in : active_inputs()) {
      const std::uint64_t* r = row(in);
      for (int out = 0; out < M; ++out)
        if (bits::test(r, out)) bv_.set_bit(in * M + out, sc_dt::Log_1);
    }
    req_.write(bv_);
    eval();
    const sc_dt::sc_bv<kBits>& g = gnt_.read();
    for (int in : active_inputs())
      for (int out = 0; out < M; ++out)
        if (g.get_bit(in * M + out) == sc_dt::Log_1) grant(in, out);
    if (tracing(now)) vcd_->dump(std::uint64_t(now) * 2);

    clk_.write(true);
    eval();
    if (tracing(now)) vcd_->dump(std::uint64_t(now) * 2 + 1);
    clk_.write(false);
    eval();
  }

 private:
  // Reset as the bench does: clocked while rst_ni is low. Done at the first
  // allocation, when the ports are bound (after elaboration).
  void start() {
    started_ = true;
    rst_n_.write(false);
    eval();
    clk_.write(true);
    eval();
    clk_.write(false);
    rst_n_.write(true);
    eval();
    if (!opt_.trace_path.empty()) {
      vcd_ = std::make_unique<VerilatedVcdC>();
      model_->trace(vcd_.get(), 99);
      vcd_->open(opt_.trace_path.c_str());
      if (!vcd_->isOpen()) throw std::runtime_error("router.rtl_trace_file: cannot write '" + opt_.trace_path + "'");
    }
  }

  bool tracing(Cycle c) const {
    return vcd_ && c >= Cycle(opt_.trace_from) && c < Cycle(opt_.trace_from + opt_.trace_cycles);
  }

  void dump_idle(Cycle c) {
    req_.write(sc_dt::sc_bv<kBits>());
    eval();
    vcd_->dump(std::uint64_t(c) * 2);
  }

  void eval() { ((*model_).*RtlEval<Model>::step)(); }

  RtlOptions opt_;
  std::unique_ptr<Model> model_;
  ImmediateBoolWire clk_, rst_n_;
  ImmediateWire<sc_dt::sc_bv<kBits>> req_, gnt_;
  sc_dt::sc_bv<kBits> bv_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  Clock clock_;
  bool started_ = false;
  Cycle last_cycle_ = 0;
};

// The registration of one Verilated configuration, under the key of the C++
// allocator it stands in for (tb/rtl_allocators.cpp, tb/rtl_extra.cpp.in).
template <class Model, int N, int M>
RtlAllocatorRegistration register_rtl(const std::string& algorithm, int iterations) {
  return RtlAllocatorRegistration(rtl_allocator_key(algorithm, {N, M, iterations}),
                                  [](const AllocatorParams& p, const RtlOptions& o) -> std::unique_ptr<Allocator> {
                                    return std::make_unique<RtlAllocator<Model, N, M>>(p, o);
                                  });
}

}  // namespace nwn::tb

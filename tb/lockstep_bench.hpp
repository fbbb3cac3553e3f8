// Lockstep co-simulation of a Verilated allocator (rtl/) against the C++
// allocator of the same name and size: both see the same seeded request
// stream; their grants are compared every cycle, and the RTL's grants are
// checked for the allocator properties (GrantChecker).
//
// How the Verilated SystemC model is driven. The C++ allocator is a plain
// call (clear, request..., allocate) that computes grants and moves its
// pointers at once; the RTL computes grants combinationally and moves its
// pointers on the rising clock edge. The bench owns the clock as an ordinary
// sc_signal<bool> and runs each cycle as two short sc_start() calls:
//   1. write the requests (clock low) and sc_start(1 ns): the Verilated
//      model's eval method is sensitive to every input, so all delta cycles
//      run and gnt_o has settled when sc_start returns;
//   2. read the grants, run the C++ allocator, compare and check;
//   3. raise the clock and sc_start(1 ns): the pointers move. The clock goes
//      low again with the next cycle's requests.
// So one bench cycle is 2 ns of simulated time; the report gives the time at
// which the failing cycle starts, to find it in the VCD.
//
// On a mismatch the run stops. Because the stream is a pure function of the
// seed, the bench then resets the RTL and the C++ model and replays the same
// stream, opening a VCD of the RTL a window of cycles before the failing
// cycle, so the trace is short and ends at the failure.
#pragma once
#include <systemc>
#include <verilated.h>
#include <verilated_vcd_sc.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "models/allocator.hpp"
#include "tb/bit_matrix.hpp"
#include "tb/grant_checker.hpp"
#include "tb/request_stream.hpp"

namespace nwn::tb {

struct LockstepOptions {
  std::string cpp_allocator;  // name for nwn::make_allocator
  int iterations = 1;         // AllocatorParams::iterations
  std::uint64_t seed = 1;
  long cycles = 100000;
  std::string vcd_path;       // where the VCD of a mismatch goes ("" = none)
  long vcd_window_cycles = 32;  // cycles traced before the failing one
};

struct LockstepResult {
  bool ok = true;
  long cycles = 0;          // cycles compared
  long failed_cycle = -1;
  double failed_cycle_ns = -1;  // simulated time at which that cycle started
  std::string failure;      // what went wrong, with requests and both grants
  long grants = 0;          // total RTL grants (a run must exercise something)
  long pattern_cycles[int(Pattern::count)] = {};
};

// Model: a Verilated allocator (--sc --pins-bv 2) with ports clk_i, rst_ni,
// req_i, gnt_o; N inputs and M outputs.
template <class Model, int N, int M>
class LockstepBench {
 public:
  static constexpr int kBits = N * M;

  explicit LockstepBench(const char* name) : model_(make_model(name)) {
    model_->clk_i(clk_);
    model_->rst_ni(rst_n_);
    model_->req_i(req_);
    model_->gnt_o(gnt_);
  }

  LockstepBench(const LockstepBench&) = delete;
  LockstepBench& operator=(const LockstepBench&) = delete;

  LockstepResult run(const LockstepOptions& opt) {
    if (sc_core::sc_get_status() != sc_core::SC_RUNNING && sc_core::sc_get_status() != sc_core::SC_PAUSED)
      sc_core::sc_start(sc_core::SC_ZERO_TIME);  // ends elaboration; tracing may start after this
    LockstepResult r = pass(opt, -1, opt.cycles);
    if (r.ok || opt.vcd_path.empty()) return r;

    const long from = std::max(0L, r.failed_cycle - opt.vcd_window_cycles);
    const LockstepResult replay = pass(opt, from, r.failed_cycle + 1);
    if (replay.failed_cycle == r.failed_cycle) {
      r.failure += "VCD of the RTL, cycles " + std::to_string(from) + ".." + std::to_string(r.failed_cycle) +
                   " (2 ns each; the failing cycle starts at " + std::to_string(replay.failed_cycle_ns) +
                   " ns): " + opt.vcd_path + "\n";
    } else {
      r.failure += "replay for the VCD did not fail at the same cycle (" + std::to_string(replay.failed_cycle) +
                   "): the RTL or the model is not deterministic\n";
    }
    return r;
  }

 private:
  static std::unique_ptr<Model> make_model(const char* name) {
    Verilated::traceEverOn(true);  // before the model is built, or it has no trace code
    return std::make_unique<Model>(name);
  }

  void step(bool clk) {
    clk_.write(clk);
    sc_core::sc_start(1, sc_core::SC_NS);
  }

  void reset() {
    req_.write(sc_dt::sc_bv<kBits>());
    rst_n_.write(false);
    step(false);
    step(true);  // clocked while in reset: applies it even if rst_ni was low from time 0
    rst_n_.write(true);
  }

  void drive(const BitMatrix& m) {
    for (int i = 0; i < (kBits + 31) / 32; ++i)
      bv_.set_word(i, sc_dt::sc_digit(m.data()[i / 2] >> (32 * (i % 2))));
    req_.write(bv_);
  }

  void sample(BitMatrix& m) {
    const sc_dt::sc_bv<kBits>& g = gnt_.read();
    m.clear();
    for (int i = 0; i < (kBits + 31) / 32; ++i)
      m.data()[i / 2] |= std::uint64_t(g.get_word(i)) << (32 * (i % 2));
  }

  // Runs cycles [0, stop) from reset; traces from cycle trace_from (if >= 0).
  LockstepResult pass(const LockstepOptions& opt, long trace_from, long stop) {
    LockstepResult r;
    auto cpp = nwn::make_allocator(opt.cpp_allocator, {N, M, opt.iterations});
    RequestStream stream(N, M, opt.seed);
    GrantChecker checker(N, M, long(N) * M);
    BitMatrix req(N, M), rtl(N, M), model(N, M);
    reset();
    for (long c = 0; c < stop; ++c) {
      if (c == trace_from) open_trace(opt.vcd_path);
      const double start_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
      stream.next(req);
      ++r.pattern_cycles[int(stream.pattern())];
      drive(req);
      step(false);
      sample(rtl);

      cpp->clear();
      for (int in = 0; in < N; ++in)
        for (int out = 0; out < M; ++out)
          if (req.test(in, out)) cpp->request(in, out);
      cpp->allocate();
      model.clear();
      for (int in = 0; in < N; ++in)
        if (cpp->grant_of_input(in) >= 0) model.set(in, cpp->grant_of_input(in));

      std::string problem;
      if (rtl != model) problem = "RTL and C++ grants differ";
      const std::string property = checker.check(req, rtl);
      if (!property.empty()) problem += (problem.empty() ? "" : "; ") + ("RTL property: " + property);
      for (int in = 0; in < N; ++in) r.grants += rtl.first_in_row(in) >= 0;

      step(true);
      r.cycles = c + 1;
      if (!problem.empty()) {
        r.ok = false;
        r.failed_cycle = c;
        r.failed_cycle_ns = start_ns;
        r.failure = "cycle " + std::to_string(c) + " (seed " + std::to_string(opt.seed) + ", pattern " +
                    pattern_name(stream.pattern()) + ", " + opt.cpp_allocator + " " + std::to_string(N) + "x" +
                    std::to_string(M) + " it=" + std::to_string(opt.iterations) + "): " + problem +
                    "\nrequests:\n" + req.rows() + "RTL grants:\n" + rtl.rows() + "C++ grants:\n" + model.rows();
        break;
      }
    }
    if (trace_) trace_->close();
    return r;
  }

  void open_trace(const std::string& path) {
    // SystemC keeps a pointer to every trace file until the process ends,
    // and VerilatedVcdSc hides the base class that could unregister it, so
    // the trace object lives as long as the process (held by a static, so
    // LeakSanitizer sees it reachable).
    static VerilatedVcdSc* const trace = new VerilatedVcdSc;
    if (!trace_) {
      trace_ = trace;
      model_->trace(trace_, 99);
    }
    trace_->open(path.c_str());
  }

  sc_core::sc_signal<bool> clk_{"clk"};
  sc_core::sc_signal<bool> rst_n_{"rst_n"};
  sc_core::sc_signal<sc_dt::sc_bv<kBits>> req_{"req"};
  sc_core::sc_signal<sc_dt::sc_bv<kBits>> gnt_{"gnt"};
  sc_dt::sc_bv<kBits> bv_;
  std::unique_ptr<Model> model_;
  VerilatedVcdSc* trace_ = nullptr;  // the process's trace file, once tracing started
};

}  // namespace nwn::tb

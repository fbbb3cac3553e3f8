// A VCD of one router's occupancy (gtkwave reads it): for each internal
// channel the flits in flight on it, for each subswitch input the flits in its
// VC buffers, sampled once per cycle over a window. The recorder is its own
// SystemC method, created only when sim.vcd_file is set, and only reads the
// router: with the VCD off nothing runs.
//
// It samples half-way between the kernel's evaluation of cycle c and that
// of cycle c + 1 (standalone runs evaluate c at c periods: the sample is at
// c + 1/2; an embedding evaluates it at c + 1/2: the sample is at c + 3/4),
// when every router and the endpoints have run that cycle, so the value at
// cycle c is the occupancy at the end of cycle c whatever order SystemC runs
// processes in. The kernel must run one cycle at a time (run_block_cycles):
// a block of cycles would run ahead of the samples.
//
// Written by hand rather than through sc_trace: SystemC's VCD carries the
// wall-clock date (runs would differ), stamps values at the sampler's time
// instead of the cycle's, and measured slower and larger (docs/WORKLOADS.md).
#pragma once
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "../models/guarded_method.hpp"
#include "../models/router.hpp"
#include "atomic_file.hpp"
#include "config.hpp"

namespace nwn {

class Network;

class OccupancyVcd : public sc_core::sc_module {
 public:
  // `kernel_at_half_period`: the kernel evaluates cycle c at c + 1/2 periods
  // (Kernel::set_half_period_phase, as an embedding's does).
  OccupancyVcd(sc_core::sc_module_name name, const Router& router, const std::string& path, Cycle from, Cycle cycles,
               const Clock& clock, bool kernel_at_half_period = false);
  ~OccupancyVcd() override;

 private:
  struct Signal {
    std::string id;
    int last = -1;
  };
  void sample();
  void close(Cycle end_cycle);
  std::uint64_t time_ps(Cycle c) const { return c * period_ps_; }

  const Router& router_;
  Clock clock_;
  sc_core::sc_time sample_phase_;  // from the start of a cycle to its sample
  Cycle from_, until_;
  std::uint64_t period_ps_;
  StreamFile file_;
  std::vector<Signal> channels_, inputs_;  // inputs_: subswitch by subswitch, port by port
  std::vector<int> values_;                // scratch for one sample
  bool started_ = false;
  Cycle last_sampled_ = 0;
  GuardedMethod method_;  // sample()
};

// The recorder the config asks for (sim.vcd_file, sim.vcd_router,
// sim.vcd_from, sim.vcd_cycles), or nullptr. Call before the simulation starts.
std::unique_ptr<OccupancyVcd> make_occupancy_vcd(const Config& cfg, const Network& net,
                                                 bool kernel_at_half_period = false);

}  // namespace nwn

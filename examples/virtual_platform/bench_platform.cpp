// What an embedded network costs against the built-in workload on the same
// work: uniform random traffic of 1-flit packets at load 0.3 on a 64-node
// folded Clos (radix 16, two levels) for 20,000 cycles.
//   bench_platform builtin    nwnsim's own Bernoulli sources (nwn::run_experiment)
//   bench_platform builtin-step   the same one cycle at a time (sim.block_cycles = 1),
//                             as the embedding runs with lookahead 1
//   bench_platform external   the same process of arrivals from 64 LT initiators
//                             (posted writes with a NodeExtension, quantum keepers)
//   bench_platform external-blocks   the same with embed.lookahead_cycles = 10:
//                             blocks of 10 cycles (the links' latency), as the
//                             built-in run has; calls annotated a block ahead
//                             stay exact
// A second argument sets the packet size in flits (default 1, the worst
// case for the embedding: all its per-packet work over few flit-hops; 9 is a
// 64-byte cache line of 64-bit flits and a header), at the same load in
// flits. Each prints cycles/s, flit-hops/s and ns per flit-hop.
// scripts/bench-embed runs the modes alternately and reports the ratios. One
// mode a process: SystemC elaborates once.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include <nwnsim/nwnsim.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

constexpr double kLoad = 0.3;  // flits per node and cycle
constexpr std::uint64_t kCycles = 20000;

nwn::Config bench_config(int flits) {
  nwn::Config cfg;
  cfg.load_string(R"(
    [network]
    topology = "fclos"
    fclos_levels = 2
    [router]
    radix = 16
    [traffic]
    load = 0.3
    packet_flits = 1
    [flit]
    bits = 64
    [sim]
    warmup_cycles = 0
    measure_cycles = 20000
    drain_cap_cycles = 0
    [embed]
    protocol = "posted"
    source_queue_packets = 64
  )", "bench_platform");
  cfg.set("traffic.packet_flits", std::to_string(flits), "bench_platform");
  return cfg;
}

struct Sink : sc_core::sc_module {
  tlm_utils::simple_target_socket<Sink, nwn::kTlmBusWidth> socket;
  explicit Sink(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_fw(this, &Sink::nb_transport_fw);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;  // accepted and answered at once, as a standalone terminal
  }
};

struct Source : sc_core::sc_module {
  SC_HAS_PROCESS(Source);
  tlm_utils::simple_initiator_socket<Source, nwn::kTlmBusWidth> socket;
  int node, nodes;
  sc_core::sc_time period;
  int flits;
  Source(sc_core::sc_module_name n, int node_, int nodes_, sc_core::sc_time p, int flits_)
      : sc_module(n), socket("socket"), node(node_), nodes(nodes_), period(p), flits(flits_) {
    SC_THREAD(run);
  }
  void run() {
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    std::mt19937_64 rng(std::uint64_t(node) * 0x9e3779b97f4a7c15ULL + 1);
    std::geometric_distribution<std::uint64_t> gap(kLoad / flits);
    std::uniform_int_distribution<int> dest(0, nodes - 1);
    tlm::tlm_generic_payload gp;
    nwn::NodeExtension ext;
    ext.request_flits = flits;
    gp.set_extension(&ext);
    unsigned char data[8] = {};
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_data_ptr(data);
    gp.set_data_length(8);
    std::uint64_t at = gap(rng);
    while (at < kCycles) {
      ext.node = dest(rng);
      sc_core::sc_time delay = period * double(at) - sc_core::sc_time_stamp();
      socket->b_transport(gp, delay);
      qk.set(delay);
      if (qk.need_sync()) qk.sync();
      at += 1 + gap(rng);
    }
    gp.clear_extension(&ext);
  }
};

void report(const char* mode, double wall, std::uint64_t cycles, std::uint64_t hops, double accepted) {
  std::printf("%s: %llu cycles, %llu flit-hops, accepted %.3f, %.3f s: %.0f cycles/s, %.0f flit-hops/s, %.1f ns per "
              "flit-hop\n",
              mode, (unsigned long long)cycles, (unsigned long long)hops, accepted, wall, double(cycles) / wall,
              double(hops) / wall, wall * 1e9 / double(hops));
}

int sc_main(int argc, char* argv[]) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int flits = argc > 2 ? std::atoi(argv[2]) : 1;
  if (flits < 1 || flits > 16) {
    std::fprintf(stderr, "bench_platform: packet size %s flits (allowed: 1 to 16)\n", argv[2]);
    return 2;
  }
  nwn::Config cfg = bench_config(flits);
  if (mode == "builtin" || mode == "builtin-step") {
    if (mode == "builtin-step") cfg.set("sim.block_cycles", "1", "bench_platform");
    nwn::PerfResult perf;
    const nwn::RunResult r = nwn::run_experiment(cfg, &perf);
    report(mode.c_str(), perf.wall_seconds, r.cycles, r.flit_hops, r.accepted_load);
    return 0;
  }
  if (mode == "external-blocks") cfg.set("embed.lookahead_cycles", "10", "bench_platform");
  else if (mode != "external") {
    std::fprintf(stderr, "usage: bench_platform builtin|builtin-step|external|external-blocks [FLITS]\n");
    return 2;
  }
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(20, sc_core::SC_NS));  // 100 cycles
  nwn::TlmNetwork noc("noc", cfg);
  std::vector<std::unique_ptr<Source>> sources;
  std::vector<std::unique_ptr<Sink>> sinks;
  for (int n = 0; n < noc.nodes(); ++n) {
    sources.push_back(std::make_unique<Source>(("src" + std::to_string(n)).c_str(), n, noc.nodes(), noc.period(), flits));
    sources.back()->socket.bind(noc.target(n));
    sinks.push_back(std::make_unique<Sink>(("sink" + std::to_string(n)).c_str()));
    noc.initiator(n).bind(sinks.back()->socket);
  }
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(noc.period() * double(kCycles));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const nwn::RunResult r = noc.results();
  report(mode.c_str(), wall, kCycles, r.flit_hops, double(r.flits_ejected) / double(noc.nodes() * kCycles));
  return 0;
}

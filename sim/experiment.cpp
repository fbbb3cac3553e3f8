#include "experiment.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "network.hpp"
#include "network_power.hpp"
#include "occupancy_vcd.hpp"
#include "packet_trace.hpp"
#include "process.hpp"

namespace nwn {

nlohmann::ordered_json RunResult::to_json() const {
  nlohmann::ordered_json j;
  j["offered_load"] = offered_load;
  j["offered_load_measured"] = offered_load_measured;
  j["accepted_load"] = accepted_load;
  j["accepted_min_node"] = accepted_min_node;
  j["packets_measured"] = packets_measured;
  j["latency_avg"] = latency_avg;
  j["latency_p50"] = latency_p50;
  j["latency_p99"] = latency_p99;
  j["latency_max"] = latency_max;
  j["network_latency_avg"] = network_latency_avg;
  j["hops_avg"] = hops_avg;
  j["drained"] = drained;
  j["saturated"] = saturated;
  j["cycles"] = cycles;
  j["flits_created"] = flits_created;
  j["flits_ejected"] = flits_ejected;
  j["flits_queued"] = flits_queued;
  j["flits_in_network"] = flits_in_network;
  j["flit_hops"] = flit_hops;
  j["workload"] = workload;
  j["completion_cycles"] = completion_cycles;
  j["completion_node_min"] = completion_node_min;
  j["completion_node_avg"] = completion_node_avg;
  j["completion_node_max"] = completion_node_max;
  nlohmann::ordered_json a;
  a["window_cycles"] = window_cycles;
  a["packets_ejected"] = window_packets_ejected;
  a["flits_ejected"] = window_flits_ejected;
  nlohmann::ordered_json ss = nlohmann::ordered_json::array();
  for (auto& s : window_activity.subswitches)
    ss.push_back({s.buffer_writes, s.buffer_reads, s.crossbar_flits});
  a["subswitch_writes_reads_crossbar"] = ss;
  a["channel_flits"] = window_activity.channel_flits;
  j["window_activity"] = a;
  if (!power.is_null()) j["power"] = power;
  if (!heatmap.is_null()) j["heatmap"] = heatmap;
  return j;
}

nlohmann::ordered_json PerfResult::to_json() const {
  nlohmann::ordered_json j;
  j["wall_seconds"] = wall_seconds;
  j["cycles_per_second"] = cycles_per_second;
  j["flit_hops_per_second"] = flit_hops_per_second;
  j["peak_rss_mb"] = peak_rss_mb;
  j["threads"] = threads;
  j["block_cycles"] = block_cycles;
  j["huge_pages"] = huge_pages_requested();
  return j;
}

std::string Watchdog::message(std::uint64_t now, std::uint64_t in_flight) const {
  std::ostringstream os;
  os << "deadlock: " << in_flight << " flit(s) in the network and none moved for " << now - last_progress_cycle_
     << " cycles (cycle " << now << "). Buffers holding flits:\n";
  return os.str();
}

namespace {

class Runner {
 public:
  Runner(const Config& cfg, Network& net, const Clock& clock)
      : net_(net), clock_(clock), watchdog_cycles_(Cycle(cfg.get_int("sim.watchdog_cycles"))),
        watchdog_(watchdog_cycles_), chunk_(watchdog_.check_every()) {}

  // Simulates up to cycle `until` (exclusive), or until `done` returns true.
  template <typename Done>
  void run_until(Cycle until, Done done) {
    while (now() < until && !done()) {
      net_.advance(std::min(chunk_, until - now()));
      check();
    }
  }
  // Whether a network is stuck must not depend on where the run ends: a run
  // that ends while the watchdog sees a stall goes on (results are already
  // taken) until a flit moves or the watchdog fires.
  void settle() {
    while (watchdog_.stalled(now())) {
      net_.advance(chunk_);
      check();
    }
  }
  Cycle now() const { return clock_.now(); }

 private:
  void check() {
    Endpoints& e = net_.endpoints();
    const std::uint64_t in_flight = e.created_flits() - e.ejected_flits() - e.queued_flits();
    watchdog_.check(
        now(), net_.flit_hops() + e.ejected_flits(), in_flight, [&] { return net_.pending_until(); },
        [&] {
          std::ostringstream os;
          net_.report_stuck(os);
          // Flits counted in the network that no buffer or channel holds
          // were lost: not a deadlock (exit 3 always names what is stuck).
          if (os.str().empty())
            throw ConservationError("flit conservation violated: " + std::to_string(in_flight) +
                                    " flit(s) counted in the network, none in any buffer or channel");
          return os.str();
        });
  }

  Network& net_;
  Clock clock_;
  Cycle watchdog_cycles_;
  Watchdog watchdog_;
  Cycle chunk_;  // cycles between checks
};

}  // namespace

nlohmann::ordered_json bisection_crossing(const Network& net) {
  std::uint64_t packets = 0, crossing = 0;
  for (auto& router : net.routers()) {
    const int k = router->radix();
    const auto& h = router->heatmap();
    for (int in = 0; in < k; ++in)
      for (int out = 0; out < k; ++out) {
        const std::uint64_t n = h[std::size_t(in) * k + out];
        packets += n;
        if ((in < k / 2) != (out < k / 2)) crossing += n;
      }
  }
  nlohmann::ordered_json j;
  j["packets"] = packets;
  j["bisection_crossing"] = crossing;
  j["bisection_crossing_fraction"] = packets ? double(crossing) / double(packets) : 0.0;
  return j;
}

int run_threads(const Config& cfg, bool packet_trace) {
  return cfg.get_string("router.allocator_impl") == "rtl" || packet_trace ? 1 : int(cfg.get_int("sim.threads"));
}

RunResult run_experiment(const Config& cfg, PerfResult* perf, const std::function<void(const Network&)>& inspect) {
  std::unique_ptr<Network> net = make_network(cfg, clock_from(cfg));
  RunResult r = run_network(cfg, *net, perf);
  if (inspect) inspect(*net);
  return r;
}

namespace {

// Open loop: warm-up, a window whose packets are marked, then a drain until
// the marked packets leave (at most sim.drain_cap_cycles).
void run_open(const Config& cfg, Network& net, Runner& runner, RunResult& r) {
  Endpoints& e = net.endpoints();
  const Cycle warmup = Cycle(cfg.get_int("sim.warmup_cycles"));
  const Cycle window = Cycle(cfg.get_int("sim.measure_cycles"));
  const Cycle drain_cap = Cycle(cfg.get_int("sim.drain_cap_cycles"));
  e.set_measure_window(warmup, warmup + window);
  runner.run_until(warmup, [] { return false; });
  const RouterActivity before = net.activity();
  runner.run_until(warmup + window, [] { return false; });
  r.window_activity = net.activity() - before;
  runner.run_until(warmup + window + drain_cap, [&] { return net.stats().outstanding() == 0; });

  const PacketStats& s = net.stats();
  const int nodes = e.nodes();
  const double capacity = double(nodes) * double(window) / net.serialization_cycles();
  r.offered_load = cfg.get_float("traffic.load");
  r.offered_load_measured = double(e.window_created_flits()) / capacity;
  std::uint64_t window_ejected = 0, min_node = ~std::uint64_t{0};
  for (int n = 0; n < nodes; ++n) {
    window_ejected += e.window_ejected_flits_of(n);
    min_node = std::min(min_node, e.window_ejected_flits_of(n));
  }
  r.accepted_load = double(window_ejected) / capacity;
  r.window_cycles = window;
  r.window_flits_ejected = window_ejected;
  r.accepted_min_node = double(min_node) * nodes / capacity;
  r.drained = s.outstanding() == 0;
  // Offered and accepted are counted over the same nodes x window cycles; below
  // saturation they differ only by the change of the flits in flight over the
  // window, far below 1 %.
  r.saturated = is_saturated(r.drained, r.accepted_load, r.offered_load_measured,
                             cfg.get_float("sim.saturation_accept_ratio"));
}

// Batch and trace: every packet is measured and the run ends when the last
// one is delivered (at most sim.max_cycles). The window is the whole run,
// from cycle 0 to the last delivery. Offered load: of a trace, all its flits
// over the cycles up to its last packet; of a batch, each node's flits over
// the cycles up to its last creation, averaged over the nodes. Accepted load
// is all flits delivered over the whole window.
void run_to_completion(const Config& cfg, Network& net, Runner& runner, RunResult& r) {
  Endpoints& e = net.endpoints();
  PacketStats& s = net.stats();
  e.set_measure_window(0, kNever);
  s.track_sources(e.nodes());
  const std::uint64_t total = net.finite_workload()->total_packets();
  const RouterActivity before = net.activity();
  runner.run_until(Cycle(cfg.get_int("sim.max_cycles")), [&] { return s.latency.count() == total; });
  r.window_activity = net.activity() - before;
  const bool trace = cfg.get_string("traffic.source") == "trace";
  summarize_completion(cfg, net, runner.now(), s.latency.count() == total, trace ? "trace" : "batch", r);
}

}  // namespace

void summarize_completion(const Config& cfg, const Network& net, Cycle now, bool drained, const std::string& workload,
                          RunResult& r) {
  const Endpoints& e = net.endpoints();
  const PacketStats& s = net.stats();
  const int nodes = e.nodes();
  // A trace (and an embedding's outside traffic) offers what it offers; a
  // batch offers traffic.load until each node's last creation.
  const bool as_trace = workload != "batch";
  r.workload = workload;
  r.drained = drained;
  r.saturated = !r.drained;
  const auto& last = s.last_delivery_by_source();
  const auto& count = s.delivered_by_source();
  std::uint64_t senders = 0, sum = 0, lo = ~std::uint64_t{0}, hi = 0;
  for (int n = 0; n < nodes; ++n) {
    if (!count[n]) continue;
    ++senders;
    sum += last[n];
    lo = std::min(lo, last[n]);
    hi = std::max(hi, last[n]);
  }
  r.completion_cycles = r.drained ? hi : 0;
  r.completion_node_min = senders ? lo : 0;
  r.completion_node_max = hi;
  r.completion_node_avg = senders ? double(sum) / double(senders) : 0.0;
  const Cycle window = r.drained ? hi + 1 : now;
  const double capacity = double(nodes) * double(window) / net.serialization_cycles();
  double offered = 0;
  std::uint64_t creators = 0;
  for (int n = 0; n < nodes; ++n) {
    if (!s.created_flits_by_source()[n]) continue;
    ++creators;
    offered += double(s.created_flits_by_source()[n]) * net.serialization_cycles() /
               double(s.last_created_by_source()[n] + 1);
  }
  r.offered_load_measured = creators ? offered / double(creators) : 0.0;
  if (as_trace)
    r.offered_load_measured = double(e.window_created_flits()) * net.serialization_cycles() /
                              (double(nodes) * double(s.last_created() + 1));
  r.offered_load = as_trace ? r.offered_load_measured : cfg.get_float("traffic.load");
  std::uint64_t ejected = 0, min_node = ~std::uint64_t{0};
  for (int n = 0; n < nodes; ++n) {
    ejected += e.window_ejected_flits_of(n);
    min_node = std::min(min_node, e.window_ejected_flits_of(n));
  }
  r.accepted_load = double(ejected) / capacity;
  r.accepted_min_node = double(min_node) * nodes / capacity;
  r.window_cycles = window;
  r.window_flits_ejected = ejected;
  // A trace the network cannot keep up with ends long after its last packet
  // was created. (A batch's end is set by its slowest node, so there only
  // not completing counts.)
  if (as_trace)
    r.saturated = is_saturated(r.drained, r.accepted_load, r.offered_load_measured,
                               cfg.get_float("sim.saturation_accept_ratio"));
}

void summarize_network(const Config& cfg, const Network& net, Cycle now, RunResult& r) {
  const Endpoints& e = net.endpoints();
  const PacketStats& s = net.stats();
  r.window_packets_ejected = e.window_ejected_packets();
  r.packets_measured = s.latency.count();
  r.latency_avg = s.latency.mean();
  r.latency_p50 = s.latency.percentile(0.5);
  r.latency_p99 = s.latency.percentile(0.99);
  r.latency_max = s.latency.max();
  r.network_latency_avg = s.network_latency.mean();
  r.hops_avg = s.hops.mean();
  r.cycles = now;
  r.flits_created = e.created_flits();
  r.flits_ejected = e.ejected_flits();
  r.flits_queued = e.queued_flits();
  r.flits_in_network = net.flits_in_network();
  r.flit_hops = net.flit_hops();
  r.power = network_power(cfg, net, r);
  if (cfg.get_bool("sim.heatmap")) r.heatmap = bisection_crossing(net);
  if (r.flits_created != r.flits_ejected + r.flits_queued + r.flits_in_network) {
    std::ostringstream os;
    os << "flit conservation violated: created " << r.flits_created << " != ejected " << r.flits_ejected
       << " + queued at sources " << r.flits_queued << " + in network " << r.flits_in_network;
    throw ConservationError(os.str());
  }
}

RunResult run_network(const Config& cfg, Network& network, PerfResult* perf) {
  Network* net = &network;
  const Clock clock = net->clock();
  if (cfg.get_string("traffic.source") == "external")
    throw ConfigError("config error: traffic.source = external takes its packets from TLM-2.0 initiators of an "
                      "embedding (nwn::TlmNetwork, docs/EMBEDDING.md); nwnsim runs synthetic or trace traffic");
  // Debug outputs, only when asked for: they hook in before the simulation starts.
  const auto tracer = attach_packet_tracer(cfg, *net);
  const auto vcd = make_occupancy_vcd(cfg, *net);
  // Threads and cycle blocks only change speed. What needs one thread, and
  // the occupancy VCD's per-cycle samples, run every component cycle by cycle.
  const int threads = run_threads(cfg, tracer != nullptr);
  const bool in_step = cfg.get_string("router.allocator_impl") == "rtl" || tracer || vcd;
  if (net->threads() == 0) net->start(threads, in_step ? 1 : int(cfg.get_int("sim.block_cycles")));

  const auto t0 = std::chrono::steady_clock::now();
  Runner runner(cfg, *net, clock);
  RunResult r;
  if (net->finite_workload()) run_to_completion(cfg, *net, runner, r);
  else run_open(cfg, *net, runner, r);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  summarize_network(cfg, *net, runner.now(), r);
  runner.settle();
  if (perf) {
    perf->wall_seconds = wall;
    perf->cycles_per_second = wall > 0 ? double(r.cycles) / wall : 0;
    perf->flit_hops_per_second = wall > 0 ? double(r.flit_hops) / wall : 0;
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    perf->peak_rss_mb = double(ru.ru_maxrss) / 1024.0;
    perf->threads = net->threads();
    perf->block_cycles = net->block_cycles();
  }
  return r;
}

}  // namespace nwn

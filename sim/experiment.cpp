#include "experiment.hpp"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "exchange.hpp"
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
  if (!latency_histogram.is_null()) j["latency_histogram"] = latency_histogram;
  if (!fairness.is_null()) j["fairness"] = fairness;
  if (!utilization.is_null()) j["utilization"] = utilization;
  if (!classes.is_null()) j["classes"] = classes;
  if (!size_classes.is_null()) j["size_classes"] = size_classes;
  if (!time_series.is_null()) j["time_series"] = time_series;
  if (!warmup_check.is_null()) j["warmup_check"] = warmup_check;
  return j;
}

nlohmann::ordered_json PerfResult::to_json() const {
  nlohmann::ordered_json j;
  j["wall_seconds"] = wall_seconds;
  j["cpu_seconds"] = cpu_seconds;
  j["cycles_per_second"] = cycles_per_second;
  j["flit_hops_per_second"] = flit_hops_per_second;
  j["peak_rss_mb"] = peak_rss_mb;
  j["threads"] = threads;
  j["block_cycles"] = block_cycles;
  j["block_colours"] = block_colours;
  j["huge_pages"] = huge_pages_requested();
  if (!thread_times.is_null()) j["thread_times"] = thread_times;
  if (ranks > 1) {
    j["ranks"] = ranks;
    if (colours_cost > 0) j["colours_cost"] = colours_cost;
    j["partition"] = partition;
    j["per_rank"] = per_rank;
  }
  return j;
}

std::string Watchdog::message(std::uint64_t now, std::uint64_t in_flight) const {
  std::ostringstream os;
  os << "deadlock: " << in_flight << " flit(s) in the network and none moved for " << now - last_progress_cycle_
     << " cycles (cycle " << now << "). Buffers holding flits:\n";
  return os.str();
}

namespace {

bool g_progress = false;

// CPU time of this process, all threads.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

class Runner {
 public:
  Runner(const Config& cfg, Network& net, const Clock& clock)
      : net_(net), clock_(clock), watchdog_cycles_(Cycle(cfg.get_int("sim.watchdog_cycles"))),
        watchdog_(watchdog_cycles_), chunk_(watchdog_.check_every()) {}

  ~Runner() {
    if (shown_ && tty_) std::cerr << "\r\033[K" << std::flush;
  }

  // Simulates up to cycle `until` (exclusive), or until `done` returns true,
  // which is asked every `every` cycles (0: every watchdog chunk). `phase`
  // names this part of the run in the progress line.
  template <typename Done>
  void run_until(Cycle until, Done done, const char* phase = "", Cycle every = 0) {
    const Cycle step = every ? std::min(every, chunk_) : chunk_;
    while (now() < until && !done()) {
      net_.advance(std::min(step, until - now()));
      check();
      if (g_progress) show_progress(phase, until);
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
  // A line on stderr after the first chunk (so even a short run asked for
  // progress shows one), then at most one a second, rewritten in place.
  void show_progress(const char* phase, Cycle until) {
    const auto t = std::chrono::steady_clock::now();
    if (shown_ && t - last_shown_ < std::chrono::seconds(1)) return;
    const double seconds = std::chrono::duration<double>(t - started_).count();
    last_shown_ = t;
    shown_ = true;
    std::cerr << fmt::format("{}nwnsim: cycle {} of {} ({}), {:.0f} cycles/s{}", tty_ ? "\r\033[K" : "", now(), until,
                             phase, double(now()) / std::max(seconds, 1e-9), tty_ ? "" : "\n")
              << std::flush;
  }

  // Under ranks, on the sums and maxima over all ranks: every rank sees the
  // same figures and takes the same decision.
  void check() {
    Endpoints& e = net_.endpoints();
    Ranks& ranks = net_.ranks();
    // Modulo 2^64: a rank may have ejected more than it created.
    std::uint64_t counts[2] = {e.created_flits() - e.ejected_flits() - e.queued_flits(),
                               net_.flit_hops() + e.ejected_flits()};
    ranks.sum(counts, 2);
    const std::uint64_t in_flight = counts[0];
    watchdog_.check(
        now(), counts[1], in_flight, [&] { return ranks.max(net_.pending_until()); },
        [&] {
          std::ostringstream os;
          net_.report_stuck(os);
          std::uint64_t length = 0;
          std::string report = gather_text(ranks, os.str(), &length);
          // Flits counted in the network that no buffer or channel holds
          // were lost: not a deadlock (exit 3 always names what is stuck).
          if (length == 0)
            throw ConservationError("flit conservation violated: " + std::to_string(in_flight) +
                                    " flit(s) counted in the network, none in any buffer or channel");
          return report;
        });
  }

  Network& net_;
  Clock clock_;
  Cycle watchdog_cycles_;
  Watchdog watchdog_;
  Cycle chunk_;  // cycles between checks
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now(), last_shown_ = started_;
  bool shown_ = false;
  const bool tty_ = isatty(2);  // a terminal: one line rewritten in place; else a line each time
};

}  // namespace

nlohmann::ordered_json bisection_crossing(const Network& net) {
  std::uint64_t counts[2] = {0, 0};
  std::uint64_t &packets = counts[0], &crossing = counts[1];
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
  net.ranks().sum(counts, 2);
  nlohmann::ordered_json j;
  j["packets"] = packets;
  j["bisection_crossing"] = crossing;
  j["bisection_crossing_fraction"] = packets ? double(crossing) / double(packets) : 0.0;
  return j;
}

namespace {

// The histogram's non-empty bins and its CDF (fraction of packets with at
// most that latency); percentiles read from it equal Histogram::percentile.
nlohmann::ordered_json histogram_json(const Histogram& h) {
  nlohmann::ordered_json values = nlohmann::ordered_json::array(), counts = values, cdf = values;
  std::uint64_t seen = 0;
  for (std::size_t v = 0; v < h.counts().size(); ++v) {
    if (!h.counts()[v]) continue;
    seen += h.counts()[v];
    values.push_back(v);
    counts.push_back(h.counts()[v]);
    cdf.push_back(double(seen) / double(h.count()));
  }
  nlohmann::ordered_json j;
  j["latency"] = values;
  j["packets"] = counts;
  j["cdf"] = cdf;
  return j;
}

// Flits per node over the window, as load (flits / capacity_flits), with
// Jain's fairness index (1: every node the same) and the extreme nodes.
nlohmann::ordered_json per_node_json(const std::vector<std::uint64_t>& flits, double capacity_flits) {
  nlohmann::ordered_json j;
  double sum = 0, squares = 0;
  std::size_t lo = 0, hi = 0;
  for (std::size_t n = 0; n < flits.size(); ++n) {
    sum += double(flits[n]);
    squares += double(flits[n]) * double(flits[n]);
    if (flits[n] < flits[lo]) lo = n;
    if (flits[n] > flits[hi]) hi = n;
  }
  j["flits"] = flits;
  j["jain_index"] = squares > 0 ? sum * sum / (double(flits.size()) * squares) : 1.0;
  j["min_node"] = lo;
  j["min_accepted_load"] = flits.empty() ? 0.0 : double(flits[lo]) / capacity_flits;
  j["max_node"] = hi;
  j["max_accepted_load"] = flits.empty() ? 0.0 : double(flits[hi]) / capacity_flits;
  return j;
}

// Flits sent so far on each router output channel (router by router, port
// by port: to routers and to terminals) and on each node's injection and
// ejection channel. Two counts a run: no cost per flit.
struct ChannelCounts {
  std::vector<std::vector<std::uint64_t>> router_ports;
  std::vector<std::uint64_t> inject, eject;
};

ChannelCounts channel_counts(Network& net) {
  ChannelCounts c;
  c.router_ports.resize(std::size_t(net.router_count()));
  for (auto& r : net.routers()) {
    std::vector<std::uint64_t>& ports = c.router_ports.at(std::size_t(r->id()));
    for (const PortAttachment& a : r->description().outputs) {
      const Link* l = r->subswitches()[a.ss]->output_link(a.port);
      ports.push_back(l ? l->flits_sent() : 0);
    }
  }
  const Endpoints& e = net.endpoints();
  c.inject.assign(std::size_t(e.nodes()), 0);
  c.eject.assign(std::size_t(e.nodes()), 0);
  for (int n = 0; n < e.nodes(); ++n) {
    if (!e.has(n)) continue;
    c.inject[std::size_t(n)] = net.endpoints().inject_link(n)->flits_sent();
    c.eject[std::size_t(n)] = net.endpoints().eject_link(n)->flits_sent();
  }
  Ranks& ranks = net.ranks();
  if (!ranks.distributed()) return c;
  // Every router of a graph network has the same ports.
  const std::size_t ports = std::size_t(ranks.max(net.routers().front()->description().outputs.size()));
  std::vector<std::uint64_t> flat(c.router_ports.size() * ports, 0);
  for (std::size_t r = 0; r < c.router_ports.size(); ++r)
    std::copy(c.router_ports[r].begin(), c.router_ports[r].end(), flat.begin() + std::ptrdiff_t(r * ports));
  ranks.sum(flat);
  for (std::size_t r = 0; r < c.router_ports.size(); ++r)
    c.router_ports[r].assign(flat.begin() + std::ptrdiff_t(r * ports), flat.begin() + std::ptrdiff_t((r + 1) * ports));
  ranks.sum(c.inject);
  ranks.sum(c.eject);
  return c;
}

// Activity summed over the routers of every rank.
RouterActivity total_activity(const Network& net) {
  RouterActivity a = net.activity();
  Ranks& ranks = net.ranks();
  if (!ranks.distributed()) return a;
  std::vector<std::uint64_t> flat;
  for (const SubswitchActivity& s : a.subswitches) flat.insert(flat.end(), {s.buffer_writes, s.buffer_reads, s.crossbar_flits});
  flat.insert(flat.end(), a.channel_flits.begin(), a.channel_flits.end());
  ranks.sum(flat);
  for (std::size_t i = 0; i < a.subswitches.size(); ++i)
    a.subswitches[i] = {flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]};
  std::copy(flat.begin() + std::ptrdiff_t(3 * a.subswitches.size()), flat.end(), a.channel_flits.begin());
  return a;
}

// Flits each node ejected in the window, over all ranks.
std::vector<std::uint64_t> window_ejected_by_node(const Network& net) {
  const Endpoints& e = net.endpoints();
  std::vector<std::uint64_t> flits(std::size_t(e.nodes()), 0);
  for (int n = 0; n < e.nodes(); ++n) flits[std::size_t(n)] = e.window_ejected_flits_of(n);
  net.ranks().sum(flits);
  return flits;
}

// Utilization between two counts over `window` cycles: the fraction of the
// window each channel carried a flit.
nlohmann::ordered_json utilization_json(const ChannelCounts& before, const ChannelCounts& after, Cycle window,
                                        int serialization) {
  const double per_flit = window ? double(serialization) / double(window) : 0.0;
  auto fractions = [&](const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < b.size(); ++i) out.push_back(double(b[i] - (i < a.size() ? a[i] : 0)) * per_flit);
    return out;
  };
  nlohmann::ordered_json ports = nlohmann::ordered_json::array();
  double sum = 0, busiest = -1;
  std::size_t count = 0, busiest_router = 0, busiest_port = 0;
  for (std::size_t r = 0; r < after.router_ports.size(); ++r) {
    const auto u = fractions(r < before.router_ports.size() ? before.router_ports[r] : std::vector<std::uint64_t>{},
                             after.router_ports[r]);
    for (std::size_t p = 0; p < u.size(); ++p) {
      const double x = u[p].get<double>();
      sum += x;
      ++count;
      if (x > busiest) {
        busiest = x;
        busiest_router = r;
        busiest_port = p;
      }
    }
    ports.push_back(u);
  }
  nlohmann::ordered_json j;
  j["window_cycles"] = window;
  j["router_port_avg"] = count ? sum / double(count) : 0.0;
  j["router_port_max"] = std::max(busiest, 0.0);
  j["busiest_router"] = busiest_router;
  j["busiest_port"] = busiest_port;
  j["router_ports"] = ports;
  j["node_injection"] = fractions(before.inject, after.inject);
  j["node_ejection"] = fractions(before.eject, after.eject);
  return j;
}

// The statistics beyond the summary that every run has (RunResult's comment).
void summarize_distributions(const Network& net, Cycle now, RunResult& r) {
  const Endpoints& e = net.endpoints();
  const PacketStats& s = net.stats();
  const int nodes = e.nodes();
  r.latency_histogram = histogram_json(s.latency);
  const double capacity = double(r.window_cycles) / net.serialization_cycles();  // flits per node in the window
  if (!s.window_flits_by_source().empty() && r.window_cycles > 0) {
    const std::vector<std::uint64_t> by_destination = window_ejected_by_node(net);
    r.fairness["capacity_flits_per_node"] = capacity;
    r.fairness["by_source"] = per_node_json(s.window_flits_by_source(), capacity);
    r.fairness["by_destination"] = per_node_json(by_destination, capacity);
  }
  const auto& by_class = s.latency_by_class();
  for (std::size_t c = 0; c < by_class.size(); ++c) {
    nlohmann::ordered_json k;
    k["class"] = c;
    k["packets_measured"] = by_class[c].count();
    k["latency_avg"] = by_class[c].mean();
    k["latency_p50"] = by_class[c].percentile(0.5);
    k["latency_p99"] = by_class[c].percentile(0.99);
    k["latency_max"] = by_class[c].max();
    r.classes.push_back(k);
  }
  for (const SizeClass& size : s.size_classes()) {
    nlohmann::ordered_json k;
    k["packet_flits"] = size.packet_flits;
    k["packets_measured"] = size.latency.count();
    k["latency_avg"] = size.latency.mean();
    k["latency_p50"] = size.latency.percentile(0.5);
    k["latency_p99"] = size.latency.percentile(0.99);
    k["latency_max"] = size.latency.max();
    k["window_flits"] = size.window_flits;
    k["accepted_load"] = r.window_cycles > 0 ? double(size.window_flits) / (capacity * nodes) : 0.0;
    r.size_classes.push_back(k);
  }
  if (const Cycle sampled = s.sample_cycles(); sampled > 0) {
    nlohmann::ordered_json start = nlohmann::ordered_json::array(), packets = start, load = start, latency = start;
    // The intervals up to `now`, at most PacketStats::kMaxIntervals of
    // them: after the last delivery a run may idle far longer (merged as
    // PacketStats does, the intervals doubled until they fit).
    Cycle every = sampled;
    while (now > 0 && (now - 1) / every >= PacketStats::kMaxIntervals) every *= 2;
    for (Cycle begin = 0; begin < now; begin += every) {
      Interval in;
      for (std::size_t i = std::size_t(begin / sampled); i < s.series().size() && i < (begin + every) / sampled; ++i)
        in += s.series()[i];
      const Cycle length = std::min(every, now - begin);
      start.push_back(begin);
      packets.push_back(in.packets);
      load.push_back(double(in.flits) * net.serialization_cycles() / (double(nodes) * double(length)));
      latency.push_back(in.packets ? double(in.latency_sum) / double(in.packets) : 0.0);
    }
    r.time_series["sample_cycles"] = every;
    r.time_series["cycle"] = start;
    r.time_series["packets"] = packets;
    r.time_series["accepted_load"] = load;
    r.time_series["latency_avg"] = latency;
  }
}

// Whether the warm-up was long enough: the window's first interval against
// its second half. Latency at the start of the window off the second half's
// by more than 10 % and by more than 3 standard deviations of the second
// half's interval means (batch means: packets of one interval are
// correlated) means the network had not settled when measurement began.
nlohmann::ordered_json check_warmup(const PacketStats& s, Cycle warmup, Cycle window) {
  nlohmann::ordered_json j;
  const Cycle every = s.sample_cycles();
  const Cycle first = every ? (warmup + every - 1) / every : 0;  // the first interval wholly in the window
  const Cycle end = every ? (warmup + window) / every : 0;       // past the last one
  if (every == 0 || end < first + 4) {
    j["checked"] = false;
    j["reason"] = every == 0 ? "sim.sample_cycles = 0" : "the window holds fewer than four intervals of sim.sample_cycles";
    return j;
  }
  auto mean = [&](Cycle i) {
    const Interval in = i < s.series().size() ? s.series()[i] : Interval{};
    return in.packets ? double(in.latency_sum) / double(in.packets) : 0.0;
  };
  double packets = 0, sum = 0, means = 0, squares = 0;
  const Cycle half = first + (end - first + 1) / 2;
  for (Cycle i = half; i < end && i < s.series().size(); ++i) {
    packets += double(s.series()[i].packets);
    sum += double(s.series()[i].latency_sum);
    means += mean(i);
    squares += mean(i) * mean(i);
  }
  const double n = double(end - half);
  const double a = mean(first), b = packets ? sum / packets : 0.0;
  const double spread = n > 1 ? std::sqrt(std::max(0.0, (squares - means * means / n) / (n - 1))) : 0.0;
  const bool settled = a == 0 || b == 0 || std::abs(a - b) <= std::max(0.1 * b, 3 * spread);
  j["checked"] = true;
  j["converged"] = settled;
  j["first_interval_latency_avg"] = a;
  j["second_half_latency_avg"] = b;
  if (!settled)
    j["message"] = fmt::format(
        "warm-up may be too short: packets delivered in the window's first {} cycles averaged {:.1f} cycles of "
        "latency, in its second half {:.1f}; raise sim.warmup_cycles (now {})",
        every, a, b, warmup);
  return j;
}

}  // namespace

void show_progress(bool on) { g_progress = on; }

int run_threads(const Config& cfg, bool packet_trace) {
  return cfg.get_string("router.allocator_impl") == "rtl" || packet_trace ? 1 : int(cfg.get_int("sim.threads"));
}

int run_block_cycles(const Config& cfg, bool packet_trace, bool vcd, int blocks) {
  return cfg.get_string("router.allocator_impl") == "rtl" || packet_trace || vcd ? 1 : blocks;
}

int exit_code_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const RanksFailed& e) {
    return e.code;
  } catch (const ConfigError&) {
    return 2;
  } catch (const std::invalid_argument&) {
    return 2;
  } catch (const DeadlockError&) {
    return 3;
  } catch (const ConservationError&) {
    return 4;
  } catch (...) {
    return 1;
  }
}

namespace {

// Every rank built its share, or all stop: the highest exit code wins, and
// one rank reports (rank 0 if it failed, else the lowest that did).
void agree_on_build(Ranks& ranks, const std::exception_ptr& error) {
  const std::uint64_t n = std::uint64_t(ranks.size());
  std::uint64_t v[3] = {error ? std::uint64_t(exit_code_of(error)) : 0, error ? std::uint64_t(ranks.rank()) : n, 0};
  ranks.max(v, 1);
  ranks.min(v + 1, 1);
  if (v[0] == 0) return;
  throw RanksFailed(int(v[0]), error, error && v[1] == std::uint64_t(ranks.rank()));
}

}  // namespace

RunResult run_experiment(const Config& cfg, PerfResult* perf, const std::function<void(const Network&)>& inspect,
                         Ranks& ranks, NetworkAfterRun after) {
  std::unique_ptr<Network> net;
  if (!ranks.distributed()) {
    net = make_network(cfg, clock_from(cfg));
  } else {
    std::exception_ptr error;
    try {
      net = make_network(cfg, clock_from(cfg), ranks);
    } catch (...) {
      error = std::current_exception();
    }
    agree_on_build(ranks, error);
  }
  RunResult r = run_network(cfg, *net, perf);
  if (inspect) inspect(*net);
  if (after == NetworkAfterRun::LeaveToExit && cfg.get_string("router.allocator_impl") != "rtl") {
    net->stop_threads();
    // Reachable from here until the exit: not a leak (LeakSanitizer agrees).
    static std::vector<std::unique_ptr<Network>>* const left = new std::vector<std::unique_ptr<Network>>;
    left->push_back(std::move(net));
  }
  return r;
}

int run_on_ranks(Ranks& ranks, const std::function<int()>& command) {
  if (!ranks.distributed()) return command();
  try {
    return command();
  } catch (const RanksFailed& e) {
    ranks.set_failure_agreed();
    if (e.report && e.error) std::rethrow_exception(e.error);
    return e.code;
  } catch (const DeadlockError&) {
    ranks.set_failure_agreed();
    if (ranks.root()) throw;  // every rank saw it; rank 0 holds the whole report
    return 3;
  } catch (const ConservationError&) {
    ranks.set_failure_agreed();
    if (ranks.root()) throw;
    return 4;
  } catch (const std::exception& e) {
    std::cerr << fmt::format("nwnsim: rank {} of {}: error: {}\n", ranks.rank(), ranks.size(), e.what());
    const int code = exit_code_of(std::current_exception());
    ranks.abort(code);
    return code;  // not reached
  }
}

namespace {

// Where the threads' time went (PerfResult::thread_times): the phases'
// wall time, and per thread what it ran, published and waited (the rest of
// the phases); null with one thread or under ranks.
nlohmann::ordered_json thread_figures(const Kernel::ThreadTimes& t) {
  if (t.threads.empty()) return nullptr;
  nlohmann::ordered_json j;
  j["run_phase_seconds"] = t.run_phase_seconds;
  j["publish_phase_seconds"] = t.publish_phase_seconds;
  j["end_block_seconds"] = t.end_block_seconds;
  nlohmann::ordered_json threads = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < t.threads.size(); ++i) {
    const Kernel::ThreadTime& x = t.threads[i];
    const double busy = x.run_seconds + x.publish_seconds + (i == 0 ? t.end_block_seconds : 0.0);
    nlohmann::ordered_json o;
    o["run_seconds"] = x.run_seconds;
    o["publish_seconds"] = x.publish_seconds;
    o["waiting_seconds"] = t.run_phase_seconds + t.publish_phase_seconds - busy;  // the phases' clocks hold busy's
    o["chunks"] = x.chunks;
    o["taken_chunks"] = x.taken_chunks;
    threads.push_back(o);
  }
  j["threads"] = threads;
  return j;
}

// Each rank's share and what it spent (PerfResult::per_rank), on rank 0.
nlohmann::ordered_json rank_figures(const Network& net, double wall_seconds, double peak_rss_mb) {
  const ExchangeFigures x = net.exchange_figures();
  int nodes = 0;
  for (int n = 0; n < net.endpoints().nodes(); ++n) nodes += net.endpoints().has(n);
  nlohmann::ordered_json j;
  j["rank"] = net.ranks().rank();
  j["routers"] = net.routers().size();
  j["nodes"] = nodes;
  j["peak_rss_mb"] = peak_rss_mb;
  j["wall_seconds"] = wall_seconds;
  j["exchange_seconds"] = x.seconds;  // packing, MPI (waiting included) and unpacking
  j["compute_seconds"] = wall_seconds - x.seconds;
  j["wait_seconds"] = net.ranks().wait_seconds();  // blocked in MPI (exchanges and every collective)
  j["blocks"] = x.blocks;
  j["neighbours"] = x.neighbours;
  j["channels_to_other_ranks"] = x.channels;
  j["bytes_sent"] = x.bytes_sent;
  j["flits_sent"] = x.flits_sent;
  j["credits_sent"] = x.credits_sent;
  j["bytes_per_block"] = x.blocks ? double(x.bytes_sent) / double(x.blocks) : 0.0;
  j["exchange_us_per_block"] = x.blocks ? x.seconds / double(x.blocks) * 1e6 : 0.0;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& one : net.ranks().gather(j.dump())) all.push_back(nlohmann::ordered_json::parse(one));
  return all;
}

// Open loop: warm-up, a window whose packets are marked, then a drain until
// the marked packets leave (at most sim.drain_cap_cycles).
void run_open(const Config& cfg, Network& net, Runner& runner, RunResult& r) {
  Endpoints& e = net.endpoints();
  const Cycle warmup = Cycle(cfg.get_int("sim.warmup_cycles"));
  const Cycle window = Cycle(cfg.get_int("sim.measure_cycles"));
  const Cycle drain_cap = Cycle(cfg.get_int("sim.drain_cap_cycles"));
  e.set_measure_window(warmup, warmup + window);
  track_statistics(cfg, net, warmup + window + drain_cap);
  runner.run_until(warmup, [] { return false; }, "warm-up");
  const RouterActivity before = total_activity(net);
  const ChannelCounts sent_before = channel_counts(net);
  runner.run_until(warmup + window, [] { return false; }, "measurement window");
  r.window_activity = total_activity(net) - before;
  r.utilization = utilization_json(sent_before, channel_counts(net), window, net.serialization_cycles());
  Ranks& ranks = net.ranks();
  // The sources keep injecting while the drain lasts, so a drain cycle costs
  // what a window cycle does: the drain ends at the first multiple of
  // kDrainCheckCycles after the window with the marked packets out (as
  // BookSim2's, within that many cycles), not at the watchdog's next chunk
  // of up to 1,000 cycles. A multiple of the usual 10-cycle block.
  constexpr Cycle kDrainCheckCycles = 10;
  runner.run_until(warmup + window + drain_cap, [&] { return ranks.sum(net.stats().outstanding()) == 0; },
                   "drain, at most", kDrainCheckCycles);
  net.stats().combine(ranks);

  const PacketStats& s = net.stats();
  const int nodes = e.nodes();
  const double capacity = double(nodes) * double(window) / net.serialization_cycles();
  r.offered_load = cfg.get_float("traffic.load");
  r.offered_load_measured = double(ranks.sum(e.window_created_flits())) / capacity;
  std::uint64_t window_ejected = 0, min_node = ~std::uint64_t{0};
  for (std::uint64_t flits : window_ejected_by_node(net)) {
    window_ejected += flits;
    min_node = std::min(min_node, flits);
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
  r.warmup_check = check_warmup(s, warmup, window);
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
  track_statistics(cfg, net, 0);
  const std::uint64_t total = net.finite_workload()->total_packets();
  const RouterActivity before = total_activity(net);
  Ranks& ranks = net.ranks();
  runner.run_until(Cycle(cfg.get_int("sim.max_cycles")), [&] { return ranks.sum(s.latency.count()) == total; },
                   "until every packet is delivered, at most");
  r.window_activity = total_activity(net) - before;
  s.combine(ranks);
  const bool trace = cfg.get_string("traffic.source") == "trace";
  summarize_completion(cfg, net, runner.now(), s.latency.count() == total, trace ? "trace" : "batch", r);
  summarize_utilization(net, r);
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
    r.offered_load_measured = double(net.ranks().sum(e.window_created_flits())) * net.serialization_cycles() /
                              (double(nodes) * double(s.last_created() + 1));
  r.offered_load = as_trace ? r.offered_load_measured : cfg.get_float("traffic.load");
  std::uint64_t ejected = 0, min_node = ~std::uint64_t{0};
  for (std::uint64_t flits : window_ejected_by_node(net)) {
    ejected += flits;
    min_node = std::min(min_node, flits);
  }
  r.accepted_load = double(ejected) / capacity;
  r.accepted_min_node = double(min_node) * nodes / capacity;
  r.window_cycles = window;
  r.window_flits_ejected = ejected;
  // A trace the network cannot keep up with ends long after its last packet
  // was created. One that keeps up ends about a packet latency after it, so
  // the test leaves the mean latency out of the window: a 3 % trace with a
  // 14-cycle latency over 250 cycles is not saturated, a growing backlog is.
  // (A batch's end is set by its slowest node, so there only not completing
  // counts.)
  if (as_trace) {
    const double span = std::max(1.0, double(window) - s.latency.mean());
    const double kept_up = double(ejected) * net.serialization_cycles() / (double(nodes) * span);
    r.saturated =
        is_saturated(r.drained, kept_up, r.offered_load_measured, cfg.get_float("sim.saturation_accept_ratio"));
  }
}

void summarize_utilization(Network& net, RunResult& r) {
  // The window is the whole run up to the last delivery (summarize_completion).
  r.utilization = utilization_json({}, channel_counts(net), r.window_cycles, net.serialization_cycles());
}

void track_statistics(const Config& cfg, Network& net, Cycle expected_cycles) {
  PacketStats& s = net.stats();
  s.track_window_sources(net.endpoints().nodes());
  s.track_classes(message_classes(cfg));
  if (cfg.get_string("traffic.source") == "synthetic" && cfg.get_string("traffic.size_mix") == "bimodal")
    s.track_sizes({int(cfg.get_int("traffic.bimodal_small_flits")), int(cfg.get_int("traffic.bimodal_large_flits"))});
  s.sample_every(Cycle(cfg.get_int("sim.sample_cycles")), expected_cycles);
}

void summarize_network(const Config& cfg, const Network& net, Cycle now, RunResult& r) {
  const Endpoints& e = net.endpoints();
  const PacketStats& s = net.stats();
  // This rank's counts, summed over the ranks.
  std::uint64_t counts[] = {e.window_ejected_packets(), e.created_flits(),       e.ejected_flits(),
                            e.queued_flits(),           net.flits_in_network(), net.flit_hops()};
  net.ranks().sum(counts, std::size(counts));
  r.window_packets_ejected = counts[0];
  r.packets_measured = s.latency.count();
  r.latency_avg = s.latency.mean();
  r.latency_p50 = s.latency.percentile(0.5);
  r.latency_p99 = s.latency.percentile(0.99);
  r.latency_max = s.latency.max();
  r.network_latency_avg = s.network_latency.mean();
  r.hops_avg = s.hops.mean();
  r.cycles = now;
  r.flits_created = counts[1];
  r.flits_ejected = counts[2];
  r.flits_queued = counts[3];
  r.flits_in_network = counts[4];
  r.flit_hops = counts[5];
  r.power = network_power(cfg, net, r);
  if (cfg.get_bool("sim.heatmap")) r.heatmap = bisection_crossing(net);
  summarize_distributions(net, now, r);
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
  if (net->threads() == 0)
    net->start(run_threads(cfg, tracer != nullptr),
               run_block_cycles(cfg, tracer != nullptr, vcd != nullptr, int(cfg.get_int("sim.block_cycles"))));

  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  Runner runner(cfg, *net, clock);
  RunResult r;
  if (net->finite_workload()) run_to_completion(cfg, *net, runner, r);
  else run_open(cfg, *net, runner, r);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = process_cpu_seconds() - cpu0;

  summarize_network(cfg, *net, runner.now(), r);
  runner.settle();
  if (perf) {
    perf->wall_seconds = wall;
    perf->cpu_seconds = cpu;
    perf->cycles_per_second = wall > 0 ? double(r.cycles) / wall : 0;
    perf->flit_hops_per_second = wall > 0 ? double(r.flit_hops) / wall : 0;
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    perf->peak_rss_mb = double(ru.ru_maxrss) / 1024.0;
    perf->threads = net->threads();
    perf->block_cycles = net->block_cycles();
    perf->block_colours = net->block_colours();
    if (net->kernel()) perf->thread_times = thread_figures(net->kernel()->thread_times());
    perf->colours_cost = net->colours_cost();
    perf->partition = net->partition();
    if (net->ranks().distributed()) {
      perf->ranks = net->ranks().size();
      perf->peak_rss_mb = double(net->ranks().max(std::uint64_t(ru.ru_maxrss))) / 1024.0;
      perf->per_rank = rank_figures(*net, wall, double(ru.ru_maxrss) / 1024.0);
    }
  }
  return r;
}

}  // namespace nwn

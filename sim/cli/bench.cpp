// nwnsim bench: simulation speed and memory on fixed cases, each run alone
// in a child nwnsim (timings must not share cores): single routers of
// several organizations, the RTL allocators against the C++ ones, and
// 4,096-node (with --large, 32,768-node) folded Closes on one thread and on
// several, the 4,096-node fat tree of the BookSim2 speed comparison
// (scripts/speed-booksim), and with --huge the cost per flit-hop of HyperX
// networks of 4,096, 32,768 and 131,072 nodes. docs/RESULTS.md ("Simulation
// speed") and docs/SCALING.md record the figures.
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <iostream>
#include <thread>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "../../models/allocator.hpp"
#include "../config.hpp"
#include "../process.hpp"
#include "../provenance.hpp"
#include "../report.hpp"
#include "cli.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct BenchCase {
  std::string name;
  std::vector<std::string> sets;
};

std::vector<std::string> with(std::vector<std::string> a, std::initializer_list<std::string> b) {
  a.insert(a.end(), b);
  return a;
}

// A cycle carries one flit per channel here (64-bit flits on 64-bit
// channels), as in BookSim, so cycles per second compare one to one.
std::vector<std::string> common_sets(bool quick) {
  const std::string cycles = quick ? "5000" : "50000";
  return {"flit.bits=64", "channel.width_bits=64", "router.vcs=4",
          "router.vc_depth_flits=16", "traffic.packet_flits=1",
          "router.allocator_iterations=1", "sim.warmup_cycles=1000",
          "sim.measure_cycles=" + cycles};
}

// Single routers, and the Verilated allocators in place of the C++ ones
// (router.allocator_impl = rtl): the same point both ways, at sizes the build
// has RTL for (2 VCs).
std::vector<BenchCase> router_cases() {
  std::vector<BenchCase> all = {
      {"cn64-ur-0.3", {"router.org=cn", "router.radix=64", "traffic.load=0.3"}},
      {"cn64-ur-0.5", {"router.org=cn", "router.radix=64", "traffic.load=0.5"}},
      {"cn64-ur-0.6", {"router.org=cn", "router.radix=64", "traffic.load=0.6"}},
      {"cn64-ur-0.5-1vc", {"router.org=cn", "router.radix=64", "traffic.load=0.5", "router.vcs=1"}},
      // Multi-subswitch organizations: cost per flit-hop against cn's.
      {"hc64-ur-0.5", {"router.org=hc", "router.radix=64", "traffic.load=0.5"}},
      {"fc64-ur-0.5", {"router.org=fc", "router.radix=64", "traffic.load=0.5"}},
  };
  if (rtl_allocator_registry().empty()) return all;
  const std::vector<std::string> small = {"router.vcs=2", "traffic.load=0.5"};
  all.push_back({"cn8-ur-0.5-2vc", with(small, {"router.org=cn", "router.radix=8"})});
  all.push_back({"cn8-ur-0.5-2vc-rtl", with(small, {"router.org=cn", "router.radix=8", "router.allocator_impl=rtl"})});
  all.push_back({"fc16-ur-0.5-2vc", with(small, {"router.org=fc", "router.radix=16"})});
  all.push_back({"fc16-ur-0.5-2vc-rtl", with(small, {"router.org=fc", "router.radix=16", "router.allocator_impl=rtl"})});
  return all;
}

// Global networks: the 4,096-node 3-level folded Clos of radix-32 routers
// (768 routers) at 0.3 uniform load, with ideal single-crossbar routers and
// with fc internal detail in every router; with `large`, 32,768 nodes (3
// levels of 1,024 radix-64 routers), whose cost per flit-hop against the
// 4,096-node network's says how it scales. Each on one thread and on `threads`
// (same results, bit for bit).
void add_network_cases(std::vector<BenchCase>& all, bool quick, bool large, int threads) {
  auto network_case = [&](const std::string& name, const std::vector<std::string>& sets) {
    all.push_back({name + "-1t", with(sets, {"sim.threads=1"})});
    if (threads > 1) all.push_back({fmt::format("{}-{}t", name, threads), with(sets, {fmt::format("sim.threads={}", threads)})});
  };
  const std::vector<std::string> fclos = {"network.topology=fclos", "router.radix=32", "network.fclos_levels=3",
                                          "traffic.load=0.3", "sim.warmup_cycles=200",
                                          quick ? "sim.measure_cycles=300" : "sim.measure_cycles=1500",
                                          "sim.drain_cap_cycles=2000"};
  network_case("fclos4096-cn32-ur-0.3", with(fclos, {"router.org=cn"}));
  network_case("fclos4096-fc32-ur-0.3", with(fclos, {"router.org=fc"}));
  // The fat tree of issue 23's table against BookSim2 (scripts/speed-booksim,
  // which runs both tools): BookSim2's iq router timing
  // (configs/booksim-compat.toml) on the folded Clos of scripts/compare-booksim,
  // router-to-router channels of 1 and of 10 cycles.
  const std::vector<std::string> booksim_fat_tree = {
      "router.org=cn", "network.topology=fclos", "router.radix=32", "network.fclos_levels=3",
      "network.routing=random", "router.next_head_delay_cycles=1", "router.va_requires_credit=false",
      "channel.inject_latency_cycles=2", "channel.credit_latency_cycles=2", "traffic.load=0.3",
      "sim.warmup_cycles=200", quick ? "sim.measure_cycles=300" : "sim.measure_cycles=1500",
      "sim.drain_cap_cycles=2000"};
  network_case("fattree4096-compat-link1-ur-0.3", with(booksim_fat_tree, {"network.link_latency_cycles=1"}));
  network_case("fattree4096-compat-link10-ur-0.3", with(booksim_fat_tree, {"network.link_latency_cycles=10"}));
  if (!large) return;
  const std::vector<std::string> big = {"network.topology=fclos", "router.radix=64", "network.fclos_levels=3",
                                        "traffic.load=0.3", "sim.warmup_cycles=200", "sim.measure_cycles=300",
                                        "sim.drain_cap_cycles=2000"};
  network_case("fclos32768-cn64-ur-0.3", with(big, {"router.org=cn"}));
  network_case("fclos32768-fc64-ur-0.3", with(big, {"router.org=fc"}));
}

// The cost per flit-hop as networks grow (issue 23: flat within 1.3x from
// 4k to 131k nodes): one HyperX family, 32 terminals and 2 parallel links
// per router pair (the HyperX paper's Table 1 design at beta = 0.5),
// radix-128 routers of organization `org`, sized to 4,096, 32,768 and
// 131,072 nodes (only S changes: 8x16, 8x8x16, 16x16x16; 76, 90 and 122
// ports used), at uniform 0.3, one thread. No dimension is smaller than 8:
// a dimension of 4 routers has 6 links per router for the 7.2 flits a cycle
// that cross it, and saturates (4x4x8 did). The last is the paper's network
// (docs/SCALING.md): with fc routers about 7 GB and several CPU-minutes.
std::vector<BenchCase> huge_cases(const std::string& org) {
  std::vector<BenchCase> all;
  const std::pair<const char*, const char*> sizes[] = {{"4096", "8,16"}, {"32768", "8,8,16"}, {"131072", "16,16,16"}};
  for (const auto& [nodes, s] : sizes)
    all.push_back({fmt::format("hyperx{}-{}128-ur-0.3", nodes, org),
                   {fmt::format("router.org={}", org), "network.topology=hyperx",
                    fmt::format("network.hyperx_s={}", s), "network.hyperx_k=2", "network.hyperx_t=32",
                    "router.radix=128", "traffic.load=0.3", "sim.warmup_cycles=100", "sim.measure_cycles=200",
                    "sim.drain_cap_cycles=2000", "sim.threads=1"}});
  return all;
}

double children_user_cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_CHILDREN, &r);
  return double(r.ru_utime.tv_sec) + double(r.ru_utime.tv_usec) * 1e-6;
}

// The settings of case `c` as `nwnsim run` arguments: the common ones, then
// the case's own (the later of two settings of a key wins).
std::vector<std::string> set_args(const std::vector<std::string>& common, const BenchCase& c) {
  std::vector<std::string> args;
  for (const auto* sets : {&common, &c.sets})
    for (auto& s : *sets) args.insert(args.end(), {"--set", s});
  return args;
}

// Runs one case alone; its row of the table and its measurement (null: it failed).
json measure(const BenchCase& c, const std::vector<std::string>& common, const fs::path& tmp, Table& t) {
  std::vector<Job> job(1);
  job[0].args = {"run", "--quiet", "--perf-json", (tmp / "perf.json").string(), "--json", (tmp / "run.json").string()};
  const std::vector<std::string> sets = set_args(common, c);
  job[0].args.insert(job[0].args.end(), sets.begin(), sets.end());
  const double user_cpu_before = children_user_cpu_seconds();
  run_jobs(job, 1, [](std::size_t) {});  // one at a time: timings must not share cores
  // The whole child's user CPU (start, building the network, the run): on a
  // shared machine it says what the run cost where its wall time cannot.
  const double user_cpu_s = children_user_cpu_seconds() - user_cpu_before;
  if (job[0].exit_code != 0) {
    t.rows.push_back({c.name, "failed"});
    return json();
  }
  json perf = json::parse(read_file((tmp / "perf.json").string()));
  json run = json::parse(read_file((tmp / "run.json").string()));
  const double hops_s = perf["flit_hops_per_second"].get<double>();
  const double sim_cpu_s = perf["cpu_seconds"].get<double>();  // the simulation's alone: no start, build or teardown
  const auto flit_hops = run["results"]["flit_hops"].get<std::uint64_t>();
  t.rows.push_back({c.name, std::to_string(perf["threads"].get<int>()),
                    std::to_string(run["results"]["cycles"].get<std::uint64_t>()),
                    fmt::format("{:.2f}", perf["wall_seconds"].get<double>()),
                    fmt::format("{:.0f}", perf["cycles_per_second"].get<double>()), fmt::format("{:.3g}", hops_s),
                    fmt::format("{:.1f}", hops_s > 0 ? 1e9 / hops_s : 0.0),
                    fmt::format("{:.2f}", user_cpu_s),
                    fmt::format("{:.1f}", flit_hops > 0 ? 1e9 * user_cpu_s / double(flit_hops) : 0.0),
                    fmt::format("{:.1f}", flit_hops > 0 ? 1e9 * sim_cpu_s / double(flit_hops) : 0.0),
                    fmt::format("{:.1f}", perf["peak_rss_mb"].get<double>())});
  json m;
  m["case"] = c.name;
  m["sets"] = c.sets;
  m["perf"] = perf;
  m["cycles"] = run["results"]["cycles"];
  m["flit_hops"] = run["results"]["flit_hops"];
  m["user_cpu_seconds"] = user_cpu_s;
  return m;
}

// Slowdown of each -rtl case against the same case with the C++ allocators.
void print_rtl_slowdowns(const json& measured) {
  for (const json& c : measured) {
    const std::string name = c["case"];
    if (name.size() < 4 || name.compare(name.size() - 4, 4, "-rtl") != 0) continue;
    for (const json& m : measured)
      if (m["case"] == name.substr(0, name.size() - 4))
        std::cout << fmt::format("{}: the RTL allocators run {:.1f}x slower than the C++ ones\n", name,
                                 m["perf"]["cycles_per_second"].get<double>() /
                                     c["perf"]["cycles_per_second"].get<double>());
  }
}

struct BenchArgs {
  bool quick = false, large = false, print_args = false;
  std::string huge_org;
  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::string json_path;
  std::vector<std::string> only;  // --only: these cases, in this order
  std::vector<std::string> sets;  // --set: overrides after every case's own settings
};

// The cases --only names, in its order (all of them without it), each with
// the --set overrides after its own settings. An unknown name is an error
// naming it and the cases of this set; a bad override, one naming its key
// and value (the config the case would run is built and checked here).
std::vector<BenchCase> select_cases(const std::vector<BenchCase>& all, const std::vector<std::string>& common,
                                    const BenchArgs& a) {
  std::vector<BenchCase> chosen;
  for (const std::string& name : a.only) {
    auto it = std::find_if(all.begin(), all.end(), [&](const BenchCase& c) { return c.name == name; });
    if (it == all.end()) {
      std::string names;
      for (const BenchCase& c : all) names += (names.empty() ? "" : ", ") + c.name;
      throw std::invalid_argument(fmt::format("bench --only: '{}' is not a case{}; the cases are: {}", name,
                                              a.huge_org.empty() ? "" : " of --huge " + a.huge_org, names));
    }
    chosen.push_back(*it);
  }
  if (a.only.empty()) chosen = all;
  for (BenchCase& c : chosen) {
    c.sets.insert(c.sets.end(), a.sets.begin(), a.sets.end());
    Config cfg;
    for (const std::string& s : common) cfg.set_override(s);
    for (const std::string& s : c.sets) cfg.set_override(s);
    check_config(cfg);
  }
  return chosen;
}

int cmd_bench(const BenchArgs& a) {
  const std::vector<std::string> common = common_sets(a.quick);
  std::vector<BenchCase> all;
  if (a.huge_org.empty()) {
    all = router_cases();
    add_network_cases(all, a.quick, a.large, a.threads);
  } else {
    all = huge_cases(a.huge_org);
  }
  all = select_cases(all, common, a);
  if (a.print_args) {
    for (const BenchCase& c : all)
      std::cout << c.name << '\t' << fmt::format("{}", fmt::join(set_args(common, c), " ")) << '\n';
    return 0;
  }
  const ScratchDir scratch("bench");
  Table t;
  t.header = {"case",        "threads",     "cycles",          "wall-s", "cycles/s", "flit-hops/s",
              "ns/flit-hop", "user-cpu-s", "cpu-ns/flit-hop", "sim-cpu-ns/flit-hop", "peak-MB"};
  json measured = json::array();
  int failed = 0;
  for (const BenchCase& c : all) {
    json m = measure(c, common, scratch.path(), t);
    if (m.is_null()) ++failed;
    else measured.push_back(m);
  }
  std::cout << "nwnsim bench" << (a.quick ? " --quick" : "") << (a.huge_org.empty() ? "" : " --huge " + a.huge_org)
            << " (common: " << fmt::format("{}", fmt::join(common, " ")) << ")\n"
            << t.render();
  print_rtl_slowdowns(measured);
  if (!a.json_path.empty()) {
    json out;
    out["nwnsim"] = "bench";
    out["provenance"] = provenance();
    out["cases"] = measured;
    write_file(a.json_path, out.dump(2) + "\n");
  }
  return failed ? kExitFailure : 0;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<BenchArgs>();
  auto* bench = app.add_subcommand("bench", "measure simulation speed and memory on fixed cases");
  bench->add_flag("--quick", a->quick, "shorter runs");
  bench->add_flag("--large", a->large, "add 32,768-node folded Closes with cn and fc routers (minutes, several GB)");
  bench->add_option("--huge", a->huge_org,
                    "instead of the usual cases: the cost per flit-hop of HyperX networks of 4,096, 32,768 and "
                    "131,072 nodes with radix-128 routers of this organization, one thread, one at a time "
                    "(cn: minutes, about 3 GB; fc: about 7 GB and 400 CPU-seconds for the largest)")
      ->check(CLI::IsMember({"cn", "fc"}));
  bench->add_option("--threads", a->threads, "threads for the network cases' second run (default: the cores)")
      ->check(CLI::Range(1, 256));
  bench->add_option("--only", a->only, "run only this case (repeatable; names as in the table)")->type_name("CASE");
  bench->add_option("--set", a->sets, "override a config key in every case, after its own settings (repeatable)")
      ->type_name("KEY=VALUE");
  bench->add_flag("--print-args", a->print_args,
                  "run nothing: print each case's name, a tab, and the settings `nwnsim run` gets for it");
  output_option(bench->add_option("--json", a->json_path, "write the measurements as JSON"));
  bench->callback([a, &exit_code] { exit_code = cmd_bench(*a); });
}

}  // namespace nwn

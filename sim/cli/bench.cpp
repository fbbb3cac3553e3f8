// nwnsim bench: simulation speed and memory on fixed cases, each run alone
// in a child nwnsim (timings must not share cores): single routers of
// several organizations, the RTL allocators against the C++ ones, and
// 4,096-node (with --large, 32,768-node) folded Closes on one thread and on
// several. docs/RESULTS.md ("Simulation speed") records the figures.
#include <filesystem>
#include <initializer_list>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "../../models/allocator.hpp"
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
  if (!large) return;
  const std::vector<std::string> big = {"network.topology=fclos", "router.radix=64", "network.fclos_levels=3",
                                        "traffic.load=0.3", "sim.warmup_cycles=200", "sim.measure_cycles=300",
                                        "sim.drain_cap_cycles=2000"};
  network_case("fclos32768-cn64-ur-0.3", with(big, {"router.org=cn"}));
  network_case("fclos32768-fc64-ur-0.3", with(big, {"router.org=fc"}));
}

// Runs one case alone; its row of the table and its measurement (null: it failed).
json measure(const BenchCase& c, const std::vector<std::string>& common, const fs::path& tmp, Table& t) {
  std::vector<Job> job(1);
  job[0].args = {"run", "--quiet", "--perf-json", (tmp / "perf.json").string(), "--json", (tmp / "run.json").string()};
  for (auto& s : common) job[0].args.insert(job[0].args.end(), {"--set", s});
  for (auto& s : c.sets) job[0].args.insert(job[0].args.end(), {"--set", s});
  run_jobs(job, 1, [](std::size_t) {});  // one at a time: timings must not share cores
  if (job[0].exit_code != 0) {
    t.rows.push_back({c.name, "failed"});
    return json();
  }
  json perf = json::parse(read_file((tmp / "perf.json").string()));
  json run = json::parse(read_file((tmp / "run.json").string()));
  const double hops_s = perf["flit_hops_per_second"].get<double>();
  t.rows.push_back({c.name, std::to_string(perf["threads"].get<int>()),
                    std::to_string(run["results"]["cycles"].get<std::uint64_t>()),
                    fmt::format("{:.2f}", perf["wall_seconds"].get<double>()),
                    fmt::format("{:.0f}", perf["cycles_per_second"].get<double>()), fmt::format("{:.3g}", hops_s),
                    fmt::format("{:.1f}", hops_s > 0 ? 1e9 / hops_s : 0.0),
                    fmt::format("{:.1f}", perf["peak_rss_mb"].get<double>())});
  json m;
  m["case"] = c.name;
  m["sets"] = c.sets;
  m["perf"] = perf;
  m["cycles"] = run["results"]["cycles"];
  m["flit_hops"] = run["results"]["flit_hops"];
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

int cmd_bench(bool quick, bool large, int threads, const std::string& json_path) {
  const std::vector<std::string> common = common_sets(quick);
  std::vector<BenchCase> all = router_cases();
  add_network_cases(all, quick, large, threads);
  const ScratchDir scratch("bench");
  Table t;
  t.header = {"case", "threads", "cycles", "wall-s", "cycles/s", "flit-hops/s", "ns/flit-hop", "peak-MB"};
  json measured = json::array();
  int failed = 0;
  for (const BenchCase& c : all) {
    json m = measure(c, common, scratch.path(), t);
    if (m.is_null()) ++failed;
    else measured.push_back(m);
  }
  std::cout << "nwnsim bench" << (quick ? " --quick" : "") << " (common: ";
  for (std::size_t i = 0; i < common.size(); ++i) std::cout << (i ? " " : "") << common[i];
  std::cout << ")\n" << t.render();
  print_rtl_slowdowns(measured);
  if (!json_path.empty()) {
    json out;
    out["nwnsim"] = "bench";
    out["provenance"] = provenance();
    out["cases"] = measured;
    write_file(json_path, out.dump(2) + "\n");
  }
  return failed ? kExitFailure : 0;
}

struct BenchArgs {
  bool quick = false, large = false;
  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::string json_path;
};

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<BenchArgs>();
  auto* bench = app.add_subcommand("bench", "measure simulation speed and memory on fixed cases");
  bench->add_flag("--quick", a->quick, "shorter runs");
  bench->add_flag("--large", a->large, "add 32,768-node folded Closes with cn and fc routers (minutes, several GB)");
  bench->add_option("--threads", a->threads, "threads for the network cases' second run (default: the cores)")
      ->check(CLI::Range(1, 256));
  output_option(bench->add_option("--json", a->json_path, "write the measurements as JSON"));
  bench->callback([a, &exit_code] { exit_code = cmd_bench(a->quick, a->large, a->threads, a->json_path); });
}

}  // namespace nwn

#include "cli.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "../models/allocator.hpp"
#include "config.hpp"
#include "experiment.hpp"
#include "network.hpp"
#include "process.hpp"
#include "report.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr int kExitConfig = 2, kExitDeadlock = 3, kExitConservation = 4, kExitFailure = 1;

struct ConfigArgs {
  std::string file;
  std::vector<std::string> sets;
  std::string allocator;  // --allocator: router.allocator_impl
  std::string trace_rtl;  // --trace-rtl: router.rtl_trace_file
};

void add_config_args(CLI::App* cmd, ConfigArgs& a) {
  cmd->add_option("config", a.file, "TOML config file (keys: nwnsim config --keys); defaults if omitted")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", a.sets, "override a config key, e.g. --set router.vcs=2 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--allocator", a.allocator,
                  "model: the C++ allocators; rtl: the Verilated RTL in every subswitch (router.allocator_impl)")
      ->check(CLI::IsMember({"model", "rtl"}));
  cmd->add_option("--trace-rtl", a.trace_rtl,
                  "VCD of one RTL switch allocator (router.rtl_trace_file; window: router.rtl_trace_from/_cycles)")
      ->type_name("FILE");
}

Config load_config(const ConfigArgs& a) {
  Config cfg;
  if (!a.file.empty()) cfg.load_file(a.file);
  for (auto& s : a.sets) cfg.set_override(s);
  if (!a.allocator.empty()) cfg.set_override("router.allocator_impl=" + a.allocator);
  if (!a.trace_rtl.empty()) cfg.set_override("router.rtl_trace_file=" + a.trace_rtl);
  return cfg;
}

// "0.1:0.9:0.1" (inclusive range) or "1,2,4" (list) -> texts.
std::vector<std::string> expand_values(const std::string& key, const std::string& spec) {
  std::vector<std::string> out;
  if (spec.find(':') != std::string::npos) {
    double a, b, step;
    char c1, c2;
    std::istringstream is(spec);
    if (!(is >> a >> c1 >> b >> c2 >> step) || c1 != ':' || c2 != ':' || step <= 0 || b < a || !is.eof())
      throw ConfigError("sweep error: --vary " + key + "=" + spec +
                        ": a range is FIRST:LAST:STEP with STEP > 0 and LAST >= FIRST");
    const long n = long(std::floor((b - a) / step + 1e-9)) + 1;
    if (n > 100000) throw ConfigError("sweep error: --vary " + key + "=" + spec + " gives more than 100000 values");
    for (long i = 0; i < n; ++i) {
      double v = a + double(i) * step;
      out.push_back(fmt::format("{}", std::round(v * 1e9) / 1e9));
    }
  } else {
    std::istringstream is(spec);
    std::string item;
    while (std::getline(is, item, ','))
      if (!item.empty()) out.push_back(item);
  }
  if (out.empty()) throw ConfigError("sweep error: --vary " + key + " has no values");
  return out;
}

std::string f3(double x) { return fmt::format("{:.3f}", x); }
std::string f1(double x) { return fmt::format("{:.1f}", x); }

Table results_table(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& key_values,
                    const std::vector<json>& results) {
  Table t;
  t.header = keys;
  for (auto h : {"offered", "accepted", "min-node", "lat-avg", "p50", "p99", "max", "net-lat", "hops", "saturated"})
    t.header.push_back(h);
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::vector<std::string> row = key_values[i];
    const json& r = results[i];
    if (r.is_null()) {
      row.push_back("failed");
    } else {
      row.push_back(f3(r["offered_load_measured"].get<double>()));
      row.push_back(f3(r["accepted_load"].get<double>()));
      row.push_back(f3(r["accepted_min_node"].get<double>()));
      row.push_back(f1(r["latency_avg"].get<double>()));
      row.push_back(std::to_string(r["latency_p50"].get<std::uint64_t>()));
      row.push_back(std::to_string(r["latency_p99"].get<std::uint64_t>()));
      row.push_back(std::to_string(r["latency_max"].get<std::uint64_t>()));
      row.push_back(f1(r["network_latency_avg"].get<double>()));
      row.push_back(fmt::format("{:.2f}", r["hops_avg"].get<double>()));
      row.push_back(r["saturated"].get<bool>() ? "yes" : "no");
    }
    t.rows.push_back(row);
  }
  return t;
}

Table csv_table(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& key_values,
                const std::vector<json>& results) {
  Table t;
  t.header = keys;
  const json fields = RunResult{}.to_json();
  for (auto& [k, v] : fields.items())
    if (v.is_primitive()) t.header.push_back(k);
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::vector<std::string> row = key_values[i];
    if (!results[i].is_null())
      for (auto& [k, v] : results[i].items())
        if (v.is_primitive()) row.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    t.rows.push_back(row);
  }
  return t;
}

// Heatmap CSV: one row per (router, input port, output port) with packets.
std::string heatmap_csv(const Network& net) {
  std::string out = "router,input,output,packets\n";
  for (auto& r : net.routers()) {
    const auto& h = r->heatmap();
    const int k = r->radix();
    for (int i = 0; i < k; ++i)
      for (int o = 0; o < k; ++o)
        if (!h.empty() && h[std::size_t(i) * k + o]) out += fmt::format("{},{},{},{}\n", r->id(), i, o, h[std::size_t(i) * k + o]);
  }
  return out;
}

int cmd_run(const ConfigArgs& ca, const std::string& json_path, const std::string& csv_path,
            const std::string& perf_path, bool quiet, const std::string& heatmap_path) {
  Config cfg = load_config(ca);
  if (!heatmap_path.empty()) cfg.set("sim.heatmap", "true", "--heatmap");
  PerfResult perf;
  RunResult r = run_experiment(cfg, perf_path.empty() ? nullptr : &perf, [&](const Network& net) {
    if (!heatmap_path.empty()) write_file(heatmap_path, heatmap_csv(net));
  });
  json out;
  out["nwnsim"] = "run";
  out["config"] = cfg.to_json();
  out["results"] = r.to_json();
  if (!json_path.empty()) write_file(json_path, out.dump(2) + "\n");
  if (!csv_path.empty()) write_file(csv_path, csv_table({}, {{}}, {out["results"]}).csv());
  if (!perf_path.empty()) write_file(perf_path, perf.to_json().dump(2) + "\n");
  if (!quiet) {
    std::cout << fmt::format("nwnsim run: {} radix {}, {} traffic, load {}\n", cfg.get_string("router.org"),
                             cfg.get_int("router.radix"), cfg.get_string("traffic.pattern"),
                             cfg.text("traffic.load"));
    std::cout << results_table({}, {{}}, {out["results"]}).render();
  }
  return 0;
}

struct SweepArgs {
  ConfigArgs config;
  std::string loads;
  std::vector<std::string> vary;
  int jobs = 0;
  std::string json_path, csv_path;
};

int cmd_sweep(const SweepArgs& a) {
  Config base = load_config(a.config);  // validates the file and overrides up front
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::vector<std::string> vary = a.vary;
  if (!a.loads.empty()) vary.push_back("traffic.load=" + a.loads);
  if (vary.empty()) vary.push_back("traffic.load=0.1:1.0:0.1");
  for (auto& v : vary) {
    auto eq = v.find('=');
    if (eq == std::string::npos) throw ConfigError("sweep error: --vary '" + v + "': expected KEY=VALUES");
    const std::string key = v.substr(0, eq);
    auto values = expand_values(key, v.substr(eq + 1));
    for (auto& val : values) Config(base).set(key, val, "--vary " + v);  // validate every value now
    axes.push_back({key, values});
  }
  // Cartesian product, last axis fastest.
  std::vector<std::vector<std::string>> points{{}};
  for (auto& [key, values] : axes) {
    std::vector<std::vector<std::string>> next;
    for (auto& p : points)
      for (auto& val : values) {
        auto q = p;
        q.push_back(val);
        next.push_back(q);
      }
    points.swap(next);
  }
  std::vector<std::string> keys;
  for (auto& ax : axes) keys.push_back(ax.first);

  const fs::path tmp = fs::temp_directory_path() / fmt::format("nwnsim-sweep-{}", getpid());
  fs::create_directories(tmp);
  std::vector<Job> jobs(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    Job& j = jobs[i];
    j.args = {"run"};
    if (!a.config.file.empty()) j.args.push_back(a.config.file);
    for (auto& s : a.config.sets) j.args.insert(j.args.end(), {"--set", s});
    for (std::size_t k = 0; k < keys.size(); ++k) j.args.insert(j.args.end(), {"--set", keys[k] + "=" + points[i][k]});
    j.args.insert(j.args.end(), {"--json", (tmp / fmt::format("point{}.json", i)).string(), "--quiet"});
  }
  const int parallel = a.jobs > 0 ? a.jobs : std::max(1, int(sysconf(_SC_NPROCESSORS_ONLN)));
  const bool tty = isatty(2);
  std::size_t done = 0;
  run_jobs(jobs, parallel, [&](std::size_t i) {
    ++done;
    if (tty) std::cerr << fmt::format("\r[{}/{}] points done", done, jobs.size()) << std::flush;
    else if (jobs[i].exit_code != 0) std::cerr << fmt::format("point {} failed (exit {})\n", i, jobs[i].exit_code);
  });
  if (tty) std::cerr << "\n";
  std::vector<json> results(points.size());
  json all = json::array();
  int failed = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    json point;
    for (std::size_t k = 0; k < keys.size(); ++k) point["set"][keys[k]] = points[i][k];
    if (jobs[i].exit_code == 0) {
      json r = json::parse(read_file((tmp / fmt::format("point{}.json", i)).string()));
      results[i] = r["results"];
      point["results"] = r["results"];
    } else {
      ++failed;
      point["error_exit_code"] = jobs[i].exit_code;
    }
    all.push_back(point);
  }
  fs::remove_all(tmp);
  json out;
  out["nwnsim"] = "sweep";
  out["config"] = base.to_json();
  out["points"] = all;
  std::cout << fmt::format("nwnsim sweep: {} radix {}, {} traffic, {} point(s)\n", base.get_string("router.org"),
                           base.get_int("router.radix"), base.get_string("traffic.pattern"), points.size());
  std::cout << results_table(keys, points, results).render();
  if (!a.json_path.empty()) write_file(a.json_path, out.dump(2) + "\n");
  if (!a.csv_path.empty()) write_file(a.csv_path, csv_table(keys, points, results).csv());
  if (failed) {
    std::cerr << fmt::format("nwnsim sweep: {} point(s) failed; run one with 'nwnsim run' to see why\n", failed);
    return kExitFailure;
  }
  return 0;
}

struct BenchCase {
  std::string name;
  std::vector<std::string> sets;
};

int cmd_bench(bool quick, bool large, const std::string& json_path) {
  const std::string cycles = quick ? "5000" : "50000";
  // A cycle carries one flit per channel here (64-bit flits on 64-bit
  // channels), as in BookSim, so cycles per second compare one to one.
  const std::vector<std::string> common = {"flit.bits=64", "channel.width_bits=64", "router.vcs=4",
                                           "router.vc_depth_flits=16", "traffic.packet_flits=1",
                                           "router.allocator_iterations=1", "sim.warmup_cycles=1000",
                                           "sim.measure_cycles=" + cycles};
  const std::vector<BenchCase> cases = {
      {"cn64-ur-0.3", {"router.org=cn", "router.radix=64", "traffic.load=0.3"}},
      {"cn64-ur-0.5", {"router.org=cn", "router.radix=64", "traffic.load=0.5"}},
      {"cn64-ur-0.6", {"router.org=cn", "router.radix=64", "traffic.load=0.6"}},
      {"cn64-ur-0.5-1vc", {"router.org=cn", "router.radix=64", "traffic.load=0.5", "router.vcs=1"}},
      // Multi-subswitch organizations: cost per flit-hop against cn's.
      {"hc64-ur-0.5", {"router.org=hc", "router.radix=64", "traffic.load=0.5"}},
      {"fc64-ur-0.5", {"router.org=fc", "router.radix=64", "traffic.load=0.5"}},
  };
  // Global networks: the 4,096-node 3-level folded Clos of radix-32 routers
  // (768 routers) at 0.3 uniform load, with ideal single-crossbar routers and
  // with fc internal detail in every router.
  const std::vector<std::string> fclos = {"network.topology=fclos", "router.radix=32", "network.fclos_levels=3",
                                          "traffic.load=0.3", "sim.warmup_cycles=200",
                                          quick ? "sim.measure_cycles=300" : "sim.measure_cycles=1500",
                                          "sim.drain_cap_cycles=2000"};
  std::vector<BenchCase> all = cases;
  auto with = [](std::vector<std::string> a, std::initializer_list<std::string> b) {
    a.insert(a.end(), b);
    return a;
  };
  // The Verilated allocators in place of the C++ ones (router.allocator_impl
  // = rtl): the same point both ways; sizes the build has RTL for (2 VCs).
  const bool rtl = !rtl_allocator_registry().empty();
  const std::vector<std::string> small = {"router.vcs=2", "traffic.load=0.5"};
  if (rtl) {
    all.push_back({"cn8-ur-0.5-2vc", with(small, {"router.org=cn", "router.radix=8"})});
    all.push_back({"cn8-ur-0.5-2vc-rtl", with(small, {"router.org=cn", "router.radix=8", "router.allocator_impl=rtl"})});
    all.push_back({"fc16-ur-0.5-2vc", with(small, {"router.org=fc", "router.radix=16"})});
    all.push_back(
        {"fc16-ur-0.5-2vc-rtl", with(small, {"router.org=fc", "router.radix=16", "router.allocator_impl=rtl"})});
  }
  all.push_back({"fclos4096-cn32-ur-0.3", with(fclos, {"router.org=cn"})});
  all.push_back({"fclos4096-fc32-ur-0.3", with(fclos, {"router.org=fc"})});
  if (large) {
    // 32,768 nodes: 3 levels of 1,024 radix-64 routers.
    all.push_back({"fclos32768-cn64-ur-0.3",
                   {"network.topology=fclos", "router.radix=64", "network.fclos_levels=3", "traffic.load=0.3",
                    "sim.warmup_cycles=100", "sim.measure_cycles=300", "sim.drain_cap_cycles=2000", "router.org=cn"}});
  }
  const fs::path tmp = fs::temp_directory_path() / fmt::format("nwnsim-bench-{}", getpid());
  fs::create_directories(tmp);
  Table t;
  t.header = {"case", "cycles", "wall-s", "cycles/s", "flit-hops/s", "ns/flit-hop", "peak-MB"};
  json out = json::array();
  int failed = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::vector<Job> job(1);
    job[0].args = {"run", "--quiet", "--perf-json", (tmp / "perf.json").string(), "--json", (tmp / "run.json").string()};
    for (auto& s : common) job[0].args.insert(job[0].args.end(), {"--set", s});
    for (auto& s : all[i].sets) job[0].args.insert(job[0].args.end(), {"--set", s});
    run_jobs(job, 1, [](std::size_t) {});  // one at a time: timings must not share cores
    if (job[0].exit_code != 0) {
      ++failed;
      t.rows.push_back({all[i].name, "failed"});
      continue;
    }
    json perf = json::parse(read_file((tmp / "perf.json").string()));
    json run = json::parse(read_file((tmp / "run.json").string()));
    const double hops_s = perf["flit_hops_per_second"].get<double>();
    t.rows.push_back({all[i].name, std::to_string(run["results"]["cycles"].get<std::uint64_t>()),
                      fmt::format("{:.2f}", perf["wall_seconds"].get<double>()),
                      fmt::format("{:.0f}", perf["cycles_per_second"].get<double>()), fmt::format("{:.3g}", hops_s),
                      fmt::format("{:.1f}", hops_s > 0 ? 1e9 / hops_s : 0.0),
                      fmt::format("{:.1f}", perf["peak_rss_mb"].get<double>())});
    json c;
    c["case"] = all[i].name;
    c["sets"] = all[i].sets;
    c["perf"] = perf;
    c["cycles"] = run["results"]["cycles"];
    c["flit_hops"] = run["results"]["flit_hops"];
    out.push_back(c);
  }
  fs::remove_all(tmp);
  std::cout << "nwnsim bench" << (quick ? " --quick" : "") << " (common: ";
  for (std::size_t i = 0; i < common.size(); ++i) std::cout << (i ? " " : "") << common[i];
  std::cout << ")\n" << t.render();
  // Slowdown of each -rtl case against the same case with the C++ allocators.
  for (const json& c : out) {
    const std::string name = c["case"];
    if (name.size() < 4 || name.compare(name.size() - 4, 4, "-rtl") != 0) continue;
    for (const json& m : out)
      if (m["case"] == name.substr(0, name.size() - 4))
        std::cout << fmt::format("{}: the RTL allocators run {:.1f}x slower than the C++ ones\n", name,
                                 m["perf"]["cycles_per_second"].get<double>() /
                                     c["perf"]["cycles_per_second"].get<double>());
  }
  if (!json_path.empty()) write_file(json_path, out.dump(2) + "\n");
  return failed ? kExitFailure : 0;
}

int cmd_config(const ConfigArgs& ca, bool keys, bool markdown) {
  if (markdown) {
    std::cout << schema_markdown();
    return 0;
  }
  if (keys) {
    Table t;
    t.header = {"key", "default", "unit", "meaning"};
    for (auto& k : config_schema()) t.rows.push_back({k.key, k.default_value, k.unit, k.doc});
    std::cout << t.render();
    return 0;
  }
  std::cout << load_config(ca).to_toml();
  return 0;
}

}  // namespace

int nwnsim_main(int argc, char** argv) {
  CLI::App app{"nwnsim: cycle-level SystemC model of high-radix router microarchitecture"};
  app.require_subcommand(1);

  ConfigArgs run_cfg;
  std::string run_json, run_csv, run_perf;
  bool run_quiet = false;
  auto* run = app.add_subcommand("run", "simulate one point and print its results");
  add_config_args(run, run_cfg);
  run->add_option("--json", run_json, "write config and results as JSON");
  run->add_option("--csv", run_csv, "write results as one CSV row with header");
  run->add_option("--perf-json", run_perf, "write wall time, cycles/s and peak memory (machine-dependent) as JSON");
  run->add_flag("--quiet", run_quiet, "print nothing on success");
  std::string run_heatmap;
  run->add_option("--heatmap", run_heatmap,
                  "write packets per (router, input port, output port) as CSV (scripts/plot_heatmap.py plots it)");

  SweepArgs sw;
  auto* sweep = app.add_subcommand("sweep", "simulate a grid of points in parallel processes (default: loads 0.1..1.0)");
  add_config_args(sweep, sw.config);
  sweep->add_option("--loads", sw.loads, "offered loads: FIRST:LAST:STEP or a,b,c")->type_name("SPEC");
  sweep->add_option("--vary", sw.vary, "sweep a config key: KEY=FIRST:LAST:STEP or KEY=a,b,c (repeatable)")
      ->type_name("KEY=SPEC");
  sweep->add_option("-j,--jobs", sw.jobs, "parallel processes (default: one per core)")->check(CLI::Range(1, 1024));
  sweep->add_option("--json", sw.json_path, "write every point's config and results as JSON");
  sweep->add_option("--csv", sw.csv_path, "write one CSV row per point");

  bool bench_quick = false, bench_large = false;
  std::string bench_json;
  auto* bench = app.add_subcommand("bench", "measure simulation speed and memory on fixed cases");
  bench->add_flag("--quick", bench_quick, "shorter runs");
  bench->add_flag("--large", bench_large, "add a 32,768-node folded Clos (minutes, several GB)");
  bench->add_option("--json", bench_json, "write the measurements as JSON");

  ConfigArgs cfg_args;
  bool cfg_keys = false, cfg_md = false;
  auto* config = app.add_subcommand("config", "print the effective config (file + overrides), or the key list");
  add_config_args(config, cfg_args);
  config->add_flag("--keys", cfg_keys, "list every key with its default, unit and meaning");
  config->add_flag("--markdown", cfg_md, "the key list as a Markdown table");

  int exit_code = 0;
  for (auto& add : command_registry()) add(app, exit_code);

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e) == 0 ? 0 : kExitConfig;
    }
    if (*run) return cmd_run(run_cfg, run_json, run_csv, run_perf, run_quiet, run_heatmap);
    if (*sweep) return cmd_sweep(sw);
    if (*bench) return cmd_bench(bench_quick, bench_large, bench_json);
    if (*config) return cmd_config(cfg_args, cfg_keys, cfg_md);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitConfig;
  } catch (const std::invalid_argument& e) {
    std::cerr << "nwnsim: invalid input: " << e.what() << "\n";
    return kExitConfig;
  } catch (const DeadlockError& e) {
    std::cerr << "nwnsim: " << e.what();
    return kExitDeadlock;
  } catch (const ConservationError& e) {
    std::cerr << "nwnsim: " << e.what() << "\n";
    return kExitConservation;
  } catch (const std::exception& e) {
    std::cerr << "nwnsim: error: " << e.what() << "\n";
    return kExitFailure;
  }
  return exit_code;
}

std::vector<CommandAdder>& command_registry() {
  static std::vector<CommandAdder> registry;
  return registry;
}

}  // namespace nwn

#include "cli.hpp"
#include "version.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "../models/allocator.hpp"
#include "columns.hpp"
#include "config.hpp"
#include "experiment.hpp"
#include "network.hpp"
#include "process.hpp"
#include "provenance.hpp"
#include "ranks_report.hpp"
#include "report.hpp"
#include "seeds.hpp"

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
  int threads = 0;        // --threads: sim.threads
};

void add_config_args(CLI::App* cmd, ConfigArgs& a) {
  cmd->add_option("config", a.file, "TOML config file (keys: nwnsim config --keys); defaults if omitted")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", a.sets, "override a config key, e.g. --set router.vcs=2 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--allocator", a.allocator,
                  "model: the C++ allocators; rtl: the Verilated RTL in every subswitch (router.allocator_impl)")
      ->check(CLI::IsMember({"model", "rtl"}));
  output_option(cmd->add_option("--trace-rtl", a.trace_rtl,
                                "VCD of one RTL switch allocator (router.rtl_trace_file; window: "
                                "router.rtl_trace_from/_cycles)"))
      ->type_name("FILE");
  cmd->add_option("--threads", a.threads, "threads per simulation (sim.threads); results do not depend on it")
      ->check(CLI::Range(1, 256));
}

Config load_config(const ConfigArgs& a) {
  Config cfg;
  if (!a.file.empty()) cfg.load_file(a.file);
  for (auto& s : a.sets) cfg.set_override(s);
  if (!a.allocator.empty()) cfg.set_override("router.allocator_impl=" + a.allocator);
  if (!a.trace_rtl.empty()) cfg.set_override("router.rtl_trace_file=" + a.trace_rtl);
  if (a.threads > 0) cfg.set_override("sim.threads=" + std::to_string(a.threads));
  return cfg;
}

// "0.1:0.9:0.1" (inclusive range) or "1,2,4" (list) -> texts.
// `what` is the flag, e.g. "--loads" or "--vary router.vcs".
std::vector<std::string> expand_values(const std::string& what, const std::string& spec) {
  std::vector<std::string> out;
  if (spec.find(':') != std::string::npos) {
    double a, b, step;
    char c1, c2;
    std::istringstream is(spec);
    if (!(is >> a >> c1 >> b >> c2 >> step) || c1 != ':' || c2 != ':' || step <= 0 || b < a || !is.eof())
      throw ConfigError("sweep error: " + what + " '" + spec +
                        "': a range is FIRST:LAST:STEP with STEP > 0 and LAST >= FIRST");
    // Counted in double: a tiny STEP gives more values than a long holds.
    const double count = std::floor((b - a) / step + 1e-9) + 1;
    if (!(count <= 100000))
      throw ConfigError("sweep error: " + what + " '" + spec + "' gives more than 100000 values");
    const long n = long(count);
    for (long i = 0; i < n; ++i) {
      double v = a + double(i) * step;
      out.push_back(fmt::format("{}", std::round(v * 1e9) / 1e9));
    }
  } else {
    out = split_list(spec, what, ',', "FIRST:LAST:STEP or a list of values");
  }
  return out;
}

// Heatmap CSV: one row per (router, input port, output port) with packets;
// under ranks, every rank's routers in router order, on rank 0.
std::string heatmap_csv(const Network& net) {
  std::string rows;
  for (auto& r : net.routers()) {
    const auto& h = r->heatmap();
    const int k = r->radix();
    for (int i = 0; i < k; ++i)
      for (int o = 0; o < k; ++o)
        if (!h.empty() && h[std::size_t(i) * k + o]) rows += fmt::format("{},{},{},{}\n", r->id(), i, o, h[std::size_t(i) * k + o]);
  }
  return csv_provenance_line() + "router,input,output,packets\n" + rows_in_router_order(net.ranks(), rows);
}

// The first line run prints: the router or network and the traffic.
std::string run_banner(const Config& cfg, int nodes) {
  const std::string traffic = cfg.get_string("traffic.source") == "trace"
                                  ? "trace " + cfg.get_string("traffic.trace_file")
                                  : fmt::format("{} traffic, load {}", cfg.get_string("traffic.pattern"),
                                                cfg.text("traffic.load"));
  const std::string batch = cfg.get_string("traffic.mode") == "batch"
                                ? fmt::format(", batch of {} packets per node", cfg.get_int("traffic.batch_packets"))
                                : "";
  const std::string topology = cfg.get_string("network.topology");
  const std::string routers =
      topology == "single"
          ? fmt::format("{} radix {}", cfg.get_string("router.org"), cfg.get_int("router.radix"))
          : fmt::format("{} network of {} nodes, {} radix-{} routers, {} routing", topology, nodes,
                        cfg.get_string("router.org"), cfg.get_int("router.radix"), cfg.get_string("network.routing"));
  return fmt::format("nwnsim run: {}, {}{}", routers, traffic, batch);
}

// The arguments that give a child nwnsim the config of `a`.
std::vector<std::string> config_child_args(const ConfigArgs& a) {
  std::vector<std::string> args;
  if (!a.file.empty()) args.push_back(a.file);
  for (auto& s : a.sets) args.insert(args.end(), {"--set", s});
  if (!a.allocator.empty()) args.insert(args.end(), {"--allocator", a.allocator});
  if (a.threads > 0) args.insert(args.end(), {"--threads", std::to_string(a.threads)});
  return args;
}

struct SeedArgs {
  int seeds = 1;  // --seeds: runs of each point, sim.seed and the seeds derived from it
  int jobs = 0;   // -j: parallel processes (0: one per core)
};

// run --seeds N: the point with each derived seed in a child process (one
// SystemC elaboration each), every figure the mean over the seeds with its
// 95 % interval (sim/seeds.hpp).
int cmd_run_seeds(const ConfigArgs& ca, const std::string& json_path, const std::string& csv_path, bool quiet,
                  const std::vector<std::string>& columns, const SeedArgs& sa) {
  const Config cfg = load_config(ca);
  const auto seeds = derived_seeds(cfg.get_int("sim.seed"), sa.seeds);
  const ScratchDir scratch("seeds");
  std::vector<Job> jobs(seeds.size());
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    jobs[k].args = {"run"};
    for (auto& arg : config_child_args(ca)) jobs[k].args.push_back(arg);
    jobs[k].args.insert(jobs[k].args.end(), {"--set", fmt::format("sim.seed={}", seeds[k]), "--quiet", "--json",
                                             (fs::path(scratch.path()) / fmt::format("s{}.json", k)).string()});
  }
  const int parallel = sa.jobs > 0 ? sa.jobs : std::max(1, int(sysconf(_SC_NPROCESSORS_ONLN)));
  run_jobs(jobs, parallel, [](std::size_t) {});
  std::vector<json> per_seed;
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    if (jobs[k].exit_code != 0) {
      std::cerr << fmt::format("nwnsim run: seed {} (of --seeds {}) failed (exit {}); run it alone with --set "
                               "sim.seed={} to see why\n",
                               seeds[k], seeds.size(), jobs[k].exit_code, seeds[k]);
      return jobs[k].exit_code;
    }
    per_seed.push_back(
        json::parse(read_file((fs::path(scratch.path()) / fmt::format("s{}.json", k)).string())).at("results"));
  }
  json out;
  out["nwnsim"] = "run";
  out["provenance"] = provenance(&cfg);
  out["config"] = cfg.to_json();
  out["results"] = combine_seeds(per_seed, seeds);
  if (!json_path.empty()) write_file(json_path, out.dump(2) + "\n");
  if (!csv_path.empty()) write_file(csv_path, csv_table({}, {{}}, {out["results"]}, columns).csv());
  if (!quiet) {
    const json& fair = out["results"]["fairness"];
    const int nodes = fair.is_object() ? int(fair["by_source"]["flits"].size()) : 0;
    std::cout << run_banner(cfg, nodes) << fmt::format(", {} seeds: mean ± 95 % interval\n", seeds.size());
    std::cout << results_table({}, {{}}, {out["results"]}, columns).render();
  }
  return 0;
}

struct RunDebugArgs {
  std::string heatmap, trace_packets, vcd;
  bool progress = false;
};

// run --emit slurm --ranks R: a job that runs this point over R MPI ranks.
struct RunJobArgs {
  std::string emit;
  int ranks = 0;
  double mem_per_rank_mb = 0;
};

// The sbatch script of `job` on stdout (sim/ranks_report.hpp).
int cmd_run_emit(const ConfigArgs& ca, const std::vector<std::pair<std::string, std::string>>& outputs,
                 const RunJobArgs& job) {
  if (job.ranks < 1) throw ConfigError("run error: --emit slurm needs --ranks R (the MPI ranks of the job)");
  const Config cfg = load_config(ca);
  RankJob j;
  j.ranks = job.ranks;
  j.mem_per_rank_mb = job.mem_per_rank_mb;
  // The job may start elsewhere: files by their absolute paths.
  j.run_args = config_child_args(ca);
  if (!ca.file.empty()) j.run_args[0] = fs::absolute(ca.file).string();
  for (auto& [flag, path] : outputs)
    if (!path.empty()) j.run_args.insert(j.run_args.end(), {flag, fs::absolute(path).string()});
  std::cout << rank_job_script(cfg, j);
  return 0;
}

int cmd_run_ranks(const ConfigArgs& ca, const std::string& json_path, const std::string& csv_path,
                  const std::string& perf_path, bool quiet, const RunDebugArgs& debug,
                  const std::vector<std::string>& columns, Ranks& ranks);

// Under mpirun every rank runs this; without, the one process.
int cmd_run(const ConfigArgs& ca, const std::string& json_path, const std::string& csv_path,
            const std::string& perf_path, bool quiet, const RunDebugArgs& debug,
            const std::vector<std::string>& columns, const SeedArgs& sa, const RunJobArgs& job) {
  if (!job.emit.empty())
    return cmd_run_emit(ca, {{"--json", json_path}, {"--csv", csv_path}, {"--perf-json", perf_path}, {"--heatmap", debug.heatmap}},
                        job);
  if (job.ranks > 0) throw ConfigError("run error: --ranks goes with --emit slurm (a job's ranks); to run over ranks "
                                       "here, start nwnsim with mpirun -np R");
  Ranks& ranks = process_ranks();
  return run_on_ranks(ranks, [&] {
    if (sa.seeds > 1 && ranks.distributed())
      throw RanksFailed(2,
                        std::make_exception_ptr(ConfigError(fmt::format(
                            "run error: --seeds {} under mpirun: the seeds run in child processes of one nwnsim; run "
                            "each seed over the ranks with --set sim.seed=S",
                            sa.seeds))),
                        ranks.root());
    if (sa.seeds <= 1) return cmd_run_ranks(ca, json_path, csv_path, perf_path, quiet, debug, columns, ranks);
    for (auto& [flag, given] : {std::pair<const char*, bool>{"--perf-json", !perf_path.empty()},
                                {"--heatmap", !debug.heatmap.empty()}, {"--trace-packets", !debug.trace_packets.empty()},
                                {"--vcd", !debug.vcd.empty()}, {"--trace-rtl", !ca.trace_rtl.empty()}})
      if (given)
        throw ConfigError(fmt::format("run error: {} with --seeds {}: debug and speed outputs are of one run "
                                      "(leave out --seeds)",
                                      flag, sa.seeds));
    return cmd_run_seeds(ca, json_path, csv_path, quiet, columns, sa);
  });
}

// One run on `ranks` (one process without mpirun): every rank simulates its
// share, rank 0 writes and prints.
int cmd_run_ranks(const ConfigArgs& ca, const std::string& json_path, const std::string& csv_path,
                  const std::string& perf_path, bool quiet, const RunDebugArgs& debug,
                  const std::vector<std::string>& columns, Ranks& ranks) {
  Config cfg = load_config(ca);
  const std::string& heatmap_path = debug.heatmap;
  if (!heatmap_path.empty()) cfg.set("sim.heatmap", "true", "--heatmap");
  if (!debug.trace_packets.empty()) cfg.set("sim.packet_trace_file", debug.trace_packets, "--trace-packets");
  if (!debug.vcd.empty()) cfg.set("sim.vcd_file", debug.vcd, "--vcd");
  // Output files named in the config, checked before simulating like the flags.
  for (const char* key : {"sim.packet_trace_file", "sim.vcd_file", "router.rtl_trace_file"})
    if (!cfg.get_string(key).empty()) check_output(key, cfg.get_string(key), OutputKind::File);
  show_progress(!quiet && ranks.root() && (debug.progress || isatty(2)));
  PerfResult perf;
  int nodes = 0;
  RunResult r = run_experiment(
      cfg, perf_path.empty() && !(debug.progress && ranks.distributed()) ? nullptr : &perf,
      [&](const Network& net) {
        nodes = net.endpoints().nodes();
        if (heatmap_path.empty()) return;
        const std::string csv = heatmap_csv(net);
        if (ranks.root()) write_file(heatmap_path, csv);
      },
      ranks);
  if (!ranks.root()) return 0;
  if (debug.progress && ranks.distributed()) std::cerr << rank_report(perf);
  json out;
  out["nwnsim"] = "run";
  out["provenance"] = provenance(&cfg);
  out["config"] = cfg.to_json();
  out["results"] = r.to_json();
  if (!json_path.empty()) write_file(json_path, out.dump(2) + "\n");
  if (!csv_path.empty()) write_file(csv_path, csv_table({}, {{}}, {out["results"]}, columns).csv());
  if (!perf_path.empty()) write_file(perf_path, perf.to_json().dump(2) + "\n");
  if (!quiet && !r.saturated && r.warmup_check.is_object() && !r.warmup_check.value("converged", true))
    std::cerr << "nwnsim run: " << r.warmup_check["message"].get<std::string>() << "\n";
  if (!quiet) {
    std::cout << run_banner(cfg, nodes) << "\n";
    std::cout << results_table({}, {{}}, {out["results"]}, columns).render();
    if (r.workload != "open") {
      if (r.drained)
        std::cout << fmt::format("completion: all {} packets delivered by cycle {}; per node, last delivery at "
                                 "cycle {} (earliest) / {:.1f} (mean) / {} (latest)\n",
                                 r.packets_measured, r.completion_cycles, r.completion_node_min,
                                 r.completion_node_avg, r.completion_node_max);
      else
        std::cout << fmt::format("not completed: {} packets delivered when sim.max_cycles = {} ran out\n",
                                 r.packets_measured, cfg.get_int("sim.max_cycles"));
    }
  }
  return 0;
}

struct SweepArgs {
  ConfigArgs config;
  std::string loads;
  bool loads_given = false;  // --loads '' is an error, not the default loads
  std::vector<std::string> vary;
  int jobs = 0;
  std::string json_path, csv_path;
  std::string out_dir;     // one JSON per finished point; resume and merge from it
  long point = -1;         // run only this point (a cluster job-array task)
  bool merge_only = false; // merge what out_dir holds, simulate nothing
  std::string emit;        // "slurm": write a job-array script and a manifest
  int seeds = 1;           // runs of each point (sim/seeds.hpp)
  std::string columns;     // --columns
};

std::string format_duration(double s) {
  const long t = long(s + 0.5);
  return t >= 3600 ? fmt::format("{}h{:02}m", t / 3600, t / 60 % 60) : fmt::format("{}m{:02}s", t / 60, t % 60);
}

// The file of a point in a sweep's out_dir: its index and its settings, for
// people to read. What identifies the point is the config inside it.
std::string point_file_name(std::size_t i, const std::vector<std::string>& keys, const std::vector<std::string>& vals) {
  std::string name = fmt::format("p{:05}", i);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    std::string part = keys[k].substr(keys[k].rfind('.') + 1) + "=" + vals[k];
    for (char& c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '=' && c != '.' && c != '-') c = '_';
    name += "_" + part;
  }
  return name + ".json";
}

// "key: old -> new" for every key whose value differs between two configs
// (as JSON), keys in `skip` left out.
std::vector<std::string> config_differences(const json& was, const json& now, const std::vector<std::string>& skip) {
  std::vector<std::string> out;
  auto skipped = [&](const std::string& k) { return std::find(skip.begin(), skip.end(), k) != skip.end(); };
  for (auto& [k, v] : now.items())
    if (!skipped(k) && (!was.contains(k) || was[k] != v))
      out.push_back(fmt::format("{}: {} -> {}", k, was.contains(k) ? was[k].dump() : "(none)", v.dump()));
  for (auto& [k, v] : was.items())
    if (!skipped(k) && !now.contains(k)) out.push_back(fmt::format("{}: {} -> (none)", k, v.dump()));
  return out;
}

// Keys that cannot change a result: the same config and seed give the same
// results on any number of threads, so a stored point is reused whatever
// thread count ran it.
const std::vector<std::string> kResultNeutralKeys = {"sim.threads", "sim.partition"};

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// A finished point: its complete effective config, the nwnsim that ran it,
// its results, and a checksum of the three (FNV-1a of their canonical JSON:
// sorted keys, no spaces), so a damaged or edited point is never merged.
std::string point_checksum(const json& p) {
  const nlohmann::json canonical = {{"config", nlohmann::json::parse(p.at("config").dump())},
                                    {"results", nlohmann::json::parse(p.at("results").dump())},
                                    {"version", p.at("version")}};
  return "fnv1a64:" + fnv1a_hex(canonical.dump());
}

json point_record(const json& config, const json& results, const json& run_provenance) {
  json p;
  p["nwnsim"] = "sweep-point";
  p["version"] = nwnsim_version();
  p["provenance"] = run_provenance;
  p["config"] = config;
  p["results"] = results;
  p["checksum"] = point_checksum(p);
  return p;
}

// Why the point file `path` is not the finished point of config `want` by
// this nwnsim, or "" when it is (its results then go to `results`).
std::string point_problem(const fs::path& path, const json& want, json& results) {
  json p;
  try {
    p = json::parse(read_file(path.string()));
  } catch (const std::exception&) {
    return "not valid JSON (empty, truncated or damaged)";
  }
  if (!p.is_object() || !p.contains("config") || !p["config"].is_object() || !p.contains("results") ||
      !p["results"].is_object() || !p.contains("version") || !p["version"].is_string() || !p.contains("checksum"))
    return "not a finished sweep point (its config, results, version or checksum is missing)";
  if (p["checksum"] != point_checksum(p)) return "its checksum does not match its contents (damaged or edited)";
  if (p["version"] != nwnsim_version())
    return fmt::format("written by nwnsim {}, not by this build ({})", p["version"].get<std::string>(),
                       nwnsim_version());
  const auto diff = config_differences(p["config"], want, kResultNeutralKeys);
  if (!diff.empty()) return "it ran another config (" + joined(diff) + ")";
  results = p["results"];
  return "";
}

// out_dir/manifest.json records the base config of the sweep kept there. A
// rerun with another base config would mix two experiments in one merge:
// it is an error that says what differs. The grid may change (the varied
// keys of either grid are not compared): points are matched one by one.
void check_and_write_manifest(const fs::path& out_dir, const json& base, const std::vector<std::string>& keys,
                              const std::vector<std::vector<std::string>>& points) {
  const fs::path file = out_dir / "manifest.json";
  if (fs::exists(file)) {
    json m;
    try {
      m = json::parse(read_file(file.string()));
    } catch (const std::exception&) {
    }
    if (m.is_object() && m.contains("config") && m["config"].is_object()) {
      std::vector<std::string> skip = keys;
      skip.insert(skip.end(), kResultNeutralKeys.begin(), kResultNeutralKeys.end());
      if (m.contains("keys") && m["keys"].is_array())
        for (auto& k : m["keys"])
          if (k.is_string()) skip.push_back(k.get<std::string>());
      const auto diff = config_differences(m["config"], base, skip);
      if (!diff.empty())
        throw ConfigError(fmt::format(
            "sweep error: --out-dir '{}' holds a sweep of another base config ({}; as in the directory -> as now). "
            "Use another --out-dir, or delete '{}' to start over",
            out_dir.string(), joined(diff), out_dir.string()));
    } else {
      std::cerr << fmt::format("nwnsim sweep: {} is damaged; every point is checked on its own\n", file.string());
    }
  }
  json manifest;
  manifest["nwnsim"] = "sweep-manifest";
  manifest["version"] = nwnsim_version();
  manifest["config"] = base;
  manifest["keys"] = keys;
  manifest["points"] = points;
  write_file(file.string(), manifest.dump(2) + "\n");
}

// Removes what interrupted runs of these points left in `dir` (".part"
// outputs of children, write_file temporaries); other points' are not ours
// (array tasks share the directory).
void remove_unfinished(const fs::path& dir, const std::vector<std::string>& point_names) {
  const std::set<std::string> names(point_names.begin(), point_names.end());
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const std::size_t json_end = name.find(".json");
    if (!is_unfinished_output(name) || json_end == std::string::npos) continue;
    if (names.count(name.substr(0, json_end + 5))) fs::remove(e.path(), ec);
  }
}

// sweep --seeds N: the seeds are the grid's last axis, sim.seed, so each
// (point, seed) runs, is kept and resumes as any point does.
void add_seed_axis(int seeds, const Config& base,
                   std::vector<std::pair<std::string, std::vector<std::string>>>& axes) {
  if (seeds <= 1) return;
  for (auto& [key, values] : axes)
    if (key == "sim.seed")
      throw ConfigError(fmt::format("sweep error: --seeds {} with --vary sim.seed: --seeds derives the seeds from "
                                    "sim.seed (set it with --set sim.seed=S), or vary sim.seed without --seeds",
                                    seeds));
  std::vector<std::string> values;
  for (auto s : derived_seeds(base.get_int("sim.seed"), seeds)) values.push_back(std::to_string(s));
  axes.push_back({"sim.seed", values});
}

// Folds the seed axis (the last) back: each point's results combined over its
// seeds (sim/seeds.hpp); a point with a seed missing is missing.
void group_seeds(int seeds, std::vector<std::string>& keys, std::vector<std::vector<std::string>>& points,
                 std::vector<json>& results, json& all) {
  const std::size_t n = std::size_t(seeds);
  std::vector<std::vector<std::string>> grid;
  std::vector<json> combined;
  json grouped = json::array();
  for (std::size_t g = 0; g * n < points.size(); ++g) {
    std::vector<json> per_seed;
    std::vector<std::int64_t> seed_values;
    for (std::size_t k = 0; k < n; ++k) {
      if (!results[g * n + k].is_null()) per_seed.push_back(results[g * n + k]);
      seed_values.push_back(std::stoll(points[g * n + k].back()));
    }
    std::vector<std::string> key_values(points[g * n].begin(), points[g * n].end() - 1);
    json point;
    for (std::size_t k = 0; k + 1 < keys.size(); ++k) point["set"][keys[k]] = key_values[k];
    if (per_seed.size() == n) {
      combined.push_back(combine_seeds(per_seed, seed_values));
      point["results"] = combined.back();
    } else {
      combined.push_back(json());
      point["missing"] = true;
    }
    grid.push_back(key_values);
    grouped.push_back(point);
  }
  keys.pop_back();
  points = grid;
  results = combined;
  all = grouped;
}

int cmd_sweep(const SweepArgs& a) {
  Config base = load_config(a.config);  // validates the file and overrides up front
  const auto columns = parse_columns(a.columns, "--columns");
  for (const char* key : {"sim.packet_trace_file", "sim.vcd_file", "router.rtl_trace_file"})
    if (!base.get_string(key).empty())
      throw ConfigError(std::string("sweep error: ") + key + " = '" + base.get_string(key) +
                        "': every point of a sweep would write that one file; debug outputs are for one point "
                        "(nwnsim run)");
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::vector<std::pair<std::string, std::string>> vary;  // (flag, KEY=SPEC)
  for (auto& v : a.vary) vary.push_back({"--vary", v});
  if (a.loads_given) vary.push_back({"--loads", "traffic.load=" + a.loads});
  if (vary.empty()) vary.push_back({"--loads", "traffic.load=0.1:1.0:0.1"});
  for (auto& [flag, v] : vary) {
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("sweep error: --vary '" + v + "': expected KEY=VALUES (keys: nwnsim config --keys)");
    const std::string key = v.substr(0, eq);
    const std::string what = flag == "--loads" ? flag : flag + " " + key;
    auto values = expand_values(what, v.substr(eq + 1));
    for (auto& val : values) Config(base).set(key, val, what);  // validate every value now
    axes.push_back({key, values});
  }
  add_seed_axis(a.seeds, base, axes);
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

  if (a.point >= long(points.size()))
    throw ConfigError(fmt::format("sweep error: --point {} but the grid has {} points (allowed: 0 to {})", a.point,
                                  points.size(), points.size() - 1));
  if ((a.point >= 0 || a.merge_only || !a.emit.empty()) && a.out_dir.empty())
    throw ConfigError("sweep error: --point, --merge-only and --emit need --out-dir DIR");
  if (!a.emit.empty() && a.emit != "slurm") throw ConfigError("sweep error: --emit '" + a.emit + "' (allowed: slurm)");

  // Each point's complete effective config: what its results are matched by.
  std::vector<json> want(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    Config c = base;
    for (std::size_t k = 0; k < keys.size(); ++k) c.set(keys[k], points[i][k], "--vary");
    want[i] = c.to_json();
  }

  // Where each point's JSON goes: out_dir/points/ (kept, so an interrupted
  // sweep resumes) or a scratch directory.
  const bool keep = !a.out_dir.empty();
  std::optional<ScratchDir> scratch;
  if (!keep) scratch.emplace("sweep");
  const fs::path dir = keep ? fs::path(a.out_dir) / "points" : fs::path(scratch->path());
  if (keep) {  // --out-dir was checked when the command line was parsed
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw ConfigError(fmt::format("output error: --out-dir '{}': cannot create '{}': {}", a.out_dir,
                                          dir.string(), ec.message()));
    check_and_write_manifest(a.out_dir, base.to_json(), keys, points);
  }
  auto path_of = [&](std::size_t i) { return dir / point_file_name(i, keys, points[i]); };
  // The base config's arguments, as every child and array task gets them.
  const std::vector<std::string> base_args = config_child_args(a.config);
  auto child_args = [&](std::size_t i) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), base_args.begin(), base_args.end());
    for (std::size_t k = 0; k < keys.size(); ++k) args.insert(args.end(), {"--set", keys[k] + "=" + points[i][k]});
    return args;
  };

  if (a.emit == "slurm") {
    // A Slurm job array: task i runs point i into out_dir/points; a last
    // `--merge-only` with the same arguments merges them.
    std::string self = "'" + self_executable() + "' sweep";
    // Tasks may start elsewhere: the config file by its absolute path.
    for (std::size_t k = 0; k < base_args.size(); ++k)
      self += " '" + (k == 0 && !a.config.file.empty() ? fs::absolute(a.config.file).string() : base_args[k]) + "'";
    for (auto& v : a.vary) self += " --vary '" + v + "'";
    if (a.loads_given) self += " --loads '" + a.loads + "'";
    if (a.seeds > 1) self += fmt::format(" --seeds {}", a.seeds);
    self += " --out-dir '" + fs::absolute(a.out_dir).string() + "'";
    std::string script = fmt::format(
        "#!/bin/bash\n"
        "# nwnsim sweep of {} points as a Slurm job array (written by nwnsim sweep --emit slurm).\n"
        "#   sbatch {}/sweep.slurm      then, when all tasks are done:\n"
        "#   {} --merge-only --json sweep.json --csv sweep.csv\n"
        "#SBATCH --job-name=nwnsim-sweep\n#SBATCH --array=0-{}\n#SBATCH --cpus-per-task=1\n"
        "#SBATCH --output={}/slurm-%A_%a.out\n"
        "{} --point \"$SLURM_ARRAY_TASK_ID\" -j 1\n",
        points.size(), fs::absolute(a.out_dir).string(), self, points.size() - 1, fs::absolute(a.out_dir).string(),
        self);
    write_file((fs::path(a.out_dir) / "sweep.slurm").string(), script);
    std::cout << fmt::format("wrote {}/sweep.slurm ({} array tasks) and manifest.json\n", a.out_dir, points.size());
    return 0;
  }

  // A kept point is reused only when it is whole and is this point's config
  // run by this nwnsim; anything else is named and run again.
  std::vector<std::size_t> todo;
  std::size_t resumed = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (a.point >= 0 && long(i) != a.point) continue;
    if (keep && fs::exists(path_of(i))) {
      json r;
      const std::string problem = point_problem(path_of(i), want[i], r);
      if (problem.empty()) {
        ++resumed;
        continue;
      }
      std::cerr << fmt::format("nwnsim sweep: {}: {}; {}\n", path_of(i).string(), problem,
                               a.merge_only ? "not merged" : "running it again");
      if (!a.merge_only) fs::remove(path_of(i));
    }
    todo.push_back(i);
  }
  if (a.merge_only) todo.clear();
  std::vector<std::string> todo_names;
  for (std::size_t i : todo) todo_names.push_back(path_of(i).filename().string());
  remove_unfinished(dir, todo_names);  // left by a run that was killed
  std::vector<Job> jobs(todo.size());
  for (std::size_t t = 0; t < todo.size(); ++t) {
    jobs[t].args = child_args(todo[t]);
    // The child's output; the point file is written from it when the child
    // has finished, so an interrupted point never looks finished.
    jobs[t].args.insert(jobs[t].args.end(), {"--json", path_of(todo[t]).string() + ".part", "--quiet"});
  }
  if (resumed && !a.merge_only)
    std::cerr << fmt::format("nwnsim sweep: {} point(s) already in {}, {} to run\n", resumed, dir.string(), todo.size());
  const int parallel = a.jobs > 0 ? a.jobs : std::max(1, int(sysconf(_SC_NPROCESSORS_ONLN)));
  const bool tty = isatty(2);
  std::size_t done = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto finish_point = [&](std::size_t t) {
    const std::size_t i = todo[t];
    const std::string part = path_of(i).string() + ".part";
    std::string problem;
    json run;
    try {
      run = json::parse(read_file(part));
      const auto diff = config_differences(run.at("config"), want[i], {});
      if (!diff.empty()) problem = "it ran another config (" + joined(diff) + ")";
    } catch (const json::exception& e) {
      problem = std::string("unreadable: ") + e.what();
    }
    if (problem.empty()) {
      write_file(path_of(i).string(), point_record(want[i], run.at("results"), run.value("provenance", json())).dump(2) + "\n");
    } else {
      std::cerr << fmt::format("\nnwnsim sweep: {}: {}\n", part, problem);
      jobs[t].exit_code = kExitFailure;
    }
    fs::remove(part);
  };
  try {
    run_jobs(jobs, parallel, [&](std::size_t t) {
      ++done;
      const std::size_t i = todo[t];
      if (jobs[t].exit_code == 0) finish_point(t);
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const std::string eta = format_duration(elapsed / double(done) * double(jobs.size() - done));
      std::string what;
      for (std::size_t k = 0; k < keys.size(); ++k) what += (k ? " " : "") + keys[k] + "=" + points[i][k];
      if (tty)
        std::cerr << fmt::format("\r\033[K[{}/{}] {} elapsed, ETA {}", done, jobs.size(), format_duration(elapsed),
                                 eta)
                  << std::flush;
      else
        std::cerr << fmt::format("[{}/{}] {}: {} (ETA {})\n", done, jobs.size(), what,
                                 jobs[t].exit_code == 0 ? "done" : fmt::format("failed, exit {}", jobs[t].exit_code),
                                 eta);
      if (tty && jobs[t].exit_code != 0)
        std::cerr << fmt::format("\npoint {} ({}) failed (exit {})\n", i, what, jobs[t].exit_code);
    });
  } catch (const Interrupted&) {
    remove_unfinished(dir, todo_names);
    if (keep)
      std::cerr << fmt::format("{}nwnsim sweep: interrupted; finished points are kept in {}: rerun the same command "
                               "to resume\n",
                               tty ? "\n" : "", dir.string());
    throw;
  }
  if (tty && !jobs.empty()) std::cerr << "\n";
  // A child's config error (exit 2) is the sweep's.
  const bool config_error =
      std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.exit_code == kExitConfig; });
  const int failure = config_error ? kExitConfig : kExitFailure;
  if (a.point >= 0) return jobs.empty() || jobs[0].exit_code == 0 ? 0 : failure;

  std::vector<json> results(points.size());
  json all = json::array();
  int failed = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    json point;
    for (std::size_t k = 0; k < keys.size(); ++k) point["set"][keys[k]] = points[i][k];
    json r;
    if (fs::exists(path_of(i)) && point_problem(path_of(i), want[i], r).empty()) {
      results[i] = r;
      point["results"] = r;
    } else {
      ++failed;
      point["missing"] = true;
    }
    all.push_back(point);
  }
  if (a.seeds > 1) group_seeds(a.seeds, keys, points, results, all);
  json out;
  out["nwnsim"] = "sweep";
  out["provenance"] = provenance(&base);
  out["config"] = base.to_json();
  out["points"] = all;
  auto shown = [&](const char* key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end() ? std::string("varied") : base.text(key);
  };
  std::cout << fmt::format("nwnsim sweep: {} {}, radix {}, {} traffic, {} point(s){}\n",
                           base.get_string("network.topology"), shown("router.org"), shown("router.radix"),
                           shown("traffic.pattern"), points.size(),
                           a.seeds > 1 ? fmt::format(" x {} seeds: mean ± 95 % interval", a.seeds) : "");
  std::cout << results_table(keys, points, results, columns).render();
  if (!a.json_path.empty()) write_file(a.json_path, out.dump(2) + "\n");
  if (!a.csv_path.empty()) write_file(a.csv_path, csv_table(keys, points, results, columns).csv());
  if (keep) {
    write_file((fs::path(a.out_dir) / "sweep.json").string(), out.dump(2) + "\n");
    write_file((fs::path(a.out_dir) / "sweep.csv").string(), csv_table(keys, points, results, columns).csv());
  }
  if (failed) {
    std::cerr << fmt::format("nwnsim sweep: {} {} {}; run one with 'nwnsim run' to see why\n", failed,
                             a.seeds > 1 ? "run(s) of a point and a seed" : "point(s)",
                             a.merge_only ? "missing" : "failed");
    return failure;
  }
  return 0;
}

struct BenchCase {
  std::string name;
  std::vector<std::string> sets;
};

int cmd_bench(bool quick, bool large, int threads, const std::string& json_path) {
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
  // Each network case on one thread and on `threads` (same results, bit for bit).
  auto network_case = [&](const std::string& name, const std::vector<std::string>& sets) {
    all.push_back({name + "-1t", with(sets, {"sim.threads=1"})});
    if (threads > 1) all.push_back({fmt::format("{}-{}t", name, threads), with(sets, {fmt::format("sim.threads={}", threads)})});
  };
  network_case("fclos4096-cn32-ur-0.3", with(fclos, {"router.org=cn"}));
  network_case("fclos4096-fc32-ur-0.3", with(fclos, {"router.org=fc"}));
  if (large) {
    // 32,768 nodes: 3 levels of 1,024 radix-64 routers; the cost per
    // flit-hop against the 4,096-node network's says how it scales.
    const std::vector<std::string> big = {"network.topology=fclos", "router.radix=64", "network.fclos_levels=3",
                                          "traffic.load=0.3", "sim.warmup_cycles=200", "sim.measure_cycles=300",
                                          "sim.drain_cap_cycles=2000"};
    network_case("fclos32768-cn64-ur-0.3", with(big, {"router.org=cn"}));
    network_case("fclos32768-fc64-ur-0.3", with(big, {"router.org=fc"}));
  }
  const ScratchDir scratch("bench");
  const fs::path tmp = scratch.path();
  Table t;
  t.header = {"case", "threads", "cycles", "wall-s", "cycles/s", "flit-hops/s", "ns/flit-hop", "peak-MB"};
  json measured = json::array();
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
    t.rows.push_back({all[i].name, std::to_string(perf["threads"].get<int>()),
                      std::to_string(run["results"]["cycles"].get<std::uint64_t>()),
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
    measured.push_back(c);
  }
  std::cout << "nwnsim bench" << (quick ? " --quick" : "") << " (common: ";
  for (std::size_t i = 0; i < common.size(); ++i) std::cout << (i ? " " : "") << common[i];
  std::cout << ")\n" << t.render();
  // Slowdown of each -rtl case against the same case with the C++ allocators.
  for (const json& c : measured) {
    const std::string name = c["case"];
    if (name.size() < 4 || name.compare(name.size() - 4, 4, "-rtl") != 0) continue;
    for (const json& m : measured)
      if (m["case"] == name.substr(0, name.size() - 4))
        std::cout << fmt::format("{}: the RTL allocators run {:.1f}x slower than the C++ ones\n", name,
                                 m["perf"]["cycles_per_second"].get<double>() /
                                     c["perf"]["cycles_per_second"].get<double>());
  }
  if (!json_path.empty()) {
    json out;
    out["nwnsim"] = "bench";
    out["provenance"] = provenance();
    out["cases"] = measured;
    write_file(json_path, out.dump(2) + "\n");
  }
  return failed ? kExitFailure : 0;
}

int cmd_config(const ConfigArgs& ca, bool keys, bool markdown) {
  if (markdown) {
    std::cout << schema_markdown();
    return 0;
  }
  if (keys) {
    // One line per key (key = default, unit), then its meaning wrapped to 100 columns.
    constexpr std::size_t kWidth = 100, kIndent = 4;
    for (auto& k : config_schema()) {
      std::cout << k.key << " = " << (k.default_value.empty() ? "\"\"" : k.default_value)
                << (k.unit.empty() ? "" : "  (" + k.unit + ")") << "\n";
      std::string line;
      std::istringstream words(k.doc);
      for (std::string w; words >> w;) {
        if (!line.empty() && kIndent + line.size() + 1 + w.size() > kWidth) {
          std::cout << std::string(kIndent, ' ') << line << "\n";
          line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
      }
      if (!line.empty()) std::cout << std::string(kIndent, ' ') << line << "\n";
    }
    return 0;
  }
  std::cout << load_config(ca).to_toml();
  return 0;
}

// CLI11 reports a misspelt command as "A subcommand is required"; this names
// the word and the commands allowed there instead (empty if all is well).
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  const CLI::App* at = &app;
  std::string path = "nwnsim";
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const auto subs = at->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty()) break;  // a positional argument of the command
    const auto it = std::find_if(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->check_name(argv[i]); });
    if (it == subs.end()) {
      std::string names;
      for (const CLI::App* s : subs) names += (names.empty() ? "" : ", ") + s->get_name();
      return fmt::format("{}: unknown command '{}' (allowed: {})", path, argv[i], names);
    }
    at = *it;
    path += " " + at->get_name();
  }
  return "";
}

const char* const seeds_help =
    "run each point with N seeds (sim.seed and N-1 derived from it, each in a child process): every figure the "
    "mean with its 95 % interval (Student t), the per-seed values in the JSON";
const std::string columns_flag_help = "the table's and CSV's statistics, comma-separated: " + columns_help();

void add_seed_and_column_args(CLI::App* cmd, SeedArgs& sa, std::string& columns) {
  cmd->add_option("--seeds", sa.seeds, seeds_help)->check(CLI::Range(1, 1000));
  cmd->add_option("-j,--jobs", sa.jobs, "parallel processes with --seeds (default: one per core)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--columns", columns, columns_flag_help)->type_name("LIST");
}

int run_command(int argc, char** argv) {
  CLI::App app{"nwnsim: cycle-level SystemC model of high-radix router microarchitecture"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] { return version_text(); }, "print the version, commit, build and SystemC");

  ConfigArgs run_cfg;
  std::string run_json, run_csv, run_perf;
  bool run_quiet = false;
  auto* run = app.add_subcommand("run", "simulate one point and print its results");
  add_config_args(run, run_cfg);
  output_option(run->add_option("--json", run_json, "write config and results as JSON"));
  output_option(run->add_option("--csv", run_csv, "write results as one CSV row with header"));
  output_option(run->add_option("--perf-json", run_perf,
                                "write wall time, cycles/s and peak memory (machine-dependent) as JSON"));
  run->add_flag("--quiet", run_quiet, "print nothing on success");
  RunDebugArgs run_debug;
  SeedArgs run_seeds;
  std::string run_columns;
  add_seed_and_column_args(run, run_seeds, run_columns);
  run->add_flag("--progress", run_debug.progress,
                "a progress line on stderr about once a second (the default on a terminal)");
  output_option(run->add_option(
      "--heatmap", run_debug.heatmap,
      "write packets per (router, input port, output port) as CSV (scripts/plot_heatmap.py plots it)"));
  output_option(run->add_option("--trace-packets", run_debug.trace_packets,
                                "write the path of the packets chosen by sim.packet_trace_ids / "
                                "sim.packet_trace_every, event by event (sim.packet_trace_file)"))
      ->type_name("FILE");
  RunJobArgs run_job;
  run->add_option("--emit", run_job.emit,
                  "slurm: print an sbatch script that runs this point over --ranks MPI ranks (memory per rank "
                  "measured by building the largest rank's share here; docs/SCALING.md)")
      ->check(CLI::IsMember({"slurm"}));
  run->add_option("--ranks", run_job.ranks, "MPI ranks of the job --emit writes")->check(CLI::Range(1, 1 << 20));
  run->add_option("--mem-per-rank", run_job.mem_per_rank_mb,
                  "with --emit: memory per rank in MB instead of measuring it")
      ->check(CLI::Range(1.0, 1e9));
  output_option(run->add_option("--vcd", run_debug.vcd,
                                "write a VCD of router sim.vcd_router's channel and buffer occupancy over cycles "
                                "sim.vcd_from .. +sim.vcd_cycles (sim.vcd_file)"))
      ->type_name("FILE");

  SweepArgs sw;
  auto* sweep = app.add_subcommand("sweep", "simulate a grid of points in parallel processes (default: loads 0.1..1.0)");
  add_config_args(sweep, sw.config);
  auto* loads = sweep->add_option("--loads", sw.loads,
                                  "offered loads: FIRST:LAST:STEP or a,b,c (the last one given counts)")
                    ->type_name("SPEC")
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  sweep->add_option("--vary", sw.vary, "sweep a config key: KEY=FIRST:LAST:STEP or KEY=a,b,c (repeatable)")
      ->type_name("KEY=SPEC");
  sweep->add_option("-j,--jobs", sw.jobs, "parallel processes (default: one per core)")->check(CLI::Range(1, 1024));
  sweep->add_option("--seeds", sw.seeds, seeds_help)->check(CLI::Range(1, 1000));
  sweep->add_option("--columns", sw.columns, columns_flag_help)->type_name("LIST");
  output_option(sweep->add_option("--json", sw.json_path, "write every point's config and results as JSON"));
  output_option(sweep->add_option("--csv", sw.csv_path, "write one CSV row per point"));
  output_option(sweep->add_option("--out-dir", sw.out_dir,
                                  "keep each finished point in DIR/points (a rerun with the same base config "
                                  "resumes, skipping them) and merge into DIR/sweep.{json,csv}"),
                OutputKind::Dir)
      ->type_name("DIR");
  sweep->add_option("--point", sw.point, "run only point I of the grid into --out-dir (a cluster array task)")
      ->check(CLI::Range(0L, 100000000L));
  sweep->add_flag("--merge-only", sw.merge_only, "simulate nothing: merge the points in --out-dir");
  sweep->add_option("--emit", sw.emit, "slurm: write --out-dir/sweep.slurm (a job array) and manifest.json")
      ->check(CLI::IsMember({"slurm"}));

  bool bench_quick = false, bench_large = false;
  int bench_threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::string bench_json;
  auto* bench = app.add_subcommand("bench", "measure simulation speed and memory on fixed cases");
  bench->add_flag("--quick", bench_quick, "shorter runs");
  bench->add_flag("--large", bench_large, "add 32,768-node folded Closes with cn and fc routers (minutes, several GB)");
  bench->add_option("--threads", bench_threads, "threads for the network cases' second run (default: the cores)")
      ->check(CLI::Range(1, 256));
  output_option(bench->add_option("--json", bench_json, "write the measurements as JSON"));

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
      if (const std::string unknown = unknown_command(app, argc, argv); !unknown.empty()) {
        std::cerr << unknown << "\nRun with --help for more information.\n";
        return kExitConfig;
      }
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e) == 0 ? 0 : kExitConfig;
    }
    if (*run) return cmd_run(run_cfg, run_json, run_csv, run_perf, run_quiet, run_debug,
                             parse_columns(run_columns, "--columns"), run_seeds, run_job);
    if (*sweep) {
      sw.loads_given = loads->count() > 0;
      return cmd_sweep(sw);
    }
    if (*bench) return cmd_bench(bench_quick, bench_large, bench_threads, bench_json);
    if (*config) return cmd_config(cfg_args, cfg_keys, cfg_md);
  } catch (const Interrupted& e) {
    std::cerr << "nwnsim: " << e.what() << "\n";
    return 128 + e.signal;
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

}  // namespace

int nwnsim_main(int argc, char** argv) {
  set_command_line(argc, argv);
  const int code = run_command(argc, argv);
  // Streamed outputs (packet trace, VCD) are closed by destructors, which
  // cannot throw: their write errors are reported here.
  for (auto& e : deferred_write_errors()) std::cerr << "nwnsim: error: " << e << "\n";
  return deferred_write_errors().empty() || code != 0 ? code : kExitFailure;
}

CLI::Option* output_option(CLI::Option* opt, OutputKind kind) {
  return opt->check(CLI::Validator(
      [kind](std::string& path) {
        const std::string problem = output_problem(path, kind);
        return problem.empty() ? problem : "'" + path + "': " + problem;
      },
      ""));
}

std::vector<CommandAdder>& command_registry() {
  static std::vector<CommandAdder> registry;
  return registry;
}

}  // namespace nwn

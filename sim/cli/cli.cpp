// nwnsim's command line: run and config here, sweep (sweep.cpp) and bench
// (bench.cpp) added after run in that order, then the commands other files
// of sim/cli/ register; the errors of every command become exit codes here.
#include "cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "../columns.hpp"
#include "../config.hpp"
#include "../experiment.hpp"
#include "../network.hpp"
#include "../process.hpp"
#include "../provenance.hpp"
#include "../ranks_report.hpp"
#include "../report.hpp"
#include "../seeds.hpp"
#include "../version.hpp"

namespace nwn {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

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

std::vector<CommandLineSetting> command_line_settings(const ConfigArgs& a) {
  std::vector<CommandLineSetting> out;
  for (auto& s : a.sets) out.push_back({s, "--set " + s});
  if (!a.allocator.empty()) out.push_back({"router.allocator_impl=" + a.allocator, "--allocator " + a.allocator});
  if (!a.trace_rtl.empty()) out.push_back({"router.rtl_trace_file=" + a.trace_rtl, "--trace-rtl " + a.trace_rtl});
  if (a.threads > 0) out.push_back({"sim.threads=" + std::to_string(a.threads), fmt::format("--threads {}", a.threads)});
  return out;
}

Config load_config(const ConfigArgs& a) {
  Config cfg;
  if (!a.file.empty()) cfg.load_file(a.file);
  for (auto& s : command_line_settings(a)) cfg.set_override(s.setting);
  return cfg;
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

ConfigArgs with_absolute_paths(const ConfigArgs& a) {
  ConfigArgs out = a;
  if (!out.file.empty()) out.file = fs::absolute(out.file).string();
  for (auto& s : out.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || !is_file_key(s.substr(0, eq))) continue;
    const fs::path file = s.substr(eq + 1);
    if (!file.empty() && file.is_relative()) s = s.substr(0, eq + 1) + fs::absolute(file).string();
  }
  return out;
}

const char* const seeds_help =
    "run each point with N seeds (sim.seed and N-1 derived from it, each in a child process): every figure the "
    "mean with its 95 % interval (Student t), the per-seed values in the JSON";
std::string columns_flag_help() { return "the table's and CSV's statistics, comma-separated: " + columns_help(); }

namespace {

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

// The keys the debug outputs' flags set.
void set_debug_outputs(Config& cfg, const RunDebugArgs& debug) {
  if (!debug.heatmap.empty()) cfg.set("sim.heatmap", "true", "--heatmap");
  if (!debug.trace_packets.empty()) cfg.set("sim.packet_trace_file", debug.trace_packets, "--trace-packets");
  if (!debug.vcd.empty()) cfg.set("sim.vcd_file", debug.vcd, "--vcd");
}

// --seeds over several ranks (under mpirun, or in the job --emit slurm writes).
ConfigError seeds_over_ranks(int seeds) {
  return ConfigError(fmt::format("run error: --seeds {} under mpirun (or in a job of several ranks): the seeds run "
                                 "in child processes of one nwnsim; run each seed over the ranks with --set sim.seed=S",
                                 seeds));
}

// run --emit slurm --ranks R: a job that runs this point over R MPI ranks.
struct RunJobArgs {
  std::string emit;
  int ranks = 0;
  double mem_per_rank_mb = 0;
};

struct RunArgs {
  ConfigArgs config;
  std::string json_path, csv_path, perf_path;
  bool quiet = false;
  RunDebugArgs debug;
  SeedArgs seeds;
  RunJobArgs job;
  std::string columns;
  bool columns_given = false;  // --columns '' is an error, not the default columns
};

// run --seeds N writes what the seeds share: not the outputs of one run.
void check_seeds_outputs(const RunArgs& a) {
  if (a.seeds.seeds <= 1) return;
  for (auto& [flag, given] : {std::pair<const char*, bool>{"--perf-json", !a.perf_path.empty()},
                              {"--heatmap", !a.debug.heatmap.empty()}, {"--trace-packets", !a.debug.trace_packets.empty()},
                              {"--vcd", !a.debug.vcd.empty()}, {"--trace-rtl", !a.config.trace_rtl.empty()}})
    if (given)
      throw ConfigError(fmt::format("run error: {} with --seeds {}: debug and speed outputs are of one run "
                                    "(leave out --seeds)",
                                    flag, a.seeds.seeds));
}

// The sbatch script of the job on stdout (sim/ranks_report.hpp). The job runs
// what run would run here: what cannot run over its ranks is refused now, as
// mpirun's ranks would refuse it; every other flag goes to the job (--progress
// always), files by absolute paths, since the job may start elsewhere.
int cmd_run_emit(const RunArgs& a) {
  const RunJobArgs& job = a.job;
  if (job.ranks < 1) throw ConfigError("run error: --emit slurm needs --ranks R (the MPI ranks of the job)");
  const Config cfg = load_config(a.config);
  if (job.ranks > 1) {
    if (a.seeds.seeds > 1) throw seeds_over_ranks(a.seeds.seeds);
    Config debug = cfg;
    set_debug_outputs(debug, a.debug);
    check_distributable(debug, job.ranks);
  }
  check_seeds_outputs(a);
  RankJob j;
  j.ranks = job.ranks;
  j.mem_per_rank_mb = job.mem_per_rank_mb;
  j.run_args = config_child_args(with_absolute_paths(a.config));
  for (auto& [flag, path] : {std::pair<const char*, const std::string&>{"--json", a.json_path},
                             {"--csv", a.csv_path}, {"--perf-json", a.perf_path}, {"--heatmap", a.debug.heatmap},
                             {"--trace-packets", a.debug.trace_packets}, {"--vcd", a.debug.vcd},
                             {"--trace-rtl", a.config.trace_rtl}})
    if (!path.empty()) j.run_args.insert(j.run_args.end(), {flag, fs::absolute(path).string()});
  if (a.quiet) j.run_args.push_back("--quiet");
  if (a.columns_given) j.run_args.insert(j.run_args.end(), {"--columns", a.columns});
  if (a.seeds.seeds > 1) j.run_args.insert(j.run_args.end(), {"--seeds", std::to_string(a.seeds.seeds)});
  if (a.seeds.seeds > 1 && a.seeds.jobs > 0) j.run_args.insert(j.run_args.end(), {"-j", std::to_string(a.seeds.jobs)});
  std::cout << rank_job_script(cfg, j);
  return 0;
}

int cmd_run_ranks(const ConfigArgs& ca, const std::string& json_path, const std::string& csv_path,
                  const std::string& perf_path, bool quiet, const RunDebugArgs& debug,
                  const std::vector<std::string>& columns, Ranks& ranks);

// Under mpirun every rank runs this; without, the one process.
int cmd_run(const RunArgs& a, const std::vector<std::string>& columns) {
  if (!a.job.emit.empty()) return cmd_run_emit(a);
  if (a.job.ranks > 0) throw ConfigError("run error: --ranks goes with --emit slurm (a job's ranks); to run over ranks "
                                         "here, start nwnsim with mpirun -np R");
  const ConfigArgs& ca = a.config;
  const RunDebugArgs& debug = a.debug;
  const SeedArgs& sa = a.seeds;
  Ranks& ranks = process_ranks();
  return run_on_ranks(ranks, [&] {
    if (sa.seeds > 1 && ranks.distributed())
      throw RanksFailed(2, std::make_exception_ptr(seeds_over_ranks(sa.seeds)), ranks.root());
    if (sa.seeds <= 1)
      return cmd_run_ranks(ca, a.json_path, a.csv_path, a.perf_path, a.quiet, debug, columns, ranks);
    check_seeds_outputs(a);
    return cmd_run_seeds(ca, a.json_path, a.csv_path, a.quiet, columns, sa);
  });
}

// One run on `ranks` (one process without mpirun): every rank simulates its
// share, rank 0 writes and prints.
int cmd_run_ranks(const ConfigArgs& ca, const std::string& json_path, const std::string& csv_path,
                  const std::string& perf_path, bool quiet, const RunDebugArgs& debug,
                  const std::vector<std::string>& columns, Ranks& ranks) {
  Config cfg = load_config(ca);
  const std::string& heatmap_path = debug.heatmap;
  set_debug_outputs(cfg, debug);
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
      ranks, NetworkAfterRun::LeaveToExit);
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

int cmd_config(const ConfigArgs& ca, bool keys, bool markdown) {
  const Config cfg = load_config(ca);  // a bad file or --set is an error whatever is printed
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
  std::cout << cfg.to_toml();
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

void add_seed_and_column_args(CLI::App* cmd, SeedArgs& sa, std::string& columns) {
  cmd->add_option("--seeds", sa.seeds, seeds_help)->check(CLI::Range(1, 1000));
  cmd->add_option("-j,--jobs", sa.jobs, "parallel processes with --seeds (default: one per core)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--columns", columns, columns_flag_help())->type_name("LIST");
}

CLI::App* add_run_command(CLI::App& app, RunArgs& a) {
  auto* run = app.add_subcommand("run", "simulate one point and print its results");
  add_config_args(run, a.config);
  output_option(run->add_option("--json", a.json_path, "write config and results as JSON"));
  output_option(run->add_option("--csv", a.csv_path, "write results as one CSV row with header"));
  output_option(run->add_option("--perf-json", a.perf_path,
                                "write wall time, cycles/s and peak memory (machine-dependent) as JSON"));
  run->add_flag("--quiet", a.quiet, "print nothing on success");
  add_seed_and_column_args(run, a.seeds, a.columns);
  run->add_flag("--progress", a.debug.progress,
                "a progress line on stderr about once a second (the default on a terminal)");
  output_option(run->add_option(
      "--heatmap", a.debug.heatmap,
      "write packets per (router, input port, output port) as CSV (scripts/plot_heatmap.py plots it)"));
  output_option(run->add_option("--trace-packets", a.debug.trace_packets,
                                "write the path of the packets chosen by sim.packet_trace_ids / "
                                "sim.packet_trace_every, event by event (sim.packet_trace_file)"))
      ->type_name("FILE");
  run->add_option("--emit", a.job.emit,
                  "slurm: print an sbatch script that runs this point over --ranks MPI ranks (memory per rank "
                  "measured by building the largest rank's share here; docs/SCALING.md)")
      ->check(CLI::IsMember({"slurm"}));
  run->add_option("--ranks", a.job.ranks, "MPI ranks of the job --emit writes")->check(CLI::Range(1, 1 << 20));
  run->add_option("--mem-per-rank", a.job.mem_per_rank_mb, "with --emit: memory per rank in MB instead of measuring it")
      ->check(CLI::Range(1.0, 1e9));
  output_option(run->add_option("--vcd", a.debug.vcd,
                                "write a VCD of router sim.vcd_router's channel and buffer occupancy over cycles "
                                "sim.vcd_from .. +sim.vcd_cycles (sim.vcd_file)"))
      ->type_name("FILE");
  return run;
}

struct ConfigCommandArgs {
  ConfigArgs config;
  bool keys = false, markdown = false;
};

CLI::App* add_config_command(CLI::App& app, ConfigCommandArgs& a) {
  auto* config = app.add_subcommand("config", "print the effective config (file + overrides), or the key list");
  add_config_args(config, a.config);
  config->add_flag("--keys", a.keys, "list every key with its default, unit and meaning");
  config->add_flag("--markdown", a.markdown, "the key list as a Markdown table");
  return config;
}

// Parses the command line and runs the command; every error becomes its exit code.
int run_command(int argc, char** argv) {
  CLI::App app{"nwnsim: cycle-level SystemC model of high-radix router microarchitecture"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] { return version_text(); }, "print the version, commit, build and SystemC");
  int exit_code = 0;
  RunArgs run_args;
  auto* run = add_run_command(app, run_args);
  add_sweep_command(app, exit_code);
  add_bench_command(app, exit_code);
  ConfigCommandArgs cfg_args;
  auto* config = add_config_command(app, cfg_args);
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
    if (*run) {
      run_args.columns_given = run->get_option("--columns")->count() > 0;
      return cmd_run(run_args, run_args.columns_given ? parse_columns(run_args.columns, "--columns")
                                                      : std::vector<std::string>{});
    }
    if (*config) return cmd_config(cfg_args.config, cfg_args.keys, cfg_args.markdown);
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

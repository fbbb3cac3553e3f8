// nwnsim reproduce: one command per figure and table of the paper. Each
// preset in configs/paper/NAME.toml records the nwnsim command line that
// regenerates it (and a shorter one for --quick), the plot that draws it, and
// what the paper reports:
//
//   title   = "Fig. 17: ..."
//   paper   = "what the paper reports"
//   command = ["sweep", "--vary", "router.org=fc,bb", ...]   # nwnsim arguments
//   quick   = ["--loads", "0.1:0.7:0.2", ...]                 # appended with --quick
//   outputs = ["json", "csv"]                                 # the command writes --json/--csv
//   plot    = ["scripts/plot_sweep.py", "{json}", "{prefix}"] # optional; the script's path in the source tree
//
// {json}, {csv} and {prefix} are substituted in the command too.
//
// reproduce runs the command as a child (its table on stdout), writing
// OUT/NAME.{json,csv}, then the plot with {json}, {csv} and {prefix}
// (OUT/NAME) substituted.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <toml++/toml.h>

#include "cli.hpp"
#include "../config.hpp"
#include "../process.hpp"
#include "../report.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;

struct Preset {
  std::string name, title, paper;
  std::vector<std::string> command, quick, outputs, plot;
};

std::vector<std::string> strings(const toml::table& t, const std::string& file, const char* key, bool required) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) throw ConfigError("preset error: " + file + ": '" + key + "' is missing (a list of strings)");
    return out;
  }
  const toml::array* a = n->as_array();
  if (!a) throw ConfigError("preset error: " + file + ": '" + key + "' must be a list of strings");
  for (auto& e : *a) {
    auto s = e.value<std::string>();
    if (!s) throw ConfigError("preset error: " + file + ": '" + key + "' must be a list of strings");
    out.push_back(*s);
  }
  return out;
}

Preset load_preset(const fs::path& file) {
  toml::table t;
  try {
    t = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("preset error: {}:{}: {}", file.string(), e.source().begin.line, e.description()));
  }
  for (auto& [k, v] : t) {
    static const char* known[] = {"title", "paper", "command", "quick", "outputs", "plot"};
    if (std::find_if(std::begin(known), std::end(known), [&](const char* s) { return k.str() == s; }) ==
        std::end(known))
      throw ConfigError("preset error: " + file.string() + ": unknown key '" + std::string(k.str()) +
                        "' (allowed: title, paper, command, quick, outputs, plot)");
  }
  Preset p;
  p.name = file.stem().string();
  p.title = t["title"].value_or(std::string());
  p.paper = t["paper"].value_or(std::string());
  if (p.title.empty()) throw ConfigError("preset error: " + file.string() + ": 'title' is missing");
  p.command = strings(t, file.string(), "command", true);
  p.quick = strings(t, file.string(), "quick", false);
  p.outputs = strings(t, file.string(), "outputs", false);
  p.plot = strings(t, file.string(), "plot", false);
  if (p.command.empty()) throw ConfigError("preset error: " + file.string() + ": 'command' is empty");
  for (auto& o : p.outputs)
    if (o != "json" && o != "csv")
      throw ConfigError("preset error: " + file.string() + ": outputs entry '" + o + "' (allowed: json, csv)");
  return p;
}

// The preset names in `dir` (its .toml files), sorted; a directory that is
// missing or holds none is an error.
std::vector<std::string> preset_names(const fs::path& dir) {
  const std::string what = "reproduce error: --presets '" + dir.string() + "'";
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw ConfigError(what + " does not exist (allowed: a directory of NAME.toml presets)");
  if (!fs::is_directory(dir, ec))
    throw ConfigError(what + " is not a directory (allowed: a directory of NAME.toml presets)");
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  if (ec) throw ConfigError(what + ": " + ec.message());
  if (out.empty()) throw ConfigError(what + " holds no presets (allowed: a directory of NAME.toml presets)");
  std::sort(out.begin(), out.end());
  return out;
}

std::string substitute(std::string s, const std::map<std::string, std::string>& vars) {
  for (auto& [k, v] : vars)
    for (std::size_t at; (at = s.find(k)) != std::string::npos;) s.replace(at, k.size(), v);
  return s;
}

struct ReproduceArgs {
  std::vector<std::string> names;
  bool list = false, quick = false, no_plot = false, dry_run = false;
  std::string out_dir = "results/paper";
  std::string preset_dir = data_path("configs/paper");  // an installed nwnsim's, else the source tree's
  int jobs = 0;
  int seeds = 1;  // --seeds for the sweeps and comparisons (their plots draw the intervals)
};

// The presets asked for (`all`: every one). Only those are read: a bad file
// among the others is not this command's business.
std::vector<Preset> chosen_presets(const ReproduceArgs& a, const fs::path& presets_dir,
                                   const std::vector<std::string>& names) {
  auto load = [&](const std::string& name) { return load_preset(presets_dir / (name + ".toml")); };
  std::vector<Preset> chosen;
  for (auto& n : a.names) {
    if (n == "all") {
      for (auto& name : names) chosen.push_back(load(name));
      continue;
    }
    if (std::find(names.begin(), names.end(), n) == names.end()) {
      std::string have;
      for (auto& name : names) have += (have.empty() ? "" : ", ") + name;
      throw ConfigError("reproduce error: no preset '" + n + "' (allowed: " + have + ", all)");
    }
    chosen.push_back(load(n));
  }
  return chosen;
}

// What a preset's run ended as.
struct PresetOutcome {
  bool failed = false, config_error = false;
};

// Runs one preset's command (printed first) and its plot; with --dry-run
// only prints the command.
PresetOutcome run_preset(const ReproduceArgs& a, const Preset& p, const fs::path& dir) {
  const std::string prefix = (dir / p.name).string();
  std::map<std::string, std::string> vars = {
      {"{json}", prefix + ".json"}, {"{csv}", prefix + ".csv"}, {"{prefix}", prefix}};
  Job job;
  job.quiet = false;
  for (auto& arg : p.command) job.args.push_back(substitute(arg, vars));  // e.g. --heatmap {prefix}.heat.csv
  if (a.quick) job.args.insert(job.args.end(), p.quick.begin(), p.quick.end());
  if (a.jobs > 0 && (p.command[0] == "sweep" || p.command[0] == "compare"))
    job.args.insert(job.args.end(), {"-j", std::to_string(a.jobs)});
  if (a.seeds > 1 && (p.command[0] == "sweep" || p.command[0] == "compare"))
    job.args.insert(job.args.end(), {"--seeds", std::to_string(a.seeds)});
  for (auto& o : p.outputs) job.args.insert(job.args.end(), {"--" + o, vars["{" + o + "}"]});
  std::string line = "nwnsim";
  for (auto& s : job.args) line += " " + s;
  std::cout << "== " << p.name << ": " << p.title << (a.quick ? " (quick)" : "") << "\n$ " << line << "\n"
            << std::flush;
  PresetOutcome outcome;
  if (a.dry_run) return outcome;
  std::vector<Job> jobs{job};
  run_jobs(jobs, 1, [](std::size_t) {});
  if (jobs[0].exit_code != 0) {
    std::cerr << fmt::format("reproduce: {} failed (exit {})\n", p.name, jobs[0].exit_code);
    outcome = {true, jobs[0].exit_code == 2};
    // A sweep or comparison whose points partly failed still wrote the
    // others: the figure shows them (the preset still counts as failed).
    const bool partial = jobs[0].exit_code == 1 &&
                         std::find(p.outputs.begin(), p.outputs.end(), "json") != p.outputs.end() &&
                         fs::exists(vars["{json}"]);
    if (!partial) return outcome;
    std::cerr << fmt::format("reproduce: {}: drawing the points that finished ({})\n", p.name, vars["{json}"]);
  }
  if (!p.plot.empty() && !a.no_plot) {
    std::vector<std::string> plot;
    for (auto& s : p.plot) plot.push_back(substitute(s, vars));
    if (const std::string problem = run_plot_script(plot); !problem.empty()) {
      std::cerr << "reproduce: the plot of " << p.name << " failed: " << problem << "\n";
      outcome.failed = true;
    }
  }
  std::cout << "written: " << prefix << ".*\n";
  return outcome;
}

int run_reproduce(const ReproduceArgs& a) {
  const fs::path presets_dir = a.preset_dir;
  const auto names = preset_names(presets_dir);
  if (a.list || a.names.empty()) {
    for (auto& name : names) {
      const Preset p = load_preset(presets_dir / (name + ".toml"));
      std::cout << fmt::format("{:<18} {}\n{:<18} paper: {}\n", name, p.title, "", p.paper);
    }
    if (!a.list) std::cout << "nwnsim reproduce NAME [--quick]: run one (or 'all')\n";
    return 0;
  }
  const std::vector<Preset> chosen = chosen_presets(a, presets_dir, names);
  check_output("--out", a.out_dir, OutputKind::Dir);  // the default is not checked by the parser
  const fs::path dir = a.out_dir;
  if (!a.dry_run) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw ConfigError(fmt::format("output error: --out '{}': {}", a.out_dir, ec.message()));
  }
  int failed = 0;
  bool config_error = false;
  for (const Preset& p : chosen) {
    const PresetOutcome o = run_preset(a, p, dir);
    failed += o.failed;
    config_error |= o.config_error;
  }
  // A preset whose command has a config error (exit 2) makes reproduce exit 2.
  return config_error ? 2 : failed ? 1 : 0;
}

CommandRegistration reg_reproduce([](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReproduceArgs>();
  auto* c = app.add_subcommand("reproduce", "regenerate a figure or table of the paper from configs/paper/NAME.toml");
  c->add_option("names", args->names, "preset names (see --list), or 'all'");
  c->add_flag("--list", args->list, "list the presets with what the paper reports");
  c->add_flag("--quick", args->quick, "shorter windows and fewer points (minutes)");
  c->add_flag("--no-plot", args->no_plot, "skip the plots");
  c->add_flag("--dry-run", args->dry_run, "print the commands without running them");
  output_option(c->add_option("--out", args->out_dir, "output directory"), OutputKind::Dir)->capture_default_str();
  c->add_option("--presets", args->preset_dir, "preset directory")->capture_default_str();
  c->add_option("-j,--jobs", args->jobs, "parallel processes for sweeps and comparisons (default: one per core)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--seeds", args->seeds,
                "run the sweeps and comparisons with N seeds: means with 95 % intervals, drawn as error bars")
      ->check(CLI::Range(1, 1000));
  c->callback([args, &exit_code] { exit_code = run_reproduce(*args); });
});

}  // namespace
}  // namespace nwn

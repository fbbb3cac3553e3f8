// nwnsim sweep: a grid of points (loads, --vary keys, seeds), each simulated
// in a child nwnsim (SystemC elaborates once per process), run in parallel.
// With --out-dir every finished point is kept as a file of its own, so an
// interrupted sweep resumes, a cluster runs the points as array tasks
// (--point, --emit slurm) and --merge-only gathers them.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "../columns.hpp"
#include "../process.hpp"
#include "../provenance.hpp"
#include "../report.hpp"
#include "../seeds.hpp"
#include "cli.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

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
  bool columns_given = false;  // --columns '' is an error, not the default columns
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

// One sweep: its grid, where its points go, and the steps that run them.
class Sweep {
 public:
  // The config with the files --set names by absolute paths in every mode:
  // the manifest, the points and a job array's tasks (which may start
  // elsewhere) then hold the same base config.
  explicit Sweep(const SweepArgs& a)
      : a_(a), config_(with_absolute_paths(a.config)), base_(load_config(config_)),
        columns_(a.columns_given ? parse_columns(a.columns, "--columns") : std::vector<std::string>{}) {}

  int run() {
    check_no_debug_outputs();
    make_grid();
    check_arguments();
    make_wanted_configs();
    prepare_dir();
    base_args_ = config_child_args(config_);
    if (a_.emit == "slurm") return emit_slurm();
    std::size_t resumed = 0;
    todo_ = points_to_run(resumed);
    for (std::size_t i : todo_) todo_names_.push_back(path_of(i).filename().string());
    remove_unfinished(dir_, todo_names_);  // left by a run that was killed
    if (resumed && !a_.merge_only)
      std::cerr << fmt::format("nwnsim sweep: {} point(s) already in {}, {} to run\n", resumed, dir_.string(),
                               todo_.size());
    run_points();
    // A child's config error (exit 2) is the sweep's.
    const bool config_error =
        std::any_of(jobs_.begin(), jobs_.end(), [](const Job& j) { return j.exit_code == kExitConfig; });
    const int failure = config_error ? kExitConfig : kExitFailure;
    if (a_.point >= 0) return jobs_.empty() || jobs_[0].exit_code == 0 ? 0 : failure;
    return merge_and_report() ? failure : 0;
  }

 private:
  void check_no_debug_outputs() const {
    for (const char* key : {"sim.packet_trace_file", "sim.vcd_file", "router.rtl_trace_file"})
      if (!base_.get_string(key).empty())
        throw ConfigError(std::string("sweep error: ") + key + " = '" + base_.get_string(key) +
                          "': every point of a sweep would write that one file; debug outputs are for one point "
                          "(nwnsim run)");
  }

  // The axes (--vary, --loads, the seeds), every value checked, and their
  // Cartesian product, last axis fastest.
  void make_grid() {
    std::vector<std::pair<std::string, std::vector<std::string>>> axes;
    std::vector<std::pair<std::string, std::string>> vary;  // (flag, KEY=SPEC)
    for (auto& v : a_.vary) vary.push_back({"--vary", v});
    if (a_.loads_given) vary.push_back({"--loads", "traffic.load=" + a_.loads});
    if (vary.empty()) vary.push_back({"the default --loads", "traffic.load=0.1:1.0:0.1"});
    std::vector<std::string> given;  // each axis as given, e.g. "--vary router.vcs=1,2"
    for (auto& [flag, v] : vary) {
      auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        throw ConfigError("sweep error: --vary '" + v + "': expected KEY=VALUES (keys: nwnsim config --keys)");
      const std::string key = v.substr(0, eq);
      const bool loads = flag != "--vary";
      const std::string what = loads ? "--loads" : flag + " " + key;
      given.push_back(loads ? flag + " " + v.substr(eq + 1) : flag + " " + v);
      for (std::size_t k = 0; k < axes.size(); ++k)
        if (axes[k].first == key)
          throw ConfigError(fmt::format("sweep error: {}: {} is varied twice (also by {}); vary each key once", given.back(),
                                        key, given[k]));
      note_replaced_set(key, given.back());
      auto values = expand_values(what, v.substr(eq + 1));
      for (auto& val : values) Config(base_).set(key, val, what);  // validate every value now
      axes.push_back({key, values});
    }
    add_seed_axis(a_.seeds, base_, axes);
    points_ = {{}};
    for (auto& [key, values] : axes) {
      std::vector<std::vector<std::string>> next;
      for (auto& p : points_)
        for (auto& val : values) {
          auto q = p;
          q.push_back(val);
          next.push_back(q);
        }
      points_.swap(next);
    }
    for (auto& ax : axes) keys_.push_back(ax.first);
  }

  // A key the command line sets and the grid varies takes the varied values
  // (a fixture of --set flags shared with run may hold traffic.load); said on
  // stderr, so that the set value is not dropped unseen.
  void note_replaced_set(const std::string& key, const std::string& axis) const {
    for (auto& s : command_line_settings(a_.config))
      if (s.key() == key) std::cerr << fmt::format("nwnsim sweep: {} replaces {} ({} is varied)\n", axis, s.argument, key);
  }

  void check_arguments() const {
    if (a_.point >= long(points_.size()))
      throw ConfigError(fmt::format("sweep error: --point {} but the grid has {} points (allowed: 0 to {})", a_.point,
                                    points_.size(), points_.size() - 1));
    if ((a_.point >= 0 || a_.merge_only || !a_.emit.empty()) && a_.out_dir.empty())
      throw ConfigError("sweep error: --point, --merge-only and --emit need --out-dir DIR");
    if (!a_.emit.empty() && a_.emit != "slurm") throw ConfigError("sweep error: --emit '" + a_.emit + "' (allowed: slurm)");
  }

  // Each point's complete effective config: what its results are matched by.
  void make_wanted_configs() {
    want_.resize(points_.size());
    for (std::size_t i = 0; i < points_.size(); ++i) {
      Config c = base_;
      for (std::size_t k = 0; k < keys_.size(); ++k) c.set(keys_[k], points_[i][k], "--vary");
      want_[i] = c.to_json();
    }
  }

  // Where each point's JSON goes: out_dir/points/ (kept, so an interrupted
  // sweep resumes) or a scratch directory.
  void prepare_dir() {
    keep_ = !a_.out_dir.empty();
    if (!keep_) scratch_.emplace("sweep");
    dir_ = keep_ ? fs::path(a_.out_dir) / "points" : fs::path(scratch_->path());
    if (!keep_) return;
    std::error_code ec;  // --out-dir was checked when the command line was parsed
    fs::create_directories(dir_, ec);
    if (ec) throw ConfigError(fmt::format("output error: --out-dir '{}': cannot create '{}': {}", a_.out_dir,
                                          dir_.string(), ec.message()));
    check_and_write_manifest(a_.out_dir, base_.to_json(), keys_, points_);
  }

  fs::path path_of(std::size_t i) const { return dir_ / point_file_name(i, keys_, points_[i]); }
  // The base config's arguments, as every child and array task gets them, and the point's.
  std::vector<std::string> child_args(std::size_t i) const {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), base_args_.begin(), base_args_.end());
    for (std::size_t k = 0; k < keys_.size(); ++k) args.insert(args.end(), {"--set", keys_[k] + "=" + points_[i][k]});
    return args;
  }

  // A Slurm job array: task i runs point i into out_dir/points; a last
  // `--merge-only` with the same arguments merges them.
  int emit_slurm() const {
    std::string self = "'" + self_executable() + "' sweep";
    for (auto& arg : base_args_) self += " '" + arg + "'";
    for (auto& v : a_.vary) self += " --vary '" + v + "'";
    if (a_.loads_given) self += " --loads '" + a_.loads + "'";
    if (a_.seeds > 1) self += fmt::format(" --seeds {}", a_.seeds);
    self += " --out-dir '" + fs::absolute(a_.out_dir).string() + "'";
    std::string script = fmt::format(
        "#!/bin/bash\n"
        "# nwnsim sweep of {} points as a Slurm job array (written by nwnsim sweep --emit slurm).\n"
        "#   sbatch {}/sweep.slurm      then, when all tasks are done:\n"
        "#   {} --merge-only --json sweep.json --csv sweep.csv\n"
        "#SBATCH --job-name=nwnsim-sweep\n#SBATCH --array=0-{}\n#SBATCH --cpus-per-task=1\n"
        "#SBATCH --output={}/slurm-%A_%a.out\n"
        "{} --point \"$SLURM_ARRAY_TASK_ID\" -j 1\n",
        points_.size(), fs::absolute(a_.out_dir).string(), self, points_.size() - 1, fs::absolute(a_.out_dir).string(),
        self);
    write_file((fs::path(a_.out_dir) / "sweep.slurm").string(), script);
    std::cout << fmt::format("wrote {}/sweep.slurm ({} array tasks) and manifest.json\n", a_.out_dir, points_.size());
    return 0;
  }

  // A kept point is reused only when it is whole and is this point's config
  // run by this nwnsim; anything else is named and run again.
  std::vector<std::size_t> points_to_run(std::size_t& resumed) const {
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      if (a_.point >= 0 && long(i) != a_.point) continue;
      if (keep_ && fs::exists(path_of(i))) {
        json r;
        const std::string problem = point_problem(path_of(i), want_[i], r);
        if (problem.empty()) {
          ++resumed;
          continue;
        }
        std::cerr << fmt::format("nwnsim sweep: {}: {}; {}\n", path_of(i).string(), problem,
                                 a_.merge_only ? "not merged" : "running it again");
        if (!a_.merge_only) fs::remove(path_of(i));
      }
      todo.push_back(i);
    }
    if (a_.merge_only) todo.clear();
    return todo;
  }

  // The point file from a finished child's output; the child wrote a ".part"
  // file, so an interrupted point never looks finished.
  void finish_point(std::size_t t) {
    const std::size_t i = todo_[t];
    const std::string part = path_of(i).string() + ".part";
    std::string problem;
    json run;
    try {
      run = json::parse(read_file(part));
      const auto diff = config_differences(run.at("config"), want_[i], {});
      if (!diff.empty()) problem = "it ran another config (" + joined(diff) + ")";
    } catch (const json::exception& e) {
      problem = std::string("unreadable: ") + e.what();
    }
    if (problem.empty()) {
      write_file(path_of(i).string(),
                 point_record(want_[i], run.at("results"), run.value("provenance", json())).dump(2) + "\n");
    } else {
      std::cerr << fmt::format("\nnwnsim sweep: {}: {}\n", part, problem);
      jobs_[t].exit_code = kExitFailure;
    }
    fs::remove(part);
  }

  // One line per finished point (on a terminal: one line, rewritten).
  void report_progress(std::size_t t, std::size_t done, std::chrono::steady_clock::time_point t0, bool tty) const {
    const std::size_t i = todo_[t];
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string eta = format_duration(elapsed / double(done) * double(jobs_.size() - done));
    std::string what;
    for (std::size_t k = 0; k < keys_.size(); ++k) what += (k ? " " : "") + keys_[k] + "=" + points_[i][k];
    if (tty)
      std::cerr << fmt::format("\r\033[K[{}/{}] {} elapsed, ETA {}", done, jobs_.size(), format_duration(elapsed), eta)
                << std::flush;
    else
      std::cerr << fmt::format("[{}/{}] {}: {} (ETA {})\n", done, jobs_.size(), what,
                               jobs_[t].exit_code == 0 ? "done" : fmt::format("failed, exit {}", jobs_[t].exit_code),
                               eta);
    if (tty && jobs_[t].exit_code != 0)
      std::cerr << fmt::format("\npoint {} ({}) failed (exit {})\n", i, what, jobs_[t].exit_code);
  }

  void run_points() {
    jobs_.resize(todo_.size());
    for (std::size_t t = 0; t < todo_.size(); ++t) {
      jobs_[t].args = child_args(todo_[t]);
      jobs_[t].args.insert(jobs_[t].args.end(), {"--json", path_of(todo_[t]).string() + ".part", "--quiet"});
    }
    const int parallel = a_.jobs > 0 ? a_.jobs : std::max(1, int(sysconf(_SC_NPROCESSORS_ONLN)));
    const bool tty = isatty(2);
    std::size_t done = 0;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      run_jobs(jobs_, parallel, [&](std::size_t t) {
        ++done;
        if (jobs_[t].exit_code == 0) finish_point(t);
        report_progress(t, done, t0, tty);
      });
    } catch (const Interrupted&) {
      remove_unfinished(dir_, todo_names_);
      if (keep_)
        std::cerr << fmt::format("{}nwnsim sweep: interrupted; finished points are kept in {}: rerun the same "
                                 "command to resume\n",
                                 tty ? "\n" : "", dir_.string());
      throw;
    }
    if (tty && !jobs_.empty()) std::cerr << "\n";
  }

  // Every point's results from its file (over seeds: combined), the table
  // and the outputs. Returns how many points (or point and seed runs) are missing.
  int merge_and_report() {
    std::vector<json> results(points_.size());
    json all = json::array();
    int failed = 0;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      json point;
      for (std::size_t k = 0; k < keys_.size(); ++k) point["set"][keys_[k]] = points_[i][k];
      json r;
      if (fs::exists(path_of(i)) && point_problem(path_of(i), want_[i], r).empty()) {
        results[i] = r;
        point["results"] = r;
      } else {
        ++failed;
        point["missing"] = true;
      }
      all.push_back(point);
    }
    if (a_.seeds > 1) group_seeds(a_.seeds, keys_, points_, results, all);
    write_outputs(results, all);
    if (failed)
      std::cerr << fmt::format("nwnsim sweep: {} {} {}; run one with 'nwnsim run' to see why\n", failed,
                               a_.seeds > 1 ? "run(s) of a point and a seed" : "point(s)",
                               a_.merge_only ? "missing" : "failed");
    return failed;
  }

  void write_outputs(const std::vector<json>& results, const json& all) const {
    json out;
    out["nwnsim"] = "sweep";
    out["provenance"] = provenance(&base_);
    out["config"] = base_.to_json();
    out["points"] = all;
    auto shown = [&](const char* key) {
      return std::find(keys_.begin(), keys_.end(), key) != keys_.end() ? std::string("varied") : base_.text(key);
    };
    std::cout << fmt::format("nwnsim sweep: {} {}, radix {}, {} traffic, {} point(s){}\n",
                             base_.get_string("network.topology"), shown("router.org"), shown("router.radix"),
                             shown("traffic.pattern"), points_.size(),
                             a_.seeds > 1 ? fmt::format(" x {} seeds: mean ± 95 % interval", a_.seeds) : "");
    std::cout << results_table(keys_, points_, results, columns_).render();
    if (!a_.json_path.empty()) write_file(a_.json_path, out.dump(2) + "\n");
    if (!a_.csv_path.empty()) write_file(a_.csv_path, csv_table(keys_, points_, results, columns_).csv());
    if (keep_) {
      write_file((fs::path(a_.out_dir) / "sweep.json").string(), out.dump(2) + "\n");
      write_file((fs::path(a_.out_dir) / "sweep.csv").string(), csv_table(keys_, points_, results, columns_).csv());
    }
  }

  const SweepArgs& a_;
  const ConfigArgs config_;  // a_.config, files by absolute paths
  Config base_;  // validates the file and overrides up front
  std::vector<std::string> columns_;
  std::vector<std::string> keys_;
  std::vector<std::vector<std::string>> points_;
  std::vector<json> want_;
  bool keep_ = false;
  std::optional<ScratchDir> scratch_;
  fs::path dir_;
  std::vector<std::string> base_args_;
  std::vector<std::size_t> todo_;
  std::vector<std::string> todo_names_;
  std::vector<Job> jobs_;
};

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto sw = std::make_shared<SweepArgs>();
  auto* sweep = app.add_subcommand("sweep", "simulate a grid of points in parallel processes (default: loads 0.1..1.0)");
  add_config_args(sweep, sw->config);
  auto* loads = sweep->add_option("--loads", sw->loads,
                                  "offered loads: FIRST:LAST:STEP or a,b,c (the last one given counts)")
                    ->type_name("SPEC")
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  sweep->add_option("--vary", sw->vary, "sweep a config key: KEY=FIRST:LAST:STEP or KEY=a,b,c (repeatable)")
      ->type_name("KEY=SPEC");
  sweep->add_option("-j,--jobs", sw->jobs, "parallel processes (default: one per core)")->check(CLI::Range(1, 1024));
  sweep->add_option("--seeds", sw->seeds, seeds_help)->check(CLI::Range(1, 1000));
  auto* columns = sweep->add_option("--columns", sw->columns, columns_flag_help())->type_name("LIST");
  output_option(sweep->add_option("--json", sw->json_path, "write every point's config and results as JSON"));
  output_option(sweep->add_option("--csv", sw->csv_path, "write one CSV row per point"));
  output_option(sweep->add_option("--out-dir", sw->out_dir,
                                  "keep each finished point in DIR/points (a rerun with the same base config "
                                  "resumes, skipping them) and merge into DIR/sweep.{json,csv}"),
                OutputKind::Dir)
      ->type_name("DIR");
  sweep->add_option("--point", sw->point, "run only point I of the grid into --out-dir (a cluster array task)")
      ->check(CLI::Range(0L, 100000000L));
  sweep->add_flag("--merge-only", sw->merge_only, "simulate nothing: merge the points in --out-dir");
  sweep->add_option("--emit", sw->emit, "slurm: write --out-dir/sweep.slurm (a job array) and manifest.json")
      ->check(CLI::IsMember({"slurm"}));
  sweep->callback([sw, loads, columns, &exit_code] {
    sw->loads_given = loads->count() > 0;  // --loads '' is an error, not the default loads
    sw->columns_given = columns->count() > 0;
    exit_code = Sweep(*sw).run();
  });
}

}  // namespace nwn

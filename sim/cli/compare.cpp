// nwnsim compare: the switch organizations of one router side by side under
// the same traffic: area, energy per packet with its breakdown, latency, EDP
// and EDAP, each also relative to a reference organization (hc). Every
// (organization, pattern) point is simulated in a child process; the power
// model then turns each point's measured activity into energy.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "../../models/organization.hpp"
#include "../network.hpp"
#include "../../power/area.hpp"
#include "../../power/power_model.hpp"
#include "cli.hpp"
#include "../config.hpp"
#include "../process.hpp"
#include "../provenance.hpp"
#include "../report.hpp"
#include "../columns.hpp"
#include "../seeds.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct CompareArgs {
  std::string config_file;
  std::vector<std::string> sets;
  std::string orgs = "cn,hc,fc,fc5,fc6,fc5-isu2,fc6-isu2,trv,trm,hxv,hxm,hx05";
  int cn_stages = 10;  // cn pipelined to hc's zero-load latency at radix 64, as the paper does
  std::string patterns = "uniform,bitcomp,bitrot,transpose_random";  // the paper's UR, BC, BR, TR
  std::string load = "0.5";
  std::string reference = "hc";
  bool reference_given = false;  // the default may be left out of --orgs (no rel- columns then)
  std::string tech_file;
  int jobs = 0;
  std::string csv_path, json_path, plot_prefix;
  bool quick = false;
  int seeds = 1;  // --seeds (sim/seeds.hpp)
};

SwitchDescription description_for(const Config& cfg) {
  return make_organization(organization_params(cfg, int(cfg.get_int("router.radix")))).description;
}

// One compared point: simulation results and the energy derived from them.
struct Point {
  std::string org, pattern;
  json results;
  EnergyBreakdown energy_per_packet;
  double area_pitch2 = 0, area_mm2 = 0;
  double latency_cycles = 0, latency_ns = 0;
  double edp = 0, edap = 0;  // pJ x ns, pJ x ns x mm^2
  bool ok = false;
};

std::vector<std::string> compare_header() {
  return {"pattern", "org",  "accepted", "latency", "area-mm2", "E/pkt-pJ", "buf",      "xbar", "wire",
          "static",  "EDP",  "EDAP",     "rel-area", "rel-E",   "rel-EDP",  "rel-EDAP", "sat"};
}

// A compared point's row from its JSON (over seeds: mean ± 95 % interval).
std::vector<std::string> compare_row(const json& j) {
  std::string sat = j["results"]["saturated"].get<bool>() ? "yes" : "no";
  if (j.contains("confidence")) {
    const json& f = j["confidence"]["figures"]["results.saturated"];
    const auto held = f["true_in"].get<std::size_t>();
    if (held > 0 && held < f["values"].size()) sat += fmt::format(" ({}/{})", held, f["values"].size());
  }
  return {j["pattern"].get<std::string>(),
          j["org"].get<std::string>(),
          figure_text(j, "results.accepted_load", "{:.3f}"),
          figure_text(j, "latency_cycles", "{:.1f}"),
          figure_text(j, "area_mm2", "{:.2f}"),
          figure_text(j, "energy_per_packet.switch_pj", "{:.1f}"),
          figure_text(j, "energy_per_packet.buffers_pj", "{:.1f}"),
          figure_text(j, "energy_per_packet.crossbars_pj", "{:.1f}"),
          figure_text(j, "energy_per_packet.wires_pj", "{:.1f}"),
          figure_text(j, "energy_per_packet.static_pj", "{:.1f}"),
          figure_text(j, "edp_pj_ns", "{:.3g}"),
          figure_text(j, "edap_pj_ns_mm2", "{:.3g}"),
          figure_text(j, "relative.area", "{:.2f}"),
          figure_text(j, "relative.energy", "{:.2f}"),
          figure_text(j, "relative.edp", "{:.2f}"),
          figure_text(j, "relative.edap", "{:.2f}"),
          sat};
}

// The table on stdout, then the CSV, the JSON and the plots asked for; false
// when the plot failed (said on stderr).
bool write_outputs(const CompareArgs& a, const Table& t, const json& out) {
  std::cout << t.render();
  if (!a.csv_path.empty()) write_file(a.csv_path, t.csv());
  if (a.json_path.empty() && a.plot_prefix.empty()) return true;
  const std::string jp = a.json_path.empty() ? a.plot_prefix + ".json" : a.json_path;
  write_file(jp, out.dump(2) + "\n");
  if (a.plot_prefix.empty()) return true;
  if (const std::string problem = run_plot_script({"scripts/plot_compare.py", jp, a.plot_prefix}); !problem.empty()) {
    std::cerr << "compare: the plot failed: " << problem << "\n";
    return false;
  }
  std::cout << "plots: " << a.plot_prefix << "-{energy,edp,edap}.{png,pdf,svg}\n";
  return true;
}

// The config every point shares: the file and --set, then --quick, --load
// and --cn-stages.
Config compare_base(const CompareArgs& a) {
  Config base;
  if (!a.config_file.empty()) base.load_file(a.config_file);
  for (auto& s : a.sets) base.set_override(s);
  if (a.quick) {
    base.set("sim.warmup_cycles", "1000", "--quick");
    base.set("sim.measure_cycles", "4000", "--quick");
  }
  base.set("traffic.load", a.load, "--load");
  base.set("router.cn_crossbar_stages", std::to_string(a.cn_stages), "--cn-stages");
  return base;
}

// --orgs and --patterns, every name checked against the config's choices.
std::pair<std::vector<std::string>, std::vector<std::string>> compared(const CompareArgs& a, const Config& base) {
  auto choices = [](const char* key) {
    std::string s;
    for (auto& c : find_key(key)->choices()) s += (s.empty() ? "" : ", ") + c;
    return s;
  };
  auto orgs = split_list(a.orgs, "--orgs", ',', choices("router.org"));
  auto patterns = split_list(a.patterns, "--patterns", ',', choices("traffic.pattern"));
  for (auto& o : orgs) Config(base).set("router.org", o, "--orgs");
  for (auto& p : patterns) Config(base).set("traffic.pattern", p, "--patterns");
  if (a.reference_given && std::find(orgs.begin(), orgs.end(), a.reference) == orgs.end())
    throw ConfigError("compare error: --reference '" + a.reference +
                      "' is not a compared organization (allowed: one of --orgs: " + a.orgs + ")");
  return {orgs, patterns};
}

// Every (organization, pattern) point in a child nwnsim, in parallel; its
// results in tmp/p<i>.json.
std::vector<Job> simulate_points(const CompareArgs& a, const Config& base, const std::vector<Point>& points,
                                 const fs::path& tmp) {
  std::vector<Job> jobs;
  for (const Point& pt : points) {
    Job j;
    j.args = {"run"};
    if (!a.config_file.empty()) j.args.push_back(a.config_file);
    for (auto& s : a.sets) j.args.insert(j.args.end(), {"--set", s});
    j.args.insert(j.args.end(), {"--set", "traffic.load=" + a.load, "--set", "router.org=" + pt.org, "--set",
                                 "traffic.pattern=" + pt.pattern, "--set", "router.cn_crossbar_stages=" + std::to_string(a.cn_stages),
                                 "--set", "sim.warmup_cycles=" + base.text("sim.warmup_cycles"),
                                 "--set", "sim.measure_cycles=" + base.text("sim.measure_cycles"), "--quiet", "--json",
                                 (tmp / fmt::format("p{}.json", jobs.size())).string()});
    jobs.push_back(j);
  }
  const int parallel = a.jobs > 0 ? a.jobs : std::max(1, int(sysconf(_SC_NPROCESSORS_ONLN)));
  std::size_t done = 0;
  const bool tty = isatty(2);
  run_jobs(jobs, parallel, [&](std::size_t i) {
    ++done;
    if (tty) std::cerr << fmt::format("\r[{}/{}] points done", done, jobs.size()) << std::flush;
    if (jobs[i].exit_code != 0)
      std::cerr << fmt::format("{}compare: {} on {} failed (exit {})\n", tty ? "\n" : "", points[i].org,
                               points[i].pattern, jobs[i].exit_code);
  });
  if (tty) std::cerr << "\n";
  return jobs;
}

// A simulated point's energy (the power model on its window activity), area and EDP.
void derive_figures(Point& pt, const json& run, const Config& base, const Technology& tech) {
  pt.results = run["results"];
  Config cfg = base;
  cfg.set("router.org", pt.org, "--orgs");
  const SwitchDescription d = description_for(cfg);
  const json& w = pt.results["window_activity"];
  RouterActivity act;
  for (auto& s : w["subswitch_writes_reads_crossbar"])
    act.subswitches.push_back({s[0].get<std::uint64_t>(), s[1].get<std::uint64_t>(), s[2].get<std::uint64_t>()});
  act.channel_flits = w["channel_flits"].get<std::vector<std::uint64_t>>();
  const std::uint64_t packets = w["packets_ejected"].get<std::uint64_t>();
  const std::uint64_t flits = w["flits_ejected"].get<std::uint64_t>();
  const int flit_bits = int(base.get_int("flit.bits"));
  const EnergyBreakdown e = switch_energy(tech, d, act, w["window_cycles"].get<std::uint64_t>(), flit_bits, 2 * flits);
  pt.energy_per_packet = e.scaled(packets ? 1.0 / double(packets) : 0.0);
  pt.area_pitch2 = switch_area_pitch2(d);
  pt.area_mm2 = pt.area_pitch2 * tech.channel_pitch_mm() * tech.channel_pitch_mm();
  pt.latency_cycles = pt.results["latency_avg"].get<double>();
  pt.latency_ns = pt.latency_cycles / tech.clock_ghz;
  pt.edp = pt.energy_per_packet.switch_pj() * pt.latency_ns;
  pt.edap = pt.edp * pt.area_mm2;
  pt.ok = true;
}

// A point's JSON: its figures, and relative to the reference's (if it ran).
json point_json(const Point& pt, const Point* ref, const Technology& tech, int flit_bits) {
  const EnergyBreakdown& e = pt.energy_per_packet;
  const json& w = pt.results["window_activity"];
  json j;
  j["org"] = pt.org;
  j["pattern"] = pt.pattern;
  j["area_pitch2"] = pt.area_pitch2;
  j["area_mm2"] = pt.area_mm2;
  j["latency_cycles"] = pt.latency_cycles;
  j["latency_ns"] = pt.latency_ns;
  j["energy_per_packet"] = e.to_json();
  j["energy_per_bit_pj"] = e.switch_pj() / (flit_bits * w["flits_ejected"].get<double>() /
                                            std::max(1.0, w["packets_ejected"].get<double>()));
  j["power_w"] = e.switch_pj() * w["packets_ejected"].get<double>() /
                 (w["window_cycles"].get<double>() / tech.clock_ghz) * 1e-3;
  j["edp_pj_ns"] = pt.edp;
  j["edap_pj_ns_mm2"] = pt.edap;
  if (ref) {
    j["relative"]["area"] = pt.area_mm2 / ref->area_mm2;
    j["relative"]["energy"] = e.switch_pj() / ref->energy_per_packet.switch_pj();
    j["relative"]["edp"] = pt.edp / ref->edp;
    j["relative"]["edap"] = pt.edap / ref->edap;
  }
  j["results"] = pt.results;
  return j;
}

int run_compare(const CompareArgs& a) {
  const Config base = compare_base(a);
  const Technology tech = a.tech_file.empty() ? default_technology() : load_technology(a.tech_file);
  const auto [orgs, patterns] = compared(a, base);
  std::vector<Point> points;
  for (auto& o : orgs)
    for (auto& p : patterns) {
      Point pt;
      pt.org = o;
      pt.pattern = p;
      points.push_back(pt);
    }
  const ScratchDir scratch("compare");
  const fs::path tmp = scratch.path();
  const std::vector<Job> jobs = simulate_points(a, base, points, tmp);
  for (std::size_t i = 0; i < points.size(); ++i)
    if (jobs[i].exit_code == 0)
      derive_figures(points[i], json::parse(read_file((tmp / fmt::format("p{}.json", i)).string())), base, tech);

  auto ref_of = [&](const Point& pt) -> const Point* {
    for (auto& q : points)
      if (q.org == a.reference && q.pattern == pt.pattern && q.ok) return &q;
    return nullptr;
  };
  Table t;
  t.header = compare_header();
  json out;
  out["nwnsim"] = "compare";
  out["technology"] = tech.name;
  out["reference"] = a.reference;
  out["provenance"] = provenance(&base);
  out["config"] = base.to_json();
  json arr = json::array();
  int failed = 0;
  for (auto& p : patterns)
    for (auto& pt : points) {
      if (pt.pattern != p) continue;
      if (!pt.ok) {
        ++failed;
        t.rows.push_back({pt.pattern, pt.org, "failed"});
        continue;
      }
      arr.push_back(point_json(pt, ref_of(pt), tech, int(base.get_int("flit.bits"))));
      t.rows.push_back(compare_row(arr.back()));
    }
  out["points"] = arr;
  std::cout << fmt::format("nwnsim compare: radix {}, load {}, {} ({}); energy per packet in pJ, EDP in pJ*ns, "
                           "EDAP in pJ*ns*mm2, rel- = relative to {}\n",
                           base.get_int("router.radix"), a.load, tech.name,
                           fmt::format("static wires per {}, crosspoints per {}", tech.static_wires_per_bit ? "bit" : "channel",
                                       tech.static_crosspoints_per_bit ? "bit" : "channel"),
                           a.reference);
  if (!write_outputs(a, t, out)) return 1;
  // A child's config error (exit 2) is the comparison's.
  if (std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.exit_code == 2; })) return 2;
  return failed ? 1 : 0;
}

// compare --seeds N: one comparison per seed in a child process (its points
// in grandchildren), each point's figures combined over the seeds. The
// relative figures are each seed's against the reference of the same seed.
int run_compare_seeds(const CompareArgs& a) {
  Config base;
  if (!a.config_file.empty()) base.load_file(a.config_file);
  for (auto& s : a.sets) base.set_override(s);
  const auto seeds = derived_seeds(base.get_int("sim.seed"), a.seeds);
  const ScratchDir scratch("compare-seeds");
  auto part = [&](std::size_t k) { return (fs::path(scratch.path()) / fmt::format("s{}.json", k)).string(); };
  std::vector<Job> jobs(seeds.size());
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    std::vector<std::string>& args = jobs[k].args;
    args = {"compare"};
    if (!a.config_file.empty()) args.push_back(a.config_file);
    for (auto& s : a.sets) args.insert(args.end(), {"--set", s});
    args.insert(args.end(), {"--set", fmt::format("sim.seed={}", seeds[k]), "--orgs", a.orgs, "--patterns",
                             a.patterns, "--load", a.load, "--cn-stages", std::to_string(a.cn_stages), "--json",
                             part(k)});
    if (a.reference_given) args.insert(args.end(), {"--reference", a.reference});
    if (!a.tech_file.empty()) args.insert(args.end(), {"--tech", a.tech_file});
    if (a.jobs > 0) args.insert(args.end(), {"-j", std::to_string(a.jobs)});
    if (a.quick) args.push_back("--quick");
  }
  const bool tty = isatty(2);
  std::size_t done = 0;
  run_jobs(jobs, 1, [&](std::size_t) {  // one comparison at a time: each runs its points in parallel
    if (tty) std::cerr << fmt::format("\r[{}/{}] seeds done", ++done, jobs.size()) << std::flush;
  });
  if (tty) std::cerr << "\n";
  std::vector<json> runs;
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    if (jobs[k].exit_code != 0) {
      std::cerr << fmt::format("compare: seed {} (of --seeds {}) failed (exit {}); run it alone with --set "
                               "sim.seed={} to see why\n",
                               seeds[k], seeds.size(), jobs[k].exit_code, seeds[k]);
      return jobs[k].exit_code;
    }
    runs.push_back(json::parse(read_file(part(k))));
  }
  json out = runs[0];
  out["provenance"] = provenance(&base);
  out["config"] = runs[0]["config"];
  out["config"]["sim.seed"] = base.get_int("sim.seed");
  out["seeds"] = seeds;
  json points = json::array();
  Table t;
  t.header = compare_header();
  for (std::size_t i = 0; i < runs[0]["points"].size(); ++i) {
    std::vector<json> per_seed;
    for (auto& r : runs) per_seed.push_back(r["points"][i]);
    points.push_back(combine_seeds(per_seed, seeds));
    t.rows.push_back(compare_row(points.back()));
  }
  out["points"] = points;
  std::cout << fmt::format("nwnsim compare: radix {}, load {}, {}, {} seeds: mean ± 95 % interval; energy per "
                           "packet in pJ, EDP in pJ*ns, EDAP in pJ*ns*mm2, rel- = relative to {}\n",
                           out["config"]["router.radix"].dump(), a.load, out["technology"].get<std::string>(),
                           seeds.size(), out["reference"].get<std::string>());
  return write_outputs(a, t, out) ? 0 : 1;
}

CommandRegistration reg_compare([](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* c = app.add_subcommand("compare",
                               "compare switch organizations of one router: area, energy, latency, EDP, EDAP");
  c->add_option("config", args->config_file, "TOML config file (router.org and traffic.pattern are set per point)")
      ->check(CLI::ExistingFile);
  c->add_option("--set", args->sets, "override a config key (repeatable)")->type_name("KEY=VALUE");
  c->add_option("--orgs", args->orgs, "organizations, comma-separated")->capture_default_str();
  c->add_option("--patterns", args->patterns, "traffic patterns, comma-separated")->capture_default_str();
  c->add_option("--load", args->load, "offered load (fraction of channel capacity)")->capture_default_str();
  c->add_option("--reference", args->reference, "organization the rel- columns divide by")->capture_default_str();
  c->add_option("--cn-stages", args->cn_stages,
                "extra pipeline stages of cn (10: its zero-load latency equals hc's at radix 64, as in the paper)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  c->add_option("--tech", args->tech_file, "technology TOML (default: the paper's 22 nm, power/tech/22nm.toml)")
      ->check(CLI::ExistingFile);
  c->add_option("-j,--jobs", args->jobs, "parallel processes (default: one per core)")->check(CLI::Range(1, 1024));
  output_option(c->add_option("--csv", args->csv_path, "write the table as CSV"));
  output_option(c->add_option("--json", args->json_path, "write every point with its energy breakdown as JSON"));
  output_option(c->add_option("--plot", args->plot_prefix,
                              "bar charts PREFIX-{energy,edp,edap}.{png,pdf,svg} (scripts/plot_compare.py; "
                              "Python: NWNSIM_PYTHON, else a python3 on PATH with matplotlib)"),
                OutputKind::Prefix);
  c->add_flag("--quick", args->quick, "shorter measurement window");
  c->add_option("--seeds", args->seeds,
                "compare with N seeds (sim.seed and N-1 derived from it; one comparison each, in child processes): "
                "every figure the mean with its 95 % interval (Student t), relative figures paired by seed")
      ->check(CLI::Range(1, 1000));
  c->callback([args, c, &exit_code] {
    args->reference_given = c->count("--reference") > 0;
    exit_code = args->seeds > 1 ? run_compare_seeds(*args) : run_compare(*args);
  });
});

}  // namespace
}  // namespace nwn

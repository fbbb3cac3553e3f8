// What a researcher publishes from: every result file says what made it
// (provenance), the statistics in the JSON agree with the summary figures,
// and the plots are drawn wherever they are asked for.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "sim/config.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::nwnsim;
using test::slurp;
using test::temp_path;
using json = nlohmann::json;

const std::string kShort = "--set router.radix=16 --set sim.warmup_cycles=200 --set sim.measure_cycles=1000 ";

// The lines of `nwnsim --version`: "nwnsim V", "commit C", "build B", "compiler X", SystemC's line.
std::vector<std::string> version_lines() {
  const auto r = nwnsim("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> lines;
  std::istringstream in(r.output);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

void expect_provenance(const json& p, const std::string& what, bool has_config) {
  const auto v = version_lines();
  ASSERT_GE(v.size(), 5u);
  ASSERT_TRUE(p.is_object()) << what << " has no provenance block";
  EXPECT_EQ("nwnsim " + p.value("version", std::string("?")), v[0]) << what;
  EXPECT_EQ("commit " + p.value("commit", std::string("?")), v[1]) << what;
  EXPECT_EQ("build " + p.value("build_type", std::string("?")), v[2]) << what;
  EXPECT_EQ("compiler " + p.value("compiler", std::string("?")), v[3]) << what;
  EXPECT_EQ(p.value("systemc", std::string("?")), v[4]) << what;
  EXPECT_EQ(p.value("command_line", std::string()).rfind("nwnsim ", 0), 0u) << what;
  const std::string date = p.value("date_utc", std::string());
  EXPECT_EQ(date.size(), 20u) << what << ": " << date;  // 2026-01-31T12:00:00Z
  EXPECT_EQ(date.back(), 'Z') << what;
  EXPECT_FALSE(p.value("host", std::string()).empty()) << what;
  EXPECT_EQ(p.contains("seed"), has_config) << what;
  EXPECT_EQ(p.contains("threads"), has_config) << what;
}

void expect_csv_comment(const std::string& path) {
  const auto v = version_lines();
  ASSERT_GE(v.size(), 2u);
  std::istringstream in(slurp(path));
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "# " + v[0] + " " + v[1]) << path;
}

TEST(Provenance, RunJsonAndCsvSayWhatMadeThem) {
  const std::string j = temp_path("r.json"), c = temp_path("r.csv"), h = temp_path("heat.csv");
  const auto r = nwnsim("run " + kShort + "--set sim.seed=7 --threads 2 --json " + j + " --csv " + c +
                        " --heatmap '" + h + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json out = json::parse(slurp(j));
  expect_provenance(out["provenance"], "run", true);
  EXPECT_EQ(out["provenance"]["seed"], 7);
  EXPECT_EQ(out["provenance"]["threads"], 2);
  EXPECT_NE(out["provenance"]["command_line"].get<std::string>().find("--set sim.seed=7"), std::string::npos);
  expect_csv_comment(c);
  expect_csv_comment(h);
}

TEST(Provenance, SweepCompareSaturationComplexityTopoOutputsCarryIt) {
  const std::string dir = temp_path("sw");
  std::filesystem::remove_all(dir);
  const std::string sj = temp_path("s.json"), sc = temp_path("s.csv");
  auto r = nwnsim("sweep " + kShort + "--loads 0.2,0.4 -j 2 --json " + sj + " --csv " + sc + " --out-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const std::string& f : {sj, dir + "/sweep.json"}) expect_provenance(json::parse(slurp(f))["provenance"], f, true);
  expect_csv_comment(sc);
  expect_csv_comment(dir + "/sweep.csv");
  for (auto& e : std::filesystem::directory_iterator(dir + "/points"))
    expect_provenance(json::parse(slurp(e.path().string()))["provenance"], e.path().string(), true);

  const std::string cj = temp_path("c.json"), cc = temp_path("c.csv");
  r = nwnsim("compare --quick --orgs hc,fc --patterns uniform " + kShort + "--json " + cj + " --csv " + cc);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_provenance(json::parse(slurp(cj))["provenance"], "compare", true);
  expect_csv_comment(cc);

  const std::string satj = temp_path("sat.json");
  r = nwnsim("saturation " + kShort + "--tolerance 0.2 --json " + satj);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_provenance(json::parse(slurp(satj))["provenance"], "saturation", true);

  const std::string xj = temp_path("x.json"), xc = temp_path("x.csv");
  r = nwnsim("complexity --radices 16,64 --json " + xj + " --csv " + xc);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json x = json::parse(slurp(xj));
  expect_provenance(x["provenance"], "complexity", false);
  EXPECT_GT(x["rows"].size(), 4u);
  expect_csv_comment(xc);

  const std::string tj = temp_path("t.json"), tc = temp_path("t.csv");
  r = nwnsim("topo analyze --set network.topology=slimfly --set network.slimfly.q=5 --json " + tj + " --csv " + tc);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_provenance(json::parse(slurp(tj))["provenance"], "topo analyze", false);
  expect_csv_comment(tc);
  const std::string hj = temp_path("h.json");
  r = nwnsim("topo search hyperx -N 4096 -R 64 --json " + hj);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_provenance(json::parse(slurp(hj))["provenance"], "topo search", false);
}

// The percentile of an exact histogram, as Histogram::percentile defines it:
// the smallest latency with at least q of the packets at or below it.
std::uint64_t percentile_of(const json& h, double q) {
  std::uint64_t n = 0;
  for (auto& c : h["packets"]) n += c.get<std::uint64_t>();
  const auto need = std::uint64_t(std::ceil(q * double(n)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < h["latency"].size(); ++i) {
    seen += h["packets"][i].get<std::uint64_t>();
    if (seen >= need) return h["latency"][i].get<std::uint64_t>();
  }
  return ~std::uint64_t{0};
}

// Multi-flit packets straddle the window's edges, so the per-source counts
// are of flits ejected in the window, as the total is.
TEST(Statistics, HistogramPercentilesAndPerNodeSumsAgreeWithTheSummary) {
  const std::string j = temp_path("r.json");
  const auto r = nwnsim("run " + kShort + "--set traffic.packet_flits=4 --set traffic.load=0.6 "
                        "--set traffic.pattern=transpose --json " + j);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json res = json::parse(slurp(j))["results"];
  const json& h = res["latency_histogram"];
  ASSERT_GT(h["latency"].size(), 3u);
  std::uint64_t packets = 0;
  double sum = 0;
  for (std::size_t i = 0; i < h["latency"].size(); ++i) {
    packets += h["packets"][i].get<std::uint64_t>();
    sum += double(h["latency"][i].get<std::uint64_t>()) * h["packets"][i].get<double>();
  }
  EXPECT_EQ(packets, res["packets_measured"].get<std::uint64_t>());
  EXPECT_DOUBLE_EQ(sum / double(packets), res["latency_avg"].get<double>());
  EXPECT_EQ(percentile_of(h, 0.5), res["latency_p50"].get<std::uint64_t>());
  EXPECT_EQ(percentile_of(h, 0.99), res["latency_p99"].get<std::uint64_t>());
  EXPECT_EQ(h["latency"].back(), res["latency_max"]);
  EXPECT_DOUBLE_EQ(h["cdf"].back().get<double>(), 1.0);
  for (std::size_t i = 1; i < h["cdf"].size(); ++i) EXPECT_LT(h["cdf"][i - 1], h["cdf"][i]);

  const json& f = res["fairness"];
  const std::uint64_t total = res["window_activity"]["flits_ejected"].get<std::uint64_t>();
  for (const char* side : {"by_source", "by_destination"}) {
    std::uint64_t flits = 0, lo = ~std::uint64_t{0}, hi = 0;
    for (auto& n : f[side]["flits"]) {
      flits += n.get<std::uint64_t>();
      lo = std::min(lo, n.get<std::uint64_t>());
      hi = std::max(hi, n.get<std::uint64_t>());
    }
    EXPECT_EQ(flits, total) << side;
    EXPECT_EQ(f[side]["flits"].size(), 16u) << side;
    EXPECT_EQ(f[side]["flits"][f[side]["min_node"].get<std::size_t>()].get<std::uint64_t>(), lo) << side;
    EXPECT_EQ(f[side]["flits"][f[side]["max_node"].get<std::size_t>()].get<std::uint64_t>(), hi) << side;
    EXPECT_DOUBLE_EQ(f[side]["max_accepted_load"].get<double>(), double(hi) / f["capacity_flits_per_node"].get<double>());
    EXPECT_GT(f[side]["jain_index"].get<double>(), 0.5) << side;
    EXPECT_LE(f[side]["jain_index"].get<double>(), 1.0) << side;
  }
  EXPECT_DOUBLE_EQ(f["by_destination"]["min_accepted_load"].get<double>(), res["accepted_min_node"].get<double>());
}

// A bimodal mix reports each packet size apart (results.size_classes): the
// classes' packets, flits and accepted load add up to the run's, the
// average latency is theirs weighted by packets, and --columns shows them.
TEST(Statistics, SizeClassesOfABimodalMixAddUpToTheRun) {
  const std::string j = temp_path("r.json");
  const auto r = nwnsim("run " + kShort + "--set traffic.size_mix=bimodal --set traffic.load=0.5 --json " + j +
                        " --columns lat-avg,size_classes.0.latency_avg,size_classes.1.accepted_load");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json res = json::parse(slurp(j))["results"];
  ASSERT_TRUE(res["drained"].get<bool>());
  const json& k = res["size_classes"];
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0]["packet_flits"], 1);
  EXPECT_EQ(k[1]["packet_flits"], 5);
  const auto packets = res["packets_measured"].get<std::uint64_t>();
  std::uint64_t counted = 0, flits = 0;
  double accepted = 0, latency_sum = 0;
  for (const json& c : k) {
    counted += c["packets_measured"].get<std::uint64_t>();
    flits += c["window_flits"].get<std::uint64_t>();
    accepted += c["accepted_load"].get<double>();
    latency_sum += c["latency_avg"].get<double>() * c["packets_measured"].get<double>();
    // Half the packets of each size (binomial: 4 standard deviations of thousands of packets).
    EXPECT_NEAR(c["packets_measured"].get<double>() / double(packets), 0.5, 4 * 0.5 / std::sqrt(double(packets)));
  }
  EXPECT_GT(packets, 1000u);
  EXPECT_EQ(counted, packets);
  EXPECT_EQ(flits, res["window_activity"]["flits_ejected"].get<std::uint64_t>());
  EXPECT_NEAR(accepted, res["accepted_load"].get<double>(), 1e-12);
  EXPECT_NEAR(latency_sum / double(packets), res["latency_avg"].get<double>(), 1e-9);
  // A 5-flit packet's tail leaves 4 flit times after its head.
  EXPECT_GT(k[1]["latency_avg"].get<double>(), k[0]["latency_avg"].get<double>() + 4);
  EXPECT_GE(k[1]["latency_p99"], k[1]["latency_p50"]);
  EXPECT_GE(k[1]["latency_max"], k[1]["latency_p99"]);
  EXPECT_NE(r.output.find("size_classes.1.accepted_load"), std::string::npos) << r.output;
  // A fixed size has no classes.
  const auto fixed = nwnsim("run " + kShort + "--set traffic.load=0.5 --json " + j);
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_FALSE(json::parse(slurp(j))["results"].contains("size_classes"));
}

// A trace whose last packet comes at a far cycle: the time series keeps at
// most PacketStats::kMaxIntervals intervals, doubled until the run fits,
// and loses no packet (before, one interval per sim.sample_cycles of the
// whole run: a packet at cycle 10^12 took memory without bound).
TEST(Statistics, TimeSeriesOfAFarTraceDoublesItsIntervals) {
  const std::string trace = temp_path("far.trace"), j = temp_path("r.json");
  {
    std::ofstream f(trace);
    f << "0 0 1 1\n5000 2 3 2\n300000000 1 2 1\n";
  }
  const auto r = nwnsim("run --quiet --set router.radix=8 --set sim.max_cycles=400000000 --set traffic.source=trace "
                        "--set traffic.trace_file=" +
                        trace + " --json " + j);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json t = json::parse(slurp(j))["results"]["time_series"];
  // 3 x 10^8 cycles: 300,000 intervals of 1,000, 150,000 of 2,000, 75,000 of 4,000.
  EXPECT_EQ(t["sample_cycles"], 4000);
  ASSERT_LE(t["cycle"].size(), std::size_t(1) << 17);
  ASSERT_EQ(t["packets"].size(), t["cycle"].size());
  EXPECT_EQ(t["cycle"][1], 4000);
  EXPECT_EQ(t["packets"][0], 1);  // delivered by cycle 4,000
  EXPECT_EQ(t["packets"][1], 1);  // the one created at 5,000
  std::uint64_t packets = 0;
  for (const json& p : t["packets"]) packets += p.get<std::uint64_t>();
  EXPECT_EQ(packets, 3u);
  EXPECT_EQ(t["packets"][300000000 / 4000], 1);
}

// Past saturation the source queues grow without bound: the latency of the
// packets delivered climbs interval after interval, and the warm-up check,
// which assumes a steady state, is not what reports it (the run is saturated).
TEST(Statistics, TimeSeriesOfASaturatedRunShowsLatencyGrowing) {
  const std::string j = temp_path("r.json");
  const auto r = nwnsim("run --set router.radix=16 --set sim.warmup_cycles=1000 --set sim.measure_cycles=6000 "
                        "--set sim.sample_cycles=500 --set traffic.load=0.95 --set router.vcs=1 --json " + j);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json res = json::parse(slurp(j))["results"];
  ASSERT_TRUE(res["saturated"].get<bool>());
  const json& t = res["time_series"];
  EXPECT_EQ(t["sample_cycles"], 500);
  ASSERT_GE(t["latency_avg"].size(), 14u);
  EXPECT_EQ(t["cycle"][2], 1000);
  // Window intervals 2..13 (cycles 1000 to 7000): each third later one is higher.
  for (std::size_t i = 2; i + 3 < 14; i += 3)
    EXPECT_GT(t["latency_avg"][i + 3].get<double>(), t["latency_avg"][i].get<double>()) << "interval " << i;
  EXPECT_GT(t["latency_avg"][13].get<double>(), 2 * t["latency_avg"][2].get<double>());
  EXPECT_EQ(r.output.find("warm-up may be too short"), std::string::npos) << r.output;
}

// A warm-up of 0 close to saturation: the queues fill during the window,
// whose first interval is far faster than its second half; the run warns. A
// long warm-up at the same point does not.
TEST(Statistics, WarmupCheckWarnsWhenTheWarmupWasTooShort) {
  const std::string base = "run --set router.radix=16 --set sim.measure_cycles=8000 --set traffic.load=0.72 "
                           "--set sim.sample_cycles=250 ";
  const std::string a = temp_path("a.json"), b = temp_path("b.json");
  const auto r = nwnsim(base + "--set sim.warmup_cycles=0 --json " + a);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json ra = json::parse(slurp(a))["results"];
  ASSERT_FALSE(ra["saturated"].get<bool>()) << r.output;
  EXPECT_EQ(ra["warmup_check"]["converged"], false) << ra["warmup_check"];
  EXPECT_NE(r.output.find("warm-up may be too short"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sim.warmup_cycles (now 0)"), std::string::npos) << r.output;
  const auto s = nwnsim(base + "--set sim.warmup_cycles=10000 --json " + b);
  ASSERT_EQ(s.exit_code, 0) << s.output;
  EXPECT_EQ(json::parse(slurp(b))["results"]["warmup_check"]["converged"], true);
  EXPECT_EQ(s.output.find("warm-up may be too short"), std::string::npos) << s.output;
}

// nwnsim with `args`, with the environment variable settings `env` added.
test::CommandResult with_env(const std::string& env, const std::string& args) {
  test::CommandResult r;
  const std::string cmd = "env " + env + " " + NWNSIM_BINARY + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Plots run through Python without a shell: any path works; a failed plot
// shows the script's own error and the command, and the command fails.
TEST(Plots, ComparePlotsToAPathWithSpacesAndReportsTheRealError) {
  const std::string dir = temp_path("my results");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string compare = "compare --quick --orgs hc,fc --patterns uniform --set router.radix=16 ";
  auto r = nwnsim(compare + "--plot '" + dir + "/x'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* m : {"energy", "edp", "edap"})
    for (const char* ext : {"png", "pdf", "svg"}) {
      const std::string f = dir + "/x-" + m + "." + ext;
      EXPECT_TRUE(std::filesystem::exists(f)) << f;
      if (std::filesystem::exists(f)) {
        EXPECT_GT(std::filesystem::file_size(f), 1000u) << f;
      }
    }
  // A Python that fails as one without matplotlib does.
  const std::string fake = dir + "/fake python";
  std::ofstream(fake) << "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'matplotlib'\" >&2\nexit 1\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  r = with_env("NWNSIM_PYTHON='" + fake + "'", compare + "--plot '" + dir + "/y'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("No module named 'matplotlib'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the plot failed: exit 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("scripts/plot_compare.py " + dir + "/y.json"), std::string::npos) << r.output;
  r = with_env("NWNSIM_PYTHON=/nonexistent/python3", compare + "--plot '" + dir + "/z'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot run /nonexistent/python3 (No such file or directory"), std::string::npos)
      << r.output;
}

// Each plot script draws the figure of its presets (fig05 included), from
// the quick runs of one preset per script.
TEST(Plots, ReproduceDrawsEveryPresetsFigure) {
  const std::string dir = temp_path("paper");
  std::filesystem::remove_all(dir);
  const auto r = nwnsim("reproduce fig05 table2 fig10a-1d fig11c-ur fig06-ur --quick -j 2 --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const std::string f : {"fig05-complexity", "fig10a-1d-crossing", "fig11c-ur-latency", "fig11c-ur-throughput",
                              "fig06-ur-r0", "fig06-ur-r256", "fig06-ur-r512"})
    for (const char* ext : {".png", ".pdf", ".svg"})
      EXPECT_TRUE(std::filesystem::exists(dir + "/" + f + ext)) << f + ext << "\n" << r.output;
}

// The presets of `reproduce` (configs/paper/, configs/topologies/): name,
// and the figure files (without extension, in the output directory) their
// plot writes, from the plot script and its arguments (the scripts'
// docstrings). A preset without a plot has no figures.
struct PresetFigures {
  std::string name, title;
  std::vector<std::string> plot, figures;
};

std::vector<PresetFigures> presets_of(const std::string& dir) {
  std::vector<PresetFigures> out;
  for (auto& e : std::filesystem::directory_iterator(std::string(NWNSIM_SOURCE_DIR) + "/" + dir)) {
    if (e.path().extension() != ".toml") continue;
    const toml::table t = toml::parse_file(e.path().string());
    PresetFigures p;
    p.name = e.path().stem().string();
    p.title = t["title"].value_or(std::string());
    if (const toml::array* a = t["plot"].as_array())
      for (auto& s : *a) p.plot.push_back(s.value_or(std::string()));
    const std::string script = p.plot.empty() ? "" : std::filesystem::path(p.plot[0]).filename().string();
    if (script == "plot_sweep.py") p.figures = {p.name + "-latency", p.name + "-throughput"};
    if (script == "plot_compare.py") p.figures = {p.name + "-energy", p.name + "-edp", p.name + "-edap"};
    if (script == "plot_complexity.py") p.figures = {p.name + "-complexity"};
    if (script == "plot_crossing.py") p.figures = {p.name + "-crossing"};
    if (script == "plot_heatmap.py" && p.plot.size() > 2) {  // ROUTER, or ids comma-separated: PREFIX-rID each
      std::istringstream ids(p.plot[2]);
      std::vector<std::string> routers;
      for (std::string id; std::getline(ids, id, ',');) routers.push_back(id);
      for (auto& id : routers) p.figures.push_back(routers.size() == 1 ? p.name : p.name + "-r" + id);
    }
    out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

// Every preset draws its figure, except tables (title "Table ..."), which
// draw none: a new preset without a plot, or with a script this test does
// not know, fails here before anyone runs it.
TEST(Plots, EveryPresetButATableHasAPlot) {
  int tables = 0, plotted = 0;
  for (const char* dir : {"configs/paper", "configs/topologies"}) {
    for (const PresetFigures& p : presets_of(dir)) {
      SCOPED_TRACE(std::string(dir) + "/" + p.name);
      const bool table = p.title.rfind("Table", 0) == 0;
      tables += table;
      plotted += !p.plot.empty();
      if (table) {
        EXPECT_TRUE(p.plot.empty());
        continue;
      }
      ASSERT_FALSE(p.plot.empty()) << "no plot entry: " << p.title;
      EXPECT_TRUE(std::filesystem::exists(std::string(NWNSIM_SOURCE_DIR) + "/" + p.plot[0])) << p.plot[0];
      EXPECT_FALSE(p.figures.empty()) << "a plot script the test does not know: " << p.plot[0];
    }
  }
  EXPECT_EQ(tables, 1);  // table2
  EXPECT_EQ(plotted, 27);
}

// `reproduce all --quick` of both preset directories (about an hour on 2
// cores): every preset finishes (exit 0, no preset reported failed; fig18a's
// hx05 point at load 0.9 used to wedge, before the HyperX presets reserved
// an eject VC: docs/RESULTS.md, "Deadlock across routers") and its figure
// exists afterwards, in PNG, PDF and SVG.
TEST(PlotsLong, ReproduceAllQuickDrawsEveryPresetsFigure) {
  for (const char* dir : {"configs/paper", "configs/topologies"}) {
    SCOPED_TRACE(dir);
    const std::string out = temp_path(std::filesystem::path(dir).filename().string());
    std::filesystem::remove_all(out);
    const auto r = nwnsim("reproduce all --quick -j 2 --presets " + std::string(NWNSIM_SOURCE_DIR) + "/" + dir +
                          " --out " + out);
    std::vector<std::string> failed;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("reproduce: ", 0) == 0 && line.find(" failed") != std::string::npos) failed.push_back(line);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(failed.empty()) << r.output;
    for (const PresetFigures& p : presets_of(dir))
      for (const std::string& f : p.figures)
        for (const char* ext : {".png", ".pdf", ".svg"})
          EXPECT_TRUE(std::filesystem::exists(out + "/" + f + ext)) << f + ext;
  }
}

// A trace named in a config file is found next to the file, so the example
// runs from any directory; one given with --set stays relative to the
// current directory.
TEST(TraceConfig, ExampleRunsFromAnyDirectory) {
  const std::string source = NWNSIM_SOURCE_DIR, out = temp_path("t.json");
  auto r = with_env("-C /", "run " + source + "/configs/trace-example.toml --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(slurp(out));
  EXPECT_EQ(j["config"]["traffic.trace_file"], source + "/configs/traces/example16.trace");
  EXPECT_GT(j["results"]["packets_measured"].get<int>(), 0);
  EXPECT_TRUE(j["results"]["drained"].get<bool>());
  r = with_env("-C " + source + "/configs", "run --set traffic.source=trace --set traffic.trace_file=traces/example16.trace "
                                         "--set router.radix=16 --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(SmallThings, ConfigKeysFitHundredColumnsAndListEveryKey) {
  const auto r = nwnsim("config --keys");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(r.output);
  int keys = 0;
  for (std::string line; std::getline(in, line);) {
    EXPECT_LE(line.size(), 100u) << line;
    keys += !line.empty() && line[0] != ' ';
  }
  EXPECT_EQ(std::size_t(keys), config_schema().size());
  EXPECT_NE(r.output.find("sim.sample_cycles = 1000  (cycles)\n    time series:"), std::string::npos) << r.output;
}

// A network run's banner names the topology, its size and routing; --progress
// prints progress lines on stderr (a terminal gets them by default).
TEST(SmallThings, NetworkBannerNamesTheTopologyAndProgressIsShownWhenAsked) {
  const auto r = nwnsim("run --set network.topology=fclos --set router.radix=8 --set network.fclos_levels=2 "
                        "--set sim.warmup_cycles=100 --set sim.measure_cycles=300");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nwnsim run: fclos network of 16 nodes, cn radix-8 routers, auto routing, uniform traffic"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("nwnsim: cycle "), std::string::npos) << "no progress unless asked or on a terminal";
  const auto p = nwnsim("run --set router.radix=64 --set sim.measure_cycles=20000 --progress");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("nwnsim: cycle "), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("cycles/s"), std::string::npos) << p.output;
}

}  // namespace
}  // namespace nwn

// Statistical confidence over seeds (sim/seeds.hpp; --seeds on run, sweep
// and compare), the statistics --columns chooses, and channel utilization.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/seeds.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using json = nlohmann::ordered_json;
using test::nwnsim;
using test::slurp;
using test::temp_path;
using test::without_provenance;

const std::string kSmall =
    "--set router.radix=16 --set sim.warmup_cycles=200 --set sim.measure_cycles=1500 --set traffic.load=0.5 ";

json load(const std::string& path) { return json::parse(slurp(path)); }

TEST(Seeds, StudentTQuantilesMatchTheTables) {
  // Two-sided 95 % factors from the t table, and above 30 degrees of freedom
  // from the expansion (reference values to 4 decimals).
  EXPECT_NEAR(student_t975(1), 12.7062, 1e-4);
  EXPECT_NEAR(student_t975(2), 4.3027, 1e-4);
  EXPECT_NEAR(student_t975(9), 2.2622, 1e-4);
  EXPECT_NEAR(student_t975(30), 2.0423, 1e-4);
  EXPECT_NEAR(student_t975(31), 2.0395, 1e-4);
  EXPECT_NEAR(student_t975(60), 2.0003, 1e-4);
  EXPECT_NEAR(student_t975(120), 1.9799, 1e-4);
  EXPECT_NEAR(student_t975(100000), 1.9600, 1e-4);
}

TEST(Seeds, IntervalOfKnownSamples) {
  const Interval95 a = interval95({1.0, 2.0, 3.0});  // mean 2, s = 1
  EXPECT_DOUBLE_EQ(a.mean, 2.0);
  EXPECT_NEAR(a.half_width, 4.3027 / std::sqrt(3.0), 1e-4);
  const Interval95 same = interval95({0.1, 0.1, 0.1});  // 0.1 * 3 / 3 is not 0.1 in binary
  EXPECT_EQ(same.mean, 0.1);
  EXPECT_EQ(same.half_width, 0.0);
}

TEST(Seeds, DerivedSeedsStartAtTheBaseAndAreDistinctAndInRange) {
  const auto s = derived_seeds(7, 50);
  ASSERT_EQ(s.size(), 50u);
  EXPECT_EQ(s[0], 7);
  EXPECT_EQ(derived_seeds(7, 50), s);
  EXPECT_EQ(std::set<std::int64_t>(s.begin(), s.end()).size(), 50u);
  for (auto v : s) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, std::int64_t(1) << 62);
  }
  EXPECT_NE(derived_seeds(8, 2)[1], s[1]);
}

TEST(Seeds, CombineTakesMeansPoolsTheHistogramAndKeepsPerSeedValues) {
  const json a = json::parse(R"({"latency_avg": 10.0, "latency_p50": 5, "saturated": false, "drained": true,
      "workload": "open", "fairness": {"by_source": {"jain_index": 0.9, "min_node": 3, "flits": [1, 2]}},
      "latency_histogram": {"latency": [5, 6], "packets": [3, 1], "cdf": [0.75, 1.0]}})");
  const json b = json::parse(R"({"latency_avg": 14.0, "latency_p50": 5, "saturated": true, "drained": false,
      "workload": "open", "fairness": {"by_source": {"jain_index": 0.7, "min_node": 4, "flits": [3, 6]}},
      "latency_histogram": {"latency": [6, 9], "packets": [2, 2], "cdf": [0.5, 1.0]}})");
  const json c = combine_seeds({a, b}, {1, 2});
  EXPECT_DOUBLE_EQ(c["latency_avg"].get<double>(), 12.0);
  EXPECT_EQ(c["latency_p50"], 5);  // the same in every seed: an integer still
  EXPECT_TRUE(c["saturated"].get<bool>());   // in any seed
  EXPECT_FALSE(c["drained"].get<bool>());    // not in every seed
  EXPECT_EQ(c["workload"], "open");
  EXPECT_DOUBLE_EQ(c["fairness"]["by_source"]["jain_index"].get<double>(), 0.8);
  EXPECT_FALSE(c["fairness"]["by_source"].contains("min_node")) << "seeds name different nodes";
  EXPECT_EQ(c["fairness"]["by_source"]["flits"], json::parse("[2.0, 4.0]"));
  EXPECT_EQ(c["latency_histogram"]["latency"], json::parse("[5, 6, 9]"));
  EXPECT_EQ(c["latency_histogram"]["packets"], json::parse("[3, 3, 2]"));
  EXPECT_DOUBLE_EQ(c["latency_histogram"]["cdf"].back().get<double>(), 1.0);
  const json& f = c["confidence"]["figures"];
  EXPECT_EQ(c["confidence"]["seeds"], json::parse("[1, 2]"));
  EXPECT_EQ(f["latency_avg"]["values"], json::parse("[10.0, 14.0]"));
  EXPECT_NEAR(f["latency_avg"]["ci95"].get<double>(), 12.7062 * std::sqrt(8.0) / std::sqrt(2.0), 1e-3);
  EXPECT_EQ(f["latency_p50"]["ci95"].get<double>(), 0.0);
  EXPECT_EQ(f["saturated"]["true_in"], 1);
  EXPECT_TRUE(f.contains("fairness.by_source.jain_index"));
  EXPECT_FALSE(f.contains("fairness.by_source.flits")) << "array elements carry no interval";
}

// run --seeds N: each seed's figure is that of a plain run with that seed,
// and the mean is their mean.
TEST(Seeds, RunMeanIsTheMeanOfThePlainRunsOfEachSeed) {
  const std::string out = temp_path("seeds.json");
  ASSERT_EQ(nwnsim("run " + kSmall + "--seeds 3 -j 2 --json " + out).exit_code, 0);
  const json r = load(out)["results"];
  const json& seeds = r["confidence"]["seeds"];
  ASSERT_EQ(seeds.size(), 3u);
  EXPECT_EQ(seeds[0], 1) << "the first seed is sim.seed";
  std::vector<json> plain;
  for (std::size_t k = 0; k < 3; ++k) {
    const std::string p = temp_path("s" + std::to_string(k) + ".json");
    ASSERT_EQ(nwnsim("run " + kSmall + "--set sim.seed=" + seeds[k].dump() + " --json " + p).exit_code, 0);
    plain.push_back(load(p)["results"]);
  }
  for (const char* f : {"latency_avg", "accepted_load", "latency_p99", "hops_avg", "network_latency_avg"}) {
    const json& fig = r["confidence"]["figures"][f];
    std::vector<double> xs;
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(fig["values"][k].get<double>(), plain[k][f].get<double>()) << f;
      xs.push_back(plain[k][f].get<double>());
    }
    EXPECT_DOUBLE_EQ(r[f].get<double>(), interval95(xs).mean) << f;
    EXPECT_DOUBLE_EQ(fig["ci95"].get<double>(), interval95(xs).half_width) << f;
  }
  EXPECT_NE(plain[0]["latency_avg"], plain[1]["latency_avg"]) << "the seeds should differ";
  EXPECT_GT(r["confidence"]["figures"]["latency_avg"]["ci95"].get<double>(), 0.0);
  EXPECT_EQ(r["confidence"]["figures"]["offered_load"]["ci95"].get<double>(), 0.0) << "configured, the same in all";
}

TEST(Seeds, OneSeedIsThePlainRun) {
  const std::string a = temp_path("plain.json"), b = temp_path("one.json");
  ASSERT_EQ(nwnsim("run " + kSmall + "--json " + a).exit_code, 0);
  ASSERT_EQ(nwnsim("run " + kSmall + "--seeds 1 --json " + b).exit_code, 0);
  EXPECT_EQ(without_provenance(a), without_provenance(b));
}

// A trace on one router draws no random number: every seed gives the same
// results, so every interval is exactly 0.
TEST(Seeds, SeedIndependentRunHasZeroIntervals) {
  const std::string out = temp_path("trace.json");
  const auto r = nwnsim(std::string("run ") + NWNSIM_SOURCE_DIR + "/configs/trace-example.toml --seeds 3 --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json res = load(out)["results"];
  int figures = 0;
  for (auto& [path, f] : res["confidence"]["figures"].items()) {
    if (!f.contains("ci95")) continue;
    ++figures;
    EXPECT_EQ(f["ci95"].get<double>(), 0.0) << path;
  }
  EXPECT_GT(figures, 20);
  const std::string table = r.output.substr(r.output.find('\n'));  // after the banner
  EXPECT_EQ(table.find("±"), std::string::npos) << "no interval shown where it is 0:\n" << r.output;
}

// More seeds: a narrower interval (t falls from 12.7 to 2.26 and 1/sqrt(n)
// from 0.71 to 0.32; the spread would have to grow twelvefold to undo it).
TEST(Seeds, IntervalNarrowsWithMoreSeeds) {
  const std::string a = temp_path("two.json"), b = temp_path("ten.json");
  ASSERT_EQ(nwnsim("run " + kSmall + "--seeds 2 -j 2 --json " + a).exit_code, 0);
  ASSERT_EQ(nwnsim("run " + kSmall + "--seeds 10 -j 2 --json " + b).exit_code, 0);
  const double two = load(a)["results"]["confidence"]["figures"]["latency_avg"]["ci95"];
  const double ten = load(b)["results"]["confidence"]["figures"]["latency_avg"]["ci95"];
  EXPECT_GT(two, 0.0);
  EXPECT_LT(ten, two);
}

TEST(Seeds, TableShowsMeanPlusMinusHalfWidthAndCsvTheIntervals) {
  const std::string csv = temp_path("s.csv");
  const auto r = nwnsim("run " + kSmall + "--seeds 3 -j 2 --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 seeds: mean ± 95 % interval"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" ± "), std::string::npos) << r.output;
  const std::string text = slurp(csv);
  EXPECT_NE(text.find(",latency_avg,latency_avg_ci95,"), std::string::npos) << text;
}

// sweep --seeds: each point's combined results equal run --seeds of that
// point; with --out-dir every (point, seed) is kept, and a rerun runs none.
TEST(Seeds, SweepPointsEqualRunAndResume) {
  const std::string dir = temp_path("dir"), sweep = temp_path("sweep.json"), run = temp_path("run.json");
  std::filesystem::remove_all(dir);
  const std::string cmd = "sweep --set router.radix=16 --set sim.warmup_cycles=200 --set sim.measure_cycles=1500 "
                          "--loads 0.3,0.5 --seeds 2 -j 2 --out-dir " + dir + " --json " + sweep;
  auto r = nwnsim(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir + "/points"), {}), 4);
  ASSERT_EQ(nwnsim("run " + kSmall + "--seeds 2 --json " + run).exit_code, 0);
  const json s = load(sweep);
  ASSERT_EQ(s["points"].size(), 2u);
  EXPECT_EQ(s["points"][1]["set"], json::parse(R"({"traffic.load": "0.5"})"));
  EXPECT_EQ(s["points"][1]["results"], load(run)["results"]);
  r = nwnsim(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 point(s) already in"), std::string::npos) << r.output;
  EXPECT_EQ(load(sweep)["points"], s["points"]);
}

// compare --seeds: each figure is the mean of the comparisons of each seed,
// the relative ones paired by seed.
TEST(Seeds, CompareMeansThePerSeedComparisons) {
  const std::string base = "compare --orgs hc,fc --patterns uniform --quick --set router.radix=16 -j 2 ";
  const std::string out = temp_path("cmp.json");
  auto r = nwnsim(base + "--seeds 2 --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" ± "), std::string::npos) << r.output;
  const json c = load(out);
  ASSERT_EQ(c["seeds"].size(), 2u);
  std::vector<json> per_seed;
  for (std::size_t k = 0; k < 2; ++k) {
    const std::string p = temp_path("c" + std::to_string(k) + ".json");
    ASSERT_EQ(nwnsim(base + "--set sim.seed=" + c["seeds"][k].dump() + " --json " + p).exit_code, 0);
    per_seed.push_back(load(p));
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const json& pt = c["points"][i];
    for (const char* f : {"latency_cycles", "edp_pj_ns"}) {
      const std::vector<double> xs = {per_seed[0]["points"][i][f].get<double>(),
                                      per_seed[1]["points"][i][f].get<double>()};
      EXPECT_DOUBLE_EQ(pt[f].get<double>(), interval95(xs).mean) << f;
      EXPECT_DOUBLE_EQ(pt["confidence"]["figures"][f]["ci95"].get<double>(), interval95(xs).half_width) << f;
    }
    const std::vector<double> rel = {per_seed[0]["points"][i]["relative"]["edp"].get<double>(),
                                     per_seed[1]["points"][i]["relative"]["edp"].get<double>()};
    EXPECT_DOUBLE_EQ(pt["relative"]["edp"].get<double>(), interval95(rel).mean);
  }
  EXPECT_EQ(c["points"][0]["org"], "hc");
  EXPECT_EQ(c["points"][0]["confidence"]["figures"]["relative.edp"]["ci95"].get<double>(), 0.0)
      << "the reference against itself is 1 in every seed";
}

TEST(Seeds, BadCombinationsAreConfigErrors) {
  auto r = nwnsim("run " + kSmall + "--seeds 2 --heatmap " + temp_path("h.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--heatmap with --seeds 2"), std::string::npos) << r.output;
  r = nwnsim("sweep " + kSmall + "--seeds 2 --vary sim.seed=1,2 --loads 0.5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--vary sim.seed"), std::string::npos) << r.output;
  r = nwnsim("run " + kSmall + "--seeds 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// reproduce --seeds hands the seeds to the sweeps and comparisons of the
// presets, not to single runs (which have debug outputs such as heatmaps).
TEST(Seeds, ReproducePassesSeedsToSweepsAndComparisons) {
  auto r = nwnsim("reproduce fig11c-ur fig16 fig06-ur --quick --dry-run --seeds 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  int with = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("$ nwnsim ", 0) != 0) continue;
    const bool has = line.find(" --seeds 3") != std::string::npos;
    EXPECT_EQ(has, line.rfind("$ nwnsim run ", 0) != 0) << line;
    with += has;
  }
  EXPECT_EQ(with, 2) << r.output;
}

// A preset whose sweep has points that wedge (a ring with one VC and no
// dateline classes, tornado at 0.2 and 0.9) still draws the points that
// finished, and reproduce still reports the preset as failed.
TEST(ReproducePartial, FailedPointsLeaveTheOthersPlotted) {
  const std::string presets = temp_path("presets"), out = temp_path("out");
  std::filesystem::remove_all(presets);
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(presets);
  std::ofstream(presets + "/wedge.toml")
      << "title = \"a ring that wedges past 0.1\"\npaper = \"-\"\n"
         "command = [\"sweep\", \"--set\", \"network.topology=torus\", \"--set\", \"network.torus.dims=8\", "
         "\"--set\", \"network.routing=dor\", \"--set\", \"network.link_latency_cycles=1\", \"--set\", \"router.vcs=1\", \"--set\", \"router.vc_depth_flits=4\", "
         "\"--set\", \"router.flow_control=wormhole\", \"--set\", \"traffic.packet_flits=8\", "
         "\"--set\", \"traffic.pattern=tornado\", \"--set\", \"sim.warmup_cycles=200\", "
         "\"--set\", \"sim.measure_cycles=3000\", \"--set\", \"sim.watchdog_cycles=500\", "
         "\"--set\", \"network.deadlock_free=false\", \"--loads\", \"0.1,0.9\"]\n"
         "outputs = [\"json\"]\nplot = [\"scripts/plot_sweep.py\", \"{json}\", \"{prefix}\", \"--format\", \"png\"]\n";
  const auto r = nwnsim("reproduce wedge -j 2 --presets " + presets + " --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("reproduce: wedge failed (exit 1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("drawing the points that finished"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(out + "/wedge-latency.png")) << r.output;
  const json s = load(out + "/wedge.json");
  EXPECT_TRUE(s["points"][0].contains("results"));
  EXPECT_TRUE(s["points"][1]["missing"].get<bool>());
}

TEST(Columns, ChosenStatisticsInTableAndCsv) {
  const std::string csv = temp_path("c.csv");
  const auto r = nwnsim("run " + kSmall + "--columns lat-avg,p99,fair-src,utilization.router_port_max --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("lat-avg  p99  fair-src  utilization.router_port_max"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("accepted"), std::string::npos) << "only the chosen columns:\n" << r.output;
  const std::string text = slurp(csv);
  const std::string header = text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1) - text.find('\n') - 1);
  EXPECT_EQ(header, "latency_avg,latency_p99,fairness.by_source.jain_index,utilization.router_port_max");
}

TEST(Columns, UnknownColumnIsAConfigErrorBeforeSimulating) {
  const auto r = nwnsim("sweep " + kSmall + "--loads 0.5 --columns lat-avg,latncy_p99");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown column 'latncy_p99'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("allowed: offered"), std::string::npos) << r.output;
}

// A batch on one cn router: every flit crosses the crossbar once and leaves
// on a router output port, so the ports' utilization over the whole run
// (flits x cycles per flit / window) adds up to the flit-hops, and the
// nodes' to the flits created and ejected.
TEST(Utilization, SumsToFlitHopsOverTheWindow) {
  const std::string out = temp_path("u.json");
  ASSERT_EQ(nwnsim("run --set router.radix=16 --set router.org=cn --set traffic.mode=batch "
                   "--set traffic.batch_packets=50 --set traffic.load=0.6 --set traffic.packet_flits=4 --json " + out)
                .exit_code,
            0);
  const json run = load(out);
  const json& r = run["results"];
  const json& u = r["utilization"];
  // A flit takes flit.bits / channel.width_bits cycles of a channel.
  const int bits = run["config"]["flit.bits"], width = run["config"]["channel.width_bits"];
  const double window = u["window_cycles"].get<double>() / ((bits + width - 1) / width);
  double ports = 0, inject = 0, eject = 0, busiest = 0;
  ASSERT_EQ(u["router_ports"].size(), 1u);
  ASSERT_EQ(u["router_ports"][0].size(), 16u);
  for (auto& x : u["router_ports"][0]) {
    ports += x.get<double>();
    busiest = std::max(busiest, x.get<double>());
    EXPECT_LE(x.get<double>(), 1.0);
  }
  for (auto& x : u["node_injection"]) inject += x.get<double>();
  for (auto& x : u["node_ejection"]) eject += x.get<double>();
  EXPECT_NEAR(ports * window, r["flit_hops"].get<double>(), 1e-6);
  EXPECT_NEAR(inject * window, r["flits_created"].get<double>(), 1e-6);
  EXPECT_NEAR(eject * window, r["flits_ejected"].get<double>(), 1e-6);
  EXPECT_EQ(r["flits_ejected"].get<double>(), 16 * 50 * 4);
  EXPECT_DOUBLE_EQ(u["router_port_max"].get<double>(), busiest);
  EXPECT_DOUBLE_EQ(u["router_port_avg"].get<double>(), ports / 16);
}

// Any topology: one list of output ports per router, each a fraction; the
// busiest port named.
TEST(Utilization, EveryRouterOfANetwork) {
  const std::string out = temp_path("u.json");
  ASSERT_EQ(nwnsim("run --set network.topology=torus --set network.torus.t=2 --set network.torus.dims=4,4 "
                   "--set router.radix=8 --set router.vcs=8 --set network.routing=dor --set traffic.load=0.3 --set sim.warmup_cycles=300 "
                   "--set sim.measure_cycles=1000 --json " + out)
                .exit_code,
            0);
  const json u = load(out)["results"]["utilization"];
  ASSERT_EQ(u["router_ports"].size(), 16u);
  ASSERT_EQ(u["node_injection"].size(), 32u);
  double busiest = 0;
  for (auto& router : u["router_ports"]) {
    ASSERT_EQ(router.size(), 8u);
    for (auto& x : router) {
      EXPECT_GE(x.get<double>(), 0.0);
      EXPECT_LE(x.get<double>(), 1.0);
      busiest = std::max(busiest, x.get<double>());
    }
  }
  EXPECT_GT(busiest, 0.05);
  EXPECT_EQ(u["router_ports"][u["busiest_router"].get<std::size_t>()][u["busiest_port"].get<std::size_t>()], busiest);
}

}  // namespace
}  // namespace nwn

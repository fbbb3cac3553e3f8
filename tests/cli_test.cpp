// The nwnsim program: reproducible output, and clear errors for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim_util.hpp"

namespace nwn {
namespace {

using test::nwnsim;
using test::slurp;
using test::without_provenance;
using test::temp_path;

const char* kSmall = "--set router.radix=16 --set sim.warmup_cycles=200 --set sim.measure_cycles=2000 ";

TEST(Cli, SameConfigAndSeedGiveBitIdenticalJson) {
  const std::string a = temp_path("a.json"), b = temp_path("b.json"), c = temp_path("c.json");
  ASSERT_EQ(nwnsim(std::string("run ") + kSmall + "--set traffic.load=0.7 --json " + a).exit_code, 0);
  ASSERT_EQ(nwnsim(std::string("run ") + kSmall + "--set traffic.load=0.7 --json " + b).exit_code, 0);
  ASSERT_EQ(nwnsim(std::string("run ") + kSmall + "--set traffic.load=0.7 --set sim.seed=2 --json " + c).exit_code, 0);
  EXPECT_FALSE(slurp(a).empty());
  EXPECT_EQ(without_provenance(a), without_provenance(b));
  EXPECT_NE(without_provenance(a), without_provenance(c)) << "a different seed should change the results";
}

// The kernel runs the routers of a cycle on several threads; what a router
// reads cannot change during the cycle, so the results are bit-identical
// (an adaptive routing that reads credits and a multi-subswitch router too).
TEST(Cli, ThreadCountDoesNotChangeResults) {
  const std::string net =
      "--set network.topology=hyperx --set network.hyperx_s=4,4 --set network.hyperx_t=4 --set router.radix=16 "
      "--set router.org=fc --set network.routing=minad --set traffic.load=0.4 --set sim.warmup_cycles=300 "
      "--set sim.measure_cycles=1000 ";
  std::string results[3];
  for (int t = 1; t <= 3; ++t) {
    const std::string path = temp_path("t" + std::to_string(t) + ".json");
    ASSERT_EQ(nwnsim("run " + net + "--threads " + std::to_string(t) + " --json " + path).exit_code, 0);
    const auto j = nlohmann::json::parse(slurp(path));
    results[t - 1] = j.at("results").dump();
    EXPECT_GT(j.at("results").at("packets_measured").get<int>(), 1000);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

// nwnsim restarts itself with glibc's huge-page tunable (sim/cli/main.cpp),
// keeping the user's other tunables; NWNSIM_NO_HUGE_PAGES=1 opts out. The
// results are the same either way.
TEST(Cli, HugePageRestartKeepsArgumentsAndResults) {
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode((std::istreambuf_iterator<char>(thp)), std::istreambuf_iterator<char>());
#if defined(__SANITIZE_ADDRESS__)
  const bool kernel_has_them = false;  // a sanitizer build does not restart (ASan has its own malloc)
#else
  const bool kernel_has_them = !mode.empty() && mode.find("[never]") == std::string::npos;
#endif
  const std::string args = std::string(" run ") + kSmall + "--set traffic.load=0.5 ";
  struct Case {
    std::string env;
    bool huge;
  };
  const std::vector<Case> cases = {{"env -u GLIBC_TUNABLES", kernel_has_them},
                                   {"env GLIBC_TUNABLES=glibc.malloc.arena_max=4", kernel_has_them},
                                   {"env -u GLIBC_TUNABLES NWNSIM_NO_HUGE_PAGES=1", false}};
  std::string first;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string out = temp_path("hp" + std::to_string(i) + ".json");
    const std::string perf = temp_path("hp" + std::to_string(i) + "-perf.json");
    const std::string cmd =
        cases[i].env + " " + NWNSIM_BINARY + args + "--json " + out + " --perf-json " + perf + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    EXPECT_EQ(nlohmann::json::parse(slurp(perf)).at("huge_pages").get<bool>(), cases[i].huge) << cases[i].env;
    const std::string results = nlohmann::json::parse(slurp(out)).at("results").dump();
    if (i == 0) first = results;
    EXPECT_EQ(results, first) << cases[i].env;
  }
}

TEST(Cli, SweepMatchesSingleRunsWhateverTheParallelism) {
  const std::string j1 = temp_path("j1.json"), j2 = temp_path("j2.json"), one = temp_path("one.json");
  ASSERT_EQ(nwnsim(std::string("sweep ") + kSmall + "--loads 0.2,0.6 -j 1 --json " + j1).exit_code, 0);
  ASSERT_EQ(nwnsim(std::string("sweep ") + kSmall + "--loads 0.2,0.6 -j 2 --json " + j2).exit_code, 0);
  ASSERT_EQ(nwnsim(std::string("run ") + kSmall + "--set traffic.load=0.6 --json " + one).exit_code, 0);
  EXPECT_EQ(without_provenance(j1), without_provenance(j2));
  auto sweep = nlohmann::json::parse(slurp(j1));
  auto run = nlohmann::json::parse(slurp(one));
  ASSERT_EQ(sweep["points"].size(), 2u);
  EXPECT_EQ(sweep["points"][1]["results"], run["results"]);
}

TEST(Cli, CsvHasHeaderAndOneRowPerPoint) {
  const std::string csv = temp_path("s.csv");
  ASSERT_EQ(nwnsim(std::string("sweep ") + kSmall + "--loads 0.1:0.3:0.1 --csv " + csv).exit_code, 0);
  std::istringstream in(slurp(csv));
  std::string line;
  int lines = 0;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("# nwnsim ", 0), 0u) << "the provenance comment line: " << line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("traffic.load,offered_load,", 0), 0u) << line;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 3);
}

struct BadInput {
  const char* name;
  const char* args;
  std::vector<const char*> must_say;
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.args; }

class CliErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliErrors, NameTheFieldTheValueAndWhatIsAllowed) {
  const BadInput& c = GetParam();
  auto r = nwnsim(c.args);
  EXPECT_EQ(r.exit_code, 2) << "bad input exits with 2:\n" << r.output;
  for (const char* s : c.must_say) EXPECT_NE(r.output.find(s), std::string::npos) << "missing '" << s << "' in:\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    All, CliErrors,
    ::testing::Values(
        BadInput{"OutOfRange", "run --set router.vcs=0", {"router.vcs", "'0'", "from 1 to 64"}},
        BadInput{"NotANumber", "run --set traffic.load=lots", {"traffic.load", "'lots'", "a number from 0 to 1"}},
        BadInput{"LoadTooHigh", "run --set traffic.load=1.5", {"traffic.load", "1.5", "from 0 to 1"}},
        BadInput{"UnknownKey", "run --set router.vc=2", {"unknown key 'router.vc'", "did you mean 'router.vcs'"}},
        BadInput{"UnknownChoice", "run --set traffic.pattern=zigzag", {"traffic.pattern", "zigzag", "uniform"}},
        BadInput{"NoEquals", "run --set router.vcs", {"expected key=value"}},
        BadInput{"UnknownFlag", "run --bogus", {"bogus"}},
        BadInput{"NeedsPowerOfTwo", "run --set router.radix=36 --set traffic.pattern=bitcomp",
                 {"traffic.pattern", "bitcomp", "power-of-two", "36"}},
        BadInput{"PacketTooBigForVct", "run --set traffic.packet_flits=32",
                 {"32 flits", "router.vc_depth_flits = 16", "virtual cut-through"}},
        BadInput{"BadRange", "sweep --loads 0.5:0.1:0.1", {"FIRST:LAST:STEP"}},
        BadInput{"MissingFile", "run /nonexistent/x.toml", {"/nonexistent/x.toml"}},
        BadInput{"MissingTrace", "run --set traffic.source=trace --set traffic.trace_file=/nonexistent/t.trace",
                 {"traffic.trace_file", "/nonexistent/t.trace"}},
        BadInput{"SweepUnknownKey", "sweep --vary router.vcz=1,2", {"router.vcz", "did you mean 'router.vcs'"}},
        BadInput{"SweepKeyVariedTwice", "sweep --vary router.vcs=1,2 --vary router.vcs=3,4 --loads 0.5",
                 {"router.vcs is varied twice", "--vary router.vcs=3,4", "--vary router.vcs=1,2"}},
        BadInput{"SweepLoadVariedAndLoads", "sweep --vary traffic.load=0.1,0.2 --loads 0.3,0.9",
                 {"traffic.load is varied twice", "--loads 0.3,0.9", "--vary traffic.load=0.1,0.2"}},
        BadInput{"ConfigKeysBadSet", "config --keys --set router.vcs=99", {"router.vcs", "'99'", "from 1 to 64"}},
        BadInput{"ConfigMarkdownUnknownKey", "config --markdown --set bogus=1", {"unknown key 'bogus'"}},
        BadInput{"RunEmptyColumns", "run --columns ''", {"--columns ''", "an empty list"}},
        BadInput{"SweepEmptyColumns", "sweep --loads 0.5 --columns ''", {"--columns ''", "an empty list"}},
        BadInput{"CompareUnknownOrg", "compare --orgs hc,zz", {"router.org", "'zz'", "must be one of"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(CliErrors, TomlFileErrorsNameFileLineAndKey) {
  const std::string bad_syntax = temp_path("syntax.toml"), bad_key = temp_path("key.toml"),
                    bad_type = temp_path("type.toml");
  std::ofstream(bad_syntax) << "[router]\nvcs = = 3\n";
  std::ofstream(bad_key) << "[router]\nradix = 16\nvc_depht_flits = 8\n";
  std::ofstream(bad_type) << "[traffic]\npattern = 3\n";
  auto r1 = nwnsim("run " + bad_syntax);
  EXPECT_EQ(r1.exit_code, 2);
  EXPECT_NE(r1.output.find(bad_syntax + ":2"), std::string::npos) << r1.output;
  auto r2 = nwnsim("run " + bad_key);
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_NE(r2.output.find("router.vc_depht_flits"), std::string::npos) << r2.output;
  EXPECT_NE(r2.output.find(":3"), std::string::npos) << r2.output;
  EXPECT_NE(r2.output.find("router.vc_depth_flits"), std::string::npos) << r2.output;
  auto r3 = nwnsim("run " + bad_type);
  EXPECT_EQ(r3.exit_code, 2);
  EXPECT_NE(r3.output.find("traffic.pattern"), std::string::npos) << r3.output;
}

TEST(Cli, ConfigPrintsEffectiveConfigThatLoadsBack) {
  const std::string path = temp_path("effective.toml");
  auto r = nwnsim("config --set router.vcs=2 --set traffic.pattern=bitrev");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("vcs = 2"), std::string::npos);
  std::ofstream(path) << r.output;
  auto again = nwnsim("config " + path);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(again.output, r.output);
}

// bench --huge takes an organization (the HyperX cost-per-flit-hop series,
// docs/SCALING.md); anything else is refused before a case runs.
TEST(Cli, BenchHugeRefusesAnUnknownOrganization) {
  auto r = nwnsim("bench --huge xyz");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--huge"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("xyz"), std::string::npos) << r.output;
}

// bench --only picks cases by name and --set overrides their settings after
// their own; --print-args prints a case's `nwnsim run` settings (what
// scripts/speed-ab runs for its HyperX cases) instead of running it.
TEST(Cli, BenchPrintsTheRunSettingsOfOneCaseWithOverrides) {
  auto r = nwnsim("bench --huge cn --only hyperx4096-cn128-ur-0.3 --set network.link_latency_cycles=1 --print-args");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string name = "hyperx4096-cn128-ur-0.3\t";
  ASSERT_EQ(r.output.compare(0, name.size(), name), 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  const std::string sets = r.output.substr(name.size(), r.output.size() - name.size() - 1);
  EXPECT_NE(sets.find("--set network.hyperx_s=8,16 "), std::string::npos) << sets;
  const std::string last = "--set network.link_latency_cycles=1";
  EXPECT_EQ(sets.substr(sets.size() - last.size()), last) << "the override comes last, so it wins: " << sets;
  auto cfg = nwnsim("config " + sets);
  ASSERT_EQ(cfg.exit_code, 0) << cfg.output;
  EXPECT_NE(cfg.output.find("link_latency_cycles = 1\n"), std::string::npos) << cfg.output;
  EXPECT_NE(cfg.output.find("radix = 128\n"), std::string::npos) << cfg.output;
}

TEST(Cli, BenchRefusesAnUnknownCaseAndABadOverride) {
  auto r = nwnsim("bench --huge cn --only hyperx9-cn128 --print-args");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'hyperx9-cn128'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hyperx131072-cn128-ur-0.3"), std::string::npos) << "lists the cases: " << r.output;
  r = nwnsim("bench --only cn64-ur-0.5 --set router.vcs=0 --print-args");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("router.vcs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'0'"), std::string::npos) << r.output;
}

TEST(Cli, BenchOnlyRunsTheCasesNamedWithTheOverrides) {
  const std::string path = temp_path("bench.json");
  auto r = nwnsim("bench --quick --only cn64-ur-0.3 --set sim.measure_cycles=300 --set sim.warmup_cycles=100 --json " +
                  path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("cn64-ur-0.5"), std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(slurp(path));
  ASSERT_EQ(j.at("cases").size(), 1u) << j.dump(2);
  const auto& c = j.at("cases")[0];
  EXPECT_EQ(c.at("case"), "cn64-ur-0.3");
  EXPECT_EQ(c.at("sets").back(), "sim.warmup_cycles=100");
  EXPECT_GE(c.at("cycles").get<int>(), 400);
  EXPECT_LT(c.at("cycles").get<int>(), 1000) << "the --quick window is 1,000 + 5,000 cycles";
}

TEST(Cli, EveryCommandHasHelp) {
  for (const char* cmd : {"run", "sweep", "bench", "config"}) {
    auto r = nwnsim(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.output.find("Options"), std::string::npos) << cmd << ":\n" << r.output;
  }
}

}  // namespace
}  // namespace nwn

namespace nwn {
namespace {

// Saturation search on cases with known answers.
TEST(Saturation, BitComplementOnCrossbarDoesNotSaturate) {
  auto r = test::nwnsim("saturation --set router.radix=32 --set traffic.pattern=bitcomp --set flit.bits=64 "
                        "--set sim.measure_cycles=4000");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("not saturated at the highest load 1.0000"), std::string::npos) << r.output;
}

TEST(Saturation, OneVcUniformBracketsTheHeadOfLineLimit) {
  const std::string json = ::testing::TempDir() + "/sat.json";
  auto r = test::nwnsim("saturation --set router.vcs=1 --set router.va_cycles=0 --set flit.bits=64 "
                        "--set sim.drain_cap_cycles=5000 --tolerance 0.02 --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in);
  const double lo = j["bracket"][0], hi = j["bracket"][1];
  EXPECT_LE(hi - lo, 0.02 + 1e-9);
  EXPECT_GT(lo, 0.55) << r.output;
  EXPECT_LT(hi, 0.64) << r.output;
  EXPECT_LE(j["probes"].size(), 8u) << "bisection should need few probes";
}

// Sweeps that keep their points: resume, single points, merge, cluster script.
TEST(SweepOutDir, ResumeSkipsFinishedPointsAndMergesTheSame) {
  const std::string dir = temp_path("sweep");
  std::filesystem::remove_all(dir);  // a fresh directory, whatever an earlier run left
  const std::string grid = std::string("sweep ") + kSmall + "--loads 0.2,0.4,0.6 -j 2 --out-dir " + dir;
  auto first = nwnsim(grid);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string merged = without_provenance(dir + "/sweep.json");
  ASSERT_FALSE(merged.empty());
  // Simulate an interruption: one point lost. The rerun runs only that one.
  int removed = 0;
  for (auto& e : std::filesystem::directory_iterator(dir + "/points"))
    if (e.path().string().find("load=0.4") != std::string::npos) removed += std::filesystem::remove(e.path());
  ASSERT_EQ(removed, 1);
  auto second = nwnsim(grid);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("2 point(s) already in"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("1 to run"), std::string::npos) << second.output;
  EXPECT_EQ(without_provenance(dir + "/sweep.json"), merged) << "a resumed sweep gives the same merged results";
}

TEST(SweepOutDir, ArrayTasksThenMergeEqualOneSweep) {
  const std::string dir = temp_path("array"), whole = temp_path("whole.json");
  std::filesystem::remove_all(dir);  // a fresh directory, whatever an earlier run left
  const std::string grid = std::string("sweep ") + kSmall + "--loads 0.3,0.5 --out-dir " + dir;
  auto missing = nwnsim(grid + " --merge-only");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("2 point(s) missing"), std::string::npos) << missing.output;
  ASSERT_EQ(nwnsim(grid + " --point 1").exit_code, 0);
  ASSERT_EQ(nwnsim(grid + " --point 0").exit_code, 0);
  auto merge = nwnsim(grid + " --merge-only --json " + temp_path("merged.json"));
  ASSERT_EQ(merge.exit_code, 0) << merge.output;
  ASSERT_EQ(nwnsim(std::string("sweep ") + kSmall + "--loads 0.3,0.5 --json " + whole).exit_code, 0);
  EXPECT_EQ(without_provenance(temp_path("merged.json")), without_provenance(whole));
  auto bad = nwnsim(grid + " --point 2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--point 2 but the grid has 2 points"), std::string::npos) << bad.output;
}

// A key both --set and varied takes the varied values, and says so.
TEST(Cli, SweepSaysWhichSetKeysTheGridReplaces) {
  const std::string dir = temp_path("replaced");
  auto r = nwnsim("sweep --set router.vcs=2 --set traffic.load=0.3 --vary router.vcs=1,4 --emit slurm --out-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--vary router.vcs=1,4 replaces --set router.vcs=2"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("traffic.load"), std::string::npos) << "not varied, nothing to say: " << r.output;
  r = nwnsim("sweep --set traffic.load=0.3 --emit slurm --out-dir " + dir + "2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("the default --loads 0.1:1.0:0.1 replaces --set traffic.load=0.3"), std::string::npos)
      << r.output;
}

TEST(SweepOutDir, EmitsASlurmJobArray) {
  const std::string dir = temp_path("slurm");
  std::filesystem::remove_all(dir);  // a fresh directory, whatever an earlier run left
  auto r = nwnsim(std::string("sweep ") + kSmall + "--vary router.org=cn,fc --loads 0.1:0.5:0.2 --emit slurm --out-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string script = slurp(dir + "/sweep.slurm");
  EXPECT_NE(script.find("#SBATCH --array=0-5"), std::string::npos) << script;
  EXPECT_NE(script.find("--point \"$SLURM_ARRAY_TASK_ID\""), std::string::npos) << script;
  EXPECT_NE(script.find("--merge-only"), std::string::npos);
  const auto manifest = nlohmann::json::parse(slurp(dir + "/manifest.json"));
  EXPECT_EQ(manifest["points"].size(), 6u);
}

// A task of the job array may start in another directory: a trace named by
// a relative path in --set reaches it by its absolute path, and the task's
// base config is the manifest's (before, every task stopped: "holds a sweep
// of another base config").
TEST(SweepOutDir, AJobArraysTaskRunsFromAnotherDirectory) {
  const std::string dir = temp_path("slurm-trace");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/t.trace") << "0 0 1 1\n10 2 3 2\n";
  auto r = test::shell("cd '" + dir + "' && " + NWNSIM_BINARY +
                 " sweep --set router.radix=8 --set traffic.source=trace --set traffic.trace_file=t.trace "
                 "--vary router.vcs=2,4 --emit slurm --out-dir sw");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string script = slurp(dir + "/sw/sweep.slurm");
  EXPECT_NE(script.find("traffic.trace_file=" + std::filesystem::canonical(dir).string() + "/t.trace'"),
            std::string::npos)
      << script;
  std::string task;
  std::istringstream lines(script);
  for (std::string line; std::getline(lines, line);)
    if (line.find("--point \"$SLURM_ARRAY_TASK_ID\"") != std::string::npos) task = line;
  ASSERT_FALSE(task.empty()) << script;
  task.replace(task.find("\"$SLURM_ARRAY_TASK_ID\""), 22, "0");
  r = test::shell("cd / && " + task);
  EXPECT_EQ(r.exit_code, 0) << task << "\n" << r.output;
}

// nwnsim reproduce: the paper presets of configs/paper/.
TEST(Reproduce, ListsThePresetsWithWhatThePaperReports) {
  auto r = nwnsim("reproduce --list");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : {"table2", "fig05", "fig11c-ur", "fig16", "fig16-more", "fig17b-ur", "fig18a", "fig18b"})
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  EXPECT_NE(r.output.find("paper: "), std::string::npos);
}

TEST(Reproduce, RunsAPresetAndWritesItsOutputs) {
  const std::string dir = temp_path("out");
  std::filesystem::remove_all(dir);  // a fresh directory, whatever an earlier run left
  auto r = nwnsim("reproduce table2 --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nwnsim complexity --radix 64"), std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(slurp(dir + "/table2.json"));
  EXPECT_FALSE(j.empty());
  EXPECT_NE(slurp(dir + "/table2.csv").find("fc"), std::string::npos);
}

TEST(Reproduce, QuickAppendsItsShorterSettings) {
  auto r = nwnsim("reproduce fig17b-ur --quick --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("network.topology=fclos"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--loads 0.1:0.9:0.2"), std::string::npos) << r.output;
}

TEST(Reproduce, BadPresetsAreClearErrors) {
  auto r = nwnsim("reproduce fig99");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no preset 'fig99' (allowed: "), std::string::npos) << r.output;
  const std::string dir = temp_path("presets");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/mine.toml") << "title = \"x\"\ncommand = [\"complexity\"]\ncolour = \"red\"\n";
  r = nwnsim("reproduce --list --presets " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("mine.toml: unknown key 'colour'"), std::string::npos) << r.output;
  std::ofstream(dir + "/mine.toml") << "title = \"x\"\ncommand = \"complexity\"\n";
  r = nwnsim("reproduce --list --presets " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("'command' must be a list of strings"), std::string::npos) << r.output;
  // A presets directory that is missing or empty is named, not an empty list.
  const std::string empty = temp_path("no-presets"), missing = temp_path("missing");
  std::filesystem::create_directories(empty);
  for (const char* args : {"--list", "fig05"}) {
    r = nwnsim("reproduce --presets " + missing + " " + args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--presets '" + missing + "' does not exist"), std::string::npos) << r.output;
    r = nwnsim("reproduce --presets " + empty + " " + args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--presets '" + empty + "' holds no presets"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace nwn

// Sweep resume, damaged points, output paths, signals and exit codes
// (docs/RELIABILITY.md, "Resume and atomic outputs"). Whatever happens to a
// sweep's --out-dir (killed, rerun with another config, points damaged), the
// merged results are those of an uninterrupted sweep of the config they
// claim, or the command says why not.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/atomic_file.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;
using test::nwnsim;
using test::slurp;
using test::temp_path;

// Short windows: a point takes milliseconds. hc needs a square radix.
const std::string kShort = "--set router.radix=16 --set sim.warmup_cycles=100 --set sim.measure_cycles=300 ";
const std::string kGrid = "--vary router.org=fc,hc --loads 0.3,0.6 ";
// Long enough (about 0.5 s for the grid on 2 processes) to be killed halfway.
const std::string kKillable = "--set router.radix=16 --set sim.warmup_cycles=100 --set sim.measure_cycles=20000 "
                              "--vary router.org=fc,hc --loads 0.2,0.4,0.6 -j 2 ";

std::string fresh_dir(const std::string& name) {
  const std::string dir = temp_path(name);
  fs::remove_all(dir);
  return dir;
}

// The merged JSON of an uninterrupted sweep of `args`.
std::string reference_sweep(const std::string& args) {
  const std::string ref = temp_path("reference.json");
  auto r = nwnsim("sweep " + args + "--json " + ref);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return test::without_provenance(ref);
}

std::vector<fs::path> point_files(const std::string& dir) {
  std::vector<fs::path> out;
  for (auto& e : fs::directory_iterator(dir + "/points")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Starts nwnsim in the background (output to `log`); returns its pid.
pid_t start_nwnsim(const std::string& args, const std::string& log) {
  const std::string cmd = "exec " + std::string(NWNSIM_BINARY) + " " + args + " > " + log + " 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Live processes whose command line mentions `text` (zombies have none).
int processes_mentioning(const std::string& text) {
  int n = 0;
  for (auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == getpid()) continue;
    std::string cmdline = slurp(e.path().string() + "/cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    n += cmdline.find(text) != std::string::npos;
  }
  return n;
}

// Waits up to 2 s for the processes mentioning `text` to go.
int processes_left(const std::string& text) {
  for (int i = 0; i < 200 && processes_mentioning(text); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return processes_mentioning(text);
}

int unfinished_files(const std::string& dir) {
  int n = 0;
  for (auto& p : point_files(dir)) {
    const std::string name = p.filename().string();
    n += name.find(".part") != std::string::npos || name.find(".tmp-nwnsim-") != std::string::npos;
  }
  return n;
}

// The reproducer: a rerun with another base config reused the old points
// and labelled them with the new config. Now it is an error naming the key
// with both values, and the directory still holds what it claims.
TEST(SweepResume, ChangedBaseConfigIsAnErrorThatSaysWhatDiffers) {
  const std::string dir = fresh_dir("d");
  auto first = nwnsim("sweep " + kShort + kGrid + "--out-dir " + dir);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  auto changed = nwnsim("sweep " + kShort + kGrid + "--set router.vcs=2 --out-dir " + dir);
  EXPECT_EQ(changed.exit_code, 2) << changed.output;
  EXPECT_NE(changed.output.find("router.vcs: 4 -> 2"), std::string::npos) << changed.output;
  EXPECT_NE(changed.output.find("--out-dir '" + dir + "'"), std::string::npos) << changed.output;
  const auto merged = nlohmann::json::parse(slurp(dir + "/sweep.json"));
  EXPECT_EQ(merged["config"]["router.vcs"], 4);
  EXPECT_EQ(test::without_provenance(dir + "/sweep.json"), reference_sweep(kShort + kGrid));
  // The same grid with another value of a varied key is not a changed base.
  auto regrid = nwnsim("sweep " + kShort + "--vary router.org=fc,hc --loads 0.3,0.5 --out-dir " + dir);
  EXPECT_EQ(regrid.exit_code, 0) << regrid.output;
  EXPECT_EQ(test::without_provenance(dir + "/sweep.json"), reference_sweep(kShort + "--vary router.org=fc,hc --loads 0.3,0.5 "));
}

// A point of another config under a point's name (copied from another
// sweep, or left by an older grid) is named and rerun, never merged.
TEST(SweepResume, PointOfAnotherConfigIsRerun) {
  const std::string dir = fresh_dir("d"), other = fresh_dir("other");
  ASSERT_EQ(nwnsim("sweep " + kShort + kGrid + "--out-dir " + dir).exit_code, 0);
  ASSERT_EQ(nwnsim("sweep " + kShort + kGrid + "--set router.vcs=2 --out-dir " + other).exit_code, 0);
  const fs::path victim = point_files(dir)[1];
  fs::copy_file(fs::path(other) / "points" / victim.filename(), victim, fs::copy_options::overwrite_existing);
  auto r = nwnsim("sweep " + kShort + kGrid + "--out-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(victim.string() + ": it ran another config (router.vcs: 2 -> 4)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("3 point(s) already in"), std::string::npos) << r.output;
  EXPECT_EQ(test::without_provenance(dir + "/sweep.json"), reference_sweep(kShort + kGrid));
}

// --threads and --allocator reach the children (a point's config is the
// sweep's, key for key) and the array tasks of --emit slurm.
TEST(SweepResume, ThreadsAndAllocatorReachEveryPoint) {
  const std::string dir = fresh_dir("d");
  auto r = nwnsim("sweep " + kShort + "--loads 0.3 --threads 2 --allocator model --out-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto point = nlohmann::json::parse(slurp(point_files(dir)[0].string()));
  EXPECT_EQ(point["config"]["sim.threads"], 2);
  EXPECT_EQ(point["config"]["router.allocator_impl"], "model");
  auto emit = nwnsim("sweep " + kShort + "--loads 0.3 --threads 2 --allocator model --emit slurm --out-dir " + dir);
  ASSERT_EQ(emit.exit_code, 0) << emit.output;
  EXPECT_NE(slurp(dir + "/sweep.slurm").find("'--threads' '2'"), std::string::npos) << slurp(dir + "/sweep.slurm");
}

// Results do not depend on the thread count: points stored by a run on one
// thread are reused by a run on two (and the merged sweep is the same).
TEST(SweepResume, PointsAreReusedWhateverTheThreadCount) {
  const std::string dir = fresh_dir("d");
  auto one = nwnsim("sweep " + kShort + "--loads 0.3,0.5 --threads 1 --out-dir " + dir);
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const auto merged = nlohmann::json::parse(slurp(dir + "/sweep.json"));
  auto two = nwnsim("sweep " + kShort + "--loads 0.3,0.5 --threads 2 --out-dir " + dir);
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("2 point(s) already in"), std::string::npos) << two.output;
  const auto again = nlohmann::json::parse(slurp(dir + "/sweep.json"));
  EXPECT_EQ(again["points"], merged["points"]);
  EXPECT_EQ(again["config"]["sim.threads"], 2);  // the merged file names the run that merged it
}

struct Damage {
  const char* name;
  std::function<void(const fs::path&)> apply;
  const char* says;
};

void PrintTo(const Damage& d, std::ostream* os) { *os << d.name; }

class DamagedPoint : public ::testing::TestWithParam<Damage> {};

// A damaged point stops nothing and is never merged: it is named on stderr
// and run again, and the merge equals an uninterrupted sweep.
TEST_P(DamagedPoint, IsNamedAndRerun) {
  const std::string dir = fresh_dir("d");
  ASSERT_EQ(nwnsim("sweep " + kShort + kGrid + "--out-dir " + dir).exit_code, 0);
  const fs::path victim = point_files(dir)[2];
  GetParam().apply(victim);
  auto r = nwnsim("sweep " + kShort + kGrid + "--out-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(victim.string() + ": " + GetParam().says), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("running it again"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 to run"), std::string::npos) << r.output;
  EXPECT_EQ(test::without_provenance(dir + "/sweep.json"), reference_sweep(kShort + kGrid));
  // --merge-only does not run it but names it and counts it missing.
  GetParam().apply(victim);
  auto merge = nwnsim("sweep " + kShort + kGrid + "--out-dir " + dir + " --merge-only");
  EXPECT_EQ(merge.exit_code, 1) << merge.output;
  EXPECT_NE(merge.output.find(victim.string() + ": " + GetParam().says), std::string::npos) << merge.output;
  EXPECT_NE(merge.output.find("1 point(s) missing"), std::string::npos) << merge.output;
}

void edit_json(const fs::path& p, const std::function<void(nlohmann::ordered_json&)>& f) {
  auto j = nlohmann::ordered_json::parse(slurp(p.string()));
  f(j);
  std::ofstream(p) << j.dump(2) << "\n";
}

// An edit with the checksum made to match (as sim/cli.cpp computes it): the
// point is whole, but of another config or another nwnsim.
void edit_and_reseal(const fs::path& p, const std::function<void(nlohmann::ordered_json&)>& f) {
  edit_json(p, [&](auto& j) {
    f(j);
    const nlohmann::json canonical = {{"config", nlohmann::json::parse(j["config"].dump())},
                                      {"results", nlohmann::json::parse(j["results"].dump())},
                                      {"version", j["version"]}};
    j["checksum"] = "fnv1a64:" + fnv1a_hex(canonical.dump());
  });
}

INSTANTIATE_TEST_SUITE_P(
    All, DamagedPoint,
    ::testing::Values(
        Damage{"Empty", [](const fs::path& p) { std::ofstream(p, std::ios::trunc).flush(); }, "not valid JSON"},
        Damage{"Truncated",
               [](const fs::path& p) {
                 const std::string s = slurp(p.string());
                 std::ofstream(p, std::ios::trunc) << s.substr(0, s.size() / 2);
               },
               "not valid JSON"},
        Damage{"Garbage", [](const fs::path& p) { std::ofstream(p, std::ios::trunc) << "\x01\x02 garbage {"; },
               "not valid JSON"},
        Damage{"OtherValidJson", [](const fs::path& p) { std::ofstream(p, std::ios::trunc) << "[1, 2, 3]\n"; },
               "not a finished sweep point"},
        Damage{"ResultEdited",
               [](const fs::path& p) { edit_json(p, [](auto& j) { j["results"]["latency_avg"] = 1.5; }); },
               "its checksum does not match"},
        Damage{"ConfigEdited",
               [](const fs::path& p) { edit_json(p, [](auto& j) { j["config"]["router.vcs"] = 2; }); },
               "its checksum does not match"},
        Damage{"ResultsMissing", [](const fs::path& p) { edit_json(p, [](auto& j) { j.erase("results"); }); },
               "not a finished sweep point"},
        Damage{"OtherVersion",
               [](const fs::path& p) { edit_json(p, [](auto& j) { j["version"] = "0.0.1+0123456789abcdef"; }); },
               "its checksum does not match"},
        Damage{"OtherVersionResealed",
               [](const fs::path& p) { edit_and_reseal(p, [](auto& j) { j["version"] = "0.0.1+0123456789abcdef"; }); },
               "written by nwnsim 0.0.1+0123456789abcdef, not by this build"},
        Damage{"OtherConfigResealed",
               [](const fs::path& p) { edit_and_reseal(p, [](auto& j) { j["config"]["router.vcs"] = 2; }); },
               "it ran another config (router.vcs: 2 -> 4)"}),
    [](const auto& info) { return std::string(info.param.name); });

// A sweep killed at a random moment (SIGKILL: nothing can clean up;
// SIGTERM: it forwards and cleans up), then maybe a damaged point, then a
// rerun: the merge equals an uninterrupted sweep. SIGTERM and SIGINT exit
// with 128 + signal and leave no child running and no unfinished file.
class KilledSweep : public ::testing::TestWithParam<int> {};

TEST_P(KilledSweep, ResumesToTheUninterruptedResults) {
  const int sig = GetParam();
  const std::string reference = reference_sweep(kKillable);
  std::random_device rd;
  const unsigned seed = rd();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string dir = fresh_dir("d" + std::to_string(round));
    const pid_t pid = start_nwnsim("sweep " + kKillable + "--out-dir " + dir, temp_path("log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(50, 600)(rng)));
    kill(pid, sig);
    const int code = wait_exit_code(pid);
    if (sig != SIGKILL && code != 0) {  // 0: it had finished
      EXPECT_EQ(code, 128 + sig) << slurp(temp_path("log"));
      EXPECT_EQ(processes_mentioning(dir), 0) << "children left running";
      if (fs::exists(dir + "/points")) {
        EXPECT_EQ(unfinished_files(dir), 0);
      }
    }
    EXPECT_EQ(processes_left(dir), 0) << "children outlived their sweep";
    if (round == 1 && fs::exists(dir + "/points") && !point_files(dir).empty()) {
      const fs::path victim = point_files(dir)[0];
      const std::string s = slurp(victim.string());
      std::ofstream(victim, std::ios::trunc) << s.substr(0, s.size() / 3);
    }
    auto r = nwnsim("sweep " + kKillable + "--out-dir " + dir);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(unfinished_files(dir), 0);
    EXPECT_EQ(test::without_provenance(dir + "/sweep.json"), reference);
  }
}

INSTANTIATE_TEST_SUITE_P(Signals, KilledSweep, ::testing::Values(SIGKILL, SIGTERM, SIGINT),
                         [](const auto& info) { return std::string(strsignal(info.param)).substr(0, 4); });

// compare forwards SIGINT to its simulations, removes its scratch directory
// and exits 130.
TEST(Interrupt, CompareLeavesNoChildAndNoScratch) {
  const std::string log = temp_path("log");
  const pid_t pid = start_nwnsim("compare --orgs cn,fc --patterns uniform,bitcomp --reference cn -j 2 "
                                 "--set router.radix=64 --set sim.measure_cycles=200000",
                                 log);
  const std::string scratch = "nwnsim-compare-" + std::to_string(pid);
  for (int i = 0; i < 3000 && !processes_mentioning(scratch); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GT(processes_mentioning(scratch), 0) << "no simulation started: " << slurp(log);
  kill(pid, SIGINT);
  EXPECT_EQ(wait_exit_code(pid), 130) << slurp(log);
  EXPECT_EQ(processes_mentioning(scratch), 0);
  EXPECT_FALSE(fs::exists(fs::temp_directory_path() / scratch));
  EXPECT_NE(slurp(log).find("interrupted by SIGINT"), std::string::npos) << slurp(log);
}

// (The waits for a child allow 30 s: on a loaded 2-core CI machine the
// sweep's first simulation started after more than 3 s.)
// reproduce forwards SIGTERM through its sweep to the simulations; the
// sweep's kept points resume on the next run.
TEST(Interrupt, ReproduceStopsItsSweepWhichResumes) {
  const std::string presets = fresh_dir("presets"), out = fresh_dir("out");
  fs::create_directories(presets);
  std::ofstream(presets + "/long.toml")
      << "title = \"a long sweep\"\n"
         "command = [\"sweep\", \"--set\", \"router.radix=64\", \"--set\", \"sim.measure_cycles=100000\", "
         "\"--loads\", \"0.1,0.2,0.3,0.4\", \"-j\", \"2\", \"--out-dir\", \"{prefix}-points\"]\n"
         "outputs = [\"json\"]\n";
  const std::string args = "reproduce long --presets " + presets + " --out " + out;
  const pid_t pid = start_nwnsim(args, temp_path("log"));
  for (int i = 0; i < 3000 && processes_mentioning(out + "/long-points/points/") == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GT(processes_mentioning(out + "/long-points/points/"), 0) << slurp(temp_path("log"));
  kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit_code(pid), 143) << slurp(temp_path("log"));
  EXPECT_EQ(processes_mentioning(out), 0) << "simulations left running";
  EXPECT_EQ(unfinished_files(out + "/long-points"), 0);
  EXPECT_FALSE(fs::exists(out + "/long.json"));
  auto rerun = nwnsim(args);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_EQ(nlohmann::json::parse(slurp(out + "/long.json"))["points"].size(), 4u);
}

// Every command checks its output paths before it simulates: a path that
// cannot be written is an exit-2 error naming the flag and the path.
TEST(OutputPaths, CheckedBeforeAnythingRuns) {
  const std::string bad = "/dev/null/x.json";
  for (const std::string& cmd : std::vector<std::string>{
           "run --json " + bad, "run --csv " + bad, "run --perf-json " + bad, "run --heatmap " + bad,
        "run --trace-packets " + bad, "run --vcd " + bad, "run --trace-rtl " + bad, "sweep --json " + bad,
        "sweep --csv " + bad, "sweep --out-dir /dev/null", "compare --json " + bad, "compare --csv " + bad,
        "compare --plot /dev/null/cmp", "saturation --json " + bad, "complexity --json " + bad,
        "complexity --csv " + bad, "bench --json " + bad, "reproduce table2 --out /dev/null",
        "topo analyze --json " + bad, "topo search hyperx --csv " + bad}) {
    SCOPED_TRACE(cmd);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = nwnsim(cmd);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("/dev/null"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("not a directory"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("accepted"), std::string::npos) << "it simulated: " << r.output;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  }
  auto dir = nwnsim("run --json " + ::testing::TempDir());
  EXPECT_EQ(dir.exit_code, 2) << dir.output;
  EXPECT_NE(dir.output.find("is a directory"), std::string::npos) << dir.output;
  auto empty = nwnsim("run --json ''");
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_NE(empty.output.find("--json: '': an empty path"), std::string::npos) << empty.output;
  auto key = nwnsim("run --set sim.vcd_file=" + bad);
  EXPECT_EQ(key.exit_code, 2) << key.output;
  EXPECT_NE(key.output.find("sim.vcd_file '" + bad + "'"), std::string::npos) << key.output;
}

// A write that fails after the simulation (a full disk) is an error naming
// the path and the OS error, not a lost file and exit 0.
TEST(OutputPaths, WriteErrorsFailNamingThePath) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  // The packet trace and the VCD are streamed during the run and closed at
  // its end; a device is written in place, never renamed over.
  for (const std::string& out :
       {std::string("--csv"), std::string("--json"), std::string("--set sim.packet_trace_ids=3 --trace-packets"),
        std::string("--set sim.vcd_from=100 --set sim.vcd_cycles=50 --vcd")}) {
    auto r = nwnsim("run " + kShort + out + " /dev/full");
    EXPECT_EQ(r.exit_code, 1) << out << ": " << r.output;
    EXPECT_NE(r.output.find("cannot write '/dev/full': No space left on device"), std::string::npos) << r.output;
    ASSERT_TRUE(fs::is_character_file("/dev/full")) << out << " replaced the device";
  }
}

// A symlinked output keeps its link: the file it points to is replaced.
TEST(OutputPaths, SymlinkedOutputKeepsTheLink) {
  const std::string dir = fresh_dir("links");
  fs::create_directories(dir);
  fs::create_symlink("real.json", dir + "/link.json");
  auto r = nwnsim("run " + kShort + "--json " + dir + "/link.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir + "/link.json"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir + "/real.json"))["nwnsim"], "run");
}

// Files are replaced whole: an existing output is overwritten by a rename,
// with no temporary left behind.
TEST(OutputPaths, WrittenAtomicallyWithoutLeftovers) {
  const std::string dir = fresh_dir("out");
  fs::create_directories(dir);
  std::ofstream(dir + "/r.json") << "old";
  auto r = nwnsim("run " + kShort + "--json " + dir + "/r.json --csv " + dir + "/new/r.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir + "/r.json"))["nwnsim"], "run");
  EXPECT_NE(slurp(dir + "/new/r.csv").find("accepted_load"), std::string::npos);
  for (auto& e : fs::recursive_directory_iterator(dir))
    EXPECT_EQ(e.path().string().find(".tmp-nwnsim-"), std::string::npos) << e.path();
}

// Exit codes and errors of the commands that run children.
TEST(ExitCodes, CompareReportsAChildConfigErrorAsTwo) {
  // hc needs a square radix: the child fails with exit 2, so does compare.
  auto r = nwnsim("compare --orgs cn,hc --patterns uniform --reference cn -j 2 --set router.radix=8 "
                  "--set sim.warmup_cycles=100 --set sim.measure_cycles=300");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("hc on uniform failed (exit 2)"), std::string::npos) << r.output;
}

TEST(ExitCodes, SaturationReportsAProbeConfigErrorAsTwo) {
  auto r = nwnsim("saturation --set router.org=hc --set router.radix=8 --set sim.measure_cycles=300");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("failed (exit 2)"), std::string::npos) << r.output;
}

// A ring of 8 routers with dor and one VC, no dateline classes
// (network.deadlock_free = false), and tornado traffic wedges: exit 3 with
// the report naming the stuck buffers and packets; the same config with the
// deadlock-free classes is a config error (exit 2), not a wedge.
const std::string kRing =
    "--set network.topology=torus --set network.torus.dims=8 --set network.routing=dor "
    "--set network.link_latency_cycles=1 --set router.vcs=1 --set router.vc_depth_flits=4 "
    "--set router.flow_control=wormhole --set traffic.packet_flits=8 --set traffic.pattern=tornado "
    "--set traffic.load=0.9 --set sim.warmup_cycles=200 --set sim.measure_cycles=3000 "
    "--set sim.watchdog_cycles=500 ";

TEST(ExitCodes, AWedgedNetworkIsThreeWithItsReport) {
  auto r = nwnsim("run " + kRing + "--set network.deadlock_free=false");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("deadlock: "), std::string::npos) << r.output;
  const std::size_t still = r.output.find("none moved for ");
  ASSERT_NE(still, std::string::npos) << r.output;
  EXPECT_GE(std::stol(r.output.substr(still + 15)), 500) << r.output;  // at least sim.watchdog_cycles
  EXPECT_NE(r.output.find("r0.xbar input"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("front packet"), std::string::npos) << r.output;
  auto checked = nwnsim("run " + kRing);
  EXPECT_EQ(checked.exit_code, 2) << checked.output;
  EXPECT_NE(checked.output.find("needs at least 2 VCs: the dateline scheme"), std::string::npos) << checked.output;
  // Two VCs with the dateline classes: the same traffic drains.
  auto safe = nwnsim("run " + kRing + "--set router.vcs=2");
  EXPECT_EQ(safe.exit_code, 0) << safe.output;
}

TEST(ExitCodes, OutputDirectoriesThatAreFilesOrEmpty) {
  const std::string file = temp_path("file");
  std::ofstream(file) << "x";
  auto sweep = nwnsim("sweep " + kShort + "--loads 0.3 --out-dir " + file);
  EXPECT_EQ(sweep.exit_code, 2) << sweep.output;
  EXPECT_NE(sweep.output.find("--out-dir: '" + file + "': exists and is not a directory"), std::string::npos)
      << sweep.output;
  auto reproduce = nwnsim("reproduce table2 --out ''");
  EXPECT_EQ(reproduce.exit_code, 2) << reproduce.output;
  EXPECT_NE(reproduce.output.find("--out: '': an empty path"), std::string::npos) << reproduce.output;
  EXPECT_EQ(reproduce.output.find("filesystem"), std::string::npos) << reproduce.output;
}

TEST(ExitCodes, ReproduceReadsOnlyThePresetsAskedFor) {
  const std::string presets = fresh_dir("presets"), out = fresh_dir("out");
  fs::create_directories(presets);
  fs::copy_file(std::string(NWNSIM_SOURCE_DIR) + "/configs/paper/table2.toml", presets + "/table2.toml");
  std::ofstream(presets + "/broken.toml") << "title = = \"x\"\n";
  auto good = nwnsim("reproduce table2 --presets " + presets + " --out " + out);
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_TRUE(fs::exists(out + "/table2.json"));
  auto bad = nwnsim("reproduce broken --presets " + presets + " --out " + out);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find(presets + "/broken.toml:1"), std::string::npos) << bad.output;
}

// Lists: an empty list or an empty item is an exit-2 error naming the flag,
// the value and what is allowed; never the default silently.
struct BadList {
  const char* name;
  std::string args;
  std::vector<std::string> must_say;
};

void PrintTo(const BadList& c, std::ostream* os) { *os << c.args; }

class ListErrors : public ::testing::TestWithParam<BadList> {};

TEST_P(ListErrors, AreExitTwoNamingFlagValueAndAllowed) {
  auto r = nwnsim(GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("accepted"), std::string::npos) << "it simulated: " << r.output;
  for (auto& s : GetParam().must_say)
    EXPECT_NE(r.output.find(s), std::string::npos) << "no '" << s << "' in\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    All, ListErrors,
    ::testing::Values(
        BadList{"SweepEmptyLoads", "sweep " + kShort + "--loads ''",
                {"--loads ''", "an empty list", "FIRST:LAST:STEP"}},
        BadList{"SweepEmptyItem", "sweep " + kShort + "--loads 0.3,,0.6", {"--loads '0.3,,0.6'", "item 2 is empty"}},
        BadList{"SweepTrailingItem", "sweep " + kShort + "--vary router.vcs=2,4, --loads 0.3",
                {"--vary router.vcs '2,4,'", "item 3 is empty"}},
        BadList{"CompareEmptyOrgs", "compare --orgs ''", {"--orgs ''", "an empty list", "cn, fc"}},
        BadList{"CompareEmptyPatterns", "compare --patterns ''", {"--patterns ''", "an empty list", "uniform"}},
        BadList{"CompareEmptyItem", "compare --orgs cn,,fc", {"--orgs 'cn,,fc'", "item 2 is empty"}},
        BadList{"CompareReferenceNotCompared", "compare --orgs cn,fc --reference hc",
                {"--reference 'hc'", "not a compared organization", "cn,fc"}},
        BadList{"ComplexityEmptyItem", "complexity --radices 16,,36", {"--radices '16,,36'", "item 2 is empty"}},
        BadList{"ComplexityEmptyRadices", "complexity --radices ''", {"--radices ''", "an empty list"}},
        BadList{"ComplexityBadRadix", "complexity --radices 16,x", {"--radices '16,x'", "item 'x'", "from 2 to 4096"}},
        BadList{"TopoCaseEmptyItem", "topo analyze --case 'network.topology=fclos;;router.radix=8'",
                {"--case", "item 2 is empty"}}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nwn

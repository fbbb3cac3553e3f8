// Reproducers found by the fuzz campaign (scripts/fuzz, docs/RELIABILITY.md):
// each was accepted (exit 0), failed late (exit 1) or named the wrong thing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim_util.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;
using test::nwnsim;

// `command` on a tiny network and window.
std::string tiny(const std::string& command) {
  return command + " --set sim.warmup_cycles=20 --set sim.measure_cycles=100 --set router.radix=8 ";
}

struct Reproducer {
  const char* name;
  std::string args;
  std::vector<const char*> must_say;
};

void PrintTo(const Reproducer& c, std::ostream* os) { *os << c.args; }

class FuzzReproducers : public ::testing::TestWithParam<Reproducer> {};

TEST_P(FuzzReproducers, ExitTwoNamingTheInputAndWhatIsAllowed) {
  const Reproducer& c = GetParam();
  auto r = nwnsim(c.args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const char* s : c.must_say) EXPECT_NE(r.output.find(s), std::string::npos) << "missing '" << s << "' in:\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    All, FuzzReproducers,
    ::testing::Values(
        // double(9200000000000000001) == 9.2e18 passed the maximum.
        Reproducer{"IntegerJustAboveAMaximumBeyondDoublePrecision", "config --set sim.seed=9200000000000000001",
                   {"sim.seed", "'9200000000000000001'", "from 0 to 9.2e+18"}},
        // getline dropped the empty item after a trailing comma.
        Reproducer{"TrailingCommaInAnIntegerList", tiny("run") + "--set network.topology=mesh --set network.mesh.dims=2,2,",
                   {"network.mesh.dims", "'2,2,'", "comma-separated list of integers"}},
        // CLI::Range lets NaN through.
        Reproducer{"SaturationAcceptRatioNan", "saturation --accept-ratio nan", {"--accept-ratio", "nan", "0.5 to 1"}},
        Reproducer{"SaturationLowNan", "saturation --low nan", {"--low", "nan", "0 to 1"}},
        Reproducer{"SaturationToleranceNan", "saturation --tolerance nan", {"--tolerance", "nan"}},
        // (1 - 0) / 1e-300 points overflowed the count to a negative: nothing was run, exit 0.
        Reproducer{"SweepRangeWithATinyStep", tiny("sweep") + "--loads 0:1:1e-300", {"--loads", "0:1:1e-300", "100000"}},
        Reproducer{"SweepVaryWithATinyStep", tiny("sweep") + "--vary traffic.load=0:1:1e-300",
                   {"--vary traffic.load", "100000"}},
        // ceil(2 beta T / S) overflowed an int: a design "meeting" beta 1e20 with beta_actual 0.009.
        Reproducer{"HyperXSearchBetaAboveTheRadix", "topo search hyperx --beta 1e20 -R 64",
                   {"--beta", "'1e20'", "up to the radix R = 64"}},
        // --reference was read only with --radices.
        Reproducer{"ComplexityUnknownReference", "complexity --reference zz", {"--reference", "zz", "known:"}},
        Reproducer{"ComplexityEmptyReference", "complexity --reference ''", {"--reference"}},
        // The error said --set.
        Reproducer{"CaseErrorsNameCase", "topo analyze --set network.topology=torus --case bogus.key=1",
                   {"--case bogus.key=1", "unknown key 'bogus.key'"}},
        Reproducer{"CaseWithoutEquals", "topo analyze --set network.topology=torus --case network.topology",
                   {"--case 'network.topology'", "expected key=value"}},
        // CLI11 said only "A subcommand is required".
        Reproducer{"UnknownCommand", "bogus-command", {"unknown command 'bogus-command'", "run, sweep"}},
        Reproducer{"UnknownTopoCommand", "topo zz", {"nwnsim topo: unknown command 'zz'", "analyze, search"}},
        Reproducer{"UnknownSearchCommand", "topo search zz",
                   {"nwnsim topo search: unknown command 'zz'", "hyperx, slimfly, dragonfly"}}),
    [](const auto& info) { return std::string(info.param.name); });

// A name longer than the file system allows failed at the write (exit 1,
// after simulating for --json); now it is refused when the command line is parsed.
TEST(FuzzReproducers, OversizedOutputNameIsRefusedUpFront) {
  const std::string dir = test::temp_path("long");
  auto r = nwnsim(tiny("run") + "--quiet --json " + dir + "/" + std::string(300, 'x') + ".json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("a name of 305 bytes (at most 255)"), std::string::npos) << r.output;
  // A streamed output's temporary adds a suffix: a name that fits alone but not with it.
  r = nwnsim(tiny("run") + "--quiet --vcd " + dir + "/" + std::string(230, 'v'));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("a file name of 230 bytes (at most 215"), std::string::npos) << r.output;
  // A name that fits is written.
  r = nwnsim(tiny("run") + "--quiet --json " + dir + "/" + std::string(200, 'j'));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/" + std::string(200, 'j')));
}

// The VCD and the packet trace did not create missing parent directories
// (exit 1) although every other output does and the docs promise it.
TEST(FuzzReproducers, StreamedOutputsCreateMissingDirectories) {
  const std::string dir = test::temp_path("new");
  fs::remove_all(dir);
  auto r = nwnsim(tiny("run") + "--quiet --vcd " + dir + "/a/b/occ.vcd --trace-packets " + dir +
                  "/c/trace.txt --set sim.packet_trace_every=5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(fs::file_size(dir + "/a/b/occ.vcd"), 0u);
  EXPECT_GT(fs::file_size(dir + "/c/trace.txt"), 0u);
  r = nwnsim(tiny("run") + "--quiet --set sim.vcd_file=" + dir + "/d/occ.vcd");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/d/occ.vcd"));
}

}  // namespace
}  // namespace nwn

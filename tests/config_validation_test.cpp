// Bad configurations are refused up front: exit 2 and a message naming the
// key, the value and what is allowed; never a SystemC error dump, a wedged
// run or unbounded memory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim_util.hpp"

namespace nwn {
namespace {

using test::nwnsim;
using test::temp_path;

struct BadCase {
  const char* name;
  std::string args;
  std::vector<std::string> says;  // the key, the value, what is allowed
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadConfig : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadConfig, ExitsTwoNamingKeyValueAndWhatIsAllowed) {
  const BadCase& c = GetParam();
  const auto r = nwnsim(c.args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const std::string& s : c.says) EXPECT_NE(r.output.find(s), std::string::npos) << "'" << s << "' in:\n" << r.output;
  EXPECT_EQ(r.output.find("Error: (E"), std::string::npos) << r.output;  // no SystemC report
}

const char* kShort = " --set sim.warmup_cycles=20 --set sim.measure_cycles=50 --set sim.drain_cap_cycles=200";

INSTANTIATE_TEST_SUITE_P(
    Cases, BadConfig,
    ::testing::Values(
        // Organizations' and routings' VC needs, before any module is built.
        BadCase{"TrvTooFewVcs", "run --set router.org=trv --set router.radix=16 --set router.vcs=3",
                {"router.vcs = 3", "router.org = trv", "4 internal classes", "router.vcs >= 4"}},
        BadCase{"TrmTooFewVcs", "run --set router.org=trm --set router.radix=16 --set router.vcs=1",
                {"router.vcs = 1", "router.org = trm", "router.vcs >= 2"}},
        BadCase{"HxvTooFewVcs", "run --set router.org=hxv --set router.radix=27 --set router.vcs=1",
                {"router.vcs = 1", "router.org = hxv", "router.vcs >= 2"}},
        BadCase{"TorusOfTrmTwoVcs",
                "run --set network.topology=torus --set router.org=trm --set router.radix=16 --set router.vcs=2",
                {"router.vcs = 2", "network.routing = auto on torus", "router.org = trm", "router.vcs >= 2 x 2 = 4"}},
        BadCase{"HyperxValiantOfHxvThreeVcs",
                "run --set network.topology=hyperx --set network.hyperx_s=2,2 --set network.hyperx_t=4 "
                "--set router.radix=27 --set router.org=hxv --set network.routing=valiant --set router.vcs=3",
                {"router.vcs = 3", "network.routing = valiant", "router.org = hxv", "router.vcs >= 2 x 2 = 4"}},
        // Virtual cut-through: every buffer a packet enters holds it.
        BadCase{"WedgedSubswitch",
                std::string("run --set router.org=fc --set router.radix=16 --set router.subswitch_vc_depth_flits=4 "
                            "--set traffic.packet_flits=8") + kShort,
                {"traffic.packet_flits = 8", "router.subswitch_vc_depth_flits = 4",
                 "router.subswitch_vc_depth_flits >= 8"}},
        BadCase{"BimodalLargeOverPortBuffer",
                "run --set router.radix=16 --set traffic.size_mix=bimodal --set traffic.bimodal_large_flits=20",
                {"traffic.bimodal_large_flits = 20", "router.vc_depth_flits = 16", "router.vc_depth_flits >= 20"}},
        // Organization names, strictly, with ranges from the radix.
        BadCase{"FcTooManyTops", "run --set router.org=fc99 --set router.radix=16",
                {"router.org = 'fc99'", "router.radix = 16", "M = 99", "M from 1 to 8"}},
        BadCase{"FcSpeedupWithoutM", "run --set router.org=fc-isu2 --set router.radix=16",
                {"router.org = 'fc-isu2'", "malformed name", "fcM-isuS"}},
        BadCase{"CnWithDigits", "run --set router.org=cn5", {"router.org = 'cn5'", "allowed: cn"}},
        BadCase{"HcSubswitchRadixNotADivisor", "run --set router.org=hc --set router.radix=16 --set router.subswitch_radix=3",
                {"router.subswitch_radix = 3", "p = 3", "a divisor of 16"}},
        BadCase{"DescribeFc17", "describe --org fc17", {"--org fc17", "M = 17", "M from 1 to 16"}},
        BadCase{"DescribeSpeedup99", "describe --org fc6-isu99", {"--org fc6-isu99", "S = 99", "S from 1 to n + M = 10"}},
        BadCase{"DescribeNegativeSubswitchRadix", "describe --subswitch-radix -1", {"--subswitch-radix", "-1", "0 to 4096"}},
        BadCase{"DescribeBbOddRadix", "describe --org bb --radix 15", {"--org bb --radix 15", "k = 15", "r = 5"}},
        // Input speedup against the VCs, at config-check time.
        BadCase{"SpeedupOverVcs", "run --set router.input_speedup=5",
                {"router.input_speedup = 5", "router.vcs = 4", "from 1 to router.vcs = 4"}},
        BadCase{"IsuOverVcs", "run --set router.org=fc6-isu9",
                {"router.org = 'fc6-isu9'", "input speedup 9", "router.vcs = 4"}},
        // power.tech_file: the key, the path and the reason.
        BadCase{"TechFileDirectory", "run --set power.tech_file=/", {"power.tech_file = '/'", "is a directory"}},
        BadCase{"TechFileDevNull", "run --set power.tech_file=/dev/null",
                {"power.tech_file = '/dev/null'", "not a regular file"}},
        BadCase{"TechFileMissing", "run --set power.tech_file=/no/such/tech.toml",
                {"power.tech_file = '/no/such/tech.toml'", "No such file or directory"}},
        // complexity: radices parsed strictly and bounded.
        BadCase{"RadicesNotANumber", "complexity --radices a", {"--radices 'a'", "item 'a'", "from 2 to 4096"}},
        BadCase{"RadicesExponent", "complexity --radices 1e9", {"--radices '1e9'", "from 2 to 4096"}},
        BadCase{"RadicesNegative", "complexity --radices -16", {"--radices '-16'", "from 2 to 4096"}},
        BadCase{"RadicesHuge", "complexity --radices 16,1000000", {"item '1000000'", "from 2 to 4096"}},
        BadCase{"RadicesEmptyItem", "complexity --radices 16,", {"--radices '16,'", "is empty"}},
        BadCase{"ExplicitOrgThatCannotExist", "complexity --orgs hc,hxv --radix 16",
                {"--orgs hxv at radix 16", "cube radix"}},
        BadCase{"EmptyOrgs", "complexity --orgs ''", {"--orgs ''", "an empty list"}},
        // Routings a topology ignores; empty lists.
        BadCase{"RoutingOnSingleRouter", "run --set network.routing=valiant",
                {"network.routing = 'valiant'", "network.topology = single", "allowed: auto"}},
        BadCase{"EmptyBeta", "topo search hyperx --beta ''", {"--beta ''", "an empty list"}},
        BadCase{"BetaTrailingText", "topo search hyperx --beta 0.5abc", {"--beta '0.5abc'"}},
        // --set values parsed by type.
        BadCase{"SetIntHalf", "config --set router.vcs=2.5", {"router.vcs = '2.5'", "an integer from 1 to 64"}},
        BadCase{"SetIntWord", "config --set router.vcs=abc", {"router.vcs = 'abc'", "an integer from 1 to 64"}}));

// A TOML file whose one key has the wrong TOML type, or an unknown table.
struct TomlCase {
  const char* name;
  std::string toml;
  std::vector<std::string> says;
};

void PrintTo(const TomlCase& c, std::ostream* os) { *os << c.name; }

class BadToml : public ::testing::TestWithParam<TomlCase> {};

TEST_P(BadToml, ExitsTwoNamingKeyValueTypeAndExpectedType) {
  const TomlCase& c = GetParam();
  const std::string path = temp_path("bad.toml");
  std::ofstream(path) << c.toml;
  const auto r = nwnsim("config " + path);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const std::string& s : c.says) EXPECT_NE(r.output.find(s), std::string::npos) << "'" << s << "' in:\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadToml,
    ::testing::Values(
        TomlCase{"QuotedInt", "[router]\nvcs = \"2\"\n",
                 {"router.vcs = '2'", "a TOML string", "takes a TOML integer"}},
        TomlCase{"FloatForInt", "[router]\nvcs = 2.0\n", {"router.vcs = 2.0", "a TOML float", "takes a TOML integer"}},
        TomlCase{"QuotedFloat", "[traffic]\nload = \"0.5\"\n",
                 {"traffic.load = '0.5'", "a TOML string", "takes a TOML float or integer"}},
        TomlCase{"FloatSeed", "[sim]\nseed = 3.0\n", {"sim.seed = 3.0", "a TOML float", "takes a TOML integer"}},
        TomlCase{"QuotedBool", "[sim]\nheatmap = \"true\"\n",
                 {"sim.heatmap = 'true'", "a TOML string", "takes a TOML boolean"}},
        TomlCase{"ArrayForInt", "[router]\nvcs = [1, 2]\n", {"router.vcs = [", "a TOML array"}},
        TomlCase{"UnknownEmptyTable", "[traffic.x]\n", {"unknown table 'traffic.x'", "Keys in [traffic]"}},
        // A NUL in a value is shown escaped, and the message goes on after it.
        TomlCase{"NulInValue", "[router]\norg = \"a\\u0000b\"\n", {"router.org = 'a\\x00b'", "must be one of"}}));

TEST(ConfigValidation, ValidValuesStillLoad) {
  // An integer for a float key, a known table left empty, --set by type.
  const std::string path = temp_path("good.toml");
  std::ofstream(path) << "[traffic]\nload = 1\n\n[network.torus]\n";
  auto r = nwnsim("config " + path + " --set router.vcs=2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("load = 1\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("vcs = 2\n"), std::string::npos) << r.output;
}

TEST(ConfigValidation, JustEnoughVcsRun) {
  // The bounds the checks above enforce are the real ones: one VC fewer fails.
  auto r = nwnsim(std::string("run --quiet --set router.org=trm --set router.radix=16 --set router.vcs=2") + kShort);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = nwnsim(std::string("run --quiet --set network.topology=torus --set router.org=trm --set router.radix=16 "
                         "--set router.vcs=4") + kShort);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = nwnsim(std::string("run --quiet --set router.org=fc --set router.radix=16 --set router.subswitch_vc_depth_flits=8 "
                         "--set traffic.packet_flits=8") + kShort);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ConfigValidation, ComplexityByDefaultLeavesOutWhatCannotExist) {
  const auto r = nwnsim("complexity --radix 16");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("left out: organization hxv: radix 16 (allowed: a cube radix"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("trv"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nwn

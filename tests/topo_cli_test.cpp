// nwnsim topo analyze / search through the program: outputs, determinism,
// and exit code 2 with a clear message for parameters that make no topology.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim_util.hpp"

namespace nwn {
namespace {

using test::nwnsim;
using test::slurp;
using test::temp_path;

struct BadTopology {
  const char* args;
  std::vector<const char*> must_say;
};

void PrintTo(const BadTopology& c, std::ostream* os) { *os << c.args; }

class TopoCliErrors : public ::testing::TestWithParam<BadTopology> {};

TEST_P(TopoCliErrors, ExitTwoNamingTheFieldTheValueAndWhatIsAllowed) {
  const BadTopology& c = GetParam();
  const auto r = nwnsim(std::string("topo analyze ") + c.args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const char* s : c.must_say) EXPECT_NE(r.output.find(s), std::string::npos) << "missing '" << s << "' in:\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    TopoCli, TopoCliErrors,
    ::testing::Values(
        BadTopology{"--set network.topology=slimfly --set network.slimfly.q=6",
                    {"network.slimfly.q = 6", "prime power", "nearby: 5, 7"}},
        BadTopology{"--set network.topology=slimfly --set network.slimfly.q=1", {"network.slimfly.q", "from 3 to"}},
        BadTopology{"--set network.topology=oft --set network.oft.k=11", {"network.oft.k = 11", "nearby: 10, 12"}},
        BadTopology{"--set network.topology=dragonfly --set network.dragonfly.p=2 --set network.dragonfly.g=12",
                    {"network.dragonfly.g = 12", "at most a*h + 1 = 9"}},
        BadTopology{"--set network.topology=fattree --set network.fattree.radix=8 --set network.fattree.down=9",
                    {"network.fattree.down = 9", "allowed 1 .. 7"}},
        BadTopology{"--set network.topology=nesttree --set network.nesttree.u=3", {"network.nesttree.u = 3", "1, 2, 4, 8"}},
        BadTopology{"--set network.topology=nestghc --set network.nestghc.nodes=1004",
                    {"network.nestghc.nodes = 1004", "multiple of t^3 = 8", "nearby: 1000, 1008"}},
        BadTopology{"--set network.topology=nestghc --set network.nestghc.sizes=4,4",
                    {"network.nestghc.sizes = '4,4'", "must equal the 131072 uplinks"}},
        BadTopology{"--set network.topology=hyperx --set network.hyperx_s=8,8 --set router.radix=16",
                    {"router.radix = 16", "needs at least 22 ports"}},
        BadTopology{"--set network.slimfly.qq=5", {"unknown key 'network.slimfly.qq'", "network.slimfly.q"}},
        BadTopology{"--set network.topology=torus3", {"network.topology", "one of"}},
        BadTopology{"--bisection-method kl", {"--bisection-method", "kl", "fm,metis,best"}}));

TEST(TopoCli, AnalyzeWritesOneRowPerCaseAndIsDeterministic) {
  const std::string csv = temp_path("a.csv"), j1 = temp_path("a.json"), j2 = temp_path("b.json");
  const std::string args =
      "topo analyze --case 'network.topology=slimfly;network.slimfly.q=5' "
      "--case 'network.topology=dragonfly;network.dragonfly.p=2' --max-sources 40 ";
  const auto r = nwnsim(args + "--csv " + csv + " --json " + j1);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("slimfly q=5 p=4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sampled: BFS from"), std::string::npos) << r.output;
  ASSERT_EQ(nwnsim(args + "--json " + j2).exit_code, 0);
  EXPECT_EQ(test::without_provenance(j1), test::without_provenance(j2));
  const auto j = nlohmann::json::parse(slurp(j1));
  ASSERT_EQ(j["cases"].size(), 2u);
  EXPECT_EQ(j["cases"][0]["routers"], 50);
  EXPECT_EQ(j["cases"][1]["routers"], 36);
  EXPECT_EQ(j["cases"][1]["sampled"], false);
  std::istringstream in(slurp(csv));
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 1 + 3);  // the provenance comment, the header, two cases
}

TEST(TopoCli, AnalyzeReadsTomlSections) {
  const std::string toml = temp_path("sf.toml");
  std::ofstream(toml) << "[network]\ntopology = \"slimfly\"\n[network.slimfly]\nq = 7\np = 5\n";
  const auto r = nwnsim("topo analyze " + toml);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("slimfly q=7 p=5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exact: BFS from all 98 routers"), std::string::npos) << r.output;
}

TEST(TopoCli, SearchHyperXPrintsTable1) {
  const std::string csv = temp_path("hx.csv");
  const auto r = nwnsim("topo search hyperx -N 131072 -R 128 --beta 0.125,0.25,0.5,1 --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"(5, 19, 19)", "(3, 27, 30)", "(3, 35, 36)", "(5, 38, 38)", "2401", "10000"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << " missing in\n" << r.output;
  std::istringstream in(slurp(csv));
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 2 + 8);  // the provenance comment and the header
  EXPECT_EQ(nwnsim("topo search hyperx --beta fast").exit_code, 2);
}

TEST(TopoCli, SearchSlimFlyAndDragonflySizes) {
  const std::string json = temp_path("df.json");
  const auto df = nwnsim("topo search dragonfly --radix 27,43 --json " + json);
  ASSERT_EQ(df.exit_code, 0) << df.output;
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][1]["routers"], 5346);
  EXPECT_EQ(j["rows"][1]["endpoints"], 58806);
  const auto sf = nwnsim("topo search slimfly --radix 43");
  ASSERT_EQ(sf.exit_code, 0) << sf.output;
  EXPECT_NE(sf.output.find("10108"), std::string::npos) << sf.output;  // q = 19, p = 14: 722 x 14
  EXPECT_EQ(nwnsim("topo search slimfly --radix 1").exit_code, 2);
}

}  // namespace
}  // namespace nwn

// Switch organizations: Table II and Table I from the structural description,
// routing inside each organization, zero-load ordering, saturation soak,
// and the energy relations the paper reports (through nwnsim compare).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/organization.hpp"
#include "sim/config.hpp"
#include "sim/network.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::config;

Complexity of(const std::string& org, int radix) {
  OrganizationParams p;
  p.name = org;
  p.radix = radix;
  return complexity(make_organization(p).description);
}

struct Row {
  const char* org;
  int buffers, fanout;
  long crosspoints;
  double area;
};

// Table II (radix 64, n = 4, p = 8, r = 16). Where our structure and the
// paper disagree (cn crosspoints without U-turns, the torus and HyperX
// crosspoints) the value here is the structure's and docs/VALIDATION.md
// explains it; the paper's value is in the comment. fcM-isu2 as the default
// router.isu_reading (ports) builds it: the paper's figures.
TEST(TableII, FromTheStructuralDescription) {
  const Row rows[] = {
      {"cn", 0, 63, 4032, 4096},         // paper crosspoints 4,096 (counts U-turns)
      {"hc", 1024, 17, 4096, 33792},
      {"fc", 128, 26, 1664, 9216},
      {"fc5", 160, 27, 2032, 13680},
      {"fc6", 192, 28, 2400, 19008},
      {"fc5-isu2", 160, 35, 3376, 20496},
      {"fc6-isu2", 192, 36, 3872, 24640},
      {"trv", 512, 136, 4608, 11664},      // paper fanout 45 to 75, crosspoints 4,096
      {"hxv", 192, 75, 3840, 25600},       // paper crosspoints 3,600
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.org);
    const Complexity c = of(r.org, 64);
    EXPECT_EQ(c.subswitch_buffers, r.buffers);
    EXPECT_EQ(c.aggregate_fanout, r.fanout);
    EXPECT_EQ(c.crosspoints, r.crosspoints);
    EXPECT_DOUBLE_EQ(c.area_pitch2, r.area);
  }
}

// router.isu_reading = rows: every bottom input is two crossbar rows, the
// outputs single: per bottom 2 (n + m) x (n + m) crosspoints less the
// U-turns and up-to-up pairs, times 2; fanout 2 (n - 1 + m) + (r - 1) + 2n.
TEST(TableII, IsuReadAsRowsDoublesEveryBottomInput) {
  for (const Row& r : {Row{"fc5-isu2", 160, 39, 2864, 20496}, Row{"fc6-isu2", 192, 41, 3360, 24640}}) {
    SCOPED_TRACE(r.org);
    OrganizationParams p;
    p.name = r.org;
    p.radix = 64;
    p.isu_ports = false;
    const SwitchDescription d = make_organization(p).description;
    const Complexity c = complexity(d);
    EXPECT_EQ(c.subswitch_buffers, r.buffers);
    EXPECT_EQ(c.aggregate_fanout, r.fanout);
    EXPECT_EQ(c.crosspoints, r.crosspoints);
    EXPECT_DOUBLE_EQ(c.area_pitch2, r.area);
    EXPECT_EQ(d.subswitches[0].inputs, 4 + (r.buffers / 32)) << "n + m ports, each input two rows";
    EXPECT_EQ(d.subswitches[0].input_speedup, 2);
    EXPECT_TRUE(d.subswitches[0].copy_of.empty());
  }
}

// Table I's closed forms against the structure, p = sqrt(k), r = 2 sqrt(k).
TEST(TableI, ClosedFormsMatchTheStructure) {
  for (int k : {16, 36, 64, 144, 256}) {
    SCOPED_TRACE(k);
    const double s = std::sqrt(double(k)), p = s, r = 2 * s;
    const Complexity hc = of("hc", k);
    EXPECT_EQ(hc.subswitch_buffers, int(2 * k * k / p));
    EXPECT_EQ(hc.aggregate_fanout, int(k / p + p + 1));
    EXPECT_EQ(hc.crosspoints, long(k) * k);
    EXPECT_NEAR(hc.area_pitch2, k / p * (double(k) * k + 2 * p * p), 1e-6);
    if (k % int(r) == 0) {
      const Complexity fc = of("fc", k);
      EXPECT_EQ(fc.subswitch_buffers, 2 * k);
      EXPECT_EQ(fc.aggregate_fanout, int(3 * k / r + r - 2));
      EXPECT_NEAR(fc.area_pitch2, 1.5 * k * (4 * k / r + k + r), 1e-6);
      // The closed form counts every crosspoint; the structure leaves out
      // U-turns and up-to-up paths.
      EXPECT_LT(fc.crosspoints, long(r * k + 4.0 * k * k / r));
    }
    const Complexity tr = of("trv", k);
    if (int(s) % 4 == 0) {  // sqrt(k)/4 channels per link
      EXPECT_EQ(tr.subswitch_buffers, int(std::lround(k * s)));
    }
    EXPECT_NEAR(tr.area_pitch2, 2.25 * k * (s + 1) * (s + 1), 1e-6);
  }
  for (int k : {27, 64, 125, 216}) {
    SCOPED_TRACE(k);
    const double c = std::cbrt(double(k));
    const Complexity hx = of("hxv", k);
    EXPECT_EQ(hx.subswitch_buffers, int(std::lround(4 * std::pow(c, 2) * (c - 1))));
    EXPECT_EQ(hx.aggregate_fanout, int(std::lround(25 * (c - 1))));
    EXPECT_NEAR(hx.area_pitch2, std::pow(1.5 * (5 * c - 4) * c + k, 2), 1e-6);
  }
}

TEST(Organizations, BilateralButterflyIsSmallerThanFoldedClos) {
  for (int k : {32, 64}) {
    EXPECT_LT(of("bb", k).area_pitch2, 0.8 * of("fc", k).area_pitch2) << k;
    EXPECT_LT(of("bb", k).subswitch_buffers, of("fc", k).subswitch_buffers) << k;
  }
  // hx05 at radix 64: 8 % below fc (§5.4).
  EXPECT_NEAR(of("hx05", 64).area_pitch2 / of("fc", 64).area_pitch2, 0.92, 0.01);
}

TEST(Organizations, BadNamesAndRadicesAreClearErrors) {
  auto message = [](const std::string& org, int radix) {
    try {
      of(org, radix);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("fc6-isux", 64).find("fcM-isuS"), std::string::npos);
  EXPECT_NE(message("trv", 48).find("square radix"), std::string::npos);
  EXPECT_NE(message("hxv", 36).find("cube radix"), std::string::npos);
  EXPECT_NE(message("zz", 64).find("unknown switch organization"), std::string::npos);
  const auto r = test::nwnsim("run --set router.org=bb --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("network.topology = fclos"), std::string::npos) << r.output;
}

// The organizations declare their own keys (OrganizationRegistration): the
// schema lists them, organization_params reads them, a value out of the
// declared range and an undeclared key are errors.
TEST(Organizations, DeclaredKeysAreInTheSchemaAndRead) {
  for (const char* key : {"router.subswitch_radix", "router.subswitch_vc_depth_flits", "router.cn_crossbar_stages"}) {
    const KeySpec* k = find_key(key);
    ASSERT_NE(k, nullptr) << key;
    EXPECT_EQ(k->type, ValueType::Int) << key;
    EXPECT_FALSE(k->doc.empty()) << key;
  }
  // hc and fc both declare router.subswitch_radix; the schema joins their meanings.
  const std::string radix_doc = find_key("router.subswitch_radix")->doc;
  EXPECT_NE(radix_doc.find("hc:"), std::string::npos) << radix_doc;
  EXPECT_NE(radix_doc.find("fc, bb:"), std::string::npos) << radix_doc;

  OrganizationParams p;
  p.name = "hc";
  p.radix = 16;
  EXPECT_EQ(organization_key(p, "router.subswitch_radix"), 0);  // the declared default
  p.keys["router.subswitch_radix"] = 8;
  EXPECT_EQ(organization_key(p, "router.subswitch_radix"), 8);
  EXPECT_EQ(make_organization(p).description.subswitches.size(), std::size_t(16 + 4 + 16));  // k buses, (k/p)^2 crossbars, k muxes
  EXPECT_THROW(organization_key(p, "router.no_such_key"), std::logic_error);
  p.keys["router.subswitch_radix"] = -1;
  EXPECT_THROW(make_organization(p), std::invalid_argument);

  Config cfg;
  cfg.set("router.cn_crossbar_stages", "3", "test");
  EXPECT_EQ(organization_params(cfg, 16).keys.at("router.cn_crossbar_stages"), 3);
}

// The network an organization assumes is the organization's rule (its
// description), which the config check reads.
TEST(Organizations, BbNeedsATiedFoldedClos) {
  OrganizationParams p;
  p.name = "bb-isu2";
  p.radix = 64;
  const SwitchDescription bb = make_organization(p).description;
  EXPECT_EQ(bb.needs_topology, "fclos");
  EXPECT_EQ(bb.needs_port_assignment, "tied");
  p.name = "fc";
  EXPECT_TRUE(make_organization(p).description.needs_topology.empty());
  const auto r = test::nwnsim("run --set router.org=bb --set network.topology=fclos --set router.radix=8 "
                              "--set network.port_assignment=interleaved --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("network.port_assignment = tied: its up ports hang on the top subswitches"),
            std::string::npos)
      << r.output;
}

// Zero-load latency through each organization's pipeline (radix 64, uniform
// at 2 % load): measured once per organization in its own process.
double zero_load(const std::string& org, const std::string& extra = "router.cn_crossbar_stages=0") {
  const auto r = test::nwnsim("run --set router.org=" + org + " --set " + extra +
                              " --set traffic.load=0.02 --set sim.warmup_cycles=500 --set sim.measure_cycles=4000 "
                              "--quiet --json /dev/stdout");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output)["results"]["latency_avg"].get<double>();
}

TEST(Organizations, ZeroLoadLatencyOrdering) {
  const double cn = zero_load("cn"), hc = zero_load("hc"), fc = zero_load("fc"), hxm = zero_load("hxm"),
               trm = zero_load("trm"), trv = zero_load("trv");
  EXPECT_LT(cn, fc);
  EXPECT_LT(fc, hc);    // the paper: fc has lower zero-load latency than hc
  EXPECT_LT(hxm, fc);   // hxm lowest (but cn) on uniform traffic
  EXPECT_LT(trm, trv);  // Valiant doubles the hops
  // compare pipelines cn to hc's zero-load latency (10 stages at radix 64).
  EXPECT_NEAR(zero_load("cn", "router.cn_crossbar_stages=10"), hc, 0.5);
}

// Every organization at offered load 1.0 with the bimodal mix under
// transpose-random (CI: 10k cycles) or uniform (long: 100k cycles): no deadlock
// (the watchdog throws), flits conserved (run_network throws otherwise).
void soak(const char* org, const char* pattern, int cycles) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"traffic.load=1.0", "sim.warmup_cycles=1000", "traffic.size_mix=bimodal"});
  cfg.set("router.org", org, "test");
  cfg.set("traffic.pattern", pattern, "test");
  cfg.set("sim.measure_cycles", std::to_string(cycles), "test");
  RunResult r;
  ASSERT_NO_THROW(r = run_experiment(cfg));
  EXPECT_GT(r.accepted_load, 0.2);
}

class Soak : public ::testing::TestWithParam<const char*> {};
TEST_P(Soak, SaturatedWithoutDeadlock) { soak(GetParam(), "transpose_random", 10000); }
class LongSoak : public ::testing::TestWithParam<const char*> {};
TEST_P(LongSoak, HundredThousandCyclesAtFullLoad) {
  soak(GetParam(), "uniform", 100000);
}

const auto kAllOrgs = ::testing::Values("cn", "hc", "fc", "fc5", "fc6-isu2", "trv", "trm", "hxv", "hxm", "hx05", "hx10");

// Internal deadlock freedom, checked on the structure rather than hoped for
// from a soak: every route a head takes through the organization is a chain
// of (internal channel, VC) resources, and a packet holding one waits for any
// VC of the next; those waits must form no cycle (Dally and Seitz). Routes of
// every input to every output, several times over (Valiant and the choice
// among parallel channels are random).
class InternalRoutes : public ::testing::TestWithParam<const char*> {};
TEST_P(InternalRoutes, ChannelDependenciesFormNoCycle) {
  for (const int radix : {16, 36, 64, 144, 256}) {
    OrganizationParams p;
    p.name = GetParam();
    p.radix = radix;
    p.vcs = 4;
    Organization org;
    try {
      org = make_organization(p);
    } catch (const std::invalid_argument&) {
      continue;  // a radix this family is not built at
    }
    const SwitchDescription& d = org.description;
    const int V = p.vcs;
    std::map<std::pair<int, int>, int> channel_at;  // (subswitch, output port) -> internal channel
    for (std::size_t c = 0; c < d.channels.size(); ++c) channel_at[{d.channels[c].from_ss, d.channels[c].from_port}] = int(c);
    std::vector<std::set<int>> waits(d.channels.size() * std::size_t(V));
    for (int in = 0; in < radix; ++in)
      for (int out = 0; out < radix; ++out)
        for (int trial = 0; trial < 4; ++trial) {
          Flit head;
          head.head = true;
          head.router_out = out;
          head.router_vc_lo = 0;
          head.router_vc_hi = V - 1;
          int ss = d.inputs[std::size_t(in)].ss, port = d.inputs[std::size_t(in)].port;
          int held_lo = -1, held_hi = -1;  // resources of the previous hop
          for (int hop = 0;; ++hop) {
            ASSERT_LE(hop, d.max_subswitch_hops) << p.name << " " << radix << ": " << in << " -> " << out;
            const RouteDecision r = org.routing->route(ss, port, head);
            const auto ch = channel_at.find({ss, r.out_port});
            if (ch == channel_at.end()) {  // left the router: at the output asked for
              EXPECT_EQ(ss, d.outputs[std::size_t(out)].ss);
              EXPECT_EQ(r.out_port, d.outputs[std::size_t(out)].port);
              break;
            }
            const int lo = ch->second * V + r.vc_lo, hi = ch->second * V + r.vc_hi;
            for (int h = held_lo; h >= 0 && h <= held_hi; ++h)
              for (int w = lo; w <= hi; ++w) waits[std::size_t(h)].insert(w);
            held_lo = lo;
            held_hi = hi;
            head.vc = r.vc_lo;
            ss = d.channels[std::size_t(ch->second)].to_ss;
            port = d.channels[std::size_t(ch->second)].to_port;
          }
        }
    // Depth-first search for a cycle; the first one found is named.
    std::vector<int> state(waits.size(), 0);  // 0 new, 1 on the stack, 2 done
    std::vector<int> stack;
    int closing = -1;  // the resource the cycle returns to
    std::function<bool(int)> cyclic = [&](int r) {
      state[std::size_t(r)] = 1;
      stack.push_back(r);
      for (int w : waits[std::size_t(r)]) {
        if (state[std::size_t(w)] == 1) closing = w;
        if (closing >= 0 || (state[std::size_t(w)] == 0 && cyclic(w))) return true;
      }
      stack.pop_back();
      state[std::size_t(r)] = 2;
      return false;
    };
    for (int r = 0; r < int(waits.size()); ++r) {
      if (state[std::size_t(r)] != 0 || !cyclic(r)) continue;
      std::ostringstream os;
      for (auto x = std::find(stack.begin(), stack.end(), closing); x != stack.end(); ++x) {
        const ChannelSpec& c = d.channels[std::size_t(*x / V)];
        os << " " << d.subswitches[std::size_t(c.from_ss)].name << "." << c.from_port << "/vc" << *x % V;
      }
      ADD_FAILURE() << p.name << " radix " << radix << ": the waits close a cycle:" << os.str();
      break;
    }
  }
}
std::string org_test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}
INSTANTIATE_TEST_SUITE_P(Organizations, Soak, kAllOrgs, org_test_name);
INSTANTIATE_TEST_SUITE_P(Organizations, LongSoak, kAllOrgs, org_test_name);
INSTANTIATE_TEST_SUITE_P(Organizations, InternalRoutes, kAllOrgs, org_test_name);

double accepted(const std::string& org, const std::string& pattern) {
  const auto r = test::nwnsim("run --set router.org=" + org + " --set traffic.pattern=" + pattern +
                              " --set traffic.load=1.0 --set sim.warmup_cycles=1000 --set sim.measure_cycles=4000 "
                              "--quiet --json /dev/stdout");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output)["results"]["accepted_load"].get<double>();
}

// The saturation claims of §5.2 that hold with margin.
TEST(Organizations, SaturationOrderings) {
  // cn on UR is head-of-line limited: seeds 1 to 11 give 0.7261 to 0.7324
  // (mean 0.7293, standard deviation 0.0017; `run --set router.org=cn
  // --set traffic.load=1.0 --set sim.warmup_cycles=1000 --set
  // sim.measure_cycles=4000 --seeds 11`), so 0.008 is over four of them.
  // Outside it: a VC allocation a cycle slower (va 2: 0.713 to 0.718) and
  // another switch allocator (separable input-first: 0.746 to 0.750, higher:
  // iSLIP's one iteration matches less here). 2-cycle credits stay inside
  // (0.728 to 0.733: a crossbar's terminals never push back); the credit
  // rule tests catch those.
  const double cn_ur = accepted("cn", "uniform");
  EXPECT_NEAR(cn_ur, 0.729, 0.008);
  const double hc_ur = accepted("hc", "uniform");
  EXPECT_GT(hc_ur, 0.90);                       // hc near ideal on UR
  EXPECT_GT(accepted("hc", "bitcomp"), 0.90);   // and on BC
  EXPECT_LT(accepted("hc", "transpose_random"), hc_ur - 0.1);  // but head-of-line limited on TR
  EXPECT_GT(accepted("fc6-isu2", "uniform"), accepted("fc", "uniform") + 0.05);  // speedup helps
  EXPECT_GT(accepted("hxm", "uniform"), accepted("hxm", "transpose"));            // hxm early on adversarial
}

// nwnsim compare: the paper's robust energy relations at radix 64.
TEST(Organizations, CompareEnergyRelations) {
  const std::string path = testing::TempDir() + "nwnsim-compare-test.json";
  const auto r = test::nwnsim("compare --quick --orgs hc,fc,fc6-isu2 --patterns uniform,transpose_random --json " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  auto get = [&](const std::string& org, const std::string& pat, const char* what) {
    for (auto& p : j["points"])
      if (p["org"] == org && p["pattern"] == pat) {
        if (std::string(what) == "edp") return p["edp_pj_ns"].get<double>();
        return p["energy_per_packet"]["switch_pj"].get<double>();
      }
    ADD_FAILURE() << org << " " << pat << " missing";
    return 0.0;
  };
  EXPECT_LT(get("fc", "uniform", "energy"), 0.8 * get("hc", "uniform", "energy"));
  EXPECT_LT(get("fc", "transpose_random", "energy"), 0.8 * get("hc", "transpose_random", "energy"));
  EXPECT_LT(get("fc6-isu2", "transpose_random", "edp"), get("hc", "transpose_random", "edp"));
  EXPECT_LT(get("fc", "uniform", "edp"), get("hc", "uniform", "edp"));
}

}  // namespace
}  // namespace nwn

// docs/VALIDATION.md: the paper's figures that a structure reproduces.
#include <gtest/gtest.h>

#include "models/organization.hpp"
#include <nlohmann/json.hpp>

#include "sim_util.hpp"

namespace nwn {
namespace {

// fcM-isu2 read as in Table II: every router port of a bottom is two crossbar
// ports on both its input and its output side (a bottom of 2n + m ports,
// speedup 1), the up ports single. Built from fcM's description (the same
// tops and channels; the area is not compared: the floorplan rule of isuS
// already gives the paper's); fc's counting rule: no U-turn to the same
// crossbar port, nothing from a top goes up again.
SwitchDescription two_port_isu2(int m) {
  OrganizationParams p;
  p.name = "fc" + std::to_string(m);
  p.radix = 64;
  SwitchDescription d = make_organization(p).description;
  const int r = 16, n = 4;
  for (int b = 0; b < r; ++b) {
    SubswitchSpec& s = d.subswitches[std::size_t(b)];
    s.inputs = s.outputs = 2 * n + m;
    s.input_speedup = 1;
    s.connect.clear();
    for (int i = 0; i < 2 * n; ++i) s.forbid(i, i);
    for (int i = 2 * n; i < 2 * n + m; ++i)
      for (int o = 2 * n; o < 2 * n + m; ++o) s.forbid(i, o);
  }
  for (ChannelSpec& c : d.channels) {
    if (c.from_ss < r) c.from_port += n;  // up ports move past the second copies
    if (c.to_ss < r) c.to_port += n;
  }
  for (int b = 0; b < r; ++b)
    for (int i = 0; i < n; ++i) {
      d.inputs.push_back({b, n + i});  // the second copies are router ports too
      d.outputs.push_back({b, n + i});
    }
  return d;
}

// scripts/isu-reading counts the same pair by pair; the organization
// (router.isu_reading = ports, the default) builds the same bottoms, each
// router port with a copy on both sides, and gives the same figures.
TEST(TableII, IsuTwoReadAsTwoCrossbarPortsPerRouterPortGivesThePapersFigures) {
  struct Case {
    int m, buffers, fanout;
    long crosspoints;
  };
  for (const Case& c : {Case{5, 160, 35, 3376}, Case{6, 192, 36, 3872}}) {
    SCOPED_TRACE(c.m);
    const Complexity x = complexity(two_port_isu2(c.m));
    EXPECT_EQ(x.subswitch_buffers, c.buffers);
    EXPECT_EQ(x.aggregate_fanout, c.fanout);
    EXPECT_EQ(x.crosspoints, c.crosspoints);
    OrganizationParams p;
    p.name = "fc" + std::to_string(c.m) + "-isu2";
    p.radix = 64;
    const SwitchDescription d = make_organization(p).description;
    const Complexity o = complexity(d);
    EXPECT_EQ(o.subswitch_buffers, c.buffers);
    EXPECT_EQ(o.aggregate_fanout, c.fanout);
    EXPECT_EQ(o.crosspoints, c.crosspoints);
    const SubswitchSpec& bottom = d.subswitches[0];
    EXPECT_EQ(bottom.inputs, 2 * 4 + c.m);
    EXPECT_EQ(bottom.input_speedup, 1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(bottom.copy_of[std::size_t(4 + i)], i) << "port " << i << "'s copy";
  }
}

Complexity of(const std::string& org, int radix) {
  OrganizationParams p;
  p.name = org;
  p.radix = radix;
  return complexity(make_organization(p).description);
}

// The torus figures docs/VALIDATION.md sets against Table I's closed forms
// (k sqrt(k) buffers, k (2 sqrt(k) + 3k/4) crosspoints): equal buffers where
// sqrt(k)/4 channels per link can be built, 144 at radix 36 (one channel,
// not 1.5); trv's crosspoints above the closed form (Valiant turns back over
// another of the parallel channels), trm's below.
TEST(TableI, TorusFiguresOfTheStructure) {
  struct Case {
    int k, buffers;
    long trv_crosspoints, trm_crosspoints;
  };
  for (const Case& c : {Case{16, 64, 320, 256}, Case{36, 144, 720, 576}, Case{64, 512, 4608, 3072},
                        Case{144, 1728, 22464, 13824}, Case{256, 4096, 69632, 40960}}) {
    SCOPED_TRACE(c.k);
    const Complexity trv = of("trv", c.k), trm = of("trm", c.k);
    EXPECT_EQ(trv.subswitch_buffers, c.buffers);
    EXPECT_EQ(trm.subswitch_buffers, c.buffers);
    EXPECT_EQ(trv.crosspoints, c.trv_crosspoints);
    EXPECT_EQ(trm.crosspoints, c.trm_crosspoints);
  }
}

// network.credit_latency_cycles: 0 is the link latency (the same run, on
// 1-cycle and on 4-cycle links), and a longer credit loop throttles a VC
// whose buffer is shallower than the round trip (BookSim's credits take 2
// cycles on its 1-cycle links).
TEST(BookSimCompat, NetworkCreditLatency) {
  auto run = [](const std::string& credit, const std::string& link_latency = "1") {
    const std::string json = test::temp_path("credit" + credit + "-link" + link_latency + ".json");
    const test::CommandResult r = test::nwnsim(
        "run --quiet --set network.topology=fclos --set router.radix=4 --set network.fclos_levels=2 "
        "--set router.vcs=1 --set router.vc_depth_flits=2 --set flit.bits=64 --set network.link_latency_cycles=" +
        link_latency +
        " --set traffic.pattern=bitcomp --set traffic.load=1.0 --set sim.warmup_cycles=500 "
        "--set sim.measure_cycles=3000 --set sim.drain_cap_cycles=200 --set network.credit_latency_cycles=" +
        credit + " --json " + json);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(test::slurp(json))["results"];
  };
  const auto link = run("0"), same = run("1"), slow = run("8");
  EXPECT_EQ(link, same);
  EXPECT_LT(slow["accepted_load"].get<double>(), 0.8 * link["accepted_load"].get<double>()) << link["accepted_load"];
  // On 4-cycle links, 0 is 4, not 1: 1-cycle credits shorten the loop a 2-flit VC waits on.
  const auto link4 = run("0", "4"), same4 = run("4", "4"), fast4 = run("1", "4");
  EXPECT_EQ(link4, same4);
  EXPECT_GT(fast4["accepted_load"].get<double>(), 1.1 * link4["accepted_load"].get<double>())
      << link4["accepted_load"];
}

}  // namespace
}  // namespace nwn

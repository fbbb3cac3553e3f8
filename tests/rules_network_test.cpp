// Rules seen from whole runs: the credit loop of an injection channel, the
// latency percentiles a run reports, the power and area arithmetic of a
// network run and of `nwnsim compare`, and the committed config reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/organization.hpp"
#include "power/area.hpp"
#include "power/power_model.hpp"
#include "power/technology.hpp"
#include "sim/network.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::config;

struct CreditLoop {
  int channel, credit;
};
void PrintTo(const CreditLoop& c, std::ostream* os) { *os << "channel " << c.channel << ", credit " << c.credit; }

class CreditLatency : public ::testing::TestWithParam<CreditLoop> {};

// One VC of one flit per router input: a source may send its next flit only
// when the credit of the last is back. The flit reaches the buffer after the
// channel latency, routes (rc 1), gets its VC (va 1) and crosses, which
// sends the credit; the source reads it after the credit latency and sends
// at once. Every source sends one flit per channel + 2 + credit cycles, so
// the accepted load is exactly its inverse (a neighbour permutation: no
// output is shared). Over a 3000-cycle window a node's count is off by at
// most one flit: 1/3000 = 0.0003; a credit one cycle late or early moves the
// rate by 1/P - 1/(P+1) >= 0.02.
TEST_P(CreditLatency, OneSourceSendsOneFlitPerCreditRoundTrip) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const CreditLoop c = GetParam();
  Config cfg = config({"router.radix=8", "router.vcs=1", "router.vc_depth_flits=1", "traffic.packet_flits=1",
                       "flit.bits=64", "traffic.pattern=neighbor", "traffic.load=1.0", "sim.warmup_cycles=300",
                       "sim.measure_cycles=3000", "sim.drain_cap_cycles=0"});
  cfg.set("channel.latency_cycles", std::to_string(c.channel), "test");
  cfg.set("channel.credit_latency_cycles", std::to_string(c.credit), "test");
  const RunResult r = run_experiment(cfg);
  const double period = c.channel + 1 + 1 + c.credit;
  EXPECT_NEAR(r.accepted_load, 1.0 / period, 0.001);
  EXPECT_NEAR(r.accepted_min_node, 1.0 / period, 0.001);
}

INSTANTIATE_TEST_SUITE_P(Loops, CreditLatency,
                         ::testing::Values(CreditLoop{1, 1}, CreditLoop{1, 3}, CreditLoop{2, 5}),
                         [](const auto& info) {
                           return "channel" + std::to_string(info.param.channel) + "credit" +
                                  std::to_string(info.param.credit);
                         });

// p50, p99 and max of a run are those of the measured packets' latencies:
// collected here packet by packet and sorted.
TEST(LatencyStatistics, RunReportsThePercentilesOfTheMeasuredPackets) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"router.radix=16", "traffic.load=0.8", "traffic.size_mix=bimodal", "sim.warmup_cycles=300",
                       "sim.measure_cycles=2000"});
  auto net = make_network(cfg, clock_from(cfg));
  std::vector<std::uint64_t> lat;
  double net_sum = 0, hops_sum = 0;
  net->stats().on_packet = [&](const PacketExtension& p) {
    if (!p.measured) return;
    lat.push_back(p.delivered_cycle - p.created_cycle);
    net_sum += double(p.delivered_cycle - p.injected_cycle);
    hops_sum += p.hops;
  };
  const RunResult r = run_network(cfg, *net);
  ASSERT_GT(lat.size(), 500u);
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double q) { return lat[std::size_t(std::ceil(q * double(lat.size()))) - 1]; };
  EXPECT_EQ(r.packets_measured, lat.size());
  EXPECT_EQ(r.latency_p50, pct(0.5));
  EXPECT_EQ(r.latency_p99, pct(0.99));
  EXPECT_EQ(r.latency_max, lat.back());
  EXPECT_LT(r.latency_p50, r.latency_p99) << "a loaded router spreads the latencies";
  double sum = 0;
  for (auto v : lat) sum += double(v);
  EXPECT_DOUBLE_EQ(r.latency_avg, sum / double(lat.size()));
  EXPECT_DOUBLE_EQ(r.network_latency_avg, net_sum / double(lat.size()));
  EXPECT_DOUBLE_EQ(r.hops_avg, hops_sum / double(lat.size()));
  // The offered load is in flits per channel cycle: 128-bit flits take two
  // cycles of a 64-bit channel, so a node offers 0.4 flits a cycle. Over
  // 32,000 node-cycles of packets of 1 or 5 flits the sampled rate has a
  // standard deviation of 0.014 (0.774 measured): 0.05 is over three.
  EXPECT_NEAR(r.offered_load_measured, 0.8, 0.05);
}

// Saturated: a point whose marked packets all arrive (here after a long
// drain) but whose accepted load stays below what was offered.
TEST(Saturation, APointThatDrainsButAcceptsLessThanOfferedIsSaturated) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const RunResult r = run_experiment(config({"router.radix=16", "router.vcs=1", "router.va_cycles=0", "flit.bits=64",
                                             "traffic.load=1.0", "sim.warmup_cycles=200", "sim.measure_cycles=1000",
                                             "sim.drain_cap_cycles=100000"}));
  EXPECT_TRUE(r.drained);
  EXPECT_LT(r.accepted_load, 0.8);
  EXPECT_TRUE(r.saturated);
}

// 22 nm (power/tech/22nm.toml): 5 GHz; a channel pitch of 64 wires of 0.4 um.
constexpr double kClockGhz = 5.0;
constexpr double kPitchMm = 64 * 0.4e-3;

// A network run's power: the power model applied to the window's activity
// summed over the routers, with every ejected flit counted in and out once
// off-chip, divided by the window's time; area from the floorplan.
TEST(NetworkPower, IsTheModelAppliedToTheWindowActivity) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg = config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=2", "router.org=fc",
                       "traffic.load=0.4", "sim.warmup_cycles=300", "sim.measure_cycles=2000"});
  SwitchDescription d;
  std::size_t routers = 0;
  const RunResult r = run_experiment(cfg, nullptr, [&](const Network& net) {
    d = net.routers().front()->description();
    routers = net.routers().size();
  });
  ASSERT_EQ(routers, 8u);  // 4 leaves and 4 spines of radix 8 (16 nodes)
  const auto& p = r.power;
  ASSERT_TRUE(p.is_object());
  const EnergyBreakdown e = switch_energy(default_technology(), d, r.window_activity, r.window_cycles, 128,
                                          2 * r.window_flits_ejected, int(routers));
  const double ns = double(r.window_cycles) / kClockGhz;
  EXPECT_EQ(p["routers"].get<std::size_t>(), routers);
  EXPECT_DOUBLE_EQ(p["router_area_mm2"].get<double>(), switch_area_pitch2(d) * kPitchMm * kPitchMm);
  EXPECT_DOUBLE_EQ(p["total_area_mm2"].get<double>(), 8 * p["router_area_mm2"].get<double>());
  EXPECT_DOUBLE_EQ(p["switch_power_w"].get<double>(), e.switch_pj() / ns * 1e-3);
  EXPECT_DOUBLE_EQ(p["dynamic_power_w"].get<double>(), e.dynamic_pj() / ns * 1e-3);
  EXPECT_DOUBLE_EQ(p["static_power_w"].get<double>(), e.static_pj() / ns * 1e-3);
  EXPECT_DOUBLE_EQ(p["energy_per_packet_pj"].get<double>(), e.switch_pj() / double(r.window_packets_ejected));
  EXPECT_DOUBLE_EQ(p["window_energy"]["offchip_pj"].get<double>(), 2.0 * double(r.window_flits_ejected) * 128 * 1.0);
  EXPECT_DOUBLE_EQ(p["window_energy"]["switch_pj"].get<double>(), e.switch_pj());
  EXPECT_GT(e.dynamic_pj(), 0.0);
  EXPECT_GT(e.static_pj(), 0.0);
}

// nwnsim compare: energy per packet is the power model on the point's
// window activity over its packets; latency in ns at 5 GHz; EDP = E x
// latency; EDAP = EDP x area; every relative figure is the ratio to the
// reference organization's.
TEST(Compare, EnergyDelayAndAreaArithmetic) {
  const std::string path = test::temp_path("cmp.json");
  const auto r = test::nwnsim("compare --quick --orgs hc,fc --patterns uniform --set router.radix=16 --load 0.3 "
                              "--jobs 1 --json " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(test::slurp(path));
  ASSERT_EQ(j["points"].size(), 2u);
  const auto& ref = j["points"][0];
  ASSERT_EQ(ref["org"], "hc");
  for (const auto& p : j["points"]) {
    const std::string org = p["org"];
    SCOPED_TRACE(org);
    Config cfg = config({"router.radix=16", "router.cn_crossbar_stages=10"});
    cfg.set("router.org", org, "test");
    const SwitchDescription d = make_organization(organization_params(cfg, 16)).description;
    const auto& w = p["results"]["window_activity"];
    RouterActivity act;
    for (auto& s : w["subswitch_writes_reads_crossbar"])
      act.subswitches.push_back({s[0].get<std::uint64_t>(), s[1].get<std::uint64_t>(), s[2].get<std::uint64_t>()});
    act.channel_flits = w["channel_flits"].get<std::vector<std::uint64_t>>();
    const double packets = w["packets_ejected"].get<double>(), flits = w["flits_ejected"].get<double>();
    ASSERT_GT(packets, 100);
    const EnergyBreakdown e =
        switch_energy(default_technology(), d, act, w["window_cycles"].get<std::uint64_t>(), 128,
                      2 * w["flits_ejected"].get<std::uint64_t>());
    const double e_pkt = e.switch_pj() / packets;
    const double lat_cycles = p["results"]["latency_avg"].get<double>();
    const double area = switch_area_pitch2(d) * kPitchMm * kPitchMm;
    // Every part of the breakdown, off-chip (each flit in and out) included.
    const nlohmann::ordered_json parts = e.scaled(1.0 / packets).to_json();
    for (auto& [part, value] : parts.items())
      EXPECT_DOUBLE_EQ(p["energy_per_packet"][part].get<double>(), value.get<double>()) << part;
    EXPECT_DOUBLE_EQ(p["energy_per_packet"]["offchip_pj"].get<double>(), 2 * flits * 128 * 1.0 / packets);
    EXPECT_DOUBLE_EQ(p["energy_per_packet"]["switch_pj"].get<double>(), e_pkt);
    EXPECT_DOUBLE_EQ(p["latency_cycles"].get<double>(), lat_cycles);
    EXPECT_DOUBLE_EQ(p["latency_ns"].get<double>(), lat_cycles / kClockGhz);
    EXPECT_DOUBLE_EQ(p["area_pitch2"].get<double>(), switch_area_pitch2(d));
    EXPECT_DOUBLE_EQ(p["area_mm2"].get<double>(), area);
    EXPECT_DOUBLE_EQ(p["edp_pj_ns"].get<double>(), e_pkt * lat_cycles / kClockGhz);
    EXPECT_DOUBLE_EQ(p["edap_pj_ns_mm2"].get<double>(), e_pkt * lat_cycles / kClockGhz * area);
    EXPECT_DOUBLE_EQ(p["energy_per_bit_pj"].get<double>(), e_pkt / (128 * flits / packets));
    EXPECT_NEAR(p["power_w"].get<double>(),
                e.switch_pj() / (w["window_cycles"].get<double>() / kClockGhz) * 1e-3, 1e-12);
    EXPECT_DOUBLE_EQ(p["relative"]["area"].get<double>(), area / ref["area_mm2"].get<double>());
    EXPECT_DOUBLE_EQ(p["relative"]["energy"].get<double>(),
                     e_pkt / ref["energy_per_packet"]["switch_pj"].get<double>());
    EXPECT_DOUBLE_EQ(p["relative"]["edp"].get<double>(), p["edp_pj_ns"].get<double>() / ref["edp_pj_ns"].get<double>());
    EXPECT_DOUBLE_EQ(p["relative"]["edap"].get<double>(),
                     p["edap_pj_ns_mm2"].get<double>() / ref["edap_pj_ns_mm2"].get<double>());
  }
  EXPECT_DOUBLE_EQ(ref["relative"]["edp"].get<double>(), 1.0);
}

// docs/CONFIG.md is generated by `nwnsim config --markdown`: the committed
// page is what the schema says.
TEST(ConfigDoc, CommittedPageIsTheGeneratedOne) {
  const auto r = test::nwnsim("config --markdown");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, test::slurp(std::string(NWNSIM_SOURCE_DIR) + "/docs/CONFIG.md"))
      << "regenerate: build/ci/nwnsim config --markdown > docs/CONFIG.md";
}

}  // namespace
}  // namespace nwn

// The power model: technology files, and energy arithmetic on known activity.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "power/power_model.hpp"
#include "power/technology.hpp"
#include "sim/config.hpp"

namespace nwn {
namespace {

std::string shipped_tech_text() {
  std::ifstream in(std::string(NWNSIM_SOURCE_DIR) + "/power/tech/22nm.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Technology, ShippedFileEqualsBuiltInConstants) {
  const Technology f = parse_technology(shipped_tech_text(), "22nm.toml");
  const Technology d = default_technology();
  EXPECT_EQ(f.clock_ghz, d.clock_ghz);
  EXPECT_EQ(f.channel_width_bits, d.channel_width_bits);
  EXPECT_EQ(f.wire_fj_per_bit_per_cycle_distance, 240.0);
  EXPECT_EQ(f.buffer_fj_per_bit, 7.0);
  EXPECT_EQ(f.crossbar_fj_per_bit_per_radix, 30.0);
  EXPECT_EQ(f.offchip_fj_per_bit, 1000.0);
  EXPECT_EQ(f.static_wire_fj_per_cycle_per_cycle_distance, 20.0);
  EXPECT_EQ(f.static_crosspoint_fj_per_radix_per_cycle, 4.0);
  EXPECT_EQ(f.input_port_buffer_mw, 11.2);
  EXPECT_EQ(f.subswitch_buffer_mw, 0.7);
  EXPECT_EQ(f.static_wires_per_bit, d.static_wires_per_bit);
  EXPECT_EQ(f.static_crosspoints_per_bit, d.static_crosspoints_per_bit);
  EXPECT_EQ(f.cycle_distance_mm, d.cycle_distance_mm);
  EXPECT_EQ(f.wire_pitch_um, d.wire_pitch_um);
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

TEST(Technology, BadOrIncompleteFilesAreClearErrors) {
  const std::string good = shipped_tech_text();
  auto message = [](const std::string& text) {
    try {
      parse_technology(text, "my.toml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string m = message(replace(good, "buffer_fj_per_bit = 7.0", ""));
  EXPECT_NE(m.find("dynamic.buffer_fj_per_bit is missing"), std::string::npos) << m;
  m = message(replace(good, "buffer_fj_per_bit = 7.0", "buffer_fj_per_bit = -7.0"));
  EXPECT_NE(m.find("dynamic.buffer_fj_per_bit"), std::string::npos) << m;
  EXPECT_NE(m.find("must be a number from 0"), std::string::npos) << m;
  m = message(replace(good, "buffer_fj_per_bit = 7.0", "buffer_fj_per_bit = 7.0\nbufer_fj = 1"));
  EXPECT_NE(m.find("dynamic.bufer_fj is not a technology key"), std::string::npos) << m;
  m = message(replace(good, "wires_per_bit = true", "wires_per_bit = 1"));
  EXPECT_NE(m.find("true or false"), std::string::npos) << m;
  m = message("clock_ghz = [");
  EXPECT_NE(m.find("my.toml:1"), std::string::npos) << m;
}

SwitchDescription two_stage() {
  SwitchDescription d;
  d.org = "test";
  d.radix = 2;
  SubswitchSpec a;
  a.name = "a";
  a.inputs = 2;
  a.outputs = 2;
  a.port_buffers = true;
  SubswitchSpec b = a;
  b.name = "b";
  b.port_buffers = false;
  b.input_speedup = 2;
  b.outputs = 3;
  d.subswitches = {a, b};
  d.channels = {{0, 0, 1, 0, 2, 5.0}, {0, 1, 1, 1, 2, 2.5}};
  d.inputs = {{0, 0}, {0, 1}};  // a's inputs are the router ports: port buffers
  return d;
}

TEST(PowerModel, DynamicEnergyIsActivityTimesConstants) {
  const Technology t = default_technology();
  const SwitchDescription d = two_stage();
  RouterActivity act;
  act.subswitches = {{10, 10, 10}, {4, 6, 6}};
  act.channel_flits = {3, 7};
  const EnergyBreakdown e = switch_energy(t, d, act, 0, 128, 20);
  EXPECT_DOUBLE_EQ(e.buffers_pj, (20 + 10) * 128 * 7.0 * 1e-3);
  // crossbar radix: a is 2 (2x2), b is 4 (2 inputs x speedup 2 vs 3 outputs)
  EXPECT_DOUBLE_EQ(e.crossbars_pj, (10 * 2 + 6 * 4) * 128 * 30.0 * 1e-3);
  EXPECT_DOUBLE_EQ(e.wires_pj, (3 * 2.0 + 7 * 1.0) * 128 * 240.0 * 1e-3);
  EXPECT_DOUBLE_EQ(e.offchip_pj, 20 * 128 * 1.0);
  EXPECT_DOUBLE_EQ(e.static_pj(), 0.0);  // zero cycles
}

TEST(PowerModel, StaticEnergyScalesWithTimeAndStructure) {
  Technology t = default_technology();
  const SwitchDescription d = two_stage();
  RouterActivity idle;
  idle.subswitches = {{0, 0, 0}, {0, 0, 0}};
  idle.channel_flits = {0, 0};
  t.static_wires_per_bit = t.static_crosspoints_per_bit = false;
  const EnergyBreakdown e = switch_energy(t, d, idle, 5000, 128, 0);  // 1 us at 5 GHz
  EXPECT_DOUBLE_EQ(e.dynamic_pj(), 0.0);
  EXPECT_NEAR(e.static_buffers_pj, (2 * 11.2 + 2 * 0.7) * 1e-3 * 1e-6 * 1e12, 1e-6);
  // crosspoints x radix: a 2*2*2 = 8, b (2*2)*3*4 = 48
  EXPECT_NEAR(e.static_crosspoints_pj, 5000 * 56 * 4.0 * 1e-3, 1e-6);
  EXPECT_NEAR(e.static_wires_pj, 5000 * 3.0 * 20.0 * 1e-3, 1e-6);
  t.static_wires_per_bit = t.static_crosspoints_per_bit = true;
  const EnergyBreakdown b = switch_energy(t, d, idle, 5000, 128, 0);
  EXPECT_NEAR(b.static_wires_pj, 64 * e.static_wires_pj, 1e-6);
  EXPECT_NEAR(b.static_crosspoints_pj, 64 * e.static_crosspoints_pj, 1e-6);
  EXPECT_NEAR(b.static_buffers_pj, e.static_buffers_pj, 1e-9);
}

// A network's routers: the activity is already summed over them, the static
// energy is per router and scales with their number.
TEST(PowerModel, StaticEnergyScalesWithTheRouterCount) {
  const Technology t = default_technology();
  const SwitchDescription d = two_stage();
  RouterActivity act;
  act.subswitches = {{10, 10, 10}, {4, 6, 6}};
  act.channel_flits = {3, 7};
  const EnergyBreakdown one = switch_energy(t, d, act, 5000, 128, 20, 1);
  const EnergyBreakdown three = switch_energy(t, d, act, 5000, 128, 20, 3);
  EXPECT_DOUBLE_EQ(three.dynamic_pj(), one.dynamic_pj());
  EXPECT_DOUBLE_EQ(three.offchip_pj, one.offchip_pj);
  EXPECT_DOUBLE_EQ(three.static_buffers_pj, 3 * one.static_buffers_pj);
  EXPECT_DOUBLE_EQ(three.static_crosspoints_pj, 3 * one.static_crosspoints_pj);
  EXPECT_DOUBLE_EQ(three.static_wires_pj, 3 * one.static_wires_pj);
  EXPECT_GT(one.static_pj(), 0.0);
}

TEST(PowerModel, ActivityMustMatchTheOrganization) {
  RouterActivity wrong;
  wrong.subswitches = {{1, 1, 1}};
  EXPECT_THROW(switch_energy(default_technology(), two_stage(), wrong, 1, 128, 0), std::logic_error);
}

}  // namespace
}  // namespace nwn

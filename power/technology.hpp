// A technology description: the energy and power constants of the power
// model, each with its unit, loaded from a TOML file (power/tech/22nm.toml).
#pragma once
#include <string>

namespace nwn {

struct Technology {
  std::string name;
  double clock_ghz = 5.0;
  int channel_width_bits = 64;
  double wire_pitch_um = 0.4;
  double cycle_distance_mm = 2.5;
  // dynamic
  double wire_fj_per_bit_per_cycle_distance = 240;
  double buffer_fj_per_bit = 7;
  double crossbar_fj_per_bit_per_radix = 30;
  double offchip_fj_per_bit = 1000;
  // static
  double static_wire_fj_per_cycle_per_cycle_distance = 20;
  double static_crosspoint_fj_per_radix_per_cycle = 4;
  double input_port_buffer_mw = 11.2;
  double subswitch_buffer_mw = 0.7;
  // The paper does not say whether a static "wire" or "crosspoint" is one
  // bit or a whole channel; each reading is a switch (docs/POWER.md).
  bool static_wires_per_bit = true;
  bool static_crosspoints_per_bit = false;

  // Channel pitch in mm: one channel's wires side by side.
  double channel_pitch_mm() const { return channel_width_bits * wire_pitch_um * 1e-3; }
};

// The paper's 22 nm constants (the same as power/tech/22nm.toml).
Technology default_technology();
// Reads a technology file. Every key is required and no other is allowed;
// errors (ConfigError) name the file (and `key`, the setting that named it,
// e.g. power.tech_file), the key, the value and what is allowed.
Technology load_technology(const std::string& path, const std::string& key = "");
Technology parse_technology(const std::string& toml_text, const std::string& origin);

}  // namespace nwn

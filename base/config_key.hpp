// The ground floor of the config schema: what a config key is (KeySpec),
// and the registry through which a component declares its own keys where it
// is defined, so that the schema (sim/config.hpp), `--help`, the error
// messages and docs/CONFIG.md list them without the schema naming them.
// The graph topologies declare network.<name>.<param> (sim/topo/graph.hpp);
// the organizations their router.* keys (models/organization.hpp).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "registry.hpp"

namespace nwn {

enum class ValueType { Int, Float, Bool, String };

struct KeySpec {
  std::string key;  // section.name
  ValueType type;
  std::string default_value;
  double min = -1e300, max = 1e300;
  std::function<std::vector<std::string>()> choices;  // for enumerated strings
  std::string unit;
  std::string doc;
};

// Declared keys by owner (kind "config keys"); they join the schema after
// its table, owner by owner in name order, each after the last key of its
// section. An owner with a dot in its name is a section ("network.dragonfly":
// its keys start with "network.dragonfly."). A key several owners declare
// (router.subswitch_radix: hc's p, fc's r) must agree in all but its
// meaning; the schema joins their meanings.
inline Registry<std::vector<KeySpec>>& config_key_registry() {
  static Registry<std::vector<KeySpec>> registry("config keys");
  return registry;
}

struct ConfigKeyRegistration {
  ConfigKeyRegistration(const std::string& owner, std::vector<KeySpec> keys) {
    config_key_registry().add(owner, std::move(keys));
  }
};

}  // namespace nwn

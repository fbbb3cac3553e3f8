// The configuration schema: every key, its type, default, range, unit and
// meaning, in one table. The TOML loader, --set overrides, `nwnsim config
// --keys`, the error messages and docs/CONFIG.md all read it. An unknown key
// or an out-of-range value is an error that names the key, the value, where
// it came from and what is allowed.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../base/config_key.hpp"
#include "../base/error.hpp"
#include "../base/registry.hpp"

namespace nwn {

// ConfigError and printable() live on the ground floor (base/error.hpp);
// included here so every user of the config has them.

// ValueType, KeySpec and config_key_registry() (the keys components declare
// themselves) live on the ground floor too (base/config_key.hpp).

const std::vector<KeySpec>& config_schema();
const KeySpec* find_key(const std::string& key);
// Whether `key`'s value names a file: one read (traffic.trace_file,
// power.tech_file) or written (the debug outputs). A relative name is
// relative to the working directory, but traffic.trace_file in a config file
// is relative to that file (Config::load_file).
bool is_file_key(const std::string& key);

class Config {
 public:
  Config();  // every key at its default

  void load_file(const std::string& path);
  void load_string(const std::string& toml_text, const std::string& origin);
  // "key=value" from the command line; errors name `flag` (--set, --case).
  void set_override(const std::string& assignment, const std::string& flag = "--set");
  void set(const std::string& key, const std::string& value, const std::string& origin);

  std::int64_t get_int(const std::string& key) const;
  double get_float(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;
  // The value as text, in the form `set` accepts.
  std::string text(const std::string& key) const;

  std::string to_toml() const;
  nlohmann::ordered_json to_json() const;

 private:
  struct Value {
    std::int64_t i = 0;
    double f = 0;
    bool b = false;
    std::string s;
  };
  const Value& value(const std::string& key, ValueType want) const;
  std::map<std::string, Value> values_;
};

// The checks across keys that need no network built, run by make_network
// before any module exists: network.routing against network.topology; the
// organization router.org at router.radix (its name and parameters, the VCs
// its internal routing needs, its input speedup against router.vcs); with
// virtual cut-through, the largest synthetic packet against every VC buffer
// it may enter; power.tech_file. Throws ConfigError naming the keys, their
// values and what is allowed.
void check_config(const Config& cfg);
// router.vcs against the global routing's VC classes (`classes` ranges of
// router.vcs / classes VCs; `routing` says which routing) times the classes
// the organization splits each range into. Topologies whose routing splits
// the VCs call it before they build anything.
void check_route_vcs(const Config& cfg, int classes, const std::string& routing);
// In a network of routers: an organization whose internal routing mixes
// the global hops (SwitchDescription::mixes_hops) with a routing whose
// classes do not rise on every hop (`hop_indexed` false), or without
// network.eject_vcs, is a ConfigError naming router.org, the routing
// (`routing` says which) and, asked only then, `allowed()`: the topology's
// routings that are hop-indexed.
void check_hop_classes(const Config& cfg, bool hop_indexed, const std::string& routing,
                       const std::function<std::vector<std::string>()>& allowed);
// An embedding's message classes (traffic.source = external): 2 with
// embed.protocol = request_response, whose requests and responses take half
// of router.vcs each (the routing and the organization see that half), else 1.
int message_classes(const Config& cfg);
// Flits per VC a terminal's network interface holds for an embedding's
// target before it returns credits; 0: a standalone terminal always accepts.
int eject_buffer_flits(const Config& cfg);
// Virtual cut-through: the smallest VC buffer a packet may have to enter
// whole (a router input port, a subswitch buffer of router.org, an
// embedding's ejection buffer), and the key that sets it.
struct SmallestBuffer {
  int flits = 0;
  std::string key;
};
SmallestBuffer smallest_vc_buffer(const Config& cfg);

struct OrganizationParams;
// The organization parameters of a router of the given radix, from the
// router.* keys (one place for the simulator, compare and describe).
OrganizationParams organization_params(const Config& cfg, int radix);

// Markdown table of every key (docs/CONFIG.md is generated from this).
std::string schema_markdown();

// "a,b,c" -> {"a", "b", "c"}. An empty list or an empty item ("16,,36",
// "a,") is a ConfigError naming `what` (the flag or key), the text and what
// is allowed (`allowed`, e.g. the choices, if given).
std::vector<std::string> split_list(const std::string& text, const std::string& what, char sep = ',',
                                    const std::string& allowed = "");
// The value of string key `key` as a comma-separated list of integers in
// [min, max] ("8,8,8"); anything else is a ConfigError naming the key, the
// value and what is allowed (`meaning` says what the numbers are).
std::vector<std::int64_t> int_list(const Config& cfg, const std::string& key, std::int64_t min, std::int64_t max,
                                   const std::string& meaning);

}  // namespace nwn

#include "technology.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "../base/error.hpp"

namespace nwn {

Technology default_technology() {
  Technology t;
  t.name = "22nm PTM (built in)";
  return t;
}

Technology parse_technology(const std::string& text, const std::string& origin) {
  toml::table tbl;
  try {
    tbl = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << "technology error: " << origin << ":" << e.source().begin.line << ": " << e.description();
    throw ConfigError(os.str());
  }
  Technology t;
  struct Num {
    double* target;
    double min, max;
  };
  const std::map<std::string, Num> numbers = {
      {"clock_ghz", {&t.clock_ghz, 1e-3, 1e3}},
      {"wire_pitch_um", {&t.wire_pitch_um, 1e-4, 1e3}},
      {"cycle_distance_mm", {&t.cycle_distance_mm, 1e-6, 1e4}},
      {"dynamic.wire_fj_per_bit_per_cycle_distance", {&t.wire_fj_per_bit_per_cycle_distance, 0, 1e9}},
      {"dynamic.buffer_fj_per_bit", {&t.buffer_fj_per_bit, 0, 1e9}},
      {"dynamic.crossbar_fj_per_bit_per_radix", {&t.crossbar_fj_per_bit_per_radix, 0, 1e9}},
      {"dynamic.offchip_fj_per_bit", {&t.offchip_fj_per_bit, 0, 1e9}},
      {"static.wire_fj_per_cycle_per_cycle_distance", {&t.static_wire_fj_per_cycle_per_cycle_distance, 0, 1e9}},
      {"static.crosspoint_fj_per_radix_per_cycle", {&t.static_crosspoint_fj_per_radix_per_cycle, 0, 1e9}},
      {"static.input_port_buffer_mw", {&t.input_port_buffer_mw, 0, 1e9}},
      {"static.subswitch_buffer_mw", {&t.subswitch_buffer_mw, 0, 1e9}},
  };
  std::set<std::string> seen;
  auto err = [&](const std::string& key, const std::string& what) {
    return ConfigError("technology error: " + origin + ": " + key + " " + what);
  };
  std::function<void(const toml::table&, const std::string&)> walk = [&](const toml::table& tb, const std::string& pre) {
    for (auto&& [k, node] : tb) {
      const std::string key = pre.empty() ? std::string(k.str()) : pre + "." + std::string(k.str());
      if (auto sub = node.as_table()) {
        walk(*sub, key);
        continue;
      }
      seen.insert(key);
      if (key == "name") {
        if (!node.is_string()) throw err(key, "must be a string");
        t.name = node.as_string()->get();
      } else if (key == "channel_width_bits") {
        auto v = node.value<std::int64_t>();
        if (!v || *v < 1 || *v > 65536) throw err(key, "must be an integer from 1 to 65536");
        t.channel_width_bits = int(*v);
      } else if (key == "static.wires_per_bit" || key == "static.crosspoints_per_bit") {
        if (!node.is_boolean()) throw err(key, "must be true or false");
        (key == "static.wires_per_bit" ? t.static_wires_per_bit : t.static_crosspoints_per_bit) =
            node.as_boolean()->get();
      } else if (auto it = numbers.find(key); it != numbers.end()) {
        auto v = node.value<double>();
        if (!v || *v < it->second.min || *v > it->second.max) {
          std::ostringstream os;
          os << "= " << (v ? std::to_string(*v) : std::string("(not a number)")) << ": must be a number from "
             << it->second.min << " to " << it->second.max;
          throw err(key, os.str());
        }
        *it->second.target = *v;
      } else {
        throw err(key, "is not a technology key");
      }
    }
  };
  walk(tbl, "");
  std::vector<std::string> required = {"name", "channel_width_bits", "static.wires_per_bit", "static.crosspoints_per_bit"};
  for (auto& [k, v] : numbers) required.push_back(k);
  for (auto& k : required)
    if (!seen.count(k)) throw err(k, "is missing (every key of power/tech/22nm.toml is required)");
  return t;
}

Technology load_technology(const std::string& path, const std::string& key) {
  const std::string origin = key.empty() ? path : key + " = '" + path + "'";
  const auto fail = [&](const std::string& what) {
    return ConfigError("technology error: " + origin + ": " + what +
                       " (allowed: a technology TOML file, e.g. power/tech/22nm.toml)");
  };
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::directory) throw fail("is a directory");
  if (st.type() != std::filesystem::file_type::not_found && st.type() != std::filesystem::file_type::regular &&
      !ec)
    throw fail("is not a regular file");
  errno = 0;
  std::ifstream in(path);
  if (!in) throw fail(std::string("cannot read it: ") + (errno ? std::strerror(errno) : "cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().empty()) throw fail("is empty");
  return parse_technology(ss.str(), origin);
}

}  // namespace nwn

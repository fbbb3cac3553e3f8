#include "columns.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "config.hpp"
#include "run_result.hpp"
#include "seeds.hpp"

namespace nwn {

using json = nlohmann::ordered_json;

namespace {

enum class Fmt { F3, F2, F1, Int, G4, YesNo };

struct Summary {
  const char* name;
  const char* field;
  Fmt fmt;
};

// The summary columns; the first ten are the default table.
const std::vector<Summary>& summary_columns() {
  static const std::vector<Summary> s = {
      {"offered", "offered_load_measured", Fmt::F3},
      {"accepted", "accepted_load", Fmt::F3},
      {"min-node", "accepted_min_node", Fmt::F3},
      {"lat-avg", "latency_avg", Fmt::F1},
      {"p50", "latency_p50", Fmt::Int},
      {"p99", "latency_p99", Fmt::Int},
      {"max", "latency_max", Fmt::Int},
      {"net-lat", "network_latency_avg", Fmt::F1},
      {"hops", "hops_avg", Fmt::F2},
      {"saturated", "saturated", Fmt::YesNo},
      {"completion", "completion_cycles", Fmt::Int},
      {"packets", "packets_measured", Fmt::Int},
      {"fair-src", "fairness.by_source.jain_index", Fmt::F3},
      {"fair-dst", "fairness.by_destination.jain_index", Fmt::F3},
      {"power-w", "power.switch_power_w", Fmt::G4},
      {"warmup-ok", "warmup_check.converged", Fmt::YesNo},
      {"util-avg", "utilization.router_port_avg", Fmt::F3},
      {"util-max", "utilization.router_port_max", Fmt::F3},
  };
  return s;
}
constexpr std::size_t kDefaultColumns = 10;

const Summary* summary(const std::string& name) {
  for (auto& s : summary_columns())
    if (name == s.name) return &s;
  return nullptr;
}

// The results fields a path may start with: every field of a run's results,
// those only some runs have included.
std::vector<std::string> result_fields() {
  std::vector<std::string> out;
  const json run = RunResult{}.to_json();
  for (auto& [k, v] : run.items()) out.push_back(k);
  for (const char* k : {"power", "heatmap", "latency_histogram", "fairness", "classes", "size_classes", "time_series", "warmup_check",
                        "utilization", "confidence"})
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  return out;
}

// The value at a dotted path ("fairness.by_source.jain_index", "classes.0.latency_avg"), or null.
const json* value_at(const json& results, const std::string& path) {
  const json* at = &results;
  std::size_t begin = 0;
  while (at && begin <= path.size()) {
    const std::size_t end = std::min(path.find('.', begin), path.size());
    const std::string part = path.substr(begin, end - begin);
    if (at->is_object()) {
      at = at->contains(part) ? &(*at)[part] : nullptr;
    } else if (at->is_array() && !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit)) {
      const std::size_t i = std::stoul(part);
      at = i < at->size() ? &(*at)[i] : nullptr;
    } else {
      at = nullptr;
    }
    begin = end + 1;
  }
  return at;
}

std::string number(double x, Fmt f) {
  switch (f) {
    case Fmt::F3: return fmt::format("{:.3f}", x);
    case Fmt::F2: return fmt::format("{:.2f}", x);
    case Fmt::F1: return fmt::format("{:.1f}", x);
    case Fmt::Int: return x == double(std::int64_t(x)) ? fmt::format("{}", std::int64_t(x)) : fmt::format("{:.1f}", x);
    default: return fmt::format("{:.4g}", x);
  }
}

std::string cell(const json& results, const std::string& field, Fmt f, const std::string& column) {
  const json* v = value_at(results, field);
  if (!v || v->is_null()) return "-";
  if (v->is_boolean()) {
    std::string s = v->get<bool>() ? "yes" : "no";
    // Over seeds: in how many seeds it held, when not in all or none.
    const json* fig = value_at(results, "confidence");
    if (fig && (*fig)["figures"].contains(field)) {
      const json& g = (*fig)["figures"][field];
      const auto k = g["true_in"].get<std::size_t>(), n = g["values"].size();
      if (k > 0 && k < n) s += fmt::format(" ({}/{})", k, n);
    }
    return s;
  }
  if (v->is_string()) return v->get<std::string>();
  if (!v->is_number())
    throw ConfigError(fmt::format("--columns '{}': {} is not a single value; name a figure inside it ({}.KEY; "
                                  "the run's --json shows them)",
                                  column, field, field));
  std::string s = v->is_number_float() || f != Fmt::Int ? number(v->get<double>(), f) : v->dump();
  if (const double h = half_width_of(results, field); h > 0) s += " ± " + number(h, f == Fmt::Int ? Fmt::F1 : f);
  return s;
}

// (header, field, format) of each column; the default adds completion for batch and trace runs.
std::vector<Summary> chosen(const std::vector<std::string>& columns, const std::vector<json>& results) {
  std::vector<Summary> out;
  if (columns.empty()) {
    out.assign(summary_columns().begin(), summary_columns().begin() + kDefaultColumns);
    const bool finite = std::any_of(results.begin(), results.end(), [](const json& r) {
      return !r.is_null() && r.value("workload", std::string("open")) != "open";
    });
    if (finite) out.push_back(*summary("completion"));
    return out;
  }
  for (auto& c : columns) {
    if (const Summary* s = summary(c)) out.push_back(*s);
    else out.push_back({c.c_str(), c.c_str(), Fmt::G4});
  }
  return out;
}

}  // namespace

std::vector<std::string> parse_columns(const std::string& spec, const std::string& flag) {
  const auto fields = result_fields();
  std::vector<std::string> out = split_list(spec, flag, ',', columns_help());
  for (auto& c : out) {
    if (summary(c)) continue;
    const std::string top = c.substr(0, c.find('.'));
    if (std::find(fields.begin(), fields.end(), top) == fields.end())
      throw ConfigError(fmt::format("{} '{}': unknown column '{}' (allowed: {})", flag, spec, c, columns_help()));
  }
  return out;
}

std::string columns_help() {
  std::string names;
  for (auto& s : summary_columns()) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names + ", or a results field by its dotted path (e.g. latency_avg, fairness.by_source.jain_index, "
                 "classes.0.latency_p99)";
}

std::string figure_text(const json& j, const std::string& path, const char* spec) {
  const json* v = value_at(j, path);
  if (!v || !v->is_number()) return "-";
  std::string s = fmt::format(fmt::runtime(spec), v->get<double>());
  if (const double h = half_width_of(j, path); h > 0) s += " ± " + fmt::format(fmt::runtime(spec), h);
  return s;
}

Table results_table(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& key_values,
                    const std::vector<json>& results, const std::vector<std::string>& columns) {
  const std::vector<Summary> cols = chosen(columns, results);
  Table t;
  t.header = keys;
  for (auto& c : cols) t.header.push_back(c.name);
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::vector<std::string> row = key_values[i];
    if (results[i].is_null()) row.push_back("failed");
    else
      for (auto& c : cols) row.push_back(cell(results[i], c.field, c.fmt, c.name));
    t.rows.push_back(row);
  }
  return t;
}

Table csv_table(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& key_values,
                const std::vector<json>& results, const std::vector<std::string>& columns) {
  std::vector<std::string> fields;
  if (columns.empty()) {
    const json run = RunResult{}.to_json();
    for (auto& [k, v] : run.items())
      if (v.is_primitive()) fields.push_back(k);
  } else {
    for (auto& c : chosen(columns, results)) fields.push_back(c.field);
  }
  // A figure with an interval in any point gets its FIELD_ci95 column.
  auto has_interval = [&](const std::string& f) {
    return std::any_of(results.begin(), results.end(), [&](const json& r) { return !r.is_null() && half_width_of(r, f) >= 0; });
  };
  Table t;
  t.header = keys;
  std::vector<std::pair<std::string, bool>> cols;  // (field, its interval)
  for (auto& f : fields) {
    cols.push_back({f, false});
    t.header.push_back(f);
    if (has_interval(f)) {
      cols.push_back({f, true});
      t.header.push_back(f + "_ci95");
    }
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::vector<std::string> row = key_values[i];
    if (!results[i].is_null())
      for (auto& [f, interval] : cols) {
        if (interval) {
          const double h = half_width_of(results[i], f);
          row.push_back(h >= 0 ? json(h).dump() : "");
          continue;
        }
        const json* v = value_at(results[i], f);
        row.push_back(!v || v->is_null() ? "" : v->is_string() ? v->get<std::string>() : v->dump());
      }
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace nwn

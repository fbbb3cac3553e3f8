// The statistics a results table or CSV file shows (`--columns` on run and
// sweep): by default the summary (offered and accepted load, latency, hops,
// saturated); or a chosen list of the summary's columns and of any figure of
// the results JSON by its dotted path (fairness.by_source.jain_index,
// power.switch_power_w, ...). Results over seeds show mean ± the half-width
// of the 95 % interval in tables (not shown where it is 0: the same value in
// every seed) and a FIELD_ci95 column beside each figure in CSV.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.hpp"

namespace nwn {

// The columns `spec` names ("lat-avg,p99,fairness.by_source.jain_index"), each
// checked: a summary column or a path whose first part is a results field.
// `flag` names the option in errors (exit 2); an empty spec is one too (a
// flag not given means the default columns: callers pass {} then).
std::vector<std::string> parse_columns(const std::string& spec, const std::string& flag);

// What --columns accepts, for its help.
std::string columns_help();

// One row per point: its varied keys' values, then the columns (empty:
// the default summary). A null result is a failed point.
Table results_table(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& key_values,
                    const std::vector<nlohmann::ordered_json>& results, const std::vector<std::string>& columns = {});

// The same as CSV: every single-valued results field by default, else the
// columns' fields; each figure with an interval followed by FIELD_ci95.
Table csv_table(const std::vector<std::string>& keys, const std::vector<std::vector<std::string>>& key_values,
                const std::vector<nlohmann::ordered_json>& results, const std::vector<std::string>& columns = {});

// The figure at `path` of `j` ("latency_avg", "relative.edp") formatted with
// `spec` (a fmt spec such as "{:.2f}"), followed by " ± HALF-WIDTH" when `j`
// carries a nonzero interval for it; "-" when `j` has no such number.
std::string figure_text(const nlohmann::ordered_json& j, const std::string& path, const char* spec);

}  // namespace nwn

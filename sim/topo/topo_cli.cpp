// nwnsim topo analyze: the graph figures of the configured topology (or of
// several, one --case each): sizes, radix, distances, path diversity,
// bisection, cost per endpoint and the topology's own figures. Table on
// stdout; --csv and --json write the same figures. `nwnsim topo search` is
// in search_cli.cpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "../cli.hpp"
#include "../config.hpp"
#include "../provenance.hpp"
#include "../report.hpp"
#include "analysis.hpp"
#include "search_cli.hpp"

namespace nwn {
namespace {

using json = nlohmann::ordered_json;

struct AnalyzeArgs {
  std::string config_file;
  std::vector<std::string> sets, cases;
  int max_sources = 2000;
  int exact_bisection = 24;
  int starts = 8;
  std::string bisection_method = topo::bisection_method_names()[int(topo::AnalysisOptions{}.bisection_method)];
  bool balance_routers = false;
  bool no_bisection = false;
  std::string csv_path, json_path;
};

std::string num(double x, int decimals = 3) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return fmt::format("{}", std::int64_t(x));
  return fmt::format("{:.{}f}", x, decimals);
}

// One analysed case: its label and (metric, value, note) rows.
struct Column {
  std::string label;
  std::vector<std::pair<std::string, std::string>> values;
  json j;
};

// A long analysis says so on stderr: once it has taken 2 s, what it is
// doing (with an estimate of the time left for the distances), then again
// every 10 s and at each new stage.
std::function<void(const char*, int, int)> progress_reporter(const std::string& label, int routers) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto last = start;
  std::string last_stage;
  return [=](const char* stage, int done, int total) mutable {
    const auto now = clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const bool new_stage = stage != last_stage;
    if (done == total || elapsed < 2 || (!new_stage && std::chrono::duration<double>(now - last).count() < 10))
      return;
    last = now;
    last_stage = stage;
    if (std::string(stage) == "distances")
      std::cerr << fmt::format("topo analyze {}: distances of {} routers: BFS from {} of {} sources, about {:.0f} s "
                               "left\n",
                               label, routers, done, total, elapsed / done * (total - done));
    else
      std::cerr << fmt::format("topo analyze {}: {} of {} routers: {} of {} starts done (--no-bisection skips it)\n",
                               label, stage, routers, done, total);
  };
}

Column analyze_case(const Config& cfg, const std::string& label, const AnalyzeArgs& a) {
  const topo::Graph g = topo::build_graph(cfg);
  topo::AnalysisOptions opt;
  opt.max_sources = a.max_sources;
  opt.exact_bisection_routers = a.exact_bisection;
  opt.bisection_starts = a.starts;
  opt.bisection_method = topo::parse_bisection_method(a.bisection_method);
  opt.balance_routers = a.balance_routers;
  opt.bisection = !a.no_bisection;
  opt.seed = std::uint64_t(cfg.get_int("sim.seed"));
  opt.progress = progress_reporter(label, g.routers());
  topo::Analysis an = topo::analyze(g, opt);
  const topo::GraphTopology* t = topo::find_graph_topology(cfg.get_string("network.topology"));
  if (t && t->figures) an.figures = t->figures(cfg, g);
  Column c;
  c.label = label;
  const std::string est = an.sampled ? "~" : "";   // estimate
  const std::string low = an.sampled ? ">=" : "";  // lower bound
  auto add = [&](const std::string& k, const std::string& v) { c.values.push_back({k, v}); };
  add("topology", g.name);
  add("routers", num(an.routers));
  add("endpoints", num(an.endpoints));
  add("routers with endpoints", num(an.terminal_routers));
  add("channels", num(double(an.channels)));
  add("radix max", num(an.radix_max));
  add("radix min", num(an.radix_min));
  add("diameter (routers)", low + num(an.diameter));
  add("diameter (endpoint routers)", low + num(an.endpoint_diameter));
  add("avg hops (router pairs)", est + num(an.avg_hops_routers));
  add("avg hops (endpoint pairs)", est + num(an.avg_hops_endpoints));
  add("minimal paths avg", est + num(an.paths_avg));
  add("minimal paths avg (>= 2 hops)", est + num(an.paths_avg_nonadjacent));
  add("minimal paths max", low + num(an.paths_max));
  add("distances", an.sampled ? fmt::format("sampled: BFS from {} of {} routers", an.sources, an.routers)
                              : fmt::format("exact: BFS from all {} routers", an.routers));
  const std::string bound = an.bisection.exact ? "" : "<=";
  add("bisection channels", an.bisection.cut < 0 ? "-" : bound + num(double(an.bisection.cut)));
  add("bisection beta (cut / (N/2))", an.bisection.cut < 0 ? "-" : bound + num(an.bisection_beta));
  add("bisection method", an.bisection.method);
  add("ports / endpoint", num(an.ports_per_endpoint));
  add("links / endpoint", num(an.links_per_endpoint));
  add("power / endpoint [W]", num(an.power_per_endpoint_w));
  if (an.moore_bound_fraction > 0) add("routers / Moore bound", (an.sampled ? "<=" : "") + num(an.moore_bound_fraction));
  for (auto& f : an.figures) add(f.name, num(f.value, 4));

  json& j = c.j;
  j["case"] = label;
  j["topology"] = g.name;
  j["routers"] = an.routers;
  j["endpoints"] = an.endpoints;
  j["routers_with_endpoints"] = an.terminal_routers;
  j["channels"] = an.channels;
  j["radix_max"] = an.radix_max;
  j["radix_min"] = an.radix_min;
  j["diameter"] = an.diameter;
  j["endpoint_diameter"] = an.endpoint_diameter;
  j["avg_hops_routers"] = an.avg_hops_routers;
  j["avg_hops_endpoints"] = an.avg_hops_endpoints;
  j["minimal_paths_avg"] = an.paths_avg;
  j["minimal_paths_avg_nonadjacent"] = an.paths_avg_nonadjacent;
  j["minimal_paths_max"] = an.paths_max;
  j["sampled"] = an.sampled;
  j["bfs_sources"] = an.sources;
  j["bisection_channels"] = an.bisection.cut;
  j["bisection_exact"] = an.bisection.exact;
  j["bisection_beta"] = an.bisection_beta;
  j["bisection_method"] = an.bisection.method;
  j["ports_per_endpoint"] = an.ports_per_endpoint;
  j["links_per_endpoint"] = an.links_per_endpoint;
  j["power_per_endpoint_w"] = an.power_per_endpoint_w;
  j["moore_bound_fraction"] = an.moore_bound_fraction;
  for (auto& f : an.figures) j[f.name] = f.value;
  return c;
}

int run_analyze(const AnalyzeArgs& a) {
  Config base;
  if (!a.config_file.empty()) base.load_file(a.config_file);
  for (auto& s : a.sets) base.set_override(s);
  std::vector<Column> cols;
  if (a.cases.empty()) {
    cols.push_back(analyze_case(base, base.get_string("network.topology"), a));
  } else {
    for (auto& c : a.cases) {
      Config cfg = base;
      for (auto& s : split_list(c, "--case", ';', "KEY=VALUE settings")) cfg.set_override(s, "--case");
      cols.push_back(analyze_case(cfg, c, a));
    }
  }
  Table t;
  t.header = {"metric"};
  for (auto& c : cols) t.header.push_back(cols.size() == 1 ? "value" : c.label);
  for (std::size_t i = 0; i < cols[0].values.size(); ++i) {
    std::vector<std::string> row{cols[0].values[i].first};
    for (auto& c : cols) row.push_back(i < c.values.size() ? c.values[i].second : "");
    t.rows.push_back(row);
  }
  // Topology-specific figures differ between cases: list every name once.
  for (auto& c : cols)
    for (std::size_t i = cols[0].values.size(); i < c.values.size(); ++i) {
      const std::string& name = c.values[i].first;
      if (std::any_of(t.rows.begin(), t.rows.end(), [&](auto& r) { return r[0] == name; })) continue;
      std::vector<std::string> row{name};
      for (auto& d : cols) {
        auto it = std::find_if(d.values.begin(), d.values.end(), [&](auto& v) { return v.first == name; });
        row.push_back(it == d.values.end() ? "" : it->second);
      }
      t.rows.push_back(row);
    }
  std::cout << t.render();
  if (!a.json_path.empty()) {
    json out;
    out["nwnsim"] = "topo analyze";
    out["provenance"] = provenance();
    out["cases"] = json::array();
    for (auto& c : cols) out["cases"].push_back(c.j);
    write_file(a.json_path, out.dump(2) + "\n");
  }
  if (!a.csv_path.empty()) {
    Table csv;
    for (auto& c : cols)
      for (auto& [k, v] : c.j.items())
        if (std::find(csv.header.begin(), csv.header.end(), k) == csv.header.end()) csv.header.push_back(k);
    for (auto& c : cols) {
      std::vector<std::string> row;
      for (auto& k : csv.header) {
        if (!c.j.contains(k)) row.push_back("");
        else if (c.j[k].is_string()) row.push_back(c.j[k].get<std::string>());
        else row.push_back(c.j[k].dump());
      }
      csv.rows.push_back(row);
    }
    write_file(a.csv_path, csv.csv());
  }
  return 0;
}

CommandRegistration reg_topo([](CLI::App& app, int& exit_code) {
  auto* topo = app.add_subcommand("topo", "topology graphs: analyze the configured topology, search design spaces");
  topo->require_subcommand(1);

  auto an = std::make_shared<AnalyzeArgs>();
  auto* c = topo->add_subcommand(
      "analyze", "routers, endpoints, channels, radix, diameter, average hops, minimal-path diversity, bisection and "
                 "cost of network.topology (graph topologies: slimfly, dragonfly, fattree, mlfm, oft, nesttree, "
                 "nestghc, fclos, hyperx)");
  c->add_option("config", an->config_file, "TOML config file; defaults if omitted")->check(CLI::ExistingFile);
  c->add_option("--set", an->sets, "override a config key, e.g. --set network.slimfly.q=7 (repeatable)")
      ->type_name("KEY=VALUE");
  c->add_option("--case", an->cases,
                "analyse several topologies side by side: one column per --case, its settings separated by ';' "
                "(e.g. --case 'network.topology=slimfly;network.slimfly.q=7')")
      ->type_name("K=V;K=V");
  c->add_option("--max-sources", an->max_sources, "BFS from every router up to this many routers; above, sample")
      ->capture_default_str()
      ->check(CLI::Range(2, 10000000));
  c->add_option("--exact-bisection", an->exact_bisection, "exhaustive bisection up to this many routers")
      ->capture_default_str()
      ->check(CLI::Range(2, 30));
  c->add_option("--bisection-starts", an->starts,
                "Fiduccia-Mattheyses starts (METIS: bisections it tries) above that size")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  c->add_option("--bisection-method", an->bisection_method,
                "above --exact-bisection: fm (Fiduccia-Mattheyses starts), metis (METIS, then FM) or best (both)")
      ->capture_default_str()
      ->check(CLI::IsMember(topo::bisection_method_names()));
  c->add_flag("--no-bisection", an->no_bisection, "skip the bisection (reported as -1 in CSV and JSON)");
  c->add_flag("--balance-routers", an->balance_routers,
              "bisection halves of all routers (default: halves of the routers with endpoints, switches free)");
  output_option(c->add_option("--csv", an->csv_path, "write one row per case as CSV"));
  output_option(c->add_option("--json", an->json_path, "write the figures as JSON"));
  c->callback([an, &exit_code] { exit_code = run_analyze(*an); });

  add_topo_search(topo, exit_code);
});

}  // namespace
}  // namespace nwn

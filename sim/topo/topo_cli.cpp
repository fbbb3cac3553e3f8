// nwnsim topo analyze: the graph figures of the configured topology (or of
// several, one --case each): sizes, radix, distances, path diversity,
// bisection, cost per endpoint and the topology's own figures.
// nwnsim topo search hyperx|slimfly|dragonfly: design-space searches
// (search.hpp). Tables on stdout; --csv and --json write the same rows.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "../cli.hpp"
#include "../config.hpp"
#include "../report.hpp"
#include "analysis.hpp"
#include "search.hpp"

namespace nwn {
namespace {

using json = nlohmann::ordered_json;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream is(s);
  while (std::getline(is, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

struct AnalyzeArgs {
  std::string config_file;
  std::vector<std::string> sets, cases;
  int max_sources = 2000;
  int exact_bisection = 24;
  int starts = 8;
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

Column analyze_case(const Config& cfg, const std::string& label, const AnalyzeArgs& a) {
  const topo::Graph g = topo::build_graph(cfg);
  topo::AnalysisOptions opt;
  opt.max_sources = a.max_sources;
  opt.exact_bisection_routers = a.exact_bisection;
  opt.bisection_starts = a.starts;
  opt.seed = std::uint64_t(cfg.get_int("sim.seed"));
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
  add("bisection channels", (an.bisection.exact ? "" : "<=") + num(double(an.bisection.cut)));
  add("bisection beta (cut / (N/2))", (an.bisection.exact ? "" : "<=") + num(an.bisection_beta));
  add("bisection method", an.bisection.method);
  add("ports / endpoint", num(an.ports_per_endpoint));
  add("links / endpoint", num(an.links_per_endpoint));
  add("power / endpoint [W]", num(an.power_per_endpoint_w));
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
      for (auto& s : split(c, ';')) cfg.set(s.substr(0, s.find('=')), s.find('=') == std::string::npos ? "" : s.substr(s.find('=') + 1), "--case " + c);
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

// ---- search ----

struct OutputArgs {
  std::string csv_path, json_path;
};

void emit(const Table& t, const json& rows, const std::string& what, const OutputArgs& o) {
  std::cout << t.render();
  if (!o.csv_path.empty()) write_file(o.csv_path, t.csv());
  if (!o.json_path.empty()) {
    json out;
    out["nwnsim"] = "topo search " + what;
    out["rows"] = rows;
    write_file(o.json_path, out.dump(2) + "\n");
  }
}

std::string vec(const std::vector<int>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

struct HyperXArgs {
  std::int64_t endpoints = 131072;
  int radix = 128;
  std::string betas = "0.125,0.25,0.5,1";
  int regular_k = 0;
  bool t_equals_s = false;
  OutputArgs out;
};

int run_search_hyperx(const HyperXArgs& a) {
  Table t;
  t.header = {"beta", "design", "L", "S", "K", "T", "T_max", "switches", "terminals", "ports", "beta_actual"};
  json rows = json::array();
  for (auto& b : split(a.betas, ',')) {
    double beta = 0;
    try {
      beta = std::stod(b);
    } catch (...) {
      beta = -1;
    }
    if (!(beta > 0))
      throw ConfigError("search error: --beta '" + b + "': must be positive numbers, comma-separated (e.g. 0.5,1)");
    topo::HyperXRequest r;
    r.endpoints = a.endpoints;
    r.radix = a.radix;
    r.beta = beta;
    r.regular_k = a.regular_k;
    r.t_equals_s = a.t_equals_s;
    for (bool regular : {true, false}) {
      if (!regular && (a.regular_k || a.t_equals_s)) continue;
      const auto d = regular ? topo::best_regular_hyperx(r) : topo::best_general_hyperx(r);
      const std::string kind = regular ? "regular" : "general";
      if (!d) {
        t.rows.push_back({b, kind, "-", "none feasible"});
        rows.push_back({{"beta", beta}, {"design", kind}, {"feasible", false}});
        continue;
      }
      t.rows.push_back({b, kind, std::to_string(d->S.size()), regular ? std::to_string(d->S[0]) : vec(d->S),
                        regular ? std::to_string(d->K[0]) : vec(d->K), std::to_string(d->T), std::to_string(d->T_max),
                        std::to_string(d->switches), std::to_string(d->terminals()), std::to_string(d->ports),
                        fmt::format("{:.3f}", d->beta)});
      rows.push_back({{"beta", beta}, {"design", kind}, {"feasible", true}, {"L", d->S.size()}, {"S", d->S},
                      {"K", d->K}, {"T", d->T}, {"T_max", d->T_max}, {"switches", d->switches},
                      {"terminals", d->terminals()}, {"ports", d->ports}, {"beta_actual", d->beta}});
    }
  }
  std::cout << fmt::format("HyperX designs with the fewest switches: N = {} terminals, radix R = {}\n", a.endpoints,
                           a.radix);
  emit(t, rows, "hyperx", a.out);
  return 0;
}

struct SizingArgs {
  std::string radices = "43,64";
  OutputArgs out;
};

std::vector<int> parse_radices(const std::string& text) {
  std::vector<int> out;
  for (auto& s : split(text, ',')) {
    std::size_t pos = 0;
    int v = 0;
    try {
      v = std::stoi(s, &pos);
    } catch (...) {
    }
    if (pos != s.size() || v < 2 || v > 4096)
      throw ConfigError("search error: --radix '" + text + "': router radices from 2 to 4096, comma-separated");
    out.push_back(v);
  }
  if (out.empty()) throw ConfigError("search error: --radix needs at least one radix");
  return out;
}

int run_search_slimfly(const SizingArgs& a) {
  Table t;
  t.header = {"radix", "p rule", "q", "delta", "k'", "p", "router radix", "routers", "endpoints"};
  json rows = json::array();
  for (int k : parse_radices(a.radices))
    for (bool up : {true, false}) {
      const auto s = topo::largest_slimfly(k, up);
      const std::string rule = up ? "ceil(k'/2)" : "floor(k'/2)";
      if (!s) {
        t.rows.push_back({std::to_string(k), rule, "none"});
        continue;
      }
      t.rows.push_back({std::to_string(k), rule, std::to_string(s->q), std::to_string(s->delta),
                        std::to_string(s->network_radix), std::to_string(s->p), std::to_string(s->radix()),
                        std::to_string(s->routers), std::to_string(s->endpoints)});
      rows.push_back({{"radix", k}, {"p_rule", up ? "ceil" : "floor"}, {"q", s->q}, {"delta", s->delta},
                      {"network_radix", s->network_radix}, {"p", s->p}, {"router_radix", s->radix()},
                      {"routers", s->routers}, {"endpoints", s->endpoints}});
    }
  std::cout << "Largest Slim Fly (MMS, diameter 2) for each router radix\n";
  emit(t, rows, "slimfly", a.out);
  return 0;
}

int run_search_dragonfly(const SizingArgs& a) {
  Table t;
  t.header = {"radix", "p", "a", "h", "g", "router radix", "routers", "endpoints"};
  json rows = json::array();
  for (int k : parse_radices(a.radices)) {
    const auto d = topo::largest_dragonfly(k);
    if (!d) {
      t.rows.push_back({std::to_string(k), "none"});
      continue;
    }
    t.rows.push_back({std::to_string(k), std::to_string(d->p), std::to_string(d->a), std::to_string(d->h),
                      std::to_string(d->g), std::to_string(d->radix()), std::to_string(d->routers),
                      std::to_string(d->endpoints)});
    rows.push_back({{"radix", k}, {"p", d->p}, {"a", d->a}, {"h", d->h}, {"g", d->g}, {"router_radix", d->radix()},
                    {"routers", d->routers}, {"endpoints", d->endpoints}});
  }
  std::cout << "Largest balanced Dragonfly (a = 2p = 2h, g = ah + 1) for each router radix\n";
  emit(t, rows, "dragonfly", a.out);
  return 0;
}

void add_output(CLI::App* c, OutputArgs& o) {
  c->add_option("--csv", o.csv_path, "write the table as CSV");
  c->add_option("--json", o.json_path, "write the rows as JSON");
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
  c->add_option("--bisection-starts", an->starts, "Fiduccia-Mattheyses starts above that size")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  c->add_option("--csv", an->csv_path, "write one row per case as CSV");
  c->add_option("--json", an->json_path, "write the figures as JSON");
  c->callback([an, &exit_code] { exit_code = run_analyze(*an); });

  auto* search = topo->add_subcommand("search", "design-space searches: hyperx, slimfly, dragonfly");
  search->require_subcommand(1);
  auto hx = std::make_shared<HyperXArgs>();
  auto* h = search->add_subcommand("hyperx",
                                   "HyperX designs with the fewest switches for N terminals, radix R and bisection "
                                   "ratio beta, regular and general (HyperX paper §3.2, Table 1)");
  h->add_option("--endpoints,-N", hx->endpoints, "terminals N")->capture_default_str()->check(CLI::Range(2, 1 << 30));
  h->add_option("--radix,-R", hx->radix, "switch radix R")->capture_default_str()->check(CLI::Range(2, 4096));
  h->add_option("--beta", hx->betas, "minimum relative bisection B, comma-separated")->capture_default_str();
  h->add_option("--regular-k", hx->regular_k, "regular designs only, with this trunking K (flattened butterfly: 2)")
      ->check(CLI::Range(1, 4096));
  h->add_flag("--t-equals-s", hx->t_equals_s, "regular designs only, with T = S");
  add_output(h, hx->out);
  h->callback([hx, &exit_code] { exit_code = run_search_hyperx(*hx); });

  auto sf = std::make_shared<SizingArgs>();
  auto* s = search->add_subcommand("slimfly", "the largest Slim Fly for each router radix (p = ceil and floor of k'/2)");
  s->add_option("--radix,-R", sf->radices, "router radices, comma-separated")->capture_default_str();
  add_output(s, sf->out);
  s->callback([sf, &exit_code] { exit_code = run_search_slimfly(*sf); });

  auto df = std::make_shared<SizingArgs>();
  auto* d = search->add_subcommand("dragonfly", "the largest balanced Dragonfly for each router radix");
  d->add_option("--radix,-R", df->radices, "router radices, comma-separated")->capture_default_str();
  add_output(d, df->out);
  d->callback([df, &exit_code] { exit_code = run_search_dragonfly(*df); });
});

}  // namespace
}  // namespace nwn

// nwnsim topo search: the HyperX design-space search and the Slim Fly and
// Dragonfly sizing of search.hpp. Tables on stdout; --csv and --json write
// the same rows.
#include "search_cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli.hpp"
#include "../config.hpp"
#include "../provenance.hpp"
#include "../report.hpp"
#include "../topo/search.hpp"

namespace nwn {
namespace {

using json = nlohmann::ordered_json;

struct OutputArgs {
  std::string csv_path, json_path;
};

void emit(const Table& t, const json& rows, const std::string& what, const OutputArgs& o) {
  std::cout << t.render();
  if (!o.csv_path.empty()) write_file(o.csv_path, t.csv());
  if (!o.json_path.empty()) {
    json out;
    out["nwnsim"] = "topo search " + what;
    out["provenance"] = provenance();
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
  for (auto& b : split_list(a.betas, "--beta")) {
    double beta = 0;
    std::size_t pos = 0;
    try {
      beta = std::stod(b, &pos);
    } catch (...) {
      beta = -1;
    }
    // A design's bisection ratio K S / 2T cannot exceed the radix (K (S - 1) + T <= R), so a larger beta has
    // no design; bounding it also keeps the trunking arithmetic in range.
    if (pos != b.size() || !(beta > 0) || !(beta <= a.radix))
      throw ConfigError(fmt::format(
          "search error: --beta '{}': must be positive numbers up to the radix R = {}, comma-separated (e.g. 0.5,1)",
          b, a.radix));
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
  for (auto& s : split_list(text, "--radix")) {
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
  output_option(c->add_option("--csv", o.csv_path, "write the table as CSV"));
  output_option(c->add_option("--json", o.json_path, "write the rows as JSON"));
}

}  // namespace

void add_topo_search(CLI::App* topo, int& exit_code) {
  auto* search = topo->add_subcommand("search", "design-space searches: hyperx, slimfly, dragonfly");
  search->require_subcommand(1);
  auto hx = std::make_shared<HyperXArgs>();
  auto* h = search->add_subcommand("hyperx",
                                   "HyperX designs with the fewest switches for N terminals, radix R and bisection "
                                   "ratio beta, regular and general (HyperX paper §3.2, Table 1)");
  h->add_option("--endpoints,-N", hx->endpoints, "terminals N")->capture_default_str()->check(CLI::Range(2, 1 << 30));
  h->add_option("--radix,-R", hx->radix, "switch radix R")->capture_default_str()->check(CLI::Range(2, 4096));
  h->add_option("--beta", hx->betas, "minimum relative bisection B, comma-separated (0 < B <= R)")->capture_default_str();
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
}

}  // namespace nwn

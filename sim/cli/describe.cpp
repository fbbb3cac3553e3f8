// nwnsim describe: one organization's structure and its complexity figures.
// nwnsim complexity: Table II (all organizations at one radix) or, with
// --radices, Fig. 5 (the figures relative to hc over a range of radices).
// Every number comes from the structural description (models/organization.hpp).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../../models/organization.hpp"
#include "cli.hpp"
#include "../config.hpp"
#include "../provenance.hpp"
#include "../report.hpp"

namespace nwn {
namespace {

// --radices: integers from 2 to kMaxRadix (the organizations' bound).
std::vector<int> parse_radices(const std::string& text) {
  std::vector<int> out;
  for (const std::string& item : split_list(text, "--radices")) {
    const bool digits = item.size() <= 9 && std::all_of(item.begin(), item.end(), [](char c) {
                          return c >= '0' && c <= '9';
                        });
    const long v = digits ? std::stol(item) : 0;
    if (v < 2 || v > kMaxRadix)
      throw ConfigError(fmt::format("complexity error: --radices '{}': item '{}' is not a radix (allowed: integers from 2 to {}, "
                                    "comma-separated; a radix-{} crossbar already has {} crosspoints)",
                                    text, item, kMaxRadix, kMaxRadix, long(kMaxRadix) * kMaxRadix));
    out.push_back(int(v));
  }
  return out;
}

SwitchDescription describe_org(const std::string& org, int radix, int subswitch_radix) {
  OrganizationParams p;
  p.name = org;
  p.radix = radix;
  p.keys["router.subswitch_radix"] = subswitch_radix;
  return make_organization(p).description;
}

const char* kind_name(SubswitchKind k) {
  switch (k) {
    case SubswitchKind::Crossbar: return "crossbar";
    case SubswitchKind::Bus: return "bus";
    case SubswitchKind::Mux: return "mux";
  }
  return "";
}

struct DescribeArgs {
  std::string org = "fc";
  int radix = 64;
  int subswitch_radix = 0;
  bool json = false;
};

int run_describe(const DescribeArgs& a) {
  SwitchDescription d;
  try {
    d = describe_org(a.org, a.radix, a.subswitch_radix);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("describe error: --org {} --radix {}{}: {}", a.org, a.radix,
                                  a.subswitch_radix ? fmt::format(" --subswitch-radix {}", a.subswitch_radix) : "",
                                  e.what()));
  }
  const Complexity c = complexity(d);
  if (a.json) {
    nlohmann::ordered_json j;
    j["org"] = d.org;
    j["radix"] = d.radix;
    j["subswitches"] = c.subswitches;
    j["subswitch_buffers"] = c.subswitch_buffers;
    j["aggregate_fanout"] = c.aggregate_fanout;
    j["crosspoints"] = c.crosspoints;
    j["area_pitch2"] = c.area_pitch2;
    j["floorplan"] = {{"width_pitch", d.width_pitch}, {"height_pitch", d.height_pitch}, {"rule", d.floorplan_rule}};
    j["channels"] = d.channels.size();
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} switch, radix {}: {} subswitches, {} internal channels\n", d.org, d.radix,
                           d.subswitches.size(), d.channels.size());
  // Group identical subswitch shapes.
  std::map<std::string, int> groups;
  std::vector<std::string> order;
  for (const SubswitchSpec& s : d.subswitches) {
    const std::string key = fmt::format("{} {}x{}{}, {} crosspoints{}", kind_name(s.kind), s.inputs, s.outputs,
                                        s.input_speedup > 1 ? fmt::format(" (input speedup {})", s.input_speedup) : "",
                                        s.crosspoints(), s.port_buffers ? ", router port buffers" : "");
    if (!groups.count(key)) order.push_back(key);
    ++groups[key];
  }
  for (auto& k : order) std::cout << fmt::format("  {:4} x {}\n", groups[k], k);
  std::map<std::string, int> chans;
  for (const ChannelSpec& ch : d.channels)
    ++chans[fmt::format("{} cycles, {:.3f} mm", ch.latency_cycles, ch.length_mm)];
  for (auto& [k, n] : chans) std::cout << fmt::format("  {:4} channels of {}\n", n, k);
  std::cout << fmt::format("floorplan: {:.1f} x {:.1f} channel pitches ({})\n", d.width_pitch, d.height_pitch,
                           d.floorplan_rule);
  std::cout << fmt::format("subswitch buffers {}, aggregate fanout {}, crosspoints {}, area {:.0f} pitch^2\n",
                           c.subswitch_buffers, c.aggregate_fanout, c.crosspoints, c.area_pitch2);
  return 0;
}

struct ComplexityArgs {
  std::string orgs = "cn,hc,fc,fc5,fc6,fc5-isu2,fc6-isu2,trv,hxv,hx05,hx10,bb";
  bool orgs_given = false;  // --orgs: every one must exist at every radix
  int radix = 64;
  std::string radices;
  bool radices_given = false;  // --radices '' is an error, not --radix
  std::string reference = "hc";
  bool reference_given = false;  // checked even when no rel- column uses it
  std::string csv_path, json_path;
};

std::string num(double x) { return x == double(long(x)) ? fmt::format("{}", long(x)) : fmt::format("{:.3f}", x); }

int run_complexity(const ComplexityArgs& a) {
  const auto orgs = split_list(a.orgs, "--orgs");
  std::vector<int> radices = a.radices_given ? parse_radices(a.radices) : std::vector<int>{a.radix};
  const bool relative = radices.size() > 1;
  Table t;
  t.header = {"radix", "org", "subswitch_buffers", "aggregate_fanout", "crosspoints", "area_pitch2"};
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  std::vector<std::string> left_out;  // default organizations that do not exist at a radix, and why
  for (int k : radices) {
    Complexity ref{};
    if (relative || a.reference_given) {
      try {
        ref = complexity(describe_org(a.reference, k, 0));
      } catch (const std::invalid_argument& e) {
        throw ConfigError(fmt::format("complexity error: --reference {} at radix {}: {}", a.reference, k, e.what()));
      }
    }
    for (auto& o : orgs) {
      Complexity c;
      try {
        c = complexity(describe_org(o, k, 0));
      } catch (const std::invalid_argument& e) {
        if (a.orgs_given) throw ConfigError(fmt::format("complexity error: --orgs {} at radix {}: {}", o, k, e.what()));
        left_out.push_back(e.what());  // not every organization exists at every radix (square, cube)
        continue;
      }
      std::vector<std::string> row = {std::to_string(k), o, std::to_string(c.subswitch_buffers),
                                      std::to_string(c.aggregate_fanout), std::to_string(c.crosspoints),
                                      num(c.area_pitch2)};
      nlohmann::ordered_json e = {{"radix", k},
                                  {"org", o},
                                  {"subswitch_buffers", c.subswitch_buffers},
                                  {"aggregate_fanout", c.aggregate_fanout},
                                  {"crosspoints", c.crosspoints},
                                  {"area_pitch2", c.area_pitch2}};
      if (relative) {
        auto rel = [](double x, double r) { return r > 0 ? x / r : 0.0; };
        const double rb = rel(c.subswitch_buffers, ref.subswitch_buffers), rf = rel(c.aggregate_fanout, ref.aggregate_fanout),
                     rx = rel(double(c.crosspoints), double(ref.crosspoints)), ra = rel(c.area_pitch2, ref.area_pitch2);
        for (double x : {rb, rf, rx, ra}) row.push_back(fmt::format("{:.3f}", x));
        e["rel_subswitch_buffers"] = rb;
        e["rel_aggregate_fanout"] = rf;
        e["rel_crosspoints"] = rx;
        e["rel_area"] = ra;
      }
      t.rows.push_back(row);
      j.push_back(e);
    }
  }
  if (relative)
    for (const char* h : {"rel_buffers", "rel_fanout", "rel_crosspoints", "rel_area"}) t.header.push_back(h);
  std::cout << t.render();
  for (const std::string& why : left_out) std::cerr << "left out: " << why << "\n";
  if (!a.csv_path.empty()) write_file(a.csv_path, t.csv());
  if (!a.json_path.empty()) {
    nlohmann::ordered_json out;
    out["nwnsim"] = "complexity";
    out["provenance"] = provenance();
    out["rows"] = j;
    write_file(a.json_path, out.dump(2) + "\n");
  }
  return 0;
}

CommandRegistration reg_describe([](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<DescribeArgs>();
  auto* c = app.add_subcommand("describe", "print a switch organization's structure and complexity");
  c->add_option("--org", args->org, "organization (cn, hc, fc, fcM, fcM-isuS, bb, bb-isuS, trv, trm, hxv, hxm, hx05, hx10)")
      ->capture_default_str();
  c->add_option("--radix", args->radix, "router radix k")->capture_default_str()->check(CLI::Range(2, kMaxRadix));
  c->add_option("--subswitch-radix", args->subswitch_radix, "p (hc) or r (fc, bb); 0 = the paper's choice")
      ->capture_default_str()
      ->check(CLI::Range(0, kMaxRadix));
  c->add_flag("--json", args->json, "JSON instead of text");
  c->callback([args, &exit_code] { exit_code = run_describe(*args); });
});

CommandRegistration reg_complexity([](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ComplexityArgs>();
  auto* c = app.add_subcommand("complexity",
                               "Table II: subswitch buffers, aggregate fanout, crosspoints and area of each "
                               "organization; with --radices, Fig. 5 (relative to hc)");
  c->add_option("--orgs", args->orgs,
                 "organizations, comma-separated (default: those of the list that exist at the radix; the others "
                 "are named on stderr)")
      ->capture_default_str()
      ->each([args](const std::string&) { args->orgs_given = true; });
  c->add_option("--radix", args->radix, "router radix k")->capture_default_str()->check(CLI::Range(2, kMaxRadix));
  c->add_option("--radices", args->radices, "radix sweep, comma-separated (e.g. 16,36,64,144,256)")
      ->each([args](const std::string&) { args->radices_given = true; });
  c->add_option("--reference", args->reference, "organization the rel- columns divide by")->capture_default_str();
  output_option(c->add_option("--csv", args->csv_path, "write the table as CSV"));
  output_option(c->add_option("--json", args->json_path, "write the figures as JSON"));
  c->callback([args, c, &exit_code] {
    args->radices_given = c->count("--radices") > 0;
    args->reference_given = c->count("--reference") > 0;
    exit_code = run_complexity(*args);
  });
});

}  // namespace
}  // namespace nwn

// nwnsim saturation: the saturation throughput of a configuration by
// bisection on the offered load. A probe is a `run` in a child process, and
// it is saturated when that run says so (is_saturated in sim/experiment.hpp:
// its marked packets do not drain or it accepts less than
// sim.saturation_accept_ratio of the load it was offered).
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "../config.hpp"
#include "../process.hpp"
#include "../provenance.hpp"
#include "../report.hpp"

namespace nwn {
namespace {

namespace fs = std::filesystem;

// A number in [lo, hi]. CLI::Range lets "nan" through (no comparison with
// NaN is true), so the bounds are checked the other way round.
CLI::Validator number_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        if (CLI::detail::lexical_cast(text, v) && v >= lo && v <= hi) return "";
        return fmt::format("Value {} not in range {} to {}", text, lo, hi);
      },
      fmt::format("FLOAT in [{} - {}]", lo, hi));
}

struct SaturationArgs {
  std::string config_file;
  std::vector<std::string> sets;
  double lo = 0.0, hi = 1.0, tolerance = 0.01, accept_ratio = 0;  // 0: the config's
  std::string json_path;
};

int run_saturation(const SaturationArgs& a) {
  Config base;
  if (!a.config_file.empty()) base.load_file(a.config_file);
  for (auto& s : a.sets) base.set_override(s);
  if (!(a.lo < a.hi)) throw ConfigError("saturation error: --low must be below --high");
  if (base.get_string("traffic.source") != "synthetic" || base.get_string("traffic.mode") != "open")
    throw ConfigError("saturation error: the search varies traffic.load of open-loop synthetic traffic (allowed: "
                      "traffic.source = synthetic, traffic.mode = open); for a trace, sweep "
                      "traffic.trace_time_scale instead");
  const ScratchDir scratch("sat");
  const fs::path tmp = scratch.path();
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  auto probe = [&](double load) {
    std::vector<Job> job(1);
    job[0].args = {"run"};
    if (!a.config_file.empty()) job[0].args.push_back(a.config_file);
    for (auto& s : a.sets) job[0].args.insert(job[0].args.end(), {"--set", s});
    if (a.accept_ratio > 0)
      job[0].args.insert(job[0].args.end(),
                         {"--set", fmt::format("sim.saturation_accept_ratio={}", a.accept_ratio)});
    const std::string out = (tmp / "probe.json").string();
    job[0].args.insert(job[0].args.end(),
                       {"--set", fmt::format("traffic.load={:.6f}", load), "--json", out, "--quiet"});
    run_jobs(job, 1, [](std::size_t) {});
    if (job[0].exit_code != 0) {
      const std::string msg =
          fmt::format("saturation: the probe at load {:.4f} failed (exit {})", load, job[0].exit_code);
      if (job[0].exit_code == 2) throw ConfigError(msg);  // the probe's config error is the search's (exit 2)
      throw std::runtime_error(msg);
    }
    auto r = nlohmann::json::parse(read_file(out))["results"];
    const bool sat = r["saturated"].get<bool>();
    std::cout << fmt::format("  load {:.4f}: accepted {:.4f}, latency {:.1f}, {}\n", load,
                             r["accepted_load"].get<double>(), r["latency_avg"].get<double>(),
                             sat ? "saturated" : "not saturated");
    probes.push_back({{"load", load}, {"accepted", r["accepted_load"]}, {"latency_avg", r["latency_avg"]},
                      {"saturated", sat}});
    return std::pair<bool, double>(sat, r["accepted_load"].get<double>());
  };
  std::cout << fmt::format("nwnsim saturation: {} radix {}, {} traffic\n", base.get_string("router.org"),
                           base.get_int("router.radix"), base.get_string("traffic.pattern"));
  double lo = a.lo, hi = a.hi, accepted_at_hi = 0;
  auto [hi_sat, hi_acc] = probe(hi);
  accepted_at_hi = hi_acc;
  int probes_run = 1;
  if (!hi_sat) {
    lo = hi;
  } else {
    while (hi - lo > a.tolerance) {
      const double mid = 0.5 * (lo + hi);
      auto [sat, acc] = probe(mid);
      ++probes_run;
      if (sat) {
        hi = mid;
        accepted_at_hi = acc;
      } else {
        lo = mid;
      }
    }
  }
  if (!hi_sat)
    std::cout << fmt::format("not saturated at the highest load {:.4f}: saturation throughput >= {:.4f}\n", a.hi, a.hi);
  else
    std::cout << fmt::format("saturation throughput in [{:.4f}, {:.4f}] of capacity ({} probes; accepted {:.4f} at "
                             "{:.4f})\n",
                             lo, hi, probes_run, accepted_at_hi, hi);
  if (!a.json_path.empty()) {
    nlohmann::ordered_json j;
    j["nwnsim"] = "saturation";
    j["provenance"] = provenance(&base);
    j["config"] = base.to_json();
    j["bracket"] = {lo, hi};
    j["saturated_at_high"] = hi_sat;
    j["probes"] = probes;
    write_file(a.json_path, j.dump(2) + "\n");
  }
  return 0;
}

CommandRegistration reg_saturation([](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SaturationArgs>();
  auto* c = app.add_subcommand("saturation", "find the saturation throughput by bisection on the offered load");
  c->add_option("config", args->config_file, "TOML config file")->check(CLI::ExistingFile);
  c->add_option("--set", args->sets, "override a config key (repeatable)")->type_name("KEY=VALUE");
  c->add_option("--low", args->lo, "lowest load of the bracket")->capture_default_str()->check(number_range(0.0, 1.0));
  c->add_option("--high", args->hi, "highest load of the bracket")->capture_default_str()->check(number_range(0.0, 1.0));
  c->add_option("--tolerance", args->tolerance, "stop when the bracket is this narrow")
      ->capture_default_str()
      ->check(number_range(1e-4, 0.5));
  c->add_option("--accept-ratio", args->accept_ratio,
                "a probe accepting less than this fraction of its offered load is saturated (sets "
                "sim.saturation_accept_ratio, default 0.99)")
      ->check(number_range(0.5, 1.0));
  output_option(c->add_option("--json", args->json_path, "write the bracket and every probe as JSON"));
  c->callback([args, &exit_code] { exit_code = run_saturation(*args); });
});

}  // namespace
}  // namespace nwn

// Statistical confidence over seeds (`--seeds N` on run, sweep and compare):
// the same point simulated with N seeds derived from sim.seed, each in its
// own child process, and every figure reported as the mean over the seeds
// with a 95 % confidence interval (Student's t), the per-seed values kept.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nwn {

// The seeds of `--seeds n` from sim.seed = `base`: the first is `base` itself
// (so --seeds 1 is the plain run, and a stored plain run is the first seed of
// a longer series), the others a fixed mix of base and index, within
// sim.seed's range.
std::vector<std::int64_t> derived_seeds(std::int64_t base, int n);

// The 0.975 quantile of Student's t with `df` degrees of freedom (the factor
// of a two-sided 95 % interval); df >= 1.
double student_t975(int df);

// Mean and half-width of the 95 % interval of `values` (n >= 2; the interval
// is exactly 0 when all values are equal).
struct Interval95 {
  double mean = 0, half_width = 0;
};
Interval95 interval95(const std::vector<double>& values);

// The results of one point over its seeds (`per_seed`: each seed's
// results JSON, in the order of `seeds`): the same shape as one run's,
// every number the mean over the seeds (element by element in arrays of
// numbers, over the entries every seed has), the latency histogram pooled,
// `saturated` true when any seed saturated and other flags when all hold;
// plus a `confidence` block: the level, the seeds, and for every scalar
// figure (its dotted path, e.g. "latency_avg", "power.switch_power_w") its
// mean, the half-width of its 95 % interval and the per-seed values (of a
// flag: in how many seeds it held, and the per-seed values).
nlohmann::ordered_json combine_seeds(const std::vector<nlohmann::ordered_json>& per_seed,
                                     const std::vector<std::int64_t>& seeds);

// The half-width of figure `path` in combined results, or a negative value
// when the results carry no interval for it (one seed).
double half_width_of(const nlohmann::ordered_json& results, const std::string& path);

}  // namespace nwn

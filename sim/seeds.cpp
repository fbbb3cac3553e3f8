#include "seeds.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace nwn {

using json = nlohmann::ordered_json;

std::vector<std::int64_t> derived_seeds(std::int64_t base, int n) {
  std::vector<std::int64_t> out;
  for (int i = 0; i < n; ++i) {
    if (i == 0) {
      out.push_back(base);
      continue;
    }
    // splitmix64 of (base, i): neighbouring bases give unrelated series.
    std::uint64_t z = std::uint64_t(base) + 0x9e3779b97f4a7c15ULL * std::uint64_t(i);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    out.push_back(std::int64_t(z >> 2));  // below 2^62, inside sim.seed's range
  }
  return out;
}

double student_t975(int df) {
  // Exact to the digits shown for small df; above 30 the Cornish-Fisher
  // expansion around the normal quantile (error below 1e-5).
  static const double table[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                                 2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                                 2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df < 1) return 0;
  if (df <= 30) return table[df - 1];
  const double z = 1.959963984540054, v = df;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

Interval95 interval95(const std::vector<double>& values) {
  Interval95 r;
  if (values.empty()) return r;
  if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; })) {
    r.mean = values[0];  // exactly, not a sum divided back
    return r;
  }
  double sum = 0;
  for (double v : values) sum += v;
  r.mean = sum / double(values.size());
  double squares = 0;
  for (double v : values) squares += (v - r.mean) * (v - r.mean);
  const int n = int(values.size());
  if (n >= 2) r.half_width = student_t975(n - 1) * std::sqrt(squares / double(n - 1)) / std::sqrt(double(n));
  return r;
}

namespace {

// Numbers that name a node or an interval length rather than measure
// something: kept when every seed has the same, else left out.
bool is_identity(const std::string& key) {
  return key == "min_node" || key == "max_node" || key == "busiest_router" || key == "busiest_port" || key == "class" ||
         key == "packet_flits" || key == "sample_cycles";
}

// The pooled histogram of the seeds' latency histograms.
json pooled_histogram(const std::vector<json>& hs) {
  std::map<std::uint64_t, std::uint64_t> counts;
  std::uint64_t total = 0;
  for (auto& h : hs)
    for (std::size_t i = 0; i < h["latency"].size(); ++i) {
      counts[h["latency"][i].get<std::uint64_t>()] += h["packets"][i].get<std::uint64_t>();
      total += h["packets"][i].get<std::uint64_t>();
    }
  json values = json::array(), packets = json::array(), cdf = json::array();
  std::uint64_t seen = 0;
  for (auto& [v, c] : counts) {
    seen += c;
    values.push_back(v);
    packets.push_back(c);
    cdf.push_back(double(seen) / double(total));
  }
  return {{"latency", values}, {"packets", packets}, {"cdf", cdf}, {"pooled_over_seeds", hs.size()}};
}

class Combiner {
 public:
  json figures = json::object();

  // `record`: scalars here are figures with an interval (not elements of an
  // array of numbers).
  json combine(const std::vector<json>& vs, const std::string& path, const std::string& key, bool record) {
    const json& first = vs[0];
    auto all = [&](auto pred) { return std::all_of(vs.begin(), vs.end(), pred); };
    if (key == "latency_histogram" && all([](const json& v) { return v.is_object() && v.contains("latency"); }))
      return pooled_histogram(vs);
    if (all([](const json& v) { return v.is_object(); })) {
      json out = json::object();
      for (auto& [k, _] : first.items()) {
        std::vector<json> children;
        for (auto& v : vs)
          if (v.contains(k)) children.push_back(v[k]);
        if (children.size() != vs.size()) continue;  // not in every seed's results
        json c = combine(children, path.empty() ? k : path + "." + k, k, true);
        if (!c.is_discarded()) out[k] = c;
      }
      return out;
    }
    if (all([](const json& v) { return v.is_array(); })) {
      std::size_t n = first.size();
      for (auto& v : vs) n = std::min(n, v.size());
      json out = json::array();
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<json> elems;
        for (auto& v : vs) elems.push_back(v[i]);
        const bool objects = elems[0].is_object();
        json c = combine(elems, path + "." + std::to_string(i), key, objects);
        out.push_back(c.is_discarded() ? json() : c);
      }
      return out;
    }
    if (all([](const json& v) { return v.is_boolean(); })) {
      // Past saturation in any seed is past saturation; other flags (drained,
      // converged) hold when they hold in every seed.
      const auto held = std::count_if(vs.begin(), vs.end(), [](const json& v) { return v.get<bool>(); });
      if (record) figures[path] = {{"true_in", held}, {"values", vs}};
      return key == "saturated" ? held > 0 : held == std::ptrdiff_t(vs.size());
    }
    if (all([](const json& v) { return v.is_number(); })) {
      const bool equal = all([&](const json& v) { return v == first; });
      if (is_identity(key)) return equal ? first : json(json::value_t::discarded);
      std::vector<double> xs;
      for (auto& v : vs) xs.push_back(v.get<double>());
      const Interval95 ci = interval95(xs);
      if (record) figures[path] = {{"mean", ci.mean}, {"ci95", ci.half_width}, {"values", xs}};
      return equal ? first : json(ci.mean);  // an integer figure the same in every seed stays an integer
    }
    return first;  // text (the workload), or null
  }
};

}  // namespace

json combine_seeds(const std::vector<json>& per_seed, const std::vector<std::int64_t>& seeds) {
  Combiner c;
  json out = c.combine(per_seed, "", "", true);
  out["confidence"] = {{"level", 0.95}, {"seeds", seeds}, {"figures", c.figures}};
  return out;
}

double half_width_of(const json& results, const std::string& path) {
  if (!results.contains("confidence")) return -1;
  const json& f = results["confidence"]["figures"];
  return f.contains(path) && f[path].contains("ci95") ? f[path]["ci95"].get<double>() : -1;
}

}  // namespace nwn

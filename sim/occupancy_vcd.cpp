#include "occupancy_vcd.hpp"

#include <fmt/format.h>

#include "network.hpp"

namespace nwn {

namespace {

// VCD identifiers: short strings of printable ASCII ('!' to '~').
std::string vcd_id(std::size_t i) {
  std::string s;
  do {
    s.push_back(char('!' + i % 94));
    i /= 94;
  } while (i);
  return s;
}

// A VCD name: letters, digits and '_' (gtkwave splits hierarchy on '.').
std::string vcd_name(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "->") == 0) {
      out += "_to_";
      ++i;
    } else {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      out.push_back(std::isalnum(c) ? char(c) : '_');
    }
  }
  return out;
}

std::string binary(int v) {
  if (v == 0) return "0";
  std::string s;
  for (; v; v >>= 1) s.insert(s.begin(), char('0' + (v & 1)));
  return s;
}

}  // namespace

OccupancyVcd::OccupancyVcd(sc_core::sc_module_name name, const Router& router, const std::string& path, Cycle from,
                           Cycle cycles, const Clock& clock, bool kernel_at_half_period)
    : sc_module(name),
      router_(router),
      clock_(clock),
      sample_phase_(kernel_at_half_period ? clock.period * 0.75 : clock.period * 0.5),
      from_(from),
      until_(from + cycles),
      period_ps_(std::uint64_t(clock.period.to_seconds() * 1e12 + 0.5)),
      file_(path, "the VCD sim.vcd_file =") {
  const std::string prefix = std::string(router.basename()) + ".";
  std::size_t next_id = 0;
  std::fprintf(file_.get(),
               "$comment nwnsim occupancy of %s: flits in flight per internal channel, flits buffered per "
               "subswitch input; cycles %llu to %llu, %llu ps per cycle $end\n",
               router.basename(), static_cast<unsigned long long>(from), static_cast<unsigned long long>(until_ - 1),
               static_cast<unsigned long long>(period_ps_));
  std::fputs("$timescale 1ps $end\n", file_.get());
  std::fprintf(file_.get(), "$scope module %s $end\n", vcd_name(router.basename()).c_str());
  std::fputs("$scope module channels $end\n", file_.get());
  for (auto& link : router.internal_links()) {
    std::string n = link->name();
    if (n.compare(0, prefix.size(), prefix) == 0) n = n.substr(prefix.size());
    channels_.push_back({vcd_id(next_id++), -1});
    std::fprintf(file_.get(), "$var integer 32 %s %s $end\n", channels_.back().id.c_str(), vcd_name(n).c_str());
  }
  std::fputs("$upscope $end\n", file_.get());
  for (auto& ss : router.subswitches()) {
    std::string n = ss->name();
    if (n.compare(0, prefix.size(), prefix) == 0) n = n.substr(prefix.size());
    std::fprintf(file_.get(), "$scope module %s $end\n", vcd_name(n).c_str());
    for (int p = 0; p < ss->params().inputs; ++p) {
      inputs_.push_back({vcd_id(next_id++), -1});
      std::fprintf(file_.get(), "$var integer 32 %s in%d $end\n", inputs_.back().id.c_str(), p);
    }
    std::fputs("$upscope $end\n", file_.get());
  }
  std::fputs("$upscope $end\n$enddefinitions $end\n", file_.get());
  method_.start("sample", [this] { sample(); });
}

OccupancyVcd::~OccupancyVcd() { close(last_sampled_ + 1); }

void OccupancyVcd::close(Cycle end_cycle) {
  if (!file_.get()) return;
  if (started_) std::fprintf(file_.get(), "#%llu\n", static_cast<unsigned long long>(time_ps(end_cycle)));
  file_.close();
}

void OccupancyVcd::sample() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time first = clock_.delay(from_) + sample_phase_;
  if (now < first) {  // the method's first run, at time 0
    next_trigger(first - now);
    return;
  }
  const Cycle cycle = clock_.now();
  last_sampled_ = cycle;
  std::string changes;
  auto put = [&](Signal& s, int v) {
    if (v == s.last) return;
    s.last = v;
    changes += "b" + binary(v) + " " + s.id + "\n";
  };
  std::size_t i = 0;
  for (auto& link : router_.internal_links()) put(channels_[i++], int(link->flits_in_flight()));
  i = 0;
  for (auto& ss : router_.subswitches())
    for (int p = 0; p < ss->params().inputs; ++p) put(inputs_[i++], ss->buffered_flits_at(p));
  if (!started_) {
    std::fprintf(file_.get(), "#%llu\n$dumpvars\n%s$end\n", static_cast<unsigned long long>(time_ps(cycle)),
                 changes.c_str());
    started_ = true;
  } else if (!changes.empty()) {
    std::fprintf(file_.get(), "#%llu\n%s", static_cast<unsigned long long>(time_ps(cycle)), changes.c_str());
  }
  if (cycle + 1 >= until_) {
    close(until_);
    return;
  }
  next_trigger(clock_.period);
}

std::unique_ptr<OccupancyVcd> make_occupancy_vcd(const Config& cfg, const Network& net, bool kernel_at_half_period) {
  const std::string& path = cfg.get_string("sim.vcd_file");
  if (path.empty()) return nullptr;
  const std::int64_t r = cfg.get_int("sim.vcd_router");
  if (r >= std::int64_t(net.routers().size()))
    throw ConfigError(fmt::format("config error: sim.vcd_router = {} but the network has {} router(s) (allowed: 0 to {})",
                                  r, net.routers().size(), net.routers().size() - 1));
  return std::make_unique<OccupancyVcd>("occupancy_vcd", *net.routers()[std::size_t(r)], path,
                                        Cycle(cfg.get_int("sim.vcd_from")), Cycle(cfg.get_int("sim.vcd_cycles")),
                                        net.clock(), kernel_at_half_period);
}

}  // namespace nwn

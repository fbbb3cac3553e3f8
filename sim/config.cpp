#include "config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "../models/allocator.hpp"
#include "../models/organization.hpp"
#include "../models/routing.hpp"
#include "../power/technology.hpp"
#include "routing/routing.hpp"

namespace nwn {
namespace {

// Every value network.topology accepts: the networks with their own Network
// subclass and the graph topologies of sim/topo/.
std::vector<std::string> topology_names() {
  std::vector<std::string> names = registered_names("topology");
  for (const std::string& n : registered_names("graph topology"))
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<KeySpec> base_schema() {
  using V = ValueType;
  auto fixed = [](std::vector<std::string> c) { return [c] { return c; }; };
  return {
      {"sim.seed", V::Int, "1", 0, 9.2e18, nullptr, "", "random seed; same config and seed give identical results"},
      {"sim.warmup_cycles", V::Int, "2000", 0, 1e9, nullptr, "cycles", "cycles simulated before measurement starts"},
      {"sim.measure_cycles", V::Int, "10000", 1, 1e9, nullptr, "cycles",
       "measurement window: packets created in it are marked and measured"},
      {"sim.drain_cap_cycles", V::Int, "20000", 0, 1e9, nullptr, "cycles",
       "after the window, wait at most this long for marked packets; a point that does not drain is saturated"},
      {"sim.saturation_accept_ratio", V::Float, "0.99", 0.5, 1, nullptr, "",
       "a point is saturated when its marked packets do not drain or it accepts less than this fraction of the "
       "load it was offered (its source queues grew); run, sweep and saturation share this rule"},
      {"sim.watchdog_cycles", V::Int, "5000", 10, 1e9, nullptr, "cycles",
       "flits in the network and no flit moving for this long ends the run with a report of the stuck buffers"},
      {"sim.threads", V::Int, "1", 1, 256, nullptr, "threads",
       "threads that run the routers of one simulation; results are identical for any count (run --threads N). "
       "Each block of cycles ends with the threads meeting, so threads pay on networks of some size only: two "
       "threads slowed one router and a 12-router fat tree, and sped up a 48-router one (docs/SCALING.md)"},
      {"sim.block_cycles", V::Int, "0", 0, 1e6, nullptr, "cycles",
       "cycle blocks: each router with its terminals runs up to this many cycles in a row (0: as many as the shortest "
       "router-to-router channel allows, twice that when the routers split in two colours, as a fat tree's levels "
       "do; 1: off); results are identical for any value"},
      {"sim.partition", V::String, "auto", 0, 0, fixed({"auto", "contiguous", "groups", "metis"}), "",
       "under mpirun, how the ranks split the routers (each with its terminals): contiguous (router-id ranges of "
       "about equal weight), groups (the topology's own: Dragonfly groups, fat-tree pods), metis (a graph "
       "partition of any topology by METIS: fewer channels between ranks, never more than contiguous, each rank "
       "within 3 % of its share) or auto (of these three, the lightest heaviest rank, then two colours, then the "
       "fewest channels between ranks); results are identical "
       "for any value and rank count (docs/SCALING.md)"},
      {"sim.clock_ghz", V::Float, "5", 0.001, 1000, nullptr, "GHz", "datapath clock (the paper: 5 GHz)"},
      {"sim.heatmap", V::Bool, "false", 0, 0, nullptr, "",
       "count packets from each input port to each output port of every router (run --heatmap FILE)"},
      {"sim.sample_cycles", V::Int, "1000", 0, 1e9, nullptr, "cycles",
       "time series: accepted load and latency of the packets delivered in each interval of this many cycles "
       "(results.time_series; 0: off); a run of more than 131,072 intervals gets intervals of twice, four "
       "times... this, until it fits (results.time_series.sample_cycles: the interval used)"},
      {"sim.max_cycles", V::Int, "10000000", 1, 1e15, nullptr, "cycles",
       "batch and trace runs (which end when every packet is delivered): give up after this many cycles"},
      {"sim.packet_trace_file", V::String, "", 0, 0, nullptr, "",
       "write the path of the chosen packets (packet_trace_ids, packet_trace_every), flit by flit, to this file "
       "(run --trace-packets FILE; format in docs/WORKLOADS.md)"},
      {"sim.packet_trace_ids", V::String, "", 0, 0, nullptr, "",
       "packets to trace: comma-separated packet ids (the k-th packet created by node n has id k x nodes + n), "
       "e.g. \"12,40\""},
      {"sim.packet_trace_every", V::Int, "0", 0, 1e15, nullptr, "packets",
       "also trace every Nth packet of every node (the k-th packet of node n when (k + n) mod N = 0); 0: none"},
      {"sim.vcd_file", V::String, "", 0, 0, nullptr, "",
       "VCD of one router's occupancy: flits in flight on each internal channel and flits buffered at each "
       "subswitch input, once per cycle (run --vcd FILE)"},
      {"sim.vcd_router", V::Int, "0", 0, 1e9, nullptr, "router", "the router the VCD records"},
      {"sim.vcd_from", V::Int, "0", 0, 1e15, nullptr, "cycles", "first cycle the VCD records"},
      {"sim.vcd_cycles", V::Int, "1000", 1, 1e9, nullptr, "cycles", "cycles the VCD records"},
      {"network.topology", V::String, "single", 0, 0, topology_names, "",
       "single: one router with a terminal per port; fclos: k-ary n-tree folded Clos; hyperx: HyperX (L, S, K, T); "
       "the graph topologies of sim/topo/ (torus, mesh, slimfly, dragonfly, fattree, ...) with parameters "
       "network.<topology>.*, simulated with a router.org router at every vertex (docs/TOPOLOGIES.md)"},
      {"network.routing", V::String, "auto", 0, 0, routing_names, "", routing_help()},
      {"network.deadlock_free", V::Bool, "true", 0, 0, nullptr, "",
       "routings of the family graph (every topology but single, fclos and hyperx): true splits router.vcs into the "
       "routing's deadlock-free VC classes (hop-indexed, dateline) and checks that there are enough; false lets every packet use every VC, for deadlock studies: a network "
       "that wedges ends with exit code 3 and a stuck-network report"},
      {"network.eject_vcs", V::Int, "0", 0, 255, nullptr, "VCs",
       "VCs reserved at every router (in each message class) for packets to its own terminals, which may take the "
       "others too; packets to another router get the others only (the routing's VC classes scaled into them). 0: "
       "every packet on the routing's VCs. "
       "1 or more breaks the cycle through two routers that an internal channel shared by packets to a global port "
       "and packets to a terminal can close (docs/RESULTS.md, \"Deadlock across routers\"); networks only"},
      {"network.link_latency_cycles", V::Int, "10", 1, 1e6, nullptr, "cycles",
       "router-to-router channel latency, port to port (SerDes, sync, propagation)"},
      {"network.credit_latency_cycles", V::Int, "0", 0, 1e6, nullptr, "cycles",
       "router-to-router credit latency (0: network.link_latency_cycles; BookSim's credit channels take one cycle "
       "more than its 1-cycle flit channels: docs/VALIDATION.md)"},
      {"network.port_assignment", V::String, "tied", 0, 0, fixed({"tied", "interleaved"}), "",
       "how a router's port groups map onto its switch's physical ports (Fig. 10)"},
      {"network.fclos_levels", V::Int, "3", 2, 8, nullptr, "levels",
       "fclos: levels n of the k-ary n-tree (k = router.radix; (k/2)^n nodes)"},
      {"network.hyperx_s", V::String, "8,8,8", 0, 0, nullptr, "routers",
       "hyperx: routers per dimension, comma-separated (L = count)"},
      {"network.hyperx_k", V::Int, "1", 1, 64, nullptr, "links", "hyperx: parallel links between two routers of a dimension"},
      {"network.hyperx_t", V::Int, "8", 1, 4096, nullptr, "terminals", "hyperx: terminals per router"},
      {"traffic.source", V::String, "synthetic", 0, 0, fixed({"synthetic", "trace", "external"}), "",
       "synthetic: the pattern, load and sizes below; trace: the packets of traffic.trace_file (docs/WORKLOADS.md); "
       "external: transactions from TLM-2.0 initiators of an embedding (nwn::TlmNetwork, docs/EMBEDDING.md)"},
      {"traffic.trace_file", V::String, "", 0, 0, nullptr, "",
       "source = trace: text file, one packet per line: cycle source destination size_flits (in a config file: "
       "relative to the file's directory)"},
      {"traffic.trace_time_scale", V::Float, "1", 1e-6, 1e6, nullptr, "",
       "source = trace: every trace cycle is multiplied by this (rounded): 0.5 offers the trace at twice its load"},
      {"traffic.mode", V::String, "open", 0, 0, fixed({"open", "batch"}), "",
       "open: open-loop, warm-up + measurement window + drain; batch: each node sends batch_packets packets, the run "
       "ends when all are delivered (completion time)"},
      {"traffic.batch_packets", V::Int, "100", 1, 1e9, nullptr, "packets", "mode = batch: packets each node sends"},
      {"traffic.batch_max_outstanding", V::Int, "0", 0, 1e9, nullptr, "packets",
       "mode = batch: a node waits while this many of its packets are undelivered (closed loop); 0: no limit"},
      {"traffic.pattern", V::String, "uniform", 0, 0, [] { return registered_names("pattern"); }, "",
       "destination pattern"},
      {"traffic.load", V::Float, "0.5", 0, 1, nullptr, "fraction of channel capacity",
       "offered load per node; 1.0 = one flit every serialization time of the terminal channel"},
      {"traffic.size_mix", V::String, "fixed", 0, 0, fixed({"fixed", "bimodal"}), "",
       "fixed: every packet has packet_flits flits; bimodal: half bimodal_small, half bimodal_large flits"},
      {"traffic.packet_flits", V::Int, "1", 1, 4096, nullptr, "flits", "packet length for size_mix = fixed"},
      {"traffic.bimodal_small_flits", V::Int, "1", 1, 4096, nullptr, "flits", "short packets of the bimodal mix"},
      {"traffic.bimodal_large_flits", V::Int, "5", 1, 4096, nullptr, "flits", "long packets of the bimodal mix"},
      {"traffic.hotspot_nodes", V::Int, "1", 1, 1e6, nullptr, "nodes",
       "hotspot: nodes 0 .. hotspot_nodes-1 are the hot spots"},
      {"traffic.hotspot_fraction", V::Float, "0.2", 0, 1, nullptr, "",
       "hotspot: fraction of packets sent to a hot spot (the rest uniform)"},
      {"router.org", V::String, "cn", 0, 0, organization_names, "",
       "switch organization (names as in the paper): cn, hc, fc, fcM, fcM-isuS, bb, bb-isuS, trv, trm, hxv, hxm, hx05, "
       "hx10; M, S and the radix each needs: docs/ORGANIZATIONS.md"},
      {"router.radix", V::Int, "64", 2, 4096, nullptr, "ports", "router radix k"},
      {"router.vcs", V::Int, "4", 1, 64, nullptr, "VCs", "virtual channels per buffered port"},
      {"router.vc_depth_flits", V::Int, "16", 1, 65536, nullptr, "flits", "input-port buffer depth per VC"},
      {"router.flow_control", V::String, "vct", 0, 0, fixed({"vct", "wormhole"}), "",
       "vct: a packet takes a downstream VC only when all of it fits; wormhole: when the VC is free"},
      {"router.switch_allocator", V::String, "islip", 0, 0, allocator_names, "", "switch allocation algorithm"},
      {"router.vc_allocator", V::String, "islip", 0, 0, allocator_names, "", "VC allocation algorithm"},
      {"router.allocator_iterations", V::Int, "1", 1, 64, nullptr, "", "iSLIP iterations"},
      {"router.allocator_impl", V::String, "model", 0, 0, fixed({"model", "rtl"}), "",
       "model: the C++ allocators; rtl: the Verilated RTL of rtl/ (builds with NWNSIM_RTL=ON; run --allocator rtl)"},
      {"router.rtl_router", V::Int, "-1", -1, 1e9, nullptr, "router",
       "allocator_impl = rtl: the one router that uses the RTL (-1: every router)"},
      {"router.rtl_trace_file", V::String, "", 0, 0, nullptr, "",
       "VCD of the RTL switch allocator of subswitch 0 of router max(rtl_router, 0) (run --trace-rtl FILE)"},
      {"router.rtl_trace_from", V::Int, "0", 0, 1e12, nullptr, "cycles", "first cycle of the RTL trace window"},
      {"router.rtl_trace_cycles", V::Int, "1000", 1, 1e9, nullptr, "cycles", "length of the RTL trace window"},
      {"router.input_speedup", V::Int, "1", 1, 64, nullptr, "",
       "crossbar inputs per input port (VC v uses crossbar input v mod speedup)"},
      {"router.isu_reading", V::String, "ports", 0, 0, fixed({"ports", "rows"}), "",
       "input speedup S of fcM-isuS and bb-isuS: ports: each router port of a bottom subswitch is S crossbar ports "
       "on both its input and its output side, the up ports single (the paper's Table II figures; an output's S "
       "crossbar ports feed its channel through an S-flit queue); rows: S crossbar rows for every bottom input, "
       "outputs single"},
      {"router.rc_cycles", V::Int, "1", 0, 1000, nullptr, "cycles", "route computation stage"},
      {"router.va_cycles", V::Int, "1", 0, 1000, nullptr, "cycles", "VC allocation stage"},
      {"router.sa_cycles", V::Int, "1", 0, 1000, nullptr, "cycles", "switch allocation stage"},
      {"router.st_cycles", V::Int, "1", 0, 1000, nullptr, "cycles", "switch traversal stage"},
      {"router.next_head_delay_cycles", V::Int, "0", 0, 1000, nullptr, "cycles",
       "cycles between a tail leaving a VC and the route computation of the packet behind it (0: in the tail's "
       "cycle; BookSim's iq router: 1, configs/booksim-compat.toml)"},
      {"router.hold_switch_for_packet", V::Bool, "false", 0, 0, nullptr, "",
       "packet-level switch allocation: a crossbar row and output stay with a packet from head to tail while it "
       "has a flit and a credit every cycle (BookSim's hold_switch_for_packet); false: flit by flit"},
      {"router.va_requires_credit", V::Bool, "true", 0, 0, nullptr, "",
       "true: VC allocation grants an output VC only with credits for the packet (vct) or a flit (wormhole); "
       "false: any free output VC, the head then waits in switch allocation for credits (BookSim's iq router, "
       "vc_busy_when_full = 0; configs/booksim-compat.toml); with vct a packet may then not fit whole downstream"},
      {"power.tech_file", V::String, "", 0, 0, nullptr, "",
       "technology TOML of the power model for run results' \"power\" (\"\": the paper's 22 nm, power/tech/22nm.toml)"},
      {"channel.latency_cycles", V::Int, "1", 1, 1e6, nullptr, "cycles", "terminal channel latency, each way"},
      {"channel.credit_latency_cycles", V::Int, "1", 1, 1e6, nullptr, "cycles", "credit return latency"},
      {"channel.inject_latency_cycles", V::Int, "0", 0, 1e6, nullptr, "cycles",
       "injection channel latency (0: channel.latency_cycles; BookSim's traffic manager injects after the "
       "network read its channels, one cycle more: configs/booksim-compat.toml)"},
      {"channel.width_bits", V::Int, "64", 1, 65536, nullptr, "bits", "datapath width (the paper: 64 bits at 5 GHz)"},
      {"flit.bits", V::Int, "128", 1, 65536, nullptr, "bits",
       "flit size; a flit occupies a channel for ceil(flit.bits / channel.width_bits) cycles"},
      {"embed.protocol", V::String, "request_response", 0, 0, fixed({"request_response", "posted"}), "",
       "embedding: request_response: every transaction goes to its target node and the target's response comes "
       "back (requests and responses on separate halves of the VCs); posted: one packet, the initiator's "
       "transaction ends when the network accepts it (no reads)"},
      {"embed.source_queue_packets", V::Int, "4", 1, 1e6, nullptr, "packets",
       "embedding: transactions a node's network interface holds before it stops accepting (END_REQ withheld, "
       "b_transport waits)"},
      {"embed.eject_buffer_flits", V::Int, "0", 0, 1e6, nullptr, "flits per VC",
       "embedding: flits a network interface holds for its target per VC; credits return when the target "
       "accepts (END_REQ); 0: router.vc_depth_flits"},
      {"embed.lookahead_cycles", V::Int, "1", 1, 1e6, nullptr, "cycles",
       "embedding: cycles the network may run ahead of SystemC time in one block (at most the shortest channel "
       "between routers); 1: exact; L > 1: an outside packet enters at the earliest at the first cycle not yet run, "
       "up to L - 1 cycles late unless its call is annotated that far ahead, and deliveries carry their cycle as an "
       "annotated delay (docs/EMBEDDING.md)"},
      {"embed.header_flits", V::Int, "1", 0, 64, nullptr, "flits",
       "embedding: flits of a packet before its data (ceil(bytes * 8 / flit.bits) data flits follow); at least one "
       "flit a packet"},
  };
}

std::string section_of(const std::string& key) { return key.substr(0, key.rfind('.')); }

// A key a second owner declares: the same key but for its meaning, which
// joins the first's.
void merge_key(KeySpec& have, const KeySpec& k, const std::string& owner) {
  if (k.type != have.type || k.default_value != have.default_value || k.min != have.min || k.max != have.max ||
      k.unit != have.unit || bool(k.choices) != bool(have.choices))
    throw std::logic_error("config keys of " + owner + ": " + k.key +
                           " is declared elsewhere with another type, default, range or unit");
  have.doc += "; " + k.doc;
}

// The base keys, then the keys components declare (the graph topologies'
// network.<topology>.<param>, each in its generator's file; the
// organizations' router.* keys, each in its organization's file), each after
// the last key of its section so that a section stays one TOML table.
std::vector<KeySpec> build_schema() {
  std::vector<KeySpec> keys = base_schema();
  for (auto& [owner, owned] : config_key_registry())
    for (const KeySpec& k : owned) {
      if (owner.find('.') != std::string::npos && k.key.rfind(owner + ".", 0) != 0)
        throw std::logic_error("config keys of " + owner + ": key " + k.key + " must start with " + owner + ".");
      auto same = std::find_if(keys.begin(), keys.end(), [&](const KeySpec& h) { return h.key == k.key; });
      if (same != keys.end()) {
        merge_key(*same, k, owner);
        continue;
      }
      auto last = std::find_if(keys.rbegin(), keys.rend(),
                               [&](const KeySpec& h) { return section_of(h.key) == section_of(k.key); });
      keys.insert(last == keys.rend() ? keys.end() : last.base(), k);
    }
  return keys;
}

std::string type_name(ValueType t) {
  switch (t) {
    case ValueType::Int: return "an integer";
    case ValueType::Float: return "a number";
    case ValueType::Bool: return "true or false";
    case ValueType::String: return "a string";
  }
  return "";
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string fmt_num(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return fmt::format("{}", std::int64_t(x));
  return fmt::format("{}", x);
}

// v in [min, max], compared as integers: double(v) rounds, so 9200000000000000001
// would pass a maximum of 9.2e18. A bound beyond the int64 range is no bound.
bool int_in_range(std::int64_t v, double min, double max) {
  constexpr double k2p63 = 9223372036854775808.0;
  if (min > -k2p63 && v < std::int64_t(std::ceil(min))) return false;
  if (max < k2p63 && v > std::int64_t(std::floor(max))) return false;
  return true;
}

std::string allowed(const KeySpec& k) {
  if (k.choices) return "one of: " + join(k.choices());
  if (k.type == ValueType::Bool) return "true or false";
  if (k.type == ValueType::String) return "a string";
  std::string what = k.type == ValueType::Int ? "an integer" : "a number";
  if (k.max >= 1e299) return what + " >= " + fmt_num(k.min);
  return what + " from " + fmt_num(k.min) + " to " + fmt_num(k.max);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    prev.swap(cur);
  }
  return prev[b.size()];
}

[[noreturn]] void unknown_key(const std::string& key, const std::string& origin, const char* what = "key") {
  std::string best;
  std::size_t best_d = 4;
  for (auto& k : config_schema()) {
    std::size_t d = edit_distance(key, k.key);
    if (d < best_d) {
      best_d = d;
      best = k.key;
    }
  }
  std::string section = key.substr(0, key.find('.'));
  std::vector<std::string> same;
  for (auto& k : config_schema())
    if (k.key.compare(0, section.size() + 1, section + ".") == 0) same.push_back(k.key);
  std::string msg = std::string("config error: unknown ") + what + " '" + key + "' (" + origin + ")";
  if (!best.empty()) msg += "; did you mean '" + best + "'?";
  if (!same.empty()) msg += " Keys in [" + section + "]: " + join(same);
  else msg += " Run 'nwnsim config --keys' for the list.";
  throw ConfigError(msg);
}

std::string toml_type(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a TOML string";
    case toml::node_type::integer: return "a TOML integer";
    case toml::node_type::floating_point: return "a TOML float";
    case toml::node_type::boolean: return "a TOML boolean";
    case toml::node_type::array: return "a TOML array";
    case toml::node_type::table: return "a TOML table";
    case toml::node_type::date: return "a TOML date";
    case toml::node_type::time: return "a TOML time";
    case toml::node_type::date_time: return "a TOML date-time";
    case toml::node_type::none: break;
  }
  return "a TOML value";
}

std::string toml_type(ValueType t) {
  switch (t) {
    case ValueType::Int: return "a TOML integer";
    case ValueType::Float: return "a TOML float or integer";
    case ValueType::Bool: return "a TOML boolean";
    case ValueType::String: return "a TOML string";
  }
  return "";
}

}  // namespace

OrganizationParams organization_params(const Config& cfg, int radix) {
  OrganizationParams o;
  o.name = cfg.get_string("router.org");
  o.radix = radix;
  o.vcs = int(cfg.get_int("router.vcs"));
  o.port_buffer_depth_flits = int(cfg.get_int("router.vc_depth_flits"));
  o.input_speedup = int(cfg.get_int("router.input_speedup"));
  o.isu_ports = cfg.get_string("router.isu_reading") == "ports";
  for (const KeySpec* k : organization_keys()) o.keys[k->key] = cfg.get_int(k->key);
  o.seed = std::uint64_t(cfg.get_int("sim.seed"));
  o.rc_cycles = int(cfg.get_int("router.rc_cycles"));
  o.va_cycles = int(cfg.get_int("router.va_cycles"));
  o.sa_cycles = int(cfg.get_int("router.sa_cycles"));
  o.st_cycles = int(cfg.get_int("router.st_cycles"));
  o.channel_pitch_um = double(cfg.get_int("channel.width_bits")) * 0.4;
  return o;
}

const std::vector<KeySpec>& config_schema() {
  static const std::vector<KeySpec> schema = build_schema();
  return schema;
}

const KeySpec* find_key(const std::string& key) {
  for (auto& k : config_schema())
    if (k.key == key) return &k;
  return nullptr;
}

bool is_file_key(const std::string& key) {
  static const char* const keys[] = {"traffic.trace_file", "power.tech_file", "sim.packet_trace_file",
                                     "sim.vcd_file", "router.rtl_trace_file"};
  return std::any_of(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; });
}

Config::Config() {
  for (auto& k : config_schema()) set(k.key, k.default_value, "default");
}

void Config::set(const std::string& key, const std::string& text, const std::string& origin) {
  const KeySpec* spec = find_key(key);
  if (!spec) unknown_key(key, origin);
  auto bad = [&]() -> ConfigError {
    return ConfigError("config error: " + key + " = '" + text + "' (" + origin + "): must be " + allowed(*spec));
  };
  Value v;
  switch (spec->type) {
    case ValueType::Int: {
      std::size_t pos = 0;
      try {
        v.i = std::stoll(text, &pos);
      } catch (...) {
        throw bad();
      }
      if (pos != text.size() || !int_in_range(v.i, spec->min, spec->max)) throw bad();
      break;
    }
    case ValueType::Float: {
      std::size_t pos = 0;
      try {
        v.f = std::stod(text, &pos);
      } catch (...) {
        throw bad();
      }
      if (pos != text.size() || !std::isfinite(v.f) || v.f < spec->min || v.f > spec->max) throw bad();
      break;
    }
    case ValueType::Bool:
      if (text == "true") v.b = true;
      else if (text == "false") v.b = false;
      else throw bad();
      break;
    case ValueType::String:
      v.s = text;
      if (spec->choices) {
        auto c = spec->choices();
        if (std::find(c.begin(), c.end(), text) == c.end() && !(key == "router.org" && !text.empty() &&
                                                                  std::any_of(c.begin(), c.end(), [&](auto& p) {
                                                                    return text.compare(0, p.size(), p) == 0;
                                                                  })))
          throw bad();
      }
      break;
  }
  values_[key] = v;
}

void Config::set_override(const std::string& assignment, const std::string& flag) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("config error: " + flag + " '" + assignment + "': expected key=value, e.g. " + flag +
                      " router.vcs=2");
  set(assignment.substr(0, eq), assignment.substr(eq + 1), flag + " " + assignment);
}

void Config::load_string(const std::string& text, const std::string& origin) {
  toml::table tbl;
  try {
    tbl = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << "config error: " << origin << ":" << e.source().begin.line << ":" << e.source().begin.column << ": "
       << e.description();
    throw ConfigError(os.str());
  }
  std::function<void(const toml::table&, const std::string&)> walk = [&](const toml::table& t,
                                                                         const std::string& prefix) {
    for (auto&& [k, node] : t) {
      const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
      const std::string where = origin + ":" + std::to_string(node.source().begin.line);
      if (auto sub = node.as_table()) {
        // A table is a section of the schema (even an empty one must be).
        const auto& keys = config_schema();
        if (std::none_of(keys.begin(), keys.end(), [&](const KeySpec& ks) { return ks.key.rfind(key + ".", 0) == 0; }))
          unknown_key(key, where, "table");
        walk(*sub, key);
        continue;
      }
      const KeySpec* spec = find_key(key);
      if (!spec) unknown_key(key, where);
      // The TOML type must be the key's: no quoted numbers, no 2.0 for an
      // integer (an integer is a number for a float key).
      const bool type_ok = spec->type == ValueType::Int      ? node.is_integer()
                           : spec->type == ValueType::Float  ? node.is_number()
                           : spec->type == ValueType::Bool   ? node.is_boolean()
                                                             : node.is_string();
      if (!type_ok) {
        std::ostringstream shown;
        node.visit([&](auto&& v) { shown << v; });
        throw ConfigError("config error: " + key + " = " + shown.str() + " (" + where + "): " + toml_type(node) +
                          ", but " + key + " takes " + toml_type(spec->type) + ": " + allowed(*spec));
      }
      std::string value;
      if (auto str = node.as_string()) value = str->get();
      else if (auto i = node.as_integer()) value = std::to_string(i->get());
      else if (auto f = node.as_floating_point()) value = fmt::format("{}", f->get());
      else value = node.as_boolean()->get() ? "true" : "false";
      set(key, value, where);
    }
  };
  walk(tbl, "");
}

void Config::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("config error: cannot read config file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string trace = get_string("traffic.trace_file");
  load_string(ss.str(), path);
  // A trace named in the file is found next to it, from any directory.
  const std::filesystem::path named = get_string("traffic.trace_file");
  if (named != trace && named.is_relative() && !named.empty())
    set("traffic.trace_file",
        std::filesystem::absolute(std::filesystem::path(path).parent_path() / named).lexically_normal().string(), path);
}

const Config::Value& Config::value(const std::string& key, ValueType want) const {
  const KeySpec* spec = find_key(key);
  if (!spec || spec->type != want) throw std::logic_error("config: no key " + key + " of " + type_name(want));
  return values_.at(key);
}

std::int64_t Config::get_int(const std::string& key) const { return value(key, ValueType::Int).i; }
double Config::get_float(const std::string& key) const { return value(key, ValueType::Float).f; }
bool Config::get_bool(const std::string& key) const { return value(key, ValueType::Bool).b; }
const std::string& Config::get_string(const std::string& key) const { return value(key, ValueType::String).s; }

std::string Config::text(const std::string& key) const {
  const KeySpec* spec = find_key(key);
  if (!spec) throw std::logic_error("config: no key " + key);
  const Value& v = values_.at(key);
  switch (spec->type) {
    case ValueType::Int: return std::to_string(v.i);
    case ValueType::Float: return fmt::format("{}", v.f);
    case ValueType::Bool: return v.b ? "true" : "false";
    case ValueType::String: return v.s;
  }
  return "";
}

std::string Config::to_toml() const {
  std::string out, section;
  // The table is everything before the last dot, so the graph topologies'
  // network.<name>.<param> keys go to [network.<name>] (a second [network]
  // would not load back).
  for (auto& k : config_schema()) {
    auto dot = k.key.rfind('.');
    std::string sec = k.key.substr(0, dot);
    if (sec != section) {
      out += (section.empty() ? "" : "\n") + std::string("[") + sec + "]\n";
      section = sec;
    }
    std::string v = text(k.key);
    if (k.type == ValueType::String) v = "\"" + v + "\"";
    out += k.key.substr(dot + 1) + " = " + v + "\n";
  }
  return out;
}

nlohmann::ordered_json Config::to_json() const {
  nlohmann::ordered_json j;
  for (auto& k : config_schema()) {
    const Value& v = values_.at(k.key);
    switch (k.type) {
      case ValueType::Int: j[k.key] = v.i; break;
      case ValueType::Float: j[k.key] = v.f; break;
      case ValueType::Bool: j[k.key] = v.b; break;
      case ValueType::String: j[k.key] = v.s; break;
    }
  }
  return j;
}

std::string schema_markdown() {
  std::string out = "| key | default | allowed | unit | meaning |\n|---|---|---|---|---|\n";
  for (auto& k : config_schema())
    out += "| `" + k.key + "` | " + k.default_value + " | " + allowed(k) + " | " + k.unit + " | " + k.doc + " |\n";
  return out;
}

std::vector<std::string> split_list(const std::string& text, const std::string& what, char sep,
                                    const std::string& allowed) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream is(text);
  while (std::getline(is, item, sep)) out.push_back(item);
  if (text.empty() || text.back() == sep) out.emplace_back();  // getline drops a trailing empty item
  const auto empty = std::find(out.begin(), out.end(), std::string());
  if (empty != out.end()) {
    const std::string problem =
        out.size() == 1 ? "an empty list" : fmt::format("item {} is empty", empty - out.begin() + 1);
    throw ConfigError(fmt::format("config error: {} '{}': {} (allowed: {}{}items separated by '{}', none empty)", what,
                                  text, problem, allowed, allowed.empty() ? "" : "; ", sep));
  }
  return out;
}

std::vector<std::int64_t> int_list(const Config& cfg, const std::string& key, std::int64_t min, std::int64_t max,
                                   const std::string& meaning) {
  const std::string& text = cfg.get_string(key);
  const std::string range = max >= std::numeric_limits<std::int64_t>::max() ? fmt::format(">= {}", min)
                                                                            : fmt::format("from {} to {}", min, max);
  std::vector<std::int64_t> out;
  std::string item;
  std::istringstream is(text);
  bool bad = text.empty() || text.back() == ',';  // getline drops a trailing empty item
  while (!bad && std::getline(is, item, ',')) {
    std::size_t pos = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &pos);
    } catch (...) {
      pos = 0;
    }
    while (pos < item.size() && item[pos] == ' ') ++pos;
    bad = item.empty() || pos != item.size() || v < min || v > max;
    out.push_back(v);
  }
  if (bad)
    throw ConfigError(fmt::format("config error: {} = '{}': must be a comma-separated list of integers {} ({})", key,
                                  text, range, meaning));
  return out;
}

namespace {

// The organization of every router, built as a description only (no
// module); a name or parameter it cannot build is a ConfigError.
Organization config_organization(const Config& cfg) {
  const OrganizationParams p = organization_params(cfg, int(cfg.get_int("router.radix")));
  try {
    return make_organization(p);
  } catch (const std::invalid_argument& e) {
    std::string set;  // the organizations' keys that are not at their defaults
    for (const KeySpec* k : organization_keys())
      if (std::to_string(p.keys.at(k->key)) != k->default_value) set += fmt::format(", {} = {}", k->key, p.keys.at(k->key));
    throw ConfigError(fmt::format("config error: router.org = '{}' (router.radix = {}{}): {}", p.name, p.radix, set,
                                  e.what()));
  }
}

}  // namespace

int message_classes(const Config& cfg) {
  return cfg.get_string("traffic.source") == "external" && cfg.get_string("embed.protocol") == "request_response"
             ? 2
             : 1;
}

int eject_buffer_flits(const Config& cfg) {
  if (cfg.get_string("traffic.source") != "external") return 0;
  const std::int64_t e = cfg.get_int("embed.eject_buffer_flits");
  return int(e > 0 ? e : cfg.get_int("router.vc_depth_flits"));
}

SmallestBuffer smallest_vc_buffer(const Config& cfg) {
  SmallestBuffer b{int(cfg.get_int("router.vc_depth_flits")), "router.vc_depth_flits"};
  for (const SubswitchSpec& s : config_organization(cfg).description.subswitches)
    if (s.vc_depth_flits < b.flits)
      b = {s.vc_depth_flits, s.port_buffers ? "router.vc_depth_flits" : "router.subswitch_vc_depth_flits"};
  if (const int eject = eject_buffer_flits(cfg); eject > 0 && eject < b.flits) b = {eject, "embed.eject_buffer_flits"};
  return b;
}

namespace {
// The VCs a routing and an organization split: router.vcs, or the half of
// one message class of an embedding in request/response mode.
struct ClassVcs {
  int vcs, classes;
  std::string text;  // how to name it in a message
};
ClassVcs class_vcs(const Config& cfg) {
  const int vcs = int(cfg.get_int("router.vcs")), m = message_classes(cfg);
  if (m == 1) return {vcs, 1, fmt::format("router.vcs = {}", vcs)};
  return {vcs / m, m,
          fmt::format("router.vcs = {} ({} a message class: embed.protocol = request_response gives requests and "
                      "responses half each)",
                      vcs, vcs / m)};
}
}  // namespace

namespace {
// network.eject_vcs: the router (Router::split_eject) scales each routing
// class's VCs into the VCs left to packets for other routers. Replays that
// scaling for both ways routings lay out their classes (c * vcs / classes,
// and c * (vcs / classes)) and refuses a class left with fewer VCs than the
// organization's internal classes.
void check_eject_vcs(const Config& cfg, int classes, int inner, const ClassVcs& v, const std::string& routing) {
  const int eject = int(cfg.get_int("network.eject_vcs"));
  if (eject == 0) return;
  const int vcs = int(cfg.get_int("router.vcs")), per = v.vcs, transit = per - eject;
  int fewest = transit;
  for (int c = 0; c < classes && transit > 0; ++c) {
    for (const auto& [lo, hi] : {std::pair<int, int>{c * vcs / classes, (c + 1) * vcs / classes - 1},
                                std::pair<int, int>{c * (vcs / classes), (c + 1) * (vcs / classes) - 1}}) {
      const VcRange in_class = scale_vcs(lo, hi, vcs, per);  // message class 0
      const VcRange in_transit = scale_vcs(in_class.lo, in_class.hi, per, transit);
      fewest = std::min(fewest, in_transit.hi - in_transit.lo + 1);
    }
  }
  if (eject < inner || transit < 1 || fewest < inner)
    throw ConfigError(fmt::format(
        "config error: network.eject_vcs = {}: {} leaves {} VCs to packets for other routers, which {} splits into "
        "{} classes{} ({} VCs the fewest), and router.org = {} needs {} VCs in each (internal classes), the eject "
        "VCs included; allowed: network.eject_vcs from {} with router.vcs large enough, or 0",
        eject, v.text, std::max(0, transit), routing, classes, v.classes > 1 ? " per message class" : "",
        std::max(0, fewest), cfg.get_string("router.org"), inner, inner));
}
}  // namespace

void check_route_vcs(const Config& cfg, int classes, const std::string& routing) {
  const ClassVcs v = class_vcs(cfg);
  const int inner = config_organization(cfg).description.vc_classes;
  check_eject_vcs(cfg, classes, inner, v, routing);
  if (v.vcs / classes < inner) {
    const std::string factors = v.classes > 1 ? fmt::format("{} x {} x {}", v.classes, classes, inner)
                                              : fmt::format("{} x {}", classes, inner);
    throw ConfigError(fmt::format("config error: {}: {} splits the VCs into {} classes, and router.org = "
                                  "{} splits the VCs of each into {} internal classes (deadlock freedom inside the "
                                  "switch); allowed: router.vcs >= {} = {}",
                                  v.text, routing, classes, cfg.get_string("router.org"), inner, factors,
                                  v.classes * classes * inner));
  }
}

void check_hop_classes(const Config& cfg, bool hop_indexed, const std::string& routing,
                       const std::function<std::vector<std::string>()>& allowed) {
  const SwitchDescription& d = config_organization(cfg).description;
  if (!d.mixes_hops) return;
  const std::string what = fmt::format(
      "config error: router.org = {} in a network of routers with {}", cfg.get_string("router.org"), routing);
  const std::string why = fmt::format(
      "its internal routing (Valiant) sends packets of every global hop through every internal channel, and its {} "
      "internal VC classes do not tell them apart",
      d.vc_classes);
  if (!hop_indexed) {
    const std::vector<std::string> routings = allowed();
    throw ConfigError(fmt::format(
        "{}: {}, so a packet that goes on to another router can wait for an internal VC held by a packet of "
        "another hop, and with VC classes that do not rise on every hop that closes a cycle through the routers "
        "(docs/RESULTS.md, \"Deadlock across routers\"); allowed: {}",
        what, why,
        routings.empty()
            ? std::string("another router.org (no network.routing of this topology has hop-indexed VC classes)")
            : "network.routing = " + join(routings, " or ") +
                  " (hop-indexed VC classes) with network.eject_vcs >= 1 and router.vcs large enough, or another "
                  "router.org"));
  }
  // Hop-indexed classes keep packets of different hops apart; packets for a
  // terminal still share the internal VCs with packets going on (a 1-D
  // HyperX of trv routers with minad wedged without ejection VCs).
  if (cfg.get_int("network.eject_vcs") < 1)
    throw ConfigError(fmt::format(
        "{} needs network.eject_vcs >= 1 (now 0): {}, so packets for a terminal share the internal VCs with packets "
        "going on to other routers (docs/RESULTS.md, \"Deadlock across routers\"); allowed: network.eject_vcs >= 1 "
        "with router.vcs large enough, or another router.org",
        what, why));
}

void check_config(const Config& cfg) {
  const std::string& topology = cfg.get_string("network.topology");
  if (const auto eject = cfg.get_int("network.eject_vcs"); eject > 0 && topology == "single")
    throw ConfigError(fmt::format("config error: network.eject_vcs = {}: a network.topology = single router has no "
                                  "router-to-router channel, every packet is for a terminal (allowed: 0, or a "
                                  "network of routers)",
                                  eject));
  const std::string& routing = cfg.get_string("network.routing");
  const std::vector<std::string> routings = topology_routings(topology);
  if (!routings.empty() && std::find(routings.begin(), routings.end(), routing) == routings.end())
    throw ConfigError("config error: network.routing = '" + routing + "' does not apply to network.topology = " +
                      topology + " (allowed: " + join(routings) + ")");

  const Organization org = config_organization(cfg);
  const std::string& name = cfg.get_string("router.org");
  const int vcs = int(cfg.get_int("router.vcs"));
  const SwitchDescription& d = org.description;
  if (!d.needs_topology.empty() && (topology != d.needs_topology || cfg.get_string("network.port_assignment") !=
                                                                        d.needs_port_assignment))
    throw ConfigError(fmt::format("config error: router.org = '{}' needs network.topology = {} with "
                                  "network.port_assignment = {}: {}",
                                  name, d.needs_topology, d.needs_port_assignment, d.needs_why));
  const ClassVcs v = class_vcs(cfg);
  if (vcs % v.classes != 0)
    throw ConfigError(fmt::format("config error: router.vcs = {} with embed.protocol = request_response: requests and "
                                  "responses take half the VCs each (allowed: an even router.vcs)",
                                  vcs));
  if (v.vcs < d.vc_classes)
    throw ConfigError(fmt::format("config error: {}: router.org = {} splits the VCs of every route into {} "
                                  "internal classes (deadlock freedom inside the switch, docs/ORGANIZATIONS.md); "
                                  "allowed: router.vcs >= {}",
                                  v.text, name, d.vc_classes, v.classes * d.vc_classes));
  for (const SubswitchSpec& s : d.subswitches) {
    int speedup = s.input_speedup;  // or the crossbar ports of a port with copies
    for (int c : s.copy_of)
      if (c >= 0) speedup = std::max(speedup, s.crossbar_ports(c));
    if (speedup > vcs) {
      // VC v uses crossbar input v mod S: S inputs need S VCs to feed them.
      const std::string source = name.find("-isu") != std::string::npos
                                     ? fmt::format("router.org = '{}' sets input speedup {}", name, speedup)
                                     : fmt::format("router.input_speedup = {}", speedup);
      throw ConfigError(fmt::format("config error: {} but router.vcs = {}: VC v uses crossbar input v mod speedup "
                                    "(allowed: an input speedup from 1 to router.vcs = {})",
                                    source, vcs, vcs));
    }
  }

  if (cfg.get_string("router.flow_control") == "vct" && cfg.get_string("traffic.source") == "synthetic") {
    const bool bimodal = cfg.get_string("traffic.size_mix") == "bimodal";
    std::string size_key = "traffic.packet_flits";
    if (bimodal)
      size_key = cfg.get_int("traffic.bimodal_large_flits") >= cfg.get_int("traffic.bimodal_small_flits")
                     ? "traffic.bimodal_large_flits"
                     : "traffic.bimodal_small_flits";
    const std::int64_t largest = cfg.get_int(size_key);
    const SmallestBuffer b = smallest_vc_buffer(cfg);
    if (largest > b.flits)
      throw ConfigError(fmt::format("config error: packets of {} flits ({} = {}) do not fit {} = {}: virtual "
                                    "cut-through needs every VC a packet enters to hold the whole packet (allowed: "
                                    "{} >= {}, or router.flow_control = wormhole)",
                                    largest, size_key, largest, b.key, b.flits, b.key, largest));
  }

  if (const std::string& tech = cfg.get_string("power.tech_file"); !tech.empty()) load_technology(tech, "power.tech_file");
}

}  // namespace nwn

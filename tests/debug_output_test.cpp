// Debug outputs of a run: packet traces (the path of chosen packets, event by
// event) and the VCD of a router's occupancy.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sim_util.hpp"

namespace nwn {
namespace {

using test::nwnsim;
using test::slurp;
using test::temp_path;

struct Event {
  std::uint64_t cycle = 0, packet = 0;
  std::string flit, kind, unit;
  std::map<std::string, std::string> kv;  // "in 2" -> kv["in"] = "2"
  int num(const std::string& k) const { return std::stoi(kv.at(k)); }
};

std::vector<Event> read_events(const std::string& path) {
  std::vector<Event> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    Event e;
    is >> e.cycle >> e.packet >> e.flit >> e.kind >> e.unit;
    std::string k, v;
    while (is >> k >> v) e.kv[k] = v;
    out.push_back(e);
  }
  return out;
}

// fc at radix 16: 8 bottom subswitches of n = 2 ports and m = 2 up ports,
// 2 tops. Bit complement sends every packet to another bottom, so its path
// is bottom -> top -> bottom: three traversals, each followed by the write
// into the buffer its channel leads to, at the cycle the channel said.
TEST(PacketTrace, PathThroughTheFoldedClosSwitch) {
  const std::string file = temp_path("path.trace");
  auto r = nwnsim("run --set router.org=fc --set router.radix=16 --set traffic.pattern=bitcomp "
                  "--set traffic.load=0.05 --set traffic.packet_flits=2 --set sim.warmup_cycles=100 "
                  "--set sim.measure_cycles=1000 --set sim.packet_trace_ids=3,21 --trace-packets " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto events = read_events(file);
  std::set<std::uint64_t> packets;
  for (auto& e : events) packets.insert(e.packet);
  EXPECT_EQ(packets, (std::set<std::uint64_t>{3, 21}));
  for (std::uint64_t id : {3, 21}) {
    SCOPED_TRACE("packet " + std::to_string(id));
    std::vector<Event> head, tail;
    for (auto& e : events)
      if (e.packet == id) (e.flit == "H" ? head : tail).push_back(e);
    ASSERT_FALSE(head.empty());
    ASSERT_EQ(head[0].kind, "create");
    const int src = head[0].num("src"), dst = head[0].num("dst");
    EXPECT_EQ(src, int(id % 16)) << "the k-th packet of node n has id k x 16 + n";
    EXPECT_EQ(dst, 15 - src);
    EXPECT_EQ(head[0].unit, "ni" + std::to_string(src));
    std::vector<std::string> kinds;
    for (auto& e : head) kinds.push_back(e.kind);
    const std::vector<std::string> expect = {"create", "inject",   "buffer", "route",    "vc-grant", "traverse",
                                             "buffer", "route",    "vc-grant", "traverse", "buffer",  "route",
                                             "vc-grant", "traverse", "eject"};
    ASSERT_EQ(kinds, expect);
    // Where: source bottom, a top, destination bottom, destination NI.
    EXPECT_EQ(head[2].unit, "router0.bottom" + std::to_string(src / 2));
    EXPECT_EQ(head[2].num("in"), src % 2);
    EXPECT_GE(head[3].num("out"), 2) << "up to a top";
    EXPECT_EQ(head[6].unit.rfind("router0.top", 0), 0u);
    EXPECT_EQ(head[6].num("in"), src / 2);
    EXPECT_EQ(head[7].num("out"), dst / 2);
    EXPECT_EQ(head[10].unit, "router0.bottom" + std::to_string(dst / 2));
    EXPECT_EQ(head[11].num("out"), dst % 2);
    EXPECT_EQ(head[14].unit, "ni" + std::to_string(dst));
    EXPECT_EQ(head[14].num("hops"), 3);
    // Each channel delivers where and when it said; cycles never go back.
    for (std::size_t i = 1; i < head.size(); ++i) EXPECT_GE(head[i].cycle, head[i - 1].cycle);
    for (std::size_t i : {1u, 5u, 9u, 13u}) {
      const std::string link = head[i].kv.at("link");
      EXPECT_EQ(head[i + 1].cycle, std::stoull(head[i].kv.at("arrives"))) << link;
      EXPECT_EQ(head[i + 1].num("vc"), head[i].num("vc")) << "the VC it was sent on (the last 'vc' of the line)";
      if (i == 13) {
        EXPECT_EQ(link, "ni" + std::to_string(dst) + ".eject");
        continue;
      }
      if (i == 1) {
        EXPECT_EQ(link, "ni" + std::to_string(src) + ".inject");
        continue;
      }
      // router0.FROM.p->TO.q: the next buffer write is at router0.TO input q.
      const std::string to = link.substr(link.find("->") + 2);
      EXPECT_EQ(head[i + 1].unit, "router0." + to.substr(0, to.rfind('.'))) << link;
      EXPECT_EQ(head[i + 1].num("in"), std::stoi(to.substr(to.rfind('.') + 1))) << link;
    }
    EXPECT_EQ(head[14].num("latency"), int(head[14].cycle - head[0].cycle));
    // The tail follows the same subswitches, without route or VC allocation.
    std::vector<std::string> tail_kinds, tail_units, head_units;
    for (auto& e : tail) {
      tail_kinds.push_back(e.kind);
      if (e.kind == "buffer") tail_units.push_back(e.unit);
    }
    for (auto& e : head)
      if (e.kind == "buffer") head_units.push_back(e.unit);
    EXPECT_EQ(tail_kinds, (std::vector<std::string>{"inject", "buffer", "traverse", "buffer", "traverse", "buffer",
                                                    "traverse", "eject"}));
    EXPECT_EQ(tail_units, head_units);
    for (auto& e : tail) EXPECT_EQ(e.flit, "T");
  }
}

TEST(PacketTrace, EveryNthPacketAndTheCanonicalCrossbar) {
  const std::string file = temp_path("every.trace");
  auto r = nwnsim("run --set router.radix=16 --set traffic.load=0.3 --set sim.warmup_cycles=0 "
                  "--set sim.measure_cycles=2000 --set sim.packet_trace_every=100 --trace-packets " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::map<std::uint64_t, std::vector<std::string>> kinds;
  std::set<std::uint64_t> sources;
  for (auto& e : read_events(file)) {
    // The k-th packet of node n (id k x 16 + n) when (k + n) mod 100 = 0.
    EXPECT_EQ((e.packet / 16 + e.packet % 16) % 100, 0u) << e.packet;
    sources.insert(e.packet % 16);
    kinds[e.packet].push_back(e.kind);
    if (e.kind == "eject") {
      EXPECT_EQ(e.num("hops"), 1);
    }
    if (e.kind == "buffer" || e.kind == "traverse") {
      EXPECT_EQ(e.unit, "router0.xbar");
    }
    EXPECT_EQ(e.flit, "HT") << "one-flit packets";
  }
  EXPECT_GE(kinds.size(), 15u);  // about 16 x 2000 x 0.15 / 100 = 48 packets
  EXPECT_EQ(sources.size(), 16u) << "every node's every 100th packet, not only nodes that divide 100";
  for (auto& [id, k] : kinds) {
    if (k.back() != "eject") continue;  // still in flight at the end
    EXPECT_EQ(k, (std::vector<std::string>{"create", "inject", "buffer", "route", "vc-grant", "traverse", "eject"}))
        << id;
  }
}

TEST(PacketTrace, BadSelectionsAreClearErrors) {
  auto r = nwnsim("run --trace-packets " + temp_path("x.trace"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no packet is chosen: set sim.packet_trace_ids"), std::string::npos) << r.output;
  r = nwnsim("run --set sim.packet_trace_ids=4,x --trace-packets " + temp_path("y.trace"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("sim.packet_trace_ids = '4,x': must be a comma-separated list of integers >= 0"),
            std::string::npos)
      << r.output;
  r = nwnsim("run --set sim.packet_trace_every=10");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("sim.packet_trace_file is empty"), std::string::npos) << r.output;
}

// The trace's packets are created at their (scaled) cycles: the packet
// trace of every packet shows it.
TEST(PacketTrace, TraceWorkloadPacketsAreCreatedAtTheirScaledCycles) {
  const std::string trace = temp_path("in.trace"), out = temp_path("out.trace");
  std::ofstream(trace) << "3 0 1 1\n3 0 2 2\n8 5 4 3\n20 7 7 1\n";
  auto r = nwnsim("run --set router.radix=8 --set traffic.source=trace --set traffic.trace_file=" + trace +
                  " --set traffic.trace_time_scale=2 --set sim.packet_trace_every=1 --trace-packets " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> created;
  for (auto& e : read_events(out))
    if (e.kind == "create")
      created.push_back(std::to_string(e.cycle) + " " + e.unit + " " + e.kv["dst"] + " " + e.kv["size"]);
  EXPECT_EQ(created, (std::vector<std::string>{"6 ni0 1 1", "6 ni0 2 2", "16 ni5 4 3", "40 ni7 7 1"}));
}

// Tracing and the VCD only watch: the results are bit-identical with them.
TEST(PacketTrace, DebugOutputsDoNotChangeResults) {
  const std::string plain = temp_path("plain.json"), traced = temp_path("traced.json");
  const std::string run = "run --set router.org=hc --set router.radix=16 --set traffic.load=0.7 "
                          "--set sim.warmup_cycles=200 --set sim.measure_cycles=2000 ";
  ASSERT_EQ(nwnsim(run + "--json " + plain).exit_code, 0);
  ASSERT_EQ(nwnsim(run + "--set sim.packet_trace_every=7 --trace-packets " + temp_path("p.txt") +
                   " --vcd " + temp_path("o.vcd") + " --json " + traced)
                .exit_code,
            0);
  auto a = nlohmann::json::parse(std::ifstream(plain))["results"];
  auto b = nlohmann::json::parse(std::ifstream(traced))["results"];
  EXPECT_EQ(a, b);
  auto sweep = nwnsim("sweep --loads 0.1,0.2 --set sim.vcd_file=x.vcd");
  EXPECT_EQ(sweep.exit_code, 2);
  // (named by its absolute path: a sweep's base config holds its files so)
  EXPECT_NE(sweep.output.find("/x.vcd': every point of a sweep would write that one file"), std::string::npos)
      << sweep.output;
  EXPECT_NE(sweep.output.find("sweep error: sim.vcd_file = '/"), std::string::npos) << sweep.output;
}

// ---- VCD ----

// Checks the VCD structure gtkwave relies on and returns the values of each
// variable (by name) over time.
struct Vcd {
  std::map<std::string, std::string> name_of;  // id -> scope.name
  std::vector<std::uint64_t> times;
  std::map<std::string, std::vector<int>> values;  // name -> every value written
};

Vcd parse_vcd(const std::string& path) {
  Vcd v;
  std::ifstream in(path);
  std::string tok;
  std::vector<std::string> scope;
  bool defs_done = false, timescale = false;
  int depth_max = 0;
  while (in >> tok) {
    if (tok == "$comment") {
      while (in >> tok && tok != "$end") {}
    } else if (tok == "$timescale") {
      std::string unit, end;
      in >> unit >> end;
      EXPECT_EQ(unit, "1ps");
      EXPECT_EQ(end, "$end");
      timescale = true;
    } else if (tok == "$scope") {
      std::string kind, name, end;
      in >> kind >> name >> end;
      EXPECT_EQ(kind, "module");
      EXPECT_EQ(end, "$end");
      scope.push_back(name);
      depth_max = std::max(depth_max, int(scope.size()));
    } else if (tok == "$upscope") {
      in >> tok;
      EXPECT_EQ(tok, "$end");
      EXPECT_FALSE(scope.empty());
      if (!scope.empty()) scope.pop_back();
    } else if (tok == "$var") {
      std::string type, width, id, name, end;
      in >> type >> width >> id >> name >> end;
      EXPECT_EQ(type, "integer");
      EXPECT_EQ(end, "$end");
      EXPECT_FALSE(defs_done);
      EXPECT_EQ(v.name_of.count(id), 0u) << "duplicate id " << id;
      std::string full;
      for (auto& s : scope) full += s + ".";
      v.name_of[id] = full + name;
    } else if (tok == "$enddefinitions") {
      in >> tok;
      EXPECT_EQ(tok, "$end");
      EXPECT_TRUE(scope.empty()) << "unbalanced $scope";
      defs_done = true;
    } else if (tok == "$dumpvars" || tok == "$end") {
      EXPECT_TRUE(defs_done);
    } else if (tok[0] == '#') {
      EXPECT_TRUE(defs_done);
      const std::uint64_t t = std::stoull(tok.substr(1));
      if (!v.times.empty()) {
        EXPECT_GT(t, v.times.back()) << "time must increase";
      }
      v.times.push_back(t);
    } else if (tok[0] == 'b') {
      std::string id;
      in >> id;
      EXPECT_FALSE(v.times.empty()) << "value before the first time";
      EXPECT_EQ(v.name_of.count(id), 1u) << "undeclared id " << id;
      EXPECT_EQ(tok.find_first_not_of("01", 1), std::string::npos) << tok;
      v.values[v.name_of[id]].push_back(int(std::stoul(tok.substr(1), nullptr, 2)));
    } else {
      ADD_FAILURE() << "unexpected token " << tok;
    }
  }
  EXPECT_TRUE(timescale);
  EXPECT_TRUE(defs_done);
  EXPECT_EQ(depth_max, 2);
  return v;
}

TEST(OccupancyVcd, WellFormedAndCoversTheWindow) {
  const std::string file = temp_path("occ.vcd");
  auto r = nwnsim("run --set router.org=fc --set router.radix=16 --set traffic.load=0.6 --set sim.warmup_cycles=200 "
                  "--set sim.measure_cycles=1000 --set sim.vcd_from=300 --set sim.vcd_cycles=200 --vcd " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Vcd v = parse_vcd(file);
  // fc16: 8 bottoms with 4 inputs, 2 tops with 8 inputs; 8 x 2 x 2 channels.
  int channels = 0, inputs = 0;
  for (auto& [id, name] : v.name_of) (name.find(".channels.") != std::string::npos ? channels : inputs)++;
  EXPECT_EQ(channels, 32);
  EXPECT_EQ(inputs, 8 * 4 + 2 * 8);
  ASSERT_GE(v.times.size(), 2u);
  EXPECT_EQ(v.times.front(), 300u * 200u);  // 200 ps per cycle at 5 GHz
  EXPECT_EQ(v.times.back(), 500u * 200u);   // the end of the window
  for (auto t : v.times) EXPECT_EQ(t % 200, 0u);
  EXPECT_GT(v.times.size(), 50u) << "at load 0.6 the occupancy changes most cycles";
  int busiest = 0;
  for (auto& [name, vals] : v.values)
    for (int x : vals) {
      EXPECT_GE(x, 0);
      if (name.find(".channels.") == std::string::npos) {
        EXPECT_LE(x, 4 * 16) << name << ": more than 4 VCs x 16 flits";
      }
      busiest = std::max(busiest, x);
    }
  EXPECT_GT(busiest, 0);
  EXPECT_EQ(v.values.size(), v.name_of.size()) << "$dumpvars gives every variable its first value";
}

// gtkwave's own reader: vcd2fst converts the file and fst2vcd gives back
// every variable (scripts/setup installs gtkwave, which has both).
TEST(OccupancyVcd, GtkwaveConvertsIt) {
  ASSERT_EQ(std::system("command -v vcd2fst >/dev/null 2>&1"), 0) << "vcd2fst missing: run scripts/setup (gtkwave)";
  const std::string vcd = temp_path("g.vcd"), fst = temp_path("g.fst"), back = temp_path("back.vcd");
  auto r = nwnsim("run --set router.org=hc --set router.radix=16 --set traffic.load=0.5 --set sim.vcd_from=100 "
                  "--set sim.vcd_cycles=100 --vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(std::system(("vcd2fst '" + vcd + "' '" + fst + "' >/dev/null 2>&1").c_str()), 0);
  ASSERT_EQ(std::system(("fst2vcd '" + fst + "' > '" + back + "' 2>/dev/null").c_str()), 0);
  const Vcd original = parse_vcd(vcd);
  std::ifstream in(back);
  std::string tok;
  std::size_t vars = 0;
  while (in >> tok) vars += tok == "$var";
  EXPECT_EQ(vars, original.name_of.size());
}

TEST(OccupancyVcd, BadRouterIsAClearError) {
  auto r = nwnsim("run --set sim.vcd_router=3 --vcd " + temp_path("x.vcd"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("sim.vcd_router = 3 but the network has 1 router(s) (allowed: 0 to 0)"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace nwn

// nwn::TlmNetwork (sim/embed.hpp): a network inside a user's SystemC model,
// driven through TLM-2.0 sockets.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <utility>
#include <sstream>

#include <nlohmann/json.hpp>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "sim/embed.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

using test::config;

// A user extension that must reach the target untouched.
struct Tag : tlm::tlm_extension<Tag> {
  std::uint64_t value = 0;
  tlm::tlm_extension_base* clone() const override { return new Tag(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { value = static_cast<const Tag&>(o).value; }
};

// One initiator socket per node, for tests that drive the network by hand.
struct Initiators : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket_tagged<Initiators, kTlmBusWidth>>> sockets;
  std::function<tlm::tlm_sync_enum(int, tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)> on_bw;
  Initiators(sc_core::sc_module_name name, TlmNetwork& net) : sc_module(name) {
    for (int n = 0; n < net.nodes(); ++n) {
      sockets.push_back(std::make_unique<tlm_utils::simple_initiator_socket_tagged<Initiators, kTlmBusWidth>>(
          ("init" + std::to_string(n)).c_str()));
      sockets.back()->register_nb_transport_bw(this, &Initiators::bw, n);
      sockets.back()->bind(net.target(n));
    }
  }
  tlm::tlm_sync_enum bw(int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    if (on_bw) return on_bw(n, gp, ph, d);
    return tlm::TLM_COMPLETED;
  }
};

// A memory per node: b_transport only (the socket's nb->b adapter serves
// the network's BEGIN_REQ), optional stall before answering.
struct Memories : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<Memories, kTlmBusWidth>>> sockets;
  std::vector<std::vector<unsigned char>> mem;
  std::vector<std::uint64_t> tags_seen;
  std::vector<unsigned> widths_seen;  // streaming widths
  std::uint64_t received = 0;
  sc_core::sc_time stall = sc_core::SC_ZERO_TIME;
  bool answer_error = false;
  Memories(sc_core::sc_module_name name, TlmNetwork& net, std::size_t bytes) : sc_module(name) {
    for (int n = 0; n < net.nodes(); ++n) {
      sockets.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged<Memories, kTlmBusWidth>>(
          ("mem" + std::to_string(n)).c_str()));
      sockets.back()->register_b_transport(this, &Memories::b_transport, n);
      net.initiator(n).bind(*sockets.back());
      mem.emplace_back(bytes, 0);
    }
  }
  void b_transport(int n, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++received;
    if (stall > sc_core::SC_ZERO_TIME) sc_core::wait(stall);
    Tag* tag = nullptr;
    gp.get_extension(tag);
    if (tag) tags_seen.push_back(tag->value);
    widths_seen.push_back(gp.get_streaming_width());
    if (answer_error) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    const std::uint64_t off = gp.get_address() % mem[n].size();
    unsigned char* data = gp.get_data_ptr();
    const unsigned len = gp.get_data_length();
    const unsigned char* be = gp.get_byte_enable_ptr();
    for (unsigned i = 0; i < len; ++i) {
      const bool on = !be || be[i % gp.get_byte_enable_length()] == TLM_BYTE_ENABLED;
      if (!on) continue;
      if (gp.is_write()) mem[n][off + i] = data[i];
      else data[i] = mem[n][off + i];
    }
    (void)delay;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

constexpr std::uint64_t kWindow = 0x1000;  // address window of each node

void map_nodes(TlmNetwork& net) {
  for (int n = 0; n < net.nodes(); ++n) net.address_map().add(std::uint64_t(n) * kWindow, kWindow, n);
}

// A posted 8-byte write from `socket` to node `dst` (NodeExtension), at
// SystemC time plus `delay`; `flits` > 0 sets the packet's size.
// `returned`, if given, receives the delay b_transport returns.
template <typename Socket>
void post_write(Socket& socket, int dst, int flits = 0, sc_core::sc_time delay = sc_core::SC_ZERO_TIME,
                sc_core::sc_time* returned = nullptr) {
  tlm::tlm_generic_payload gp;
  NodeExtension ext;
  ext.node = dst;
  ext.request_flits = flits;
  gp.set_extension(&ext);
  unsigned char data[8] = {};
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_data_ptr(data);
  gp.set_data_length(8);
  socket->b_transport(gp, delay);
  EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  if (returned) *returned = delay;
  gp.clear_extension(&ext);
}

// --- (1) the same packets from outside as from a trace: the same results ---

struct Packet {
  Cycle at;
  int src, dst, flits;
};

std::vector<Packet> random_packets(int nodes, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Packet> v;
  Cycle t = 0;
  for (int i = 0; i < count; ++i) {
    t += rng() % 3;
    v.push_back({t, int(rng() % nodes), int(rng() % nodes), 1 + int(rng() % 4)});
  }
  return v;
}

// Replays packets through LT b_transport, each created at its cycle through
// the annotated delay (one thread per node: nodes inject independently).
// Each carries a Tag with its index in `packets`.
struct Replayer : sc_core::sc_module {
  Initiators& init;
  std::vector<std::vector<std::size_t>> by_node;  // indices into packets
  std::vector<Packet> packets;
  sc_core::sc_time period;
  std::size_t done = 0;
  Replayer(sc_core::sc_module_name name, Initiators& i, const std::vector<Packet>& p, int nodes, sc_core::sc_time t)
      : sc_module(name), init(i), by_node(std::size_t(nodes)), packets(p), period(t) {
    for (std::size_t k = 0; k < packets.size(); ++k) by_node[std::size_t(packets[k].src)].push_back(k);
    for (int n = 0; n < nodes; ++n)
      sc_core::sc_spawn([this, n] { replay(n); }, ("replay" + std::to_string(n)).c_str());
  }
  void replay(int n) {
    tlm::tlm_generic_payload gp;
    NodeExtension ext;
    Tag tag;
    gp.set_extension(&ext);
    gp.set_extension(&tag);
    unsigned char data[8] = {};
    for (std::size_t i : by_node[std::size_t(n)]) {
      const Packet& k = packets[i];
      ext.node = k.dst;
      ext.request_flits = k.flits;
      tag.value = i;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(0);
      gp.set_data_ptr(data);
      gp.set_data_length(8);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time delay = period * double(k.at) - sc_core::sc_time_stamp();
      (*init.sockets[std::size_t(n)])->b_transport(gp, delay);
      EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
      ++done;
    }
    gp.clear_extension(&ext);
    gp.clear_extension(&tag);
  }
};

// AT targets that take every packet at once and note when it arrived
// (SystemC time plus the annotated delay) and its Tag, if any.
struct ArrivalTimes : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<ArrivalTimes, kTlmBusWidth>>> sockets;
  std::vector<sc_core::sc_time> arrivals;
  std::map<std::uint64_t, sc_core::sc_time> arrival_of_tag;
  ArrivalTimes(sc_core::sc_module_name name, TlmNetwork& net) : sc_module(name) {
    for (int n = 0; n < net.nodes(); ++n) {
      sockets.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged<ArrivalTimes, kTlmBusWidth>>(
          ("t" + std::to_string(n)).c_str()));
      sockets.back()->register_nb_transport_fw(this, &ArrivalTimes::fw, n);
      net.initiator(n).bind(*sockets.back());
    }
  }
  tlm::tlm_sync_enum fw(int, tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time& delay) {
    arrivals.push_back(sc_core::sc_time_stamp() + delay);
    if (const Tag* tag = gp.get_extension<Tag>()) arrival_of_tag[tag->value] = arrivals.back();
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
};

// A standalone trace run of `packets` in a child process (nwnsim run), with
// `sets` and the extra `--set`s; returns its results section.
nlohmann::json run_standalone_trace(const std::vector<Packet>& packets, const std::vector<std::string>& sets,
                                    const std::string& extra) {
  const std::string trace = test::temp_path("packets.trace"), json = test::temp_path("standalone.json");
  {
    std::ofstream out(trace);
    for (const Packet& k : packets) out << k.at << " " << k.src << " " << k.dst << " " << k.flits << "\n";
  }
  std::string args = "run --quiet --json " + json + " --set traffic.source=trace --set traffic.trace_file=" + trace;
  for (auto& s : sets) args += " --set " + s;
  const auto standalone = test::nwnsim(args + " " + extra);
  EXPECT_EQ(standalone.exit_code, 0) << standalone.output;
  return nlohmann::json::parse(test::slurp(json))["results"];
}

class EmbedTrace : public ::testing::TestWithParam<std::vector<std::string>> {};

// The results section bit for bit, and every packet's latency: the
// standalone run's from its packet trace (the tail's eject line), the
// embedding's from when the packet reached its target (BEGIN_REQ at
// (d + 1/2) periods for a tail delivered in cycle d) and the cycle it was
// replayed for.
TEST_P(EmbedTrace, OutsideInitiatorsGiveTheTraceRunsResults) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  std::vector<std::string> sets = GetParam();
  Config cfg;
  for (auto& s : sets) cfg.set_override(s);
  Config embedded = cfg;
  embedded.set_override("embed.protocol=posted");
  embedded.set_override("embed.source_queue_packets=100000");
  embedded.set_override("embed.eject_buffer_flits=100000");
  TlmNetwork net("net", embedded);
  const auto packets = random_packets(net.nodes(), 600, 7);
  const std::string packet_trace = test::temp_path("standalone-packets.txt");
  const auto expected = run_standalone_trace(
      packets, sets, "--set sim.packet_trace_every=1 --set sim.packet_trace_file=" + packet_trace);
  // Node n's k-th packet is packet k x nodes + n (in both).
  std::map<std::uint64_t, Cycle> standalone_latency;
  {
    std::istringstream in(test::slurp(packet_trace));
    for (std::string line; std::getline(in, line);) {
      std::istringstream f(line);
      std::string cycle, id, kind, event, word;
      f >> cycle >> id >> kind >> event;
      if (event != "eject" || (kind != "T" && kind != "HT")) continue;
      while (f >> word && word != "latency") {}
      f >> standalone_latency[std::stoull(id)];
    }
  }
  ASSERT_EQ(standalone_latency.size(), packets.size());

  Initiators init("init", net);
  ArrivalTimes targets("targets", net);
  Replayer replay("replay", init, packets, net.nodes(), net.period());
  sc_core::sc_start(net.period() * double(expected["cycles"].get<std::uint64_t>()));
  EXPECT_EQ(replay.done, packets.size());
  ASSERT_EQ(targets.arrival_of_tag.size(), packets.size());
  std::vector<std::uint64_t> sent(std::size_t(net.nodes()), 0);
  int differ = 0;
  for (std::size_t i = 0; i < packets.size(); ++i) {
    const std::uint64_t id = sent[std::size_t(packets[i].src)]++ * std::uint64_t(net.nodes()) + packets[i].src;
    const double latency = targets.arrival_of_tag.at(i) / net.period() - 0.5 - double(packets[i].at);
    if (latency != double(standalone_latency.at(id)) && ++differ <= 5)
      ADD_FAILURE() << "packet " << i << " (id " << id << "): latency " << latency << " embedded, "
                    << standalone_latency.at(id) << " standalone";
  }
  EXPECT_EQ(differ, 0);
  nlohmann::json got = nlohmann::json::parse(net.results().to_json().dump());
  EXPECT_EQ(got["workload"], "external");
  EXPECT_EQ(got["packets_measured"], packets.size());
  EXPECT_TRUE(got["drained"].get<bool>());
  got["workload"] = expected["workload"];
  EXPECT_EQ(got.dump(1), expected.dump(1));
}

const std::vector<std::string> kFclos3 = {"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                          "network.link_latency_cycles=3"};

INSTANTIATE_TEST_SUITE_P(
    Networks, EmbedTrace,
    ::testing::Values(std::vector<std::string>{"router.radix=16", "router.org=fc"}, kFclos3,
                      std::vector<std::string>{"network.topology=torus", "network.torus.dims=4,4", "network.torus.t=2",
                                               "router.radix=8", "router.vcs=4"},
                      // Blocks of 3 cycles (the links' latency): the replayer's calls are
                      // annotated ahead of their cycles, so they are still exact.
                      std::vector<std::string>{"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                               "network.link_latency_cycles=3", "embed.lookahead_cycles=8"}));

// The occupancy VCD of an embedding is the standalone run's, byte for byte:
// samples at the end of every cycle (docs/EMBEDDING.md). With a VCD the
// network runs one cycle at a time whatever embed.lookahead_cycles, as a
// standalone run does whatever sim.block_cycles, so lookahead 8 gives the
// same file.
class EmbedVcd : public ::testing::TestWithParam<int> {};

TEST_P(EmbedVcd, OccupancyVcdIsTheTraceRunsVcd) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const std::string vcd_standalone = test::temp_path("standalone.vcd"), vcd_embedded = test::temp_path("embedded.vcd");
  std::vector<std::string> sets = kFclos3;
  for (const char* s : {"sim.vcd_router=1", "sim.vcd_from=20", "sim.vcd_cycles=400"}) sets.push_back(s);
  Config embedded;
  for (auto& s : sets) embedded.set_override(s);
  for (const std::string& s : std::vector<std::string>{"embed.protocol=posted", "embed.source_queue_packets=100000",
                              "embed.eject_buffer_flits=100000", "embed.lookahead_cycles=" + std::to_string(GetParam()),
                              "sim.vcd_file=" + vcd_embedded})
    embedded.set_override(s);
  auto net = std::make_unique<TlmNetwork>("net", embedded);
  ASSERT_EQ(net->network().kernel()->block(), 1);
  const auto packets = random_packets(net->nodes(), 600, 11);
  const auto expected = run_standalone_trace(packets, sets, "--set sim.vcd_file=" + vcd_standalone);
  ASSERT_GT(expected["cycles"].get<std::uint64_t>(), 420u);  // the window ends inside the run
  Initiators init("init", *net);
  ArrivalTimes targets("targets", *net);
  Replayer replay("replay", init, packets, net->nodes(), net->period());
  sc_core::sc_start(net->period() * double(expected["cycles"].get<std::uint64_t>()));
  EXPECT_EQ(replay.done, packets.size());
  net.reset();  // closes the VCD
  const std::string want = test::slurp(vcd_standalone), got = test::slurp(vcd_embedded);
  ASSERT_GT(want.size(), 1000u);
  EXPECT_NE(want.find("#4200"), std::string::npos);  // changes inside the window (200 ps cycles: cycle 21)
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Lookahead, EmbedVcd, ::testing::Values(1, 8));

// --- (2) payload, byte enables and extensions arrive; reads return data ---

TEST(Embed, PayloadBytesAndExtensionsGoThroughEndToEnd) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                "router.org=fc"}));
  map_nodes(net);
  Initiators init("init", net);
  Memories mem("mem", net, kWindow);
  bool checked = false;
  sc_core::sc_spawn([&] {
    tlm::tlm_generic_payload gp;
    Tag tag;
    tag.value = 0xfeedface;
    gp.set_extension(&tag);
    unsigned char data[40], back[40], be[4] = {TLM_BYTE_ENABLED, TLM_BYTE_ENABLED, TLM_BYTE_DISABLED, TLM_BYTE_ENABLED};
    for (int i = 0; i < 40; ++i) data[i] = (unsigned char)(i * 7 + 1);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    // Node 3 writes 40 bytes into node 6's window, every third of four bytes disabled.
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(6 * kWindow + 0x100);
    gp.set_data_ptr(data);
    gp.set_data_length(40);
    gp.set_streaming_width(40);
    gp.set_byte_enable_ptr(be);
    gp.set_byte_enable_length(4);
    (*init.sockets[3])->b_transport(gp, delay);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    const sc_core::sc_time after_write = sc_core::sc_time_stamp();
    EXPECT_GT(after_write, sc_core::SC_ZERO_TIME);  // returned after the round trip
    // Node 1 reads it back, with a tag of its own.
    std::memset(back, 0xee, sizeof back);
    tag.value = 0xbeef;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_streaming_width(20);
    gp.set_data_ptr(back);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_byte_enable_length(0);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    (*init.sockets[1])->b_transport(gp, delay);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    for (int i = 0; i < 40; ++i) EXPECT_EQ(back[i], i % 4 == 2 ? 0 : data[i]) << "byte " << i;
    gp.clear_extension(&tag);
    checked = true;
  });
  sc_core::sc_start(net.period() * 2000.0);
  ASSERT_TRUE(checked);
  ASSERT_EQ(mem.tags_seen.size(), 2u);
  EXPECT_EQ(mem.tags_seen[0], 0xfeedfaceu);
  EXPECT_EQ(mem.tags_seen[1], 0xbeefu);
  EXPECT_EQ(mem.widths_seen, (std::vector<unsigned>{40, 20}));
  const RunResult r = net.results();
  EXPECT_EQ(r.packets_measured, 4u);  // two requests, two responses
  // A 40-byte write of 128-bit flits: 1 header + 3 data flits; its response 1; the read 1, its response 4.
  EXPECT_EQ(r.flits_created, 4u + 1u + 1u + 4u);
  EXPECT_EQ(net.outstanding(), 0u);
  // Requests and responses are the two message classes, each with its latency.
  ASSERT_EQ(r.classes.size(), 2u);
  EXPECT_EQ(r.classes[0]["packets_measured"], 2u);
  EXPECT_EQ(r.classes[1]["packets_measured"], 2u);
  EXPECT_GT(r.classes[1]["latency_avg"].get<double>(), 0.0);
}

// Posted: the initiator's transaction ends at acceptance, so the network
// carries its own copy: fields, data, byte enables, streaming width, and
// the user's extensions cloned (dropped again when the next payload lacks
// them). The initiator overwrites its payload at once; the target still
// sees what was sent.
struct Snapshot {
  const tlm::tlm_generic_payload* gp;
  tlm::tlm_command command;
  std::uint64_t address;
  std::vector<unsigned char> data, byte_enables;
  unsigned streaming_width;
  const Tag* tag;
  std::uint64_t tag_value;
};

struct Recorder : sc_core::sc_module {
  tlm_utils::simple_target_socket<Recorder, kTlmBusWidth> socket;
  std::vector<Snapshot> seen;
  explicit Recorder(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_fw(this, &Recorder::fw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time&) {
    const Tag* tag = gp.get_extension<Tag>();
    const unsigned char* be = gp.get_byte_enable_ptr();
    seen.push_back({&gp, gp.get_command(), gp.get_address(),
                    std::vector<unsigned char>(gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length()),
                    be ? std::vector<unsigned char>(be, be + gp.get_byte_enable_length()) : std::vector<unsigned char>{},
                    gp.get_streaming_width(), tag, tag ? tag->value : 0});
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
};

TEST(Embed, PostedWritesArriveAsCopiesWithTheirExtensions) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=4", "embed.protocol=posted"}));
  map_nodes(net);
  Initiators init("init", net);
  Recorder target("target");
  net.initiator(2).bind(target.socket);
  tlm::tlm_generic_payload gp;
  Tag tag;
  unsigned char data[16], be[2] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};
  sc_core::sc_spawn([&] {
    // Three writes from node 0, 100 cycles apart: with the Tag, without, with.
    for (int k = 0; k < 3; ++k) {
      for (int i = 0; i < 16; ++i) data[i] = std::uint8_t(16 * k + i);
      be[1] = TLM_BYTE_DISABLED;
      tag.value = 100 + std::uint64_t(k);
      if (k != 1) gp.set_extension(&tag);
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(2 * kWindow + 0x40 * std::uint64_t(k));
      gp.set_data_ptr(data);
      gp.set_data_length(16);
      gp.set_streaming_width(4);
      gp.set_byte_enable_ptr(be);
      gp.set_byte_enable_length(2);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      (*init.sockets[0])->b_transport(gp, d);
      EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
      EXPECT_EQ(d, sc_core::SC_ZERO_TIME);  // accepted at once, before the packet left
      std::memset(data, 0xff, sizeof data);  // the initiator reuses its payload
      be[1] = TLM_BYTE_ENABLED;
      tag.value = 0;
      gp.clear_extension(&tag);
      sc_core::wait(net.period() * 100.0);
    }
  });
  sc_core::sc_start(net.period() * 1000.0);
  ASSERT_EQ(target.seen.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("write " + std::to_string(k));
    const Snapshot& s = target.seen[k];
    EXPECT_NE(s.gp, &gp);  // the network's copy
    EXPECT_EQ(s.command, tlm::TLM_WRITE_COMMAND);
    EXPECT_EQ(s.address, 2 * kWindow + 0x40 * k);
    std::vector<unsigned char> want(16);
    for (std::size_t i = 0; i < 16; ++i) want[i] = std::uint8_t(16 * k + i);
    EXPECT_EQ(s.data, want);
    EXPECT_EQ(s.byte_enables, (std::vector<unsigned char>{TLM_BYTE_ENABLED, TLM_BYTE_DISABLED}));
    EXPECT_EQ(s.streaming_width, 4u);
    if (k == 1) {
      EXPECT_EQ(s.tag, nullptr);  // the copy dropped the clone it held
    } else {
      ASSERT_NE(s.tag, nullptr);
      EXPECT_NE(s.tag, &tag);  // a clone
      EXPECT_EQ(s.tag_value, 100 + k);
    }
  }
}

// --- (3) AT backpressure at both ends: a target that stalls loses nothing ---

TEST(Embed, AtBackpressureFromAStallingTargetLosesNothing) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  // One VC a class and 2-flit buffers: little room in the network, so node 5's stall reaches the initiators.
  // The watchdog (100 cycles) must not take a target's 500-cycle stall for a deadlock.
  TlmNetwork net("net", config({"router.radix=8", "router.vcs=2", "router.vc_depth_flits=2",
                                "embed.source_queue_packets=2", "embed.eject_buffer_flits=2",
                                "sim.watchdog_cycles=100"}));
  map_nodes(net);
  Initiators init("init", net);
  Memories mem("mem", net, kWindow);
  mem.stall = net.period() * 500.0;  // each transaction holds node 5's target for 500 cycles
  constexpr int kPerNode = 6;
  std::map<tlm::tlm_generic_payload*, sc_core::sc_time> begin;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> gps;
  std::vector<std::unique_ptr<sc_core::sc_event>> end_req(8), end_resp(8);
  for (auto& e : end_req) e = std::make_unique<sc_core::sc_event>();
  for (auto& e : end_resp) e = std::make_unique<sc_core::sc_event>();
  int responses = 0;
  sc_core::sc_time longest_wait_for_end_req = sc_core::SC_ZERO_TIME;
  init.on_bw = [&](int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph == tlm::END_REQ) {
      longest_wait_for_end_req = std::max(longest_wait_for_end_req, sc_core::sc_time_stamp() - begin[&gp]);
      end_req[std::size_t(n)]->notify();
      return tlm::TLM_ACCEPTED;
    }
    EXPECT_EQ(ph, tlm::BEGIN_RESP);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    ++responses;
    return tlm::TLM_COMPLETED;
  };
  unsigned char data[16] = {};
  for (int n = 0; n < 8; ++n) {
    if (n == 5) continue;
    sc_core::sc_spawn([&, n] {
      for (int k = 0; k < kPerNode; ++k) {
        gps.push_back(std::make_unique<tlm::tlm_generic_payload>());
        tlm::tlm_generic_payload& gp = *gps.back();
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        gp.set_address(5 * kWindow + std::uint64_t(16 * k));
        gp.set_data_ptr(data);
        gp.set_data_length(16);
        gp.set_streaming_width(16);
        tlm::tlm_phase ph = tlm::BEGIN_REQ;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        begin[&gp] = sc_core::sc_time_stamp();
        const tlm::tlm_sync_enum s = (*init.sockets[std::size_t(n)])->nb_transport_fw(gp, ph, d);
        if (s == tlm::TLM_ACCEPTED) sc_core::wait(*end_req[std::size_t(n)]);  // backpressure
        else EXPECT_TRUE(s == tlm::TLM_UPDATED && ph == tlm::END_REQ);
      }
    });
  }
  sc_core::sc_start(net.period() * 40000.0);
  EXPECT_EQ(responses, 7 * kPerNode);
  EXPECT_EQ(mem.received, std::uint64_t(7 * kPerNode));
  EXPECT_GT(longest_wait_for_end_req, net.period() * 400.0);  // END_REQ was withheld while node 5 stalled
  EXPECT_EQ(net.outstanding(), 0u);
  const RunResult r = net.results();  // throws on a lost or duplicated flit
  EXPECT_EQ(r.flits_created, r.flits_ejected);
  EXPECT_TRUE(r.drained);
}

// A target that takes a request in progress (TLM_ACCEPTED, no END_REQ)
// while `hold` is set; otherwise it answers at once. release() answers the
// held one (BEGIN_RESP without END_REQ) at the current time.
struct HoldingTargets : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<HoldingTargets, kTlmBusWidth>>> sockets;
  bool hold = true;
  int held_node = -1;
  tlm::tlm_generic_payload* held = nullptr;
  std::uint64_t answered = 0;
  HoldingTargets(sc_core::sc_module_name name, TlmNetwork& net) : sc_module(name) {
    for (int n = 0; n < net.nodes(); ++n) {
      sockets.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged<HoldingTargets, kTlmBusWidth>>(
          ("t" + std::to_string(n)).c_str()));
      sockets.back()->register_nb_transport_fw(this, &HoldingTargets::fw, n);
      net.initiator(n).bind(*sockets.back());
    }
  }
  tlm::tlm_sync_enum fw(int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time&) {
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;  // END_RESP of the released one
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (hold && !held) {
      held = &gp;
      held_node = n;
      return tlm::TLM_ACCEPTED;
    }
    ++answered;
    return tlm::TLM_COMPLETED;
  }
  void release() {
    hold = false;
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    tlm::tlm_generic_payload* gp = std::exchange(held, nullptr);
    ++answered;
    (*sockets[std::size_t(held_node)])->nb_transport_bw(*gp, phase, delay);
  }
};

// The ejection buffer's credits go back when the target takes a request
// (END_REQ, or BEGIN_RESP), not when it is offered one (BEGIN_REQ): while
// node 5's target holds its first request, exactly router.vcs x
// embed.eject_buffer_flits = 4 one-flit packets leave the network there,
// the held one included; the rest wait in the network. Released, all arrive.
TEST(Embed, EjectionCreditsWaitForTheTargetToTakeTheRequest) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=8", "router.vcs=2", "embed.eject_buffer_flits=2",
                                "embed.protocol=posted"}));
  map_nodes(net);
  Initiators init("init", net);
  HoldingTargets targets("targets", net);
  constexpr int kPackets = 12;
  int sent = 0;
  sc_core::sc_spawn([&] {
    for (; sent < kPackets; ++sent) post_write(*init.sockets[0], 5, 1);
  });
  sc_core::sc_start(net.period() * 2000.0);
  ASSERT_NE(targets.held, nullptr);
  EXPECT_EQ(targets.held_node, 5);
  EXPECT_EQ(targets.answered, 0u);
  EXPECT_EQ(net.results().flits_ejected, 4u) << "router.vcs x embed.eject_buffer_flits";
  targets.release();
  sc_core::sc_start(net.period() * 2000.0);
  EXPECT_EQ(sent, kPackets);
  EXPECT_EQ(targets.answered, std::uint64_t(kPackets));
  const RunResult r = net.results();
  EXPECT_EQ(r.flits_ejected, std::uint64_t(kPackets));
  EXPECT_EQ(net.outstanding(), 0u);
}

// --- (3) LT backpressure keeps the initiator's local time ---

// The cycles of one event kind ("create", "inject", ...) of a packet trace,
// by packet id, for its flits of one kind ("H", "T", "HT"; empty: any).
std::map<std::uint64_t, Cycle> trace_cycles(const std::string& trace, const std::string& event,
                                            const std::string& flit = "") {
  std::map<std::uint64_t, Cycle> at;
  std::istringstream in(trace);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    Cycle cycle;
    std::uint64_t id;
    std::string kind, what;
    f >> cycle >> id >> kind >> what;
    if (what == event && (flit.empty() || kind == flit)) at[id] = cycle;
  }
  return at;
}

// An initiator running ahead with a quantum keeper fills node 0's source
// queue (2 packets of 4 flits, drained at one flit every 2 cycles: 128-bit
// flits on the default 64-bit channel). b_transport then waits in simulated
// time for room, and the packet is created at the later of the initiator's
// local time and the time room appeared; the returned delay keeps the rest
// of the initiator's offset, so its local time never goes back.
TEST(Embed, LtBackpressureKeepsTheInitiatorsLocalTime) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const std::string path = test::temp_path("lt.trace");
  auto net = std::make_unique<TlmNetwork>(
      "net", config({"router.radix=4", "embed.protocol=posted", "embed.source_queue_packets=2",
                     "sim.packet_trace_every=1", "sim.packet_trace_file=" + path}));
  Initiators init("init", *net);
  Memories mem("mem", *net, 64);
  const sc_core::sc_time T = net->period();
  tlm::tlm_global_quantum::instance().set(T * 100.0);
  // Each packet's local cycle. Two at 0 fill the queue (their tails are
  // injected at cycles 6 and 14). Packets 2 and 3 (local 20) wait for room
  // (6.5, 14.5), ahead of which their initiator runs: created at 20, they
  // return 13.5 and 5.5 periods of offset. Packet 4 (local 20) waits for
  // packet 2's tail (cycle 26): room at 26.5, after its local time: created
  // at 27, no offset left. Packet 5 (local 60) waits for packet 3's tail
  // (34): created at 60, returning 25.5 periods of offset.
  const std::vector<Cycle> local = {0, 0, 20, 20, 20, 60};
  std::vector<sc_core::sc_time> returned_at, returned_delay;
  sc_core::sc_spawn([&] {
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    for (Cycle c : local) {
      qk.set(T * double(c) - sc_core::sc_time_stamp());  // the initiator's local time: cycle c
      sc_core::sc_time delay = qk.get_local_time();
      post_write(*init.sockets[0], 1, 4, delay, &delay);
      returned_at.push_back(sc_core::sc_time_stamp());
      returned_delay.push_back(delay);
      qk.set(delay);
      EXPECT_EQ(qk.get_current_time(), std::max(T * double(c), sc_core::sc_time_stamp()));
    }
  });
  sc_core::sc_start(T * 200.0);
  ASSERT_EQ(returned_at.size(), local.size());
  EXPECT_EQ(mem.received, local.size());
  net.reset();  // closes the trace
  const std::string trace = test::slurp(path);
  const auto created = trace_cycles(trace, "create", "H");
  const auto tail_injected = trace_cycles(trace, "inject", "T");
  ASSERT_EQ(created.size(), local.size()) << trace;
  // Node 0's k-th packet has id 4k. A full queue waits for the tail of the
  // packet two ahead to be injected (cycle i); room appears when the kernel
  // has run that cycle, at (i + 1/2) periods.
  const std::vector<Cycle> want_created = {0, 0, 20, 20, 27, 60};
  const std::vector<double> want_returned_at = {0, 0, 6.5, 14.5, 26.5, 34.5};  // periods
  const std::vector<double> want_delay = {0, 0, 13.5, 5.5, 0, 25.5};          // periods
  for (std::size_t k = 0; k < local.size(); ++k) {
    SCOPED_TRACE("packet " + std::to_string(k));
    EXPECT_EQ(created.at(4 * k), want_created[k]);
    EXPECT_DOUBLE_EQ(returned_at[k] / T, want_returned_at[k]);
    EXPECT_DOUBLE_EQ(returned_delay[k] / T, want_delay[k]);
    // Room appeared when the packet two ahead left the queue.
    if (k >= 2) {
      EXPECT_DOUBLE_EQ(want_returned_at[k], double(tail_injected.at(4 * (k - 2))) + 0.5);
    }
  }
}

// --- AT paths: late END_RESP from an initiator, late or returned phases from a target ---

// An initiator that answers BEGIN_RESP with TLM_ACCEPTED and sends END_RESP
// 30 cycles later: the network holds the node's next response until then
// (response exclusion rule), and every response arrives.
TEST(Embed, AtInitiatorSendsEndRespLater) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=4"}));
  map_nodes(net);
  Initiators init("init", net);
  Memories mem("mem", net, kWindow);
  const sc_core::sc_time T = net.period();
  constexpr int kReads = 4;
  std::vector<tlm::tlm_generic_payload> gps(kReads);
  std::vector<std::array<unsigned char, 8>> data(kReads);
  std::vector<sc_core::sc_time> begin_resp, end_resp;
  sc_core::sc_event end_resp_due;
  tlm::tlm_generic_payload* responding = nullptr;
  init.on_bw = [&](int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    EXPECT_EQ(n, 0);
    EXPECT_EQ(ph, tlm::BEGIN_RESP);
    EXPECT_EQ(responding, nullptr) << "BEGIN_RESP before the previous END_RESP";
    responding = &gp;
    begin_resp.push_back(sc_core::sc_time_stamp() + d);
    end_resp_due.notify(d + T * 30.0);
    return tlm::TLM_ACCEPTED;
  };
  for (int n = 1; n < 4; ++n) mem.mem[std::size_t(n)][0] = std::uint8_t(10 + n);
  sc_core::sc_spawn([&] {  // four reads from node 0, back to back
    for (int k = 0; k < kReads; ++k) {
      tlm::tlm_generic_payload& gp = gps[std::size_t(k)];
      gp.set_command(tlm::TLM_READ_COMMAND);
      gp.set_address(std::uint64_t(1 + k % 3) * kWindow);
      gp.set_data_ptr(data[std::size_t(k)].data());
      gp.set_data_length(8);
      gp.set_streaming_width(8);
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      ASSERT_EQ((*init.sockets[0])->nb_transport_fw(gp, ph, d), tlm::TLM_UPDATED);
      ASSERT_EQ(ph, tlm::END_REQ);
    }
  });
  sc_core::sc_spawn([&] {  // END_RESP, 30 cycles after each BEGIN_RESP
    for (;;) {
      sc_core::wait(end_resp_due);
      tlm::tlm_phase ph = tlm::END_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      tlm::tlm_generic_payload* gp = std::exchange(responding, nullptr);
      end_resp.push_back(sc_core::sc_time_stamp());
      EXPECT_EQ((*init.sockets[0])->nb_transport_fw(*gp, ph, d), tlm::TLM_COMPLETED);
    }
  });
  sc_core::sc_start(T * 2000.0);
  ASSERT_EQ(begin_resp.size(), std::size_t(kReads));
  ASSERT_EQ(end_resp.size(), std::size_t(kReads));
  for (int k = 1; k < kReads; ++k) EXPECT_GE(begin_resp[std::size_t(k)], end_resp[std::size_t(k - 1)]);
  for (int k = 0; k < kReads; ++k) {
    EXPECT_EQ(gps[std::size_t(k)].get_response_status(), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(data[std::size_t(k)][0], 10 + 1 + k % 3) << "read " << k;
  }
  EXPECT_EQ(net.outstanding(), 0u);
  const RunResult r = net.results();
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.flits_created, r.flits_ejected);
}

// AT targets of three kinds, as the base protocol allows them to answer
// the network's BEGIN_REQ:
//   Accepted:        TLM_ACCEPTED, END_REQ on the backward path 20 cycles
//                    later, BEGIN_RESP 30 cycles after that
//   UpdatedEndReq:   TLM_UPDATED with END_REQ, BEGIN_RESP 30 cycles later
//   UpdatedBeginResp: TLM_UPDATED with BEGIN_RESP at once (the network then
//                    sends END_RESP)
// Each node's target checks the request exclusion rule: no BEGIN_REQ while
// the previous one has no END_REQ (or BEGIN_RESP).
enum class TargetStyle { Accepted, UpdatedEndReq, UpdatedBeginResp };

struct AtTargets : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<AtTargets, kTlmBusWidth>>> sockets;
  TargetStyle style;
  sc_core::sc_time period;
  std::vector<std::vector<unsigned char>> mem;
  std::vector<int> in_request;  // per node: BEGIN_REQ without END_REQ yet
  std::vector<sc_core::sc_time> begin_req;
  int end_resps = 0, begin_resps_completed = 0;
  AtTargets(sc_core::sc_module_name name, TlmNetwork& net, TargetStyle s)
      : sc_module(name), style(s), period(net.period()), in_request(std::size_t(net.nodes()), 0) {
    for (int n = 0; n < net.nodes(); ++n) {
      sockets.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged<AtTargets, kTlmBusWidth>>(
          ("t" + std::to_string(n)).c_str()));
      sockets.back()->register_nb_transport_fw(this, &AtTargets::fw, n);
      net.initiator(n).bind(*sockets.back());
      mem.emplace_back(kWindow, 0);
    }
  }
  void access(int n, tlm::tlm_generic_payload& gp) {
    unsigned char* data = gp.get_data_ptr();
    const std::uint64_t off = gp.get_address() % kWindow;
    for (unsigned i = 0; i < gp.get_data_length(); ++i) {
      if (gp.is_write()) mem[std::size_t(n)][off + i] = data[i];
      else data[i] = mem[std::size_t(n)][off + i];
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  void backward(int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase phase) {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    if (phase == tlm::BEGIN_RESP) access(n, gp);
    else --in_request[std::size_t(n)];
    const tlm::tlm_sync_enum s = (*sockets[std::size_t(n)])->nb_transport_bw(gp, phase, d);
    if (phase == tlm::END_REQ) {
      EXPECT_EQ(s, tlm::TLM_ACCEPTED);
    } else if (s == tlm::TLM_COMPLETED) {
      ++begin_resps_completed;
    }
  }
  tlm::tlm_sync_enum fw(int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (phase == tlm::END_RESP) {
      EXPECT_EQ(style, TargetStyle::UpdatedBeginResp);
      ++end_resps;
      return tlm::TLM_COMPLETED;
    }
    EXPECT_EQ(phase, tlm::BEGIN_REQ);
    EXPECT_EQ(in_request[std::size_t(n)], 0) << "BEGIN_REQ at node " << n << " before END_REQ";
    begin_req.push_back(sc_core::sc_time_stamp() + delay);
    const sc_core::sc_time at = delay;
    switch (style) {
      case TargetStyle::Accepted:
        ++in_request[std::size_t(n)];
        sc_core::sc_spawn([this, n, &gp, at] {
          sc_core::wait(at + period * 20.0);
          backward(n, gp, tlm::END_REQ);
          sc_core::wait(period * 30.0);
          backward(n, gp, tlm::BEGIN_RESP);
        });
        return tlm::TLM_ACCEPTED;
      case TargetStyle::UpdatedEndReq:
        sc_core::sc_spawn([this, n, &gp, at] {
          sc_core::wait(at + period * 30.0);
          backward(n, gp, tlm::BEGIN_RESP);
        });
        phase = tlm::END_REQ;
        return tlm::TLM_UPDATED;
      case TargetStyle::UpdatedBeginResp:
        access(n, gp);
        phase = tlm::BEGIN_RESP;
        return tlm::TLM_UPDATED;
    }
    return tlm::TLM_ACCEPTED;
  }
};

void PrintTo(TargetStyle s, std::ostream* os) {
  *os << (s == TargetStyle::Accepted ? "Accepted" : s == TargetStyle::UpdatedEndReq ? "UpdatedEndReq" : "UpdatedBeginResp");
}

class EmbedAtTarget : public ::testing::TestWithParam<TargetStyle> {};

// Three LT initiators write a word into node 3's memory and read it back,
// through the target of one kind: every transaction completes with its
// data, and nothing is left in the network.
TEST_P(EmbedAtTarget, EveryTransactionCompletes) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=4"}));
  map_nodes(net);
  Initiators init("init", net);
  AtTargets targets("targets", net, GetParam());
  constexpr int kPerNode = 5;
  int ok = 0;
  for (int n = 0; n < 3; ++n)
    sc_core::sc_spawn([&, n] {
      for (int k = 0; k < kPerNode; ++k) {
        unsigned char word[4] = {std::uint8_t(n), std::uint8_t(k), 0x5a, 0xa5}, back[4] = {};
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        gp.set_address(3 * kWindow + std::uint64_t(16 * (n * kPerNode + k)));
        gp.set_data_ptr(word);
        gp.set_data_length(4);
        gp.set_streaming_width(4);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        (*init.sockets[std::size_t(n)])->b_transport(gp, d);
        ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_data_ptr(back);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        (*init.sockets[std::size_t(n)])->b_transport(gp, d);
        ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(std::memcmp(word, back, 4), 0);
        ++ok;
      }
    });
  sc_core::sc_start(net.period() * 20000.0);
  EXPECT_EQ(ok, 3 * kPerNode);
  EXPECT_EQ(targets.begin_req.size(), std::size_t(2 * 3 * kPerNode));
  if (GetParam() == TargetStyle::UpdatedBeginResp) {
    EXPECT_EQ(targets.end_resps, 2 * 3 * kPerNode);  // the network ended every response it was given
  } else {
    EXPECT_EQ(targets.end_resps, 0);
    EXPECT_EQ(targets.begin_resps_completed, 2 * 3 * kPerNode);  // the network completes BEGIN_RESP at once
  }
  EXPECT_EQ(net.outstanding(), 0u);
  const RunResult r = net.results();
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.flits_created, r.flits_ejected);
  EXPECT_EQ(r.packets_measured, std::uint64_t(4 * 3 * kPerNode));
}

INSTANTIATE_TEST_SUITE_P(Styles, EmbedAtTarget,
                         ::testing::Values(TargetStyle::Accepted, TargetStyle::UpdatedEndReq,
                                           TargetStyle::UpdatedBeginResp),
                         [](const ::testing::TestParamInfo<TargetStyle>& i) {
                           std::ostringstream os;
                           PrintTo(i.param, &os);
                           return os.str();
                         });

// --- phase misuse: a clear SystemC report, never a hang ---

// A target per node whose nb_transport_fw is the test's.
struct RawTargets : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<RawTargets, kTlmBusWidth>>> sockets;
  std::function<tlm::tlm_sync_enum(int, tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)> on_fw;
  RawTargets(sc_core::sc_module_name name, TlmNetwork& net) : sc_module(name) {
    for (int n = 0; n < net.nodes(); ++n) {
      sockets.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged<RawTargets, kTlmBusWidth>>(
          ("t" + std::to_string(n)).c_str()));
      sockets.back()->register_nb_transport_fw(this, &RawTargets::fw, n);
      net.initiator(n).bind(*sockets.back());
    }
  }
  tlm::tlm_sync_enum fw(int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return on_fw ? on_fw(n, gp, ph, d) : tlm::TLM_COMPLETED;
  }
};

struct Misuse {
  std::string name;
  std::vector<std::string> sets;
  // Misuses the network from a method (see PacketForAnUnboundTargetIsReported).
  std::function<void(Initiators&, RawTargets&)> act;
  std::string report;  // what the report says
};

class EmbedMisuse : public ::testing::TestWithParam<Misuse> {};

TEST_P(EmbedMisuse, IsReported) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Misuse& m = GetParam();
  Config cfg = config({"router.radix=4"});
  for (const auto& s : m.sets) cfg.set_override(s);
  TlmNetwork net("net", cfg);
  Initiators init("init", net);
  RawTargets targets("targets", net);
  sc_core::sc_spawn_options as_method;
  as_method.spawn_method();
  as_method.dont_initialize();
  sc_core::sc_event go;
  as_method.set_sensitivity(&go);
  sc_core::sc_spawn([&] { m.act(init, targets); }, "misuse", &as_method);
  go.notify(net.period() * 5.0);
  try {
    sc_core::sc_start(net.period() * 1000.0);
    FAIL() << "no report";
  } catch (const sc_core::sc_report& e) {
    EXPECT_NE(std::string(e.what()).find(m.report), std::string::npos) << e.what();
  }
}

void PrintTo(const Misuse& m, std::ostream* os) { *os << m.name; }

// A write to `node`: one payload per test process, which owns its extension.
tlm::tlm_generic_payload& write_to(int node) {
  static tlm::tlm_generic_payload gp;
  static unsigned char data[8];
  NodeExtension* ext = gp.get_extension<NodeExtension>();
  if (!ext) gp.set_extension(ext = new NodeExtension);
  ext->node = node;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_data_ptr(data);
  gp.set_data_length(8);
  gp.set_streaming_width(8);
  return gp;
}

tlm::tlm_sync_enum send(Initiators& init, int node, tlm::tlm_generic_payload& gp, tlm::tlm_phase ph) {
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  return (*init.sockets[std::size_t(node)])->nb_transport_fw(gp, ph, d);
}

INSTANTIATE_TEST_SUITE_P(
    Phases, EmbedMisuse,
    ::testing::Values(
        Misuse{"EndRespWithoutResponse", {},
               [](Initiators& init, RawTargets&) { send(init, 0, write_to(2), tlm::END_RESP); },
               "END_RESP on target(0) for a transaction without a response in progress"},
        Misuse{"InitiatorSendsEndReq", {},
               [](Initiators& init, RawTargets&) { send(init, 0, write_to(2), tlm::END_REQ); },
               "target(0) got phase END_REQ (allowed: BEGIN_REQ, END_RESP)"},
        Misuse{"BeginReqBeforeEndReq", {"embed.source_queue_packets=1"},
               [](Initiators& init, RawTargets&) {
                 static tlm::tlm_generic_payload a, b;
                 a.deep_copy_from(write_to(2));
                 b.deep_copy_from(write_to(2));
                 EXPECT_EQ(send(init, 0, a, tlm::BEGIN_REQ), tlm::TLM_UPDATED);   // room: END_REQ
                 EXPECT_EQ(send(init, 0, b, tlm::BEGIN_REQ), tlm::TLM_ACCEPTED);  // full: END_REQ withheld
                 send(init, 0, write_to(2), tlm::BEGIN_REQ);
               },
               "BEGIN_REQ on target(0) before END_REQ of the previous one"},
        Misuse{"TargetEndsARequestNeverSent", {},
               [](Initiators&, RawTargets& targets) {
                 tlm::tlm_phase ph = tlm::END_REQ;
                 sc_core::sc_time d = sc_core::SC_ZERO_TIME;
                 (*targets.sockets[1])->nb_transport_bw(write_to(1), ph, d);
               },
               "initiator(1) got phase END_REQ for a transaction it has not sent"},
        Misuse{"TargetAnswersUpdatedWithoutAPhase", {"embed.protocol=posted"},
               [](Initiators& init, RawTargets& targets) {
                 targets.on_fw = [](int, tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
                   return tlm::TLM_UPDATED;  // phase left at BEGIN_REQ
                 };
                 EXPECT_EQ(send(init, 0, write_to(3), tlm::BEGIN_REQ), tlm::TLM_COMPLETED);
               },
               "the target of initiator(3) answered BEGIN_REQ with TLM_UPDATED and phase BEGIN_REQ (allowed: "
               "END_REQ, BEGIN_RESP)"}),
    [](const ::testing::TestParamInfo<Misuse>& i) { return i.param.name; });

// --- (4) an idle network costs nothing and wakes on injection ---

TEST(Embed, IdleNetworkSleepsAndWakesOnInjection) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=8", "embed.protocol=posted"}));
  Initiators init("init", net);
  Memories mem("mem", net, 64);
  sc_core::sc_spawn([&] {
    for (double gap : {0.0, 1e6}) {
      sc_core::wait(net.period() * gap);
      post_write(*init.sockets[2], 6);
    }
  });
  sc_core::sc_start(net.period() * 1.2e6);
  EXPECT_EQ(mem.received, 2u);
  const RunResult r = net.results();
  EXPECT_EQ(r.packets_measured, 2u);
  EXPECT_EQ(r.latency_max, r.latency_p50);  // both at zero-load latency
  EXPECT_LT(net.network().kernel()->evaluations(), 100u);  // not a million idle cycles
}

// --- (5) request/response under load: no protocol deadlock ---

// Above saturation, with both coding styles. The network: a 16-node folded
// Clos of radix-8 fc routers, requests and responses on 2 VCs each. Every
// transaction moves 64 bytes of 128-bit flits: a read is a 1-flit request
// and a 5-flit response, a write the reverse, so each node injects half 1-
// and half 5-flit packets to uniform destinations. The standalone run of
// that mix saturates at 0.77 of capacity with 2 VCs and 0.86 with 4
// (`nwnsim saturation --set network.topology=fclos --set router.radix=8
// --set network.fclos_levels=2 --set router.org=fc --set
// traffic.size_mix=bimodal --set router.vcs=2`, or 4). Here, with kLt LT
// threads and an AT initiator keeping kAt in flight per node, the accepted
// load (flits per node and cycle up to the last delivery) was, for
// (kLt, kAt) = (2, 4): 0.43; (4, 8): 0.65; (8, 16): 0.775; (16, 32): 0.763;
// (32, 64): 0.66. It stops rising at (8, 16), the network's saturation;
// the soak runs at (16, 32), twice that: the source queues stay full (END_REQ
// withheld for 5,010 of the 16,000 AT requests) and the network runs
// saturated for the whole soak (31,360 transactions, about 31,000 cycles).
// Every transaction must complete (no protocol deadlock: responses have VCs
// of their own), flits are conserved, and the accepted load stays in the
// saturation range.
struct AtStreamer {
  std::vector<tlm::tlm_generic_payload> gps;
  std::vector<std::array<unsigned char, 64>> data;
  std::vector<tlm::tlm_generic_payload*> free;
  sc_core::sc_event freed, end_req;
  int completed = 0, withheld = 0;
  explicit AtStreamer(int outstanding) : gps(std::size_t(outstanding)), data(std::size_t(outstanding)) {
    for (auto& gp : gps) free.push_back(&gp);
  }
};

TEST(Embed, RequestResponseSoakAboveSaturationCompletes) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                "router.org=fc", "embed.source_queue_packets=8"}));
  map_nodes(net);
  Initiators init("init", net);
  Memories mem("mem", net, kWindow);
  const int nodes = net.nodes();
  constexpr int kLt = 16, kAt = 32, kLtEach = 60, kAtEach = 1000;
  auto fill = [&](std::mt19937& rng, tlm::tlm_generic_payload& gp, unsigned char* data) {
    gp.set_command(rng() % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    gp.set_address(std::uint64_t(rng() % unsigned(nodes)) * kWindow + 64 * (rng() % 8));
    gp.set_data_ptr(data);
    gp.set_data_length(64);  // 4 data flits + header: request or response of 5 flits
    gp.set_streaming_width(64);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  };
  int lt_completed = 0;
  for (int n = 0; n < nodes * kLt; ++n) {
    sc_core::sc_spawn([&, n] {
      std::mt19937 rng(unsigned(n + 1));
      tlm::tlm_generic_payload gp;
      unsigned char data[64];
      for (int k = 0; k < kLtEach; ++k) {
        fill(rng, gp, data);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        (*init.sockets[std::size_t(n % nodes)])->b_transport(gp, d);
        ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
        ++lt_completed;
      }
    });
  }
  std::vector<std::unique_ptr<AtStreamer>> at;
  for (int n = 0; n < nodes; ++n) at.push_back(std::make_unique<AtStreamer>(kAt));
  init.on_bw = [&](int n, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time&) {
    AtStreamer& s = *at[std::size_t(n)];
    if (ph == tlm::END_REQ) {
      s.end_req.notify();
      return tlm::TLM_ACCEPTED;
    }
    EXPECT_EQ(ph, tlm::BEGIN_RESP);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    ++s.completed;
    s.free.push_back(&gp);
    s.freed.notify();
    return tlm::TLM_COMPLETED;
  };
  for (int n = 0; n < nodes; ++n)
    sc_core::sc_spawn([&, n] {
      AtStreamer& s = *at[std::size_t(n)];
      std::mt19937 rng(unsigned(1000 + n));
      for (int k = 0; k < kAtEach; ++k) {
        while (s.free.empty()) sc_core::wait(s.freed);
        tlm::tlm_generic_payload& gp = *s.free.back();
        s.free.pop_back();
        fill(rng, gp, s.data[std::size_t(&gp - s.gps.data())].data());
        tlm::tlm_phase ph = tlm::BEGIN_REQ;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        const tlm::tlm_sync_enum r = (*init.sockets[std::size_t(n)])->nb_transport_fw(gp, ph, d);
        if (r == tlm::TLM_ACCEPTED) {  // the source queue is full: END_REQ comes when it has room
          ++s.withheld;
          sc_core::wait(s.end_req);
        } else {
          ASSERT_TRUE(r == tlm::TLM_UPDATED && ph == tlm::END_REQ);
        }
      }
    });
  sc_core::sc_start(net.period() * 100000.0);
  int at_completed = 0, withheld = 0;
  for (auto& s : at) {
    at_completed += s->completed;
    withheld += s->withheld;
  }
  const std::uint64_t transactions = std::uint64_t(nodes) * (kLt * kLtEach + kAtEach);
  EXPECT_EQ(lt_completed, nodes * kLt * kLtEach);
  EXPECT_EQ(at_completed, nodes * kAtEach);
  EXPECT_EQ(net.outstanding(), 0u);
  const RunResult r = net.results();  // throws on a lost or duplicated flit
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.flits_created, r.flits_ejected);
  EXPECT_EQ(r.packets_measured, 2 * transactions);
  EXPECT_GT(withheld, nodes * kAtEach / 5) << "the offered load did not exceed what the network accepts";
  // Flits per node and cycle, up to the last delivery.
  std::printf("soak: %llu transactions, accepted %.3f over %llu cycles, END_REQ withheld %d times\n",
              (unsigned long long)transactions, r.accepted_load, (unsigned long long)r.completion_cycles, withheld);
  EXPECT_GT(r.accepted_load, 0.7);
}

// --- every kind of network and organization behind the same sockets ---

struct NetworkCase {
  std::string name;
  std::vector<std::string> sets;
};
void PrintTo(const NetworkCase& c, std::ostream* os) { *os << c.name; }

class EmbedNetworks : public ::testing::TestWithParam<NetworkCase> {};

// Every node writes a word to the node half-way round and reads it back,
// request/response over LT: every round trip completes with its data.
TEST_P(EmbedNetworks, RequestResponseRoundTrips) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  Config cfg;
  for (const auto& s : GetParam().sets) cfg.set_override(s);
  TlmNetwork net("net", cfg);
  map_nodes(net);
  Initiators init("init", net);
  Memories mem("mem", net, kWindow);
  const int nodes = net.nodes();
  int ok = 0;
  for (int n = 0; n < nodes; ++n)
    sc_core::sc_spawn([&, n] {
      const int dst = (n + nodes / 2) % nodes;
      unsigned char word[8], back[8] = {};
      for (int i = 0; i < 8; ++i) word[i] = std::uint8_t(n * 8 + i);
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(std::uint64_t(dst) * kWindow + 8 * std::uint64_t(n % 64));
      gp.set_data_ptr(word);
      gp.set_data_length(8);
      gp.set_streaming_width(8);
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      (*init.sockets[std::size_t(n)])->b_transport(gp, d);
      ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
      gp.set_command(tlm::TLM_READ_COMMAND);
      gp.set_data_ptr(back);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      (*init.sockets[std::size_t(n)])->b_transport(gp, d);
      ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
      EXPECT_EQ(std::memcmp(word, back, 8), 0) << "node " << n;
      ++ok;
    });
  sc_core::sc_start(net.period() * 20000.0);
  EXPECT_EQ(ok, nodes);
  EXPECT_EQ(net.outstanding(), 0u);
  const RunResult r = net.results();
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.packets_measured, 4u * std::uint64_t(nodes));
  EXPECT_EQ(r.flits_created, r.flits_ejected);
}

const std::vector<std::string> kFclos8 = {"network.topology=fclos", "router.radix=8", "network.fclos_levels=2"};

std::vector<std::string> plus(std::vector<std::string> a, std::initializer_list<std::string> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, EmbedNetworks,
    ::testing::Values(
        NetworkCase{"HyperX", {"network.topology=hyperx", "network.hyperx_s=3,3", "network.hyperx_t=2", "router.radix=8"}},
        // Its routing needs 3 VC classes, so 2 x 3 VCs.
        NetworkCase{"Dragonfly",
                    {"network.topology=dragonfly", "network.dragonfly.p=1", "router.radix=8", "router.vcs=6"}},
        NetworkCase{"SlimFly", {"network.topology=slimfly", "network.slimfly.q=3", "router.radix=8"}},
        NetworkCase{"FclosFc", plus(kFclos8, {"router.org=fc"})},
        NetworkCase{"FclosHc", plus(kFclos8, {"router.org=hc", "router.subswitch_radix=4"})},
        // trv needs a square radix (128 nodes of radix 16), 4 internal VC classes and, in a
        // network, ejection VCs (docs/ORGANIZATIONS.md): 2 x (4 + 4) VCs.
        NetworkCase{"FclosTrv", {"network.topology=fclos", "router.radix=16", "network.fclos_levels=2",
                                 "router.org=trv", "router.vcs=16", "network.eject_vcs=4"}},
        NetworkCase{"FclosHxm", plus(kFclos8, {"router.org=hxm"})},
        NetworkCase{"FclosBb", plus(kFclos8, {"router.org=bb"})}),
    [](const ::testing::TestParamInfo<NetworkCase>& i) { return i.param.name; });

// --- (7) bad use: clear error responses and reports ---

// A network built and dropped while the platform is elaborated (a module
// that goes before sc_start; a VCD too, the other process a network may
// have) leaves no process behind that calls it: the network kept still
// carries a round trip. Before, the dropped network's kernel method ran on
// freed memory at the simulation's start (a crash).
TEST(Embed, NetworkDroppedBeforeTheStartLeavesNothingBehind) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const Config cfg = config({"router.radix=8"});
  TlmNetwork net("net", cfg);
  {
    Config with_vcd = cfg;
    with_vcd.set_override("sim.vcd_file=" + test::temp_path("dropped.vcd"));
    TlmNetwork dropped("dropped", with_vcd);
  }
  map_nodes(net);
  Initiators init("init", net);
  Memories mem("mem", net, kWindow);
  bool done = false;
  sc_core::sc_spawn([&] {
    unsigned char word[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {};
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(5 * kWindow);
    gp.set_data_ptr(word);
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    (*init.sockets[0])->b_transport(gp, d);
    ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_data_ptr(back);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    (*init.sockets[0])->b_transport(gp, d);
    ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(std::memcmp(word, back, 8), 0);
    done = true;
  });
  sc_core::sc_start(net.period() * 2000.0);
  EXPECT_TRUE(done);
}

TEST(Embed, BadUseGetsErrorResponsesAndReports) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=8", "router.vc_depth_flits=4"}));
  net.address_map().add(0, 0x100, 1);
  EXPECT_THROW(net.address_map().add(0x80, 0x100, 2), std::invalid_argument);  // overlaps
  const std::string last = std::to_string(net.nodes() - 1);
  auto message = [](auto&& call) {
    try {
      call();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { net.address_map().add(0x1000, 0x100, net.nodes()); }),
            "address map: [0x1000, 0x1100) for node " + std::to_string(net.nodes()) +
                ": no such node (allowed: 0 to " + last + ")");
  EXPECT_THROW(net.address_map().add(0x1000, 0x100, -1), std::invalid_argument);
  EXPECT_EQ(message([&] { net.target(net.nodes()); }),
            "net: target(" + std::to_string(net.nodes()) + "): no such node (allowed: 0 to " + last + ")");
  EXPECT_EQ(message([&] { net.initiator(-1); }), "net: initiator(-1): no such node (allowed: 0 to " + last + ")");
  EXPECT_THROW(net.target(-1), std::out_of_range);
  Initiators init("init", net);
  Memories mem("mem", net, 0x100);
  mem.answer_error = true;
  std::vector<tlm::tlm_response_status> status;
  sc_core::sc_spawn([&] {
    unsigned char data[256] = {};
    auto send = [&](std::uint64_t address, unsigned length, NodeExtension* ext = nullptr) {
      tlm::tlm_generic_payload gp;
      if (ext) gp.set_extension(ext);  // the payload frees it
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(address);
      gp.set_data_ptr(data);
      gp.set_data_length(length);
      gp.set_streaming_width(length);
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      (*init.sockets[0])->b_transport(gp, d);
      status.push_back(gp.get_response_status());
    };
    send(0x5000, 4);   // outside the map
    send(0xf0, 0x20);  // crosses the end of the range
    send(0, 256);      // 1 + 16 flits: more than a 4-flit VC holds under virtual cut-through
    send(0, 16);       // the target answers with an error
    auto ext = [](int node, int request_flits) {
      auto* e = new NodeExtension;
      e->node = node;
      e->request_flits = request_flits;
      return e;
    };
    send(0, 16, ext(-5, 0));  // no such node
    send(0, 16, ext(2, -3));  // no such size
    send(0, 16, ext(-1, 0));  // the address map's node: carried
  });
  sc_core::sc_start(net.period() * 1000.0);
  ASSERT_EQ(status.size(), 7u);
  EXPECT_EQ(status[0], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(status[1], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(status[2], tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(status[3], tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(status[4], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(status[5], tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(status[6], tlm::TLM_GENERIC_ERROR_RESPONSE);  // the target's error again: it got there
  EXPECT_EQ(sc_core::sc_report_handler::get_count("nwnsim/embed"), 5);  // a warning for each refusal
}

// Request/response halves the VCs: the routing's and the organization's VC
// needs are checked against the half, before anything is built.
TEST(Embed, RequestResponseVcNeedsAreCheckedUpFront) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  auto message = [](std::initializer_list<std::string> sets) {
    try {
      TlmNetwork net("net", config(sets));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A torus's dateline routing needs 2 VCs: 2 a class means 4 in all.
  const std::string torus = message({"network.topology=torus", "router.radix=8", "router.vcs=2"});
  EXPECT_NE(torus.find("router.vcs = 2 (1 a message class"), std::string::npos) << torus;
  EXPECT_NE(torus.find("router.vcs >= 2 x 2 x 1 = 4"), std::string::npos) << torus;
  const std::string odd = message({"router.radix=8", "router.vcs=3"});
  EXPECT_NE(odd.find("router.vcs = 3 with embed.protocol = request_response"), std::string::npos) << odd;
  EXPECT_EQ(message({"network.topology=torus", "router.radix=8", "router.vcs=2", "embed.protocol=posted"}),
            "no error");
}

TEST(Embed, PacketForAnUnboundTargetIsReported) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=4", "embed.protocol=posted"}));
  Initiators init("init", net);  // no target bound anywhere
  // A method, not a thread: the report unwinds through no coroutine stack
  // (ASan cannot follow exceptions across SystemC thread stacks). A posted
  // b_transport with room in the queue does not wait.
  sc_core::sc_spawn_options as_method;
  as_method.spawn_method();
  sc_core::sc_spawn([&] { post_write(*init.sockets[0], 3); }, "send", &as_method);
  try {
    sc_core::sc_start(net.period() * 100.0);
    FAIL() << "no report";
  } catch (const sc_core::sc_report& e) {
    EXPECT_NE(std::string(e.what()).find("initiator(3) is bound to no target"), std::string::npos) << e.what();
  }
}

// A network that wedges (a ring with dor and one VC, no dateline classes:
// network.deadlock_free = false) is reported by the embedding's watchdog,
// naming the stuck buffers and packets, instead of hanging the platform.
TEST(Embed, WedgedNetworkIsReportedByTheWatchdog) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"network.topology=torus", "network.torus.dims=8", "network.routing=dor",
                                "network.deadlock_free=false", "network.link_latency_cycles=1", "router.vcs=1",
                                "router.vc_depth_flits=4", "router.flow_control=wormhole", "embed.protocol=posted",
                                "embed.source_queue_packets=16", "sim.watchdog_cycles=500"}));
  Initiators init("init", net);
  Memories mem("mem", net, 64);
  // Tornado: every node sends 8-flit packets 3 hops around the ring. From a
  // method (see PacketForAnUnboundTargetIsReported); the queues have room.
  sc_core::sc_spawn_options as_method;
  as_method.spawn_method();
  sc_core::sc_spawn(
      [&] {
        for (int k = 0; k < 16; ++k)
          for (int n = 0; n < net.nodes(); ++n) post_write(*init.sockets[std::size_t(n)], (n + 3) % net.nodes(), 8);
      },
      "send", &as_method);
  try {
    sc_core::sc_start(net.period() * 1e5);
    FAIL() << "no report; delivered " << mem.received;
  } catch (const sc_core::sc_report& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deadlock: "), std::string::npos) << what;
    EXPECT_NE(what.find("xbar input"), std::string::npos) << what;
    EXPECT_NE(what.find("front packet"), std::string::npos) << what;
  }
  EXPECT_LT(mem.received, 16u * 8u);  // stuck, not merely slow
}

// Lookahead: with embed.lookahead_cycles = 8 on links of 3 cycles, the
// kernel runs blocks of 3 cycles. A call while it is asleep is exact; a
// call in the middle of a block enters at the next cycle not yet run (here
// 1 cycle late; at most block - 1); a call annotated past the block is
// exact again. Deliveries carry their cycle as an annotated delay, so a
// target sees each packet at its cycle.
TEST(Embed, LookaheadRunsBlocksAndBoundsHowLateACallEnters) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                "network.link_latency_cycles=3", "embed.lookahead_cycles=8", "embed.protocol=posted"}));
  ASSERT_EQ(net.network().kernel()->block(), 3);  // the links bound the block  // the links bound the block
  Initiators init("init", net);
  ArrivalTimes targets("targets", net);
  const sc_core::sc_time T = net.period();
  sc_core::sc_spawn([&] {
    sc_core::wait(T * 10.0);
    post_write(*init.sockets[0], 13);  // asleep: wakes the kernel at cycle 10: blocks 10-12, 13-15, ...
    sc_core::wait(T * 10.2);           // 20.2: the block 19-21 has run (at 19.5)
    post_write(*init.sockets[0], 13);  // ceil: cycle 21, enters at 22
    sc_core::wait(T * 10.0);           // 30.2: the block 28-30 has run
    post_write(*init.sockets[0], 13, 0, T * 3.0);  // annotated: cycle ceil(33.2) = 34, not yet run
  });
  sc_core::sc_start(T * 200.0);
  ASSERT_EQ(targets.arrivals.size(), 3u);
  // The first packet, created at cycle 10, gives the path's latency D.
  const sc_core::sc_time D = targets.arrivals[0] - T * 10.0;
  auto created = [&](std::size_t k) { return (targets.arrivals[k] - D) / T; };
  EXPECT_DOUBLE_EQ(created(1), 22.0);  // 1 cycle late (at most block - 1 = 2)
  EXPECT_DOUBLE_EQ(created(2), 34.0);  // exact
  EXPECT_EQ(net.results().packets_measured, 3u);
}

// --- a multi-socket initiator binds one socket per node ---

struct MultiInitiator : sc_core::sc_module {
  tlm_utils::multi_passthrough_initiator_socket<MultiInitiator, kTlmBusWidth> socket;
  explicit MultiInitiator(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
};

TEST(Embed, MultiSocketInitiatorReachesEveryNode) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=4"}));
  map_nodes(net);
  MultiInitiator cpu("cpu");
  for (int n = 0; n < net.nodes(); ++n) cpu.socket.bind(net.target(n));
  Memories mem("mem", net, kWindow);
  int ok = 0;
  sc_core::sc_spawn([&] {
    unsigned char word[4] = {1, 2, 3, 4};
    for (int n = 0; n < net.nodes(); ++n) {  // from node n to node (n + 1) mod 4
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(std::uint64_t((n + 1) % net.nodes()) * kWindow + 8);
      gp.set_data_ptr(word);
      gp.set_data_length(4);
      gp.set_streaming_width(4);
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      cpu.socket[n]->b_transport(gp, d);
      ok += gp.is_response_ok();
    }
  });
  sc_core::sc_start(net.period() * 1000.0);
  EXPECT_EQ(ok, net.nodes());
  for (int n = 0; n < net.nodes(); ++n) EXPECT_EQ(mem.mem[std::size_t(n)][8 + 3], 4) << "node " << n;
}

// --- debug outputs: a packet trace works as in standalone runs ---

TEST(Embed, PacketTraceFollowsAnOutsidePacket) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  const std::string path = test::temp_path("embed.trace");
  auto net = std::make_unique<TlmNetwork>(
      "net", config({"router.radix=8", "embed.protocol=posted", "sim.packet_trace_ids=5",
                     "sim.packet_trace_file=" + path}));
  Initiators init("init", *net);
  Memories mem("mem", *net, 64);
  sc_core::sc_spawn([&] { post_write(*init.sockets[5], 2); });  // node 5's first packet: id 0 x 8 + 5
  sc_core::sc_start(net->period() * 100.0);
  EXPECT_EQ(mem.received, 1u);
  net.reset();  // closes the trace
  const std::string trace = test::slurp(path);
  EXPECT_NE(trace.find("create"), std::string::npos) << trace;
  EXPECT_NE(trace.find("eject"), std::string::npos) << trace;
}

// --- (6) one thread or two: identical, in child processes ---

TEST(Embed, TwoThreadsGiveTheSameResults) {
  if (const char* threads = std::getenv("NWNSIM_EMBED_THREADS")) {  // the child
    NWN_ONE_SIMULATION_PER_PROCESS();
    TlmNetwork net("net", config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                  "router.org=fc", std::string("sim.threads=") + threads,
                                  std::string("embed.lookahead_cycles=") + std::getenv("NWNSIM_EMBED_LOOKAHEAD")}));
    map_nodes(net);
    Initiators init("init", net);
    Memories mem("mem", net, kWindow);
    for (int n = 0; n < net.nodes(); ++n)
      sc_core::sc_spawn([&, n] {
        std::mt19937 rng(unsigned(n + 11));
        tlm::tlm_generic_payload gp;
        unsigned char data[32];
        for (int k = 0; k < 100; ++k) {
          gp.set_command(rng() % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
          gp.set_address(std::uint64_t(rng() % unsigned(net.nodes())) * kWindow);
          gp.set_data_ptr(data);
          gp.set_data_length(32);
          gp.set_streaming_width(32);
          sc_core::sc_time d = net.period() * double(rng() % 5);
          (*init.sockets[std::size_t(n)])->b_transport(gp, d);
        }
      });
    sc_core::sc_start(net.period() * 50000.0);
    std::ofstream(std::getenv("NWNSIM_EMBED_OUT")) << net.results().to_json().dump(1);
    return;
  }
  // One cycle at a time, and blocks of 10 cycles (the fclos links').
  for (const char* lookahead : {"1", "10"}) {
    std::string outs[2];
    for (int i = 0; i < 2; ++i) {
      outs[i] = test::temp_path(std::string("lookahead") + lookahead + "-threads" + std::to_string(i + 1) + ".json");
      const std::string cmd = "NWNSIM_EMBED_THREADS=" + std::to_string(i + 1) + " NWNSIM_EMBED_LOOKAHEAD=" +
                              lookahead + " NWNSIM_EMBED_OUT=" + outs[i] + " /proc/" + std::to_string(getpid()) +
                              "/exe --gtest_filter=Embed.TwoThreadsGiveTheSameResults > /dev/null 2>&1";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    const std::string one = test::slurp(outs[0]), two = test::slurp(outs[1]);
    ASSERT_FALSE(one.empty());
    EXPECT_NE(one.find("\"packets_measured\": 3200"), std::string::npos) << one.substr(0, 400);
    EXPECT_EQ(one, two) << "embed.lookahead_cycles = " << lookahead;
  }
}

}  // namespace
}  // namespace nwn

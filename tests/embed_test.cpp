// nwn::TlmNetwork (sim/embed.hpp): a network inside a user's SystemC model,
// driven through TLM-2.0 sockets.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <utility>

#include <nlohmann/json.hpp>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

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
template <typename Socket>
void post_write(Socket& socket, int dst, int flits = 0, sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
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
struct Replayer : sc_core::sc_module {
  SC_HAS_PROCESS(Replayer);
  Initiators& init;
  std::vector<std::vector<Packet>> by_node;
  sc_core::sc_time period;
  std::size_t done = 0;
  Replayer(sc_core::sc_module_name name, Initiators& i, const std::vector<Packet>& packets, int nodes,
           sc_core::sc_time p)
      : sc_module(name), init(i), by_node(std::size_t(nodes)), period(p) {
    for (const Packet& k : packets) by_node[std::size_t(k.src)].push_back(k);
    for (int n = 0; n < nodes; ++n)
      sc_core::sc_spawn([this, n] { replay(n); }, ("replay" + std::to_string(n)).c_str());
  }
  void replay(int n) {
    tlm::tlm_generic_payload gp;
    NodeExtension ext;
    gp.set_extension(&ext);
    unsigned char data[8] = {};
    for (const Packet& k : by_node[std::size_t(n)]) {
      ext.node = k.dst;
      ext.request_flits = k.flits;
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
  }
};

class EmbedTrace : public ::testing::TestWithParam<std::vector<std::string>> {};

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
  // The standalone simulator on the equivalent trace, in a child process.
  const auto packets = random_packets(net.nodes(), 600, 7);
  const std::string trace = test::temp_path("packets.trace"), json = test::temp_path("standalone.json");
  {
    std::ofstream out(trace);
    for (const Packet& k : packets) out << k.at << " " << k.src << " " << k.dst << " " << k.flits << "\n";
  }
  std::string args = "run --quiet --json " + json + " --set traffic.source=trace --set traffic.trace_file=" + trace;
  for (auto& s : sets) args += " --set " + s;
  const auto standalone = test::nwnsim(args);
  ASSERT_EQ(standalone.exit_code, 0) << standalone.output;
  const auto expected = nlohmann::json::parse(test::slurp(json))["results"];

  Initiators init("init", net);
  Memories mem("mem", net, 64);
  Replayer replay("replay", init, packets, net.nodes(), net.period());
  sc_core::sc_start(net.period() * double(expected["cycles"].get<std::uint64_t>()));
  EXPECT_EQ(replay.done, packets.size());
  EXPECT_EQ(mem.received, packets.size());
  nlohmann::json got = nlohmann::json::parse(net.results().to_json().dump());
  EXPECT_EQ(got["workload"], "external");
  EXPECT_EQ(got["packets_measured"], packets.size());
  EXPECT_TRUE(got["drained"].get<bool>());
  got["workload"] = expected["workload"];
  EXPECT_EQ(got.dump(1), expected.dump(1));
}

INSTANTIATE_TEST_SUITE_P(
    Networks, EmbedTrace,
    ::testing::Values(std::vector<std::string>{"router.radix=16", "router.org=fc"},
                      std::vector<std::string>{"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                               "network.link_latency_cycles=3"},
                      std::vector<std::string>{"network.topology=torus", "network.torus.dims=4,4", "network.torus.t=2",
                                               "router.radix=8", "router.vcs=4"},
                      // Blocks of 3 cycles (the links' latency): the replayer's calls are
                      // annotated ahead of their cycles, so they are still exact.
                      std::vector<std::string>{"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                               "network.link_latency_cycles=3", "embed.lookahead_cycles=8"}));

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
    // Node 1 reads it back.
    std::memset(back, 0xee, sizeof back);
    gp.set_command(tlm::TLM_READ_COMMAND);
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

TEST(Embed, RequestResponseSoakNearSaturationCompletes) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"network.topology=fclos", "router.radix=8", "network.fclos_levels=2",
                                "router.org=fc", "embed.source_queue_packets=8"}));
  map_nodes(net);
  Initiators init("init", net);
  Memories mem("mem", net, kWindow);
  constexpr int kPerNode = 100, kThreads = 6;  // six LT initiators a node, each waiting for its round trips
  int completed = 0;
  for (int n = 0; n < net.nodes() * kThreads; ++n) {
    sc_core::sc_spawn([&, n] {
      std::mt19937 rng(unsigned(n + 1));
      tlm::tlm_generic_payload gp;
      unsigned char data[64];
      for (int k = 0; k < kPerNode; ++k) {
        gp.set_command(rng() % 2 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
        gp.set_address(std::uint64_t(rng() % unsigned(net.nodes())) * kWindow + 64 * (rng() % 8));
        gp.set_data_ptr(data);
        gp.set_data_length(64);  // 4 data flits + header: request or response of 5 flits
        gp.set_streaming_width(64);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        (*init.sockets[std::size_t(n % net.nodes())])->b_transport(gp, d);
        ASSERT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
        ++completed;
      }
    });
  }
  sc_core::sc_start(net.period() * 200000.0);
  EXPECT_EQ(completed, net.nodes() * kThreads * kPerNode);
  EXPECT_EQ(net.outstanding(), 0u);
  const RunResult r = net.results();
  EXPECT_EQ(r.packets_measured, 2u * std::uint64_t(net.nodes()) * kThreads * kPerNode);
  EXPECT_GT(r.accepted_load, 0.3);  // the network was loaded, not trickled
}

// --- (7) bad use: clear error responses and reports ---

TEST(Embed, BadUseGetsErrorResponsesAndReports) {
  NWN_ONE_SIMULATION_PER_PROCESS();
  TlmNetwork net("net", config({"router.radix=8", "router.vc_depth_flits=4"}));
  net.address_map().add(0, 0x100, 1);
  EXPECT_THROW(net.address_map().add(0x80, 0x100, 2), std::invalid_argument);  // overlaps
  Initiators init("init", net);
  Memories mem("mem", net, 0x100);
  mem.answer_error = true;
  std::vector<tlm::tlm_response_status> status;
  sc_core::sc_spawn([&] {
    unsigned char data[256] = {};
    auto send = [&](std::uint64_t address, unsigned length) {
      tlm::tlm_generic_payload gp;
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
  });
  sc_core::sc_start(net.period() * 1000.0);
  ASSERT_EQ(status.size(), 4u);
  EXPECT_EQ(status[0], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(status[1], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(status[2], tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(status[3], tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(sc_core::sc_report_handler::get_count("nwnsim/embed"), 3);  // a warning for each refusal
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
struct ArrivalTimes : sc_core::sc_module {
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<ArrivalTimes, kTlmBusWidth>>> sockets;
  std::vector<sc_core::sc_time> arrivals;
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
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
};

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

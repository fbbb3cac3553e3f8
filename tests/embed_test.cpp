// nwn::TlmNetwork (sim/embed.hpp): a network inside a user's SystemC model,
// driven through TLM-2.0 sockets.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>
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
                                               "router.radix=8", "router.vcs=4"}));

}  // namespace
}  // namespace nwn

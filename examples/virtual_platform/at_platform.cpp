// An approximately timed platform that shows backpressure: 8 initiators on
// a radix-16 fc router stream AT writes into one slow memory. The memory
// takes 40 ns a transaction (200 network cycles at 5 GHz), the network
// interfaces hold 4 transactions each, so the initiators soon see BEGIN_REQ
// answered with TLM_ACCEPTED and wait for END_REQ: backpressure from the
// target through the network into the initiators. Nothing is lost; exits 1
// otherwise.
#include <cstdio>
#include <map>
#include <vector>

#include <nwnsim/nwnsim.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

constexpr int kInitiators = 8, kPerInitiator = 25, kMemoryNode = 15;

// A target that serves one transaction at a time, 40 ns each (b_transport: the
// socket's own adapter answers the network's BEGIN_REQ when it is done).
struct SlowMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<SlowMemory, nwn::kTlmBusWidth> socket;
  int served = 0;
  explicit SlowMemory(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &SlowMemory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    sc_core::wait(40, sc_core::SC_NS);
    ++served;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Streamer : sc_core::sc_module {
  SC_HAS_PROCESS(Streamer);
  tlm_utils::simple_initiator_socket<Streamer, nwn::kTlmBusWidth> socket;
  std::vector<tlm::tlm_generic_payload> gps = std::vector<tlm::tlm_generic_payload>(kPerInitiator);
  unsigned char data[32] = {};
  sc_core::sc_event end_req;
  int responses = 0, withheld = 0;
  sc_core::sc_time longest_wait = sc_core::SC_ZERO_TIME;
  explicit Streamer(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_bw(this, &Streamer::nb_transport_bw);
    SC_THREAD(run);
  }
  void run() {
    for (auto& gp : gps) {
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(0x1000);
      gp.set_data_ptr(data);
      gp.set_data_length(32);
      gp.set_streaming_width(32);
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      const sc_core::sc_time begin = sc_core::sc_time_stamp();
      if (socket->nb_transport_fw(gp, phase, delay) == tlm::TLM_ACCEPTED) {  // END_REQ withheld
        ++withheld;
        sc_core::wait(end_req);
        longest_wait = std::max(longest_wait, sc_core::sc_time_stamp() - begin);
      }
      sc_core::wait(1, sc_core::SC_NS);
    }
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time&) {
    if (phase == tlm::END_REQ) {
      end_req.notify(sc_core::SC_ZERO_TIME);
      return tlm::TLM_ACCEPTED;
    }
    if (phase == tlm::BEGIN_RESP && gp.is_response_ok()) ++responses;
    return tlm::TLM_COMPLETED;  // END_RESP
  }
};

int sc_main(int, char*[]) {
  nwn::Config cfg;
  // Small buffers (one VC per message class, 4 flits), so the backlog
  // reaches the initiators quickly.
  cfg.load_string(R"(
    [router]
    radix = 16
    org = "fc"
    vcs = 2
    vc_depth_flits = 4
    subswitch_vc_depth_flits = 4
    [embed]
    source_queue_packets = 4
    eject_buffer_flits = 4
  )", "at_platform");
  nwn::TlmNetwork noc("noc", cfg);
  noc.address_map().add(0, 1 << 20, kMemoryNode);
  std::vector<std::unique_ptr<Streamer>> streamers;
  for (int n = 0; n < kInitiators; ++n) {
    streamers.push_back(std::make_unique<Streamer>(("streamer" + std::to_string(n)).c_str()));
    streamers.back()->socket.bind(noc.target(n));
  }
  SlowMemory memory("memory");
  noc.initiator(kMemoryNode).bind(memory.socket);
  sc_core::sc_start();
  int responses = 0, withheld = 0;
  sc_core::sc_time longest = sc_core::SC_ZERO_TIME;
  for (auto& s : streamers) {
    responses += s->responses;
    withheld += s->withheld;
    longest = std::max(longest, s->longest_wait);
  }
  const nwn::RunResult r = noc.results();
  std::printf("at_platform: %d of %d writes answered, memory served %d; END_REQ withheld %d times, longest wait %s; "
              "flits created %llu = ejected %llu; simulated %s\n",
              responses, kInitiators * kPerInitiator, memory.served, withheld, longest.to_string().c_str(),
              (unsigned long long)r.flits_created, (unsigned long long)r.flits_ejected,
              sc_core::sc_time_stamp().to_string().c_str());
  // Every write answered once, and some initiator waited for END_REQ
  // through several of the memory's 40 ns accesses.
  const bool ok = responses == kInitiators * kPerInitiator && memory.served == responses &&
                  longest > sc_core::sc_time(200, sc_core::SC_NS) && r.flits_created == r.flits_ejected;
  std::printf("at_platform: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}

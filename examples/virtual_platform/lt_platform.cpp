// A loosely timed virtual platform: 32 CPU-like initiators and 32 memories
// on the 64 nodes of a folded Clos of fc routers (radix 16, two levels).
// Each CPU runs ahead of SystemC time with a quantum keeper, writes blocks
// into other nodes' memories and reads them back through the network; the
// memories are plain b_transport targets. Exits 1 if a read returns wrong
// data or a transaction fails.
//   lt_platform [key=value ...]   config overrides, as nwnsim's --set; e.g.
//   router.allocator_impl=rtl puts the Verilated allocators in every router
//   (link nwnsim::rtl)
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <nwnsim/nwnsim.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

constexpr std::uint64_t kWindow = 1 << 16;  // each memory node's address window
constexpr int kNodes = 64, kCpus = 32;

struct Memory : sc_core::sc_module {
  tlm_utils::simple_target_socket<Memory, nwn::kTlmBusWidth> socket;
  std::vector<unsigned char> bytes = std::vector<unsigned char>(kWindow);
  explicit Memory(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &Memory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const std::uint64_t off = gp.get_address() % kWindow;
    if (off + gp.get_data_length() > kWindow) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (gp.is_write()) std::memcpy(&bytes[off], gp.get_data_ptr(), gp.get_data_length());
    else std::memcpy(gp.get_data_ptr(), &bytes[off], gp.get_data_length());
    delay += sc_core::sc_time(2, sc_core::SC_NS);  // the memory's own access time
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Cpu : sc_core::sc_module {
  SC_HAS_PROCESS(Cpu);
  tlm_utils::simple_initiator_socket<Cpu, nwn::kTlmBusWidth> socket;
  int id, transactions = 0, errors = 0;
  Cpu(sc_core::sc_module_name n, int id_) : sc_module(n), socket("socket"), id(id_) { SC_THREAD(run); }
  void run() {
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    std::mt19937 rng(unsigned(id) * 7919u + 1u);
    tlm::tlm_generic_payload gp;
    unsigned char out[64], in[64];
    for (int k = 0; k < 40; ++k) {
      const int mem = kCpus + int(rng() % (kNodes - kCpus));  // memories sit on nodes 32..63
      const std::uint64_t addr = std::uint64_t(mem) * kWindow + std::uint64_t(id) * 256 + std::uint64_t(k % 4) * 64;
      for (int i = 0; i < 64; ++i) out[i] = (unsigned char)(id * 31 + k * 7 + i);
      for (tlm::tlm_command cmd : {tlm::TLM_WRITE_COMMAND, tlm::TLM_READ_COMMAND}) {
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(cmd == tlm::TLM_WRITE_COMMAND ? out : in);
        gp.set_data_length(64);
        gp.set_streaming_width(64);
        gp.set_byte_enable_ptr(nullptr);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = qk.get_local_time();
        socket->b_transport(gp, delay);  // a round trip through the network
        qk.set(delay);
        ++transactions;
        if (gp.is_response_error()) ++errors;
      }
      if (std::memcmp(in, out, 64) != 0) ++errors;
      qk.inc(sc_core::sc_time(10, sc_core::SC_NS));  // compute between accesses
      if (qk.need_sync()) qk.sync();
    }
  }
};

int sc_main(int argc, char* argv[]) {
  nwn::Config cfg;
  cfg.load_string(R"(
    [network]
    topology = "fclos"
    fclos_levels = 2
    [router]
    radix = 16
    org = "fc"
  )", "lt_platform");
  for (int a = 1; a < argc; ++a) cfg.set_override(argv[a], "lt_platform argument");
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(100, sc_core::SC_NS));
  nwn::TlmNetwork noc("noc", cfg);
  std::vector<std::unique_ptr<Cpu>> cpus;
  std::vector<std::unique_ptr<Memory>> mems;
  for (int n = 0; n < kNodes; ++n) {
    if (n < kCpus) {
      cpus.push_back(std::make_unique<Cpu>(("cpu" + std::to_string(n)).c_str(), n));
      cpus.back()->socket.bind(noc.target(n));
    } else {
      mems.push_back(std::make_unique<Memory>(("mem" + std::to_string(n)).c_str()));
      noc.initiator(n).bind(mems.back()->socket);
      noc.address_map().add(std::uint64_t(n) * kWindow, kWindow, n);
    }
  }
  sc_core::sc_start();
  int transactions = 0, errors = 0;
  for (auto& c : cpus) transactions += c->transactions, errors += c->errors;
  const nwn::RunResult r = noc.results();
  std::printf("lt_platform: %d transactions, %d errors, %llu packets, latency avg %.2f p99 %llu cycles, "
              "hops %.2f, simulated %s\n",
              transactions, errors, (unsigned long long)r.packets_measured, r.latency_avg,
              (unsigned long long)r.latency_p99, r.hops_avg, sc_core::sc_time_stamp().to_string().c_str());
  const bool ok = errors == 0 && transactions == kCpus * 80 && r.packets_measured == 2u * std::uint64_t(transactions);
  std::printf("lt_platform: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}

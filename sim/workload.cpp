#include "workload.hpp"

#include <algorithm>
#include <stdexcept>

#include "trace_workload.hpp"

namespace nwn {
namespace {

// Packets come from outside (an embedding's TLM sockets, sim/embed.hpp):
// the endpoints never create one by themselves.
class ExternalWorkload final : public Workload {
 public:
  Cycle next_creation(int, Cycle) override { return kNever; }
  PacketSpec make_packet(int, Cycle) override { throw std::logic_error("external workload: no packet of its own"); }
  bool per_node() const override { return true; }
};

// What a trace's packets must respect in this network.
TraceLimits trace_limits(const Config& cfg, int nodes) {
  const bool vct = cfg.get_string("router.flow_control") == "vct";
  TraceLimits lim;
  lim.nodes = nodes;
  lim.time_scale = cfg.get_float("traffic.trace_time_scale");
  lim.max_cycles = Cycle(cfg.get_int("sim.max_cycles"));
  // Virtual cut-through: every VC a packet enters, subswitch buffers too.
  const SmallestBuffer b = vct ? smallest_vc_buffer(cfg) : SmallestBuffer{65535, ""};
  lim.max_packet_flits = std::min(b.flits, 65535);
  lim.size_rule = vct ? b.key + " = " + std::to_string(b.flits) +
                            ": virtual cut-through needs every VC a packet enters to hold the whole packet"
                      : "the longest packet a flit can name";
  return lim;
}

}  // namespace

ConfigWorkload make_workload(const Config& cfg, int nodes, int serialization_cycles, const RouterLayout* layout) {
  PatternParams pp;
  pp.nodes = nodes;
  pp.layout = layout;
  pp.seed = std::uint64_t(cfg.get_int("sim.seed"));
  pp.hotspot_nodes = int(cfg.get_int("traffic.hotspot_nodes"));
  pp.hotspot_fraction = cfg.get_float("traffic.hotspot_fraction");
  SyntheticParams sp;
  sp.nodes = nodes;
  sp.seed = pp.seed;
  sp.load = cfg.get_float("traffic.load");
  sp.serialization_cycles = serialization_cycles;
  sp.bimodal = cfg.get_string("traffic.size_mix") == "bimodal";
  sp.packet_flits = int(cfg.get_int("traffic.packet_flits"));
  sp.bimodal_small_flits = int(cfg.get_int("traffic.bimodal_small_flits"));
  sp.bimodal_large_flits = int(cfg.get_int("traffic.bimodal_large_flits"));
  const bool vct = cfg.get_string("router.flow_control") == "vct";
  const bool batch = cfg.get_string("traffic.mode") == "batch";
  ConfigWorkload w;
  if (cfg.get_string("traffic.source") == "external") {
    w.workload = std::make_unique<ExternalWorkload>();
  } else if (cfg.get_string("traffic.source") == "trace") {
    const std::string& file = cfg.get_string("traffic.trace_file");
    if (file.empty())
      throw ConfigError("config error: traffic.source = trace needs traffic.trace_file (a trace file; format in "
                        "docs/WORKLOADS.md)");
    if (batch)
      throw ConfigError("config error: traffic.mode = batch sends packets of traffic.pattern; with traffic.source = "
                        "trace the trace gives the packets (allowed: traffic.mode = open)");
    auto trace = std::make_unique<TraceWorkload>(read_trace_file(file, trace_limits(cfg, nodes)), nodes);
    w.finite = trace.get();
    w.workload = std::move(trace);
  } else {
    const int largest = sp.bimodal ? std::max(sp.bimodal_small_flits, sp.bimodal_large_flits) : sp.packet_flits;
    if (vct && largest > cfg.get_int("router.vc_depth_flits"))
      throw ConfigError("config error: packets of " + std::to_string(largest) + " flits do not fit router.vc_depth_flits = " +
                        std::to_string(cfg.get_int("router.vc_depth_flits")) +
                        ": virtual cut-through needs a VC to hold a whole packet");
    auto synthetic =
        std::make_unique<SyntheticWorkload>(sp, make_traffic_pattern(cfg.get_string("traffic.pattern"), pp));
    if (batch) {
      BatchParams bp;
      bp.packets_per_node = std::uint64_t(cfg.get_int("traffic.batch_packets"));
      bp.max_outstanding = std::uint64_t(cfg.get_int("traffic.batch_max_outstanding"));
      if (sp.load <= 0)
        throw ConfigError("config error: traffic.load = 0 with traffic.mode = batch: no packet would ever be sent "
                          "(allowed: a load above 0)");
      auto b = std::make_unique<BatchWorkload>(nodes, bp, std::move(synthetic));
      w.finite = b.get();
      w.workload = std::move(b);
    } else {
      w.workload = std::move(synthetic);
    }
  }
  return w;
}

}  // namespace nwn

#include "network.hpp"

#include <ostream>

namespace nwn {

namespace {

// Single router: the router output is the destination's port; any VC.
class SingleRouterRouting final : public GlobalRouting {
 public:
  explicit SingleRouterRouting(int vcs) : vcs_(vcs) {}
  void route(int, int, Flit& head) override {
    head.router_out = std::int16_t(head.dst);
    head.router_vc_lo = 0;
    head.router_vc_hi = std::uint8_t(vcs_ - 1);
  }

 private:
  int vcs_;
};

}  // namespace

SingleRouterNetwork::SingleRouterNetwork(const Config& cfg, const Clock& clock) : Network(cfg, clock) {}

void SingleRouterNetwork::build(const Config& cfg) {
  const int k = int(cfg.get_int("router.radix"));
  make_endpoints(cfg, k);
  const RouterParams rp = router_params(cfg, k);
  routing_.push_back(std::make_unique<SingleRouterRouting>(rp.vcs));
  routers_.push_back(std::make_unique<Router>("router0", 0, rp, routing_.back().get(), clock_));
  Router& r = *routers_.back();
  for (int n = 0; n < k; ++n) {
    r.attach_input(n, endpoints_->inject_link(n));
    r.attach_output(n, endpoints_->eject_link(n), ejection_credits(n));
  }
}

Network::Network(const Config& cfg, const Clock& clock) : clock_(clock) {
  const int flit_bits = int(cfg.get_int("flit.bits"));
  const int width = int(cfg.get_int("channel.width_bits"));
  serialization_ = (flit_bits + width - 1) / width;
}

Network::~Network() = default;

RouterParams Network::router_params(const Config& cfg, int radix) const {
  RouterParams rp;
  rp.org.name = cfg.get_string("router.org");
  rp.org.radix = radix;
  rp.org.vcs = int(cfg.get_int("router.vcs"));
  rp.org.port_buffer_depth_flits = int(cfg.get_int("router.vc_depth_flits"));
  rp.org.subswitch_buffer_depth_flits = int(cfg.get_int("router.subswitch_vc_depth_flits"));
  rp.org.input_speedup = int(cfg.get_int("router.input_speedup"));
  rp.org.rc_cycles = int(cfg.get_int("router.rc_cycles"));
  rp.org.va_cycles = int(cfg.get_int("router.va_cycles"));
  rp.org.sa_cycles = int(cfg.get_int("router.sa_cycles"));
  rp.org.st_cycles = int(cfg.get_int("router.st_cycles"));
  rp.vcs = rp.org.vcs;
  rp.wormhole = cfg.get_string("router.flow_control") == "wormhole";
  rp.switch_allocator = cfg.get_string("router.switch_allocator");
  rp.vc_allocator = cfg.get_string("router.vc_allocator");
  rp.allocator_iterations = int(cfg.get_int("router.allocator_iterations"));
  rp.internal_serialization_cycles = serialization_;
  return rp;
}

EndpointParams Network::endpoint_params(const Config& cfg) const {
  EndpointParams ep;
  ep.vcs = int(cfg.get_int("router.vcs"));
  ep.router_buffer_depth_flits = int(cfg.get_int("router.vc_depth_flits"));
  ep.wormhole = cfg.get_string("router.flow_control") == "wormhole";
  ep.inject_link.latency_cycles = int(cfg.get_int("channel.latency_cycles"));
  ep.inject_link.credit_latency_cycles = int(cfg.get_int("channel.credit_latency_cycles"));
  ep.inject_link.serialization_cycles = serialization_;
  ep.inject_link.width_bits = int(cfg.get_int("channel.width_bits"));
  ep.eject_link = ep.inject_link;
  return ep;
}

void Network::make_endpoints(const Config& cfg, int nodes) {
  PatternParams pp;
  pp.nodes = nodes;
  pp.seed = std::uint64_t(cfg.get_int("sim.seed"));
  pp.hotspot_nodes = int(cfg.get_int("traffic.hotspot_nodes"));
  pp.hotspot_fraction = cfg.get_float("traffic.hotspot_fraction");
  SyntheticParams sp;
  sp.nodes = nodes;
  sp.seed = pp.seed;
  sp.load = cfg.get_float("traffic.load");
  sp.serialization_cycles = serialization_;
  sp.bimodal = cfg.get_string("traffic.size_mix") == "bimodal";
  sp.packet_flits = int(cfg.get_int("traffic.packet_flits"));
  sp.bimodal_small_flits = int(cfg.get_int("traffic.bimodal_small_flits"));
  sp.bimodal_large_flits = int(cfg.get_int("traffic.bimodal_large_flits"));
  const int largest = sp.bimodal ? std::max(sp.bimodal_small_flits, sp.bimodal_large_flits) : sp.packet_flits;
  if (cfg.get_string("router.flow_control") == "vct" && largest > cfg.get_int("router.vc_depth_flits"))
    throw ConfigError("config error: packets of " + std::to_string(largest) +
                      " flits do not fit router.vc_depth_flits = " + std::to_string(cfg.get_int("router.vc_depth_flits")) +
                      ": virtual cut-through needs a VC to hold a whole packet");
  workload_ = std::make_unique<SyntheticWorkload>(sp, make_traffic_pattern(cfg.get_string("traffic.pattern"), pp));
  endpoints_ = std::make_unique<Endpoints>("endpoints", nodes, endpoint_params(cfg), workload_.get(), &stats_, clock_);
}

std::uint64_t Network::flit_hops() const {
  std::uint64_t n = 0;
  for (auto& r : routers_) n += r->crossbar_flits();
  return n;
}

RouterActivity Network::activity() const {
  RouterActivity a;
  for (auto& r : routers_) a += r->activity();
  return a;
}

std::uint64_t Network::flits_in_network() const {
  std::uint64_t n = 0;
  for (auto& r : routers_) {
    n += r->buffered_flits();
    for (auto& l : r->internal_links()) n += l->flits_in_flight();
  }
  for (auto& l : links_) n += l->flits_in_flight();
  for (int i = 0; i < endpoints_->nodes(); ++i)
    n += endpoints_->inject_link(i)->flits_in_flight() + endpoints_->eject_link(i)->flits_in_flight();
  return n;
}

void Network::report_stuck(std::ostream& os) const {
  for (auto& r : routers_) r->report_buffers(os);
}

Clock clock_from(const Config& cfg) {
  Clock clock;
  clock.period = sc_core::sc_time(1000.0 / cfg.get_float("sim.clock_ghz"), sc_core::SC_PS);
  return clock;
}

std::unique_ptr<Network> make_network(const Config& cfg, const Clock& clock) {
  auto net = std::make_unique<SingleRouterNetwork>(cfg, clock);
  net->build(cfg);
  return net;
}

}  // namespace nwn

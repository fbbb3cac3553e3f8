#include "network.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "exchange.hpp"
#include "topo/graph.hpp"
#include "workload.hpp"

namespace nwn {

namespace {

// Single router: the router output is the destination's port; any VC.
class SingleRouterRouting final : public GlobalRouting {
 public:
  explicit SingleRouterRouting(int vcs) : vcs_(vcs) {}
  void route(Router&, int, Flit& head) override {
    head.router_out = std::int16_t(head.dst);
    head.router_vc_lo = 0;
    head.router_vc_hi = std::uint8_t(vcs_ - 1);
  }
  bool routes_to_destination() const override { return true; }

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
  for (int n = 0; n < k; ++n) attach_terminal(n, r, n, ejection_credits(n));
  enable_heatmaps_if(cfg);
}

namespace {

LinkParams channel_params(const Config& cfg, int serialization) {
  LinkParams lp;
  lp.latency_cycles = int(cfg.get_int("network.link_latency_cycles"));
  const auto credit = cfg.get_int("network.credit_latency_cycles");
  lp.credit_latency_cycles = credit ? int(credit) : lp.latency_cycles;
  lp.serialization_cycles = serialization;
  lp.width_bits = int(cfg.get_int("channel.width_bits"));
  return lp;
}

}  // namespace

const Network::Channel& Network::channel(const Config& cfg) {
  if (!channel_) channel_ = Channel{channel_params(cfg, serialization_), int(cfg.get_int("router.vc_depth_flits"))};
  return *channel_;
}

namespace {
// "a.1->b.2" (a name per channel: fmt::format took more than the rest of connecting it).
std::string channel_name(const char* from, int port_from, const std::string& to, int port_to) {
  return std::string(from) + '.' + std::to_string(port_from) + "->" + to + '.' + std::to_string(port_to);
}
}  // namespace

void Network::connect(Router& a, int port_a, Router& b, int port_b, const Config& cfg) {
  const LinkParams& lp = channel(cfg).params;
  const int depth = channel(cfg).depth_flits;
  auto one_way = [&](Router& from, int pf, Router& to, int pt) {
    links_.push_back(std::make_unique<Link>(channel_name(from.basename(), pf, to.basename(), pt), lp));
    from.attach_output(pf, links_.back().get(), depth);
    to.attach_input(pt, links_.back().get());
    mark_used(from.id(), pf, 2);
    mark_used(to.id(), pt, 1);
  };
  one_way(a, port_a, b, port_b);
  one_way(b, port_b, a, port_a);
}

void Network::connect_to_rank(Router& a, int port_a, int far, const std::string& far_name, int port_far, int far_rank,
                              const Config& cfg) {
  if (!exchange_) exchange_ = std::make_unique<RankExchange>(*ranks_);
  const LinkParams& lp = channel(cfg).params;
  // Named and ordered as in one process (a -> far, then back).
  links_.push_back(std::make_unique<Link>(channel_name(a.basename(), port_a, far_name, port_far), lp));
  a.attach_output(port_a, links_.back().get(), channel(cfg).depth_flits);
  exchange_->add(links_.back().get(), far_rank, std::uint64_t(a.id()) << 16 | std::uint64_t(port_a), true);
  links_.push_back(std::make_unique<Link>(channel_name(far_name.c_str(), port_far, a.basename(), port_a), lp));
  a.attach_input(port_a, links_.back().get());
  exchange_->add(links_.back().get(), far_rank, std::uint64_t(far) << 16 | std::uint64_t(port_far), false);
  mark_used(a.id(), port_a, 3);
}

ExchangeFigures Network::exchange_figures() const { return exchange_ ? exchange_->figures() : ExchangeFigures{}; }

void Network::mark_used(int router, int port, std::uint8_t bit) {
  if (port_used_.size() <= std::size_t(router)) port_used_.resize(router + 1);
  auto& v = port_used_[router];
  if (v.size() <= std::size_t(port)) v.resize(port + 1, 0);
  if (v[port] & bit) throw std::logic_error(fmt::format("topology: router {} port {} connected twice", router, port));
  v[port] |= bit;
}

void Network::attach_terminal(int node, Router& r, int port, int ejection_credits) {
  if (router_of_node_.size() <= std::size_t(node)) router_of_node_.resize(std::size_t(node) + 1, -1);
  router_of_node_[std::size_t(node)] = r.id();
  r.attach_input(port, endpoints_->inject_link(node));
  r.attach_output(port, endpoints_->eject_link(node), ejection_credits > 0 ? ejection_credits : eject_credits_);
  r.mark_terminal_output(port);
  mark_used(r.id(), port, 3);
}

void Network::close_unused_ports() {
  LinkParams lp;
  for (auto& r : routers_) {
    for (int p = 0; p < r->radix(); ++p) {
      const std::uint8_t used =
          std::size_t(r->id()) < port_used_.size() && std::size_t(p) < port_used_[r->id()].size()
              ? port_used_[r->id()][p]
              : 0;
      if (!(used & 1)) {
        links_.push_back(std::make_unique<Link>(fmt::format("{}.{}.unused-in", r->basename(), p), lp));
        r->attach_input(p, links_.back().get());
      }
      if (!(used & 2)) {
        links_.push_back(std::make_unique<Link>(fmt::format("{}.{}.unused-out", r->basename(), p), lp));
        r->attach_output(p, links_.back().get(), 0);
      }
    }
  }
}

std::vector<int> Network::port_map(const std::string& assignment, const std::vector<int>& groups, int radix) {
  int total = 0;
  for (int g : groups) total += g;
  if (total > radix) throw std::logic_error("port map: more logical ports than the radix");
  std::vector<int> map(total);
  if (assignment == "tied") {
    for (int i = 0; i < total; ++i) map[i] = i;
    return map;
  }
  // Interleaved: deal physical ports to the groups in turn.
  std::vector<int> next(groups.size(), 0), first(groups.size(), 0);
  for (std::size_t g = 1; g < groups.size(); ++g) first[g] = first[g - 1] + groups[g - 1];
  int phys = 0;
  while (phys < total) {
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (next[g] < groups[g]) map[first[g] + next[g]++] = phys++;
  }
  return map;
}

// Blocks of one cycle walk the whole network every cycle, so a large
// network's state is out of the cache when a router is next run; but a
// send also marks the receiving router's pending input (and a credit the
// sending router's), which is still in the cache if that router ran
// shortly before. Each router with terminals (one cluster a router, in
// router order) is followed by its neighbours not yet placed; the others
// keep their order. In a fat tree: a leaf, the routers of its pod above
// it, the pod's other leaves; the top level last. The order of the
// clusters changes no result (models/kernel.hpp).
namespace {
// `between`: the links from one cluster to another, `cluster_of` their
// ends' clusters.
std::vector<std::vector<Clocked*>> near_neighbours_first(std::vector<std::vector<Clocked*>> clusters,
                                                         const std::vector<Link*>& between,
                                                         const std::map<const LinkEnd*, std::size_t>& cluster_of) {
  std::vector<std::vector<std::size_t>> neighbours(clusters.size());
  for (const Link* l : between) neighbours[cluster_of.at(l->sender())].push_back(cluster_of.at(l->receiver()));
  std::vector<char> placed(clusters.size(), 0);
  std::vector<std::vector<Clocked*>> ordered;
  auto place = [&](std::size_t i) {
    if (placed[i]) return;
    placed[i] = 1;
    ordered.push_back(std::move(clusters[i]));
  };
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    if (clusters[i].size() < 2 || placed[i]) continue;  // no terminals (a cluster of the router alone), or placed
    place(i);
    for (std::size_t n : neighbours[i]) place(n);
  }
  for (std::size_t i = 0; i < clusters.size(); ++i) place(i);
  return ordered;
}
}  // namespace

void Network::start(int threads, int max_block) {
  if (kernel_) throw std::logic_error("network: start() called twice");
  bool in_step = false;  // every component must run every cycle in turn
  for (auto& r : routing_)
    if (r->reads_other_routers()) threads = 1, in_step = true;
  // A cluster per router: the router, after the group of its terminals when
  // nodes can run apart; otherwise all terminals are one cluster.
  const int nodes = endpoints_->nodes();
  bool attached = true;  // every node here has a router
  for (int n = 0; n < nodes; ++n)
    if (endpoints_->has(n)) attached = attached && std::size_t(n) < router_of_node_.size() && router_of_node_[n] >= 0;
  const bool split = !in_step && nodes > 0 && router_count() > 1 && attached && workload_->per_node();
  if (exchange_ && !split) throw std::logic_error("network: a network over ranks needs a cluster per router");
  std::vector<std::vector<int>> groups;
  if (split) {
    groups.resize(std::size_t(router_count()));
    for (int n = 0; n < nodes; ++n)
      if (endpoints_->has(n)) groups[std::size_t(router_of_node_[n])].push_back(n);
    groups.erase(std::remove_if(groups.begin(), groups.end(), [](auto& g) { return g.empty(); }), groups.end());
  }
  endpoints_->make_groups(groups);
  std::vector<std::vector<Clocked*>> clusters;
  std::map<const LinkEnd*, std::size_t> cluster_of;
  if (!split) {
    clusters.push_back({endpoints_->groups()[0].get()});
    cluster_of[endpoints_->groups()[0].get()] = 0;
  }
  std::map<int, EndpointGroup*> group_of_router;
  if (split)
    for (auto& g : endpoints_->groups()) group_of_router[router_of_node_[std::size_t(g->nodes()[0])]] = g.get();
  for (auto& r : routers_) {
    clusters.emplace_back();
    if (auto g = group_of_router.find(r->id()); g != group_of_router.end()) {
      clusters.back().push_back(g->second);
      cluster_of[g->second] = clusters.size() - 1;
    }
    clusters.back().push_back(r.get());
    cluster_of[r.get()] = clusters.size() - 1;
  }
  // The links between clusters bound the block; the others are local.
  std::vector<Link*> links;
  for (auto& l : links_) links.push_back(l.get());
  for (int n = 0; n < nodes; ++n) {
    if (!endpoints_->has(n)) continue;
    links.push_back(endpoints_->inject_link(n));
    links.push_back(endpoints_->eject_link(n));
  }
  int block = max_block <= 0 ? 1 << 20 : max_block;
  if (in_step) block = 1;
  std::vector<Link*> between;
  for (Link* l : links) {
    if (!l->sender() || !l->receiver()) continue;  // an unused port's idle channel
    if (exchange_ && (exchange_->stands_in(l->sender()) || exchange_->stands_in(l->receiver()))) {
      between.push_back(l);  // to another rank
      block = std::min({block, l->params().latency_cycles, l->params().credit_latency_cycles});
      continue;
    }
    const auto a = cluster_of.find(l->sender()), b = cluster_of.find(l->receiver());
    if (a == cluster_of.end() || b == cluster_of.end()) throw std::logic_error("network: a link end is in no cluster");
    if (a->second == b->second) {
      l->set_local(true);
      continue;
    }
    between.push_back(l);
    block = std::min({block, l->params().latency_cycles, l->params().credit_latency_cycles});
  }
  // All ranks run the same blocks.
  block = int(ranks_->min(std::uint64_t(block)));
  const std::uint64_t between_all = ranks_->sum(between.size());
  if (between_all == 0) block = 1;  // one router: a longer block was measured to gain nothing (docs/RESULTS.md)
  for (Link* l : between) l->reserve_for_blocks(block);
  // Two colours (models/kernel.hpp) when the blocks are the kernel's to
  // choose (sim.block_cycles 0) and the clusters' graph is bipartite: each
  // cluster then runs two blocks in a row. Under ranks the colours are the
  // whole network's routers' (router_colour_, the same on every rank, as
  // the decision is): a rank may hold clusters of one colour only, and
  // still runs both colours' blocks with the others.
  std::size_t colour_split = Kernel::kOneColour;
  if (split && max_block <= 0 && between_all > 0) {
    std::vector<int> colour;
    if (!exchange_) {
      std::vector<std::pair<std::size_t, std::size_t>> edges;
      for (const Link* l : between) edges.emplace_back(cluster_of.at(l->sender()), cluster_of.at(l->receiver()));
      colour = topo::two_colours(clusters.size(), edges);
    } else if (!router_colour_.empty()) {
      for (auto& r : routers_) colour.push_back(router_colour_[std::size_t(r->id())]);  // cluster i: routers_[i]
    }
    if (!colour.empty()) {
      std::vector<std::vector<Clocked*>> ordered;
      for (int c = 0; c < 2; ++c)
        for (std::size_t i = 0; i < clusters.size(); ++i)
          if (colour[i] == c) ordered.push_back(std::move(clusters[i]));
      colour_split = std::size_t(std::count(colour.begin(), colour.end(), 0));
      clusters = std::move(ordered);
    }
  }
  if (colour_split == Kernel::kOneColour && split && block == 1 && !exchange_)
    clusters = near_neighbours_first(std::move(clusters), between, cluster_of);
  kernel_ = std::make_unique<Kernel>("kernel", std::move(clusters), threads, block, clock_, colour_split);
  if (exchange_) kernel_->set_exchange(exchange_.get());
}

void Network::advance(Cycle cycles) {
  if (!kernel_) throw std::logic_error("network: advance() before start()");
  kernel_->set_horizon(clock_.now() + cycles);
  sc_core::sc_start(clock_.delay(cycles));
}

void Network::enable_heatmaps_if(const Config& cfg) {
  if (cfg.get_bool("sim.heatmap"))
    for (auto& r : routers_) r->enable_heatmap();
}

Network::Network(const Config& cfg, const Clock& clock, Ranks& ranks) : clock_(clock), ranks_(&ranks) {
  const int flit_bits = int(cfg.get_int("flit.bits"));
  const int width = int(cfg.get_int("channel.width_bits"));
  serialization_ = (flit_bits + width - 1) / width;
}

Network::~Network() {
  kernel_.reset();  // stops its threads before the components go
  // Newest first, as SystemC's port and export registries search (models/endpoint.cpp).
  while (!routers_.empty()) routers_.pop_back();
}

RouterParams Network::router_params(const Config& cfg, int radix) const {
  RouterParams rp;
  rp.org = organization_params(cfg, radix);
  rp.vcs = rp.org.vcs;
  rp.policy.wormhole = cfg.get_string("router.flow_control") == "wormhole";
  rp.policy.switch_allocator = cfg.get_string("router.switch_allocator");
  rp.policy.vc_allocator = cfg.get_string("router.vc_allocator");
  rp.policy.allocator_iterations = int(cfg.get_int("router.allocator_iterations"));
  rp.policy.next_head_delay_cycles = int(cfg.get_int("router.next_head_delay_cycles"));
  rp.policy.hold_switch_for_packet = cfg.get_bool("router.hold_switch_for_packet");
  rp.policy.va_requires_credit = cfg.get_bool("router.va_requires_credit");
  rp.rtl_allocators = cfg.get_string("router.allocator_impl") == "rtl";
  rp.rtl_router = int(cfg.get_int("router.rtl_router"));
  rp.rtl.trace_path = cfg.get_string("router.rtl_trace_file");
  rp.rtl.trace_from = cfg.get_int("router.rtl_trace_from");
  rp.rtl.trace_cycles = cfg.get_int("router.rtl_trace_cycles");
  if (!rp.rtl.trace_path.empty() && !rp.rtl_allocators)
    throw ConfigError("config error: router.rtl_trace_file = '" + rp.rtl.trace_path +
                      "' traces the RTL allocator: it needs router.allocator_impl = rtl (--allocator rtl)");
  rp.internal_serialization_cycles = serialization_;
  rp.message_classes = message_classes(cfg);  // check_config checked the VCs for them
  rp.eject_vcs = int(cfg.get_int("network.eject_vcs"));  // check_route_vcs checked them
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
  if (const auto inject = cfg.get_int("channel.inject_latency_cycles")) ep.inject_link.latency_cycles = int(inject);
  ep.message_classes = message_classes(cfg);
  ep.eject_buffer_flits = eject_buffer_flits(cfg);
  return ep;
}

void Network::make_endpoints(const Config& cfg, int nodes, const RouterLayout* layout, const std::vector<bool>& local) {
  eject_credits_ = eject_buffer_flits(cfg);
  ConfigWorkload w = make_workload(cfg, nodes, serialization_, layout);
  workload_ = std::move(w.workload);
  finite_ = w.finite;
  endpoints_ =
      std::make_unique<Endpoints>("endpoints", nodes, endpoint_params(cfg), workload_.get(), &stats_, clock_, local);
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
    if (endpoints_->has(i))
      n += endpoints_->inject_link(i)->flits_in_flight() + endpoints_->eject_link(i)->flits_in_flight();
  return n;
}

Cycle Network::pending_until() const {
  Cycle t = 0;
  for (auto& r : routers_) t = std::max(t, r->pending_until());
  for (auto& l : links_) t = std::max(t, l->pending_until());
  for (int i = 0; i < endpoints_->nodes(); ++i)
    if (endpoints_->has(i))
      t = std::max({t, endpoints_->inject_link(i)->pending_until(), endpoints_->eject_link(i)->pending_until()});
  return t;
}

namespace {

// A channel whose receiver left flits on it.
void report_link(std::ostream& os, const Link& l) {
  if (l.flits_in_flight() == 0) return;
  const Flit& f = l.flit_in_flight(0);
  os << "  channel " << l.name() << ": " << l.flits_in_flight() << " flit(s) not taken; front packet " << f.packet_id
     << " " << f.src << "->" << f.dst << (f.head ? " head" : " body") << "\n";
}

}  // namespace

void Network::report_stuck(std::ostream& os) const {
  const auto start = os.tellp();
  for (auto& r : routers_) {
    r->report_buffers(os);
    for (auto& l : r->internal_links()) report_link(os, *l);
  }
  for (auto& l : links_) report_link(os, *l);
  for (int i = 0; i < endpoints_->nodes(); ++i) {
    if (!endpoints_->has(i)) continue;
    report_link(os, *endpoints_->inject_link(i));
    report_link(os, *endpoints_->eject_link(i));
  }
  // The hint only beside something stuck: an empty report means lost flits.
  if (os.tellp() != start && router_count() > 1 && !routers_.empty() && routers_.front()->eject_vcs() == 0 && ranks().rank() == 0)
    os << "  (a network of routers with network.eject_vcs = 0: an internal channel shared by packets to a global "
          "port and packets to a terminal can close a cycle through two routers; network.eject_vcs = 1 reserves a "
          "VC for the packets to terminals and breaks it: docs/RESULTS.md, \"Deadlock across routers\")\n";
}

Clock clock_from(const Config& cfg) {
  Clock clock;
  clock.period = sc_core::sc_time(1000.0 / cfg.get_float("sim.clock_ghz"), sc_core::SC_PS);
  return clock;
}

Registry<TopologyFactory>& topology_registry() {
  static Registry<TopologyFactory> registry("topology");
  return registry;
}

TopologyFactory& graph_network_factory() {
  static TopologyFactory factory;
  return factory;
}

void check_distributable(const Config& cfg, int ranks) {
  auto refuse = [&](const std::string& key, const std::string& why, const std::string& allowed) {
    throw ConfigError(fmt::format("config error: {} = '{}' cannot run over {} ranks: {}; allowed under mpirun: {}",
                                  key, cfg.text(key), ranks, why, allowed));
  };
  if (cfg.get_string("network.topology") == "single")
    refuse("network.topology", "one router is one cluster, which one rank runs", "any network of several routers");
  if (cfg.get_string("router.allocator_impl") == "rtl")
    refuse("router.allocator_impl", "the Verilated allocators run every cycle in order in one process", "model");
  if (!cfg.get_string("router.rtl_trace_file").empty())
    refuse("router.rtl_trace_file", "the RTL trace records a Verilated allocator, which runs in one process",
           "'' (trace with one process)");
  if (!cfg.get_string("sim.packet_trace_file").empty())
    refuse("sim.packet_trace_file", "a packet trace follows packets event by event across every router in one process",
           "'' (trace with one process)");
  if (!cfg.get_string("sim.vcd_file").empty())
    refuse("sim.vcd_file", "the occupancy VCD samples one router every cycle in one process",
           "'' (record the VCD with one process)");
  if (cfg.get_string("traffic.source") == "external")
    refuse("traffic.source", "an embedding (nwn::TlmNetwork) takes its packets from TLM initiators of one SystemC "
           "process", "synthetic, trace");
  if (cfg.get_string("traffic.mode") == "batch" && cfg.get_int("traffic.batch_max_outstanding") > 0)
    refuse("traffic.batch_max_outstanding", "a closed loop restarts a source in the cycle its packet arrives, "
           "on whatever router, so all terminals run as one cluster", "0 (an open batch)");
}

std::unique_ptr<Network> make_network(const Config& cfg, const Clock& clock, Ranks& ranks) {
  const std::string& name = cfg.get_string("network.topology");
  TopologyFactory factory;
  if (const TopologyFactory* f = topology_registry().find(name)) factory = *f;
  else if (topo::find_graph_topology(name) && graph_network_factory()) factory = graph_network_factory();
  else throw ConfigError("config error: network.topology = '" + name + "' cannot be simulated");
  check_config(cfg);
  if (ranks.distributed()) check_distributable(cfg, ranks.size());
  RtlMissingSizes missing;
  auto net = factory(cfg, clock, ranks);
  if (!missing.names().empty()) {
    std::string names, list;
    for (const std::string& n : missing.names()) {
      names += (names.empty() ? "" : ", ") + n;
      list += (list.empty() ? "" : ";") + n;
    }
    throw ConfigError("config error: router.allocator_impl = rtl: this build has no Verilated allocator " + names +
                      " (it has: " + RtlMissingSizes::available() + "); build them with scripts/rtl-sizes and the "
                      "same nwnsim arguments, or configure with -DNWNSIM_RTL_EXTRA='" + list + "' (docs/RTL.md)");
  }
  const std::int64_t rtl_router = cfg.get_int("router.rtl_router");
  if (rtl_router >= std::int64_t(net->router_count()))
    throw ConfigError("config error: router.rtl_router = " + std::to_string(rtl_router) + " but the network has " +
                      std::to_string(net->router_count()) + " routers (allowed: -1 for all, or 0 to " +
                      std::to_string(net->router_count() - 1) + ")");
  net->close_unused_ports();
  return net;
}

namespace {
// One router has no global routing to choose.
TopologyRegistration reg_single("single", [](const Config& cfg, const Clock& clock, Ranks&) {
  auto net = std::make_unique<SingleRouterNetwork>(cfg, clock);
  net->build(cfg);
  return std::unique_ptr<Network>(std::move(net));
});
}  // namespace

}  // namespace nwn

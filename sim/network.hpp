// A simulated network: routers, the links between them, and the endpoints.
// Topologies build one from the config; the experiment runs any of them.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <memory>
#include <optional>
#include <vector>

#include "../models/endpoint.hpp"
#include "../models/router.hpp"
#include "../base/registry.hpp"
#include "config.hpp"
#include "ranks.hpp"
#include "stats.hpp"
#include "traffic.hpp"

namespace nwn {

class RankExchange;
struct ExchangeFigures;

class Network {
 public:
  // `ranks`: the processes that share the network (sim/ranks.hpp); this one
  // builds and runs only its share of the routers and their terminals.
  Network(const Config& cfg, const Clock& clock, Ranks& ranks = one_process());
  virtual ~Network();

  Endpoints& endpoints() { return *endpoints_; }
  const Endpoints& endpoints() const { return *endpoints_; }
  // The routers this process simulates (all of them in one process), by id.
  const std::vector<std::unique_ptr<Router>>& routers() const { return routers_; }
  // Routers in the whole network, on every rank.
  int router_count() const { return router_count_ ? router_count_ : int(routers_.size()); }
  Ranks& ranks() const { return *ranks_; }
  // The rank of each router (empty in one process).
  const std::vector<int>& rank_of_router() const { return rank_of_router_; }
  // What this rank exchanged with the others (zeros in one process).
  ExchangeFigures exchange_figures() const;
  PacketStats& stats() { return stats_; }
  const PacketStats& stats() const { return stats_; }
  // The batch or trace workload (the run ends when all its packets are
  // delivered), or nullptr for open-loop traffic.
  const FiniteWorkload* finite_workload() const { return finite_; }
  int serialization_cycles() const { return serialization_; }
  const Clock& clock() const { return clock_; }

  std::uint64_t flit_hops() const;
  // Activity summed over routers (all routers of a network share one organization).
  RouterActivity activity() const;
  // Of this process's share of the network (sum or take the maximum over
  // ranks for the whole network):
  // Flits in router buffers and on every link, counted structurally.
  std::uint64_t flits_in_network() const;
  // The last cycle at which something under way completes: a flit or credit
  // on any channel, a router pipeline stage, a channel serializing (0: none).
  Cycle pending_until() const;
  // Every buffer holding flits (state, route, credits, front packet) and
  // every channel holding flits its receiver has not taken.
  void report_stuck(std::ostream& os) const;
  // Logical-to-physical port map for routers whose ports fall in groups
  // (terminals, down, up, one group per dimension): network.port_assignment
  // "tied" keeps each group on consecutive physical ports, "interleaved"
  // deals the groups' ports out in turn (Fig. 10 of the NWN paper).
  static std::vector<int> port_map(const std::string& assignment, const std::vector<int>& group_sizes, int radix);
  // Ports left unconnected get idle channels (the topology never routes to them).
  void close_unused_ports();
  // Puts the endpoints and routers under one kernel (models/kernel.hpp) with
  // `threads` threads (before the simulation starts; once). The result does
  // not depend on the thread count. Cycle blocks: each router with its
  // terminals runs up to `max_block` cycles in a row, as many as the
  // shortest channel between routers allows (1: none; 0: no limit). Blocks
  // do not change results either; they are off where the run needs every
  // component in step (a routing that reads other routers, a workload
  // whose nodes depend on each other).
  void start(int threads, int max_block = 1);
  int threads() const { return kernel_ ? kernel_->threads() : 0; }
  Kernel* kernel() { return kernel_.get(); }
  int block_cycles() const { return kernel_ ? kernel_->block() : 0; }
  int block_colours() const { return kernel_ && kernel_->two_colours() ? 2 : 1; }
  // Under ranks, a network with two colours: what they cost a block under
  // the partition, against one colour (sim/partition.hpp); 0 otherwise.
  double colours_cost() const { return colours_cost_; }
  // Under ranks, how the routers were split (sim.partition, or auto's
  // choice); empty in one process.
  const std::string& partition() const { return partition_; }
  // Simulates `cycles` more cycles (sc_start), in blocks that end there.
  void advance(Cycle cycles);
  // Ends the kernel's worker threads (after the simulation; nothing runs
  // after this): all a network that is never destroyed must do.
  void stop_threads() { kernel_.reset(); }

 protected:
  RouterParams router_params(const Config& cfg, int radix) const;
  EndpointParams endpoint_params(const Config& cfg) const;
  // layout: router-level knowledge for topology-aware patterns (worst_case);
  // patterns copy what they need while the endpoints are built.
  // `local`: the nodes of this process (Endpoints; empty: all).
  void make_endpoints(const Config& cfg, int nodes, const RouterLayout* layout = nullptr,
                      const std::vector<bool>& local = {});
  // A pair of global channels between router ports (physical port numbers).
  void connect(Router& a, int port_a, Router& b, int port_b, const Config& cfg);
  // The same between a router here and router `far` (named `far_name`) of
  // rank `far_rank` (sim/exchange.hpp).
  void connect_to_rank(Router& a, int port_a, int far, const std::string& far_name, int port_far, int far_rank,
                       const Config& cfg);
  void attach_terminal(int node, Router& r, int port, int ejection_credits = 0);
  // The global channels' parameters and the buffer behind them (one look-up
  // in the config for the network, not one per channel).
  struct Channel {
    LinkParams params;
    int depth_flits;
  };
  const Channel& channel(const Config& cfg);
  void enable_heatmaps_if(const Config& cfg);
  void mark_used(int router, int port, std::uint8_t bit);

  Clock clock_;
  int serialization_ = 1;
  PacketStats stats_;
  std::unique_ptr<Workload> workload_;
  const FiniteWorkload* finite_ = nullptr;
  std::unique_ptr<Endpoints> endpoints_;
  std::vector<std::unique_ptr<Router>> routers_;
  std::vector<std::unique_ptr<Link>> links_;  // router-to-router channels
  std::optional<Channel> channel_;
  std::vector<std::unique_ptr<GlobalRouting>> routing_;
  std::vector<std::vector<std::uint8_t>> port_used_;  // per router: input attached, output attached (2 bits)
  std::vector<int> router_of_node_;  // the router each terminal is attached to
  int eject_credits_ = 0;            // flits per VC a terminal buffers (0: always accepts)
  Ranks* ranks_;
  int router_count_ = 0;                    // 0: routers_.size() (one process)
  std::vector<int> rank_of_router_;         // under ranks: sim/partition.hpp
  std::unique_ptr<RankExchange> exchange_;  // under ranks: the channels to the others
  // Under ranks: every router's colour (topo::two_colours of the whole
  // network), empty when the network has no two colours or
  // they cost more than they gain here (score_partition, sim/partition.hpp).
  std::vector<int> router_colour_;
  double colours_cost_ = 0;
  std::string partition_;
  std::unique_ptr<Kernel> kernel_;  // declared last: stops its threads before the components go
};

// Networks with their own Network subclass (kind "topology": single, one
// router, which needs no routing); every other topology is a graph.
using TopologyFactory = std::function<std::unique_ptr<Network>(const Config&, const Clock&, Ranks&)>;
Registry<TopologyFactory>& topology_registry();
// Builds the network of any graph topology (set by sim/topology_graph.cpp).
TopologyFactory& graph_network_factory();
struct TopologyRegistration {
  TopologyRegistration(const std::string& name, TopologyFactory f) { topology_registry().add(name, std::move(f)); }
};

// One router with a terminal on every port: the paper's single-router setup.
class SingleRouterNetwork : public Network {
 public:
  SingleRouterNetwork(const Config& cfg, const Clock& clock);
  void build(const Config& cfg);

 protected:
  // Flits the router may send to a terminal before that terminal returns
  // credits; 0: the terminal always accepts (the default). Terminals never
  // return credits, so a non-zero value models a terminal that stalls.
  virtual int ejection_credits(int /*node*/) const { return 0; }
};

// The network the config describes (now: one router with a terminal on every
// port, the paper's single-router setup).
// Under ranks (`ranks` of more than one process), this process's share of
// it; what cannot be split is refused (check_distributable).
std::unique_ptr<Network> make_network(const Config& cfg, const Clock& clock, Ranks& ranks = one_process());
// What a network over several ranks cannot do, refused with a ConfigError
// naming the setting and what is allowed.
void check_distributable(const Config& cfg, int ranks);
Clock clock_from(const Config& cfg);

}  // namespace nwn

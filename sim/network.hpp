// A simulated network: routers, the links between them, and the endpoints.
// Topologies build one from the config; the experiment runs any of them.
#pragma once
#include <iosfwd>
#include <memory>
#include <vector>

#include "../models/endpoint.hpp"
#include "../models/router.hpp"
#include "config.hpp"
#include "stats.hpp"
#include "traffic.hpp"

namespace nwn {

class Network {
 public:
  Network(const Config& cfg, const Clock& clock);
  virtual ~Network();

  Endpoints& endpoints() { return *endpoints_; }
  const std::vector<std::unique_ptr<Router>>& routers() const { return routers_; }
  PacketStats& stats() { return stats_; }
  int serialization_cycles() const { return serialization_; }
  const Clock& clock() const { return clock_; }

  std::uint64_t flit_hops() const;
  // Activity summed over routers (all routers of a network share one organization).
  RouterActivity activity() const;
  // Flits in router buffers and on every link, counted structurally.
  std::uint64_t flits_in_network() const;
  void report_stuck(std::ostream& os) const;

 protected:
  RouterParams router_params(const Config& cfg, int radix) const;
  EndpointParams endpoint_params(const Config& cfg) const;
  void make_endpoints(const Config& cfg, int nodes);

  Clock clock_;
  int serialization_ = 1;
  PacketStats stats_;
  std::unique_ptr<SyntheticWorkload> workload_;
  std::unique_ptr<Endpoints> endpoints_;
  std::vector<std::unique_ptr<Router>> routers_;
  std::vector<std::unique_ptr<Link>> links_;  // router-to-router channels
  std::vector<std::unique_ptr<GlobalRouting>> routing_;
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
std::unique_ptr<Network> make_network(const Config& cfg, const Clock& clock);
Clock clock_from(const Config& cfg);

}  // namespace nwn

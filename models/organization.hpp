// A switch organization is a structural description: subswitches, the
// internal channels between them, and where the router's ports attach. The
// SystemC model is elaborated from it, and the complexity and power figures
// are computed from it; nothing is counted by hand.
//
// Organizations register themselves by name (NWN_REGISTER_ORGANIZATION-style
// static objects at the bottom of their own file).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flit.hpp"
#include "routing.hpp"

namespace nwn {

struct SubswitchSpec {
  std::string name;
  int inputs = 1;
  int outputs = 1;
  int input_speedup = 1;
  int vc_depth_flits = 16;
  // Pipeline stages; a router's input subswitch does route computation and
  // VC allocation for the whole router, inner subswitches may not.
  int rc_cycles = 1, va_cycles = 1, sa_cycles = 1, st_cycles = 1;
  // Stage latencies for inputs fed by internal channels.
  int inner_rc_cycles = 0, inner_va_cycles = 0;
  bool port_buffers = false;  // inputs are router input-port buffers (not subswitch buffers)
  double x_mm = 0, y_mm = 0;  // floorplan position (centre)
};

struct ChannelSpec {
  int from_ss = -1, from_port = -1;
  int to_ss = -1, to_port = -1;
  int latency_cycles = 2;
  double length_mm = 0.0;
};

struct PortAttachment {
  int ss = -1;
  int port = -1;
};

struct SwitchDescription {
  std::string org;
  int radix = 0;
  double area_pitch2 = 0;  // floorplan area in channel pitch^2 (0: not modelled)
  std::vector<SubswitchSpec> subswitches;
  std::vector<ChannelSpec> channels;
  std::vector<PortAttachment> inputs;   // router input port -> subswitch input
  std::vector<PortAttachment> outputs;  // router output port -> subswitch output
};

// Where a head flit goes inside the router. `head.router_out` holds the
// router output port chosen by the global routing, and head.router_vc_lo/hi
// the VCs the global routing allows on that router output.
class InternalRouting {
 public:
  virtual ~InternalRouting() = default;
  virtual RouteDecision route(int subswitch, int in_port, Flit& head) = 0;
};

// Parameters common to all organizations.
struct OrganizationParams {
  std::string name = "cn";  // as in the paper: cn, hc, fc, fc6-isu2, ...
  int radix = 64;
  int vcs = 4;
  int port_buffer_depth_flits = 16;      // router input-port buffers, per VC
  int subswitch_buffer_depth_flits = 16;  // internal subswitch buffers, per VC
  int input_speedup = 1;                  // crossbar inputs per input port (where the organization allows)
  int cn_crossbar_stages = 0;             // extra pipeline stages of the canonical crossbar
  std::uint64_t seed = 1;                 // internal routing randomness (per router)
  int rc_cycles = 1, va_cycles = 1, sa_cycles = 1, st_cycles = 1;
};

struct Organization {
  SwitchDescription description;
  std::unique_ptr<InternalRouting> routing;
};

using OrganizationFactory = std::function<Organization(const OrganizationParams&)>;

// Organizations by name prefix: the factory of the longest registered prefix
// of the requested name builds it (so "fc6-isu2" reaches the "fc" factory).
std::map<std::string, OrganizationFactory>& organization_registry();
Organization make_organization(const OrganizationParams& p);
std::vector<std::string> organization_names();

struct OrganizationRegistration {
  OrganizationRegistration(const std::string& prefix, OrganizationFactory f) {
    organization_registry()[prefix] = std::move(f);
  }
};

// Checks that every subswitch port is attached exactly once; throws otherwise.
void validate(const SwitchDescription& d);

}  // namespace nwn

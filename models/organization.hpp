// A switch organization is a structural description: subswitches, the
// internal channels between them, and where the router's ports attach. The
// SystemC model is elaborated from it, and the complexity and power figures
// are computed from it; nothing is counted by hand.
//
// Organizations register themselves by name (NWN_REGISTER_ORGANIZATION-style
// static objects at the bottom of their own file).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../base/config_key.hpp"
#include "../base/registry.hpp"
#include "flit.hpp"
#include "routing.hpp"

namespace nwn {

// What a subswitch is physically: a crossbar (crosspoints, allocators), a
// broadcast bus driving several buffers (hc rows), or an output multiplexer
// (hc columns). All three are simulated as subswitches; only crossbars count
// crosspoints.
enum class SubswitchKind { Crossbar, Bus, Mux };

struct SubswitchSpec {
  std::string name;
  SubswitchKind kind = SubswitchKind::Crossbar;
  int inputs = 1;
  int outputs = 1;
  int input_speedup = 1;
  int vc_depth_flits = 16;
  // Pipeline stages; a router's input subswitch does route computation and
  // VC allocation for the whole router, inner subswitches may not.
  int rc_cycles = 1, va_cycles = 1, sa_cycles = 1, st_cycles = 1;
  // Stage latencies for inputs fed by internal channels.
  int inner_rc_cycles = 0, inner_va_cycles = 0;
  // Buffer depth: router input-port buffers (true) or subswitch buffers.
  // Which inputs count as port buffers follows the description's inputs.
  bool port_buffers = false;
  // Which input may reach which output (inputs x outputs, row-major); empty
  // means every pair. Builders leave out the pairs no route uses (U-turns,
  // up-to-up in a folded Clos, turns dimension-order routing never takes), so
  // crosspoints and fanout are counted from the routing rule, not by hand.
  std::vector<std::uint8_t> connect;
  // Ports that are further crossbar ports of another port, on both sides
  // (inputs == outputs): copy_of[c] = p makes crossbar input c a second row
  // of port p's buffers (VC v uses copy v mod copies) and crossbar output c
  // a second column feeding port p's link (fcM-isuS as Table II counts it,
  // router.isu_reading = ports). Empty, or -1: a port of its own. A copy has
  // no link and no attachment of its own; routes name the port itself.
  std::vector<int> copy_of;

  bool is_copy(int port) const { return !copy_of.empty() && copy_of[std::size_t(port)] >= 0; }
  // Crossbar ports of a port that is not a copy: itself and its copies.
  int crossbar_ports(int port) const {
    return 1 + int(std::count(copy_of.begin(), copy_of.end(), port));
  }
  bool can_connect(int in, int out) const { return connect.empty() || connect[std::size_t(in) * outputs + out]; }
  void forbid(int in, int out);
  int reachable_outputs(int in) const;
  // Crosspoints: connectable pairs x input speedup (crossbars only).
  long crosspoints() const;
  // Outputs an input port drives: its connectable outputs (x speedup rows).
  int fanout(int in) const { return reachable_outputs(in) * (kind == SubswitchKind::Crossbar ? input_speedup : 1); }
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
  // Floorplan: a width x height rectangle in channel pitches (the rule is
  // the organization's; docs/ORGANIZATIONS.md writes each down).
  double width_pitch = 0, height_pitch = 0;
  double area_pitch2() const { return width_pitch * height_pitch; }
  std::string floorplan_rule;  // the formula, for describe
  // Most subswitches a packet visits (bounds the fanout search on cyclic
  // internal networks).
  int max_subswitch_hops = 1;
  // VC classes the internal routing splits each route's VCs into (internal
  // deadlock freedom, internal_class): a route must allow at least this many
  // VCs, so router.vcs must cover it times the global routing's classes.
  int vc_classes = 1;
  // The network the internal routing assumes (empty: any), checked with the
  // config (check_config): a network.topology, a network.port_assignment,
  // and why.
  std::string needs_topology, needs_port_assignment, needs_why;
  // The internal routing sends packets of every global hop through every
  // internal channel (Valiant through a random intermediate subswitch), and
  // the internal VC classes do not tell the hops apart: in a network of
  // routers a packet of one hop can wait for an internal VC held by a
  // packet of another, which closes cycles through routers unless the
  // global routing's classes rise on every hop (VcNeed::hop_indexed) and
  // network.eject_vcs keeps packets for a terminal apart (docs/RESULTS.md,
  // "Deadlock across routers"); checked when the network is built
  // (check_hop_classes).
  bool mixes_hops = false;
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
  // True when route() is always {head.router_out, head.router_vc_lo,
  // head.router_vc_hi} (one crossbar): the router then answers without the call.
  virtual bool direct() const { return false; }
};

// Parameters common to all organizations, and the values of the keys
// organizations declare themselves (OrganizationRegistration).
struct OrganizationParams {
  std::string name = "cn";  // as in the paper: cn, hc, fc, fc6-isu2, ...
  int radix = 64;
  int vcs = 4;
  int port_buffer_depth_flits = 16;  // router input-port buffers, per VC
  int input_speedup = 1;             // crossbar inputs per input port (where the organization allows)
  // fcM-isuS and bb-isuS: each router port of a bottom is S crossbar ports
  // on both sides (true, Table II's figures) or S crossbar rows per bottom
  // input, outputs single (false). router.isu_reading.
  bool isu_ports = true;
  // Declared keys (integers) by name, e.g. "router.subswitch_radix"; a key
  // not here has its declared default.
  std::map<std::string, std::int64_t> keys;
  double channel_pitch_um = 25.6;    // 64 wires at 0.4 um: sets wire lengths from the floorplan
  std::uint64_t seed = 1;                 // internal routing randomness (per router)
  int rc_cycles = 1, va_cycles = 1, sa_cycles = 1, st_cycles = 1;
};

// The value of a key an organization declares (std::logic_error if none does).
int organization_key(const OrganizationParams& p, const std::string& key);

struct Organization {
  SwitchDescription description;
  std::unique_ptr<InternalRouting> routing;
};

using OrganizationFactory = std::function<Organization(const OrganizationParams&)>;

// The largest radix an organization is built at (router.radix allows the
// same). The description keeps a k x k connect matrix per crossbar and the
// simulated crossbar's allocators are k x k: 16 MB at 4,096, but 10^12 bytes
// at a radix of 10^6.
constexpr int kMaxRadix = 4096;

// Organizations by name prefix: the factory of the longest registered prefix
// of the requested name builds it (so "fc6-isu2" reaches the "fc" factory).
// Each factory parses the whole name strictly and checks the radix and
// parameters; a name or radix it cannot build is std::invalid_argument
// saying what its family allows.
Registry<OrganizationFactory>& organization_registry();  // kind "organization"
Organization make_organization(const OrganizationParams& p);
std::vector<std::string> organization_names();

// The owner of keys organizations declare in config_key_registry() starts so.
constexpr const char* kOrganizationKeyOwner = "organization ";

// An organization registers its factory under its name prefix and declares
// the config keys it reads beyond the common ones (integers; owner
// "organization <prefix>").
struct OrganizationRegistration {
  OrganizationRegistration(const std::string& prefix, OrganizationFactory f, std::vector<KeySpec> keys = {}) {
    organization_registry().add(prefix, std::move(f));
    if (!keys.empty()) config_key_registry().add(kOrganizationKeyOwner + prefix, std::move(keys));
  }
};
// Every key organizations declare (what organization_params reads), sorted.
std::vector<const KeySpec*> organization_keys();

// Checks that every subswitch port is attached exactly once; throws otherwise.
void validate(const SwitchDescription& d);

// Builders' helpers.
int add_subswitch(SwitchDescription& d, SubswitchSpec s);
void add_channel(SwitchDescription& d, int from_ss, int from_port, int to_ss, int to_port, int latency_cycles,
                 double length_pitch, const OrganizationParams& p);
// A subswitch with the pipeline of the paper: inputs that are router ports
// do route computation and VC allocation; inputs from internal channels only
// allocate and traverse. port_buffers: the inputs are router input ports.
SubswitchSpec make_subswitch(const OrganizationParams& p, std::string name, int inputs, int outputs,
                             bool port_buffers);
// Splits the VCs the global route allows on the router output into
// `classes` internal classes (deadlock freedom inside the switch) and
// returns class `cls`'s range on subswitch output `out`.
RouteDecision internal_class(const Flit& head, int out, int cls, int classes, const std::string& org);

// Per subswitch input: is it a router input port (1) or fed by an internal
// channel (0)?
std::vector<std::vector<std::uint8_t>> router_input_mask(const SwitchDescription& d);

// Table II of the paper, from the description.
struct Complexity {
  int subswitches = 0;
  int subswitch_buffers = 0;  // buffered subswitch inputs that are not router input ports
  int aggregate_fanout = 0;   // largest sum of fanouts along a path from a router input to a router output
  long crosspoints = 0;
  double area_pitch2 = 0;
};
Complexity complexity(const SwitchDescription& d);

}  // namespace nwn

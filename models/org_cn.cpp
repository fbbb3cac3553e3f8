// cn: the canonical crossbar, one k x k input-buffered subswitch.
#include <stdexcept>

#include "organization.hpp"

namespace nwn {
namespace {

class DirectRouting final : public InternalRouting {
 public:
  RouteDecision route(int, int, Flit& head) override {
    return {head.router_out, head.router_vc_lo, head.router_vc_hi};
  }
  bool direct() const override { return true; }
};

Organization make_cn(const OrganizationParams& p) {
  if (p.name != "cn") throw std::invalid_argument("organization '" + p.name + "': malformed name; allowed: cn");
  Organization org;
  SwitchDescription& d = org.description;
  d.org = p.name;
  d.radix = p.radix;
  SubswitchSpec xbar;
  xbar.name = "xbar";
  xbar.inputs = xbar.outputs = p.radix;
  xbar.vc_depth_flits = p.port_buffer_depth_flits;
  xbar.rc_cycles = p.rc_cycles;
  xbar.va_cycles = p.va_cycles;
  xbar.sa_cycles = p.sa_cycles;
  // The paper pipelines cn's crossbar to hc's zero-load latency (§5.1).
  xbar.st_cycles = p.st_cycles + organization_key(p, "router.cn_crossbar_stages");
  xbar.port_buffers = true;
  xbar.input_speedup = p.input_speedup;
  // A packet never leaves by the port it came in on.
  for (int i = 0; i < p.radix; ++i) xbar.forbid(i, i);
  d.subswitches.push_back(xbar);
  d.width_pitch = d.height_pitch = p.radix;  // a k x k crossbar of channels
  d.floorplan_rule = "k x k";
  for (int i = 0; i < p.radix; ++i) {
    d.inputs.push_back({0, i});
    d.outputs.push_back({0, i});
  }
  org.routing = std::make_unique<DirectRouting>();
  return org;
}

OrganizationRegistration reg_cn("cn", make_cn,
                              {{"router.cn_crossbar_stages", ValueType::Int, "0", 0, 1000, nullptr, "cycles",
                                "extra pipeline stages of the cn crossbar (compare sets cn's zero-load latency to "
                                "hc's, as the paper)"}});

}  // namespace
}  // namespace nwn

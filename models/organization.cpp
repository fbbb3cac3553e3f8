#include "organization.hpp"

#include <stdexcept>

namespace nwn {

std::map<std::string, OrganizationFactory>& organization_registry() {
  static std::map<std::string, OrganizationFactory> registry;
  return registry;
}

Organization make_organization(const OrganizationParams& p) {
  const OrganizationFactory* best = nullptr;
  std::size_t best_len = 0;
  for (auto& [prefix, f] : organization_registry()) {
    if (p.name.compare(0, prefix.size(), prefix) == 0 && prefix.size() > best_len) {
      best = &f;
      best_len = prefix.size();
    }
  }
  if (!best) {
    std::string known;
    for (auto& n : organization_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown switch organization '" + p.name + "' (known: " + known + ")");
  }
  Organization org = (*best)(p);
  validate(org.description);
  return org;
}

std::vector<std::string> organization_names() {
  std::vector<std::string> names;
  for (auto& [prefix, f] : organization_registry()) names.push_back(prefix);
  return names;
}

void validate(const SwitchDescription& d) {
  const auto fail = [&](const std::string& what) {
    throw std::logic_error("organization " + d.org + ": " + what);
  };
  std::vector<std::vector<int>> in_used(d.subswitches.size()), out_used(d.subswitches.size());
  for (std::size_t s = 0; s < d.subswitches.size(); ++s) {
    in_used[s].assign(d.subswitches[s].inputs, 0);
    out_used[s].assign(d.subswitches[s].outputs, 0);
  }
  auto use = [&](std::vector<std::vector<int>>& used, int ss, int port, const char* what) {
    if (ss < 0 || ss >= int(used.size()) || port < 0 || port >= int(used[ss].size()))
      fail(std::string("bad ") + what + " attachment");
    if (used[ss][port]++) fail(std::string(what) + " port attached twice");
  };
  for (auto& a : d.inputs) use(in_used, a.ss, a.port, "input");
  for (auto& a : d.outputs) use(out_used, a.ss, a.port, "output");
  for (auto& c : d.channels) {
    use(out_used, c.from_ss, c.from_port, "output");
    use(in_used, c.to_ss, c.to_port, "input");
    if (c.latency_cycles < 1) fail("internal channel latency must be >= 1");
  }
  for (std::size_t s = 0; s < d.subswitches.size(); ++s) {
    for (int u : in_used[s])
      if (!u) fail("subswitch " + d.subswitches[s].name + " has an unattached input");
    for (int u : out_used[s])
      if (!u) fail("subswitch " + d.subswitches[s].name + " has an unattached output");
  }
  if (int(d.inputs.size()) != d.radix || int(d.outputs.size()) != d.radix) fail("port count differs from radix");
}

}  // namespace nwn

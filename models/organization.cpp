#include "organization.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nwn {

// What every organization of several subswitches reads (make_subswitch).
ConfigKeyRegistration reg_subswitch_keys(std::string(kOrganizationKeyOwner) + "(subswitches)",
                                         {{"router.subswitch_vc_depth_flits", ValueType::Int, "16", 1, 65536, nullptr,
                                           "flits", "subswitch buffer depth per VC (multi-subswitch organizations)"}});

Registry<OrganizationFactory>& organization_registry() {
  static Registry<OrganizationFactory> registry("organization");
  return registry;
}

namespace {

const KeySpec* find_organization_key(const std::string& key) {
  for (const KeySpec* k : organization_keys())
    if (k->key == key) return k;
  return nullptr;
}

}  // namespace

std::vector<const KeySpec*> organization_keys() {
  std::vector<const KeySpec*> out;
  for (auto& [owner, keys] : config_key_registry())
    if (owner.rfind(kOrganizationKeyOwner, 0) == 0)
      for (const KeySpec& k : keys)
        if (std::none_of(out.begin(), out.end(), [&](const KeySpec* o) { return o->key == k.key; })) out.push_back(&k);
  std::sort(out.begin(), out.end(), [](const KeySpec* a, const KeySpec* b) { return a->key < b->key; });
  return out;
}

int organization_key(const OrganizationParams& p, const std::string& key) {
  if (auto it = p.keys.find(key); it != p.keys.end()) return int(it->second);
  const KeySpec* k = find_organization_key(key);
  if (!k || k->type != ValueType::Int) throw std::logic_error("organization key " + key + ": no organization declares it");
  return std::stoi(k->default_value);
}

Organization make_organization(const OrganizationParams& p) {
  if (p.radix < 2 || p.radix > kMaxRadix)
    throw std::invalid_argument("organization '" + p.name + "': radix " + std::to_string(p.radix) +
                                " (allowed: 2 to " + std::to_string(kMaxRadix) +
                                "; a k x k crossbar's connect matrix and allocators grow as k^2)");
  for (auto& [key, value] : p.keys) {  // the config checks them too; this is for programs that build one
    const KeySpec* k = find_organization_key(key);
    if (!k) throw std::logic_error("organization '" + p.name + "': no organization declares the key " + key);
    if (double(value) < k->min || double(value) > k->max)
      throw std::invalid_argument("organization '" + p.name + "': " + key + " = " + std::to_string(value) +
                                  " (allowed: " + std::to_string(std::int64_t(k->min)) + " to " +
                                  std::to_string(std::int64_t(k->max)) + ")");
  }
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
    throw std::invalid_argument("unknown switch organization '" + p.name + "' (known: " + known +
                                "; fc also as fcM and fcM-isuS, bb as bb-isuS)");
  }
  Organization org = (*best)(p);
  validate(org.description);
  return org;
}

std::vector<std::string> organization_names() { return organization_registry().names(); }

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
    const SubswitchSpec& ss = d.subswitches[s];
    if (!ss.copy_of.empty()) {  // a copy shares its port's attachment or channel
      if (int(ss.copy_of.size()) != ss.inputs || ss.inputs != ss.outputs)
        fail("subswitch " + ss.name + ": copy_of needs one entry per port and as many inputs as outputs");
      for (int c = 0; c < ss.inputs; ++c) {
        if (!ss.is_copy(c)) continue;
        const int p = ss.copy_of[std::size_t(c)];
        if (p >= ss.inputs || ss.is_copy(p) || !in_used[s][p] || !out_used[s][p])
          fail("subswitch " + ss.name + ": port " + std::to_string(c) + " copies port " + std::to_string(p) +
               ", which must be an attached port of its own");
        if (in_used[s][c] || out_used[s][c]) fail("subswitch " + ss.name + ": copy port " + std::to_string(c) + " is attached");
        in_used[s][c] = out_used[s][c] = 1;
      }
    }
    for (int u : in_used[s])
      if (!u) fail("subswitch " + ss.name + " has an unattached input");
    for (int u : out_used[s])
      if (!u) fail("subswitch " + ss.name + " has an unattached output");
  }
  if (int(d.inputs.size()) != d.radix || int(d.outputs.size()) != d.radix) fail("port count differs from radix");
}

}  // namespace nwn

namespace nwn {

void SubswitchSpec::forbid(int in, int out) {
  if (connect.empty()) connect.assign(std::size_t(inputs) * outputs, 1);
  connect[std::size_t(in) * outputs + out] = 0;
}

int SubswitchSpec::reachable_outputs(int in) const {
  int n = 0;
  for (int o = 0; o < outputs; ++o) n += can_connect(in, o);
  return n;
}

long SubswitchSpec::crosspoints() const {
  if (kind != SubswitchKind::Crossbar) return 0;
  long n = 0;
  for (int i = 0; i < inputs; ++i) n += reachable_outputs(i);
  return n * input_speedup;
}

int add_subswitch(SwitchDescription& d, SubswitchSpec s) {
  d.subswitches.push_back(std::move(s));
  return int(d.subswitches.size()) - 1;
}

void add_channel(SwitchDescription& d, int from_ss, int from_port, int to_ss, int to_port, int latency_cycles,
                 double length_pitch, const OrganizationParams& p) {
  ChannelSpec c;
  c.from_ss = from_ss;
  c.from_port = from_port;
  c.to_ss = to_ss;
  c.to_port = to_port;
  c.latency_cycles = latency_cycles;
  c.length_mm = length_pitch * p.channel_pitch_um * 1e-3;
  d.channels.push_back(c);
}

SubswitchSpec make_subswitch(const OrganizationParams& p, std::string name, int inputs, int outputs,
                             bool port_buffers) {
  SubswitchSpec s;
  s.name = std::move(name);
  s.inputs = inputs;
  s.outputs = outputs;
  s.port_buffers = port_buffers;
  s.vc_depth_flits = port_buffers ? p.port_buffer_depth_flits : organization_key(p, "router.subswitch_vc_depth_flits");
  s.rc_cycles = p.rc_cycles;
  s.va_cycles = p.va_cycles;
  s.sa_cycles = p.sa_cycles;
  s.st_cycles = p.st_cycles;
  s.inner_rc_cycles = 0;
  s.inner_va_cycles = 0;
  return s;
}

RouteDecision internal_class(const Flit& head, int out, int cls, int classes, const std::string& org) {
  const int lo = head.router_vc_lo, n = head.router_vc_hi - head.router_vc_lo + 1;
  if (n < classes)
    throw std::runtime_error("organization " + org + " needs " + std::to_string(classes) +
                             " VCs per global VC class for internal deadlock freedom; the route allows " +
                             std::to_string(n) + " (raise router.vcs)");
  const int per = n / classes;
  return {out, lo + cls * per, cls == classes - 1 ? head.router_vc_hi : lo + (cls + 1) * per - 1};
}

std::vector<std::vector<std::uint8_t>> router_input_mask(const SwitchDescription& d) {
  std::vector<std::vector<std::uint8_t>> m(d.subswitches.size());
  for (std::size_t s = 0; s < d.subswitches.size(); ++s) m[s].assign(d.subswitches[s].inputs, 0);
  for (const PortAttachment& a : d.inputs) m[a.ss][a.port] = 1;
  for (std::size_t s = 0; s < d.subswitches.size(); ++s)
    for (int c = 0; c < d.subswitches[s].inputs; ++c)
      if (d.subswitches[s].is_copy(c)) m[s][c] = m[s][std::size_t(d.subswitches[s].copy_of[std::size_t(c)])];
  return m;
}

Complexity complexity(const SwitchDescription& d) {
  Complexity c;
  const auto router_in = router_input_mask(d);
  c.subswitches = int(d.subswitches.size());
  c.area_pitch2 = d.area_pitch2();
  std::vector<int> base;  // flattened (ss, in) index
  int nodes = 0;
  for (const SubswitchSpec& s : d.subswitches) {
    base.push_back(nodes);
    nodes += s.inputs;
    for (std::uint8_t r : router_in[base.size() - 1]) c.subswitch_buffers += !r;
    c.crosspoints += s.crosspoints();
  }
  // Where each subswitch output leads: another subswitch's input, or out.
  std::vector<std::vector<int>> next(d.subswitches.size());
  for (std::size_t s = 0; s < d.subswitches.size(); ++s) next[s].assign(d.subswitches[s].outputs, -2);
  for (const ChannelSpec& ch : d.channels) next[ch.from_ss][ch.from_port] = base[ch.to_ss] + ch.to_port;
  for (const PortAttachment& a : d.outputs) next[a.ss][a.port] = -1;
  for (std::size_t s = 0; s < d.subswitches.size(); ++s)  // a copy leads where its port leads
    for (int c = 0; c < d.subswitches[s].outputs; ++c)
      if (d.subswitches[s].is_copy(c)) next[s][c] = next[s][std::size_t(d.subswitches[s].copy_of[std::size_t(c)])];
  // Longest fanout sum over paths of at most h subswitches, h = 1 .. max hops.
  // Each step ranks a subswitch's outputs by what follows them, and an input
  // takes the first it may reach (usually the first or second): a radix-4096
  // torus, 129 steps of 4,096 subswitches of radix 65, takes a fraction of a
  // second instead of several.
  constexpr int kNone = -1;
  std::vector<int> best(nodes, kNone), prev, fanout(nodes);
  for (std::size_t s = 0; s < d.subswitches.size(); ++s)
    for (int i = 0; i < d.subswitches[s].inputs; ++i) fanout[base[s] + i] = d.subswitches[s].fanout(i);
  std::vector<std::pair<int, int>> ranked;  // (what follows, output), best first
  for (int h = 1; h <= std::max(1, d.max_subswitch_hops); ++h) {
    prev = best;
    for (std::size_t s = 0; s < d.subswitches.size(); ++s) {
      const SubswitchSpec& ss = d.subswitches[s];
      ranked.clear();
      for (int o = 0; o < ss.outputs; ++o) {
        const int n = next[s][o];
        if (n == -1) ranked.push_back({0, o});
        else if (n >= 0 && prev[n] != kNone) ranked.push_back({prev[n], o});
      }
      std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      for (int i = 0; i < ss.inputs; ++i) {
        int tail = kNone;
        for (const auto& [value, o] : ranked)
          if (ss.can_connect(i, o)) {
            tail = value;
            break;
          }
        best[base[s] + i] = tail == kNone ? kNone : fanout[base[s] + i] + tail;
      }
    }
  }
  for (std::size_t s = 0; s < d.subswitches.size(); ++s)  // router inputs, copies included
    for (int i = 0; i < d.subswitches[s].inputs; ++i)
      if (router_in[s][i]) c.aggregate_fanout = std::max(c.aggregate_fanout, best[base[s] + i]);
  return c;
}

}  // namespace nwn

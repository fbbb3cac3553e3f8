#include "allocator.hpp"

#include <algorithm>
#include <stdexcept>

namespace nwn {

Allocator::Allocator(const AllocatorParams& p)
    : inputs_(p.inputs),
      outputs_(p.outputs),
      iterations_(p.iterations),
      row_words_(bits::words_for(p.outputs)),
      col_words_(bits::words_for(p.inputs)),
      rows_(std::size_t(p.inputs) * row_words_, 0),
      cols_(std::size_t(p.outputs) * col_words_, 0),
      row_active_(p.inputs, 0),
      col_active_(p.outputs, 0),
      in_grant_(p.inputs, -1),
      out_grant_(p.outputs, -1) {
  if (p.inputs < 1 || p.outputs < 1) throw std::invalid_argument("allocator needs at least one input and one output");
  active_inputs_.items.assign(p.inputs, 0);
  touched_outputs_.items.assign(p.outputs, 0);
}

void Allocator::clear() {
  for (int in : active_inputs_) {
    bits::clear(&rows_[std::size_t(in) * row_words_], row_words_);
    in_grant_[in] = -1;
    row_active_[in] = 0;
  }
  for (int out : touched_outputs_) {
    bits::clear(&cols_[std::size_t(out) * col_words_], col_words_);
    out_grant_[out] = -1;
    col_active_[out] = 0;
  }
  active_inputs_.count = 0;
  touched_outputs_.count = 0;
}

void Allocator::allocate() {
  if (active_inputs_.count == 0) return;
  compute();
}

int Allocator::allocate_one(int in, int base, std::uint64_t mask) {
  clear();
  for (; mask; mask &= mask - 1) request(in, base + __builtin_ctzll(mask));
  allocate();
  return grant_of_input(in);
}

std::uint64_t Allocator::allocate_group(int n, const int* inputs, const std::uint64_t* masks, int base, int* grants) {
  clear();
  for (int i = 0; i < n; ++i)
    for (std::uint64_t m = masks[i]; m; m &= m - 1) request(inputs[i], base + __builtin_ctzll(m));
  allocate();
  std::uint64_t granted = 0;
  for (int i = 0; i < n; ++i) {
    grants[i] = grant_of_input(inputs[i]);
    granted |= std::uint64_t{grants[i] >= 0} << i;
  }
  return granted;
}

int Allocator::allocate_ports(int words, const std::uint64_t* ports, const std::uint64_t* several,
                              const SmallGroup* groups, int width, int* grant_inputs, int* grant_outputs) {
  int k = 0;
  for (int w = 0; w < words; ++w)
    for (std::uint64_t t = ports[w]; t; t &= t - 1) {
      const int p = w * 64 + __builtin_ctzll(t);
      const SmallGroup& g = groups[p];
      if (!(several[w] >> (p & 63) & 1)) {
        const int out = allocate_one(g.inputs[0], p * width, g.masks[0]);
        grant_inputs[k] = g.inputs[0];
        grant_outputs[k] = out;
        k += out >= 0;
        continue;
      }
      int grants[8];
      for (std::uint64_t u = allocate_group(g.count, g.inputs, g.masks, p * width, grants); u; u &= u - 1) {
        const int i = __builtin_ctzll(u);
        grant_inputs[k] = g.inputs[i];
        grant_outputs[k++] = grants[i];
      }
    }
  return k;
}

std::uint64_t Allocator::allocate_columns(std::uint64_t inputs, std::uint64_t outputs, const std::uint64_t* cols,
                                         int* grants) {
  int in[64], n = 0;
  std::uint64_t masks[64];
  for (std::uint64_t t = inputs; t; t &= t - 1) {
    const int r = __builtin_ctzll(t);
    masks[n] = 0;
    for (std::uint64_t o = outputs; o; o &= o - 1)
      if (cols[__builtin_ctzll(o)] >> r & 1) masks[n] |= std::uint64_t{1} << __builtin_ctzll(o);
    in[n++] = r;
  }
  if (n == 0) return 0;
  int g[64];
  allocate_group(n, in, masks, 0, g);
  std::uint64_t granted = 0;
  for (int i = 0; i < n; ++i) {
    grants[in[i]] = g[i];
    if (g[i] >= 0) granted |= std::uint64_t{1} << in[i];
  }
  return granted;
}

Registry<AllocatorFactory>& allocator_registry() {
  static Registry<AllocatorFactory> registry("allocator");
  return registry;
}

std::unique_ptr<Allocator> make_allocator(const std::string& name, const AllocatorParams& p) {
  const AllocatorFactory* f = allocator_registry().find(name);
  if (!f) throw std::invalid_argument("unknown allocator '" + name + "'");
  return (*f)(p);
}

std::vector<std::string> allocator_names() { return allocator_registry().names(); }

std::string rtl_allocator_key(const std::string& algorithm, const AllocatorParams& p) {
  std::string key = algorithm + " " + std::to_string(p.inputs) + "x" + std::to_string(p.outputs);
  if (algorithm == "islip") key += " it" + std::to_string(p.iterations);
  return key;
}

Registry<RtlAllocatorFactory>& rtl_allocator_registry() {
  static Registry<RtlAllocatorFactory> registry("rtl allocator");
  return registry;
}

namespace {
RtlMissingSizes* active_collector = nullptr;

// "islip 64x64 it1" -> "islip_64x64_it1", the name NWNSIM_RTL_EXTRA takes.
std::string extra_name(std::string key) {
  std::replace(key.begin(), key.end(), ' ', '_');
  return key;
}
}  // namespace

RtlMissingSizes::RtlMissingSizes() : outer_(active_collector) { active_collector = this; }
RtlMissingSizes::~RtlMissingSizes() { active_collector = outer_; }
void RtlMissingSizes::add(const std::string& key) { names_.insert(extra_name(key)); }

std::string RtlMissingSizes::available() {
  std::string have;
  for (auto& [k, f] : rtl_allocator_registry()) have += (have.empty() ? "" : ", ") + extra_name(k);
  return have.empty() ? "none; configure with NWNSIM_RTL=ON" : have;
}

std::unique_ptr<Allocator> make_rtl_allocator(const std::string& algorithm, const AllocatorParams& p,
                                              const RtlOptions& options) {
  auto& reg = rtl_allocator_registry();
  const std::string key = rtl_allocator_key(algorithm, p);
  if (const RtlAllocatorFactory* f = reg.find(key)) return (*f)(p, options);
  if (active_collector) {  // named with the others once the network is built; never simulated
    active_collector->add(key);
    return make_allocator(algorithm, p);
  }
  throw std::invalid_argument("router.allocator_impl = rtl: this build has no Verilated allocator " +
                              extra_name(key) + " (it has: " + RtlMissingSizes::available() +
                              "); build it with -DNWNSIM_RTL_EXTRA=" + extra_name(key) + " (docs/RTL.md)");
}

}  // namespace nwn

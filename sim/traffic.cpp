#include "traffic.hpp"

#include <cmath>
#include <new>
#include <numeric>
#include <type_traits>

#include "config.hpp"

namespace nwn {

Registry<PatternFactory>& traffic_pattern_registry() {
  static Registry<PatternFactory> registry("pattern");
  return registry;
}

std::unique_ptr<TrafficPattern> make_traffic_pattern(const std::string& name, const PatternParams& p) {
  const PatternFactory* f = traffic_pattern_registry().find(name);
  if (!f) throw ConfigError("config error: traffic.pattern = '" + name + "' is not a known pattern");
  return (*f)(p);
}

namespace {

int log2_exact(int nodes, const char* pattern) {
  int b = 0;
  while ((1 << b) < nodes) ++b;
  if ((1 << b) != nodes)
    throw ConfigError(std::string("config error: traffic.pattern = '") + pattern + "' needs a power-of-two node count, got " +
                      std::to_string(nodes) + " nodes");
  return b;
}

// Each destination with equal probability, the source included.
// Uniform's draw, which SyntheticWorkload also makes without the virtual call.
int uniform_dest(int nodes, Rng& rng) { return int(rng.below(std::uint32_t(nodes))); }

struct Uniform final : TrafficPattern {
  explicit Uniform(const PatternParams& p) : n(p.nodes) {}
  int dest(int, Rng& rng) const override { return uniform_dest(n, rng); }
  int n;
};

// Permutations given by a function of the source.
struct Permutation final : TrafficPattern {
  explicit Permutation(std::vector<int> m) : map(std::move(m)) {}
  int dest(int src, Rng&) const override { return map[src]; }
  std::vector<int> map;
};

template <typename F>
PatternFactory bit_permutation(const char* name, F f) {
  return [name, f](const PatternParams& p) {
    const int b = log2_exact(p.nodes, name);
    std::vector<int> m(p.nodes);
    for (int s = 0; s < p.nodes; ++s) m[s] = f(s, b);
    return std::unique_ptr<TrafficPattern>(new Permutation(std::move(m)));
  };
}

template <typename F>
PatternFactory index_permutation(F f) {
  return [f](const PatternParams& p) {
    std::vector<int> m(p.nodes);
    for (int s = 0; s < p.nodes; ++s) m[s] = f(s, p.nodes);
    return std::unique_ptr<TrafficPattern>(new Permutation(std::move(m)));
  };
}

struct Hotspot final : TrafficPattern {
  explicit Hotspot(const PatternParams& p) : n(p.nodes), hot(p.hotspot_nodes), fraction(p.hotspot_fraction) {
    if (hot > n)
      throw ConfigError("config error: traffic.hotspot_nodes = " + std::to_string(hot) +
                        " exceeds the node count " + std::to_string(n));
  }
  int dest(int, Rng& rng) const override {
    if (rng.uniform() < fraction) return int(rng.below(std::uint32_t(hot)));
    return int(rng.below(std::uint32_t(n)));
  }
  int n, hot;
  double fraction;
};

PatternRegistration reg_uniform("uniform", [](const PatternParams& p) {
  return std::unique_ptr<TrafficPattern>(new Uniform(p));
});
PatternRegistration reg_bitcomp("bitcomp", bit_permutation("bitcomp", [](int s, int b) {
  return ~s & ((1 << b) - 1);
}));
PatternRegistration reg_bitrev("bitrev", bit_permutation("bitrev", [](int s, int b) {
  int d = 0;
  for (int i = 0; i < b; ++i)
    if (s & (1 << i)) d |= 1 << (b - 1 - i);
  return d;
}));
// Swap the upper and lower halves of the address bits (an odd bit count
// leaves the middle bit in place).
PatternRegistration reg_transpose("transpose", bit_permutation("transpose", [](int s, int b) {
  const int h = b / 2;
  const int lo = s & ((1 << h) - 1);
  const int hi = s >> (b - h);
  const int mid = (s >> h) & ((1 << (b - 2 * h)) - 1);
  return (lo << (b - h)) | (mid << h) | hi;
}));
// Rotate the address left by one bit.
PatternRegistration reg_shuffle("shuffle", bit_permutation("shuffle", [](int s, int b) {
  return ((s << 1) | (s >> (b - 1))) & ((1 << b) - 1);
}));
// Bit rotation (the paper's BR): rotate the address right by one bit.
PatternRegistration reg_bitrot("bitrot", bit_permutation("bitrot", [](int s, int b) {
  return (s >> 1) | ((s & 1) << (b - 1));
}));
// Ring tornado: each node sends just under half way around.
PatternRegistration reg_tornado("tornado", index_permutation([](int s, int n) { return (s + (n + 1) / 2 - 1) % n; }));
PatternRegistration reg_neighbor("neighbor", index_permutation([](int s, int n) { return (s + 1) % n; }));
PatternRegistration reg_hotspot("hotspot", [](const PatternParams& p) {
  return std::unique_ptr<TrafficPattern>(new Hotspot(p));
});
// Transpose-random (the paper's TR): the nodes form a square matrix, node
// i in row i / s and column i % s; a node in row A sends to a uniformly
// random node of column A.
struct TransposeRandom final : TrafficPattern {
  explicit TransposeRandom(const PatternParams& p) : s(int(std::lround(std::sqrt(double(p.nodes))))) {
    if (s * s != p.nodes)
      throw ConfigError("config error: traffic.pattern = transpose_random needs a square node count (e.g. 16, 64, "
                        "256); this network has " + std::to_string(p.nodes) + " nodes");
  }
  int dest(int src, Rng& rng) const override { return int(rng.below(std::uint32_t(s))) * s + src / s; }
  int s;
};
PatternRegistration reg_transpose_random("transpose_random", [](const PatternParams& p) {
  return std::unique_ptr<TrafficPattern>(new TransposeRandom(p));
});
// A random permutation drawn once from the seed.
PatternRegistration reg_randperm("randperm", [](const PatternParams& p) {
  std::vector<int> m(p.nodes);
  std::iota(m.begin(), m.end(), 0);
  Rng rng(p.seed, 0x7065726dULL);
  for (int i = p.nodes - 1; i > 0; --i) std::swap(m[i], m[rng.below(std::uint32_t(i + 1))]);
  return std::unique_ptr<TrafficPattern>(new Permutation(std::move(m)));
});

// Worst case for the topology (needs the network's RouterLayout): node i of
// router r sends to node i (mod its node count) of router
// worst_case_target[r]. With equal node counts per router this is a node
// permutation, so no endpoint is oversubscribed and the bottleneck is the
// network (the diameter-two paper's definition, §4.2).
struct WorstCase final : TrafficPattern {
  explicit WorstCase(const PatternParams& p) {
    if (!p.layout || p.layout->worst_case_target.empty())
      throw ConfigError("config error: traffic.pattern = worst_case needs a graph topology (network.topology = torus, "
                        "mesh, slimfly, dragonfly, fattree, ...): the network chooses the adversarial router pairs");
    map.resize(p.nodes);
    const RouterLayout& l = *p.layout;
    for (int n = 0; n < p.nodes; ++n) {
      const int r = l.node_router[n], t = l.worst_case_target[r];
      const int count = l.first_node[t + 1] - l.first_node[t];
      map[n] = l.first_node[t] + (n - l.first_node[r]) % count;
    }
  }
  int dest(int src, Rng&) const override { return map[src]; }
  std::vector<int> map;
};
PatternRegistration reg_worst_case("worst_case", [](const PatternParams& p) {
  return std::unique_ptr<TrafficPattern>(new WorstCase(p));
});

}  // namespace

SyntheticWorkload::SyntheticWorkload(const SyntheticParams& p, std::unique_ptr<TrafficPattern> pattern)
    : params_(p), pattern_(std::move(pattern)) {
  if (const auto* u = dynamic_cast<const Uniform*>(pattern_.get())) uniform_nodes_ = u->n;  // Uniform::dest's draw
  for (int n = 0; n < p.nodes; ++n) rng_.emplace_back(p.seed, std::uint64_t(n) + 1);
  for (Rng& r : rng_) rng_of_.push_back(&r);
  const double mean_flits =
      p.bimodal ? 0.5 * (p.bimodal_small_flits + p.bimodal_large_flits) : double(p.packet_flits);
  p_packet_ = p.load / (p.serialization_cycles * mean_flits);
  if (p_packet_ > 0 && p_packet_ < 1.0) gaps_ = GeometricGaps(p_packet_);
  if (gaps_.table_size() >= kSearched) {
    searched_ = true;
    for (unsigned i = 0; i < kSearched; ++i) {
      sure_[i] = gaps_.bounds(i).sure;
      unsure_[i] = gaps_.bounds(i).unsure;
      // The search needs increasing thresholds (the loop's order); they are.
      if (i && sure_[i] <= sure_[i - 1]) searched_ = false;
    }
  }
}

inline Cycle SyntheticWorkload::draw_next(int node, Cycle after) {
  if (p_packet_ <= 0) return kNever;
  if (p_packet_ >= 1.0) return after;  // Rng::geometric draws nothing then
  return after + gap_of(rng_of_[std::size_t(node)]->next() >> 11);  // GeometricGaps::draw's bits
}

inline PacketSpec SyntheticWorkload::draw_packet(int node) {
  Rng& rng = *rng_of_[std::size_t(node)];
  PacketSpec s;
  s.dst = uniform_nodes_ ? uniform_dest(uniform_nodes_, rng) : pattern_->dest(node, rng);
  s.size_flits = params_.packet_flits;
  if (params_.bimodal) s.size_flits = (rng.next() >> 63) ? params_.bimodal_large_flits : params_.bimodal_small_flits;
  return s;
}

Cycle SyntheticWorkload::next_creation(int node, Cycle after) { return draw_next(node, after); }

PacketSpec SyntheticWorkload::make_packet(int node, Cycle) { return draw_packet(node); }

Cycle SyntheticWorkload::make_packet_then_next(int node, Cycle now, PacketSpec& spec) {
  spec = draw_packet(node);
  return draw_next(node, now + 1);
}

// The same draws as make_packet_then_next for each node, in turn. The
// common case (uniform destinations, one packet size, gaps from the table)
// has its settings tested once for all the nodes.
void SyntheticWorkload::make_packets_then_next(const int* nodes, void* const* states, std::size_t n, Cycle now,
                                               PacketSpec* specs, Cycle* nexts) {
  if (uniform_nodes_ && !params_.bimodal && searched_ && p_packet_ > 0 && p_packet_ < 1.0) {
    const int flits = params_.packet_flits;
    for (std::size_t i = 0; i < n; ++i) {
      // The placed stream is rng_of_[node], without reading the table.
      Rng& rng = placed_ ? *static_cast<Rng*>(states[i]) : *rng_of_[std::size_t(nodes[i])];
      specs[i].dst = uniform_dest(uniform_nodes_, rng);
      specs[i].size_flits = flits;
      specs[i].cls = 0;
      nexts[i] = now + 1 + gap_of(rng.next() >> 11);  // draw_next's
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) nexts[i] = make_packet_then_next(nodes[i], now, specs[i]);
}

static_assert(sizeof(Rng) <= kWorkloadStateBytes && alignof(Rng) <= 8 && std::is_trivially_copyable<Rng>::value,
              "a node's random stream fits the room its interface keeps for it");

void SyntheticWorkload::place_node_state(int node, void* at) {
  Rng* placed = new (at) Rng(*rng_of_[std::size_t(node)]);
  rng_of_[std::size_t(node)] = placed;
  placed_ = true;
}

BatchWorkload::BatchWorkload(int nodes, const BatchParams& p, std::unique_ptr<SyntheticWorkload> inner)
    : params_(p), inner_(std::move(inner)), created_(nodes, 0), outstanding_(nodes, 0) {}

Cycle BatchWorkload::next_creation(int node, Cycle after) {
  if (created_[node] >= params_.packets_per_node) return kNever;
  if (params_.max_outstanding && outstanding_[node] >= params_.max_outstanding) return kNever;
  return inner_->next_creation(node, after);
}

PacketSpec BatchWorkload::make_packet(int node, Cycle now) {
  ++created_[node];
  ++outstanding_[node];
  return inner_->make_packet(node, now);
}

// True exactly when `src` had stopped at the outstanding limit (its last
// next_creation gave kNever) and may go on: the endpoints then ask for its
// next creation.
bool BatchWorkload::on_delivered(int src, Cycle) {
  const bool was_waiting = outstanding_[src] == params_.max_outstanding;
  --outstanding_[src];
  return was_waiting && created_[src] < params_.packets_per_node;
}

}  // namespace nwn

// The workload a config describes, for a network of `nodes` nodes: packets
// from outside (an embedding), a text trace (sim/trace_workload.hpp), or a
// synthetic pattern (sim/traffic.hpp), open loop or as a closed-loop batch.
// The network asks for it once it knows its nodes and layout, and builds
// its endpoints over it (Network::make_endpoints); which workload and its
// rules (trace sizes, packet sizes against the buffers) live here.
#pragma once
#include <memory>

#include "config.hpp"
#include "traffic.hpp"

namespace nwn {

struct ConfigWorkload {
  std::unique_ptr<Workload> workload;
  const FiniteWorkload* finite = nullptr;  // the batch or trace (the run ends when it is delivered), or nullptr
};

// layout: router-level knowledge for topology-aware patterns (worst_case),
// or nullptr. Bad combinations of keys are ConfigErrors.
ConfigWorkload make_workload(const Config& cfg, int nodes, int serialization_cycles, const RouterLayout* layout);

}  // namespace nwn

#include "metis_bisection.hpp"

#include <fmt/format.h>
#include <metis.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <stdexcept>

namespace nwn::topo {

MetisParts metis_partition(const std::vector<std::vector<std::pair<int, int>>>& adjacency,
                           const std::vector<int>& vertex_weight, int parts, MetisMethod method, std::uint64_t seed,
                           int tries, int ufactor) {
  static_assert(sizeof(idx_t) >= sizeof(int), "METIS indices narrower than int");
  const std::size_t n = adjacency.size();
  // Compressed sparse rows; network ports are at most 2^26 (kMaxGraphPorts), so they fit idx_t.
  std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt(vertex_weight.begin(), vertex_weight.end());
  xadj.reserve(n + 1);
  for (auto& neighbours : adjacency) {
    for (auto [w, channels] : neighbours) {
      adjncy.push_back(w);
      adjwgt.push_back(channels);
    }
    if (adjncy.size() > std::size_t(std::numeric_limits<idx_t>::max()))
      throw std::runtime_error("METIS: more adjacency entries than METIS's 32-bit indices hold");
    xadj.push_back(idx_t(adjncy.size()));
  }
  idx_t nvtxs = idx_t(n), ncon = 1, nparts = idx_t(parts), objval = 0;
  std::vector<idx_t> part(n, 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = idx_t(seed % 0x7fffffffULL);  // -1 would mean METIS's own default
  options[METIS_OPTION_UFACTOR] = idx_t(ufactor);
  options[METIS_OPTION_NCUTS] = idx_t(std::max(1, tries));
  const bool recursive = method == MetisMethod::Recursive;
  int status;
  {
    static std::mutex rand_user;  // METIS seeds and draws from the process's rand()
    std::lock_guard<std::mutex> lock(rand_user);
    status = recursive ? METIS_PartGraphRecursive(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                                  adjwgt.data(), &nparts, nullptr, nullptr, options, &objval,
                                                  part.data())
                       : METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                             adjwgt.data(), &nparts, nullptr, nullptr, options, &objval, part.data());
  }
  if (status != METIS_OK)
    throw std::runtime_error(fmt::format("{} failed (status {}) on a graph of {} vertices in {} parts",
                                         recursive ? "METIS_PartGraphRecursive" : "METIS_PartGraphKway", status, n,
                                         parts));
  MetisParts p;
  p.part.assign(part.begin(), part.end());
  p.cut = objval;
  return p;
}

MetisBisection metis_bisection(const std::vector<std::vector<std::pair<int, int>>>& adjacency,
                               const std::vector<int>& vertex_weight, std::uint64_t seed, int tries) {
  // Sides within 0.1 % of half the weight (METIS's tightest); the exact
  // floor/ceil balance is restored by the caller.
  const MetisParts p = metis_partition(adjacency, vertex_weight, 2, MetisMethod::Recursive, seed, tries, 1);
  MetisBisection b;
  b.side.assign(p.part.begin(), p.part.end());
  b.cut = p.cut;
  return b;
}

}  // namespace nwn::topo

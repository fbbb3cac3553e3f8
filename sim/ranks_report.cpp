#include "ranks_report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "network.hpp"
#include "partition.hpp"
#include "process.hpp"
#include "topo/graph.hpp"

namespace nwn {

std::string rank_report(const PerfResult& perf) {
  if (!perf.per_rank.is_array()) return "";
  std::string out = fmt::format("nwnsim: {} ranks split by {}, block {} cycles, {}\n", perf.ranks, perf.partition,
                                perf.block_cycles, perf.block_colours == 2 ? "two colours" : "one colour");
  if (perf.block_colours == 1 && perf.colours_cost > kColoursMaxCost)
    out += fmt::format("  (two colours would cost {:.2f}x a block under this partition, each colour's run waiting for "
                       "its heaviest rank: a partition that spreads each colour over every rank, such as a fat "
                       "tree's pods, sim.partition = groups or auto, keeps them)\n",
                       perf.colours_cost);
  out += "  rank  routers    nodes  peak-MB  compute-s  exchange-s  wait-s    blocks  MB-sent  bytes/block\n";
  for (const auto& r : perf.per_rank)
    out += fmt::format("  {:>4}  {:>7}  {:>7}  {:>7.0f}  {:>9.2f}  {:>10.2f}  {:>6.2f}  {:>8}  {:>7.1f}  {:>11.0f}\n",
                       r["rank"].get<int>(), r["routers"].get<int>(), r["nodes"].get<int>(),
                       r["peak_rss_mb"].get<double>(), r["compute_seconds"].get<double>(),
                       r["exchange_seconds"].get<double>(), r["wait_seconds"].get<double>(),
                       r["blocks"].get<std::uint64_t>(), double(r["bytes_sent"].get<std::uint64_t>()) / 1e6,
                       r["bytes_per_block"].get<double>());
  return out;
}

std::string rows_in_router_order(Ranks& ranks, const std::string& rows) {
  if (!ranks.distributed()) return rows;
  const std::vector<std::string> parts = ranks.gather(rows);
  if (!ranks.root()) return "";
  std::vector<std::pair<long long, std::string>> lines;
  for (const std::string& part : parts) {
    std::istringstream in(part);
    for (std::string line; std::getline(in, line);) lines.emplace_back(std::stoll(line), line);
  }
  std::stable_sort(lines.begin(), lines.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::string out;
  for (auto& l : lines) out += l.second + "\n";
  return out;
}

namespace {

// Rank `rank` of `size` for building its share in this process: nothing is
// simulated, so nothing is ever exchanged.
class ShareOnly final : public Ranks {
 public:
  ShareOnly(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(std::uint64_t*, std::size_t) override {}
  void max(std::uint64_t*, std::size_t) override {}
  void min(std::uint64_t*, std::size_t) override {}
  std::vector<std::string> gather(const std::string& bytes) override { return {bytes}; }
  std::string broadcast(const std::string& bytes) override { return bytes; }
  void exchange(const std::vector<int>&, const std::vector<std::string>&, std::vector<std::string>&) override {
    throw std::logic_error("ranks: a share built to measure it exchanges nothing");
  }
  [[noreturn]] void abort(int code) override { std::exit(code); }

 private:
  int rank_, size_;
};

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

ShareMemory measure_share(const Config& cfg, int ranks) {
  ShareMemory m;
  if (cfg.get_string("network.topology") != "single" && ranks > 1) {
    // The rank with the most routers (then nodes): the largest share.
    const topo::Graph g = topo::build_graph(cfg);
    const std::vector<int> rank_of = partition_routers(cfg, g, ranks, &m.partition);
    std::vector<long long> routers(std::size_t(ranks), 0), nodes(std::size_t(ranks), 0);
    for (int r = 0; r < g.routers(); ++r) {
      ++routers[std::size_t(rank_of[std::size_t(r)])];
      nodes[std::size_t(rank_of[std::size_t(r)])] += g.terminals[std::size_t(r)];
    }
    for (int k = 1; k < ranks; ++k)
      if (std::make_pair(routers[std::size_t(k)], nodes[std::size_t(k)]) >
          std::make_pair(routers[std::size_t(m.rank)], nodes[std::size_t(m.rank)]))
        m.rank = k;
    m.routers = int(routers[std::size_t(m.rank)]);
    m.nodes = int(nodes[std::size_t(m.rank)]);
  }
  ShareOnly share(m.rank, ranks);
  auto net = make_network(cfg, clock_from(cfg), share);
  if (ranks <= 1) {
    m.routers = int(net->routers().size());
    m.nodes = net->endpoints().nodes();
  }
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  m.built_mb = double(ru.ru_maxrss) / 1024.0;
  double slots = 0;  // a VC ring grows by doubling up to its depth rounded up to a power of two
  for (auto& r : net->routers())
    for (auto& ss : r->subswitches()) {
      const SubswitchParams& p = ss->params();
      std::size_t depth = 1;
      while (depth < std::size_t(p.vc_depth_flits)) depth <<= 1;
      slots += double(p.inputs) * p.vcs * double(depth);
    }
  m.full_buffers_mb = slots * double(sizeof(Flit)) / (1024.0 * 1024.0);
  return m;
}

std::string rank_job_script(const Config& cfg, const RankJob& job) {
  const int threads = int(cfg.get_int("sim.threads"));
  std::string basis;
  double mem = job.mem_per_rank_mb;
  if (mem <= 0) {
    const ShareMemory m = measure_share(cfg, job.ranks);
    mem = std::ceil(m.bound_mb() * 1.1);
    if (!m.partition.empty())
      basis = fmt::format("# The ranks split the routers by {} (sim.partition = {}; docs/SCALING.md).\n", m.partition,
                          cfg.get_string("sim.partition"));
    basis += fmt::format(
        "# Memory per rank: rank {}'s share ({} routers, {} nodes), the largest, took {:.0f} MB to build here\n"
        "# (peak RSS); its VC buffers, every one full, take {:.0f} MB more; a rank gets 1.1 x the sum, {:.0f} MB\n"
        "# (docs/SCALING.md, \"Memory per rank\": a saturated open-loop run also grows its source\n"
        "# queues). --mem-per-rank MB sets it instead.\n",
        m.rank, m.routers, m.nodes, m.built_mb, m.full_buffers_mb, mem);
  } else {
    basis = fmt::format("# Memory per rank: {:.0f} MB (--mem-per-rank).\n", mem);
  }
  std::string command = quoted(self_executable()) + " run";
  for (const std::string& a : job.run_args) command += " " + quoted(a);
  const long per_cpu = long(std::ceil(mem / threads));
  return fmt::format(
      "#!/bin/bash\n"
      "# One nwnsim simulation over {} MPI ranks (written by nwnsim run --emit slurm --ranks {}):\n"
      "# each rank simulates its share of the routers with their terminals, on {} thread(s)\n"
      "# (sim.threads); rank 0 writes the results, the same as one process's.\n"
      "{}"
      "#   sbatch THIS_FILE\n"
      "#SBATCH --job-name=nwnsim-run\n"
      "#SBATCH --ntasks={}\n"
      "#SBATCH --cpus-per-task={}\n"
      "#SBATCH --mem-per-cpu={}M\n"
      "#SBATCH --output=nwnsim-run-%j.out\n"
      "srun --mpi=pmix {} --progress\n"
      "# Without Slurm's PMIx: mpirun -np {} {} --progress\n",
      job.ranks, job.ranks, threads, basis, job.ranks, threads, per_cpu, command, job.ranks, command);
}

}  // namespace nwn

// The parts of running over MPI ranks that one process can test: how the
// routers are split (sim/partition.hpp), what is refused, and the job
// `run --emit slurm` writes. Runs over real ranks, bit for bit against one
// process, are scripts/mpi-check (ctest label mpi).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "base/error.hpp"
#include "sim/network.hpp"
#include "sim/partition.hpp"
#include "sim/topo/graph.hpp"
#include "sim_util.hpp"

namespace nwn {
namespace {

// Every rank gets routers, and rank numbers never go down in router order.
void expect_contiguous(const std::vector<int>& rank_of, int ranks) {
  ASSERT_FALSE(rank_of.empty());
  EXPECT_EQ(rank_of.front(), 0);
  EXPECT_EQ(rank_of.back(), ranks - 1);
  for (std::size_t r = 1; r < rank_of.size(); ++r) {
    EXPECT_GE(rank_of[r], rank_of[r - 1]);
    EXPECT_LE(rank_of[r], rank_of[r - 1] + 1) << "rank " << rank_of[r - 1] + 1 << " got no router";
  }
}

TEST(Partition, ContiguousRangesOfAboutEqualWeight) {
  const Config cfg = test::config(
      {"network.topology=torus", "network.torus.dims=8,8", "router.radix=8", "sim.partition=contiguous"});
  const topo::Graph g = topo::build_graph(cfg);
  for (int ranks : {1, 2, 3, 5, 64}) {
    const std::vector<int> rank_of = partition_routers(cfg, g, ranks);
    expect_contiguous(rank_of, ranks);
    // Identical routers: shares differ by one router at most.
    std::vector<int> count(std::size_t(ranks), 0);
    for (int k : rank_of) ++count[std::size_t(k)];
    EXPECT_LE(*std::max_element(count.begin(), count.end()) - *std::min_element(count.begin(), count.end()), 1)
        << ranks << " ranks";
  }
}

TEST(Partition, MoreRanksThanRoutersIsAnErrorNamingBoth) {
  const Config cfg = test::config({"network.topology=torus", "network.torus.dims=2,2", "router.radix=8"});
  try {
    partition_routers(cfg, topo::build_graph(cfg), 5);
    FAIL() << "5 ranks for 4 routers accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("mpirun -np 5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at most 4 ranks"), std::string::npos) << e.what();
  }
}

TEST(Partition, GroupsKeepEachDragonflyGroupOnOneRank) {
  const Config cfg = test::config({"network.topology=dragonfly", "network.dragonfly.p=2", "router.radix=8",
                                   "sim.partition=groups"});
  const topo::Graph g = topo::build_graph(cfg);
  const std::vector<int> rank_of = partition_routers(cfg, g, 3);
  std::map<int, std::set<int>> ranks_of_group;
  for (int r = 0; r < g.routers(); ++r) ranks_of_group[g.group[r]].insert(rank_of[r]);
  for (auto& [group, ranks] : ranks_of_group) EXPECT_EQ(ranks.size(), 1u) << "group " << group;
  EXPECT_EQ(std::set<int>(rank_of.begin(), rank_of.end()).size(), 3u);
}

// A fat tree split by pods crosses fewer channels than by router ranges,
// which put the leaves on one rank and their parents on another.
TEST(Partition, PodsOfAFatTreeCrossFewerChannels) {
  Config cfg = test::config(
      {"network.topology=fclos", "router.radix=8", "network.fclos_levels=3", "sim.partition=contiguous"});
  const topo::Graph g = topo::build_graph(cfg);
  const long long contiguous = channels_between_ranks(g, partition_routers(cfg, g, 4));
  cfg.set_override("sim.partition=groups");
  const std::vector<int> by_pods = partition_routers(cfg, g, 4);
  const long long pods = channels_between_ranks(g, by_pods);
  EXPECT_LT(pods, contiguous);
  EXPECT_EQ(std::set<int>(by_pods.begin(), by_pods.end()).size(), 4u);
  // 4 pods of 4 leaves and 4 middle routers: a pod's inner channels stay.
  for (int r = 0; r < g.routers(); ++r)
    for (int f : g.links[r])
      if (g.group[r] < 2 && g.group[f] < 2) {
        EXPECT_EQ(by_pods[r], by_pods[f]) << r << "-" << f;
      }
}

// Under ranks the two colours run only where each colour is spread as the
// ranks are: a fat tree by pods (every pod has leaves and middle routers)
// but not by id ranges over 2 ranks (the leaves on one rank, most of the
// middle and the top on the other: 40 % more per block).
TEST(Partition, TwoColoursPayWhereEveryRankHoldsBothColours) {
  Config cfg = test::config(
      {"network.topology=fclos", "router.radix=32", "network.fclos_levels=3", "sim.partition=contiguous"});
  const topo::Graph g = topo::build_graph(cfg);
  const std::vector<int> colour = topo::two_colours(g);
  ASSERT_EQ(colour.size(), std::size_t(g.routers()));
  for (int a = 0; a < g.routers(); ++a)
    for (int b : g.links[a]) EXPECT_NE(colour[a], colour[b]) << a << "-" << b;
  // Ranges: 256 leaves (weight 32) and 64 middle routers (32) on rank 0,
  // 192 middle routers and 256 top ones (16) on rank 1: colour 0 (leaves
  // and top) 8,192 / 4,096, colour 1 2,048 / 6,144, both ranks 10,240:
  // (8,192 + 6,144) / 10,240.
  EXPECT_DOUBLE_EQ(colours_cost(g, partition_routers(cfg, g, 2), colour, 2), 1.4);
  cfg.set_override("sim.partition=groups");
  for (int ranks : {2, 4})
    EXPECT_LE(colours_cost(g, partition_routers(cfg, g, ranks), colour, ranks), kColoursMaxCost) << ranks;
  // One rank: nothing to wait for.
  EXPECT_DOUBLE_EQ(colours_cost(g, std::vector<int>(std::size_t(g.routers()), 0), colour, 1), 1.0);
  // An odd cycle has no two colours.
  EXPECT_TRUE(topo::two_colours(3, {{0, 1}, {1, 2}, {2, 0}}).empty());
}

// METIS splits topologies without groups: every rank gets routers of
// about equal weight, the same split every time (every rank computes it
// alone), never more channels between ranks than router-id ranges, and
// fewer where ranges cut across the graph's structure: a Slim Fly's ids
// follow its algebra, not its neighbourhoods (130 channels instead of 250
// for 2 ranks), and 16 ranges of an 8x8 torus are half rows (128 instead
// of 160 with 4x4 squares). A HyperX's ranges are already its best cuts.
TEST(Partition, MetisSplitsAnyTopologyEvenlyWithFewerChannelsBetweenRanks) {
  // A network and the rank counts where METIS must cut fewer channels.
  const std::vector<std::pair<std::vector<std::string>, std::set<int>>> networks = {
      {{"network.topology=slimfly", "network.slimfly.q=5", "router.radix=12"}, {2, 3, 4, 16}},
      {{"network.topology=torus", "network.torus.dims=8,8", "router.radix=8"}, {16}},
      {{"network.topology=hyperx", "network.hyperx_s=4,4,4", "network.hyperx_t=2", "router.radix=12"}, {}}};
  for (const auto& [sets, fewer] : networks) {
    Config cfg;
    for (const std::string& set : sets) cfg.set_override(set);
    cfg.set_override("sim.partition=contiguous");
    const topo::Graph g = topo::build_graph(cfg);
    for (int ranks : {2, 3, 4, 16}) {
      const long long contiguous = channels_between_ranks(g, partition_routers(cfg, g, ranks));
      cfg.set_override("sim.partition=metis");
      const std::vector<int> rank_of = partition_routers(cfg, g, ranks);
      cfg.set_override("sim.partition=contiguous");
      const std::string what = g.name + ", " + std::to_string(ranks) + " ranks";
      ASSERT_EQ(rank_of.size(), std::size_t(g.routers())) << what;
      std::vector<long long> weight(std::size_t(ranks), 0);
      long long total = 0, heaviest_router = 0;
      for (int r = 0; r < g.routers(); ++r) {
        ASSERT_GE(rank_of[r], 0) << what;
        ASSERT_LT(rank_of[r], ranks) << what;
        weight[std::size_t(rank_of[r])] += g.radix(r);
        total += g.radix(r);
        heaviest_router = std::max<long long>(heaviest_router, g.radix(r));
      }
      EXPECT_EQ(rank_of.front(), 0) << what << ": ranks numbered by their first router";
      for (long long w : weight) {
        EXPECT_GT(w, 0) << what << ": a rank without routers";
        EXPECT_LE(w, total * 103 / 100 / ranks + heaviest_router) << what << ": a rank over 3 % above its share";
      }
      cfg.set_override("sim.partition=metis");
      EXPECT_EQ(partition_routers(cfg, g, ranks), rank_of) << what << ": another split the second time";
      cfg.set_override("sim.partition=contiguous");
      if (fewer.count(ranks)) {
        EXPECT_LT(channels_between_ranks(g, rank_of), contiguous) << what;
      } else {
        EXPECT_LE(channels_between_ranks(g, rank_of), contiguous) << what;
      }
    }
  }
}

// sim.partition = auto takes, of contiguous, groups and metis, the split
// with the lightest block, then two colours, then the fewest channels
// between ranks (better_partition). A fat tree on 2 or 4 ranks: its pods
// (balanced, both colours on every rank, the fewest channels). On 3
// ranks its 4 pods deal unevenly (one rank gets two), so not the pods.
// A Slim Fly has no groups: METIS, with fewer channels than id ranges.
// One rank: contiguous, and nothing computed.
TEST(Partition, AutoTakesTheSplitTheRanksRunFastest) {
  struct Case {
    std::vector<std::string> sets;
    int ranks;
    std::string want;  // the method auto must take ("": any but groups)
  };
  const std::vector<std::string> fat_tree = {"network.topology=fclos", "router.radix=8", "network.fclos_levels=3"};
  const std::vector<std::string> slim_fly = {"network.topology=slimfly", "network.slimfly.q=5", "router.radix=12"};
  const std::vector<Case> cases = {{fat_tree, 2, "groups"}, {fat_tree, 4, "groups"}, {fat_tree, 3, ""},
                                   {slim_fly, 2, "metis"},  {slim_fly, 4, "metis"},  {fat_tree, 1, "contiguous"}};
  for (const Case& c : cases) {
    Config cfg;
    for (const std::string& set : c.sets) cfg.set_override(set);
    const topo::Graph g = topo::build_graph(cfg);
    const std::string what = g.name + ", " + std::to_string(c.ranks) + " ranks";
    std::string method;
    const std::vector<int> rank_of = partition_routers(cfg, g, c.ranks, &method);
    if (c.want.empty()) {
      EXPECT_NE(method, "groups") << what;
    } else {
      EXPECT_EQ(method, c.want) << what;
    }
    // The split is the chosen method's, and no method's is better.
    cfg.set_override("sim.partition=" + method);
    EXPECT_EQ(partition_routers(cfg, g, c.ranks), rank_of) << what;
    const std::vector<int> colour = topo::two_colours(g);
    const PartitionScore chosen = score_partition(g, rank_of, colour, c.ranks);
    for (const char* other : {"contiguous", "groups", "metis"}) {
      cfg.set_override(std::string("sim.partition=") + other);
      std::vector<int> split;
      try {
        split = partition_routers(cfg, g, c.ranks);
      } catch (const ConfigError&) {
        continue;  // groups where there are none, or too few
      }
      EXPECT_FALSE(better_partition(score_partition(g, split, colour, c.ranks), chosen)) << what << ": " << other;
    }
  }
  // The order of the tests: a lighter block first, then two colours, then
  // fewer channels.
  auto score = [](double block_weight, bool two_colours, long long channels_between) {
    PartitionScore s;
    s.block_weight = block_weight;
    s.two_colours = two_colours;
    s.channels_between = channels_between;
    return s;
  };
  const PartitionScore light = score(100, false, 50), heavy = score(110, true, 10), within = score(102, true, 60),
                       fewer = score(101, false, 40);
  EXPECT_TRUE(better_partition(light, heavy));
  EXPECT_FALSE(better_partition(heavy, light));
  EXPECT_TRUE(better_partition(within, light));
  EXPECT_TRUE(better_partition(fewer, light));
  EXPECT_FALSE(better_partition(light, light));
}

TEST(Partition, GroupsOfATopologyWithoutThemIsAnError) {
  const Config cfg = test::config({"network.topology=torus", "network.torus.dims=4,4", "router.radix=8",
                                   "sim.partition=groups"});
  EXPECT_THROW(partition_routers(cfg, topo::build_graph(cfg), 2), ConfigError);
}

TEST(Distributable, RefusesWhatOneProcessMustRunNamingTheKey) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"network.topology=single", "network.topology"},
      {"router.allocator_impl=rtl", "router.allocator_impl"},
      {"sim.packet_trace_file=t.txt", "sim.packet_trace_file"},
      {"sim.vcd_file=o.vcd", "sim.vcd_file"},
      {"router.rtl_trace_file=r.vcd", "router.rtl_trace_file"},
      {"traffic.source=external", "traffic.source"},
      {"traffic.batch_max_outstanding=2", "traffic.batch_max_outstanding"}};
  for (auto& [set, key] : refused) {
    Config cfg = test::config({"network.topology=mesh", "network.mesh.dims=3,3", "router.radix=8",
                               "traffic.mode=batch"});
    cfg.set_override(set);
    try {
      check_distributable(cfg, 2);
      ADD_FAILURE() << set << " accepted over 2 ranks";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("allowed"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(check_distributable(test::config({"network.topology=mesh", "network.mesh.dims=3,3",
                                                    "router.radix=8", "traffic.mode=batch"}),
                                      2));
}

TEST(RankJob, EmitSlurmWritesAnMpiJobWithMeasuredMemoryPerRank) {
  const auto r = test::nwnsim(
      "run --set network.topology=torus --set network.torus.dims=4,4 --set router.radix=8 --set sim.threads=2 "
      "--emit slurm --ranks 3 --json out.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("#SBATCH --ntasks=3\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#SBATCH --cpus-per-task=2\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#SBATCH --mem-per-cpu="), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("share (6 routers, 6 nodes)"), std::string::npos) << r.output;
  // A torus has no groups; auto says which of ranges and METIS it took.
  EXPECT_TRUE(r.output.find("split the routers by contiguous (sim.partition = auto") != std::string::npos ||
              r.output.find("split the routers by metis (sim.partition = auto") != std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("srun --mpi=pmix "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/out.json'"), std::string::npos) << "outputs by absolute path: " << r.output;
  const auto fixed = test::nwnsim(
      "run --set network.topology=torus --set network.torus.dims=4,4 --set router.radix=8 --emit slurm --ranks 2 "
      "--mem-per-rank 3000");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_NE(fixed.output.find("#SBATCH --mem-per-cpu=3000M\n"), std::string::npos) << fixed.output;
  EXPECT_EQ(test::nwnsim("run --emit slurm").exit_code, 2);
  EXPECT_EQ(test::nwnsim("run --ranks 2").exit_code, 2);
  EXPECT_EQ(test::nwnsim("run --set network.routing=ugal_g --set network.topology=torus --set "
                         "network.torus.dims=4,4 --set router.radix=8 --emit slurm --ranks 2")
                .exit_code,
            2);
}

// The job runs what was asked: what cannot run over its ranks is refused
// with mpirun's messages (exit 2), even when nothing is measured
// (--mem-per-rank); every other flag goes to the job, files by absolute paths.
TEST(RankJob, EmitSlurmRefusesWhatRanksCannotRunAndKeepsTheOtherFlags) {
  const std::string net =
      "run --set network.topology=fclos --set router.radix=8 --mem-per-rank 100 --emit slurm --ranks 2 ";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--seeds 3", "--seeds 3 under mpirun"},
      {"--vcd v.vcd", "sim.vcd_file = "},
      {"--set sim.vcd_file=v.vcd", "sim.vcd_file = "},
      {"--trace-packets pt.txt --set sim.packet_trace_ids=3", "sim.packet_trace_file = "},
      {"--trace-rtl r.vcd", "router.rtl_trace_file = "}};
  for (auto& [flags, message] : refused) {
    const auto r = test::nwnsim(net + flags);
    EXPECT_EQ(r.exit_code, 2) << flags << ": " << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << flags << ": " << r.output;
  }
  const auto kept = test::nwnsim(net + "--columns lat-avg,p99 --quiet --set traffic.trace_file=t.trace");
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  const std::string srun = kept.output.substr(kept.output.find("srun "));
  EXPECT_NE(srun.find(" '--columns' 'lat-avg,p99'"), std::string::npos) << srun;
  EXPECT_NE(srun.find(" '--quiet'"), std::string::npos) << srun;
  EXPECT_NE(srun.find("'traffic.trace_file=" + std::filesystem::current_path().string() + "/t.trace'"),
            std::string::npos)
      << "a file --set names by its absolute path: " << srun;
  // One rank is one process: seeds and debug outputs run there.
  const auto one = test::nwnsim("run --set router.radix=8 --mem-per-rank 100 --emit slurm --ranks 1 --seeds 3 -j 2");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find(" '--seeds' '3' '-j' '2'"), std::string::npos) << one.output;
}

}  // namespace
}  // namespace nwn

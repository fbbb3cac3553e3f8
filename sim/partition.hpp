// Which rank (sim/ranks.hpp) simulates each router of a graph network, with
// its terminals: every rank computes the same answer from the config and
// the graph, without asking the others. Results never depend on it (the
// routings' and the workload's random streams are per router and per node);
// speed does: a rank waits for the slowest, and the channels between ranks
// are what the ranks exchange.
//
// sim.partition = contiguous: router-id ranges of about equal
// weight (the ports a router uses: its terminals and its channels, a
// stand-in for the flits it moves), as the kernel makes its threads' chunks.
// sim.partition = groups: the topology's own structure, whole units in id
// order dealt out the same way: a fat tree's pods (fclos, fattree: the
// routers below the top level, by the subtrees they form, each with a
// share of the top routers) and the group labels of the others (a
// Dragonfly's groups), so that most channels stay inside a rank.
// sim.partition = metis: a graph partition of any topology, for those
// without groups (HyperX, tori, Slim Fly) or with too few: the split with
// the fewest channels between ranks, each rank within 3 % of its share,
// of METIS's recursive and k-way splits and contiguous ranges (so never
// more channels than contiguous).
// sim.partition = auto (default): of the three, the one the ranks would
// run fastest by better_partition: the lightest block (a block lasts as
// long as its heaviest rank), then the kernel's two colours (blocks twice
// as long, half the exchanges), then the fewest channels between ranks.
#pragma once
#include <string>
#include <vector>

#include "config.hpp"
#include "topo/graph.hpp"

namespace nwn {

// The rank of every router; each of the `ranks` ranks gets at least one.
// Throws ConfigError when the network cannot be split that way. `method`,
// when given, gets the method used (auto's choice; contiguous for 1 rank).
std::vector<int> partition_routers(const Config& cfg, const topo::Graph& g, int ranks,
                                   std::string* method = nullptr);

// What the kernel's two colours (models/kernel.hpp; `colour`: every
// router's, 0 or 1) cost a block under this partition, against one
// colour. Under ranks each colour's runs end with an exchange, so a run
// lasts as long as the rank with the most of that colour's weight (as the
// partition weighs routers): two colours cost the two colours' heaviest
// ranks where one colour costs the heaviest rank. Returns their ratio, 1
// when every rank holds each colour in proportion. A fat tree by pods:
// every pod holds both colours, 1.0; by contiguous ranges over 2 ranks:
// one rank holds the leaves, the other the top, 1.4.
double colours_cost(const topo::Graph& g, const std::vector<int>& rank_of_router, const std::vector<int>& colour,
                    int ranks);
// The two colours run under ranks when colours_cost is at most this (their
// gain in one process is 10 % to 30 %, docs/SCALING.md).
constexpr double kColoursMaxCost = 1.05;

// Of a partition: how many one-way channels join routers of different ranks.
long long channels_between_ranks(const topo::Graph& g, const std::vector<int>& rank_of_router);

// A split as the ranks would run it: what sim.partition = auto compares,
// and whether the two colours run (the network's build asks this too).
// two_colours: `colour` is not empty and colours_cost, kept in
// colours_cost (0 without colours), is at most kColoursMaxCost.
// block_weight: the heaviest rank's weight (the ports of its routers), or
// with the two colours the two colours' heaviest ranks' together, since
// each colour's run waits for its own.
struct PartitionScore {
  double block_weight = 0;
  bool two_colours = false;
  double colours_cost = 0;
  long long channels_between = 0;
};
PartitionScore score_partition(const topo::Graph& g, const std::vector<int>& rank_of_router,
                               const std::vector<int>& colour, int ranks);
// Blocks within this fraction of each other weigh the same to auto: METIS
// keeps every rank within 3 % of its share, so finer differences are not
// the method's.
constexpr double kPartitionBalanceSlack = 0.03;
// Whether auto takes `a` over `b`: a block lighter by more than the slack;
// else two colours over one; else fewer channels between ranks (the bytes
// a block exchanges). Weight first: in the model of docs/SCALING.md a
// block's compute is 94 % to 97 % of its time on 2 to 16 ranks.
bool better_partition(const PartitionScore& a, const PartitionScore& b);

}  // namespace nwn

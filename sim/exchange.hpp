// The channels between ranks (sim/ranks.hpp) and what crosses them.
//
// A channel between a router of this rank and one of rank p exists in both
// processes. Here its far end is a stand-in for p (a `LinkEnd` that is no
// component): the router sends on it as on any channel, and when the
// kernel publishes the channel the stand-in notes it. After each block
// (models/kernel.hpp, BlockExchange) every rank sends each neighbour one
// message: the flits of the channels into it and the credits of the
// channels out of it, published in the block, in the order of a list of
// the pair's channels both ranks sort the same way (by the sending
// router's id and port). The receiver puts the items, with their arrival
// cycles, on its copies and publishes them, which marks its routers'
// inputs pending exactly as a publish within one process would. Every
// channel between ranks takes at least a block (the block is the shortest
// channel between clusters, agreed by all ranks), so nothing a rank sends
// in a block can be read elsewhere before the next one: the exchange at
// block ends loses no cycle, and results are those of one process.
//
// Message: records {u32 channel index, with the top bit for credits; u32
// items} each followed by its items as they are in the ring (a flit with
// its arrival cycle, 64 bytes; a credit's VC with its arrival, 16 bytes).
// Ranks that share channels exchange a message every block, empty or not.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../models/kernel.hpp"
#include "ranks.hpp"

namespace nwn {

// What a rank exchanged, for its report (sim/experiment.hpp, PerfResult).
struct ExchangeFigures {
  std::uint64_t blocks = 0;          // exchanges (one per block the kernel ran)
  std::uint64_t bytes_sent = 0;      // message bytes to all neighbours
  std::uint64_t flits_sent = 0, credits_sent = 0;
  double seconds = 0;                // in the exchange and the agreement, waiting included
  int neighbours = 0;                // ranks this one shares channels with
  std::uint64_t channels = 0;        // one-way channels to and from other ranks
};

class RankExchange final : public BlockExchange {
 public:
  explicit RankExchange(Ranks& ranks);
  ~RankExchange() override;

  // A channel from a router here to one on rank `peer` (outgoing), or from
  // there to here. `key` orders a pair's channels the same on both ranks:
  // the sending router's id x 65536 + its physical output port.
  void add(Link* link, int peer, std::uint64_t key, bool outgoing);
  // After the last add: numbers the channels and connects the stand-ins.
  void finish();
  // Whether `end` is a stand-in for another rank (a channel's far end).
  bool stands_in(const LinkEnd* end) const;
  const std::vector<Link*>& links() const { return links_; }

  void after_publish() override;
  Cycle agree_next(Cycle local) override;
  ExchangeFigures figures() const;

 private:
  struct Peer;
  void pack(Peer& p, std::string& out);
  void unpack(Peer& p, const std::string& in);

  Ranks& ranks_;
  std::vector<std::unique_ptr<Peer>> peers_;  // by rank
  std::vector<int> peer_ranks_;
  std::vector<std::string> sends_, received_;
  std::vector<Link*> links_;
  std::vector<Link::TimedFlit> scratch_flits_;  // a record's items, aligned
  std::vector<Link::TimedCredit> scratch_credits_;
  ExchangeFigures figures_;
};

}  // namespace nwn

#include "exchange.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

namespace nwn {

static_assert(std::is_trivially_copyable_v<Link::TimedFlit> && sizeof(Link::TimedFlit) == 64,
              "a flit with its arrival cycle crosses between ranks as 64 plain bytes");
static_assert(std::is_trivially_copyable_v<Link::TimedCredit>, "a credit crosses between ranks as plain bytes");

namespace {

constexpr std::uint32_t kCreditBit = 0x80000000u;

struct Record {
  std::uint32_t index;  // the channel in the pair's list; kCreditBit: credits
  std::uint32_t items;
};

template <typename T>
void append(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace

// The stand-in for one neighbour rank: the far end of every channel to it.
// The kernel's publish phase (one thread) tells it which channels have
// items to hand over.
struct RankExchange::Peer final : LinkEnd {
  int rank = 0;
  struct Channel {
    std::uint64_t key;
    Link* link;
    bool outgoing;
  };
  std::vector<Channel> channels;  // sorted by key after finish()
  std::vector<int> dirty_flits, dirty_credits;
  std::vector<std::uint8_t> flagged;  // per channel: 1 in dirty_flits, 2 in dirty_credits

  // The items cross whole at the block's end with their arrival cycles: the first's is not needed here.
  void flits_pending(int tag, Cycle) override {
    if (flagged[std::size_t(tag)] & 1) return;
    flagged[std::size_t(tag)] |= 1;
    dirty_flits.push_back(tag);
  }
  void credits_pending(int tag, Cycle) override {
    if (flagged[std::size_t(tag)] & 2) return;
    flagged[std::size_t(tag)] |= 2;
    dirty_credits.push_back(tag);
  }
};

RankExchange::RankExchange(Ranks& ranks) : ranks_(ranks) {}
RankExchange::~RankExchange() = default;

void RankExchange::add(Link* link, int peer, std::uint64_t key, bool outgoing) {
  if (peer < 0 || peer >= ranks_.size() || peer == ranks_.rank())
    throw std::logic_error(fmt::format("exchange: channel {} to rank {} of {}", link->name(), peer, ranks_.size()));
  auto it = std::lower_bound(peer_ranks_.begin(), peer_ranks_.end(), peer);
  const std::size_t i = std::size_t(it - peer_ranks_.begin());
  if (it == peer_ranks_.end() || *it != peer) {
    peer_ranks_.insert(it, peer);
    auto p = std::make_unique<Peer>();
    p->rank = peer;
    peers_.insert(peers_.begin() + std::ptrdiff_t(i), std::move(p));
  }
  peers_[i]->channels.push_back({key, link, outgoing});
  links_.push_back(link);
}

void RankExchange::finish() {
  for (auto& p : peers_) {
    std::sort(p->channels.begin(), p->channels.end(), [](auto& a, auto& b) { return a.key < b.key; });
    for (std::size_t i = 0; i < p->channels.size(); ++i) {
      const auto& c = p->channels[i];
      if (i && c.key == p->channels[i - 1].key)
        throw std::logic_error("exchange: two channels from one router port: " + c.link->name());
      if (c.outgoing) c.link->set_receiver(p.get(), int(i));
      else c.link->set_sender(p.get(), int(i));
    }
    p->flagged.assign(p->channels.size(), 0);
  }
  sends_.resize(peers_.size());
  figures_.neighbours = int(peers_.size());
  figures_.channels = links_.size();
}

bool RankExchange::stands_in(const LinkEnd* end) const {
  for (auto& p : peers_)
    if (p.get() == end) return true;
  return false;
}

void RankExchange::pack(Peer& p, std::string& out) {
  out.clear();
  auto put = [&](std::uint32_t index, auto take, std::uint64_t& counted) {
    const std::size_t at = out.size();
    append(out, Record{index, 0});
    std::uint32_t n = 0;
    take([&](const auto& item) {
      append(out, item);
      ++n;
    });
    if (n == 0) {
      out.resize(at);
      return;
    }
    std::memcpy(&out[at + offsetof(Record, items)], &n, sizeof n);
    counted += n;
  };
  for (int i : p.dirty_flits) {
    Link* l = p.channels[std::size_t(i)].link;
    put(std::uint32_t(i), [&](auto&& f) { l->take_flits(f); }, figures_.flits_sent);
    p.flagged[std::size_t(i)] &= ~1;
  }
  for (int i : p.dirty_credits) {
    Link* l = p.channels[std::size_t(i)].link;
    put(std::uint32_t(i) | kCreditBit, [&](auto&& f) { l->take_credits(f); }, figures_.credits_sent);
    p.flagged[std::size_t(i)] &= ~2;
  }
  p.dirty_flits.clear();
  p.dirty_credits.clear();
}

void RankExchange::unpack(Peer& p, const std::string& in) {
  std::size_t at = 0;
  auto bad = [&](const char* why) {
    return std::logic_error(fmt::format("exchange: message from rank {} ({} bytes): {} at byte {}", p.rank,
                                        in.size(), why, at));
  };
  while (at < in.size()) {
    if (in.size() - at < sizeof(Record)) throw bad("a record cut short");
    Record r;
    std::memcpy(&r, in.data() + at, sizeof r);
    at += sizeof r;
    const bool credits = r.index & kCreditBit;
    const std::size_t i = r.index & ~kCreditBit;
    if (i >= p.channels.size()) throw bad("a channel it does not share");
    const auto& c = p.channels[i];
    // Flits come on the channels into this rank, credits on those out of it.
    if (credits != c.outgoing) throw bad("items against the channel's direction");
    const std::size_t size = credits ? sizeof(Link::TimedCredit) : sizeof(Link::TimedFlit);
    if ((in.size() - at) / size < r.items) throw bad("items cut short");
    // The items are copied out: the message's bytes need not be aligned.
    if (credits) {
      if (scratch_credits_.size() < r.items) scratch_credits_.resize(r.items);  // grows a few times, never per block
      std::memcpy(scratch_credits_.data(), in.data() + at, r.items * size);
      c.link->put_credits(scratch_credits_.data(), r.items);
    } else {
      if (scratch_flits_.size() < r.items) scratch_flits_.resize(r.items);
      std::memcpy(static_cast<void*>(scratch_flits_.data()), in.data() + at, r.items * size);
      c.link->put_flits(scratch_flits_.data(), r.items);
    }
    at += r.items * size;
  }
}

void RankExchange::after_publish() {
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    pack(*peers_[i], sends_[i]);
    figures_.bytes_sent += sends_[i].size();
  }
  ranks_.exchange(peer_ranks_, sends_, received_);
  for (std::size_t i = 0; i < peers_.size(); ++i) unpack(*peers_[i], received_[i]);
  ++figures_.blocks;
  figures_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Cycle RankExchange::agree_next(Cycle local) {
  const auto t0 = std::chrono::steady_clock::now();
  const Cycle next = ranks_.min(local);
  figures_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return next;
}

ExchangeFigures RankExchange::figures() const { return figures_; }

}  // namespace nwn

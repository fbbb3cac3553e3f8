// A packet as the terminals and network interfaces see it, and the one
// place where a packet's fields go into its flits and come back out of its
// tail.
#pragma once
#include <cstdint>

#include "flit.hpp"

namespace nwn {

// What a packet is when it is created, and what a source queue keeps of a
// packet it holds: 32 bytes (a power of two: a queue slot is a shift away),
// no vtable, to copy instead of the whole PacketExtension.
struct PacketHeader {
  std::uint64_t packet_id = 0;
  Cycle created_cycle = 0;
  std::int32_t src = -1, dst = -1;
  std::uint16_t size_flits = 1;
  std::uint8_t cls = 0;
  bool measured = false;
  bool traced = false;
};
static_assert(sizeof(PacketHeader) == 32, "a source queue slot is 32 bytes");

// A packet as the observer (the statistics) hears of it, created or
// delivered. (Named for the TLM extension it was when terminals handed
// packets to their interfaces through sockets; it is a plain record.)
struct PacketExtension : PacketHeader {
  Cycle injected_cycle = 0;  // head flit entered the injection channel (delivered packets)
  Cycle delivered_cycle = 0;
  std::uint32_t hops = 0;  // crossbar traversals of the head flit
  std::uint16_t window_flits = 0;  // delivered: how many of its flits were ejected in the measurement window
};

struct PacketSpec {
  int dst = -1;
  int size_flits = 1;
  int cls = 0;
};

// What the sink of an embedding hears of an outside packet.
struct ExternalPacket {
  std::uint64_t packet_id = 0;
  std::int32_t src = -1, dst = -1;
  std::uint16_t size_flits = 1;
  std::uint8_t cls = 0;
  Cycle at = 0;  // the cycle it was delivered (or left its source queue)
};

// A flit of packet `p`, whose head was injected at `injected` (0: not yet),
// on VC `vc` (-1: none yet): the fields every flit of the packet carries,
// and whether it is the head or the tail.
inline Flit packet_flit(const PacketHeader& p, Cycle injected, int vc, bool head, bool tail) {
  Flit f;
  f.packet_id = p.packet_id;
  f.created_cycle = p.created_cycle;
  f.injected_cycle = injected;
  f.src = p.src;
  f.dst = p.dst;
  f.vc = std::int16_t(vc);
  f.packet_flits = p.size_flits;
  f.cls = p.cls;
  f.measured = p.measured;
  f.traced = p.traced;
  f.head = head;
  f.tail = tail;
  return f;
}

// The packet a tail flit closes, as its destination delivers it at `now`
// with `window_flits` of its flits ejected in the measurement window: the
// fields packet_flit copied, and the hops the flits took. What a
// PacketExtension of a delivery holds, in 48 bytes rather than a whole
// cache line: a group keeps these until the end of the kernel's block
// (EndpointGroup::end_block; a 1-cycle fat tree delivers about five
// packets a group a cycle, read at the block's end, when the routers have
// long pushed them out of the cache).
struct DeliveredRecord {
  std::uint64_t packet_id;
  Cycle created_cycle, injected_cycle, delivered_cycle;
  std::int32_t src, dst;
  std::uint16_t hops, window_flits, size_flits;
  std::uint8_t cls;
  bool measured;

  // Written in place (a group's vector, emplace_back), field by field,
  // not built aside and copied.
  DeliveredRecord(const Flit& tail, Cycle now, std::uint16_t window_flits)
      : packet_id(tail.packet_id),
        created_cycle(tail.created_cycle),
        injected_cycle(tail.injected_cycle),
        delivered_cycle(now),
        src(tail.src),
        dst(tail.dst),
        hops(tail.hops),
        window_flits(window_flits),
        size_flits(tail.packet_flits),
        cls(tail.cls),
        measured(tail.measured) {}
  PacketExtension extension() const {
    PacketExtension e;
    e.packet_id = packet_id;
    e.src = src;
    e.dst = dst;
    e.size_flits = size_flits;
    e.cls = cls;
    e.measured = measured;
    e.created_cycle = created_cycle;
    e.injected_cycle = injected_cycle;
    e.delivered_cycle = delivered_cycle;
    e.hops = hops;
    e.window_flits = window_flits;
    return e;
  }
};
static_assert(sizeof(DeliveredRecord) == 48, "four delivered packets in three cache lines");

inline ExternalPacket external_packet(const PacketHeader& p, Cycle at) {
  return {p.packet_id, p.src, p.dst, p.size_flits, p.cls, at};
}
// The same of the packet a tail flit closes.
inline ExternalPacket external_packet(const Flit& tail, Cycle at) {
  return {tail.packet_id, tail.src, tail.dst, tail.packet_flits, tail.cls, at};
}

}  // namespace nwn

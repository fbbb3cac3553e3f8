// A packet as the terminals and network interfaces see it (the TLM
// extension a Terminal hands its NetworkInterface).
#pragma once
#include <cstdint>

#include <tlm>

#include "flit.hpp"

namespace nwn {

struct PacketExtension : tlm::tlm_extension<PacketExtension> {
  std::uint64_t packet_id = 0;
  std::int32_t src = -1, dst = -1;
  std::uint16_t size_flits = 1;
  std::uint8_t cls = 0;
  bool measured = false;
  bool traced = false;
  Cycle created_cycle = 0, injected_cycle = 0, delivered_cycle = 0;
  std::uint32_t hops = 0;  // crossbar traversals of the head flit
  std::uint16_t window_flits = 0;  // delivered: how many of its flits were ejected in the measurement window

  tlm::tlm_extension_base* clone() const override { return new PacketExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const PacketExtension&>(other);
  }
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

}  // namespace nwn

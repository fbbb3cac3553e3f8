// Round-robin arbiter: grants the first requester at or after the priority
// pointer. The pointer moves only when the caller says the grant was used
// (update), which is what iSLIP's pointer rule needs.
#pragma once
#include <cstdint>

#include "bits.hpp"

namespace nwn {

class RoundRobinArbiter {
 public:
  explicit RoundRobinArbiter(int size = 1) : size_(size) {}

  int size() const { return size_; }
  int pointer() const { return pointer_; }

  // Winner among the set bits of `requests` (size() bits), or -1.
  int arbitrate(const std::uint64_t* requests) const {
    return bits::find_cyclic(requests, size_, pointer_);
  }
  // Move priority to one past the winner: the winner becomes lowest priority.
  void update(int winner) { pointer_ = winner + 1 == size_ ? 0 : winner + 1; }
  // update(winner) if `used`, without a branch (whether a grant was used is
  // as good as random; with a select the compiler made one).
  void update_if(bool used, int winner) {
    const int next = winner + 1 == size_ ? 0 : winner + 1;
    pointer_ += (next - pointer_) & -int(used);
  }

 private:
  int size_;
  int pointer_ = 0;
};

}  // namespace nwn

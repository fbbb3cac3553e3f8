// Properties every allocator's grants must have, checked on the RTL's own
// outputs (independently of the C++ model):
//  - a matching: no input and no output granted twice;
//  - no grant without a request;
//  - no starvation: while the request matrix stays the same, no requested
//    pair waits `starvation_bound` cycles or more without its grant.
//
// The bound for the round-robin allocators here is inputs x outputs cycles.
// iSLIP: while output j's grant pointer stays put, j grants the same input k
// every cycle; k accepts some grant every cycle and its accept pointer moves
// strictly towards j, so k accepts j within `outputs` cycles and j's pointer
// moves strictly towards any other requester i. At most inputs-1 such moves,
// then at most `outputs` cycles for i to accept j. The separable allocators
// have the same bound with the roles of the stages exchanged.
#pragma once
#include <string>
#include <vector>

#include "tb/bit_matrix.hpp"

namespace nwn::tb {

class GrantChecker {
 public:
  GrantChecker(int inputs, int outputs, long starvation_bound);

  // Checks one cycle; returns an empty string or the first violation found.
  std::string check(const BitMatrix& req, const BitMatrix& gnt);

 private:
  int inputs_, outputs_;
  long bound_;
  BitMatrix prev_req_;
  std::vector<long> waiting_;     // per pair: cycles requested and not granted
  std::vector<int> out_granted_;  // per output: the input granted this cycle
};

}  // namespace nwn::tb

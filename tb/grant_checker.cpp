#include "tb/grant_checker.hpp"

namespace nwn::tb {

GrantChecker::GrantChecker(int inputs, int outputs, long starvation_bound)
    : inputs_(inputs),
      outputs_(outputs),
      bound_(starvation_bound),
      prev_req_(inputs, outputs),
      waiting_(std::size_t(inputs) * outputs, 0),
      out_granted_(outputs, -1) {}

std::string GrantChecker::check(const BitMatrix& req, const BitMatrix& gnt) {
  for (auto& o : out_granted_) o = -1;
  for (int in = 0; in < inputs_; ++in) {
    int granted = -1;
    for (int out = 0; out < outputs_; ++out) {
      if (!gnt.test(in, out)) continue;
      if (!req.test(in, out))
        return "grant without request: input " + std::to_string(in) + " -> output " + std::to_string(out);
      if (granted >= 0)
        return "input " + std::to_string(in) + " granted twice (outputs " + std::to_string(granted) + " and " +
               std::to_string(out) + ")";
      if (out_granted_[out] >= 0)
        return "output " + std::to_string(out) + " granted twice (inputs " + std::to_string(out_granted_[out]) +
               " and " + std::to_string(in) + ")";
      granted = out;
      out_granted_[out] = in;
    }
  }

  // Starvation counts only across cycles with identical requests.
  const bool same = req == prev_req_;
  prev_req_ = req;
  for (int in = 0; in < inputs_; ++in) {
    for (int out = 0; out < outputs_; ++out) {
      long& w = waiting_[std::size_t(in) * outputs_ + out];
      if (!req.test(in, out) || gnt.test(in, out)) {
        w = 0;
        continue;
      }
      w = same ? w + 1 : 1;  // changed requests start a new stretch
      if (w >= bound_)
        return "starvation: input " + std::to_string(in) + " has requested output " + std::to_string(out) +
               " for " + std::to_string(w) + " cycles of unchanged requests without a grant (bound " +
               std::to_string(bound_) + ")";
    }
  }
  return {};
}

}  // namespace nwn::tb

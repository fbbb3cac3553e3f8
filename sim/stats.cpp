#include "stats.hpp"

#include <cmath>

namespace nwn {

std::uint64_t Histogram::percentile(double q) const {
  if (n_ == 0) return 0;
  const std::uint64_t need = std::uint64_t(std::ceil(q * double(n_)));
  std::uint64_t seen = 0;
  for (std::size_t v = 0; v < counts_.size(); ++v) {
    seen += counts_[v];
    if (seen >= need && seen > 0) return v;
  }
  return max_;
}

}  // namespace nwn

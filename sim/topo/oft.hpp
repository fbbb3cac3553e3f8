// The maximal-leaves basic building block of the two-level OFT (oft.cpp).
#pragma once
#include <vector>

namespace nwn::topo {

// The k-ML3B table (diameter-two paper §2.2.4, Table 2 for k = 4): R_L =
// k(k-1) + 1 rows; row i lists the k level-1 routers j that (0, i) connects
// to. Needs k - 1 a prime power (the paper: a prime); throws
// std::invalid_argument otherwise.
std::vector<std::vector<int>> ml3b_table(int k);

}  // namespace nwn::topo

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/allocator.hpp"
#include "models/arbiter.hpp"
#include "models/rng.hpp"

namespace nwn {
namespace {

TEST(RoundRobinArbiter, NoRequesterWaitsMoreThanNMinusOneGrants) {
  const int n = 7;
  RoundRobinArbiter arb(n);
  std::uint64_t req = (1u << n) - 1;  // everyone always requests
  std::vector<int> waited(n, 0);
  for (int round = 0; round < 100; ++round) {
    int w = arb.arbitrate(&req);
    ASSERT_GE(w, 0);
    arb.update(w);
    for (int i = 0; i < n; ++i) {
      if (i == w) waited[i] = 0;
      else {
        EXPECT_LE(++waited[i], n - 1) << "requester " << i << " starved";
      }
    }
  }
}

TEST(RoundRobinArbiter, PointerMovesOnlyOnUpdate) {
  RoundRobinArbiter arb(4);
  std::uint64_t req = 0b1010;
  EXPECT_EQ(arb.arbitrate(&req), 1);
  EXPECT_EQ(arb.arbitrate(&req), 1);  // no update: same winner
  arb.update(1);
  EXPECT_EQ(arb.arbitrate(&req), 3);
  arb.update(3);
  EXPECT_EQ(arb.arbitrate(&req), 1);  // wraps
  std::uint64_t none = 0;
  EXPECT_EQ(arb.arbitrate(&none), -1);
}

class AllocatorMatching : public ::testing::TestWithParam<std::string> {};

TEST_P(AllocatorMatching, GrantsAreAValidMatchingOfRequests) {
  for (auto [ni, no] : {std::pair{8, 8}, {64, 64}, {256, 256}, {5, 70}, {130, 3}}) {
    auto a = make_allocator(GetParam(), {ni, no, 3});
    Rng rng(42, ni * 1000 + no);
    for (int round = 0; round < 200; ++round) {
      a->clear();
      const double density = (round % 4 + 1) * 0.1;
      for (int i = 0; i < ni; ++i)
        for (int o = 0; o < no; ++o)
          if (rng.uniform() < density / (1 + no / 16)) a->request(i, o);
      a->allocate();
      std::set<int> outs;
      int grants = 0;
      for (int i = 0; i < ni; ++i) {
        int o = a->grant_of_input(i);
        if (o < 0) continue;
        ++grants;
        EXPECT_TRUE(a->requested(i, o)) << "grant without request";
        EXPECT_TRUE(outs.insert(o).second) << "output " << o << " granted twice";
        EXPECT_EQ(a->grant_of_output(o), i);
      }
      // Something requested means something granted (no allocator idles).
      if (a->has_requests()) {
        EXPECT_GT(grants, 0);
      }
    }
  }
}

// VC allocation: every input VC asks for VCs of one output port only. An
// allocator that says it splits by disjoint outputs must give, port by port
// (and a lone requester through allocate_one), the grants and the priority
// state of one round over all requests: two copies, fed the same rounds
// both ways, agree in every round.
TEST_P(AllocatorMatching, SplittingByDisjointOutputGroupsChangesNothing) {
  const int inputs = 48, groups = 6, per_group = 8;  // 6 output ports of 8 VCs
  for (int iterations : {1, 3}) {
    auto whole = make_allocator(GetParam(), {inputs, groups * per_group, iterations});
    auto split = make_allocator(GetParam(), {inputs, groups * per_group, iterations});
    ASSERT_TRUE(split->splits_by_disjoint_outputs());
    Rng rng(9, std::uint64_t(iterations));
    for (int round = 0; round < 500; ++round) {
      std::vector<int> group(inputs, -1);
      std::vector<std::uint64_t> mask(inputs, 0);
      const double density = (round % 5 + 1) * 0.08;
      for (int i = 0; i < inputs; ++i) {
        if (rng.uniform() >= density) continue;
        group[i] = int(rng.below(groups));
        while (!mask[i]) mask[i] = rng.next() & ((std::uint64_t{1} << per_group) - 1);
      }
      whole->clear();
      for (int i = 0; i < inputs; ++i)
        for (int b = 0; b < per_group; ++b)
          if (mask[i] >> b & 1) whole->request(i, group[i] * per_group + b);
      whole->allocate();
      std::vector<int> split_grant(inputs, -1);
      for (int g = 0; g < groups; ++g) {
        std::vector<int> members;
        for (int i = 0; i < inputs; ++i)
          if (group[i] == g) members.push_back(i);
        if (members.size() == 1) {
          split_grant[members[0]] = split->allocate_one(members[0], g * per_group, mask[members[0]]);
          continue;
        }
        split->clear();
        for (int i : members)
          for (int b = 0; b < per_group; ++b)
            if (mask[i] >> b & 1) split->request(i, g * per_group + b);
        split->allocate();
        for (int i : members) split_grant[i] = split->grant_of_input(i);
      }
      for (int i = 0; i < inputs; ++i)
        ASSERT_EQ(whole->grant_of_input(i), split_grant[i]) << "round " << round << " input " << i;
    }
  }
}

// One round through the matrix: input in[i] asks for the outputs base + b
// of the bits b of masks[i] below `width`.
void matrix_round(Allocator& a, const std::vector<int>& in, const std::vector<std::uint64_t>& masks, int base,
                  int width) {
  a.clear();
  for (std::size_t i = 0; i < in.size(); ++i)
    for (int b = 0; b < width; ++b)
      if (masks[i] >> b & 1) a.request(in[i], base + b);
  a.allocate();
}

// allocate_group (a round of up to 64 requesters handed whole, as the
// subswitch's switch allocation and a port's VC allocation do): the grants
// and priority state of the same round through the matrix. Two copies fed
// the same rounds, one through allocate_group and one through the matrix,
// with inputs below and above 64, windows of outputs at any base, and now
// and then a matrix round on both (the group copy's matrix state must still
// be right after group rounds).
TEST_P(AllocatorMatching, AllocateGroupIsTheMatrixRound) {
  for (auto [inputs, outputs] : {std::pair{40, 64}, std::pair{64, 64}, std::pair{200, 130}})
    for (int iterations : {1, 2}) {
      SCOPED_TRACE(std::to_string(inputs) + "x" + std::to_string(outputs) + " it" + std::to_string(iterations));
      auto matrix = make_allocator(GetParam(), {inputs, outputs, iterations});
      auto group = make_allocator(GetParam(), {inputs, outputs, iterations});
      Rng rng(17, std::uint64_t(inputs * 7 + iterations));
      for (int round = 0; round < 600; ++round) {
        const int base = int(rng.below(std::uint32_t(outputs)));
        const int width = std::min(64, outputs - base);
        std::vector<int> in;
        const double density = (round % 4 + 1) * 0.1;
        for (int i = 0; i < inputs && in.size() < 64; ++i)
          if (rng.uniform() < density) in.push_back(i);
        if (in.empty()) in.push_back(int(rng.below(std::uint32_t(inputs))));
        std::vector<std::uint64_t> masks(in.size());
        const std::uint64_t window = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
        for (auto& m : masks) m = rng.next() & rng.next() & window;  // some empty
        matrix_round(*matrix, in, masks, base, width);
        if (round % 7 == 0) {  // the same round through the matrix on the group copy too
          matrix_round(*group, in, masks, base, width);
          for (std::size_t i = 0; i < in.size(); ++i)
            ASSERT_EQ(group->grant_of_input(in[i]), matrix->grant_of_input(in[i])) << "round " << round;
          continue;
        }
        std::vector<int> grants(in.size(), -2);
        group->allocate_group(int(in.size()), in.data(), masks.data(), base, grants.data());
        for (std::size_t i = 0; i < in.size(); ++i)
          ASSERT_EQ(grants[i], matrix->grant_of_input(in[i])) << "round " << round << " input " << in[i];
      }
    }
}

// allocate_group with few requesters (up to 8, anywhere among many
// inputs) asking for outputs within 8 of the base: a port's VC allocation,
// which iSLIP answers with an 8x8 bit transpose. The grants and priority
// state of the same rounds through the matrix, as above.
TEST_P(AllocatorMatching, AllocateGroupOfFewIsTheMatrixRound) {
  for (auto [inputs, outputs] : {std::pair{256, 64}, std::pair{100, 13}})
    for (int iterations : {1, 2, 3}) {
      SCOPED_TRACE(std::to_string(inputs) + "x" + std::to_string(outputs) + " it" + std::to_string(iterations));
      auto matrix = make_allocator(GetParam(), {inputs, outputs, iterations});
      auto group = make_allocator(GetParam(), {inputs, outputs, iterations});
      Rng rng(29, std::uint64_t(inputs * 3 + iterations));
      for (int round = 0; round < 3000; ++round) {
        const int base = int(rng.below(std::uint32_t(outputs)));
        const int width = std::min(8, outputs - base);
        const std::size_t n = 1 + rng.below(8);
        std::vector<int> in;
        while (in.size() < n) {
          const int i = int(rng.below(std::uint32_t(inputs)));
          if (std::find(in.begin(), in.end(), i) == in.end()) in.push_back(i);
        }
        std::sort(in.begin(), in.end());
        std::vector<std::uint64_t> masks(in.size());
        for (auto& m : masks) m = rng.next() & ((std::uint64_t{1} << width) - 1);  // some empty
        matrix_round(*matrix, in, masks, base, width);
        std::vector<int> grants(in.size(), -2);
        const std::uint64_t granted =
            group->allocate_group(int(in.size()), in.data(), masks.data(), base, grants.data());
        for (std::size_t i = 0; i < in.size(); ++i) {
          ASSERT_EQ(grants[i], matrix->grant_of_input(in[i])) << "round " << round << " input " << in[i];
          ASSERT_EQ(granted >> i & 1, std::uint64_t{grants[i] >= 0}) << "round " << round;
        }
      }
    }
}

// allocate_ports (a cycle's VC allocation at output ports of up to 8 VCs,
// a group of requests a port): each port's grants and priority state
// those of its own round through the matrix, on two copies fed the same
// groups, with widths 1 to 8, ports in more than one word, lone requesters
// and groups of up to 8, the entries past a group's count holding junk,
// and iterations 1 and 2 (iSLIP's own path and the default).
TEST_P(AllocatorMatching, AllocatePortsIsAMatrixRoundPerPort) {
  for (int width = 1; width <= 8; ++width)
    for (int iterations : {1, 2}) {
      SCOPED_TRACE("width " + std::to_string(width) + " it" + std::to_string(iterations));
      const int ports = 70, words = 2, inputs = 300;
      auto matrix = make_allocator(GetParam(), {inputs, ports * width, iterations});
      auto by_ports = make_allocator(GetParam(), {inputs, ports * width, iterations});
      std::vector<Allocator::SmallGroup> groups(static_cast<std::size_t>(ports));
      Rng rng(31, std::uint64_t(width * 10 + iterations));
      for (auto& g : groups) {  // junk where no port is asked
        g.cols = rng.next();
        g.count = int(rng.below(9));
        for (int i = 0; i < 8; ++i) g.inputs[i] = int(rng.below(std::uint32_t(inputs)));
      }
      for (int round = 0; round < 600; ++round) {
        std::vector<int> taken(inputs, 0);
        std::uint64_t asked[words] = {}, several[words] = {};
        const double density = (round % 4 + 1) * 0.1;
        for (int p = 0; p < ports; ++p) {
          if (rng.uniform() >= density) continue;
          Allocator::SmallGroup& g = groups[std::size_t(p)];
          // Mostly lone requesters and pairs, as in a router; now and then up to 8.
          g.count = round % 5 == 0 ? 1 + int(rng.below(8)) : 1 + int(rng.below(2)) * int(1 + rng.below(2));
          asked[p / 64] |= std::uint64_t{1} << (p % 64);
          if (g.count > 1) several[p / 64] |= std::uint64_t{1} << (p % 64);
          std::vector<int> in;
          while (int(in.size()) < g.count) {
            const int i = int(rng.below(std::uint32_t(inputs)));
            if (!taken[std::size_t(i)]) {
              taken[std::size_t(i)] = 1;
              in.push_back(i);
            }
          }
          std::sort(in.begin(), in.end());
          g.cols = 0;
          for (int i = 0; i < 8; ++i) {
            if (i < g.count) {
              g.inputs[i] = in[std::size_t(i)];
              do g.masks[i] = rng.next() & ((std::uint64_t{1} << width) - 1);
              while (!g.masks[i]);
              for (int b = 0; b < width; ++b) g.cols |= (g.masks[i] >> b & 1) << (8 * b + i);
            } else {  // junk
              g.inputs[i] = int(rng.below(std::uint32_t(inputs)));
              g.masks[i] = rng.next();
            }
          }
        }
        std::vector<int> want(inputs, -1);
        int requesters = 0;
        for (int p = 0; p < ports; ++p) {
          if (!(asked[p / 64] >> (p % 64) & 1)) continue;
          const Allocator::SmallGroup& g = groups[std::size_t(p)];
          requesters += g.count;
          matrix_round(*matrix, std::vector<int>(g.inputs, g.inputs + g.count),
                       std::vector<std::uint64_t>(g.masks, g.masks + g.count), p * width, width);
          for (int i = 0; i < g.count; ++i) want[std::size_t(g.inputs[i])] = matrix->grant_of_input(g.inputs[i]);
        }
        std::vector<int> gin(std::size_t(requesters), -2), gout(std::size_t(requesters), -2);
        const int k = by_ports->allocate_ports(words, asked, several, groups.data(), width, gin.data(), gout.data());
        ASSERT_LE(k, requesters);
        std::vector<int> got(inputs, -1);
        for (int i = 0; i < k; ++i) {
          ASSERT_EQ(got[std::size_t(gin[std::size_t(i)])], -1) << "round " << round << ": input granted twice";
          got[std::size_t(gin[std::size_t(i)])] = gout[std::size_t(i)];
        }
        for (int i = 0; i < inputs; ++i)
          ASSERT_EQ(got[std::size_t(i)], want[std::size_t(i)]) << "round " << round << " input " << i;
      }
    }
}

// allocate_columns (a round given by its columns, as the subswitch's
// switch allocation of a plain switch builds it): the grants and priority
// state of the same round through the matrix, on two copies fed the same
// rounds, with some rounds through the matrix on both.
TEST_P(AllocatorMatching, AllocateColumnsIsTheMatrixRound) {
  for (auto [inputs, outputs] : {std::pair{40, 64}, std::pair{64, 64}, std::pair{64, 7}})
    for (int iterations : {1, 2}) {
      SCOPED_TRACE(std::to_string(inputs) + "x" + std::to_string(outputs) + " it" + std::to_string(iterations));
      auto matrix = make_allocator(GetParam(), {inputs, outputs, iterations});
      auto cols = make_allocator(GetParam(), {inputs, outputs, iterations});
      Rng rng(23, std::uint64_t(inputs * 5 + iterations));
      for (int round = 0; round < 600; ++round) {
        std::vector<std::uint64_t> col(64, 0);
        std::uint64_t in_bits = 0, out_bits = 0;
        const double density = (round % 4 + 1) * 0.05;
        matrix->clear();
        for (int i = 0; i < inputs; ++i)
          for (int o = 0; o < outputs; ++o)
            if (rng.uniform() < density) {
              matrix->request(i, o);
              col[std::size_t(o)] |= std::uint64_t{1} << i;
              in_bits |= std::uint64_t{1} << i;
              out_bits |= std::uint64_t{1} << o;
            }
        if (!in_bits) continue;
        matrix->allocate();
        if (round % 7 == 0) {  // the same round through the matrix on the columns copy too
          cols->clear();
          for (int i = 0; i < inputs; ++i)
            for (int o = 0; o < outputs; ++o)
              if (col[std::size_t(o)] >> i & 1) cols->request(i, o);
          cols->allocate();
          for (int i = 0; i < inputs; ++i) {
            if (in_bits >> i & 1) {
              ASSERT_EQ(cols->grant_of_input(i), matrix->grant_of_input(i)) << "round " << round;
            }
          }
          continue;
        }
        for (int o = 0; o < outputs; ++o)  // allocate_columns reads the columns of asked outputs only
          if (!(out_bits >> o & 1)) col[std::size_t(o)] = rng.next();
        std::vector<int> grants(64, -2);
        const std::uint64_t granted = cols->allocate_columns(in_bits, out_bits, col.data(), grants.data());
        for (int i = 0; i < inputs; ++i) {
          const int want = in_bits >> i & 1 ? matrix->grant_of_input(i) : -2;  // -2: did not ask, not written
          if (want == -1) {  // asked, not granted: -1 or not written
            ASSERT_TRUE(grants[std::size_t(i)] == -1 || grants[std::size_t(i)] == -2) << "round " << round << " input " << i;
          } else {
            ASSERT_EQ(grants[std::size_t(i)], want) << "round " << round << " input " << i;
          }
          ASSERT_EQ(bool(granted >> i & 1), want >= 0) << "round " << round << " input " << i;  // the granted mask
        }
      }
    }
}

INSTANTIATE_TEST_SUITE_P(All, AllocatorMatching, ::testing::Values("islip", "input_first", "output_first"));

TEST(Islip, PointersMoveOnlyOnAcceptedGrants) {
  // Inputs 0 and 1 both request output 0 only. Output 0 grants input 0
  // (pointer at 0), input 0 accepts: output 0's pointer moves to 1.
  auto a = make_allocator("islip", {2, 2, 1});
  a->request(0, 0);
  a->request(1, 0);
  a->allocate();
  EXPECT_EQ(a->grant_of_input(0), 0);
  EXPECT_EQ(a->grant_of_input(1), -1);
  a->clear();
  a->request(0, 0);
  a->request(1, 0);
  a->allocate();
  EXPECT_EQ(a->grant_of_input(1), 0) << "pointer of output 0 should have moved past input 0";
  // A grant that is refused leaves the output's pointer alone. Inputs 0
  // and 1 ask for outputs 0 and 1: both outputs grant input 0 (pointers at
  // 0), input 0 accepts output 0 and refuses output 1. Output 1's pointer
  // stays on input 0, so in the next round output 0 (moved to 1) grants
  // input 1 and output 1 grants input 0: both matched. (Had output 1's
  // pointer moved, both would grant input 1 and input 0 would go empty.)
  auto b = make_allocator("islip", {2, 2, 1});
  for (int round = 0; round < 2; ++round) {
    b->clear();
    for (int i : {0, 1})
      for (int o : {0, 1}) b->request(i, o);
    b->allocate();
    if (round == 0) {
      ASSERT_EQ(b->grant_of_input(0), 0);
      ASSERT_EQ(b->grant_of_input(1), -1) << "one iteration: input 1 was offered nothing";
    }
  }
  EXPECT_EQ(b->grant_of_input(0), 1) << "output 1's refused grant moved its pointer";
  EXPECT_EQ(b->grant_of_input(1), 0);
}

TEST(Islip, MoreIterationsNeverMatchFewer) {
  Rng rng(7, 7);
  for (int round = 0; round < 300; ++round) {
    auto one = make_allocator("islip", {16, 16, 1});
    auto four = make_allocator("islip", {16, 16, 4});
    for (int i = 0; i < 16; ++i)
      for (int o = 0; o < 16; ++o)
        if (rng.uniform() < 0.3) {
          one->request(i, o);
          four->request(i, o);
        }
    one->allocate();
    four->allocate();
    int g1 = 0, g4 = 0;
    for (int i = 0; i < 16; ++i) {
      g1 += one->grant_of_input(i) >= 0;
      g4 += four->grant_of_input(i) >= 0;
    }
    EXPECT_GE(g4, g1);
  }
}

TEST(Allocator, UnknownNameIsAnError) { EXPECT_THROW(make_allocator("nope", {2, 2, 1}), std::invalid_argument); }

}  // namespace
}  // namespace nwn

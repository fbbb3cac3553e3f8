// Request or grant matrix of an allocator, laid out as the RTL's vectors:
// row-major, bit in*M + out, packed into 64-bit words. Sized once; nothing
// allocates per cycle.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/bits.hpp"

namespace nwn::tb {

class BitMatrix {
 public:
  BitMatrix(int inputs, int outputs)
      : inputs_(inputs), outputs_(outputs), words_(std::size_t(bits::words_for(inputs * outputs)), 0) {}

  int inputs() const { return inputs_; }
  int outputs() const { return outputs_; }
  int bits() const { return inputs_ * outputs_; }
  std::uint64_t* data() { return words_.data(); }
  const std::uint64_t* data() const { return words_.data(); }
  int words() const { return int(words_.size()); }

  void clear() {
    for (auto& w : words_) w = 0;
  }
  void set(int in, int out) { bits::set(words_.data(), in * outputs_ + out); }
  bool test(int in, int out) const { return bits::test(words_.data(), in * outputs_ + out); }
  bool operator==(const BitMatrix& o) const { return words_ == o.words_; }
  bool operator!=(const BitMatrix& o) const { return !(*this == o); }

  // The output granted to (or first requested by) `in`, or -1.
  int first_in_row(int in) const {
    for (int out = 0; out < outputs_; ++out)
      if (test(in, out)) return out;
    return -1;
  }
  // One line per input: its row as a bit string, output 0 first.
  std::string rows() const {
    std::string s;
    for (int in = 0; in < inputs_; ++in) {
      s += "  in " + std::to_string(in) + (in < 10 ? " : " : ": ");
      for (int out = 0; out < outputs_; ++out) s += test(in, out) ? '1' : '.';
      s += '\n';
    }
    return s;
  }

 private:
  int inputs_, outputs_;
  std::vector<std::uint64_t> words_;
};

}  // namespace nwn::tb

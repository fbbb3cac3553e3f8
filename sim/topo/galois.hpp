// The finite field GF(q), q = p^n, for the constructions that need one (Slim
// Fly's MMS graphs, OFT's mutually orthogonal Latin squares).
//
// An element is an integer 0 .. q-1 whose base-p digits are the coefficients
// of a polynomial of degree < n (digit i = coefficient of x^i). Addition is
// digit-wise mod p; multiplication is polynomial multiplication modulo the
// first monic irreducible polynomial of degree n in the order of
// irreducible() (found by trial division). For n = 1 this is arithmetic mod p.
#pragma once
#include <cstdint>
#include <vector>

namespace nwn::topo {

// p and n with q = p^n, or {0, 0} when q is not a prime power (q >= 2).
struct PrimePower {
  int p = 0, n = 0;
  bool valid() const { return p != 0; }
};
PrimePower prime_power(int q);

class GaloisField {
 public:
  explicit GaloisField(int q);  // throws std::invalid_argument if q is not a prime power

  int order() const { return q_; }
  int characteristic() const { return p_; }
  int add(int a, int b) const { return add_[std::size_t(a) * q_ + b]; }
  int neg(int a) const { return neg_[a]; }
  int sub(int a, int b) const { return add(a, neg(b)); }
  int mul(int a, int b) const { return mul_[std::size_t(a) * q_ + b]; }
  int pow(int a, std::int64_t e) const;
  // A generator of the multiplicative group: the smallest element of order q - 1.
  int primitive() const { return primitive_; }
  // Coefficients (low degree first, monic) of the modulus; {0, 1} for n = 1.
  const std::vector<int>& modulus() const { return modulus_; }

 private:
  int q_, p_, n_;
  std::vector<int> modulus_;
  std::vector<int> add_, mul_, neg_;
  int primitive_ = 0;
};

// The first monic irreducible polynomial of degree n over GF(p), counting
// polynomials by their coefficient digits as a base-p number.
std::vector<int> irreducible(int p, int n);

}  // namespace nwn::topo

#include "galois.hpp"

#include <stdexcept>
#include <string>

namespace nwn::topo {
namespace {

using Poly = std::vector<int>;  // coefficients, low degree first

void trim(Poly& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}

// Remainder of a divided by the monic polynomial m, over GF(p).
Poly poly_mod(Poly a, const Poly& m, int p) {
  trim(a);
  const int dm = int(m.size()) - 1;
  while (int(a.size()) - 1 >= dm) {
    const int shift = int(a.size()) - 1 - dm;
    const int c = a.back();
    for (int i = 0; i <= dm; ++i) a[i + shift] = ((a[i + shift] - c * m[i]) % p + p) % p;
    trim(a);
  }
  return a;
}

Poly poly_mul(const Poly& a, const Poly& b, int p) {
  if (a.empty() || b.empty()) return {};
  Poly r(a.size() + b.size() - 1, 0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) r[i + j] = (r[i + j] + a[i] * b[j]) % p;
  trim(r);
  return r;
}

Poly digits(int x, int p, int n) {
  Poly a(n);
  for (int i = 0; i < n; ++i, x /= p) a[i] = x % p;
  trim(a);
  return a;
}

int value(const Poly& a, int p) {
  int x = 0;
  for (int i = int(a.size()) - 1; i >= 0; --i) x = x * p + a[i];
  return x;
}

// The monic polynomial of degree d whose lower coefficients are the digits of i.
Poly monic(int i, int p, int d) {
  Poly a(d + 1, 0);
  for (int k = 0; k < d; ++k, i /= p) a[k] = i % p;
  a[d] = 1;
  return a;
}

int ipow(int b, int e) {
  int r = 1;
  while (e-- > 0) r *= b;
  return r;
}

}  // namespace

PrimePower prime_power(int q) {
  if (q < 2) return {};
  int p = 2;
  while (p * p <= q && q % p != 0) ++p;
  if (q % p != 0) p = q;  // q is prime
  int n = 0, x = q;
  while (x % p == 0) {
    x /= p;
    ++n;
  }
  if (x != 1) return {};
  return {p, n};
}

std::vector<int> irreducible(int p, int n) {
  if (n == 1) return {0, 1};
  for (int i = 0; i < ipow(p, n); ++i) {
    const Poly f = monic(i, p, n);
    if (f[0] == 0) continue;  // divisible by x
    bool reducible = false;
    for (int d = 1; d <= n / 2 && !reducible; ++d)
      for (int j = 0; j < ipow(p, d) && !reducible; ++j) reducible = poly_mod(f, monic(j, p, d), p).empty();
    if (!reducible) return f;
  }
  throw std::logic_error("no irreducible polynomial found");  // there always is one
}

GaloisField::GaloisField(int q) : q_(q) {
  const PrimePower pp = prime_power(q);
  if (!pp.valid()) throw std::invalid_argument(std::to_string(q) + " is not a prime power");
  p_ = pp.p;
  n_ = pp.n;
  modulus_ = irreducible(p_, n_);
  add_.resize(std::size_t(q) * q);
  mul_.resize(std::size_t(q) * q);
  neg_.resize(q);
  for (int a = 0; a < q; ++a) {
    const Poly pa = digits(a, p_, n_);
    for (int b = 0; b < q; ++b) {
      const Poly pb = digits(b, p_, n_);
      Poly s(n_, 0);
      for (int i = 0; i < n_; ++i)
        s[i] = ((i < int(pa.size()) ? pa[i] : 0) + (i < int(pb.size()) ? pb[i] : 0)) % p_;
      trim(s);
      add_[std::size_t(a) * q + b] = value(s, p_);
      mul_[std::size_t(a) * q + b] = value(poly_mod(poly_mul(pa, pb, p_), modulus_, p_), p_);
    }
  }
  for (int a = 0; a < q; ++a)
    for (int b = 0; b < q; ++b)
      if (add(a, b) == 0) neg_[a] = b;
  // Primitive element: g^((q-1)/r) != 1 for every prime r dividing q - 1.
  std::vector<int> primes;
  for (int x = q - 1, r = 2; x > 1; ++r)
    if (x % r == 0) {
      primes.push_back(r);
      while (x % r == 0) x /= r;
    }
  for (int g = 1; g < q && primitive_ == 0; ++g) {
    bool ok = true;
    for (int r : primes) ok = ok && pow(g, (q - 1) / r) != 1;
    if (ok) primitive_ = g;
  }
  if (q == 2) primitive_ = 1;
}

int GaloisField::pow(int a, std::int64_t e) const {
  int r = 1;
  while (e > 0) {
    if (e & 1) r = mul(r, a);
    a = mul(a, a);
    e >>= 1;
  }
  return r;
}

}  // namespace nwn::topo

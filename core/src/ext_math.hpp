// exp, erf and erfc in extended precision for the double references (formulas.hpp, fit/targets.cpp).
// On the desktop (x86-64, glibc) long double is x87's 64-bit significand and glibc's expl/erfl/erfcl are good
// to a few units of 2^-63. In WebAssembly (emscripten) long double is IEEE binary128, whose + − × ÷ are
// correctly rounded in software, but musl's expl/erfl/erfcl there are the double functions: the references
// would silently lose the ~11 bits beyond double they are rounded from. There the functions below evaluate in
// binary128 arithmetic itself:
//   exp(y)   y = k·ln2 + r (ln2 in three pieces), exp(r/256) by its Taylor series to degree 12, squared 8
//            times (relative error ≈ 2^-104), times 2^k;
//   erf(u)   u < 3: 2/√π·exp(−u²)·Σ 2^n u^(2n+1)/(2n+1)!!, positive terms summed to 2^-100 of the sum
//            (≤ 62 of them); erfc = 1 − erf loses at most 16 bits there (erfc(3) ≈ 2.2e-5);
//   erfc(u)  u ≥ 3: exp(−u²)/√π over Laplace's continued fraction u + (1/2)/(u + 1/(u + (3/2)/(u + …))),
//            from depth 12 + ⌈200/u⌉ (measured with mpmath at 300 bits: 2^-84 needs 65 at u = 3, 43 at
//            u = 4, 26 at u = 6, 9 at u = 28).
// They aim at 2^-80 relative, ~27 bits beyond double where the references need ~11, and stop there:
// binary128 is software arithmetic in wasm, each operation costing ~100 times a double one.
// The templates take any type with IEEE arithmetic; tests/core/ext_math_test.cpp runs them in __float128
// against libquadmath on the desktop.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace gelu::ext {

/// x·2^k by exact multiplications (no overflow or underflow for the exponents here: |k| < 16000).
template <class T>
T scale2(T x, int k) {
  const T up = T(0x1p60), down = T(0x1p-60);
  while (k >= 60) x *= up, k -= 60;
  while (k <= -60) x *= down, k += 60;
  return x * T(std::ldexp(1.0, k));
}

/// exp(y) for |y| <= 11000 (beyond: 0 or infinity as the type's range allows).
template <class T>
T exp_t(T y) {
  if (y != y) return y;
  if (y < T(-11000)) return T(0);
  if (y > T(11000)) return T(1) / T(0);
  const T ln2_hi = T(0x1.62e42fefa39efp-1);  // 53 bits: k·ln2_hi is exact for |k| < 2^(p−53)
  const T ln2_lo = T(0x1.abc9e3b39803fp-56) + T(0x1.7b57a079a1934p-111) + T(-0x1.ace93a4ebe5d1p-165);
  const int k = static_cast<int>(std::lround(static_cast<double>(y) * 0x1.71547652b82fep+0));
  const T r = (y - T(k) * ln2_hi) - T(k) * ln2_lo;  // |r| <= ~0.35
  const T s = r * T(0x1p-8);
  T p = T(1);
  // 1 + s(1 + s/2(1 + s/3(…))) to degree 12: |s| < 2^-9, so the next term is below 2^-130.
  for (int n = 12; n >= 1; --n) p = T(1) + s * p / T(n);
  for (int i = 0; i < 8; ++i) p *= p;
  return scale2(p, k);
}

template <class T>
T inv_sqrt_pi() {
  return T(0x1.20dd750429b6dp-1) + T(0x1.1ae3a914fed80p-57) + T(-0x1.3cbbebf65f145p-112);
}

/// erf(u) by its series, for 0 <= u < 3.
template <class T>
T erf_series(T u) {
  const T two_u2 = T(2) * u * u;
  T term = u, sum = u;
  for (int n = 1; n < 200; ++n) {
    term *= two_u2 / T(2 * n + 1);
    sum += term;
    if (term < sum * T(0x1p-100)) break;
  }
  return T(2) * inv_sqrt_pi<T>() * exp_t(-(u * u)) * sum;
}

/// erfc(u) by the continued fraction, for u >= 3.
template <class T>
T erfc_fraction(T u) {
  const int depth = 12 + static_cast<int>(std::ceil(200.0 / static_cast<double>(u)));
  T K = T(0);
  for (int k = depth; k >= 1; --k) K = (T(k) / T(2)) / (u + K);
  return exp_t(-(u * u)) * inv_sqrt_pi<T>() / (u + K);
}

template <class T>
T erfc_t(T u) {
  if (u != u) return u;
  if (u < T(0)) return T(2) - erfc_t(-u);
  if (u < T(3)) return T(1) - erf_series(u);
  if (u > T(110)) return T(0);  // below binary128's smallest subnormal
  return erfc_fraction(u);
}

template <class T>
T erf_t(T u) {
  if (u != u) return u;
  if (u < T(0)) return -erf_t(-u);
  if (u < T(3)) return erf_series(u);
  return T(1) - erfc_fraction(u);
}

// The long double functions the references call.
#if defined(__EMSCRIPTEN__)
inline long double expl_(long double y) {
  return exp_t(y);
}
inline long double erfcl_(long double u) {
  return erfc_t(u);
}
inline long double erfl_(long double u) {
  return erf_t(u);
}
#else
inline long double expl_(long double y) {
  return std::exp(y);
}
inline long double erfcl_(long double u) {
  return std::erfc(u);
}
inline long double erfl_(long double u) {
  return std::erf(u);
}
#endif

}  // namespace gelu::ext

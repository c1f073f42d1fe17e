// exp, erf and erfc in extended precision for the double references (formulas.hpp, fit/targets.cpp).
// On the desktop (x86-64, glibc) long double is x87's 64-bit significand and glibc's expl/erfl/erfcl are good
// to a few units of 2^-63. In WebAssembly (emscripten) long double is IEEE binary128, but musl's
// expl/erfl/erfcl there are the double functions: the references would silently lose the ~11 bits beyond
// double they are rounded from. There the functions below evaluate the series themselves:
//   exp(y)   y = k·ln2 + r (ln2 in three pieces), exp(r/256) by its Taylor series to degree 12, squared 8
//            times (relative error ≈ 2^-104 in binary128, 2^-94 in double-double), times 2^k; below
//            |r| = 2^-9 the series of exp(r) itself, to the terms above 2^-130;
//   erf(u)   u < 3: 2/√π·exp(−u²)·Σ 2^n u^(2n+1)/(2n+1)!!, positive terms summed to 2^-100 of the sum
//            (≤ 62 of them); erfc = 1 − erf loses at most 16 bits there (erfc(3) ≈ 2.2e-5);
//   erfc(u)  u ≥ 3: exp(−u²)/√π over Laplace's continued fraction u + (1/2)/(u + 1/(u + (3/2)/(u + …))),
//            from depth 12 + ⌈200/u⌉ (measured with mpmath at 300 bits: 2^-84 needs 65 at u = 3, 43 at
//            u = 4, 26 at u = 6, 9 at u = 28).
// They aim at 2^-80 relative, ~27 bits beyond double where the references need ~11, and stop there.
// The templates take any type with IEEE arithmetic; tests/core/ext_math_test.cpp runs them in __float128
// against libquadmath on the desktop, and in double-double (double_double.hpp). WebAssembly runs them in
// double-double: binary128's + − × ÷ are software there, ~100 double operations each, where a double-double
// operation is ~20 (the Curves panel's start-up, its search for GELU's minimum and inflection points over
// ~10^5 points, took 1 s of the page's first 2 s in binary128). A double-double has double's exponent range,
// so the exponential is kept as a mantissa and a power of two (exp_parts) and scaled in the wider type last.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "double_double.hpp"

namespace gelu::ext {

/// x·2^k by exact multiplications (no overflow or underflow for the exponents here: |k| < 16000).
template <class T>
T scale2(T x, int k) {
  const T up = T(0x1p60), down = T(0x1p-60);
  while (k >= 60) x *= up, k -= 60;
  while (k <= -60) x *= down, k += 60;
  return x * T(std::ldexp(1.0, k));
}

/// A value m·2^k: an exponential beyond the range of the type that computes m.
template <class T>
struct Scaled {
  T m;
  int k;
};

/// exp(y) = m·2^k with m in [0.7, 1.5], for |y| <= 11000.
template <class T>
Scaled<T> exp_parts(T y) {
  const T ln2_hi = T(0x1.62e42fefa39efp-1);  // 53 bits: k·ln2_hi is exact for |k| < 2^(p−53)
  const T ln2_lo = T(0x1.abc9e3b39803fp-56) + T(0x1.7b57a079a1934p-111) + T(-0x1.ace93a4ebe5d1p-165);
  const int k = static_cast<int>(std::lround(static_cast<double>(y) * 0x1.71547652b82fep+0));
  const T r = (y - T(k) * ln2_hi) - T(k) * ln2_lo;  // |r| <= ~0.35
  // exp(r) = exp(r/256)^256; an r below 2^-9 (tiny arguments: GELU's references near 0) takes the series
  // directly.
  const bool small = std::fabs(static_cast<double>(r)) < 0x1p-9;
  const T s = small ? r : r * T(0x1p-8);
  // 1 + s(1 + s/2(1 + s/3(…))) to the degree whose next term s^(n+1)/(n+1)! is below 2^-130: at most 12,
  // as |s| < 2^-9; fewer for a smaller s (none for s = 0).
  int degree = 12;
  double term = 1;
  for (int n = 1; n <= 12; ++n) {
    term *= std::fabs(static_cast<double>(s)) / n;
    if (term < 0x1p-130) {
      degree = n - 1;
      break;
    }
  }
  T p = T(1);
  for (int n = degree; n >= 1; --n) p = T(1) + s * p / T(n);
  if (!small)
    for (int i = 0; i < 8; ++i) p *= p;
  return {p, k};
}

/// exp(y) for |y| <= 11000 (beyond: 0 or infinity as the type's range allows).
template <class T>
T exp_t(T y) {
  if (y != y) return y;
  if (y < T(-11000)) return T(0);
  if (y > T(11000)) return T(1) / T(0);
  const Scaled<T> e = exp_parts(y);
  return scale2(e.m, e.k);
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

/// erfc(u) = m·2^k by the continued fraction, for u >= 3.
template <class T>
Scaled<T> erfc_fraction_parts(T u) {
  const int depth = 12 + static_cast<int>(std::ceil(200.0 / static_cast<double>(u)));
  // From the bottom up, K = (k/2)/(u + K) kept as the fraction N/D (N ← (k/2)·D, D ← u·D + N): one division
  // at the end in place of one a level. Every term is positive (no cancellation), and D grows by about u a
  // level, to at most 3^79 ≈ 2^126 (u = 3).
  T N = T(0), D = T(1);
  for (int k = depth; k >= 1; --k) {
    const T n = T(0.5 * k) * D;
    D = u * D + N;
    N = n;
  }
  const Scaled<T> e = exp_parts(-(u * u));
  return {e.m * inv_sqrt_pi<T>() * D / (u * D + N), e.k};
}

template <class T>
T erfc_fraction(T u) {
  const Scaled<T> e = erfc_fraction_parts(u);
  return scale2(e.m, e.k);
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

/// exp, erfc and erf of a wide type W (long double, __float128) computed in double-double and scaled in W:
/// the same digits to ~2^-100 (exp) and 2^-80 (erf, erfc) as W's own arithmetic would give, in W's range.
template <class W>
W exp_dd(W y) {
  if (y != y) return y;
  if (y < W(-11000)) return W(0);
  if (y > W(11000)) return W(1) / W(0);
  const Scaled<DoubleDouble> e = exp_parts(DoubleDouble::from(y));
  return scale2(e.m.template to<W>(), e.k);
}
template <class W>
W erfc_dd(W u) {
  if (u != u) return u;
  if (u < W(3) || u > W(110)) return erfc_t(DoubleDouble::from(u)).template to<W>();  // 0 beyond 110
  const Scaled<DoubleDouble> e = erfc_fraction_parts(DoubleDouble::from(u));
  return scale2(e.m.template to<W>(), e.k);
}
template <class W>
W erf_dd(W u) {
  if (u != u) return u;
  return erf_t(DoubleDouble::from(u)).template to<W>();
}

// The long double functions the references call.
#if defined(__EMSCRIPTEN__)
inline long double expl_(long double y) {
  return exp_dd(y);
}
inline long double erfcl_(long double u) {
  return erfc_dd(u);
}
inline long double erfl_(long double u) {
  return erf_dd(u);
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

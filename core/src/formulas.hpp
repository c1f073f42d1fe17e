// [SECTION] The C++ source of truth for every formula in the registry (double precision).
//
// Every other implementation (the float paths, the vectorized GELU kernel, the GLSL twins in
// shaders/activations.glsl, the FFN's activations) is tested against these functions.
//
// Conventions: each function handles NaN (propagates), +-inf (returns the limit) and never produces
// NaN or inf from a finite input. Tails whose value is exp-dominated carry the exponent's argument in
// double-double, because exp(-z) turns an absolute error e in z into a relative error e in the result.
//
// Index of this file:
//   [SECTION] Double-double helpers
//   [SECTION] The normal distribution
//   [SECTION] Subnormal tails
//   [SECTION] GELU, exact
//   [SECTION] Logistic sigmoid, stable on both sides
//   [SECTION] x * sigma
//   [SECTION] GELU, tanh approximation
//   [SECTION] ReLU family
//   [SECTION] Softplus
//   [SECTION] Mish
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ext_math.hpp"
#include "gelu/activation.hpp"

namespace gelu::formulas {

// [SECTION] Double-double helpers (error-free transforms; need a correctly rounded std::fma, or in
// WebAssembly Dekker's product).

struct DD {
  double hi, lo;
};
inline DD two_prod(double a, double b) {
  const double p = a * b;
#if defined(__EMSCRIPTEN__)
  // WebAssembly has no FMA: std::fma is musl's software one there (~50 double operations). Dekker's product
  // is as exact wherever Veltkamp's split cannot overflow (|a|, |b| < 2^995) and its error term is a double.
  if (std::fabs(a) < 0x1p995 && std::fabs(b) < 0x1p995 && std::fabs(p) > 0x1p-969) {
    auto split = [](double v, double& h, double& l) {
      const double t = 134217729.0 * v;  // 2^27 + 1
      h = t - (t - v);
      l = v - h;
    };
    double ah, al, bh, bl;
    split(a, ah, al);
    split(b, bh, bl);
    return {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
  }
#endif
  return {p, std::fma(a, b, -p)};
}
inline DD two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
inline DD dd_mul(DD a, DD b) {
  DD p = two_prod(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return two_sum(p.hi, p.lo);
}
inline DD dd_mul(DD a, double b) {
  return dd_mul(a, DD{b, 0.0});
}
inline DD dd_add(DD a, DD b) {
  DD s = two_sum(a.hi, b.hi);
  s.lo += a.lo + b.lo;
  return two_sum(s.hi, s.lo);
}

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr DD kInvSqrt2 = {0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55};
inline constexpr DD kSqrt2OverPi = {0x1.9884533d43651p-1, -0x1.cbc0d30ebfd15p-55};
inline constexpr double kInvSqrt2Pi = 0x1.9884533d43651p-2;
inline constexpr double kTwoOverSqrtPi = 0x1.20dd750429b6dp+0;

/// exp(-(z.hi + z.lo)) with the low part applied as a first-order correction (|z.lo| <= ulp(z.hi)).
inline double exp_neg(DD z) {
  return std::exp(-z.hi) * (1.0 - z.lo);
}

// [SECTION] The normal distribution.

/// phi(x) = exp(-x^2/2)/sqrt(2 pi), with x^2 carried exactly.
inline double normal_pdf(double x) {
  if (std::isinf(x)) return 0.0;
  const DD x2 = two_prod(x, x);
  return kInvSqrt2Pi * exp_neg({0.5 * x2.hi, 0.5 * x2.lo});
}

/// Q(t) = Phi(-t) = erfc(t/sqrt 2)/2, relative accuracy ~ that of std::erfc for all t.
/// The argument t/sqrt2 is carried in double-double and its rounding error du is applied through
/// d/du erfc(u) = -2/sqrt(pi) exp(-u^2): without this the tail loses ~u^2 ULP.
inline double normal_upper_tail(double t) {
  const DD u = two_prod(t, kInvSqrt2.hi);
  const double du = u.lo + t * kInvSqrt2.lo;
  const double e = std::erfc(u.hi);
  if (e == 0.0) return 0.0;
  return 0.5 * (e - du * kTwoOverSqrtPi * std::exp(-u.hi * u.hi));
}

/// Phi(x), accurate in relative terms on both tails.
inline double normal_cdf(double x) {
  if (std::isnan(x)) return x;
  return x < 0 ? normal_upper_tail(-x) : 1.0 - normal_upper_tail(x);
}

// [SECTION] Subnormal tails.
// Below x = -37, Q(-x) is subnormal: std::erfc returns it with only a few significant bits, and
// multiplying by |x| > 1 would scale that error by |x| (25 ULP at x = -38.4). Likewise x * exp(z)
// with exp(z) subnormal. Forming the whole product as one exp() rounds once into the subnormal grid.

inline constexpr double kLnSqrt2Pi = 0x1.d67f1c864beb5p-1;

/// Normal tail: gelu_tail = true gives |x| Q(|x|) = phi(t) S(t), t = |x| > 37, with the asymptotic Mills
/// series S(t) = sum_k (-1)^k (2k-1)!! / t^(2k) (alternating: error below the first omitted term), z unused.
/// gelu_tail = false gives |x| exp(z) for z.hi < -700 (z in double-double).
inline double tiny_x_times_exp(double x, DD z, bool gelu_tail) {
  const double t = std::fabs(x);
  if (gelu_tail) {
    const double r = 1.0 / (t * t);
    double S = 1.0;  // 1 - r(1 - 3r(1 - 5r(...))), terms through 17!! r^9 (the next is < 1e-21 at t = 37)
    for (int k = 17; k >= 1; k -= 2) S = 1.0 - k * r * S;
    const DD t2 = two_prod(t, t);
    const DD arg = dd_add({0.5 * t2.hi, 0.5 * t2.lo}, {kLnSqrt2Pi - std::log(S), 0.0});
    return exp_neg(arg);
  }
  return exp_neg(dd_add({-z.hi, -z.lo}, {-std::log(t), 0.0}));
}

// [SECTION] GELU, exact: x * Phi(x).

/// Φ(−t) for t >= 0 in extended precision: x87's 64-bit significand on the desktop, where glibc's erfcl is
/// good to a few units of 2^-63 and t/√2 is carried to 2^-64, so the value keeps ~11 bits beyond double and a
/// double result computed from it rounds once; binary128 in WebAssembly, through ext_math.hpp (musl's erfcl
/// there is the double erfc). (With double erfc alone, gelu's negative side reached 3 ULP at x = −7.6.)
inline long double normal_upper_tail_ld(double t) {
  const long double u = static_cast<long double>(t) * 0.707106781186547524400844362104849039L;
  return 0.5L * ext::erfcl_(u);
}

/// GELU on the negative side in double arithmetic alone: x·Q(−x) with normal_upper_tail, for −37 <= x < 0
/// (beyond, Q is subnormal). Its relative error is a few ULP of double (3 at x = −7.6, above), far inside
/// kGeluFastRelError: a value of a narrower format whose rounding cell holds the whole interval
/// d·(1 ± kGeluFastRelError) is the correctly rounded one, without the x87 path (registry.cpp).
inline constexpr double kGeluFastRelError = 0x1p-40;
inline double gelu_negative_fast(double x) {
  return x * normal_upper_tail(-x);
}

/// GELU from one double erfc, for |x| <= 20 (x != 0): x·Q(|x|) below 0, x − x·Q(x) above, with
/// Q(t) = erfc(t/√2)/2. Its relative error is below 2^-43, inside kGeluFastRelError: t/√2 carries a relative
/// error of 2^-52, which moves erfc by (2u + 1.13)·u·2^-52 ≤ 2^-43.3 of itself at u = 20/√2; glibc's erfc is
/// within 5 ULP (2^-49.7); the product and the difference (x·Q(x) ≤ the result above 0) add 2^-53. For
/// eval_bounded (registry.cpp): a rounding that takes both ends of d·(1 ± kGeluFastRelError) to one value
/// takes GELU(x) there.
inline constexpr double kGeluErfcFastMax = 20.0;
/// c ? a : b by bit masks: no branch on c (on random signs a branch mispredicts half the time).
inline double select_bits(bool c, double a, double b) {
  const std::uint64_t m = std::uint64_t{0} - static_cast<std::uint64_t>(c);
  std::uint64_t ua, ub;  // memcpy: emscripten 3.1.6's libc++ has no std::bit_cast
  std::memcpy(&ua, &a, sizeof a);
  std::memcpy(&ub, &b, sizeof b);
  const std::uint64_t u = (ua & m) | (ub & ~m);
  double out;
  std::memcpy(&out, &u, sizeof out);
  return out;
}
inline double gelu_erfc_fast(double x) {
  const double q = 0.5 * std::erfc(std::fabs(x) * 0.70710678118654752440);
  const double xq = x * q;
  return select_bits(x < 0, xq, x - xq);
}

inline double gelu(double x) {
  if (std::isnan(x)) return x;
  if (x > 40.0) return x;      // Q(40) underflows; also +inf -> +inf
  if (x < -40.0) return -0.0;  // the limit from below; also -inf -> -0
  if (x == 0) return x;        // keeps the sign: gelu(-0) = -0 * 1/2 = -0
  if (x < 0) return static_cast<double>(static_cast<long double>(x) * normal_upper_tail_ld(-x));
  // x - x*Q(x): for x near 0 the difference is exact (Sterbenz), for large x the correction is tiny.
  return x - x * normal_upper_tail(x);
}

inline double gelu_d1(double x) {
  if (std::isnan(x)) return x;
  if (x > 40.0) return 1.0;
  if (x < -40.0) return -0.0;
  // Φ(x) + x·φ(x) in extended precision, rounded once (the two terms cancel near the root x ≈ −0.7518).
  const long double xl = x;
  const long double xphi = xl * ext::expl_(-0.5L * xl * xl) * 0.398942280401432677939946059934381868L;
  const long double cdf = x < 0 ? normal_upper_tail_ld(-x) : 1.0L - normal_upper_tail_ld(x);
  return static_cast<double>(cdf + xphi);
}

inline double gelu_d2(double x) {
  if (std::isnan(x)) return x;
  if (std::fabs(x) > 40.0) return -0.0;
  // φ(x)·(2 − x²) in extended precision, rounded once (exp's argument reaches −800 before underflow).
  const long double xl = x, x2 = xl * xl;
  return static_cast<double>(ext::expl_(-0.5L * x2) * 0.398942280401432677939946059934381868L * (2.0L - x2));
}

// [SECTION] Logistic sigmoid, stable on both sides.

struct Sigmoid {
  double s;    // sigma(z)
  double one;  // 1 - sigma(z) = sigma(-z), computed without cancellation
};
/// sigma(z) for z given in double-double (the low part matters only where sigma is exp-dominated).
inline Sigmoid sigmoid(DD z) {
  if (z.hi >= 0) {
    const double e = exp_neg(z);  // in (0, 1]
    return {1.0 / (1.0 + e), e / (1.0 + e)};
  }
  const double e = exp_neg({-z.hi, -z.lo});  // exp(z) in (0, 1)
  return {e / (1.0 + e), 1.0 / (1.0 + e)};
}
inline Sigmoid sigmoid(double z) {
  return sigmoid(DD{z, 0.0});
}

/// x * sigma(z) for the f of x_sigmoid and gelu_tanh: e = exp(-|z|) with its low part applied by one fma,
/// 1 + e and x * e carried exactly, one division with a remainder correction. <= ~1.5 ULP, where the
/// plain x * (e / (1 + e)) accumulates five roundings (3 ULP measured at x = -6.86 for QuickGELU).
inline double x_times_sigmoid(double x, DD z) {
  const bool positive = z.hi >= 0;
  const double E = std::exp(positive ? -z.hi : z.hi);
  const double e = std::fma(E, positive ? -z.lo : z.lo, E);
  const DD num = positive ? DD{x, 0.0} : two_prod(x, e);
  const DD den = two_sum(1.0, e);
  const double q = num.hi / den.hi;
  const double rem = (std::fma(-q, den.hi, num.hi) + num.lo) - q * den.lo;
  return q + rem / den.hi;
}

// [SECTION] x * sigma(k x): QuickGELU (k = 1.702) and SiLU/Swish (k = beta) share this formula.

inline double x_sigmoid(double x, double k) {
  if (std::isnan(x)) return x;
  // Beyond |k x| > 1000 sigma is 0 or 1 to double precision; also keeps k x from overflowing (x near
  // DBL_MAX).
  if (std::fabs(k * x) > 1000.0) return x > 0 ? x : -0.0;
  if (x == 0) return x;  // keeps the sign: (-0)·σ(0) = -0
  const DD z = two_prod(k, x);
  if (z.hi < -700.0) return -tiny_x_times_exp(x, z, false);  // sigma(z) = exp(z) to double precision
  return x_times_sigmoid(x, z);
}
// The root of x_sigmoid_d1 in z = k·x: 1 + z·(1 − σ(z)) = 0 (mpmath), the same for every k.
inline constexpr double kSigmoidD1RootZ = -1.2784645427610738;
// Beyond |k x| > 1000, sigma is 0 or 1 to double precision; returning the limits avoids inf * 0.
inline double x_sigmoid_d1(double x, double k) {
  if (std::isnan(x)) return x;
  if (std::fabs(k * x) > 1000.0) return x > 0 ? 1.0 : -0.0;
  const Sigmoid g = sigmoid(two_prod(k, x));
  return g.s + k * x * g.s * g.one;
}
inline double x_sigmoid_d2(double x, double k) {
  if (std::isnan(x)) return x;
  if (std::fabs(k * x) > 1000.0) return -0.0;
  const Sigmoid g = sigmoid(two_prod(k, x));
  const double q = g.s * g.one;
  return k * q * (2.0 + k * x * (g.one - g.s));
}

// [SECTION] GELU, tanh approximation: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + c x^3).
// Evaluated as x * sigma(2u), which is the same function without the cancellation in 1 + tanh(u)
// for x < 0; 2u is carried in double-double so the exp-dominated negative tail keeps its accuracy.

inline DD gelu_tanh_2u(double x, double c) {
  const DD x2 = two_prod(x, x);
  const DD x3 = dd_mul(x2, x);
  const DD inner = dd_add({x, 0.0}, dd_mul(x3, c));
  return dd_mul(inner, DD{2.0 * kSqrt2OverPi.hi, 2.0 * kSqrt2OverPi.lo});
}
inline constexpr double kTanhTailLimit = 1e5;  // beyond: sigma(2u) is 0 or 1 to double precision for c >= 0

/// x·σ(z) in plain double for eval_bounded (registry.cpp), for |z| <= kSigmoidFastMaxZ: E = exp(−|z|), then
/// x/(1 + E) or x·E/(1 + E). Against x·σ(z) itself its relative error is at most 2·ε_E + 3·2^-53, with ε_E
/// glibc's exp error (< 1 ULP, 2^-52), so below 2^-49.4; an error δ in z adds at most 2·|z|·δ.
inline constexpr double kSigmoidFastMaxZ = 700.0;
inline double x_times_sigmoid_fast(double x, double z) {
  const double e = std::exp(-std::fabs(z));
  return select_bits(z >= 0, x, x * e) / (1.0 + e);
}
/// The double-only forms of gelu_tanh (c >= 0) and x_sigmoid: their relative error against the functions
/// below is under kSigmoidFastRelError by a factor of 2^7 wherever x != 0 and |z| <= kSigmoidFastMaxZ.
/// gelu_tanh's z = a·x·(1 + c·x²), a = 2·√(2/π) (the double 2·kSqrt2OverPi.hi), takes five roundings and
/// the rounding of a (c >= 0: no cancellation), δ <= 6·2^-53, so 2·700·δ = 2^-40.6; x_sigmoid's z = k·x one,
/// 2^-45.5; with the x·σ(z) step (2^-49.4) and the accurate forms' own errors (<= 2 ULP, 2^-51) the total
/// stays under 2^-40 (measured: tests/core/block_format_test.cpp, BoundedReference.*).
inline constexpr double kSigmoidFastRelError = 0x1p-33;
/// gelu_tanh's z in plain double, for x_times_sigmoid_fast (x_sigmoid's is k·x).
inline double gelu_tanh_z_fast(double x, double c) {
  return 2.0 * kSqrt2OverPi.hi * (x * (1.0 + c * (x * x)));
}

inline double gelu_tanh(double x, double c) {
  if (std::isnan(x)) return x;
  if (std::fabs(x) > kTanhTailLimit) return x > 0 ? x : -0.0;
  if (x == 0) return x;  // keeps the sign: (-0)·σ(0) = -0
  const DD z = gelu_tanh_2u(x, c);
  if (z.hi < -700.0) return -tiny_x_times_exp(x, z, false);  // x < 0: sigma(z) = exp(z) to double precision
  return x_times_sigmoid(x, z);
}
inline double gelu_tanh_d1(double x, double c) {
  if (std::isnan(x)) return x;
  if (std::fabs(x) > kTanhTailLimit) return x > 0 ? 1.0 : -0.0;
  const Sigmoid g = sigmoid(gelu_tanh_2u(x, c));
  const double du = kSqrt2OverPi.hi * (1.0 + 3.0 * c * x * x);  // u'
  return g.s + 2.0 * x * g.s * g.one * du;
}
inline double gelu_tanh_d2(double x, double c) {
  if (std::isnan(x)) return x;
  if (std::fabs(x) > kTanhTailLimit) return -0.0;
  const Sigmoid g = sigmoid(gelu_tanh_2u(x, c));
  const double q = g.s * g.one;
  const double du = kSqrt2OverPi.hi * (1.0 + 3.0 * c * x * x);
  const double ddu = kSqrt2OverPi.hi * 6.0 * c * x;
  // d/dx [s + 2 x q u'] with s' = 2 q u', q' = 2 q u' (1 - 2 s)
  return 4.0 * q * du + 4.0 * x * q * du * du * (g.one - g.s) + 2.0 * x * q * ddu;
}

// [SECTION] ReLU family.

inline double relu(double x) {
  return x > 0 ? x : (x <= 0 ? 0.0 : x);
}
inline double relu_d1(double x) {
  return x > 0 ? 1.0 : (x <= 0 ? 0.0 : x);
}
inline double zero_d2(double x) {
  return std::isnan(x) ? x : 0.0;
}

inline double leaky_relu(double x, double a) {
  return x > 0 ? x : (x <= 0 ? a * x : x);
}
inline double leaky_relu_d1(double x, double a) {
  return x > 0 ? 1.0 : (x <= 0 ? a : x);
}

inline double elu(double x, double a) {
  return x > 0 ? x : (x <= 0 ? a * std::expm1(x) : x);
}
inline double elu_d1(double x, double a) {
  return x > 0 ? 1.0 : (x <= 0 ? a * std::exp(x) : x);
}
inline double elu_d2(double x, double a) {
  return x > 0 ? 0.0 : (x <= 0 ? a * std::exp(x) : x);
}

// SELU (Klambauer et al. 2017): λ·x for x > 0, λ·α·(eˣ − 1) otherwise, with the paper's constants as the
// doubles every framework uses. λ·α is the double nearest the product of those two doubles.
inline constexpr double kSeluLambda = 1.0507009873554805;
inline constexpr double kSeluAlpha = 1.6732632423543772;
inline constexpr double kSeluLambdaAlpha = 1.7580993408473766;
inline double selu(double x) {
  return x > 0 ? kSeluLambda * x : (x <= 0 ? kSeluLambdaAlpha * std::expm1(x) : x);
}
inline double selu_d1(double x) {
  return x > 0 ? kSeluLambda : (x <= 0 ? kSeluLambdaAlpha * std::exp(x) : x);
}
inline double selu_d2(double x) {
  return x > 0 ? 0.0 : (x <= 0 ? kSeluLambdaAlpha * std::exp(x) : x);
}

// [SECTION] Softplus: log(1 + exp(b x)) / b, stable for both signs.

inline double softplus(double x, double b) {
  if (std::isnan(x)) return x;
  const double z = b * x;
  if (z > 0) return (z + std::log1p(std::exp(-z))) / b;
  return std::log1p(std::exp(z)) / b;
}
inline double softplus_d1(double x, double b) {
  return std::isnan(x) ? x : sigmoid(b * x).s;
}
inline double softplus_d2(double x, double b) {
  if (std::isnan(x)) return x;
  const Sigmoid g = sigmoid(b * x);
  return b * g.s * g.one;
}

// [SECTION] Mish: x tanh(softplus(x)).

struct MishParts {
  double t;      // tanh(softplus(x))
  double one_t;  // 1 - t, without cancellation
  double sig;    // sigma(x)
};
/// tanh(log(1+e^x)) = n/(n+2) with n = e^x (e^x + 2); written in w = e^-x for x > 0 (no overflow).
inline MishParts mish_parts(double x) {
  if (x > 0) {
    const double w = std::exp(-x);
    const double den = 1.0 + 2.0 * w + 2.0 * w * w;
    return {(1.0 + 2.0 * w) / den, 2.0 * w * w / den, 1.0 / (1.0 + w)};
  }
  const double e = std::exp(x);
  const double n = e * (e + 2.0);
  return {n / (n + 2.0), 2.0 / (n + 2.0), e / (1.0 + e)};
}
inline double mish(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  return x * mish_parts(x).t;
}
inline double mish_d1(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 1.0 : -0.0;
  const MishParts m = mish_parts(x);
  const double sech2 = m.one_t * (1.0 + m.t);
  return m.t + x * sech2 * m.sig;
}
inline double mish_d2(double x) {
  if (std::isnan(x)) return x;
  if (std::fabs(x) > 1000.0) return -0.0;  // sech^2 underflows; avoids x * inf * 0
  const MishParts m = mish_parts(x);
  const double sech2 = m.one_t * (1.0 + m.t);
  return sech2 * m.sig * (2.0 + x * ((1.0 - m.sig) - 2.0 * m.t * m.sig));
}

}  // namespace gelu::formulas

// [SECTION] Fast float32 kernels for the x·σ(z) family: gelu_sigmoid / silu (z = k·x) and gelu_tanh
// (z = a·(x + c·x³), a = 2·√(2/π)); f, f' and the backward pass dx = dy·f'. <= 2 ULP from the correctly
// rounded value of the formula for every finite float (tests/exhaustive), in float arithmetic only.
//
// The fast path (|z| <= 80 for f, <= 40 for f', <= 16 for the sigmoid form; almost every input): with E =
// e^−z (z signed) and D = 1 + E,
//     f = x / D,        f' = σ + w·σ(1 − σ) = (1 + E·(1 + w)) / D²,        w = x·z'(x).
// What an error could be amplified by is carried as an unevaluated float pair: the exponent's argument u =
// z/a (x, or x·(1 + c·x²) with x² split exactly and 1 + c·x² a pair), reduced in units of ln2/(32a) without
// rounding u (see exp_neg_z), E's rounding for f', D = 1 + E (exact pair), D² (TwoProd), w = x·z' for f'
// (a + 3b·x² a pair, see a_plus_g_s_fast). Each
// quotient is a reciprocal estimate and one Newton step that takes the low parts along (no vdivps), so the
// result is rounded about once. f' cancels near its root (E·(1 + w) -> −1; x ≈ −0.75 for the tanh
// form, z ≈ −1.2785 for the sigmoid form): 1 + wh is exact there, and within 1/32 of the root (in z) the
// kernel uses δ·P(δ), δ = x − r0 exact, a polynomial fitted per parameter from formulas.hpp — on the sigmoid
// form's fast path only in the exponential's bin of the root, a third of that window (see in_root_bin()).
//
// The tanh form's f' (and backward pass) takes another route where its parameter's tables pass their check
// (RBins; c = 0.044715 and both ends of c's range do): f' = [x > 0] − sign(x)·e^−|z|·R(|x|), R smooth and
// tabulated in 32 bins like exact GELU's S(t), without a quotient and without the root's window and branch.
//
// The general path (the other lanes' vectors, NaN, ±inf): with xn = −|x| clamped where σ saturates and
// e = e^(xn·p) <= 1, f = x/(1 + e) or xn·e/(1 + e), f' = (D − e·wn)/D² or e·(D + wn)/D², with e's scale 2^m
// applied after the division so that a subnormal result rounds once.
//
// Index of this file:
//   [SECTION] Forms, constants and tables
//   [SECTION] Float pairs and the exponential
//   [SECTION] f
//   [SECTION] f′ and its root
//   [SECTION] Loops and entry points
//   [SECTION] The tanh form on bf16 inputs
#include "simd_fast.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "formulas.hpp"
#include "simd_config.hpp"
#include "simd_fit.hpp"
#include "simd_sigmoid.hpp"
#ifdef GELU_AVX512
#include "simd_bf16.hpp"
#include "simd_loop.hpp"
#endif

namespace gelu::simd {
namespace {

namespace F = formulas;

#ifdef GELU_AVX512

enum class Form { Sigmoid, Tanh };
// [SECTION] Forms, constants and tables

constexpr int kDegRoot = 5;  // degree of P around the root of f'
// ln2/32 as kLn2Over32Hi + kLn2Over32Lo and the rounding constant kRoundMagicF: simd_config.hpp (|z| <= 240
// keeps |n| < 2^14 here).
constexpr float kInvLn2x32 = 46.166241308446828f;
constexpr double kZSat = 120;    // |z| beyond which σ is 0 or 1 far below float resolution (e^-120 < 2^-173)
constexpr double kZFast = 80;    // |z| up to which the fast f's scaled exponential stays normal (2^-116)
constexpr double kZFastD1 = 40;  // |z| up to which the fast f' keeps (1 + e^|z|)² finite
// The sigmoid forms' fast paths stop at |z| = 16 instead (|x| <= 9.4 for gelu_sigmoid, 16 for SiLU: the
// general path's inputs are rare there): 1 + E < 2^24, so 1 − fl(1 + E) is exact and the rounding error of D
// is (1 − dh) + E without ordering the operands (two instructions fewer than Fast2Sum's max and min). The
// tanh form reaches |z| = 16 at |x| ≈ 5.3, too often in practice to send beyond.
constexpr double kZFastSigmoid = 16;

/// The tanh form's f' by bins. With t = |x|, e = e^−|z| and W = |x·z'(x)|,
///     f'(x) = [x > 0] − sign(x)·e·R(t),        R(t) = (1 + e − W)/(1 + e)²,
/// (x < 0: σ(z) = e/(1 + e); x > 0: 1 − σ(z) = e/(1 + e)): R is smooth, bounded by a cubic, and vanishes
/// where f' does (t0 = −r0). Like exact GELU's S(t), R comes from 32 bins of u = t + shift (8 per binade of
/// u on [1, 16); the shift puts t0 in the middle of a bin): R = r_k·A + r_k·F(d), d = t − edge_k, r_k·F(d) =
/// K + d·r_k·G(d) with G of degree kDegR − 1 (the table holds its coefficients times r_k) and K = R(fl(t0)),
/// one constant for every bin: the last Horner step adds it, so F's constant needs no table (20 `vpermt2ps`
/// per pair of vectors in the compiled backward loop against 22). Bins within [t0/2, 2·t0] have edge_k =
/// fl(t0), so d is exact (Sterbenz), A = d + β_k/r_k and r_k a power of two; in the bin holding t0, β = 0 and
/// F(0) = K/r_k is R(fl(t0))/r_k exactly (t0 is not a float), so R keeps its relative accuracy through the
/// root, with no window and no branch; in the group's other bins β_k takes up the difference between a free
/// fit's constant and K, rounded to a multiple of r_k·ulp(d) so that r_k·d + β_k stays exact. The other bins
/// have A = 2 and expand around a float m_k near their middle where r_k = fl((R(m_k) − K)/2) is within 2^-32
/// of its value, so that F(0) = K/r_k there too. r_k·A = fma(d, ρ_k, β_k) is exact either way (ρ = r_k, or ρ
/// = 0 and β = 2r_k). No reciprocal either. Built per parameter (0.7 ms on the first f' call for it) and
/// checked against the reference on a dense grid; a parameter whose fit misses kRBinsMaxError keeps the
/// quotient kernel (ok = false; every c in [0, 0.1] passes with 32 bins).
///
/// Two layouts (fast_bins()): 32 bins of degree 5 (two-register vpermt2ps lookups) and, for Zen 4, where a
/// vpermt2ps takes an FMA pipe's slot and a vpermps half of one, 16 bins of degree 6 (one-register vpermps;
/// degree 5 misses the check): 8 per binade of u = t + shift on two binades of
/// opposite exponent parity, the root's bin [3.25, 3.5) in u, so that u in [2.623, 4) (t in [0, 1.377): bins
/// of 1/4, four of them in the root group), [4, 8) (bins of 1/2) and [8, 10) (bins of 1, whose index bits
/// alias u in [2, 2.5), which t >= 0 never reaches) hold t up to ~7.377; beyond, a vector takes the general
/// path (a lane with |x| > 7.377: 2 in 10^4 of N(0, 2) data). On Zen 4 the backward pass is faster by them
/// (docs/perf-log/2026-11-29.md, "Zen 4: the tanh form's f′ by 16 bins"). A c whose 16-bin tables miss the
/// check takes the 32 bins.
constexpr double kRBinsMaxError = 0x1.6a09e6p-25;  // 2^-24.5: |fit − R/r_k| / |R/r_k| over each bin
template <int kN, int kDeg>
struct RBinsOf {
  static constexpr int kBins = kN, kDegR = kDeg;
  bool ok = false;
  float shift = 0;                               // u = t + shift, in [1, end_u) on the fast range
  float tmax = 0;                                // |x| up to which the bins hold (and |z| <= kZFast)
  float k0 = 0;                                  // K = r_k·F(0) = R(fl(t0)) in every bin
  std::array<float, kN> edge{}, rho{}, beta{};   // r_k·A = fma(d, rho_k, beta_k), exact
  std::array<std::array<float, kN>, kDeg> fc{};  // r_k·G's coefficients: r_k·F(d) = K + d·r_k·G(d)
};
using RBins = RBinsOf<32, 5>;
using RBins16 = RBinsOf<16, 6>;
// Where each layout puts the root (t0 in the middle of the bin [u0 − 1/16, u0 + 1/16) or [u0 − 1/8, u0 +
// 1/8)) and the first u whose bin index would alias one already used.
constexpr double kRBinsRootU = 1.8125, kRBinsEndU = 15.75;
constexpr double kRBins16RootU = 3.375, kRBins16EndU = 10;

/// Everything a call needs that depends on the parameter; built in double from formulas.hpp.
struct Consts {
  FloatPair a{}, b{}, b3{};  // z = x·(a + b·x²); z' = a + 3b·x² (b = 0 for the sigmoid form)
  float tmax = 0;            // |x| clamp: kZSat <= |z(tmax)| <= 2·kZSat
  float xfast = 0;           // |x| <= xfast -> |z| <= kZFast or kZFastSigmoid (beyond: the general path)
  float xfast_d1 = 0;        // |x| <= xfast_d1 -> |z| <= kZFastD1 or kZFastSigmoid (the same for f')
  FloatPair r0{};            // root of f'
  // The fast paths' exponential works on u = z/a (u = x, or x·(1 + c·x²) with c = cc.hi + cc.lo): n =
  // round(u/L), L = ln2/(32a) = lhi + llo (lhi with 12 significant bits: n·lhi is exact for |n| < 2^12),
  // r' = u − n·L, and e^(a·r') from the powers a1 = a, a2 = a²/2, a3 = a³/6.
  FloatPair cc{};
  float lhi = 0, llo = 0, a1 = 0, a2 = 0, a3 = 0;
  float win = 0;              // half-width of the window around r0 where f' = δ·P(δ)
  std::int32_t root_bin = 0;  // the exponential's n in the bin of r0 (the sigmoid form; see in_root_bin())
  std::array<float, kDegRoot + 1> rc{};
  float x_zfast = 0;        // |x| where |z| reaches kZFast (the bins' range)
  bool rb_built = false;    // the tanh form's RBins are built on the first f' call (f never reads them)
  bool rb16_built = false;  // the same for RBins16
  RBins rb{};               // the tanh form's f' by bins (see RBins)
  RBins16 rb16{};
};

double d1_ref(Form form, double x, double param) {
  return form == Form::Sigmoid ? F::x_sigmoid_d1(x, param) : F::gelu_tanh_d1(x, param);
}
double d2_ref(Form form, double x, double param) {
  return form == Form::Sigmoid ? F::x_sigmoid_d2(x, param) : F::gelu_tanh_d2(x, param);
}

/// R(t) of RBins from the reference: f'(−t)·e^|z(t)| (z in double-double).
double r_of_t(double t, double param) {
  const F::DD z = F::gelu_tanh_2u(t, param);
  return F::gelu_tanh_d1(-t, param) * std::exp(z.hi) * (1.0 + z.lo);
}

template <class RB>
RB build_rbins(double param, double t0, float tmax, double root_u, double end_u) {
  constexpr int kBinsN = RB::kBins, kDegR = RB::kDegR;
  RB rb;
  const float t0f = static_cast<float>(t0);
  // The bin of u around root_u is centred on t0.
  rb.shift = static_cast<float>(root_u - static_cast<double>(t0f));
  // t <= tmax keeps u = t + shift below end_u, where the index bits would alias a bin in use: 2^-20 of
  // margin, as the range test compares fl(x²) with fl(tmax²) (a lane passes it at most two ULPs above tmax).
  rb.tmax = std::min(tmax, static_cast<float>((end_u - static_cast<double>(rb.shift)) * (1 - 0x1p-20)));
  if (!(rb.shift >= 1.0f) || static_cast<double>(rb.tmax) + rb.shift >= end_u) return rb;
  // r_k·F(0) = K for every bin: R(fl(t0)) in the root group by construction, and by the choice of m_k (below)
  // elsewhere, so the last Horner step adds the constant K instead of a table's entry.
  const double K = r_of_t(t0f, param);
  rb.k0 = static_cast<float>(K);
  double worst = 0;
  for (int b = 0; b < kBinsN; ++b) {
    // Bin b holds u in [2^e (1 + i/8), 2^e (1 + (i + 1)/8)), i = b mod 8, for the one binade e whose index
    // bits ((127 + e)·8 + i, the low 5 or 4 of bits(u) >> 20) are b and which meets [shift, end_u): as S(t)'s
    // bins with 32, as exact GELU's f's with 16. A bin that no t reaches keeps zeros.
    const int i = b & 7;
    int e = -1;
    for (int ec = 0; ec <= 3; ++ec)
      if ((((127 + ec) << 3) + i) % kBinsN == b && std::ldexp(1.0 + (i + 1) / 8.0, ec) > rb.shift &&
          std::ldexp(1.0 + i / 8.0, ec) < end_u)
        e = ec;
    if (e < 0) continue;
    const double lo = std::max(std::ldexp(1.0 + i / 8.0, e) - rb.shift, 0.0);
    const double hi = std::ldexp(1.0 + (i + 1) / 8.0, e) - rb.shift;
    // u = t + shift rounds: t a little outside [lo, hi) can land here.
    const double pad = 1e-3 * (hi - lo), flo = std::max(lo - pad, 0.0), fhi = hi + pad;
    const bool root = flo >= 0.5 * t0f && fhi <= 2.0 * t0f;
    double edge, rk, beta;  // V = r_k·A = fma(d, rho, beta): rho = r_k in the root group, else 0
    if (root) {
      edge = t0f;
      const double mid = 0.5 * (lo + hi);
      // A power of two, so that r_k·d is exact.
      const double q = r_of_t(mid, param) / (mid - t0);
      rk = std::copysign(std::exp2(std::round(std::log2(std::fabs(q)))), q);
      beta = 0;
      if (!(flo <= edge && edge <= fhi)) {
        // Away from t0, F's own best constant (a free fit's) differs from K/r_k; the difference goes into V
        // instead, rounded to a multiple γ of r_k·ulp where every d and fl(t0) are multiples of that ulp, so
        // that V = r_k·d + β stays exact (|V| < 2^24·γ, checked).
        const auto xs = chebyshev_nodes<kDegR + 1>(flo - edge, fhi - edge);
        std::array<double, kDegR + 1> ys{};
        for (int n = 0; n <= kDegR; ++n) ys[n] = r_of_t(edge + xs[n], param) / rk - xs[n];
        const double free_c0 = interpolate<kDegR + 1>(xs, ys)[0];
        const auto ulp = [](double v) { return std::ldexp(1.0, std::ilogb(static_cast<float>(v)) - 23); };
        const double gamma = std::min(ulp(flo), ulp(t0f)) * std::fabs(rk);
        const double b0 = std::nearbyint((rk * free_c0 - static_cast<double>(rb.k0)) / gamma) * gamma;
        const double vmax = std::max(std::fabs((flo - edge) * rk + b0), std::fabs((fhi - edge) * rk + b0));
        if (vmax < 0x1p24 * gamma) beta = b0;
      }
    } else {
      // Expand around a float m_k near the middle where r_k = fl((R(m_k) − K)/2) is within 2^-32 of its value
      // (float_point_near, as for exact GELU's S), so that r_k·F(0) = R(m_k) − 2r_k = K. d = t − m_k is exact
      // (Sterbenz) wherever lo >= (hi − lo)/2, that is beyond the first bin; there (t < 0.064 with 32 bins,
      // < 0.127 with 16) its rounding, < 2^-29 or 2^-28, moves R by less than 2^-29 or 2^-28 relative (|R′/R|
      // < 0.9 there).
      edge = float_point_near(0.5 * (lo + hi),
                              [&](float m) { return 0.5 * (r_of_t(m, param) - static_cast<double>(rb.k0)); });
      rk = static_cast<float>(0.5 * (r_of_t(edge, param) - static_cast<double>(rb.k0)));
      beta = 2 * rk;
    }
    // R/r_k = A + F: A = d + β/r_k in the root group, 2 elsewhere.
    const auto A = [&](double d) { return (root ? d : 0.0) + beta / rk; };
    const auto target = [&](double d) { return r_of_t(edge + d, param) / rk - A(d); };
    // F = K/r_k + d·G(d), G of degree kDegR − 1. Two fits, the better one kept (by the check below, against
    // the reference, relative to R/r_k = A + F): G through Chebyshev nodes (the one at d = 0 moved off it),
    // and G by weighted least squares on 64 Chebyshev points, which does better where d = 0 lies outside the
    // bin (the root group's other bins, where the interpolant through F(0) loses about two bits). In the bin
    // that holds t0, R/r_k = d + F is as small as d − (t0 − fl(t0)) near it, and F(0) = R(fl(t0))/r_k is
    // exact, so R keeps its relative accuracy through the root.
    const double c0 = static_cast<double>(rb.k0) / rk;
    std::array<double, kDegR> interp{}, lsq{};
    {
      auto xs = chebyshev_nodes<kDegR>(flo - edge, fhi - edge);
      for (double& xn : xs)
        if (std::fabs(xn) < 1e-2 * (fhi - flo)) xn = std::copysign(1e-2 * (fhi - flo), xn == 0 ? 1.0 : xn);
      std::array<double, kDegR> ys{};
      for (int n = 0; n < kDegR; ++n) ys[n] = (target(xs[n]) - c0) / xs[n];
      interp = interpolate<kDegR>(xs, ys);
    }
    {
      constexpr int kPts = 64;
      const auto ds = chebyshev_nodes<kPts>(flo - edge, fhi - edge);
      std::array<double, kPts> ys{}, ws{};
      for (int k = 0; k < kPts; ++k) {
        const double f = target(ds[k]);
        ys[k] = f - c0;
        ws[k] = 1.0 / std::fabs(A(ds[k]) + f);
      }
      lsq = least_squares_times_d<kDegR>(ds, ys, ws);
    }
    rb.edge[b] = static_cast<float>(edge);
    rb.rho[b] = root ? static_cast<float>(rk) : 0.0f;
    rb.beta[b] = static_cast<float>(beta);
    // The check: the fit with its float coefficients against the reference on 257 points across the bin.
    std::array<double, 257> cd{}, cwant{}, ca{};
    int npts = 0;
    if (!(hi <= 0 || lo > rb.tmax)) {  // (bins beyond the fast range are never reached)
      for (int k = 0; k <= 256; ++k) {
        const double d = (flo - edge) + (fhi - flo) * k / 256.0;
        if (edge + d > static_cast<double>(rb.tmax) * 1.01) break;
        if (root && std::fabs(d) < 1e-4) continue;  // (the reference's own error is relative to R there)
        cd[npts] = d, cwant[npts] = target(d), ca[npts] = A(d), ++npts;
      }
    }
    const auto error_of = [&](const std::array<double, kDegR>& co) {
      std::array<float, kDegR> fc{};
      for (int n = 0; n < kDegR; ++n) fc[n] = static_cast<float>(rk * co[n]);
      double err = 0;
      for (int k = 0; k < npts; ++k) {
        double p = fc[kDegR - 1];
        for (int n = kDegR - 2; n >= 0; --n) p = p * cd[k] + fc[n];
        p = (p * cd[k] + static_cast<double>(rb.k0)) / rk;
        if (ca[k] + cwant[k] != 0) err = std::max(err, std::fabs(p - cwant[k]) / std::fabs(ca[k] + cwant[k]));
      }
      return err;
    };
    const double e_interp = error_of(interp), e_lsq = error_of(lsq);
    const auto& co = e_lsq < e_interp ? lsq : interp;
    for (int n = 0; n < kDegR; ++n) rb.fc[n][b] = static_cast<float>(rk * co[n]);
    worst = std::max(worst, std::min(e_interp, e_lsq));
  }
  rb.ok = worst <= kRBinsMaxError;
  return rb;
}

Consts build_consts(Form form, double param) {
  Consts c;
  double slope, z0_guess;
  if (form == Form::Sigmoid) {
    c.a = split(param);
    slope = param;
    c.tmax = static_cast<float>(kZSat / param);
    z0_guess = F::kSigmoidD1RootZ;
  } else {
    const F::DD a = {2 * F::kSqrt2OverPi.hi, 2 * F::kSqrt2OverPi.lo};
    // a's high part is a multiple of 2^-20 (21 significant bits): then ph − ah is exact for any float ph in
    // [ah, 16), which a_plus_g_s_fast relies on.
    c.a.hi = static_cast<float>(std::nearbyint(std::ldexp(a.hi, 20)) / 0x1p20);
    c.a.lo = static_cast<float>((a.hi - static_cast<double>(c.a.hi)) + a.lo);
    const F::DD b = F::dd_mul(a, param), b3 = F::dd_mul(a, 3 * param);
    c.b = split(b.hi);
    c.b.lo = static_cast<float>((b.hi - static_cast<double>(c.b.hi)) + b.lo);
    c.b3 = split(b3.hi);
    c.b3.lo = static_cast<float>((b3.hi - static_cast<double>(c.b3.hi)) + b3.lo);
    // a·t <= kZSat and b·t³ <= kZSat, one of them with equality: kZSat <= z(t) <= 2·kZSat.
    const double t = param > 0 ? std::min(kZSat / a.hi, std::cbrt(kZSat / b.hi)) : kZSat / a.hi;
    c.tmax = static_cast<float>(t);
    slope = a.hi;
    z0_guess = F::kSigmoidD1RootZ * 0.95;
  }
  if (static_cast<double>(c.tmax) * slope < kZSat) c.tmax = std::nextafter(c.tmax, INFINITY);
  {
    const double a = form == Form::Sigmoid ? param : 2 * F::kSqrt2OverPi.hi + 2 * F::kSqrt2OverPi.lo;
    if (form == Form::Tanh) c.cc = split(param);
    const double L = 0.693147180559945309417232121458176568 / (32 * a);
    const double lhi = std::ldexp(std::nearbyint(std::ldexp(L, 11 - std::ilogb(L))), std::ilogb(L) - 11);
    c.lhi = static_cast<float>(lhi);
    c.llo = static_cast<float>(L - lhi);
    c.a1 = static_cast<float>(a);
    c.a2 = static_cast<float>(a * a / 2);
    c.a3 = static_cast<float>(a * a * a / 6);
  }
  // |x| where |z(x)| = a·x + b·x³ reaches zmax, by bisection in double (z is increasing), rounded down.
  const auto x_at = [&](double zmax) {
    const double a = static_cast<double>(c.a.hi) + static_cast<double>(c.a.lo);
    const double b = static_cast<double>(c.b.hi) + static_cast<double>(c.b.lo);
    double lo = 0, hi = zmax / a;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (a * mid + b * mid * mid * mid <= zmax ? lo : hi) = mid;
    }
    float x = static_cast<float>(lo);
    if (static_cast<double>(x) > lo) x = std::nextafter(x, 0.0f);
    return x;
  };
  c.xfast = x_at(form == Form::Sigmoid ? kZFastSigmoid : kZFast);
  c.xfast_d1 = x_at(form == Form::Sigmoid ? kZFastSigmoid : kZFastD1);
  // The fast paths also need a + 3b·x² < 16 (a_plus_g_s_fast); for c <= 0.1 the limits on z are the tighter
  // ones.
  if (form == Form::Tanh && param > 0) {
    const double b3 = 3 * static_cast<double>(c.b.hi);
    const float lim = static_cast<float>(std::sqrt((15.5 - static_cast<double>(c.a.hi)) / b3));
    c.xfast = std::min(c.xfast, lim);
    c.xfast_d1 = std::min(c.xfast_d1, lim);
  }
  // The root of f' by Newton on the double reference (f'' is its derivative).
  double r = z0_guess / slope;
  for (int it = 0; it < 60; ++it) {
    const double step = d1_ref(form, r, param) / d2_ref(form, r, param);
    r -= step;
    if (std::fabs(step) < 1e-17 * std::fabs(r)) break;
  }
  c.r0 = split(r);
  // Window: |δz| <= 1/32 in z, where P is fitted; the general path and the tanh form's quotient kernel take P
  // there. Outside, the numerator 1 + E·(1 + w) is at least ~0.04 and its absolute error (~2^-31, from E's
  // pair) stays under 2^-26 relative. The sigmoid form's fast path takes P only in the exponential's bin of
  // the root (see in_root_bin()), z in [z0 − 0.0104, z0 + 0.0113]: closer in, the numerator is ~0.048 at the
  // bin's edges and E's error peaks there (|r'| = ln2/64), yet the worst cases beside it measured 1.40–1.42
  // ULP (gelu_sigmoid, SiLU; k = 0.1, 1, 1.702, 10 on every float within 0.6 of the root in z), against
  // 1.44 elsewhere. A third of the window's lanes take the branch to P: a vector of N(0, 2) data has such a
  // lane 3–5 % of the time instead of 10–15 %.
  const double win = 1.0 / (32 * slope);
  c.win = static_cast<float>(win);
  if (form == Form::Sigmoid) {
    // n = round(−x·s), s = fl(a·32/ln2) as Regs::neg_slope_scaled holds it: n0 = 59 for every k (z0·32/ln2
    // = 59.02), and the bin [n0 ± 1/2]/s lies inside the window.
    const double s = static_cast<double>(c.a.hi * kInvLn2x32);
    c.root_bin = static_cast<std::int32_t>(std::nearbyint(-r * s));
  }
  const double r0 = static_cast<double>(c.r0.hi) + static_cast<double>(c.r0.lo);
  const auto xs = chebyshev_nodes<kDegRoot + 1>(-1.1 * win, 1.1 * win);  // even count: no node at δ = 0
  std::array<double, kDegRoot + 1> ys{};
  for (int i = 0; i <= kDegRoot; ++i) ys[i] = d1_ref(form, r0 + xs[i], param) / xs[i];
  const auto co = interpolate<kDegRoot + 1>(xs, ys);
  for (int i = 0; i <= kDegRoot; ++i) c.rc[i] = static_cast<float>(co[i]);
  c.x_zfast = x_at(kZFast);
  return c;
}

/// Per-thread cache of the last few parameter values (a GUI slider changes them every frame; a batch does
/// not).
Consts& cached_consts(Form form, double param) {
  struct Entry {
    Form form;
    double param;
    Consts c;
    bool valid = false;
  };
  thread_local std::array<Entry, 4> cache{};
  thread_local unsigned next = 0;
  for (Entry& e : cache)
    if (e.valid && e.form == form && e.param == param) return e.c;
  Entry& e = cache[next++ % cache.size()];
  e = Entry{form, param, build_consts(form, param), true};
  return e.c;
}
const Consts& consts(Form form, double param) {
  return cached_consts(form, param);
}
/// The same with the tanh form's RBins (bins = 32) or RBins16 (16) built (on the first f' call for c that
/// needs them: ~1 ms that f alone need not pay).
const Consts& consts_with_rbins(double param, int bins) {
  Consts& c = cached_consts(Form::Tanh, param);
  const double r0 = static_cast<double>(c.r0.hi) + static_cast<double>(c.r0.lo);
  if (bins == 16 && !c.rb16_built) {
    c.rb16 = build_rbins<RBins16>(param, -r0, c.x_zfast, kRBins16RootU, kRBins16EndU);
    c.rb16_built = true;
  }
  if (bins != 16 && !c.rb_built) {
    c.rb = build_rbins<RBins>(param, -r0, std::min(c.x_zfast, 14.5f), kRBinsRootU, kRBinsEndU);
    c.rb_built = true;
  }
  return c;
}

/// v's bit pattern shifted left by one: the sign dropped, so an unsigned compare of two of them orders |v|,
/// with NaN and ±inf above every finite value (the sigmoid forms' range tests, see beyond()).
GELU_INLINE __m512i magnitude_bits(__m512 v) {
  return _mm512_slli_epi32(_mm512_castps_si512(v), 1);
}

/// The constants of one call, in registers.
struct Regs {
  Table32 exp_hs, exp_rel;  // Exp2Table's hi_shifted and rel
  __m512 ah, al, bh, bl, b3h, b3l, tmax, xfast, xfast_d1, r0h, r0l, win_lo, win_hi, neg_slope_scaled;
  __m512 neg_b_scaled;  // −b·32/ln2 (the tanh form's k: x·(neg_slope_scaled + neg_b_scaled·x²))
  __m512 ch, cl, lhi, llo, magic_lhi, a1, a2, a3;  // see Consts
  __m512i xfast2, xfast_d1_2;                      // bit patterns shifted left by one (see beyond())
  __m512i root_bin;                                // k's bits in the root's bin (see in_root_bin())
  __m512 xfast_sq, xfast_d1_sq;                    // fl(xfast²), fl(xfast_d1²) (see beyond())
  __m512 rc[kDegRoot + 1];
  explicit Regs(const Consts& c)
      : exp_hs(exp2_table().hi_shifted),
        exp_rel(exp2_table().rel),
        ah(_mm512_set1_ps(c.a.hi)),
        al(_mm512_set1_ps(c.a.lo)),
        bh(_mm512_set1_ps(c.b.hi)),
        bl(_mm512_set1_ps(c.b.lo)),
        b3h(_mm512_set1_ps(c.b3.hi)),
        b3l(_mm512_set1_ps(c.b3.lo)),
        tmax(_mm512_set1_ps(c.tmax)),
        xfast(_mm512_set1_ps(c.xfast)),
        xfast_d1(_mm512_set1_ps(c.xfast_d1)),
        r0h(_mm512_set1_ps(c.r0.hi)),
        r0l(_mm512_set1_ps(c.r0.lo)),
        win_lo(_mm512_set1_ps(c.r0.hi - c.win)),
        win_hi(_mm512_set1_ps(c.r0.hi + c.win)),
        neg_slope_scaled(_mm512_set1_ps(-c.a.hi * kInvLn2x32)),
        neg_b_scaled(_mm512_set1_ps(-c.b.hi * kInvLn2x32)),
        ch(_mm512_set1_ps(c.cc.hi)),
        cl(_mm512_set1_ps(c.cc.lo)),
        lhi(_mm512_set1_ps(c.lhi)),
        llo(_mm512_set1_ps(c.llo)),
        magic_lhi(_mm512_set1_ps(kRoundMagicF * c.lhi)),
        a1(_mm512_set1_ps(c.a1)),
        a2(_mm512_set1_ps(c.a2)),
        a3(_mm512_set1_ps(c.a3)),
        xfast2(magnitude_bits(xfast)),
        xfast_d1_2(magnitude_bits(xfast_d1)),
        root_bin(_mm512_set1_epi32(std::bit_cast<std::int32_t>(kRoundMagicF) + c.root_bin)),
        xfast_sq(_mm512_set1_ps(c.xfast * c.xfast)),
        xfast_d1_sq(_mm512_set1_ps(c.xfast_d1 * c.xfast_d1)) {
    for (int i = 0; i <= kDegRoot; ++i) rc[i] = _mm512_set1_ps(c.rc[i]);
  }
};

struct Pair {
  __m512 h, l;
};

// [SECTION] Float pairs and the exponential

/// a + g·s as a pair, for a, g >= 0 and s = sh + sl (x² split exactly): the product's rounding error and the
/// sum's (Fast2Sum on the larger of the two) are kept.
GELU_INLINE Pair a_plus_g_s(__m512 ah, __m512 al, __m512 gh, __m512 gl, __m512 sh, __m512 sl) {
  const __m512 p = _mm512_mul_ps(gh, sh);
  const __m512 pe = _mm512_fmsub_ps(gh, sh, p);
  const __m512 h = _mm512_add_ps(ah, p);
  const __m512 big = _mm512_max_ps(ah, p), small = _mm512_min_ps(ah, p);
  const __m512 e = _mm512_add_ps(_mm512_sub_ps(big, h), small);
  const __m512 corr = _mm512_add_ps(_mm512_fmadd_ps(gh, sl, _mm512_fmadd_ps(gl, sh, al)), pe);
  return {h, _mm512_add_ps(e, corr)};
}

/// a + g·s as a pair for the fast paths, where a's high part is a multiple of 2^-20 and a + g·s < 16: then
/// ph = fma(g, s, a) rounds once and its error fma(g, s, ah − ph) is exact (ah − ph is), so no Fast2Sum.
GELU_INLINE Pair a_plus_g_s_fast(__m512 ah, __m512 al, __m512 gh, __m512 gl, __m512 sh, __m512 sl) {
  const __m512 h = _mm512_fmadd_ps(gh, sh, ah);
  const __m512 e = _mm512_fmadd_ps(gh, sh, _mm512_sub_ps(ah, h));
  return {h, _mm512_add_ps(e, _mm512_fmadd_ps(gh, sl, _mm512_fmadd_ps(gl, sh, al)))};
}

/// xn·(ph + pl) as a pair.
GELU_INLINE Pair times(__m512 xn, Pair p) {
  const __m512 h = _mm512_mul_ps(xn, p.h);
  return {h, _mm512_fmadd_ps(xn, p.l, _mm512_fmsub_ps(xn, p.h, h))};
}

/// u = xn·p(x²) = −|z| and (for f') wn = xn·z'(x).
template <Form kForm, bool kNeedW>
GELU_INLINE void exponent(__m512 xn, const Regs& r, Pair& u, Pair& wn) {
  if constexpr (kForm == Form::Sigmoid) {
    u = times(xn, {r.ah, r.al});
    if constexpr (kNeedW) wn = u;
  } else {
    const __m512 sh = _mm512_mul_ps(xn, xn);
    const __m512 sl = _mm512_fmsub_ps(xn, xn, sh);
    u = times(xn, a_plus_g_s(r.ah, r.al, r.bh, r.bl, sh, sl));
    if constexpr (kNeedW) wn = times(xn, a_plus_g_s(r.ah, r.al, r.b3h, r.b3l, sh, sl));
  }
}

/// e^u = 2^(n/32)·T·(1 + P) for u = uh + ul in [−240, 0]: T in [1, 2) from the table, P = e^r·(1 + rel) − 1
/// with |r| <= ln2/64 (Taylor to r³: truncation < 2^-30), ns = n/32 for vscalefps (which floors it).
struct Exp {
  __m512 T, P, ns;
};
GELU_INLINE Exp exp_pieces(Pair u, const Regs& t) {
  const __m512 k = _mm512_fmadd_ps(u.h, _mm512_set1_ps(kInvLn2x32), _mm512_set1_ps(kRoundMagicF));
  const __m512 n = _mm512_sub_ps(k, _mm512_set1_ps(kRoundMagicF));
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Over32Hi), u.h);  // exact (Sterbenz)
  r = _mm512_add_ps(r, u.l);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Over32Lo), r);
  const __m512i j = _mm512_castps_si512(k);  // low 5 bits = n mod 32
  Exp e;
  e.T = exp2_unscaled(t.exp_hs(j), j);
  __m512 p = _mm512_fmadd_ps(r, _mm512_set1_ps(1.0f / 6.0f), _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(r, p, _mm512_set1_ps(1.0f));
  e.P = _mm512_fmadd_ps(r, p, t.exp_rel(j));
  e.ns = _mm512_mul_ps(n, _mm512_set1_ps(1.0f / 32.0f));
  return e;
}

/// h + l renormalized (Fast2Sum, |h| >= |l|): the low part becomes a rounding error of the high part.
GELU_INLINE Pair fast2sum(__m512 h, __m512 l) {
  const __m512 s = _mm512_add_ps(h, l);
  return {s, _mm512_add_ps(_mm512_sub_ps(h, s), l)};
}

/// 1 + e for e = eh + el in (0, 1] (|el| <= 0.012·eh), normalized: (1 − h) + eh is exact.
GELU_INLINE Pair one_plus(__m512 eh, __m512 el) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 h = _mm512_add_ps(_mm512_add_ps(one, eh), el);
  return {h, _mm512_add_ps(_mm512_add_ps(_mm512_sub_ps(one, h), eh), el)};
}

/// n / d for normalized pairs (|low| <= ulp(high)) with d.h in [1, 4]: vdivps (correctly rounded) and one
/// residual correction (the residual n.h − q·d.h is exact).
GELU_INLINE __m512 divide(Pair n, Pair d) {
  const __m512 q = _mm512_div_ps(n.h, d.h);
  const __m512 res = _mm512_add_ps(_mm512_fnmadd_ps(q, d.h, n.h), _mm512_fnmadd_ps(q, d.l, n.l));
  return _mm512_fmadd_ps(res, _mm512_rcp14_ps(d.h), q);
}

/// (nh + nl) / (dh + dl) for the fast paths (normal dh in [1, 2^116], |dl| <= ulp(dh), |nl| <= ulp(nh)) with
/// one rounding: q0 = nh·r from the reciprocal estimate r (relative error < 2^-14), then one Newton step that
/// takes the pairs' low parts along, y = q0 + ((nh − q0·dh) + (nl − q0·dl))·r. The step leaves 2^-28 of the
/// quotient before the final rounding (the square of the estimate's error; the residual's own rounding is
/// 2^-38), so y is within 1/2 ULP + 2^-28 relative. Five pipelined instructions instead of a vdivps and its
/// residual correction, which AVX-512 cores (AMD's and Intel's) issue at a fraction of an fma's rate.
GELU_INLINE __m512 divide_fast(__m512 nh, __m512 nl, __m512 dh, __m512 dl) {
  const __m512 r = _mm512_rcp14_ps(dh);
  const __m512 q0 = _mm512_mul_ps(nh, r);
  const __m512 res = _mm512_add_ps(_mm512_fnmadd_ps(q0, dh, nh), _mm512_fnmadd_ps(q0, dl, nl));
  return _mm512_fmadd_ps(res, r, q0);
}
/// n / (dh + dl) for an n without a low part: the same step, one instruction fewer, with the residual negated
/// (q0·dh − n + q0·dl, then q0 − that·r: the same bits, as rounding is symmetric) so that n = ±0 gives ±0
/// (the other order makes −0 + 0 = +0 of −0) and f needs no fix-up for zeros.
GELU_INLINE __m512 divide_fast(__m512 n, __m512 dh, __m512 dl) {
  const __m512 r = _mm512_rcp14_ps(dh);
  const __m512 q0 = _mm512_mul_ps(n, r);
  return _mm512_fnmadd_ps(_mm512_fmadd_ps(q0, dl, _mm512_fmsub_ps(q0, dh, n)), r, q0);
}

GELU_INLINE __m512 copysign(__m512 mag, __m512 sign_of) {
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_set1_epi32(INT32_MIN),
                                                       _mm512_castps_si512(sign_of), _mm512_castps_si512(mag),
                                                       0xCA));  // A ? B : C
}

// [SECTION] f: the general and the fast path

/// f for any input (the general path: e scaled after the division, so subnormal results round once). Out of
/// line: the vectors that need it are rare, and inlined into the loops it kept GCC from inlining the fast
/// path (the tanh form's f' ran as a call per vector, its constants reloaded from memory each time).
template <Form kForm>
GELU_COLD __m512 f_general(__m512 x, const Regs& r) {
  // −min(|x|, tmax); a NaN lane becomes −tmax here (vrangeps returns the other operand), restored at the end.
  const __m512 xn = _mm512_range_ps(x, r.tmax, 0x0E);
  const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  Pair u, wn;
  exponent<kForm, false>(xn, r, u, wn);
  const Exp e = exp_pieces(u, r);
  const __m512 eh = _mm512_scalef_ps(e.T, e.ns);
  const __m512 el = _mm512_mul_ps(eh, e.P);
  const Pair d = one_plus(eh, el);
  // Numerator: x (x > 0), or xn·T·(1 + P) with the scale 2^m applied after the division.
  const __m512 p = _mm512_mul_ps(xn, e.T);
  Pair num = fast2sum(p, _mm512_fmadd_ps(p, e.P, _mm512_fmsub_ps(xn, e.T, p)));
  num.h = _mm512_mask_mov_ps(num.h, pos, x);
  num.l = _mm512_mask_mov_ps(num.l, pos, _mm512_setzero_ps());
  __m512 y = divide(num, d);
  y = _mm512_scalef_ps(y, _mm512_mask_mov_ps(e.ns, pos, _mm512_setzero_ps()));
  y = copysign(y, x);  // f(±0) = ±0, tiny negatives −0
  // NaN passes through; +inf too (inf/1 − inf·1 would be NaN).
  return _mm512_mask_mov_ps(y, _mm512_fpclass_ps_mask(x, 0x01 | 0x80 | 0x08), x);
}

/// e^−z for z in [−80, 80], unrounded: scaled·(1 + q), scaled = 2^m·T_j (k holds n = 32m + j in its low
/// mantissa bits; exp2_scaled), relative error < 2^-29.5.
struct ExpZ {
  __m512 scaled, q;
};
/// e^−z for the fast paths, z = a·u with u = x (the sigmoid form) or x·(pu.h + pu.l), pu = 1 + c·x² (the tanh
/// form; sh = fl(x²)). n = round(−u/L) from any rounding of −z·32/ln2 (the tanh form's from x·(a' + b'·x²)
/// with the constants prescaled, beside pu's chain rather than after it: k, r and q are on the kernels'
/// longest dependency chain, and a shorter one lets more vectors overlap); r' = −u − n·L, its first step
/// exact (Sterbenz): for the sigmoid form −n·lhi − x in one fma, for the tanh form −n·lhi straight from k
/// (−k·lhi + magic·lhi is exact inside the fma and a float) and then u's two parts; then e^(a·r')·(1 + rel) −
/// 1 = rel + r'·(a1 + r'·(a2 + r'·a3)), a1 = a, a2 = a²/2, a3 = a³/6, by Horner (|a·r'| <= ln2/64: truncation
/// < 2^-30.7; a's rounding adds < 2^-30.5). Horner's three fmas replaced r'² and two fmas beside it (one
/// multiply fewer, a longer chain), faster on the Xeon (core/src/simd/README.md). One instruction fewer than
/// reducing a·u (the sigmoid form's a·x needs no pair; the tanh form's 1 + c·x² needs no low constant). kUnit
/// (SiLU, a = 1): the same with compile-time constants (fewer registers held).
template <Form kForm, bool kUnit = false>
GELU_INLINE ExpZ exp_neg_z(__m512 x, Pair pu, __m512 sh, const Regs& t) {
  __m512 k;
  if constexpr (kForm == Form::Sigmoid) {
    (void)sh, (void)pu;
    k = _mm512_fmadd_ps(x, t.neg_slope_scaled, _mm512_set1_ps(kRoundMagicF));
  } else {
    k = _mm512_fmadd_ps(x, _mm512_fmadd_ps(t.neg_b_scaled, sh, t.neg_slope_scaled),
                        _mm512_set1_ps(kRoundMagicF));
  }
  const __m512 n = _mm512_sub_ps(k, _mm512_set1_ps(kRoundMagicF));
  if constexpr (kUnit) {
    const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Over32Lo),
                                      _mm512_fnmsub_ps(n, _mm512_set1_ps(kLn2Over32Hi), x));
    const __m512i kb = _mm512_castps_si512(k);
    const __m512 q =
        _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_fmadd_ps(r, _mm512_set1_ps(1.0f / 6.0f), _mm512_set1_ps(0.5f)),
                                        r, _mm512_set1_ps(1.0f)),
                        r, t.exp_rel(kb));
    return {exp2_scaled(t.exp_hs(kb), kb), q};
  }
  __m512 r;
  if constexpr (kForm == Form::Sigmoid) {
    r = _mm512_fnmsub_ps(n, t.lhi, x);  // −n·lhi − x, exact
  } else {
    const __m512 nl = _mm512_fnmadd_ps(k, t.lhi, t.magic_lhi);  // −n·lhi
    r = _mm512_fnmadd_ps(x, pu.l, _mm512_fnmadd_ps(x, pu.h, nl));
  }
  r = _mm512_fnmadd_ps(n, t.llo, r);
  const __m512i kb = _mm512_castps_si512(k);
  const __m512 scaled = exp2_scaled(t.exp_hs(kb), kb);
  const __m512 q =
      _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_fmadd_ps(r, t.a3, t.a2), r, t.a1), r, t.exp_rel(kb));
  return {scaled, q};
}

/// pu = 1 + c·x² as a pair for the tanh form from x² = sh + sl split exactly (1 − ph is exact for ph in [1,
/// 2^24)).
GELU_INLINE Pair unit_slope_sq(__m512 sh, __m512 sl, const Regs& t) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 h = _mm512_fmadd_ps(t.ch, sh, one);
  const __m512 e = _mm512_fmadd_ps(t.ch, sh, _mm512_sub_ps(one, h));
  return {h, _mm512_fmadd_ps(t.ch, sl, _mm512_fmadd_ps(t.cl, sh, e))};
}
/// pu = 1 + c·x² as a pair for the tanh form (1 − ph is exact for ph in [1, 2^24)), and x² split exactly.
template <Form kForm>
GELU_INLINE Pair unit_slope(__m512 x, const Regs& t, __m512& sh, __m512& sl) {
  if constexpr (kForm == Form::Sigmoid) {
    (void)x, (void)t, (void)sh, (void)sl;
    return {_mm512_setzero_ps(), _mm512_setzero_ps()};
  } else {
    sh = _mm512_mul_ps(x, x);
    sl = _mm512_fmsub_ps(x, x, sh);
    return unit_slope_sq(sh, sl, t);
  }
}

/// The exact error of dh = fl(1 + e) on the fast paths (see kZFastSigmoid).
template <Form kForm>
GELU_INLINE __m512 low_of_one_plus(__m512 e, __m512 dh) {
  const __m512 one = _mm512_set1_ps(1.0f);
  if constexpr (kForm == Form::Sigmoid)
    return _mm512_add_ps(_mm512_sub_ps(one, dh), e);
  else
    return _mm512_add_ps(_mm512_sub_ps(_mm512_max_ps(one, e), dh), _mm512_min_ps(one, e));
}

/// f where every lane has |x| <= xfast (|z| <= 80, or 16 for the sigmoid form; NaN and ±inf are beyond): f =
/// x / (1 + E), E = e^−z rounded once, D = 1 + E as an exact pair (its error (1 − dh) + E for the sigmoid
/// form, see kZFastSigmoid; Fast2Sum on the larger operand for the tanh form), the quotient as in divide_fast
/// (x has no low part). Error: E's rounding (<= 1/2 ULP of f) + the quotient's (1/2 ULP + 2^-28)
/// + < 2^-28. f(±0) = ±0 comes out of divide_fast; NaN and ±inf never reach this path.
template <Form kForm, bool kUnit>
GELU_INLINE __m512 f_fast(__m512 x, const Regs& r) {
  __m512 sh, sl;
  const Pair pu = unit_slope<kForm>(x, r, sh, sl);  // (before sh is read)
  const ExpZ ez = exp_neg_z<kForm, kUnit>(x, pu, sh, r);
  const __m512 e = _mm512_fmadd_ps(ez.scaled, ez.q, ez.scaled);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 dh = _mm512_add_ps(one, e);
  return divide_fast(x, dh, low_of_one_plus<kForm>(e, dh));
}

/// Lanes with |x| > lim or NaN (or ±inf), lim2 being lim's bit pattern shifted left by one and limsq
/// fl(lim²). The tanh form squares x anyway: one compare of x² against fl(lim²), unordered counting as beyond
/// (a float x with fl(x²) <= fl(lim²) is at most two ULPs above lim, well inside the fast paths' margins: |z|
/// <= 80 of the ~87 where e^−z stays normal, 40 of the 44 where D² stays finite, a + 3b·x² < 15.5 of 16). The
/// sigmoid form: one shift and an unsigned compare of the bit patterns.
template <Form kForm>
GELU_INLINE __mmask16 beyond(__m512 x, __m512i lim2, __m512 limsq) {
  if constexpr (kForm == Form::Tanh)
    return _mm512_cmp_ps_mask(_mm512_mul_ps(x, x), limsq, _CMP_NLE_UQ);
  else
    return _mm512_cmpgt_epu32_mask(magnitude_bits(x), lim2);
}

template <Form kForm, bool kUnit = false>
GELU_INLINE __m512 f_vec(__m512 x, const Regs& r) {
  if (beyond<kForm>(x, r.xfast2, r.xfast_sq)) return f_general<kForm>(x, r);
  return f_fast<kForm, kUnit>(x, r);
}

// [SECTION] f′ and its root

/// f' where every lane has |x| <= xfast_d1 (|z| <= 40; NaN and ±inf are beyond it and take d1_general). With
/// E = e^−z (signed z), D = 1 + E and w = x·z'(x): f' = σ + w·σ(1 − σ) = (1 + E·(1 + w)) / D². The numerator
/// cancels near the root of f' (E·(1 + w) -> −1): there 1 + wh is exact, E = Eh + El and w = wh + wl are
/// pairs, and fma(Eh, 1 + wh, 1) rounds once. D and D² are exact pairs; divide_fast rounds the quotient once.
/// Within the root's window the caller substitutes δ·P(δ). f'(±0) = 1/2 comes out of the formula, so no
/// fix-up.
template <Form kForm, bool kUnit>
GELU_INLINE __m512 d1_fast(__m512 x, const Regs& r) {
  __m512 sh, sl;
  const Pair pu = unit_slope<kForm>(x, r, sh, sl);  // (before sh is read)
  const ExpZ ez = exp_neg_z<kForm, kUnit>(x, pu, sh, r);
  Pair w;  // x·z'(x): z' = a for the sigmoid form, a + 3b·x² for the tanh form
  if constexpr (kUnit)
    w = {x, _mm512_setzero_ps()};
  else if constexpr (kForm == Form::Sigmoid)
    w = times(x, {r.ah, r.al});
  else
    w = times(x, a_plus_g_s_fast(r.ah, r.al, r.b3h, r.b3l, sh, sl));
  const __m512 eh = _mm512_fmadd_ps(ez.scaled, ez.q, ez.scaled);
  const __m512 el = _mm512_fmadd_ps(ez.scaled, ez.q, _mm512_sub_ps(ez.scaled, eh));  // Sterbenz: exact
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 a = _mm512_add_ps(one, w.h);  // exact where it matters (w ≈ −1.28)
  const __m512 nh = _mm512_fmadd_ps(eh, a, one);
  // (SiLU's w has no low part; fma(eh, 0, ·) is not folded away, since eh·0 could be NaN for the compiler.)
  const __m512 nl = kUnit ? _mm512_mul_ps(el, a) : _mm512_fmadd_ps(eh, w.l, _mm512_mul_ps(el, a));
  const __m512 dh = _mm512_add_ps(one, eh);
  const __m512 dx = low_of_one_plus<kForm>(eh, dh);
  // D² = d2h + 2dh·(dx + el) + err(dh²); dx + el rounds at 2^-24 of a term below 2^-23·D (negligible), and
  // takes an add's slot where an fma of el would take an fma's, one step off the chain to the quotient.
  const __m512 d2h = _mm512_mul_ps(dh, dh);
  const __m512 dh2 = _mm512_add_ps(dh, dh);
  const __m512 d2l = _mm512_fmadd_ps(dh2, _mm512_add_ps(dx, el), _mm512_fmsub_ps(dh, dh, d2h));
  return divide_fast(nh, nl, d2h, d2l);
}

/// The lanes within the window around the root of f' (two compares).
GELU_INLINE __mmask16 root_window(__m512 x, const Regs& r) {
  return _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(x, r.win_lo, _CMP_GE_OQ), x, r.win_hi, _CMP_LE_OQ);
}
/// δ·P(δ) in the lanes `near`, δ = (x − r0h) − r0l with x − r0h exact.
GELU_INLINE __m512 root_poly(__m512 x, __m512 y, __mmask16 near, const Regs& r) {
  const __m512 dhi = _mm512_sub_ps(x, r.r0h);
  const __m512 delta = _mm512_sub_ps(dhi, r.r0l);
  __m512 poly = r.rc[kDegRoot];
  for (int i = kDegRoot - 1; i >= 0; --i) poly = _mm512_fmadd_ps(poly, delta, r.rc[i]);
  return _mm512_mask_mov_ps(y, near, _mm512_fmsub_ps(dhi, poly, _mm512_mul_ps(r.r0l, poly)));
}
GELU_INLINE __m512 near_root(__m512 x, __m512 y, const Regs& r) {
  const __mmask16 near = root_window(x, r);
  return near ? root_poly(x, y, near, r) : y;
}

/// f' for any input (the general path: e scaled after the division). Out of line, as f_general.
template <Form kForm>
GELU_COLD __m512 d1_general(__m512 x, const Regs& r) {
  const __m512 xn = _mm512_range_ps(x, r.tmax, 0x0E);
  const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  Pair u, wn;
  exponent<kForm, true>(xn, r, u, wn);
  const Exp e = exp_pieces(u, r);
  const __m512 eh = _mm512_scalef_ps(e.T, e.ns);
  const __m512 el = _mm512_mul_ps(eh, e.P);
  const __m512 one = _mm512_set1_ps(1.0f);
  const Pair d = one_plus(eh, el);
  // C = D + g·wn with g = 1 (x <= 0: Dh + wnh is exact where they cancel) or g = −e (x > 0: a sum of
  // positives).
  const __m512 neg_eh = _mm512_sub_ps(_mm512_setzero_ps(), eh);
  const __m512 gh = _mm512_mask_mov_ps(one, pos, neg_eh);
  const __m512 gl = _mm512_maskz_sub_ps(pos, _mm512_setzero_ps(), el);
  const __m512 ch = _mm512_fmadd_ps(gh, wn.h, d.h);
  const __m512 cl = _mm512_fmadd_ps(gh, wn.l, _mm512_fmadd_ps(gl, wn.h, d.l));
  // N = m·C with m = 1 (x > 0) or T·(1 + P) (x <= 0, scaled by 2^m after the division).
  const __m512 mh = _mm512_mask_mov_ps(e.T, pos, one);
  const __m512 ml = _mm512_maskz_mul_ps(static_cast<__mmask16>(~pos), e.T, e.P);
  const __m512 p = _mm512_mul_ps(mh, ch);
  const Pair num = fast2sum(p, _mm512_fmadd_ps(ml, ch, _mm512_fmadd_ps(mh, cl, _mm512_fmsub_ps(mh, ch, p))));
  // D² as a pair.
  const __m512 d2h = _mm512_mul_ps(d.h, d.h);
  const __m512 d2l = _mm512_fmadd_ps(_mm512_add_ps(d.h, d.h), d.l, _mm512_fmsub_ps(d.h, d.h, d2h));
  __m512 y = divide(num, {d2h, d2l});
  y = _mm512_scalef_ps(y, _mm512_mask_mov_ps(e.ns, pos, _mm512_setzero_ps()));
  y = near_root(x, y, r);
  return _mm512_mask_mov_ps(y, _mm512_fpclass_ps_mask(x, 0x01 | 0x80), x);  // NaN in, NaN out
}

/// The sigmoid form's lanes that the fast path hands to δ·P(δ): those whose exponential reduces by n = n0,
/// the bin of the root (z in [−1.2888, −1.2672), within the window; see Consts::root_bin): one integer
/// compare of k (the fma exp_neg_z computes too, so the compiler shares it) against the window's two.
GELU_INLINE __mmask16 in_root_bin(__m512 x, const Regs& r) {
  const __m512 k = _mm512_fmadd_ps(x, r.neg_slope_scaled, _mm512_set1_ps(kRoundMagicF));
  return _mm512_cmpeq_epi32_mask(_mm512_castps_si512(k), r.root_bin);
}

template <Form kForm, bool kUnit = false>
GELU_INLINE __m512 d1_vec(__m512 x, const Regs& r) {
  // One branch for both rare cases (a lane beyond the fast range, a lane near the root).
  const __mmask16 far = beyond<kForm>(x, r.xfast_d1_2, r.xfast_d1_sq),
                  near = kForm == Form::Sigmoid ? in_root_bin(x, r) : root_window(x, r);
  const __m512 y = d1_fast<kForm, kUnit>(x, r);
  if (_kortestz_mask16_u8(far, near)) [[likely]]  // (not !(far | near): GCC moves both masks out, 2 kmovw)
    return y;
  if (far) return d1_general<kForm>(x, r);
  return root_poly(x, y, near, r);
}

/// The sigmoid form's f′ on two vectors with one range test for both: the larger of their shifted bit
/// patterns (`vpmaxud`, which does not take an FMA pipe on Zen 4) against the limit, one compare where d1_vec
/// spends one per vector. Where it fires (|z| > 16, NaN or ±inf in either vector: rare) each vector takes
/// d1_vec, so every lane keeps the value its own x gives it, whatever the other vector holds. Faster on Zen 4
/// (docs/perf-log/2026-11-28.md, "Zen 4: one range test for two vectors").
template <bool kUnit>
GELU_INLINE void d1_32_sigmoid(__m512& a, __m512& b, const Regs& r) {
  const __mmask16 far =
      _mm512_cmpgt_epu32_mask(_mm512_max_epu32(magnitude_bits(a), magnitude_bits(b)), r.xfast_d1_2);
  const __mmask16 near_a = in_root_bin(a, r), near_b = in_root_bin(b, r);
  const __m512 ya = d1_fast<Form::Sigmoid, kUnit>(a, r), yb = d1_fast<Form::Sigmoid, kUnit>(b, r);
  if (far) [[unlikely]] {
    a = d1_vec<Form::Sigmoid, kUnit>(a, r);
    b = d1_vec<Form::Sigmoid, kUnit>(b, r);
    return;
  }
  a = near_a ? root_poly(a, ya, near_a, r) : ya;
  b = near_b ? root_poly(b, yb, near_b, r) : yb;
}

/// The tables of RBins (Table32) or RBins16 (Table16) in registers.
template <class RB, class Table>
struct RRegs {
  using Bins = RB;
  Table edge, rho, beta;
  std::array<Table, RB::kDegR> fc;
  __m512 k0, shift, tmax_sq;
  explicit RRegs(const RB& b)
      : edge(b.edge.data()),
        rho(b.rho.data()),
        beta(b.beta.data()),
        fc(tables_of<Table, RB::kDegR>([&](int i) { return b.fc[static_cast<std::size_t>(i)].data(); })),
        k0(_mm512_set1_ps(b.k0)),
        shift(_mm512_set1_ps(b.shift)),
        tmax_sq(_mm512_set1_ps(b.tmax * b.tmax)) {}
};

/// The tanh form's f' by bins (RBins) where every lane has |x| <= tmax: e = e^−|z| = Ts·(1 + q) unrounded
/// (exp_neg_z on t = |x|, sh = fl(x²)), V = r_k·A exact (A = d or 2), and e·R = Ts·V + Ts·(r_k·F + q·(V +
/// r_k·F)) in one fma, its product Ts·V exact inside it. x > 0: 1 − e·R, where |e·R| <= 1/2 rounds at most at
/// the result's ULP.
template <class RR>
GELU_INLINE __m512 d1_bins(__m512 x, __m512 sh, const Regs& r, const RR& rb) {
  constexpr int kDegR = RR::Bins::kDegR;
  const __m512 t = _mm512_abs_ps(x);
  const ExpZ ez = exp_neg_z<Form::Tanh>(t, unit_slope_sq(sh, _mm512_fmsub_ps(t, t, sh), r), sh, r);
  const __m512i b = _mm512_srli_epi32(_mm512_castps_si512(_mm512_add_ps(t, rb.shift)), 20);
  const __m512 d = _mm512_sub_ps(t, rb.edge(b));
  __m512 rf = rb.fc[kDegR - 1](b);  // r_k·F = K + d·r_k·G(d) (the table holds r_k times G's coefficients)
  for (int i = kDegR - 2; i >= 0; --i) rf = _mm512_fmadd_ps(rf, d, rb.fc[i](b));
  rf = _mm512_fmadd_ps(rf, d, rb.k0);
  const __m512 V = _mm512_fmadd_ps(d, rb.rho(b), rb.beta(b));  // r_k·A, exact
  const __m512 corr = _mm512_fmadd_ps(ez.q, _mm512_add_ps(V, rf), rf);
  const __m512 g = _mm512_fmadd_ps(ez.scaled, V, _mm512_mul_ps(ez.scaled, corr));
  const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  return _mm512_mask_sub_ps(g, pos, _mm512_set1_ps(1.0f), g);
}

template <class RR>
GELU_INLINE __m512 d1_vec_bins(__m512 x, const Regs& r, const RR& rb) {
  const __m512 sh = _mm512_mul_ps(x, x);
  const __mmask16 far = _mm512_cmp_ps_mask(sh, rb.tmax_sq, _CMP_NLE_UQ);
  const __m512 y = d1_bins(x, sh, r, rb);
  if (far) [[unlikely]]
    return d1_general<Form::Tanh>(x, r);
  return y;
}

// [SECTION] Loops and entry points

template <Form kForm>
void run_f(const float* x, float* y, std::size_t n, double param) {
  const Regs r(consts(kForm, param));
  if (kForm == Form::Sigmoid && param == 1.0)
    run_f32<false>(x, nullptr, y, n, [&](__m512 v) { return f_vec<kForm, true>(v, r); });
  else
    run_f32<false>(x, nullptr, y, n, [&](__m512 v) { return f_vec<kForm>(v, r); });
}
template <Form kForm, bool kUnit>
void run_d1_as(const float* x, const float* dy, float* y, std::size_t n, const Regs& r) {
  const auto one = [&](__m512 v) GELU_LAMBDA_INLINE { return d1_vec<kForm, kUnit>(v, r); };
  if constexpr (kForm == Form::Sigmoid) {
    const auto two = [&](__m512& a, __m512& b) GELU_LAMBDA_INLINE { d1_32_sigmoid<kUnit>(a, b, r); };
    if (dy)
      run_f32<true>(x, dy, y, n, one, two);
    else
      run_f32<false>(x, nullptr, y, n, one, two);
  } else if (dy) {
    run_f32<true>(x, dy, y, n, one);
  } else {
    run_f32<false>(x, nullptr, y, n, one);
  }
}
/// The tanh form's f′ by bins with the tables of rb (RRegs).
template <class RR>
void run_d1_bins(const float* x, const float* dy, float* y, std::size_t n, const Regs& r, const RR& rb) {
  if (dy)
    run_f32<true>(x, dy, y, n, [&](__m512 v) { return d1_vec_bins(v, r, rb); });
  else
    run_f32<false>(x, nullptr, y, n, [&](__m512 v) { return d1_vec_bins(v, r, rb); });
}
/// The bins the tanh form's f′ with cubic coefficient c takes when asked for `bins` (16 or 32): that layout
/// where its tables passed their check, else the 32 where those did, else 0 (the quotient kernel).
int tanh_d1_layout(double c, int bins) {
  if (bins == 16 && consts_with_rbins(c, 16).rb16.ok) return 16;
  return consts_with_rbins(c, 32).rb.ok ? 32 : 0;
}
template <Form kForm>
void run_d1(const float* x, const float* dy, float* y, std::size_t n, double param, int bins = fast_bins()) {
  const Consts& c = consts(kForm, param);
  const Regs r(c);
  if constexpr (kForm == Form::Tanh) {
    // tanh_d1_layout builds the bins in c (the same cache entry: the same form and parameter).
    const int layout = tanh_d1_layout(param, bins);
    if (layout == 16) return run_d1_bins(x, dy, y, n, r, RRegs<RBins16, Table16>(c.rb16));
    if (layout == 32) return run_d1_bins(x, dy, y, n, r, RRegs<RBins, Table32>(c.rb));
  }
  if (kForm == Form::Sigmoid && param == 1.0)
    run_d1_as<kForm, true>(x, dy, y, n, r);
  else
    run_d1_as<kForm, false>(x, dy, y, n, r);
}

#endif  // GELU_AVX512

}  // namespace

#ifdef GELU_AVX512

void x_sigmoid_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run_f<Form::Sigmoid>(x, y, n, p[0]);
}
void x_sigmoid_d1_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run_d1<Form::Sigmoid>(x, nullptr, y, n, p[0]);
}
void x_sigmoid_backward_f32(const float* x, const float* dy, float* dx, std::size_t n, const Params& p) {
  run_d1<Form::Sigmoid>(x, dy, dx, n, p[0]);
}
void gelu_tanh_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run_f<Form::Tanh>(x, y, n, p[0]);
}
void gelu_tanh_d1_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run_d1<Form::Tanh>(x, nullptr, y, n, p[0]);
}
void gelu_tanh_backward_f32(const float* x, const float* dy, float* dx, std::size_t n, const Params& p) {
  run_d1<Form::Tanh>(x, dy, dx, n, p[0]);
}
void gelu_tanh_d1_bins_f32(const float* x, const float* dy, float* y, std::size_t n, const Params& p,
                           int bins) {
  run_d1<Form::Tanh>(x, dy, y, n, p[0], bins == 16 ? 16 : 32);
}

int gelu_tanh_d1_by_bins(double c, int bins) {
  return tanh_d1_layout(c, bins == 0 ? fast_bins() : bins);
}

// [SECTION] The tanh form on bf16 inputs

void gelu_tanh_bf16(Bf16Op op, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y,
                    std::size_t n, bool bf16_insn) {
  bf16_by_table(op, true, x, dy, y, n, bf16_insn);
}

#else  // No AVX-512: the correctly rounded kernels (which are then the double reference, rounded).

void x_sigmoid_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  x_sigmoid_f32(x, y, n, p);
}
void x_sigmoid_d1_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  x_sigmoid_d1_f32(x, y, n, p);
}
void x_sigmoid_backward_f32(const float* x, const float* dy, float* dx, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) dx[i] = dy[i] * static_cast<float>(F::x_sigmoid_d1(x[i], p[0]));
}
void gelu_tanh_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  gelu_tanh_f32(x, y, n, p);
}
void gelu_tanh_d1_fast_f32(const float* x, float* y, std::size_t n, const Params& p) {
  gelu_tanh_d1_f32(x, y, n, p);
}
void gelu_tanh_backward_f32(const float* x, const float* dy, float* dx, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) dx[i] = dy[i] * static_cast<float>(F::gelu_tanh_d1(x[i], p[0]));
}
void gelu_tanh_d1_bins_f32(const float* x, const float* dy, float* y, std::size_t n, const Params& p, int) {
  if (dy)
    gelu_tanh_backward_f32(x, dy, y, n, p);
  else
    gelu_tanh_d1_fast_f32(x, y, n, p);
}
int gelu_tanh_d1_by_bins(double, int) {
  return 0;
}

#endif

}  // namespace gelu::simd

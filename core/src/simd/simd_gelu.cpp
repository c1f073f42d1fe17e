// [SECTION] Vectorized float32 GELU (f, f', backward), <= 1 ULP / <= 2 ULP for every finite input.
//
// The idea. With t = |x| and G(t) = t·Φ(−t) (>= 0):
//     gelu(x) = max(x, 0) − G(t)          (for x < 0 that is −G(t); for x > 0 it is x − x·Φ(−x))
//     G(t)    = exp(−t²/2) · t · S(t),     S(t) = Φ(−t)·exp(t²/2) = erfcx(t/√2)/2, smooth, in (0.027, 0.5]
// exp(−t²/2) = 2^m · T_j · (1 + q(r)) with t² split exactly (t² = h + l via fma), a 32-entry table T_j =
// 2^(j/32) and |r| <= ln2/64; S(t) = s_k · (1 + f_k(d)) over 32 bins (8 per binade of t+1 on [1, 16)), d = t
// − m_k from a float m_k near the bin's middle where s_k = fl(S(m_k)) is within 2^-32 of S(m_k), so f_k(d) =
// d·P_k(d) with P_k of degree 4 and |f_k| < 0.08 (no constant term: one table fewer). Every table is a
// vpermt2ps from two registers. The pieces are
// assembled with an error-free product (s_k·t), G = T·V + T·corr in one fma (T·V exact inside it) and, for
// lanes in the tail, a Fast2Sum against max(x, 0), so the rounding that matters is the last one: the error is
// 0.5 ULP + ~2^-27 relative (measured <= 1 ULP over all 2^32 inputs).
//
// f itself takes a leaner form of the same pieces for t <= 7.375 (gelu_fast: a 16-entry 2^(j/16) table in one
// register, 32 bins of degree 4 on [0, 7.5), table entries short enough that 2^m·T_j·s_k is an exact product;
// fewer FMA and permute instructions, which bound the loop);
// lanes beyond, NaN and ±inf take the general pieces above, so a lane's value never depends on its
// neighbours.
//
// f'(x) = Φ(x) + x·φ(x) = [x > 0] + sign·E(t)·(t/√(2π) − S(t)) uses the same pieces; within 1/16 of its root
// r0 ≈ −0.7518 (where that difference cancels) it is δ·P(δ), δ = x − r0, a polynomial fitted at start-up,
// which arrays get in a second pass over the vectors that have such a lane (run_f32_root_two_pass).
//
// All tables are built at start-up from formulas.hpp, the double-precision source of truth.
//
// Index of this file:
//   [SECTION] Constants and tables
//   [SECTION] The pieces and their assembly
//   [SECTION] f's fast path
//   [SECTION] f′
//   [SECTION] The portable f
//   [SECTION] Entry points
//   [SECTION] bf16 inputs
//   [SECTION] Portable build
#include "simd_gelu.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "formulas.hpp"
#include "simd_config.hpp"
#include "simd_fit.hpp"
#ifdef GELU_AVX512
#include "simd_bf16.hpp"
#include "simd_loop.hpp"
#endif

namespace gelu::simd {
namespace {

namespace F = formulas;

// [SECTION] Constants and tables

constexpr int kBins = 32;    // S(t) bins; index = bits(t + 1) >> 20 (low 5 bits): 8 per binade on [1, 16)
constexpr int kDegS = 5;     // degree of f_k = d·P_k (P_k: kDegS coefficients)
constexpr int kDegRoot = 5;  // degree of P around the root of f'
static_assert(kDegRoot % 2 == 1,
              "an even node count keeps the Chebyshev nodes off delta = 0, where f'/delta is 0/0");
constexpr float kTMax = 14.75f;  // beyond, G(t) < 2^-155: clamping t changes nothing after rounding
// f's own bins (gelu_fast): u = t + 2.5 indexed by bits(u) >> 19, 16 per binade: 12 bins of 1/8 on t in [0,
// 1.5) (u in [2.5, 4)), 16 of 1/4 on [1.5, 5.5) (u in [4, 8)) and 4 of 1/2 on [5.5, 7.5) (u in [8, 10), whose
// index bits alias u in [2, 2.5), which t >= 0 never reaches). f_k = d·P_k with kDegF coefficients: relative
// error <= 2^-26.6 (first bin of [1.5, 5.5)) against 2^-29 for the 8-per-binade bins of degree 5 above.
constexpr int kDegF = 4;
constexpr float kShiftF = 2.5f;
[[maybe_unused]] constexpr int kIndexShiftF =
    19;  // bits(t + kShiftF) >> 19: the bin's index in the low 5 bits
// f's bins end at t = 7.5; beyond kFastF (or NaN, ±inf) a lane takes the general path.
constexpr float kFastF = 7.375f;
// f's products 2^m·T_j·s_k are exact: T_j = 2^(j/16) to kTBitsF significant bits and s_k to the rest.
constexpr int kTBitsF = 8;
constexpr int kSBitsF = 24 - kTBitsF;
// f's reduction without a low part of ln2/8: n = round(−t²·8/ln2) and r2 = t² + n·kC4F in one fma, n·kC4F
// itself an exact fma of k = n + kRoundMagicF (kC4F has 12 significant bits and |n| <= 628 at t <= 7.375, so
// n·kC4F is a float). kC4F is not ln2/8: with ε = ln2/8 − kC4F, e^(−t²/2) = 2^(n/16)·e^(−r2_true/2) and
// r2_true = r2
// + n·ε = r2 + ε·(r2 − t²)/kC4F, so e^(−t²/2) = 2^(n/16)·e^(t²·ε/(2·kC4F))·e^(−(r2/2)·(1 + ε/kC4F)), exactly:
// the first factor, smooth in t, goes into S's bins (they fit S(t)·e^(kGaussF·t²)), the second into the
// polynomial (e^(−kAlphaF·x/2) − 1), and |n·ε| <= 2^-8.6 widens its range a little.
constexpr double kC4F = 0x1.62ep-4;  // ln2/8 to 12 bits
constexpr double kEpsF = 0.693147180559945309417232121458176568 / 8 - kC4F;
constexpr double kAlphaF = 1 + kEpsF / kC4F;
constexpr double kGaussF = kEpsF / (2 * kC4F);
static_assert(kC4F * 0x1p15 == static_cast<double>(static_cast<long>(kC4F * 0x1p15)) && kC4F * 0x1p15 < 4096,
              "kC4F has 12 significant bits");
static_assert(static_cast<double>(kFastF) * kFastF * 8 / 0.6931 < 1023,
              "|n| < 2^10 on the fast path: n·kC4F has at most 22 significant bits");
// Beyond 1/16 from the root the main path's absolute error (~2^-29.5, the rounding of f) is under 2 ULP of
// f'.
constexpr double kRootHalfWidth = 1.0 / 16;

/// S(t) = Φ(−t)·exp(t²/2) in double (relative error ~1e-15).
double S_ref(double t) {
  return F::normal_upper_tail(t) * std::exp(0.5 * t * t);
}

struct Tables {
  alignas(64) float s_mid[kBins];       // m_k, the bin's expansion point in t (0 for the first bin)
  alignas(64) float s_k[kBins];         // S(m_k) rounded to float, within 2^-32 of it (float_point_near)
  alignas(64) float s_c[kDegS][kBins];  // f_k(d) = S(m_k + d)/s_k − 1 = d·Σ c_i d^i
  alignas(64) float f_mid[kBins];       // f's bins (gelu_fast): as above, of S(t)·e^(kGaussF·t²)
  alignas(64) float f_k[kBins];
  alignas(64) float f_c[kDegF][kBins];
  alignas(64) float f_exp_d[16];  // −2·ln(2^(j/16)/T_j)/kAlphaF (T_j of exp2_table<4, kTBitsF>), added to r2
  float f_e[3] = {};              // e^(−kAlphaF·r2/2) − 1 ≈ r2·(f_e[0] + r2·(f_e[1] + r2·f_e[2]))
  float root_hi = 0, root_lo = 0;   // root of f' as a float pair
  float root_c[kDegRoot + 1] = {};  // f'(r0 + δ) ≈ δ·Σ c_i δ^i
};

/// One bin of S(t) on [t0, t1): its expansion point m (a float near the middle where S(m) is within 2^-32 of
/// s = fl(S(m)): float_point_near, Gal's accurate-table idea), s, and f(d) = S(m + d)/s − 1 = d·Σ c_i d^i.
/// Because f(0) = S(m)/s − 1 is below 2^-32, f needs no constant term: one table and one lookup fewer per
/// vector. The fit reaches a little beyond the bin: t + shift rounds, so a t just below an edge can land in
/// this bin. P(d) = f(d)/d at Chebyshev nodes, the middle one moved off d = 0 (f(0)/0).
/// With `bits` < 24, s has that many significant bits (short_point_near), m and s as before. With `g` != 0
/// the bin fits S(t)·e^(g·t²) in place of S (f's bins: kGaussF).
template <int K>
void fit_bin(double t0, double t1, int b, float* mid, float* sk, float (*coef)[kBins], int bits = 24,
             double g = 0) {
  auto S_g = [g](double v) { return S_ref(v) * std::exp(g * v * v); };
  float m;
  if (bits < 24) {
    const ShortEntry e = short_point_near(
        0.5 * (t0 + t1), bits, [&](float v) { return S_g(v); },
        [&](float v) {  // (S·e^(g·t²))′ with S′ = t·S − 1/√(2π)
          return std::exp(g * v * v) * (v * S_ref(v) - F::kInvSqrt2Pi) + 2 * g * v * S_g(v);
        });
    m = e.m;
    sk[b] = e.s;
  } else {
    m = float_point_near(0.5 * (t0 + t1), [&](float v) { return S_g(v); });
    sk[b] = static_cast<float>(S_g(m));
  }
  mid[b] = m;
  const double w = t1 - t0, pad = 1e-3 * w;
  auto xs = chebyshev_nodes<K>(std::max(t0 - pad, 0.0) - m, t1 + pad - m);
  for (double& xn : xs)
    if (std::fabs(xn) < 1e-2 * w) xn = std::copysign(1e-2 * w, xn == 0 ? 1.0 : xn);
  std::array<double, K> ys{};
  for (int n = 0; n < K; ++n) ys[n] = (S_g(m + xs[n]) / sk[b] - 1.0) / xs[n];
  const auto c = interpolate<K>(xs, ys);
  for (int n = 0; n < K; ++n) coef[n][b] = static_cast<float>(c[n]);
}

Tables build_tables() {
  Tables tb{};
  for (int b = 0; b < kBins; ++b) {
    // Bin b covers u = t + 1 in [2^e (1 + i/8), 2^e (1 + (i+1)/8)) with e = 0..3; its index in the low 5 bits
    // of bits(u) >> 20 is ((127 + e) mod 4)·8 + i.
    const int e = ((b >> 3) + 1) & 3, i = b & 7;  // (127 + e) mod 4 == b >> 3  ->  e = (b>>3) + 1 mod 4
    const double u0 = std::ldexp(1.0 + i / 8.0, e), u1 = std::ldexp(1.0 + (i + 1) / 8.0, e);
    const double t0 = u0 - 1.0, t1 = std::min(u1 - 1.0, static_cast<double>(kTMax) + 0.25);
    // d = t − m_k is exact (Sterbenz: every t of the bin is within [m_k/2, 2·m_k], as t0 >= (t1 − t0)/2) in
    // all bins but the first, t in [0, 1/8): there t < m_k/2 = 1/32 rounds d, by less than 2^-29, which moves
    // f_k by less than 2^-29 (|S'/S| < 0.8).
    fit_bin<kDegS>(t0, t1, b, tb.s_mid, tb.s_k, tb.s_c);
    // f's bin with the same index: bits(u) >> 19 of u = t + 2.5 holds the binade's low exponent bit and the
    // top 4 mantissa bits; indices 0..3 are u in [8, 10), 4..15 u in [2.5, 4), 16..31 u in [4, 8).
    const double fu0 = b < 4 ? 8 + 0.5 * b : b < 16 ? 2 + b / 8.0 : 4 + (b - 16) / 4.0;
    const double fw = b < 4 ? 0.5 : b < 16 ? 0.125 : 0.25;
    fit_bin<kDegF>(std::max(fu0 - kShiftF, 0.0), fu0 + fw - kShiftF, b, tb.f_mid, tb.f_k, tb.f_c, kSBitsF,
                   kGaussF);
  }
  // f's exponential: 2^(n/16) = 2^m·2^(j/16) = 2^m·T_j·e^(δ_j), δ_j = ln(2^(j/16)/T_j) with T_j of kTBitsF
  // bits (|δ_j| <= 2^-kTBitsF), and with kC4F's correction (above) the factor left is e^(−(α/2)·(r2 −
  // 2δ_j/α)): r2 takes −2δ_j/α and e^(−α·x/2) − 1 is fitted on the wider range (least squares through 0 at 97
  // Chebyshev points, about minimax).
  const auto& ex = exp2_table<4, kTBitsF>();
  double dmax = 0;
  for (int j = 0; j < 16; ++j) {
    tb.f_exp_d[j] = static_cast<float>(-2 * ex.ln_rel[j] / kAlphaF);
    dmax = std::max(dmax, std::fabs(ex.ln_rel[j]));
  }
  {
    const double h =
        (2 * (0.693147180559945309417232121458176568 / 32 + dmax) + 640 * std::fabs(kEpsF)) * 1.001;
    const auto xs = chebyshev_nodes<97>(-h, h);
    std::array<double, 97> ys{}, ws{};
    for (int i = 0; i < 97; ++i) ys[i] = std::expm1(-0.5 * kAlphaF * xs[i]), ws[i] = 1;
    const auto c = least_squares_times_d<3>(xs, ys, ws);
    for (int i = 0; i < 3; ++i) tb.f_e[i] = static_cast<float>(c[i]);
  }
  // The root of f' by Newton on the double reference (f'' is its derivative).
  double r = -0.75;
  for (int it = 0; it < 50; ++it) {
    const double step = F::gelu_d1(r) / F::gelu_d2(r);
    r -= step;
    if (std::fabs(step) < 1e-17) break;
  }
  tb.root_hi = static_cast<float>(r);
  tb.root_lo = static_cast<float>(r - tb.root_hi);
  // P(δ) = f'(r0 + δ)/δ on |δ| <= 0.25 (Chebyshev nodes of even count avoid δ = 0).
  const double r0 = static_cast<double>(tb.root_hi) + static_cast<double>(tb.root_lo);
  const auto xs = chebyshev_nodes<kDegRoot + 1>(-kRootHalfWidth - 0.01, kRootHalfWidth + 0.01);
  std::array<double, kDegRoot + 1> ys{};
  for (int n = 0; n <= kDegRoot; ++n) ys[n] = F::gelu_d1(r0 + xs[n]) / xs[n];
  const auto c = interpolate<kDegRoot + 1>(xs, ys);
  for (int n = 0; n <= kDegRoot; ++n) tb.root_c[n] = static_cast<float>(c[n]);
  return tb;
}

[[maybe_unused]] const Tables& tables() {  // unused without AVX-512
  static const Tables tb = build_tables();
  return tb;
}

#ifdef GELU_AVX512

// ln2/32 as kLn2Over32Hi + kLn2Over32Lo and the rounding constant kRoundMagicF: simd_config.hpp (|n| < 2^13
// here).

struct Pieces {
  __m512 t;      // |x| clamped to kTMax
  __m512 Tsh;    // Exp2Table's hi_shifted entry: T = 2^(j/32) or 2^m·T with one integer add
  __m512 q;      // e^r·(1 + exp_rel) − 1
  __m512 scale;  // n/32: scalef applies 2^floor(n/32)
  __m512i kb;    // k's bits: n in the low mantissa bits (for the integer scaling)
  __m512 s_k;    // S at the bin midpoint
  __m512 f;      // S/s_k − 1
};

/// All tables in registers for the duration of one call (18 of the 32 zmm registers).
struct Regs {
  Table32 exp_hs, exp_rel, s_mid, s_k;  // Exp2Table's hi_shifted and rel
  Table32 c[kDegS];
  const Tables& tb;
  explicit Regs(const Tables& t)
      : exp_hs(exp2_table().hi_shifted),
        exp_rel(exp2_table().rel),
        s_mid(t.s_mid),
        s_k(t.s_k),
        c{Table32(t.s_c[0]), Table32(t.s_c[1]), Table32(t.s_c[2]), Table32(t.s_c[3]), Table32(t.s_c[4])},
        tb(t) {}
};

// [SECTION] The pieces and their assembly

/// Everything G(t), Φ(−t) and φ(t) need: exp(−t²/2) = 2^m·T·(1 + q) and S(t) = s_k·(1 + f).
GELU_INLINE Pieces pieces(__m512 x, const Regs& tb) {
  Pieces p;
  // min(|x|, kTMax) in one vrangeps (imm 0b1010: smaller magnitude, sign cleared). A NaN x makes t NaN; the
  // callers pass NaN lanes through from x.
  const __m512 t = _mm512_range_ps(x, _mm512_set1_ps(kTMax), 0x0A);
  p.t = t;
  // t² = hh + hl exactly. The reduction works on t² rather than −t²/2: every quantity below is the one for
  // −t²/2 times −2 (exact scalings), so the results are the same bits and the multiplication by −1/2 is
  // saved.
  const __m512 hh = _mm512_mul_ps(t, t);
  const __m512 hl = _mm512_fmsub_ps(t, t, hh);
  const __m512 k =
      _mm512_fmadd_ps(hh, _mm512_set1_ps(-23.083120654223414f), _mm512_set1_ps(kRoundMagicF));  // −16/ln2
  const __m512 n = _mm512_sub_ps(k, _mm512_set1_ps(kRoundMagicF));  // round(−t²/2·32/ln2)
  // r2 = −2r, r = −t²/2 − n·ln2/32 the reduced argument; the first step is exact.
  __m512 r2 = _mm512_fmadd_ps(n, _mm512_set1_ps(2 * kLn2Over32Hi), hh);
  r2 = _mm512_fmadd_ps(n, _mm512_set1_ps(2 * kLn2Over32Lo), r2);
  r2 = _mm512_add_ps(r2, hl);
  const __m512i j = _mm512_castps_si512(k);  // low 5 bits = n mod 32
  p.kb = j;
  p.Tsh = tb.exp_hs(j);
  const __m512 rel = tb.exp_rel(j);
  // e^r − 1 ≈ r + r²/2 + r³/6 = r2·(−1/2 + r2·(1/8 − r2/48)) (|r| <= 0.0109: truncation < 2^-30); the table's
  // rounding folded in.
  __m512 e = _mm512_fmadd_ps(r2, _mm512_set1_ps(-1.0f / 48.0f), _mm512_set1_ps(0.125f));
  e = _mm512_fmadd_ps(r2, e, _mm512_set1_ps(-0.5f));
  p.q = _mm512_fmadd_ps(r2, e, rel);
  p.scale = _mm512_mul_ps(n, _mm512_set1_ps(1.0f / 32.0f));
  // S(t) bins.
  const __m512 u = _mm512_add_ps(t, _mm512_set1_ps(1.0f));
  const __m512i b = _mm512_srli_epi32(_mm512_castps_si512(u), 20);
  const __m512 d = _mm512_sub_ps(t, tb.s_mid(b));
  __m512 poly = tb.c[kDegS - 1](b);
  for (int i = kDegS - 2; i >= 0; --i) poly = _mm512_fmadd_ps(poly, d, tb.c[i](b));
  p.f = _mm512_mul_ps(d, poly);
  p.s_k = tb.s_k(b);
  return p;
}

constexpr float kFastTMax = 11.5f;  // f′: below, G(t) > 2^-100: scaled products and residuals stay normal

/// gelu for 16 lanes from their pieces, for the lanes gelu_fast leaves (t > kFastF, NaN, ±inf): G may be tiny
/// or subnormal there, so it is scaled last and rounded once.
GELU_INLINE __m512 gelu_exact_tail(__m512 x, const Pieces& p) {
  // G = T·2^m·s_k·t·(1 + q)(1 + f) = P + corr, with (V, v) and (P, pl) exact products.
  const __m512 V = _mm512_mul_ps(p.s_k, p.t);
  const __m512 v = _mm512_fmsub_ps(p.s_k, p.t, V);
  const __m512 w = _mm512_add_ps(_mm512_fmadd_ps(p.q, p.f, p.q), p.f);
  const __m512 R = _mm512_max_ps(_mm512_set1_ps(-0.0f), x);  // x for x >= 0 (and −0, NaN), else −0
  const __m512 T = exp2_unscaled(p.Tsh, p.kb);
  const __m512 P = _mm512_mul_ps(T, V);
  const __m512 pl = _mm512_fmsub_ps(T, V, P);
  const __m512 corr = _mm512_fmadd_ps(T, _mm512_fmadd_ps(V, w, v), pl);
  // x < 0: −G rounded once, scaling last so a subnormal result rounds once too.
  const __m512 neg = _mm512_scalef_ps(_mm512_add_ps(P, corr), p.scale);
  const __m512 Ps = _mm512_scalef_ps(P, p.scale);
  const __m512 cs = _mm512_scalef_ps(corr, p.scale);
  const __m512 s = _mm512_sub_ps(R, Ps);
  const __m512 err = _mm512_sub_ps(_mm512_sub_ps(R, s), Ps);
  const __m512 pos = _mm512_sub_ps(s, _mm512_sub_ps(cs, err));
  const __mmask16 is_neg = _mm512_movepi32_mask(_mm512_castps_si512(x));
  const __m512 y = _mm512_mask_xor_ps(pos, is_neg, neg, _mm512_set1_ps(-0.0f));
  // NaN and +inf (where Fast2Sum meets inf − inf) pass x through.
  return _mm512_mask_mov_ps(y, _mm512_fpclass_ps_mask(x, 0x01 | 0x80 | 0x08), x);
}

// [SECTION] f's fast path

/// f's tables in registers: the 16-entry exponential table (one register each, vpermps) and f's 32 bins (14
/// of the 32 zmm registers).
struct RegsF {
  __m512 exp_hs, exp_d;  // T_j = 2^(j/16) to kTBitsF bits (as hi_shifted), −2·ln(2^(j/16)/T_j)
  __m512 e0, e1, e2;     // e^(−r2/2) − 1 ≈ r2·(e0 + r2·(e1 + r2·e2))
  Table32 mid, s_k;
  std::array<Table32, kDegF> c;
  explicit RegsF(const Tables& t)
      : exp_hs(_mm512_loadu_ps(exp2_table<4, kTBitsF>().hi_shifted)),
        exp_d(_mm512_loadu_ps(t.f_exp_d)),
        e0(_mm512_set1_ps(t.f_e[0])),
        e1(_mm512_set1_ps(t.f_e[1])),
        e2(_mm512_set1_ps(t.f_e[2])),
        mid(t.f_mid),
        s_k(t.f_k),
        c(tables_of<Table32, kDegF>([&](int i) { return t.f_c[i]; })) {}
};

/// gelu for the lanes with t <= kFastF; `tail` flags the others (t > kFastF, NaN), whose value here is not
/// used. G = 2^m·T·s_k·t·(1 + q)(1 + f) as in pieces(), with fewer instructions per vector than they need
/// (their number is what bounds this loop on Zen 5: ~0.4 cycle each, register copies free):
///   - exp(−t²/2) over 2^(j/16) (n = round(−t²/2·16/ln2)) — a vpermps from one register, no copy of a table
///     register per lookup;
///   - S over f's bins: degree 4, one coefficient and one vpermt2ps fewer, and u = t + 2.5 by one add;
///   - w = q + f + q·f as q + d·(1 + q)·P(d): two fmas, where f = d·P, then q·f + q, then + f took three;
///   - an exact product without the error-free split of s_k·t: T_j has kTBitsF = 8 significant bits and s_k
///     the other 16 (short_point_near finds m_k where S(m_k) is such a number to 2^-32), so TS = 2^m·T_j·s_k
///     is exact and G = TS·t + (TS·t)·w, TS·t exact inside the fma. T_j's own error (up to 2^-8) goes into
///     the reduced argument, r + δ_j with δ_j = ln(2^(j/16)/T_j) from a second vpermps, and e^(r + δ_j) − 1
///     is fitted on |r + δ_j| <= ln2/32 + 2^-8 (degree 3, error 2^-27.9 against the 2^-26.7 of the Taylor
///     polynomial on ln2/32 before). One FMA-pipe instruction fewer per vector than s_k·t split exactly
///     (mul + fmsub) and assembled as Ts·V + Ts·(V·w + v), faster on Zen 5 (core/src/simd/README.md,
///     "An exact product from short table entries");
///   - the reduction in three fmas: n·kC4F from k = n + kRoundMagicF (exact), then r2 = x² + n·kC4F rounded
///   once
///     (|r2| <= 0.05: 2^-29.5), where t² split exactly (mul, fmsub), n = k − kRoundMagicF and n·ln2/8 in a
///     high and a low part took six instructions; kC4F's difference from ln2/8 is folded into S's bins and
///     the polynomial (kC4F above), faster on Zen 5 (core/src/simd/README.md, "The reduction in three fmas").
/// Over all 2^32 inputs, <= 1 ULP like the general path (tests/exhaustive).
template <int N>
GELU_INLINE void gelu_fast(const __m512 (&x)[N], const RegsF& r, __m512 (&y)[N], __mmask16 (&tail)[N]) {
  // Each step for the N vectors in turn: the code interleaves their independent chains as it stands, where
  // one vector's chain after the other relies on the out-of-order window to overlap them (Zen 4's fills:
  // faster there with N = 2, docs/perf-log/2026-11-28.md, "Zen 4 tuning").
#define GELU_EACH for (int i = 0; i < N; ++i)
  __m512 t[N], hh[N], k[N], nc[N], r2[N], e[N], q[N], d[N], poly[N], TS[N];
  __m512i kb[N], b[N];
  GELU_EACH t[i] = _mm512_range_ps(x[i], _mm512_set1_ps(kTMax), 0x0A);
  GELU_EACH tail[i] = _mm512_cmp_ps_mask(t[i], _mm512_set1_ps(kFastF), _CMP_NLE_UQ);
  // n = round(−t²·8/ln2) in k = n + kRoundMagicF; n·kC4F exactly by one fma of k (k·kC4F exact inside it,
  // kRoundMagicF·kC4F a float, the difference a float); r2 = x² + n·kC4F rounded once (x² exact inside the
  // fma); plus −2δ_j/α for T_j's rounding. The square is of x, not t: the same bits wherever t = |x| (every
  // lane this path keeps), and the chain does not wait for the vrangeps — every cycle cut from a chain that
  // many instructions wait on counts on Zen 5, whose out-of-order window this loop fills
  // (core/src/simd/README.md).
  GELU_EACH hh[i] = _mm512_mul_ps(x[i], x[i]);
  GELU_EACH k[i] = _mm512_fmadd_ps(hh[i], _mm512_set1_ps(-11.541560327111707f), _mm512_set1_ps(kRoundMagicF));
  GELU_EACH kb[i] = _mm512_castps_si512(k[i]);  // low 4 bits: n mod 16 (vpermps reads them)
  GELU_EACH nc[i] = _mm512_fmadd_ps(k[i], _mm512_set1_ps(static_cast<float>(kC4F)),
                                    _mm512_set1_ps(static_cast<float>(-kRoundMagicF * kC4F)));
  // S(t) = s_k·(1 + d·P(d)) on f's bins.
  GELU_EACH b[i] =
      _mm512_srli_epi32(_mm512_castps_si512(_mm512_add_ps(t[i], _mm512_set1_ps(kShiftF))), kIndexShiftF);
  GELU_EACH r2[i] = _mm512_add_ps(_mm512_fmadd_ps(x[i], x[i], nc[i]), _mm512_permutexvar_ps(kb[i], r.exp_d));
  GELU_EACH d[i] = _mm512_sub_ps(t[i], r.mid(b[i]));
  GELU_EACH e[i] = _mm512_fmadd_ps(r2[i], r.e2, r.e1);
  GELU_EACH poly[i] = r.c[kDegF - 1](b[i]);
  for (int j = kDegF - 2; j >= 0; --j) {
    GELU_EACH poly[i] = _mm512_fmadd_ps(poly[i], d[i], r.c[j](b[i]));
    if (j == kDegF - 2) GELU_EACH e[i] = _mm512_fmadd_ps(r2[i], e[i], r.e0);
    if (j == kDegF - 3) GELU_EACH q[i] = _mm512_mul_ps(r2[i], e[i]);
  }
  // T·2^m by adding m = n >> 4 to T's exponent field (exact: 2^m >= 2^-40 here; the magic constant's low bits
  // vanish there), TS = 2^m·T_j·s_k exact (8 + 16 significant bits). G = TS·t + (TS·t)·w in one fma (its
  // product TS·t is exact inside it), then R − G: for x < 0 that is −G (one rounding; −0 for G = 0); for x >
  // 0 G's rounding is at most 1/2 ULP of G <= 1/2 ULP of the result, and R − G is exact where G is close to
  // R/2. (An exact product P, its error and P + corr cost two more instructions for the same two roundings.)
  GELU_EACH TS[i] = _mm512_mul_ps(exp2_scaled<4>(_mm512_permutexvar_ps(kb[i], r.exp_hs), kb[i]), r.s_k(b[i]));
  GELU_EACH {
    const __m512 w = _mm512_fmadd_ps(_mm512_fmadd_ps(d[i], q[i], d[i]), poly[i], q[i]);
    const __m512 c = _mm512_mul_ps(TS[i], t[i]);
    const __m512 R = _mm512_max_ps(_mm512_set1_ps(-0.0f), x[i]);
    y[i] = _mm512_sub_ps(R, _mm512_fmadd_ps(TS[i], t[i], _mm512_mul_ps(c, w)));
  }
#undef GELU_EACH
}

/// The lanes of y flagged in `tail` (t > kFastF, NaN, ±inf) from the general path: its pieces on the degree-5
/// bins, assembled with the exact tail (a subnormal G rounds once, NaN passes through). Every lane's value
/// depends on its own x only: a lane with t <= kFastF keeps gelu_fast's value whatever its neighbours are.
GELU_COLD __m512 gelu_tail_lanes(__m512 x, __m512 y, __mmask16 tail) {
  const Regs r(tables());
  return _mm512_mask_mov_ps(y, tail, gelu_exact_tail(x, pieces(x, r)));
}

GELU_INLINE __m512 gelu_vec(__m512 x, const RegsF& r) {
  __m512 y[1];
  __mmask16 tail[1];
  gelu_fast<1>({x}, r, y, tail);
  // t > 7.375 (or NaN) is rare in practice (N(0, 2) data: 2 lanes in 10,000): one compare per vector.
  if (tail[0] != 0) [[unlikely]]
    return gelu_tail_lanes(x, y[0], tail[0]);
  return y[0];
}

/// Two vectors in place with one tail test (one `kortestw` on both masks), their chains interleaved.
GELU_INLINE void gelu_pair(__m512 (&v)[2], const RegsF& r) {
  __m512 y[2];
  __mmask16 tail[2];
  gelu_fast<2>(v, r, y, tail);
  if (!_kortestz_mask16_u8(tail[0], tail[1])) [[unlikely]] {
    for (int i = 0; i < 2; ++i) v[i] = tail[i] ? gelu_tail_lanes(v[i], y[i], tail[i]) : y[i];
    return;
  }
  for (int i = 0; i < 2; ++i) v[i] = y[i];
}

// [SECTION] f′

/// f′ everywhere but within 1/16 of its root (gelu_d1_near's lanes, which take gelu_d1_root).
GELU_INLINE __m512 gelu_d1_main(__m512 x, const Regs& r) {
  const Pieces p = pieces(x, r);
  // D = 2^m·T(1 + q)·(t/√(2π) − s_k(1 + f)); diff = diff_hi + lo, and T·diff_hi is kept exact (TwoProd) so D
  // rounds twice in all: diff_hi and the final sum.
  const float c_hi = 0x1.988454p-2f;  // 1/√(2π) as float + float
  const float c_lo = static_cast<float>(0.398942280401432677939946059934 - 0x1.988454p-2);
  const __m512 diff_hi = _mm512_fmsub_ps(p.t, _mm512_set1_ps(c_hi), p.s_k);
  const __m512 lo = _mm512_fnmadd_ps(p.s_k, p.f, _mm512_mul_ps(p.t, _mm512_set1_ps(c_lo)));
  const bool tail = _mm512_cmp_ps_mask(p.t, _mm512_set1_ps(kFastTMax), _CMP_NLE_UQ) != 0;
  // Scale T first when that is exact (t <= 11.5), else the sum (so a subnormal D rounds once).
  const __m512 T = tail ? exp2_unscaled(p.Tsh, p.kb) : exp2_scaled(p.Tsh, p.kb);
  // T·diff_hi as an exact pair, then P + corr. (One fma for T·diff_hi + T·corr, as gelu f assembles G, costs
  // f′ accuracy where its terms cancel: 1.84 ULP at x = −0.6225 on the stride-97 sweep against 1.71.)
  const __m512 P = _mm512_mul_ps(T, diff_hi);
  const __m512 pl = _mm512_fmsub_ps(T, diff_hi, P);
  const __m512 corr = _mm512_fmadd_ps(T, _mm512_fmadd_ps(_mm512_add_ps(diff_hi, lo), p.q, lo), pl);
  __m512 D = _mm512_add_ps(P, corr);
  if (tail) D = _mm512_scalef_ps(D, p.scale);
  // x > 0: 1 + D; x <= 0: −D (so f'(−inf) = −0 and f'(±0) = 0.5).
  const __mmask16 is_pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  __m512 y = _mm512_mask_add_ps(_mm512_xor_ps(D, _mm512_set1_ps(-0.0f)), is_pos, D, _mm512_set1_ps(1.0f));
  // NaN in, NaN out (only tail vectors can hold one); +inf -> 1 comes from 1 + D with t clamped.
  if (tail) y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
  return y;
}

/// The lanes within 1/16 of f′'s root r0, where t/√(2π) − S cancels (never NaN lanes).
GELU_INLINE __mmask16 gelu_d1_near(__m512 x, const Tables& tb) {
  const __m512 delta =
      _mm512_sub_ps(_mm512_sub_ps(x, _mm512_set1_ps(tb.root_hi)), _mm512_set1_ps(tb.root_lo));
  return _mm512_cmp_ps_mask(_mm512_abs_ps(delta), _mm512_set1_ps(static_cast<float>(kRootHalfWidth)),
                            _CMP_LE_OQ);
}
/// f′ near its root: δ·P(δ) with δ = x − r0 kept as the exact pair (x − root_hi, −root_lo), so the value
/// rounds once after P.
GELU_INLINE __m512 gelu_d1_root(__m512 x, const Tables& tb) {
  const __m512 d_hi = _mm512_sub_ps(x, _mm512_set1_ps(tb.root_hi));  // exact (Sterbenz)
  const __m512 delta = _mm512_sub_ps(d_hi, _mm512_set1_ps(tb.root_lo));
  __m512 poly = _mm512_set1_ps(tb.root_c[kDegRoot]);
  for (int i = kDegRoot - 1; i >= 0; --i) poly = _mm512_fmadd_ps(poly, delta, _mm512_set1_ps(tb.root_c[i]));
  return _mm512_fmadd_ps(d_hi, poly, _mm512_mul_ps(_mm512_set1_ps(-tb.root_lo), poly));
}

/// f′ of one vector, the root's lanes blended in (the masked tail of the arrays).
GELU_INLINE __m512 gelu_d1_vec(__m512 x, const Regs& r) {
  return _mm512_mask_mov_ps(gelu_d1_main(x, r), gelu_d1_near(x, r.tb), gelu_d1_root(x, r.tb));
}

/// f′ or dy·f′ over an array: the root's lanes in a second pass (run_f32_root_two_pass). With N(0, σ) data
/// about a third of the vectors have such a lane, so the polynomial was evaluated in every vector before.
template <bool kGrad>
void run_gelu_d1(const float* x, const float* dy, float* y, std::size_t n) {
  const Regs r(tables());
  run_f32_root_two_pass<kGrad>(
      x, dy, y, n, [&](__m512 v) { return gelu_d1_main(v, r); },
      [&](__m512 v) { return gelu_d1_near(v, r.tb); }, [&](__m512 v) { return gelu_d1_root(v, r.tb); },
      [&](__m512 v) { return gelu_d1_vec(v, r); });
}

#endif  // GELU_AVX512

}  // namespace

// [SECTION] The portable f

// Compiled everywhere, so that the desktop's exhaustive sweep checks what the browser runs. Two lanes of
// double in 16-byte vectors (GCC and Clang vector extensions: SSE2 on the desktop, SIMD128 in WebAssembly,
// which has no FMA, so the AVX-512 path's error-free float products are out of reach): G(t) = t·Φ(−t) =
// t·exp(−t²/2)·S(t) in double, with
//   exp(−t²/2) = 2^n·e^r, n = round(−t²/(2 ln2)), |r| <= ln2/2, e^r by a degree-7 polynomial (Chebyshev fit,
//                relative error 5.6e-11); t² is exact in double (t has 24 bits) and n·ln2 rounds by < 2^-44;
//   S(t) = Φ(−t)·e^(t²/2) = P(t)/Q(t), a rational of degree 5 over 6 fitted to relative error 8.6e-11 on
//                [0, 14.75] (positive coefficients: no cancellation; P/Q ~ 1/(√(2π)·t) as S does).
// (Both errors measured with mpmath on 150,001 and 200,001 points.) So d = max(x, 0) − G is within
// kPortableRelError = 2^-32 of GELU(x) (for x > 0, G <= d), and where both ends of d·(1 ± 2^-32) round to
// one float that float is the correctly rounded GELU(x); the rest (the interval is at most 2^-7 ULP wide:
// under 1 % of inputs) take the scalar path: one double erfc with its own interval, else the reference.
// Beyond t = 14.75, G(t) < 2^-155: t is clamped there and the rounding gives −0 (x < 0) or x. NaN stays NaN,
// ±0 keeps its sign, −inf gives −0.
namespace {

using V2d = double __attribute__((vector_size(16)));
using V2i = long long __attribute__((vector_size(16)));
using V2f = float __attribute__((vector_size(8)));

constexpr double kPortableRelError = 0x1p-32;

inline V2d select(V2i mask, V2d a, V2d b) {  // mask ? a : b, lane by lane
  return reinterpret_cast<V2d>((reinterpret_cast<V2i>(a) & mask) | (reinterpret_cast<V2i>(b) & ~mask));
}

inline V2d gelu_v2d(V2d x) {
  constexpr double kTClamp = 14.75;
  const V2d t0 = reinterpret_cast<V2d>(reinterpret_cast<V2i>(x) & 0x7fffffffffffffffLL);
  const V2d t = select(t0 < kTClamp, t0, V2d{} + kTClamp);  // NaN -> 14.75 (x carries the NaN)
  const V2d h = t * t;                                      // exact
  // n = round(−h/(2 ln2)) in k's low mantissa bits (1.5·2^52 added), r = −h/2 − n·ln2.
  const V2d k = h * -0.72134752044448170368 + 0x1.8p52;
  const V2d n = k - 0x1.8p52;
  const V2d r = h * -0.5 - n * 0.69314718055994530942;
  // The three polynomials by Estrin's scheme (pairs, then powers of r², t²): short chains the CPU overlaps,
  // where Horner's rule was one long chain each (the loop waited on it).
  const V2d r2 = r * r, r4 = r2 * r2;
  V2d e = ((0x1.ffffffffa6fd5p-1 + 0x1.ffffffffd383dp-1 * r) +
           r2 * (0x1.0000005c992c8p-1 + 0x1.555555a2784cap-3 * r)) +
          r4 * ((0x1.55546487fc2d4p-5 + 0x1.111080a192763p-7 * r) +
                r2 * (0x1.6da767021a1ccp-10 + 0x1.a1aa8fd0b255dp-13 * r));
  // × 2^n: n added to the exponent field (n >= −157, the result stays normal).
  e = reinterpret_cast<V2d>(reinterpret_cast<V2i>(e) + (reinterpret_cast<V2i>(k) << 52));
  const V2d h2 = h * h;
  const V2d P = ((0x1.ffffffff43948p-2 + 0x1.04017ab7917bcp-1 * t) +
                 h * (0x1.00d909fd21045p-2 + 0x1.2486840d1bd5cp-4 * t)) +
                h2 * (0x1.7e54fe7476a98p-7 + 0x1.d3b7df06f0400p-11 * t);
  const V2d Q = ((1.0 + 0x1.d043a432fd845p+0 * t) + h * (0x1.72da6adf735afp+0 + 0x1.50d5caac80cf4p-1 * t)) +
                h2 * ((0x1.73379b723a7ccp-3 + 0x1.df2dda8659814p-6 * t) + h * 0x1.25196bb8629c0p-9);
  const V2d G = t * e * P / Q;
  const V2d R = select(x < 0.0, V2d{}, x);  // max(x, 0) with −0 and NaN kept
  return R - G;
}

/// One value the vector's interval left open: the double erfc's interval (kGeluFastRelError), else the
/// double reference rounded.
float gelu_f32_scalar(float xf) {
  const double v = xf;
  if (std::fabs(v) < 0x1p-100) {
    // x·Φ(x) = x/2 + x²/√(2π) + …: the double holds x/2 alone, a float midpoint where x is subnormal with an
    // odd last bit; the x² term, positive, puts the exact value above it (the registry's tie rule).
    const double h = v * 0.5;
    float f = static_cast<float>(h);
    if (static_cast<double>(f) < h) f = std::nextafter(f, INFINITY);
    return f;
  }
  if (v != 0 && std::fabs(v) <= F::kGeluErfcFastMax) {
    const double d = F::gelu_erfc_fast(v), e = std::fabs(d) * F::kGeluFastRelError;
    const float lo = static_cast<float>(d - e), hi = static_cast<float>(d + e);
    if (lo == hi) return lo;
  }
  return static_cast<float>(F::gelu(v));
}

inline void gelu_f32x2(const float* x, float* y) {
  V2f xf;
  std::memcpy(&xf, x, sizeof xf);
  const V2d d = gelu_v2d(__builtin_convertvector(xf, V2d)), e = d * kPortableRelError;
  const V2f lo = __builtin_convertvector(d - e, V2f), hi = __builtin_convertvector(d + e, V2f);
  std::uint64_t a, b;  // both lanes' bits at once (NaN lanes compare equal)
  std::memcpy(&a, &lo, sizeof a);
  std::memcpy(&b, &hi, sizeof b);
  if (a == b) [[likely]] {
    std::memcpy(y, &lo, sizeof lo);
    return;
  }
  for (int i = 0; i < 2; ++i) {
    std::uint32_t l, h;
    std::memcpy(&l, reinterpret_cast<const char*>(&lo) + 4 * i, 4);
    std::memcpy(&h, reinterpret_cast<const char*>(&hi) + 4 * i, 4);
    y[i] = l == h ? lo[i] : gelu_f32_scalar(x[i]);
  }
}

}  // namespace

void gelu_f32_portable(const float* x, float* y, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {  // two independent vectors an iteration
    gelu_f32x2(x + i, y + i);
    gelu_f32x2(x + i + 2, y + i + 2);
  }
  for (; i < n; i += 2) {
    float in[2] = {x[i], i + 1 < n ? x[i + 1] : 0.0f}, out[2];
    gelu_f32x2(in, out);
    y[i] = out[0];
    if (i + 1 < n) y[i + 1] = out[1];
  }
}

#ifdef GELU_AVX512

// [SECTION] Entry points

void gelu_f32(const float* x, float* y, std::size_t n, const Params&) {
  const RegsF r(tables());
  // The kernels inlined into the loop by force: GCC 12 otherwise calls the pair kernel (tables reloaded, the
  // constants broadcast again for every 32 elements, a slower loop).
  run_f32_by<false>(
      x, nullptr, y, n, [&](__m512 v) GELU_LAMBDA_INLINE { return gelu_vec(v, r); },
      [&](__m512(&v)[2]) GELU_LAMBDA_INLINE { gelu_pair(v, r); });
}
void gelu_d1_f32(const float* x, float* y, std::size_t n, const Params&) {
  run_gelu_d1<false>(x, nullptr, y, n);
}
void gelu_backward_f32(const float* x, const float* dy, float* dx, std::size_t n) {
  run_gelu_d1<true>(x, dy, dx, n);
}
const char* isa() {
  return "avx512";
}

// [SECTION] bf16 inputs

void gelu_bf16(Bf16Op op, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y, std::size_t n,
               bool bf16_insn) {
  bf16_by_table(op, false, x, dy, y, n, bf16_insn);
}
// [SECTION] Portable build

#else  // No AVX-512 at compile time (the browser's WebAssembly among others): gelu_f32_portable.

void gelu_f32(const float* x, float* y, std::size_t n, const Params&) {
  gelu_f32_portable(x, y, n);
}
void gelu_d1_f32(const float* x, float* y, std::size_t n, const Params&) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(F::gelu_d1(x[i]));
}
void gelu_backward_f32(const float* x, const float* dy, float* dx, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dx[i] = dy[i] * static_cast<float>(F::gelu_d1(x[i]));
}
const char* isa() {
  return "scalar";
}

#endif

}  // namespace gelu::simd

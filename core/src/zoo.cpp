// The approximation zoo (gelu/zoo.hpp): Arith, the built-in entries as shipped, run-time entries, the
// registry functions as correctly rounded entries, piecewise-linear GELU and the fitted constants.
//
// Each built-in evaluator follows the operation order of the code it models (named in its comment), so
// that in a narrow compute format it rounds and overflows where that code does. Their formulas are tested
// against independent double and mpmath evaluations in tests/core/zoo_test.cpp.
//
// Index of this file:
//   [SECTION] Arith
//   [SECTION] Entries
//   [SECTION] Factories and fitted constants
#include "gelu/zoo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "formulas.hpp"
#include "gelu/analysis.hpp"

namespace gelu::zoo {

// [SECTION] Arith

namespace {
thread_local std::size_t t_overflows = 0;
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

std::size_t overflow_count() {
  return t_overflows;
}
void reset_overflow_count() {
  t_overflows = 0;
}

Arith::Arith(const Format& f) : f_(f), saturate_above_(kInf) {
  if (f.row().saturates) saturate_above_ = f.max_finite() + 0.5 * f.spacing(f.max_finite());
}

double Arith::r(double exact, double a, double b) const {
  const double y = f_.round(exact);
  if ((std::isinf(y) || std::fabs(exact) > saturate_above_) && std::isfinite(a) && std::isfinite(b) &&
      !std::isnan(exact))
    ++t_overflows;
  return y;
}

double Arith::fma(double a, double b, double c) const {
  return std::isfinite(c) ? r(std::fma(a, b, c), a, b) : f_.round(std::fma(a, b, c));
}
double Arith::exp(double a) const {
  return r(std::exp(a), a);
}
double Arith::tanh(double a) const {
  return r(std::tanh(a), a);
}
double Arith::erf(double a) const {
  return r(std::erf(a), a);
}
double Arith::erfc(double a) const {
  return r(std::erfc(a), a);
}

// [SECTION] Entries

void Entry::eval(std::span<const double> x, std::span<double> y, int order, const Format& compute) const {
  if (y.size() < x.size()) throw std::invalid_argument("zoo: output span shorter than input");
  if (order != 0 && order != 1) throw std::invalid_argument("zoo: order must be 0 or 1");
  if (batch) {
    batch(x, y.first(x.size()), order, compute);
    return;
  }
  if (order == 1 && !d1) throw std::invalid_argument("zoo: " + id + " has no derivative");
  const Evaluator& g = order == 0 ? f : d1;
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = g(x[i], compute);
}

double Entry::eval(double x, int order, const Format& compute) const {
  double y = 0;
  eval(std::span<const double>(&x, 1), std::span<double>(&y, 1), order, compute);
  return y;
}

namespace {

namespace F = formulas;

constexpr double kSqrt2OverPi = 0.7978845608028654;  // √(2/π), as the shipped kernels spell it
constexpr double kInvSqrt2 = 0.7071067811865476;     // 1/√2 (M_SQRT1_2)
constexpr double kInvSqrt2Pi = 0.3989422804014327;   // 1/√(2π)
constexpr double kTanhC = 0.044715;
constexpr double kSigmoidK = 1.702;

std::string fmt_g(double v, int digits = 6) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// --- the tanh form, as PyTorch's CUDA kernel and FasterTransformer order it: x³ first, then κ·x³ ---
double tanh_form_ac(double x, const Format& c, double beta, double kappa) {
  const Arith A(c);
  x = A.in(x);
  const double x3 = A.mul(A.mul(x, x), x);
  const double inner = A.mul(A.in(beta), A.add(x, A.mul(A.in(kappa), x3)));
  return A.mul(A.mul(A.in(0.5), x), A.add(A.in(1.0), A.tanh(inner)));
}
// PyTorch's GeluBackward (approximate='tanh'): ½(1 + t) + ½x·(1 − t²)·β(1 + 3κx²).
double tanh_form_ac_d1(double x, const Format& c, double beta, double kappa) {
  const Arith A(c);
  x = A.in(x);
  const double x2 = A.mul(x, x);
  const double inner = A.mul(A.in(beta), A.add(x, A.mul(A.in(kappa), A.mul(x2, x))));
  const double t = A.tanh(inner);
  const double half = A.in(0.5);
  const double left = A.mul(half, x), right = A.add(A.in(1.0), t);
  const double dright = A.sub(A.in(1.0), A.mul(t, t));
  const double dinner = A.mul(A.in(beta), A.add(A.in(1.0), A.mul(A.in(3.0 * kappa), x2)));
  return A.add(A.mul(half, right), A.mul(A.mul(left, dright), dinner));
}

// --- the sigmoid form, as `x * torch.sigmoid(k * x)` with σ(z) = 1/(1 + e^(−z)) ---
double sigmoid_form_k(double x, const Format& c, double k) {
  const Arith A(c);
  x = A.in(x);
  const double z = A.mul(A.in(k), x);
  const double s = A.div(A.in(1.0), A.add(A.in(1.0), A.exp(-z)));
  return A.mul(x, s);
}
double sigmoid_form_k_d1(double x, const Format& c, double k) {
  const Arith A(c);
  x = A.in(x);
  const double kk = A.in(k);
  const double s = A.div(A.in(1.0), A.add(A.in(1.0), A.exp(-A.mul(kk, x))));
  return A.add(s, A.mul(A.mul(A.mul(x, kk), s), A.sub(A.in(1.0), s)));
}

// --- exact GELU through erf, as most code writes it: x·0.5·(1 + erf(x·(1/√2))) (PyTorch's CPU kernel,
// HF transformers, TF's gelu(approximate=False)) ---
double erf_naive(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double e = A.erf(A.mul(x, A.in(kInvSqrt2)));
  return A.mul(A.mul(x, A.in(0.5)), A.add(A.in(1.0), e));
}
// PyTorch's GeluBackward (approximate='none'): cdf + x·pdf with pdf = (1/√(2π))·exp(−½x²).
double gelu_d1_from_cdf(const Arith& A, double x, double cdf) {
  const double pdf = A.mul(A.in(kInvSqrt2Pi), A.exp(A.mul(A.in(-0.5), A.mul(x, x))));
  return A.add(cdf, A.mul(x, pdf));
}
double erf_naive_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double cdf = A.mul(A.in(0.5), A.add(A.in(1.0), A.erf(A.mul(x, A.in(kInvSqrt2)))));
  return gelu_d1_from_cdf(A, x, cdf);
}

// --- exact GELU through erfc: x·0.5·erfc(−x·(1/√2)), no cancellation on the negative side ---
double erfc_form(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  return A.mul(A.mul(x, A.in(0.5)), A.erfc(-A.mul(x, A.in(kInvSqrt2))));
}
double erfc_form_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double cdf = A.mul(A.in(0.5), A.erfc(-A.mul(x, A.in(kInvSqrt2))));
  return gelu_d1_from_cdf(A, x, cdf);
}

// --- erf by Abramowitz & Stegun 7.1.26 (|ε| ≤ 1.5e-7), in the operation order of PyTorch's
// Vectorized<float>::erf (t by one fma and a division, Horner by fma, the sign restored at the end) ---
double erf_as7126(const Arith& A, double z) {
  const double p = A.in(0.3275911), a1 = A.in(0.254829592), a2 = A.in(-0.284496736), a3 = A.in(1.421413741),
               a4 = A.in(-1.453152027), a5 = A.in(1.061405429), one = A.in(1.0);
  const bool negative = std::signbit(z);
  const double t = A.div(one, A.fma(p, std::fabs(z), one));
  const double r = A.fma(A.fma(A.fma(A.fma(a5, t, a4), t, a3), t, a2), t, a1);
  const double e = A.exp(-A.mul(z, z));
  const double y = A.fma(A.mul(-e, t), r, one);
  return negative ? -y : y;
}
double erf_as(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double e = erf_as7126(A, A.mul(x, A.in(kInvSqrt2)));
  return A.mul(A.mul(x, A.in(0.5)), A.add(A.in(1.0), e));
}
double erf_as_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double cdf = A.mul(A.in(0.5), A.add(A.in(1.0), erf_as7126(A, A.mul(x, A.in(kInvSqrt2)))));
  return gelu_d1_from_cdf(A, x, cdf);
}

// --- ggml's 65,536-entry f16 table of the tanh form (GGML_GELU_FP16): table[h] = f16(gelu_f32(h)) with
// gelu_f32(x) = 0.5f·x·(1 + tanhf(√(2/π)·x·(1 + 0.044715·x·x))) in float; y = 0 for x ≤ −10, x for
// x ≥ 10, else table[f16(x)] widened to f32 ---
const std::vector<double>& ggml_table() {
  static const std::vector<double> table = [] {
    const Format h(FormatId::F16), f(FormatId::F32);
    const Arith A(f);
    std::vector<double> t(65536);
    for (std::size_t i = 0; i < t.size(); ++i) {
      const double x = h.decode(i);
      const double inner =
          A.mul(A.mul(A.in(kSqrt2OverPi), x), A.add(A.in(1.0), A.mul(A.mul(A.in(kTanhC), x), x)));
      t[i] = h.round(A.mul(A.mul(A.in(0.5), x), A.add(A.in(1.0), A.tanh(inner))));
    }
    return t;
  }();
  return table;
}
double f16_lut(double x, const Format&) {
  const double xf = static_cast<float>(x);
  if (xf <= -10.0) return 0.0;
  if (xf >= 10.0) return xf;
  static const Format h(FormatId::F16);
  return ggml_table()[static_cast<std::size_t>(h.encode(xf))];
}

// --- I-BERT's i-GELU (Kim et al. 2021, Algorithm 2) in its integer form: the input as INT32 q = x/S with
// the scale S = 2^-10, i-ERF(q, S/√2) through i-POLY with a = −0.2888, b = −1.769, c = 1, then
// q_out = q·(q_erf + ⌊1/S_erf⌋) with S_out = S·S_erf/2; the scales' floors taken in double ---
constexpr double kIbertScale = 1.0 / 1024;
double ibert(double x, const Format&) {
  constexpr double a = -0.2888, b = -1.769, c = 1.0;
  const double S = kIbertScale;
  const double q_real = std::clamp(std::nearbyint(x / S), -2147483648.0, 2147483647.0);
  const auto q = static_cast<std::int64_t>(q_real);
  const double Se = S / std::sqrt(2.0);
  const auto q_sgn = static_cast<std::int64_t>((q > 0) - (q < 0));
  const auto q_clip = static_cast<std::int64_t>(std::floor(-b / Se));
  const std::int64_t qa = std::min<std::int64_t>(q < 0 ? -q : q, q_clip);
  const auto q_b = static_cast<std::int64_t>(std::floor(b / Se));
  const auto q_c = static_cast<std::int64_t>(std::floor(c / (a * Se * Se)));
  const double S_erf = a * Se * Se;
  const std::int64_t q_L = (qa + q_b) * (qa + q_b) + q_c;
  const std::int64_t q_erf = q_sgn * q_L;
  const auto q_1 = static_cast<std::int64_t>(std::floor(1.0 / S_erf));
  const std::int64_t q_out = q * (q_erf + q_1);
  const double S_out = S * S_erf / 2.0;
  return static_cast<double>(q_out) * S_out;
}

// --- h-GELU: x·ReLU6(1.702·x + 3)/6, in the order of PyTorch's hardswish ---
double hgelu(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double z = A.add(A.mul(A.in(kSigmoidK), x), A.in(3.0));
  const double r = A.min(A.max(z, 0.0), A.in(6.0));
  return A.div(A.mul(x, r), A.in(6.0));
}
double hgelu_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double k = A.in(kSigmoidK);
  const double z = A.add(A.mul(k, x), A.in(3.0));
  if (z <= 0) return 0.0;
  if (z >= 6) return 1.0;
  return A.div(A.add(A.mul(k, x), z), A.in(6.0));
}

// --- BOLT (Pang et al., IEEE S&P 2024): 0.5·x + P4(|x|) for |x| ≤ 2.7, 0 below, x above; P4 by Horner ---
constexpr double kBolt[5] = {0.001620808531841547, -0.03798164612714154, 0.5410550166368381,
                             -0.18352506127082727, 0.020848611754127593};  // c0 … c4
double bolt(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  if (x < -2.7) return 0.0;
  if (x > 2.7) return x;
  const double t = std::fabs(x);
  double p = A.in(kBolt[4]);
  for (int k = 3; k >= 0; --k) p = A.add(A.mul(p, t), A.in(kBolt[k]));
  return A.add(A.mul(A.in(0.5), x), p);
}
double bolt_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  if (x < -2.7) return 0.0;
  if (x > 2.7) return 1.0;
  const double t = std::fabs(x);
  double p = A.in(4 * kBolt[4]);
  for (int k = 3; k >= 1; --k) p = A.add(A.mul(p, t), A.in(k * kBolt[k]));
  return A.add(A.in(0.5), std::signbit(x) ? -p : p);
}

// --- PUMA (Dong et al. 2023; SecretFlow SPU): 0 below −4, a cubic on [−4, −1.95), a degree-6 polynomial
// on [−1.95, 3], x above; powers as SPU forms them (x², x³ = x·x², x⁴ = (x²)², x⁶ = (x³)²) ---
constexpr double kPumaA[4] = {-0.5054031199708174, -0.42226581151983866, -0.11807612951181953,
                              -0.011034134030615728};
constexpr double kPumaB[7] = {0.008526321541038084,  0.5, 0.3603292692789629,   0.0,
                              -0.037688200365904236, 0.0, 0.0018067462606141187};
double puma(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  if (x < -4.0) return 0.0;
  if (x > 3.0) return x;
  const double x2 = A.mul(x, x), x3 = A.mul(x, x2);
  if (x < -1.95) {
    double s = A.mul(A.in(kPumaA[3]), x3);
    s = A.add(s, A.mul(A.in(kPumaA[2]), x2));
    s = A.add(s, A.mul(A.in(kPumaA[1]), x));
    return A.add(s, A.in(kPumaA[0]));
  }
  const double x4 = A.mul(x2, x2), x6 = A.mul(x3, x3);
  double s = A.mul(A.in(kPumaB[6]), x6);
  s = A.add(s, A.mul(A.in(kPumaB[4]), x4));
  s = A.add(s, A.mul(A.in(kPumaB[2]), x2));
  s = A.add(s, A.mul(A.in(kPumaB[1]), x));
  return A.add(s, A.in(kPumaB[0]));
}
double puma_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  if (x < -4.0) return 0.0;
  if (x > 3.0) return 1.0;
  const double x2 = A.mul(x, x);
  if (x < -1.95)
    return A.add(A.add(A.mul(A.in(3 * kPumaA[3]), x2), A.mul(A.in(2 * kPumaA[2]), x)), A.in(kPumaA[1]));
  const double x3 = A.mul(x, x2), x5 = A.mul(x3, x2);
  double s = A.mul(A.in(6 * kPumaB[6]), x5);
  s = A.add(s, A.mul(A.in(4 * kPumaB[4]), x3));
  s = A.add(s, A.mul(A.in(2 * kPumaB[2]), x));
  return A.add(s, A.in(kPumaB[1]));
}

// --- microxcaling's GELU (microsoft/microxcaling, mx/activations.py, GELUFunction.forward): the tanh form
// written as x·σ(2·√(2/π)·(x + 0.044715·x³)) with bfloat16 constants 0.044677734375 and 1.59375, every
// operation a vec_* op rounded to the compute format (bf16 in its bfloat=16 specs): x², x³, c·x³, + x, k·(…),
// exp(−u), + 1, 1/(…), x·φ ---
constexpr double kMxC = 0.044677734375, kMxK = 1.59375;
double mx_gelu(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  double u = A.mul(A.mul(x, x), x);
  u = A.mul(A.in(kMxC), u);
  u = A.add(u, x);
  u = A.mul(A.in(kMxK), u);
  const double phi = A.div(A.in(1.0), A.add(A.exp(-u), A.in(1.0)));
  return A.mul(x, phi);
}
// Its backward (GELUFunction.backward): φ + x·(k + 0.21386719·x²)·φ(1 − φ).
double mx_gelu_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  double u = A.mul(A.in(kMxC), A.mul(A.mul(x, x), x));
  u = A.mul(A.in(kMxK), A.add(u, x));
  const double phi = A.div(A.in(1.0), A.add(A.exp(-u), A.in(1.0)));
  double dphi = A.mul(phi, A.sub(A.in(1.0), phi));
  const double dy = A.add(A.in(kMxK), A.mul(A.in(0.21386719), A.mul(x, x)));
  dphi = A.mul(dy, dphi);
  return A.add(phi, A.mul(x, dphi));
}

// --- CUTLASS's epilogue GELU (NVIDIA/cutlass, include/cutlass/epilogue/thread/activation.h, GELU<float>):
// (½·x)·(1 + erf(x / √2)), a division by root_two, fused into the GEMM's epilogue on the float accumulator
// ---
double cutlass_gelu(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double e = A.erf(A.div(x, A.in(1.4142135623730951)));
  return A.mul(A.mul(A.in(0.5), x), A.add(A.in(1.0), e));
}
double cutlass_gelu_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double cdf = A.mul(A.in(0.5), A.add(A.in(1.0), A.erf(A.div(x, A.in(1.4142135623730951)))));
  return gelu_d1_from_cdf(A, x, cdf);
}
// --- CUTLASS's GELU_taylor (same file): (½·z)·(1 + tanh((k0·z)·(1 + (k1·z)·z))), k0 = √(2/π), k1 = 0.044715;
// its fast_tanh modelled as tanh rounded once to the compute format ---
double cutlass_gelu_taylor(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const double inner =
      A.mul(A.mul(A.in(kSqrt2OverPi), x), A.add(A.in(1.0), A.mul(A.mul(A.in(kTanhC), x), x)));
  return A.mul(A.mul(A.in(0.5), x), A.add(A.in(1.0), A.tanh(inner)));
}

// --- CUTLASS's clipped degree-11 CDF polynomial (NVIDIA/cutlass, examples/python/CuTeDSL/cute/hopper/kernel/
// dense_gemm/dense_gemm_fp8_gelu_persistent.py, poly11_gelu, the FP8 GEMM's fused GELU epilogue on the
// float32 accumulator): z = clamp(x, −3.5, 3.5), Φ(z) ≈ ½ + z·(c1 + z²·(c3 + z²·(c5 + z²·(c7 + z²·(c9 +
// z²·c11))))) clamped to [0, 1], GELU = x·Φ; each operation as written (no fusing), in the compute format.
// At the clip the polynomial is 5e-16: below −3.5 the whole lobe is 0. ---
constexpr double kPoly11[6] = {0.39639100184010506,   -0.06247543670746915,   0.0077960139440769235,
                               -0.000606554913963472, 2.5871031157700182e-05, -4.5557832301351553e-07};
constexpr double kPoly11Clip = 3.5;
/// Φ's polynomial at the clipped x, and its derivative in x (0 where x or Φ is clipped).
std::pair<double, double> cutlass_poly11_cdf(const Arith& A, double x) {
  const double z = A.max(A.in(-kPoly11Clip), A.min(x, A.in(kPoly11Clip)));
  const double s = A.mul(z, z);
  double p = A.in(kPoly11[5]), dp = A.in(11 * kPoly11[5]);
  for (int k = 4; k >= 0; --k) {
    p = A.add(A.in(kPoly11[k]), A.mul(s, p));
    dp = A.add(A.in((2 * k + 1) * kPoly11[k]), A.mul(s, dp));
  }
  const double raw = A.add(A.in(0.5), A.mul(z, p));
  const double cdf = A.max(A.in(0.0), A.min(raw, A.in(1.0)));
  const bool flat = std::fabs(x) > kPoly11Clip || raw != cdf;
  return {cdf, flat ? 0.0 : dp};
}
double cutlass_gelu_poly11(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  return A.mul(x, cutlass_poly11_cdf(A, x).first);
}
double cutlass_gelu_poly11_d1(double x, const Format& c) {
  const Arith A(c);
  x = A.in(x);
  const auto [cdf, dcdf] = cutlass_poly11_cdf(A, x);
  return A.add(cdf, A.mul(x, dcdf));
}

// --- the built-in list ---

Entry entry(std::string id, std::string name, std::string formula, std::string used_in, std::string citation,
            Cost cost, Evaluator f, Evaluator d1) {
  Entry e;
  e.id = std::move(id);
  e.name = std::move(name);
  e.formula = std::move(formula);
  e.used_in = std::move(used_in);
  e.citation = std::move(citation);
  e.cost = cost;
  e.f = std::move(f);
  e.d1 = std::move(d1);
  e.origin = Origin::Builtin;
  return e;
}

const char* kHendrycks = "Hendrycks & Gimpel, Gaussian Error Linear Units (GELUs), arXiv:1606.08415 (2016)";

std::vector<Entry> build_builtins() {
  std::vector<Entry> z;
  Entry e = entry(
      "tanh_form", "tanh form", "½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))",
      "BERT, GPT-2; PyTorch gelu(approximate='tanh'), FasterTransformer, TF/Keras gelu(approximate=True)",
      kHendrycks, Cost{8, 0, 1, 0, 0},
      [](double x, const Format& c) { return tanh_form_ac(x, c, kSqrt2OverPi, kTanhC); },
      [](double x, const Format& c) { return tanh_form_ac_d1(x, c, kSqrt2OverPi, kTanhC); });
  e.published_max_error = 4.73e-4;
  e.published_at = "x ≈ ±2.70";
  z.push_back(std::move(e));

  e = entry(
      "sigmoid_form", "sigmoid form (QuickGELU)", "x·σ(1.702·x)", "CLIP (QuickGELU), GPT-1-era code",
      kHendrycks, Cost{3, 1, 1, 0, 0},
      [](double x, const Format& c) { return sigmoid_form_k(x, c, kSigmoidK); },
      [](double x, const Format& c) { return sigmoid_form_k_d1(x, c, kSigmoidK); });
  e.published_max_error = 2.03e-2;
  z.push_back(std::move(e));

  z.push_back(entry("erf_naive", "exact GELU, naive erf form", "½·x·(1 + erf(x/√2))",
                    "PyTorch's CPU gelu kernel, HF transformers, TF gelu(approximate=False): most code",
                    kHendrycks, Cost{4, 0, 1, 0, 0}, erf_naive, erf_naive_d1));
  z.push_back(entry("erfc_form", "exact GELU, erfc form", "½·x·erfc(−x/√2)",
                    "numerically careful code (no cancellation for x < 0)", kHendrycks, Cost{3, 0, 1, 0, 0},
                    erfc_form, erfc_form_d1));
  z.push_back(entry("erf_as7126", "erf by Abramowitz & Stegun 7.1.26",
                    "½·x·(1 + erf(x/√2)), erf(z) ≈ 1 − (a₁t + … + a₅t⁵)·e^(−z²), t = 1/(1 + 0.3275911·|z|)",
                    "PyTorch's vectorized CPU erf (Vectorized<float>::erf), oneDNN's gelu_erf below AVX-512",
                    "Abramowitz & Stegun, Handbook of Mathematical Functions (1964), 7.1.26",
                    Cost{12, 1, 1, 2, 0}, erf_as, erf_as_d1));

  e = entry("f16_lut", "f16 lookup table (ggml)",
            "table[f16(x)] of ½·x·(1 + tanh(√(2/π)·x·(1 + 0.044715·x²))), 0 for x ≤ −10, x for x ≥ 10",
            "ggml / llama.cpp (GGML_GELU_FP16)", "ggml, ggml_vec_gelu_f32 and ggml_table_gelu_f16",
            Cost{0, 0, 0, 2, 65536 * 2}, f16_lut, nullptr);
  e.uses_compute = false;
  z.push_back(std::move(e));

  e = entry("ibert", "I-BERT i-GELU (integer)",
            "q·(q_erf + ⌊1/S_erf⌋)·S·S_erf/2, i-ERF by sgn(x)·(−0.2888·(min(|x|, 1.769) − 1.769)² + 1) "
            "on INT32 q = x/2⁻¹⁰",
            "I-BERT (integer-only BERT inference)",
            "Kim et al., I-BERT: Integer-only BERT Quantization, ICML 2021, arXiv:2101.01321",
            Cost{7, 0, 0, 3, 0}, ibert, nullptr);
  e.published_max_error = 1.8e-2;
  e.uses_compute = false;
  z.push_back(std::move(e));

  e = entry(
      "hgelu", "h-GELU", "x·ReLU6(1.702·x + 3)/6", "hardware-friendly GELU (as h-swish for SiLU)",
      "compared in Kim et al., I-BERT, ICML 2021; h-swish: Howard et al., MobileNetV3, arXiv:1905.02244",
      Cost{3, 1, 0, 2, 0}, hgelu, hgelu_d1);
  e.published_max_error = 6.9e-2;
  z.push_back(std::move(e));

  z.push_back(entry(
      "mx_gelu", "microxcaling GELU (bf16 constants)",
      "x·σ(1.59375·(x + 0.044677734375·x³)), every operation rounded to the compute format",
      "Microsoft's MX emulation library (microxcaling), GELU under MX specs; use --compute bf16",
      "microsoft/microxcaling, mx/activations.py (GELUFunction)", Cost{7, 1, 1, 0, 0}, mx_gelu, mx_gelu_d1));
  z.push_back(
      entry("cutlass_gelu", "CUTLASS epilogue GELU (erf)", "(½·x)·(1 + erf(x / √2))",
            "GEMM epilogues fused on the float32 accumulator (CUTLASS LinearCombinationGeneric<GELU>)",
            "NVIDIA/cutlass, include/cutlass/epilogue/thread/activation.h (GELU<float>)", Cost{4, 1, 1, 0, 0},
            cutlass_gelu, cutlass_gelu_d1));
  z.push_back(entry("cutlass_gelu_taylor", "CUTLASS epilogue GELU (tanh, GELU_taylor)",
                    "(½·z)·(1 + tanh((√(2/π)·z)·(1 + (0.044715·z)·z)))",
                    "GEMM epilogues fused on the accumulator (CUTLASS GELU_taylor)",
                    "NVIDIA/cutlass, include/cutlass/epilogue/thread/activation.h (GELU_taylor)",
                    Cost{8, 0, 1, 0, 0}, cutlass_gelu_taylor, nullptr));
  z.push_back(entry(
      "cutlass_gelu_poly11", "CUTLASS epilogue GELU (clipped degree-11 CDF polynomial)",
      "x·clamp(½ + z·(c1 + z²·(c3 + … + z²·c11)), 0, 1), z = clamp(x, −3.5, 3.5)",
      "the fused GELU epilogue of CUTLASS's Hopper FP8 GEMM on the float32 accumulator (--gelu_kind poly11)",
      "NVIDIA/cutlass, "
      "examples/python/CuTeDSL/cute/hopper/kernel/dense_gemm/dense_gemm_fp8_gelu_persistent.py "
      "(poly11_gelu)",
      Cost{8, 0, 0, 4, 0}, cutlass_gelu_poly11, cutlass_gelu_poly11_d1));

  for (int n : {32, 64, 256}) z.push_back(make_pwl(n, 8.0));
  z.back().published_max_error = 3.9e-4;
  z[z.size() - 2].published_max_error = 6.1e-3;
  z[z.size() - 3].published_max_error = 2.3e-2;
  for (std::size_t k = z.size() - 3; k < z.size(); ++k) z[k].origin = Origin::Builtin;

  z.push_back(entry("bolt", "BOLT polynomial", "0.5·x + P₄(|x|) for |x| ≤ 2.7; 0 below, x above",
                    "BOLT (private transformer inference)",
                    "Pang et al., BOLT: Privacy-Preserving, Accurate and Efficient Inference for "
                    "Transformers, IEEE S&P 2024",
                    Cost{10, 0, 0, 3, 0}, bolt, bolt_d1));
  z.push_back(entry("puma", "PUMA piecewise polynomial",
                    "0 below −4; cubic on [−4, −1.95); degree-6 polynomial on [−1.95, 3]; x above",
                    "PUMA / SecretFlow SPU (secure LLaMA inference)",
                    "Dong et al., PUMA: Secure Inference of LLaMA-7B in Five Minutes, arXiv:2307.12533",
                    Cost{12, 0, 0, 3, 0}, puma, puma_d1));

  const FittedConstants& k = fitted_constants();
  const double c = k.tanh_c, a = k.tanh_a, ac = k.tanh_ac_c, kk = k.sigmoid_k;
  const char* why = "fitted here to GELU itself (minimax on [−8, 8]), not to Φ";
  const char* cite = "GELU Lab, analysis::fit_minimax";
  z.push_back(entry(
      "tanh_fit_c", "tanh form, c fitted to GELU", "½·x·(1 + tanh(√(2/π)·(x + " + fmt_g(c) + "·x³)))", why,
      cite, Cost{8, 0, 1, 0, 0},
      [c](double x, const Format& f) { return tanh_form_ac(x, f, kSqrt2OverPi, c); },
      [c](double x, const Format& f) { return tanh_form_ac_d1(x, f, kSqrt2OverPi, c); }));
  z.push_back(entry(
      "tanh_fit_ac", "tanh form, a and c fitted to GELU",
      "½·x·(1 + tanh(" + fmt_g(a) + "·(x + " + fmt_g(ac) + "·x³)))", why, cite, Cost{8, 0, 1, 0, 0},
      [a, ac](double x, const Format& f) { return tanh_form_ac(x, f, a, ac); },
      [a, ac](double x, const Format& f) { return tanh_form_ac_d1(x, f, a, ac); }));
  z.push_back(entry(
      "sigmoid_fit_k", "sigmoid form, k fitted to GELU", "x·σ(" + fmt_g(kk) + "·x)", why, cite,
      Cost{3, 1, 1, 0, 0}, [kk](double x, const Format& f) { return sigmoid_form_k(x, f, kk); },
      [kk](double x, const Format& f) { return sigmoid_form_k_d1(x, f, kk); }));
  return z;
}

const std::vector<Entry>& builtins() {
  static const std::vector<Entry> b = build_builtins();
  return b;
}

struct Added {
  std::mutex mutex;
  std::vector<Entry> entries;
};
Added& added() {
  static Added a;
  return a;
}

// The built-in ids, so that add() can refuse them without building the list (which fits constants).
constexpr const char* kBuiltinIds[] = {"tanh_form",
                                       "sigmoid_form",
                                       "erf_naive",
                                       "erfc_form",
                                       "erf_as7126",
                                       "f16_lut",
                                       "ibert",
                                       "hgelu",
                                       "pwl32",
                                       "pwl64",
                                       "pwl256",
                                       "bolt",
                                       "puma",
                                       "tanh_fit_c",
                                       "tanh_fit_ac",
                                       "sigmoid_fit_k",
                                       "mx_gelu",
                                       "cutlass_gelu",
                                       "cutlass_gelu_taylor",
                                       "cutlass_gelu_poly11"};

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (const char ch : id)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')) return false;
  return true;
}

}  // namespace

std::vector<Entry> builtin_entries() {
  return builtins();
}

std::vector<Entry> entries() {
  std::vector<Entry> all = builtins();
  Added& a = added();
  const std::lock_guard<std::mutex> lock(a.mutex);
  all.insert(all.end(), a.entries.begin(), a.entries.end());
  return all;
}

std::optional<Entry> find(std::string_view id) {
  if (std::find(std::begin(kBuiltinIds), std::end(kBuiltinIds), id) != std::end(kBuiltinIds))
    for (const Entry& e : builtins())
      if (e.id == id) return e;
  Added& a = added();
  const std::lock_guard<std::mutex> lock(a.mutex);
  for (const Entry& e : a.entries)
    if (e.id == id) return e;
  return std::nullopt;
}

std::optional<Entry> resolve(std::string_view id) {
  if (std::optional<Entry> e = find(id)) return e;
  if (const Activation* act = find_activation(id)) return from_registry(*act);
  return std::nullopt;
}

std::string ids() {
  std::string s;
  for (const Entry& e : entries()) s += (s.empty() ? "" : ", ") + e.id;
  return s;
}

void add(Entry e) {
  if (!valid_id(e.id))
    throw std::invalid_argument("zoo: the id must be 1 to 64 characters of a-z, 0-9 and _");
  if (!e.f) throw std::invalid_argument("zoo: entry " + e.id + " has no evaluator");
  for (const char* b : kBuiltinIds)
    if (e.id == b) throw std::invalid_argument("zoo: " + e.id + " is a built-in entry");
  if (find_activation(e.id)) throw std::invalid_argument("zoo: " + e.id + " is a registry function's id");
  if (e.origin == Origin::Builtin || e.origin == Origin::Registry) e.origin = Origin::User;
  Added& a = added();
  const std::lock_guard<std::mutex> lock(a.mutex);
  for (Entry& old : a.entries)
    if (old.id == e.id) {
      old = std::move(e);
      return;
    }
  a.entries.push_back(std::move(e));
}

bool remove(std::string_view id) {
  Added& a = added();
  const std::lock_guard<std::mutex> lock(a.mutex);
  const auto it =
      std::find_if(a.entries.begin(), a.entries.end(), [&](const Entry& e) { return e.id == id; });
  if (it == a.entries.end()) return false;
  a.entries.erase(it);
  return true;
}

Entry from_registry(const Activation& act, const Params& p) {
  Entry e;
  e.id = act.id;
  e.name = act.name;
  e.formula = act.formula;
  e.used_in = "the registry's double evaluation (the correctly rounded function)";
  e.citation = "core/src/formulas.hpp";
  e.f = [&act, p](double x, const Format&) { return act.eval(x, 0, &p); };
  e.d1 = [&act, p](double x, const Format&) { return act.eval(x, 1, &p); };
  e.batch = [&act, p](std::span<const double> x, std::span<double> y, int order, const Format&) {
    act.eval(x, y, order, &p);
  };
  e.uses_compute = false;
  e.origin = Origin::Registry;
  return e;
}

double rounded_result(const Entry& e, const Format& fmt, double x, double d, int order) {
  if (e.origin == Origin::Registry)
    if (const Activation* act = find_activation(e.id)) return correctly_rounded(*act, fmt, x, d, order);
  return fmt.round(d);
}

Entry from_registry(const Activation& act) {
  return from_registry(act, act.defaults());
}

// [SECTION] Factories and fitted constants

Entry make_pwl(int segments, double a) {
  if (segments < 1 || segments > 65536)
    throw std::invalid_argument("pwl: the number of segments must be in [1, 65536]");
  if (!(a > 0 && a <= 1000)) throw std::invalid_argument("pwl: the half-width a must be in (0, 1000]");
  struct Table {
    int n;
    double a, inv_h;
    std::vector<double> slope, intercept;
  };
  auto t = std::make_shared<Table>();
  t->n = segments;
  t->a = a;
  const double h = 2 * a / segments;
  t->inv_h = segments / (2 * a);
  for (int i = 0; i < segments; ++i) {
    const double x0 = -a + h * i, x1 = i + 1 == segments ? a : -a + h * (i + 1);
    const double y0 = F::gelu(x0), y1 = F::gelu(x1);
    const double s = (y1 - y0) / (x1 - x0);
    t->slope.push_back(s);
    t->intercept.push_back(y0 - s * x0);
  }
  const auto index = [t](const Arith& A, double x) {
    const double u = A.mul(A.add(x, A.in(t->a)), A.in(t->inv_h));
    return static_cast<std::size_t>(std::clamp(std::floor(u), 0.0, static_cast<double>(t->n - 1)));
  };
  Entry e;
  e.id = "pwl" + std::to_string(segments) + (a == 8.0 ? "" : "_a" + fmt_g(a));
  e.name =
      "piecewise-linear, " + std::to_string(segments) + " segments on [−" + fmt_g(a) + ", " + fmt_g(a) + "]";
  e.formula =
      "slope[i]·x + intercept[i], i = ⌊(x + a)·N/(2a)⌋, through GELU at the knots; 0 below −a, x above a";
  e.used_in = "accelerators and FPGA/ASIC activation units (uniform segment tables)";
  e.citation = "uniform piecewise-linear interpolation of GELU";
  e.cost = Cost{4, 0, 0, 3, static_cast<std::size_t>(segments) * 2 * 4};
  e.f = [t, index](double x, const Format& c) {
    const Arith A(c);
    x = A.in(x);
    if (x <= -t->a) return 0.0;
    if (x >= t->a) return x;
    const std::size_t i = index(A, x);
    return A.add(A.mul(A.in(t->slope[i]), x), A.in(t->intercept[i]));
  };
  e.d1 = [t, index](double x, const Format& c) {
    const Arith A(c);
    x = A.in(x);
    if (x <= -t->a) return 0.0;
    if (x >= t->a) return 1.0;
    return A.in(t->slope[index(A, x)]);
  };
  e.origin = Origin::User;
  return e;
}

const FittedConstants& fitted_constants() {
  static const FittedConstants k = [] {
    FittedConstants r;
    const analysis::FunctionSpec g = analysis::spec(*find_activation("gelu"));
    constexpr double lo = -8.0, hi = 8.0;
    const analysis::MinimaxFit c =
        analysis::fit_minimax([](double x, std::span<const double> p) { return F::gelu_tanh(x, p[0]); }, g,
                              {kTanhC}, {1e-3}, lo, hi);
    r.tanh_c = c.params[0];
    r.tanh_c_error = c.max_error;
    // ½x(1 + tanh(a·u)) = x·σ(2a·u), u = x + c·x³: written without cancellation for x < 0.
    const auto tanh_ac = [](double x, std::span<const double> p) {
      const double z = 2 * p[0] * (x + p[1] * x * x * x);
      return z >= 0 ? x / (1 + std::exp(-z)) : x * std::exp(z) / (1 + std::exp(z));
    };
    const analysis::MinimaxFit ac =
        analysis::fit_minimax(tanh_ac, g, {kSqrt2OverPi, kTanhC}, {1e-2, 1e-3}, lo, hi);
    r.tanh_a = ac.params[0];
    r.tanh_ac_c = ac.params[1];
    r.tanh_ac_error = ac.max_error;
    const analysis::MinimaxFit s =
        analysis::fit_minimax([](double x, std::span<const double> p) { return F::x_sigmoid(x, p[0]); }, g,
                              {kSigmoidK}, {1e-2}, lo, hi);
    r.sigmoid_k = s.params[0];
    r.sigmoid_k_error = s.max_error;
    // The shipped constants on the same dense grid, for the comparison beside them.
    const std::size_t n = 16 * 2000 + 1;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1);
      const double ref = F::gelu(x);
      r.shipped_tanh_error = std::max(r.shipped_tanh_error, std::fabs(F::gelu_tanh(x, kTanhC) - ref));
      r.shipped_sigmoid_error =
          std::max(r.shipped_sigmoid_error, std::fabs(F::x_sigmoid(x, kSigmoidK) - ref));
    }
    return r;
  }();
  return k;
}

}  // namespace gelu::zoo

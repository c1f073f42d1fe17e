// [SECTION] Vectorized float32 exp-based functions: the x·σ(z) family — gelu_sigmoid (z = k·x), silu (z =
// β·x), gelu_tanh (z = 2·√(2/π)·(x + c·x³)) — plus Mish, ELU and Softplus; f and f'. These are the correctly
// rounded kernels (Path::Accurate); simd_fast.cpp has the float-arithmetic ones.
//
// Each lane is evaluated in double precision (AVX-512, 8 lanes) and rounded to float once. The pieces:
// exp(−|z|) from a 16-entry 2^(j/16) table, |r| <= ln2/32 and a degree-6 polynomial (relative error < 2^-50),
// scaled with vscalefpd (so it underflows to 0 gracefully); 1/(1 + e) from vrcp14pd and two Newton steps
// (relative error ~2^-56). z is formed in double from the float x, so its relative error is ~2^-52 and the
// exponent's absolute error stays below 2^-42 for |z| <= 745: every result is within 2^-40 (relative) of the
// formula evaluated exactly, far below float's 2^-24 — the float results are within 1 ULP of the correctly
// rounded ones (checked over every finite float in tests/exhaustive). Same formulas as formulas.hpp:
//   σ  = 1/(1+e) for z >= 0, e/(1+e) for z < 0 (e = exp(−|z|)); 1 − σ the other one.
//   f  = x·σ,   f' = σ + x·σ(1−σ)·z'(x),   z' = k, or 2·√(2/π)·(1 + 3c·x²) for the tanh form.
#include "simd_sigmoid.hpp"

#include <cmath>

#include "formulas.hpp"
#include "simd_config.hpp"

namespace gelu::simd {

#ifdef GELU_AVX512
namespace {

#define GELU_INLINE inline __attribute__((always_inline))

struct ExpTable {
  alignas(64) double t[16];
  ExpTable() {
    for (int j = 0; j < 16; ++j) t[j] = std::exp2(j / 16.0);
  }
};
const ExpTable& exp_table() {
  static const ExpTable tb;
  return tb;
}

/// exp(a) for a <= 0 (a >= −1000; below −745 the result is 0).
GELU_INLINE __m512d exp_nonpositive(__m512d a, __m512d tlo, __m512d thi) {
  const __m512d k = _mm512_fmadd_pd(a, _mm512_set1_pd(16.0 / 0.693147180559945309417232121458),
                                    _mm512_set1_pd(kRoundMagicD));
  const __m512d n = _mm512_sub_pd(k, _mm512_set1_pd(kRoundMagicD));
  __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(0x1.62e42fefa39efp-5), a);  // ln2/16, hi
  r = _mm512_fnmadd_pd(n, _mm512_set1_pd(0x1.abc9e3b39803fp-60), r);         // ln2/16, lo
  // e^r − 1 on |r| <= ln2/32 (Taylor to r^6: the next term is < 2^-54).
  __m512d p = _mm512_set1_pd(1.0 / 720);
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 120));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 24));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 6));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.5));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
  p = _mm512_mul_pd(p, r);
  const __m512d T = _mm512_permutex2var_pd(tlo, _mm512_castpd_si512(k), thi);  // low 4 bits of k = n mod 16
  return _mm512_scalef_pd(_mm512_fmadd_pd(T, p, T), _mm512_mul_pd(n, _mm512_set1_pd(1.0 / 16)));
}

/// exp(a) − 1 for a <= 0, accurate in relative terms near 0: where the reduction leaves n = 0, r = a and
/// e^a − 1 is the polynomial itself (no cancellation); elsewhere |e^a − 1| >= 0.02 and the subtraction is
/// exact enough.
GELU_INLINE __m512d expm1_nonpositive(__m512d a, __m512d tlo, __m512d thi) {
  const __m512d small = _mm512_abs_pd(a);
  const __mmask8 tiny = _mm512_cmp_pd_mask(small, _mm512_set1_pd(0.693147180559945309 / 32), _CMP_LT_OQ);
  __m512d p = _mm512_set1_pd(1.0 / 720);  // e^a − 1 on |a| < ln2/32: the same Taylor polynomial as exp
  p = _mm512_fmadd_pd(p, a, _mm512_set1_pd(1.0 / 120));
  p = _mm512_fmadd_pd(p, a, _mm512_set1_pd(1.0 / 24));
  p = _mm512_fmadd_pd(p, a, _mm512_set1_pd(1.0 / 6));
  p = _mm512_fmadd_pd(p, a, _mm512_set1_pd(0.5));
  p = _mm512_fmadd_pd(p, a, _mm512_set1_pd(1.0));
  p = _mm512_mul_pd(p, a);
  const __m512d em1 = _mm512_sub_pd(exp_nonpositive(a, tlo, thi), _mm512_set1_pd(1.0));
  return _mm512_mask_blend_pd(tiny, em1, p);
}

/// 1/d for d > 0 (normal): vrcp14pd (2^-14) and two Newton steps (relative error ~2^-56).
GELU_INLINE __m512d reciprocal(__m512d d) {
  __m512d y = _mm512_rcp14_pd(d);
  for (int i = 0; i < 2; ++i) {
    const __m512d e = _mm512_fnmadd_pd(d, y, _mm512_set1_pd(1.0));
    y = _mm512_fmadd_pd(y, e, y);
  }
  return y;
}

enum class Form { Sigmoid, Tanh };

/// f (order 0) or f' (order 1) for 8 lanes of x (as doubles); param is k (sigmoid form) or c (tanh form).
template <Form kForm, int kOrder>
GELU_INLINE __m512d x_sigmoid8(__m512d x, double param, __m512d tlo, __m512d thi) {
  constexpr double kTwoSqrt2OverPi = 2 * 0.797884560802865355879892119868763737;
  __m512d z, dz;
  if constexpr (kForm == Form::Sigmoid) {
    z = _mm512_mul_pd(x, _mm512_set1_pd(param));
    dz = _mm512_set1_pd(param);
  } else {
    const __m512d x2 = _mm512_mul_pd(x, x);
    z = _mm512_mul_pd(_mm512_mul_pd(x, _mm512_set1_pd(kTwoSqrt2OverPi)),
                      _mm512_fmadd_pd(x2, _mm512_set1_pd(param), _mm512_set1_pd(1.0)));
    dz = _mm512_mul_pd(_mm512_set1_pd(kTwoSqrt2OverPi),
                       _mm512_fmadd_pd(x2, _mm512_set1_pd(3.0 * param), _mm512_set1_pd(1.0)));
  }
  // e = exp(−|z|); |z| clamped so exp's reduction stays in range (exp(−1000) is 0 either way). A NaN x gives
  // a NaN z; the clamp turns it into 1000, and the NaN comes back through the final product with x.
  const __m512d az = _mm512_min_pd(_mm512_abs_pd(z), _mm512_set1_pd(1000.0));
  const __m512d e = exp_nonpositive(_mm512_sub_pd(_mm512_setzero_pd(), az), tlo, thi);
  const __m512d inv = reciprocal(_mm512_add_pd(_mm512_set1_pd(1.0), e));  // 1/(1+e)
  const __m512d e_inv = _mm512_mul_pd(e, inv);                            // e/(1+e)
  const __mmask8 pos = _mm512_cmp_pd_mask(z, _mm512_setzero_pd(), _CMP_GE_OQ);
  const __m512d s = _mm512_mask_blend_pd(pos, e_inv, inv);      // σ(z)
  const __m512d one_s = _mm512_mask_blend_pd(pos, inv, e_inv);  // 1 − σ(z)
  if constexpr (kOrder == 0) {
    // f(−inf) = −0 (the limit; −inf·0 would be NaN); f(+inf) = +inf·1 already.
    return _mm512_mask_blend_pd(_mm512_fpclass_pd_mask(x, 0x10), _mm512_mul_pd(x, s), _mm512_set1_pd(-0.0));
  } else {
    // σ + x·σ(1−σ)·z'. For |x| huge (z' ~ x² for the tanh form) σ(1−σ) is 0, but x·z' may overflow to inf:
    // form σ(1−σ)·z' first (finite: 0·finite) then multiply by x.
    const __m512d q = _mm512_mul_pd(_mm512_mul_pd(s, one_s), dz);
    __m512d y = _mm512_fmadd_pd(x, q, s);
    // The limits at ±inf (and inf·0 avoided): f'(+inf) = 1, f'(−inf) = −0.
    const __mmask8 inf = _mm512_fpclass_pd_mask(x, 0x08 | 0x10);
    y = _mm512_mask_blend_pd(inf, y, _mm512_mask_blend_pd(pos, _mm512_set1_pd(-0.0), _mm512_set1_pd(1.0)));
    return y;
  }
}

/// Mish, f = x·tanh(softplus(x)), and f' = t + x·sech²(softplus x)·σ(x), as formulas::mish_parts writes them:
/// x > 0 in w = e^−x, x <= 0 in e = e^x (no overflow either way).
template <int kOrder>
GELU_INLINE __m512d mish8(__m512d x, __m512d tlo, __m512d thi) {
  const __m512d ax = _mm512_min_pd(_mm512_abs_pd(x), _mm512_set1_pd(1000.0));  // NaN -> 1000; x keeps the NaN
  const __m512d e = exp_nonpositive(_mm512_sub_pd(_mm512_setzero_pd(), ax), tlo, thi);  // e^−|x|
  const __mmask8 pos = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GT_OQ);
  const __m512d one = _mm512_set1_pd(1.0), two = _mm512_set1_pd(2.0);
  // x > 0: t = (1 + 2w)/(1 + 2w + 2w²), 1 − t = 2w²/(…), σ = 1/(1 + w)
  // x <= 0: n = e(e + 2), t = n/(n + 2), 1 − t = 2/(n + 2), σ = e/(1 + e)
  const __m512d w2 = _mm512_mul_pd(e, e);
  const __m512d num_pos = _mm512_fmadd_pd(two, e, one);
  const __m512d den_pos = _mm512_fmadd_pd(two, w2, num_pos);
  const __m512d nn = _mm512_fmadd_pd(e, e, _mm512_mul_pd(two, e));
  const __m512d den_neg = _mm512_add_pd(nn, two);
  const __m512d inv_den = reciprocal(_mm512_mask_blend_pd(pos, den_neg, den_pos));
  const __m512d t = _mm512_mul_pd(_mm512_mask_blend_pd(pos, nn, num_pos), inv_den);
  if constexpr (kOrder == 0) {
    return _mm512_mask_blend_pd(_mm512_fpclass_pd_mask(x, 0x10), _mm512_mul_pd(x, t), _mm512_set1_pd(-0.0));
  } else {
    const __m512d one_t = _mm512_mul_pd(_mm512_mask_blend_pd(pos, two, _mm512_mul_pd(two, w2)), inv_den);
    const __m512d inv1 = reciprocal(_mm512_add_pd(one, e));
    const __m512d sig = _mm512_mask_blend_pd(pos, _mm512_mul_pd(e, inv1), inv1);
    const __m512d q = _mm512_mul_pd(_mm512_mul_pd(one_t, _mm512_add_pd(one, t)), sig);  // sech²·σ
    __m512d y = _mm512_fmadd_pd(x, q, t);
    const __mmask8 inf = _mm512_fpclass_pd_mask(x, 0x08 | 0x10);
    return _mm512_mask_blend_pd(inf, y, _mm512_mask_blend_pd(pos, _mm512_set1_pd(-0.0), one));
  }
}

/// ELU: f = x (x > 0) or α·(e^x − 1); f' = 1 or α·e^x. NaN passes through.
template <int kOrder>
GELU_INLINE __m512d elu8(__m512d x, double alpha, __m512d tlo, __m512d thi) {
  // vminpd returns its second operand when both are zero (or either is NaN): min(0, x) keeps x = −0.
  const __m512d a = _mm512_max_pd(_mm512_min_pd(_mm512_setzero_pd(), x), _mm512_set1_pd(-1000.0));
  const __mmask8 pos = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GT_OQ);
  const __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
  __m512d neg;
  if constexpr (kOrder == 0) {
    // f(−0) = α·expm1(−0) = −0 as in the formula.
    neg = _mm512_mul_pd(_mm512_set1_pd(alpha), expm1_nonpositive(a, tlo, thi));
    return _mm512_mask_blend_pd(pos | nan, neg, x);
  } else {
    neg = _mm512_mul_pd(_mm512_set1_pd(alpha), exp_nonpositive(a, tlo, thi));
    return _mm512_mask_blend_pd(nan, _mm512_mask_blend_pd(pos, neg, _mm512_set1_pd(1.0)), x);
  }
}

/// log(1 + e) for e in [0, 1]: 2·atanh(s), s = e/(2 + e) <= 1/3, as 2s + 2s·u·Q(u), u = s², Q the series
/// through u^8/19 (truncation < 2^-33 relative); the last fma rounds once, to double.
GELU_INLINE __m512d log1p_unit(__m512d e) {
  const __m512d s = _mm512_div_pd(e, _mm512_add_pd(_mm512_set1_pd(2.0), e));
  const __m512d u = _mm512_mul_pd(s, s);
  __m512d q = _mm512_set1_pd(1.0 / 19);
  for (int k = 8; k >= 1; --k) q = _mm512_fmadd_pd(q, u, _mm512_set1_pd(1.0 / (2 * k + 1)));
  const __m512d s2 = _mm512_add_pd(s, s);
  return _mm512_fmadd_pd(_mm512_mul_pd(s2, u), q, s2);
}

/// Softplus log(1 + e^(βx))/β = (max(z, 0) + log1p(e^−|z|))/β and its derivative σ(z), z = βx, in double.
template <int kOrder>
GELU_INLINE __m512d softplus8(__m512d x, double beta, __m512d tlo, __m512d thi) {
  const __m512d z = _mm512_mul_pd(x, _mm512_set1_pd(beta));
  const __m512d az = _mm512_min_pd(_mm512_abs_pd(z), _mm512_set1_pd(1000.0));  // NaN -> 1000; restored below
  const __m512d e = exp_nonpositive(_mm512_sub_pd(_mm512_setzero_pd(), az), tlo, thi);  // e^−|z|
  const __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
  __m512d y;
  if constexpr (kOrder == 0) {
    const __m512d zpos = _mm512_max_pd(z, _mm512_setzero_pd());
    y = _mm512_mul_pd(_mm512_add_pd(zpos, log1p_unit(e)), _mm512_set1_pd(1.0 / beta));
  } else {
    const __m512d inv = reciprocal(_mm512_add_pd(_mm512_set1_pd(1.0), e));
    const __mmask8 pos = _mm512_cmp_pd_mask(z, _mm512_setzero_pd(), _CMP_GE_OQ);
    y = _mm512_mask_blend_pd(pos, _mm512_mul_pd(e, inv), inv);
  }
  return _mm512_mask_blend_pd(nan, y, x);
}

enum class Fn { XSigmoid, Tanh, Mish, Elu, Softplus };

template <Fn kFn, int kOrder>
GELU_INLINE __m512d eval8(__m512d x, double param, __m512d tlo, __m512d thi) {
  if constexpr (kFn == Fn::XSigmoid) return x_sigmoid8<Form::Sigmoid, kOrder>(x, param, tlo, thi);
  if constexpr (kFn == Fn::Tanh) return x_sigmoid8<Form::Tanh, kOrder>(x, param, tlo, thi);
  if constexpr (kFn == Fn::Mish) return mish8<kOrder>(x, tlo, thi);
  if constexpr (kFn == Fn::Elu) return elu8<kOrder>(x, param, tlo, thi);
  if constexpr (kFn == Fn::Softplus) return softplus8<kOrder>(x, param, tlo, thi);
}

template <Fn kFn, int kOrder>
void run(const float* x, float* y, std::size_t n, double param) {
  const ExpTable& tb = exp_table();
  const __m512d tlo = _mm512_load_pd(tb.t), thi = _mm512_load_pd(tb.t + 8);
  std::size_t i = 0;
  auto eval_vec = [&](__m512 v) {
    const __m512d a = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
    const __m512d b = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    const __m256 ra = _mm512_cvtpd_ps(eval8<kFn, kOrder>(a, param, tlo, thi));
    const __m256 rb = _mm512_cvtpd_ps(eval8<kFn, kOrder>(b, param, tlo, thi));
    return _mm512_insertf32x8(_mm512_castps256_ps512(ra), rb, 1);
  };
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, eval_vec(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(y + i, m, eval_vec(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

}  // namespace

void x_sigmoid_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::XSigmoid, 0>(x, y, n, p[0]);
}
void x_sigmoid_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::XSigmoid, 1>(x, y, n, p[0]);
}
void gelu_tanh_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::Tanh, 0>(x, y, n, p[0]);
}
void gelu_tanh_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::Tanh, 1>(x, y, n, p[0]);
}
void mish_f32(const float* x, float* y, std::size_t n, const Params&) {
  run<Fn::Mish, 0>(x, y, n, 0.0);
}
void mish_d1_f32(const float* x, float* y, std::size_t n, const Params&) {
  run<Fn::Mish, 1>(x, y, n, 0.0);
}
void elu_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::Elu, 0>(x, y, n, p[0]);
}
void elu_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::Elu, 1>(x, y, n, p[0]);
}
void softplus_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::Softplus, 0>(x, y, n, p[0]);
}
void softplus_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  run<Fn::Softplus, 1>(x, y, n, p[0]);
}

#else  // No AVX-512: the double reference, rounded.

void x_sigmoid_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::x_sigmoid(x[i], p[0]));
}
void x_sigmoid_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::x_sigmoid_d1(x[i], p[0]));
}
void gelu_tanh_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::gelu_tanh(x[i], p[0]));
}
void gelu_tanh_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::gelu_tanh_d1(x[i], p[0]));
}
void mish_f32(const float* x, float* y, std::size_t n, const Params&) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::mish(x[i]));
}
void mish_d1_f32(const float* x, float* y, std::size_t n, const Params&) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::mish_d1(x[i]));
}
void elu_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::elu(x[i], p[0]));
}
void elu_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::elu_d1(x[i], p[0]));
}
void softplus_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::softplus(x[i], p[0]));
}
void softplus_d1_f32(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::softplus_d1(x[i], p[0]));
}

#endif

}  // namespace gelu::simd

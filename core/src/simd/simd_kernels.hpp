// Vectorized float kernels that replace the generic "double reference, rounded" batched float path.
// Each is tested against formulas.hpp over every finite float (tests/core/exhaustive_test.cpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu_tuning.hpp"
#include "gelu/activation.hpp"

namespace gelu::simd {

/// GELU f, float32, <= 1 ULP from the correctly rounded value for every finite input.
void gelu_f32(const float* x, float* y, std::size_t n, const Params& p);
/// gelu_f32 with f's bins in a given layout: 32 (two-register lookups, degree 4) or 16 (one-register
/// lookups, degree 5) — the same accuracy, different instruction mixes. gelu_f32 takes fast_bins(): 16 on
/// AMD's Zen 4, 32 elsewhere. For the tests (both layouts on any machine) and the benchmark.
void gelu_f32_bins(const float* x, float* y, std::size_t n, int bins);
// fast_bins(), the layout this CPU takes, is the tuning's choice (cpu_tuning.hpp).
/// GELU f', float32, <= 2 ULP (absolute <= 3e-8 within 1e-3 of the root near -0.75179).
void gelu_d1_f32(const float* x, float* y, std::size_t n, const Params& p);

/// gelu_f32 with non-temporal stores for outputs of 16 MB and more (the policy gelu_f32 had before issue 16);
/// kept for the 64M measurement in tests/bench (gelu_nt/f/N; docs/perf-log/the-64m-question.md). Same
/// results.
void gelu_f32_streaming(const float* x, float* y, std::size_t n);
/// The backward pass: dx = dy * gelu'(x), same accuracy as gelu_d1_f32 before the product's rounding.
void gelu_backward_f32(const float* x, const float* dy, float* dx, std::size_t n);

/// x·σ(k·x) (gelu_sigmoid with k, silu with β) and the tanh form x·σ(2√(2/π)(x + c·x³)), f and f', float32:
/// evaluated in double per lane (AVX-512) and rounded once, <= 1 ULP. p[0] is k, β or c.
void x_sigmoid_f32(const float* x, float* y, std::size_t n, const Params& p);
void x_sigmoid_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
/// The fast paths of the same two forms (core/src/simd/simd_fast.cpp): float arithmetic only, <= 2 ULP from
/// the correctly rounded value of the formula for every finite input (f and f'), limits and NaN as the
/// formulas. The backward pass dx = dy·f'(x) rounds once more (the product).
void x_sigmoid_fast_f32(const float* x, float* y, std::size_t n, const Params& p);
void x_sigmoid_d1_fast_f32(const float* x, float* y, std::size_t n, const Params& p);
void x_sigmoid_backward_f32(const float* x, const float* dy, float* dx, std::size_t n, const Params& p);
void gelu_tanh_fast_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_d1_fast_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_backward_f32(const float* x, const float* dy, float* dx, std::size_t n, const Params& p);
/// The tanh form's fast f' (dy null) or backward pass with its bins in a given layout: 32 (two-register
/// lookups, degree 5) or 16 (one-register lookups, degree 6, t up to ~7.377) — the same accuracy, different
/// instruction mixes; gelu_tanh_d1_fast_f32 and gelu_tanh_backward_f32 take fast_bins(). A layout whose
/// tables miss their check falls back as gelu_tanh_d1_by_bins says.
void gelu_tanh_d1_bins_f32(const float* x, const float* dy, float* y, std::size_t n, const Params& p,
                           int bins);
/// Which bins the tanh form's fast f' with cubic coefficient c runs by when asked for `bins` (16 or 32; 0:
/// fast_bins()): that layout where its tables passed their check at build, else 32 where those did, else 0
/// (the quotient kernel; always 0 without AVX-512).
int gelu_tanh_d1_by_bins(double c, int bins = 0);
/// Mish and ELU (p[0] = α), f and f', the same way.
void mish_f32(const float* x, float* y, std::size_t n, const Params& p);
void mish_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
void elu_f32(const float* x, float* y, std::size_t n, const Params& p);
void elu_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
/// Softplus (p[0] = β), f = (max(z, 0) + log1p(e^−|z|))/β and f' = σ(z), z = βx, the same way (log1p by the
/// atanh series, in double).
void softplus_f32(const float* x, float* y, std::size_t n, const Params& p);
void softplus_d1_f32(const float* x, float* y, std::size_t n, const Params& p);

/// Name of the instruction set the kernels were compiled for ("avx512", "avx2", "scalar").
const char* isa();

// [SECTION] bf16 arrays (gelu::bf16 in gelu/kernels.hpp is the public face).

enum class Bf16Op { F, D1, Backward };
/// The tanh form's cubic coefficient on bf16 arrays (the registry's default).
inline constexpr double kBf16TanhC = 0.044715;

/// The bf16 nearest to v, ties to even, from the double value directly (no float rounding in between).
inline std::uint16_t bf16_from_double(double v) {
  if (std::isnan(v)) return 0x7FC0;
  const double a = std::fabs(v);
  double r;
  if (a >= 0x1p-126) {
    int e;
    const double m = std::frexp(a, &e);                       // a = m·2^e, m in [0.5, 1)
    r = std::ldexp(std::nearbyint(std::ldexp(m, 8)), e - 8);  // 8 significant bits, ties to even
    if (r > 0x1.FEp127) r = INFINITY;                         // beyond the largest bf16
  } else {
    r = std::ldexp(std::nearbyint(std::ldexp(a, 133)), -133);  // the subnormal grid, 2^-133
  }
  const float f = static_cast<float>(std::copysign(r, v));  // exact: r has at most 8 significant bits
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<std::uint16_t>(b >> 16);
}

/// The tables of bf16_table.hpp for gelu or the tanh form (c = kBf16TanhC), f (d1 false) or f′, built on
/// first use, and the double reference they come from (op's value at x, times dy for the backward pass): both
/// in core/src/simd/bf16.cpp, shared by every path.
const float* bf16_table(bool tanh_form, bool d1);
double bf16_reference(Bf16Op op, bool tanh_form, double x, double dy);
/// The AVX-512 bf16 loops (simd_bf16.hpp; exact GELU's entry point in simd_kernels.cpp, the tanh form's in
/// simd_fast.cpp); bf16_insn selects vcvtne2ps2bf16 for the final rounding (only where the CPU has
/// AVX512_BF16) or the integer rounding. Both give the correctly rounded result. Not defined without AVX-512
/// (gelu::bf16 then runs the portable path).
void gelu_bf16(Bf16Op op, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y, std::size_t n,
               bool bf16_insn);
void gelu_tanh_bf16(Bf16Op op, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y,
                    std::size_t n, bool bf16_insn);
/// The tables of the correctly rounded bf16 results (bf16_from_double of bf16_reference) of f or f′, 128 KB
/// each, built on first use, and f or f′ (op F or D1, not Backward) over bf16 arrays by one scalar load per
/// element from them: exact by construction, so no guard and no rounding. Built everywhere
/// (core/src/simd/bf16.cpp); the portable path's f and f′, and the AVX-512 build's where it is faster than
/// the gathers of simd_bf16.hpp (gelu::bf16 times both: on Zen 5 one 16-lane vgatherdps cost more than 16
/// scalar loads; core/src/simd/README.md, "Gathers on Zen 5, and the lookup of the results").
const std::uint16_t* bf16_result_table(bool tanh_form, bool d1);
void gelu_bf16_lookup(Bf16Op op, bool tanh_form, const std::uint16_t* x, std::uint16_t* y, std::size_t n);
/// The portable path, built everywhere (core/src/simd/bf16.cpp): gelu_bf16_lookup for f and f′; the backward
/// pass from the float tables with the guard, one element at a time.
void gelu_bf16_portable(Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
                        std::uint16_t* y, std::size_t n);

}  // namespace gelu::simd

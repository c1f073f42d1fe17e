// [SECTION] The fast float kernels of the x·σ(z) family (simd_fast.cpp): gelu_sigmoid and silu (z = k·x),
// gelu_tanh (z = a·(x + c·x³)); f, f′, the backward pass, the tanh form's bin layouts and its bf16 loop.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bf16.hpp"
#include "cpu_tuning.hpp"
#include "gelu/activation.hpp"

namespace gelu::simd {

/// The fast paths of x·σ(k·x) and the tanh form (simd_sigmoid.hpp has their correctly rounded kernels): float
/// arithmetic only, <= 2 ULP from the correctly rounded value of the formula for every finite input (f and
/// f'), limits and NaN as the formulas. The backward pass dx = dy·f'(x) rounds once more (the product).
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

/// The tanh form's AVX-512 bf16 loop (simd_bf16.hpp), as gelu_bf16 (simd_gelu.hpp) is exact GELU's.
void gelu_tanh_bf16(Bf16Op op, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y,
                    std::size_t n, bool bf16_insn);

}  // namespace gelu::simd

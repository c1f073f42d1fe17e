// Vectorized float kernels that replace the generic "double reference, rounded" batched float path.
// Each is tested against formulas.hpp over every finite float (tests/core/exhaustive_test.cpp).
#pragma once

#include <cstddef>

#include "gelu/activation.hpp"

namespace gelu::simd {

/// GELU f, float32, <= 1 ULP from the correctly rounded value for every finite input.
void gelu_f32(const float* x, float* y, std::size_t n, const Params& p);
/// GELU f', float32, <= 2 ULP (absolute <= 3e-8 within 1e-3 of the root near -0.75179).
void gelu_d1_f32(const float* x, float* y, std::size_t n, const Params& p);

/// The backward pass: dx = dy * gelu'(x), same accuracy as gelu_d1_f32 before the product's rounding.
void gelu_backward_f32(const float* x, const float* dy, float* dx, std::size_t n);

/// x·σ(k·x) (gelu_sigmoid with k, silu with β) and the tanh form x·σ(2√(2/π)(x + c·x³)), f and f', float32:
/// evaluated in double per lane (AVX-512) and rounded once, <= 1 ULP. p[0] is k, β or c.
void x_sigmoid_f32(const float* x, float* y, std::size_t n, const Params& p);
void x_sigmoid_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
/// Mish and ELU (p[0] = α), f and f', the same way.
void mish_f32(const float* x, float* y, std::size_t n, const Params& p);
void mish_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
void elu_f32(const float* x, float* y, std::size_t n, const Params& p);
void elu_d1_f32(const float* x, float* y, std::size_t n, const Params& p);

/// Name of the instruction set the kernels were compiled for ("avx512", "avx2", "scalar").
const char* isa();

}  // namespace gelu::simd

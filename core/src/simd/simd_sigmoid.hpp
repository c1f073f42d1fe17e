// [SECTION] The correctly rounded float kernels of the sigmoid family (simd_sigmoid.cpp): x·σ(k·x), the tanh
// form, mish, ELU and softplus, each lane in double and rounded once (Path::Accurate).
#pragma once

#include <cstddef>

#include "gelu/activation.hpp"

namespace gelu::simd {

/// x·σ(k·x) (gelu_sigmoid with k, silu with β) and the tanh form x·σ(2√(2/π)(x + c·x³)), f and f', float32:
/// the correctly rounded kernels (Path::Accurate; simd_fast.hpp has the fast ones), evaluated in double per
/// lane (AVX-512) and rounded once, <= 1 ULP. p[0] is k, β or c.
void x_sigmoid_f32(const float* x, float* y, std::size_t n, const Params& p);
void x_sigmoid_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_f32(const float* x, float* y, std::size_t n, const Params& p);
void gelu_tanh_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
/// Mish and ELU (p[0] = α), f and f', the same way.
void mish_f32(const float* x, float* y, std::size_t n, const Params& p);
void mish_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
void elu_f32(const float* x, float* y, std::size_t n, const Params& p);
void elu_d1_f32(const float* x, float* y, std::size_t n, const Params& p);
/// Softplus (p[0] = β), f = (max(z, 0) + log1p(e^−|z|))/β and f' = σ(z), z = βx, the same way (log1p by the
/// atanh series, in double).
void softplus_f32(const float* x, float* y, std::size_t n, const Params& p);
void softplus_d1_f32(const float* x, float* y, std::size_t n, const Params& p);

}  // namespace gelu::simd

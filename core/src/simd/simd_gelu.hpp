// [SECTION] Exact GELU's float kernels (simd_gelu.cpp): f, f′, the backward pass and the bf16 loop. Each is
// tested against formulas.hpp over every finite float (tests/exhaustive).
#pragma once

#include <cstddef>
#include <cstdint>

#include "bf16.hpp"
#include "gelu/activation.hpp"

namespace gelu::simd {

/// GELU f, float32, <= 1 ULP from the correctly rounded value for every finite input (one bin layout on
/// every CPU: core/src/simd/README.md).
void gelu_f32(const float* x, float* y, std::size_t n, const Params& p);
/// GELU f, float32, correctly rounded where its double value's error interval decides it (the others, under
/// 1 %, take one double erfc, else the reference), two lanes of double a vector (SSE2, WebAssembly's
/// SIMD128): what gelu_f32 runs without AVX-512 (the browser).
void gelu_f32_portable(const float* x, float* y, std::size_t n);
/// GELU f', float32, <= 2 ULP (absolute <= 3e-8 within 1e-3 of the root near -0.75179).
void gelu_d1_f32(const float* x, float* y, std::size_t n, const Params& p);

/// The backward pass: dx = dy * gelu'(x), same accuracy as gelu_d1_f32 before the product's rounding.
void gelu_backward_f32(const float* x, const float* dy, float* dx, std::size_t n);

/// Exact GELU's AVX-512 bf16 loop (simd_bf16.hpp; the tanh form's is in simd_fast.hpp); bf16_insn selects
/// vcvtne2ps2bf16 for the final rounding (only where the CPU has AVX512_BF16) or the integer rounding. Both
/// give the correctly rounded result. Not defined without AVX-512 (gelu::bf16 then runs the portable path).
void gelu_bf16(Bf16Op op, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y, std::size_t n,
               bool bf16_insn);

/// Name of the instruction set the kernels were compiled for ("avx512", "avx2", "scalar").
const char* isa();

}  // namespace gelu::simd

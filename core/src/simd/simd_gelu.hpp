// [SECTION] Exact GELU's float kernels (simd_gelu.cpp): f, f′ and the backward pass, the bin layouts, the
// streaming variant and the bf16 loop. Each is tested against formulas.hpp over every finite float
// (tests/exhaustive).
#pragma once

#include <cstddef>
#include <cstdint>

#include "bf16.hpp"
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

/// Exact GELU's AVX-512 bf16 loop (simd_bf16.hpp; the tanh form's is in simd_fast.hpp); bf16_insn selects
/// vcvtne2ps2bf16 for the final rounding (only where the CPU has AVX512_BF16) or the integer rounding. Both
/// give the correctly rounded result. Not defined without AVX-512 (gelu::bf16 then runs the portable path).
void gelu_bf16(Bf16Op op, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y, std::size_t n,
               bool bf16_insn);

/// Name of the instruction set the kernels were compiled for ("avx512", "avx2", "scalar").
const char* isa();

}  // namespace gelu::simd

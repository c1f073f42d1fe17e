// [SECTION] The bf16 array loop shared by the AVX-512 kernels (gelu and gelu_tanh): 32 bf16 inputs widened to
// two float vectors (exact), a float kernel, and a rounding to bf16 that is correct for every input:
//
//   A float result within E float ULPs of the exact value rounds to the same bf16 as the exact value unless a
//   bf16 rounding boundary (a float whose low 16 bits are 0x8000) lies within E ULPs of it. Lanes whose low
//   16 bits are within kGuard of 0x8000 are therefore recomputed from the double reference and rounded once,
//   from double, to bf16 (bf16_from_double); with kGuard = 8 that is ~0.03 % of lanes. E is at most 2 ULP for
//   the kernels used here (exhaustive float sweeps), 2.5 for dy·f'; the bf16 test checks all 65,536 inputs.
//
// vcvtne2ps2bf16 (AVX512_BF16) rounds to nearest even but flushes subnormal results to zero, so a vector with
// a subnormal result takes the integer rounding below instead; without AVX512_BF16 the integer rounding is
// used throughout. Only included by translation units built with AVX-512.
#pragma once

// GCC 12's AVX-512 headers build masks from _mm512_undefined_*(), which -Wuninitialized flags falsely (GCC
// PR105593); every translation unit that includes this header is AVX-512 code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simd_kernels.hpp"

namespace gelu::simd {

inline constexpr int kBf16Guard = 8;

/// bf16 → float for 16 lanes (exact).
inline __attribute__((always_inline)) __m512 bf16_load16(const std::uint16_t* p) {
  return _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
}
inline __attribute__((always_inline)) __m512 bf16_load16_masked(const std::uint16_t* p, __mmask16 m) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
}

/// Lanes whose float value lies within kBf16Guard ULPs of a bf16 rounding boundary.
inline __attribute__((always_inline)) __mmask16 bf16_near_boundary(__m512 v) {
  const __m512i low = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0xFFFF));
  return _mm512_cmple_epu32_mask(_mm512_sub_epi32(low, _mm512_set1_epi32(0x8000 - kBf16Guard)),
                                 _mm512_set1_epi32(2 * kBf16Guard));
}

/// Round to nearest even in integer arithmetic (correct for subnormals; NaN inputs here are bf16 NaNs, whose
/// low bits are zero, so they stay NaN).
inline __attribute__((always_inline)) __m256i bf16_round_int(__m512 v) {
  const __m512i b = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
  const __m512i r = _mm512_add_epi32(b, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF)));
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

/// y = op(x) (or dx = dy·f'(x)) over bf16 arrays. `k` computes f or f' for 16 float lanes; `ref(x, dy)` the
/// exact result in double for the lanes near a boundary.
template <bool kBf16Insn, Bf16Op kOp, class Kernel, class Ref>
inline __attribute__((always_inline)) void run_bf16(const std::uint16_t* x, const std::uint16_t* dy,
                                                    std::uint16_t* y, std::size_t n, const Kernel& k,
                                                    const Ref& ref) {
  auto fix = [&](std::size_t i, __mmask16 near, __m512 v, std::uint16_t* out) {
    (void)v;
    for (int l = 0; l < 16; ++l) {
      if (!((near >> l) & 1)) continue;
      std::uint32_t xb = static_cast<std::uint32_t>(x[i + static_cast<std::size_t>(l)]) << 16, db = 0;
      if constexpr (kOp == Bf16Op::Backward)
        db = static_cast<std::uint32_t>(dy[i + static_cast<std::size_t>(l)]) << 16;
      float xf, df;
      std::memcpy(&xf, &xb, 4);
      std::memcpy(&df, &db, 4);
      out[l] = bf16_from_double(ref(static_cast<double>(xf), static_cast<double>(df)));
    }
  };
  // dy·f': where f' is zero or subnormal in float (x < −13 for gelu) it has lost relative precision that a
  // large dy would bring back into the normal range; those lanes go to the double reference too.
  __mmask16 lost = 0;
  auto eval = [&](__m512 xv, std::size_t i, __mmask16 m) {
    __m512 v = k(xv);
    if constexpr (kOp == Bf16Op::Backward) {
      const __m512 g = bf16_load16_masked(dy + i, m);
      lost = _mm512_fpclass_ps_mask(v, 0x06 | 0x20) & _mm512_cmp_ps_mask(g, _mm512_setzero_ps(), _CMP_NEQ_OQ);
      v = _mm512_mul_ps(g, v);
    }
    return v;
  };
  auto store16 = [&](std::size_t i, __m512 v, __mmask16 m, __mmask16 extra) {
    const __mmask16 near = (bf16_near_boundary(v) | extra) & m;
    alignas(32) std::uint16_t out[16];
    if constexpr (kBf16Insn) {
      if (_mm512_fpclass_ps_mask(v, 0x20) & m)  // a subnormal result: vcvtneps2bf16 would flush it
        _mm256_store_si256(reinterpret_cast<__m256i*>(out), bf16_round_int(v));
      else
        _mm256_store_si256(reinterpret_cast<__m256i*>(out), (__m256i)_mm512_cvtneps_pbh(v));
    } else {
      _mm256_store_si256(reinterpret_cast<__m256i*>(out), bf16_round_int(v));
    }
    if (near) [[unlikely]]
      fix(i, near, v, out);
    _mm256_mask_storeu_epi16(y + i, m, _mm256_load_si256(reinterpret_cast<const __m256i*>(out)));
  };
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = eval(bf16_load16(x + i), i, 0xFFFF);
    const __mmask16 lost_a = lost;
    const __m512 b = eval(bf16_load16(x + i + 16), i + 16, 0xFFFF);
    const __mmask16 lost_b = lost;
    const __mmask16 near_a = bf16_near_boundary(a) | lost_a, near_b = bf16_near_boundary(b) | lost_b;
    bool plain = !(near_a | near_b);
    if constexpr (kBf16Insn)
      plain = plain && !(_mm512_fpclass_ps_mask(a, 0x20) | _mm512_fpclass_ps_mask(b, 0x20));
    if (plain) [[likely]] {
      if constexpr (kBf16Insn) {
        _mm512_storeu_si512(y + i, (__m512i)_mm512_cvtne2ps_pbh(b, a));
      } else {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), bf16_round_int(a));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i + 16), bf16_round_int(b));
      }
    } else {
      store16(i, a, 0xFFFF, lost_a);
      store16(i + 16, b, 0xFFFF, lost_b);
    }
  }
  for (; i < n; i += 16) {
    const std::size_t left = n - i;
    const __mmask16 m = left >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << left) - 1u);
    const __m512 v = eval(bf16_load16_masked(x + i, m), i, m);
    store16(i, v, m, lost);
  }
}

}  // namespace gelu::simd

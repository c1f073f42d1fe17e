// [SECTION] The bf16 array loop of the AVX-512 path (gelu and gelu_tanh): 32 bf16 inputs widened to two float
// vectors (exact), a kernel (a gather from the tables of bf16_table.hpp), and a rounding to bf16 that is
// correct for every input by the guard described there: lanes whose low 16 bits lie within 8 below or 7 above
// 0x8000 (~0.02 %) are recomputed from the double reference and rounded once (bf16_from_double).
//
// The main loop widens 32 bf16 values from one 64-byte load: the even-indexed ones are the low halves of the
// 32-bit lanes (a shift moves them up), the odd-indexed ones the high halves (a mask clears the low half).
// The two float vectors are evaluated and the bf16 results interleaved again (vpermw after vcvtne2ps2bf16,
// or for free in the integer rounding). A block with a lane to fix is evaluated again in index order.
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

#include "bf16.hpp"
#include "bf16_table.hpp"
#include "simd_loop.hpp"

namespace gelu::simd {

/// bf16 → float for 16 lanes (exact).
inline __attribute__((always_inline)) __m512 bf16_load_vec(const std::uint16_t* p) {
  return _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
}
inline __attribute__((always_inline)) __m512 bf16_load_vec_masked(const std::uint16_t* p, __mmask16 m) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
}
/// 32 bf16 values -> the even-indexed and the odd-indexed ones as floats (exact).
inline __attribute__((always_inline)) void bf16_load32_split(const std::uint16_t* p, __m512& even,
                                                             __m512& odd) {
  const __m512i raw = _mm512_loadu_si512(p);
  even = _mm512_castsi512_ps(_mm512_slli_epi32(raw, 16));
  odd = _mm512_castsi512_ps(_mm512_and_si512(raw, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

/// t[bf16 bits of x] for 16 lanes whose floats are bf16 values (their low 16 bits zero).
inline __attribute__((always_inline)) __m512 bf16_lookup(const float* t, __m512 x) {
  return _mm512_i32gather_ps(_mm512_srli_epi32(_mm512_castps_si512(x), 16), t, 4);
}

/// Lanes whose float value lies within the guard of a bf16 rounding boundary: low 16 bits in [0x8000 − 8,
/// 0x8000 + 7], that is (low + 0x8008) mod 2^16 in [0, 15]: one add and one test (the bits above 15 are not
/// tested).
inline __attribute__((always_inline)) __mmask16 bf16_near_boundary(__m512 v) {
  const __m512i t = _mm512_add_epi32(_mm512_castps_si512(v), _mm512_set1_epi32(0x8008));
  return _mm512_testn_epi32_mask(t, _mm512_set1_epi32(0xFFF0));
}

/// dy·f': lanes where f' is zero or subnormal in float (it has lost relative precision that a large dy would
/// bring back into the normal range) and dy is not zero; they go to the double reference.
inline __attribute__((always_inline)) __mmask16 bf16_lost_lanes(__m512 d1, __m512 dy) {
  return _mm512_fpclass_ps_mask(d1, 0x06 | 0x20) & _mm512_cmp_ps_mask(dy, _mm512_setzero_ps(), _CMP_NEQ_OQ);
}

/// Round to nearest even in integer arithmetic (correct for subnormals; NaN inputs here are bf16 NaNs, whose
/// low bits are zero, so they stay NaN): the float's bits with the bf16 value in the high 16 bits.
inline __attribute__((always_inline)) __m512i bf16_round_bits(__m512 v) {
  const __m512i b = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
  return _mm512_add_epi32(b, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF)));
}
inline __attribute__((always_inline)) __m256i bf16_round_int(__m512 v) {
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(bf16_round_bits(v), 16));
}
/// 32 bf16 results, interleaved back from the even- and the odd-indexed halves (integer rounding).
inline __attribute__((always_inline)) __m512i bf16_round_int_interleaved(__m512 even, __m512 odd) {
  return _mm512_ternarylogic_epi32(_mm512_srli_epi32(bf16_round_bits(even), 16), bf16_round_bits(odd),
                                   _mm512_set1_epi32(static_cast<int>(0xFFFF0000u)), 0xF8);  // A | (B & C)
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
  __mmask16 lost = 0;  // bf16_lost_lanes of the last eval (x < −13 for gelu)
  auto eval = [&](__m512 xv, std::size_t i, __mmask16 m) {
    __m512 v = k(xv);
    if constexpr (kOp == Bf16Op::Backward) {
      const __m512 g = bf16_load_vec_masked(dy + i, m);
      lost = bf16_lost_lanes(v, g);
      v = _mm512_mul_ps(g, v);
    }
    return v;
  };
  auto store_vec = [&](std::size_t i, __m512 v, __mmask16 m, __mmask16 extra) {
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
  // out[k] = packed[k/2] (k even) or packed[16 + k/2] (k odd), packed = [even results, odd results].
  alignas(64) static constexpr std::uint16_t kInterleave[32] = {0,  16, 1,  17, 2,  18, 3,  19, 4,  20, 5,
                                                                21, 6,  22, 7,  23, 8,  24, 9,  25, 10, 26,
                                                                11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  [[maybe_unused]] const __m512i interleave = _mm512_load_si512(kInterleave);  // kBf16Insn only
  auto block = [&](std::size_t i) __attribute__((always_inline)) {
    __m512 xe, xo;
    bf16_load32_split(x + i, xe, xo);
    __m512 a = k(xe), b = k(xo);
    __mmask16 lost_ab = 0;
    if constexpr (kOp == Bf16Op::Backward) {
      __m512 ge, go;
      bf16_load32_split(dy + i, ge, go);
      lost_ab = bf16_lost_lanes(a, ge) | bf16_lost_lanes(b, go);
      a = _mm512_mul_ps(ge, a);
      b = _mm512_mul_ps(go, b);
    }
    bool plain = !(bf16_near_boundary(a) | bf16_near_boundary(b) | lost_ab);
    if constexpr (kBf16Insn)
      plain = plain && !(_mm512_fpclass_ps_mask(a, 0x20) | _mm512_fpclass_ps_mask(b, 0x20));
    if (plain) [[likely]] {
      if constexpr (kBf16Insn)
        _mm512_storeu_si512(y + i, _mm512_permutexvar_epi16(interleave, (__m512i)_mm512_cvtne2ps_pbh(b, a)));
      else
        _mm512_storeu_si512(y + i, bf16_round_int_interleaved(a, b));
    } else {
      // A lane to fix (about one block in 200): the block again in index order, lane by lane where needed.
      const __m512 a2 = eval(bf16_load_vec(x + i), i, 0xFFFF);
      const __mmask16 lost_a = lost;
      const __m512 b2 = eval(bf16_load_vec(x + i + 16), i + 16, 0xFFFF);
      const __mmask16 lost_b = lost;
      store_vec(i, a2, 0xFFFF, lost_a);
      store_vec(i + 16, b2, 0xFFFF, lost_b);
    }
  };
  // Arrays beyond the caches: the inputs prefetched 4 KB ahead, as in run_f32.
  std::size_t i = 0;
  if (n * sizeof(std::uint16_t) >= kPrefetchMinBytes) {
    for (; i + 32 <= n; i += 32) {
      prefetch_ahead(x + i, kPrefetchBytes);
      if constexpr (kOp == Bf16Op::Backward) prefetch_ahead(dy + i, kPrefetchBytes);
      block(i);
    }
  } else {
    for (; i + 32 <= n; i += 32) block(i);
  }
  for (; i < n; i += 16) {
    const std::size_t left = n - i;
    const __mmask16 m = left >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << left) - 1u);
    const __m512 v = eval(bf16_load_vec_masked(x + i, m), i, m);
    store_vec(i, v, m, lost);
  }
}

/// op over bf16 arrays of gelu or of the tanh form: the kernel is a gather from bf16_table, rounded and
/// guarded by run_bf16 (the guard's lanes from bf16_reference), with vcvtne2ps2bf16 where bf16_insn says the
/// CPU has AVX512_BF16.
template <bool kBf16Insn>
void bf16_by_table_as(Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
                      std::uint16_t* y, std::size_t n) {
  const float* t = bf16_table(tanh_form, op != Bf16Op::F);
  auto k = [t](__m512 v) { return bf16_lookup(t, v); };
  auto ref = [op, tanh_form](double v, double g) { return bf16_reference(op, tanh_form, v, g); };
  switch (op) {
    case Bf16Op::F:
      run_bf16<kBf16Insn, Bf16Op::F>(x, dy, y, n, k, ref);
      break;
    case Bf16Op::D1:
      run_bf16<kBf16Insn, Bf16Op::D1>(x, dy, y, n, k, ref);
      break;
    case Bf16Op::Backward:
      run_bf16<kBf16Insn, Bf16Op::Backward>(x, dy, y, n, k, ref);
      break;
  }
}
inline void bf16_by_table(Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
                          std::uint16_t* y, std::size_t n, bool bf16_insn) {
#ifdef __AVX512BF16__
  if (bf16_insn) return bf16_by_table_as<true>(op, tanh_form, x, dy, y, n);
#endif
  (void)bf16_insn;
  bf16_by_table_as<false>(op, tanh_form, x, dy, y, n);
}

}  // namespace gelu::simd

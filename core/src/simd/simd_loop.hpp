// [SECTION] The loop shared by the AVX-512 float32 kernels: y[i] = k(x[i]) or dx[i] = dy[i]·k(x[i]), 16 lanes
// at a time, two vectors per iteration (their independent chains overlap), a masked tail, ordinary stores,
// and for arrays beyond the caches a software prefetch of the inputs and a prefetch of the outputs. Only
// included by translation units built with AVX-512.
//
// Why not streaming stores: a compute-bound kernel with non-temporal stores ran slower than the same kernel
// with ordinary stores at 64M elements, although a plain copy is faster with them (docs/performance.md, "What
// did not pay"; the runs: docs/perf-log/the-64m-question.md, docs/perf-log/2026-12-03-cpu-variants.md).
#pragma once

// GCC 12's AVX-512 headers build masks from _mm512_undefined_*(), which -Wuninitialized flags falsely (GCC
// PR105593); every translation unit that includes this header is AVX-512 code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu_tuning.hpp"

#define GELU_INLINE inline __attribute__((always_inline))
// The same for a lambda (after its parameter list) that a loop below calls for every vector.
#define GELU_LAMBDA_INLINE __attribute__((always_inline))
// A rarely taken path kept out of the hot loops (its vectors pass in registers).
#define GELU_COLD __attribute__((noinline, cold))

namespace gelu::simd {

// Arrays of kPrefetchMinBytes or more prefetch their inputs kPrefetchBytes ahead and their outputs
// kPrefetchWriteBytes ahead for writing (Zen 4: kPrefetchReadOutBytes ahead for reading).
inline constexpr std::size_t kPrefetchMinBytes = std::size_t(1) << 20;
// 4 KB ahead: nearer measured the same, farther slower (two streams that far ahead fill much of a 32 KB L1d;
// docs/perf-log/2026-11-28.md, "Zen 4: exact GELU's f is bound by its FMA pipes").
inline constexpr std::size_t kPrefetchBytes = 4096;
inline constexpr std::size_t kPrefetchWriteBytes = 4096;
// Zen 4 (Tuning::Zen4) prefetches the outputs for reading, 1 KB ahead, which beat prefetchw 4 KB ahead there
// at 64M elements (docs/perf-log/2026-11-28.md, "Zen 4 tuning").
inline constexpr std::size_t kPrefetchReadOutBytes = 1024;

/// prefetcht0 of the cache line at p + bytes (no access: beyond the array is fine), which the compiler cannot
/// drop. GCC 12 deleted `_mm_prefetch` calls made through a lambda in run_f32 as dead code (-fno-tree-dce
/// kept them), so exact GELU's f and the fast kernels' loops ran without any prefetch while the source said
/// otherwise (the two-pass loop, whose calls were written in the loop body, kept its own). An `asm volatile`
/// is never deleted; tests/style/check_layers.py keeps other prefetches out of core/src.
GELU_INLINE void prefetch_ahead(const void* p, std::size_t bytes) {
  const auto* a = reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) + bytes);
  asm volatile("prefetcht0 %0" : : "m"(*a));
}

/// prefetchw of the cache line at p + bytes: fetched in the exclusive state, so the store that comes later
/// finds it ready instead of waiting for its read-for-ownership (an `asm volatile` for the reason above).
GELU_INLINE void prefetch_for_write(const void* p, std::size_t bytes) {
  const auto* a = reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) + bytes);
  asm volatile("prefetchw %0" : : "m"(*a));
}

/// The inputs of the 32 elements at j, prefetched kPrefetchBytes ahead (x, and dy with kGrad): what both
/// float loops do per iteration for arrays of kPrefetchMinBytes or more.
template <bool kGrad>
GELU_INLINE void prefetch_inputs(const float* x, const float* dy, std::size_t j) {
  for (int c = 0; c < 2; ++c) prefetch_ahead(x + j, kPrefetchBytes + 64 * c);
  if constexpr (kGrad)
    for (int c = 0; c < 2; ++c) prefetch_ahead(dy + j, kPrefetchBytes + 64 * c);
}

/// The outputs of the 32 elements at j, beside prefetch_inputs: for writing kPrefetchWriteBytes ahead, or
/// with `read` (Zen 4) for reading kPrefetchReadOutBytes ahead.
/// prefetchw beat no output prefetch on Zen 5 at 64M elements, one and two threads (docs/perf-log/
/// the-64m-question.md, "Prefetching the outputs for writing").
GELU_INLINE void prefetch_output(const float* y, std::size_t j, bool read) {
  if (read) {
    for (int c = 0; c < 2; ++c) prefetch_ahead(y + j, kPrefetchReadOutBytes + 64 * c);
  } else {
    for (int c = 0; c < 2; ++c) prefetch_for_write(y + j, kPrefetchWriteBytes + 64 * c);
  }
}

/// The 32-entry table idiom: two registers, vpermt2ps selects by the low 5 bits of each index lane.
struct Table32 {
  __m512 lo, hi;
  explicit Table32(const float* t) : lo(_mm512_loadu_ps(t)), hi(_mm512_loadu_ps(t + 16)) {}
  GELU_INLINE __m512 operator()(__m512i idx) const { return _mm512_permutex2var_ps(lo, idx, hi); }
};
/// The 16-entry table idiom: one register, vpermps selects by the low 4 bits of each index lane (on Zen 4 a
/// vpermps leaves the FMA pipes half free where a vpermt2ps takes a whole slot; cpu_tuning.hpp).
struct Table16 {
  __m512 v;
  explicit Table16(const float* t) : v(_mm512_loadu_ps(t)) {}
  GELU_INLINE __m512 operator()(__m512i idx) const { return _mm512_permutexvar_ps(idx, v); }
};

/// N tables of one idiom (Table16 or Table32), the i-th from row(i) (a polynomial's coefficient tables).
template <class Table, std::size_t N, class Row>
std::array<Table, N> tables_of(const Row& row) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Table, N>{Table(row(static_cast<int>(I)))...};
  }
  (std::make_index_sequence<N>{});
}

/// 2^m·2^(j/N) from tsh = the hi_shifted table's entry for kb (see Exp2Table; N = 2^kBits): one shift and one
/// add, exact while the result is a normal float.
template <int kBits = 5>
GELU_INLINE __m512 exp2_scaled(__m512 tsh, __m512i kb) {
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(tsh), _mm512_slli_epi32(kb, 23 - kBits)));
}
/// 2^(j/32) itself from the same entry (for paths that apply 2^m later, with vscalefps).
GELU_INLINE __m512 exp2_unscaled(__m512 tsh, __m512i kb) {
  return _mm512_castsi512_ps(_mm512_add_epi32(
      _mm512_castps_si512(tsh), _mm512_slli_epi32(_mm512_and_si512(kb, _mm512_set1_epi32(31)), 18)));
}

/// Runs `k` (a callable __m512 -> __m512) over n floats, two vectors per iteration; with kGrad the result is
/// multiplied by dy. `kg(v)` evaluates the two vectors in place (__m512 (&)[2]: kernels that interleave their
/// chains or share a branch between them); the last n mod 32 elements take `k`, masked.
template <bool kGrad, class Kernel, class GroupKernel>
GELU_INLINE void run_f32_by(const float* x, const float* dy, float* y, std::size_t n, const Kernel& k,
                            const GroupKernel& kg) {
  constexpr int kVecs = 2;
  constexpr std::size_t kStep = 16 * kVecs;
  auto one = [&](std::size_t i, __mmask16 m) GELU_LAMBDA_INLINE {
    const __m512 v = k(_mm512_maskz_loadu_ps(m, x + i));
    if constexpr (kGrad) return _mm512_mul_ps(_mm512_maskz_loadu_ps(m, dy + i), v);
    return v;
  };
  auto group = [&](std::size_t i, __m512(&v)[kVecs]) GELU_LAMBDA_INLINE {
    for (int c = 0; c < kVecs; ++c) v[c] = _mm512_loadu_ps(x + i + 16 * c);
    kg(v);
    if constexpr (kGrad)
      for (int c = 0; c < kVecs; ++c) v[c] = _mm512_mul_ps(_mm512_loadu_ps(dy + i + 16 * c), v[c]);
  };
  std::size_t i = 0;
  if (n * sizeof(float) >= kPrefetchMinBytes) {
    const bool read = tuning() == Tuning::Zen4;
    for (; i + kStep <= n; i += kStep) {
      prefetch_inputs<kGrad>(x, dy, i);
      prefetch_output(y, i, read);
      __m512 v[kVecs];
      group(i, v);
      for (int c = 0; c < kVecs; ++c) _mm512_storeu_ps(y + i + 16 * c, v[c]);
    }
  } else {
    for (; i + kStep <= n; i += kStep) {
      __m512 v[kVecs];
      group(i, v);
      for (int c = 0; c < kVecs; ++c) _mm512_storeu_ps(y + i + 16 * c, v[c]);
    }
  }
  for (; i < n; i += 16) {
    const std::size_t left = n - i;
    const __mmask16 m = left >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << left) - 1u);
    _mm512_mask_storeu_ps(y + i, m, one(i, m));
  }
}

/// run_f32_by with the pair as two arguments: `k2(a, b)` evaluates them in place.
template <bool kGrad, class Kernel, class PairKernel>
GELU_INLINE void run_f32(const float* x, const float* dy, float* y, std::size_t n, const Kernel& k,
                         const PairKernel& k2) {
  run_f32_by<kGrad>(x, dy, y, n, k, [&](__m512(&v)[2]) GELU_LAMBDA_INLINE { k2(v[0], v[1]); });
}

template <bool kGrad, class Kernel>
GELU_INLINE void run_f32(const float* x, const float* dy, float* y, std::size_t n, const Kernel& k) {
  run_f32<kGrad>(x, dy, y, n, k, [&](__m512& a, __m512& b) {
    a = k(a);
    b = k(b);
  });
}

/// The loop of the f′ kernels whose lanes near a root of f′ need a formula of their own: y[i] = f′(x[i]) or
/// dx[i] = dy[i]·f′(x[i]), in blocks of kRootBlock elements and two passes. Pass 1 runs `main` (__m512 ->
/// __m512, everything but the root's lanes) on every whole vector and notes, without a branch, the vectors
/// where `near` (__m512 -> __mmask16) has a lane; pass 2 writes `root` (__m512 -> __m512) into those lanes by
/// masked stores, times dy with kGrad. With N(0, σ) inputs a tenth to a third of the vectors have such a
/// lane, at random: a branch on them in the loop is mispredicted about as often, and evaluating `root` in
/// every vector costs its instructions everywhere. `full` (the whole kernel on one vector) takes the masked
/// tail, and the whole array when y overlaps x or dy (in place: pass 2 needs the inputs pass 1 overwrote).
inline constexpr std::size_t kRootBlock = 2048;
template <bool kGrad, class Main, class Near, class Root, class Full>
GELU_INLINE void run_f32_root_two_pass(const float* x, const float* dy, float* y, std::size_t n,
                                       const Main& main, const Near& near, const Root& root,
                                       const Full& full) {
  const auto overlaps = [n](const float* a, const float* b) {
    const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
    return pa < pb + n * sizeof(float) && pb < pa + n * sizeof(float);
  };
  if (overlaps(x, y) || (kGrad && overlaps(dy, y))) {
    run_f32<kGrad>(x, dy, y, n, full);
    return;
  }
  std::uint16_t near_at[kRootBlock / 16];  // offsets within the block
  const std::size_t whole = n - n % 16;
  const bool prefetch = n * sizeof(float) >= kPrefetchMinBytes, read = tuning() == Tuning::Zen4;
  auto one = [&](std::size_t j, std::size_t& cnt) GELU_LAMBDA_INLINE {
    const __m512 v = _mm512_loadu_ps(x + j);
    const __mmask16 m = near(v);
    __m512 f = main(v);
    near_at[cnt] = static_cast<std::uint16_t>(j % kRootBlock);
    cnt += _kortestz_mask16_u8(m, m) ? 0 : 1;
    if constexpr (kGrad) f = _mm512_mul_ps(_mm512_loadu_ps(dy + j), f);
    _mm512_storeu_ps(y + j, f);
  };
  for (std::size_t b = 0; b < whole; b += kRootBlock) {
    const std::size_t end = std::min(whole, b + kRootBlock);
    std::size_t cnt = 0, j = b;
    for (; j + 32 <= end; j += 32) {
      if (prefetch) {
        prefetch_inputs<kGrad>(x, dy, j);
        prefetch_output(y, j, read);
      }
      one(j, cnt);
      one(j + 16, cnt);
    }
    if (j < end) one(j, cnt);
    for (std::size_t k = 0; k < cnt; ++k) {
      const std::size_t at = b + near_at[k];
      const __m512 v = _mm512_loadu_ps(x + at);
      __m512 f = root(v);
      if constexpr (kGrad) f = _mm512_mul_ps(_mm512_loadu_ps(dy + at), f);
      _mm512_mask_storeu_ps(y + at, near(v), f);
    }
  }
  if (whole < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - whole)) - 1u);
    __m512 f = full(_mm512_maskz_loadu_ps(m, x + whole));
    if constexpr (kGrad) f = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, dy + whole), f);
    _mm512_mask_storeu_ps(y + whole, m, f);
  }
}

}  // namespace gelu::simd

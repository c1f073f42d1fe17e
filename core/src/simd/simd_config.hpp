// The kernel room's configuration (core/src/simd/README.md): the one test for the AVX-512 kernels
// (GELU_AVX512: AVX-512F and DQ at compile time; without it every kernel takes its portable path) and the
// constants the float kernels share. The per-CPU tuning choice is cpu_tuning.hpp's, taken once per process.
#pragma once

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define GELU_AVX512 1
#include <immintrin.h>
// GCC 12's AVX-512 headers build masks from _mm512_undefined_*(), which -Wuninitialized flags falsely.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace gelu::simd {

/// ln2/32 in two parts: kLn2Over32Hi = 355·2^-14 has 9 significant bits, so n·kLn2Over32Hi is exact for
/// |n| < 2^14; n·kLn2Over32Lo stays below 0.033 where the kernels use it, so its rounding costs < 2^-29.
inline constexpr float kLn2Over32Hi = 0x1.63p-6f;
inline constexpr float kLn2Over32Lo =
    static_cast<float>(0.693147180559945309417232121458176568 / 32.0 - 0x1.63p-6);
/// 1.5·2^23: adding it to a float of magnitude below 2^22 rounds it to an integer kept in the low mantissa
/// bits (k = n + kRoundMagicF; its bits give n, and n = k − kRoundMagicF exactly).
inline constexpr float kRoundMagicF = 12582912.0f;
/// 1.5·2^52: the same for doubles.
inline constexpr double kRoundMagicD = 0x1.8p52;

}  // namespace gelu::simd

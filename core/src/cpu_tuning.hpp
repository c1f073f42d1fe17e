// [SECTION] The CPU tuning the vectorized kernels take: one choice per process, from the CPU (or the
// environment), read by the kernels that have a variant for it (simd/simd_fast.cpp, simd/simd_loop.hpp).
#pragma once

namespace gelu::simd {

/// Zen4: AMD family 25 (0x19) with AVX-512. Its 512-bit operations take two of its four 256-bit FP pipes, a
/// two-register lookup (vpermt2ps) takes an FMA pipe's slot, and a prefetchw of the outputs costs the loops
/// more than it gives; the tanh form's f′ takes 16 bins there and the loops prefetch their outputs for
/// reading (core/src/simd/README.md, "CPU-specific variants"). Default: every other CPU (Zen 5, Intel).
enum class Tuning { Default, Zen4 };

/// This process's tuning: GELU_TUNING=zen4 or GELU_TUNING=default in the environment when set (to measure one
/// CPU's choices on another; any other value is reported once on stderr and ignored), else the CPU's own.
Tuning tuning();
/// "zen4" or "default".
const char* tuning_name(Tuning t);
/// The bin layout the tanh form's f′ and backward pass take (simd/simd_fast.cpp): 16 bins in one-register
/// tables on Zen 4, whose two-register lookups take an FMA pipe's slot; 32 elsewhere.
int fast_bins();

}  // namespace gelu::simd

// GELU Lab core: the array kernels beyond the registry's per-function evaluators — the thread pool behind the
// batched API, the fused backward pass, and bf16 arrays.
//
// Threads. Activation::eval over spans (and backward() below) splits arrays above a size that pays for the
// hand-off across a persistent pool of thread_count() threads (the caller is one of them; no thread is
// created per call). The result is bit-identical to the single-threaded one: every kernel is elementwise.
// Sizes (docs/performance.md, "Threads"): 65,536 elements for float arrays, 4,096 for double ones.
//
// bf16 arrays are std::uint16_t bit patterns (the top half of a float32). The forward kernels and f' return
// the correctly rounded bf16 value of the exact function (round to nearest even from the real value, never
// through a float32 rounding first) for every one of the 65,536 inputs; see tests/core/bf16_kernels_test.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "gelu/activation.hpp"

namespace gelu {

// [SECTION] Threads

/// The smallest float / double array the batched API splits across the pool (measured on the project's
/// 2-core machine, docs/performance.md "Threads": below them the hand-off costs more than half the work
/// saves).
inline constexpr std::size_t kParallelMinFloat = 65536;
inline constexpr std::size_t kParallelMinDouble = 4096;

/// Threads the batched API uses, the calling thread included (>= 1): set_thread_count's value, else the
/// environment variable GELU_THREADS (a positive integer), else std::thread::hardware_concurrency().
int thread_count();
/// The accepted values of GELU_THREADS: a whole number of threads in [1, kMaxThreads].
inline constexpr int kMaxThreads = 1024;
/// What is wrong with GELU_THREADS, as one line naming it, its value and the accepted range
/// ("GELU_THREADS='abc' is not a whole number from 1 to 1024 (unset it to use every core)"), or "" when it
/// is unset or valid. thread_count() ignores an invalid value; gelulab refuses to start with one.
std::string thread_setting_problem();
/// Overrides thread_count() for the whole process; 1 runs everything on the calling thread (benchmarks need
/// both), 0 restores the default. The pool follows on its next use.
void set_thread_count(int n);

/// Runs fn(begin, end) over [0, n) split into chunks of at least `grain` elements (boundaries at multiples of
/// 16 elements), on the pool and the calling thread. Runs inline when n < 2·grain, when thread_count() is 1,
/// when called from a pool thread, or while another parallel_for is running. Stops handing out chunks once
/// *cancel is true or fn has thrown; returns false if a chunk was skipped. The first exception thrown by fn
/// is rethrown here after every started chunk has finished.
bool parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& fn,
                  const std::atomic<bool>* cancel = nullptr);

// [SECTION] The backward pass

/// dx = dy·f'(x) over float arrays: the entry's fused kernel when it has one (gelu, gelu_tanh, gelu_sigmoid,
/// silu), else f' on `path` followed by the product. Threaded like Activation::eval. dy and dx may alias.
void backward(const Activation& a, std::span<const float> x, std::span<const float> dy, std::span<float> dx,
              const Params* p = nullptr, Path path = Path::Fast);

// [SECTION] bf16 arrays

namespace bf16 {

/// The float32 value of a bf16 bit pattern (exact).
float to_float(std::uint16_t b);
/// Round to nearest even (NaN stays NaN; overflow gives ±inf; subnormals are kept, not flushed).
std::uint16_t from_float(float f);

/// Exact GELU x·Φ(x) and its derivative, and the tanh form (c = 0.044715), elementwise over bf16 arrays: the
/// correctly rounded bf16 result for every input. AVX512_BF16 where the CPU has it, a portable path
/// otherwise.
void gelu(const std::uint16_t* x, std::uint16_t* y, std::size_t n);
void gelu_d1(const std::uint16_t* x, std::uint16_t* y, std::size_t n);
void gelu_tanh(const std::uint16_t* x, std::uint16_t* y, std::size_t n);
void gelu_tanh_d1(const std::uint16_t* x, std::uint16_t* y, std::size_t n);
/// dx = dy·f'(x) with bf16 dy and dx, correctly rounded from the real product for every (x, dy) pair tested.
void gelu_backward(const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* dx, std::size_t n);
void gelu_tanh_backward(const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* dx, std::size_t n);
/// Which implementation the functions above run: "avx512bf16", "avx512" or "portable".
const char* isa();
/// The functions above, for kernel(): f, f′ and the backward pass.
enum class Op { F, D1, Backward };
/// How the functions above run on this CPU: "gather" (the AVX-512 loop: 16 lanes per vgatherdps from a float
/// table of all 65,536 values, then a guarded rounding), "lookup" (one scalar load per element from a table
/// of the correctly rounded bf16 results; f and f′ only) or, on the portable path's backward pass, "scalar".
/// Both AVX-512 kernels give the same bits; for f and f′ the faster on this CPU is timed once per function at
/// its first call (with the two tables it compares built then, a few ms once), unless
/// GELU_BF16_KERNEL=gather or =lookup forces one.
const char* kernel(bool tanh_form, Op op);

}  // namespace bf16

}  // namespace gelu

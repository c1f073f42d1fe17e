// [SECTION] Where the batched API starts to split arrays across the pool (gelu/kernels.hpp). Measured on the
// project's 2-core machine (docs/performance.md, "Threads"): below these sizes the hand-off to a worker costs
// more than half the work saves.
#pragma once

#include <cstddef>

#include "gelu/kernels.hpp"

namespace gelu::detail {

// The public figures (gelu/kernels.hpp): float kernels (~0.2–1 ns/element), the double reference (~1–40 ns).
inline constexpr std::size_t kParallelMinFloat = gelu::kParallelMinFloat;
inline constexpr std::size_t kParallelMinDouble = gelu::kParallelMinDouble;

}  // namespace gelu::detail

// [SECTION] Where the batched API starts to split arrays across the pool (gelu/kernels.hpp). Measured on the
// project's 2-core machine (docs/performance.md, "Threads"): below these sizes the hand-off to a worker costs
// more than half the work saves.
#pragma once

#include <cstddef>

namespace gelu::detail {

inline constexpr std::size_t kParallelMinFloat = 65536;  // float kernels (~0.2–1 ns/element)
inline constexpr std::size_t kParallelMinDouble = 4096;  // the double reference (~1–40 ns/element)

}  // namespace gelu::detail

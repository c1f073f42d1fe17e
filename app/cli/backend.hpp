// The CLI's view of the compute backends. The GPU half is implemented in backend_gpu.cpp when the build
// has gelu::gpu (GELU_HAVE_GPU); otherwise gpu_available() is false and gpu calls return an error text.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "gelu/activation.hpp"

namespace gelu::cli {

/// Parses "--backend" values; throws UsageError for anything but cpu|gpu (and "all" when allow_all).
enum class Backend { Cpu, Gpu, All };
Backend parse_backend(const std::optional<std::string>& value, bool allow_all);

bool gpu_available();
/// Evaluates order `order` of `a` on the GPU (float32). Returns an error message on failure
/// (no GL 4.3, no EGL, shader compile error, too large for the device), std::nullopt on success.
std::optional<std::string> gpu_eval(const Activation& a, int order, const Params& p, std::span<const float> x,
                                    std::span<float> y);

}  // namespace gelu::cli

// The app's handle on gelu::gpu for the window's own context: one Evaluator on the context that is
// current when first used — the window's GLFW context, or the headless EGL context of `gelulab shot`.
#pragma once

#include <span>
#include <string>

#include "gelu/activation.hpp"

namespace gelu::app {

/// y[i] = f(x[i]) in float32 on the GPU. False and *error (the backend's message) when there is no usable
/// GPU; the CPU paths keep working.
bool gpu_eval(const Activation& a, const Params& p, std::span<const float> x, std::span<float> y,
              std::string* error);

/// Frees the GPU objects; call while the context they were made on is still current (before the window
/// or the headless context goes away). The next gpu_eval starts afresh on the context current then.
void gpu_release();

}  // namespace gelu::app

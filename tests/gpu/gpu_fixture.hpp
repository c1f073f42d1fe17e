// Shared by the GPU tests: one headless context per test program, and ULP distance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"

namespace gelu::gpu::test {

/// The process-wide context. A machine where it cannot be created fails every GPU test (no skipping).
inline Context* context() {
  static std::string error;
  static std::unique_ptr<Context> ctx = Context::create_headless(&error);
  if (!ctx) ADD_FAILURE() << "no GPU context: " << error;
  if (ctx) ctx->make_current();
  return ctx.get();
}

/// Monotone integer image of a float; +0 and -0 coincide so that a signed zero is not an error.
inline std::int64_t ordered(float v) {
  std::int32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b >= 0 ? std::int64_t{b} : -std::int64_t{b & 0x7fffffff};
}
/// Distance in representable floats; 0 for NaN vs NaN, infinite for NaN vs number.
inline double ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0.0 : INFINITY;
  return static_cast<double>(std::llabs(ordered(a) - ordered(b)));
}

}  // namespace gelu::gpu::test

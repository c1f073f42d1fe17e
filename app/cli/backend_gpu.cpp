// The CLI's GPU backend (gelu::gpu): one headless context and evaluator per process, made on first use.
#ifdef GELU_HAVE_GPU
#include <memory>
#include <string>

#include "cli/backend.hpp"
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"

namespace gelu::cli {
namespace {

gpu::ContextEvaluator& gpu_state() {
  static gpu::ContextEvaluator g = gpu::ContextEvaluator::headless();
  return g;
}

}  // namespace

bool gpu_available() {
  return gpu_state().eval != nullptr;
}

std::optional<std::string> gpu_eval(const Activation& a, int order, const Params& p, std::span<const float> x,
                                    std::span<float> y) {
  gpu::ContextEvaluator& g = gpu_state();
  if (!g.eval) return "GPU backend unavailable: " + g.error;
  return g.eval->eval(a, order, p, x, y);
}

}  // namespace gelu::cli
#endif  // GELU_HAVE_GPU

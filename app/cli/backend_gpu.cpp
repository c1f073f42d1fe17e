// The CLI's GPU backend (gelu::gpu): one headless context and evaluator per process, made on first use.
#ifdef GELU_HAVE_GPU
#include <memory>
#include <string>

#include "backend.hpp"
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"

namespace gelu::cli {
namespace {

struct Gpu {
  std::unique_ptr<gpu::Context> ctx;
  std::unique_ptr<gpu::Evaluator> eval;
  std::string error;
};

Gpu& gpu_state() {
  static Gpu g = [] {
    Gpu s;
    s.ctx = gpu::Context::create_headless(&s.error);
    if (s.ctx) s.eval = gpu::Evaluator::create(*s.ctx, &s.error);
    return s;
  }();
  return g;
}

}  // namespace

bool gpu_available() { return gpu_state().eval != nullptr; }

std::optional<std::string> gpu_eval(const Activation& a, int order, const Params& p, std::span<const float> x,
                                    std::span<float> y) {
  Gpu& g = gpu_state();
  if (!g.eval) return "GPU backend unavailable: " + g.error;
  return g.eval->eval(a, order, p, x, y);
}

}  // namespace gelu::cli
#endif  // GELU_HAVE_GPU

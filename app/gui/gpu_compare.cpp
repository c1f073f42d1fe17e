#ifdef GELU_HAVE_GPU
#include "gpu_compare.hpp"

#include <memory>

#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"

namespace gelu::app {

namespace {
struct Gpu {
  std::unique_ptr<gpu::Context> ctx;
  std::unique_ptr<gpu::Evaluator> eval;
  std::string error;  // why there is none (sticky: no retry every frame)
  bool tried = false;
};
Gpu& state() {
  static Gpu g;
  return g;
}
}  // namespace

bool gpu_eval(const Activation& a, const Params& p, std::span<const float> x, std::span<float> y, std::string* error) {
  Gpu& g = state();
  if (!g.tried) {
    g.tried = true;
    g.ctx = gpu::Context::adopt_current(&g.error);
    if (g.ctx) g.eval = gpu::Evaluator::create(*g.ctx, &g.error);
  }
  if (!g.eval) {
    *error = g.error;
    return false;
  }
  if (auto e = g.eval->eval(a, 0, p, x, y)) {
    *error = *e;
    return false;
  }
  return true;
}

void gpu_release() {
  Gpu& g = state();
  g.eval.reset();
  g.ctx.reset();
  g.error.clear();
  g.tried = false;
}

}  // namespace gelu::app
#endif

// The app's GPU evaluator (see gpu_compare.hpp). Without the GPU backend, gpu_eval says so and the CPU paths
// keep working.
#include "gui/hosts/gpu_compare.hpp"

#ifdef GELU_HAVE_GPU

#include <memory>

#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"

namespace gelu::app {

namespace {
struct Gpu {
  gpu::ContextEvaluator ce;  // ce.error says why there is none (sticky: no retry every frame)
  bool tried = false;
};
Gpu& state() {
  static Gpu g;
  return g;
}
}  // namespace

bool gpu_eval(const Activation& a, const Params& p, std::span<const float> x, std::span<float> y,
              std::string* error) {
  Gpu& g = state();
  if (!g.tried) {
    g.tried = true;
    g.ce = gpu::ContextEvaluator::adopt_current();
  }
  if (!g.ce.eval) {
    *error = g.ce.error;
    return false;
  }
  if (auto e = g.ce.eval->eval(a, 0, p, x, y)) {
    *error = *e;
    return false;
  }
  return true;
}

void gpu_release() {
  Gpu& g = state();
  g.ce.reset();
  g.tried = false;
}

}  // namespace gelu::app
#else
namespace gelu::app {

bool gpu_eval(const Activation&, const Params&, std::span<const float>, std::span<float>,
              std::string* error) {
  *error = "this build has no GPU backend (it needs EGL and libepoxy at configure time)";
  return false;
}
void gpu_release() {}

}  // namespace gelu::app
#endif

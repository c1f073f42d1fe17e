// The app's GPU door (see backends.hpp): the one file in app/ that knows whether gelu::gpu is built.
#include "model/backends.hpp"

#ifdef GELU_HAVE_GPU
#include "gelu/gpu/bench_target.hpp"
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"
#include "gelu/gpu/ffn.hpp"
#endif

namespace gelu::app {

#ifdef GELU_HAVE_GPU

bool gpu_built() {
  return true;
}

std::string gpu_unbuilt_reason() {
  return "";
}

namespace {
gpu::ContextEvaluator& headless_evaluator() {
  static gpu::ContextEvaluator g = gpu::ContextEvaluator::headless();
  return g;
}
}  // namespace

std::optional<std::string> gpu_eval(const Activation& a, int order, const Params& p, std::span<const float> x,
                                    std::span<float> y) {
  gpu::ContextEvaluator& g = headless_evaluator();
  if (!g.eval) return "GPU backend unavailable: " + g.error;
  return g.eval->eval(a, order, p, x, y);
}

std::string gpu_subnormal_note() {
  gpu::ContextEvaluator& g = headless_evaluator();
  gpu::Subnormals sub;
  if (!g.eval || g.eval->subnormals(&sub)) return "";
  return sub.describe();
}

namespace {
struct CurrentGpu {
  gpu::ContextEvaluator ce;  // ce.error says why there is none (sticky: no retry every frame)
  bool tried = false;
};
CurrentGpu& current_gpu() {
  static CurrentGpu g;
  return g;
}

class HeadlessGlImpl final : public HeadlessGl {
 public:
  explicit HeadlessGlImpl(std::unique_ptr<gpu::Context> ctx) : ctx_(std::move(ctx)) {}
  std::string renderer() const override { return ctx_->info().renderer; }

 private:
  std::unique_ptr<gpu::Context> ctx_;
};
}  // namespace

std::optional<std::string> gpu_eval_current(const Activation& a, const Params& p, std::span<const float> x,
                                            std::span<float> y) {
  CurrentGpu& g = current_gpu();
  if (!g.tried) {
    g.tried = true;
    g.ce = gpu::ContextEvaluator::adopt_current();
  }
  if (!g.ce.eval) return g.ce.error;
  return g.ce.eval->eval(a, 0, p, x, y);
}

void gpu_release_current() {
  CurrentGpu& g = current_gpu();
  g.ce.reset();
  g.tried = false;
}

std::unique_ptr<HeadlessGl> headless_gl(std::string* why) {
  std::string err;
  std::unique_ptr<gpu::Context> ctx = gpu::Context::create_headless(&err);
  if (!ctx) {
    *why = "cannot create a headless OpenGL 4.3 context: " + err;
    return nullptr;
  }
  return std::make_unique<HeadlessGlImpl>(std::move(ctx));
}

std::unique_ptr<bench::Target> gpu_bench_target(std::string* device_or_why) {
  std::unique_ptr<gpu::BenchTarget> t = gpu::BenchTarget::headless(device_or_why);
  if (t) *device_or_why = t->device();
  return t;
}

struct TrainerHost::Impl {
  std::unique_ptr<gpu::Context> ctx;
};

std::unique_ptr<ffn::StepTrainer> TrainerHost::gpu_trainer(ffn::Network<float>& net, const ffn::Dataset& data,
                                                           const ffn::TrainConfig& config, std::string* why) {
  if (!impl_->ctx) {
    std::string err;
    impl_->ctx = gpu::Context::create_headless(&err);
    if (!impl_->ctx) {
      *why = "the GPU backend is unavailable (" + err + ")";
      return nullptr;
    }
  }
  auto t = std::make_unique<gpu::FfnTrainer>(*impl_->ctx, net, data, config);
  if (!t->ok()) {
    *why = "the GPU trainer could not start (" + t->error() + ")";
    return nullptr;
  }
  return t;
}

std::string TrainerHost::device() const {
  return impl_->ctx ? impl_->ctx->info().renderer : std::string();
}

#else

namespace {
#ifdef __EMSCRIPTEN__
// The page's GL is WebGL2, which has no compute shaders: the Benchmarks panel times the CPU path and says so.
constexpr const char* kNoGpu =
    "in the browser there is no GPU compute (WebGL2 has no compute shaders): the CPU path runs, "
    "single-threaded, "
    "in WebAssembly";
#else
constexpr const char* kNoGpu =
    "this gelulab was built without the GPU backend (GELU_BUILD_GPU=OFF or EGL/libepoxy missing)";
#endif
}  // namespace

bool gpu_built() {
  return false;
}

std::string gpu_unbuilt_reason() {
  return kNoGpu;
}

std::optional<std::string> gpu_eval(const Activation&, int, const Params&, std::span<const float>,
                                    std::span<float>) {
  return std::string(kNoGpu);
}

std::string gpu_subnormal_note() {
  return "";
}

std::optional<std::string> gpu_eval_current(const Activation&, const Params&, std::span<const float>,
                                            std::span<float>) {
  return std::string(kNoGpu);
}

void gpu_release_current() {}

std::unique_ptr<HeadlessGl> headless_gl(std::string* why) {
  *why = std::string(kNoGpu) + ", so it cannot render headless";
  return nullptr;
}

std::unique_ptr<bench::Target> gpu_bench_target(std::string* device_or_why) {
  *device_or_why = kNoGpu;
  return nullptr;
}

struct TrainerHost::Impl {};

std::unique_ptr<ffn::StepTrainer> TrainerHost::gpu_trainer(ffn::Network<float>&, const ffn::Dataset&,
                                                           const ffn::TrainConfig&, std::string* why) {
  *why = kNoGpu;
  return nullptr;
}

std::string TrainerHost::device() const {
  return {};
}

#endif

TrainerHost::TrainerHost() : impl_(std::make_unique<Impl>()) {}
TrainerHost::~TrainerHost() = default;

void TrainerHost::release() {
  impl_ = std::make_unique<Impl>();
}

}  // namespace gelu::app

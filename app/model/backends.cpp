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
constexpr const char* kNoGpu =
    "this gelulab was built without the GPU backend (GELU_BUILD_GPU=OFF or EGL/libepoxy missing)";
}

bool gpu_built() {
  return false;
}

std::optional<std::string> gpu_eval(const Activation&, int, const Params&, std::span<const float>,
                                    std::span<float>) {
  return std::string(kNoGpu);
}

std::string gpu_subnormal_note() {
  return "";
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

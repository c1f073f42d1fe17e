// The GPU benchmark target (see gelu/gpu/bench_target.hpp).
#include "gelu/gpu/bench_target.hpp"

namespace gelu::gpu {

std::unique_ptr<BenchTarget> BenchTarget::headless(std::string* error) {
  ContextEvaluator ce = ContextEvaluator::headless();
  if (!ce.eval) {
    *error = ce.error;
    return nullptr;
  }
  return std::unique_ptr<BenchTarget>(new BenchTarget(std::move(ce)));
}

std::optional<std::string> BenchTarget::prepare(const Activation& fn, int order) {
  return ce_.eval->prepare(fn, order);
}

std::optional<std::string> BenchTarget::run(const Activation& fn, int order, const Params& p,
                                            std::span<const float> x, std::span<float> y, bench::Sample& s) {
  Timing t;
  if (auto e = ce_.eval->eval(fn, order, p, x, y, &t)) return e;
  s.seconds = t.end_to_end_s;
  if (t.kernel_timed) s.kernel_seconds = t.kernel_s;
  return std::nullopt;
}

std::string BenchTarget::device() const {
  const GlInfo& info = ce_.ctx->info();
  std::string d = info.renderer + " / " + info.version + " via " + info.platform;
  Subnormals sub;
  if (ce_.eval->subnormals(&sub)) return d;  // (the probe's failure shows in the first run's error)
  if (sub.any()) d += "; " + sub.describe();
  return d;
}

}  // namespace gelu::gpu

// The GPU as a target of the benchmark sweep (gelu/bench.hpp): one evaluation per repetition through an
// Evaluator, end to end (upload + dispatch + read-back) as the sample's time and the dispatches alone (GL
// timer queries, or the host clock around dispatch + glFinish on software drivers) as its kernel time.
#pragma once

#include <memory>
#include <string>

#include "gelu/bench.hpp"
#include "gelu/gpu/evaluator.hpp"

namespace gelu::gpu {

class BenchTarget final : public bench::Target {
 public:
  /// Owns a headless context and its evaluator; nullptr with *error (why) when there is no usable GPU.
  static std::unique_ptr<BenchTarget> headless(std::string* error);
  const char* id() const override { return "gpu"; }
  std::optional<std::string> prepare(const Activation& fn, int order) override;
  std::optional<std::string> run(const Activation& fn, int order, const Params& p, std::span<const float> x,
                                 std::span<float> y, bench::Sample& s) override;
  /// "renderer / version via platform", and "; float32 subnormals flushed to zero (…)" where they are.
  std::string device() const;
  /// Deletes the GL objects while the context is current on this thread (the destructor does the same).
  ~BenchTarget() override { ce_.reset(); }

 private:
  explicit BenchTarget(ContextEvaluator ce) : ce_(std::move(ce)) {}
  ContextEvaluator ce_;
};

}  // namespace gelu::gpu

// The app's one door to the GPU backend (gelu::gpu), whether or not this build has it: the CLI's evaluator,
// the window's evaluator, the headless GL context the offscreen framebuffer draws on, the benchmark target
// and the FFN trainers all come from here, so the rest of app/ never includes gelu/gpu nor asks
// `#ifdef GELU_HAVE_GPU` (tests/style/check_layers.py checks it). One error convention: a call that computes
// returns std::nullopt or the error text; a call that makes something returns it, or nullptr and sets *why.
// Without the backend every call says so in words and the CPU paths carry on.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "gelu/activation.hpp"
#include "gelu/bench.hpp"
#include "gelu/ffn/train.hpp"

namespace gelu::app {

/// Whether this build has the GPU backend (EGL and libepoxy were found at configure time).
bool gpu_built();
/// Why this build has no GPU backend, in words (the browser: WebGL2 has no compute shaders); "" when it has.
std::string gpu_unbuilt_reason();

/// y = f^(order)(x) in float32 on a headless GPU context made on first use and kept for the process (the
/// CLI's `eval --backend gpu`). An error text when there is no usable GPU.
std::optional<std::string> gpu_eval(const Activation& a, int order, const Params& p, std::span<const float> x,
                                    std::span<float> y);

/// How the GPU that gpu_eval uses treats float32 subnormals: "" when it keeps them (or there is no GPU),
/// else a clause such as "float32 subnormals flushed to zero (inputs and results)" (NVIDIA's shaders do).
std::string gpu_subnormal_note();

/// y = f(x) in float32 on the GL context current on this thread (the window's, or the offscreen one of
/// `gelulab shot` and `gui --headless`), by one evaluator adopted on the first call. An error text when there
/// is no usable GPU; that answer sticks (no retry every frame) until gpu_release_current().
std::optional<std::string> gpu_eval_current(const Activation& a, const Params& p, std::span<const float> x,
                                            std::span<float> y);
/// Frees gpu_eval_current's GPU objects; call while the context they were made on is still current (before
/// the window or the headless context goes away). The next call starts afresh on the context current then.
void gpu_release_current();

/// A headless OpenGL 4.3 context (EGL surfaceless on Mesa, the EGL device on NVIDIA), current on the thread
/// that made it while it lives: what the offscreen framebuffer of `gelulab shot` draws on.
class HeadlessGl {
 public:
  virtual ~HeadlessGl() = default;
  /// The GL renderer string.
  virtual std::string renderer() const = 0;
};
/// nullptr and *why ("cannot create a headless OpenGL 4.3 context: …") when there is none.
std::unique_ptr<HeadlessGl> headless_gl(std::string* why);

/// A headless GPU as a target of the benchmark sweep, owning its context (delete it on the thread that made
/// it). nullptr and *why when there is none; otherwise *device is "renderer / version via platform".
std::unique_ptr<bench::Target> gpu_bench_target(std::string* device_or_why);

/// Where nets train. The GPU trainers of one host share one headless GL context, made on the first request
/// and kept until release() or the host goes (on the thread that uses the trainers).
class TrainerHost {
 public:
  TrainerHost();
  ~TrainerHost();
  TrainerHost(const TrainerHost&) = delete;
  TrainerHost& operator=(const TrainerHost&) = delete;

  /// A GPU trainer for `net` (initialized; its parameters are uploaded), or nullptr and *why: no GPU backend
  /// in this build, no headless context, or the trainer could not start (a shader, the device's limits).
  /// Throws std::invalid_argument for an invalid config, as the CPU trainer does.
  std::unique_ptr<ffn::StepTrainer> gpu_trainer(ffn::Network<float>& net, const ffn::Dataset& data,
                                                const ffn::TrainConfig& config, std::string* why);
  /// The GPU's renderer while a context is held, else empty.
  std::string device() const;
  /// Drops the context (its trainers must be gone).
  void release();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gelu::app

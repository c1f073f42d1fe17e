// The GPU mirror of the registry's evaluators: any registry function, order 0/1/2, parameters as uniforms,
// float32 arrays of any length (streamed through the device in chunks that fit one shader storage block),
// with kernel-only timings from GL timer queries beside end-to-end wall time.
//
// Needs the Context it was created with to be current on the calling thread. Every failure (shader that
// does not compile, device out of memory, unknown GLSL twin, ...) comes back as text; nothing throws.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "gelu/activation.hpp"
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/shaders.hpp"

namespace gelu::gpu {

struct Timing {
  double kernel_s = 0;      // the dispatches alone, summed over chunks
  double end_to_end_s = 0;  // upload + dispatch + read-back, wall clock
  int chunks = 0;
  bool kernel_timed = false;             // kernel_s is filled
  bool kernel_from_timer_query = false;  // GL_TIME_ELAPSED; else host clock around dispatch + glFinish
                                         // (software drivers, whose timer queries do not time compute)
};

enum class ErrorMetric { Abs = 0, Rel = 1, Ulp = 2 };

/// How the device's shaders treat float32 subnormals, which GLSL leaves to the implementation: Mesa's
/// llvmpipe keeps them; NVIDIA's driver (H100, 580.159.04) flushes both ways, so there a subnormal input
/// computes as ±0 and a result below FLT_MIN in magnitude comes out as ±0.
struct Subnormals {
  bool inputs_flushed = false;   // a subnormal operand counts as ±0
  bool results_flushed = false;  // an arithmetic result below FLT_MIN becomes ±0
  bool any() const { return inputs_flushed || results_flushed; }
  /// "" when neither, else a clause such as "float32 subnormals flushed to zero (inputs and results)".
  std::string describe() const;
};

struct ErrorResult {
  double max = 0;          // largest error (inf when a NaN or inf mismatches)
  std::size_t argmax = 0;  // smallest index where it occurs
};

class Evaluator {
 public:
  /// Compiles nothing yet (programs are built on first use per function and order).
  static std::unique_ptr<Evaluator> create(Context& ctx, std::string* error,
                                           ShaderLibrary shaders = ShaderLibrary::from_environment());
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  /// y[i] = f^(order)(x[i]) for every i < x.size() (y must be at least as long). nullopt on success.
  std::optional<std::string> eval(const Activation& a, int order, const Params& p, std::span<const float> x,
                                  std::span<float> y, Timing* timing = nullptr);

  /// Error of the GPU's f^(order)(x[i]) against ref[i] with a max/argmax reduction on the device;
  /// `curve` (optional, same length as x) receives the per-element error.
  std::optional<std::string> error(const Activation& a, int order, const Params& p, std::span<const float> x,
                                   std::span<const float> ref, ErrorMetric metric, ErrorResult* result,
                                   std::span<float> curve = {});

  /// y[i] = fn(x[i]) where `glsl` defines `float fn(float x)` — GLSL made at run time, such as a designer
  /// candidate's export (gelu/fit_export.hpp) — compiled through shaders/fit_eval.comp with `glsl` as its
  /// include file fit_candidate.glsl. Programs are cached by source and name. nullopt on success.
  std::optional<std::string> eval_glsl(const std::string& glsl, const std::string& fn,
                                       std::span<const float> x, std::span<float> y,
                                       Timing* timing = nullptr);

  /// Measures (on first call; cached) how this device treats subnormals: one dispatch of two elements,
  /// 2^-125·2^-3 (a subnormal result from normal operands) and 2^-140·2^30 (a normal result from a
  /// subnormal operand). nullopt on success.
  std::optional<std::string> subnormals(Subnormals* out);

  /// Compiles (and caches) the program for a function and order: lets a caller surface shader errors early.
  std::optional<std::string> prepare(const Activation& a, int order);

  /// Largest number of elements per dispatch: the storage-block limit, or a lower one set for tests.
  std::size_t chunk_elements() const;
  /// Lowers the per-buffer byte limit below GL_MAX_SHADER_STORAGE_BLOCK_SIZE (0 restores it).
  void set_chunk_limit_bytes(std::size_t bytes) { chunk_limit_bytes_ = bytes; }

  const ShaderLibrary& shaders() const { return shaders_; }

 private:
  Evaluator(Context& ctx, ShaderLibrary shaders) : ctx_(ctx), shaders_(std::move(shaders)) {}
  std::optional<std::string> program(const std::string& kernel, const Activation& a, int order,
                                     unsigned* out);
  std::optional<std::string> ensure_buffer(int slot, std::size_t bytes);
  /// Streams x through the bound program `prog` (uniforms other than u_n already set) into y.
  std::optional<std::string> dispatch(unsigned prog, std::span<const float> x, std::span<float> y,
                                      Timing* timing, std::chrono::steady_clock::time_point t0);

  Context& ctx_;
  ShaderLibrary shaders_;
  std::map<std::string, unsigned> programs_;
  unsigned buffers_[4] = {0, 0, 0, 0};
  std::size_t buffer_bytes_[4] = {0, 0, 0, 0};
  unsigned query_ = 0;
  std::size_t chunk_limit_bytes_ = 0;
  std::optional<Subnormals> subnormals_;
};

/// Splits a double parameter into the (hi, lo) float pair the shaders take.
std::pair<float, float> split_param(double v);

/// A context with an evaluator on it, the pair every GPU caller needs. `eval` is null, and `error` says why,
/// when either step failed. The destructor and reset() delete the evaluator's GL objects while their context
/// still exists (assigning over a filled one would not: members are assigned in declaration order).
struct ContextEvaluator {
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Evaluator> eval;
  std::string error;
  static ContextEvaluator headless();       // a new headless context (Context::create_headless)
  static ContextEvaluator adopt_current();  // the context current on this thread (an app's window)
  void reset() {
    eval.reset();
    ctx.reset();
    error.clear();
  }
};

}  // namespace gelu::gpu

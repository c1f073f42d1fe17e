// [SECTION] Evaluator: programs per (kernel, function, order), chunked dispatch, timer queries.
#include "gelu/gpu/evaluator.hpp"

#include <epoxy/gl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "gl_errors.hpp"

namespace gelu::gpu {
namespace {

constexpr unsigned kGroupSize = 256;   // local_size_x of eval.comp and error.comp
constexpr unsigned kMaxGroups = 4096;  // grid-stride loops cover the rest

void clear_gl_errors() {
  while (glGetError() != GL_NO_ERROR) {
  }
}
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::pair<float, float> split_param(double v) {
  const float hi = static_cast<float>(v);
  return {hi, static_cast<float>(v - static_cast<double>(hi))};
}

std::unique_ptr<Evaluator> Evaluator::create(Context& ctx, std::string* error, ShaderLibrary shaders) {
  if (std::string p = shaders.problem(); !p.empty()) {
    if (error) *error = p;
    return nullptr;
  }
  std::unique_ptr<Evaluator> e(new Evaluator(ctx, std::move(shaders)));
  glGenBuffers(4, e->buffers_);
  // Mesa's software drivers accept GL_TIME_ELAPSED but report ~1 ns around a compute dispatch (measured on
  // llvmpipe 22.3); there the "device" is the CPU, so the kernel is timed by the host around dispatch +
  // glFinish.
  const std::string& r = ctx.info().renderer;
  const bool software = r.find("llvmpipe") != std::string::npos || r.find("softpipe") != std::string::npos;
  if (ctx.info().timer_query && !software) glGenQueries(1, &e->query_);
  return e;
}

namespace {
ContextEvaluator with_evaluator(ContextEvaluator ce) {
  if (ce.ctx) ce.eval = Evaluator::create(*ce.ctx, &ce.error);
  return ce;
}
}  // namespace

ContextEvaluator ContextEvaluator::headless() {
  ContextEvaluator ce;
  ce.ctx = Context::create_headless(&ce.error);
  return with_evaluator(std::move(ce));
}

ContextEvaluator ContextEvaluator::adopt_current() {
  ContextEvaluator ce;
  ce.ctx = Context::adopt_current(&ce.error);
  return with_evaluator(std::move(ce));
}

Evaluator::~Evaluator() {
  for (const auto& [key, prog] : programs_) glDeleteProgram(prog);
  glDeleteBuffers(4, buffers_);
  if (query_) glDeleteQueries(1, &query_);
}

std::size_t Evaluator::chunk_elements() const {
  std::size_t bytes = static_cast<std::size_t>(std::max(ctx_.info().max_ssbo_block_size, 4LL));
  if (chunk_limit_bytes_ > 0) bytes = std::min(bytes, chunk_limit_bytes_);
  // Keep chunks a multiple of the work-group size and inside the shader's uint indices.
  std::size_t n = std::max<std::size_t>(bytes / sizeof(float), 1);
  n = std::min<std::size_t>(n, std::numeric_limits<unsigned>::max() / 2);
  return n >= kGroupSize ? n / kGroupSize * kGroupSize : n;
}

std::optional<std::string> Evaluator::program(const std::string& kernel, const Activation& a, int order,
                                              unsigned* out) {
  if (order < 0 || order > kMaxOrder) return "derivative order must be 0, 1 or 2";
  const std::string key = kernel + "|" + a.glsl_name + "|" + std::to_string(order);
  if (auto it = programs_.find(key); it != programs_.end()) {
    *out = it->second;
    return std::nullopt;
  }
  const std::string defines =
      std::string("#define ACT ") + a.glsl_name + "\n#define ORDER " + std::to_string(order);
  std::string err;
  const GLuint prog = build_compute_program(
      shaders_, kernel, defines, std::string(a.glsl_name) + ", order " + std::to_string(order), &err);
  if (!prog) return err;
  programs_[key] = prog;
  *out = prog;
  return std::nullopt;
}

std::optional<std::string> Evaluator::prepare(const Activation& a, int order) {
  unsigned prog = 0;
  return program("eval.comp", a, order, &prog);
}

std::optional<std::string> Evaluator::ensure_buffer(int slot, std::size_t bytes) {
  const auto s = static_cast<std::size_t>(slot);
  if (buffer_bytes_[s] >= bytes) return std::nullopt;
  clear_gl_errors();
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[s]);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_COPY);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    buffer_bytes_[s] = 0;
    glBufferData(GL_SHADER_STORAGE_BUFFER, 0, nullptr, GL_DYNAMIC_COPY);
    return "the device cannot hold a " + std::to_string(bytes >> 20) + " MiB buffer (" + gl_error_text(e) +
           ")";
  }
  buffer_bytes_[s] = bytes;
  return std::nullopt;
}

namespace {
void set_params(GLuint prog, const Activation& a, const Params& p) {
  float v[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < a.params.size() && i < static_cast<std::size_t>(kMaxParams); ++i) {
    const auto [hi, lo] = split_param(p[static_cast<int>(i)]);
    v[2 * i] = hi;
    v[2 * i + 1] = lo;
  }
  glUniform4fv(glGetUniformLocation(prog, "u_params"), 1, v);
}
GLuint group_count(std::size_t n) {
  return static_cast<GLuint>(std::clamp<std::size_t>((n + kGroupSize - 1) / kGroupSize, 1, kMaxGroups));
}
}  // namespace

std::optional<std::string> Evaluator::eval(const Activation& a, int order, const Params& p,
                                           std::span<const float> x, std::span<float> y, Timing* timing) {
  const auto t0 = std::chrono::steady_clock::now();
  if (y.size() < x.size()) return "output array shorter than input";
  if (auto lost = context_lost()) return *lost;
  ctx_.make_current();
  unsigned prog = 0;
  if (auto e = program("eval.comp", a, order, &prog)) return e;
  glUseProgram(prog);
  set_params(prog, a, p);
  return dispatch(prog, x, y, timing, t0);
}

std::optional<std::string> Evaluator::eval_glsl(const std::string& glsl, const std::string& fn,
                                                std::span<const float> x, std::span<float> y,
                                                Timing* timing) {
  const auto t0 = std::chrono::steady_clock::now();
  if (y.size() < x.size()) return "output array shorter than input";
  if (auto lost = context_lost()) return *lost;
  ctx_.make_current();
  const std::string key = "fit_eval.comp|" + fn + "|" + std::to_string(std::hash<std::string>{}(glsl)) + "|" +
                          std::to_string(glsl.size());
  unsigned prog = 0;
  if (auto it = programs_.find(key); it != programs_.end()) {
    prog = it->second;
  } else {
    std::string err;
    prog = build_compute_program(shaders_.with_file("fit_candidate.glsl", glsl), "fit_eval.comp",
                                 "#define FIT_FN " + fn, fn, &err);
    if (!prog) return err;
    programs_[key] = prog;
  }
  glUseProgram(prog);
  return dispatch(prog, x, y, timing, t0);
}

std::string Subnormals::describe() const {
  if (!any()) return "";
  const char* which = inputs_flushed && results_flushed ? "inputs and results"
                      : inputs_flushed                  ? "inputs"
                                                        : "results";
  return std::string("float32 subnormals flushed to zero (") + which + ")";
}

std::optional<std::string> Evaluator::subnormals(Subnormals* out) {
  if (!subnormals_) {
    // Two lanes through the run-time GLSL path: x > 2e-38 (a normal threshold) picks the factor, so the
    // compiler cannot fold either product. Lane 0: 2^-125 · 2^-3 = 2^-128, a subnormal result of normal
    // operands. Lane 1: 2^-140 · 2^30 = 2^-110, a normal result of a subnormal operand.
    const std::string glsl =
        "float gelu_probe_subnormals(float x) { return x * (x > 2.0e-38 ? 0.125 : 1073741824.0); }\n";
    const float x[2] = {0x1p-125f, 0x1p-140f};
    float y[2] = {-1.0f, -1.0f};
    if (auto e = eval_glsl(glsl, "gelu_probe_subnormals", x, y)) return "subnormal probe: " + *e;
    Subnormals s;
    s.results_flushed = y[0] == 0.0f;
    s.inputs_flushed = y[1] == 0.0f;
    if ((!s.results_flushed && y[0] != 0x1p-128f) || (!s.inputs_flushed && y[1] != 0x1p-110f)) {
      char text[96];
      std::snprintf(text, sizeof text, "%a and %a where 0x1p-128 and 0x1p-110 (or 0) were expected",
                    static_cast<double>(y[0]), static_cast<double>(y[1]));
      return std::string("subnormal probe: the device computed ") + text;
    }
    subnormals_ = s;
  }
  *out = *subnormals_;
  return std::nullopt;
}

std::optional<std::string> Evaluator::dispatch(unsigned prog, std::span<const float> x, std::span<float> y,
                                               Timing* timing, std::chrono::steady_clock::time_point t0) {
  Timing t;
  if (x.empty()) {
    if (timing) *timing = t;
    return std::nullopt;
  }
  const std::size_t chunk = std::min(chunk_elements(), x.size());
  for (int s : {0, 1})
    if (auto e = ensure_buffer(s, chunk * sizeof(float)))
      return *e + " for " + std::to_string(x.size()) + " elements";
  glUseProgram(prog);
  const GLint loc_n = glGetUniformLocation(prog, "u_n");
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffers_[0]);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buffers_[1]);
  clear_gl_errors();
  for (std::size_t off = 0; off < x.size(); off += chunk) {
    const std::size_t n = std::min(chunk, x.size() - off);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[0]);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(n * sizeof(float)), x.data() + off);
    glUniform1ui(loc_n, static_cast<GLuint>(n));
    if (query_) {
      glBeginQuery(GL_TIME_ELAPSED, query_);
    } else {
      glFinish();  // the upload must not be counted as kernel time
    }
    const auto k0 = std::chrono::steady_clock::now();
    glDispatchCompute(group_count(n), 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (query_) {
      glEndQuery(GL_TIME_ELAPSED);
    } else {
      glFinish();
      t.kernel_s += seconds_since(k0);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[1]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(n * sizeof(float)),
                       y.data() + off);
    if (query_) {
      GLuint64 ns = 0;
      glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);
      t.kernel_s += static_cast<double>(ns) * 1e-9;
    }
    ++t.chunks;
  }
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return "GPU evaluation failed (" + gl_error_text(e) + ")";
  if (auto lost = context_lost()) return *lost;
  t.kernel_timed = true;
  t.kernel_from_timer_query = query_ != 0;
  t.end_to_end_s = seconds_since(t0);
  if (timing) *timing = t;
  return std::nullopt;
}

std::optional<std::string> Evaluator::error(const Activation& a, int order, const Params& p,
                                            std::span<const float> x, std::span<const float> ref,
                                            ErrorMetric metric, ErrorResult* result, std::span<float> curve) {
  if (ref.size() < x.size()) return "reference array shorter than input";
  if (!curve.empty() && curve.size() < x.size()) return "error curve array shorter than input";
  ctx_.make_current();
  unsigned prog = 0;
  if (auto e = program("error.comp", a, order, &prog)) return e;
  ErrorResult r{0, 0};
  if (x.empty()) {
    if (result) *result = r;
    return std::nullopt;
  }
  const std::size_t chunk = std::min(chunk_elements(), x.size());
  struct GroupMax {
    float err;
    GLuint index;
  };
  for (int s : {0, 1, 2})
    if (auto e = ensure_buffer(s, chunk * sizeof(float))) return e;
  if (auto e = ensure_buffer(3, kMaxGroups * sizeof(GroupMax))) return e;
  glUseProgram(prog);
  set_params(prog, a, p);
  glUniform1i(glGetUniformLocation(prog, "u_metric"), static_cast<GLint>(metric));
  glUniform1i(glGetUniformLocation(prog, "u_write_curve"), curve.empty() ? 0 : 1);
  for (GLuint b = 0; b < 4; ++b) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, buffers_[b]);
  std::vector<GroupMax> partial(kMaxGroups);
  bool found = false;
  clear_gl_errors();
  for (std::size_t off = 0; off < x.size(); off += chunk) {
    const std::size_t n = std::min(chunk, x.size() - off);
    const auto bytes = static_cast<GLsizeiptr>(n * sizeof(float));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[0]);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, bytes, x.data() + off);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[1]);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, bytes, ref.data() + off);
    glUniform1ui(glGetUniformLocation(prog, "u_n"), static_cast<GLuint>(n));
    // The shader's index is 32-bit; the offset is added on the host for arrays beyond 2^32.
    glUniform1ui(glGetUniformLocation(prog, "u_base"), 0);
    const GLuint groups = group_count(n);
    glDispatchCompute(groups, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (!curve.empty()) {
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[2]);
      glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, bytes, curve.data() + off);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[3]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(groups * sizeof(GroupMax)),
                       partial.data());
    for (GLuint g = 0; g < groups; ++g) {
      if (partial[g].index == 0xffffffffu) continue;
      const double e = partial[g].err;
      const std::size_t i = off + partial[g].index;
      if (!found || e > r.max || (e == r.max && i < r.argmax)) {
        r = {e, i};
        found = true;
      }
    }
  }
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return "GPU error reduction failed (" + gl_error_text(e) + ")";
  if (auto lost = context_lost()) return *lost;
  if (result) *result = r;
  return std::nullopt;
}

}  // namespace gelu::gpu

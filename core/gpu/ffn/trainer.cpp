// [SECTION] FfnTrainer: device layout, programs, forward/backward/optimizer dispatches, batches on the host.
//
// Everything the kernels touch lives in one float storage buffer, addressed by offsets passed as uniforms
// (parameters, gradient, optimizer moments, decay mask, the training set, the batch, per-block activations
// and their gradients, the batch loss); a second buffer holds the batch indices. One buffer keeps the host
// side to a table of offsets and lets any kernel read any operand without rebinding.
//
// Index of this file:
//   [SECTION] Dispatches
//   [SECTION] Evaluation and read-back
#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "gelu/gpu/evaluator.hpp"
#include "gelu/gpu/ffn.hpp"
#include "gl_errors.hpp"

namespace gelu::gpu {
namespace {

constexpr int kTile = 32;         // TM = WG * RB in shaders/ffn/matmul.comp
constexpr unsigned kGroup = 256;  // local_size_x of the elementwise kernels
constexpr unsigned kMaxGroups = 4096;

GLuint groups_for(long long n) {
  return static_cast<GLuint>(std::clamp<long long>((n + kGroup - 1) / kGroup, 1, kMaxGroups));
}

}  // namespace
}  // namespace gelu::gpu
#include <chrono>
#include <cstdio>
#include <cstdlib>
namespace gelu::gpu {
namespace {
std::chrono::steady_clock::time_point g_t0 = std::chrono::steady_clock::now();
void barrier() {
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  if (std::getenv("PROF")) {
    glFinish();
    auto t = std::chrono::steady_clock::now();
    GLint prog = 0;
    glGetIntegerv(GL_CURRENT_PROGRAM, &prog);
    std::fprintf(stderr, "p%d %.0f\n", prog, std::chrono::duration<double, std::micro>(t - g_t0).count());
    g_t0 = t;
  }
}

}  // namespace

struct FfnTrainer::MatmulArgs {
  int M = 0, N = 0, K = 0;
  long long a_off = 0;
  int a_rs = 1, a_cs = 1;
  long long b_off = 0;
  int b_rs = 1, b_cs = 1;
  int b_ones_row = -1, b_ones_col = -1;
  long long c_off = 0;
  long long mul_off = -1;
  bool accumulate = false;
};

int FfnTrainer::Program::loc(const char* name) {
  auto it = uniforms.find(name);
  if (it != uniforms.end()) return it->second;
  const int l = glGetUniformLocation(id, name);
  uniforms.emplace(name, l);
  return l;
}

FfnTrainer::FfnTrainer(Context& ctx, const ffn::Network<float>& net, const ffn::Dataset& data,
                       ffn::TrainConfig config, ShaderLibrary shaders)
    : ctx_(ctx), shaders_(std::move(shaders)), net_(net), data_(data), config_(config), rng_(config.seed) {
  ffn::validate(config_, data_, net_.spec());
  const int outputs = net_.spec().outputs;
  x_train_ = data_.x_train.cast<float>();
  x_test_ = data_.x_test.cast<float>();
  y_train_ = ffn::encode_targets<float>(config_.loss, data_.y_train, outputs);
  y_test_ = ffn::encode_targets<float>(config_.loss, data_.y_test, outputs);
  const int n = static_cast<int>(x_train_.cols());
  batch_ = std::min(config_.batch, n);
  order_.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = i;
  cursor_ = order_.size();  // shuffle before the first batch
  batch_index_.resize(static_cast<std::size_t>(batch_));

  if (std::string p = shaders_.problem(); !p.empty()) {
    fail(p);
    return;
  }
  ctx_.make_current();

  // Layout (float offsets).
  const long long P = static_cast<long long>(net_.parameter_count());
  const long long B = batch_;
  long long at = 0;
  auto take = [&](long long count) {
    const long long o = at;
    at += (count + 3) / 4 * 4;  // 16-byte aligned regions
    return o;
  };
  params_ = take(P);
  grad_ = take(P);
  m_ = take(P);
  v_ = take(config_.optimizer == ffn::OptimizerKind::Adam ? P : 0);
  mask_ = take(P);
  x_all_ = take(static_cast<long long>(x_train_.size()));
  y_all_ = take(static_cast<long long>(y_train_.size()));
  xb_ = take(x_train_.rows() * B);
  yb_ = take(y_train_.rows() * B);
  loss_ = take(1);
  using Block = ffn::Network<float>::Block;
  std::size_t draws = 0;
  for (const Block& b : net_.blocks()) {
    BlockBuffers r;
    const long long out = static_cast<long long>(b.out) * B;
    r.a = take(out);
    r.grad_in = take(out);
    if (b.kind == Block::Dense) {
      r.d = take(out);
      if (b.stochastic) r.rand = take(out);
    } else if (b.kind == Block::Glu) {
      const long long hid = static_cast<long long>(b.hidden) * B;
      for (long long* f : {&r.d, &r.g, &r.u, &r.h, &r.dh, &r.du, &r.dz}) *f = take(hid);
      if (b.stochastic) r.rand = take(hid);
    }
    if (b.stochastic)
      draws +=
          static_cast<std::size_t>(b.kind == Block::Glu ? b.hidden : b.out) * static_cast<std::size_t>(B);
    buf_.push_back(r);
    // Evaluation has its own forward buffers, so forward() and evaluate() leave the latest step's
    // activations and gradients (layer_stats) alone. Evaluation writes no f'(z).
    BlockBuffers e;
    e.a = take(out);
    if (b.kind == Block::Glu)
      for (long long* f : {&e.g, &e.u, &e.h}) *f = take(static_cast<long long>(b.hidden) * B);
    eval_buf_.push_back(e);
  }
  eval_xb_ = take(x_train_.rows() * B);
  uniforms_.resize(draws);
  total_ = at;

  const long long bytes = total_ * static_cast<long long>(sizeof(float));
  if (bytes > ctx_.info().max_ssbo_block_size || total_ > std::numeric_limits<int>::max()) {
    fail("the GPU backend keeps the model, the training set and the batch in one storage block of at most " +
         std::to_string(ctx_.info().max_ssbo_block_size >> 20) + " MiB on this device; this run needs " +
         std::to_string(bytes >> 20) + " MiB (use fewer samples, a smaller batch or narrower layers)");
    return;
  }
  if ((B + kTile - 1) / kTile > 65535) {
    fail("the batch is too large for one dispatch (at most 1048560)");
    return;
  }

  // Programs: compile everything now so that shader errors surface at construction.
  for (const Block& b : net_.blocks())
    if (b.act && !program("ffn/act.comp", b.act->glsl_name, b.stochastic)) return;
  for (const char* k :
       {"ffn/matmul.comp", "ffn/loss.comp", "ffn/optimizer.comp", "ffn/gather.comp", "ffn/glu.comp"})
    if (!program(k, nullptr)) return;

  while (glGetError() != GL_NO_ERROR) {
  }
  glGenBuffers(1, &data_buffer_);
  glGenBuffers(1, &index_buffer_);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, data_buffer_);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_COPY);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, index_buffer_);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(B * sizeof(std::uint32_t)), nullptr,
               GL_DYNAMIC_DRAW);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    fail("cannot allocate " + std::to_string(bytes >> 20) + " MiB on the device (" + gl_error_text(e) + ")");
    return;
  }
  // Zero the whole buffer (moments start at zero; no kernel ever reads an uninitialized float).
  const std::vector<float> zeros(static_cast<std::size_t>(total_), 0.0f);
  write(0, zeros.data(), zeros.size());
  write(params_, net_.parameters().data(), static_cast<std::size_t>(P));
  write(mask_, net_.decay_mask().data(), static_cast<std::size_t>(P));
  write(x_all_, x_train_.data(), static_cast<std::size_t>(x_train_.size()));
  write(y_all_, y_train_.data(), static_cast<std::size_t>(y_train_.size()));
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    fail("uploading the model failed (" + gl_error_text(e) + ")");
}

FfnTrainer::~FfnTrainer() {
  ctx_.make_current();
  for (auto& [key, p] : programs_) glDeleteProgram(p.id);
  if (data_buffer_) glDeleteBuffers(1, &data_buffer_);
  if (index_buffer_) glDeleteBuffers(1, &index_buffer_);
}

void FfnTrainer::fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

FfnTrainer::Program* FfnTrainer::program(const std::string& kernel, const char* act, bool stochastic) {
  const std::string key = kernel + "|" + (act ? act : "") + (stochastic ? "|stochastic" : "");
  if (auto it = programs_.find(key); it != programs_.end()) return &it->second;
  std::string defines = act ? std::string("#define ACT ") + act : std::string();
  if (stochastic) defines += "\n#define STOCHASTIC 1";
  std::string err;
  const GLuint prog = build_compute_program(shaders_, kernel, defines, act ? act : "", &err);
  if (!prog) {
    fail(err);
    return nullptr;
  }
  Program& p = programs_[key];
  p.id = prog;
  return &p;
}

void FfnTrainer::write(long long offset, const float* values, std::size_t n) {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, data_buffer_);
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset * 4),
                  static_cast<GLsizeiptr>(n * sizeof(float)), values);
}

std::vector<float> FfnTrainer::read(long long offset, std::size_t n) {
  std::vector<float> out(n);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, data_buffer_);
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset * 4),
                     static_cast<GLsizeiptr>(n * sizeof(float)), out.data());
  return out;
}

// [SECTION] Dispatches

void FfnTrainer::matmul(const MatmulArgs& m) {
  Program* p = program("ffn/matmul.comp", nullptr);
  if (!p) return;
  glUseProgram(p->id);
  const auto i = [](long long v) { return static_cast<GLint>(v); };
  glUniform1i(p->loc("u_M"), m.M);
  glUniform1i(p->loc("u_N"), m.N);
  glUniform1i(p->loc("u_K"), m.K);
  glUniform1i(p->loc("u_a_off"), i(m.a_off));
  glUniform1i(p->loc("u_a_rs"), m.a_rs);
  glUniform1i(p->loc("u_a_cs"), m.a_cs);
  glUniform1i(p->loc("u_b_off"), i(m.b_off));
  glUniform1i(p->loc("u_b_rs"), m.b_rs);
  glUniform1i(p->loc("u_b_cs"), m.b_cs);
  glUniform1i(p->loc("u_b_ones_row"), m.b_ones_row);
  glUniform1i(p->loc("u_b_ones_col"), m.b_ones_col);
  glUniform1i(p->loc("u_c_off"), i(m.c_off));
  glUniform1i(p->loc("u_mul_off"), i(m.mul_off));
  glUniform1i(p->loc("u_accumulate"), m.accumulate ? 1 : 0);
  glDispatchCompute(static_cast<GLuint>((m.M + kTile - 1) / kTile),
                    static_cast<GLuint>((m.N + kTile - 1) / kTile), 1);
  barrier();
}

void FfnTrainer::activate(const ffn::Network<float>::Block& b, const BlockBuffers& r, long long z, int rows,
                          int cols, bool train) {
  Program* p = program("ffn/act.comp", b.act->glsl_name, b.stochastic);
  if (!p) return;
  glUseProgram(p->id);
  const long long n = static_cast<long long>(rows) * cols;
  glUniform1i(p->loc("u_n"), static_cast<GLint>(n));
  glUniform1i(p->loc("u_train"), train ? 1 : 0);
  glUniform1i(p->loc("u_a_off"), static_cast<GLint>(z));
  glUniform1i(p->loc("u_d_off"), static_cast<GLint>(r.d));
  glUniform1i(p->loc("u_r_off"), static_cast<GLint>(b.stochastic ? r.rand : 0));
  float v[4] = {0, 0, 0, 0};
  for (std::size_t k = 0; k < b.act->params.size() && k < 2; ++k) {
    const auto [hi, lo] = split_param(b.params[static_cast<int>(k)]);
    v[2 * k] = hi;
    v[2 * k + 1] = lo;
  }
  glUniform4fv(p->loc("u_params"), 1, v);
  glDispatchCompute(groups_for(n), 1, 1);
  barrier();
}

void FfnTrainer::run_forward(long long input, int cols, bool train) {
  const std::vector<BlockBuffers>& bufs = train ? buf_ : eval_buf_;
  using Block = ffn::Network<float>::Block;
  const bool bias = net_.spec().bias;
  const int stride = bias ? 2 : 1;
  long long in = input;
  int in_rows = net_.spec().inputs;
  for (std::size_t bi = 0; bi < net_.blocks().size(); ++bi) {
    const Block& b = net_.blocks()[bi];
    const BlockBuffers& r = bufs[bi];
    // [W b]·[in; 1] for the tensor pair starting at t.
    auto affine = [&](int t, int rows, long long src, int src_rows, long long dst) {
      MatmulArgs m;
      m.M = rows;
      m.N = cols;
      m.K = src_rows + (bias ? 1 : 0);
      m.a_off = params_ + static_cast<long long>(net_.tensors()[static_cast<std::size_t>(t)].offset);
      m.a_rs = 1;
      m.a_cs = rows;
      m.b_off = src;
      m.b_rs = 1;
      m.b_cs = src_rows;
      m.b_ones_row = bias ? src_rows : -1;
      m.c_off = dst;
      return m;
    };
    switch (b.kind) {
      case Block::Output:
        matmul(affine(b.t0, b.out, in, in_rows, r.a));
        break;
      case Block::Dense:
        matmul(affine(b.t0, b.out, in, in_rows, r.a));
        activate(b, r, r.a, b.out, cols, train);
        break;
      case Block::Glu: {
        matmul(affine(b.t0, b.hidden, in, in_rows, r.g));
        activate(b, r, r.g, b.hidden, cols, train);
        matmul(affine(b.t0 + stride, b.hidden, in, in_rows, r.u));
        Program* p = program("ffn/glu.comp", nullptr);
        if (!p) return;
        glUseProgram(p->id);
        glUniform1i(p->loc("u_n"), b.hidden * cols);
        glUniform1i(p->loc("u_backward"), 0);
        glUniform1i(p->loc("u_g_off"), static_cast<GLint>(r.g));
        glUniform1i(p->loc("u_u_off"), static_cast<GLint>(r.u));
        glUniform1i(p->loc("u_h_off"), static_cast<GLint>(r.h));
        glDispatchCompute(groups_for(static_cast<long long>(b.hidden) * cols), 1, 1);
        barrier();
        matmul(affine(b.t0 + 2 * stride, b.out, r.h, b.hidden, r.a));
        break;
      }
    }
    in = r.a;
    in_rows = b.out;
  }
}

void FfnTrainer::next_batch() {
  // The CPU Trainer's code, on the same Rng: epochs of a seeded Fisher-Yates permutation.
  if (cursor_ + static_cast<std::size_t>(batch_) > order_.size()) {
    for (std::size_t i = order_.size() - 1; i > 0; --i) std::swap(order_[i], order_[rng_.below(i + 1)]);
    cursor_ = 0;
  }
  for (int j = 0; j < batch_; ++j)
    batch_index_[static_cast<std::size_t>(j)] =
        static_cast<std::uint32_t>(order_[cursor_ + static_cast<std::size_t>(j)]);
  cursor_ += static_cast<std::size_t>(batch_);
}

double FfnTrainer::step() {
  if (!ok()) return std::numeric_limits<double>::quiet_NaN();
  using Block = ffn::Network<float>::Block;
  ctx_.make_current();
  next_batch();
  // Stochastic-GELU uniforms: drawn after the batch, block by block, column-major, as Network::forward does.
  for (float& u : uniforms_) u = static_cast<float>(rng_.uniform());
  {
    std::size_t at = 0;
    for (std::size_t bi = 0; bi < net_.blocks().size(); ++bi) {
      const Block& b = net_.blocks()[bi];
      if (!b.stochastic) continue;
      const std::size_t n = static_cast<std::size_t>(b.kind == Block::Glu ? b.hidden : b.out) *
                            static_cast<std::size_t>(batch_);
      write(buf_[bi].rand, uniforms_.data() + at, n);
      at += n;
    }
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, index_buffer_);
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0,
                  static_cast<GLsizeiptr>(batch_index_.size() * sizeof(std::uint32_t)), batch_index_.data());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, data_buffer_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, index_buffer_);
  const int inputs = net_.spec().inputs, outputs = net_.spec().outputs;

  // Gather the batch.
  {
    Program* p = program("ffn/gather.comp", nullptr);
    if (!p) return std::numeric_limits<double>::quiet_NaN();
    glUseProgram(p->id);
    glUniform1i(p->loc("u_B"), batch_);
    glUniform1i(p->loc("u_x_rows"), inputs);
    glUniform1i(p->loc("u_y_rows"), static_cast<GLint>(y_train_.rows()));
    glUniform1i(p->loc("u_x_src"), static_cast<GLint>(x_all_));
    glUniform1i(p->loc("u_y_src"), static_cast<GLint>(y_all_));
    glUniform1i(p->loc("u_x_dst"), static_cast<GLint>(xb_));
    glUniform1i(p->loc("u_y_dst"), static_cast<GLint>(yb_));
    glDispatchCompute(groups_for(static_cast<long long>(inputs + y_train_.rows()) * batch_), 1, 1);
    barrier();
  }
  run_forward(xb_, batch_, true);

  // Loss and dL/dlogits.
  const BlockBuffers& out = buf_.back();
  {
    Program* p = program("ffn/loss.comp", nullptr);
    if (!p) return std::numeric_limits<double>::quiet_NaN();
    glUseProgram(p->id);
    glUniform1i(p->loc("u_kind"), config_.loss == ffn::LossKind::Mse   ? 0
                                  : config_.loss == ffn::LossKind::Bce ? 1
                                                                       : 2);
    glUniform1i(p->loc("u_rows"), outputs);
    glUniform1i(p->loc("u_B"), batch_);
    glUniform1i(p->loc("u_z_off"), static_cast<GLint>(out.a));
    glUniform1i(p->loc("u_t_off"), static_cast<GLint>(yb_));
    glUniform1i(p->loc("u_dz_off"), static_cast<GLint>(out.grad_in));
    glUniform1i(p->loc("u_loss_off"), static_cast<GLint>(loss_));
    glDispatchCompute(1, 1, 1);
    barrier();
  }

  // Backward: parameter gradients (bias as the ones column) and the gradient of the block below.
  const bool bias = net_.spec().bias;
  const int stride = bias ? 2 : 1;
  const auto toff = [&](int t) {
    return static_cast<long long>(net_.tensors()[static_cast<std::size_t>(t)].offset);
  };
  for (int bi = static_cast<int>(net_.blocks().size()) - 1; bi >= 0; --bi) {
    const Block& b = net_.blocks()[static_cast<std::size_t>(bi)];
    const BlockBuffers& r = buf_[static_cast<std::size_t>(bi)];
    const long long in = bi == 0 ? xb_ : buf_[static_cast<std::size_t>(bi - 1)].a;
    const int in_rows = bi == 0 ? inputs : net_.blocks()[static_cast<std::size_t>(bi - 1)].out;
    const bool below_dense = bi > 0 && net_.blocks()[static_cast<std::size_t>(bi - 1)].kind == Block::Dense;
    const long long below_grad = bi > 0 ? buf_[static_cast<std::size_t>(bi - 1)].grad_in : 0;
    const long long below_d = below_dense ? buf_[static_cast<std::size_t>(bi - 1)].d : -1;
    // dW|db = dz·[src; 1]ᵀ (rows x (src_rows + 1)), written over the tensor pair at t.
    auto weight_grad = [&](int t, int rows, long long dz, long long src, int src_rows) {
      MatmulArgs m;
      m.M = rows;
      m.N = src_rows + (bias ? 1 : 0);
      m.K = batch_;
      m.a_off = dz;
      m.a_rs = 1;
      m.a_cs = rows;
      m.b_off = src;
      m.b_rs = src_rows;
      m.b_cs = 1;
      m.b_ones_col = bias ? src_rows : -1;
      m.c_off = grad_ + toff(t);
      matmul(m);
    };
    // dst (= or +=) W_tᵀ·dz, then ⊙ mul (f'(z) of a Dense block below).
    auto input_grad = [&](int t, int rows, int cols_w, long long dz, long long dst, bool accumulate,
                          long long mul) {
      MatmulArgs m;
      m.M = cols_w;
      m.N = batch_;
      m.K = rows;
      m.a_off = params_ + toff(t);
      m.a_rs = rows;
      m.a_cs = 1;
      m.b_off = dz;
      m.b_rs = 1;
      m.b_cs = rows;
      m.c_off = dst;
      m.accumulate = accumulate;
      m.mul_off = mul;
      matmul(m);
    };
    if (b.kind != Block::Glu) {
      weight_grad(b.t0, b.out, r.grad_in, in, in_rows);
      if (bi > 0) input_grad(b.t0, b.out, in_rows, r.grad_in, below_grad, false, below_d);
      continue;
    }
    const int td = b.t0 + 2 * stride, tu = b.t0 + stride;
    weight_grad(td, b.out, r.grad_in, r.h, b.hidden);
    input_grad(td, b.out, b.hidden, r.grad_in, r.dh, false, -1);
    {
      Program* p = program("ffn/glu.comp", nullptr);
      if (!p) return std::numeric_limits<double>::quiet_NaN();
      glUseProgram(p->id);
      glUniform1i(p->loc("u_n"), b.hidden * batch_);
      glUniform1i(p->loc("u_backward"), 1);
      glUniform1i(p->loc("u_g_off"), static_cast<GLint>(r.g));
      glUniform1i(p->loc("u_u_off"), static_cast<GLint>(r.u));
      glUniform1i(p->loc("u_d_off"), static_cast<GLint>(r.d));
      glUniform1i(p->loc("u_dh_off"), static_cast<GLint>(r.dh));
      glUniform1i(p->loc("u_du_off"), static_cast<GLint>(r.du));
      glUniform1i(p->loc("u_dz_off"), static_cast<GLint>(r.dz));
      glDispatchCompute(groups_for(static_cast<long long>(b.hidden) * batch_), 1, 1);
      barrier();
    }
    weight_grad(tu, b.hidden, r.du, in, in_rows);
    weight_grad(b.t0, b.hidden, r.dz, in, in_rows);
    if (bi > 0) {
      input_grad(b.t0, b.hidden, in_rows, r.dz, below_grad, false, -1);
      input_grad(tu, b.hidden, in_rows, r.du, below_grad, true, below_d);
    }
  }

  // Weight decay and the optimizer step.
  {
    Program* p = program("ffn/optimizer.comp", nullptr);
    if (!p) return std::numeric_limits<double>::quiet_NaN();
    const double lr = ffn::learning_rate(config_, step_);
    ++opt_t_;
    const double tt = static_cast<double>(opt_t_);
    glUseProgram(p->id);
    glUniform1i(p->loc("u_n"), static_cast<GLint>(net_.parameter_count()));
    glUniform1i(p->loc("u_p_off"), static_cast<GLint>(params_));
    glUniform1i(p->loc("u_g_off"), static_cast<GLint>(grad_));
    glUniform1i(p->loc("u_m_off"), static_cast<GLint>(m_));
    glUniform1i(p->loc("u_v_off"), static_cast<GLint>(v_));
    glUniform1i(p->loc("u_mask_off"), static_cast<GLint>(mask_));
    glUniform1i(p->loc("u_adam"), config_.optimizer == ffn::OptimizerKind::Adam ? 1 : 0);
    glUniform1f(p->loc("u_decay"), static_cast<float>(config_.weight_decay));
    glUniform1f(p->loc("u_lr"), static_cast<float>(lr));
    glUniform1f(p->loc("u_momentum"), static_cast<float>(config_.momentum));
    glUniform1f(p->loc("u_b1"), static_cast<float>(config_.beta1));
    glUniform1f(p->loc("u_b2"), static_cast<float>(config_.beta2));
    glUniform1f(p->loc("u_step_size"), static_cast<float>(lr / (1.0 - std::pow(config_.beta1, tt))));
    glUniform1f(p->loc("u_inv_sqrt_bc2"),
                static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(config_.beta2, tt))));
    glUniform1f(p->loc("u_eps"), static_cast<float>(config_.eps));
    glDispatchCompute(groups_for(static_cast<long long>(net_.parameter_count())), 1, 1);
    barrier();
  }
  ++step_;
  const std::vector<float> l = read(loss_, 1);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    fail("a GPU training step failed (" + gl_error_text(e) + ")");
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (auto lost = context_lost()) {  // a reset makes every result of this step meaningless
    fail(*lost);
    return std::numeric_limits<double>::quiet_NaN();
  }
  return static_cast<double>(l[0]);
}

// [SECTION] Evaluation and read-back

FfnTrainer::Mat FfnTrainer::forward(const Mat& X) {
  if (!ok()) return {};
  if (X.rows() != net_.spec().inputs)
    throw std::invalid_argument("forward: input has the wrong number of rows");
  ctx_.make_current();
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, data_buffer_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, index_buffer_);
  const int outputs = net_.spec().outputs;
  Mat z(outputs, X.cols());
  for (Eigen::Index c0 = 0; c0 < X.cols(); c0 += batch_) {
    const int cols = static_cast<int>(std::min<Eigen::Index>(batch_, X.cols() - c0));
    write(eval_xb_, X.data() + c0 * X.rows(), static_cast<std::size_t>(cols * X.rows()));
    run_forward(eval_xb_, cols, false);
    const std::vector<float> part = read(eval_buf_.back().a, static_cast<std::size_t>(cols * outputs));
    std::memcpy(z.data() + c0 * outputs, part.data(), part.size() * sizeof(float));
  }
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    fail("GPU evaluation failed (" + gl_error_text(e) + ")");
    return {};
  }
  return z;
}

ffn::Metrics FfnTrainer::evaluate() {
  ffn::Metrics m;
  const bool classify = data_.task == ffn::Task::Classification;
  const Mat zt = forward(x_train_);
  const Mat zs = forward(x_test_);
  if (!ok()) {
    m.train_loss = m.test_loss = std::numeric_limits<double>::quiet_NaN();
    return m;
  }
  m.train_loss = static_cast<double>(ffn::loss<float>(config_.loss, zt, y_train_, nullptr));
  m.test_loss = static_cast<double>(ffn::loss<float>(config_.loss, zs, y_test_, nullptr));
  if (classify) {
    m.train_accuracy = ffn::accuracy<float>(config_.loss, zt, y_train_);
    m.test_accuracy = ffn::accuracy<float>(config_.loss, zs, y_test_);
  }
  return m;
}

void FfnTrainer::download(ffn::Network<float>& net) {
  if (!(net.spec() == net_.spec()))
    throw std::invalid_argument("download: the network's spec differs from the trainer's");
  if (!ok()) return;
  ctx_.make_current();
  const std::vector<float> p = read(params_, net_.parameter_count());
  std::memcpy(net.parameters().data(), p.data(), p.size() * sizeof(float));
}

std::vector<float> FfnTrainer::download_gradient() {
  if (!ok()) return {};
  ctx_.make_current();
  return read(grad_, net_.parameter_count());
}

std::vector<double> FfnTrainer::grad_norms() {
  const std::vector<float> g = download_gradient();
  std::vector<double> norms(net_.blocks().size(), 0.0);
  if (g.empty()) return norms;
  for (const ffn::TensorInfo& t : net_.tensors())
    for (std::size_t k = 0; k < static_cast<std::size_t>(t.rows * t.cols); ++k) {
      const double v = g[t.offset + k];
      norms[static_cast<std::size_t>(t.block)] += v * v;
    }
  for (double& n : norms) n = std::sqrt(n);
  return norms;
}

std::vector<ffn::LayerStats> FfnTrainer::layer_stats(int bins) {
  // Trainer::layer_stats on buffers read back from the device.
  std::vector<ffn::LayerStats> out;
  if (!ok() || step_ == 0) return out;
  ctx_.make_current();
  const std::vector<double> norms = grad_norms();
  bins = std::max(1, bins);
  using Block = ffn::Network<float>::Block;
  for (int i = 0; i < net_.hidden_blocks(); ++i) {
    const Block& b = net_.blocks()[static_cast<std::size_t>(i)];
    const BlockBuffers& r = buf_[static_cast<std::size_t>(i)];
    const bool glu = b.kind == Block::Glu;
    const int rows = glu ? b.hidden : b.out;
    const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(batch_);
    const std::vector<float> values = read(glu ? r.h : r.a, n);
    const std::vector<float> dz = read(glu ? r.dz : r.grad_in, n);
    ffn::LayerStats s;
    s.name = std::string("h").append(std::to_string(i));
    s.units = rows;
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    s.lo = static_cast<double>(*lo);
    s.hi = static_cast<double>(*hi);
    s.histogram.assign(static_cast<std::size_t>(bins), 0);
    const double width = s.hi > s.lo ? (s.hi - s.lo) / bins : 1.0;
    for (float v : values) {
      const int bin = static_cast<int>((static_cast<double>(v) - s.lo) / width);
      ++s.histogram[static_cast<std::size_t>(std::clamp(bin, 0, bins - 1))];
    }
    int dead = 0;
    for (int u = 0; u < rows; ++u) {
      bool all_zero = true;
      for (int c = 0; c < batch_ && all_zero; ++c)
        all_zero =
            dz[static_cast<std::size_t>(u) + static_cast<std::size_t>(c) * static_cast<std::size_t>(rows)] ==
            0.0f;
      dead += all_zero ? 1 : 0;
    }
    s.dead_fraction = static_cast<double>(dead) / static_cast<double>(std::max(1, rows));
    s.grad_norm = norms[static_cast<std::size_t>(i)];
    out.push_back(std::move(s));
  }
  return out;
}

ffn::GridOutput FfnTrainer::grid(int nx, int ny) {
  // Trainer::grid's frame and outputs with the device's forward pass.
  ffn::GridOutput g;
  const Mat x = ffn::grid_inputs<float>(data_, nx, ny, g);
  const Mat z = forward(x);
  if (z.cols() != x.cols()) return g;
  ffn::grid_values<float>(z, config_.loss, g);
  return g;
}

}  // namespace gelu::gpu

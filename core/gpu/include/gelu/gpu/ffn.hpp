// [SECTION] GPU training of the tiny feed-forward networks (gelu::ffn) with OpenGL compute shaders.
//
// FfnTrainer mirrors gelu::ffn::Trainer<float>: the same network (uploaded from the CPU's initialized
// Network<float>), the same minibatch order (the CPU's Rng and Fisher-Yates code run on the host and the
// batch indices are uploaded), the same loss, weight decay, optimizer and learning-rate schedule. So one
// model, seed and dataset give the CPU's training trajectory up to float rounding (different summation
// orders): the batch loss after 200 steps agrees to a few 1e-6 relative or better on llvmpipe
// (tests/ffn/gpu/ffn_gpu_test.cpp prints the figures). Evaluation uses buffers of its own, so forward(),
// evaluate() and grid() leave the latest step's layer_stats() intact.
//
// On the device (shaders/ffn/*.comp): a shared-memory tiled matmul (32x32 tiles, 4x4 outputs per
// invocation) whose epilogue can accumulate and multiply by f'(z) of the block below; biases ride along as
// an extra column of the weight matrix (the flat parameter layout stores b right after W), so W·x + b is one
// product and a bias gradient is the same reduction over the batch as its weight gradient; the activation
// (f and f' from shaders/activations.glsl) or the stochastic-GELU gate in place; a loss kernel (MSE, BCE,
// softmax CE) that writes dL/dlogits and reduces the batch loss in shared memory; the optimizer step over the
// whole parameter vector; a gather of the batch columns; GLU's elementwise products.
//
// Stochastic GELU: the CPU's Rng draws the uniforms u (same stream, same order as Trainer::step) and they
// are uploaded; the shader samples m = [u < Φ(z)] with Φ(z) = GELU(z)/z in float. The CPU compares in
// double, so a mask can differ where u lies within float rounding of Φ(z) (about 1e-7 per element); the
// trajectories then drift apart slowly, but the draws and their distribution are the CPU's.
//
// Needs the Context it was created with to be current on the calling thread. GPU failures (a shader that
// does not compile, a dataset larger than one storage block) come back as ok() == false and error();
// an invalid TrainConfig throws std::invalid_argument exactly as Trainer's constructor does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/network.hpp"
#include "gelu/ffn/train.hpp"
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/shaders.hpp"

namespace gelu::gpu {

class FfnTrainer final : public ffn::StepTrainer {
 public:
  using Mat = ffn::Network<float>::Mat;

  /// Uploads a copy of net (spec and parameters) and the dataset; ctx and data must outlive the trainer
  /// (net need not: download() writes the result into any network of the same spec). Throws
  /// std::invalid_argument for an invalid config (ffn::validate).
  FfnTrainer(Context& ctx, const ffn::Network<float>& net, const ffn::Dataset& data, ffn::TrainConfig config,
             ShaderLibrary shaders = ShaderLibrary::from_environment());
  ~FfnTrainer() override;
  FfnTrainer(const FfnTrainer&) = delete;
  FfnTrainer& operator=(const FfnTrainer&) = delete;

  /// False when the device could not be set up (or a step failed); error() says why.
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::string failure() const override { return error_; }
  bool remote() const override { return true; }

  /// One minibatch step (forward, loss, backward, weight decay, update); returns the batch loss before the
  /// update (one float read back), NaN when !ok().
  double step() override;
  int steps_done() const override { return step_; }

  /// Logits (outputs x n) of the network in evaluation mode for inputs X (inputs x n), computed on the
  /// device in chunks of the batch size. Empty matrix when !ok().
  Mat forward(const Mat& X);
  /// Loss and accuracy over the full training and test sets, computed from device logits with the CPU's
  /// loss and accuracy functions.
  ffn::Metrics evaluate() override;

  /// Copies the device parameters into net (whose spec must equal the trainer's).
  void download(ffn::Network<float>& net) override;
  /// The latest step's gradient (weight decay included), in the flat parameter layout.
  std::vector<float> download_gradient();
  /// Gradient norm of each block (hidden blocks then the output layer) of the latest step, as
  /// Trainer::grad_norms.
  std::vector<double> grad_norms();

  /// Per hidden block: activation histogram, dead units and gradient norm of the latest step, as
  /// Trainer::layer_stats (reads the block's activations and dL/dz back). Empty before the first step.
  std::vector<ffn::LayerStats> layer_stats(int bins = 32) override;
  /// The model's output on a grid over the dataset's input box, as Trainer::grid (device forward pass).
  ffn::GridOutput grid(int nx, int ny) override;

  const ffn::TrainConfig& config() const { return config_; }
  int batch() const { return batch_; }

 private:
  struct Program {
    unsigned id = 0;
    std::map<std::string, int> uniforms;
    int loc(const char* name);
  };
  struct BlockBuffers {      // float offsets into the data buffer (batch columns); -1 when unused
    long long a = -1;        // block output (Output: logits)
    long long d = -1;        // Dense/GLU gate: f'(z) or the stochastic mask
    long long grad_in = -1;  // Dense: dL/dz; GLU: dL/da; Output: dL/dlogits
    long long rand = -1;     // stochastic GELU: the step's uniforms
    long long g = -1, u = -1, h = -1, dh = -1, du = -1, dz = -1;  // GLU only
  };
  struct MatmulArgs;

  Program* program(const std::string& kernel, const char* act, bool stochastic = false);
  void matmul(const MatmulArgs& m);
  void activate(const ffn::Network<float>::Block& b, const BlockBuffers& r, long long z, int rows, int cols,
                bool train);
  void run_forward(long long input, int cols, bool train);
  void fail(std::string message);
  void next_batch();
  std::vector<float> read(long long offset, std::size_t n);
  void write(long long offset, const float* values, std::size_t n);

  Context& ctx_;
  ShaderLibrary shaders_;
  ffn::Network<float> net_;  // a copy of the spec, tensors and blocks (parameters live on the device)
  const ffn::Dataset& data_;
  ffn::TrainConfig config_;
  Mat x_train_, y_train_, x_test_, y_test_;
  std::map<std::string, Program> programs_;
  std::string error_;

  unsigned data_buffer_ = 0, index_buffer_ = 0;
  long long params_ = 0, grad_ = 0, m_ = 0, v_ = 0, mask_ = 0, x_all_ = 0, y_all_ = 0, xb_ = 0, yb_ = 0,
            loss_ = 0, total_ = 0;
  std::vector<BlockBuffers> buf_;       // training step (batch columns)
  std::vector<BlockBuffers> eval_buf_;  // forward() / evaluate()
  long long eval_xb_ = 0;

  ffn::Rng rng_;
  std::vector<int> order_;
  std::vector<std::uint32_t> batch_index_;
  std::vector<float> uniforms_;  // stochastic-GELU draws of one step
  std::size_t cursor_ = 0;
  int batch_ = 0;
  int step_ = 0;
  long long opt_t_ = 0;
};

}  // namespace gelu::gpu

// [SECTION] Training: optimizers, learning-rate schedules, the minibatch loop and the teaching statistics.
//
// A Trainer owns the batch buffers, the workspace and the optimizer state, so a step allocates nothing.
// Determinism: everything random (initialization, batch order, stochastic masks) comes from Rng seeded by
// the config; Eigen runs single-threaded; so one seed gives bit-identical runs on one machine and build.
// On x86, step() and evaluate() run with flush-to-zero/denormals-are-zero (see train.cpp: subnormal GELU
// tails made training 3x slower); MXCSR is restored when they return.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/network.hpp"

namespace gelu::ffn {

enum class OptimizerKind { Sgd, Adam };
enum class Schedule { Constant, Step, Cosine };
const char* to_string(OptimizerKind o);  // "sgd", "adam"
const char* to_string(Schedule s);       // "constant", "step", "cosine"
std::optional<OptimizerKind> parse_optimizer(std::string_view s);
std::optional<Schedule> parse_schedule(std::string_view s);

struct TrainConfig {
  LossKind loss = LossKind::Bce;
  OptimizerKind optimizer = OptimizerKind::Adam;
  double lr = 0.01;
  double momentum = 0.9;                          // SGD: v = μ·v + g, θ -= lr·v (PyTorch's form)
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // Adam, with bias correction (PyTorch's form)
  double weight_decay = 0.0;                      // L2: g += λ·W on weights (biases are not decayed)
  Schedule schedule = Schedule::Constant;
  int steps = 3000;   // horizon of the cosine schedule (lr -> 0 at `steps`)
  int step_size = 0;  // step schedule: lr *= gamma every step_size steps (0: steps / 3)
  double gamma = 0.1;
  int batch = 256;         // clamped to the training set size
  std::uint64_t seed = 1;  // batch order and stochastic masks (initialization has its own seed)
};

/// Throws std::invalid_argument for a non-finite or non-positive learning rate, momentum or betas outside
/// [0, 1), a negative weight decay, a batch < 1, and a loss that does not fit the data and output width.
void validate(const TrainConfig& c, const Dataset& d, const NetworkSpec& spec);
/// MSE for regression, BCE for 2 classes with one output, softmax CE otherwise.
LossKind default_loss(const Dataset& d, int outputs);
/// Learning rate at step t (0-based) under c's schedule.
double learning_rate(const TrainConfig& c, int t);

/// The FFN lab's divergence rule: growth past this many times the starting loss stops a net.
inline constexpr double kDivergedGrowth = 1e6;
/// Whether training has diverged at a step whose loss is `loss`: the loss is not finite (NaN or ±inf), or
/// growth > 0, the starting loss `start` is finite and positive, and loss > growth × start. The one rule of
/// `gelulab train` (growth 0: non-finite only) and of the FFN lab (growth kDivergedGrowth).
bool diverged(double loss, double start, double growth);

template <class T>
class Optimizer {
 public:
  using Vec = typename Network<T>::Vec;
  Optimizer(OptimizerKind kind, std::size_t n) : kind_(kind), m_(Vec::Zero(static_cast<Eigen::Index>(n))) {
    if (kind == OptimizerKind::Adam) v_ = Vec::Zero(static_cast<Eigen::Index>(n));
  }
  /// One update of params with grad (already including weight decay) at learning rate lr.
  void step(Vec& params, const Vec& grad, const TrainConfig& c, double lr);
  long long steps() const { return t_; }

 private:
  OptimizerKind kind_;
  Vec m_, v_;  // SGD: velocity in m_; Adam: first and second moments
  long long t_ = 0;
};

struct Metrics {
  double train_loss = 0, test_loss = 0;
  double train_accuracy = -1, test_accuracy = -1;  // -1 for regression
};

/// Statistics of one hidden block after the latest training step (its batch).
struct LayerStats {
  std::string name;            // "h0"
  int units = 0;               // block width (GLU: the inner gate width)
  std::vector<int> histogram;  // post-activation values (GLU: act(gate)⊙up) over [lo, hi]
  double lo = 0, hi = 0;
  double dead_fraction = 0;  // units whose dL/dz is exactly 0 for every sample of the batch
  double grad_norm = 0;      // Frobenius norm of the block's parameter gradient (weights and biases)
};

/// The model's output on a grid over the dataset's input box: 2-D (nx x ny, x fastest) or 1-D (nx points).
/// values: P(class 1) for BCE, the predicted class for CE (confidence = its softmax probability), the
/// network's output for MSE.
struct GridOutput {
  int nx = 0, ny = 0;
  double lo[2] = {0, 0}, hi[2] = {0, 0};
  std::vector<double> values, confidence;
};

/// The grid's frame (sizes, bounds from the dataset) and its input points, one column per cell, x fastest.
/// Shared by the CPU Trainer and the GPU trainer so both draw the same heatmap.
template <class T>
typename Network<T>::Mat grid_inputs(const Dataset& data, int nx, int ny, GridOutput& g);
/// Fills g.values (and g.confidence for softmax CE) from the model's outputs z, one column per cell.
template <class T>
void grid_values(const typename Network<T>::Mat& z, LossKind loss, GridOutput& g);

/// The hidden-space view (what a hidden layer does to the plane): the input plane's grid lines and the
/// training points pushed through `net` to hidden block `block` (0-based), in the coordinates of two of its
/// units (`unit_x`, `unit_y`: a dense block's activations, a GLU block's gated hidden act(x·V) ⊙ x·W). The
/// lines are `lines` evenly spaced x = const and y = const lines across the dataset's bounds, each sampled at
/// `points` points. 2-input datasets only; throws std::invalid_argument for a block or unit that is not
/// there.
struct HiddenSpace {
  int block = 0, unit_x = 0, unit_y = 1;
  // Line k's points: xs[k][i], ys[k][i]; the first `lines` lines are x = const, the rest y = const.
  std::vector<std::vector<double>> xs, ys;
  std::vector<double> px, py;  // the training points
  std::vector<int> label;      // their classes
};
HiddenSpace hidden_space(const Network<float>& net, const Dataset& data, int block, int unit_x, int unit_y,
                         int lines = 17, int points = 61);
/// The units a hidden block has there (its width: a GLU block's inner width).
int hidden_units(const Network<float>& net, int block);

template <class T>
class Trainer {
 public:
  using Mat = typename Network<T>::Mat;
  using Vec = typename Network<T>::Vec;

  /// The trainer keeps references to net and data; both must outlive it. Throws std::invalid_argument
  /// (validate).
  Trainer(Network<T>& net, const Dataset& data, TrainConfig config);

  /// One minibatch step: forward, loss, backward, weight decay, update. Returns the batch loss before the
  /// update.
  double step();
  int steps_done() const { return step_; }

  /// Loss and accuracy over the full training and test sets (evaluation mode: stochastic GELU uses x·Φ(x)).
  Metrics evaluate();
  /// Per hidden block: activation histogram (bins), dead units and gradient norm of the latest step.
  std::vector<LayerStats> layer_stats(int bins = 32) const;
  /// Gradient norm of each block (hidden blocks then the output layer) of the latest step.
  std::vector<double> grad_norms() const;
  GridOutput grid(int nx, int ny);

  const TrainConfig& config() const { return config_; }
  Network<T>& network() { return net_; }
  const Vec& last_gradient() const { return grad_; }

 private:
  Network<T>& net_;
  const Dataset& data_;
  TrainConfig config_;
  Mat x_train_, y_train_, x_test_, y_test_;  // targets encoded for the loss (outputs x n)
  Mat xb_, yb_, dlogits_;
  Vec grad_;
  Workspace<T> ws_, eval_ws_;
  Optimizer<T> opt_;
  Rng rng_;
  std::vector<int> order_;
  std::size_t cursor_ = 0;
  int batch_ = 0;
  int step_ = 0;
  void next_batch();
};

/// Targets for a loss: values or 0/1 labels as one row (MSE, BCE), one-hot rows (CE, `outputs` classes).
template <class T>
typename Network<T>::Mat encode_targets(LossKind loss, const Eigen::RowVectorXd& y, int outputs);

extern template class Optimizer<float>;
extern template class Optimizer<double>;
extern template class Trainer<float>;
extern template class Trainer<double>;

// [SECTION] The trainer interface

/// A float trainer as the FFN lab and `gelulab train` drive it, whatever runs it: the CPU Trainer<float>
/// (cpu_trainer below) or the GPU trainer (gelu::gpu::FfnTrainer). Callers never ask which; the app picks one
/// in a single place (app/model/backends.hpp).
class StepTrainer {
 public:
  virtual ~StepTrainer() = default;
  /// One minibatch step; the batch loss before the update (NaN once failure() is set).
  virtual double step() = 0;
  virtual int steps_done() const = 0;
  /// Loss and accuracy over the full training and test sets (evaluation mode).
  virtual Metrics evaluate() = 0;
  /// Per hidden block: activation histogram, dead units and gradient norm of the latest step.
  virtual std::vector<LayerStats> layer_stats(int bins = 32) = 0;
  virtual GridOutput grid(int nx, int ny) = 0;
  /// Writes the trained parameters into net (same spec). The CPU trainer trains its network in place, so for
  /// that network this copies nothing.
  virtual void download(Network<float>& net) = 0;
  /// Empty while the trainer works; why it stopped once it failed (a lost GPU context, a kernel error).
  virtual std::string failure() const { return {}; }
  /// True when the parameters live off the host (a download is a transfer).
  virtual bool remote() const { return false; }
};

/// The CPU trainer behind the interface: Trainer<float> on `net` (which it trains in place).
std::unique_ptr<StepTrainer> cpu_trainer(Network<float>& net, const Dataset& data, TrainConfig config);

}  // namespace gelu::ffn

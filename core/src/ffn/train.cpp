// Index of this file:
//   [SECTION] Optimizers
//   [SECTION] Trainer
#include "gelu/ffn/train.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace gelu::ffn {
namespace {

/// Flush-to-zero and denormals-are-zero for the duration of a training step or evaluation (x86; a no-op
/// elsewhere). Trained layers often hold pre-activations below −13, where GELU's exact tail x·Φ(x) is a
/// subnormal float; every arithmetic operation on a subnormal takes a ~100-cycle microcode assist, which
/// made a step 3x slower. Flushed values are below 1.2e-38, far under any gradient's significance; the
/// registry's own accuracy contract (subnormal tail included) holds outside training, where MXCSR is
/// restored.
class FlushDenormals {
 public:
#if defined(__SSE2__)
  FlushDenormals() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | 0x8040u);
  }  // FTZ (bit 15) | DAZ (bit 6)
  ~FlushDenormals() {
    _mm_setcsr(saved_);
  }

 private:
  unsigned saved_;
#endif
};

}  // namespace

const char* to_string(OptimizerKind o) {
  return o == OptimizerKind::Sgd ? "sgd" : "adam";
}
const char* to_string(Schedule s) {
  switch (s) {
    case Schedule::Constant:
      return "constant";
    case Schedule::Step:
      return "step";
    case Schedule::Cosine:
      return "cosine";
  }
  return "constant";
}
std::optional<OptimizerKind> parse_optimizer(std::string_view s) {
  if (s == "sgd") return OptimizerKind::Sgd;
  if (s == "adam") return OptimizerKind::Adam;
  return std::nullopt;
}
std::optional<Schedule> parse_schedule(std::string_view s) {
  for (Schedule x : {Schedule::Constant, Schedule::Step, Schedule::Cosine})
    if (s == to_string(x)) return x;
  return std::nullopt;
}

LossKind default_loss(const Dataset& d, int outputs) {
  if (d.task == Task::Regression) return LossKind::Mse;
  return d.classes == 2 && outputs == 1 ? LossKind::Bce : LossKind::SoftmaxCe;
}

void validate(const TrainConfig& c, const Dataset& d, const NetworkSpec& spec) {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  if (!std::isfinite(c.lr) || c.lr <= 0) bad("the learning rate must be a finite number > 0");
  if (!(c.momentum >= 0 && c.momentum < 1)) bad("momentum must be in [0, 1)");
  if (!(c.beta1 >= 0 && c.beta1 < 1) || !(c.beta2 >= 0 && c.beta2 < 1)) bad("Adam's betas must be in [0, 1)");
  if (!(c.eps > 0 && std::isfinite(c.eps))) bad("Adam's epsilon must be a finite number > 0");
  if (!(c.weight_decay >= 0 && std::isfinite(c.weight_decay)))
    bad("weight decay must be a finite number >= 0");
  if (!(c.gamma > 0 && c.gamma <= 1)) bad("the step schedule's gamma must be in (0, 1]");
  if (c.batch < 1) bad("the batch size must be >= 1");
  if (c.steps < 0 || c.step_size < 0) bad("steps must be >= 0");
  if (spec.inputs != d.inputs)
    bad("dataset '" + d.id + "' has " + std::to_string(d.inputs) + " input(s) but the network takes " +
        std::to_string(spec.inputs));
  switch (c.loss) {
    case LossKind::Mse:
      if (spec.outputs != 1) bad("MSE needs one output unit");
      break;
    case LossKind::Bce:
      if (d.task != Task::Classification || d.classes != 2 || spec.outputs != 1)
        bad("binary cross-entropy needs 2-class data and one output unit");
      break;
    case LossKind::SoftmaxCe:
      if (d.task != Task::Classification || spec.outputs != d.classes)
        bad("softmax cross-entropy needs classification data and one output per class (" +
            std::to_string(std::max(d.classes, 2)) + ")");
      break;
  }
}

bool diverged(double loss, double start, double growth) {
  if (!std::isfinite(loss)) return true;
  return growth > 0 && std::isfinite(start) && start > 0 && loss > growth * start;
}

double learning_rate(const TrainConfig& c, int t) {
  switch (c.schedule) {
    case Schedule::Constant:
      return c.lr;
    case Schedule::Step: {
      const int size = c.step_size > 0 ? c.step_size : std::max(1, c.steps / 3);
      return c.lr * std::pow(c.gamma, t / size);
    }
    case Schedule::Cosine: {
      if (c.steps <= 0) return c.lr;
      const double f = std::min(1.0, static_cast<double>(t) / c.steps);
      return c.lr * 0.5 * (1.0 + std::cos(3.14159265358979323846 * f));
    }
  }
  return c.lr;
}

// [SECTION] Optimizers

template <class T>
void Optimizer<T>::step(Vec& p, const Vec& g, const TrainConfig& c, double lr) {
  ++t_;
  if (kind_ == OptimizerKind::Sgd) {
    m_.array() = static_cast<T>(c.momentum) * m_.array() + g.array();
    p.array() -= static_cast<T>(lr) * m_.array();
    return;
  }
  // PyTorch's Adam: θ -= lr/(1−β1ᵗ) · m / (√v/√(1−β2ᵗ) + ε). Eigen array expressions, so the square root is
  // vectorized (a scalar std::sqrt keeps its errno path and stops the loop from vectorizing).
  const T b1 = static_cast<T>(c.beta1), b2 = static_cast<T>(c.beta2);
  const double tt = static_cast<double>(t_);
  const T step_size = static_cast<T>(lr / (1.0 - std::pow(c.beta1, tt)));
  const T inv_sqrt_bc2 = static_cast<T>(1.0 / std::sqrt(1.0 - std::pow(c.beta2, tt)));
  const T eps = static_cast<T>(c.eps);
  auto ga = g.array();
  m_.array() = b1 * m_.array() + (1 - b1) * ga;
  v_.array() = b2 * v_.array() + (1 - b2) * ga.square();
  p.array() -= step_size * m_.array() / (v_.array().sqrt() * inv_sqrt_bc2 + eps);
}

// [SECTION] Trainer

template <class T>
typename Network<T>::Mat encode_targets(LossKind loss, const Eigen::RowVectorXd& y, int outputs) {
  using Mat = typename Network<T>::Mat;
  if (loss != LossKind::SoftmaxCe) return y.cast<T>();
  Mat t = Mat::Zero(outputs, y.size());
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    const int c = static_cast<int>(y(i));
    if (c < 0 || c >= outputs) throw std::invalid_argument("class label outside the output width");
    t(c, i) = T(1);
  }
  return t;
}

template <class T>
Trainer<T>::Trainer(Network<T>& net, const Dataset& data, TrainConfig config)
    : net_(net),
      data_(data),
      config_(config),
      opt_(config.optimizer, net.parameter_count()),
      rng_(config.seed) {
  validate(config_, data_, net_.spec());
  const int outputs = net_.spec().outputs;
  x_train_ = data_.x_train.cast<T>();
  x_test_ = data_.x_test.cast<T>();
  y_train_ = encode_targets<T>(config_.loss, data_.y_train, outputs);
  y_test_ = encode_targets<T>(config_.loss, data_.y_test, outputs);
  const int n = static_cast<int>(x_train_.cols());
  batch_ = std::min(config_.batch, n);
  order_.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = i;
  cursor_ = order_.size();  // shuffle before the first batch
  xb_.resize(x_train_.rows(), batch_);
  yb_.resize(y_train_.rows(), batch_);
  dlogits_.resize(outputs, batch_);
  grad_ = Vec::Zero(net_.parameters().size());
}

template <class T>
void Trainer<T>::next_batch() {
  // Epochs of a seeded Fisher-Yates permutation; a tail shorter than a batch starts the next epoch.
  if (cursor_ + static_cast<std::size_t>(batch_) > order_.size()) {
    for (std::size_t i = order_.size() - 1; i > 0; --i)
      std::swap(order_[i], order_[static_cast<std::size_t>(rng_.below(i + 1))]);
    cursor_ = 0;
  }
  for (int j = 0; j < batch_; ++j) {
    const int k = order_[cursor_ + static_cast<std::size_t>(j)];
    xb_.col(j) = x_train_.col(k);
    yb_.col(j) = y_train_.col(k);
  }
  cursor_ += static_cast<std::size_t>(batch_);
}

template <class T>
double Trainer<T>::step() {
  [[maybe_unused]] const FlushDenormals ftz;  // an empty guard where denormals cannot be flushed (wasm)
  next_batch();
  const Mat& logits = net_.forward(xb_, ws_, Mode::Train, &rng_);
  const T l = loss<T>(config_.loss, logits, yb_, &dlogits_);
  net_.backward(xb_, ws_, dlogits_, grad_);
  if (config_.weight_decay > 0)
    grad_.array() +=
        static_cast<T>(config_.weight_decay) * net_.decay_mask().array() * net_.parameters().array();
  opt_.step(net_.parameters(), grad_, config_, learning_rate(config_, step_));
  ++step_;
  return static_cast<double>(l);
}

template <class T>
Metrics Trainer<T>::evaluate() {
  [[maybe_unused]] const FlushDenormals ftz;
  Metrics m;
  const bool classify = data_.task == Task::Classification;
  {
    const Mat& z = net_.forward(x_train_, eval_ws_, Mode::Eval);
    m.train_loss = static_cast<double>(loss<T>(config_.loss, z, y_train_, nullptr));
    if (classify) m.train_accuracy = accuracy<T>(config_.loss, z, y_train_);
  }
  const Mat& z = net_.forward(x_test_, eval_ws_, Mode::Eval);
  m.test_loss = static_cast<double>(loss<T>(config_.loss, z, y_test_, nullptr));
  if (classify) m.test_accuracy = accuracy<T>(config_.loss, z, y_test_);
  return m;
}

template <class T>
std::vector<double> Trainer<T>::grad_norms() const {
  std::vector<double> norms(net_.blocks().size(), 0.0);
  for (const TensorInfo& t : net_.tensors()) {
    const double s = grad_.segment(static_cast<Eigen::Index>(t.offset), t.rows * t.cols)
                         .template cast<double>()
                         .squaredNorm();
    norms[static_cast<std::size_t>(t.block)] += s;
  }
  for (double& n : norms) n = std::sqrt(n);
  return norms;
}

template <class T>
std::vector<LayerStats> Trainer<T>::layer_stats(int bins) const {
  std::vector<LayerStats> out;
  if (ws_.blocks.empty()) return out;  // no step yet
  const std::vector<double> norms = grad_norms();
  bins = std::max(1, bins);
  for (int i = 0; i < net_.hidden_blocks(); ++i) {
    const auto& b = net_.blocks()[static_cast<std::size_t>(i)];
    const auto& w = ws_.blocks[static_cast<std::size_t>(i)];
    const bool glu = b.kind == Network<T>::Block::Glu;
    const Mat& values = glu ? w.h : w.a;
    LayerStats s;
    s.name = std::string("h").append(std::to_string(i));
    s.units = static_cast<int>(w.dz.rows());
    s.lo = static_cast<double>(values.minCoeff());
    s.hi = static_cast<double>(values.maxCoeff());
    s.histogram.assign(static_cast<std::size_t>(bins), 0);
    const double width = s.hi > s.lo ? (s.hi - s.lo) / bins : 1.0;
    for (Eigen::Index k = 0; k < values.size(); ++k) {
      const int bin = static_cast<int>((static_cast<double>(values.data()[k]) - s.lo) / width);
      ++s.histogram[static_cast<std::size_t>(std::clamp(bin, 0, bins - 1))];
    }
    int dead = 0;
    for (Eigen::Index r = 0; r < w.dz.rows(); ++r) dead += (w.dz.row(r).array() == T(0)).all() ? 1 : 0;
    s.dead_fraction = static_cast<double>(dead) / static_cast<double>(std::max<Eigen::Index>(1, w.dz.rows()));
    s.grad_norm = norms[static_cast<std::size_t>(i)];
    out.push_back(std::move(s));
  }
  return out;
}

template <class T>
typename Network<T>::Mat grid_inputs(const Dataset& data, int nx, int ny, GridOutput& g) {
  g.nx = std::max(2, nx);
  g.ny = data.inputs == 2 ? std::max(2, ny) : 1;
  for (int k = 0; k < 2; ++k) {
    g.lo[k] = data.lo[k];
    g.hi[k] = data.hi[k];
  }
  typename Network<T>::Mat x(data.inputs, g.nx * g.ny);
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      const int c = j * g.nx + i;
      x(0, c) = static_cast<T>(g.lo[0] + (g.hi[0] - g.lo[0]) * i / (g.nx - 1));
      if (data.inputs == 2) x(1, c) = static_cast<T>(g.lo[1] + (g.hi[1] - g.lo[1]) * j / (g.ny - 1));
    }
  return x;
}

template <class T>
void grid_values(const typename Network<T>::Mat& z, LossKind loss, GridOutput& g) {
  g.values.resize(static_cast<std::size_t>(z.cols()));
  g.confidence.clear();
  for (Eigen::Index c = 0; c < z.cols(); ++c) {
    const double v = static_cast<double>(z(0, c));
    switch (loss) {
      case LossKind::Mse:
        g.values[static_cast<std::size_t>(c)] = v;
        break;
      case LossKind::Bce:
        g.values[static_cast<std::size_t>(c)] = 1.0 / (1.0 + std::exp(-v));
        break;
      case LossKind::SoftmaxCe: {
        Eigen::Index arg = 0;
        const double m = static_cast<double>(z.col(c).maxCoeff(&arg));
        double se = 0;
        for (Eigen::Index r = 0; r < z.rows(); ++r) se += std::exp(static_cast<double>(z(r, c)) - m);
        g.values[static_cast<std::size_t>(c)] = static_cast<double>(arg);
        g.confidence.push_back(1.0 / se);
        break;
      }
    }
  }
}

template <class T>
GridOutput Trainer<T>::grid(int nx, int ny) {
  GridOutput g;
  const Mat x = grid_inputs<T>(data_, nx, ny, g);
  Workspace<T> ws;
  grid_values<T>(net_.forward(x, ws, Mode::Eval), config_.loss, g);
  return g;
}

int hidden_units(const Network<float>& net, int block) {
  if (block < 0 || block >= net.hidden_blocks()) return 0;
  const auto& b = net.blocks()[static_cast<std::size_t>(block)];
  return b.kind == Network<float>::Block::Glu ? b.hidden : b.out;
}

HiddenSpace hidden_space(const Network<float>& net, const Dataset& data, int block, int unit_x, int unit_y,
                         int lines, int points) {
  if (data.inputs != 2) throw std::invalid_argument("the hidden-space view needs a dataset with 2 inputs");
  if (block < 0 || block >= net.hidden_blocks())
    throw std::invalid_argument("no hidden layer " + std::to_string(block + 1) + " (the net has " +
                                std::to_string(net.hidden_blocks()) + ")");
  const int width = hidden_units(net, block);
  for (int u : {unit_x, unit_y})
    if (u < 0 || u >= width)
      throw std::invalid_argument("no unit " + std::to_string(u + 1) + " in hidden layer " +
                                  std::to_string(block + 1) + " (it has " + std::to_string(width) + ")");
  lines = std::max(2, lines);
  points = std::max(2, points);
  using Mat = Network<float>::Mat;
  // The grid lines, then the training points, in one batch.
  const Eigen::Index n_line = static_cast<Eigen::Index>(2 * lines) * points, n_pts = data.x_train.cols();
  Mat x(2, n_line + n_pts);
  for (int k = 0; k < 2 * lines; ++k) {
    const int dim = k < lines ? 0 : 1;  // the coordinate held constant
    const double c = data.lo[dim] + (data.hi[dim] - data.lo[dim]) * (k % lines) / (lines - 1);
    for (int i = 0; i < points; ++i) {
      const double t = data.lo[1 - dim] + (data.hi[1 - dim] - data.lo[1 - dim]) * i / (points - 1);
      const Eigen::Index col = static_cast<Eigen::Index>(k) * points + i;
      x(dim, col) = static_cast<float>(c);
      x(1 - dim, col) = static_cast<float>(t);
    }
  }
  for (Eigen::Index j = 0; j < n_pts; ++j) x.col(n_line + j) = data.x_train.col(j).cast<float>();
  Workspace<float> ws;
  net.forward(x, ws, Mode::Eval);
  const auto& b = ws.blocks[static_cast<std::size_t>(block)];
  const Mat& h = net.blocks()[static_cast<std::size_t>(block)].kind == Network<float>::Block::Glu ? b.h : b.a;
  HiddenSpace out;
  out.block = block;
  out.unit_x = unit_x;
  out.unit_y = unit_y;
  out.xs.resize(static_cast<std::size_t>(2 * lines));
  out.ys.resize(out.xs.size());
  for (int k = 0; k < 2 * lines; ++k)
    for (int i = 0; i < points; ++i) {
      const Eigen::Index col = static_cast<Eigen::Index>(k) * points + i;
      out.xs[static_cast<std::size_t>(k)].push_back(h(unit_x, col));
      out.ys[static_cast<std::size_t>(k)].push_back(h(unit_y, col));
    }
  for (Eigen::Index j = 0; j < n_pts; ++j) {
    out.px.push_back(h(unit_x, n_line + j));
    out.py.push_back(h(unit_y, n_line + j));
    out.label.push_back(static_cast<int>(data.y_train(j)));
  }
  return out;
}

namespace {

class CpuStepTrainer final : public StepTrainer {
 public:
  CpuStepTrainer(Network<float>& net, const Dataset& data, TrainConfig config) : t_(net, data, config) {}
  double step() override { return t_.step(); }
  int steps_done() const override { return t_.steps_done(); }
  Metrics evaluate() override { return t_.evaluate(); }
  std::vector<LayerStats> layer_stats(int bins) override { return t_.layer_stats(bins); }
  GridOutput grid(int nx, int ny) override { return t_.grid(nx, ny); }
  void download(Network<float>& net) override {
    if (&net != &t_.network()) net.parameters() = t_.network().parameters();
  }

 private:
  Trainer<float> t_;
};

}  // namespace

std::unique_ptr<StepTrainer> cpu_trainer(Network<float>& net, const Dataset& data, TrainConfig config) {
  return std::make_unique<CpuStepTrainer>(net, data, config);
}

template class Optimizer<float>;
template class Optimizer<double>;
template class Trainer<float>;
template class Trainer<double>;
template Network<float>::Mat grid_inputs<float>(const Dataset&, int, int, GridOutput&);
template Network<double>::Mat grid_inputs<double>(const Dataset&, int, int, GridOutput&);
template void grid_values<float>(const Network<float>::Mat&, LossKind, GridOutput&);
template void grid_values<double>(const Network<double>::Mat&, LossKind, GridOutput&);
template Network<float>::Mat encode_targets<float>(LossKind, const Eigen::RowVectorXd&, int);
template Network<double>::Mat encode_targets<double>(LossKind, const Eigen::RowVectorXd&, int);

}  // namespace gelu::ffn

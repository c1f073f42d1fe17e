// Index of this file:
//   [SECTION] Names
//   [SECTION] Spec
//   [SECTION] Network
//   [SECTION] Losses
#include "gelu/ffn/network.hpp"

#include <cmath>

#include "formulas.hpp"

namespace gelu::ffn {

// [SECTION] Names

const char* to_string(GluKind g) {
  switch (g) {
    case GluKind::None:
      return "none";
    case GluKind::GeGlu:
      return "geglu";
    case GluKind::SwiGlu:
      return "swiglu";
    case GluKind::ReGlu:
      return "reglu";
  }
  return "none";
}
const char* to_string(Init i) {
  switch (i) {
    case Init::He:
      return "he";
    case Init::Xavier:
      return "xavier";
    case Init::Zero:
      return "zero";
  }
  return "he";
}
const char* to_string(LossKind l) {
  switch (l) {
    case LossKind::Mse:
      return "mse";
    case LossKind::Bce:
      return "bce";
    case LossKind::SoftmaxCe:
      return "ce";
  }
  return "mse";
}
std::optional<GluKind> parse_glu(std::string_view s) {
  for (GluKind g : {GluKind::None, GluKind::GeGlu, GluKind::SwiGlu, GluKind::ReGlu})
    if (s == to_string(g)) return g;
  return std::nullopt;
}
std::optional<Init> parse_init(std::string_view s) {
  for (Init i : {Init::He, Init::Xavier, Init::Zero})
    if (s == to_string(i)) return i;
  return std::nullopt;
}
std::optional<LossKind> parse_loss(std::string_view s) {
  for (LossKind l : {LossKind::Mse, LossKind::Bce, LossKind::SoftmaxCe})
    if (s == to_string(l)) return l;
  return std::nullopt;
}
const char* glu_activation(GluKind g) {
  switch (g) {
    case GluKind::GeGlu:
      return "gelu";
    case GluKind::SwiGlu:
      return "silu";
    case GluKind::ReGlu:
      return "relu";
    case GluKind::None:
      break;
  }
  return "";
}
int default_glu_hidden(int d) {
  const int h = (8 * d + 2) / 3;  // ceil(8d/3)
  return (h + 7) / 8 * 8;
}

// [SECTION] Spec

bool NetworkSpec::operator==(const NetworkSpec& o) const {
  if (inputs != o.inputs || outputs != o.outputs || bias != o.bias || glu != o.glu ||
      stochastic != o.stochastic || hidden.size() != o.hidden.size())
    return false;
  for (std::size_t i = 0; i < hidden.size(); ++i) {
    const HiddenSpec &a = hidden[i], &b = o.hidden[i];
    if (a.width != b.width || a.activation != b.activation || !(a.params == b.params) ||
        a.glu_hidden != b.glu_hidden)
      return false;
  }
  return true;
}

NetworkSpec make_spec(std::span<const int> layers, std::string_view activation, GluKind glu, bool stochastic,
                      bool bias) {
  if (layers.size() < 3)
    throw SpecError("layers need an input size, 1 to " + std::to_string(kMaxHiddenLayers) +
                    " hidden widths and an output size (e.g. 2,32,32,1)");
  NetworkSpec s;
  s.inputs = layers.front();
  s.outputs = layers.back();
  s.bias = bias;
  s.glu = glu;
  s.stochastic = stochastic;
  const std::string act(glu == GluKind::None ? activation : std::string_view(glu_activation(glu)));
  const Activation* a = find_activation(act);
  if (!a) throw SpecError("unknown activation '" + act + "' (one of " + activation_ids() + ")");
  for (std::size_t i = 1; i + 1 < layers.size(); ++i) s.hidden.push_back({layers[i], act, a->defaults(), 0});
  validate(s);
  return s;
}

void validate(const NetworkSpec& s) {
  const int L = static_cast<int>(s.hidden.size());
  if (L < 1 || L > kMaxHiddenLayers)
    throw SpecError("a network has 1 to " + std::to_string(kMaxHiddenLayers) + " hidden layers, got " +
                    std::to_string(L));
  auto check_width = [](int w, const std::string& what) {
    if (w < 1 || w > kMaxWidth)
      throw SpecError(what + " must be in [1, " + std::to_string(kMaxWidth) + "], got " + std::to_string(w));
  };
  check_width(s.inputs, "the input size");
  check_width(s.outputs, "the output size");
  bool any_gelu = false;
  for (int i = 0; i < L; ++i) {
    const HiddenSpec& h = s.hidden[static_cast<std::size_t>(i)];
    check_width(h.width, "hidden layer " + std::to_string(i + 1) + "'s width");
    const Activation* a = find_activation(h.activation);
    if (!a) throw SpecError("unknown activation '" + h.activation + "' (one of " + activation_ids() + ")");
    for (std::size_t p = 0; p < a->params.size(); ++p) {
      const ParamSpec& ps = a->params[p];
      const double v = h.params[static_cast<int>(p)];
      if (!(v >= ps.min && v <= ps.max))
        throw SpecError(std::string(a->id) + " parameter " + ps.name + " must be in [" +
                        std::to_string(ps.min) + ", " + std::to_string(ps.max) + "]");
    }
    if (s.glu != GluKind::None) {
      if (h.glu_hidden != 0) check_width(h.glu_hidden, "GLU hidden width");
      if (h.glu_hidden == 0 && default_glu_hidden(h.width) > 4 * kMaxWidth)
        throw SpecError("GLU hidden width too large");
    }
    any_gelu = any_gelu || h.activation == "gelu";
  }
  if (s.stochastic && !any_gelu)
    throw SpecError(
        "stochastic mode samples GELU's gate: it needs a gelu activation (--act gelu or --glu geglu)");
}

// [SECTION] Network

template <class T>
void Network<T>::add_tensor(const std::string& name, int rows, int cols, bool weight, int block) {
  const std::size_t off =
      tensors_.empty()
          ? 0
          : tensors_.back().offset + static_cast<std::size_t>(tensors_.back().rows * tensors_.back().cols);
  tensors_.push_back({name, rows, cols, off, weight, block});
}

template <class T>
Network<T>::Network(NetworkSpec spec) : spec_(std::move(spec)) {
  validate(spec_);
  int in = spec_.inputs;
  const int L = hidden_blocks();
  for (int i = 0; i <= L; ++i) {
    Block b;
    b.t0 = static_cast<int>(tensors_.size());
    b.in = in;
    std::string p = "out";
    if (i < L)
      p = std::string("h").append(std::to_string(i));  // (not "h" + s: GCC 12 -Wrestrict false positive)
    if (i == L) {
      b.kind = Block::Output;
      b.out = spec_.outputs;
      add_tensor(p + ".W", b.out, in, true, i);
      if (spec_.bias) add_tensor(p + ".b", b.out, 1, false, i);
    } else {
      const HiddenSpec& h = spec_.hidden[static_cast<std::size_t>(i)];
      b.out = h.width;
      b.act = find_activation(h.activation);
      b.params = h.params;
      b.stochastic = spec_.stochastic && h.activation == "gelu";
      if (spec_.glu == GluKind::None) {
        b.kind = Block::Dense;
        add_tensor(p + ".W", b.out, in, true, i);
        if (spec_.bias) add_tensor(p + ".b", b.out, 1, false, i);
      } else {
        b.kind = Block::Glu;
        b.hidden = h.glu_hidden > 0 ? h.glu_hidden : default_glu_hidden(h.width);
        add_tensor(p + ".W_gate", b.hidden, in, true, i);
        if (spec_.bias) add_tensor(p + ".b_gate", b.hidden, 1, false, i);
        add_tensor(p + ".W_up", b.hidden, in, true, i);
        if (spec_.bias) add_tensor(p + ".b_up", b.hidden, 1, false, i);
        add_tensor(p + ".W_down", b.out, b.hidden, true, i);
        if (spec_.bias) add_tensor(p + ".b_down", b.out, 1, false, i);
      }
    }
    blocks_.push_back(b);
    in = b.out;
  }
  const std::size_t n =
      tensors_.back().offset + static_cast<std::size_t>(tensors_.back().rows * tensors_.back().cols);
  params_ = Vec::Zero(static_cast<Eigen::Index>(n));
  decay_mask_ = Vec::Zero(static_cast<Eigen::Index>(n));
  for (const TensorInfo& t : tensors_)
    if (t.weight) decay_mask_.segment(static_cast<Eigen::Index>(t.offset), t.rows * t.cols).setOnes();
}

template <class T>
void Network<T>::init(Init init, std::uint64_t seed) {
  Rng rng(seed);
  params_.setZero();
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    const TensorInfo& t = tensors_[i];
    if (!t.weight || init == Init::Zero) continue;
    const double fan_in = t.cols, fan_out = t.rows;
    MatMap w = tensor(i);
    // Column-major fill order, the same for every scalar type.
    for (int c = 0; c < t.cols; ++c)
      for (int r = 0; r < t.rows; ++r) {
        const double v = init == Init::He ? std::sqrt(2.0 / fan_in) * rng.normal()
                                          : std::sqrt(6.0 / (fan_in + fan_out)) * rng.uniform(-1.0, 1.0);
        w(r, c) = static_cast<T>(v);
      }
  }
}

template <class T>
void Workspace<T>::prepare(const Network<T>& net, int B) {
  if (batch == B && blocks.size() == net.blocks().size()) return;
  batch = B;
  blocks.assign(net.blocks().size(), Buffers{});
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = net.blocks()[i];
    Buffers& w = blocks[i];
    w.a.resize(b.out, B);
    w.da.resize(b.out, B);
    if (b.kind == Network<T>::Block::Dense) {
      w.z.resize(b.out, B);
      w.d.resize(b.out, B);
      w.dz.resize(b.out, B);
    } else if (b.kind == Network<T>::Block::Glu) {
      for (Mat* m : {&w.z, &w.d, &w.u, &w.g, &w.h, &w.dz, &w.du, &w.dh}) m->resize(b.hidden, B);
    }
  }
}

namespace {

template <class T>
std::span<const T> cspan(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& m) {
  return {m.data(), static_cast<std::size_t>(m.size())};
}
template <class T>
std::span<T> mspan(Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& m) {
  return {m.data(), static_cast<std::size_t>(m.size())};
}

/// Stochastic GELU in training: m = [u < Φ(z)], a = z·m, d = m.
template <class T>
void stochastic_gate(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& z,
                     Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& a,
                     Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& d, Rng& rng) {
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const double p = formulas::normal_cdf(static_cast<double>(z.data()[i]));
    const T m = rng.uniform() < p ? T(1) : T(0);
    d.data()[i] = m;
    a.data()[i] = z.data()[i] * m;
  }
}

}  // namespace

template <class T>
const typename Network<T>::Mat& Network<T>::forward(const Eigen::Ref<const Mat>& X, Workspace<T>& ws,
                                                    Mode mode, Rng* rng) const {
  if (X.rows() != spec_.inputs) throw std::invalid_argument("forward: input has the wrong number of rows");
  const int B = static_cast<int>(X.cols());
  ws.prepare(*this, B);
  const bool train = mode == Mode::Train;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    const Block& b = blocks_[i];
    auto& w = ws.blocks[i];
    const int t = b.t0;
    auto affine = [&](Mat& out, int tw, const auto& in) {
      out.noalias() = tensor(static_cast<std::size_t>(tw)) * in;
      if (spec_.bias) out.colwise() += tensor(static_cast<std::size_t>(tw + 1)).col(0);
    };
    auto run = [&](const auto& in) {
      const int stride = spec_.bias ? 2 : 1;
      switch (b.kind) {
        case Block::Output:
          affine(w.a, t, in);
          break;
        case Block::Dense:
          affine(w.z, t, in);
          if (b.stochastic && train) {
            if (!rng) throw std::invalid_argument("forward: stochastic training needs an Rng");
            stochastic_gate(w.z, w.a, w.d, *rng);
          } else {
            b.act->eval(cspan(w.z), mspan(w.a), 0, &b.params);
            if (train) b.act->eval(cspan(w.z), mspan(w.d), 1, &b.params);
          }
          break;
        case Block::Glu:
          affine(w.z, t, in);
          affine(w.u, t + stride, in);
          if (b.stochastic && train) {
            if (!rng) throw std::invalid_argument("forward: stochastic training needs an Rng");
            stochastic_gate(w.z, w.g, w.d, *rng);
          } else {
            b.act->eval(cspan(w.z), mspan(w.g), 0, &b.params);
            if (train) b.act->eval(cspan(w.z), mspan(w.d), 1, &b.params);
          }
          w.h = w.g.cwiseProduct(w.u);
          affine(w.a, t + 2 * stride, w.h);
          break;
      }
    };
    if (i == 0)
      run(X);
    else
      run(ws.blocks[i - 1].a);
  }
  return ws.blocks.back().a;
}

template <class T>
void Network<T>::backward(const Eigen::Ref<const Mat>& X, Workspace<T>& ws, const Mat& dout,
                          Vec& grad) const {
  if (grad.size() != params_.size()) grad.resize(params_.size());
  const int stride = spec_.bias ? 2 : 1;
  auto gmap = [&](int ti) {
    const TensorInfo& ti_ = tensors_[static_cast<std::size_t>(ti)];
    return MatMap(grad.data() + ti_.offset, ti_.rows, ti_.cols);
  };
  // dW = dZ·inᵀ, db = Σ_batch dZ.
  auto param_grads = [&](int tw, const Mat& dz, const auto& in) {
    gmap(tw).noalias() = dz * in.transpose();
    if (spec_.bias) gmap(tw + 1).col(0).noalias() = dz.rowwise().sum();
  };
  for (int i = static_cast<int>(blocks_.size()) - 1; i >= 0; --i) {
    const Block& b = blocks_[static_cast<std::size_t>(i)];
    auto& w = ws.blocks[static_cast<std::size_t>(i)];
    const Mat& da = b.kind == Block::Output ? dout : w.da;
    Mat* da_prev = i > 0 ? &ws.blocks[static_cast<std::size_t>(i - 1)].da : nullptr;
    auto run = [&](const auto& in) {
      const int t = b.t0;
      switch (b.kind) {
        case Block::Output:
          param_grads(t, da, in);
          if (da_prev) da_prev->noalias() = tensor(static_cast<std::size_t>(t)).transpose() * da;
          break;
        case Block::Dense:
          w.dz = da.cwiseProduct(w.d);
          param_grads(t, w.dz, in);
          if (da_prev) da_prev->noalias() = tensor(static_cast<std::size_t>(t)).transpose() * w.dz;
          break;
        case Block::Glu: {
          const int td = t + 2 * stride, tu = t + stride;
          param_grads(td, da, w.h);
          w.dh.noalias() = tensor(static_cast<std::size_t>(td)).transpose() * da;
          w.du = w.dh.cwiseProduct(w.g);
          w.dz = w.dh.cwiseProduct(w.u).cwiseProduct(w.d);
          param_grads(tu, w.du, in);
          param_grads(t, w.dz, in);
          if (da_prev) {
            da_prev->noalias() = tensor(static_cast<std::size_t>(t)).transpose() * w.dz;
            da_prev->noalias() += tensor(static_cast<std::size_t>(tu)).transpose() * w.du;
          }
          break;
        }
      }
    };
    if (i == 0)
      run(X);
    else
      run(ws.blocks[static_cast<std::size_t>(i - 1)].a);
  }
}

// [SECTION] Losses

template <class T>
T loss(LossKind kind, const Eigen::Ref<const typename Network<T>::Mat>& z,
       const Eigen::Ref<const typename Network<T>::Mat>& t, typename Network<T>::Mat* dz) {
  if (z.rows() != t.rows() || z.cols() != t.cols())
    throw std::invalid_argument("loss: logits and targets differ in shape");
  const Eigen::Index B = z.cols();
  const T inv_b = T(1) / static_cast<T>(B);
  if (dz) dz->resize(z.rows(), B);
  T sum = 0;
  switch (kind) {
    case LossKind::Mse:
      for (Eigen::Index c = 0; c < B; ++c)
        for (Eigen::Index r = 0; r < z.rows(); ++r) {
          const T e = z(r, c) - t(r, c);
          sum += e * e;
          if (dz) (*dz)(r, c) = T(2) * e * inv_b;
        }
      break;
    case LossKind::Bce: {
      // Vectorized over the batch, no temporaries: softplus(z) − z·t = max(z,0) − z·t + log1p(e^−|z|), and
      // σ(z) = 1/(1 + e^−z), where e^−z overflowing to +inf gives the right limit 0.
      const auto za = z.array();
      const auto ta = t.array();
      sum = (za.max(T(0)) - za * ta + (-za.abs()).exp().log1p()).sum();
      if (dz) dz->array() = (T(1) / (T(1) + (-za).exp()) - ta) * inv_b;
      break;
    }
    case LossKind::SoftmaxCe:
      for (Eigen::Index c = 0; c < B; ++c) {
        const T m = z.col(c).maxCoeff();
        T se = 0;
        for (Eigen::Index r = 0; r < z.rows(); ++r) se += std::exp(z(r, c) - m);
        const T lse = m + std::log(se);
        for (Eigen::Index r = 0; r < z.rows(); ++r) {
          sum += t(r, c) * (lse - z(r, c));
          if (dz) (*dz)(r, c) = (std::exp(z(r, c) - lse) * t.col(c).sum() - t(r, c)) * inv_b;
        }
      }
      break;
  }
  return sum * inv_b;
}

template <class T>
double accuracy(LossKind kind, const Eigen::Ref<const typename Network<T>::Mat>& z,
                const Eigen::Ref<const typename Network<T>::Mat>& t) {
  const Eigen::Index B = z.cols();
  if (B == 0) return 0.0;
  Eigen::Index right = 0, total = 0;
  if (kind == LossKind::SoftmaxCe) {
    for (Eigen::Index c = 0; c < B; ++c) {
      Eigen::Index iz = 0, it = 0;
      z.col(c).maxCoeff(&iz);
      t.col(c).maxCoeff(&it);
      right += iz == it;
    }
    total = B;
  } else {
    const T threshold = kind == LossKind::Bce ? T(0) : T(0.5);
    for (Eigen::Index c = 0; c < B; ++c)
      for (Eigen::Index r = 0; r < z.rows(); ++r) right += (z(r, c) > threshold) == (t(r, c) > T(0.5));
    total = B * z.rows();
  }
  return static_cast<double>(right) / static_cast<double>(total);
}

template class Network<float>;
template class Network<double>;
template class Workspace<float>;
template class Workspace<double>;
template float loss<float>(LossKind, const Eigen::Ref<const Network<float>::Mat>&,
                           const Eigen::Ref<const Network<float>::Mat>&, Network<float>::Mat*);
template double loss<double>(LossKind, const Eigen::Ref<const Network<double>::Mat>&,
                             const Eigen::Ref<const Network<double>::Mat>&, Network<double>::Mat*);
template double accuracy<float>(LossKind, const Eigen::Ref<const Network<float>::Mat>&,
                                const Eigen::Ref<const Network<float>::Mat>&);
template double accuracy<double>(LossKind, const Eigen::Ref<const Network<double>::Mat>&,
                                 const Eigen::Ref<const Network<double>::Mat>&);

}  // namespace gelu::ffn

// [SECTION] Tiny feed-forward networks: MLP and GLU blocks with hand-written forward and backward (Eigen).
//
// Layout: activations are column-major (features x batch), weights are (out x in), and all parameters of
// a network live in one contiguous vector (so an optimizer step is one vectorized loop and a model file is
// one list). Hidden activations come from the registry by id and run through its batched kernels on
// contiguous buffers; the float instantiation is the fast one, double is for gradient checks.
//
// Stochastic GELU (Hendrycks & Gimpel's interpretation): in training a hidden unit outputs x·m with
// m ~ Bernoulli(Φ(x)); at evaluation it outputs E[x·m] = x·Φ(x) = GELU(x). The backward pass treats the
// sampled mask as a constant: d(x·m)/dx = m. This is the straight-through choice that makes the layer a
// random linear gate; it ignores dΦ/dx, whose contribution exists only in expectation.
#pragma once

// GCC 12 reports false -Wmaybe-uninitialized inside avx512fintrin.h for Eigen's AVX-512 packets
// (GCC bug 105593); the pragma must be active where the packets are inlined, i.e. in every includer.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/ffn/rng.hpp"

namespace gelu::ffn {

inline constexpr int kMaxHiddenLayers = 8;
inline constexpr int kMaxWidth = 512;

enum class GluKind { None, GeGlu, SwiGlu, ReGlu };
enum class Init { He, Xavier, Zero };
enum class LossKind { Mse, Bce, SoftmaxCe };
enum class Mode { Eval, Train };

const char* to_string(GluKind g);   // "none", "geglu", "swiglu", "reglu"
const char* to_string(Init i);      // "he", "xavier", "zero"
const char* to_string(LossKind l);  // "mse", "bce", "ce"
std::optional<GluKind> parse_glu(std::string_view s);
std::optional<Init> parse_init(std::string_view s);
std::optional<LossKind> parse_loss(std::string_view s);
/// Registry id of a GLU variant's gate activation: GeGLU "gelu", SwiGLU "silu", ReGLU "relu".
const char* glu_activation(GluKind g);
/// ⌈8/3·d⌉ rounded up to a multiple of 8 (the LLaMA convention for a parameter count matching a 4d MLP).
int default_glu_hidden(int d);

struct SpecError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct HiddenSpec {
  int width = 32;
  std::string activation = "gelu";  // registry id (for GLU blocks: the gate activation)
  Params params{};                  // activation parameters in registry order
  int glu_hidden = 0;               // GLU blocks: inner width; 0 = default_glu_hidden(width)
};

/// inputs -> hidden blocks -> linear output layer. A hidden block is Dense (W·x + b, activation) or, with
/// glu != None, a GLU block W_down·(act(W_gate·x + b_gate) ⊙ (W_up·x + b_up)) + b_down (no activation after).
struct NetworkSpec {
  int inputs = 2;
  int outputs = 1;
  std::vector<HiddenSpec> hidden;
  bool bias = true;
  GluKind glu = GluKind::None;
  bool stochastic = false;  // stochastic GELU for every hidden activation whose id is "gelu"
  bool operator==(const NetworkSpec&) const;
};

/// A spec from sizes "in, h1, ..., hL, out" with one activation (default parameters) for every hidden
/// block; for GLU the activation is the variant's own. Throws SpecError (see validate).
NetworkSpec make_spec(std::span<const int> layers, std::string_view activation, GluKind glu = GluKind::None,
                      bool stochastic = false, bool bias = true);
/// Throws SpecError naming the first problem: 1..8 hidden blocks, widths 1..512, unknown activation,
/// parameter outside its registry range, stochastic without a gelu activation.
void validate(const NetworkSpec& spec);

struct TensorInfo {
  std::string name;  // "h0.W", "h1.b_gate", "out.W"
  int rows = 0, cols = 0;
  std::size_t offset = 0;  // into the flat parameter vector
  bool weight = true;      // false for biases (no weight decay)
  int block = 0;
};

template <class T>
class Workspace;

template <class T>
class Network {
 public:
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  using MatMap = Eigen::Map<Mat>;
  using ConstMatMap = Eigen::Map<const Mat>;

  /// Validates the spec; parameters start at zero (call init).
  explicit Network(NetworkSpec spec);

  /// Seeded initialization of the weights (biases zero): He N(0, 2/fan_in), Xavier U(±√(6/(fan_in+fan_out))),
  /// or zero. Drawn in double from Rng, so float and double networks with one seed hold the same numbers.
  void init(Init init, std::uint64_t seed);

  const NetworkSpec& spec() const { return spec_; }
  std::span<const TensorInfo> tensors() const { return tensors_; }
  std::size_t parameter_count() const { return static_cast<std::size_t>(params_.size()); }
  Vec& parameters() { return params_; }
  const Vec& parameters() const { return params_; }
  MatMap tensor(std::size_t i) {
    return {params_.data() + tensors_[i].offset, tensors_[i].rows, tensors_[i].cols};
  }
  ConstMatMap tensor(std::size_t i) const {
    return {params_.data() + tensors_[i].offset, tensors_[i].rows, tensors_[i].cols};
  }
  /// 1 for weights, 0 for biases (weight decay applies to weights only).
  const Vec& decay_mask() const { return decay_mask_; }
  int hidden_blocks() const { return static_cast<int>(spec_.hidden.size()); }

  /// Runs X (inputs x B) through the network; returns the output logits (outputs x B), owned by ws.
  /// Mode::Train also stores f'(z) (or the stochastic masks, drawn from rng) for backward.
  const Mat& forward(const Eigen::Ref<const Mat>& X, Workspace<T>& ws, Mode mode, Rng* rng = nullptr) const;
  /// After forward(X, ws, Mode::Train): dout = dL/dlogits (outputs x B) -> grad = dL/dθ (overwritten).
  void backward(const Eigen::Ref<const Mat>& X, Workspace<T>& ws, const Mat& dout, Vec& grad) const;

  struct Block {
    enum Kind { Dense, Glu, Output } kind = Dense;
    int in = 0, out = 0, hidden = 0;  // hidden: GLU inner width
    const Activation* act = nullptr;
    Params params{};
    bool stochastic = false;
    int t0 = 0;  // index of the block's first tensor (W, [b]) or (W_gate, [b_gate], W_up, [b_up], W_down,
                 // [b_down])
  };
  std::span<const Block> blocks() const { return blocks_; }

 private:
  NetworkSpec spec_;
  std::vector<TensorInfo> tensors_;
  std::vector<Block> blocks_;
  Vec params_;
  Vec decay_mask_;
  void add_tensor(const std::string& name, int rows, int cols, bool weight, int block);
};

/// Per-block buffers of one batch size: reused across steps, so training does not allocate.
template <class T>
class Workspace {
 public:
  using Mat = typename Network<T>::Mat;
  struct Buffers {
    Mat z;   // Dense: pre-activation; GLU: gate pre-activation; Output: unused
    Mat a;   // block output (Dense: activation; GLU: W_down·h + b; Output: logits)
    Mat d;   // Dense/GLU gate: f'(z) or the stochastic mask (Train only)
    Mat u;   // GLU: up projection
    Mat g;   // GLU: act(gate)
    Mat h;   // GLU: act(gate) ⊙ up
    Mat da;  // dL/d(block output)
    Mat dz;  // dL/d(pre-activation) (GLU: of the gate)
    Mat du;  // GLU: dL/d(up)
    Mat dh;  // GLU: dL/dh
  };
  std::vector<Buffers> blocks;
  int batch = -1;
  /// Sizes the buffers for `net` and batch B (no-op when already sized).
  void prepare(const Network<T>& net, int B);
};

// [SECTION] Losses (mean over the batch)

/// Targets are outputs x B: values (MSE), 0/1 per output (BCE on logits), one-hot or probabilities (softmax
/// CE). BCE uses max(z,0) − z·t + log1p(e^−|z|), stable for any logit. Writes dL/dlogits when dlogits !=
/// nullptr.
template <class T>
T loss(LossKind kind, const Eigen::Ref<const typename Network<T>::Mat>& logits,
       const Eigen::Ref<const typename Network<T>::Mat>& targets, typename Network<T>::Mat* dlogits);

/// Fraction of columns classified right: BCE z > 0 vs t > 0.5 (per output), CE argmax vs argmax,
/// MSE (2-class data) z > 0.5 vs t > 0.5.
template <class T>
double accuracy(LossKind kind, const Eigen::Ref<const typename Network<T>::Mat>& logits,
                const Eigen::Ref<const typename Network<T>::Mat>& targets);

/// Copies parameters across scalar types (e.g. a double network from a float one for a gradient check).
template <class To, class From>
Network<To> network_cast(const Network<From>& n) {
  Network<To> r(n.spec());
  r.parameters() = n.parameters().template cast<To>();
  return r;
}

extern template class Network<float>;
extern template class Network<double>;
extern template class Workspace<float>;
extern template class Workspace<double>;

}  // namespace gelu::ffn

// [SECTION] The activation registry: one entry per function, built from formulas.hpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "formulas.hpp"
#include "gelu/activation.hpp"
#include "gelu/bounded_reference.hpp"
#include "gelu/format.hpp"
#include "gelu/kernels.hpp"
#include "parallel.hpp"
#include "simd/simd_fast.hpp"
#include "simd/simd_gelu.hpp"
#include "simd/simd_sigmoid.hpp"

namespace gelu {
namespace {

namespace F = formulas;

// Adapters from the formula signatures (x[, p0]) to the registry's (x, Params).
template <double (*Fn)(double)>
double p0(double x, const Params&) {
  return Fn(x);
}
template <double (*Fn)(double, double)>
double p1(double x, const Params& p) {
  return Fn(x, p[0]);
}

// The float scalar path is the double reference rounded once: <= 1 ULP wherever double is accurate.
template <ScalarF64 Fn>
float f32_of(float x, const Params& p) {
  return static_cast<float>(Fn(static_cast<double>(x), p));
}
template <ScalarF64 Fn>
void batch_f64_of(const double* x, double* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = Fn(x[i], p);
}
template <ScalarF64 Fn>
void batch_f32_of(const float* x, float* y, std::size_t n, const Params& p) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(Fn(static_cast<double>(x[i]), p));
}

template <ScalarF64 D0, ScalarF64 D1, ScalarF64 D2>
Activation make(const char* id, const char* name, const char* formula, const char* description,
                const char* glsl_name, std::vector<ParamSpec> params) {
  return Activation{id,
                    name,
                    formula,
                    description,
                    glsl_name,
                    std::move(params),
                    {D0, D1, D2},
                    {f32_of<D0>, f32_of<D1>, f32_of<D2>},
                    {batch_f64_of<D0>, batch_f64_of<D1>, batch_f64_of<D2>},
                    {batch_f32_of<D0>, batch_f32_of<D1>, batch_f32_of<D2>},
                    {batch_f32_of<D0>, batch_f32_of<D1>, batch_f32_of<D2>},
                    nullptr};
}

// Sets the float batched kernels of f and f' for both paths, and the fused backward pass.
void set_kernels(Activation& a, BatchF32 fast_f, BatchF32 fast_d1, BatchF32 accurate_f, BatchF32 accurate_d1,
                 BatchGradF32 backward) {
  a.batch_f32[0] = fast_f;
  a.batch_f32[1] = fast_d1;
  a.batch_f32_accurate[0] = accurate_f;
  a.batch_f32_accurate[1] = accurate_d1;
  a.batch_backward_f32 = backward;
}

void gelu_backward(const float* x, const float* dy, float* dx, std::size_t n, const Params&) {
  simd::gelu_backward_f32(x, dy, dx, n);
}

/// The entry's accuracy bounds for f, f', f'' ({f64 ULP, f32 ULP, |err| near a root, subnormal steps},
/// measured on the mpmath tables; GELU_ACCURACY_REPORT=1 core_tests prints them) and whether it is featured.
void contract(Activation& a, bool featured, std::array<Accuracy, 3> accuracy) {
  a.featured = featured;
  a.accuracy = accuracy;
}

std::vector<Activation> build_registry() {
  std::vector<Activation> r;
  r.push_back(make<p0<F::gelu>, p0<F::gelu_d1>, p0<F::gelu_d2>>(
      "gelu", "GELU (exact)", "x·Φ(x) = ½·x·erfc(−x/√2)",
      "Gaussian Error Linear Unit: the input weighted by the probability that a standard normal is below it.",
      "act_gelu", {}));
  contract(r.back(), true,
           {{{1, 0, 5.2939559203393771e-23, 1},
             {1, 0, 3.4694469519536142e-18, 0},
             {1, 0, 1.5908337540619828e-20, 0}}});
  // The vectorized kernels replace the float batched path of exact GELU (f and f'), on both paths.
  set_kernels(r.back(), simd::gelu_f32, simd::gelu_d1_f32, simd::gelu_f32, simd::gelu_d1_f32, gelu_backward);

  r.push_back(make<p1<F::gelu_tanh>, p1<F::gelu_tanh_d1>, p1<F::gelu_tanh_d2>>(
      "gelu_tanh", "GELU (tanh approximation)", "½·x·(1 + tanh(√(2/π)·(x + c·x³)))",
      "The tanh approximation of GELU used by BERT and GPT-2; c = 0.044715.", "act_gelu_tanh",
      {{"c", 0.044715, 0.0, 0.1, "cubic coefficient inside tanh"}}));
  contract(r.back(), true,
           {{{2, 0, 2.7755575615628914e-17, 0},
             {21, 0, 1.1102230246251565e-16, 1017},
             {16639, 0, 3.3306690738754696e-16, 102622}}});
  set_kernels(r.back(), simd::gelu_tanh_fast_f32, simd::gelu_tanh_d1_fast_f32, simd::gelu_tanh_f32,
              simd::gelu_tanh_d1_f32, simd::gelu_tanh_backward_f32);
  r.push_back(make<p1<F::x_sigmoid>, p1<F::x_sigmoid_d1>, p1<F::x_sigmoid_d2>>(
      "gelu_sigmoid", "GELU (sigmoid / QuickGELU)", "x·σ(k·x)",
      "The sigmoid approximation of GELU (QuickGELU, used by CLIP); k = 1.702.", "act_x_sigmoid",
      {{"k", 1.702, 0.1, 10.0, "slope inside the sigmoid"}}));
  contract(r.back(), false,
           {{{2, 0, 2.7755575615628914e-17, 0},
             {12, 0, 6.9388939039072284e-17, 0},
             {49, 0, 2.2204460492503131e-16, 685}}});
  set_kernels(r.back(), simd::x_sigmoid_fast_f32, simd::x_sigmoid_d1_fast_f32, simd::x_sigmoid_f32,
              simd::x_sigmoid_d1_f32, simd::x_sigmoid_backward_f32);
  r.push_back(make<p0<F::relu>, p0<F::relu_d1>, p0<F::zero_d2>>(
      "relu", "ReLU", "max(x, 0)", "Rectified linear unit; f'(0) is taken as 0.", "act_relu", {}));
  contract(r.back(), true, {{}});
  r.push_back(make<p1<F::leaky_relu>, p1<F::leaky_relu_d1>, p0<F::zero_d2>>(
      "leaky_relu", "Leaky ReLU", "x if x > 0, else α·x", "ReLU with a small slope α for negative inputs.",
      "act_leaky_relu", {{"alpha", 0.01, 0.0, 1.0, "slope for x < 0"}}));
  contract(r.back(), false, {{}});
  r.push_back(make<p1<F::elu>, p1<F::elu_d1>, p1<F::elu_d2>>(
      "elu", "ELU", "x if x > 0, else α·(eˣ − 1)", "Exponential linear unit.", "act_elu",
      {{"alpha", 1.0, 0.0, 10.0, "saturation value -α for x -> -inf"}}));
  contract(r.back(), false, {{{1, 0, 1.1102230246251565e-16, 0}, {}, {}}});
  set_kernels(r.back(), simd::elu_f32, simd::elu_d1_f32, simd::elu_f32, simd::elu_d1_f32, nullptr);
  r.push_back(make<p0<F::selu>, p0<F::selu_d1>, p0<F::selu_d2>>(
      "selu", "SELU", "λ·x if x > 0, else λ·α·(eˣ − 1)",
      "Scaled ELU (self-normalizing networks); λ ≈ 1.0507, α ≈ 1.6733 as in the paper.", "act_selu", {}));
  contract(r.back(), false, {{{1, 0, 2.2204460492503131e-16, 0}, {2, 0, 0, 0}, {2, 0, 0, 0}}});
  r.push_back(make<p1<F::x_sigmoid>, p1<F::x_sigmoid_d1>, p1<F::x_sigmoid_d2>>(
      "silu", "SiLU / Swish", "x·σ(β·x)", "Sigmoid-weighted linear unit (Swish with β; SiLU is β = 1).",
      "act_x_sigmoid", {{"beta", 1.0, 0.1, 10.0, "slope inside the sigmoid"}}));
  contract(r.back(), true,
           {{{1, 0, 5.5511151231257827e-17, 0},
             {14, 0, 5.5511151231257827e-17, 0},
             {64, 0, 1.1102230246251565e-16, 0}}});
  set_kernels(r.back(), simd::x_sigmoid_fast_f32, simd::x_sigmoid_d1_fast_f32, simd::x_sigmoid_f32,
              simd::x_sigmoid_d1_f32, simd::x_sigmoid_backward_f32);
  r.push_back(make<p1<F::softplus>, p1<F::softplus_d1>, p1<F::softplus_d2>>(
      "softplus", "Softplus", "log(1 + e^(β·x)) / β", "A smooth ReLU; sharper as β grows.", "act_softplus",
      {{"beta", 1.0, 0.1, 10.0, "sharpness"}}));
  contract(r.back(), false, {{{1, 0, 0, 0}, {2, 0, 0, 0}, {3, 0, 0, 0}}});
  set_kernels(r.back(), simd::softplus_f32, simd::softplus_d1_f32, simd::softplus_f32, simd::softplus_d1_f32,
              nullptr);
  r.push_back(make<p0<F::mish>, p0<F::mish_d1>, p0<F::mish_d2>>(
      "mish", "Mish", "x·tanh(softplus(x))", "Self-regularized non-monotonic activation (Misra 2019).",
      "act_mish", {}));
  contract(r.back(), false,
           {{{3, 0, 5.5511151231257827e-17, 0},
             {26, 0, 8.8904578143811364e-17, 0},
             {12, 0, 2.2204460492503131e-16, 491}}});
  set_kernels(r.back(), simd::mish_f32, simd::mish_d1_f32, simd::mish_f32, simd::mish_d1_f32, nullptr);
  return r;
}

}  // namespace

Params Activation::defaults() const {
  Params p;
  for (std::size_t i = 0; i < params.size() && i < kMaxParams; ++i) p.v[i] = params[i].default_value;
  return p;
}

int Activation::param_index(std::string_view param_name) const {
  for (std::size_t i = 0; i < params.size(); ++i)
    if (param_name == params[i].name) return static_cast<int>(i);
  return -1;
}

namespace {
void check_order(int order) {
  if (order < 0 || order > kMaxOrder) throw std::out_of_range("derivative order must be 0, 1 or 2");
}
}  // namespace

double Activation::eval(double x, int order, const Params* p) const {
  check_order(order);
  const Params d = p ? *p : defaults();
  return f64[static_cast<std::size_t>(order)](x, d);
}
float Activation::eval(float x, int order, const Params* p) const {
  check_order(order);
  // GELU's negative side without the x87 path where the double-only value decides (correctly_rounded).
  if (order == 0 && x < 0 && x >= -37 && id == std::string_view("gelu"))
    return static_cast<float>(correctly_rounded(*this, Format(FormatId::F32), x));
  const Params d = p ? *p : defaults();
  const float y = f32[static_cast<std::size_t>(order)](x, d);
  // A subnormal or zero result may be a double rounded at a tie: the tie rule (correctly_rounded) decides.
  if (std::fabs(y) < std::numeric_limits<float>::min()) {
    const double r = f64[static_cast<std::size_t>(order)](x, d);
    if (exact_side(*this, x, r, order) != 0)
      return static_cast<float>(correctly_rounded(*this, Format(FormatId::F32), x, r, order));
  }
  return y;
}
void Activation::eval(std::span<const float> x, std::span<float> y, int order, const Params* p,
                      Path path) const {
  check_order(order);
  if (y.size() < x.size()) throw std::invalid_argument("output span shorter than input");
  const Params d = p ? *p : defaults();
  const BatchF32 k = (path == Path::Fast ? batch_f32 : batch_f32_accurate)[static_cast<std::size_t>(order)];
  if (x.size() < detail::kParallelMinFloat || thread_count() == 1) return k(x.data(), y.data(), x.size(), d);
  parallel_for(x.size(), detail::kParallelMinFloat / 2,
               [&](std::size_t b, std::size_t e) { k(x.data() + b, y.data() + b, e - b, d); });
}
void Activation::eval(std::span<const double> x, std::span<double> y, int order, const Params* p) const {
  check_order(order);
  if (y.size() < x.size()) throw std::invalid_argument("output span shorter than input");
  const Params d = p ? *p : defaults();
  const BatchF64 k = batch_f64[static_cast<std::size_t>(order)];
  if (x.size() < detail::kParallelMinDouble || thread_count() == 1) return k(x.data(), y.data(), x.size(), d);
  parallel_for(x.size(), detail::kParallelMinDouble / 2,
               [&](std::size_t b, std::size_t e) { k(x.data() + b, y.data() + b, e - b, d); });
}

std::span<const Activation> registry() {
  static const std::vector<Activation> r = build_registry();
  return r;
}

const Activation* find_activation(std::string_view id) {
  for (const Activation& a : registry())
    if (id == a.id) return &a;
  return nullptr;
}

std::string activation_ids() {
  std::string s;
  for (const Activation& a : registry()) {
    if (!s.empty()) s += ", ";
    s += a.id;
  }
  return s;
}

int exact_side(const Activation& fn, double x, double d, int order) {
  const std::string_view id = fn.id;
  if (order == 0 && (id == "gelu" || id == "gelu_tanh") && x != 0 && std::fabs(x) < 1 && d == x * 0.5)
    return 1;
  return 0;
}

double correctly_rounded(const Activation& fn, const Format& fmt, double x, double d, int order) {
  return fmt.round_beside(d, exact_side(fn, x, d, order));
}

double correctly_rounded(const Activation& fn, const Format& fmt, double x, int order, const Params* p) {
  // GELU's negative side: the double-only value decides wherever its error interval lies in one rounding
  // cell of fmt (rounding is monotone, so both ends rounding alike settle every value between); the rest
  // — about 2^-15 of the inputs, and every midpoint — take the x87 path. Found 4x faster for check's f32.
  if (order == 0 && x < 0 && x >= -37 && fmt.id() != FormatId::F64 && fn.id == std::string_view("gelu")) {
    const double d = F::gelu_negative_fast(x);
    const double r = fmt.round(d * (1 + F::kGeluFastRelError));
    if (r == fmt.round(d * (1 - F::kGeluFastRelError))) return r;
  }
  return correctly_rounded(fn, fmt, x, fn.eval(x, order, p), order);
}

double eval_bounded(const Activation& fn, std::span<const double> x, std::span<double> y, const Params* p) {
  if (y.size() < x.size()) throw std::invalid_argument("output span shorter than input");
  const std::string_view id = fn.id;
  const Params q = p ? *p : fn.defaults();
  // GELU (no parameters): for |x| <= 20 one double erfc (formulas::gelu_erfc_fast) instead of the x87 erfcl
  // and the double-double tail; beyond (and at 0) formulas::gelu itself. gelu_tanh (c >= 0), gelu_sigmoid
  // and silu: x·σ(z) from one double exp (formulas::x_times_sigmoid_fast) for |z| <= 700, instead of the
  // double-double z and the corrected division; beyond, at 0 and for NaN the functions themselves.
  double rel = 0;
  void (*k)(const double*, double*, std::size_t, double) = nullptr;
  if (id == "gelu") {
    rel = F::kGeluFastRelError;
    k = [](const double* xs, double* ys, std::size_t n, double) {
      for (std::size_t i = 0; i < n; ++i)
        ys[i] =
            xs[i] != 0 && std::fabs(xs[i]) <= F::kGeluErfcFastMax ? F::gelu_erfc_fast(xs[i]) : F::gelu(xs[i]);
    };
  } else if (id == "gelu_tanh" && q[0] >= 0) {
    rel = F::kSigmoidFastRelError;
    k = [](const double* xs, double* ys, std::size_t n, double c) {
      for (std::size_t i = 0; i < n; ++i) {
        const double z = F::gelu_tanh_z_fast(xs[i], c);
        ys[i] = xs[i] != 0 && std::fabs(z) <= F::kSigmoidFastMaxZ ? F::x_times_sigmoid_fast(xs[i], z)
                                                                  : F::gelu_tanh(xs[i], c);
      }
    };
  } else if (id == "gelu_sigmoid" || id == "silu") {
    rel = F::kSigmoidFastRelError;
    k = [](const double* xs, double* ys, std::size_t n, double kk) {
      for (std::size_t i = 0; i < n; ++i) {
        const double z = kk * xs[i];
        ys[i] = xs[i] != 0 && std::fabs(z) <= F::kSigmoidFastMaxZ ? F::x_times_sigmoid_fast(xs[i], z)
                                                                  : F::x_sigmoid(xs[i], kk);
      }
    };
  } else {
    fn.eval(x, y, 0, p);
    return 0;
  }
  const double c = q[0];
  const auto run = [&](std::size_t b, std::size_t e) { k(x.data() + b, y.data() + b, e - b, c); };
  if (x.size() < detail::kParallelMinDouble || thread_count() == 1)
    run(0, x.size());
  else
    parallel_for(x.size(), detail::kParallelMinDouble / 2, run);
  return rel;
}

BoundedReference bounded_values(const Activation& fn, std::span<const double> x, const Params* p) {
  // new double[n] leaves the values uninitialized: no serial zero-fill of 8·n bytes before the parallel pass.
  std::shared_ptr<double[]> values(new double[std::max<std::size_t>(x.size(), 1)]);
  const std::span<double> out(values.get(), x.size());
  const double rel = eval_bounded(fn, x, out, p);
  return {out, rel, [&fn, x, p](std::size_t i) { return fn.eval(x[i], 0, p); }, std::move(values)};
}

}  // namespace gelu

// GELU Lab core: the activation registry.
//
// One entry per elementwise function: id, display name, formula text, parameters, and evaluators for
// f, f' and f'' in float and double, scalar and batched over contiguous arrays. Everything else in the
// project (CLI, GUI, GPU twins, tests) enumerates this registry instead of switching on ids.
//
// Accuracy contracts (checked by tests/core/*):
//  - double scalar: the reference. GELU family f within 2 ULP of the correctly rounded value.
//  - float scalar: the double value rounded once, so <= 1 ULP wherever double is accurate.
//  - float batched `gelu` (order 0 and 1): a vectorized kernel, <= 1 ULP (f) / <= 2 ULP (f') for every
//    finite float, exhaustively tested against the double reference.
//  - float batched, Path::Fast (the default; `batch_f32`): `gelu_tanh`, `gelu_sigmoid` and `silu` f and f'
//    are float-arithmetic kernels within 2 ULP of the correctly rounded value for every finite float, the
//    root of f' included (tests/exhaustive; maxima in docs/performance.md, "Accuracy of the kernels");
//    limits, ±0 and NaN as formulas.
//  - float batched, Path::Accurate (`batch_f32_accurate`): for those three, kernels that evaluate each lane
//    in double and round once (<= 1 ULP). The error analysis uses this path. Every other function has one
//    kernel on both paths: `gelu` the vectorized one above; `softplus`, `mish`, `elu` each lane in double
//    (<= 1 ULP f, <= 2 ULP f'); the rest the double reference rounded.
//  - `batch_backward_f32` (nullptr where there is none): the fused dx = dy·f'(x), f' as on the fast path,
//    then one rounding for the product.
//  - The span overloads split arrays above a measured size across the persistent thread pool
//    (gelu/kernels.hpp); the result is bit-identical to the single-threaded one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gelu {

class Format;

inline constexpr int kMaxParams = 2;
inline constexpr int kMaxOrder = 2;  // f, f', f''

/// A tunable parameter of an activation: name as typed on the CLI (`--param alpha=0.1`).
struct ParamSpec {
  const char* name;
  double default_value;
  double min;  // inclusive range accepted by the UI and the CLI
  double max;
  const char* description;
};

/// Parameter values in the order of Activation::params; unused slots are ignored.
struct Params {
  std::array<double, kMaxParams> v{};
  double operator[](int i) const { return v[static_cast<std::size_t>(i)]; }
  double& operator[](int i) { return v[static_cast<std::size_t>(i)]; }
  bool operator==(const Params&) const = default;
};

using ScalarF64 = double (*)(double x, const Params& p);
using ScalarF32 = float (*)(float x, const Params& p);
using BatchF64 = void (*)(const double* x, double* y, std::size_t n, const Params& p);
using BatchF32 = void (*)(const float* x, float* y, std::size_t n, const Params& p);
using BatchGradF32 = void (*)(const float* x, const float* dy, float* dx, std::size_t n, const Params& p);

/// Which float32 batched kernel the span overload runs: the fast one (<= 2 ULP) or the correctly rounded one.
enum class Path { Fast, Accurate };

/// The accuracy of one order of a function in the scalar paths, as measured against the mpmath reference
/// tables (tests/ref) and asserted by tests/core/accuracy_test.cpp — the registry carries each function's
/// bound the way SLEEF's function table does. ULP figures are the distance to the correctly rounded value
/// over the table's normal-range references at least 0.05 from a sign change of the reference; within 0.05 of
/// a sign change the absolute error bound applies (there is no ULP scale at a zero); where the reference is
/// subnormal, the error in units of the smallest subnormal. `GELU_ACCURACY_REPORT=1 core_tests` prints the
/// measured figures in this form.
struct Accuracy {
  std::uint64_t f64_ulp = 0;   // double scalar
  std::uint64_t f32_ulp = 0;   // float scalar (the double value rounded once)
  double near_root_abs = 0;    // double, |error| within 0.05 of a sign change
  double subnormal_steps = 0;  // double, |error| / smallest subnormal where the reference is subnormal
};

/// One registry entry. Orders index the arrays: 0 = f, 1 = f', 2 = f''.
struct Activation {
  const char* id;           // stable identifier, e.g. "gelu_tanh"
  const char* name;         // display name, e.g. "GELU (tanh approximation)"
  const char* formula;      // formula text with Unicode math, e.g. "x·Φ(x)"
  const char* description;  // one sentence for tooltips and `gelulab list`
  const char* glsl_name;    // name of the GLSL twin in shaders/activations.glsl (e.g. "act_gelu")
  std::vector<ParamSpec> params;
  std::array<ScalarF64, 3> f64;
  std::array<ScalarF32, 3> f32;
  std::array<BatchF64, 3> batch_f64;
  std::array<BatchF32, 3> batch_f32;           // Path::Fast
  std::array<BatchF32, 3> batch_f32_accurate;  // Path::Accurate
  BatchGradF32 batch_backward_f32 = nullptr;   // dx = dy·f'(x) fused, or nullptr
  std::array<Accuracy, 3> accuracy{};          // per order, the scalar paths; see Accuracy
  bool featured = false;  // shown by default wherever a few functions are picked (Curves, Benchmarks, lists)

  Params defaults() const;
  int param_index(std::string_view param_name) const;  // -1 when unknown

  double eval(double x, int order = 0, const Params* p = nullptr) const;
  float eval(float x, int order = 0, const Params* p = nullptr) const;
  void eval(std::span<const float> x, std::span<float> y, int order = 0, const Params* p = nullptr,
            Path path = Path::Fast) const;
  void eval(std::span<const double> x, std::span<double> y, int order = 0, const Params* p = nullptr) const;
};

/// All registered activations, in display order.
std::span<const Activation> registry();
/// nullptr when the id is unknown.
const Activation* find_activation(std::string_view id);
/// Comma-separated list of ids, for error messages.
std::string activation_ids();

/// Which side of the registry's double d = f^(order)(x) the exact value lies on, where that is known: +1
/// strictly above, −1 strictly below, 0 unknown. GELU and its tanh form at tiny x: the double is x/2 exactly,
/// while GELU(x) − x/2 = x·(Φ(x) − ½) > 0 and x·tanh(k·(x + c·x³))/2 > 0 for every x ≠ 0 (|x| < 1), so +1.
int exact_side(const Activation& fn, double x, double d, int order = 0);
/// The correctly rounded value of f^(order)(x) in fmt, given d = fn.eval(x, order): fmt.round(d) with the
/// tie rule of Format::round_beside applied on exact_side's side. The one place that rounds the registry's
/// double to a format (eval, error, check, the precision lab's pair checks, the Python module).
double correctly_rounded(const Activation& fn, const Format& fmt, double x, double d, int order = 0);
/// The same, evaluating d in double first.
double correctly_rounded(const Activation& fn, const Format& fmt, double x, int order = 0,
                         const Params* p = nullptr);

}  // namespace gelu

// [SECTION] bf16 arrays (gelu/kernels.hpp): dispatch to the AVX-512 loop (with AVX512_BF16 conversions where
// the CPU has them), or the portable path: the same tables (bf16_table.hpp), one element at a time.
#include <cmath>
#include <cstring>

#include "bf16_table.hpp"
#include "formulas.hpp"
#include "gelu/kernels.hpp"
#include "simd_kernels.hpp"

namespace gelu::bf16 {
namespace {

namespace F = formulas;
constexpr double kC = 0.044715;  // the tanh form's cubic coefficient (the registry's default)

#if defined(__AVX512F__) && defined(__AVX512DQ__)
bool cpu_has_bf16() {
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has;
}
#endif

double xval(std::uint16_t b) {
  return static_cast<double>(to_float(b));
}

}  // namespace

float to_float(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::uint16_t from_float(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

}  // namespace gelu::bf16

namespace gelu::simd {

double bf16_reference(Bf16Op op, bool tanh_form, double x, double dy) {
  namespace F = formulas;
  using bf16::kC;
  double r;
  if (op == Bf16Op::F)
    r = tanh_form ? F::gelu_tanh(x, kC) : F::gelu(x);
  else
    r = tanh_form ? F::gelu_tanh_d1(x, kC) : F::gelu_d1(x);
  return op == Bf16Op::Backward ? r * dy : r;
}

const float* bf16_table(bool tanh_form, bool d1) {
  auto make = [](bool t, Bf16Op op) {
    return Bf16Table([t, op](double v) { return bf16_reference(op, t, v, 1.0); });
  };
  static const Bf16Table gelu_f = make(false, Bf16Op::F), gelu_d1 = make(false, Bf16Op::D1);
  static const Bf16Table tanh_f = make(true, Bf16Op::F), tanh_d1 = make(true, Bf16Op::D1);
  return (tanh_form ? (d1 ? tanh_d1 : tanh_f) : (d1 ? gelu_d1 : gelu_f)).data();
}

/// The portable bf16 path: the tables one element at a time; the guard's lanes, and those where f′ is zero or
/// subnormal in float (a large dy could bring the lost precision back into range), from the double reference.
void gelu_bf16_portable(Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
                        std::uint16_t* y, std::size_t n) {
  const float* t = bf16_table(tanh_form, op != Bf16Op::F);
  for (std::size_t i = 0; i < n; ++i) {
    float v = t[x[i]];
    const double g = op == Bf16Op::Backward ? bf16::xval(dy[i]) : 0.0;
    const bool lost = op == Bf16Op::Backward && std::fabs(v) < 0x1p-126f && g != 0;
    if (op == Bf16Op::Backward) v *= static_cast<float>(g);
    y[i] = lost || bf16_near_boundary(v)
               ? bf16_from_double(bf16_reference(op, tanh_form, bf16::xval(x[i]), g))
               : bf16::from_float(v);
  }
}

}  // namespace gelu::simd

namespace gelu::bf16 {
namespace {

void run(simd::Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y,
         std::size_t n) {
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  (tanh_form ? simd::gelu_tanh_bf16 : simd::gelu_bf16)(op, x, dy, y, n, cpu_has_bf16());
#else
  simd::gelu_bf16_portable(op, tanh_form, x, dy, y, n);
#endif
}

}  // namespace

void gelu(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::F, false, x, nullptr, y, n);
}
void gelu_d1(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::D1, false, x, nullptr, y, n);
}
void gelu_tanh(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::F, true, x, nullptr, y, n);
}
void gelu_tanh_d1(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::D1, true, x, nullptr, y, n);
}
void gelu_backward(const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* dx, std::size_t n) {
  run(simd::Bf16Op::Backward, false, x, dy, dx, n);
}
void gelu_tanh_backward(const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* dx, std::size_t n) {
  run(simd::Bf16Op::Backward, true, x, dy, dx, n);
}

const char* isa() {
#if defined(__AVX512F__) && defined(__AVX512DQ__)
#ifdef __AVX512BF16__
  if (cpu_has_bf16()) return "avx512bf16";
#endif
  return "avx512";
#else
  return "portable";
#endif
}

}  // namespace gelu::bf16

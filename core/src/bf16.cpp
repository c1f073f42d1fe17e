// [SECTION] bf16 arrays (gelu/kernels.hpp): dispatch to the AVX-512 kernels (with AVX512_BF16 conversions
// where the CPU has them), or the portable path: the double reference per element, rounded once to bf16.
#include <cstring>

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

/// The portable bf16 path (also what the tests compare the vectorized one with): the double reference,
/// rounded once to bf16.
void gelu_bf16_portable(Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
                        std::uint16_t* y, std::size_t n) {
  using bf16::xval;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = xval(x[i]);
    double r;
    if (op == Bf16Op::F)
      r = tanh_form ? formulas::gelu_tanh(v, bf16::kC) : formulas::gelu(v);
    else
      r = tanh_form ? formulas::gelu_tanh_d1(v, bf16::kC) : formulas::gelu_d1(v);
    if (op == Bf16Op::Backward) r *= xval(dy[i]);
    y[i] = bf16_from_double(r);
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

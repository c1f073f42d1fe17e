// [SECTION] bf16 arrays (bf16.cpp; gelu::bf16 in gelu/kernels.hpp is the public face): the operations, the
// rounding from double, the tables and the portable path. The AVX-512 loops are declared with their families
// (gelu_bf16 in simd_gelu.hpp, gelu_tanh_bf16 in simd_fast.hpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gelu::simd {

enum class Bf16Op { F, D1, Backward };
/// The tanh form's cubic coefficient on bf16 arrays (the registry's default).
inline constexpr double kBf16TanhC = 0.044715;

/// The bf16 nearest to v, ties to even, from the double value directly (no float rounding in between).
inline std::uint16_t bf16_from_double(double v) {
  if (std::isnan(v)) return 0x7FC0;
  const double a = std::fabs(v);
  double r;
  if (a >= 0x1p-126) {
    int e;
    const double m = std::frexp(a, &e);                       // a = m·2^e, m in [0.5, 1)
    r = std::ldexp(std::nearbyint(std::ldexp(m, 8)), e - 8);  // 8 significant bits, ties to even
    if (r > 0x1.FEp127) r = INFINITY;                         // beyond the largest bf16
  } else {
    r = std::ldexp(std::nearbyint(std::ldexp(a, 133)), -133);  // the subnormal grid, 2^-133
  }
  const float f = static_cast<float>(std::copysign(r, v));  // exact: r has at most 8 significant bits
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<std::uint16_t>(b >> 16);
}

/// The tables of bf16_table.hpp for gelu or the tanh form (c = kBf16TanhC), f (d1 false) or f′, built on
/// first use, and the double reference they come from (op's value at x, times dy for the backward pass): both
/// in core/src/simd/bf16.cpp, shared by every path.
const float* bf16_table(bool tanh_form, bool d1);
double bf16_reference(Bf16Op op, bool tanh_form, double x, double dy);
/// The tables of the correctly rounded bf16 results (bf16_from_double of bf16_reference) of f or f′, 128 KB
/// each, built on first use, and f or f′ (op F or D1, not Backward) over bf16 arrays by one scalar load per
/// element from them: exact by construction, so no guard and no rounding. Built everywhere
/// (core/src/simd/bf16.cpp); the portable path's f and f′, and the AVX-512 build's where it is faster than
/// the gathers of simd_bf16.hpp (gelu::bf16 times both: on Zen 5 one 16-lane vgatherdps cost more than 16
/// scalar loads; core/src/simd/README.md, "Gathers on Zen 5, and the lookup of the results").
const std::uint16_t* bf16_result_table(bool tanh_form, bool d1);
void gelu_bf16_lookup(Bf16Op op, bool tanh_form, const std::uint16_t* x, std::uint16_t* y, std::size_t n);
/// The portable path, built everywhere (core/src/simd/bf16.cpp): gelu_bf16_lookup for f and f′; the backward
/// pass from the float tables with the guard, one element at a time.
void gelu_bf16_portable(Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
                        std::uint16_t* y, std::size_t n);

}  // namespace gelu::simd

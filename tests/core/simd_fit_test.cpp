// The start-up table helpers of the vectorized kernels (core/src/simd/simd_fit.hpp): table entries of few
// significant bits whose products are exact (short_point_near, Exp2TableOf with short entries), which exact
// GELU's f relies on for its exact product 2^m·T_j·s_k.
#include "simd/simd_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "formulas.hpp"

namespace {

using gelu::simd::round_to_bits;
using gelu::simd::short_point_near;

/// The number of significant bits of a positive float (24 for one with its last mantissa bit set).
int significant_bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  const std::uint32_t mant = (b & 0x7fffffu) | 0x800000u;
  return 24 - __builtin_ctz(mant);
}

/// T_j from a table's hi_shifted entry: hi_shifted + (j << (23 − kBits)) (exp2_scaled with m = 0).
template <int kBits, int kHiBits>
float entry(const gelu::simd::Exp2TableOf<kBits, kHiBits>& t, int j) {
  std::uint32_t b;
  std::memcpy(&b, &t.hi_shifted[j], sizeof b);
  b += static_cast<std::uint32_t>(j) << (23 - kBits);
  float T;
  std::memcpy(&T, &b, sizeof T);
  return T;
}

double S(double t) {  // Φ(−t)·exp(t²/2), decreasing
  return gelu::formulas::normal_upper_tail(t) * std::exp(0.5 * t * t);
}
double dS(double t) {
  return t * S(t) - gelu::formulas::kInvSqrt2Pi;
}

TEST(SimdFit, RoundToBitsKeepsThatManySignificantBits) {
  EXPECT_EQ(round_to_bits(1.0 + 0x1p-9, 8), 1.0);
  EXPECT_EQ(round_to_bits(1.0 + 0x1p-9, 8, 1), 1.0 + 0x1p-7);
  EXPECT_EQ(round_to_bits(1.0 + 0x1p-7 + 0x1p-9, 8, -1), 1.0 + 0x1p-7);
  EXPECT_EQ(round_to_bits(0.3, 24), static_cast<double>(0.3f));
  EXPECT_EQ(round_to_bits(1.0 + 0x1p-10 + 0x1p-14, 11), 1.0 + 0x1p-10);
  EXPECT_EQ(significant_bits(static_cast<float>(round_to_bits(1.0 + 0x1p-10 + 0x1p-14, 11))), 11);
  EXPECT_EQ(round_to_bits(-3.0 - 0x1p-20, 8), -3.0);
}

TEST(SimdFit, ShortPointNearFindsAnEntryExactTo2Pow32) {
  for (const int bits : {12, 16, 20}) {
    for (const double centre : {0.0625, 0.6, 1.4375, 3.0, 5.25, 7.25}) {
      const auto e = short_point_near(
          centre, bits, [](float v) { return S(v); }, [](float v) { return dS(v); });
      SCOPED_TRACE(testing::Message() << "bits " << bits << ", centre " << centre);
      EXPECT_LE(significant_bits(e.s), bits);
      const double err = std::fabs(S(e.m) / static_cast<double>(e.s) - 1.0);
      EXPECT_LE(err, 0x1p-32);
      EXPECT_EQ(err, e.err);
      // Near the centre (the fewer the bits, the rarer the hits and the further the walk): within 2 % of it
      // with 16 bits or more, as exact GELU's f needs for its bins.
      if (bits >= 16) {
        EXPECT_LE(std::fabs(e.m - centre), 0.02 * centre);
      }
    }
  }
  // An increasing function too (the walk's direction comes from the slope's sign).
  const auto e = short_point_near(
      2.5, 16, [](float v) { return std::exp(static_cast<double>(v)); },
      [](float v) { return std::exp(static_cast<double>(v)); });
  EXPECT_LE(significant_bits(e.s), 16);
  EXPECT_LE(std::fabs(std::exp(static_cast<double>(e.m)) / e.s - 1.0), 0x1p-32);
  EXPECT_LE(std::fabs(e.m - 2.5), 0.05);
}

TEST(SimdFit, ShortExp2EntriesMakeExactProducts) {
  const auto& t = gelu::simd::exp2_table<4, 8>();
  for (int j = 0; j < 16; ++j) {
    const float T = entry(t, j);
    SCOPED_TRACE(j);
    EXPECT_LE(significant_bits(T), 8);
    EXPECT_LE(std::fabs(t.ln_rel[j]), 0x1p-8);
    EXPECT_NEAR(static_cast<double>(T) * std::exp(t.ln_rel[j]), std::exp2(j / 16.0), 1e-15);
    EXPECT_NEAR(static_cast<double>(T) * (1.0 + static_cast<double>(t.rel[j])), std::exp2(j / 16.0), 1e-9);
    // Times any float of 16 significant bits: exact.
    for (const double s : {0.0673160553, 0.476013184, 0.1, 0.27029}) {
      const float s16 = static_cast<float>(round_to_bits(s, 16));
      EXPECT_EQ(static_cast<double>(T * s16), static_cast<double>(T) * static_cast<double>(s16));
    }
  }
  // The full-length table is what it was: T_j = 2^(j/32) rounded to float.
  const auto& f = gelu::simd::exp2_table<5>();
  for (int j = 0; j < 32; ++j) EXPECT_EQ(entry(f, j), static_cast<float>(std::exp2(j / 32.0))) << j;
}

}  // namespace

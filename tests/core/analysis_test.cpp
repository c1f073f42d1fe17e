// Error analysis (distances, curves, statistics) and numerically solved properties.
#include "gelu/analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gelu/activation.hpp"

namespace {

namespace A = gelu::analysis;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

const gelu::Activation& fn(const char* id) {
  return *gelu::find_activation(id);
}

TEST(Distances, UlpDistanceCountsRepresentableSteps) {
  EXPECT_EQ(A::ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(A::ulp_distance(0.0f, -0.0f), 0u);
  EXPECT_EQ(
      A::ulp_distance(std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()),
      2u);
  EXPECT_EQ(A::ulp_distance(std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity()), 1u);
  EXPECT_EQ(A::ulp_distance(kNan, kNan), 0u);
  EXPECT_EQ(A::ulp_distance(kNan, 1.0), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(A::ulp_distance(1.0, 1.0 + 4 * std::numeric_limits<double>::epsilon()), 4u);
  EXPECT_EQ(A::ulp_distance(-1.0, 1.0), 2 * A::ulp_distance(0.0, 1.0));
}

TEST(Distances, UlpErrorUsesTheSpacingAtTheReference) {
  EXPECT_EQ(A::ulp_of_f64(1.0), std::numeric_limits<double>::epsilon());
  EXPECT_EQ(A::ulp_of_f32(1.0), std::numeric_limits<float>::epsilon());
  EXPECT_EQ(A::ulp_of_f32(0.0), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(A::ulp_of_f32(1e-40), std::numeric_limits<float>::denorm_min());  // subnormal: fixed spacing
  EXPECT_EQ(A::ulp_of_f64(std::numeric_limits<double>::min()), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(A::ulp_of_f32(1e300), std::ldexp(1.0, 127 - 23));  // beyond float: the top binade's spacing
  // Half a float ULP off at 1: 0.5.
  EXPECT_DOUBLE_EQ(A::ulp_error_f32(1.0f, 1.0 + std::ldexp(1.0, -24)), 0.5);
  EXPECT_EQ(A::ulp_error_f64(-0.0, 0.0), 0.0);
  EXPECT_EQ(A::ulp_error_f64(kNan, kNan), 0.0);
  EXPECT_EQ(A::ulp_error_f64(kNan, 1.0), kInf);
  EXPECT_EQ(A::ulp_error_f64(1.0, kNan), kInf);
  EXPECT_EQ(A::ulp_error_f64(kInf, kInf), 0.0);
  EXPECT_EQ(A::ulp_error_f64(-kInf, kInf), kInf);
  EXPECT_EQ(A::ulp_error_f64(1e308, kInf), kInf);
  // A double reference beyond FLT_MAX is +inf in float: an infinite float result is exact.
  EXPECT_EQ(A::ulp_error_f32(std::numeric_limits<float>::infinity(), 1e39), 0.0);
  EXPECT_EQ(A::ulp_error_f32(std::numeric_limits<float>::max(), 1e39), kInf);
  EXPECT_EQ(A::rel_error(0.0, 0.0), 0.0);
  EXPECT_EQ(A::rel_error(1e-300, 0.0), kInf);
  EXPECT_EQ(A::rel_error(1.5, 2.0), 0.25);
  EXPECT_EQ(A::abs_error(kInf, 1.0), kInf);
}

TEST(Compare, SameFunctionHasZeroErrorInDouble) {
  const A::ErrorReport r =
      A::compare(A::spec(fn("gelu")), A::spec(fn("gelu")), -10, 10, 1001, gelu::Format(gelu::FormatId::F64));
  EXPECT_EQ(r.x.size(), 1001u);
  EXPECT_EQ(r.x.front(), -10.0);
  EXPECT_EQ(r.x.back(), 10.0);
  for (A::ErrorMetric m : {A::ErrorMetric::Abs, A::ErrorMetric::Rel, A::ErrorMetric::Ulp}) {
    EXPECT_EQ(r.stats(m).max, 0.0);
    EXPECT_EQ(r.stats(m).mean, 0.0);
  }
}

TEST(Compare, FloatPathIsWithinOneUlpOfTheDoubleReference) {
  for (const gelu::Activation& a : gelu::registry()) {
    const A::ErrorReport r =
        A::compare(A::spec(a), A::spec(a), -20, 20, 20001, gelu::Format(gelu::FormatId::F32));
    // The float paths round the double reference once (or are a <= 1 ULP kernel): < 1 ULP of float.
    EXPECT_LT(r.ulp_stats.max, 1.0) << a.id << " at x=" << r.ulp_stats.x_at_max;
    // Float rounding is visible for the transcendental ones: the metric is not trivially 0.
    if (std::string(a.id) != "relu" && std::string(a.id) != "leaky_relu") {
      EXPECT_GT(r.ulp_stats.mean, 0.0) << a.id;
    }
    for (std::size_t i = 0; i < r.x.size(); ++i)
      ASSERT_EQ(r.x[i],
                static_cast<double>(static_cast<float>(r.x[i])));  // the reference saw the float input
  }
}

TEST(Compare, TanhApproximationErrorAgainstExactGelu) {
  const A::ErrorReport r = A::compare(A::spec(fn("gelu_tanh")), A::spec(fn("gelu")), -6, 6, 120001,
                                      gelu::Format(gelu::FormatId::F64));
  // The well-known maximum absolute difference of the tanh approximation, ~4.7e-4 near |x| ~ 2.7.
  EXPECT_GT(r.abs_stats.max, 4.5e-4);
  EXPECT_LT(r.abs_stats.max, 5.0e-4);
  EXPECT_NEAR(std::fabs(r.abs_stats.x_at_max), 2.7, 0.2);
  EXPECT_GT(r.abs_stats.mean, 0.0);
  EXPECT_LT(r.abs_stats.mean, r.abs_stats.max);
  EXPECT_DOUBLE_EQ(r.abs[0], std::fabs(fn("gelu_tanh").eval(-6.0) - fn("gelu").eval(-6.0)));
}

TEST(Compare, InfiniteErrorsAreCountedAndLeftOutOfTheMean) {
  // ReLU vs GELU relative to ReLU's zeros: every x < 0 gives |gelu| / 0 = inf.
  const A::ErrorReport r =
      A::compare(A::spec(fn("gelu")), A::spec(fn("relu")), -1, 1, 201, gelu::Format(gelu::FormatId::F64));
  EXPECT_EQ(r.rel_stats.max, kInf);
  EXPECT_EQ(r.rel_stats.x_at_max, -1.0);  // the first occurrence
  EXPECT_EQ(r.rel_stats.nonfinite, 100u);
  EXPECT_TRUE(std::isfinite(r.rel_stats.mean));
}

TEST(Compare, DerivativeOrdersAndParameters) {
  A::FunctionSpec a{&fn("gelu_tanh"), fn("gelu_tanh").defaults(), 1};
  A::FunctionSpec b = a;
  b.params[0] = 0.0;
  const A::ErrorReport r = A::compare(a, b, -3, 3, 601, gelu::Format(gelu::FormatId::F64));
  EXPECT_GT(r.abs_stats.max, 1e-3);  // c matters
  EXPECT_EQ(r.value[300], a.fn->eval(0.0, 1, &a.params));
}

TEST(Compare, RejectsBadRanges) {
  const A::FunctionSpec g = A::spec(fn("gelu"));
  EXPECT_THROW(A::compare(g, g, 1, 0, 10, gelu::Format(gelu::FormatId::F64)), std::invalid_argument);
  EXPECT_THROW(A::compare(g, g, 0, kInf, 10, gelu::Format(gelu::FormatId::F64)), std::invalid_argument);
  EXPECT_THROW(A::compare(g, g, 0, 1, 0, gelu::Format(gelu::FormatId::F64)), std::invalid_argument);
  const A::ErrorReport one = A::compare(g, g, 0.5, 0.5, 1, gelu::Format(gelu::FormatId::F64));
  EXPECT_EQ(one.x.size(), 1u);
}

TEST(Compare, HundredThousandSamplesCoverTheRange) {
  // The size the GUI asks for (its speed is a benchmark's business, not a unit test's).
  const A::ErrorReport r = A::compare(A::spec(fn("gelu")), A::spec(fn("gelu_tanh")), -8, 8, 100000,
                                      gelu::Format(gelu::FormatId::F32));
  ASSERT_EQ(r.ulp.size(), 100000u);
  ASSERT_EQ(r.x.size(), 100000u);
  EXPECT_EQ(r.x.front(), -8.0);
  EXPECT_EQ(r.x.back(), 8.0);
}

TEST(Compare, StorageFormatsRoundOnceAndCountUlpsAsValues) {
  const gelu::Format bf16(gelu::FormatId::BF16);
  const A::ErrorReport r = A::compare(A::spec(fn("gelu_tanh")), A::spec(fn("gelu")), -6, 6, 1201, bf16);
  std::size_t mismatch = 0;
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    ASSERT_TRUE(bf16.representable(r.x[i])) << r.x[i];          // inputs are values of the format
    ASSERT_TRUE(bf16.representable(r.value[i])) << r.value[i];  // and so are the results
    EXPECT_EQ(r.value[i], bf16.round(fn("gelu_tanh").eval(r.x[i])));
    EXPECT_EQ(r.ref_value[i], fn("gelu").eval(r.x[i]));  // the reference is not rounded
    const double want = static_cast<double>(bf16.ulp_distance(r.value[i], bf16.round(r.ref_value[i])));
    EXPECT_EQ(r.ulp[i], want) << r.x[i];
    mismatch += want > 0;
  }
  EXPECT_EQ(r.ulp_stats.mismatch, mismatch);
  EXPECT_EQ(r.abs_stats.mismatch, mismatch);
  EXPECT_EQ(r.ulp_stats.n, 1201u);
  EXPECT_GT(mismatch, 0u);
  // At the given points: every value of e4m3 in [-4, 4].
  const gelu::Format e4m3(gelu::FormatId::E4M3);
  const A::ErrorReport all =
      A::compare_at(A::spec(fn("gelu")), A::spec(fn("gelu")), e4m3.enumerate(-4, 4), e4m3);
  EXPECT_EQ(all.x.size(), e4m3.enumerate(-4, 4).size());
  EXPECT_EQ(all.ulp_stats.mismatch, 0u);
  EXPECT_EQ(all.a, -4.0);
  EXPECT_EQ(all.b, 4.0);
}

TEST(Distances, UlpErrorAndMismatchPerFormat) {
  const gelu::Format f64(gelu::FormatId::F64), f32(gelu::FormatId::F32), bf16(gelu::FormatId::BF16);
  EXPECT_EQ(A::ulp_error(f64, 1.0, 1.0 + 0x1p-53), A::ulp_error_f64(1.0, 1.0 + 0x1p-53));
  EXPECT_DOUBLE_EQ(A::ulp_error(f32, 1.0, 1.0 + 0x1p-24), 0.5);  // real-valued in f32
  EXPECT_EQ(A::ulp_error(bf16, 1.0, 1.0 + 0x1p-9), 0.0);         // rounds to the same bf16 value
  EXPECT_EQ(A::ulp_error(bf16, 1.0, 1.02), 3.0);                 // 1.0234375 is 3 values up
  EXPECT_EQ(A::ulp_error(bf16, kNan, kNan), 0.0);
  EXPECT_EQ(A::ulp_error(bf16, kNan, 1.0), kInf);
  EXPECT_EQ(A::ulp_error(bf16, bf16.max_finite(), kInf),
            1.0);  // the largest finite value and inf are neighbours
  EXPECT_FALSE(A::differs(bf16, 1.0, 1.0 + 0x1p-9));
  EXPECT_TRUE(A::differs(bf16, 1.0, 1.01));
  EXPECT_FALSE(A::differs(bf16, 0.0, -0.0));
  EXPECT_FALSE(A::differs(f64, kNan, kNan));
  EXPECT_TRUE(A::differs(f32, kNan, 1.0));
  EXPECT_TRUE(A::differs(f32, 1.0, 1.0 + 0x1p-23));
}

TEST(MinimaxFit, FindsKnownOptima) {
  // relu is x on [0, 1]: the best constant is 1/2 with error 1/2, the best line is x itself.
  const A::FunctionSpec relu = A::spec(fn("relu"));
  const A::MinimaxFit c = A::fit_minimax([](double, std::span<const double> p) { return p[0]; }, relu, {3.0},
                                         {0.1}, 0.0, 1.0, 101);
  EXPECT_NEAR(c.params[0], 0.5, 1e-9);
  EXPECT_NEAR(c.max_error, 0.5, 1e-9);
  const A::MinimaxFit line =
      A::fit_minimax([](double x, std::span<const double> p) { return p[0] + p[1] * x; }, relu, {0.3, 0.2},
                     {0.1, 0.1}, 0.0, 1.0, 101);
  EXPECT_NEAR(line.params[0], 0.0, 1e-9);
  EXPECT_NEAR(line.params[1], 1.0, 1e-9);
  EXPECT_LT(line.max_error, 1e-8);
  EXPECT_GT(line.evaluations, 0u);
  // Deterministic.
  const A::MinimaxFit again =
      A::fit_minimax([](double x, std::span<const double> p) { return p[0] + p[1] * x; }, relu, {0.3, 0.2},
                     {0.1, 0.1}, 0.0, 1.0, 101);
  EXPECT_EQ(again.params, line.params);
  EXPECT_THROW(A::fit_minimax([](double, std::span<const double>) { return 0.0; }, relu, {}, {}, 0, 1),
               std::invalid_argument);
  EXPECT_THROW(A::fit_minimax([](double, std::span<const double>) { return 0.0; }, relu, {1}, {1}, 1, 0),
               std::invalid_argument);
}

// [SECTION] Properties.

/// x is a zero of g to full precision: g changes sign (or vanishes) across x's neighbours.
void expect_bracketed_root(const A::FunctionSpec& s, int order, double x) {
  const double lo = s.fn->eval(std::nextafter(x, -kInf), order, &s.params);
  const double hi = s.fn->eval(std::nextafter(x, kInf), order, &s.params);
  const double at = s.fn->eval(x, order, &s.params);
  EXPECT_TRUE(at == 0 || (lo <= 0 && hi >= 0) || (lo >= 0 && hi <= 0) ||
              std::fabs(at) <= std::fabs(lo) + std::fabs(hi))
      << s.fn->id << " order " << order << " x=" << x << " g: " << lo << " " << at << " " << hi;
}

TEST(Properties, GeluMinimumToFullDoublePrecision) {
  const A::Properties p = A::properties(A::spec(fn("gelu")));
  ASSERT_TRUE(p.global_minimum.has_value());
  // mpmath at 200 bits: root of Phi(x) + x phi(x) = -0x1.80ead197f00b4p-1, GELU there -0x1.5c19dd4b1a3fbp-3.
  EXPECT_LE(A::ulp_distance(p.global_minimum->x, -0x1.80ead197f00b4p-1), 1u) << p.global_minimum->x;
  EXPECT_LE(A::ulp_distance(p.global_minimum->value, -0x1.5c19dd4b1a3fbp-3), 1u);
  EXPECT_TRUE(p.global_minimum->minimum);
  EXPECT_GT(p.global_minimum->d2, 0.0);
  EXPECT_EQ(p.infimum, p.global_minimum->value);
  ASSERT_EQ(p.critical_points.size(), 1u);
  // f'' = phi(x) (2 - x^2): inflection points at +-sqrt(2).
  ASSERT_EQ(p.inflection_points.size(), 2u);
  EXPECT_LE(A::ulp_distance(p.inflection_points[0], -std::sqrt(2.0)), 1u);
  EXPECT_LE(A::ulp_distance(p.inflection_points[1], std::sqrt(2.0)), 1u);
}

TEST(Properties, AsymptotesAreExactWhereTheyShouldBe) {
  const A::Properties g = A::properties(A::spec(fn("gelu")));
  EXPECT_TRUE(g.minus_inf.exists);
  EXPECT_EQ(g.minus_inf.slope, 0.0);
  EXPECT_EQ(g.minus_inf.intercept, 0.0);
  EXPECT_FALSE(std::signbit(g.minus_inf.intercept));
  EXPECT_EQ(g.plus_inf.slope, 1.0);
  EXPECT_EQ(g.plus_inf.intercept, 0.0);
  const A::Properties e = A::properties(A::spec(fn("elu")));
  EXPECT_EQ(e.minus_inf.intercept, -1.0);
  EXPECT_FALSE(e.global_minimum.has_value());  // -1 is approached, never attained
  EXPECT_EQ(e.infimum, -1.0);
  const A::Properties l = A::properties(A::spec(fn("leaky_relu")));
  EXPECT_EQ(l.minus_inf.slope, 0.01);
  EXPECT_EQ(l.infimum, -kInf);
}

TEST(Properties, EveryRegistryFunctionIsSolvedConsistently) {
  for (const gelu::Activation& a : gelu::registry()) {
    const A::FunctionSpec s = A::spec(a);
    const A::Properties p = A::properties(s);
    for (const A::CriticalPoint& c : p.critical_points) {
      expect_bracketed_root(s, 1, c.x);
      EXPECT_EQ(c.value, a.eval(c.x));
      EXPECT_EQ(c.minimum, c.d2 > 0) << a.id;
    }
    for (double x : p.inflection_points) expect_bracketed_root(s, 2, x);
    EXPECT_TRUE(p.plus_inf.exists) << a.id;
    EXPECT_EQ(p.plus_inf.slope, a.eval(1e6, 1)) << a.id;  // 1 for most, λ for SELU
    ASSERT_EQ(p.notable.size(), 7u);
    EXPECT_EQ(p.notable[3].x, 0.0);
    EXPECT_EQ(p.notable[3].f, a.eval(0.0));
    EXPECT_EQ(p.notable[3].d1, a.eval(0.0, 1));
    if (p.global_minimum) {
      EXPECT_LE(p.global_minimum->value, p.minus_inf.intercept) << a.id;
      // Nothing on a fine grid goes below it.
      for (double x = -20; x <= 20; x += 1e-3)
        ASSERT_GE(a.eval(x), p.global_minimum->value) << a.id << " x=" << x;
    }
  }
  // The known ones: SiLU's minimum at the solution of 1 + x (1 - sigma(x)) = 0 (mpmath: -1.2784645427610737).
  const A::Properties silu = A::properties(A::spec(fn("silu")));
  ASSERT_TRUE(silu.global_minimum.has_value());
  EXPECT_LE(A::ulp_distance(silu.global_minimum->x, -1.2784645427610737), 2u);
  EXPECT_FALSE(A::properties(A::spec(fn("relu"))).global_minimum.has_value());
  EXPECT_TRUE(A::properties(A::spec(fn("softplus"))).critical_points.empty());
}

TEST(Properties, ParametersMoveTheMinimum) {
  A::FunctionSpec s = A::spec(fn("silu"));
  s.params[0] = 2.0;  // x sigma(2x) = silu(2x)/2: minimum at half the x, half the value
  const A::Properties p = A::properties(s);
  ASSERT_TRUE(p.global_minimum.has_value());
  EXPECT_NEAR(p.global_minimum->x, -1.2784645427610737 / 2, 1e-15);
  EXPECT_NEAR(p.global_minimum->value, -0.2784645427610738 / 2, 1e-15);
}

TEST(Zeros, DiscontinuitiesAreNotZeros) {
  // ELU's f'' jumps from 1 to 0 at x = 0 and Leaky ReLU's f' from alpha to 1: discontinuities, no zeros.
  EXPECT_TRUE(A::zeros({&fn("elu"), fn("elu").defaults(), 2}, -5, 5).empty());
  EXPECT_TRUE(A::zeros({&fn("leaky_relu"), fn("leaky_relu").defaults(), 1}, -5, 5).empty());
  // GELU's f' has exactly one zero, at the minimum.
  EXPECT_EQ(A::zeros({&fn("gelu"), {}, 1}, -5, 5).size(), 1u);
  EXPECT_THROW(A::zeros(A::spec(fn("gelu")), 1, -1), std::invalid_argument);
}

}  // namespace

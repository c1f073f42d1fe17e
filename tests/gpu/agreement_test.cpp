// GPU vs CPU: every registry function, order and parameter set on dense grids, tails to float underflow
// and overflow, and special values, within 4 ULP of the correctly rounded value (the double formula of
// core/src/formulas.hpp rounded to float). The measured maxima are printed for the README.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gelu/activation.hpp"
#include "gpu_fixture.hpp"

namespace {

using gelu::gpu::test::context;
using gelu::gpu::test::ulp_distance;

constexpr double kBound = 4.0;

std::vector<float> test_inputs() {
  std::vector<float> x;
  for (int i = -16 * 1024; i <= 16 * 1024; ++i) x.push_back(static_cast<float>(i) / 1024.0f);  // dense grid
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> wide(-20.0f, 20.0f), narrow(-3.0f, 3.0f);
  for (int i = 0; i < 40000; ++i) x.push_back(wide(rng));
  for (int i = 0; i < 40000; ++i) x.push_back(narrow(rng));  // around every root of f' and f''
  // Tails: every binade from the smallest subnormal to FLT_MAX, both signs, 16 points each.
  for (int e = -149; e <= 127; ++e)
    for (int j = 0; j < 16; ++j) {
      const float v = std::ldexp(1.0f + static_cast<float>(j) / 16.0f, e);
      if (std::isfinite(v)) {
        x.push_back(v);
        x.push_back(-v);
      }
    }
  // The exact-GELU tail down to underflow (x ~ -14.2 .. -13), densely.
  for (float v = -15.5f; v < -9.0f; v += 1.0f / 4096.0f) x.push_back(v);
  for (float v : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 1e-45f,
                  -1e-45f, FLT_MIN / 2, -FLT_MIN / 2, 1e5f, -1e5f, 1.0001e5f, -1.0001e5f, 1e30f, -1e30f})
    x.push_back(v);
  return x;
}

/// Defaults plus, per parameter, two other values inside its range.
std::vector<gelu::Params> param_sets(const gelu::Activation& a) {
  std::vector<gelu::Params> sets{a.defaults()};
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    const gelu::ParamSpec& s = a.params[i];
    for (double f : {0.1, 0.9}) {
      gelu::Params p = a.defaults();
      p[static_cast<int>(i)] = s.min + f * (s.max - s.min);
      sets.push_back(p);
    }
  }
  return sets;
}

TEST(GpuAgreement, EveryFunctionOrderAndParameterSetWithin4Ulp) {
  gelu::gpu::Context* ctx = context();
  ASSERT_NE(ctx, nullptr);
  std::string err;
  auto ev = gelu::gpu::Evaluator::create(*ctx, &err);
  ASSERT_NE(ev, nullptr) << err;
  const std::vector<float> x = test_inputs();
  std::vector<float> y(x.size());
  for (const gelu::Activation& a : gelu::registry()) {
    for (int order = 0; order <= 2; ++order) {
      double worst_all = 0;
      for (const gelu::Params& p : param_sets(a)) {
        const auto e = ev->eval(a, order, p, x, y);
        ASSERT_FALSE(e) << a.id << " order " << order << ": " << *e;
        double worst = 0;
        std::size_t at = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
          const float ref =
              static_cast<float>(a.f64[static_cast<std::size_t>(order)](static_cast<double>(x[i]), p));
          const double d = ulp_distance(y[i], ref);
          if (d > worst) worst = d, at = i;
        }
        worst_all = std::max(worst_all, worst);
        EXPECT_LE(worst, kBound) << a.id << " order " << order << " p0=" << p[0] << ": x=" << x[at]
                                 << " gpu=" << y[at] << " cpu="
                                 << static_cast<float>(a.f64[static_cast<std::size_t>(order)](x[at], p));
      }
      std::printf("[ max ULP ] %-13s order %d: %.0f\n", a.id, order, worst_all);
      RecordProperty(std::string(a.id) + "_order" + std::to_string(order) + "_max_ulp",
                     std::to_string(worst_all));
    }
  }
}

TEST(GpuAgreement, NoNanOrInfFromFiniteInputs) {
  // The tanh form is the classic offender (tanh overflowing for x < -13 on GPUs): sweep far tails.
  gelu::gpu::Context* ctx = context();
  ASSERT_NE(ctx, nullptr);
  std::string err;
  auto ev = gelu::gpu::Evaluator::create(*ctx, &err);
  ASSERT_NE(ev, nullptr) << err;
  std::vector<float> x;
  for (float v = -200.0f; v <= 200.0f; v += 0.0625f) x.push_back(v);
  std::vector<float> y(x.size());
  for (const gelu::Activation& a : gelu::registry())
    for (int order = 0; order <= 2; ++order) {
      ASSERT_FALSE(ev->eval(a, order, a.defaults(), x, y));
      for (std::size_t i = 0; i < x.size(); ++i)
        ASSERT_TRUE(std::isfinite(y[i])) << a.id << " order " << order << " x=" << x[i] << " -> " << y[i];
    }
}

}  // namespace

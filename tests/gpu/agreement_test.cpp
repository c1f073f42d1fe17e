// GPU vs CPU: every registry function, order and parameter set on dense grids, tails to float underflow
// and overflow, and special values, within 4 ULP of the correctly rounded value (the double formula of
// core/src/formulas.hpp rounded to float). The measured maxima are printed for the README. On a device
// whose shaders flush float32 subnormals (NVIDIA's driver; the evaluator's probe says so), a value also
// passes when it is within the bound of what flushing gives (f at the flushed input, a result below FLT_MIN
// as ±0), and those cases are counted and printed; everywhere else, llvmpipe included, the bound is strict.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "gelu/activation.hpp"
#include "gpu_fixture.hpp"

namespace {

using gelu::gpu::test::context;
using gelu::gpu::test::ulp_distance;

constexpr double kBound = 4.0;

/// ±0 for a subnormal, else v.
float flushed(float v) {
  return v != 0.0f && std::fabs(v) < FLT_MIN ? std::copysign(0.0f, v) : v;
}

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

/// The process's context and an evaluator on it, for every test here; probe() asks the device what it does
/// with subnormals.
class GpuAgreement : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx = context();
    ASSERT_NE(ctx, nullptr);
    std::string err;
    ev = gelu::gpu::Evaluator::create(*ctx, &err);
    ASSERT_NE(ev, nullptr) << err;
  }
  void probe() {
    const auto e = ev->subnormals(&sub);
    ASSERT_FALSE(e) << *e;
  }
  gelu::gpu::Context* ctx = nullptr;
  std::unique_ptr<gelu::gpu::Evaluator> ev;
  gelu::gpu::Subnormals sub;
};

TEST_F(GpuAgreement, EveryFunctionOrderAndParameterSetWithin4Ulp) {
  ASSERT_NO_FATAL_FAILURE(probe());
  std::printf("[ device  ] %s: %s\n", ctx->info().renderer.c_str(),
              sub.any() ? sub.describe().c_str() : "float32 subnormals kept");
  const std::vector<float> x = test_inputs();
  std::vector<float> y(x.size());
  std::size_t by_flushing = 0;  // comparisons that pass only as the flushing device computes them
  for (const gelu::Activation& a : gelu::registry()) {
    for (int order = 0; order <= 2; ++order) {
      double worst_all = 0;
      for (const gelu::Params& p : param_sets(a)) {
        const auto e = ev->eval(a, order, p, x, y);
        ASSERT_FALSE(e) << a.id << " order " << order << ": " << *e;
        const auto f = a.f64[static_cast<std::size_t>(order)];
        double worst = 0;
        std::size_t at = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
          const float ref = static_cast<float>(f(static_cast<double>(x[i]), p));
          double d = ulp_distance(y[i], ref);
          if (d > kBound && sub.any()) {
            const float xin = sub.inputs_flushed ? flushed(x[i]) : x[i];
            const float ref_in = static_cast<float>(f(static_cast<double>(xin), p));
            for (float r : {ref, ref_in}) {
              d = std::min(
                  {d, ulp_distance(y[i], r), sub.results_flushed ? ulp_distance(y[i], flushed(r)) : d});
              // ±0 for a normal r within the bound of FLT_MIN: a result within the bound below FLT_MIN,
              // flushed.
              if (sub.results_flushed && y[i] == 0.0f && std::fabs(r) >= FLT_MIN &&
                  ulp_distance(std::fabs(r), FLT_MIN) < kBound)
                d = 0;
            }
            if (d <= kBound) ++by_flushing;
          }
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
  std::printf("[ flushed ] %zu comparisons within the bound only as the device flushes subnormals\n",
              by_flushing);
}

TEST_F(GpuAgreement, SubnormalProbeMatchesTheEvaluator) {
  // The probe's answer is what every kernel does: exact GELU of 2^-140 is 2^-141 (a subnormal result of a
  // subnormal input) where subnormals are kept, ±0 where either is flushed; of −13.5 about −1.7e-41 or −0.
  ASSERT_NO_FATAL_FAILURE(probe());
  const gelu::Activation* gelu_fn = gelu::find_activation("gelu");
  ASSERT_NE(gelu_fn, nullptr);
  const std::vector<float> x{0x1p-140f, -0x1p-140f, -13.5f};
  std::vector<float> y(x.size(), 1.0f);
  ASSERT_FALSE(ev->eval(*gelu_fn, 0, gelu_fn->defaults(), x, y));
  const float tail = static_cast<float>(gelu_fn->f64[0](-13.5, gelu_fn->defaults()));
  ASSERT_TRUE(tail < 0 && tail > -FLT_MIN);  // the reference itself is subnormal there
  if (sub.any()) {
    EXPECT_EQ(y[0], 0.0f) << std::hexfloat << y[0];
    EXPECT_EQ(y[1], 0.0f) << std::hexfloat << y[1];
    EXPECT_EQ(y[2], 0.0f) << std::hexfloat << y[2];
    EXPECT_FALSE(sub.describe().empty());
  } else {
    EXPECT_EQ(y[0], 0x1p-141f) << std::hexfloat << y[0];
    EXPECT_EQ(y[1], -0x1p-141f) << std::hexfloat << y[1];
    EXPECT_LE(ulp_distance(y[2], tail), kBound) << std::hexfloat << y[2] << " vs " << tail;
    EXPECT_TRUE(sub.describe().empty());
  }
}

TEST_F(GpuAgreement, NoNanOrInfFromFiniteInputs) {
  // The tanh form is the classic offender (tanh overflowing for x < -13 on GPUs): sweep far tails.
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

// The stochastic view: keep/drop probabilities, the seeded Monte-Carlo gate, Gaussian pre-activations.
#include "gelu/stochastic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "formulas.hpp"
#include "gelu/activation.hpp"

namespace {

namespace S = gelu::stochastic;

TEST(Stochastic, RngIsTheSpecifiedXoshiro) {
  // xoshiro256** from a splitmix64-filled state: the first outputs for seed 0 are fixed forever, on every
  // platform (values from the reference C implementations of splitmix64 and xoshiro256**).
  S::Rng a(0), b(0), c(1);
  const std::uint64_t first = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, c.next());
  EXPECT_EQ(first, 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(a.next(), 0xbf6e1f784956452aULL);
  S::Rng u(42);
  for (int i = 0; i < 100000; ++i) {
    const double v = u.uniform();
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
}

TEST(Stochastic, NormalsHaveUnitMoments) {
  S::Rng r(7);
  double sum = 0, sum2 = 0;
  constexpr int n = 400000;
  for (int i = 0; i < n; ++i) {
    const double z = r.normal();
    sum += z;
    sum2 += z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 5.0 / std::sqrt(double(n)));
  EXPECT_NEAR(sum2 / n, 1.0, 0.01);
}

TEST(Stochastic, KeepAndDropProbabilities) {
  for (double x : {-30.0, -5.0, -0.75, 0.0, 0.3, 2.0, 8.0}) {
    EXPECT_NEAR(S::keep_probability(x) + S::drop_probability(x), 1.0, 1e-15) << x;
    EXPECT_DOUBLE_EQ(S::drop_probability(x), S::keep_probability(-x)) << x;
  }
  EXPECT_EQ(S::keep_probability(0.0), 0.5);
  // No cancellation in the tail: 1 - Phi(10) = 7.6198530241605e-24.
  EXPECT_NEAR(S::drop_probability(10.0) / 7.619853024160527e-24, 1.0, 1e-14);
  EXPECT_TRUE(std::isnan(S::keep_probability(std::nan(""))));
}

TEST(Stochastic, MonteCarloGateConvergesWithinItsStandardError) {
  for (double x : {-2.0, -0.75, 0.5, 1.5}) {
    const S::MonteCarloResult r = S::monte_carlo_gate(x, 200000, 1234, 100);
    EXPECT_DOUBLE_EQ(r.exact, gelu::formulas::gelu(x));
    ASSERT_GT(r.std_error, 0.0);
    EXPECT_LT(std::fabs(r.mean - r.exact), 5.0 * r.std_error) << x;
    // The standard error estimates |x| sqrt(Phi (1 - Phi) / n).
    const double p = S::keep_probability(x);
    EXPECT_NEAR(r.std_error, std::fabs(x) * std::sqrt(p * (1 - p) / 200000.0), 0.05 * r.std_error);
    ASSERT_FALSE(r.running_mean.empty());
    EXPECT_EQ(r.running_n.back(), 200000u);
    EXPECT_EQ(r.running_mean.back(), r.mean);
    EXPECT_TRUE(std::is_sorted(r.running_n.begin(), r.running_n.end()));
    EXPECT_LE(r.running_n.size(), 101u);
  }
}

TEST(Stochastic, MonteCarloIsReproducible) {
  const S::MonteCarloResult a = S::monte_carlo_gate(0.7, 5000, 99), b = S::monte_carlo_gate(0.7, 5000, 99),
                            c = S::monte_carlo_gate(0.7, 5000, 100);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.running_mean, b.running_mean);
  EXPECT_NE(a.running_mean, c.running_mean);
}

/// E[f(X)], X ~ N(mu, sigma^2), by composite Simpson over [max(mu - 14 sigma, from), mu + 14 sigma]; f must
/// vanish below `from` and be smooth above it (ReLU's kink sits at the end point, not inside).
double quadrature(double (*f)(double), double mu, double sigma, double from = -1e300) {
  constexpr int n = 40000;
  const double a = std::max(mu - 14 * sigma, from), b = mu + 14 * sigma, h = (b - a) / n;
  double s = 0;
  for (int i = 0; i <= n; ++i) {
    const double x = a + i * h;
    const double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    s += w * f(x) * gelu::formulas::normal_pdf((x - mu) / sigma) / sigma;
  }
  return s * h / 3;
}

TEST(Stochastic, ClosedFormsOfGaussianExpectationsMatchQuadrature) {
  for (double mu : {-3.0, -0.5, 0.0, 0.8, 2.5})
    for (double sigma : {0.1, 0.7, 1.0, 3.0}) {
      EXPECT_NEAR(S::expected_gelu(mu, sigma), quadrature(gelu::formulas::gelu, mu, sigma), 1e-12)
          << mu << " " << sigma;
      EXPECT_NEAR(S::expected_relu(mu, sigma), quadrature(gelu::formulas::relu, mu, sigma, 0.0), 1e-12)
          << mu << " " << sigma;
    }
  // sigma = 0: the functions themselves.
  EXPECT_DOUBLE_EQ(S::expected_gelu(0.9, 0.0), gelu::formulas::gelu(0.9));
  EXPECT_EQ(S::expected_relu(-0.9, 0.0), 0.0);
  EXPECT_THROW(S::expected_gelu(0.0, -1.0), std::invalid_argument);
}

TEST(Stochastic, PushforwardSamplesAgreeWithTheClosedForms) {
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const gelu::Activation& r = *gelu::find_activation("relu");
  const S::Pushforward pg = S::pushforward(g, g.defaults(), 0.4, 1.3, 200000, 5, 50);
  const S::Pushforward pr = S::pushforward(r, r.defaults(), 0.4, 1.3, 200000, 5, 50);
  EXPECT_EQ(pg.input, pr.input);  // same seed, same draws
  EXPECT_LT(std::fabs(pg.mean - S::expected_gelu(0.4, 1.3)), 5 * pg.std_error);
  EXPECT_LT(std::fabs(pr.mean - S::expected_relu(0.4, 1.3)), 5 * pr.std_error);
  EXPECT_EQ(pg.output_hist.total(), 200000u);
  EXPECT_EQ(pg.output_hist.counts.size(), 50u);
  EXPECT_EQ(pg.output_hist.below + pg.output_hist.above + pg.output_hist.nan, 0u);
  // GELU's outputs never go below its minimum; ReLU's pile up at 0 (first bin holds about Phi(-mu/sigma)).
  EXPECT_GE(pg.output_hist.lo, -0.1700);
  const double zeros = double(std::count(pr.output.begin(), pr.output.end(), 0.0)) / 200000.0;
  EXPECT_NEAR(zeros, S::keep_probability(-0.4 / 1.3), 0.005);
  EXPECT_GE(double(pr.output_hist.counts[0]) / 200000.0, zeros);
  // The input histogram integrates to one as a density.
  double area = 0;
  for (std::size_t i = 0; i < pg.input_hist.counts.size(); ++i)
    area += pg.input_hist.density(i) * pg.input_hist.bin_width();
  EXPECT_NEAR(area, 1.0, 1e-12);
}

TEST(Stochastic, HistogramEdges) {
  const std::vector<double> v = {0.0, 0.5, 1.0, -1.0, 2.0, std::nan("")};
  const S::Histogram h = S::histogram(v, 2, 0.0, 1.0);
  EXPECT_EQ(h.counts[0], 1u);
  EXPECT_EQ(h.counts[1], 2u);  // 0.5 and the upper edge 1.0
  EXPECT_EQ(h.below, 1u);
  EXPECT_EQ(h.above, 1u);
  EXPECT_EQ(h.nan, 1u);
  const S::Histogram d = S::histogram(std::vector<double>(10, 3.0), 4);  // degenerate: widened around 3
  EXPECT_LT(d.lo, 3.0);
  EXPECT_GT(d.hi, 3.0);
  EXPECT_EQ(d.total(), 10u);
}

}  // namespace

TEST(Stochastic, SampleNormalIsTheRngsNormalsOneByOne) {
  // Drawn in two passes (the stream in order, the logarithms on the pool): the same values as Rng::normal
  // called n times, for odd and even n, small and large enough to be split across threads.
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100001}, std::size_t{262144}}) {
    const std::vector<double> x = gelu::stochastic::sample_normal(0.25, 1.5, n, 42);
    gelu::stochastic::Rng rng(42);
    ASSERT_EQ(x.size(), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(x[i], 0.25 + 1.5 * rng.normal()) << n << " at " << i;
  }
}

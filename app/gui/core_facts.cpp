#include "core_facts.hpp"

#include <cmath>

#include "gelu/activation.hpp"

namespace gelu::app {

GeluMinimum gelu_minimum() {
  static const GeluMinimum m = [] {
    // PENDING core analysis (gelu/analysis.hpp): Newton on the registry's f'/f'' meanwhile.
    const Activation* g = find_activation("gelu");
    double x = -0.75;
    for (int i = 0; i < 50; ++i) {
      const double step = g->eval(x, 1) / g->eval(x, 2);
      x -= step;
      if (std::fabs(step) < 1e-16) break;
    }
    return GeluMinimum{x, g->eval(x, 0)};
  }();
  return m;
}

}  // namespace gelu::app

namespace gelu::app {

namespace {
double ulp_of(double v) {
  const double a = std::fabs(v);
  return std::isfinite(a) ? std::nextafter(a, INFINITY) - a : NAN;
}
double ulp_of(float v) {
  const float a = std::fabs(v);
  return std::isfinite(a) ? static_cast<double>(std::nextafter(a, INFINITY) - a) : NAN;
}
}  // namespace

MaxError error_curve(ErrorMetric metric, bool f32, const Activation& approx, const Params& pa, const Activation& ref,
                     const Params& pr, std::span<const double> xs, std::span<double> err) {
  // PENDING core analysis (gelu/analysis.hpp error curves): registry evaluations meanwhile.
  MaxError m{0, NAN};
  for (std::size_t i = 0; i < xs.size() && i < err.size(); ++i) {
    const double x = f32 ? static_cast<double>(static_cast<float>(xs[i])) : xs[i];
    const double r = ref.eval(x, 0, &pr);
    double a = 0, u = 0;
    if (f32) {
      const float af = approx.eval(static_cast<float>(x), 0, &pa);
      a = static_cast<double>(af);
      u = ulp_of(static_cast<float>(r));
    } else {
      a = approx.eval(x, 0, &pa);
      u = ulp_of(r);
    }
    const double d = std::fabs(a - r);
    double e = d;
    if (metric == ErrorMetric::Rel) e = r != 0 ? d / std::fabs(r) : (d == 0 ? 0 : INFINITY);
    if (metric == ErrorMetric::Ulp) e = d / u;
    err[i] = e;
    if (std::isfinite(e) && !(e <= m.value)) m = {xs[i], e};
  }
  return m;
}

}  // namespace gelu::app

namespace gelu::app {

// PENDING core stochastic view (gelu/stochastic.hpp): the same quantities from the C++ standard library
// and the core's seeded generator meanwhile.
double keep_probability(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

MaskEstimator::MaskEstimator(double x, std::uint64_t seed) : x_(x), p_(keep_probability(x)), rng_(seed) {}

bool MaskEstimator::draw() {
  const bool kept = rng_.uniform() < p_;
  ++n_;
  kept_ += kept;
  return kept;
}

double MaskEstimator::mean() const { return n_ ? x_ * static_cast<double>(kept_) / static_cast<double>(n_) : NAN; }

double MaskEstimator::standard_error() const {
  return n_ ? std::fabs(x_) * std::sqrt(p_ * (1 - p_) / static_cast<double>(n_)) : NAN;
}

GaussianThrough gaussian_through(double mu, double sigma) {
  const double inv_sqrt_2pi = 0.3989422804014327;
  auto pdf = [&](double t) { return inv_sqrt_2pi * std::exp(-0.5 * t * t); };
  const double s = std::sqrt(1 + sigma * sigma);
  return {mu * keep_probability(mu / s) + sigma * sigma / s * pdf(mu / s),
          mu * keep_probability(mu / sigma) + sigma * pdf(mu / sigma)};
}

void normal_samples(double mu, double sigma, std::uint64_t seed, std::span<double> out) {
  ffn::Rng rng(seed);
  for (double& v : out) v = mu + sigma * rng.normal();
}

}  // namespace gelu::app

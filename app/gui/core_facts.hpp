// The core results the panels quote (GELU's minimum, error curves, the stochastic view), in one place so
// every panel asks gelu::core the same way.
#pragma once

#include <cstdint>
#include <span>

#include "gelu/activation.hpp"
#include "gelu/ffn/rng.hpp"

namespace gelu::app {

struct GeluMinimum {
  double x, y;  // argmin and minimum value of exact GELU
};
/// GELU's global minimum, solved numerically by core (computed once, cached).
GeluMinimum gelu_minimum();

enum class ErrorMetric { Abs, Rel, Ulp };
struct MaxError {
  double x = 0, value = 0;  // where and how large; value NaN when nothing was finite
};
/// err[i] = error of `approx` (parameters pa) against `ref` (pr) at xs[i], in the given metric. With
/// f32, `approx` is evaluated in float32 at float32-rounded inputs and ULPs are float32 ULPs.
/// Returns the maximum and where it occurs.
MaxError error_curve(ErrorMetric metric, bool f32, const Activation& approx, const Params& pa,
                     const Activation& ref, const Params& pr, std::span<const double> xs, std::span<double> err);

}  // namespace gelu::app

namespace gelu::app {

/// Keep probability Φ(x) of the stochastic view of GELU (drop probability is 1 − Φ(x)).
double keep_probability(double x);

/// The stochastic view of GELU at one x: masks m ~ Bernoulli(Φ(x)), and the running Monte-Carlo
/// estimate of E[x·m] = GELU(x) with its standard error. Seeded: the same seed gives the same masks.
class MaskEstimator {
 public:
  MaskEstimator(double x, std::uint64_t seed);
  /// Draws one mask (true = kept) and updates the running estimate.
  bool draw();
  std::uint64_t count() const { return n_; }
  double mean() const;            // running mean of x·m
  double standard_error() const;  // of the running mean, from the exact variance x²·Φ·(1 − Φ)
  double x() const { return x_; }
  double keep() const { return p_; }

 private:
  double x_, p_;
  std::uint64_t n_ = 0, kept_ = 0;
  ffn::Rng rng_;
};

/// z ~ N(μ, σ) pushed through GELU and ReLU: the exact expected outputs.
struct GaussianThrough {
  double mean_gelu, mean_relu;
};
GaussianThrough gaussian_through(double mu, double sigma);
/// n seeded draws of z ~ N(μ, σ).
void normal_samples(double mu, double sigma, std::uint64_t seed, std::span<double> out);

}  // namespace gelu::app

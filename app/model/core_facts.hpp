// The core results the panels show (GELU's minimum, error curves, the stochastic view), asked of gelu::core
// in one place so every panel gets them the same way. No formula lives here: only calls into core.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/stochastic.hpp"

namespace gelu::app {

struct GeluMinimum {
  double x, y;  // argmin and minimum value of exact GELU
};
/// GELU's global minimum, solved numerically by gelu::analysis::properties (computed once, cached).
GeluMinimum gelu_minimum();
/// GELU's inflection points (zeros of f″), from the same properties.
const std::vector<double>& gelu_inflections();

enum class ErrorMetric { Abs, Rel, Ulp };
struct MaxError {
  double x = 0, value = 0;  // where and how large (the first sample where it occurs)
};
/// err[i] = error of `approx` (parameters pa) against `ref` (pr, in double) at xs[i], with core's distance
/// for the metric. With f32, `approx` runs in float32 on float32-rounded inputs and ULPs are float32 ULPs.
void error_curve(ErrorMetric metric, bool f32, const Activation& approx, const Params& pa,
                 const Activation& ref, const Params& pr, std::span<const double> xs, std::span<double> err);
/// The largest error on n evenly spaced samples of [a, b] and where it occurs (gelu::analysis::compare).
MaxError max_error(ErrorMetric metric, bool f32, const Activation& approx, const Params& pa,
                   const Activation& ref, const Params& pr, double a, double b, std::size_t n);
/// Error of values v computed in float32 (e.g. on the GPU) against references r (double), core's distance.
double error_of_f32(ErrorMetric metric, float v, double r);

/// The stochastic view of GELU at one x, growing one frame at a time: the Monte-Carlo estimate of
/// E[x·m], m ~ Bernoulli(Φ(x)), from gelu::stochastic::monte_carlo_gate over the first n draws of the
/// seeded stream, plus the most recent masks of that same stream for display.
class MaskStream {
 public:
  MaskStream(double x, std::uint64_t seed);
  /// Extends the stream to n draws in total (n never decreases).
  void grow_to(std::size_t n);
  std::size_t count() const { return result_.samples; }
  const stochastic::MonteCarloResult& result() const { return result_; }
  /// The last masks drawn, oldest first (true = kept), at most `keep` of them.
  const std::vector<bool>& recent() const { return recent_; }
  /// Kept masks among all replayed draws (x·kept/count equals the estimator's mean).
  std::size_t kept() const { return kept_; }
  double x() const { return x_; }
  double keep() const { return keep_; }

 private:
  double x_, keep_;
  std::uint64_t seed_;
  stochastic::Rng rng_;  // replays the estimator's stream for the mask display
  std::size_t drawn_ = 0, kept_ = 0;
  std::vector<bool> recent_;
  stochastic::MonteCarloResult result_;
};

}  // namespace gelu::app

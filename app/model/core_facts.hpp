// The core results the panels show (GELU's minimum, error curves, the stochastic view), asked of gelu::core
// in one place so every panel gets them the same way. No formula lives here: only calls into core.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gelu/activation.hpp"

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

}  // namespace gelu::app

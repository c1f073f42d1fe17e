#include "model/core_facts.hpp"

#include <algorithm>
#include <cmath>

#include "gelu/analysis.hpp"

namespace gelu::app {

namespace {
analysis::ErrorMetric to_core(ErrorMetric m) {
  return m == ErrorMetric::Abs   ? analysis::ErrorMetric::Abs
         : m == ErrorMetric::Rel ? analysis::ErrorMetric::Rel
                                 : analysis::ErrorMetric::Ulp;
}
}  // namespace

namespace {
const analysis::Properties& gelu_properties() {
  static const analysis::Properties p = analysis::properties(analysis::spec(*find_activation("gelu")));
  return p;
}
}  // namespace

GeluMinimum gelu_minimum() {
  const analysis::Properties& p = gelu_properties();
  return p.global_minimum ? GeluMinimum{p.global_minimum->x, p.global_minimum->value} : GeluMinimum{NAN, NAN};
}

const std::vector<double>& gelu_inflections() {
  return gelu_properties().inflection_points;
}

double error_of_f32(ErrorMetric metric, float v, double r) {
  switch (metric) {
    case ErrorMetric::Abs:
      return analysis::abs_error(static_cast<double>(v), r);
    case ErrorMetric::Rel:
      return analysis::rel_error(static_cast<double>(v), r);
    case ErrorMetric::Ulp:
      return analysis::ulp_error_f32(v, r);
  }
  return NAN;
}

void error_curve(ErrorMetric metric, bool f32, const Activation& approx, const Params& pa,
                 const Activation& ref, const Params& pr, std::span<const double> xs, std::span<double> err) {
  const std::size_t n = std::min(xs.size(), err.size());
  thread_local std::vector<double> xd, r, v;
  thread_local std::vector<float> xf, vf;
  xd.assign(xs.begin(), xs.begin() + static_cast<long>(n));
  if (f32)
    for (double& x : xd) x = static_cast<double>(static_cast<float>(x));
  r.resize(n);
  ref.eval(std::span<const double>(xd), std::span<double>(r), 0, &pr);
  if (f32) {
    xf.assign(xd.begin(), xd.end());
    vf.resize(n);
    approx.eval(std::span<const float>(xf), std::span<float>(vf), 0, &pa);
    for (std::size_t i = 0; i < n; ++i) err[i] = error_of_f32(metric, vf[i], r[i]);
    return;
  }
  v.resize(n);
  approx.eval(std::span<const double>(xd), std::span<double>(v), 0, &pa);
  for (std::size_t i = 0; i < n; ++i) {
    switch (metric) {
      case ErrorMetric::Abs:
        err[i] = analysis::abs_error(v[i], r[i]);
        break;
      case ErrorMetric::Rel:
        err[i] = analysis::rel_error(v[i], r[i]);
        break;
      case ErrorMetric::Ulp:
        err[i] = analysis::ulp_error_f64(v[i], r[i]);
        break;
    }
  }
}

MaxError max_error(ErrorMetric metric, bool f32, const Activation& approx, const Params& pa,
                   const Activation& ref, const Params& pr, double a, double b, std::size_t n) {
  const analysis::ErrorReport rep =
      analysis::compare(analysis::FunctionSpec{&approx, pa, 0}, analysis::FunctionSpec{&ref, pr, 0}, a, b, n,
                        Format(f32 ? FormatId::F32 : FormatId::F64));
  const analysis::ErrorStats& s = rep.stats(to_core(metric));
  return MaxError{s.x_at_max, s.max};
}

}  // namespace gelu::app

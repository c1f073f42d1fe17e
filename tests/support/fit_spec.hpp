// A gelu::fit::Spec in one call, for the fit tests (CPU, Sollya, GLSL): target, form, degree, range, weight
// and coefficient format; the other fields keep Spec's defaults.
#pragma once

#include "gelu/fit.hpp"
#include "gelu/format.hpp"

namespace gelu::test {

inline fit::Spec fit_spec(fit::Target t, fit::Form f, int degree, double a, double b,
                          fit::Weight w = fit::Weight::Abs, FormatId fmt = FormatId::F64) {
  fit::Spec s;
  s.target = t;
  s.form = f;
  s.degree = degree;
  s.a = a;
  s.b = b;
  s.weight = w;
  s.format = fmt;
  return s;
}

}  // namespace gelu::test

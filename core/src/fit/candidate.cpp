// [SECTION] A fitted candidate: evaluation (exact, double, and a float loop the compiler vectorizes), its
// cost, its formula text and names.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "fit_internal.hpp"
#include "gelu/numio.hpp"

namespace gelu::fit {

using detail::clamp_value;
using detail::D;
using detail::eval_block;
using detail::kBlock;
using detail::L;
using detail::ld;
using detail::per_piece;
using detail::piece_of;

namespace {

/// The same in the target's own terms (Φ, erf(x/√2)): what the form's value would be to give it.
ld clamp_target(const Spec& s, double x, bool left) {
  const ld out = clamp_value<ld>(s, L(x), left);
  switch (s.target) {
    case Target::Phi:
      return s.clamp == Clamp::Zero ? 0.0L : (s.clamp == Clamp::X ? 1.0L : (left ? 0.0L : 1.0L));
    case Target::Erf:
      return s.clamp == Clamp::Zero ? -1.0L : (s.clamp == Clamp::X ? 1.0L : (left ? -1.0L : 1.0L));
    default:
      return out;
  }
}

ld horner_ld(const double* c, std::size_t n, ld v) {
  ld p = 0;
  for (std::size_t k = n; k-- > 0;) p = p * v + L(c[k]);
  return p;
}

std::string num(double v) {
  return format_f64(v);
}

}  // namespace

namespace detail {

ld form_value(const Candidate& cand, const std::vector<double>& c, ld x) {
  const Spec& s = cand.spec;
  const std::size_t n = per_piece(s);
  switch (s.form) {
    case Form::Poly:
      return horner_ld(c.data(), n, x);
    case Form::HalfXPolyAbs:
      return 0.5L * x + horner_ld(c.data(), n, std::fabs(x));
    case Form::Even:
      return 0.5L * x + horner_ld(c.data(), n, x * x);
    case Form::Rational:
      return horner_ld(c.data(), n, x) /
             horner_ld(c.data() + n, static_cast<std::size_t>(s.denominator_degree) + 1, x);
    case Form::Piecewise: {
      const auto j = static_cast<std::size_t>(piece_of<double>(cand, D(x)));
      return horner_ld(c.data() + j * n, n, x - L(cand.centers[j]));
    }
  }
  return 0;
}

}  // namespace detail

long double Candidate::value_ld(long double x) const {
  if (spec.clamp != Clamp::None && (x < spec.a || x > spec.b)) return clamp_target(spec, D(x), x < spec.a);
  return detail::form_value(*this, coefficients, x);
}

double Candidate::eval_target(double x) const {
  return D(value_ld(x));
}

double Candidate::eval(double x) const {
  double y;
  if (spec.fma)
    eval_block<double, true>(*this, &x, &y, 1);
  else
    eval_block<double, false>(*this, &x, &y, 1);
  return y;
}

float Candidate::eval(float x) const {
  float y;
  if (spec.fma)
    eval_block<float, true>(*this, &x, &y, 1);
  else
    eval_block<float, false>(*this, &x, &y, 1);
  return y;
}

void Candidate::eval(std::span<const float> x, std::span<float> y) const {
  const std::size_t n = std::min(x.size(), y.size());
  for (std::size_t i = 0; i < n; i += kBlock) {
    if (spec.fma)
      eval_block<float, true>(*this, x.data() + i, y.data() + i, std::min(kBlock, n - i));
    else
      eval_block<float, false>(*this, x.data() + i, y.data() + i, std::min(kBlock, n - i));
  }
}

double Candidate::error_at(double x) const {
  const ld g = target_ld(spec.target, x);
  return D(detail::weight_at(spec, g) * (g - value_ld(x)));
}

std::vector<ErrorPoint> Candidate::error_curve(std::size_t n) const {
  std::vector<ErrorPoint> out;
  if (n < 2) n = 2;
  for (std::size_t i = 0; i < n; ++i) {
    const double x =
        i + 1 == n ? spec.b : D(L(spec.a) + (L(spec.b) - L(spec.a)) * L(double(i)) / L(double(n - 1)));
    out.push_back({x, error_at(x)});
  }
  return out;
}

Cost Candidate::cost() const {
  Cost c;
  const int d = spec.degree;
  const std::size_t bytes = static_cast<std::size_t>(number_format(spec.format).bits / 8);
  switch (spec.form) {
    case Form::Poly:
      c.multiply_adds = d;
      break;
    case Form::HalfXPolyAbs:
      c.multiply_adds = d + 1;  // Horner in |x|, then 0.5·x + p as one fma
      c.comparisons = 1;        // |x|
      break;
    case Form::Even:
      c.multiply_adds = d + 2;  // x², Horner in x², 0.5·x + p
      break;
    case Form::Rational:
      c.multiply_adds = d + spec.denominator_degree;
      c.divisions = 1;
      break;
    case Form::Piecewise: {
      const int K = spec.pieces;
      const bool uniform = spec.breakpoints == Breakpoints::Uniform;
      c.multiply_adds = d + 1 + (uniform ? 1 : 0);  // [(x − A)·K/(B − A),] x − m_j, Horner
      c.comparisons = uniform ? 3 : K - 1;          // truncate + clamp the index, or count breakpoints
      c.table_bytes = static_cast<std::size_t>(K) * (per_piece(spec) + 1) * bytes +
                      (uniform ? 0 : static_cast<std::size_t>(K - 1) * bytes);
      break;
    }
  }
  if (spec.target == Target::Phi) c.multiply_adds += 1;
  if (spec.target == Target::Erf) c.multiply_adds += 2;
  if (spec.clamp != Clamp::None) c.comparisons += 2;  // one compare-and-select per side
  return c;
}

std::string Candidate::formula() const {
  const std::string d = std::to_string(spec.degree);
  std::string f;
  switch (spec.form) {
    case Form::Poly:
      f = "Σ_{k=0.." + d + "} c_k·x^k";
      break;
    case Form::HalfXPolyAbs:
      f = "0.5·x + Σ_{k=0.." + d + "} c_k·|x|^k";
      break;
    case Form::Even:
      f = "0.5·x + Σ_{k=0.." + d + "} c_k·x^(2k)";
      break;
    case Form::Rational:
      f = "P_" + d + "(x)/Q_" + std::to_string(spec.denominator_degree) + "(x)";
      break;
    case Form::Piecewise:
      f = std::to_string(spec.pieces) + " " + fit::name(spec.breakpoints) + " pieces Σ_{k=0.." + d +
          "} c_jk·(x − m_j)^k";
      break;
  }
  switch (spec.target) {
    case Target::Phi:
      f = "x·f(x), f = " + f;
      break;
    case Target::Erf:
      f = "½·x·(1 + f(x)), f = " + f;
      break;
    default:
      break;
  }
  f += " on [" + num(spec.a) + ", " + num(spec.b) + "]";
  switch (spec.clamp) {
    case Clamp::None:
      break;
    case Clamp::Zero:
      f += "; 0 outside";
      break;
    case Clamp::X:
      f += "; x outside";
      break;
    case Clamp::Limits:
      f += spec.target == Target::GeluPrime ? "; 0 below, 1 above" : "; 0 below, x above";
      break;
  }
  return f;
}

// (Built with append: GCC 12 reports a false -Wrestrict on `std::string(a) + "…"` chains here.)
std::string Candidate::name() const {
  std::string n = fit::name(spec.target);
  n.append(" ≈ ").append(fit::name(spec.form));
  if (spec.form == Form::Rational)
    n.append(" ")
        .append(std::to_string(spec.degree))
        .append("/")
        .append(std::to_string(spec.denominator_degree));
  else
    n.append(" d=").append(std::to_string(spec.degree));
  if (spec.form == Form::Piecewise) n.append(" K=").append(std::to_string(spec.pieces));
  n.append(" [").append(num(spec.a)).append(", ").append(num(spec.b)).append("] ");
  n.append(number_format(spec.format).name);
  return n;
}

std::string Candidate::id() const {
  std::string s = "fit_";
  s.append(fit::name(spec.target)).append("_").append(fit::name(spec.form)).append("_");
  s.append(std::to_string(spec.degree));
  if (spec.form == Form::Rational) s.append("_").append(std::to_string(spec.denominator_degree));
  if (spec.form == Form::Piecewise) s.append("_k").append(std::to_string(spec.pieces));
  s.append("_").append(number_format(spec.format).name);
  return s;
}

}  // namespace gelu::fit

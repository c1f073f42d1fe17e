// [SECTION] Targets in long double, weights, name tables and validation of a request.
#include <cfloat>
#include <cmath>
#include <string>
#include <string_view>

#include "fit_internal.hpp"
#include "formulas.hpp"
#include "gelu/numio.hpp"

namespace gelu::fit {

namespace {

constexpr Named<Target> kTargets[] = {
    {Target::Gelu, "gelu", "GELU(x) = x·Φ(x)"},
    {Target::Phi, "phi", "Φ(x), then GELU = x·Φ"},
    {Target::Erf, "erf", "erf(x/√2), then GELU = ½·x·(1 + erf)"},
    {Target::GeluPrime, "gelu_prime", "GELU′(x) = Φ(x) + x·φ(x)"},
};
constexpr Named<Form> kForms[] = {
    {Form::Poly, "poly", "Σ c_k·x^k"},
    {Form::HalfXPolyAbs, "half_x_poly_abs", "0.5·x + Σ c_k·|x|^k"},
    {Form::Even, "even", "0.5·x + Σ c_k·x^(2k)"},
    {Form::Rational, "rational", "P_m(x)/Q_n(x)"},
    {Form::Piecewise, "piecewise", "K pieces Σ c_k·(x − m_j)^k"},
};
constexpr Named<Weight> kWeights[] = {
    {Weight::Abs, "abs", "absolute error"},
    {Weight::Rel, "rel", "relative error"},
    {Weight::Ulp, "ulp", "ULPs of the format"},
};
constexpr Named<Clamp> kClamps[] = {
    {Clamp::None, "none", "the formula everywhere"},
    {Clamp::Zero, "zero", "0 outside [A, B]"},
    {Clamp::X, "x", "x outside [A, B]"},
    {Clamp::Limits, "limits", "the exact limits outside [A, B]"},
};
constexpr Named<Method> kMethods[] = {
    {Method::Minimax, "minimax", "minimax (Remez exchange)"},
    {Method::LeastSquares, "lsq", "least squares"},
};
constexpr Named<Breakpoints> kBreakpoints[] = {
    {Breakpoints::Uniform, "uniform", "uniform breakpoints"},
    {Breakpoints::Optimized, "optimized", "breakpoints that equalize the pieces' errors"},
};

template <class E, std::size_t N>
const char* name_in(const Named<E> (&table)[N], E id) {
  for (const Named<E>& n : table)
    if (n.id == id) return n.name;
  return "?";
}
template <class E, std::size_t N>
std::optional<E> parse_in(const Named<E> (&table)[N], std::string_view s) {
  for (const Named<E>& n : table)
    if (s == n.name) return n.id;
  return std::nullopt;
}

/// Concatenation by append (GCC 12 reports a false -Wrestrict on some `"…" + std::string` chains).
template <class... A>
std::string cat(const A&... a) {
  std::string s;
  (s.append(std::string_view(a)), ...);
  return s;
}

using detail::ld;
constexpr ld kInvSqrt2 = 0.707106781186547524400844362104849039L;
constexpr ld kInvSqrt2Pi = 0.398942280401432677939946059934381868L;

ld phi_ld(double x) {
  return x < 0 ? formulas::normal_upper_tail_ld(-x) : 1.0L - formulas::normal_upper_tail_ld(x);
}

/// GELU′'s zero (−0.7517915…), to double precision, found once by bisection.
double gelu_prime_zero() {
  static const double z = [] {
    double lo = -1.0, hi = -0.5;  // GELU′(−1) < 0 < GELU′(−0.5)
    while (true) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      (target_ld(Target::GeluPrime, mid) < 0 ? lo : hi) = mid;
    }
    return hi;
  }();
  return z;
}

}  // namespace

std::span<const Named<Target>> targets() {
  return kTargets;
}
std::span<const Named<Form>> forms() {
  return kForms;
}
std::span<const Named<Weight>> weights() {
  return kWeights;
}
std::span<const Named<Clamp>> clamps() {
  return kClamps;
}
std::span<const Named<Method>> methods() {
  return kMethods;
}
std::span<const Named<Breakpoints>> breakpoint_rules() {
  return kBreakpoints;
}
const char* name(Target t) {
  return name_in(kTargets, t);
}
const char* name(Form f) {
  return name_in(kForms, f);
}
const char* name(Weight w) {
  return name_in(kWeights, w);
}
const char* name(Clamp c) {
  return name_in(kClamps, c);
}
const char* name(Method m) {
  return name_in(kMethods, m);
}
const char* name(Breakpoints b) {
  return name_in(kBreakpoints, b);
}
std::optional<Target> parse_target(std::string_view s) {
  return parse_in(kTargets, s);
}
std::optional<Form> parse_form(std::string_view s) {
  return parse_in(kForms, s);
}
std::optional<Weight> parse_weight(std::string_view s) {
  return parse_in(kWeights, s);
}
std::optional<Clamp> parse_clamp(std::string_view s) {
  return parse_in(kClamps, s);
}
std::optional<Method> parse_method(std::string_view s) {
  return parse_in(kMethods, s);
}
std::optional<Breakpoints> parse_breakpoints(std::string_view s) {
  return parse_in(kBreakpoints, s);
}

long double target_ld(Target t, double x) {
  if (std::isnan(x)) return x;
  switch (t) {
    case Target::Gelu:
      return static_cast<ld>(x) * phi_ld(x);
    case Target::Phi:
      return phi_ld(x);
    case Target::Erf:
      return ext::erfl_(static_cast<ld>(x) * kInvSqrt2);
    case Target::GeluPrime: {
      const ld xl = x;
      return phi_ld(x) + xl * ext::expl_(-0.5L * xl * xl) * kInvSqrt2Pi;
    }
  }
  return 0;
}

long double compose_ld(Target t, double x, long double f) {
  switch (t) {
    case Target::Phi:
      return static_cast<ld>(x) * f;
    case Target::Erf:
      return 0.5L * static_cast<ld>(x) * (1.0L + f);
    default:
      return f;
  }
}

std::optional<double> target_zero_in(Target t, double a, double b) {
  double z = 0;
  switch (t) {
    case Target::Phi:
      return std::nullopt;
    case Target::GeluPrime:
      z = gelu_prime_zero();
      break;
    default:
      break;
  }
  if (a <= z && z <= b) return z;
  return std::nullopt;
}

std::string command_line(const Spec& s) {
  // Appended piece by piece (GCC 12 warns falsely, -Wrestrict, on "," + std::to_string(…) here).
  std::string c = "gelulab fit --target ";
  const auto add = [&c](std::string_view piece) { c.append(piece); };
  add(name(s.target));
  add(" --form ");
  add(name(s.form));
  add(" --degree ");
  add(std::to_string(s.degree));
  if (s.form == Form::Rational) {
    add(",");
    add(std::to_string(s.denominator_degree));
  }
  if (s.form == Form::Piecewise) {
    add(" --pieces ");
    add(std::to_string(s.pieces));
    add(" --breakpoints ");
    add(name(s.breakpoints));
  }
  add(" --range ");
  add(format_f64(s.a));
  add(":");
  add(format_f64(s.b));
  add(" --weight ");
  add(name(s.weight));
  add(" --format ");
  add(number_format(s.format).name);
  add(" --clamp ");
  add(name(s.clamp));
  if (s.method != Method::Minimax) {
    add(" --method ");
    add(name(s.method));
  }
  if (!s.reoptimize) add(" --no-reoptimize");
  return c;
}

void validate(const Spec& s) {
  const auto num = [](double v) { return format_f64(v); };
  const auto degree_check = [](int d, const char* what) {
    if (d < 0) throw FitError(std::string(what) + " " + std::to_string(d) + " is negative");
    if (d > kMaxDegree)
      throw FitError(std::string(what) + " " + std::to_string(d) + " is above " + std::to_string(kMaxDegree) +
                     ", the highest the designer fits");
  };
  if (!parse_form(name(s.form))) throw FitError("unknown form");
  degree_check(s.degree, s.form == Form::Rational ? "numerator degree" : "degree");
  if (s.form == Form::Rational) {
    degree_check(s.denominator_degree, "denominator degree");
    if (s.denominator_degree < 1)
      throw FitError("a rational form needs a denominator degree of at least 1 (degree M,0 is --form poly)");
    if (s.method == Method::LeastSquares)
      throw FitError(
          "least squares fits the linear forms (poly, half_x_poly_abs, even, piecewise), not rational");
  }
  if (s.form == Form::Piecewise && (s.pieces < 1 || s.pieces > kMaxPieces))
    throw FitError("pieces " + std::to_string(s.pieces) + " is outside [1, " + std::to_string(kMaxPieces) +
                   "]");
  const std::string range = cat("[", num(s.a), ", ", num(s.b), "]");
  if (!std::isfinite(s.a) || !std::isfinite(s.b))
    throw FitError("the range " + range + " must have finite ends");
  if (s.a == s.b) throw FitError("the range " + range + " is empty");
  if (s.a > s.b) throw FitError("the range " + range + " is reversed (A must be less than B)");
  if (std::fabs(s.a) > kMaxAbsRange || std::fabs(s.b) > kMaxAbsRange)
    throw FitError("the range " + range + " reaches beyond ±1e6 (the designer fits within [-1e6, 1e6])");
  if (s.b - s.a < kMinWidth) throw FitError("the range " + range + " is narrower than 1e-6");
  const FormatId f = s.format;
  if (f != FormatId::F64 && f != FormatId::F32 && f != FormatId::BF16 && f != FormatId::F16)
    throw FitError(std::string("coefficients are rounded to f64, f32, bf16 or f16, not ") +
                   number_format(f).name);
  if (s.weight == Weight::Ulp && f == FormatId::F64)
    throw FitError(
        "the ulp weight counts ULPs of the coefficient format: choose f32, bf16 or f16 (--format)");
  if (s.weight != Weight::Abs) {
    const char* what = s.weight == Weight::Rel ? "relative error" : "an error in ULPs";
    if (const auto z = target_zero_in(s.target, s.a, s.b))
      throw FitError(std::string(what) + " makes no sense for " + name(s.target) + " on " + range + ": " +
                     name(s.target) + " is 0 at x = " + num(*z) +
                     ", inside the range (use --weight abs, or a range without that zero)");
    for (double x : {s.a, s.b})
      if (target_ld(s.target, x) == 0)
        throw FitError(std::string(what) + " makes no sense for " + name(s.target) + " on " + range + ": " +
                       name(s.target) + " underflows to 0 at x = " + num(x));
  }
}

namespace detail {

ld weight_at(const Spec& s, ld g) {
  switch (s.weight) {
    case Weight::Abs:
      return 1;
    case Weight::Rel:
      return 1 / std::fabs(g);
    case Weight::Ulp:
      return 1 / static_cast<ld>(Format(s.format).spacing(D(g)));
  }
  return 1;
}

double round_down(const Format& f, double x) {
  if (f.id() == FormatId::F64) return x;
  const double r = f.round(x);
  return r > x ? f.next_down(r) : r;
}
double round_up(const Format& f, double x) {
  if (f.id() == FormatId::F64) return x;
  const double r = f.round(x);
  return r < x ? f.next_up(r) : r;
}

}  // namespace detail

}  // namespace gelu::fit

// GELU Lab core: error analysis and numerically solved properties of registry functions.
//
// [SECTION] Errors: one function (at its parameters and derivative order) against another over [a, b] or at
//           given points, in a number format of gelu/format.hpp (f32 through the batched float API, f64
//           through the double API, the 8- and 16-bit formats as storage formats); the reference always in
//           double. The scoring (abs, rel, ULP, mismatches) is shared with the precision lab (precision.hpp).
// [SECTION] Properties: zeros of f' and f'', extrema, asymptotes and values at notable points, all found
//           numerically (bracketing + Brent + bisection to adjacent doubles), never tabulated.
// [SECTION] Minimax fitting: the parameters of a model that minimize its largest error against a registry
//           function (the fitted constants of the approximation zoo, the Approximations panel's Fit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/format.hpp"

namespace gelu::analysis {

enum class ErrorMetric { Abs, Rel, Ulp };

std::string_view to_string(ErrorMetric m);

/// A registry function pinned to parameters and a derivative order (0 = f, 1 = f', 2 = f'').
struct FunctionSpec {
  const Activation* fn = nullptr;
  Params params{};
  int order = 0;
};
/// The function with its default parameters.
FunctionSpec spec(const Activation& fn, int order = 0);

// [SECTION] Distances. NaN/inf/signed-zero rules, shared by every metric:
//  - both NaN -> 0; exactly one NaN -> +inf (a NaN mismatch is the worst possible error);
//  - +0 and -0 are at distance 0 (the sign of zero is an IEEE property, tested separately);
//  - equal infinities -> 0; an infinity against anything else -> +inf.

/// Spacing of T-numbers at |r|: 2^(e - p + 1) with e = floor(log2 |r|) clamped to T's normal range,
/// so subnormals (and zero) have the spacing of the smallest subnormal. r beyond T's range uses the
/// spacing of T's largest binade.
double ulp_of_f32(double r);
double ulp_of_f64(double r);

/// |v - r| in units of the spacing of T at the reference r (a real number, not rounded), where v was
/// computed in T and r is the double reference. For T = float, r is first rounded to float only to decide
/// the infinity rules (r beyond FLT_MAX and v = inf of the same sign is distance 0).
double ulp_error_f32(float v, double r);
double ulp_error_f64(double v, double r);

/// Steps between a and b through adjacent representable T-numbers: 0 when equal (+0 and -0 included),
/// 1 for neighbours, counted across zero through the subnormals; FLT_MAX and inf are neighbours.
/// Both NaN -> 0; one NaN -> UINT64_MAX.
std::uint64_t ulp_distance(float a, float b);
std::uint64_t ulp_distance(double a, double b);

double abs_error(double v, double r);
/// |v - r| / |r|; r == 0: 0 when v == 0, else +inf.
double rel_error(double v, double r);

/// The ULP error of v, a value computed for the format `fmt`, against the double reference r:
///  - f64 and f32: ulp_error_f64 / ulp_error_f32 — |v - r| in units of the spacing at the real reference r
///    (the libm convention; a correctly rounded result is within 0.5);
///  - the 8- and 16-bit formats (storage formats): the number of representable values between fmt.round(v)
///    and fmt.round(r) (Format::ulp_distance: 0 = identical after rounding, 1 = neighbours; the largest
///    finite value and an infinity are neighbours); both NaN -> 0, one NaN -> +inf.
/// ref_side: which side of r the exact reference lies on where known (gelu::exact_side; 0 unknown): r is
/// then rounded by Format::round_beside, the tie rule.
double ulp_error(const Format& fmt, double v, double r, int ref_side = 0);
/// The error of v (computed for `fmt`) against the double reference r in metric m: abs_error, rel_error or
/// ulp_error — the one dispatch every caller (compare, the panels, GPU results) goes through.
double error(ErrorMetric m, const Format& fmt, double v, double r, int ref_side = 0);
/// v and r differ once both are rounded to fmt (both NaN: equal; +0 and -0: equal; one NaN: differ).
/// r is rounded by the tie rule on ref_side (as in ulp_error).
bool differs(const Format& fmt, double v, double r, int ref_side = 0);

// [SECTION] Errors over a range.

struct ErrorStats {
  double max = 0;             // largest error (may be +inf)
  double x_at_max = 0;        // first sample where it occurs
  double mean = 0;            // over the samples with a finite error
  std::size_t nonfinite = 0;  // samples whose error is +inf (NaN or infinity mismatch, rel error at r == 0)
  std::size_t n = 0;          // samples
  std::size_t mismatch = 0;   // samples whose value and reference differ after rounding to the format
};

struct ErrorReport {
  FunctionSpec fn, reference;  // fn.fn is null when the values came from elsewhere (precision::sweep)
  Format format{FormatId::F64};
  double a = 0, b = 0;
  std::vector<double> x;          // the evaluation points (values of the format)
  std::vector<double> value;      // fn at x, a value of the format, widened to double
  std::vector<double> ref_value;  // reference at x, computed in double (not rounded; score() rounds it to
                                  // the format by the registry's tie rule, gelu::exact_side)
  std::vector<double> abs, rel, ulp;
  ErrorStats abs_stats, rel_stats, ulp_stats;

  const std::vector<double>& curve(ErrorMetric m) const;
  const ErrorStats& stats(ErrorMetric m) const;
};

/// Samples x_i = a + (b - a) i / (n - 1), i = 0..n-1 (n = 1: x = a), each rounded to the format. Requires
/// a <= b finite, n >= 1 (throws std::invalid_argument otherwise). 100k samples take a few ms: the batched
/// paths do the work. How fn is evaluated, by format:
///  - f32: the batched float path (the vectorized kernels where the registry has them);
///  - f64: the batched double path;
///  - bf16, f16, e4m3, e5m2, int8: the double path rounded to the format by gelu::correctly_rounded (the
///    correctly rounded function, the tie rule included; the 8- and 16-bit formats are storage formats).
ErrorReport compare(const FunctionSpec& fn, const FunctionSpec& reference, double a, double b, std::size_t n,
                    const Format& fmt);
/// The same at the given points (each rounded to the format; e.g. every value of a format, fmt.enumerate()).
ErrorReport compare_at(const FunctionSpec& fn, const FunctionSpec& reference, std::vector<double> x,
                       const Format& fmt);
/// Fills abs, rel, ulp and their statistics from r.x, r.value, r.ref_value and r.format: the scoring that
/// compare and precision::sweep share.
void score(ErrorReport& r);
/// Which side of r.ref_value[i] the exact reference lies on (gelu::exact_side of r.reference; 0 unknown).
int reference_side(const ErrorReport& r, std::size_t i);

// [SECTION] Properties.

/// Zeros of g = f^(order) in [lo, hi]: strict sign changes found on a grid of `grid` even intervals merged
/// with a geometric grid around zero (32 points per binade from 2^-1022 out to the range's ends), so that a
/// zero is found whatever the width of a range that contains it (1e-3 to 1e12 wide, asymmetric), refined
/// with Brent's method and then bisection to adjacent doubles; the returned x is the one of the two
/// with the smaller |g| (so it is the root to full double precision as far as g is accurate). A sign
/// change across a jump (|g| does not become small) is not a zero and is skipped. Zeros where g only
/// touches 0 (no sign change) or vanishes on an interval (ReLU's f') are not reported.
std::vector<double> zeros(const FunctionSpec& g, double lo, double hi, std::size_t grid = 40000);

struct CriticalPoint {
  double x = 0;
  double value = 0;      // f(x)
  double d2 = 0;         // f''(x)
  bool minimum = false;  // f' changes sign from - to +
};

/// y = slope * x + intercept as x -> +-inf, from f and f' at x = +-10^3 .. +-10^9. `exists` is false when
/// the estimates do not settle. slope and intercept are reported as exactly 0 or 1 when within 1e-12.
struct Asymptote {
  bool exists = false;
  double slope = 0;
  double intercept = 0;
};

struct NotablePoint {
  double x = 0;
  double f = 0, d1 = 0, d2 = 0;
};

struct Properties {
  FunctionSpec fn;
  double lo = 0, hi = 0;                       // the search range for zeros
  std::vector<CriticalPoint> critical_points;  // zeros of f' with f and f'' there
  std::vector<double> inflection_points;       // zeros of f''
  Asymptote minus_inf, plus_inf;
  /// The lowest strict local minimum when nothing goes lower: no limit at +-inf below it, f bounded below,
  /// and no grid sample below it. Empty for monotone functions or when the infimum is only approached.
  std::optional<CriticalPoint> global_minimum;
  double infimum = 0;                 // inf f over the real line as far as determined (may be -inf)
  std::vector<NotablePoint> notable;  // x = -3, -2, -1, 0, 1, 2, 3
};

/// Properties of fn (its order is ignored: f, f', f'' are all used) with zeros searched in [lo, hi] (on the
/// grid of zeros()): the same critical points, inflection points and global minimum for any range that
/// contains them.
Properties properties(const FunctionSpec& fn, double lo = -20.0, double hi = 20.0);
/// properties(spec(a)) of a registry function at its default parameters on [-20, 20], computed once per
/// process and function (thread-safe): the Curves panel, the Precision panel's int8 view and the lessons'
/// claims share it (a search over ~10^5 points: tens of ms on the desktop, more in the browser).
const Properties& default_properties(const Activation& a);

// [SECTION] Minimax fitting.

/// A model with free parameters p: the value at x (double precision).
using Model = std::function<double(double x, std::span<const double> p)>;

struct MinimaxFit {
  std::vector<double> params;
  double max_error = 0;  // max |model - target| on a grid 16 times denser than the search grid
  double x_at_max = 0;
  std::size_t evaluations = 0;  // model evaluations of the search (grid points x parameter sets)
};

/// The parameters minimizing max over [lo, hi] of |model(x, p) - target(x)|, searched on `grid` evenly spaced
/// points by Nelder-Mead from `start` with initial steps `step`, restarted from the best point until a
/// restart no longer improves it. Deterministic (same inputs, same result). Throws std::invalid_argument for
/// an empty or mismatched start/step, a range that is not finite with lo < hi, or grid < 2. A few ms per
/// parameter with the default grid.
MinimaxFit fit_minimax(const Model& model, const FunctionSpec& target, std::vector<double> start,
                       std::vector<double> step, double lo, double hi, std::size_t grid = 2001);

}  // namespace gelu::analysis

// GELU Lab core: the approximation designer — fit a GELU (or Φ, erf, GELU′) approximation of a chosen form on
// [A, B], round its coefficients to a number format, measure its error and its cost, and evaluate it.
//
// [SECTION] What is fitted
//  Targets (the function the form approximates, and what the candidate then stands for):
//    gelu        GELU(x) = x·Φ(x)                       → the candidate is GELU
//    phi         Φ(x)                                   → GELU(x) = x·f(x)
//    erf         erf(x/√2), in the same variable x      → GELU(x) = ½·x·(1 + f(x))
//    gelu_prime  GELU′(x) = Φ(x) + x·φ(x)               → the candidate is GELU′
//  Forms (coefficients listed lowest power first):
//    poly             f(x) = Σ_{k=0..d} c_k·x^k
//    half_x_poly_abs  f(x) = 0.5·x + Σ_{k=0..d} c_k·|x|^k
//    even             f(x) = 0.5·x + Σ_{k=0..d} c_k·x^{2k}
//    rational         f(x) = P(x)/Q(x), P = Σ_{k=0..m} p_k·x^k, Q = Σ_{k=0..n} q_k·x^k, q_0 = 1
//    piecewise        K pieces [b_j, b_{j+1}], each Σ_{k=0..d} c_{j,k}·(x − m_j)^k with m_j the piece's
//    centre;
//                     breakpoints uniform or optimized (the pieces' minimax errors equalized)
//  Clamp policy outside [A, B], applied to what the candidate stands for (GELU or GELU′): none (the formula
//  everywhere), zero, x, or limits (GELU: 0 below A, x above B; GELU′: 0 and 1).
//  Weights: abs |g − f|; rel |g − f|/|g|; ulp |g − f| / Format::spacing(g) in the chosen format.
//
// [SECTION] How (see docs/designer.md)
//  Minimax: Remez exchange in long double — the dual simplex exchange on a dense reference set (one point in,
//  one point out: Remez's first algorithm), with the continuous extrema of the error found by local
//  maximization and added until the sampled maximum equals the level (relative gap below 1e-9 or at the
//  precision of the arithmetic). For a Haar system the final reference is d + 2 points where the error
//  alternates in sign with equal magnitude. Rational: the classical second Remez algorithm. Least squares:
//  weighted, on the same dense set, by Householder QR in long double.
//  Rounding to f32/bf16/f16: naive rounding, then a greedy pass (round one coefficient, re-fit the others by
//  minimax, as Sollya's fpminimax does in spirit) and a lattice search (±1, ±2 units in the last place per
//  coefficient); the result is never worse than naive rounding (the better of the two is kept).
//  The maximum error is found by dense sampling plus golden-section maximization around every local extremum
//  ("sampled"); the Sollya certifier (gelu/fit_sollya.hpp, optional) encloses it ("certified").
//
// [SECTION] Threading: fit() is pure (no global state) and may run on a worker thread; its progress callback
// is called from that thread and cancels the fit by returning false.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/cost.hpp"
#include "gelu/format.hpp"

namespace gelu::fit {

enum class Target : std::uint8_t { Gelu, Phi, Erf, GeluPrime };
enum class Form : std::uint8_t { Poly, HalfXPolyAbs, Even, Rational, Piecewise };
enum class Weight : std::uint8_t { Abs, Rel, Ulp };
enum class Clamp : std::uint8_t { None, Zero, X, Limits };
enum class Method : std::uint8_t { Minimax, LeastSquares };
enum class Breakpoints : std::uint8_t { Uniform, Optimized };

inline constexpr int kMaxDegree = 30;  // per polynomial (rational: m and n each; piecewise: per piece)
inline constexpr int kMaxPieces = 64;
inline constexpr double kMaxAbsRange = 1e6;  // |A|, |B| at most this
inline constexpr double kMinWidth = 1e-6;    // B − A at least this

// [SECTION] Names (as typed on the command line, stored in sessions)

/// One row of a name table: `name` as typed ("half_x_poly_abs"), `text` for people.
template <class E>
struct Named {
  E id;
  const char* name;
  const char* text;
};
std::span<const Named<Target>> targets();
std::span<const Named<Form>> forms();
std::span<const Named<Weight>> weights();
std::span<const Named<Clamp>> clamps();
std::span<const Named<Method>> methods();
std::span<const Named<Breakpoints>> breakpoint_rules();
const char* name(Target t);
const char* name(Form f);
const char* name(Weight w);
const char* name(Clamp c);
const char* name(Method m);
const char* name(Breakpoints b);
/// nullopt when unknown.
std::optional<Target> parse_target(std::string_view s);
std::optional<Form> parse_form(std::string_view s);
std::optional<Weight> parse_weight(std::string_view s);
std::optional<Clamp> parse_clamp(std::string_view s);
std::optional<Method> parse_method(std::string_view s);
std::optional<Breakpoints> parse_breakpoints(std::string_view s);
/// "a, b, c" of a table's names, for messages.
template <class E>
std::string names(std::span<const Named<E>> table) {
  std::string s;
  for (const Named<E>& n : table) s.append(s.empty() ? "" : ", ").append(n.name);
  return s;
}

// [SECTION] The request

struct Spec {
  Target target = Target::Gelu;
  Form form = Form::HalfXPolyAbs;
  int degree = 6;              // d; the numerator degree m for rational
  int denominator_degree = 2;  // n, rational only (1 ≤ n)
  int pieces = 4;              // K, piecewise only
  Breakpoints breakpoints = Breakpoints::Uniform;
  double a = -4.0, b = 4.0;  // the range [A, B]; rounded outward to `format` before fitting
  Clamp clamp = Clamp::Limits;
  Weight weight = Weight::Abs;
  Method method = Method::Minimax;
  FormatId format = FormatId::F64;  // coefficients rounded to it (f64, f32, bf16, f16); the ulp weight counts
                                    // its ULPs (so needs f32, bf16 or f16)
  bool reoptimize = true;           // after rounding: greedy + lattice search
  bool fma = true;  // Horner with fma (false: every product and sum rounded apart; correctly rounded fits,
                    // gelu/fit_cr.hpp, may ask for it; the evaluators and the exports follow it)
  bool operator==(const Spec&) const = default;
};

/// A request the designer refuses (degree above 30, an empty or reversed range, a weight that makes no sense
/// for the target, …) or a fit that failed; what() is one line, fit for "gelulab fit: <what>".
class FitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// The progress callback returned false.
class Cancelled : public FitError {
 public:
  Cancelled() : FitError("the fit was cancelled") {}
};

/// Throws FitError when `spec` cannot be fitted (checked before any work; fit() calls it too).
void validate(const Spec& spec);
/// The `gelulab fit` command line that makes the same candidate ("gelulab fit --target gelu --form poly
/// --degree 6 --range -4:4 …"): the exports' comment and the Designer's zoo entries cite it.
std::string command_line(const Spec& spec);

// [SECTION] The result

/// A point of the error curve: x and the signed weighted error w(x)·(g(x) − f(x)) there.
struct ErrorPoint {
  double x = 0;
  double error = 0;
};

/// Why a rational fit did not converge, with the best candidate found (see NotConverged).
struct Convergence {
  bool converged = true;
  int iterations =
      0;  // exchange rounds (linear: point sets solved; rational: references; piecewise: the most)
  std::string reason;  // empty when converged
};

class Candidate {
 public:
  Spec spec;  // as fitted: a, b are the range actually used (rounded outward to the format)

  /// The coefficients as used (values of spec.format), lowest power first:
  ///  poly, half_x_poly_abs, even: c_0 … c_d;  rational: p_0 … p_m then q_0 … q_n (q_0 = 1);
  ///  piecewise: piece after piece, c_{j,0} … c_{j,d} (K·(d + 1) numbers).
  std::vector<double> coefficients;
  std::vector<double> unrounded;    // the same before rounding to the format (the fit's own doubles)
  std::vector<double> breakpoints;  // piecewise: b_0 = A < b_1 < … < b_K = B (values of the format)
  std::vector<double> centers;      // piecewise: m_j (values of the format)

  // Error of the candidate as used (its coefficients, exact arithmetic) on [A, B], in spec.weight units
  // (abs: absolute; rel: relative; ulp: ULPs of spec.format, a real number: |g − f| / spacing(g)).
  double max_error = 0;
  double x_at_max = 0;
  bool certified = false;   // certified_lo/hi enclose the maximum (Sollya's supnorm)
  double certified_lo = 0;  // [lo, hi] ∋ the true maximum error (certified only)
  double certified_hi = 0;
  double unrounded_max_error = 0;     // the fit before rounding (sampled)
  double naive_max_error = 0;         // coefficients rounded to nearest, no re-optimization (sampled)
  double level = 0;                   // minimax level of the last exchange (a lower bound of the best error)
  double gelu_abs_error = 0;          // max |GELU − candidate| (GELU′ for gelu_prime) on [A, B], sampled
  std::vector<ErrorPoint> reference;  // the final exchange's reference (equioscillation points), sorted by x,
                                      // with the errors of the unrounded fit; piecewise: every piece's
  std::vector<ErrorPoint> extrema;    // local extrema of the error of the candidate as used, sorted by x
  Convergence convergence;
  double fit_seconds = 0;  // wall time of fit()

  // [SECTION] For the approximation zoo and the plots
  std::string id() const;       // "fit_half_x_poly_abs_6_f32" (unique within a session only with a suffix)
  std::string name() const;     // "half_x_poly_abs d=6 on [-4, 4], f32"
  std::string formula() const;  // "0.5·x + Σ_{k=0..6} c_k·|x|^k on [-4, 4]; 0 below, x above"
  Cost cost() const;
  /// What the candidate stands for: "gelu" (targets gelu, phi, erf) or "gelu" order 1 (gelu_prime).
  const char* function_id() const { return "gelu"; }
  int function_order() const { return spec.target == Target::GeluPrime ? 1 : 0; }

  /// GELU (or GELU′) as the candidate computes it in double: Horner with fma, in the operation order of the
  /// exported C++ (which gives the same bits), clamps applied.
  double eval(double x) const;
  /// The same in float (coefficients rounded to float; exact for f32/bf16/f16 candidates).
  float eval(float x) const;
  /// The float path over arrays: a blocked loop the compiler vectorizes (x and y may alias).
  void eval(std::span<const float> x, std::span<float> y) const;
  /// The fitted form's own value f(x) (Φ for phi, erf(x/√2) for erf), exact arithmetic rounded to double.
  double eval_target(double x) const;
  /// The signed weighted error w(x)·(g(x) − f(x)) of the candidate as used (the curve the designer plots).
  double error_at(double x) const;
  /// error_at on n points spread evenly over [A, B] (n ≥ 2), for plots.
  std::vector<ErrorPoint> error_curve(std::size_t n) const;
  /// The fitted form's value f(x) in long double arithmetic with the coefficients as stored (clamps applied
  /// outside [A, B], in the target's terms): the "exact" value every error of the candidate is measured from.
  long double value_ld(long double x) const;
};

/// A rational fit that did not converge: what() says why (one line), best() is the best candidate found.
class NotConverged : public FitError {
 public:
  NotConverged(const std::string& what, Candidate best) : FitError(what), best_(std::move(best)) {}
  const Candidate& best() const { return best_; }

 private:
  Candidate best_;
};

struct Options {
  /// Called now and then with the fraction done (0 … 1) and the stage ("exchange", "rounding", …); returning
  /// false cancels the fit (it throws Cancelled). Called on the fitting thread.
  std::function<bool(double fraction, std::string_view stage)> progress;
  int max_iterations = 0;   // exchange rounds (0: the default, 40 linear / 60 rational)
  std::size_t samples = 0;  // dense sampling points for the maximum error (0: automatic, ≥ 8192)
};

/// Fits, rounds and measures. Throws FitError (bad request), NotConverged (rational Remez), Cancelled.
Candidate fit(const Spec& spec, const Options& options = {});

/// The target g in long double (good to a few units of 2^-64 relative; Φ through formulas.hpp's
/// extended-precision tail, erf through erfl). Sample points are doubles throughout the designer.
long double target_ld(Target t, double x);
/// GELU(x) (GELU′ for gelu_prime) from the target's value f: x·f, ½x(1 + f), or f itself.
long double compose_ld(Target t, double x, long double f);

/// The zero of the target inside [a, b] (gelu, erf: 0; gelu_prime: −0.7517915…; phi: none), if any.
std::optional<double> target_zero_in(Target t, double a, double b);

}  // namespace gelu::fit

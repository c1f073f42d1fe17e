// [SECTION] The approximation designer's engine (private to gelu::core): weighted linear minimax by the
// exchange algorithm, least squares, rational Remez, error measurement, coefficient rounding.
//
// Arithmetic: long double (x87, 64-bit significand) for every value, basis and linear solve; sample points x
// are doubles (a double x locates an extremum far more finely than the error curve can tell apart).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gelu/fit.hpp"

namespace gelu::fit::detail {

using ld = long double;
using MatrixL = Eigen::Matrix<ld, Eigen::Dynamic, Eigen::Dynamic>;
using VectorL = Eigen::Matrix<ld, Eigen::Dynamic, 1>;

inline double D(ld v) {
  return static_cast<double>(v);
}
inline ld L(double v) {
  return static_cast<ld>(v);
}

/// Progress and cancellation, shared by the stages of one fit.
struct Control {
  const Options* options = nullptr;
  double start = 0, span = 1;                                  // this stage's share of the whole fit
  void report(double fraction, std::string_view stage) const;  // throws Cancelled when told to stop
  Control sub(double from, double to) const { return {options, start + span * from, span * (to - from)}; }
};

// [SECTION] Weighted linear problems: minimize max_x w(x)·|r(x) − Σ_k a_k·φ_k(x)| over the domain [lo, hi].

struct LinearProblem {
  int n = 0;                                     // basis functions
  std::function<void(double x, ld* phi)> basis;  // φ_0(x) … φ_{n−1}(x)
  std::function<ld(double x)> residual;          // r(x) = g(x) − the fixed part of the form
  std::function<ld(double x)> weight;            // w(x) > 0
  double lo = 0, hi = 1;                         // the domain
  std::vector<double> extra;                     // points that must be in the set (0, binade edges)
  std::size_t grid = 0;                          // dense points (0: max(1024, 64·(n + 1)))
};

struct RefPoint {
  double x;
  int sign;  // the sign of the error there: +1 or −1
};

struct LinearFit {
  std::vector<ld> a;  // coefficients of the basis
  ld level = 0;       // minimax level h on the final set (≤ the best continuous error)
  ld max_error = 0;   // the largest continuous |error| found around the extrema (≥ the best error)
  double x_at_max = 0;
  std::vector<RefPoint> reference;  // the final basis of the exchange, sorted by x
  std::vector<double> set;          // the final point set (dense grid + the extrema added), sorted
  int rounds = 0, pivots = 0;
  bool converged = false;
  std::string note;
};

/// Minimax by the exchange algorithm (see fit.hpp). `rounds`: refinement rounds (0: 40).
LinearFit minimax(const LinearProblem& p, const Control& ctl, int rounds = 0);
/// Minimax on a fixed finite set of points given with their residuals r, weights w and basis values phi
/// (n per point), without refinement: the greedy rounding's re-fits. Empty `a` when it breaks down.
LinearFit minimax_points(std::size_t n, const std::vector<double>& x, const std::vector<ld>& r,
                         const std::vector<ld>& w, const std::vector<ld>& phi);
/// Weighted least squares on a dense uniform grid (trapezoid rule), Householder QR.
LinearFit least_squares(const LinearProblem& p);

/// The signed error w(x)·(r(x) − Σ a_k φ_k(x)).
ld linear_error(const LinearProblem& p, const std::vector<ld>& a, double x);

// [SECTION] Bases. A polynomial in the form's variable v (x, |x|, x² or x − m) is fitted in the Chebyshev
// basis T_k(α·v + β) (well conditioned at any degree) and converted to powers of v at the end.

struct ChebMap {
  ld alpha = 1, beta = 0;  // τ = α·v + β maps [vlo, vhi] onto [−1, 1]
  static ChebMap of(double vlo, double vhi);
};
void chebyshev_values(ld tau, int n, ld* out);
/// Σ a_j T_j(α v + β) as Σ c_k v^k.
std::vector<ld> chebyshev_to_monomial(const std::vector<ld>& a, const ChebMap& m);

// [SECTION] Golden-section maximization of |f| on [a, b] (f continuous, or with jumps: converges to a point
// next to the largest one). Returns x and f(x) (signed).
struct Peak {
  double x;
  ld value;
};
Peak maximize_abs(const std::function<ld(double)>& f, double a, double b, int iterations = 60);

/// Local maxima of |e| on the sorted points xs with values es, each refined by maximize_abs between its
/// neighbours; only those with |e| ≥ floor are refined. Sorted by x.
std::vector<Peak> refine_extrema(const std::function<ld(double)>& f, const std::vector<double>& xs,
                                 const std::vector<ld>& es, ld floor);

/// n points x_i = mid + half·cos(π i/(n−1)) (dense near the ends, where extrema crowd), increasing.
std::vector<double> chebyshev_grid(double lo, double hi, std::size_t n);

// [SECTION] Targets, weights, forms.

ld weight_at(const Spec& s, ld g);  // w for a target value g
/// Outward rounding of x to the format (down: the largest value ≤ x; up: the smallest ≥ x).
double round_down(const Format& f, double x);
double round_up(const Format& f, double x);

/// The candidate's form value in exact arithmetic, coefficients `c` in the candidate's layout.
ld form_value(const Candidate& cand, const std::vector<double>& c, ld x);

// [SECTION] Rational Remez.
struct RationalResult {
  std::vector<ld> p, q;  // monomial coefficients, q[0] = 1
  ld level = 0;
  std::vector<RefPoint> reference;      // of the best candidate
  std::vector<double> final_reference;  // the last reference of the exchange
  bool converged = false;
  bool pole_free = true;  // false: every iterate had a pole (the coefficients are of the last one)
  int iterations = 0;
  std::string reason;
};
RationalResult rational_remez(const Spec& s, const Control& ctl, int max_iterations);

}  // namespace gelu::fit::detail

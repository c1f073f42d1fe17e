// [SECTION] The approximation designer's engine (private to gelu::core): weighted linear minimax by the
// exchange algorithm, least squares, rational Remez, error measurement, coefficient rounding.
//
// Arithmetic: long double (x87, 64-bit significand) for every value, basis and linear solve; sample points x
// are doubles (a double x locates an extremum far more finely than the error curve can tell apart).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
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

// [SECTION] The evaluation kernel shared by the candidate's evaluators and the export's measurements.

inline std::size_t per_piece(const Spec& s) {
  return static_cast<std::size_t>(s.degree) + 1;
}

/// Piece index of x, computed as the exported code computes it (in T): uniform pieces by scaling and
/// truncation (clamped, NaN → 0), optimized ones by counting the breakpoints at or below x.
template <class T>
int piece_of(const Candidate& c, T x) {
  const int K = c.spec.pieces;
  if (c.spec.breakpoints == Breakpoints::Uniform) {
    const T inv_h = static_cast<T>(static_cast<double>(K) / (c.spec.b - c.spec.a));
    T s = (x - static_cast<T>(c.spec.a)) * inv_h;
    s = s >= T(0) ? s : T(0);
    s = s <= static_cast<T>(K - 1) ? s : static_cast<T>(K - 1);
    return static_cast<int>(s);
  }
  int j = 0;
  for (int i = 1; i < K; ++i) j += x >= static_cast<T>(c.breakpoints[static_cast<std::size_t>(i)]) ? 1 : 0;
  return j;
}

/// The clamp value (of what the candidate stands for: GELU or GELU′) below A (left) or above B.
template <class T>
T clamp_value(const Spec& s, T x, bool left) {
  switch (s.clamp) {
    case Clamp::Zero:
      return T(0);
    case Clamp::X:
      return x;
    case Clamp::Limits:
      if (left) return T(0);
      return s.target == Target::GeluPrime ? T(1) : x;
    case Clamp::None:
      break;
  }
  return x;
}

constexpr std::size_t kBlock = 256;

/// a·b + c rounded once (fma) or twice (the same code compiled without contraction).
template <class T, bool Fused>
inline T mul_add(T a, T b, T c) {
  if constexpr (Fused) {
    return std::fma(a, b, c);
  } else {
    return a * b + c;
  }
}

/// The evaluation kernel in T (float or double): the operation order of the exported C++ (Horner with fma),
/// over a block of up to kBlock elements; each inner loop runs over the block, so it vectorizes. Fused =
/// false rounds every product and sum apart (an implementation without fma), for the check's margin.
template <class T, bool Fused = true>
void eval_block(const Candidate& c, const T* xin, T* yout, std::size_t m) {
  const Spec& s = c.spec;
  const double* C = c.coefficients.data();
  alignas(64) T x[kBlock], t[kBlock], p[kBlock];
  for (std::size_t j = 0; j < m; ++j) x[j] = xin[j];
  const auto horner = [&](const double* coef, std::size_t n, const T* v, T* out) {
    const T top = static_cast<T>(coef[n - 1]);
    for (std::size_t j = 0; j < m; ++j) out[j] = top;
    for (std::size_t k = n - 1; k-- > 0;) {
      const T ck = static_cast<T>(coef[k]);
      for (std::size_t j = 0; j < m; ++j) out[j] = mul_add<T, Fused>(out[j], v[j], ck);
    }
  };
  const std::size_t n = per_piece(s);
  switch (s.form) {
    case Form::Poly:
      horner(C, n, x, p);
      break;
    case Form::HalfXPolyAbs:
    case Form::Even:
      for (std::size_t j = 0; j < m; ++j) t[j] = s.form == Form::Even ? x[j] * x[j] : std::fabs(x[j]);
      horner(C, n, t, p);
      for (std::size_t j = 0; j < m; ++j) p[j] = mul_add<T, Fused>(T(0.5), x[j], p[j]);
      break;
    case Form::Rational: {
      alignas(64) T q[kBlock];
      const std::size_t nq = static_cast<std::size_t>(s.denominator_degree) + 1;
      horner(C, n, x, p);
      horner(C + n, nq, x, q);
      for (std::size_t j = 0; j < m; ++j) p[j] = p[j] / q[j];
      break;
    }
    case Form::Piecewise: {
      alignas(64) int piece[kBlock];
      const int K = s.pieces;
      if (s.breakpoints == Breakpoints::Uniform) {  // piece_of, with the constants hoisted
        const T inv_h = static_cast<T>(static_cast<double>(K) / (s.b - s.a)), a = static_cast<T>(s.a);
        const T top = static_cast<T>(K - 1);
        for (std::size_t j = 0; j < m; ++j) {
          T sv = (x[j] - a) * inv_h;
          sv = sv >= T(0) ? sv : T(0);
          sv = sv <= top ? sv : top;
          piece[j] = static_cast<int>(sv);
        }
      } else {
        for (std::size_t j = 0; j < m; ++j) piece[j] = 0;
        for (int i = 1; i < K; ++i) {
          const T bi = static_cast<T>(c.breakpoints[static_cast<std::size_t>(i)]);
          for (std::size_t j = 0; j < m; ++j) piece[j] += x[j] >= bi ? 1 : 0;
        }
      }
      for (std::size_t j = 0; j < m; ++j)
        t[j] = x[j] - static_cast<T>(c.centers[static_cast<std::size_t>(piece[j])]);
      for (std::size_t j = 0; j < m; ++j)
        p[j] = static_cast<T>(C[static_cast<std::size_t>(piece[j]) * n + n - 1]);
      for (std::size_t k = n - 1; k-- > 0;)
        for (std::size_t j = 0; j < m; ++j)
          p[j] = mul_add<T, Fused>(p[j], t[j], static_cast<T>(C[static_cast<std::size_t>(piece[j]) * n + k]));
      break;
    }
    default:
      for (std::size_t j = 0; j < m; ++j) p[j] = x[j];
      break;
  }
  switch (s.target) {
    case Target::Phi:
      for (std::size_t j = 0; j < m; ++j) p[j] = x[j] * p[j];
      break;
    case Target::Erf:
      for (std::size_t j = 0; j < m; ++j) {
        const T h = T(0.5) * x[j];
        p[j] = mul_add<T, Fused>(h, p[j], h);
      }
      break;
    default:
      break;
  }
  if (s.clamp != Clamp::None) {  // clamp_value, with the policy hoisted out of the loop
    const T a = static_cast<T>(s.a), b = static_cast<T>(s.b);
    const bool left_x = s.clamp == Clamp::X;
    const bool right_x = s.clamp == Clamp::X || (s.clamp == Clamp::Limits && s.target != Target::GeluPrime);
    const T right_c = s.clamp == Clamp::Limits && s.target == Target::GeluPrime ? T(1) : T(0);
    for (std::size_t j = 0; j < m; ++j) {
      p[j] = x[j] < a ? (left_x ? x[j] : T(0)) : p[j];
      p[j] = x[j] > b ? (right_x ? x[j] : right_c) : p[j];
    }
  }
  for (std::size_t j = 0; j < m; ++j) yout[j] = p[j];
}

}  // namespace gelu::fit::detail

// Index of this file:
//   [SECTION] Distances
//   [SECTION] Errors over a range
//   [SECTION] Properties
//   [SECTION] Minimax fitting
#include "gelu/analysis.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gelu::analysis {

std::string_view to_string(ErrorMetric m) {
  switch (m) {
    case ErrorMetric::Abs:
      return "abs";
    case ErrorMetric::Rel:
      return "rel";
    case ErrorMetric::Ulp:
      return "ulp";
  }
  return "?";
}

FunctionSpec spec(const Activation& fn, int order) {
  return FunctionSpec{&fn, fn.defaults(), order};
}

// [SECTION] Distances.

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The shared NaN/infinity rules; returns true (and sets out) when they decide the distance.
bool special_distance(double v, double r, double& out) {
  if (std::isnan(v) || std::isnan(r)) {
    out = std::isnan(v) && std::isnan(r) ? 0.0 : kInf;
    return true;
  }
  if (std::isinf(v) || std::isinf(r)) {
    out = v == r ? 0.0 : kInf;
    return true;
  }
  return false;
}

/// 2^(floor(log2 r) - digits + 1), floor(log2 r) clamped to [min_exp - 1, max_exp - 1].
double spacing(double r, int digits, int min_exp, int max_exp) {
  r = std::fabs(r);
  int e = min_exp;  // frexp convention: r = m 2^e, m in [0.5, 1)
  if (std::isinf(r)) {
    e = max_exp;
  } else if (r != 0) {
    std::frexp(r, &e);
    e = std::clamp(e, min_exp, max_exp);
  }
  return std::ldexp(1.0, e - digits);
}

template <class T>
std::uint64_t ordered_distance(T a, T b) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<std::uint64_t>::max();
  constexpr U sign = U(1) << (sizeof(T) * 8 - 1);
  U ua, ub;  // the bit patterns (memcpy: emscripten 3.1.6's libc++ has no std::bit_cast)
  std::memcpy(&ua, &a, sizeof ua);
  std::memcpy(&ub, &b, sizeof ub);
  const std::uint64_t ma = ua & ~sign, mb = ub & ~sign;  // magnitudes, ordered like the values
  if ((ua & sign) == (ub & sign)) return ma > mb ? ma - mb : mb - ma;
  return ma + mb;  // opposite signs: through zero (+0 and -0 both have magnitude 0)
}

}  // namespace

double ulp_of_f32(double r) {
  using L = std::numeric_limits<float>;
  return spacing(r, L::digits, L::min_exponent, L::max_exponent);
}
double ulp_of_f64(double r) {
  using L = std::numeric_limits<double>;
  return spacing(r, L::digits, L::min_exponent, L::max_exponent);
}

double ulp_error_f32(float v, double r) {
  double out = 0;
  // The infinity rule applies to r as float: a reference beyond FLT_MAX is +-inf in float.
  if (special_distance(v, std::isnan(r) ? r : static_cast<double>(static_cast<float>(r)), out)) return out;
  return std::fabs(static_cast<double>(v) - r) / ulp_of_f32(r);
}
double ulp_error_f64(double v, double r) {
  double out = 0;
  if (special_distance(v, r, out)) return out;
  return std::fabs(v - r) / ulp_of_f64(r);
}

std::uint64_t ulp_distance(float a, float b) {
  return ordered_distance(a, b);
}
std::uint64_t ulp_distance(double a, double b) {
  return ordered_distance(a, b);
}

double abs_error(double v, double r) {
  double out = 0;
  if (special_distance(v, r, out)) return out;
  return std::fabs(v - r);
}
double rel_error(double v, double r) {
  double out = 0;
  if (special_distance(v, r, out)) return out;
  if (r == 0) return v == 0 ? 0.0 : kInf;
  return std::fabs(v - r) / std::fabs(r);
}

double ulp_error(const Format& fmt, double v, double r, int ref_side) {
  switch (fmt.id()) {
    case FormatId::F64:
      return ulp_error_f64(v, r);
    case FormatId::F32:
      return ulp_error_f32(static_cast<float>(v), r);
    default: {
      const std::uint64_t d = fmt.ulp_distance(fmt.round(v), fmt.round_beside(r, ref_side));
      return d == std::numeric_limits<std::uint64_t>::max() ? kInf : static_cast<double>(d);
    }
  }
}

double error(ErrorMetric m, const Format& fmt, double v, double r, int ref_side) {
  switch (m) {
    case ErrorMetric::Abs:
      return abs_error(v, r);
    case ErrorMetric::Rel:
      return rel_error(v, r);
    case ErrorMetric::Ulp:
      return ulp_error(fmt, v, r, ref_side);
  }
  return kInf;
}

bool differs(const Format& fmt, double v, double r, int ref_side) {
  const double a = fmt.round(v), b = fmt.round_beside(r, ref_side);
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) != std::isnan(b);
  return a != b;
}

// [SECTION] Errors over a range.

const std::vector<double>& ErrorReport::curve(ErrorMetric m) const {
  return m == ErrorMetric::Abs ? abs : m == ErrorMetric::Rel ? rel : ulp;
}
const ErrorStats& ErrorReport::stats(ErrorMetric m) const {
  return m == ErrorMetric::Abs ? abs_stats : m == ErrorMetric::Rel ? rel_stats : ulp_stats;
}

namespace {

void check_spec(const FunctionSpec& s, const char* what) {
  if (!s.fn) throw std::invalid_argument(std::string(what) + ": no function");
  if (s.order < 0 || s.order > kMaxOrder)
    throw std::invalid_argument(std::string(what) + ": order must be 0, 1 or 2");
}

ErrorStats summarize(const std::vector<double>& err, const std::vector<double>& x, std::size_t mismatch) {
  ErrorStats s;
  s.n = err.size();
  s.mismatch = mismatch;
  double sum = 0;
  std::size_t finite = 0;
  for (std::size_t i = 0; i < err.size(); ++i) {
    const double e = err[i];
    if (e > s.max || (i == 0)) {
      s.max = e;
      s.x_at_max = x[i];
    }
    if (std::isfinite(e)) {
      sum += e;
      ++finite;
    } else {
      ++s.nonfinite;
    }
  }
  s.mean = finite ? sum / static_cast<double>(finite) : 0.0;
  return s;
}

/// The i-th of n points spanning [a, b]; written so that neither b - a nor the end points can overflow.
double sample_point(double a, double b, std::size_t i, std::size_t n) {
  if (n <= 1 || i == 0) return a;
  if (i == n - 1) return b;
  const double t = static_cast<double>(i) / static_cast<double>(n - 1);
  return a * (1.0 - t) + b * t;
}

void evaluate(ErrorReport& r) {
  const std::size_t n = r.x.size();
  const FunctionSpec& fn = r.fn;
  r.value.resize(n);
  r.ref_value.resize(n);
  for (double& x : r.x) x = r.format.round(x);  // the reference sees exactly the input fn saw
  if (r.format.id() == FormatId::F32) {
    std::vector<float> xf(r.x.begin(), r.x.end()), yf(n);
    fn.fn->eval(std::span<const float>(xf), std::span<float>(yf), fn.order, &fn.params, Path::Accurate);
    for (std::size_t i = 0; i < n; ++i) r.value[i] = yf[i];
  } else {
    fn.fn->eval(std::span<const double>(r.x), std::span<double>(r.value), fn.order, &fn.params);
    if (r.format.id() != FormatId::F64)
      for (std::size_t i = 0; i < n; ++i)
        r.value[i] = correctly_rounded(*fn.fn, r.format, r.x[i], r.value[i], fn.order);
  }
  r.reference.fn->eval(std::span<const double>(r.x), std::span<double>(r.ref_value), r.reference.order,
                       &r.reference.params);
  score(r);
}

}  // namespace

int reference_side(const ErrorReport& r, std::size_t i) {
  return r.reference.fn ? exact_side(*r.reference.fn, r.x[i], r.ref_value[i], r.reference.order) : 0;
}

void score(ErrorReport& r) {
  const std::size_t n = r.x.size();
  if (r.value.size() != n || r.ref_value.size() != n)
    throw std::invalid_argument("score: x, value and ref_value differ in length");
  r.abs.resize(n);
  r.rel.resize(n);
  r.ulp.resize(n);
  std::size_t mismatch = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = r.value[i], ref = r.ref_value[i];
    const int side = reference_side(r, i);
    r.abs[i] = error(ErrorMetric::Abs, r.format, v, ref);
    r.rel[i] = error(ErrorMetric::Rel, r.format, v, ref);
    r.ulp[i] = error(ErrorMetric::Ulp, r.format, v, ref, side);
    mismatch += differs(r.format, v, ref, side) ? 1 : 0;
  }
  r.abs_stats = summarize(r.abs, r.x, mismatch);
  r.rel_stats = summarize(r.rel, r.x, mismatch);
  r.ulp_stats = summarize(r.ulp, r.x, mismatch);
}

ErrorReport compare(const FunctionSpec& fn, const FunctionSpec& reference, double a, double b, std::size_t n,
                    const Format& fmt) {
  check_spec(fn, "function");
  check_spec(reference, "reference");
  if (!std::isfinite(a) || !std::isfinite(b) || a > b)
    throw std::invalid_argument("range must be finite with a <= b");
  if (n == 0) throw std::invalid_argument("at least one sample");

  ErrorReport r;
  r.fn = fn;
  r.reference = reference;
  r.format = fmt;
  r.a = a;
  r.b = b;
  r.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) r.x[i] = sample_point(a, b, i, n);
  evaluate(r);
  return r;
}

ErrorReport compare_at(const FunctionSpec& fn, const FunctionSpec& reference, std::vector<double> x,
                       const Format& fmt) {
  check_spec(fn, "function");
  check_spec(reference, "reference");
  ErrorReport r;
  r.fn = fn;
  r.reference = reference;
  r.format = fmt;
  r.x = std::move(x);
  if (!r.x.empty()) {
    r.a = *std::min_element(r.x.begin(), r.x.end());
    r.b = *std::max_element(r.x.begin(), r.x.end());
  }
  evaluate(r);
  return r;
}

// [SECTION] Properties.

namespace {

struct Root {
  double x;
  bool rising;  // g goes from negative to positive
};

double eval1(const FunctionSpec& s, double x, int order) {
  return s.fn->eval(x, order, &s.params);
}

/// Brent's method (zeroin) on [a, b] with g(a), g(b) of opposite signs; returns a bracket [lo, hi] of
/// a sign change a few ULP wide.
template <class G>
std::pair<double, double> brent(G g, double a, double b, double ga, double gb) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  constexpr double tiny = std::numeric_limits<double>::denorm_min();
  double c = a, gc = ga, d = b - a, e = d;
  for (int iter = 0; iter < 200; ++iter) {
    if ((gb > 0 && gc > 0) || (gb < 0 && gc < 0)) {
      c = a;
      gc = ga;
      d = e = b - a;
    }
    if (std::fabs(gc) < std::fabs(gb)) {
      a = b;
      b = c;
      c = a;
      ga = gb;
      gb = gc;
      gc = ga;
    }
    const double tol = 2.0 * eps * std::fabs(b) + tiny;
    const double m = 0.5 * (c - b);
    if (std::fabs(m) <= tol || gb == 0) break;
    if (std::fabs(e) >= tol && std::fabs(ga) > std::fabs(gb)) {
      // Inverse quadratic interpolation (secant when only two points are distinct).
      const double s = gb / ga;
      double p, q;
      if (a == c) {
        p = 2.0 * m * s;
        q = 1.0 - s;
      } else {
        const double qq = ga / gc, r = gb / gc;
        p = s * (2.0 * m * qq * (qq - r) - (b - a) * (r - 1.0));
        q = (qq - 1.0) * (r - 1.0) * (s - 1.0);
      }
      if (p > 0) q = -q;
      p = std::fabs(p);
      if (2.0 * p < std::min(3.0 * m * q - std::fabs(tol * q), std::fabs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = e = m;
      }
    } else {
      d = e = m;
    }
    a = b;
    ga = gb;
    b += std::fabs(d) > tol ? d : std::copysign(tol, m);
    gb = g(b);
  }
  if (gb == 0) return {b, b};
  return {std::min(b, c), std::max(b, c)};
}

/// Zero of g in [lo, hi] (g(lo), g(hi) of opposite signs) to adjacent doubles; nullopt for a jump.
template <class G>
std::optional<double> refine(G g, double lo, double hi, double glo, double ghi) {
  const double scale = std::max(std::fabs(glo), std::fabs(ghi));
  auto [l, h] = brent(g, lo, hi, glo, ghi);
  double gl = g(l), gh = g(h);
  // Brent leaves a bracket of a few ULP; bisect it down to neighbours (or an exact zero).
  for (int iter = 0; iter < 200 && l < h && std::nextafter(l, h) < h && gl != 0 && gh != 0; ++iter) {
    const double mid = l + 0.5 * (h - l);
    const double gm = g(mid);
    if ((gm < 0) == (gl < 0) && gm != 0) {
      l = mid;
      gl = gm;
    } else {
      h = mid;
      gh = gm;
    }
  }
  const double best = std::fabs(gl) <= std::fabs(gh) ? l : h;
  const double gbest = std::min(std::fabs(gl), std::fabs(gh));
  // A zero makes |g| small against g a little way off (2^-20 relative: a bracket that was already a few
  // ULP wide says nothing); across a jump |g| stays as large as there.
  const double delta = std::max(std::fabs(best) * 0x1p-20, 0x1p-1000);
  const double around = std::max({scale, std::fabs(g(best - delta)), std::fabs(g(best + delta))});
  if (!(gbest <= 1e-6 * around)) return std::nullopt;  // the sign changed across a jump, not a zero
  return best;
}

/// The sample points of a search on [lo, hi], sorted and distinct: an even grid of `grid` intervals (the
/// features at the scale of the range) merged with a geometric grid on either side of zero, kPerOctave
/// points per binade from 2^-1022 out to the ends of the range (the features at every other scale: a range
/// a million wide still sees the dip of GELU at -0.75, and one 1e-3 wide sees it as well). The answer is
/// then the same for every range that contains a feature, whatever its width or its asymmetry.
std::vector<double> search_grid(double lo, double hi, std::size_t grid) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    throw std::invalid_argument("search range must be finite with lo < hi");
  if (grid < 2) grid = 2;
  constexpr int kPerOctave = 32;
  std::vector<double> x;
  x.reserve(grid + 1 + 2 * 2048 * kPerOctave);
  for (std::size_t i = 0; i <= grid; ++i) x.push_back(sample_point(lo, hi, i, grid + 1));
  const double reach = std::max(std::fabs(lo), std::fabs(hi));
  const int top = std::ilogb(reach) + 1;
  double steps[kPerOctave];
  for (int k = 0; k < kPerOctave; ++k) steps[k] = std::exp2(static_cast<double>(k) / kPerOctave);
  for (int e = -1022; e <= top; ++e)
    for (const double m : steps) {
      const double t = std::ldexp(m, e);
      if (!std::isfinite(t)) break;
      if (t <= hi && t >= lo) x.push_back(t);
      if (-t >= lo && -t <= hi) x.push_back(-t);
    }
  if (lo <= 0 && hi >= 0) x.push_back(0.0);
  std::sort(x.begin(), x.end());
  x.erase(std::unique(x.begin(), x.end()), x.end());
  return x;
}

/// Where g is exactly 0 on several adjacent doubles, the middle one of them, so that the answer does not
/// depend on which of them a grid point or a bracket happened to reach (elsewhere x itself).
template <class G>
double canonical_zero(G g, double x) {
  if (g(x) != 0) return x;
  constexpr int kMaxSteps = 64;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  double lo = x, hi = x;
  int below = 0, above = 0;
  while (below < kMaxSteps && g(std::nextafter(lo, -kInfinity)) == 0)
    lo = std::nextafter(lo, -kInfinity), ++below;
  while (above < kMaxSteps && g(std::nextafter(hi, kInfinity)) == 0)
    hi = std::nextafter(hi, kInfinity), ++above;
  double mid = lo;
  for (int k = 0; k < (below + above) / 2; ++k) mid = std::nextafter(mid, kInfinity);
  return mid;
}

std::vector<Root> find_roots(const FunctionSpec& s, int order, const std::vector<double>& x) {
  std::vector<double> y(x.size());
  s.fn->eval(std::span<const double>(x), std::span<double>(y), order, &s.params);
  auto g = [&](double t) { return eval1(s, t, order); };

  std::vector<Root> roots;
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    const double a = y[i], b = y[i + 1];
    if (a == 0) {
      // Exact zeros on the grid (one point, or a run of them) count when the values around them have
      // strictly opposite signs.
      std::size_t j = i;
      while (j + 1 < x.size() && y[j + 1] == 0) ++j;
      if (i > 0 && j + 1 < x.size() && ((y[i - 1] < 0 && y[j + 1] > 0) || (y[i - 1] > 0 && y[j + 1] < 0)))
        roots.push_back({canonical_zero(g, x[i + (j - i) / 2]), y[j + 1] > 0});
      i = j;
      continue;
    }
    if (!((a < 0 && b > 0) || (a > 0 && b < 0))) continue;
    if (auto r = refine(g, x[i], x[i + 1], a, b)) roots.push_back({canonical_zero(g, *r), b > 0});
  }
  return roots;
}

/// y = m x + b as x -> dir * inf from points dir * 10^3 .. dir * 10^9.
Asymptote asymptote(const FunctionSpec& s, double dir) {
  auto snap = [](double v) {
    const double r = std::round(v);
    return std::fabs(v - r) <= 1e-12 && std::fabs(r) <= 1.0 ? r : v;
  };
  double m_prev = 0, b_prev = 0, m = 0, b = 0;
  bool settled = true;
  for (int k = 3; k <= 9; ++k) {
    const double X = dir * std::pow(10.0, k);
    m = snap(eval1(s, X, 1));
    const double f = eval1(s, X, 0);
    b = snap(f - m * X) + 0.0;  // + 0.0: the limit of a negative-valued tail is 0, not -0
    if (!std::isfinite(m) || !std::isfinite(b)) return {};
    if (k > 3)
      settled = std::fabs(m - m_prev) <= 1e-9 * std::max(1.0, std::fabs(m)) &&
                std::fabs(b - b_prev) <= 1e-6 * std::max(1.0, std::fabs(b));
    m_prev = m;
    b_prev = b;
  }
  if (!settled) return {};
  return {true, m, b};
}

}  // namespace

std::vector<double> zeros(const FunctionSpec& g, double lo, double hi, std::size_t grid) {
  check_spec(g, "function");
  std::vector<double> out;
  for (const Root& r : find_roots(g, g.order, search_grid(lo, hi, grid))) out.push_back(r.x);
  return out;
}

const Properties& default_properties(const Activation& a) {
  static std::mutex m;
  static std::map<std::string, std::unique_ptr<Properties>> cache;
  std::lock_guard lock(m);
  std::unique_ptr<Properties>& p = cache[a.id];
  if (!p) p = std::make_unique<Properties>(properties(spec(a)));
  return *p;
}

Properties properties(const FunctionSpec& fn, double lo, double hi) {
  check_spec(fn, "function");
  Properties p;
  p.fn = fn;
  p.fn.order = 0;
  p.lo = lo;
  p.hi = hi;
  constexpr std::size_t kGrid = 40000;
  const std::vector<double> grid = search_grid(lo, hi, kGrid);

  for (const Root& r : find_roots(fn, 1, grid))
    p.critical_points.push_back({r.x, eval1(fn, r.x, 0), eval1(fn, r.x, 2), r.rising});
  for (const Root& r : find_roots(fn, 2, grid)) p.inflection_points.push_back(r.x);
  p.minus_inf = asymptote(fn, -1.0);
  p.plus_inf = asymptote(fn, +1.0);

  // Candidates for inf f: the limits at +-inf, the samples of the search range, the local minima.
  double bound = kInf;
  auto limit = [&](const Asymptote& a, double dir) {
    if (!a.exists) return eval1(fn, dir * 1e9, 0);
    if (a.slope == 0) return a.intercept;
    return a.slope * dir > 0 ? kInf : -kInf;
  };
  bound = std::min({bound, limit(p.minus_inf, -1.0), limit(p.plus_inf, 1.0)});
  double sample_min = kInf;
  {
    std::vector<double> y(grid.size());
    fn.fn->eval(std::span<const double>(grid), std::span<double>(y), 0, &fn.params);
    for (double v : y)
      if (v < sample_min) sample_min = v;
  }
  const CriticalPoint* lowest = nullptr;
  for (const CriticalPoint& c : p.critical_points)
    if (c.minimum && (!lowest || c.value < lowest->value)) lowest = &c;
  // A sample may round a hair below the true minimum; 4 ULP of slack keeps the minimum global.
  if (lowest && lowest->value <= bound && lowest->value <= sample_min + 4.0 * ulp_of_f64(sample_min)) {
    p.global_minimum = *lowest;
    p.infimum = lowest->value;
  } else {
    p.infimum = std::min({bound, sample_min, lowest ? lowest->value : kInf});
  }

  for (double x : {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0})
    p.notable.push_back({x, eval1(fn, x, 0), eval1(fn, x, 1), eval1(fn, x, 2)});
  return p;
}

// [SECTION] Minimax fitting.

namespace {

/// Nelder-Mead on a non-smooth objective (a maximum over a grid): standard coefficients, stopped when the
/// simplex has shrunk to a relative 1e-12 (or its values agree exactly), or after max_evals evaluations.
std::vector<double> nelder_mead(const std::function<double(std::span<const double>)>& f,
                                std::vector<double> x0, const std::vector<double>& step,
                                std::size_t max_evals, std::size_t& evals, double& best) {
  const std::size_t d = x0.size();
  std::vector<std::vector<double>> p(d + 1, x0);
  std::vector<double> fv(d + 1);
  for (std::size_t k = 0; k < d; ++k) p[k + 1][k] += step[k];
  auto eval = [&](const std::vector<double>& x) {
    ++evals;
    const double v = f(x);
    return std::isnan(v) ? kInf : v;
  };
  for (std::size_t k = 0; k <= d; ++k) fv[k] = eval(p[k]);
  std::size_t used = d + 1;
  std::vector<std::size_t> order(d + 1);
  while (used < max_evals) {
    for (std::size_t k = 0; k <= d; ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return fv[a] < fv[b]; });
    const std::size_t lo = order[0], hi = order[d], second = order[d - 1];
    double extent = 0, scale = 0;
    for (std::size_t k = 0; k <= d; ++k)
      for (std::size_t j = 0; j < d; ++j) {
        extent = std::max(extent, std::fabs(p[k][j] - p[lo][j]));
        scale = std::max(scale, std::fabs(p[lo][j]));
      }
    if (extent <= 1e-12 * std::max(scale, 1e-300) || fv[hi] == fv[lo]) break;
    std::vector<double> c(d, 0.0);
    for (std::size_t k = 0; k <= d; ++k)
      if (k != hi)
        for (std::size_t j = 0; j < d; ++j) c[j] += p[k][j] / static_cast<double>(d);
    auto along = [&](double t) {
      std::vector<double> x(d);
      for (std::size_t j = 0; j < d; ++j) x[j] = c[j] + t * (p[hi][j] - c[j]);
      return x;
    };
    const std::vector<double> xr = along(-1.0);
    const double fr = eval(xr);
    ++used;
    if (fr < fv[lo]) {
      const std::vector<double> xe = along(-2.0);
      const double fe = eval(xe);
      ++used;
      if (fe < fr) {
        p[hi] = xe;
        fv[hi] = fe;
      } else {
        p[hi] = xr;
        fv[hi] = fr;
      }
    } else if (fr < fv[second]) {
      p[hi] = xr;
      fv[hi] = fr;
    } else {
      const bool outside = fr < fv[hi];
      const std::vector<double> xc = along(outside ? -0.5 : 0.5);
      const double fc = eval(xc);
      ++used;
      if (fc < std::min(fr, fv[hi])) {
        p[hi] = xc;
        fv[hi] = fc;
      } else {
        for (std::size_t k = 0; k <= d; ++k) {
          if (k == lo) continue;
          for (std::size_t j = 0; j < d; ++j) p[k][j] = p[lo][j] + 0.5 * (p[k][j] - p[lo][j]);
          fv[k] = eval(p[k]);
          ++used;
        }
      }
    }
  }
  const std::size_t lo = static_cast<std::size_t>(std::min_element(fv.begin(), fv.end()) - fv.begin());
  best = fv[lo];
  return p[lo];
}

}  // namespace

MinimaxFit fit_minimax(const Model& model, const FunctionSpec& target, std::vector<double> start,
                       std::vector<double> step, double lo, double hi, std::size_t grid) {
  check_spec(target, "target");
  if (!model) throw std::invalid_argument("fit_minimax: no model");
  if (start.empty() || start.size() != step.size())
    throw std::invalid_argument("fit_minimax: start and step must be non-empty and of the same size");
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    throw std::invalid_argument("fit_minimax: the range must be finite with lo < hi");
  if (grid < 2) throw std::invalid_argument("fit_minimax: at least two grid points");

  std::vector<double> xs(grid), ts(grid);
  for (std::size_t i = 0; i < grid; ++i) xs[i] = sample_point(lo, hi, i, grid);
  target.fn->eval(std::span<const double>(xs), std::span<double>(ts), target.order, &target.params);
  const auto max_error = [&](std::span<const double> p) {
    double m = 0;
    for (std::size_t i = 0; i < grid; ++i) {
      const double e = std::fabs(model(xs[i], p) - ts[i]);
      if (!(e <= m)) m = e;  // NaN propagates as the worst
    }
    return m;
  };

  MinimaxFit fit;
  std::size_t evals = 0;
  double best = kInf;
  std::vector<double> p = nelder_mead(max_error, start, step, 4000, evals, best);
  // Restarts with a fresh simplex around the best point: Nelder-Mead can stall on the kinks of a maximum.
  for (int restart = 0; restart < 8; ++restart) {
    std::vector<double> s(step.size());
    for (std::size_t j = 0; j < s.size(); ++j) s[j] = std::max(std::fabs(p[j]), 1e-12) * 1e-3;
    double again = kInf;
    std::vector<double> q = nelder_mead(max_error, p, s, 4000, evals, again);
    const bool improved = again < best * (1 - 1e-12);
    if (again <= best) {
      p = q;
      best = again;
    }
    if (!improved) break;
  }
  fit.params = p;
  fit.evaluations = evals * grid;

  const std::size_t dense = 16 * (grid - 1) + 1;
  std::vector<double> xd(dense), td(dense);
  for (std::size_t i = 0; i < dense; ++i) xd[i] = sample_point(lo, hi, i, dense);
  target.fn->eval(std::span<const double>(xd), std::span<double>(td), target.order, &target.params);
  for (std::size_t i = 0; i < dense; ++i) {
    const double e = std::fabs(model(xd[i], p) - td[i]);
    if (!(e <= fit.max_error)) {
      fit.max_error = e;
      fit.x_at_max = xd[i];
    }
  }
  return fit;
}

}  // namespace gelu::analysis

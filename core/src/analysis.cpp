#include "gelu/analysis.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gelu::analysis {

std::string_view to_string(Dtype d) {
  return d == Dtype::F32 ? "f32" : "f64";
}
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
  const U ua = std::bit_cast<U>(a), ub = std::bit_cast<U>(b);
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

ErrorStats summarize(const std::vector<double>& err, const std::vector<double>& x) {
  ErrorStats s;
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

}  // namespace

ErrorReport compare(const FunctionSpec& fn, const FunctionSpec& reference, double a, double b, std::size_t n,
                    Dtype dtype) {
  check_spec(fn, "function");
  check_spec(reference, "reference");
  if (!std::isfinite(a) || !std::isfinite(b) || a > b)
    throw std::invalid_argument("range must be finite with a <= b");
  if (n == 0) throw std::invalid_argument("at least one sample");

  ErrorReport r;
  r.fn = fn;
  r.reference = reference;
  r.dtype = dtype;
  r.a = a;
  r.b = b;
  r.x.resize(n);
  r.value.resize(n);
  r.ref_value.resize(n);
  for (std::size_t i = 0; i < n; ++i) r.x[i] = sample_point(a, b, i, n);

  if (dtype == Dtype::F32) {
    std::vector<float> xf(n), yf(n);
    for (std::size_t i = 0; i < n; ++i) {
      xf[i] = static_cast<float>(r.x[i]);
      r.x[i] = xf[i];  // the reference sees exactly the input the float path saw
    }
    fn.fn->eval(std::span<const float>(xf), std::span<float>(yf), fn.order, &fn.params, Path::Accurate);
    for (std::size_t i = 0; i < n; ++i) r.value[i] = yf[i];
  } else {
    fn.fn->eval(std::span<const double>(r.x), std::span<double>(r.value), fn.order, &fn.params);
  }
  reference.fn->eval(std::span<const double>(r.x), std::span<double>(r.ref_value), reference.order,
                     &reference.params);

  r.abs.resize(n);
  r.rel.resize(n);
  r.ulp.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = r.value[i], ref = r.ref_value[i];
    r.abs[i] = abs_error(v, ref);
    r.rel[i] = rel_error(v, ref);
    r.ulp[i] = dtype == Dtype::F32 ? ulp_error_f32(static_cast<float>(v), ref) : ulp_error_f64(v, ref);
  }
  r.abs_stats = summarize(r.abs, r.x);
  r.rel_stats = summarize(r.rel, r.x);
  r.ulp_stats = summarize(r.ulp, r.x);
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
  if (!(gbest <= 1e-6 * scale)) return std::nullopt;  // the sign changed across a jump, not a zero
  return best;
}

std::vector<Root> find_roots(const FunctionSpec& s, int order, double lo, double hi, std::size_t grid) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    throw std::invalid_argument("search range must be finite with lo < hi");
  if (grid < 2) grid = 2;
  std::vector<double> x(grid + 1), y(grid + 1);
  for (std::size_t i = 0; i <= grid; ++i) x[i] = sample_point(lo, hi, i, grid + 1);
  s.fn->eval(std::span<const double>(x), std::span<double>(y), order, &s.params);
  auto g = [&](double t) { return eval1(s, t, order); };

  std::vector<Root> roots;
  for (std::size_t i = 0; i < grid; ++i) {
    const double a = y[i], b = y[i + 1];
    if (a == 0) {
      // An exact zero on the grid counts when its neighbours have strictly opposite signs.
      if (i > 0 && ((y[i - 1] < 0 && b > 0) || (y[i - 1] > 0 && b < 0))) roots.push_back({x[i], b > 0});
      continue;
    }
    if (!((a < 0 && b > 0) || (a > 0 && b < 0))) continue;
    if (auto r = refine(g, x[i], x[i + 1], a, b)) roots.push_back({*r, b > 0});
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
  for (const Root& r : find_roots(g, g.order, lo, hi, grid)) out.push_back(r.x);
  return out;
}

Properties properties(const FunctionSpec& fn, double lo, double hi) {
  check_spec(fn, "function");
  Properties p;
  p.fn = fn;
  p.fn.order = 0;
  p.lo = lo;
  p.hi = hi;
  constexpr std::size_t kGrid = 40000;

  for (const Root& r : find_roots(fn, 1, lo, hi, kGrid))
    p.critical_points.push_back({r.x, eval1(fn, r.x, 0), eval1(fn, r.x, 2), r.rising});
  for (const Root& r : find_roots(fn, 2, lo, hi, kGrid)) p.inflection_points.push_back(r.x);
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
    std::vector<double> x(kGrid + 1), y(kGrid + 1);
    for (std::size_t i = 0; i <= kGrid; ++i) x[i] = sample_point(lo, hi, i, kGrid + 1);
    fn.fn->eval(std::span<const double>(x), std::span<double>(y), 0, &fn.params);
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

}  // namespace gelu::analysis

// [SECTION] fit(): a request → a measured candidate. The linear forms (poly, half_x_poly_abs, even and each
// piece of piecewise) go through fit_part; rational through rational_remez; then rounding and measurement.
//
// Index of this file:
//   [SECTION] The variable of a linear form
//   [SECTION] Rounding
//   [SECTION] Measurement
//   [SECTION] Linear forms and piecewise
#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <numeric>

#include "fit_internal.hpp"
#include "gelu/numio.hpp"

namespace gelu::fit {

using namespace detail;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// [SECTION] The variable of a linear form: f(x) = fixed(x) + Σ c_k·v(x)^k.

struct Variable {
  Form form = Form::Poly;
  double center = 0;  // piecewise: v = x − center

  ld v(double x) const {
    switch (form) {
      case Form::HalfXPolyAbs:
        return std::fabs(L(x));
      case Form::Even:
        return L(x) * L(x);
      case Form::Piecewise:
        return L(x) - L(center);
      default:
        return L(x);
    }
  }
  ld fixed(double x) const { return form == Form::HalfXPolyAbs || form == Form::Even ? 0.5L * L(x) : 0; }
  /// The range of v over [lo, hi].
  std::pair<double, double> range(double lo, double hi) const {
    switch (form) {
      case Form::HalfXPolyAbs:
      case Form::Even: {
        const double alo = lo >= 0 ? lo : (hi <= 0 ? -hi : 0.0), ahi = std::max(std::fabs(lo), std::fabs(hi));
        return form == Form::Even ? std::pair{alo * alo, ahi * ahi} : std::pair{alo, ahi};
      }
      case Form::Piecewise:
        return {D(L(lo) - L(center)), D(L(hi) - L(center))};
      default:
        return {lo, hi};
    }
  }
};

/// One polynomial of a linear form (the whole form, or one piece) as fitted.
struct Part {
  Variable var;
  double lo = 0, hi = 0;         // the fit domain
  std::vector<ld> c;             // coefficients of powers of v
  std::vector<double> set;       // the exchange's final points (dense grid + extrema): the rounding's grid
  ld level = 0, max_error = -1;  // of the fit, before conversion to powers of v
  std::vector<RefPoint> reference;
  int rounds = 0;  // exchange rounds (point sets solved)
  bool converged = false;
  std::string note;
};

/// Where the spacing of the format at g(x) changes (the weight of the ulp error jumps): both sides of each.
std::vector<double> spacing_edges(const Spec& s, double lo, double hi) {
  std::vector<double> out;
  if (s.weight != Weight::Ulp) return out;
  const Format f(s.format);
  const auto sp = [&](double x) { return f.spacing(D(target_ld(s.target, x))); };
  constexpr int kScan = 4096;
  double xprev = lo, sprev = sp(lo);
  for (int i = 1; i <= kScan; ++i) {
    const double x = i == kScan ? hi : D(L(lo) + (L(hi) - L(lo)) * i / kScan);
    const double sx = sp(x);
    if (sx != sprev) {
      double a = xprev, b = x;
      for (int it = 0; it < 80; ++it) {
        const double m = 0.5 * (a + b);
        if (m <= a || m >= b) break;
        (sp(m) == sprev ? a : b) = m;
      }
      out.push_back(a);
      out.push_back(b);
    }
    xprev = x;
    sprev = sx;
  }
  return out;
}

Part fit_part(const Spec& s, const Variable& var, double lo, double hi, std::vector<double> extra,
              const Options& opt, const Control& ctl) {
  Part part;
  part.var = var;
  part.lo = lo;
  part.hi = hi;
  const int n = s.degree + 1;
  const auto [vlo, vhi] = var.range(lo, hi);
  const ChebMap map = ChebMap::of(vlo, vhi == vlo ? vlo + 1 : vhi);
  LinearProblem p;
  p.n = n;
  p.basis = [var, map, n](double x, ld* phi) { chebyshev_values(map.alpha * var.v(x) + map.beta, n, phi); };
  p.residual = [&s, var](double x) { return target_ld(s.target, x) - var.fixed(x); };
  p.weight = [&s](double x) { return weight_at(s, target_ld(s.target, x)); };
  p.lo = lo;
  p.hi = hi;
  if (lo < 0 && hi > 0) extra.push_back(0.0);
  p.extra = std::move(extra);
  const LinearFit f = s.method == Method::Minimax ? minimax(p, ctl, opt.max_iterations) : least_squares(p);
  if (f.a.empty()) {
    part.note = f.note.empty() ? "the exchange found no solution" : f.note;
    return part;
  }
  part.c = chebyshev_to_monomial(f.a, map);
  part.set = f.set;
  part.level = f.level;
  part.max_error = f.max_error;
  part.reference = f.reference;
  part.rounds = f.rounds;
  part.converged = f.converged;
  part.note = f.note;
  return part;
}

// [SECTION] Rounding. The error on the part's point set as a function of the coefficients of powers of v.

struct Lattice {
  std::size_t n = 0;
  std::vector<double> x;
  std::vector<ld> r, w, V;  // residual g − fixed, weight, v^k (n per point)

  ld max_error(const std::vector<double>& c) const {
    ld M = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      ld s = 0;
      for (std::size_t k = n; k-- > 0;) s += L(c[k]) * V[i * n + k];
      M = std::max(M, std::fabs(w[i] * (r[i] - s)));
    }
    return M;
  }
};

Lattice make_lattice(const Spec& s, const Part& part) {
  Lattice lat;
  lat.n = static_cast<std::size_t>(s.degree) + 1;
  lat.x = part.set;
  for (double x : lat.x) {
    const ld g = target_ld(s.target, x);
    lat.r.push_back(g - part.var.fixed(x));
    lat.w.push_back(weight_at(s, g));
    const ld v = part.var.v(x);
    ld vk = 1;
    for (std::size_t k = 0; k < lat.n; ++k, vk *= v) lat.V.push_back(vk);
  }
  return lat;
}

/// The part with a coarser point set: a Chebyshev grid of `per_coefficient` points per coefficient plus the
/// fit's reference (where the error peaks).
Part coarse(const Part& part, std::size_t per_coefficient) {
  Part c = part;
  c.set = chebyshev_grid(part.lo, part.hi, per_coefficient * part.c.size());
  for (const RefPoint& r : part.reference) c.set.push_back(r.x);
  std::sort(c.set.begin(), c.set.end());
  c.set.erase(std::unique(c.set.begin(), c.set.end()), c.set.end());
  return c;
}

/// Sollya's fpminimax in spirit: the coefficient whose rounding moves the error most is rounded first, and
/// the free ones are re-fitted by minimax, until every one is rounded. The re-fits run on a coarse set (a
/// Chebyshev grid of 16 points per coefficient plus the fit's reference, where the error peaks): each
/// is a decision, and the lattice search and the final measurement use the dense points.
std::vector<double> greedy_round(const Spec& s, const Part& part, const std::vector<ld>& c0,
                                 const Format& fmt) {
  Part coarse = part;
  coarse.set = chebyshev_grid(part.lo, part.hi, 16 * (static_cast<std::size_t>(s.degree) + 1));
  for (const RefPoint& r : part.reference) coarse.set.push_back(r.x);
  std::sort(coarse.set.begin(), coarse.set.end());
  coarse.set.erase(std::unique(coarse.set.begin(), coarse.set.end()), coarse.set.end());
  const Lattice lat = make_lattice(s, coarse);
  const std::size_t n = lat.n;
  std::vector<ld> c = c0;
  std::vector<double> out(n);
  std::vector<bool> fixed(n, false);
  ld S = 0;
  for (std::size_t i = 0; i < lat.x.size(); ++i) S = std::max(S, std::fabs(lat.V[i * n + (n > 1 ? 1 : 0)]));
  if (!(S > 0)) S = 1;
  std::vector<ld> scale(n, 1);  // S^k
  for (std::size_t k = 1; k < n; ++k) scale[k] = scale[k - 1] * S;
  // Order: the size of one unit in the last place of c_k, times the largest |w·v^k|.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<ld> influence(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    ld vmax = 0;
    for (std::size_t i = 0; i < lat.x.size(); ++i)
      vmax = std::max(vmax, std::fabs(lat.w[i] * lat.V[i * n + k]));
    const double ck = D(c[k]);
    influence[k] = L(fmt.spacing(ck == 0 ? fmt.min_positive() : ck)) * vmax;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&influence](std::size_t a, std::size_t b) { return influence[a] > influence[b]; });
  for (std::size_t step = 0; step < n; ++step) {
    const std::size_t k = order[step];
    out[k] = fmt.round(D(c[k]));
    fixed[k] = true;
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < n; ++j)
      if (!fixed[j]) free.push_back(j);
    if (free.empty()) break;
    // Re-fit the free coefficients in the scaled basis (v/S)^j.
    std::vector<ld> r(lat.x.size()), phi(lat.x.size() * free.size());
    for (std::size_t i = 0; i < lat.x.size(); ++i) {
      ld sum = 0;
      for (std::size_t j = 0; j < n; ++j)
        if (fixed[j]) sum += L(out[j]) * lat.V[i * n + j];
      r[i] = lat.r[i] - sum;
      for (std::size_t f = 0; f < free.size(); ++f)
        phi[i * free.size() + f] = lat.V[i * n + free[f]] / scale[free[f]];
    }
    const LinearFit fit = minimax_points(free.size(), lat.x, r, lat.w, phi);
    if (fit.a.empty()) {  // broke down: round the rest as they are
      for (std::size_t j : free) out[j] = fmt.round(D(c[j]));
      break;
    }
    for (std::size_t f = 0; f < free.size(); ++f) c[free[f]] = fit.a[f] / scale[free[f]];
  }
  return out;
}

/// Local search on the lattice of format values: ±1, ±2 units in the last place per coefficient, then pairs
/// (up to 16 coefficients), accepting every move that lowers the maximum error on the points.
void lattice_search(const Lattice& lat, std::vector<double>& c, const Format& fmt, const Control& ctl) {
  const std::size_t n = lat.n, N = lat.x.size();
  std::vector<ld> e(N);
  for (std::size_t i = 0; i < N; ++i) {
    ld s = 0;
    for (std::size_t k = 0; k < n; ++k) s += L(c[k]) * lat.V[i * n + k];
    e[i] = lat.w[i] * (lat.r[i] - s);
  }
  const auto max_abs = [&e]() {
    ld M = 0;
    for (ld v : e) M = std::max(M, std::fabs(v));
    return M;
  };
  ld best = max_abs();
  const auto step_of = [&fmt](double v, int k) { return fmt.from_ordinal(fmt.ordinal(v) + k); };
  std::vector<ld> trial(N);
  const auto try_move = [&](std::size_t k1, int s1, std::size_t k2, int s2) {
    const double n1 = step_of(c[k1], s1), n2 = k2 < n ? step_of(c[k2], s2) : 0;
    if (!std::isfinite(n1) || !std::isfinite(n2)) return false;
    const ld d1 = L(n1) - L(c[k1]), d2 = k2 < n ? L(n2) - L(c[k2]) : 0;
    ld M = 0;
    for (std::size_t i = 0; i < N && M < best; ++i) {
      ld t = e[i] - lat.w[i] * d1 * lat.V[i * n + k1];
      if (k2 < n) t -= lat.w[i] * d2 * lat.V[i * n + k2];
      trial[i] = t;
      M = std::max(M, std::fabs(t));
    }
    if (!(M < best * (1 - 1e-12L))) return false;
    e = trial;
    best = M;
    c[k1] = n1;
    if (k2 < n) c[k2] = n2;
    return true;
  };
  for (int pass = 0; pass < 60; ++pass) {
    ctl.report(pass / 60.0, "lattice search");
    bool improved = false;
    for (std::size_t k = 0; k < n; ++k)
      for (int st : {1, -1, 2, -2})
        if (try_move(k, st, n, 0)) improved = true;
    if (!improved && n <= 16)
      for (std::size_t k = 0; k < n && !improved; ++k)
        for (std::size_t l = k + 1; l < n && !improved; ++l)
          for (int s1 : {1, -1})
            for (int s2 : {1, -1})
              if (!improved && try_move(k, s1, l, s2)) improved = true;
    if (!improved) break;
  }
}

void check_finite(const std::vector<double>& c, const std::vector<double>& unrounded, const Format& fmt) {
  for (std::size_t k = 0; k < c.size(); ++k)
    if (!std::isfinite(c[k]))
      throw FitError("coefficient " + std::to_string(k) + " = " + format_f64(unrounded[k]) +
                     " does not fit in " + std::string(fmt.name()) + " (largest finite value " +
                     format_f64(fmt.max_finite()) + "); choose a wider format or a smaller range");
}

// [SECTION] Measurement: dense sampling plus golden-section maximization around every local extremum.

struct Measured {
  ld max = 0;
  double x = 0;
  std::vector<ErrorPoint> extrema;
  ld gelu_abs = 0;
};

Measured measure(const Candidate& c, const std::vector<double>& coefs, std::size_t samples,
                 const std::vector<double>& extra) {
  const Spec& s = c.spec;
  std::vector<double> xs;
  xs.reserve(samples + extra.size() + 4 * c.breakpoints.size() + 2);
  for (std::size_t i = 0; i < samples; ++i)
    xs.push_back(i + 1 == samples ? s.b
                                  : D(L(s.a) + (L(s.b) - L(s.a)) * L(double(i)) / L(double(samples - 1))));
  for (double x : extra) xs.push_back(x);
  for (double b : c.breakpoints)
    for (double x : {std::nextafter(b, -HUGE_VAL), b, std::nextafter(b, HUGE_VAL)}) xs.push_back(x);
  if (s.a < 0 && s.b > 0) xs.push_back(0.0);
  xs.erase(std::remove_if(xs.begin(), xs.end(), [&s](double x) { return !(x >= s.a && x <= s.b); }),
           xs.end());
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  Measured m;
  std::vector<ld> es(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const ld g = target_ld(s.target, xs[i]), f = form_value(c, coefs, xs[i]);
    es[i] = weight_at(s, g) * (g - f);
    m.gelu_abs =
        std::max(m.gelu_abs, std::fabs(compose_ld(s.target, xs[i], g) - compose_ld(s.target, xs[i], f)));
  }
  ld top = 0;
  for (ld e : es) top = std::max(top, std::fabs(e));
  const auto err = [&](double x) {
    const ld g = target_ld(s.target, x);
    return weight_at(s, g) * (g - form_value(c, coefs, x));
  };
  for (const Peak& p : refine_extrema(err, xs, es, top * 1e-3L)) {
    m.extrema.push_back({p.x, D(p.value)});
    if (std::fabs(p.value) > m.max) {
      m.max = std::fabs(p.value);
      m.x = p.x;
    }
  }
  return m;
}

std::size_t sample_count(const Candidate& c, const Options& opt) {
  return opt.samples ? std::max<std::size_t>(opt.samples, 16)
                     : std::max<std::size_t>(8192, 256 * c.coefficients.size());
}

std::vector<double> to_double(const std::vector<ld>& v) {
  std::vector<double> out;
  for (ld x : v) out.push_back(D(x));
  return out;
}

// [SECTION] Linear forms and piecewise.

/// Rounds every part (whole form or pieces) and keeps, for the whole candidate, the better of naive rounding
/// and the re-optimized coefficients by the measured maximum error.
void round_parts(Candidate& c, const std::vector<Part>& parts, const std::vector<double>& extra,
                 const Options& opt, const Control& ctl) {
  const Format fmt(c.spec.format);
  const std::size_t n = static_cast<std::size_t>(c.spec.degree) + 1, samples = sample_count(c, opt);
  std::vector<double> naive;
  for (double v : c.unrounded) naive.push_back(fmt.round(v));
  check_finite(naive, c.unrounded, fmt);
  c.naive_max_error = D(measure(c, naive, samples, extra).max);
  // Doubles: the conversion from the Chebyshev basis is the only rounding; it is re-optimized only where it
  // cost more than a millionth of the error (high degrees on wide ranges, where powers of |x| cancel).
  if (c.spec.format == FormatId::F64 && c.naive_max_error <= c.level * (1 + 1e-6)) {
    c.coefficients = naive;
    return;
  }
  if (!c.spec.reoptimize) {
    c.coefficients = naive;
    return;
  }
  std::vector<double> opt_c = naive;
  for (std::size_t j = 0; j < parts.size(); ++j) {
    const Control sub = ctl.sub(double(j) / double(parts.size()), double(j + 1) / double(parts.size()));
    sub.report(0, "rounding");
    const Lattice lat = make_lattice(c.spec, coarse(parts[j], 32));
    const std::vector<double> piece_naive(naive.begin() + static_cast<std::ptrdiff_t>(j * n),
                                          naive.begin() + static_cast<std::ptrdiff_t>((j + 1) * n));
    std::vector<double> g = greedy_round(c.spec, parts[j], parts[j].c, fmt);
    bool finite = true;
    for (double v : g) finite = finite && std::isfinite(v);
    std::vector<double> best = finite && lat.max_error(g) < lat.max_error(piece_naive) ? g : piece_naive;
    lattice_search(lat, best, fmt, sub.sub(0.5, 1));
    if (lat.max_error(best) > lat.max_error(piece_naive)) best = piece_naive;
    std::copy(best.begin(), best.end(), opt_c.begin() + static_cast<std::ptrdiff_t>(j * n));
  }
  const ld M = measure(c, opt_c, samples, extra).max;
  c.coefficients = M <= L(c.naive_max_error) ? opt_c : naive;
}

void finish_linear(Candidate& c, const std::vector<Part>& parts, const std::vector<double>& extra,
                   const Options& opt, const Control& ctl) {
  std::vector<ld> all;
  c.level = 0;
  for (const Part& p : parts) {
    all.insert(all.end(), p.c.begin(), p.c.end());
    c.level = std::max(c.level, D(p.level));
  }
  c.unrounded = to_double(all);
  round_parts(c, parts, extra, opt, ctl);
  // Each part's reference with its own polynomial (a piece's end is also the next piece's start).
  const std::size_t n = static_cast<std::size_t>(c.spec.degree) + 1;
  for (std::size_t j = 0; j < parts.size(); ++j)
    for (const RefPoint& r : parts[j].reference) {
      const ld g = target_ld(c.spec.target, r.x), v = parts[j].var.v(r.x);
      ld p = 0;
      for (std::size_t k = n; k-- > 0;) p = p * v + L(c.unrounded[j * n + k]);
      c.reference.push_back({r.x, D(weight_at(c.spec, g) * (g - parts[j].var.fixed(r.x) - p))});
    }
}

std::vector<double> uniform_breakpoints(const Spec& s, const Format& fmt) {
  std::vector<double> b(static_cast<std::size_t>(s.pieces) + 1);
  for (int j = 0; j <= s.pieces; ++j)
    b[static_cast<std::size_t>(j)] = fmt.round(D(L(s.a) + (L(s.b) - L(s.a)) * j / s.pieces));
  b.front() = s.a;
  b.back() = s.b;
  for (std::size_t j = 1; j < b.size(); ++j)
    if (!(b[j] > b[j - 1]))
      throw FitError("the pieces are too narrow for the format's spacing on this range");
  return b;
}

std::vector<Part> fit_pieces(const Spec& s, const std::vector<double>& b, const Format& fmt,
                             const std::vector<double>& edges, const Options& opt, const Control& ctl) {
  std::vector<Part> parts;
  const std::size_t K = b.size() - 1;
  for (std::size_t j = 0; j < K; ++j) {
    Variable var{Form::Piecewise, fmt.round(0.5 * (b[j] + b[j + 1]))};
    std::vector<double> extra;
    for (double e : edges)
      if (e >= b[j] && e <= b[j + 1]) extra.push_back(e);
    parts.push_back(fit_part(s, var, b[j], b[j + 1], extra, opt,
                             ctl.sub(double(j) / double(K), double(j + 1) / double(K))));
    if (parts.back().c.empty()) throw FitError("piece " + std::to_string(j) + ": " + parts.back().note);
  }
  return parts;
}

/// Breakpoints that equalize the pieces' errors: a piece's error behaves like (C·h)^(d+1), so the integral of
/// the density ρ = E_j^(1/(d+1))/h_j over piece j is E_j^(1/(d+1)); new breakpoints split its total into K
/// equal parts. The best set seen (smallest largest piece error) is kept.
std::vector<double> optimize_breakpoints(const Spec& s, const Format& fmt, const std::vector<double>& edges,
                                         const Options& opt, const Control& ctl,
                                         std::vector<Part>* best_parts) {
  std::vector<double> b = uniform_breakpoints(s, fmt), best_b = b;
  ld best = -1;
  const std::size_t K = b.size() - 1;
  const ld power = 1.0L / (s.degree + 1);
  constexpr int kIterations = 16;
  for (int it = 0; it < kIterations; ++it) {
    std::vector<Part> parts =
        fit_pieces(s, b, fmt, edges, opt, ctl.sub(double(it) / kIterations, double(it + 1) / kIterations));
    ld mx = 0, mn = LDBL_MAX;
    for (const Part& p : parts) {
      mx = std::max(mx, p.max_error);
      mn = std::min(mn, p.max_error);
    }
    const bool better = best < 0 || mx < best;
    if (better) {
      best = mx;
      best_b = b;
      *best_parts = parts;
    }
    if (K == 1 || mx <= mn * 1.01L) break;
    std::vector<ld> F(K + 1, 0);
    for (std::size_t j = 0; j < K; ++j)
      F[j + 1] = F[j] + std::pow(std::max(parts[j].max_error, LDBL_MIN), power);
    std::vector<double> nb = b;
    for (std::size_t i = 1; i < K; ++i) {
      const ld T = F[K] * L(double(i)) / L(double(K));
      std::size_t j = 0;
      while (j + 1 < K && F[j + 1] < T) ++j;
      const ld t = F[j + 1] > F[j] ? (T - F[j]) / (F[j + 1] - F[j]) : 0.5L;
      nb[i] = D(L(b[j]) + t * (L(b[j + 1]) - L(b[j])));
      if (!better) nb[i] = 0.5 * (nb[i] + best_b[i]);  // overshot: halfway back to the best set
      nb[i] = fmt.round(nb[i]);
    }
    bool ok = true;
    for (std::size_t i = 1; i <= K; ++i) ok = ok && nb[i] > nb[i - 1];
    if (!ok || nb == b) break;
    b = nb;
  }
  return best_b;
}

}  // namespace

Candidate fit(const Spec& spec_in, const Options& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  validate(spec_in);
  Spec s = spec_in;
  const Format fmt(s.format);
  s.a = round_down(fmt, s.a);
  s.b = round_up(fmt, s.b);
  if (s.form != Form::Rational) s.denominator_degree = 0;
  if (s.form != Form::Piecewise) s.pieces = 1;
  Candidate c;
  c.spec = s;
  const Control ctl{&opt, 0, 1};
  bool pole_free = true;
  const std::vector<double> edges = spacing_edges(s, s.a, s.b);

  if (s.form == Form::Rational) {
    const int iterations = opt.max_iterations > 0 ? opt.max_iterations : 60;
    const RationalResult rr = rational_remez(s, ctl.sub(0, 0.7), iterations);
    std::vector<ld> all = rr.p;
    all.insert(all.end(), rr.q.begin(), rr.q.end());
    c.unrounded = to_double(all);
    c.level = D(rr.level);
    c.convergence = {rr.converged, rr.iterations, rr.reason};
    pole_free = rr.pole_free;
    const Format f(s.format);
    std::vector<double> naive;
    for (double v : c.unrounded) naive.push_back(f.round(v));
    check_finite(naive, c.unrounded, f);
    c.coefficients = naive;
    const std::size_t samples = sample_count(c, opt);
    c.naive_max_error = D(measure(c, naive, samples, edges).max);
    for (const RefPoint& r : rr.reference) {
      const ld g = target_ld(s.target, r.x);
      c.reference.push_back({r.x, D(weight_at(s, g) * (g - form_value(c, c.unrounded, r.x)))});
    }
  } else if (s.form == Form::Piecewise) {
    std::vector<Part> parts;
    if (s.breakpoints == Breakpoints::Uniform) {
      c.breakpoints = uniform_breakpoints(s, fmt);
      parts = fit_pieces(s, c.breakpoints, fmt, edges, opt, ctl.sub(0, 0.6));
    } else {
      c.breakpoints = optimize_breakpoints(s, fmt, edges, opt, ctl.sub(0, 0.6), &parts);
    }
    for (const Part& p : parts) c.centers.push_back(p.var.center);
    c.convergence.converged = true;
    for (const Part& p : parts) {
      c.convergence.iterations = std::max(c.convergence.iterations, p.rounds);
      if (!p.converged) c.convergence = {false, p.rounds, "a piece did not converge: " + p.note};
    }
    finish_linear(c, parts, edges, opt, ctl.sub(0.6, 0.9));
  } else {
    double lo = s.a, hi = s.b;
    // GELU − x/2 is even: on a range across 0, the half-x forms' error is that on [0, max(|A|, B)].
    if (s.target == Target::Gelu && (s.form == Form::HalfXPolyAbs || s.form == Form::Even) && s.a < 0 &&
        s.b > 0) {
      lo = 0;
      hi = std::max(-s.a, s.b);
    }
    std::vector<double> extra = edges;
    Part part = fit_part(s, Variable{s.form, 0}, lo, hi, extra, opt, ctl.sub(0, 0.6));
    if (part.c.empty()) throw FitError(part.note);
    c.convergence = {part.converged, part.rounds,
                     part.converged ? "" : "the exchange did not converge: " + part.note};
    finish_linear(c, {part}, edges, opt, ctl.sub(0.6, 0.9));
  }

  ctl.report(0.9, "measuring");
  const std::size_t samples = sample_count(c, opt);
  const Measured un = measure(c, c.unrounded, samples, edges);
  c.unrounded_max_error = D(un.max);
  const Measured m = measure(c, c.coefficients, samples, edges);
  c.max_error = D(m.max);
  c.x_at_max = m.x;
  c.extrema = m.extrema;
  c.gelu_abs_error = D(m.gelu_abs);
  c.fit_seconds = seconds_since(t0);
  ctl.report(1, "done");
  if (!c.convergence.converged) {
    const std::string why = c.convergence.reason.empty() ? "the fit did not converge" : c.convergence.reason;
    std::string msg = std::string(name(s.form)) + " fit did not converge: " + why;
    if (pole_free)
      msg += "; best candidate found: max error " + format_f64(c.max_error) +
             " at x = " + format_f64(c.x_at_max);
    throw NotConverged(msg, c);
  }
  return c;
}

}  // namespace gelu::fit

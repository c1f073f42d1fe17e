// [SECTION] Weighted linear minimax: the exchange algorithm on a growing point set, in long double.
//
// The discrete problem  min_a max_{x ∈ S} w(x)·|r(x) − Σ_k a_k φ_k(x)|  is a linear programme; its dual is
// solved by the simplex method with a basis of n + 1 points (the reference). The simplex multipliers are the
// coefficients a and the level h; a point whose |error| exceeds h enters the reference and the ratio test
// picks the one that leaves: Stiefel's exchange, which for a Haar system is Remez's single-point exchange.
// Once S is solved, the continuous extrema of the error are found around every local maximum (golden
// section) and added to S; the loop ends when the largest continuous error equals h to 1e-9 (relative) or to
// the precision of long double arithmetic. Non-Haar bases (|x|^k on a range across 0 for a target that is
// not even about 0.5·x) need no special case: the same linear programme is solved.
//
// Index of this file:
//   [SECTION] Chebyshev bases, grids and the search for extrema
//   [SECTION] The exchange
//   [SECTION] Minimax and least squares
#include <algorithm>
#include <cfloat>
#include <numeric>
#include <set>

#include "fit_internal.hpp"

namespace gelu::fit::detail {

// [SECTION] Chebyshev bases, grids and the search for extrema

void Control::report(double fraction, std::string_view stage) const {
  if (!options || !options->progress) return;
  if (!options->progress(start + span * std::clamp(fraction, 0.0, 1.0), stage)) throw Cancelled();
}

ChebMap ChebMap::of(double vlo, double vhi) {
  const ld w = L(vhi) - L(vlo);
  return {2.0L / w, -(L(vlo) + L(vhi)) / w};
}

void chebyshev_values(ld tau, int n, ld* out) {
  if (n <= 0) return;
  out[0] = 1;
  if (n == 1) return;
  out[1] = tau;
  for (int k = 2; k < n; ++k) out[k] = 2 * tau * out[k - 1] - out[k - 2];
}

std::vector<ld> chebyshev_to_monomial(const std::vector<ld>& a, const ChebMap& m) {
  const std::size_t n = a.size();
  if (n == 0) return {};
  // Coefficients of Σ a_j T_j(τ) in powers of τ (T_{k+1} = 2τ T_k − T_{k−1}).
  std::vector<ld> b(n, 0), prev(n, 0), cur(n, 0), next(n, 0);
  prev[0] = 1;
  b[0] += a[0];
  if (n > 1) {
    cur[1] = 1;
    b[1] += a[1];
  }
  for (std::size_t k = 1; k + 1 < n; ++k) {
    for (std::size_t i = 0; i < n; ++i) next[i] = (i > 0 ? 2 * cur[i - 1] : 0) - prev[i];
    for (std::size_t i = 0; i < n; ++i) b[i] += a[k + 1] * next[i];
    prev.swap(cur);
    cur.swap(next);
  }
  // Horner in τ = α v + β, each step a polynomial in v times (α v + β).
  std::vector<ld> c(n, 0);
  c[0] = b[n - 1];
  for (std::size_t i = n - 1; i-- > 0;) {
    for (std::size_t k = n - 1; k > 0; --k) c[k] = m.alpha * c[k - 1] + m.beta * c[k];
    c[0] = m.beta * c[0] + b[i];
  }
  return c;
}

std::vector<double> chebyshev_grid(double lo, double hi, std::size_t n) {
  std::vector<double> x(n);
  const ld mid = (L(lo) + L(hi)) / 2, half = (L(hi) - L(lo)) / 2;
  const ld pi = 3.141592653589793238462643383279502884L;
  for (std::size_t i = 0; i < n; ++i)
    x[i] = D(mid - half * std::cos(pi * static_cast<ld>(i) / static_cast<ld>(n - 1)));
  x.front() = lo;
  x.back() = hi;
  return x;
}

Peak maximize_abs(const std::function<ld(double)>& f, double a, double b, int iterations) {
  Peak best{a, f(a)};
  const auto consider = [&best](double x, ld v) {
    if (std::fabs(v) > std::fabs(best.value)) best = {x, v};
  };
  if (!(b > a)) return best;
  consider(b, f(b));
  constexpr double g = 0.38196601125010515;  // 2 − golden ratio
  double x1 = a + g * (b - a), x2 = b - g * (b - a);
  ld v1 = f(x1), v2 = f(x2);
  consider(x1, v1);
  consider(x2, v2);
  for (int it = 0; it < iterations; ++it) {
    if (std::fabs(v1) >= std::fabs(v2)) {
      b = x2;
      x2 = x1;
      v2 = v1;
      x1 = a + g * (b - a);
      if (x1 >= x2) break;
      v1 = f(x1);
      consider(x1, v1);
    } else {
      a = x1;
      x1 = x2;
      v1 = v2;
      x2 = b - g * (b - a);
      if (x2 <= x1) break;
      v2 = f(x2);
      consider(x2, v2);
    }
  }
  return best;
}

std::vector<Peak> refine_extrema(const std::function<ld(double)>& f, const std::vector<double>& xs,
                                 const std::vector<ld>& es, ld floor) {
  std::vector<Peak> out;
  const std::size_t n = xs.size();
  for (std::size_t i = 0; i < n; ++i) {
    const ld v = std::fabs(es[i]);
    if (v < floor || v == 0) continue;
    if (i > 0 && std::fabs(es[i - 1]) > v) continue;
    if (i + 1 < n && std::fabs(es[i + 1]) > v) continue;
    if (i > 0 && std::fabs(es[i - 1]) == v && !out.empty() && out.back().x >= xs[i - 1]) continue;  // plateau
    Peak p = maximize_abs(f, xs[i > 0 ? i - 1 : 0], xs[i + 1 < n ? i + 1 : n - 1]);
    if (std::fabs(p.value) < v) p = {xs[i], es[i]};
    out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const Peak& l, const Peak& r) { return l.x < r.x; });
  return out;
}

ld linear_error(const LinearProblem& p, const std::vector<ld>& a, double x) {
  std::vector<ld> phi(static_cast<std::size_t>(p.n));
  p.basis(x, phi.data());
  ld s = 0;
  for (std::size_t k = 0; k < phi.size(); ++k) s += a[k] * phi[k];
  return p.weight(x) * (p.residual(x) - s);
}

// [SECTION] The exchange: a simplex on the dual with n + 1 reference points

namespace {

/// The points of the discrete problem with their residuals, weights and basis values.
struct PointSet {
  std::size_t n = 0;
  std::vector<double> x;
  std::vector<ld> r, w, phi;  // phi: n values per point
  std::set<double> members;

  bool add(const LinearProblem& p, double xi) {
    if (!members.insert(xi).second) return false;
    x.push_back(xi);
    r.push_back(p.residual(xi));
    w.push_back(p.weight(xi));
    phi.resize(phi.size() + n);
    p.basis(xi, &phi[phi.size() - n]);
    return true;
  }
  std::size_t size() const { return x.size(); }
  const ld* row(std::size_t i) const { return &phi[i * n]; }
  ld error(std::size_t i, const std::vector<ld>& a) const {
    ld s = 0;
    const ld* f = row(i);
    for (std::size_t k = 0; k < n; ++k) s += a[k] * f[k];
    return w[i] * (r[i] - s);
  }
};

/// The simplex on the dual of the discrete minimax problem; its basis is the reference.
class Exchange {
 public:
  explicit Exchange(const PointSet& s) : s_(s), m_(s.n + 1) {
    for (std::size_t i = 0; i < s.size(); ++i) scale_ = std::max(scale_, s.w[i] * std::fabs(s.r[i]));
  }

  /// An initial reference of n + 1 points spread over the set whose dual solution is feasible.
  bool init() {
    std::vector<std::size_t> order(s_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [this](std::size_t l, std::size_t r) { return s_.x[l] < s_.x[r]; });
    const std::size_t N = order.size();
    if (N < m_) return false;
    // First the Chebyshev-like pick (both ends, symmetric: right for a Haar system), then shifted ones that
    // never pair x with −x (a basis in |x| or x² gives such a pair equal columns).
    for (double shift : {-1.0, 0.25, 0.1, 0.4, 0.7, 0.85}) {
      std::vector<std::size_t> pick;
      std::set<std::size_t> used;
      for (std::size_t j = 0; j < m_; ++j) {
        const double t = shift < 0 ? static_cast<double>(j) / static_cast<double>(m_ - 1)
                                   : (static_cast<double>(j) + shift) / static_cast<double>(m_);
        std::size_t i = static_cast<std::size_t>(std::lround(t * static_cast<double>(N - 1)));
        while (used.count(i) && i + 1 < N) ++i;
        while (used.count(i) && i > 0) --i;
        used.insert(i);
        pick.push_back(order[i]);
      }
      MatrixL M(static_cast<Eigen::Index>(s_.n), static_cast<Eigen::Index>(m_));
      for (std::size_t j = 0; j < m_; ++j)
        for (std::size_t k = 0; k < s_.n; ++k)
          M(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j)) = s_.w[pick[j]] * s_.row(pick[j])[k];
      Eigen::FullPivLU<MatrixL> lu(M);
      const MatrixL ker = lu.kernel();
      if (ker.cols() != 1) continue;
      idx_ = pick;
      sgn_.assign(m_, 1);
      for (std::size_t j = 0; j < m_; ++j) sgn_[j] = ker(static_cast<Eigen::Index>(j), 0) < 0 ? -1 : 1;
      if (solve()) return true;
    }
    return false;
  }

  /// Pivots until the set is solved (or `cap` pivots). Returns false on a numerical breakdown.
  bool run(std::size_t cap) {
    std::size_t degenerate = 0;
    for (std::size_t it = 0; it < cap; ++it) {
      if (!solve()) return false;
      // The most violated point; after a run of degenerate pivots, the first violated one (Bland's rule).
      // Optimal when no point exceeds the level by more than rounding can explain.
      const ld tol = 1e-13L * std::fabs(h_) + 128 * LDBL_EPSILON * scale_ + 1e-300L;
      const bool bland = degenerate > 2 * m_;
      std::size_t enter = s_.size();
      ld worst = -1;
      for (std::size_t i = 0; i < s_.size(); ++i) {
        const ld e = s_.error(i, a_);
        if (std::fabs(e) <= worst) continue;
        worst = std::fabs(e);
        enter = i;
        e_enter_ = e;
        if (bland && worst > h_ + tol) break;
      }
      if (enter == s_.size() || worst <= h_ + tol) return true;
      const int sign = e_enter_ > 0 ? 1 : -1;
      VectorL col(static_cast<Eigen::Index>(m_));
      for (std::size_t k = 0; k < s_.n; ++k)
        col(static_cast<Eigen::Index>(k)) = sign * s_.w[enter] * s_.row(enter)[k];
      col(static_cast<Eigen::Index>(s_.n)) = 1;
      const VectorL d = lu_.solve(col);
      const ld dmax = d.cwiseAbs().maxCoeff();
      std::size_t leave = m_;
      ld best = 0;
      for (std::size_t j = 0; j < m_; ++j) {
        const ld dj = d(static_cast<Eigen::Index>(j));
        if (dj <= 1e-15L * dmax) continue;
        const ld ratio = std::max<ld>(u_(static_cast<Eigen::Index>(j)), 0) / dj;
        if (leave == m_ || ratio < best ||
            (ratio == best && (bland ? idx_[j] < idx_[leave] : dj > d(static_cast<Eigen::Index>(leave))))) {
          leave = j;
          best = ratio;
        }
      }
      if (leave == m_) return false;
      degenerate = best == 0 ? degenerate + 1 : 0;
      idx_[leave] = enter;
      sgn_[leave] = sign;
      ++pivots_;
    }
    return solve();
  }

  const std::vector<ld>& a() const { return a_; }
  ld h() const { return h_; }
  std::size_t pivots() const { return pivots_; }
  std::vector<RefPoint> reference() const {
    std::vector<RefPoint> r;
    for (std::size_t j = 0; j < m_; ++j) r.push_back({s_.x[idx_[j]], sgn_[j]});
    std::sort(r.begin(), r.end(), [](const RefPoint& l, const RefPoint& q) { return l.x < q.x; });
    return r;
  }

 private:
  /// Factors the basis, computes the basic solution u and the multipliers (a, h).
  bool solve() {
    const auto m = static_cast<Eigen::Index>(m_);
    MatrixL B(m, m);
    VectorL c(m);
    for (std::size_t j = 0; j < m_; ++j) {
      const std::size_t i = idx_[j];
      for (std::size_t k = 0; k < s_.n; ++k)
        B(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j)) = sgn_[j] * s_.w[i] * s_.row(i)[k];
      B(m - 1, static_cast<Eigen::Index>(j)) = 1;
      c(static_cast<Eigen::Index>(j)) = sgn_[j] * s_.w[i] * s_.r[i];
    }
    lu_.compute(B);
    if (!(lu_.rcond() > 1e-300L)) return false;
    VectorL e = VectorL::Zero(m);
    e(m - 1) = 1;
    u_ = lu_.solve(e);
    const VectorL y = lu_.transpose().solve(c);
    if (!y.allFinite() || !u_.allFinite()) return false;
    a_.assign(s_.n, 0);
    for (std::size_t k = 0; k < s_.n; ++k) a_[k] = y(static_cast<Eigen::Index>(k));
    h_ = y(m - 1);
    return true;
  }

  const PointSet& s_;
  std::size_t m_;
  std::vector<std::size_t> idx_;
  std::vector<int> sgn_;
  Eigen::PartialPivLU<MatrixL> lu_;
  VectorL u_;
  std::vector<ld> a_;
  ld h_ = 0, e_enter_ = 0, scale_ = 0;
  std::size_t pivots_ = 0;
};

std::size_t default_grid(const LinearProblem& p) {
  return p.grid ? p.grid : std::max<std::size_t>(1024, 64 * static_cast<std::size_t>(p.n + 1));
}

void fill(PointSet& s, const LinearProblem& p, const std::vector<double>& points) {
  s.n = static_cast<std::size_t>(p.n);
  for (double x : points) s.add(p, x);
  for (double x : p.extra)
    if (x >= p.lo && x <= p.hi) s.add(p, x);
}

/// Errors on the set, sorted by x.
void sorted_errors(const PointSet& s, const std::vector<ld>& a, std::vector<double>* xs,
                   std::vector<ld>* es) {
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&s](std::size_t l, std::size_t r) { return s.x[l] < s.x[r]; });
  xs->resize(order.size());
  es->resize(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    (*xs)[k] = s.x[order[k]];
    (*es)[k] = s.error(order[k], a);
  }
}

/// What long double can resolve in the error at the set's points with coefficients a.
ld noise_floor(const PointSet& s, const std::vector<ld>& a) {
  ld scale = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    ld t = std::fabs(s.r[i]);
    for (std::size_t k = 0; k < s.n; ++k) t += std::fabs(a[k] * s.row(i)[k]);
    scale = std::max(scale, s.w[i] * t);
  }
  return 64 * LDBL_EPSILON * scale;
}

}  // namespace

// [SECTION] Minimax and least squares

LinearFit minimax(const LinearProblem& p, const Control& ctl, int rounds) {
  if (rounds <= 0) rounds = 40;
  PointSet s;
  fill(s, p, chebyshev_grid(p.lo, p.hi, default_grid(p)));
  Exchange ex(s);
  LinearFit best;
  best.max_error = -1;
  if (!ex.init()) {
    best.note = "no initial reference: the basis is degenerate on the range";
    return best;
  }
  const std::size_t cap = 200 + 40 * (static_cast<std::size_t>(p.n) + 1);
  const auto err = [&p, &ex](double x) { return linear_error(p, ex.a(), x); };
  std::vector<double> xs;
  std::vector<ld> es;
  for (int round = 0; round < rounds; ++round) {
    ctl.report(static_cast<double>(round) / rounds, "exchange");
    if (!ex.run(cap)) {
      best.note = "the exchange broke down (singular reference)";
      break;
    }
    const ld h = ex.h();
    sorted_errors(s, ex.a(), &xs, &es);
    const std::vector<Peak> peaks = refine_extrema(err, xs, es, std::fabs(h) / 2);
    Peak top{p.lo, 0};
    for (const Peak& pk : peaks)
      if (std::fabs(pk.value) > std::fabs(top.value)) top = pk;
    const ld M = std::fabs(top.value);
    if (best.max_error < 0 || M < best.max_error) {
      best.a = ex.a();
      best.level = h;
      best.max_error = M;
      best.x_at_max = top.x;
      best.reference = ex.reference();
      best.rounds = round + 1;
    }
    best.pivots = static_cast<int>(ex.pivots());
    const ld noise = noise_floor(s, ex.a());
    if (M - h <= 1e-9L * M + noise) {
      best.converged = true;
      if (M - h > 1e-9L * M) best.note = "converged to the precision of long double arithmetic";
      break;
    }
    bool added = false;
    for (const Peak& pk : peaks)
      if (std::fabs(pk.value) > h + noise) added = s.add(p, pk.x) || added;
    if (!added) {
      best.converged = M - h <= 1e-6L * M + noise;
      best.note = "no new point found; gap " + std::to_string(D((M - h) / M));
      break;
    }
  }
  if (!best.converged && best.note.empty() && best.max_error >= 0 &&
      best.max_error - best.level <= 1e-6L * best.max_error)
    best.converged = true;
  best.set = s.x;
  std::sort(best.set.begin(), best.set.end());
  return best;
}

LinearFit minimax_points(std::size_t n, const std::vector<double>& x, const std::vector<ld>& r,
                         const std::vector<ld>& w, const std::vector<ld>& phi) {
  PointSet s;
  s.n = n;
  s.x = x;
  s.r = r;
  s.w = w;
  s.phi = phi;
  LinearFit f;
  Exchange ex(s);
  if (!ex.init() || !ex.run(200 + 40 * (n + 1))) return f;
  f.a = ex.a();
  f.level = ex.h();
  ld M = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const ld e = std::fabs(s.error(i, f.a));
    if (e > M) {
      M = e;
      f.x_at_max = s.x[i];
    }
  }
  f.max_error = M;
  f.reference = ex.reference();
  f.converged = true;
  return f;
}

LinearFit least_squares(const LinearProblem& p) {
  const std::size_t N = std::max<std::size_t>(2001, 64 * static_cast<std::size_t>(p.n + 1));
  const auto n = static_cast<Eigen::Index>(p.n);
  MatrixL A(static_cast<Eigen::Index>(N), n);
  VectorL rhs(static_cast<Eigen::Index>(N));
  std::vector<ld> phi(static_cast<std::size_t>(p.n));
  for (std::size_t i = 0; i < N; ++i) {
    const double x = i + 1 == N ? p.hi : D(L(p.lo) + (L(p.hi) - L(p.lo)) * L(double(i)) / L(double(N - 1)));
    const ld q = std::sqrt((i == 0 || i + 1 == N) ? 0.5L : 1.0L) * p.weight(x);  // trapezoid weights
    p.basis(x, phi.data());
    for (Eigen::Index k = 0; k < n; ++k)
      A(static_cast<Eigen::Index>(i), k) = q * phi[static_cast<std::size_t>(k)];
    rhs(static_cast<Eigen::Index>(i)) = q * p.residual(x);
  }
  const VectorL sol = A.householderQr().solve(rhs);
  LinearFit f;
  f.a.assign(sol.data(), sol.data() + sol.size());
  // Its maximum error, as for minimax: a dense scan refined around every local maximum.
  PointSet s;
  fill(s, p, chebyshev_grid(p.lo, p.hi, default_grid(p)));
  std::vector<double> xs;
  std::vector<ld> es;
  sorted_errors(s, f.a, &xs, &es);
  const auto err = [&p, &f](double x) { return linear_error(p, f.a, x); };
  for (const Peak& pk : refine_extrema(err, xs, es, 0))
    if (std::fabs(pk.value) > f.max_error) {
      f.max_error = std::fabs(pk.value);
      f.x_at_max = pk.x;
    }
  f.set = xs;
  f.converged = true;
  return f;
}

}  // namespace gelu::fit::detail

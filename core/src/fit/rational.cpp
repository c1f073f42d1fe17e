// [SECTION] Rational minimax P_m/Q_n by the second Remez algorithm, in long double.
//
// On a reference of N = m + n + 2 points the equations w_i·(g_i − P(x_i)/Q(x_i)) = (−1)^i·E are solved by
// fixing Q in the E term at its previous value (a linear system in p, q and E), repeated until E settles.
// The local extrema of the error are then found (dense scan + golden section), N of them alternating in
// sign are kept (the global maximum among them), and the loop ends when their magnitudes agree to 1e-9.
// The start is the reference of the polynomial minimax of degree m + n (the same number of points).
// Failure modes, each reported with the best candidate found so far: a zero of Q inside the range (a pole),
// a singular system, fewer than N alternations (a degenerate best approximation), or no convergence.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "fit_internal.hpp"
#include "gelu/numio.hpp"

namespace gelu::fit::detail {

namespace {

struct Rat {
  int m = 0, n = 0;
  ChebMap map;
  std::vector<ld> p, q;  // Chebyshev coefficients; q[0] = 1

  ld value(double x, std::vector<ld>& T) const {
    const ld tau = map.alpha * L(x) + map.beta;
    chebyshev_values(tau, static_cast<int>(T.size()), T.data());
    ld P = 0, Q = 0;
    for (std::size_t k = 0; k < p.size(); ++k) P += p[k] * T[k];
    for (std::size_t k = 0; k < q.size(); ++k) Q += q[k] * T[k];
    return P / Q;
  }
  ld denominator(double x, std::vector<ld>& T) const {
    const ld tau = map.alpha * L(x) + map.beta;
    chebyshev_values(tau, static_cast<int>(T.size()), T.data());
    ld Q = 0;
    for (std::size_t k = 0; k < q.size(); ++k) Q += q[k] * T[k];
    return Q;
  }
};

std::string num(ld v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", D(v));
  return buf;
}

// [SECTION] The exchange step, one definition for Remez and for its Lawson start

/// The alternating sequence of extrema (in order of x): zeros dropped, each run of one sign keeps its
/// largest.
std::vector<Peak> alternating(const std::vector<Peak>& peaks) {
  std::vector<Peak> alt;
  for (const Peak& pk : peaks) {
    if (pk.value == 0) continue;
    if (!alt.empty() && (alt.back().value > 0) == (pk.value > 0)) {
      if (std::fabs(pk.value) > std::fabs(alt.back().value)) alt.back() = pk;
    } else {
      alt.push_back(pk);
    }
  }
  return alt;
}

/// Down to N points, keeping the sequence alternating: with one too many the smaller end goes, else the
/// adjacent pair whose larger magnitude is the smallest.
void keep_n(std::vector<Peak>& alt, int N) {
  while (static_cast<int>(alt.size()) > N) {
    if (static_cast<int>(alt.size()) - N == 1) {
      if (std::fabs(alt.front().value) < std::fabs(alt.back().value))
        alt.erase(alt.begin());
      else
        alt.pop_back();
      continue;
    }
    std::size_t k = 0;
    ld smallest = LDBL_MAX;
    for (std::size_t i = 0; i + 1 < alt.size(); ++i) {
      const ld v = std::max(std::fabs(alt[i].value), std::fabs(alt[i + 1].value));
      if (v < smallest) smallest = v, k = i;
    }
    alt.erase(alt.begin() + static_cast<std::ptrdiff_t>(k), alt.begin() + static_cast<std::ptrdiff_t>(k) + 2);
  }
}

}  // namespace

namespace {

/// One Remez run for degrees (s.degree, s.denominator_degree) from the reference `ref` (N points).
RationalResult remez_from(const Spec& s, std::vector<double> ref, const Control& ctl, int max_iterations) {
  RationalResult out;
  const int m = s.degree, n = s.denominator_degree, N = m + n + 2;
  const std::size_t width = static_cast<std::size_t>(std::max(m, n) + 1);
  const auto g = [&s](double x) { return target_ld(s.target, x); };
  const auto w = [&s](ld gv) { return weight_at(s, gv); };

  Rat r;
  r.m = m;
  r.n = n;
  r.map = ChebMap::of(s.a, s.b);
  std::vector<ld> T(width);
  const std::vector<double> scan =
      chebyshev_grid(s.a, s.b, static_cast<std::size_t>(std::max(2048, 128 * N)));
  std::vector<ld> gscan(scan.size()), wscan(scan.size());
  ld scale = 0;  // the size of the weighted target: what long double can resolve is ~eps times it
  for (std::size_t i = 0; i < scan.size(); ++i) {
    gscan[i] = g(scan[i]);
    wscan[i] = w(gscan[i]);
    scale = std::max(scale, wscan[i] * std::fabs(gscan[i]));
  }

  ld best_max = -1;
  Rat best;
  std::vector<RefPoint> best_ref;
  std::string reason;
  for (int it = 0; it < max_iterations; ++it) {
    ctl.report(0.2 + 0.8 * it / max_iterations, "rational exchange");
    out.iterations = it + 1;
    // Solve on the reference.
    std::vector<ld> gi(static_cast<std::size_t>(N)), wi(gi.size()), qold(gi.size(), 1);
    std::vector<std::vector<ld>> Ti(gi.size(), std::vector<ld>(width));
    for (std::size_t i = 0; i < gi.size(); ++i) {
      gi[i] = g(ref[i]);
      wi[i] = w(gi[i]);
      chebyshev_values(r.map.alpha * L(ref[i]) + r.map.beta, static_cast<int>(width), Ti[i].data());
    }
    ld E = 0, Eprev = 0;
    bool settled = false, singular = false;
    for (int inner = 0; inner < 60; ++inner) {
      MatrixL A(N, N);
      VectorL b(N);
      for (int i = 0; i < N; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        for (int k = 0; k <= m; ++k) A(i, k) = Ti[ui][static_cast<std::size_t>(k)];
        for (int k = 1; k <= n; ++k) A(i, m + k) = -gi[ui] * Ti[ui][static_cast<std::size_t>(k)];
        A(i, N - 1) = (i % 2 == 0 ? 1 : -1) * qold[ui] / wi[ui];
        b(i) = gi[ui];
      }
      Eigen::PartialPivLU<MatrixL> lu(A);
      if (!(lu.rcond() > 1e-300L)) {
        singular = true;
        break;
      }
      const VectorL z = lu.solve(b);
      if (!z.allFinite()) {
        singular = true;
        break;
      }
      r.p.assign(z.data(), z.data() + m + 1);
      r.q.assign(static_cast<std::size_t>(n) + 1, 1);
      for (int k = 1; k <= n; ++k) r.q[static_cast<std::size_t>(k)] = z(m + k);
      E = z(N - 1);
      for (std::size_t i = 0; i < gi.size(); ++i) {
        ld Q = 0;
        for (std::size_t k = 0; k < r.q.size(); ++k) Q += r.q[k] * Ti[i][k];
        qold[i] = Q;
      }
      if (inner > 0 && std::fabs(E - Eprev) <= 1e-15L * std::fabs(E) + LDBL_MIN) {
        settled = true;
        break;
      }
      Eprev = E;
    }
    if (singular) {
      reason = "the reference system became singular at iteration " + std::to_string(it + 1);
      break;
    }
    // A pole: Q vanishes or changes sign on the range.
    {
      ld prev = r.denominator(scan[0], T);
      bool pole = prev == 0;
      double at = scan[0];
      for (std::size_t i = 1; i < scan.size() && !pole; ++i) {
        const ld Q = r.denominator(scan[i], T);
        if (Q == 0 || (Q > 0) != (prev > 0)) pole = true, at = scan[i];
        prev = Q;
      }
      if (pole) {
        reason = "the denominator Q has a zero near x = " + format_f64(at) + " inside [" + format_f64(s.a) +
                 ", " + format_f64(s.b) + "] at iteration " + std::to_string(it + 1) + " (a pole)";
        break;
      }
    }
    // Extrema of the error.
    const auto err = [&](double x) {
      std::vector<ld> Tx(width);
      const ld gv = g(x);
      return w(gv) * (gv - r.value(x, Tx));
    };
    std::vector<ld> es(scan.size());
    for (std::size_t i = 0; i < scan.size(); ++i) es[i] = wscan[i] * (gscan[i] - r.value(scan[i], T));
    std::vector<Peak> alt = alternating(refine_extrema(err, scan, es, 0));
    ld M = 0;
    for (const Peak& pk : alt) M = std::max(M, std::fabs(pk.value));
    if (best_max < 0 || M < best_max) {
      best_max = M;
      best = r;
      best_ref.clear();
      for (const Peak& pk : alt) best_ref.push_back({pk.x, pk.value > 0 ? 1 : -1});
    }
    if (static_cast<int>(alt.size()) < N) {
      reason = "the error alternates only " + std::to_string(alt.size()) + " times where " +
               std::to_string(N) + " are needed at iteration " + std::to_string(it + 1) +
               " (the best approximation of these degrees is degenerate, or the start was too far from it)";
      break;
    }
    keep_n(alt, N);
    ld mn = LDBL_MAX;
    for (const Peak& pk : alt) mn = std::min(mn, std::fabs(pk.value));
    out.level = std::fabs(E);
    const ld spread = (M - mn) / M;
    if (spread <= 1e-9L || (settled && M - mn <= 256 * LDBL_EPSILON * scale)) {
      out.converged = true;
      best = r;
      best_max = M;
      best_ref.clear();
      for (const Peak& pk : alt) best_ref.push_back({pk.x, pk.value > 0 ? 1 : -1});
      break;
    }
    if (it + 1 == max_iterations)
      reason = "no convergence after " + std::to_string(max_iterations) +
               " iterations (the extrema still differ by " + num(100 * spread) + "%)";
    ref.clear();
    for (const Peak& pk : alt) ref.push_back(pk.x);
  }
  out.reason = out.converged ? "" : reason;
  if (best_max < 0) {  // no iterate without a pole
    out.reason += "; no candidate without a pole was found";
    out.pole_free = false;
    best = r;
  }
  out.final_reference = ref;
  // Powers of x, normalized so that q_0 = 1.
  out.p = chebyshev_to_monomial(best.p, best.map);
  out.q = chebyshev_to_monomial(best.q, best.map);
  const ld q0 = out.q.empty() ? 1 : out.q[0];
  if (q0 != 0 && std::isfinite(q0)) {
    for (ld& v : out.p) v /= q0;
    for (ld& v : out.q) v /= q0;
    out.q[0] = 1;
  }
  out.reference = best_ref;
  return out;
}

/// A start for Remez from a Lawson-weighted Sanathanan–Koerner iteration: least squares of
/// (w/Q_prev)·(g·Q − P) with Lawson weights multiplied by |error| each round, which drifts toward the minimax
/// solution without a reference; its N largest alternating extrema make the reference. Empty when the
/// iteration meets a pole before it has anything usable.
std::vector<double> lawson_start(const Spec& s) {
  const int m = s.degree, n = s.denominator_degree, N = m + n + 2, unknowns = m + n + 1;
  const std::vector<double> xs = chebyshev_grid(s.a, s.b, static_cast<std::size_t>(std::max(1024, 64 * N)));
  const ChebMap map = ChebMap::of(s.a, s.b);
  const std::size_t width = static_cast<std::size_t>(std::max(m, n) + 1), M = xs.size();
  std::vector<ld> g(M), w(M), lw(M, 1), qprev(M, 1), T(M * width);
  for (std::size_t i = 0; i < M; ++i) {
    g[i] = target_ld(s.target, xs[i]);
    w[i] = weight_at(s, g[i]);
    chebyshev_values(map.alpha * L(xs[i]) + map.beta, static_cast<int>(width), &T[i * width]);
  }
  std::vector<ld> good_p, good_q;
  for (int it = 0; it < 40; ++it) {
    MatrixL A(static_cast<Eigen::Index>(M), unknowns);
    VectorL b(static_cast<Eigen::Index>(M));
    for (std::size_t i = 0; i < M; ++i) {
      const ld sc = std::sqrt(lw[i]) * w[i] / std::fabs(qprev[i]);
      const auto r = static_cast<Eigen::Index>(i);
      for (int k = 0; k <= m; ++k) A(r, k) = -sc * T[i * width + static_cast<std::size_t>(k)];
      for (int k = 1; k <= n; ++k) A(r, m + k) = sc * g[i] * T[i * width + static_cast<std::size_t>(k)];
      b(r) = -sc * g[i];
    }
    const VectorL z = A.householderQr().solve(b);
    if (!z.allFinite()) break;
    std::vector<ld> p(z.data(), z.data() + m + 1), q(static_cast<std::size_t>(n) + 1, 1);
    for (int k = 1; k <= n; ++k) q[static_cast<std::size_t>(k)] = z(m + k);
    bool pole = false;
    ld total = 0;
    std::vector<ld> Q(M), e(M);
    for (std::size_t i = 0; i < M; ++i) {
      ld P = 0, Qi = 0;
      for (std::size_t k = 0; k < p.size(); ++k) P += p[k] * T[i * width + k];
      for (std::size_t k = 0; k < q.size(); ++k) Qi += q[k] * T[i * width + k];
      Q[i] = Qi;
      if (Qi <= 0) pole = true;
      e[i] = w[i] * (g[i] - P / Qi);
    }
    if (pole) break;
    good_p = p;
    good_q = q;
    for (std::size_t i = 0; i < M; ++i) {
      lw[i] *= std::fabs(e[i]);
      total += lw[i];
      qprev[i] = Q[i];
    }
    if (!(total > 0)) break;
    for (ld& v : lw) v /= total;
  }
  if (good_p.empty()) return {};
  // The alternating extrema of its error.
  std::vector<ld> e(M);
  for (std::size_t i = 0; i < M; ++i) {
    ld P = 0, Qi = 0;
    for (std::size_t k = 0; k < good_p.size(); ++k) P += good_p[k] * T[i * width + k];
    for (std::size_t k = 0; k < good_q.size(); ++k) Qi += good_q[k] * T[i * width + k];
    e[i] = w[i] * (g[i] - P / Qi);
  }
  std::vector<Peak> peaks;  // the grid's local maxima of |e|
  for (std::size_t i = 0; i < M; ++i) {
    const bool peak = (i == 0 || std::fabs(e[i]) >= std::fabs(e[i - 1])) &&
                      (i + 1 == M || std::fabs(e[i]) >= std::fabs(e[i + 1]));
    if (peak) peaks.push_back({xs[i], e[i]});
  }
  std::vector<Peak> alt = alternating(peaks);
  keep_n(alt, N);
  if (static_cast<int>(alt.size()) != N) return {};
  std::vector<double> ref;
  for (const Peak& a : alt) ref.push_back(a.x);
  return ref;
}

}  // namespace

RationalResult rational_remez(const Spec& s, const Control& ctl, int max_iterations) {
  const int m = s.degree, n = s.denominator_degree, N = m + n + 2;
  // Start: the reference of the polynomial minimax of degree m + n (the same number of points).
  std::vector<double> ref;
  {
    const ChebMap pm = ChebMap::of(s.a, s.b);
    LinearProblem lp;
    lp.n = m + n + 1;
    lp.basis = [pm, k = lp.n](double x, ld* phi) { chebyshev_values(pm.alpha * L(x) + pm.beta, k, phi); };
    lp.residual = [&s](double x) { return target_ld(s.target, x); };
    lp.weight = [&s](double x) { return weight_at(s, target_ld(s.target, x)); };
    lp.lo = s.a;
    lp.hi = s.b;
    const LinearFit pf = minimax(lp, ctl.sub(0, 0.1), 12);
    for (const RefPoint& r : pf.reference) ref.push_back(r.x);
  }
  if (static_cast<int>(ref.size()) != N) ref = chebyshev_grid(s.a, s.b, static_cast<std::size_t>(N));
  RationalResult direct = remez_from(s, ref, ctl.sub(0.1, 0.3), max_iterations);
  if (direct.converged) return direct;
  // A start from a Lawson-weighted least-squares rational fit.
  if (const std::vector<double> lref = lawson_start(s); !lref.empty()) {
    RationalResult l = remez_from(s, lref, ctl.sub(0.3, 0.4), max_iterations);
    if (l.converged) {
      l.iterations += direct.iterations;
      return l;
    }
  }
  // Continuation: (m + n − 1, 1), (m + n − 2, 2), … (m, n), each started from the previous one's reference
  // (they all have m + n + 2 points); the first step starts from the polynomial's.
  std::vector<double> start = ref;
  RationalResult last;
  for (int k = 1; k <= n; ++k) {
    Spec step = s;
    step.degree = m + n - k;
    step.denominator_degree = k;
    last = remez_from(step, start, ctl.sub(0.4 + 0.6 * (k - 1) / n, 0.4 + 0.6 * k / n), max_iterations);
    if (!last.converged) break;
    start = last.final_reference;
  }
  if (last.converged) {
    last.iterations += direct.iterations;
    return last;
  }
  return direct;
}

}  // namespace gelu::fit::detail

// [SECTION] Correctly rounded fits (gelu/fit_cr.hpp): the MPFR reference, rounding intervals, GLPK's simplex
// over them per piece, coefficient rounding with re-solves, and the exhaustive verification.
//
// Index of this file:
//   [SECTION] The reference
//   [SECTION] Rounding intervals in the compute format
//   [SECTION] Verification
//   [SECTION] The linear programme of one piece
//   [SECTION] Validation, range, search
#include "gelu/fit_cr.hpp"

#include <glpk.h>
#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

#include "fit/fit_internal.hpp"
#include "gelu/numio.hpp"

namespace gelu::fit {

namespace {

using ld = long double;

// [SECTION] The reference

/// An MPFR number that clears itself.
struct Mp {
  mpfr_t v;
  explicit Mp(mpfr_prec_t p) { mpfr_init2(v, p); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
};

bool supported_format(FormatId f) {
  return f == FormatId::BF16 || f == FormatId::F16 || f == FormatId::E4M3 || f == FormatId::E5M2;
}

/// The target at x to precision p with a bound on its absolute error (first-order bounds, doubled):
///  GELU = x·erfc(−x/√2)/2; erfc's condition number is at most u² … 2u² + 1 = x² + 1 (u = −x/√2), the
///  argument carries ≤ 3 roundings: relative error ≤ 2^-p·(5 + 3x²).
///  GELU′ adds x·exp(−x²/2)/√(2π): exp's argument error x²/2·2^-p, then 4 roundings: ≤ 2^-p·(6 + x²).
/// The sum: 2^-p·(16 + 8x²)·(|t1| + |t2|) (+ the addition's rounding), covered with room to spare.
void target_mp(Target t, double x, mpfr_prec_t p, mpfr_t out, mpfr_t err) {
  Mp s(p), u(p), t1(p), t2(p), bound(p);
  mpfr_set_ui(s.v, 2, MPFR_RNDN);
  mpfr_sqrt(s.v, s.v, MPFR_RNDN);
  mpfr_set_d(u.v, -x, MPFR_RNDN);
  mpfr_div(u.v, u.v, s.v, MPFR_RNDN);
  mpfr_erfc(t1.v, u.v, MPFR_RNDN);  // erfc(−x/√2) = 2Φ(x)
  if (t == Target::Gelu) mpfr_mul_d(t1.v, t1.v, x, MPFR_RNDN);
  mpfr_div_ui(t1.v, t1.v, 2, MPFR_RNDN);  // GELU = x·Φ, or Φ
  mpfr_set_ui(t2.v, 0, MPFR_RNDN);
  if (t == Target::GeluPrime) {
    Mp a(p), c(p);
    mpfr_set_d(a.v, x, MPFR_RNDN);
    mpfr_sqr(a.v, a.v, MPFR_RNDN);
    mpfr_div_si(a.v, a.v, -2, MPFR_RNDN);
    mpfr_exp(t2.v, a.v, MPFR_RNDN);
    mpfr_mul_d(t2.v, t2.v, x, MPFR_RNDN);
    mpfr_const_pi(c.v, MPFR_RNDN);
    mpfr_mul_ui(c.v, c.v, 2, MPFR_RNDN);
    mpfr_sqrt(c.v, c.v, MPFR_RNDN);
    mpfr_div(t2.v, t2.v, c.v, MPFR_RNDN);  // x·φ(x)
  }
  mpfr_add(out, t1.v, t2.v, MPFR_RNDN);
  // err = (|t1| + |t2| + |out|)·(16 + 8x²)·2^-p, rounded up
  mpfr_abs(bound.v, t1.v, MPFR_RNDU);
  Mp a2(p);
  mpfr_abs(a2.v, t2.v, MPFR_RNDU);
  mpfr_add(bound.v, bound.v, a2.v, MPFR_RNDU);
  mpfr_abs(a2.v, out, MPFR_RNDU);
  mpfr_add(bound.v, bound.v, a2.v, MPFR_RNDU);
  mpfr_mul_d(bound.v, bound.v, 16.0 + 8.0 * x * x, MPFR_RNDU);
  mpfr_mul_2si(err, bound.v, -static_cast<long>(p), MPFR_RNDU);
}

double cr_value(Target t, const Format& fmt, double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return t == Target::Gelu ? x * 0.5 : 0.5;  // GELU(±0) = ±0; GELU′(0) = 1/2 exactly
  // |x| ≥ 40: Φ(−|x|) < φ(x)/|x| < e^-800, far below half of any format's smallest value (f32's is 2^-150):
  // GELU rounds to x above and to −0 below; GELU′ = 1 + xφ(x) − Φ(−x) rounds to 1 above, −0 below.
  if (x >= 40) return t == Target::Gelu ? fmt.round(x) : 1.0;
  if (x <= -40) return -0.0;
  for (mpfr_prec_t p = 64; p <= 16384; p *= 2) {
    Mp v(p), err(p), lo(p), hi(p);
    target_mp(t, x, p, v.v, err.v);
    mpfr_sub(lo.v, v.v, err.v, MPFR_RNDD);
    mpfr_add(hi.v, v.v, err.v, MPFR_RNDU);
    // The value of the format nearest to v (or a neighbour: v went through double): settled when the whole
    // interval [lo, hi] lies within its rounding interval, compared in MPFR (the midpoints are doubles).
    const double r0 = fmt.round(mpfr_get_d(v.v, MPFR_RNDN));
    for (const double r : {r0, fmt.next_down(r0), fmt.next_up(r0)}) {
      double mlo, mhi;
      bool tie_lo, tie_hi;
      if (r == 0) {
        mlo = -fmt.min_positive() / 2, mhi = -mlo;
        tie_lo = tie_hi = true;  // 0 is even
      } else {
        const double below = r == -fmt.max_finite() ? r - fmt.spacing(r) : fmt.next_down(r);
        const double above = r == fmt.max_finite() ? r + fmt.spacing(r) : fmt.next_up(r);
        mlo = (below + r) / 2, mhi = (r + above) / 2;
        tie_lo = fmt.round(mlo) == r, tie_hi = fmt.round(mhi) == r;
      }
      const int cl = mpfr_cmp_d(lo.v, mlo), ch = mpfr_cmp_d(hi.v, mhi);
      if ((cl > 0 || (cl == 0 && tie_lo)) && (ch < 0 || (ch == 0 && tie_hi)))
        return r == 0 ? (mpfr_sgn(v.v) < 0 ? -0.0 : 0.0) : r;
    }
  }
  throw CrError("the MPFR reference did not settle the rounding of x = " + format_f64(x) +
                " at 16384 bits (an exact rounding boundary?)");
}

// [SECTION] Rounding intervals in the compute format

template <class T>
T next_toward(T v, T dir) {
  return std::nextafter(v, dir);
}

/// [lo, hi]: the values of the compute format (T) that round to r in `fmt` (nearest, ties to even).
template <class T>
void rounding_interval(const Format& fmt, double r, double& lo, double& hi) {
  const T inf = std::numeric_limits<T>::infinity();
  if (r == 0) {
    const double m = fmt.min_positive() / 2;  // a tie: 0 is even, so ±m round to 0
    lo = fmt.round(-m) == 0 ? -m : static_cast<double>(next_toward(static_cast<T>(-m), inf));
    hi = fmt.round(m) == 0 ? m : static_cast<double>(next_toward(static_cast<T>(m), -inf));
    return;
  }
  const double below = r == -fmt.max_finite() ? r - fmt.spacing(r) : fmt.next_down(r);
  const double above = r == fmt.max_finite() ? r + fmt.spacing(r) : fmt.next_up(r);
  const double mlo = (below + r) / 2, mhi = (r + above) / 2;  // exact: the formats are narrower than double
  lo = fmt.round(mlo) == r ? mlo : static_cast<double>(next_toward(static_cast<T>(mlo), inf));
  hi = fmt.round(mhi) == r ? mhi : static_cast<double>(next_toward(static_cast<T>(mhi), -inf));
}

}  // namespace

double correctly_rounded(Target t, FormatId fmt, double x) {
  if (t != Target::Gelu && t != Target::GeluPrime)
    throw CrError(std::string("correctly rounded targets are gelu and gelu_prime, not ") + name(t));
  if (!supported_format(fmt) && fmt != FormatId::F32)
    throw CrError(std::string("correctly rounded formats are bf16, f16, e4m3, e5m2 (and f32 for the "
                              "reference), not ") +
                  number_format(fmt).name);
  return cr_value(t, Format(fmt), x);
}

std::shared_ptr<const CrTable> cr_table(Target t, FormatId format, FormatId compute) {
  static std::mutex mutex;
  static std::map<std::tuple<Target, FormatId, FormatId>, std::shared_ptr<const CrTable>> cache;
  const auto key = std::make_tuple(t, format, compute);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  if (!supported_format(format))
    throw CrError(std::string("--correctly-rounded: ") + number_format(format).name +
                  " is not one of bf16, f16, e4m3, e5m2");
  auto table = std::make_shared<CrTable>();
  table->target = t;
  table->format = format;
  table->compute = compute;
  const Format fmt(format);
  table->x = fmt.enumerate();
  const std::size_t n = table->x.size();
  table->r.resize(n);
  table->lo.resize(n);
  table->hi.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    table->r[i] = correctly_rounded(t, format, table->x[i]);
    if (compute == FormatId::F32)
      rounding_interval<float>(fmt, table->r[i], table->lo[i], table->hi[i]);
    else
      rounding_interval<double>(fmt, table->r[i], table->lo[i], table->hi[i]);
  }
  const std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, std::move(table)).first->second;
}

// [SECTION] Verification

namespace {

/// The candidate at a block of inputs as exported: T arithmetic, fma or not.
template <class T>
void eval_as_exported(const Candidate& c, const double* x, double* y, std::size_t n) {
  T xt[detail::kBlock], yt[detail::kBlock];
  for (std::size_t i = 0; i < n; i += detail::kBlock) {
    const std::size_t m = std::min(detail::kBlock, n - i);
    for (std::size_t j = 0; j < m; ++j) xt[j] = static_cast<T>(x[i + j]);
    if (c.spec.fma)
      detail::eval_block<T, true>(c, xt, yt, m);
    else
      detail::eval_block<T, false>(c, xt, yt, m);
    for (std::size_t j = 0; j < m; ++j) y[i + j] = static_cast<double>(yt[j]);
  }
}

void eval_candidate(const Candidate& c, const std::vector<double>& x, std::vector<double>& y) {
  y.resize(x.size());
  if (c.spec.format == FormatId::F64)
    eval_as_exported<double>(c, x.data(), y.data(), x.size());
  else
    eval_as_exported<float>(c, x.data(), y.data(), x.size());
}

}  // namespace

std::size_t count_correct(const Candidate& c, const CrTable& t, std::vector<double>* failing,
                          std::size_t keep) {
  std::vector<double> y;
  eval_candidate(c, t.x, y);
  const Format fmt(t.format);
  std::size_t ok = 0;
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    const double got = fmt.round(y[i]);
    if (!std::isnan(got) && got == t.r[i]) {
      ++ok;
    } else if (failing && failing->size() < keep) {
      failing->push_back(t.x[i]);
    }
  }
  return ok;
}

double CrResult::eval(double x) const {
  std::vector<double> xs{x}, ys;
  eval_candidate(candidate, xs, ys);
  return Format(spec.format).round(ys[0]);
}

// [SECTION] The linear programme of one piece

namespace {

struct PieceInputs {
  std::vector<double> x;       // the inputs (values of the format)
  std::vector<double> u;       // x − m as the compute format computes it
  std::vector<double> lo, hi;  // rounding intervals (compute-format values)
  double center = 0;
};

struct PieceFit {
  bool feasible = false;     // the LP's δ ≥ 0 on every input
  bool rounded = false;      // the rounded coefficients pass every input
  double margin = -1;        // δ
  std::vector<double> coef;  // c_0 … c_d in u, values of the compute format
  int solves = 0;
  std::size_t failing = 0;  // inputs failing after rounding (when !rounded)
  std::string why;
};

/// GLPK with its messages off; one problem per solve (the active sets are small).
class Lp {
 public:
  Lp() : p_(glp_create_prob()) {}
  ~Lp() { glp_delete_prob(p_); }
  Lp(const Lp&) = delete;
  Lp& operator=(const Lp&) = delete;
  glp_prob* get() { return p_; }

 private:
  glp_prob* p_;
};

/// Powers t^0 … t^d.
void powers(ld t, int d, ld* out) {
  out[0] = 1;
  for (int k = 1; k <= d; ++k) out[k] = out[k - 1] * t;
}

/// Horner in T over the rounded coefficients, exactly as the exported code (one piece, u given).
template <class T>
double horner_t(const std::vector<double>& c, double u, bool fma) {
  const T ut = static_cast<T>(u);
  T p = static_cast<T>(c.back());
  for (std::size_t k = c.size() - 1; k-- > 0;)
    p = fma ? detail::mul_add<T, true>(p, ut, static_cast<T>(c[k]))
            : detail::mul_add<T, false>(p, ut, static_cast<T>(c[k]));
  return static_cast<double>(p);
}

PieceFit fit_piece(const PieceInputs& in, int d, FormatId compute, bool fma, const CrOptions& o,
                   double progress_at) {
  glp_term_out(GLP_OFF);
  PieceFit f;
  const std::size_t n = in.x.size();
  const std::size_t cols = static_cast<std::size_t>(d) + 1;
  double h = 0;
  for (double u : in.u) h = std::max(h, std::fabs(u));
  if (h == 0) h = 1;
  std::vector<ld> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<ld>(in.u[i]) / h;
  std::vector<double> lo = in.lo, hi = in.hi;  // narrowed by the re-solves
  std::vector<ld> s(n);                        // row scale: the interval's magnitude
  std::vector<ld> sigma(cols, 0);              // column scale: the largest |t^k|/s over the piece
  std::vector<ld> pw(cols);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = std::max<ld>({std::fabs(static_cast<ld>(lo[i])), std::fabs(static_cast<ld>(hi[i])),
                         std::numeric_limits<ld>::min()});
    powers(t[i], d, pw.data());
    for (std::size_t k = 0; k < cols; ++k) sigma[k] = std::max(sigma[k], std::fabs(pw[k]) / s[i]);
  }
  for (ld& v : sigma)
    if (v == 0) v = 1;

  // The active set: an even spread by index, the ends, then the worst violators each round.
  std::vector<char> active(n, 0);
  std::vector<std::size_t> act;
  const std::size_t start = std::min<std::size_t>(n, 4 * (cols + 1) + 2);
  for (std::size_t j = 0; j < start; ++j) {
    const std::size_t i = start == 1 ? 0 : j * (n - 1) / (start - 1);
    if (!active[i]) active[i] = 1, act.push_back(i);
  }
  std::vector<ld> dcoef(cols, 0);  // coefficients in t
  std::vector<ld> value(n);
  const auto normalized = [&](std::size_t i, ld v) {
    const ld w = (static_cast<ld>(hi[i]) - static_cast<ld>(lo[i])) / 2;
    return w > 0 ? std::min(v - static_cast<ld>(lo[i]), static_cast<ld>(hi[i]) - v) / w
                 : (v == static_cast<ld>(lo[i]) ? ld(0) : ld(-1));
  };
  for (int round = 0; round < 40; ++round) {
    // Solve the LP over the active set, adding violators until the whole piece is within the level.
    double level = -1;
    for (int cut = 0; cut < 200; ++cut) {
      Lp lp;
      glp_prob* P = lp.get();
      glp_set_obj_dir(P, GLP_MAX);
      glp_add_cols(P, static_cast<int>(cols) + 1);
      for (std::size_t k = 0; k < cols; ++k) glp_set_col_bnds(P, static_cast<int>(k) + 1, GLP_FR, 0, 0);
      const int dcol = static_cast<int>(cols) + 1;
      glp_set_col_bnds(P, dcol, GLP_DB, -1e3, 1.0);
      glp_set_obj_coef(P, dcol, 1.0);
      glp_add_rows(P, static_cast<int>(2 * act.size()));
      std::vector<int> ia{0}, ja{0};
      std::vector<double> ar{0};
      int row = 0;
      for (std::size_t i : act) {
        powers(t[i], d, pw.data());
        const ld w = (static_cast<ld>(hi[i]) - static_cast<ld>(lo[i])) / 2 / s[i];
        for (int side = 0; side < 2; ++side) {
          ++row;
          if (side == 0)
            glp_set_row_bnds(P, row, GLP_LO, static_cast<double>(static_cast<ld>(lo[i]) / s[i]), 0);
          else
            glp_set_row_bnds(P, row, GLP_UP, 0, static_cast<double>(static_cast<ld>(hi[i]) / s[i]));
          for (std::size_t k = 0; k < cols; ++k) {
            ia.push_back(row), ja.push_back(static_cast<int>(k) + 1);
            ar.push_back(static_cast<double>(pw[k] / s[i] / sigma[k]));
          }
          ia.push_back(row), ja.push_back(dcol), ar.push_back(static_cast<double>(side == 0 ? -w : w));
        }
      }
      glp_load_matrix(P, static_cast<int>(ar.size()) - 1, ia.data(), ja.data(), ar.data());
      glp_smcp parm;
      glp_init_smcp(&parm);
      parm.msg_lev = GLP_MSG_OFF;
      parm.meth = GLP_DUALP;
      ++f.solves;
      const int rc = glp_simplex(P, &parm);
      if (rc != 0 || glp_get_status(P) != GLP_OPT) {
        f.why = "GLPK's simplex found no optimum at degree " + std::to_string(d) + " (return code " +
                std::to_string(rc) + ", status " + std::to_string(glp_get_status(P)) + ": numerical trouble)";
        return f;
      }
      level = glp_get_col_prim(P, dcol);
      for (std::size_t k = 0; k < cols; ++k)
        dcoef[k] = static_cast<ld>(glp_get_col_prim(P, static_cast<int>(k) + 1)) / sigma[k];
      // Violators: inputs whose normalized margin is below the level.
      std::vector<std::pair<ld, std::size_t>> bad;
      for (std::size_t i = 0; i < n; ++i) {
        ld v = dcoef[cols - 1];
        for (std::size_t k = cols - 1; k-- > 0;) v = v * t[i] + dcoef[k];
        value[i] = v;
        const ld m = normalized(i, v);
        if (!active[i] && m < static_cast<ld>(level) - 1e-9L) bad.emplace_back(m, i);
      }
      if (bad.empty()) break;
      std::sort(bad.begin(), bad.end());
      const std::size_t add = std::min(bad.size(), 2 * cols + 2);
      for (std::size_t j = 0; j < add; ++j) active[bad[j].second] = 1, act.push_back(bad[j].second);
    }
    f.margin = level;
    if (round == 0 && level < 0) {
      std::size_t worst = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (normalized(i, value[i]) < normalized(worst, value[worst])) worst = i;
      f.why = "no polynomial of degree " + std::to_string(d) +
              " meets every rounding interval: the best misses by " +
              format_f64(static_cast<double>(-level)) +
              " of a half interval, e.g. at x = " + format_f64(in.x[worst]) + " (interval [" +
              format_f64(in.lo[worst]) + ", " + format_f64(in.hi[worst]) + "])";
      return f;
    }
    if (level < 0) {
      f.why = "after narrowing the intervals for coefficient rounding, the LP has no solution";
      return f;
    }
    f.feasible = true;
    // Round to the compute format (coefficients in u = x − m: d_k / h^k) and evaluate as exported.
    f.coef.assign(cols, 0);
    for (std::size_t k = 0; k < cols; ++k) {
      const ld c = dcoef[k] / std::pow(static_cast<ld>(h), static_cast<ld>(k));
      f.coef[k] =
          compute == FormatId::F32 ? static_cast<double>(static_cast<float>(c)) : static_cast<double>(c);
    }
    std::size_t failing = 0;
    bool impossible = false;
    for (std::size_t i = 0; i < n; ++i) {
      const double y = compute == FormatId::F32 ? horner_t<float>(f.coef, in.u[i], fma)
                                                : horner_t<double>(f.coef, in.u[i], fma);
      if (y >= in.lo[i] && y <= in.hi[i]) continue;
      ++failing;
      // The real polynomial with the rounded coefficients, and the evaluation's error e = y − p.
      ld p = static_cast<ld>(f.coef[cols - 1]);
      for (std::size_t k = cols - 1; k-- > 0;) p = p * static_cast<ld>(in.u[i]) + static_cast<ld>(f.coef[k]);
      const ld e = static_cast<ld>(y) - p;
      const ld w = static_cast<ld>(hi[i]) - static_cast<ld>(lo[i]);
      ld nlo = static_cast<ld>(lo[i]), nhi = static_cast<ld>(hi[i]);
      if (y < in.lo[i]) nlo = std::max(nlo, static_cast<ld>(in.lo[i]) - e) + w / 8;
      if (y > in.hi[i]) nhi = std::min(nhi, static_cast<ld>(in.hi[i]) - e) - w / 8;
      if (!(nlo < nhi)) {
        impossible = true;
        continue;
      }
      lo[i] = static_cast<double>(nlo);
      hi[i] = static_cast<double>(nhi);
      if (!active[i]) active[i] = 1, act.push_back(i);
    }
    f.failing = failing;
    if (o.progress && !o.progress(progress_at, "rounding", failing)) throw Cancelled();
    if (failing == 0) {
      f.rounded = true;
      return f;
    }
    if (impossible) {
      f.why = "an input's interval is narrower than the evaluation's own rounding error";
      return f;
    }
  }
  f.why = std::to_string(f.failing) + " inputs still round wrong after 40 re-solves";
  return f;
}

}  // namespace

// [SECTION] Validation, range, search

void validate(const CrSpec& s) {
  if (s.target != Target::Gelu && s.target != Target::GeluPrime)
    throw CrError(std::string("--target: correctly rounded fits are for gelu and gelu_prime, not ") +
                  name(s.target));
  if (!supported_format(s.format))
    throw CrError(std::string("--correctly-rounded: ") + number_format(s.format).name +
                  " is not one of bf16, f16, e4m3, e5m2");
  if (s.compute != FormatId::F32 && s.compute != FormatId::F64)
    throw CrError(std::string("--compute: ") + number_format(s.compute).name + " is not one of f32, f64");
  if (s.form != Form::Poly && s.form != Form::Piecewise)
    throw CrError(std::string("--form: correctly rounded fits are poly or piecewise, not ") + name(s.form));
  if (s.form == Form::Poly && s.pieces > 1) throw CrError("--pieces: --form poly is one piece");
  if (s.pieces < 0 || s.pieces > kMaxPieces)
    throw CrError("--pieces: " + std::to_string(s.pieces) + " is not in 1.." + std::to_string(kMaxPieces));
  if (s.max_degree < 0 || s.max_degree > kMaxDegree)
    throw CrError("the degree cap " + std::to_string(s.max_degree) + " is not in 0.." +
                  std::to_string(kMaxDegree));
  const Format fmt(s.format);
  for (const auto& [v, what] : {std::pair{s.a, "A"}, {s.b, "B"}})
    if (v && (!std::isfinite(*v) || std::fabs(*v) > fmt.max_finite()))
      throw CrError(std::string("--range: ") + what + " = " + format_f64(*v) + " is beyond " +
                    std::string(fmt.name()) + "'s finite values");
  if (s.a && s.b && !(*s.a < *s.b))
    throw CrError("--range: A = " + format_f64(*s.a) + " is not below B = " + format_f64(*s.b));
}

namespace {

/// What the clamp gives outside the range, as the format rounds it.
double clamp_result(Target t, double x, bool left) {
  if (left) return 0.0;
  return t == Target::GeluPrime ? 1.0 : x;
}

/// The smallest range outside which the clamp is correct: A the first input above the run of inputs (from
/// the most negative) whose correctly rounded value is what the clamp gives; B likewise from the top.
std::pair<double, double> auto_range(const CrTable& t) {
  const std::size_t n = t.x.size();
  std::size_t i = 0;
  while (i < n && t.r[i] == clamp_result(t.target, t.x[i], true)) ++i;
  std::size_t j = n;
  while (j > i && t.r[j - 1] == clamp_result(t.target, t.x[j - 1], false)) --j;
  if (i >= j) return {0.0, 0.0};
  return {t.x[i], t.x[j - 1]};
}

Candidate make_candidate(const CrSpec& s, int K, int d) {
  Candidate c;
  c.spec.target = s.target;
  c.spec.form = s.form;
  c.spec.degree = d;
  c.spec.pieces = s.form == Form::Piecewise ? K : 1;
  c.spec.breakpoints = Breakpoints::Uniform;
  c.spec.a = *s.a;
  c.spec.b = *s.b;
  c.spec.clamp = Clamp::Limits;
  c.spec.weight = Weight::Abs;
  c.spec.format = s.compute;
  c.spec.fma = s.fma;
  c.spec.reoptimize = false;
  return c;
}

template <class T>
double to_compute(double v) {
  return static_cast<double>(static_cast<T>(v));
}

struct Trial {
  bool ok = false;
  int degree = -1;
  Candidate candidate;
  std::vector<CrPiece> pieces;
  int solves = 0;
  std::string why;
};

/// Every piece at its lowest degree ≤ cap; the candidate at the highest of them (pieces padded with zero
/// leading coefficients, which Horner evaluates to the same bits).
Trial try_pieces(const CrSpec& s, const CrTable& t, int K, int cap, const CrOptions& o, double p0,
                 double p1) {
  Trial tr;
  Candidate c = make_candidate(s, K, 0);
  const bool f32 = s.compute == FormatId::F32;
  // Inputs of each piece, as the exported code assigns them.
  std::vector<PieceInputs> pieces(static_cast<std::size_t>(K));
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    const double x = t.x[i];
    if (!(x >= *s.a && x <= *s.b)) continue;
    int j = 0;
    if (s.form == Form::Piecewise)
      j = f32 ? detail::piece_of<float>(c, static_cast<float>(x)) : detail::piece_of<double>(c, x);
    PieceInputs& p = pieces[static_cast<std::size_t>(j)];
    p.x.push_back(x);
    p.lo.push_back(t.lo[i]);
    p.hi.push_back(t.hi[i]);
  }
  c.breakpoints.clear();
  c.centers.assign(static_cast<std::size_t>(K), 0.0);
  for (int j = 0; j <= K; ++j) {
    const double b = *s.a + (*s.b - *s.a) * j / K;
    c.breakpoints.push_back(f32 ? to_compute<float>(b) : b);
  }
  c.breakpoints.front() = *s.a;
  c.breakpoints.back() = *s.b;
  std::vector<std::vector<double>> coef(static_cast<std::size_t>(K));
  int top = 0;
  for (int j = 0; j < K; ++j) {
    PieceInputs& p = pieces[static_cast<std::size_t>(j)];
    CrPiece info;
    if (p.x.empty()) {
      info.degree = 0;
      coef[static_cast<std::size_t>(j)] = {0.0};
      tr.pieces.push_back(info);
      continue;
    }
    info.from = p.x.front();
    info.to = p.x.back();
    info.inputs = p.x.size();
    // The centre: 0 for a piece holding 0 or both signs (tiny inputs keep their digits), else the middle.
    if (s.form == Form::Piecewise && !(info.from <= 0 && info.to >= 0)) {
      const double m = (info.from + info.to) / 2;
      p.center = f32 ? to_compute<float>(m) : m;
    }
    c.centers[static_cast<std::size_t>(j)] = p.center;
    p.u.resize(p.x.size());
    for (std::size_t i = 0; i < p.x.size(); ++i)
      p.u[i] = f32 ? static_cast<double>(static_cast<float>(p.x[i]) - static_cast<float>(p.center))
                   : p.x[i] - p.center;
    PieceFit best;
    for (int d = 0; d <= cap; ++d) {
      const double at = p0 + (p1 - p0) * (j + static_cast<double>(d) / (cap + 1)) / K;
      if (o.progress && !o.progress(at, "linear programme", 0)) throw Cancelled();
      PieceFit pf = fit_piece(p, d, s.compute, s.fma, o, at);
      tr.solves += pf.solves;
      info.lp_solves += pf.solves;
      if (pf.rounded) {
        info.degree = d;
        info.margin = pf.margin;
        coef[static_cast<std::size_t>(j)] = pf.coef;
        best = pf;
        break;
      }
      best = pf;
    }
    tr.pieces.push_back(info);
    if (info.degree < 0) {
      tr.why = "piece " + std::to_string(j) + " of " + std::to_string(K) + " [" + format_f64(info.from) +
               ", " + format_f64(info.to) + "] (" + std::to_string(info.inputs) + " inputs): degree cap " +
               std::to_string(cap) + " reached: " + best.why;
      return tr;
    }
    top = std::max(top, info.degree);
  }
  c.spec.degree = top;
  const std::size_t n = static_cast<std::size_t>(top) + 1;
  c.coefficients.assign(static_cast<std::size_t>(K) * n, 0.0);
  for (std::size_t j = 0; j < static_cast<std::size_t>(K); ++j)
    for (std::size_t k = 0; k < coef[j].size(); ++k) c.coefficients[j * n + k] = coef[j][k];
  c.unrounded = c.coefficients;
  if (s.form == Form::Poly) {
    c.breakpoints.clear();
    c.centers.clear();
  }
  tr.ok = true;
  tr.degree = top;
  tr.candidate = std::move(c);
  return tr;
}

}  // namespace

CrResult fit_correctly_rounded(const CrSpec& spec, const CrOptions& o) {
  // GLPK keeps an environment per thread from its first call (glp_init_env): freed when the fit ends, every
  // Lp already deleted by then, so a worker thread that fits (the Designer panel) leaks nothing.
  struct GlpkEnv {
    ~GlpkEnv() { glp_free_env(); }
  } const glpk_env;
  validate(spec);
  const auto start = std::chrono::steady_clock::now();
  CrSpec s = spec;
  if (o.progress && !o.progress(0, "reference", 0)) throw Cancelled();
  const std::shared_ptr<const CrTable> table = cr_table(s.target, s.format, s.compute);
  const CrTable& t = *table;
  const Format fmt(s.format);
  const auto [ra, rb] = auto_range(t);
  if (!s.a) s.a = ra;
  if (!s.b) s.b = rb;
  if (!(*s.a < *s.b))
    throw CrError("--range: the range [" + format_f64(*s.a) + ", " + format_f64(*s.b) +
                  "] holds fewer than two inputs");
  s.a = Format(s.format).round(*s.a);  // the clamp compares with values of the format
  s.b = Format(s.format).round(*s.b);
  // Outside the range, the clamp must already be right.
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    const double x = t.x[i];
    if (x >= *s.a && x <= *s.b) continue;
    const bool left = x < *s.a;
    const double want = clamp_result(s.target, x, left);
    if (fmt.round(want) != t.r[i])
      throw CrError(std::string("--range: ") + (left ? "below A = " : "above B = ") +
                    format_f64(left ? *s.a : *s.b) + " the clamp gives " + format_f64(want) + " but " +
                    name(s.target) + "(" + format_f64(x) + ") rounds to " + format_f64(t.r[i]) + " in " +
                    std::string(fmt.name()) + " (the smallest such range is [" + format_f64(ra) + ", " +
                    format_f64(rb) + "])");
  }

  std::vector<int> ks;
  if (s.form == Form::Poly)
    ks = {1};
  else if (s.pieces > 0)
    ks = {s.pieces};
  else
    for (int k = kMaxPieces; k >= 1; k /= 2) ks.push_back(k);  // 64, 32, …, 1: more pieces, lower degree
  Trial best;
  double best_cost = 0;
  std::string last_why;
  int solves = 0;
  for (std::size_t ki = 0; ki < ks.size(); ++ki) {
    // Fewer pieces win ties (a smaller table): cap the degree at the best one's.
    const int cap = best.ok ? best.degree : s.max_degree;
    Trial tr = try_pieces(s, t, ks[ki], cap, o, static_cast<double>(ki) / static_cast<double>(ks.size()),
                          static_cast<double>(ki + 1) / static_cast<double>(ks.size()));
    solves += tr.solves;
    if (!tr.ok) {
      if (last_why.empty()) last_why = tr.why;  // the most pieces' reason: the one nearest to success
      if (best.ok) break;                       // fewer pieces would need a higher degree still
      continue;
    }
    const double cost = tr.candidate.cost().weighted();
    if (!best.ok || cost <= best_cost) best = std::move(tr), best_cost = cost;
  }
  if (!best.ok) throw CrError(last_why);

  CrResult r;
  r.spec = s;
  r.candidate = std::move(best.candidate);
  r.pieces = std::move(best.pieces);
  r.lp_solves = solves;
  if (o.progress && !o.progress(1, "verification", 0)) throw Cancelled();
  r.inputs = t.x.size();
  r.correct = count_correct(r.candidate, t, &r.failing);
  // The candidate's own bookkeeping: the largest |GELU − candidate| over the inputs in range.
  std::vector<double> y;
  eval_candidate(r.candidate, t.x, y);
  for (std::size_t i = 0; i < t.x.size(); ++i)
    if (t.x[i] >= *s.a && t.x[i] <= *s.b) {
      const double e =
          std::fabs(y[i] - static_cast<double>(compose_ld(s.target, t.x[i], target_ld(s.target, t.x[i]))));
      if (e > r.candidate.gelu_abs_error) r.candidate.gelu_abs_error = e, r.candidate.x_at_max = t.x[i];
    }
  r.candidate.max_error = r.candidate.gelu_abs_error;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.candidate.fit_seconds = r.seconds;
  if (r.correct != r.inputs) {
    const double x = r.failing.empty() ? 0.0 : r.failing.front();
    int j = 0;
    if (r.candidate.spec.form == Form::Piecewise)
      j = s.compute == FormatId::F32 ? detail::piece_of<float>(r.candidate, static_cast<float>(x))
                                     : detail::piece_of<double>(r.candidate, x);
    throw CrError("piece " + std::to_string(j) + ": the exhaustive verification found " +
                  std::to_string(r.inputs - r.correct) + " of " + std::to_string(r.inputs) +
                  " inputs rounded wrong (first at x = " + format_f64(x) + ")");
  }
  return r;
}

TestVectors cr_test_vectors(const CrResult& r) {
  const std::shared_ptr<const CrTable> t = cr_table(r.spec.target, r.spec.format, r.spec.compute);
  TestVectors v;
  v.format = r.spec.format;
  v.x = t->x;
  v.y = t->r;
  v.measured_ulp = 0;
  v.max_ulp = 0;
  return v;
}

std::string cr_check_command(const CrResult& r, std::string_view pairs) {
  std::string cmd = "gelulab check --fn gelu";
  if (r.spec.target == Target::GeluPrime) cmd += " --order 1";
  cmd.append(" --dtype ").append(number_format(r.spec.format).name);
  cmd.append(" --pairs ").append(pairs);
  cmd += " --max-mismatch 0";
  return cmd;
}

}  // namespace gelu::fit

// [SECTION] Sollya's supnorm for designer candidates (see gelu/fit_sollya.hpp).
#include <sollya.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/fit_sollya.hpp"

namespace gelu::fit {
namespace {

std::mutex g_lock;

/// Concatenation by append (GCC 12 reports a false -Wrestrict on `"…" + std::string` at -O3).
template <class... A>
std::string cat(const A&... a) {
  std::string s;
  (s.append(std::string_view(a)), ...);
  return s;
}

int quiet(sollya_msg_t, void*) {
  return 0;  // Sollya's warnings (rounding of constants, …) are not for our users' terminals
}

void init_once() {
  static const bool done = [] {
    sollya_lib_init();
    sollya_lib_install_msg_callback(quiet, nullptr);
    std::atexit([] { sollya_lib_close(); });
    return true;
  }();
  (void)done;
}

/// A double exactly, in Sollya's syntax: (M b E) = M·2^E with M an integer.
std::string exact(double v) {
  if (v == 0) return "0";
  int e = 0;
  const double f = std::frexp(v, &e);  // v = f·2^e, 0.5 ≤ |f| < 1
  const auto m = static_cast<std::int64_t>(std::ldexp(f, 53));
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%lldb%d)", static_cast<long long>(m), e - 53);
  return buf;
}

/// Σ c_k·v^k in Horner form, v an expression.
std::string horner(const std::vector<double>& c, std::size_t first, std::size_t n, const std::string& v) {
  std::string s = exact(c[first + n - 1]);
  for (std::size_t k = n - 1; k-- > 0;) s = cat(exact(c[first + k]), " + ", v, " * (", s, ")");
  return s;
}

const char* target_expression(Target t) {
  switch (t) {
    case Target::Gelu:
      return "x * (1 + erf(x / sqrt(2))) / 2";
    case Target::Phi:
      return "(1 + erf(x / sqrt(2))) / 2";
    case Target::Erf:
      return "erf(x / sqrt(2))";
    case Target::GeluPrime:
      return "(1 + erf(x / sqrt(2))) / 2 + x * exp(-x^2 / 2) / sqrt(2 * pi)";
  }
  return "0";
}

struct Piece {
  double lo, hi;
  std::string p;
};

/// Frees the Sollya objects it holds when it goes out of scope.
struct Objects {
  std::vector<sollya_obj_t> v;
  sollya_obj_t add(sollya_obj_t o) {
    v.push_back(o);
    return o;
  }
  ~Objects() {
    for (sollya_obj_t o : v) sollya_lib_clear_obj(o);
  }
};

}  // namespace

bool certify(Candidate& c, std::string* why, double accuracy) {
  const Spec& s = c.spec;
  const auto fail = [why](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  if (s.form == Form::Rational)
    return fail("a rational candidate is not a polynomial (supnorm bounds polynomials)");
  if (s.weight == Weight::Ulp)
    return fail(
        "the ulp weight jumps at every binade of the target (supnorm bounds absolute and relative errors)");
  const std::size_t n = static_cast<std::size_t>(s.degree) + 1;
  const std::vector<double>& C = c.coefficients;
  std::vector<Piece> pieces;
  switch (s.form) {
    case Form::Poly:
      pieces.push_back({s.a, s.b, horner(C, 0, n, "x")});
      break;
    case Form::Even:
      pieces.push_back({s.a, s.b, cat("x / 2 + ", horner(C, 0, n, "x^2"))});
      break;
    case Form::HalfXPolyAbs:
      if (s.a < 0) pieces.push_back({s.a, std::min(s.b, 0.0), cat("x / 2 + ", horner(C, 0, n, "(-x)"))});
      if (s.b > 0) pieces.push_back({std::max(s.a, 0.0), s.b, cat("x / 2 + ", horner(C, 0, n, "x"))});
      break;
    case Form::Piecewise:
      for (std::size_t j = 0; j + 1 < c.breakpoints.size(); ++j)
        pieces.push_back({c.breakpoints[j], c.breakpoints[j + 1],
                          horner(C, j * n, n, cat("(x - ", exact(c.centers[j]), ")"))});
      break;
    case Form::Rational:
      break;
  }
  const std::lock_guard<std::mutex> lock(g_lock);
  init_once();
  Objects o;
  sollya_obj_t f = o.add(sollya_lib_parse_string(target_expression(s.target)));
  sollya_obj_t acc = o.add(sollya_lib_constant_from_double(accuracy));
  sollya_obj_t mode = o.add(s.weight == Weight::Rel ? sollya_lib_relative() : sollya_lib_absolute());
  double lo = 0, hi = 0;
  mpfr_t l, u;
  mpfr_init2(l, 128);
  mpfr_init2(u, 128);
  bool ok = true;
  std::string failure;
  for (const Piece& pc : pieces) {
    if (!(pc.hi > pc.lo)) continue;
    sollya_obj_t p = o.add(sollya_lib_parse_string(pc.p.c_str()));
    const std::string dom_text = cat("[", exact(pc.lo), ";", exact(pc.hi), "]");
    sollya_obj_t dom = o.add(sollya_lib_parse_string(dom_text.c_str()));
    sollya_obj_t r = o.add(sollya_lib_supnorm(p, f, dom, mode, acc));
    if (sollya_lib_obj_is_error(p) || sollya_lib_obj_is_error(r) ||
        !sollya_lib_get_bounds_from_range(l, u, r)) {
      ok = false;
      char buf[128];
      std::snprintf(buf, sizeof buf, "Sollya's supnorm gave no bound on [%g, %g]", pc.lo, pc.hi);
      failure = buf;
      break;
    }
    lo = std::max(lo, mpfr_get_d(l, MPFR_RNDD));
    hi = std::max(hi, mpfr_get_d(u, MPFR_RNDU));
  }
  mpfr_clear(l);
  mpfr_clear(u);
  if (!ok) return fail(failure);
  c.certified = true;
  c.certified_lo = lo;
  c.certified_hi = hi;
  return true;
}

}  // namespace gelu::fit

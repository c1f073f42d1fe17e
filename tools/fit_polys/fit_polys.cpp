// Generates the polynomial coefficients of shaders/activations.glsl's exact-GELU kernels and reports the
// float error of evaluating them the way the shader does. Reference: core/src/formulas.hpp (double).
//
//   cmake --build build --target fit_polys && build/tools/fit_polys/fit_polys   (GELU_BUILD_TOOLS=ON)
//
// Method: Chebyshev interpolation (near-minimax) in long double, converted to monomials in the shader's
// variable; the constant term is split hi+lo because rounding it to float alone would cost 0.5 ULP.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "formulas.hpp"

namespace {
using LD = long double;
namespace F = gelu::formulas;

/// Monomial coefficients (in u) of the degree-n Chebyshev interpolant of g on [a, b].
std::vector<LD> fit(const std::function<LD(LD)>& g, LD a, LD b, int n) {
  const LD pi = 3.14159265358979323846264338327950288L;
  std::vector<LD> c(n + 1, 0);  // Chebyshev coefficients
  for (int j = 0; j <= n; ++j) {
    LD s = 0;
    for (int k = 0; k <= n; ++k) {
      const LD th = pi * (k + 0.5L) / (n + 1);
      s += g((a + b) / 2 + (b - a) / 2 * std::cos(th)) * std::cos(j * th);
    }
    c[j] = s * 2 / (n + 1);
  }
  c[0] /= 2;
  // T_j(w) as monomials in w, w = (2u - a - b)/(b - a), then substitute.
  std::vector<std::vector<LD>> T{{1}, {0, 1}};
  for (int j = 2; j <= n; ++j) {
    std::vector<LD> t(j + 1, 0);
    for (int i = 0; i < j; ++i) t[i + 1] += 2 * T[j - 1][i];
    for (int i = 0; i < j - 1; ++i) t[i] -= T[j - 2][i];
    T.push_back(t);
  }
  std::vector<LD> pw(n + 1, 0);  // in w
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= j; ++i) pw[i] += c[j] * T[j][i];
  // w = alpha u + beta
  const LD alpha = 2 / (b - a), beta = -(a + b) / (b - a);
  std::vector<LD> pu(n + 1, 0), binom(n + 1, 0);
  for (int i = 0; i <= n; ++i) {  // (alpha u + beta)^i
    std::vector<LD> e{1};
    for (int r = 0; r < i; ++r) {
      std::vector<LD> ne(e.size() + 1, 0);
      for (std::size_t q = 0; q < e.size(); ++q) {
        ne[q] += e[q] * beta;
        ne[q + 1] += e[q] * alpha;
      }
      e = ne;
    }
    for (std::size_t q = 0; q < e.size(); ++q) pu[q] += pw[i] * e[q];
  }
  return pu;
}

/// The shader's evaluation: Horner in float, constant term added last as hi + (lo + u*q).
float eval_float(const std::vector<LD>& c, float u) {
  float q = static_cast<float>(c.back());
  for (int i = static_cast<int>(c.size()) - 2; i >= 1; --i) q = q * u + static_cast<float>(c[i]);
  const float hi = static_cast<float>(c[0]);
  const float lo = static_cast<float>(c[0] - hi);
  return (lo + u * q) + hi;
}

double ulp_err(float y, double ref) {
  const float r = static_cast<float>(ref);
  const double ulp = std::ldexp(1.0, std::ilogb(r) - 23);
  return std::fabs(y - ref) / ulp;
}

void emit(const char* name, const std::vector<LD>& c) {
  const float hi = static_cast<float>(c[0]);
  std::printf(
      "// %s: degree %zu\nconst float %s_C0_HI = %.9e, %s_C0_LO = %.9e;\nconst float %s[%zu] = float[](",
      name, c.size() - 1, name, static_cast<double>(hi), name,
      static_cast<double>(static_cast<float>(c[0] - hi)), name, c.size() - 1);
  for (std::size_t i = 1; i < c.size(); ++i)
    std::printf("%s%.9e", i > 1 ? ", " : "", static_cast<double>(c[i]));
  std::printf(");\n");
}

void report(const char* name, const std::vector<LD>& c, const std::function<double(double)>& g,
            const std::function<float(float)>& var, const std::function<LD(LD)>& exact_var, double a,
            double b) {
  double worst = 0, at = 0, approx = 0;
  for (int i = 0; i <= 200000; ++i) {
    const float x = static_cast<float>(a + (b - a) * i / 200000.0);
    const double e = ulp_err(eval_float(c, var(x)), g(x));
    if (e > worst) worst = e, at = x;
    const LD u = exact_var(x);
    LD p = 0;
    for (int k = static_cast<int>(c.size()) - 1; k >= 0; --k) p = p * u + c[k];
    approx = std::max(approx, ulp_err(static_cast<float>(g(x)), static_cast<double>(p)));
  }
  std::printf("// %s: max float error %.3f ULP at %g (approximation alone %.3f ULP)\n", name, worst, at,
              approx);
}

}  // namespace

int main(int argc, char** argv) {
  const int nS = argc > 1 ? std::atoi(argv[1]) : 8;
  const LD inv_sqrt_2pi = 0.398942280401432677939946059934381868L;
  // S(v), v = x^2, |x| <= 0.75: Phi(x) = 1/2 + x S(x^2).
  auto S = [&](LD v) -> LD {
    if (v == 0) return inv_sqrt_2pi;
    const double x = std::sqrt(static_cast<double>(v));
    return 0.5L * std::erf(x / std::sqrt(2.0)) / x;
  };
  auto U = [&](LD v) -> LD { return S(v) + inv_sqrt_2pi * std::exp(-v / 2); };
  const auto cS = fit(S, 0, 0.5625L, nS), cU = fit(U, 0, 0.5625L, nS);
  // H(t) = t Q(t) exp(t^2/2) and L(t) = 1/sqrt(2 pi) - H(t)/t^2 on pieces of [0.75, 15], each a polynomial
  // in u = t - mid (exact in float when t is within the piece: Sterbenz), degree chosen for 2^-30.
  auto H = [&](LD t) -> LD {
    const double td = static_cast<double>(t);
    return t * F::normal_upper_tail(td) * std::exp(t * t / 2);
  };
  auto L = [&](LD t) -> LD { return inv_sqrt_2pi - H(t) / (t * t); };
  const double cuts[] = {0.75, 1.125, 1.5, 2.25, 3, 4.5, 6, 9, 12, 15.5};
  const int pieces = static_cast<int>(std::size(cuts)) - 1;
  for (auto [name, g] : {std::pair<const char*, std::function<LD(LD)>>{"GELU_H", H}, {"GELU_L", L}}) {
    std::vector<std::vector<LD>> all;
    std::size_t maxdeg = 0;
    double worst = 0;
    for (int k = 0; k < pieces; ++k) {
      const LD a0 = cuts[k], b0 = cuts[k + 1], mid = static_cast<float>((a0 + b0) / 2);
      std::vector<LD> c;
      for (int n = 3; n <= 16; ++n) {
        c = fit([&](LD u) { return g(u + mid); }, a0 - mid, b0 - mid, n);
        LD err = 0;
        for (int i = 0; i <= 2000; ++i) {
          const LD u = a0 - mid + (b0 - a0) * i / 2000;
          LD p = 0;
          for (int j = n; j >= 0; --j) p = p * u + c[j];
          err = std::max(err, std::fabs(p / g(u + mid) - 1));
        }
        if (err < 0x1p-30L || n == 16) break;
      }
      maxdeg = std::max(maxdeg, c.size() - 1);
      all.push_back(c);
      // float evaluation error on this piece (skip L on its root region, which the shader does not use)
      for (int i = 0; i <= 20000; ++i) {
        const float t = static_cast<float>(a0 + (b0 - a0) * i / 20000);
        if (name[5] == 'L' && t < 1.2f) continue;
        const float u = t - static_cast<float>(mid);
        const double e = ulp_err(eval_float(c, u), static_cast<double>(g(t)));
        worst = std::max(worst, e);
      }
    }
    std::printf("// %s: %d pieces, max degree %zu, max float error %.3f ULP\n", name, pieces, maxdeg, worst);
    std::printf("const float %s_MID[%d] = float[](", name, pieces);
    for (int k = 0; k < pieces; ++k)
      std::printf("%s%.9e", k ? ", " : "",
                  static_cast<double>(static_cast<float>((cuts[k] + cuts[k + 1]) / 2)));
    std::printf(");\nconst float %s_C0[%d] = float[](", name, 2 * pieces);
    for (int k = 0; k < pieces; ++k) {
      const float hi = static_cast<float>(all[k][0]);
      std::printf("%s%.9e, %.9e", k ? ", " : "", static_cast<double>(hi),
                  static_cast<double>(static_cast<float>(all[k][0] - hi)));
    }
    std::printf(");\nconst float %s_C[%d] = float[](  // [piece][degree 1..%zu], zero padded\n", name,
                static_cast<int>(pieces * maxdeg), maxdeg);
    for (int k = 0; k < pieces; ++k) {
      std::printf("   ");
      for (std::size_t j = 1; j <= maxdeg; ++j)
        std::printf(" %.9e%s", j < all[k].size() ? static_cast<double>(all[k][j]) : 0.0,
                    (k + 1 < pieces || j < maxdeg) ? "," : "");
      std::printf("\n");
    }
    std::printf(");\n");
  }
  std::printf("const float GELU_CUTS[%d] = float[](", pieces + 1);
  for (int k = 0; k <= pieces; ++k) std::printf("%s%.9e", k ? ", " : "", cuts[k]);
  std::printf(");\n");
  emit("GELU_S", cS);
  emit("GELU_U", cU);
  auto sq = [](float x) { return x * x; };
  report(
      "S", cS, [&](double x) { return static_cast<double>(S(static_cast<LD>(x) * x)); }, sq,
      [](LD x) { return x * x; }, 1e-3, 0.75);
  report(
      "U", cU, [&](double x) { return static_cast<double>(U(static_cast<LD>(x) * x)); }, sq,
      [](LD x) { return x * x; }, 1e-3, 0.75);
}

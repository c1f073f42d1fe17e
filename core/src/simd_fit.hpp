// [SECTION] Start-up polynomial fits for the vectorized kernels: Chebyshev nodes and the interpolant through
// them (monomial coefficients, solved in double). The kernels fit their tables from formulas.hpp with these.
#pragma once

#include <array>
#include <cmath>
#include <utility>

namespace gelu::simd {

/// Solves the Vandermonde system for the monomial coefficients of the interpolant through (xs, ys).
template <int N>
std::array<double, N> interpolate(const std::array<double, N>& xs, const std::array<double, N>& ys) {
  std::array<std::array<double, N + 1>, N> a{};
  for (int i = 0; i < N; ++i) {
    double p = 1;
    for (int j = 0; j < N; ++j, p *= xs[i]) a[i][j] = p;
    a[i][N] = ys[i];
  }
  for (int c = 0; c < N; ++c) {  // Gaussian elimination with partial pivoting
    int piv = c;
    for (int r = c + 1; r < N; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    std::swap(a[c], a[piv]);
    for (int r = 0; r < N; ++r) {
      if (r == c) continue;
      const double m = a[r][c] / a[c][c];
      for (int j = c; j <= N; ++j) a[r][j] -= m * a[c][j];
    }
  }
  std::array<double, N> coef{};
  for (int i = 0; i < N; ++i) coef[i] = a[i][N] / a[i][i];
  return coef;
}

template <int N>
std::array<double, N> chebyshev_nodes(double lo, double hi) {
  std::array<double, N> x{};
  for (int i = 0; i < N; ++i) x[i] = 0.5 * (lo + hi) + 0.5 * (hi - lo) * std::cos(M_PI * (i + 0.5) / N);
  return x;
}

/// v as an unevaluated float pair hi + lo (hi = v rounded, lo = the rest rounded): ~2^-48 relative.
struct FloatPair {
  float hi, lo;
};
inline FloatPair split(double v) {
  const float hi = static_cast<float>(v);
  return {hi, static_cast<float>(v - static_cast<double>(hi))};
}

}  // namespace gelu::simd

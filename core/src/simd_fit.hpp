// [SECTION] Start-up polynomial fits for the vectorized kernels: Chebyshev nodes and the interpolant through
// them (monomial coefficients, solved in double). The kernels fit their tables from formulas.hpp with these.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <utility>

namespace gelu::simd {

/// Solves the N×N system a·x = b, given as rows [a | b], by Gauss-Jordan elimination with partial pivoting.
template <int N>
std::array<double, N> solve(std::array<std::array<double, N + 1>, N> a) {
  for (int c = 0; c < N; ++c) {
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
  std::array<double, N> x{};
  for (int i = 0; i < N; ++i) x[i] = a[i][N] / a[i][i];
  return x;
}

/// Solves the Vandermonde system for the monomial coefficients of the interpolant through (xs, ys).
template <int N>
std::array<double, N> interpolate(const std::array<double, N>& xs, const std::array<double, N>& ys) {
  std::array<std::array<double, N + 1>, N> a{};
  for (int i = 0; i < N; ++i) {
    double p = 1;
    for (int j = 0; j < N; ++j, p *= xs[i]) a[i][j] = p;
    a[i][N] = ys[i];
  }
  return solve<N>(a);
}

/// Weighted least squares for a polynomial without a constant term: the g minimizing Σ_k (w_k·(Σ_n
/// g_n·d_k^(n+1) − y_k))² (the normal equations). For fits through a fixed value at d = 0: y = f(d) − f(0).
template <int N, std::size_t M>
std::array<double, N> least_squares_times_d(const std::array<double, M>& d, const std::array<double, M>& y,
                                            const std::array<double, M>& w) {
  std::array<std::array<double, N + 1>, N> a{};
  for (std::size_t k = 0; k < M; ++k) {
    std::array<double, N> row{};
    double p = d[k] * w[k];
    for (int n = 0; n < N; ++n, p *= d[k]) row[n] = p;
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) a[i][j] += row[i] * row[j];
      a[i][N] += row[i] * y[k] * w[k];
    }
  }
  return solve<N>(a);
}

template <int N>
std::array<double, N> chebyshev_nodes(double lo, double hi) {
  std::array<double, N> x{};
  for (int i = 0; i < N; ++i) x[i] = 0.5 * (lo + hi) + 0.5 * (hi - lo) * std::cos(M_PI * (i + 0.5) / N);
  return x;
}

/// Gal's accurate-table search: a float m near `centre` where v(m) (a double) lies within 2^-32 relative of a
/// float, so that a table entry fl(v(m)) is v(m) to 2^-32 and a polynomial expanded around m needs no
/// constant term for it. Steps m one ULP at a time on either side and keeps the best of 4096 each way (m
/// moves by less than 2^-11 of itself); where v moves by about one of its own ULPs per step or less, about
/// 200 steps find one.
template <class V>
float float_point_near(double centre, const V& v) {
  const float m0 = static_cast<float>(centre);
  float best = m0;
  double best_err = 1;
  for (int dir = -1; dir <= 1; dir += 2) {
    float m = m0;
    for (int step = 0; step < 4096 && best_err > 0x1p-32; ++step) {
      const double vm = v(m);
      const double err = std::fabs(vm / static_cast<double>(static_cast<float>(vm)) - 1.0);
      if (err < best_err) best_err = err, best = m;
      m = std::nextafter(m, dir < 0 ? -INFINITY : INFINITY);
    }
  }
  return best;
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

// [SECTION] Start-up polynomial fits for the vectorized kernels: Chebyshev nodes and the interpolant through
// them (monomial coefficients, solved in double). The kernels fit their tables from formulas.hpp with these.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

/// A table entry of `bits` significant bits (bits < 24) and the float where it is exact to 2^-32: so that
/// its product with another table's entry of 24 − bits bits is exact in float, and a polynomial expanded
/// around m needs no constant term. Gal's search again, on a coarser grid: s = v(m) rounded to `bits` bits
/// with |v(m)/s − 1| <= 2^-32. About one float in 2^(32 − bits) qualifies, so rather than stepping one float
/// at a time this jumps from one crossing of the grid to the next with v's derivative `dv` (v must be
/// monotonic near `centre`) and tries the floats around each, walking both ways from `centre` and keeping the
/// nearest hit (or, after 4096 crossings each way, the best found).
struct ShortEntry {
  float m;     // where the entry is taken
  float s;     // v(m) rounded to `bits` significant bits
  double err;  // |v(m)/s − 1|
};
inline double round_to_bits(double v, int bits, int dir = 0) {
  int e = 0;
  const double f = std::frexp(v, &e);  // v = f·2^e, |f| in [0.5, 1)
  const double sc = std::ldexp(f, bits);
  const double r = dir < 0 ? std::floor(sc) : dir > 0 ? std::ceil(sc) : std::nearbyint(sc);
  return std::ldexp(r, e - bits);
}
template <class V, class DV>
ShortEntry short_point_near(double centre, int bits, const V& v, const DV& dv) {
  auto step = [](float m, long k) {  // k floats further (m > 0)
    std::uint32_t b;
    std::memcpy(&b, &m, sizeof b);
    b = static_cast<std::uint32_t>(static_cast<long>(b) + k);
    float r;
    std::memcpy(&r, &b, sizeof r);
    return r;
  };
  ShortEntry best{static_cast<float>(centre), 0, 1};
  auto consider = [&](float m) {
    const double vm = v(m);
    const double s = static_cast<double>(static_cast<float>(round_to_bits(vm, bits)));
    const double err = std::fabs(vm / s - 1.0);
    if (err < best.err) best = {m, static_cast<float>(s), err};
  };
  float pos[2] = {static_cast<float>(centre), static_cast<float>(centre)};
  for (int it = 0; it < 4096 && best.err > 0x1p-32; ++it) {
    for (int side = 0; side < 2 && best.err > 0x1p-32; ++side) {
      const long dir = side == 0 ? 1 : -1;
      float& m = pos[side];
      const double vm = v(m);
      const double ulp = std::fabs(static_cast<double>(step(m, dir)) - m);
      const double per = static_cast<double>(dir) * dv(m) * ulp;  // change of v per float stepped
      // The next grid value v meets on this side, and how many floats away it is.
      const double g = round_to_bits(vm, bits, per < 0 ? -1 : 1);
      const double k = per == 0 ? 0 : std::max(0.0, (g - vm) / per);
      const long kf = static_cast<long>(std::min(k, 1e6));
      for (long c = kf - 1; c <= kf + 1; ++c)
        if (c >= 0) consider(step(m, dir * c));
      m = step(m, dir * (kf + 2));
    }
  }
  return best;
}

/// 2^(j/N), j = 0..N−1 with N = 2^kBits (32, or 16 for a table that fits one register and vpermps), for the
/// kernels' exponentials e^u = 2^m·2^(j/N)·(1 + q), n = N·m + j = round(u·N/ln2) kept in the low mantissa
/// bits of k = u·N/ln2 + 1.5·2^23 (bits kb). With T_j = 2^(j/N) rounded to kHiBits significant bits (24: a
/// float; fewer where T_j's products must be exact, exact GELU's f): `rel` is its rounding error relative to
/// it (folded into q), `ln_rel` = ln(2^(j/N)/T_j) (added to the reduced argument where rel is too large to
/// fold); `hi_shifted` is T_j's bits minus j << (23 − kBits), so that one integer add of kb << (23 − kBits) =
/// (m << 23) + (j << (23 − kBits)) gives 2^m·T_j (exp2_scaled) — no mask for the j bits.
template <int kBits, int kHiBits = 24>
struct Exp2TableOf {
  static constexpr int kN = 1 << kBits;
  alignas(64) float rel[kN];
  alignas(64) float hi_shifted[kN];
  double ln_rel[kN];
  Exp2TableOf() {
    for (int j = 0; j < kN; ++j) {
      const double v = std::exp2(static_cast<double>(j) / kN);
      const float hi = static_cast<float>(round_to_bits(v, kHiBits));
      rel[j] = static_cast<float>(v / static_cast<double>(hi) - 1.0);
      ln_rel[j] = std::log1p((v - static_cast<double>(hi)) / static_cast<double>(hi));
      std::uint32_t b;
      std::memcpy(&b, &hi, sizeof b);
      b -= static_cast<std::uint32_t>(j) << (23 - kBits);
      std::memcpy(&hi_shifted[j], &b, sizeof b);
    }
  }
};
using Exp2Table = Exp2TableOf<5>;
template <int kBits = 5, int kHiBits = 24>
const Exp2TableOf<kBits, kHiBits>& exp2_table() {
  static const Exp2TableOf<kBits, kHiBits> t;
  return t;
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

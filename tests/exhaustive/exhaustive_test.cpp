// Every float32 bit pattern (or every GELU_EXHAUSTIVE_STRIDE-th; CI uses the default 97) through the
// vectorized float kernels, against the double-precision reference in formulas.hpp.
//   exact GELU f : <= 1 ULP from the correctly rounded value (and the real-valued error is reported).
//   exact GELU f': <= 2 ULP, or an absolute error <= 3e-8 within 1e-3 of its root near -0.75179.
//   Path::Accurate (x·σ family, mish, elu): f <= 1 ULP, f' <= 2 ULP.
//   Path::Fast (gelu_tanh, gelu_sigmoid, silu, softplus, mish): f and f' <= 2 ULP, no root window.
// The full sweep (GELU_EXHAUSTIVE_STRIDE=1) takes a few minutes on two cores; its result is quoted in README.
//
// Index of this file:
//   [SECTION] The sweep
//   [SECTION] Exact GELU
//   [SECTION] The correctly rounded kernels
//   [SECTION] The fast kernels
//   [SECTION] Parameter ranges, array lengths and backward passes
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "formulas.hpp"
#include "gelu/activation.hpp"
#include "simd/simd_fast.hpp"
#include "simd/simd_gelu.hpp"
#include "simd/simd_sigmoid.hpp"

namespace {

// [SECTION] The sweep: inputs, threads, ULP distances and the report

std::uint64_t stride() {
  const char* s = std::getenv("GELU_EXHAUSTIVE_STRIDE");
  const long v = s ? std::atol(s) : 97;
  return v >= 1 ? static_cast<std::uint64_t>(v) : 97;
}

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

/// Spacing of floats at |v| (the ULP of the float binade that contains v).
double ulp_at(double v) {
  const double a = std::fabs(v);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  std::frexp(a, &e);  // a = m·2^e, m in [0.5, 1)
  if (a >= 0x1p128) return std::ldexp(1.0, 127 - 23);
  return std::ldexp(1.0, e - 1 - 23);
}

/// Integer ULP distance between two finite floats (ordered bit patterns; +0 and -0 are the same point).
std::int64_t ulp_distance(float a, float b) {
  auto key = [](float f) {
    std::int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? -static_cast<std::int64_t>(i & 0x7fffffff) : static_cast<std::int64_t>(i);
  };
  return std::llabs(key(a) - key(b));
}

struct Worst {
  double real_ulp = 0;       // |y - exact| / ulp(exact)
  std::int64_t int_ulp = 0;  // distance to the correctly rounded value
  float x_real = 0, x_int = 0;
  double abs_near_root = 0;
  double real_ulp_normal = 0;  // the same, over results in the normal range (|exact| >= 2^-126)
  float x_normal = 0;
  std::uint64_t checked = 0, failures = 0;
  float first_failure = 0;
};

/// `root_window`: the exact GELU f' is checked in absolute terms within 1e-3 of its root (see the header);
/// every other kernel is checked in ULPs everywhere.
template <class Kernel, class Ref>
Worst sweep(Kernel kernel, Ref ref, bool derivative, bool root_window = true) {
  const std::uint64_t st = stride();
  const unsigned nthreads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<Worst> per(nthreads);
  std::vector<std::thread> pool;
  const double root = -0.75179138;  // only to select the window; the tolerance there is absolute
  for (unsigned t = 0; t < nthreads; ++t) {
    pool.emplace_back([&, t] {
      Worst& w = per[t];
      std::vector<float> xs, ys;
      xs.reserve(4096);
      ys.resize(4096);
      auto flush = [&] {
        kernel(xs.data(), ys.data(), xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i) {
          const float x = xs[i], y = ys[i];
          ++w.checked;
          if (std::isnan(x)) {
            if (!std::isnan(y) && w.failures++ == 0) w.first_failure = x;
            continue;
          }
          const double r = ref(static_cast<double>(x));
          const float cr = static_cast<float>(r);
          bool ok;
          if (std::isinf(x)) {
            ok = y == cr && std::signbit(y) == std::signbit(cr);
          } else if (!std::isfinite(y)) {
            ok = false;
          } else {
            const double real = std::fabs(static_cast<double>(y) - r) / ulp_at(r);
            const std::int64_t d = ulp_distance(y, cr);
            const bool in_root =
                derivative && root_window && std::fabs(static_cast<double>(x) - root) <= 1e-3;
            if (in_root) {
              const double abs_err = std::fabs(static_cast<double>(y) - r);
              w.abs_near_root = std::max(w.abs_near_root, abs_err);
              ok = abs_err <= 3e-8;
            } else {
              if (real > w.real_ulp) w.real_ulp = real, w.x_real = x;
              if (std::fabs(r) >= 0x1p-126 && real > w.real_ulp_normal)
                w.real_ulp_normal = real, w.x_normal = x;
              if (d > w.int_ulp) w.int_ulp = d, w.x_int = x;
              ok = d <= (derivative ? 2 : 1);
            }
            // Zero results keep the sign of the limit (gelu(-0) = -0, gelu(x << 0) = -0).
            if (ok && y == 0 && cr == 0 && !derivative) ok = std::signbit(y) == std::signbit(cr);
          }
          if (!ok && w.failures++ == 0) w.first_failure = x;
        }
        xs.clear();
      };
      for (std::uint64_t b = t * st; b <= 0xffffffffull; b += st * nthreads) {
        xs.push_back(from_bits(static_cast<std::uint32_t>(b)));
        if (xs.size() == 4096) flush();
      }
      // Always include the special points.
      for (float s : {0.0f, -0.0f, INFINITY, -INFINITY, 1e-45f, -1e-45f, 3.4028235e38f, -3.4028235e38f,
                      -14.2f, -0.75179138f, -5.5f, 5.5f})
        xs.push_back(s);
      flush();
    });
  }
  for (auto& th : pool) th.join();
  Worst all;
  for (const Worst& w : per) {
    if (w.real_ulp > all.real_ulp) all.real_ulp = w.real_ulp, all.x_real = w.x_real;
    if (w.int_ulp > all.int_ulp) all.int_ulp = w.int_ulp, all.x_int = w.x_int;
    all.abs_near_root = std::max(all.abs_near_root, w.abs_near_root);
    if (w.real_ulp_normal > all.real_ulp_normal)
      all.real_ulp_normal = w.real_ulp_normal, all.x_normal = w.x_normal;
    all.checked += w.checked;
    if (w.failures && !all.failures) all.first_failure = w.first_failure;
    all.failures += w.failures;
  }
  return all;
}

void report(const char* what, const Worst& w) {
  std::printf(
      "%s: %llu inputs (stride %llu); max error %.4f ULP at x=%a (normal-range results: %.4f ULP at x=%a); "
      "max distance to correctly rounded %lld ULP at x=%a; near-root abs %.3g\n",
      what, static_cast<unsigned long long>(w.checked), static_cast<unsigned long long>(stride()), w.real_ulp,
      static_cast<double>(w.x_real), w.real_ulp_normal, static_cast<double>(w.x_normal),
      static_cast<long long>(w.int_ulp), static_cast<double>(w.x_int), w.abs_near_root);
}

// [SECTION] Exact GELU

TEST(Exhaustive, GeluF32WithinOneUlpEverywhere) {
  const Worst w = sweep([](const float* x, float* y, std::size_t n) { gelu::simd::gelu_f32(x, y, n, {}); },
                        [](double x) { return gelu::formulas::gelu(x); }, false);
  report("gelu f", w);
  EXPECT_EQ(w.failures, 0u) << "first failure at x=" << w.first_failure << " (" << std::hexfloat
                            << w.first_failure << ")";
  EXPECT_LE(w.int_ulp, 1);
}

// The path without AVX-512 (the browser's, SIMD128): two lanes of double, G = t·exp(−t²/2)·P(t)/Q(t).
TEST(Exhaustive, GeluF32PortablePathWithinOneUlpEverywhere) {
  const Worst w =
      sweep([](const float* x, float* y, std::size_t n) { gelu::simd::gelu_f32_portable(x, y, n); },
            [](double x) { return gelu::formulas::gelu(x); }, false);
  report("gelu f (portable)", w);
  EXPECT_EQ(w.failures, 0u) << "first failure at x=" << w.first_failure << " (" << std::hexfloat
                            << w.first_failure << ")";
  EXPECT_LE(w.int_ulp, 1);
}

// The portable path's edges, each as the reference gives it: ±0 (sign kept), ±inf, NaN, the largest and
// smallest floats, subnormal results (x near −13.5 and tiny x), the clamp at t = 14.75 and around it, and
// an array whose length is odd (the last element alone).
TEST(Exhaustive, GeluF32PortablePathEdges) {
  std::vector<float> xs = {0.0f,     -0.0f,   INFINITY, -INFINITY, NAN,        -NAN,        FLT_MAX,
                           -FLT_MAX, FLT_MIN, -FLT_MIN, 0x1p-149f, -0x1p-149f, 0x1.8p-148f, -0x1p-126f,
                           14.75f,   -14.75f, 14.7499f, -14.7501f, -13.0f,     -13.5f,      -14.0f,
                           -14.2f,   -14.3f,  40.0f,    -40.0f,    1e30f,      -1e30f};
  for (float v = -15.0f; v <= 15.0f; v += 0.0625f) xs.push_back(v);
  xs.push_back(-0.75179f);  // odd length: the last one is evaluated alone
  std::vector<float> ys(xs.size());
  gelu::simd::gelu_f32_portable(xs.data(), ys.data(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float cr = static_cast<float>(gelu::formulas::gelu(xs[i]));
    if (std::isnan(cr)) {
      EXPECT_TRUE(std::isnan(ys[i])) << "x=" << xs[i];
      continue;
    }
    EXPECT_LE(ulp_distance(ys[i], cr), 1) << "x=" << std::hexfloat << xs[i] << ": " << ys[i] << " vs " << cr;
    if (ys[i] == 0 || cr == 0 || std::isinf(cr)) {
      EXPECT_EQ(std::signbit(ys[i]), std::signbit(cr)) << "x=" << std::hexfloat << xs[i] << ": " << ys[i];
    }
  }
  EXPECT_EQ(ys[3], 0.0f);  // −inf -> −0
  EXPECT_TRUE(std::signbit(ys[3]));
  EXPECT_TRUE(std::isinf(ys[2]) && ys[2] > 0);
}

// f's loop evaluates its vectors in pairs under one tail test; where it fires, each vector of the pair keeps
// the fast path's bits but for its own tail lanes. One far lane at every position of the array in turn
// (every vector of every pair, the whole vector left over after the pairs and the masked tail): the other
// lanes keep the bits they have without it, and the far lane is within 1 ULP of the correctly rounded value
// (NaN for NaN).
TEST(Exhaustive, GeluF32VectorsIgnoreAFarPairMate) {
  constexpr std::size_t kN = 6 * 48 + 16 * 3 + 5;
  std::vector<float> x(kN), y(kN), z(kN), zy(kN);
  for (std::size_t i = 0; i < kN; ++i)
    x[i] = static_cast<float>(7.0 * std::sin(0.61 * static_cast<double>(i)));
  gelu::simd::gelu_f32(x.data(), y.data(), kN, {});
  const float far[] = {
      std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, 7.5f, -7.5f, -12.0f, -20.0f, 1e30f};
  for (std::size_t pos = 0; pos < kN; ++pos) {
    const float f = far[pos % std::size(far)];
    z = x;
    z[pos] = f;
    gelu::simd::gelu_f32(z.data(), zy.data(), kN, {});
    for (std::size_t i = 0; i < kN; ++i) {
      if (i == pos) continue;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(y[i]), std::bit_cast<std::uint32_t>(zy[i]))
          << "x=" << std::hexfloat << x[i] << " at " << i << ", far lane " << f << " at " << pos;
    }
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(zy[pos])) << pos;
    } else {
      const float cr = static_cast<float>(gelu::formulas::gelu(static_cast<double>(f)));
      EXPECT_LE(ulp_distance(zy[pos], cr), 1) << "x=" << f << " at " << pos << ": " << zy[pos];
    }
  }
}

TEST(Exhaustive, GeluDerivativeF32WithinTwoUlpEverywhere) {
  const Worst w = sweep([](const float* x, float* y, std::size_t n) { gelu::simd::gelu_d1_f32(x, y, n, {}); },
                        [](double x) { return gelu::formulas::gelu_d1(x); }, true);
  report("gelu f'", w);
  EXPECT_EQ(w.failures, 0u) << "first failure at x=" << w.first_failure << " (" << std::hexfloat
                            << w.first_failure << ")";
  EXPECT_LE(w.int_ulp, 2);
  EXPECT_LE(w.abs_near_root, 3e-8);
}

TEST(Exhaustive, BackwardIsGradientTimesDerivative) {
  std::vector<float> x, dy, dx(20000), d1(20000);
  for (int i = 0; i < 20000; ++i) {
    x.push_back(-20.0f + 0.002f * static_cast<float>(i));
    dy.push_back(0.5f + 0.001f * static_cast<float>(i % 7));
  }
  gelu::simd::gelu_backward_f32(x.data(), dy.data(), dx.data(), x.size());
  gelu::simd::gelu_d1_f32(x.data(), d1.data(), x.size(), {});
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(dx[i], dy[i] * d1[i]) << x[i];
}

}  // namespace

namespace {

// Large arrays take the prefetching loop (its output prefetch is the CPU tuning's: ctest's
// Exhaustive.ForcedTuning_* run this with each): same bits as small calls.
TEST(Exhaustive, LargeArraysMatchSmallCalls) {
  const std::size_t n = (std::size_t(20) << 20) / sizeof(float) + 37;
  std::vector<float> x(n + 1), dy(n + 1), big(n + 1), small(n + 1);
  for (std::size_t i = 0; i <= n; ++i) {
    x[i] = static_cast<float>((static_cast<double>(i % 65521) - 32760.0) * 1e-3);
    dy[i] = 0.25f + static_cast<float>(i % 5);
  }
  for (std::size_t offset : {0, 1}) {  // offset 1: arrays not 64-byte aligned
    for (std::size_t i = offset; i < n; i += 4096)
      gelu::simd::gelu_f32(x.data() + i, small.data() + i, std::min<std::size_t>(4096, n - i), {});
    gelu::simd::gelu_f32(x.data() + offset, big.data() + offset, n - offset, {});
    ASSERT_EQ(0, std::memcmp(big.data() + offset, small.data() + offset, (n - offset) * sizeof(float)));
    gelu::simd::gelu_backward_f32(x.data() + offset, dy.data() + offset, big.data() + offset, n - offset);
    for (std::size_t i = offset; i < n; i += 4096)
      gelu::simd::gelu_backward_f32(x.data() + i, dy.data() + i, small.data() + i,
                                    std::min<std::size_t>(4096, n - i));
    ASSERT_EQ(0, std::memcmp(big.data() + offset, small.data() + offset, (n - offset) * sizeof(float)));
  }
}

// Exact GELU's f takes its lean path for |x| <= 7.375 and the general one for the other lanes of a vector
// (larger |x|, NaN, ±inf); the two round differently now and then, so a lane's bits must not depend on
// which path its neighbours sent the vector down. Every stride-th bit pattern, evaluated in order, then
// interleaved with a tail value (every vector takes the tail path) and with an ordinary one (the tail inputs
// share their vectors with lean lanes), then one element at a time for a sample: the same bits.
TEST(Exhaustive, GeluF32LaneIgnoresItsNeighbours) {
  const auto gelu_f32 = [](const float* x, float* y, std::size_t n) { gelu::simd::gelu_f32(x, y, n, {}); };
  const std::uint64_t step = stride();
  constexpr std::size_t kChunk = std::size_t(1) << 20;
  std::vector<float> x, y(kChunk), z(2 * kChunk), zy(2 * kChunk);
  x.reserve(kChunk);
  std::uint64_t checked = 0, tail_inputs = 0;
  auto check = [&] {
    const std::size_t n = x.size();
    gelu_f32(x.data(), y.data(), n);
    for (const float other : {-9.0f, 0.25f}) {
      for (std::size_t i = 0; i < n; ++i) z[2 * i] = x[i], z[2 * i + 1] = other;
      gelu_f32(z.data(), zy.data(), 2 * n);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(y[i]), std::bit_cast<std::uint32_t>(zy[2 * i]))
            << "x=" << std::hexfloat << x[i] << " beside " << other;
    }
    for (std::size_t i = 0; i < n; i += 101) {
      float one = 0;
      gelu_f32(&x[i], &one, 1);
      ASSERT_EQ(std::bit_cast<std::uint32_t>(y[i]), std::bit_cast<std::uint32_t>(one))
          << "x=" << std::hexfloat << x[i] << " alone";
    }
    for (const float v : x) tail_inputs += !(std::fabs(v) <= 7.375f);
    checked += n;
    x.clear();
  };
  for (std::uint64_t b = 0; b <= 0xFFFFFFFFull; b += step) {
    x.push_back(from_bits(static_cast<std::uint32_t>(b)));
    if (x.size() == kChunk) {
      check();
      if (HasFatalFailure()) return;
    }
  }
  check();
  std::printf("gelu f, lanes beside others: %llu inputs (%llu of them on the general path), same bits\n",
              static_cast<unsigned long long>(checked), static_cast<unsigned long long>(tail_inputs));
  EXPECT_GT(tail_inputs, checked / 4);  // NaNs, infinities and |x| > 7.375: about half of all bit patterns
}

}  // namespace

namespace {

// [SECTION] The correctly rounded kernels

// The correctly rounded kernels (Path::Accurate: gelu_sigmoid, silu, gelu_tanh, mish, elu, each lane in
// double): f <= 1 ULP and f' <= 2 ULP from the correctly rounded value of their own formulas (formulas.hpp),
// every finite input, default parameters.
struct KernelCase {
  const char* id;
  int order;
};

void check_family(const KernelCase& c, gelu::Path path, std::int64_t bound, const char* label) {
  const gelu::Activation* a = gelu::find_activation(c.id);
  ASSERT_NE(a, nullptr);
  const gelu::Params p = a->defaults();
  const auto batch =
      (path == gelu::Path::Fast ? a->batch_f32 : a->batch_f32_accurate)[static_cast<std::size_t>(c.order)];
  const auto ref = a->f64[static_cast<std::size_t>(c.order)];
  const Worst w = sweep([&](const float* x, float* y, std::size_t n) { batch(x, y, n, p); },
                        [&](double x) { return ref(x, p); }, c.order == 1, false);
  const std::string what = std::string(c.id) + (c.order ? " f'" : " f") + " (" + label + ")";
  report(what.c_str(), w);
  EXPECT_EQ(w.failures, 0u) << "first failure at x=" << std::hexfloat << w.first_failure;
  EXPECT_LE(w.int_ulp, bound);
}

class AccurateFamily : public ::testing::TestWithParam<KernelCase> {};

TEST_P(AccurateFamily, WithinBoundEverywhere) {
  const KernelCase c = GetParam();
  check_family(c, gelu::Path::Accurate, c.order ? 2 : 1, "accurate");
}

INSTANTIATE_TEST_SUITE_P(Vectorized, AccurateFamily,
                         ::testing::Values(KernelCase{"gelu_sigmoid", 0}, KernelCase{"gelu_sigmoid", 1},
                                           KernelCase{"silu", 0}, KernelCase{"silu", 1},
                                           KernelCase{"gelu_tanh", 0}, KernelCase{"gelu_tanh", 1},
                                           KernelCase{"mish", 0}, KernelCase{"mish", 1}, KernelCase{"elu", 0},
                                           KernelCase{"elu", 1}, KernelCase{"softplus", 0},
                                           KernelCase{"softplus", 1}));

// [SECTION] The fast kernels

// The fast kernels (Path::Fast, the default batched float path): float arithmetic only, f and f' <= 2 ULP
// from the correctly rounded value for every finite input, with no window around the root of f' (the kernels
// evaluate δ·P(δ) there), zeros keep the sign of the formula for f, NaN and ±inf as the formulas.
class FastFamily : public ::testing::TestWithParam<KernelCase> {};

TEST_P(FastFamily, WithinTwoUlpEverywhere) {
  check_family(GetParam(), gelu::Path::Fast, 2, "fast");
}

INSTANTIATE_TEST_SUITE_P(Vectorized, FastFamily,
                         ::testing::Values(KernelCase{"gelu_tanh", 0}, KernelCase{"gelu_tanh", 1},
                                           KernelCase{"gelu_sigmoid", 0}, KernelCase{"gelu_sigmoid", 1},
                                           KernelCase{"silu", 0}, KernelCase{"silu", 1},
                                           KernelCase{"softplus", 0}, KernelCase{"softplus", 1},
                                           KernelCase{"mish", 0}, KernelCase{"mish", 1}));

// The tanh form's f′ by bins has two layouts (gelu_tanh_d1_bins_f32: 32 bins on most CPUs, 16 on Zen 4,
// whose range ends at |x| ≈ 7.377 instead of ≈ 9.67): each within 2 ULP for every float whatever this
// machine's CPU is, its backward pass with dy = 1 the same bits, and the shipped coefficient's tables pass
// their check in both (else the layout asked for would not be the one measured).
class GeluTanhD1Bins : public ::testing::TestWithParam<int> {};

TEST_P(GeluTanhD1Bins, WithinTwoUlpEverywhere) {
  const int bins = GetParam();
  gelu::Params p{};
  p[0] = 0.044715;
  if (std::string(gelu::simd::isa()) == "avx512") {
    ASSERT_EQ(gelu::simd::gelu_tanh_d1_by_bins(p[0], bins), bins);
  }
  const Worst w = sweep(
      [&](const float* x, float* y, std::size_t n) {
        gelu::simd::gelu_tanh_d1_bins_f32(x, nullptr, y, n, p, bins);
        thread_local std::vector<float> ones, dx;
        ones.assign(n, 1.0f);
        dx.resize(n);
        gelu::simd::gelu_tanh_d1_bins_f32(x, ones.data(), dx.data(), n, p, bins);
        for (std::size_t i = 0; i < n; ++i)
          if (std::bit_cast<std::uint32_t>(dx[i]) != std::bit_cast<std::uint32_t>(y[i])) y[i] = NAN;
      },
      [&](double x) { return gelu::formulas::gelu_tanh_d1(x, p[0]); }, true, false);
  report(bins == 16 ? "gelu_tanh f' (16 bins)" : "gelu_tanh f' (32 bins)", w);
  EXPECT_EQ(w.failures, 0u) << "first failure at x=" << std::hexfloat << w.first_failure;
  EXPECT_LE(w.int_ulp, 2);
}
INSTANTIATE_TEST_SUITE_P(Exhaustive, GeluTanhD1Bins, ::testing::Values(32, 16));

// The registry's f′ and backward pass take the layout fast_bins() picks (where its tables pass), and the two
// layouts round differently somewhere, so the comparison says which one ran.
TEST(GeluTanhD1Layout, TheFastPathTakesTheLayoutThisCpuGets) {
  const int bins = gelu::simd::fast_bins();
  ASSERT_TRUE(bins == 16 || bins == 32) << bins;
  // With the tuning forced (ctest's Exhaustive.ForcedTuning_*), its layout.
  const std::string forced = std::getenv("GELU_TUNING") ? std::getenv("GELU_TUNING") : "";
  if (forced == "zen4") {
    EXPECT_EQ(bins, 16);
  } else if (forced == "default") {
    EXPECT_EQ(bins, 32);
  }
  gelu::Params p{};
  p[0] = 0.044715;
  std::vector<float> x(4099), a(x.size()), b(x.size()), other(x.size()), dy(x.size(), 1.0f), dx(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -8.0f + 0.004f * static_cast<float>(i);
  gelu::simd::gelu_tanh_d1_fast_f32(x.data(), a.data(), x.size(), p);
  gelu::simd::gelu_tanh_backward_f32(x.data(), dy.data(), dx.data(), x.size(), p);
  gelu::simd::gelu_tanh_d1_bins_f32(x.data(), nullptr, b.data(), x.size(), p, bins);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), x.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(dx.data(), b.data(), x.size() * sizeof(float)));
  gelu::simd::gelu_tanh_d1_bins_f32(x.data(), nullptr, other.data(), x.size(), p, 48 - bins);
  if (std::string(gelu::simd::isa()) == "avx512") {
    EXPECT_EQ(gelu::simd::gelu_tanh_d1_by_bins(p[0]), bins);
    EXPECT_NE(0, std::memcmp(a.data(), other.data(), x.size() * sizeof(float)));
  }
}

// [SECTION] Parameter ranges, array lengths and backward passes

// The fast kernels at the ends of their parameter ranges, on a coarser grid (every 31st of the stride's
// inputs).
TEST(FastFamilyParameters, WithinTwoUlpAtTheEndsOfTheParameterRanges) {
  struct P {
    const char* id;
    double v;
  };
  for (const P& q : {P{"gelu_tanh", 0.0}, P{"gelu_tanh", 0.1}, P{"gelu_sigmoid", 0.1},
                     P{"gelu_sigmoid", 10.0}, P{"softplus", 0.1}, P{"softplus", 10.0}})
    for (int order = 0; order <= 1; ++order) {
      const gelu::Activation* a = gelu::find_activation(q.id);
      gelu::Params p = a->defaults();
      p[0] = q.v;
      const auto batch = a->batch_f32[static_cast<std::size_t>(order)];
      const auto ref = a->f64[static_cast<std::size_t>(order)];
      std::vector<float> xs, ys;
      const std::uint64_t st = stride() * 31;
      for (std::uint64_t b = 0; b <= 0xffffffffull; b += st)
        xs.push_back(from_bits(static_cast<std::uint32_t>(b)));
      ys.resize(xs.size());
      batch(xs.data(), ys.data(), xs.size(), p);
      std::int64_t worst = 0;
      for (std::size_t i = 0; i < xs.size(); ++i) {
        if (std::isnan(xs[i])) {
          ASSERT_TRUE(std::isnan(ys[i]));
          continue;
        }
        const float cr = static_cast<float>(ref(static_cast<double>(xs[i]), p));
        ASSERT_TRUE(std::isfinite(ys[i]) || std::isinf(xs[i])) << q.id << " " << xs[i];
        if (std::isinf(xs[i])) {
          ASSERT_EQ(ys[i], cr) << q.id << " order " << order << " x=" << xs[i];
          continue;
        }
        worst = std::max(worst, ulp_distance(ys[i], cr));
        ASSERT_LE(ulp_distance(ys[i], cr), 2)
            << q.id << " p=" << q.v << " order " << order << " x=" << std::hexfloat << xs[i] << " got "
            << ys[i] << " want " << cr;
      }
      std::printf("[ params ] %s p=%g order %d: %zu inputs, max %lld ULP\n", q.id, q.v, order, xs.size(),
                  static_cast<long long>(worst));
    }
}

// The sigmoid forms' f′ around its root, z = k·x ≈ −1.2785, on every float within 1/16 of it in z: the fast
// path takes δ·P(δ) in the exponential's bin of the root (|δz| <= 0.0113) and its quotient right beside it;
// the general path (a vector with a lane beyond the fast range, here 1e30 in every other lane) takes P in the
// window |δz| <= 1/32. Both within 2 ULP for k across its range; the fast path's lanes give the bits of
// one-element calls.
TEST(FastFamilyParameters, SigmoidDerivativeAroundItsRootOnBothPaths) {
  const gelu::Activation* a = gelu::find_activation("gelu_sigmoid");
  for (const double k : {0.1, 1.0, 1.702, 10.0}) {
    gelu::Params p = a->defaults();
    p[0] = k;
    const double z0 = gelu::formulas::kSigmoidD1RootZ;
    std::vector<float> xs;
    for (float x = static_cast<float>((z0 - 0.0625) / k); x <= static_cast<float>((z0 + 0.0625) / k);
         x = std::nextafter(x, 0.0f))
      xs.push_back(x);
    std::vector<float> fast(xs.size()), mixed(2 * xs.size()), with_far(2 * xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
      with_far[2 * i] = xs[i];
      with_far[2 * i + 1] = 1e30f;
    }
    a->batch_f32[1](xs.data(), fast.data(), xs.size(), p);
    a->batch_f32[1](with_far.data(), mixed.data(), with_far.size(), p);
    std::int64_t worst_fast = 0, worst_general = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const float cr = static_cast<float>(gelu::formulas::x_sigmoid_d1(static_cast<double>(xs[i]), k));
      worst_fast = std::max(worst_fast, ulp_distance(fast[i], cr));
      worst_general = std::max(worst_general, ulp_distance(mixed[2 * i], cr));
      ASSERT_LE(ulp_distance(fast[i], cr), 2) << "k=" << k << " x=" << std::hexfloat << xs[i];
      ASSERT_LE(ulp_distance(mixed[2 * i], cr), 2)
          << "k=" << k << " x=" << std::hexfloat << xs[i] << " (general)";
      if (i % 61 == 0) {
        float one = 0;
        a->batch_f32[1](&xs[i], &one, 1, p);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(one), std::bit_cast<std::uint32_t>(fast[i]))
            << "k=" << k << " x=" << std::hexfloat << xs[i];
      }
    }
    std::printf(
        "[ params ] gelu_sigmoid f' k=%g around the root: %zu inputs, max %lld ULP (fast path), %lld "
        "(general path)\n",
        k, xs.size(), static_cast<long long>(worst_fast), static_cast<long long>(worst_general));
  }
}

// The fused backward passes are dy·f' with f' from the fast kernel, rounded once.
// The tanh form's f' by bins has tables built per value of c: across c's range, every value either passes
// their check or falls back to the quotient kernel, and either way stays within 2 ULP. Inputs: every 397th
// float in [−16, 16] (where the bins and the root are) and a stride over all patterns.
TEST(FastFamilyParameters, GeluTanhDerivativeWithinTwoUlpAcrossTheParameterRange) {
  const gelu::Activation* a = gelu::find_activation("gelu_tanh");
  std::vector<float> xs;
  for (std::uint32_t b = 0; b <= 0x41800000u; b += 397) {
    xs.push_back(from_bits(b));
    xs.push_back(-from_bits(b));
  }
  for (std::uint64_t b = 0; b <= 0xffffffffull; b += stride() * 53)
    xs.push_back(from_bits(static_cast<std::uint32_t>(b)));
  // The far ends (the bins' range test and the general path beyond it), ±inf and NaN for every c.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const float v : {inf, std::numeric_limits<float>::max(), 1e30f, 1e6f, 64.0f, 16.0f, 12.0f, 11.0f,
                        10.5f, 10.0f, 9.0f, 8.0f})
    for (float w = v, k = 0; k < 64; ++k, w = std::nextafter(w, 0.0f)) {
      xs.push_back(w);
      xs.push_back(-w);
    }
  // Every float around the end of the 16 bins' range (|x| ≈ 7.33–7.43 across c), where a vector passes from
  // the bins to the general path.
  for (float w = 7.3f; w <= 7.45f; w = std::nextafter(w, inf)) {
    xs.push_back(w);
    xs.push_back(-w);
  }
  xs.push_back(nan);
  xs.push_back(-nan);
  std::vector<float> ys(xs.size()), dy(xs.size(), 1.0f), dx(xs.size());
  // Each layout of the bins (16 and 32, whatever this CPU takes), a c whose 16-bin tables miss their check
  // running by the 32 bins.
  for (const int bins : {32, 16}) {
    int by_bins = 0, by_asked = 0;
    for (int i = 0; i <= 20; ++i) {
      gelu::Params p = a->defaults();
      p[0] = i == 20 ? 0.044715 : 0.1 * i / 19.0;
      const int layout = gelu::simd::gelu_tanh_d1_by_bins(p[0], bins);
      by_bins += layout != 0 ? 1 : 0;
      by_asked += layout == bins ? 1 : 0;
      gelu::simd::gelu_tanh_d1_bins_f32(xs.data(), nullptr, ys.data(), xs.size(), p, bins);
      gelu::simd::gelu_tanh_d1_bins_f32(xs.data(), dy.data(), dx.data(), xs.size(), p, bins);
      std::int64_t worst = 0;
      for (std::size_t k = 0; k < xs.size(); ++k) {
        const float cr = static_cast<float>(gelu::formulas::gelu_tanh_d1(static_cast<double>(xs[k]), p[0]));
        if (std::isnan(xs[k])) {
          ASSERT_TRUE(std::isnan(ys[k]) && std::isnan(dx[k])) << "c=" << p[0];
          continue;
        }
        ASSERT_EQ(std::bit_cast<std::uint32_t>(dx[k]), std::bit_cast<std::uint32_t>(ys[k]))
            << "c=" << p[0] << " x=" << std::hexfloat << xs[k];
        worst = std::max(worst, ulp_distance(ys[k], cr));
        ASSERT_LE(ulp_distance(ys[k], cr), 2) << "c=" << p[0] << " bins " << bins << " x=" << std::hexfloat
                                              << xs[k] << " got " << ys[k] << " want " << cr;
      }
      std::printf("[ params ] gelu_tanh f' c=%.6g, %d bins asked (%s): %zu inputs, max %lld ULP\n", p[0],
                  bins,
                  layout == 16   ? "16 bins"
                  : layout == 32 ? "32 bins"
                                 : "quotient",
                  xs.size(), static_cast<long long>(worst));
    }
    if (std::string(gelu::simd::isa()) == "avx512") {
      // The shipped coefficient and the whole range run by bins (the backward pass's speed rests on it), in
      // the layout asked for for most of the range.
      EXPECT_EQ(gelu::simd::gelu_tanh_d1_by_bins(0.044715, bins), bins);
      EXPECT_EQ(by_bins, 21);
      EXPECT_GE(by_asked, 15) << bins << " bins";
    }
  }
}

// Exact GELU's f′ and backward run in blocks and two passes (lanes near the root of f′ are written in a
// second pass), the sigmoid forms' with a branch on such lanes in the loop: every array length, block
// boundary and tail gives the bits of one-element calls, in place too, with a third of the inputs inside the
// root's window.
TEST(FastFamilyBackward, RootLanesMatchOneElementCallsAtEveryLength) {
  for (const char* id : {"gelu", "gelu_sigmoid", "silu"}) {
    const gelu::Activation* a = gelu::find_activation(id);
    const gelu::Params p = a->defaults();
    const bool exact = std::string(id) == "gelu";
    // The root of f′ (exact GELU: x ≈ −0.7518; the sigmoid forms: z = k·x ≈ −1.2785) and its window's size.
    const double x0 = exact ? -0.75179152469356 : gelu::formulas::kSigmoidD1RootZ / p[0];
    const double w = exact ? 0.05 : 0.01 / p[0];
    for (std::size_t n : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 2047u, 2048u, 2049u, 4101u, 10000u}) {
      std::vector<float> x(n), dy(n), d1(n), dx(n);
      for (std::size_t i = 0; i < n; ++i) {
        const double u = std::sin(0.7 * static_cast<double>(i));
        x[i] = static_cast<float>(i % 3 == 0 ? x0 + w * u : 4 * u);
        dy[i] = 0.5f + 0.001f * static_cast<float>(i % 7);
      }
      a->batch_f32[1](x.data(), d1.data(), n, p);
      a->batch_backward_f32(x.data(), dy.data(), dx.data(), n, p);
      // In place (y = x; dx = dy, as frameworks do for gradients): the same bits.
      std::vector<float> in_place = x, grad = dy;
      a->batch_f32[1](in_place.data(), in_place.data(), n, p);
      a->batch_backward_f32(x.data(), grad.data(), grad.data(), n, p);
      ASSERT_EQ(0, std::memcmp(in_place.data(), d1.data(), n * sizeof(float))) << id << " n=" << n;
      ASSERT_EQ(0, std::memcmp(grad.data(), dx.data(), n * sizeof(float))) << id << " n=" << n;
      for (std::size_t i = 0; i < n; ++i) {
        float one = 0, one_dx = 0;
        a->batch_f32[1](&x[i], &one, 1, p);
        a->batch_backward_f32(&x[i], &dy[i], &one_dx, 1, p);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(d1[i]), std::bit_cast<std::uint32_t>(one))
            << id << " n=" << n << " i=" << i << " x=" << std::hexfloat << x[i];
        ASSERT_EQ(std::bit_cast<std::uint32_t>(dx[i]), std::bit_cast<std::uint32_t>(one_dx))
            << id << " n=" << n << " i=" << i << " x=" << std::hexfloat << x[i];
        const double ref = exact ? gelu::formulas::gelu_d1(x[i]) : gelu::formulas::x_sigmoid_d1(x[i], p[0]);
        ASSERT_LE(ulp_distance(one, static_cast<float>(ref)), 2) << id << " x=" << std::hexfloat << x[i];
      }
    }
  }
}

// The sigmoid forms' f′ loop tests two vectors' range at once (one compare of their larger |x|): where one of
// them has a lane beyond the fast range (|z| > 16, ±inf, NaN), the other must still get the bits it gets
// beside an ordinary vector. Vectors of in-range inputs (near the root too) alternate with vectors holding
// one far lane, in both orders of each pair, and every in-range lane keeps the bits of the plain array; the
// far lanes stay within 2 ULP (NaN for NaN). Backward passes and f′ alike.
TEST(FastFamilyBackward, SigmoidVectorsIgnoreAFarPartner) {
  for (const char* id : {"gelu_sigmoid", "silu"}) {
    const gelu::Activation* a = gelu::find_activation(id);
    ASSERT_NE(a, nullptr);
    // SiLU has no parameter (k = 1); gelu_sigmoid's k across its range.
    const bool has_k = std::string(id) == "gelu_sigmoid";
    for (const double k : has_k ? std::vector<double>{0.1, 1.0, 1.702, 10.0} : std::vector<double>{1.0}) {
      gelu::Params p = a->defaults();
      if (has_k) p[0] = k;
      const double x0 = gelu::formulas::kSigmoidD1RootZ / k;
      constexpr std::size_t kVec = 16, kVectors = 64;
      std::vector<float> x(kVec * kVectors), dy(x.size()), d1(x.size()), dx(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double u = std::sin(0.37 * static_cast<double>(i));
        x[i] = static_cast<float>(i % 4 == 0 ? x0 + 0.01 / k * u : 15.0 / k * u);  // |z| <= 15
        dy[i] = 0.5f + 0.001f * static_cast<float>(i % 7);
      }
      a->batch_f32[1](x.data(), d1.data(), x.size(), p);
      a->batch_backward_f32(x.data(), dy.data(), dx.data(), x.size(), p);
      const float far[] = {std::numeric_limits<float>::quiet_NaN(),
                           INFINITY,
                           -INFINITY,
                           1e30f,
                           -1e30f,
                           static_cast<float>(20 / k),
                           static_cast<float>(-20 / k),
                           static_cast<float>(-17 / k)};
      for (int order = 0; order < 2; ++order) {
        std::vector<float> z, zdy;
        for (std::size_t v = 0; v < kVectors; ++v) {
          std::vector<float> partner(kVec, 0.5f);
          partner[v % kVec] = far[v % std::size(far)];
          const float* mine = &x[v * kVec];
          for (int half = 0; half < 2; ++half) {
            const bool own = (half == 0) == (order == 0);
            z.insert(z.end(), own ? mine : partner.data(), (own ? mine : partner.data()) + kVec);
            zdy.insert(zdy.end(), &dy[v * kVec], &dy[v * kVec] + kVec);
          }
        }
        std::vector<float> zd1(z.size()), zdx(z.size());
        a->batch_f32[1](z.data(), zd1.data(), z.size(), p);
        a->batch_backward_f32(z.data(), zdy.data(), zdx.data(), z.size(), p);
        for (std::size_t v = 0; v < kVectors; ++v) {
          const std::size_t own = (2 * v + (order == 0 ? 0 : 1)) * kVec,
                            other = (2 * v + (order == 0 ? 1 : 0)) * kVec;
          for (std::size_t j = 0; j < kVec; ++j) {
            const std::size_t i = v * kVec + j;
            ASSERT_EQ(std::bit_cast<std::uint32_t>(d1[i]), std::bit_cast<std::uint32_t>(zd1[own + j]))
                << id << " k=" << k << " x=" << std::hexfloat << x[i] << " beside "
                << far[v % std::size(far)];
            ASSERT_EQ(std::bit_cast<std::uint32_t>(dx[i]), std::bit_cast<std::uint32_t>(zdx[own + j]))
                << id << " k=" << k << " x=" << std::hexfloat << x[i] << " beside "
                << far[v % std::size(far)];
            const float f = z[other + j];
            const double ref = gelu::formulas::x_sigmoid_d1(static_cast<double>(f), k);
            if (std::isnan(f))
              ASSERT_TRUE(std::isnan(zd1[other + j])) << id << " k=" << k;
            else
              ASSERT_LE(ulp_distance(zd1[other + j], static_cast<float>(ref)), 2)
                  << id << " k=" << k << " x=" << std::hexfloat << f;
          }
        }
      }
    }
  }
}

TEST(FastFamilyBackward, IsGradientTimesDerivative) {
  std::vector<float> x, dy, dx(40000), d1(40000);
  for (int i = 0; i < 40000; ++i) {
    x.push_back(-60.0f + 0.003f * static_cast<float>(i));
    dy.push_back(0.5f + 0.001f * static_cast<float>(i % 7));
  }
  for (const char* id : {"gelu_tanh", "gelu_sigmoid", "silu"}) {
    const gelu::Activation* a = gelu::find_activation(id);
    ASSERT_NE(a->batch_backward_f32, nullptr) << id;
    a->batch_backward_f32(x.data(), dy.data(), dx.data(), x.size(), a->defaults());
    a->batch_f32[1](x.data(), d1.data(), x.size(), a->defaults());
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(dx[i], dy[i] * d1[i]) << id << " x=" << x[i];
  }
}

}  // namespace

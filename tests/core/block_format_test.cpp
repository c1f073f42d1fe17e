// The block formats (gelu/block_format.hpp) against the specifications' rules written out here on their own:
// the OCP MX v1.0 shared scale 2^(⌊log2 amax⌋ − emax_elem) found by halving and doubling, elements rounded by
// a search over a lattice enumerated from the element format's definition (ties to the even code) and
// clamped to its largest value; NVFP4's two-level scale with a ue4m3 block scale found by the same search.
// Also the numbers the precision lab quotes: GELU's lobe in MXFP4 flushes at a block max of 4, SiLU's at 8.
//
// Index of this file:
//   [SECTION] block_error with a bounded reference
//   [SECTION] block_error with bounded outputs
#include "gelu/block_format.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/bounded_reference.hpp"
#include "gelu/kernels.hpp"

namespace {

using gelu::BlockFormat;
using gelu::BlockFormatId;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// An element format from its definition: exponent bits, mantissa bits, bias, and whether the all-ones
/// exponent's top mantissa code is NaN (e4m3) or the top exponent is inf/NaN (e5m2).
struct Elem {
  int E, M, bias;
  enum Top { AllFinite, OneNaN, Ieee } top;
  /// Non-negative values with their codes, increasing.
  std::vector<std::pair<double, int>> values() const {
    std::vector<std::pair<double, int>> v;
    for (int e = 0; e < (1 << E); ++e)
      for (int m = 0; m < (1 << M); ++m) {
        if (top == OneNaN && e == (1 << E) - 1 && m == (1 << M) - 1) continue;
        if (top == Ieee && e == (1 << E) - 1) continue;
        const double x = e == 0 ? std::ldexp(m, 1 - bias - M) : std::ldexp((1 << M) + m, e - bias - M);
        v.emplace_back(x, (e << M) | m);
      }
    return v;
  }
  double max() const { return values().back().first; }
  /// ⌊log2 max⌋: the emax of the MX specification.
  int emax() const {
    int k = 0;
    for (double m = max(); m >= 2; m /= 2) ++k;
    return k;
  }
  /// Nearest value (ties to the even code), magnitude clamped to max.
  double round(double x) const {
    const auto v = values();
    const double a = std::min(std::fabs(x), v.back().first);
    std::size_t best = 0;
    for (std::size_t i = 1; i < v.size(); ++i) {
      const double d = std::fabs(v[i].first - a), db = std::fabs(v[best].first - a);
      if (d < db || (d == db && (v[i].second & 1) == 0)) best = i;
    }
    return std::copysign(v[best].first, x);
  }
};

const Elem kE4M3{4, 3, 7, Elem::OneNaN}, kE5M2{5, 2, 15, Elem::Ieee}, kE2M3{2, 3, 1, Elem::AllFinite},
    kE3M2{3, 2, 3, Elem::AllFinite}, kE2M1{2, 1, 1, Elem::AllFinite};

/// floor(log2 a) by halving and doubling (a > 0, finite).
int floor_log2(double a) {
  int k = 0;
  while (a >= 2) a /= 2, ++k;
  while (a < 1) a *= 2, --k;
  return k;
}

std::vector<double> mx_reference(const Elem& el, const std::vector<double>& block) {
  double amax = 0;
  for (double v : block) amax = std::max(amax, std::fabs(v));
  int e = amax == 0 ? -127 : floor_log2(amax) - el.emax();
  e = std::max(e, -127);
  const double X = std::ldexp(1.0, e);
  std::vector<double> out;
  for (double v : block) out.push_back(el.round(v / X) * X);
  return out;
}

std::vector<double> nvfp4_reference(const std::vector<double>& tensor) {
  double tmax = 0;
  for (double v : tensor) tmax = std::max(tmax, std::fabs(v));
  const double t = static_cast<double>(static_cast<float>(tmax / (6.0 * 448.0)));
  std::vector<double> out;
  for (std::size_t i = 0; i < tensor.size(); i += 16) {
    double amax = 0;
    for (std::size_t j = i; j < std::min(i + 16, tensor.size()); ++j)
      amax = std::max(amax, std::fabs(tensor[j]));
    const double sb = kE4M3.round(amax / 6.0 / t);  // ue4m3: the non-negative e4m3 values
    for (std::size_t j = i; j < std::min(i + 16, tensor.size()); ++j)
      out.push_back(sb == 0 ? 0.0 : kE2M1.round(tensor[j] / (sb * t)) * (sb * t));
  }
  return out;
}

TEST(BlockFormat, TableRows) {
  EXPECT_EQ(gelu::block_format_names(), "mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4, nvfp4");
  for (const gelu::BlockFormatRow& r : gelu::block_formats()) {
    const auto f = BlockFormat::parse(r.name);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->block_size(), r.rule == gelu::ScaleRule::MxPow2 ? 32 : 16);
    EXPECT_EQ(f->scale_format().id(),
              r.rule == gelu::ScaleRule::MxPow2 ? gelu::FormatId::E8M0 : gelu::FormatId::UE4M3);
  }
  EXPECT_FALSE(BlockFormat::parse("mxfp5"));
  EXPECT_EQ(BlockFormat(BlockFormatId::MXFP4, 64).block_size(), 64);
  EXPECT_THROW(BlockFormat(BlockFormatId::MXFP4, -1), std::invalid_argument);
  EXPECT_EQ(BlockFormat(BlockFormatId::MXFP4).element().id(), gelu::FormatId::E2M1);
  EXPECT_EQ(BlockFormat(BlockFormatId::MXFP6_E3M2).element().id(), gelu::FormatId::E3M2);
}

TEST(BlockFormat, MxMatchesTheSpecOnRandomBlocks) {
  struct Case {
    BlockFormatId id;
    const Elem* el;
  };
  std::mt19937_64 rng(11);
  std::normal_distribution<double> n01(0, 1);
  std::uniform_real_distribution<double> octave(-12, 12);
  for (const Case c : {Case{BlockFormatId::MXFP8_E4M3, &kE4M3}, Case{BlockFormatId::MXFP8_E5M2, &kE5M2},
                       Case{BlockFormatId::MXFP6_E2M3, &kE2M3}, Case{BlockFormatId::MXFP6_E3M2, &kE3M2},
                       Case{BlockFormatId::MXFP4, &kE2M1}}) {
    const BlockFormat f(c.id);
    ASSERT_EQ(f.element().row().emax, c.el->emax());
    for (int b = 0; b < 60; ++b) {
      const double spread = std::exp2(octave(rng));
      std::vector<double> block(32);
      for (double& v : block) v = n01(rng) * spread;
      if (b % 7 == 0) block[3] = 0;
      if (b % 5 == 0) block[9] = block[4] * 1e-6;  // deep below the block's lattice
      std::vector<double> got(32);
      std::vector<gelu::BlockScale> scales;
      f.quantize_blocks(block, got, &scales);
      const std::vector<double> want = mx_reference(*c.el, block);
      ASSERT_EQ(scales.size(), 1u);
      for (int i = 0; i < 32; ++i)
        ASSERT_EQ(got[i], want[i]) << f.name() << " block " << b << " [" << i << "]";
      EXPECT_EQ(scales[0].code, static_cast<std::uint64_t>(std::ilogb(scales[0].value) + 127));
    }
  }
}

TEST(BlockFormat, MxEdgeCases) {
  const BlockFormat f(BlockFormatId::MXFP4);
  // Exactly a power of two, and just below: the exponent of the block max decides.
  EXPECT_EQ(f.scale_for_max(4.0).value, 1.0);
  EXPECT_EQ(f.scale_for_max(std::nextafter(4.0, 0.0)).value, 0.5);
  // An all-zero block: the smallest scale, every element 0.
  EXPECT_EQ(f.scale_for_max(0).code, 0u);
  EXPECT_EQ(f.quantize(0.0, f.scale_for_max(0)), 0.0);
  // NaN and ∞ make the scale NaN (0xFF); so does an exponent beyond e8m0's 127.
  EXPECT_TRUE(std::isnan(f.scale_for_max(kNaN).value));
  EXPECT_EQ(f.scale_for_max(kInf).code, 0xffu);
  EXPECT_TRUE(std::isnan(f.scale_for_max(std::ldexp(1.0, 130)).value));
  EXPECT_EQ(f.scale_for_max(std::ldexp(1.0, 129)).value, std::ldexp(1.0, 127));
  // Below: clamped at 2^-127.
  EXPECT_EQ(f.scale_for_max(1e-300).value, std::ldexp(1.0, -127));
  // Saturation of the elements: mxfp8_e5m2 clamps at 57344 instead of overflowing to inf.
  const BlockFormat e5(BlockFormatId::MXFP8_E5M2);
  const gelu::BlockScale s = e5.scale_for_max(1.0);  // 2^(0 − 15)
  EXPECT_EQ(s.value, std::ldexp(1.0, -15));
  EXPECT_EQ(e5.quantize(1.99, s), 57344.0 * s.value);
  // A partial last block and a block of NaN.
  std::vector<double> in = {1, 2, 3, kNaN, 0.1}, out(5);
  std::vector<gelu::BlockScale> scales;
  BlockFormat(BlockFormatId::MXFP4, 3).quantize_blocks(in, out, &scales);
  ASSERT_EQ(scales.size(), 2u);
  EXPECT_EQ(out[2], 3.0);
  EXPECT_TRUE(std::isnan(out[4]));
}

TEST(BlockFormat, Nvfp4MatchesTheRecipe) {
  const BlockFormat f(BlockFormatId::NVFP4);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n01(0, 1);
  for (int t = 0; t < 20; ++t) {
    std::vector<double> tensor(16 * 9 + 5);
    const double spread = std::exp2(static_cast<double>(t) - 10);
    for (std::size_t i = 0; i < tensor.size(); ++i) tensor[i] = n01(rng) * spread * (i < 16 ? 0.001 : 1.0);
    std::vector<double> got(tensor.size());
    f.quantize_blocks(tensor, got);
    const std::vector<double> want = nvfp4_reference(tensor);
    for (std::size_t i = 0; i < tensor.size(); ++i) ASSERT_EQ(got[i], want[i]) << t << " [" << i << "]";
  }
  // A block max of A in a tensor of max A: scale 448·f32(A/2688), so A itself is stored as 6·scale ≈ A.
  const gelu::BlockScale s = f.scale_for_max(3.0);
  EXPECT_EQ(s.block, 448.0);
  EXPECT_EQ(s.tensor, static_cast<double>(static_cast<float>(3.0 / 2688.0)));
  EXPECT_NEAR(f.quantize(3.0, s), 3.0, 1e-6);
}

TEST(BlockFormat, UlpsOnTheBlocksLattice) {
  const BlockFormat f(BlockFormatId::MXFP4);
  const gelu::BlockScale s =
      f.scale_for_max(3.0);  // 0.5: the lattice 0, ±0.25, ±0.5, ±0.75, ±1, ±1.5, ±2, ±3
  const std::vector<double> lat = f.lattice(s);
  EXPECT_EQ(lat.size(), 16u);
  EXPECT_EQ(lat.back(), 3.0);
  EXPECT_EQ(f.ulp_distance(0.0, 0.25, s), 1u);
  EXPECT_EQ(f.ulp_distance(-0.25, 0.25, s), 2u);
  EXPECT_EQ(f.ulp_distance(1.0, 3.0, s), 3u);
  EXPECT_EQ(f.ulp_distance(0.1, 0.12, s), 0u);  // both round to 0 on this lattice
  EXPECT_EQ(f.spacing(2.5, s), 1.0);
}

TEST(BlockFormat, GeluAndSiluLobesFlushInMxfp4) {
  const BlockFormat f(BlockFormatId::MXFP4);
  const double gelu_m075 = -0.75 * 0.5 * std::erfc(0.75 / std::sqrt(2.0));  // −0.170
  EXPECT_NEAR(gelu_m075, -0.170, 5e-4);
  for (double amax : {2.0, 2.5, 3.99}) EXPECT_EQ(f.quantize(gelu_m075, f.scale_for_max(amax)), -0.25) << amax;
  for (double amax : {4.0, 6.0, 100.0}) EXPECT_EQ(f.quantize(gelu_m075, f.scale_for_max(amax)), 0.0) << amax;
  // GELU's minimum −0.16997 flushes from a block max of 4; SiLU's −0.27846 from 8.
  EXPECT_EQ(f.flush_threshold(-0.16997), 4.0);
  EXPECT_EQ(f.flush_threshold(-0.27846), 8.0);
  // Every format's threshold is a real flush: just below it the value survives.
  for (const gelu::BlockFormatRow& r : gelu::block_formats()) {
    const BlockFormat g(r.id);
    const double t = g.flush_threshold(-0.16997);
    ASSERT_TRUE(std::isfinite(t)) << r.name;
    EXPECT_EQ(g.quantize(-0.16997, g.scale_for_max(t)), 0.0) << r.name;
    EXPECT_NE(g.quantize(-0.16997, g.scale_for_max(std::nextafter(t, 0.0))), 0.0) << r.name;
  }
}

TEST(BlockFormat, BlockErrorCountsFlushedNegatives) {
  const BlockFormat f(BlockFormatId::MXFP4, 4);
  // One block of max 5 (scale 1): −0.17 flushes, −0.3 survives as −0.5; one block of max 1 (scale 0.25).
  const std::vector<double> x = {-0.75, -1.0, 2.0, 5.0, -0.75, 0.5, 1.0, 0.0};
  const std::vector<double> y = {-0.17, -0.3, 2.0, 5.0, -0.17, 0.4, 1.0, 0.0};
  const std::vector<double> ref = {-0.17, -0.3, 2.0, 5.0, -0.17, 0.4, 1.0, 0.0};
  const gelu::BlockErrorReport r = gelu::block_error(f, x, y, ref);
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.negative, 3u);
  EXPECT_EQ(r.flushed, 1u);
  EXPECT_EQ(r.flushed_x_lo, -0.75);
  EXPECT_EQ(r.max_ulp, 0u);  // y is the reference: stored as the reference rounded to each lattice
  std::vector<double> y2 = y;
  y2[6] = 0.5;  // 1.0 becomes 0.5: the block max drops to 0.5 (scale 0.125); ref 1.0 clamps at 0.75
  const gelu::BlockErrorReport r2 = gelu::block_error(f, x, y2, ref);
  EXPECT_EQ(r2.at_index, 6u);
  EXPECT_EQ(r2.at_block, 1u);
  EXPECT_GT(r2.max_ulp, 0u);
  EXPECT_THROW(gelu::block_error(f, x, y, std::vector<double>(3)), std::invalid_argument);
}

TEST(BlockFormat, TiesAndNeighboursOfEveryElementValue) {
  // Every midpoint between two neighbouring element values (a tie: the even code), and the doubles beside
  // it, stored in a block of scale 1/4: the element format's own rounding, times the scale.
  for (const gelu::BlockFormatRow& r : gelu::block_formats()) {
    const BlockFormat f(r.id);
    const gelu::BlockScale s = f.scale_for_max(std::ldexp(f.element_max(), -2));
    ASSERT_EQ(s.value, r.rule == gelu::ScaleRule::MxPow2 ? 0.25 : s.value);
    const std::vector<double> v = f.element().enumerate(0, f.element_max());
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
      const double m = 0.5 * (v[i] + v[i + 1]);
      for (double e : {m, std::nextafter(m, 0.0), std::nextafter(m, 100.0), v[i]})
        for (double sign : {1.0, -1.0})
          ASSERT_EQ(f.quantize(sign * e * s.value, s), f.element().round(sign * e) * s.value)
              << r.name << " " << sign * e;
    }
  }
}

TEST(BlockFormat, StoreIsQuantizeAndTheOrdinalOfItsResult) {
  // block_error's one-rounding path against the two calls it replaces, on every format, on values around
  // every lattice point and at random, under MX scales from 2^-127 to 2^127 and NVFP4 scales down to tiny
  // tensors.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const gelu::BlockFormatRow& row : gelu::block_formats()) {
    const BlockFormat f(row.id);
    std::vector<gelu::BlockScale> scales;
    for (const double amax : {1e-300, 1e-40, 0.0, 3.0, 7.9, 1e3, 1e38}) {
      scales.push_back(f.block_scale(amax, f.tensor_scale(amax)));
      scales.push_back(f.block_scale(amax, f.tensor_scale(amax * 1e6)));
    }
    for (const gelu::BlockScale& s : scales) {
      std::vector<double> xs = {0.0, -0.0, std::nan(""), 1e308, -1e308};
      for (const double l : f.lattice(s))
        for (const double e : {-1e-9, 0.0, 1e-9, 0.5, -0.5}) xs.push_back(l + e * std::fabs(l));
      for (int i = 0; i < 200; ++i)
        xs.push_back(u(rng) * 8 * (std::isfinite(s.value) ? s.value : 1) * f.element_max());
      for (const double x : xs) {
        const auto [q, o] = f.store(x, s);
        const double want = f.quantize(x, s);
        EXPECT_TRUE(q == want || (std::isnan(q) && std::isnan(want)))
            << row.name << " " << x << " " << s.value;
        EXPECT_EQ(std::signbit(q), std::signbit(want)) << row.name << " " << x;
        EXPECT_EQ(o, f.lattice_ordinal(want, s)) << row.name << " " << x << " scale " << s.value;
      }
    }
  }
}

TEST(BlockFormat, BlockErrorDoesNotDependOnTheThreads) {
  const BlockFormat f(BlockFormatId::MXFP4);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> n01(0, 1);
  std::vector<double> x(32 * 3000), y(x.size()), ref(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = n01(rng);
    ref[i] = 0.5 * x[i] * std::erfc(-x[i] / std::sqrt(2.0));
    y[i] = ref[i] * (1 + 0.01 * n01(rng));  // a sloppy kernel
  }
  gelu::set_thread_count(1);
  const gelu::BlockErrorReport a = gelu::block_error(f, x, y, ref);
  gelu::set_thread_count(0);
  const gelu::BlockErrorReport b = gelu::block_error(f, x, y, ref);
  EXPECT_GT(a.max_ulp, 0u);
  EXPECT_EQ(a.max_ulp, b.max_ulp);
  EXPECT_EQ(a.at_index, b.at_index);
  EXPECT_EQ(a.mismatch, b.mismatch);
  EXPECT_EQ(a.mean_ulp, b.mean_ulp);
  EXPECT_EQ(a.flushed, b.flushed);
  EXPECT_EQ(a.flushed_x_lo, b.flushed_x_lo);
  EXPECT_EQ(a.blocks, 3000u);
}

// [SECTION] block_error with a bounded reference: the same report, bit for bit.

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expect_same_report(const gelu::BlockErrorReport& a, const gelu::BlockErrorReport& b, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.blocks, b.blocks);
  EXPECT_EQ(a.max_ulp, b.max_ulp);
  EXPECT_TRUE(same_bits(a.mean_ulp, b.mean_ulp)) << a.mean_ulp << " " << b.mean_ulp;
  EXPECT_EQ(a.infinite, b.infinite);
  EXPECT_EQ(a.mismatch, b.mismatch);
  EXPECT_EQ(a.at_index, b.at_index);
  EXPECT_EQ(a.at_block, b.at_block);
  EXPECT_TRUE(same_bits(a.at_reference, b.at_reference)) << a.at_reference << " " << b.at_reference;
  EXPECT_TRUE(same_bits(a.at_x, b.at_x));
  EXPECT_TRUE(same_bits(a.at_value, b.at_value)) << a.at_value << " " << b.at_value;
  EXPECT_TRUE(same_bits(a.at_stored, b.at_stored));
  EXPECT_TRUE(same_bits(a.at_block_max, b.at_block_max));
  EXPECT_EQ(a.negative, b.negative);
  EXPECT_EQ(a.flushed, b.flushed);
  EXPECT_TRUE(same_bits(a.flushed_x_lo, b.flushed_x_lo));
  EXPECT_TRUE(same_bits(a.flushed_x_hi, b.flushed_x_hi));
  EXPECT_TRUE(same_bits(a.max_abs, b.max_abs)) << a.max_abs << " " << b.max_abs;
}

TEST(BoundedReference, GeluFastValuesLieWithinTheirBound) {
  const gelu::Activation& g = *gelu::find_activation("gelu");
  std::vector<double> x;
  for (double v = -39.5; v <= 39.5; v += 0.000731) x.push_back(v);
  std::vector<double> approx(x.size());
  const double rel = gelu::eval_bounded(g, x, approx);
  EXPECT_EQ(rel, 0x1p-40);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double acc = g.eval(x[i]);
    if (approx[i] != acc) ++differ;
    if (std::isnormal(approx[i])) {
      EXPECT_LE(std::fabs(acc - approx[i]), rel * std::fabs(approx[i])) << x[i];
    }
  }
  EXPECT_GT(differ, 0u);  // the double-only values are not the x87 ones everywhere: the bound is used
  // ELU has no double-only form: its values are eval's, bound 0.
  const gelu::Activation& s = *gelu::find_activation("elu");
  std::vector<double> sy(x.size());
  EXPECT_EQ(gelu::eval_bounded(s, x, sy), 0.0);
  for (std::size_t i = 0; i < x.size(); i += 97) EXPECT_TRUE(same_bits(sy[i], s.eval(x[i])));
}

TEST(BoundedReference, BlockErrorMatchesTheAccurateReferenceOnEveryFormat) {
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const gelu::Activation& t = *gelu::find_activation("gelu_tanh");
  std::mt19937_64 rng(11);
  for (const double sigma : {1.0, 4.0}) {
    std::normal_distribution<double> nd(0, sigma);
    std::vector<double> x(32 * 2000);
    for (double& v : x) v = nd(rng);
    // Values on rounding boundaries: the reference equals the stored value (y = ref), and x = 0.
    x[5] = 0;
    std::vector<double> ref(x.size()), yt(x.size()), approx(x.size());
    g.eval(std::span<const double>(x), std::span<double>(ref));
    t.eval(std::span<const double>(x), std::span<double>(yt));
    const double rel = gelu::eval_bounded(g, x, approx);
    std::size_t calls = 0;
    const gelu::BoundedReference br{approx, rel, [&](std::size_t i) {
                                      __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
                                      return g.eval(x[i]);
                                    }};
    // Approximations pushed to the edge of the bound in both directions must give the same report too.
    std::vector<double> up(x.size()), down(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      up[i] = ref[i] * (1 + rel / 2);
      down[i] = ref[i] * (1 - rel / 2);
    }
    const gelu::BoundedReference bu{up, rel, [&](std::size_t i) { return ref[i]; }};
    const gelu::BoundedReference bd{down, rel, [&](std::size_t i) { return ref[i]; }};
    for (const gelu::BlockFormatRow& row : gelu::block_formats()) {
      const BlockFormat f(row.id);
      for (const std::vector<double>* y : {&yt, &ref}) {
        const gelu::BlockErrorReport a = gelu::block_error(f, x, *y, std::span<const double>(ref));
        expect_same_report(a, gelu::block_error(f, x, *y, br), row.name);
        expect_same_report(a, gelu::block_error(f, x, *y, bu), row.name);
        expect_same_report(a, gelu::block_error(f, x, *y, bd), row.name);
      }
    }
    EXPECT_LT(calls, x.size());  // the accurate path is the exception
  }
  const BlockFormat f(BlockFormatId::MXFP4);
  std::vector<double> x(64, 1.0);
  EXPECT_THROW(gelu::block_error(f, x, x,
                                 gelu::BoundedReference{std::span<const double>(x).first(3), 0,
                                                        [](std::size_t) { return 0.0; }}),
               std::invalid_argument);
  EXPECT_THROW(gelu::block_error(f, x, x, gelu::BoundedReference{x, 0.5, [](std::size_t) { return 0.0; }}),
               std::invalid_argument);
}

// [SECTION] block_error with bounded outputs: the function under test known within a bound too

struct FnCase {
  const char* id;
  std::vector<double> params;  // empty: the defaults
};

gelu::Params params_of(const gelu::Activation& fn, const FnCase& c) {
  gelu::Params p = fn.defaults();
  for (std::size_t i = 0; i < c.params.size(); ++i) p[static_cast<int>(i)] = c.params[i];
  return p;
}

TEST(BoundedReference, SigmoidFormsLieWithinTheirBound) {
  // The double-only x·σ(z) of gelu_tanh, gelu_sigmoid and silu against their accurate values, over a dense
  // grid, the edges of the fast range (|z| = 700), tiny and huge inputs: the error stays under 2^-40, a
  // 2^7 margin inside the bound 2^-33 that block_error is given.
  const std::vector<FnCase> cases = {{"gelu_tanh", {}},    {"gelu_tanh", {0.0}},   {"gelu_tanh", {0.1}},
                                     {"silu", {}},         {"silu", {0.1}},        {"silu", {10.0}},
                                     {"gelu_sigmoid", {}}, {"gelu_sigmoid", {0.1}}};
  for (const FnCase& c : cases) {
    const gelu::Activation& fn = *gelu::find_activation(c.id);
    const gelu::Params p = params_of(fn, c);
    std::vector<double> x;
    for (double v = -45; v <= 45; v += 0.000917) x.push_back(v);
    // Where z = ±700 (k·x for the sigmoid forms; gelu_tanh's root by bisection) and around it.
    double edge = 700 / p[0];
    if (std::string_view(c.id) == "gelu_tanh") {
      double lo = 0, hi = 1e4;
      for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (1.5957691216057308 * mid * (1 + p[0] * mid * mid) < 700 ? lo : hi) = mid;
      }
      edge = lo;
    }
    for (double d = -0.01; d <= 0.01; d += 1e-5) x.insert(x.end(), {edge + d, -edge - d});
    for (double v : {1e-300, 2.2250738585072014e-308, 5e-324, 1e-10, 1e5, 1e300, kInf, kNaN, 0.0})
      x.insert(x.end(), {v, -v});
    std::vector<double> approx(x.size());
    const double rel = gelu::eval_bounded(fn, x, approx, &p);
    EXPECT_EQ(rel, 0x1p-33) << c.id;
    double worst = 0;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double acc = fn.eval(x[i], 0, &p);
      if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(approx[i]));
      }
      if (!same_bits(acc, approx[i])) ++differ;
      if (std::isnormal(approx[i]))
        worst = std::max(worst, std::fabs(acc - approx[i]) / std::fabs(approx[i]));
    }
    EXPECT_LE(worst, 0x1p-40) << c.id << " c/k/beta " << p[0];
    EXPECT_GT(differ, x.size() / 10) << c.id;  // the double-only values are used, and differ from eval's
  }
  // gelu_tanh with a negative cubic coefficient (1 + c·x² may cancel) keeps eval's values, bound 0.
  const gelu::Activation& t = *gelu::find_activation("gelu_tanh");
  gelu::Params neg = t.defaults();
  neg[0] = -0.01;
  std::vector<double> x = {-3, -1, 0.5, 2}, y(x.size());
  EXPECT_EQ(gelu::eval_bounded(t, x, y, &neg), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(same_bits(y[i], t.eval(x[i], 0, &neg)));
}

TEST(BlockFormat, StoreWithinIsStoreAtBothEndsAndBetween) {
  // Around every midpoint of every format's lattice (scale 1, and an NVFP4 scale that is no power of two):
  // store_within gives a result only when store gives it at both ends of the interval and at its centre, and
  // none at a midpoint itself; far from the midpoints it always settles.
  const double rel = 0x1p-40;
  for (const gelu::BlockFormatRow& row : gelu::block_formats()) {
    const BlockFormat f(row.id);
    for (const double amax : {f.element_max(), 5.3}) {
      const gelu::BlockScale s = f.scale_for_max(amax);
      const std::vector<double> lat = f.lattice(s);
      std::size_t settled = 0, tried = 0;
      for (std::size_t j = 0; j + 1 < lat.size(); ++j) {
        const double mid = (lat[j] + lat[j + 1]) / 2, cell = lat[j + 1] - lat[j];
        if (mid == 0) continue;  // x must be normal
        for (const double k : {0.0, 0.3, 0.9, 1.1, 2.0, 3.0, 1e3, -0.3, -0.9, -1.1, -2.0, -3.0, -1e3}) {
          const double x = mid * (1 + k * rel);
          const auto w = f.store_within(x, rel, s);
          const auto o = f.ordinal_within(x, rel, s);
          ++tried;
          EXPECT_EQ(w.has_value(), o.has_value());
          if (k == 0) {
            EXPECT_FALSE(w) << row.name << " at the midpoint " << mid;
          }
          if (std::fabs(k) >= 3) {
            EXPECT_TRUE(w) << row.name << " " << x;
          }
          if (!w) continue;
          ++settled;
          for (const double t : {x * (1 - rel), x, x * (1 + rel)}) {
            const auto st = f.store(t, s);
            EXPECT_TRUE(same_bits(st.first, w->first)) << row.name << " " << t;
            EXPECT_EQ(st.second, w->second) << row.name << " " << t;
            EXPECT_EQ(f.lattice_ordinal(t, s), *o) << row.name << " " << t;
          }
        }
        // A value a quarter cell from the midpoint settles.
        EXPECT_TRUE(f.store_within(mid - cell / 4, rel, s)) << row.name << " " << mid;
      }
      EXPECT_GT(settled, 0u);
      EXPECT_LT(settled, tried);
    }
    // Not a normal double, or no usable scale: nullopt (store of the accurate value decides).
    const gelu::BlockScale s1 = f.scale_for_max(4);
    EXPECT_FALSE(f.store_within(0.0, rel, s1));
    EXPECT_FALSE(f.store_within(5e-324, rel, s1));
    EXPECT_FALSE(f.store_within(kNaN, rel, s1));
    gelu::BlockScale bad = s1;
    bad.value = kNaN;
    EXPECT_FALSE(f.store_within(1.0, rel, bad));
    EXPECT_FALSE(f.ordinal_within(1.0, rel, bad));
  }
}

/// The x in [lo, hi] whose fn(x) is nearest `target`, fn increasing there (bisection over the doubles).
double x_where(const gelu::Activation& fn, const gelu::Params& p, double target, double lo, double hi) {
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid == lo || mid == hi) break;
    (fn.eval(mid, 0, &p) < target ? lo : hi) = mid;
  }
  return std::fabs(fn.eval(lo, 0, &p) - target) <= std::fabs(fn.eval(hi, 0, &p) - target) ? lo : hi;
}

/// Blocks whose outputs sit on the hard places: a block max at a power of two (the MX scale's edge) and at a
/// midpoint of two ue4m3 scales (NVFP4's), elements at the midpoints of their block's lattice on both sides
/// of 0, the tensor max at a float rounding boundary of NVFP4's tensor scale; then normal draws.
std::vector<double> hard_inputs(const gelu::Activation& fn, const gelu::Params& p, const BlockFormat& f,
                                std::mt19937_64& rng) {
  const std::size_t bs = static_cast<std::size_t>(f.block_size());
  std::vector<double> x;
  // Tensor max: NVFP4's tensor scale amax / 2688 at the midpoint of two floats near 10 / 2688.
  const float t0 = static_cast<float>(10.0 / 2688);
  const double tmid = (static_cast<double>(t0) + static_cast<double>(std::nextafter(t0, 1.0f))) / 2;
  x.push_back(x_where(fn, p, tmid * 2688, 0, 20));
  while (x.size() % bs) x.push_back(0.5);
  const double t = f.tensor_scale(fn.eval(x[0], 0, &p));
  std::vector<double> maxima;  // block maxima: MX scale edges, ue4m3 scale midpoints, inside a binade
  for (int k = -3; k <= 2; ++k) maxima.insert(maxima.end(), {std::ldexp(1.0, k), 1.5 * std::ldexp(1.0, k)});
  for (const double b : {0.5, 1.0, 1.125, 1.75, 2.5, 4.5, 13.0}) maxima.push_back(b * 6 * t * 1.0625);
  for (const double m : maxima) {
    if (m >= 9) continue;  // below the tensor max
    const double x0 = x_where(fn, p, m, 0, 20);
    const std::size_t start = x.size();
    x.push_back(x0);
    const gelu::BlockScale s = f.block_scale(fn.eval(x0, 0, &p), t);
    const std::vector<double> lat = f.lattice(s);
    std::vector<double> targets;
    for (std::size_t j = 0; j + 1 < lat.size(); ++j) {
      const double mid = (lat[j] + lat[j + 1]) / 2;
      if (mid != 0 && mid < m && mid > -0.15) targets.push_back(mid);
    }
    for (std::size_t j = 0; x.size() < start + bs && !targets.empty(); ++j) {
      const double target = targets[(j * 7) % targets.size()];
      x.push_back(target > 0 ? x_where(fn, p, target, 0, 20) : x_where(fn, p, target, -0.7, 0));
    }
    while (x.size() < start + bs) x.push_back(-0.3);
  }
  std::normal_distribution<double> nd(0, 2);
  for (std::size_t i = 0; i < 200 * bs; ++i) x.push_back(nd(rng));
  return x;
}

TEST(BoundedReference, BlockErrorWithBoundedOutputsMatchesTheAccurateOnes) {
  // The function under test and the reference both as eval_bounded's values (error's pipeline), against
  // both computed accurately: the same report bit for bit, on every format, on inputs built to sit on the
  // scale and lattice boundaries; and with approximations pushed to either edge of their bound.
  std::mt19937_64 rng(5);
  std::size_t calls = 0, total = 0;
  for (const char* fid : {"gelu", "gelu_tanh", "silu"}) {
    const gelu::Activation& fn = *gelu::find_activation(fid);
    const gelu::Params p = fn.defaults();
    for (const char* rid : {"gelu", "silu"}) {
      const gelu::Activation& rf = *gelu::find_activation(rid);
      for (const gelu::BlockFormatRow& row : gelu::block_formats()) {
        SCOPED_TRACE(std::string(fid) + " vs " + rid + " in " + row.name);
        const BlockFormat f(row.id);
        const std::vector<double> x = hard_inputs(fn, p, f, rng);
        std::vector<double> y(x.size()), ref(x.size());
        fn.eval(std::span<const double>(x), std::span<double>(y));
        rf.eval(std::span<const double>(x), std::span<double>(ref));
        const gelu::BlockErrorReport exact = gelu::block_error(f, x, y, std::span<const double>(ref));
        gelu::BoundedReference yb = gelu::bounded_values(fn, x, &p);
        const auto count = yb.accurate;
        yb.accurate = [&](std::size_t i) {
          __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
          return count(i);
        };
        const gelu::BoundedReference rb = gelu::bounded_values(rf, x);
        expect_same_report(exact, gelu::block_error(f, x, yb, rb), "bounded");
        total += x.size();
        const double rel = yb.rel_error;
        ASSERT_GT(rel, 0);
        std::vector<double> up(x.size()), down(x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
          up[i] = y[i] * (1 + rel / 2), down[i] = y[i] * (1 - rel / 2);
        const auto acc = [&](std::size_t i) { return y[i]; };
        for (const std::vector<double>* v : {&up, &down})
          expect_same_report(exact, gelu::block_error(f, x, gelu::BoundedReference{*v, rel, acc}, rb),
                             "pushed");
        if (std::string_view(fid) == rid)  // --fn F --vs F: one set of values for both
          expect_same_report(exact, gelu::block_error(f, x, yb, yb), "shared");
      }
    }
  }
  EXPECT_GT(calls, 0u);  // the hard inputs reach the accurate path
  // which stays the exception: the hard blocks (a twentieth of the inputs) fall back whole, the drawn ones
  // almost never.
  EXPECT_LT(calls, total / 4);
}

}  // namespace

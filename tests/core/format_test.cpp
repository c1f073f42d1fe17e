// The number-format table (gelu/format.hpp) against independent definitions: rounding against a search over
// every value of the format (ties to the even code), f32/f64 against the hardware, bf16 against float's top
// 16 bits, f16 against the compiler's _Float16, the published limits of each format, and the ULP distance
// against counting neighbours.
#include "gelu/format.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "gelu/analysis.hpp"

namespace {

using gelu::Format;
using gelu::FormatId;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Round to nearest by search over the enumerated values; a tie goes to the value whose code is even.
double round_by_search(const Format& f, const std::vector<double>& sorted, double x) {
  if (std::isnan(x)) return x;
  auto it = std::lower_bound(sorted.begin(), sorted.end(), x);
  if (it == sorted.end()) return f.round(kInf);  // beyond the top: overflow rule tested separately
  if (it == sorted.begin()) return f.round(-kInf);
  const double hi = *it, lo = *(it - 1);
  if (hi == x) return x == 0 ? x : hi;
  const double dl = x - lo, dh = hi - x;
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return (f.encode(lo) & 1) == 0 ? lo : hi;
}

TEST(Format, TableNamesAndParse) {
  EXPECT_EQ(gelu::number_format_names(),
            "f64, f32, bf16, f16, e4m3, e5m2, int8, e2m3, e3m2, e2m1, e8m0, ue4m3");
  for (const gelu::NumberFormat& row : gelu::number_formats()) {
    const auto f = Format::parse(row.name);
    ASSERT_TRUE(f) << row.name;
    EXPECT_EQ(f->id(), row.id);
    EXPECT_EQ(&gelu::number_format(row.id), &row);
  }
  EXPECT_FALSE(Format::parse("fp16"));
  EXPECT_FALSE(Format::parse(""));
}

TEST(Format, PublishedLimits) {
  EXPECT_EQ(Format(FormatId::F16).max_finite(), 65504.0);
  EXPECT_EQ(Format(FormatId::F16).min_positive(), std::ldexp(1.0, -24));
  EXPECT_EQ(Format(FormatId::F16).min_normal(), std::ldexp(1.0, -14));
  EXPECT_EQ(Format(FormatId::BF16).max_finite(), 0x1.fep127);
  EXPECT_EQ(Format(FormatId::BF16).min_positive(), std::ldexp(1.0, -133));
  EXPECT_EQ(Format(FormatId::E4M3).max_finite(), 448.0);
  EXPECT_EQ(Format(FormatId::E4M3).min_positive(), std::ldexp(1.0, -9));
  EXPECT_EQ(Format(FormatId::E5M2).max_finite(), 57344.0);
  EXPECT_EQ(Format(FormatId::E5M2).min_positive(), std::ldexp(1.0, -16));
  EXPECT_EQ(Format(FormatId::F32).max_finite(), static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(Format(FormatId::F64).min_positive(), std::numeric_limits<double>::denorm_min());
  // Finite values, ±0 counted twice: 2^16 − 2^8 for bf16, 2^16 − 2^11 for f16, 256 − 2 NaN for e4m3,
  // 256 − 8 (NaN and inf) for e5m2.
  EXPECT_EQ(Format(FormatId::BF16).count_finite(), 65536u - 256u);
  EXPECT_EQ(Format(FormatId::F16).count_finite(), 65536u - 2048u);
  EXPECT_EQ(Format(FormatId::E4M3).count_finite(), 254u);
  EXPECT_EQ(Format(FormatId::E5M2).count_finite(), 248u);
  EXPECT_EQ(Format(FormatId::Int8).count_finite(), 256u);
}

TEST(Format, EveryPatternDecodesAndEncodesBack) {
  for (FormatId id : {FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2, FormatId::E2M3,
                      FormatId::E3M2, FormatId::E2M1, FormatId::E8M0, FormatId::UE4M3}) {
    const Format f(id);
    const std::uint64_t n = std::uint64_t{1} << f.row().bits;
    std::uint64_t nans = 0;
    for (std::uint64_t b = 0; b < n; ++b) {
      const double v = f.decode(b);
      if (std::isnan(v)) {
        ++nans;
        continue;
      }
      EXPECT_TRUE(f.representable(v)) << f.name() << " " << b;
      EXPECT_EQ(f.encode(v), b) << f.name() << " " << b;
      EXPECT_EQ(f.round(v), v);
    }
    // The MX element formats have no NaN; e8m0's is 0xFF; ue4m3's 0x7F and every pattern with the unused
    // sign bit set.
    EXPECT_EQ(nans, id == FormatId::E4M3    ? 2u
                    : id == FormatId::E5M2  ? 6u
                    : id == FormatId::F16   ? 2046u
                    : id == FormatId::E8M0  ? 1u
                    : id == FormatId::UE4M3 ? 129u
                    : id == FormatId::BF16  ? 254u
                                            : 0u)
        << f.name();
  }
}

TEST(Format, Bf16DecodeIsTheTopOfAFloat) {
  const Format f(FormatId::BF16);
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const std::uint32_t fb = b << 16;
    float x;
    std::memcpy(&x, &fb, 4);
    const double v = f.decode(b);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(v));
    } else {
      EXPECT_EQ(v, static_cast<double>(x)) << b;
      EXPECT_EQ(std::signbit(v), std::signbit(x));
    }
  }
}

TEST(Format, RoundingMatchesASearchOverEveryValue) {
  std::mt19937_64 rng(7);
  for (FormatId id : {FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2, FormatId::E2M3,
                      FormatId::E3M2, FormatId::E2M1, FormatId::E8M0, FormatId::UE4M3}) {
    const Format f(id);
    const std::vector<double> values = f.enumerate();
    std::vector<double> sorted = values;  // −0 and +0 compare equal; the search only needs the order
    // Every midpoint and its neighbouring doubles: the hardest inputs for ties-to-even.
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      const double m = 0.5 * (values[i] + values[i + 1]);
      for (double x : {m, std::nextafter(m, -kInf), std::nextafter(m, kInf)}) {
        if (x == 0) continue;
        ASSERT_EQ(f.round(x), round_by_search(f, sorted, x)) << f.name() << " x=" << x;
      }
    }
    // Random doubles spread over the format's range in log scale, both signs.
    std::uniform_real_distribution<double> e(std::log2(f.min_positive()) - 2, std::log2(f.max_finite()));
    for (int i = 0; i < 200000; ++i) {
      double x = std::exp2(e(rng));
      if (rng() & 1) x = -x;
      ASSERT_EQ(f.round(x), round_by_search(f, sorted, x)) << f.name() << " x=" << x;
    }
  }
}

TEST(Format, OverflowUnderflowAndSpecials) {
  const Format bf(FormatId::BF16), h(FormatId::F16), e4(FormatId::E4M3), e5(FormatId::E5M2);
  EXPECT_EQ(h.round(65519.99), 65504.0);  // below the midpoint to 65536: rounds down
  EXPECT_EQ(h.round(65520.0), kInf);      // the midpoint: ties to even = 2^16 = overflow
  EXPECT_EQ(h.round(-1e10), -kInf);
  EXPECT_EQ(e5.round(61439.0), 57344.0);
  EXPECT_EQ(e5.round(61440.0), kInf);
  EXPECT_EQ(e4.round(464.0), 448.0);  // a tie between 448 and 480 (not a value): even code
  EXPECT_EQ(e4.round(1e30), 448.0);   // FN saturates
  EXPECT_EQ(e4.round(-kInf), -448.0);
  EXPECT_TRUE(std::isnan(e4.round(kNaN)));
  EXPECT_EQ(bf.round(kInf), kInf);
  EXPECT_EQ(h.round(std::ldexp(1.0, -25)), 0.0);  // exactly half the smallest subnormal: ties to 0
  EXPECT_TRUE(std::signbit(h.round(-std::ldexp(1.0, -26))));
  EXPECT_EQ(h.round(std::ldexp(1.5, -25)), std::ldexp(1.0, -24));
  EXPECT_EQ(e4.encode(kNaN), 0x7fu);
  EXPECT_EQ(e5.encode(kInf), 0x7cu);
  EXPECT_EQ(h.encode(-0.0), 0x8000u);
}

TEST(Format, F32AndF64AreTheHardware) {
  const Format s(FormatId::F32), d(FormatId::F64);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    std::uint64_t b = rng();
    double x;
    std::memcpy(&x, &b, 8);
    if (std::isnan(x)) continue;
    EXPECT_EQ(d.round(x), x);
    const float xf = static_cast<float>(x);
    EXPECT_EQ(s.round(x), static_cast<double>(xf));
    const float yf = std::nextafter(xf, std::numeric_limits<float>::infinity());
    EXPECT_EQ(s.ulp_distance(xf, yf), gelu::analysis::ulp_distance(xf, yf));
    const float zf = static_cast<float>(std::ldexp(static_cast<double>(rng() % 1000) - 500, -3));
    EXPECT_EQ(s.ulp_distance(xf, zf), gelu::analysis::ulp_distance(xf, zf)) << xf << " " << zf;
  }
  EXPECT_EQ(d.ulp_distance(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()),
            2 * 0x7fefffffffffffffULL);
}

TEST(Format, NeighboursAndDistances) {
  for (FormatId id : {FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2, FormatId::Int8,
                      FormatId::E2M3, FormatId::E3M2, FormatId::E2M1, FormatId::E8M0, FormatId::UE4M3}) {
    const Format f(id, gelu::Quantization::symmetric(4.0));
    const std::vector<double> v = f.enumerate();
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
      if (v[i] == 0 && v[i + 1] == 0) {  // −0 then +0: the same point
        EXPECT_EQ(f.ulp_distance(v[i], v[i + 1]), 0u);
        continue;
      }
      EXPECT_EQ(f.next_up(v[i]), v[i + 1]) << f.name() << " " << v[i];
      EXPECT_EQ(f.next_down(v[i + 1]), v[i] == 0 ? -0.0 : v[i]);
      EXPECT_EQ(f.ulp_distance(v[i], v[i + 1]), 1u);
    }
    // ±0 once (the scale formats have one zero, ue4m3, or none, e8m0).
    const std::uint64_t n_points = f.is_float() && !f.row().unsigned_only ? v.size() - 2 : v.size() - 1;
    EXPECT_EQ(f.ulp_distance(v.front(), v.back()), n_points) << f.name();
    EXPECT_EQ(f.ulp_distance(kNaN, kNaN), 0u);
    EXPECT_EQ(f.ulp_distance(kNaN, 1.0), std::numeric_limits<std::uint64_t>::max());
    // The spacing at each value is the gap to the next value of the same binade.
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
      if (v[i] > 0) {
        EXPECT_GE(f.spacing(v[i]) * (1 + 1e-12), v[i + 1] - v[i]) << f.name() << " " << v[i];
      }
    }
  }
  const Format h(FormatId::F16);
  EXPECT_EQ(h.ulp_distance(65504.0, kInf), 1u);  // the largest finite value and inf are neighbours
  EXPECT_EQ(h.next_up(65504.0), kInf);
  EXPECT_EQ(Format(FormatId::E4M3).next_up(448.0), 448.0);
  EXPECT_EQ(h.spacing(1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(h.spacing(1e9), std::ldexp(1.0, 5));  // beyond the range: the top binade's spacing
  EXPECT_EQ(h.spacing(0.0), std::ldexp(1.0, -24));
}

TEST(Format, EnumerateRangesInOrder) {
  const Format bf(FormatId::BF16);
  const std::vector<double> all = bf.enumerate();
  EXPECT_EQ(all.size(), bf.count_finite());
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  const std::vector<double> part = bf.enumerate(-1.0, 2.0);
  EXPECT_EQ(part.front(), -1.0);
  EXPECT_EQ(part.back(), 2.0);
  std::size_t expect = 0;
  for (double x : all) expect += (x >= -1.0 && x <= 2.0);
  EXPECT_EQ(part.size(), expect);
  EXPECT_THROW(Format(FormatId::F32).enumerate(), std::logic_error);
}

TEST(Format, Int8Affine) {
  const Format sym(FormatId::Int8, gelu::Quantization::symmetric(2.54));
  EXPECT_DOUBLE_EQ(sym.max_finite(), 2.54);
  EXPECT_EQ(sym.round(0.0), 0.0);
  EXPECT_EQ(sym.round(100.0), sym.max_finite());  // clamps
  EXPECT_DOUBLE_EQ(sym.round(-100.0), -128 * 0.02);
  EXPECT_EQ(sym.round(0.03), 0.04);  // 1.5 codes: ties to the even code 2
  EXPECT_EQ(sym.ordinal(0.04), 2);
  EXPECT_EQ(sym.encode(-0.02), 0xffu);
  EXPECT_THROW((void)sym.encode(kNaN), std::domain_error);
  const gelu::Quantization q = gelu::Quantization::asymmetric(-0.17, 3.0);
  const Format asym(FormatId::Int8, q);
  EXPECT_EQ(asym.round(0.0), 0.0);  // zero is exactly representable
  EXPECT_NEAR(asym.enumerate().front(), -0.17, q.scale);
  EXPECT_NEAR(asym.enumerate().back(), 3.0, q.scale);
  EXPECT_THROW(Format(FormatId::Int8, gelu::Quantization{0.0, 0}), std::invalid_argument);
  EXPECT_THROW(Format(FormatId::Int8, gelu::Quantization{1.0, 300}), std::invalid_argument);
  EXPECT_THROW(gelu::Quantization::symmetric(kNaN), std::invalid_argument);
}

#if defined(__FLT16_MAX__)
TEST(Format, F16MatchesTheCompilersHalf) {
  const Format h(FormatId::F16);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> e(-28, 17);
  for (int i = 0; i < 300000; ++i) {
    double x = std::exp2(e(rng));
    if (rng() & 1) x = -x;
    const auto y = static_cast<_Float16>(x);
    ASSERT_EQ(h.round(x), static_cast<double>(y)) << x;
  }
}
#endif

// [SECTION] The OCP MX element formats and the scale formats, against their definitions written out here.

/// Every non-negative value of an "FN" format with neither infinities nor NaN (OCP MX v1.0, section 5.3):
/// exponent field e and mantissa m give m/2^M · 2^(1 − bias) for e = 0, (1 + m/2^M) · 2^(e − bias) else.
std::vector<double> mx_element_values(int E, int M, int bias) {
  std::vector<double> v;
  for (int e = 0; e < (1 << E); ++e)
    for (int m = 0; m < (1 << M); ++m)
      v.push_back(e == 0 ? std::ldexp(m, 1 - bias - M) : std::ldexp((1 << M) + m, e - bias - M));
  return v;
}

TEST(Format, MxElementFormatsAreTheSpecsValues) {
  struct Case {
    FormatId id;
    int E, M, bias;
    double max;
    int bits;
  };
  for (const Case c : {Case{FormatId::E2M3, 2, 3, 1, 7.5, 6}, Case{FormatId::E3M2, 3, 2, 3, 28.0, 6},
                       Case{FormatId::E2M1, 2, 1, 1, 6.0, 4}}) {
    const Format f(c.id);
    EXPECT_EQ(f.row().bits, c.bits);
    const std::vector<double> want = mx_element_values(c.E, c.M, c.bias);
    std::vector<double> got;
    for (double v : f.enumerate())
      if (v >= 0 && !(v == 0 && std::signbit(v))) got.push_back(v);
    EXPECT_EQ(got, want) << f.name();
    EXPECT_EQ(f.max_finite(), c.max) << f.name();
    EXPECT_EQ(f.count_finite(), std::uint64_t{2} << (c.E + c.M)) << f.name();  // every code, ±0 twice
    EXPECT_EQ(f.round(1e9), c.max);                                            // saturates
    EXPECT_EQ(f.round(-kInf), -c.max);
    EXPECT_TRUE(std::isnan(f.round(kNaN)));
    EXPECT_FALSE(f.representable(kNaN));
    EXPECT_THROW((void)f.encode(kNaN), std::domain_error);
    // The codes are sign, exponent, mantissa: the largest is all ones.
    EXPECT_EQ(f.encode(c.max), (std::uint64_t{1} << (c.bits - 1)) - 1);
    EXPECT_EQ(f.encode(-c.max), (std::uint64_t{1} << c.bits) - 1);
  }
  const std::vector<double> e2m1 = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  EXPECT_EQ(mx_element_values(2, 1, 1), e2m1);
  const Format f4(FormatId::E2M1);
  EXPECT_EQ(f4.round(0.25), 0.0);  // a tie between 0 (code 0) and 0.5 (code 1)
  EXPECT_EQ(f4.round(0.2500001), 0.5);
  EXPECT_EQ(f4.round(2.5), 2.0);  // 2 (code 4) against 3 (code 5)
  EXPECT_EQ(f4.round(5.0), 4.0);  // 4 (code 6) against 6 (code 7)
  EXPECT_EQ(f4.round(5.0000001), 6.0);
}

TEST(Format, E8m0IsPowersOfTwoWithoutZero) {
  const Format f(FormatId::E8M0);
  for (std::uint64_t code = 0; code < 255; ++code) {
    EXPECT_EQ(f.decode(code), std::ldexp(1.0, static_cast<int>(code) - 127)) << code;
    EXPECT_EQ(f.encode(std::ldexp(1.0, static_cast<int>(code) - 127)), code);
    EXPECT_EQ(f.ordinal(f.decode(code)), static_cast<std::int64_t>(code));
  }
  EXPECT_TRUE(std::isnan(f.decode(0xff)));
  EXPECT_EQ(f.encode(kNaN), 0xffu);
  EXPECT_EQ(f.count_finite(), 255u);
  EXPECT_EQ(f.max_finite(), std::ldexp(1.0, 127));
  EXPECT_EQ(f.min_positive(), std::ldexp(1.0, -127));
  EXPECT_EQ(f.round(0.0), std::ldexp(1.0, -127));  // no zero: saturates at the bottom
  EXPECT_EQ(f.round(-3.0), std::ldexp(1.0, -127));
  EXPECT_EQ(f.round(1e300), std::ldexp(1.0, 127));
  EXPECT_EQ(f.round(2.9), 2.0);
  EXPECT_EQ(f.round(3.1), 4.0);
  EXPECT_EQ(f.round(3.0), 2.0);  // a tie: 2 is code 128 (even), 4 is code 129
  EXPECT_EQ(f.round(6.0), 8.0);  // 4 is code 129, 8 is code 130 (even)
}

TEST(Format, Ue4m3IsE4m3WithoutItsSign) {
  const Format u(FormatId::UE4M3), e4(FormatId::E4M3);
  std::vector<double> pos;
  for (double v : e4.enumerate())
    if (v >= 0 && !std::signbit(v)) pos.push_back(v);
  EXPECT_EQ(u.enumerate(), pos);
  EXPECT_EQ(u.count_finite(), 127u);
  EXPECT_EQ(u.max_finite(), 448.0);
  EXPECT_EQ(u.round(-1.0), 0.0);
  EXPECT_FALSE(std::signbit(u.round(-0.0)));
  EXPECT_EQ(u.round(1000.0), 448.0);
  EXPECT_EQ(u.encode(kNaN), 0x7fu);
  for (double v : pos) EXPECT_EQ(u.encode(v), e4.encode(v));
}

}  // namespace

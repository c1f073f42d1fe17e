// The extended-precision exp, erf and erfc that the double references use in WebAssembly
// (core/src/ext_math.hpp, where musl's long double functions are the double ones), run here in the same
// binary128 arithmetic (__float128) against GCC's libquadmath over the ranges the references reach (erfc's
// argument up to 40/√2, exp's down to −800 and beyond): relative error below 2^-80 for erfc and erf (their
// aim: 27 bits beyond double, where the references need ~11), below 2^-100 for exp. Without libquadmath
// (another compiler) the test says so and is skipped.
#include "ext_math.hpp"

#include <gtest/gtest.h>

#include <cmath>

#if defined(GELU_HAVE_QUADMATH)
#include <quadmath.h>

namespace {

double rel_err(__float128 got, __float128 want) {
  if (want == 0) return got == 0 ? 0.0 : 1.0;
  return static_cast<double>(fabsq((got - want) / want));
}

/// The largest relative error of got(v) against want(v) over v = i/div + offset, i = from, from + step, … to,
/// and the v where it is.
struct Worst {
  double err = 0, at = 0;
};
template <class Got, class Want>
Worst worst_over(int from, int to, int step, int div, double offset, Got got, Want want) {
  Worst w;
  for (int i = from; i <= to; i += step) {
    const __float128 v = static_cast<__float128>(i) / div + static_cast<__float128>(offset);
    const double e = rel_err(got(v), want(v));
    if (e > w.err) w = {e, static_cast<double>(v)};
  }
  return w;
}
// The three ranges the references reach: erfc's argument up to 30 (and below 0), erf's below 12, exp's from
// −900 up to 20.
template <class F>
Worst erfc_worst(F f) {
  return worst_over(-4000, 30000, 3, 1000, 0.000123456789, f, [](__float128 u) { return erfcq(u); });
}
template <class F>
Worst erf_worst(F f) {
  return worst_over(1, 12000, 1, 1000, -0.0003, f, [](__float128 u) { return erfq(u); });
}
template <class F>
Worst exp_worst(F f) {
  return worst_over(-90000, 2000, 3, 100, 0.00123, f, [](__float128 y) { return expq(y); });
}

TEST(ExtMath, ErfcInBinary128) {
  const Worst w = erfc_worst([](__float128 u) { return gelu::ext::erfc_t(u); });
  EXPECT_LT(w.err, 0x1p-80) << "worst at u = " << w.at;
}

TEST(ExtMath, ErfInBinary128) {
  const Worst w = erf_worst([](__float128 u) { return gelu::ext::erf_t(u); });
  EXPECT_LT(w.err, 0x1p-80) << "worst at u = " << w.at;
  EXPECT_EQ(static_cast<double>(gelu::ext::erf_t(static_cast<__float128>(-0.5))),
            -static_cast<double>(gelu::ext::erf_t(static_cast<__float128>(0.5))));
}

TEST(ExtMath, ExpInBinary128) {
  const Worst w = exp_worst([](__float128 y) { return gelu::ext::exp_t(y); });
  EXPECT_LT(w.err, 0x1p-100) << "worst at y = " << w.at;
  EXPECT_EQ(static_cast<double>(gelu::ext::exp_t(static_cast<__float128>(0))), 1.0);
  // Tiny arguments (the series of exp(r) itself, below |r| = 2^-9, with as many terms as they need), also in
  // double-double (within its 2^-90, DoubleDoubleMatchesBinary128Bounds).
  for (int e = 9; e <= 1000; ++e)
    for (const double m : {1.0, -1.0, 1.37, -1.9999}) {
      const __float128 y = static_cast<__float128>(std::ldexp(m, -e));
      EXPECT_LT(rel_err(gelu::ext::exp_t(y), expq(y)), 0x1p-100) << "y = " << static_cast<double>(y);
      EXPECT_LT(rel_err(gelu::ext::exp_dd(y), expq(y)), 0x1p-90) << "y = " << static_cast<double>(y);
    }
}

// The same series in double-double, as WebAssembly runs them (exp_dd, erfc_dd, erf_dd: the wide type's
// value from a double-double mantissa and a power of two), against libquadmath over the same ranges: erf and
// erfc within the same 2^-80 as in binary128's own arithmetic, exp within 2^-90 (27 and 37 bits beyond
// double, where the references need ~11).
TEST(ExtMath, DoubleDoubleMatchesBinary128Bounds) {
  const Worst c = erfc_worst([](__float128 u) { return gelu::ext::erfc_dd(u); });
  EXPECT_LT(c.err, 0x1p-80) << "erfc: worst at u = " << c.at;
  const Worst f = erf_worst([](__float128 u) { return gelu::ext::erf_dd(u); });
  EXPECT_LT(f.err, 0x1p-80) << "erf: worst at u = " << f.at;
  // exp's bound is 2^-90 here, not 2^-100: a double-double holds y to 106 bits, not 113 (|y| = 823 is off by
  // up to 2^-97 before the series starts), and the 8 squarings double the series' 2^-104 eight times.
  const Worst e = exp_worst([](__float128 y) { return gelu::ext::exp_dd(y); });
  EXPECT_LT(e.err, 0x1p-90) << "exp: worst at y = " << e.at;
  // Beyond double's range the result keeps its digits (erfc(100) ≈ 6.4e-4346; exp(−9000)).
  EXPECT_LT(rel_err(gelu::ext::erfc_dd(static_cast<__float128>(100)), erfcq(100)), 0x1p-80);
  EXPECT_LT(rel_err(gelu::ext::exp_dd(static_cast<__float128>(-9000)), expq(-9000)), 0x1p-90);
  EXPECT_EQ(gelu::ext::erfc_dd(static_cast<__float128>(200)), 0);
  EXPECT_TRUE(isinfq(gelu::ext::exp_dd(static_cast<__float128>(12000))));
  EXPECT_TRUE(isnanq(gelu::ext::erfc_dd(nanq(""))));
  EXPECT_EQ(static_cast<double>(gelu::ext::erfc_dd(static_cast<__float128>(-200))), 2.0);
}

// Double-double arithmetic itself: a third times three, a sum whose low part a double would lose, a quotient
// checked by its product, each within 2^-104 of the binary128 value.
TEST(ExtMath, DoubleDoubleArithmetic) {
  using gelu::ext::DoubleDouble;
  const DoubleDouble third = DoubleDouble(1) / DoubleDouble(3);
  EXPECT_LT(rel_err(third.to<__float128>(), static_cast<__float128>(1) / 3), 0x1p-104);
  EXPECT_LT(rel_err((third * DoubleDouble(3)).to<__float128>(), 1), 0x1p-104);
  const DoubleDouble s = DoubleDouble(1) + DoubleDouble(0x1p-80);
  EXPECT_EQ(s.hi(), 1.0);
  EXPECT_EQ(s.lo(), 0x1p-80);
  EXPECT_TRUE(DoubleDouble(1) < s);
  const __float128 a = static_cast<__float128>(2) / 7, b = static_cast<__float128>(-13) / 11;
  const DoubleDouble q = DoubleDouble::from(a) / DoubleDouble::from(b);
  EXPECT_LT(rel_err(q.to<__float128>(), a / b), 0x1p-103);
  EXPECT_LT(rel_err((DoubleDouble::from(a) * DoubleDouble::from(b)).to<__float128>(), a * b), 0x1p-103);
  EXPECT_TRUE(std::isinf((DoubleDouble(1) / DoubleDouble(0)).hi()));
}

// The same code in x87 long double agrees with glibc's erfcl to that format's 64 bits, less the rounding of
// the series' terms and the cancellation of 1 − erf below u = 3 (up to 16 bits; measured 2^-41 at u = 2.87):
// the templates do not depend on binary128.
TEST(ExtMath, LongDoubleAgreesWithGlibc) {
  for (int i = 0; i <= 2800; ++i) {
    const long double u = static_cast<long double>(i) / 100;
    EXPECT_LT(std::fabs(static_cast<double>((gelu::ext::erfc_t(u) - erfcl(u)) / erfcl(u))), 0x1p-38) << i;
  }
}

}  // namespace
#else
TEST(ExtMath, ErfcInBinary128) {
  GTEST_SKIP() << "libquadmath is not available to this compiler";
}
#endif

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

TEST(ExtMath, ErfcInBinary128) {
  double worst = 0, at = 0;
  for (int i = -4000; i <= 30000; i += 3) {
    const __float128 u = static_cast<__float128>(i) / 1000 + static_cast<__float128>(0.000123456789);
    const double e = rel_err(gelu::ext::erfc_t(u), erfcq(u));
    if (e > worst) worst = e, at = static_cast<double>(u);
  }
  EXPECT_LT(worst, 0x1p-80) << "worst at u = " << at;
}

TEST(ExtMath, ErfInBinary128) {
  double worst = 0, at = 0;
  for (int i = 1; i <= 12000; ++i) {
    const __float128 u = static_cast<__float128>(i) / 1000 - static_cast<__float128>(0.0003);
    const double e = rel_err(gelu::ext::erf_t(u), erfq(u));
    if (e > worst) worst = e, at = static_cast<double>(u);
  }
  EXPECT_LT(worst, 0x1p-80) << "worst at u = " << at;
  EXPECT_EQ(static_cast<double>(gelu::ext::erf_t(static_cast<__float128>(-0.5))),
            -static_cast<double>(gelu::ext::erf_t(static_cast<__float128>(0.5))));
}

TEST(ExtMath, ExpInBinary128) {
  double worst = 0, at = 0;
  for (int i = -90000; i <= 2000; i += 3) {
    const __float128 y = static_cast<__float128>(i) / 100 + static_cast<__float128>(0.00123);
    const double e = rel_err(gelu::ext::exp_t(y), expq(y));
    if (e > worst) worst = e, at = static_cast<double>(y);
  }
  EXPECT_LT(worst, 0x1p-100) << "worst at y = " << at;
  EXPECT_EQ(static_cast<double>(gelu::ext::exp_t(static_cast<__float128>(0))), 1.0);
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

// With Sollya (built only when cmake/GeluOptional.cmake found it): the certified enclosure of the maximum
// error contains the sampled maximum and is close to it, for every polynomial form; the forms Sollya cannot
// bound say why.
#include <gtest/gtest.h>

#include <string>

#include "gelu/fit.hpp"
#include "gelu/fit_sollya.hpp"
#include "support/fit_spec.hpp"

namespace {

using namespace gelu::fit;
using gelu::FormatId;

TEST(FitSollya, CertifiedBoundContainsAndIsCloseToTheSampledMaximum) {
  std::vector<Spec> specs;
  const auto add = [&specs](Target t, Form f, int d, double a, double b, Weight w, FormatId fmt) {
    specs.push_back(gelu::test::fit_spec(t, f, d, a, b, w, fmt));
    return &specs.back();
  };
  add(Target::Gelu, Form::HalfXPolyAbs, 6, -4, 4, Weight::Abs, FormatId::F32);
  add(Target::Gelu, Form::HalfXPolyAbs, 12, -4, 4, Weight::Abs, FormatId::F32);
  add(Target::Gelu, Form::Poly, 8, -5, 5, Weight::Abs, FormatId::F64);
  add(Target::Gelu, Form::Even, 4, -3, 3, Weight::Abs, FormatId::BF16);
  add(Target::Phi, Form::Poly, 6, -4, 0, Weight::Rel, FormatId::F32);
  add(Target::Erf, Form::Poly, 9, -3, 3, Weight::Abs, FormatId::F32);
  add(Target::GeluPrime, Form::Poly, 8, -4, 4, Weight::Abs, FormatId::F16);
  Spec* pw = add(Target::Gelu, Form::Piecewise, 3, -4, 4, Weight::Abs, FormatId::F32);
  pw->pieces = 4;
  for (const Spec& s : specs) {
    Candidate c = fit(s);
    SCOPED_TRACE(c.name());
    std::string why;
    ASSERT_TRUE(certify(c, &why)) << why;
    EXPECT_TRUE(c.certified);
    EXPECT_LE(c.certified_lo, c.certified_hi);
    // The enclosure holds the true maximum, which is at least the sampled one.
    EXPECT_GE(c.certified_hi, c.max_error * (1 - 1e-12));
    // Dense sampling plus local maximization finds it: within 1e-6 relative of the certified upper bound.
    EXPECT_LE(c.certified_hi, c.max_error * (1 + 1e-6))
        << "sampled " << c.max_error << ", certified [" << c.certified_lo << ", " << c.certified_hi << "]";
    std::printf("%-48s sampled %.10g  certified [%.10g, %.10g]\n", c.name().c_str(), c.max_error,
                c.certified_lo, c.certified_hi);
  }
}

TEST(FitSollya, SaysWhyWhenItCannot) {
  Spec s;
  s.form = Form::Rational;
  s.degree = 3;
  s.denominator_degree = 3;
  Candidate c = fit(s);
  std::string why;
  EXPECT_FALSE(certify(c, &why));
  EXPECT_NE(why.find("not a polynomial"), std::string::npos);
  EXPECT_FALSE(c.certified);
  s = Spec{};
  s.form = Form::Poly;
  s.a = 0.5;
  s.b = 4;
  s.weight = Weight::Ulp;
  s.format = FormatId::F32;
  c = fit(s);
  EXPECT_FALSE(certify(c, &why));
  EXPECT_NE(why.find("ulp"), std::string::npos);
}

}  // namespace

// Answers that do not depend on the search range (reliability class 6): for every registry function, the
// critical points, inflection points and global minimum that analysis::properties finds in [-20, 20] are
// found, the same doubles, in every range that contains them, from 1e-3 to 2e12 wide, symmetric or not;
// and a range without a feature reports none.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/numio.hpp"

namespace {

namespace A = gelu::analysis;

struct Range {
  double lo, hi;
};

std::string name(const A::FunctionSpec& s, Range r) {
  return std::string(s.fn->id) + " on [" + gelu::format_f64(r.lo) + ", " + gelu::format_f64(r.hi) + "]";
}

std::vector<double> inside(const std::vector<double>& xs, Range r) {
  std::vector<double> out;
  for (double x : xs)
    if (x >= r.lo && x <= r.hi) out.push_back(x);
  return out;
}

std::vector<double> critical_x(const A::Properties& p) {
  std::vector<double> out;
  for (const A::CriticalPoint& c : p.critical_points) out.push_back(c.x);
  return out;
}

/// Every feature of `reference` inside `r`, and nothing else, is found on `r`.
void expect_same_features(const A::FunctionSpec& s, const A::Properties& reference, Range r) {
  const A::Properties p = A::properties(s, r.lo, r.hi);
  EXPECT_EQ(critical_x(p), inside(critical_x(reference), r)) << name(s, r);
  EXPECT_EQ(p.inflection_points, inside(reference.inflection_points, r)) << name(s, r);
  if (reference.global_minimum && reference.global_minimum->x >= r.lo &&
      reference.global_minimum->x <= r.hi) {
    ASSERT_TRUE(p.global_minimum.has_value()) << name(s, r);
    EXPECT_EQ(p.global_minimum->x, reference.global_minimum->x) << name(s, r);
    EXPECT_EQ(p.global_minimum->value, reference.global_minimum->value) << name(s, r);
  }
}

std::vector<A::FunctionSpec> every_function() {
  std::vector<A::FunctionSpec> out;
  for (const gelu::Activation& a : gelu::registry()) out.push_back(A::spec(a));
  // A parameter away from its default moves the features (the tanh form's c, SiLU's beta).
  A::FunctionSpec tanh = A::spec(*gelu::find_activation("gelu_tanh"));
  tanh.params[0] = 0.1;
  out.push_back(tanh);
  A::FunctionSpec silu = A::spec(*gelu::find_activation("silu"));
  silu.params[0] = 5.0;
  out.push_back(silu);
  return out;
}

TEST(PropertiesRange, TheIssuesRangesFindGelusFeatures) {
  const A::FunctionSpec g = A::spec(*gelu::find_activation("gelu"));
  for (const Range r : {Range{-1e6, 1e6}, Range{-3, 1e6}, Range{-1e5, 1e5}, Range{-1e12, 1e12}}) {
    const A::Properties p = A::properties(g, r.lo, r.hi);
    ASSERT_TRUE(p.global_minimum.has_value()) << name(g, r);
    EXPECT_NEAR(p.global_minimum->x, -0.7517915241, 1e-9) << name(g, r);
    ASSERT_EQ(p.critical_points.size(), 1u) << name(g, r);
    ASSERT_EQ(p.inflection_points.size(), 2u) << name(g, r);
    EXPECT_NEAR(p.inflection_points[0], -std::sqrt(2.0), 1e-15) << name(g, r);
    EXPECT_NEAR(p.inflection_points[1], std::sqrt(2.0), 1e-15) << name(g, r);
  }
}

TEST(PropertiesRange, WideAndAsymmetricRangesFindTheSameFeatures) {
  const std::vector<Range> ranges = {{-20, 20},    {-1e3, 1e3},   {-1e6, 1e6}, {-1e9, 1e9},   {-1e12, 1e12},
                                     {-3, 1e6},    {-1e6, 3},     {-1e12, 5},  {-0.5, 1e12},  {-25, 1e11},
                                     {-7.5, 2.25}, {-1e-300, 30}, {-30, 1e-9}, {-1e8, 1e-12}, {-2e11, 1e4}};
  for (const A::FunctionSpec& s : every_function()) {
    const A::Properties reference = A::properties(s, -20, 20);
    for (const Range r : ranges) expect_same_features(s, reference, r);
    // Nothing outside [-20, 20]: the widest range finds exactly the reference.
    const A::Properties widest = A::properties(s, -1e12, 1e12);
    EXPECT_EQ(critical_x(widest), critical_x(reference)) << s.fn->id;
    EXPECT_EQ(widest.inflection_points, reference.inflection_points) << s.fn->id;
  }
}

TEST(PropertiesRange, NarrowRangesAroundEachFeatureFindIt) {
  for (const A::FunctionSpec& s : every_function()) {
    const A::Properties reference = A::properties(s, -20, 20);
    std::vector<double> features = critical_x(reference);
    features.insert(features.end(), reference.inflection_points.begin(), reference.inflection_points.end());
    for (const double x : features)
      for (const double width : {1e-3, 1e-1, 3.0}) {
        expect_same_features(s, reference, {x - 0.5 * width, x + 0.5 * width});
        expect_same_features(s, reference, {x - 0.1 * width, x + 0.9 * width});  // off centre
      }
  }
}

TEST(PropertiesRange, RangesWithoutFeaturesReportNone) {
  for (const A::FunctionSpec& s : every_function()) {
    for (const Range r : {Range{25, 1e12}, Range{-1e12, -25}, Range{1e11, 1e12}, Range{30, 30.001}}) {
      const A::Properties p = A::properties(s, r.lo, r.hi);
      EXPECT_TRUE(p.critical_points.empty()) << name(s, r);
      EXPECT_TRUE(p.inflection_points.empty()) << name(s, r);
    }
  }
}

}  // namespace

// The registry itself: ids unique, parameters sane, every evaluator present and consistent.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "gelu/activation.hpp"

namespace {

TEST(Registry, IdsAreUniqueAndFindable) {
  std::set<std::string> ids;
  for (const gelu::Activation& a : gelu::registry()) {
    EXPECT_TRUE(ids.insert(a.id).second) << a.id;
    EXPECT_EQ(gelu::find_activation(a.id), &a);
  }
  for (const char* id :
       {"gelu", "gelu_tanh", "gelu_sigmoid", "relu", "leaky_relu", "elu", "silu", "softplus", "mish"})
    EXPECT_NE(gelu::find_activation(id), nullptr) << id;
  EXPECT_EQ(gelu::find_activation("nope"), nullptr);
}

TEST(Registry, ParametersHaveDefaultsInsideTheirRange) {
  for (const gelu::Activation& a : gelu::registry()) {
    for (const gelu::ParamSpec& p : a.params) {
      EXPECT_LE(p.min, p.default_value) << a.id << "." << p.name;
      EXPECT_LE(p.default_value, p.max) << a.id << "." << p.name;
      EXPECT_GE(a.param_index(p.name), 0);
    }
    EXPECT_EQ(a.param_index("no_such_param"), -1);
  }
  const gelu::Activation* q = gelu::find_activation("gelu_sigmoid");
  EXPECT_EQ(q->defaults()[0], 1.702);
  EXPECT_EQ(gelu::find_activation("gelu_tanh")->defaults()[0], 0.044715);
}

TEST(Registry, BatchedPathsAgreeWithScalarPaths) {
  std::vector<float> xf;
  for (int i = -2000; i <= 2000; ++i) xf.push_back(static_cast<float>(i) * 0.01f);
  std::vector<double> xd(xf.begin(), xf.end());
  for (const gelu::Activation& a : gelu::registry()) {
    for (int order = 0; order <= 2; ++order) {
      std::vector<float> yf(xf.size());
      std::vector<double> yd(xd.size());
      a.eval(std::span<const float>(xf), std::span<float>(yf), order);
      a.eval(std::span<const double>(xd), std::span<double>(yd), order);
      for (std::size_t i = 0; i < xf.size(); ++i) {
        ASSERT_EQ(yd[i], a.eval(xd[i], order)) << a.id << " order " << order << " x=" << xd[i];
        // Batched float may be a separate vectorized kernel: within 2 ULP of the scalar float path.
        const float s = a.eval(xf[i], order);
        ASSERT_LE(std::fabs(yf[i] - s),
                  2.0f * std::nextafter(std::fabs(s), INFINITY) - 2.0f * std::fabs(s) + 1e-45f)
            << a.id << " order " << order << " x=" << xf[i];
      }
    }
  }
}

TEST(Registry, RejectsBadOrder) {
  const gelu::Activation* g = gelu::find_activation("gelu");
  EXPECT_THROW((void)g->eval(1.0, 3), std::out_of_range);
  EXPECT_THROW((void)g->eval(1.0, -1), std::out_of_range);
}

}  // namespace

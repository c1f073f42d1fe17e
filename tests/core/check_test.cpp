// gelu::check (core/include/gelu/check.hpp): add_many (reference values on the thread pool) gives what add()
// gives one pair at a time; special pairs; budgets per range; no pair is an input error.
#include "gelu/check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gelu/activation.hpp"

namespace {

using gelu::Format;
using gelu::FormatId;
namespace C = gelu::check;

C::Setup setup(FormatId f) {
  C::Setup s;
  s.reference = gelu::zoo::from_registry(*gelu::find_activation("gelu"));
  s.fn = "gelu";
  s.format = Format(f);
  C::Scope a;
  a.options = true;
  a.name = "--max-ulp 3";
  a.limits.max_ulp = 3;
  C::Scope r;
  r.all = false;
  r.lo = -2;
  r.hi = 2;
  r.name = "range";
  r.limits.max_abs = 1e-7;
  s.budget.scopes = {a, r};
  return s;
}

TEST(Check, ManyAtOnceIsOneAtATime) {
  for (FormatId f : {FormatId::F32, FormatId::F64}) {
    const Format fmt(f);
    const gelu::Activation& g = *gelu::find_activation("gelu");
    std::vector<double> x, y;
    std::uint64_t s = 12345;
    for (int i = 0; i < 20000; ++i) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      const double v = fmt.round(-8.0 + 16.0 * static_cast<double>(s >> 11) * 0x1p-53);
      x.push_back(v);
      double w = fmt.round(g.eval(v));
      if (i % 97 == 0) w = fmt.from_ordinal(fmt.ordinal(w) + static_cast<std::int64_t>(i % 5));
      y.push_back(w);
    }
    x.push_back(-INFINITY);
    y.push_back(NAN);
    C::Checker one(setup(f)), many(setup(f));
    for (std::size_t i = 0; i < x.size(); ++i) one.add(i, x[i], y[i]);
    many.add_many(x.data(), y.data(), x.size(), 0);
    const C::Result a = one.result("one"), b = many.result("many");
    EXPECT_EQ(a.n, b.n);
    EXPECT_EQ(a.mismatch, b.mismatch);
    EXPECT_EQ(a.finite.max_ulp, b.finite.max_ulp);
    EXPECT_EQ(a.finite.x_at_max, b.finite.x_at_max);
    EXPECT_EQ(a.finite.mean_ulp, b.finite.mean_ulp);
    EXPECT_EQ(a.max_abs, b.max_abs);
    EXPECT_EQ(a.specials_mismatch, 1u);
    EXPECT_EQ(b.specials_mismatch, 1u);
    ASSERT_EQ(a.finite.worst.size(), b.finite.worst.size());
    for (std::size_t i = 0; i < a.finite.worst.size(); ++i)
      EXPECT_EQ(a.finite.worst[i].row, b.finite.worst[i].row);
    ASSERT_EQ(a.broken.size(), b.broken.size());
    for (std::size_t i = 0; i < a.broken.size(); ++i) EXPECT_EQ(a.broken[i].message, b.broken[i].message);
    EXPECT_EQ(a.finite.max_ulp, 4u);
    EXPECT_FALSE(a.passed());  // 4 ULP > 3, and the NaN at -inf
  }
}

TEST(Check, SpecialsHaveTheirLimits) {
  C::Checker c(setup(FormatId::BF16));
  c.add(0, -INFINITY, -0.0);  // GELU(-inf) = -0: matches
  c.add(1, INFINITY, INFINITY);
  c.add(2, NAN, NAN);
  const C::Result r = c.result("s");
  EXPECT_EQ(r.specials, 3u);
  EXPECT_EQ(r.specials_mismatch, 0u);
  EXPECT_EQ(r.mismatch, 0u);
}

TEST(Check, NoPairIsAnInputError) {
  C::Checker c(setup(FormatId::F32));
  EXPECT_THROW((void)c.result("--pairs 'p'"), C::InputError);
  C::Setup s = setup(FormatId::F32);
  s.have_range = true;
  s.lo = 10;
  s.hi = 20;
  C::Checker d(s);
  d.add(0, 1.0, 0.84);
  try {
    (void)d.result("src");
    FAIL();
  } catch (const C::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no pair has x in --range [10, 20] (1 pair outside it)"),
              std::string::npos);
  }
}

TEST(Check, BudgetFileRangesAndErrors) {
  const C::Budget b = C::parse_budget(
      R"({"specials": "ignore", "max_ulp": 2, "ranges": [{"range": ["-inf", -4], "max_abs": 1e-3}]})", "b");
  ASSERT_EQ(b.scopes.size(), 2u);
  EXPECT_EQ(b.specials, C::Specials::Ignore);
  EXPECT_TRUE(std::isinf(b.scopes[1].lo));
  EXPECT_EQ(b.scopes[1].name, "b range [-inf, -4]");
  EXPECT_THROW(C::parse_budget(R"({"max_ulp": -1})", "b"), C::InputError);
  EXPECT_THROW(C::parse_budget(R"({"ranges": [{"range": [1, 2]}]})", "b"), C::InputError);
  C::Limits l;
  C::parse_mismatch("2.5%", "--max-mismatch", l);
  EXPECT_EQ(*l.max_mismatch_percent, 2.5);
  EXPECT_THROW(C::parse_mismatch("1.5", "--max-mismatch", l), C::InputError);
}

}  // namespace

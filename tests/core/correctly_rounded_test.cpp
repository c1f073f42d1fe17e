// correctly_rounded(fn, fmt, x): the value-computing overload (with its fast paths) gives the same result as
// rounding the registry's accurate double with the tie rule, for every format and a wide spread of inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/format.hpp"

namespace {

using gelu::Format;
using gelu::FormatId;

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

TEST(CorrectlyRounded, GelusFastNegativeSideAgreesWithTheAccuratePathInEveryFormat) {
  const gelu::Activation& g = *gelu::find_activation("gelu");
  // Every 4,099th float32 from −0 down to −37 (about 270,000, every binade), then a dense run around the
  // places where the double-only tail is least accurate (x = −7.6) and where results go subnormal in f32.
  std::vector<double> xs;
  for (std::uint64_t b = 0x80000001u; b <= 0xC2140000u; b += 4099)
    xs.push_back(from_bits(static_cast<std::uint32_t>(b)));
  for (double a : {-7.6, -13.0, -14.0, -0.5}) {
    float f = static_cast<float>(a);
    for (int k = 0; k < 20000; ++k, f = std::nextafter(f, 0.0f)) xs.push_back(f);
  }
  const FormatId ids[] = {FormatId::F32, FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2};
  for (FormatId id : ids) {
    const Format fmt(id);
    std::size_t differ = 0;
    for (double x : xs) {
      const double fast = gelu::correctly_rounded(g, fmt, x);
      const double slow = gelu::correctly_rounded(g, fmt, x, g.eval(x), 0);
      if (!(fast == slow && std::signbit(fast) == std::signbit(slow))) {
        if (++differ <= 5) ADD_FAILURE() << fmt.name() << " x = " << x << ": " << fast << " vs " << slow;
      }
    }
    EXPECT_EQ(differ, 0u) << fmt.name() << " over " << xs.size() << " inputs";
  }
  // The float scalar evaluation rounds the same way.
  std::size_t differ = 0;
  for (double x : xs) {
    const float y = g.eval(static_cast<float>(x));
    const double slow = gelu::correctly_rounded(g, Format(FormatId::F32), x, g.eval(x), 0);
    if (!(y == slow && std::signbit(y) == std::signbit(slow)) && ++differ <= 5)
      ADD_FAILURE() << "eval(float) x = " << x << ": " << y << " vs " << slow;
  }
  EXPECT_EQ(differ, 0u);
}

TEST(CorrectlyRounded, TheTieRuleDecidesAtAMidpoint) {
  // x = −3·2^-149: the double is x/2 = −1.5·2^-149, exactly halfway between the float32 values −2^-149 and
  // −2^-148; the fast path's interval straddles it, so the tie rule decides: GELU(x) − x/2 > 0, so the exact
  // value lies above the midpoint and rounds to −2^-149 (round-to-even of the double would give −2^-148).
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const double x = -3 * std::ldexp(1.0, -149);
  EXPECT_EQ(gelu::correctly_rounded(g, Format(FormatId::F32), x), -std::ldexp(1.0, -149));
}

}  // namespace

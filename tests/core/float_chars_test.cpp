// The <charconv> fallback of the web build (core/src/float_chars.hpp: emscripten's libc++ has no
// floating-point from_chars/to_chars) against libstdc++'s own, on the desktop: the same text for the same
// value, the same value and the same stopping point for the same text.
#include "float_chars.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

template <class T>
std::string std_text(T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
template <class T>
std::string c_text(T v) {
  char buf[64];
  const auto r = gelu::detail::c_to_chars(buf, buf + sizeof buf, v);
  EXPECT_EQ(r.ec, std::errc());
  return std::string(buf, r.ptr);
}

template <class T, class U>
T from_bits(U b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

TEST(FloatChars, ShortestTextMatchesCharconv) {
  std::vector<double> ds = {0.0,
                            -0.0,
                            1.0,
                            -1.5,
                            0.1,
                            1e22,
                            1e21,
                            123456789012345680.0,
                            1e-7,
                            5e-324,
                            std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::min(),
                            100.0,
                            0.001,
                            1234.5,
                            9.999999999999999e22};
  std::uint64_t s = 12345;
  for (int i = 0; i < 20000; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double d = from_bits<double>(s);
    if (std::isfinite(d)) ds.push_back(d);
    ds.push_back(static_cast<double>(static_cast<int>(s >> 40) % 100000) / 1000.0);
  }
  for (double d : ds) ASSERT_EQ(c_text(d), std_text(d)) << std::hexfloat << d;
  for (int i = 0; i < 20000; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const float f = from_bits<float>(static_cast<std::uint32_t>(s >> 32));
    if (!std::isfinite(f)) continue;
    ASSERT_EQ(c_text(f), std_text(f)) << std::hexfloat << f;
  }
}

TEST(FloatChars, ParsingMatchesCharconv) {
  const std::vector<std::string> texts = {
      "1",   "-2.5", "1e5", "1e400",        "1e-400", "4.9e-324", "2e-320", ".5", "5.",   "0x1p3",  "1.5abc",
      "inf", "nan",  " 1",  "+1",           "-",      ".",        "e5",     "1e", "1p3",  "1.8p-1", "-1.8p+2",
      "ap0", "x",    "-0",  "3.4028236e38", "INF",    "infinity", "nan(1)", "0x", "-0x1", "1e-46",  "1e-45"};
  for (const auto& t : texts) {
    for (auto fmt : {std::chars_format::general, std::chars_format::hex}) {
      double a = 7, b = 7;
      const auto ra = std::from_chars(t.data(), t.data() + t.size(), a, fmt);
      const auto rb = gelu::detail::c_from_chars(t.data(), t.data() + t.size(), b, fmt);
      EXPECT_EQ(ra.ec, rb.ec) << t;
      if (ra.ec == std::errc()) {
        EXPECT_EQ(ra.ptr - t.data(), rb.ptr - t.data()) << t;
        if (std::isnan(a)) {
          EXPECT_TRUE(std::isnan(b)) << t;  // NaN payloads are the C library's
        } else {
          EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << t;
        }
      }
      float fa = 7, fb = 7;
      const auto rfa = std::from_chars(t.data(), t.data() + t.size(), fa, fmt);
      const auto rfb = gelu::detail::c_from_chars(t.data(), t.data() + t.size(), fb, fmt);
      EXPECT_EQ(rfa.ec, rfb.ec) << t;
      if (rfa.ec == std::errc()) {
        EXPECT_EQ(rfa.ptr - t.data(), rfb.ptr - t.data()) << t;
        EXPECT_TRUE(std::isnan(fa) ? std::isnan(fb) : fa == fb && std::signbit(fa) == std::signbit(fb)) << t;
      }
    }
  }
}

}  // namespace

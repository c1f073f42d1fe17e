// Number text I/O: parsing (decimal, hex floats, nan/inf, overflow and underflow) and shortest round-trip
// formatting, for float and double and for every format of the format table (parse_in_format, format_in).
#include "gelu/numio.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "gelu/format.hpp"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(NumIo, ParsesDecimalAndHex) {
  EXPECT_EQ(gelu::parse_f64("1.5"), 1.5);
  EXPECT_EQ(gelu::parse_f64("-2e-3"), -2e-3);
  EXPECT_EQ(gelu::parse_f64("+7"), 7.0);
  EXPECT_EQ(gelu::parse_f64("0x1.8p-3"), 0x1.8p-3);
  EXPECT_EQ(gelu::parse_f64("-0X1.8P+1"), -3.0);
  EXPECT_EQ(gelu::parse_f32("0x1.fffffep+127"), std::numeric_limits<float>::max());
  // Decimal to float is rounded once: 16777217 is halfway between floats and ties to even.
  EXPECT_EQ(gelu::parse_f32("16777217"), 16777216.0f);
  EXPECT_EQ(gelu::parse_f32("0.1"), 0.1f);
}

TEST(NumIo, ParsesSpecialValues) {
  for (const char* s : {"nan", "NaN", "-nan", "+NAN"})
    EXPECT_TRUE(std::isnan(gelu::parse_f64(s).value())) << s;
  EXPECT_EQ(gelu::parse_f64("inf"), kInf);
  EXPECT_EQ(gelu::parse_f64("-inf"), -kInf);
  EXPECT_EQ(gelu::parse_f64("Infinity"), kInf);
  EXPECT_EQ(gelu::parse_f32("-INF"), -std::numeric_limits<float>::infinity());
  const double nz = gelu::parse_f64("-0").value();
  EXPECT_EQ(nz, 0.0);
  EXPECT_TRUE(std::signbit(nz));
}

TEST(NumIo, OverflowIsInfinityAndUnderflowIsZero) {
  EXPECT_EQ(gelu::parse_f64("1e400"), kInf);
  EXPECT_EQ(gelu::parse_f64("-1e400"), -kInf);
  EXPECT_EQ(gelu::parse_f32("1e39"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(gelu::parse_f64("0x1p+1024"), kInf);
  const double tiny = gelu::parse_f64("-1e-400").value();
  EXPECT_EQ(tiny, 0.0);
  EXPECT_TRUE(std::signbit(tiny));
  EXPECT_EQ(gelu::parse_f32("1e-50"), 0.0f);
  EXPECT_EQ(gelu::parse_f64("0x1p-1080"), 0.0);
  // Subnormals are not underflow.
  EXPECT_EQ(gelu::parse_f64("5e-324"), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(gelu::parse_f32("1.4e-45"), std::numeric_limits<float>::denorm_min());
}

// Found by tests/fuzz/fuzz_numio: out-of-range text went to zero or infinity by the exponent's sign alone.
TEST(NumIo, OutOfRangeFollowsTheValueNotTheExponentSign) {
  constexpr float kInfF = std::numeric_limits<float>::infinity();
  const std::string zeros(400, '0');
  const double tiny = gelu::parse_f64("-0." + zeros + "1e+5").value();
  EXPECT_EQ(tiny, 0.0);
  EXPECT_TRUE(std::signbit(tiny));
  EXPECT_EQ(gelu::parse_f64("0." + zeros + "1"), 0.0);
  EXPECT_EQ(gelu::parse_f64("1" + zeros + "e-5"), kInf);
  EXPECT_EQ(gelu::parse_f32("4" + std::string(75, '7') + "4E-10"), kInfF);  // 4.8e65: the fuzzer's input
  EXPECT_EQ(gelu::parse_f32("0." + std::string(60, '0') + "1e+10"), 0.0f);
  EXPECT_EQ(gelu::parse_f64("0x0." + std::string(300, '0') + "1p+4"), 0.0);
  EXPECT_EQ(gelu::parse_f64("0x1" + std::string(300, '0') + "p-8"), kInf);
  EXPECT_EQ(gelu::parse_f64("1e-99999999999999999999999"), 0.0);
  EXPECT_EQ(gelu::parse_f64("1e+99999999999999999999999"), kInf);
}

TEST(NumIo, RejectsNonNumbers) {
  for (const char* s :
       {"", "abc", "1.5x", "--1", "+-1", "0x", "1e", "nan1", "in", "1,5", " 1", "1 ", "+", "-"})
    EXPECT_FALSE(gelu::parse_f64(s).has_value()) << "'" << s << "'";
  // Found by tests/fuzz/fuzz_numio: from_chars reads "inf" and "nan(…)" after a hex prefix or as a word, and
  // libstdc++ 12's hex form reads the exponent "p+-3" as p-3.
  for (const char* s : {"0xINF", "-0xnan", "0xinfinity", "nan(1)", "+nan()", "0x+1", "0x-1", "0x1p+-1",
                        "0x00010p+-2044", "0x1p-+1", "0x1p", "0x1p-"}) {
    EXPECT_FALSE(gelu::parse_f64(s).has_value()) << "'" << s << "'";
    EXPECT_FALSE(gelu::parse_f32(s).has_value()) << "'" << s << "'";
  }
}

TEST(NumIo, FormatsSpecialValuesAndShortestText) {
  EXPECT_EQ(gelu::format_f64(std::nan("")), "nan");
  EXPECT_EQ(gelu::format_f64(kInf), "inf");
  EXPECT_EQ(gelu::format_f64(-kInf), "-inf");
  EXPECT_EQ(gelu::format_f32(-std::numeric_limits<float>::infinity()), "-inf");
  EXPECT_EQ(gelu::format_f64(0.1), "0.1");
  EXPECT_EQ(gelu::format_f32(0.1f), "0.1");
  EXPECT_EQ(gelu::format_f64(-0.0), "-0");
  EXPECT_EQ(gelu::format_f64(static_cast<double>(0.1f)), "0.10000000149011612");
}

template <class T, class U>
void round_trip_random_bits(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s;
  for (int i = 0; i < 200000; ++i) {
    const U bits = static_cast<U>(rng());
    const T v = std::bit_cast<T>(bits);
    if (std::isnan(v)) continue;
    s.clear();
    if constexpr (sizeof(T) == 4) {
      gelu::append_f32(s, v);
      const auto back = gelu::parse_f32(s);
      ASSERT_TRUE(back.has_value()) << s;
      ASSERT_EQ(std::bit_cast<U>(*back), bits) << s;
    } else {
      gelu::append_f64(s, v);
      const auto back = gelu::parse_f64(s);
      ASSERT_TRUE(back.has_value()) << s;
      ASSERT_EQ(std::bit_cast<U>(*back), bits) << s;
    }
  }
}

TEST(NumIo, RandomBitPatternsRoundTrip) {
  round_trip_random_bits<float, std::uint32_t>(1);
  round_trip_random_bits<double, std::uint64_t>(2);
}

TEST(NumIo, HexTextRoundTrips) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    const double v = std::bit_cast<double>(rng());
    if (!std::isfinite(v)) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    const auto back = gelu::parse_f64(buf);
    ASSERT_TRUE(back.has_value()) << buf;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(*back), std::bit_cast<std::uint64_t>(v)) << buf;
  }
}

// [SECTION] Numbers in a format.

TEST(NumIoFormat, DecimalsRoundOnceDirectlyToTheFormat) {
  const gelu::Format bf16(gelu::FormatId::BF16), f16(gelu::FormatId::F16), e4m3(gelu::FormatId::E4M3);
  // 1 + 2^-8 is halfway between the bf16 values 1 and 1 + 2^-7: ties to even. A decimal a hair above it has
  // that midpoint as its nearest double; rounding through double would give 1, once gives 1 + 2^-7.
  EXPECT_EQ(gelu::parse_in_format("1.00390625", bf16), 1.0);
  EXPECT_EQ(gelu::parse_in_format("1.00390625000000001", bf16), 1.0078125);
  EXPECT_EQ(gelu::parse_in_format("1.00390624999999999", bf16), 1.0);
  EXPECT_EQ(gelu::parse_in_format("1.01171875", bf16), 1.015625);  // the other tie goes up to even
  EXPECT_EQ(gelu::parse_in_format("0x1.01p+0", bf16), 1.0);        // hex midpoint
  EXPECT_EQ(gelu::parse_in_format("0x1.0100000000001p+0", bf16), 1.0078125);
  EXPECT_EQ(gelu::parse_in_format("-1.00048828125000001", f16), -1.0009765625);
  EXPECT_EQ(gelu::parse_in_format("1e9", f16), kInf);
  EXPECT_EQ(gelu::parse_in_format("1e9", e4m3), 448.0);  // FN saturates
  EXPECT_TRUE(std::isnan(gelu::parse_in_format("nan", bf16).value()));
  EXPECT_FALSE(gelu::parse_in_format("1e", bf16).has_value());
  const gelu::Format q(gelu::FormatId::Int8, gelu::Quantization{1.0 / 32, 0});
  EXPECT_EQ(gelu::parse_in_format("0.015625", q), 0.0);  // half a code: ties to even
  EXPECT_EQ(gelu::parse_in_format("0.0156250000000000001", q), 1.0 / 32);
  EXPECT_EQ(gelu::parse_in_format("100", q), 127.0 / 32);  // clamps to the top code
  // Float and double as parse_f32 and parse_f64.
  EXPECT_EQ(gelu::parse_in_format("16777217", gelu::Format(gelu::FormatId::F32)), 16777216.0);
  EXPECT_EQ(gelu::parse_in_format("0.1", gelu::Format(gelu::FormatId::F64)), 0.1);
}

TEST(NumIoFormat, ShortestDecimalReadsBackForEveryValueOfEveryFormat) {
  for (const gelu::NumberFormat& row : gelu::number_formats()) {
    const gelu::Format f(row.id, gelu::Quantization{0.0123, -7});
    if (!f.enumerable()) continue;
    for (double v : f.enumerate()) {
      const std::string s = gelu::format_in(v, f);
      const auto back = gelu::parse_in_format(s, f);
      ASSERT_TRUE(back.has_value()) << s;
      ASSERT_EQ(*back, v) << f.name() << ": " << s;
      ASSERT_EQ(std::signbit(*back), std::signbit(v)) << f.name() << ": " << s;
    }
  }
  const gelu::Format bf16(gelu::FormatId::BF16), f16(gelu::FormatId::F16);
  EXPECT_EQ(gelu::format_in(0.10009765625, bf16), "0.1");
  EXPECT_EQ(gelu::format_in(1.0078125, bf16), "1.01");  // nearer 1.0078125 than 1.015625
  EXPECT_EQ(gelu::format_in(65504, f16), "65500");
  EXPECT_EQ(gelu::format_in(-0.0, bf16), "-0");
  EXPECT_EQ(gelu::format_in(kInf, bf16), "inf");
  EXPECT_EQ(gelu::format_in(0.1, bf16), "0.1");  // rounded to the format first
  EXPECT_EQ(gelu::format_in(0.1, gelu::Format(gelu::FormatId::F32)), "0.1");
  EXPECT_EQ(gelu::format_in(0.1, gelu::Format(gelu::FormatId::F64)), "0.1");
}

// [SECTION] Text a person cannot see (reliability class 9): quote() and printable() name it.

TEST(NumIoText, InvisibleCharactersAreNamed) {
  using gelu::printable;
  using gelu::quote;
  EXPECT_EQ(quote("\xEF\xBB\xBF"
                  "1"),
            "'\\u{FEFF}1' (U+FEFF byte order mark)");
  EXPECT_EQ(quote("1\xC2\xA0"
                  "2"),
            "'1\\u{00A0}2' (U+00A0 no-break space)");
  EXPECT_EQ(quote("gelu\xE2\x80\x8B"), "'gelu\\u{200B}' (U+200B zero-width space)");
  EXPECT_EQ(
      quote("\xE2\x80\x8C\xE2\x80\x8D\xE2\x81\xA0"),
      "'\\u{200C}\\u{200D}\\u{2060}' (U+200C zero-width non-joiner, U+200D zero-width joiner, U+2060 word "
      "joiner)");
  // Other Unicode spaces, bidirectional overrides (which reorder what the terminal shows) and C1 controls.
  EXPECT_EQ(quote("a\xE2\x80\x83"
                  "b"),
            "'a\\u{2003}b' (U+2003 em space)");
  EXPECT_EQ(quote("a\xE3\x80\x80"
                  "b"),
            "'a\\u{3000}b' (U+3000 ideographic space)");
  EXPECT_EQ(quote("\xE2\x80\xAE"
                  "abc"),
            "'\\u{202E}abc' (U+202E right-to-left override)");
  EXPECT_EQ(quote("a\xC2\x85"
                  "b"),
            "'a\\u{0085}b' (U+0085 C1 control character)");
  // Each named once, in order; visible non-ASCII text is kept as it is.
  EXPECT_EQ(quote("\xC2\xA0x\xC2\xA0"), "'\\u{00A0}x\\u{00A0}' (U+00A0 no-break space)");
  EXPECT_EQ(quote("f\xE2\x80\xB2 \xCE\xA6(x)"), "'f\xE2\x80\xB2 \xCE\xA6(x)'");
  // printable() names them after the text; a cut text names those it shows.
  EXPECT_EQ(printable("x\xEF\xBB\xBF"), "x\\u{FEFF} (U+FEFF byte order mark)");
  EXPECT_EQ(quote("\xEF\xBB\xBF" + std::string(100, 'a'), 5),
            "'\\u{FEFF}aaaa…' (103 bytes) (U+FEFF byte order mark)");
  // Broken UTF-8 and control bytes stay \xNN.
  EXPECT_EQ(quote("\xEF\xBB"), "'\\xEF\\xBB'");
  // Every line stays printable ASCII or visible UTF-8: no invisible character reaches the terminal.
  for (const char* s : {"\xEF\xBB\xBF", "\xE2\x80\x8B", "\xE2\x81\xA0", "\xC2\xA0", "\xE2\x80\xAF"})
    EXPECT_EQ(quote(s).find(s), std::string::npos) << quote(s);
}

}  // namespace

namespace {

// Round three, class 6 (docs/reliability.md): the overflow threshold (the largest finite value plus half its
// spacing) is a midpoint like any other. A decimal a hair below it, whose nearest double is the threshold
// itself, rounds once from its text to the largest finite value; the threshold and above are infinity.
// Every format of the one table with an infinity; the saturating ones stay at their largest value.
TEST(NumIoFormat, DecimalsJustBelowTheOverflowThresholdRoundToTheLargestValueInEveryFormat) {
  for (const gelu::NumberFormat& row : gelu::number_formats()) {
    // f64's threshold is no double; int8 clamps to its top code (NumIoFormat.DecimalsRoundOnce…).
    if (row.id == gelu::FormatId::F64 || row.affine) continue;
    const gelu::Format f(row.id);
    const double m = f.max_finite();
    const double t = m + f.spacing(m) / 2;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.40f", t);  // a threshold is dyadic: these are its exact digits
    std::string digits = buf;
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
    const bool fraction = digits.find('.') != std::string::npos;
    // The last digit − 1, then "999…": below the threshold by less than half a double's spacing there.
    std::string below = digits;
    for (std::size_t i = below.size(); i-- > 0;) {
      if (below[i] != '0') {
        --below[i];
        break;
      }
      below[i] = '9';
    }
    below += fraction ? "99999999999999999999999999" : ".99999999999999999999999999";
    const std::string above =
        digits + (fraction ? "00000000000000000000000001" : ".00000000000000000000000001");
    ASSERT_EQ(gelu::parse_f64(below).value(), t) << row.name << ": the test needs the double to be t";
    const double over = row.saturates ? m : kInf;
    EXPECT_EQ(gelu::parse_in_format(below, f), m) << row.name << " " << below;
    EXPECT_EQ(gelu::parse_in_format(above, f), over) << row.name;
    if (!row.unsigned_only) {  // ue4m3, e8m0 have no sign
      EXPECT_EQ(gelu::parse_in_format("-" + below, f), -m) << row.name;
      EXPECT_EQ(gelu::parse_in_format("-" + above, f), -over) << row.name;
    }
    if (!row.saturates) {
      EXPECT_EQ(gelu::parse_in_format(digits, f), kInf) << row.name;  // ties to even
    }
  }
}

}  // namespace

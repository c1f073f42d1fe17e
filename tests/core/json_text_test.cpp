// What the one JSON writer promises every reader (docs/reliability.md, round three, class 3): an integer
// value is written as an integer (never 1e+07, which typed readers refuse for an integer field), and every
// string is valid UTF-8 (bytes that are not part of valid UTF-8 become U+FFFD, written \ufffd).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gelu/json.hpp"

namespace {

namespace json = gelu::json;

TEST(JsonText, IntegersAreWrittenAsIntegersUpTo2To53) {
  EXPECT_EQ(json::write(json::Value(1e7)), "10000000");
  EXPECT_EQ(json::write(json::Value(1e15)), "1000000000000000");
  EXPECT_EQ(json::write(json::Value(-3e6)), "-3000000");
  EXPECT_EQ(json::write(json::Value(9007199254740992.0)), "9007199254740992");
  EXPECT_EQ(json::write(json::Value(0.0)), "0");
  EXPECT_EQ(json::write(json::Value(-0.0)), "-0");
  json::Builder b;
  b.begin_object().key("samples").value(std::size_t{10000000}).key("size").value(100000ull).end_object();
  EXPECT_EQ(b.str(), "{\"samples\":10000000,\"size\":100000}");
  // Not integers, or beyond 2^53: shortest round trip, and read back exactly.
  for (const double d : {0.1, 2.5e-7, 1e300, 1.8014398509481984e16, -65504.5, 5e-324}) {
    const std::string t = json::write(json::Value(d));
    EXPECT_EQ(json::parse(t).as_number(), d) << t;
  }
  // Every integer written reads back as the same number.
  for (double d = 1; d < 1e16; d *= 7) {
    const double i = std::floor(d);
    const std::string t = json::write(json::Value(i));
    EXPECT_EQ(t.find_first_of("e.E"), std::string::npos) << t;
    EXPECT_EQ(json::parse(t).as_number(), i) << t;
  }
}

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80                 ? 1
                    : c >= 0xC2 && c <= 0xDF ? 2
                    : c >= 0xE0 && c <= 0xEF ? 3
                    : c >= 0xF0 && c <= 0xF4 ? 4
                                             : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST(JsonText, StringsAreAlwaysValidUtf8) {
  struct Case {
    std::string in, read_back;
  };
  const std::string fffd = "\xEF\xBF\xBD";
  const Case cases[] = {
      {"caf\xE9.json", "caf" + fffd + ".json"},    // Latin-1
      {"\xC3\xA9t\xC3\xA9", "\xC3\xA9t\xC3\xA9"},  // valid: kept
      {"\xE2\x88\x92"
       "1",
       "\xE2\x88\x92"
       "1"},                                            // U+2212: kept
      {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"},         // outside the BMP: kept
      {"a\xE2\x82", "a" + fffd + fffd},                 // cut sequence
      {"\xC0\x80", fffd + fffd},                        // overlong NUL
      {"\xED\xA0\x80", fffd + fffd + fffd},             // a surrogate
      {"\xF5\x80\x80\x80", fffd + fffd + fffd + fffd},  // above U+10FFFF
      {"\xFF\xFE", fffd + fffd},
      {std::string("nul\0x", 5), std::string("nul\0x", 5)},  // escaped as \u0000, read back
      {"line\nbreak\x01", "line\nbreak\x01"},
  };
  for (const Case& c : cases) {
    const std::string t = json::write(json::Value(c.in));
    EXPECT_TRUE(valid_utf8(t)) << t;
    EXPECT_EQ(json::parse(t).as_string(), c.read_back) << t;
    // What was written reads back and writes the same text (the replacement is not written twice ways).
    EXPECT_EQ(json::write(json::parse(t)), t);
    // As a key too.
    json::Object o;
    o[c.in] = 1;
    const std::string k = json::write(json::Value(o), 2);
    EXPECT_TRUE(valid_utf8(k));
    EXPECT_EQ(json::write(json::parse(k), 2), k);
  }
}

TEST(JsonText, AReplacementCharacterIsWrittenAsItsEscapeWhereverItComesFrom) {
  // U+FFFD typed by a user (or read from a \ufffd escape) and U+FFFD standing for a bad byte are one text.
  EXPECT_EQ(json::write(json::Value(std::string("a\xEF\xBF\xBD"
                                                "b"))),
            "\"a\\ufffdb\"");
  EXPECT_EQ(json::write(json::Value(std::string("a\x8C"
                                                "b"))),
            "\"a\\ufffdb\"");
  EXPECT_EQ(json::write(json::parse("{\"f\x8c\xda\x8bW\":1}")), "{\"f\\ufffd\xda\x8bW\":1}");  // U+068B kept
}

}  // namespace

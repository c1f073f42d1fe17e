// Index of this file:
//   [SECTION] Numbers in a format
#include "gelu/numio.hpp"

#include <algorithm>
#include <cfenv>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <system_error>
#include <vector>

#include "float_chars.hpp"

namespace gelu {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// For a number from_chars found out of range: true when it is tiny (rounds to zero), false when it is huge
// (rounds to infinity). Decided by the power of the base at the leading nonzero digit plus the exponent —
// the exponent's sign alone is wrong for "0.000…01e+5" or "1000…0e-5". The estimate is off by less than one
// decimal digit (4 bits in hex), and the limits (~10^±308, 2^±1024) are far from zero on either side.
bool underflows(std::string_view body, bool hex) {
  const std::size_t e = body.find_first_of(hex ? "pP" : "eE");
  const std::string_view mantissa = body.substr(0, e);
  const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
  const std::size_t lead = mantissa.find_first_not_of("0.");
  if (lead == std::string_view::npos) return true;
  const long long position =
      lead < point ? static_cast<long long>(point - lead - 1) : -static_cast<long long>(lead - point);
  long long exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view digits = body.substr(e + 1);
    const bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
    // Saturates far past any limit (a million-digit exponent must not overflow).
    for (const char c : digits)
      if (exponent < 1'000'000'000'000) exponent = exponent * 10 + (c - '0');
    if (negative) exponent = -exponent;
  }
  return (hex ? 4 * position : position) + exponent < 0;
}

template <class T>
std::optional<T> parse(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  std::string_view body = s;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body.empty()) return std::nullopt;
  if (iequals(body, "nan")) return std::numeric_limits<T>::quiet_NaN();
  if (iequals(body, "inf") || iequals(body, "infinity"))
    return negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  std::chars_format fmt = std::chars_format::general;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    body.remove_prefix(2);
    fmt = std::chars_format::hex;
  }
  // The sign was stripped above, and the words were matched exactly: from_chars would also take "0xinf",
  // "nan(…)" and a second sign, so a number must start with a digit (a hex digit after 0x) or the point.
  const auto digit_or_point = [&](char c) {
    return c == '.' || (c >= '0' && c <= '9') ||
           (fmt == std::chars_format::hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
  };
  if (body.empty() || !digit_or_point(body.front())) return std::nullopt;
  // libstdc++ 12's hex from_chars reads "0x1p+-3" as 0x1p-3: check that the exponent is one sign at most.
  const std::size_t p = fmt == std::chars_format::hex ? body.find_first_of("pP") : std::string_view::npos;
  if (p != std::string_view::npos) {
    std::size_t d = p + 1;
    if (d < body.size() && (body[d] == '+' || body[d] == '-')) ++d;
    if (d >= body.size() || body[d] < '0' || body[d] > '9') return std::nullopt;
  }
  T v{};
  const auto [ptr, ec] = detail::float_from_chars(body.data(), body.data() + body.size(), v, fmt);
  if (ptr != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Overflow -> inf, underflow -> signed zero: what a correctly rounded strtod would give.
    v = underflows(body, fmt == std::chars_format::hex) ? T(0) : std::numeric_limits<T>::infinity();
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return negative ? -v : v;
}

template <class T>
void append(std::string& out, T v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "inf" : "-inf";
    return;
  }
  char buf[64];
  const auto [ptr, ec] = detail::float_to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ptr);
}

}  // namespace

std::optional<double> parse_f64(std::string_view token) {
  return parse<double>(token);
}
std::optional<float> parse_f32(std::string_view token) {
  return parse<float>(token);
}
void append_f64(std::string& out, double v) {
  append(out, v);
}
void append_f32(std::string& out, float v) {
  append(out, v);
}
std::string format_f64(double v) {
  std::string s;
  append(s, v);
  return s;
}
std::string format_f32(float v) {
  std::string s;
  append(s, v);
  return s;
}

// [SECTION] Numbers in a format.

namespace {

/// d lies exactly halfway between the two values of f around it (so its rounding depends on what the text
/// said beyond d's precision).
bool is_midpoint(const Format& f, double d, double r) {
  if (r == d || !std::isfinite(d)) return false;
  // Overflow: the threshold between the largest finite value and infinity (max + half its spacing, the
  // midpoint of max and the next value the format would have) is a midpoint too. A decimal just below it
  // whose nearest double is the threshold itself rounds to the largest finite value, not to inf.
  if (std::isinf(r)) {
    const double m = f.max_finite();
    return std::fabs(d) == m + f.spacing(m) / 2;
  }
  const double other = d > r ? f.next_up(r) : f.next_down(r);
  return std::isfinite(other) && std::fabs(d - r) == std::fabs(other - d);
}

/// The token read with the given rounding direction (strtod honours it in glibc).
double strtod_rounded(const std::string& text, int mode) {
  const int saved = std::fegetround();
  std::fesetround(mode);
  const double v = std::strtod(text.c_str(), nullptr);
  std::fesetround(saved);
  return v;
}

}  // namespace

std::optional<double> parse_in_format(std::string_view token, const Format& f) {
  const std::optional<double> d = parse_f64(token);
  if (!d) return std::nullopt;
  const double r = f.round(*d);
  if (f.id() == FormatId::F64 || !is_midpoint(f, *d, r)) return r;
  // The nearest double is a midpoint of the format: read the text rounded down and up. When they agree the
  // text is the midpoint itself (ties to even: r); otherwise the text lies strictly between them, above the
  // midpoint when the downward reading is the midpoint.
  const std::string text(token);
  const double lo = strtod_rounded(text, FE_DOWNWARD), hi = strtod_rounded(text, FE_UPWARD);
  if (lo == hi) return r;
  return lo == *d ? f.round(hi) : f.round(lo);
}

std::string format_in(double v, const Format& f) {
  if (f.id() == FormatId::F64) return format_f64(v);
  if (f.id() == FormatId::F32) return format_f32(static_cast<float>(v));
  v = f.round(v);
  if (std::isnan(v) || std::isinf(v) || v == 0) return format_f64(v);
  // Reads back to v, and from within v's own rounding interval: a decimal beyond the largest value of a
  // saturating format (e4m3, int8) also reads back to it, but does not name it.
  const auto reads_back = [&](const std::string& s) {
    const std::optional<double> back = parse_in_format(s, f);
    const std::optional<double> d = parse_f64(s);
    return back && *back == v && d && std::fabs(*d - v) <= f.spacing(v) / 2;
  };
  // The p-digit decimal nearest v, or failing that its neighbours at p digits (v's rounding interval is
  // lopsided at a power of two), for p = 1, 2, …: the first that reads back is the shortest.
  for (int p = 1; p <= 17; ++p) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    std::string s = buf;
    if (!reads_back(s)) {
      const std::size_t e = s.find('e');
      const std::string exponent = s.substr(e);
      const double step = std::pow(10.0, std::strtod(exponent.c_str() + 1, nullptr) - (p - 1));
      const double base = std::strtod(s.c_str(), nullptr);
      bool found = false;
      for (const double cand : {base + step, base - step}) {
        std::snprintf(buf, sizeof buf, "%.*e", p - 1, cand);
        if (reads_back(buf)) {
          s = buf;
          found = true;
          break;
        }
      }
      if (!found) continue;
    }
    // The same digits in the shortest layout (fixed or scientific) that to_chars picks for the double.
    const std::string shortest = format_f64(std::strtod(s.c_str(), nullptr));
    return reads_back(shortest) ? shortest : s;
  }
  return format_f64(v);
}

namespace {
// Length of the well-formed UTF-8 sequence of two or more bytes starting at s[i] (no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

// Characters that a person cannot see, or cannot tell from a space, in a message: each is written as
// \u{XXXX} and named after the text, so '\u{FEFF}1' does not read as '1'.
struct Invisible {
  std::uint32_t cp;
  const char* name;
};
constexpr Invisible kInvisible[] = {
    {0x00A0, "no-break space"},
    {0x00AD, "soft hyphen"},
    {0x034F, "combining grapheme joiner"},
    {0x061C, "Arabic letter mark"},
    {0x115F, "Hangul choseong filler"},
    {0x1160, "Hangul jungseong filler"},
    {0x1680, "Ogham space mark"},
    {0x180E, "Mongolian vowel separator"},
    {0x2000, "en quad"},
    {0x2001, "em quad"},
    {0x2002, "en space"},
    {0x2003, "em space"},
    {0x2004, "three-per-em space"},
    {0x2005, "four-per-em space"},
    {0x2006, "six-per-em space"},
    {0x2007, "figure space"},
    {0x2008, "punctuation space"},
    {0x2009, "thin space"},
    {0x200A, "hair space"},
    {0x200B, "zero-width space"},
    {0x200C, "zero-width non-joiner"},
    {0x200D, "zero-width joiner"},
    {0x200E, "left-to-right mark"},
    {0x200F, "right-to-left mark"},
    {0x2028, "line separator"},
    {0x2029, "paragraph separator"},
    {0x202A, "left-to-right embedding"},
    {0x202B, "right-to-left embedding"},
    {0x202C, "pop directional formatting"},
    {0x202D, "left-to-right override"},
    {0x202E, "right-to-left override"},
    {0x202F, "narrow no-break space"},
    {0x205F, "medium mathematical space"},
    {0x2060, "word joiner"},
    {0x2061, "function application"},
    {0x2062, "invisible times"},
    {0x2063, "invisible separator"},
    {0x2064, "invisible plus"},
    {0x2066, "left-to-right isolate"},
    {0x2067, "right-to-left isolate"},
    {0x2068, "first strong isolate"},
    {0x2069, "pop directional isolate"},
    {0x206A, "inhibit symmetric swapping"},
    {0x206B, "activate symmetric swapping"},
    {0x206C, "inhibit Arabic form shaping"},
    {0x206D, "activate Arabic form shaping"},
    {0x206E, "national digit shapes"},
    {0x206F, "nominal digit shapes"},
    {0x3000, "ideographic space"},
    {0x3164, "Hangul filler"},
    {0xFE00, "variation selector-1"},
    {0xFE0F, "variation selector-16"},
    {0xFEFF, "byte order mark"},
    {0xFFA0, "halfwidth Hangul filler"},
    {0xFFF9, "interlinear annotation anchor"},
    {0xFFFA, "interlinear annotation separator"},
    {0xFFFB, "interlinear annotation terminator"},
    {0xFFFC, "object replacement character"},
};

// Characters that look like one a number, an option or a range is written with, but are not it: the minus
// sign the app draws itself (U+2212), dashes, fullwidth digits and signs, a Cyrillic e. Each is written as
// \u{XXXX} and named with what to type instead, so "'\u{2212}1' is not a number (U+2212 minus sign: use
// '-')" says why "−1" fails.
struct LookAlike {
  std::uint32_t cp;
  const char* name;
  const char* ascii;
};
constexpr LookAlike kLookAlike[] = {
    {0x02D7, "modifier letter minus sign", "-"},
    {0x2010, "hyphen", "-"},
    {0x2011, "non-breaking hyphen", "-"},
    {0x2012, "figure dash", "-"},
    {0x2013, "en dash", "-"},
    {0x2014, "em dash", "-"},
    {0x2015, "horizontal bar", "-"},
    {0x2043, "hyphen bullet", "-"},
    {0x2212, "minus sign", "-"},
    {0x2796, "heavy minus sign", "-"},
    {0xFE58, "small em dash", "-"},
    {0xFE63, "small hyphen-minus", "-"},
    {0xFF0D, "fullwidth hyphen-minus", "-"},
    {0x02D6, "modifier letter plus sign", "+"},
    {0x2795, "heavy plus sign", "+"},
    {0xFE62, "small plus sign", "+"},
    {0xFF0B, "fullwidth plus sign", "+"},
    {0x066B, "Arabic decimal separator", "."},
    {0x2024, "one dot leader", "."},
    {0xFF0E, "fullwidth full stop", "."},
    {0x066C, "Arabic thousands separator", ","},
    {0x201A, "single low-9 quotation mark", ","},
    {0xFF0C, "fullwidth comma", ","},
    {0x2236, "ratio", ":"},
    {0xA789, "modifier letter colon", ":"},
    {0xFF1A, "fullwidth colon", ":"},
    {0x0415, "Cyrillic capital letter ie", "E"},
    {0x0435, "Cyrillic small letter ie", "e"},
    {0x2044, "fraction slash", "/"},
    {0x2215, "division slash", "/"},
    {0x00D7, "multiplication sign", "x"},
};

/// A look-alike's label, "U+2212 minus sign: use '-'", or "" when cp is none (fullwidth, Arabic-Indic and
/// mathematical digits included: "U+FF11 fullwidth digit one: use '1'").
std::string look_alike_label(std::uint32_t cp) {
  char code[16];
  std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cp));
  for (const LookAlike& l : kLookAlike)
    if (l.cp == cp) return std::string(code) + " " + l.name + ": use '" + l.ascii + "'";
  static constexpr const char* kDigits[] = {"zero", "one", "two",   "three", "four",
                                            "five", "six", "seven", "eight", "nine"};
  const auto digit = [&](std::uint32_t zero, const char* kind) {
    const std::uint32_t d = cp - zero;
    return std::string(code) + " " + kind + " " + kDigits[d] + ": use '" + static_cast<char>('0' + d) + "'";
  };
  if (cp >= 0xFF10 && cp <= 0xFF19) return digit(0xFF10, "fullwidth digit");
  if (cp >= 0x0660 && cp <= 0x0669) return digit(0x0660, "Arabic-Indic digit");
  if (cp >= 0x06F0 && cp <= 0x06F9) return digit(0x06F0, "extended Arabic-Indic digit");
  if (cp >= 0x1D7CE && cp <= 0x1D7FF) return digit(0x1D7CE + (cp - 0x1D7CE) / 10 * 10, "mathematical digit");
  return {};
}

std::uint32_t decode(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + k]));
  };
  if (n == 2) return (b(0) & 0x1F) << 6 | (b(1) & 0x3F);
  if (n == 3) return (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F);
  return (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
}

const char* invisible_name(std::uint32_t cp) {
  for (const Invisible& v : kInvisible)
    if (v.cp == cp) return v.name;
  if (cp >= 0xFE00 && cp <= 0xFE0F) return "variation selector";
  if (cp >= 0xE0000 && cp <= 0xE007F) return "tag character";
  if (cp >= 0xE0100 && cp <= 0xE01EF) return "variation selector";
  if (cp >= 0x80 && cp <= 0x9F) return "C1 control character";
  return nullptr;
}

// The escaped text, cut after max_chars characters; *cut says whether it was. The invisible characters
// met are added to *names ("U+FEFF byte order mark"), each once.
std::string escape(std::string_view text, std::size_t max_chars, bool* cut, std::vector<std::string>* names) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  std::size_t chars = 0, i = 0;
  for (; i < text.size() && chars < max_chars; ++chars) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c >= 0x80 ? utf8_sequence(text, i) : (c >= 0x20 && c < 0x7F ? 1 : 0);
    if (n >= 2) {
      const std::uint32_t cp = decode(text, i, n);
      if (const char* name = invisible_name(cp)) {
        char code[16];
        std::snprintf(code, sizeof code, "%04X", static_cast<unsigned>(cp));
        out.append("\\u{").append(code).append("}");
        std::string label = std::string("U+") + code + " " + name;
        if (std::find(names->begin(), names->end(), label) == names->end())
          names->push_back(std::move(label));
      } else if (std::string label = look_alike_label(cp); !label.empty()) {
        char code[16];
        std::snprintf(code, sizeof code, "%04X", static_cast<unsigned>(cp));
        out.append("\\u{").append(code).append("}");
        if (std::find(names->begin(), names->end(), label) == names->end())
          names->push_back(std::move(label));
      } else {
        out.append(text.substr(i, n));
      }
      i += n;
    } else if (n == 1) {
      out += text[i++];
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    }
  }
  *cut = i < text.size();
  return out;
}

std::string name_list(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  std::string out = " (";
  for (std::size_t k = 0; k < names.size() && k < 4; ++k) out.append(k ? ", " : "").append(names[k]);
  if (names.size() > 4) out.append(", …");
  return out + ")";
}
}  // namespace

std::string printable(std::string_view text, std::size_t max_chars) {
  bool cut = false;
  std::vector<std::string> names;
  std::string out = escape(text, max_chars, &cut, &names);
  if (cut) out.append("… (").append(std::to_string(text.size())).append(" bytes)");
  return out + name_list(names);
}

std::string quote(std::string_view text, std::size_t max_chars) {
  bool cut = false;
  std::vector<std::string> names;
  std::string out = "'";
  out += escape(text, max_chars, &cut, &names);
  out += cut ? "…'" : "'";
  if (cut) out.append(" (").append(std::to_string(text.size())).append(" bytes)");
  return out + name_list(names);
}

}  // namespace gelu

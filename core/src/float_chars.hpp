// Floating-point text conversions of <charconv> where the standard library has them (libstdc++ on the
// desktop), and the same contract through the C library where it does not: emscripten 3.1.6's libc++ has
// from_chars and to_chars for integers only. The fallback keeps from_chars' rules (no leading space or '+',
// no "inf"/"nan", no "0x" prefix: hex digits only with chars_format::hex; result_out_of_range only where the
// value rounds to 0 or to infinity) and to_chars' shortest round-trip form (the fewest significant digits
// that read back to the same value; fixed or scientific, whichever is shorter, fixed on a tie).
#pragma once

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <type_traits>

namespace gelu::detail {

// The fallback, through strtod/strtof and snprintf (tested against <charconv> on the desktop).

template <class T>
std::from_chars_result c_from_chars(const char* first, const char* last, T& v,
                                    std::chars_format fmt = std::chars_format::general) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  const bool hex = fmt == std::chars_format::hex;
  std::string text(first, last);
  const std::ptrdiff_t lead = !text.empty() && text[0] == '-' ? 1 : 0;
  const auto at = [&](std::ptrdiff_t i) {
    return i < static_cast<std::ptrdiff_t>(text.size()) ? text[i] : '\0';
  };
  const char c = at(lead);
  // What strtod reads and from_chars does not: a leading space, a second sign or '+', and a "0x" prefix
  // (from_chars reads the 0 before it; with chars_format::hex the digits come without a prefix).
  if (c == '\0' || c == '+' || c == '-' || std::isspace(static_cast<unsigned char>(c)))
    return {first, std::errc::invalid_argument};
  if (!hex && c == '0' && (at(lead + 1) == 'x' || at(lead + 1) == 'X')) {
    v = lead ? T(-0.0) : T(0.0);
    return {first + lead + 1, std::errc()};
  }
  const bool prefixed = hex && (std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == '.');
  if (prefixed) text.insert(static_cast<std::size_t>(lead), "0x");
  const char* p = text.c_str();
  char* end = nullptr;
  errno = 0;
  const T r =
      std::is_same_v<T, float> ? static_cast<T>(std::strtof(p, &end)) : static_cast<T>(std::strtod(p, &end));
  std::ptrdiff_t used = end - p;
  if (prefixed) {  // the "0x" put in front is not the caller's text; "0x" alone read as 0 is no number
    if (used < lead + 3) return {first, std::errc::invalid_argument};
    used -= 2;
  }
  if (used == 0) return {first, std::errc::invalid_argument};
  const char* stop = first + used;
  if (errno == ERANGE && (r == 0 || std::isinf(r))) return {stop, std::errc::result_out_of_range};
  v = r;
  return {stop, std::errc()};
}

template <class T>
std::to_chars_result c_to_chars(char* first, char* last, T v) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  constexpr int kMaxDigits = std::is_same_v<T, float> ? 9 : 17;
  std::string out;
  if (std::signbit(v)) out += '-';
  const T a = std::fabs(v);
  if (a == 0) {
    out += '0';
  } else {
    char buf[64];
    int digits = 1;
    for (; digits < kMaxDigits; ++digits) {  // the fewest digits that read back to the same value
      std::snprintf(buf, sizeof buf, "%.*e", digits - 1, static_cast<double>(a));
      const T back = std::is_same_v<T, float> ? static_cast<T>(std::strtof(buf, nullptr))
                                              : static_cast<T>(std::strtod(buf, nullptr));
      if (back == a) break;
    }
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, static_cast<double>(a));
    std::string d(1, buf[0]);  // the significant digits, then the decimal exponent
    const char* e = std::strchr(buf, 'e');
    for (const char* q = buf + 1; q < e; ++q)
      if (*q != '.') d += *q;
    const int exp10 = std::atoi(e + 1);
    std::string sci = d.substr(0, 1);
    if (d.size() > 1) sci += "." + d.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    sci += ebuf;
    const int n = static_cast<int>(d.size());
    std::string fixed;
    if (exp10 >= n - 1) {  // an integer: its exact digits, as <charconv> writes them (the same length)
      std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(a));
      fixed = buf;
    } else if (exp10 >= 0) {
      fixed = d.substr(0, static_cast<std::size_t>(exp10 + 1)) + "." +
              d.substr(static_cast<std::size_t>(exp10 + 1));
    } else {
      fixed = "0." + std::string(static_cast<std::size_t>(-exp10 - 1), '0') + d;
    }
    out += fixed.size() <= sci.size() ? fixed : sci;
  }
  if (static_cast<std::ptrdiff_t>(out.size()) > last - first) return {last, std::errc::value_too_large};
  std::memcpy(first, out.data(), out.size());
  return {first + out.size(), std::errc()};
}

#if defined(__cpp_lib_to_chars)

template <class T>
std::from_chars_result float_from_chars(const char* first, const char* last, T& v,
                                        std::chars_format fmt = std::chars_format::general) {
  return std::from_chars(first, last, v, fmt);
}
template <class T>
std::to_chars_result float_to_chars(char* first, char* last, T v) {
  return std::to_chars(first, last, v);
}

#else
template <class T>
std::from_chars_result float_from_chars(const char* first, const char* last, T& v,
                                        std::chars_format fmt = std::chars_format::general) {
  return c_from_chars(first, last, v, fmt);
}
template <class T>
std::to_chars_result float_to_chars(char* first, char* last, T v) {
  return c_to_chars(first, last, v);
}
#endif

}  // namespace gelu::detail

// Checks gelu::parse_f64/parse_f32 (gelu/numio.hpp) against properties: both accept the same texts; an
// accepted number equals the correctly rounded value bit for bit (strtod/strtof for decimal, an exact
// reference below for hex); a parsed finite value formats with format_f64/format_f32 to text that parses
// back bit-exactly; NaN stays NaN. Violations trap.
#include <bit>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "gelu/numio.hpp"

namespace {

template <class T>
bool same_bits(T a, T b) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  else
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// "nan", "inf", "infinity" (any case, signed) are words, not numbers: strtod spells them differently.
bool is_word(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return !text.empty() &&
         (text.front() == 'n' || text.front() == 'N' || text.front() == 'i' || text.front() == 'I');
}

// The hex float "0x<digits>[.<digits>][p<exp>]" (sign stripped, syntax already accepted by the parser)
// rounded to nearest-even, in integers: glibc 2.36's strtod misrounds hex subnormals (0x0.000…20000000000003
// with 269 fraction digits gives 0x0.8p-1022; the correctly rounded value is 0x0.8000000000001p-1022).
template <class T>
T hex_reference(std::string_view s) {
  constexpr int kPrecision = std::numeric_limits<T>::digits;                        // 53 or 24
  constexpr long long kMinLsb = std::numeric_limits<T>::min_exponent - kPrecision;  // -1074 or -149
  constexpr long long kMaxExp = std::numeric_limits<T>::max_exponent - 1;           // 1023 or 127
  s.remove_prefix(2);
  std::uint64_t mant = 0;  // value = (mant + sticky fraction) * 2^exp2
  long long exp2 = 0;
  bool sticky = false, fraction = false;
  std::size_t i = 0;
  for (; i < s.size() && s[i] != 'p' && s[i] != 'P'; ++i) {
    const char c = s[i];
    if (c == '.') {
      fraction = true;
      continue;
    }
    const unsigned d = c <= '9'   ? unsigned(c - '0')
                       : c <= 'F' ? unsigned(c - 'A' + 10)
                                  : unsigned(c - 'a' + 10);
    if (mant < (std::uint64_t{1} << 56)) {
      mant = mant * 16 + d;
      if (fraction) exp2 -= 4;
    } else {
      sticky = sticky || d != 0;
      if (!fraction) exp2 += 4;
    }
  }
  if (i < s.size()) {
    long long e = 0;
    bool negative = false;
    std::size_t k = i + 1;
    if (s[k] == '+' || s[k] == '-') negative = s[k++] == '-';
    for (; k < s.size(); ++k)
      if (e < 1'000'000'000'000) e = e * 10 + (s[k] - '0');
    exp2 += negative ? -e : e;
  }
  if (mant == 0) return T(0);
  const long long top = exp2 + (63 - std::countl_zero(mant));  // exponent of the leading bit
  if (top > kMaxExp) return std::numeric_limits<T>::infinity();
  const long long lsb = std::max(top - (kPrecision - 1), kMinLsb);  // exponent of the result's last bit
  const long long shift = lsb - exp2;
  if (shift <= 0) return std::ldexp(static_cast<T>(mant), static_cast<int>(exp2));  // exact
  std::uint64_t q = 0;
  bool up = false;
  if (shift < 64) {
    q = mant >> shift;
    const std::uint64_t rem = mant & ((std::uint64_t{1} << shift) - 1),
                        half = std::uint64_t{1} << (shift - 1);
    up = rem > half || (rem == half && (sticky || (q & 1)));
  } else if (shift == 64) {
    up = mant > (std::uint64_t{1} << 63) || (mant == (std::uint64_t{1} << 63) && sticky);
  }
  if (up) ++q;
  return std::ldexp(static_cast<T>(q), static_cast<int>(lsb));  // exact, or inf after a carry past the top
}

template <class T>
void check(std::string_view text, std::optional<T> v, std::optional<T> (*parse)(std::string_view),
           std::string (*format)(T), T (*reference)(const char*, char**)) {
  if (!v) return;
  const std::string formatted = format(*v);
  const std::optional<T> back = parse(formatted);
  if (!back) __builtin_trap();
  if (std::isnan(*v)) {
    if (!std::isnan(*back)) __builtin_trap();
    return;
  }
  if (!same_bits(*back, *v)) __builtin_trap();
  if (is_word(text)) return;
  const bool negative = text.front() == '-';
  const std::string_view body = text.front() == '-' || text.front() == '+' ? text.substr(1) : text;
  if (body.size() > 2 && (body[1] == 'x' || body[1] == 'X')) {
    const T r = hex_reference<T>(body);
    if (!same_bits(negative ? -r : r, *v)) __builtin_trap();
    return;
  }
  // An accepted text has no NUL and no leading space, so strtod reads all of it (the "C" locale's '.').
  const std::string z(text);
  char* end = nullptr;
  const T r = reference(z.c_str(), &end);
  if (end != z.c_str() + z.size() || !same_bits(r, *v)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<double> d = gelu::parse_f64(text);
  const std::optional<float> f = gelu::parse_f32(text);
  if (d.has_value() != f.has_value()) __builtin_trap();
  check<double>(text, d, gelu::parse_f64, gelu::format_f64, std::strtod);
  check<float>(text, f, gelu::parse_f32, gelu::format_f32, std::strtof);
  return 0;
}

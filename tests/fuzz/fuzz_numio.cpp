// Checks gelu::parse_f64/parse_f32 (gelu/numio.hpp) against properties: both accept the same texts; an
// accepted number equals strtod/strtof's correctly rounded value bit for bit; a parsed finite value
// formats with format_f64/format_f32 to text that parses back bit-exactly; NaN stays NaN. Violations trap.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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

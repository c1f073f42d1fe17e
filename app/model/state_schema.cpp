// Readers shared by the panel-state field tables (see state_schema.hpp).
#include "model/state_schema.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace gelu::app::model {

std::string quoted_key(std::string_view key) {
  std::string s = "'";  // built with += (GCC 12's -Wrestrict misfires on "'" + std::string(...))
  s += printable(key, 80);
  s += "'";
  return s;
}

plot::Range read_range_value(const json::Value& v, std::string_view key) {
  const std::string msg = quoted_key(key) + " must be [min, max] with finite min < max";
  if (!v.is_array() || v.as_array().size() != 2 || !v.as_array()[0].is_number() ||
      !v.as_array()[1].is_number())
    throw json::JsonError(msg);
  const plot::Range r{v.as_array()[0].as_number(), v.as_array()[1].as_number()};
  if (!r.valid()) throw json::JsonError(msg);
  return r;
}

double read_number_value(const json::Value& v, std::string_view key, double min, double max) {
  if (!v.is_number() || !(v.as_number() >= min && v.as_number() <= max)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " must be a number in [%g, %g]", min, max);
    throw json::JsonError(quoted_key(key) + buf);
  }
  return v.as_number();
}

bool read_bool_value(const json::Value& v, std::string_view key) {
  if (!v.is_bool()) throw json::JsonError(quoted_key(key) + " must be true or false");
  return v.as_bool();
}

const std::string& read_string_value(const json::Value& v, std::string_view key) {
  if (!v.is_string()) throw json::JsonError(quoted_key(key) + " must be a string");
  return v.as_string();
}

std::string choices_text(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i) out += i + 1 == choices.size() ? " or " : ", ";
    out += "\"" + choices[i] + "\"";
  }
  return out;
}

const std::string& read_choice_value(const json::Value& v, std::string_view key,
                                     const std::vector<std::string>& choices) {
  const std::string msg = quoted_key(key) + " must be " + choices_text(choices);
  if (!v.is_string()) throw json::JsonError(msg);
  for (const std::string& c : choices)
    if (v.as_string() == c) return c;
  throw json::JsonError(msg);
}

json::Value range_json(const plot::Range& r) {
  return json::Array{r.min, r.max};
}

// [SECTION] SampleRng
std::uint64_t SampleRng::next() {
  std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t SampleRng::below(std::uint64_t n) {
  return n == 0 ? 0 : next() % n;  // the modulo bias is far below what a test can see
}

bool SampleRng::chance(double p) {
  return uniform(0, 1) < p;
}

double SampleRng::uniform(double lo, double hi) {
  const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;  // [0, 1)
  const double v = lo + u * (hi - lo);
  return std::isfinite(v) ? std::clamp(v, lo, hi) : lo * (1 - u) + hi * u;  // hi - lo may overflow
}

double SampleRng::number(double lo, double hi) {
  if (!(lo < hi)) return lo;
  switch (below(12)) {
    case 0:
      return lo;
    case 1:
      return hi;
    case 2:
      return std::nextafter(lo, hi);
    case 3:
      return std::nextafter(hi, lo);
    case 4:
      if (lo <= 0 && hi >= 0) return chance(0.5) ? 0.0 : -0.0;
      return uniform(lo, hi);
    case 5:
    case 6:
    case 7:
      return uniform(lo, hi);
    default: {
      // Log-uniform magnitude on a side of zero the range allows.
      const bool neg = lo < 0 && (hi <= 0 || chance(0.5));
      const double top = neg ? -lo : hi;
      const double bottom = neg ? (hi < 0 ? -hi : 0.0) : (lo > 0 ? lo : 0.0);
      const double floor_mag = bottom > 0 ? bottom : std::max(DBL_MIN, top * 1e-30);
      if (!(floor_mag < top)) return uniform(lo, hi);
      const double mag = std::pow(10.0, uniform(std::log10(floor_mag), std::log10(top)));
      return std::clamp(neg ? -mag : mag, lo, hi);
    }
  }
}

double SampleRng::integer(double lo, double hi) {
  lo = std::ceil(lo);
  hi = std::floor(hi);
  if (!(lo < hi)) return lo + 0.0;
  if (chance(0.3)) return lo + static_cast<double>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  return std::clamp(std::floor(number(lo, hi)), lo, hi) + 0.0;  // + 0.0: never -0
}

plot::Range SampleRng::range() {
  plot::Range r;
  switch (below(10)) {
    case 0: {  // one ULP wide
      r.min = number(-1e6, 1e6);
      r.max = std::nextafter(r.min, HUGE_VAL);
      break;
    }
    case 1:  // the widest: its width overflows a double
      r = chance(0.5) ? plot::Range{-DBL_MAX, DBL_MAX} : plot::Range{-1e300, 1e300};
      break;
    case 2:
    case 3: {  // anywhere
      const double a = number(-1e300, 1e300), b = number(-1e300, 1e300);
      r = {std::min(a, b), std::max(a, b)};
      if (!(r.min < r.max)) r.max = std::nextafter(r.min, HUGE_VAL);
      break;
    }
    default: {  // what people look at
      r.min = uniform(-20, 20);
      r.max = r.min + std::pow(10.0, uniform(-4, 2));
      break;
    }
  }
  return r;
}

std::string SampleRng::text(std::size_t min_len, std::size_t max_len, std::string_view alphabet) {
  if (alphabet.empty()) alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::vector<std::string_view> chars;  // UTF-8 characters: a lead byte and its continuation bytes
  for (std::size_t i = 0; i < alphabet.size();) {
    std::size_t j = i + 1;
    while (j < alphabet.size() && (static_cast<unsigned char>(alphabet[j]) & 0xC0) == 0x80) ++j;
    chars.push_back(alphabet.substr(i, j - i));
    i = j;
  }
  const std::size_t n = min_len + static_cast<std::size_t>(below(max_len - min_len + 1));
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += chars[static_cast<std::size_t>(below(chars.size()))];
  return out;
}

}  // namespace gelu::app::model

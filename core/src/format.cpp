// The number-format table and the arithmetic every row shares (see gelu/format.hpp).
//
// The floating formats are handled by one parametrized "minifloat" path (exponent bits, fraction bits,
// bias, infinities, the FN variant's NaN) working directly on the double: round-to-nearest-even is a scaling
// by a power of two, nearbyint and the scaling back, all exact in double for every format narrower than
// double. f32 and f64 take the hardware's own conversions; their results agree with the generic path
// (tested).
//
// Index of this file:
//   [SECTION] The table and the minifloat arithmetic
//   [SECTION] Format
#include "gelu/format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gelu {
namespace {

// [SECTION] The table and the minifloat arithmetic.

// clang-format off
constexpr std::array<NumberFormat, 12> kFormats{{
  {FormatId::F64, "f64", "float64", "IEEE 754 binary64: 11-bit exponent, 52-bit fraction",
   64, 11, 52, 1023, -1022, 1023, true, true, false, false},
  {FormatId::F32, "f32", "float32", "IEEE 754 binary32: 8-bit exponent, 23-bit fraction",
   32, 8, 23, 127, -126, 127, true, true, false, false},
  {FormatId::BF16, "bf16", "bfloat16", "brain float: float32's 8-bit exponent, 7-bit fraction (training, TPUs, AVX512_BF16)",
   16, 8, 7, 127, -126, 127, true, true, false, false},
  {FormatId::F16, "f16", "float16", "IEEE 754 binary16: 5-bit exponent, 10-bit fraction, max 65504",
   16, 5, 10, 15, -14, 15, true, true, false, false},
  {FormatId::E4M3, "e4m3", "fp8 E4M3", "OCP FP8 E4M3 (\"FN\"): 4-bit exponent, 3-bit fraction, no infinities, saturates at ±448",
   8, 4, 3, 7, -6, 8, false, true, true, false},
  {FormatId::E5M2, "e5m2", "fp8 E5M2", "OCP FP8 E5M2: 5-bit exponent, 2-bit fraction, infinities, max 57344",
   8, 5, 2, 15, -14, 15, true, true, false, false},
  {FormatId::Int8, "int8", "int8 (affine)", "8-bit integer codes q in [-128, 127] with value = scale·(q − zero point)",
   8, 0, 0, 0, 0, 0, false, false, true, true},
  {FormatId::E2M3, "e2m3", "fp6 E2M3", "OCP MX FP6 E2M3 (\"FN\"): 2-bit exponent, 3-bit fraction, no infinities or NaN, saturates at ±7.5",
   6, 2, 3, 1, 0, 2, false, false, true, false},
  {FormatId::E3M2, "e3m2", "fp6 E3M2", "OCP MX FP6 E3M2 (\"FN\"): 3-bit exponent, 2-bit fraction, no infinities or NaN, saturates at ±28",
   6, 3, 2, 3, -2, 4, false, false, true, false},
  {FormatId::E2M1, "e2m1", "fp4 E2M1", "OCP MX FP4 E2M1 (\"FN\"): 2-bit exponent, 1-bit fraction, values 0, 0.5, 1, 1.5, 2, 3, 4, 6, saturates at ±6",
   4, 2, 1, 1, 0, 2, false, false, true, false},
  {FormatId::E8M0, "e8m0", "scale E8M0", "OCP MX shared scale: unsigned 8-bit exponent, 2^(code − 127), NaN at 0xFF, no zero",
   8, 8, 0, 127, -127, 127, false, true, true, false, true},
  {FormatId::UE4M3, "ue4m3", "scale UE4M3", "NVFP4 block scale: e4m3 without a sign, 0 to 448, NaN at 0x7F",
   8, 4, 3, 7, -6, 8, false, true, true, false, true},
}};
// clang-format on

std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}
double double_of(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, 8);
  return x;
}
std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float float_of(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

/// 2^e for e in [−1022, 1023], exactly.
double pow2(int e) {
  return double_of(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// The unbiased exponent of a finite non-zero double (subnormals report −1023 or lower, which is below every
/// narrower format's emin and so clamps there).
int exponent_of(double a) {
  const int be = static_cast<int>((bits_of(a) >> 52) & 0x7ff);
  return be == 0 ? -1023 : be - 1023;
}

bool fn_nan_layout(const NumberFormat& f) {
  return !f.has_infinity && f.has_nan && !f.affine;  // the FN variant: all-ones exponent is a binade
}

/// e8m0: no fraction, so no subnormals and no zero (code 0 is 2^−bias).
bool exponent_only(const NumberFormat& f) {
  return f.fraction_bits == 0 && !f.affine;
}

/// Largest finite magnitude's bit pattern (without the sign) of a floating row.
std::uint64_t max_magnitude_bits(const NumberFormat& f) {
  const std::uint64_t exp_all = (std::uint64_t{1} << f.exponent_bits) - 1;
  const std::uint64_t frac_all = (std::uint64_t{1} << f.fraction_bits) - 1;
  if (!f.has_infinity && !f.has_nan) return (exp_all << f.fraction_bits) | frac_all;  // every code finite
  if (fn_nan_layout(f) && f.fraction_bits > 0) return (exp_all << f.fraction_bits) | (frac_all - 1);
  return ((exp_all - 1) << f.fraction_bits) | frac_all;
}

/// Value of a floating row's bit pattern (sign included).
double decode_float(const NumberFormat& f, std::uint64_t bits) {
  const int M = f.fraction_bits;
  const std::uint64_t exp_all = (std::uint64_t{1} << f.exponent_bits) - 1;
  const std::uint64_t frac_all = (std::uint64_t{1} << M) - 1;
  const bool neg = !f.unsigned_only && ((bits >> (f.bits - 1)) & 1);
  if (f.unsigned_only && (bits >> (f.exponent_bits + M)) != 0)
    return std::numeric_limits<double>::quiet_NaN();  // ue4m3's unused sign bit set: not a value
  const std::uint64_t e = (bits >> M) & exp_all;
  const std::uint64_t frac = bits & frac_all;
  double v;
  if (e == exp_all && f.has_infinity) {
    v = frac == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (e == exp_all && f.has_nan && frac == frac_all) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0 && !exponent_only(f)) {
    v = static_cast<double>(frac) * pow2(f.emin - M);
  } else {
    v = (1.0 + static_cast<double>(frac) * pow2(-M)) * pow2(static_cast<int>(e) - f.exponent_bias);
  }
  return neg ? -v : v;
}

/// Bit pattern of a value of a floating row (v already rounded; not NaN).
std::uint64_t encode_float(const NumberFormat& f, double v) {
  const int M = f.fraction_bits;
  const std::uint64_t sign = std::signbit(v) && !f.unsigned_only ? std::uint64_t{1} << (f.bits - 1) : 0;
  const double a = std::fabs(v);
  const std::uint64_t exp_all = (std::uint64_t{1} << f.exponent_bits) - 1;
  if (std::isinf(a)) return sign | (exp_all << M);
  if (a == 0) return sign;
  const int e = exponent_of(a);
  if (e < f.emin) return sign | static_cast<std::uint64_t>(a * pow2(M - f.emin));
  const auto frac = static_cast<std::uint64_t>((a * pow2(-e) - 1.0) * pow2(M));
  return sign | (static_cast<std::uint64_t>(e + f.exponent_bias) << M) | frac;
}

double round_minifloat(const NumberFormat& f, double max_finite, double x) {
  if (std::isnan(x)) return x;
  if (f.unsigned_only && !(x > 0)) return exponent_only(f) ? pow2(f.emin) : 0.0;  // saturates at the bottom
  const double a = std::fabs(x);
  if (a == 0) return x;
  if (exponent_only(f) && a < pow2(f.emin)) return pow2(f.emin);  // e8m0 has no zero
  if (std::isinf(a)) return f.has_infinity ? x : std::copysign(max_finite, x);
  const int e = std::max(exponent_of(a), f.emin);
  const int s = e - f.fraction_bits;  // the spacing at a is 2^s
  double r = std::nearbyint(a * pow2(-s)) * pow2(s);
  // e8m0's values are the powers of two: a tie (1.5·2^e) goes to the even code, as everywhere else.
  if (exponent_only(f) && a * pow2(-e) == 1.5) r = pow2(((e + f.exponent_bias) & 1) == 0 ? e : e + 1);
  if (r > max_finite) {
    return f.has_infinity && !f.saturates ? std::copysign(std::numeric_limits<double>::infinity(), x)
                                          : std::copysign(max_finite, x);
  }
  return std::copysign(r, x);
}

}  // namespace

std::span<const NumberFormat> number_formats() {
  return kFormats;
}

const NumberFormat& number_format(FormatId id) {
  for (const NumberFormat& f : kFormats)
    if (f.id == id) return f;
  throw std::logic_error("number_format: unknown FormatId");
}

const NumberFormat* find_number_format(std::string_view name) {
  for (const NumberFormat& f : kFormats)
    if (name == f.name) return &f;
  return nullptr;
}

std::string number_format_names() {
  std::string s;
  for (const NumberFormat& f : kFormats) {
    if (!s.empty()) s += ", ";
    s += f.name;
  }
  return s;
}

// [SECTION] Format: rounding, ordinals, encodings, enumeration.

Quantization Quantization::symmetric(double absmax) {
  if (!(absmax > 0) || !std::isfinite(absmax))
    throw std::invalid_argument("int8: the symmetric range must be a finite number > 0");
  return {absmax / 127.0, 0};
}

Quantization Quantization::asymmetric(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    throw std::invalid_argument("int8: the asymmetric range needs finite lo < hi");
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  const double scale = (hi - lo) / 255.0;
  const double zp = std::nearbyint(-128.0 - lo / scale);
  return {scale, static_cast<int>(std::clamp(zp, -128.0, 127.0))};
}

Format::Format(FormatId id, Quantization q) : row_(&number_format(id)), q_(q) {
  if (row_->affine &&
      (!(q.scale > 0) || !std::isfinite(q.scale) || q.zero_point < -128 || q.zero_point > 127))
    throw std::invalid_argument(
        "int8: the scale must be a finite number > 0 and the zero point in [-128, 127]");
}

std::optional<Format> Format::parse(std::string_view name, Quantization q) {
  const NumberFormat* f = find_number_format(name);
  if (!f) return std::nullopt;
  return Format(f->id, q);
}

double Format::max_finite() const {
  switch (row_->id) {
    case FormatId::F64:
      return std::numeric_limits<double>::max();
    case FormatId::F32:
      return std::numeric_limits<float>::max();
    case FormatId::Int8:
      return q_.scale * static_cast<double>(127 - q_.zero_point);
    default:
      return decode_float(*row_, max_magnitude_bits(*row_));
  }
}

double Format::min_positive() const {
  if (row_->affine) return q_.scale;
  return std::ldexp(1.0, row_->emin - row_->fraction_bits);
}

double Format::min_normal() const {
  if (row_->affine) return q_.scale;
  return pow2(row_->emin);
}

double Format::round(double x) const {
  switch (row_->id) {
    case FormatId::F64:
      return x;
    case FormatId::F32:
      return static_cast<double>(static_cast<float>(x));
    case FormatId::Int8: {
      if (std::isnan(x)) return x;
      const double t = std::clamp(x / q_.scale, -1e9, 1e9);  // ±inf and huge values clamp below
      const double code = std::clamp(std::nearbyint(t) + q_.zero_point, -128.0, 127.0);
      return q_.scale * (code - q_.zero_point) + 0.0;  // + 0.0: int8 has one zero (nearbyint(-0.3) is -0)
    }
    default:
      return round_minifloat(*row_, max_finite(), x);
  }
}

bool Format::representable(double x) const {
  if (std::isnan(x)) return row_->has_nan;
  if (std::isinf(x)) return row_->has_infinity;
  return round(x) == x;
}

std::int64_t Format::max_ordinal() const {
  switch (row_->id) {
    case FormatId::F64:
      return static_cast<std::int64_t>(bits_of(std::numeric_limits<double>::max()));
    case FormatId::F32:
      return static_cast<std::int64_t>(bits_of(std::numeric_limits<float>::max()));
    case FormatId::Int8:
      return 127;
    default:
      return static_cast<std::int64_t>(max_magnitude_bits(*row_));
  }
}

std::int64_t Format::ordinal(double v) const {
  if (std::isnan(v)) throw std::domain_error("ordinal of NaN");
  const double r = round(v);
  if (row_->affine) return static_cast<std::int64_t>(std::nearbyint(r / q_.scale)) + q_.zero_point;
  std::int64_t mag;
  if (std::isinf(r)) {
    mag = max_ordinal() + 1;
  } else if (row_->id == FormatId::F64) {
    mag = static_cast<std::int64_t>(bits_of(r) & 0x7fffffffffffffffULL);
  } else if (row_->id == FormatId::F32) {
    mag = static_cast<std::int64_t>(bits_of(static_cast<float>(r)) & 0x7fffffffU);
  } else {
    mag = static_cast<std::int64_t>(encode_float(*row_, std::fabs(r)));
  }
  return std::signbit(r) ? -mag : mag;
}

double Format::from_ordinal(std::int64_t k) const {
  if (row_->affine) {
    const std::int64_t code = std::clamp<std::int64_t>(k, -128, 127);
    return q_.scale * static_cast<double>(code - q_.zero_point);
  }
  const std::int64_t top = max_ordinal();
  if (row_->unsigned_only) k = std::max<std::int64_t>(k, 0);
  const bool neg = k < 0;
  const std::uint64_t mag = neg ? static_cast<std::uint64_t>(-(k + 1)) + 1 : static_cast<std::uint64_t>(k);
  double v;
  if (mag > static_cast<std::uint64_t>(top)) {
    v = row_->has_infinity ? std::numeric_limits<double>::infinity() : max_finite();
  } else if (row_->id == FormatId::F64) {
    v = double_of(mag);
  } else if (row_->id == FormatId::F32) {
    v = static_cast<double>(float_of(static_cast<std::uint32_t>(mag)));
  } else {
    v = decode_float(*row_, mag);
  }
  return neg ? -v : v;
}

double Format::next_up(double v) const {
  if (std::isnan(v)) return v;
  const double r = round(v);
  if (r == std::numeric_limits<double>::infinity()) return r;
  return from_ordinal(ordinal(r) + 1);
}

double Format::next_down(double v) const {
  if (std::isnan(v)) return v;
  const double r = round(v);
  if (r == -std::numeric_limits<double>::infinity()) return r;
  return from_ordinal(ordinal(r) - 1);
}

std::uint64_t Format::ulp_distance(double a, double b) const {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na && nb ? 0 : std::numeric_limits<std::uint64_t>::max();
  const std::int64_t oa = ordinal(a), ob = ordinal(b);
  // Modular subtraction gives the exact difference: it is below 2^64 for every pair of ordinals.
  return oa >= ob ? static_cast<std::uint64_t>(oa) - static_cast<std::uint64_t>(ob)
                  : static_cast<std::uint64_t>(ob) - static_cast<std::uint64_t>(oa);
}

double Format::spacing(double r) const {
  if (row_->affine) return q_.scale;
  const double a = std::fabs(r);
  int e = (a == 0 || std::isnan(a)) ? row_->emin : std::max(exponent_of(a), row_->emin);
  if (std::isinf(a) || e > row_->emax) e = row_->emax;
  return std::ldexp(1.0, e - row_->fraction_bits);
}

std::uint64_t Format::encode(double v) const {
  switch (row_->id) {
    case FormatId::F64:
      return std::isnan(v) ? 0x7ff8000000000000ULL : bits_of(v);
    case FormatId::F32:
      return std::isnan(v) ? 0x7fc00000U : bits_of(static_cast<float>(v));
    case FormatId::Int8: {
      if (std::isnan(v)) throw std::domain_error("int8 has no NaN");
      return static_cast<std::uint64_t>(static_cast<std::uint8_t>(static_cast<std::int8_t>(ordinal(v))));
    }
    default: {
      const NumberFormat& f = *row_;
      if (std::isnan(v)) {
        if (!f.has_nan) throw std::domain_error(std::string(f.name) + " has no NaN");
        const std::uint64_t exp_all = (std::uint64_t{1} << f.exponent_bits) - 1;
        const std::uint64_t frac_all = (std::uint64_t{1} << f.fraction_bits) - 1;
        return fn_nan_layout(f) ? (exp_all << f.fraction_bits) | frac_all
                                : (exp_all << f.fraction_bits) | (std::uint64_t{1} << (f.fraction_bits - 1));
      }
      return encode_float(f, round(v));
    }
  }
}

double Format::decode(std::uint64_t bits) const {
  switch (row_->id) {
    case FormatId::F64:
      return double_of(bits);
    case FormatId::F32:
      return static_cast<double>(float_of(static_cast<std::uint32_t>(bits)));
    case FormatId::Int8:
      return from_ordinal(static_cast<std::int8_t>(static_cast<std::uint8_t>(bits)));
    default:
      return decode_float(*row_, bits & ((std::uint64_t{1} << row_->bits) - 1));
  }
}

std::vector<double> Format::enumerate(double lo, double hi) const {
  if (!enumerable())
    throw std::logic_error(std::string(name()) + " has too many values to enumerate (" +
                           std::to_string(row_->bits) + " bits)");
  std::vector<double> out;
  auto keep = [&](double v) {
    if (v >= lo && v <= hi) out.push_back(v);
  };
  if (row_->affine) {
    for (int q = -128; q <= 127; ++q) keep(q_.scale * static_cast<double>(q - q_.zero_point));
    return out;
  }
  const auto top = static_cast<std::uint64_t>(max_ordinal());
  const std::uint64_t sign = std::uint64_t{1} << (row_->bits - 1);
  out.reserve(static_cast<std::size_t>(2 * top + 2));
  if (!row_->unsigned_only)
    for (std::uint64_t m = top + 1; m-- > 0;) keep(decode_float(*row_, sign | m));
  for (std::uint64_t m = 0; m <= top; ++m) keep(decode_float(*row_, m));
  return out;
}

std::vector<double> Format::enumerate() const {
  return enumerate(-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity());
}

std::uint64_t Format::count_finite() const {
  if (row_->affine) return 256;
  if (row_->unsigned_only) return static_cast<std::uint64_t>(max_ordinal()) + 1;
  return 2 * (static_cast<std::uint64_t>(max_ordinal()) + 1);
}

double Format::round_beside(double d, int side) const {
  const double r = round(d);
  if (side == 0 || r == d || !std::isfinite(d) || !std::isfinite(r)) return r;
  // The other neighbour of d; d is a midpoint when it lies halfway (r/2 + o/2 is exact for these formats:
  // their values are at least 2^-149 apart, far above double's subnormal range).
  const double o = r < d ? next_up(d) : next_down(d);
  if (o == r || r / 2 + o / 2 != d) return r;
  return side > 0 ? std::max(r, o) : std::min(r, o);
}

}  // namespace gelu

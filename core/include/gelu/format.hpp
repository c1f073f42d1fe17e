// GELU Lab core: the number formats that models are stored in, as one table.
//
// Every layer (analysis, CLI, GUI, precision lab, designer) names a format through this table; nothing else
// parses "f32" or "bf16". Each row gives the format's name, bits and layout; Format (a row plus, for int8,
// its affine quantization) gives round-to-nearest-even from double, neighbours, the ULP distance between two
// values, the spacing at a real number, bit encodings and the enumeration of every finite value.
//
// Conventions shared by every format:
//  - round(x) is x rounded to nearest, ties to even, computed directly from the double (never through float,
//    so there is no double rounding). NaN stays NaN (int8 has no NaN: round(NaN) is NaN, "not a value").
//    Overflow gives ±inf where the format has infinities, else the largest finite value of that sign
//    (e4m3 is OCP's "FN" variant, which saturates at ±448; int8 clamps to its codes). The OCP MX element
//    formats e2m3, e3m2 and e2m1 are "FN" with neither infinities nor NaN: every code is a finite value,
//    overflow saturates and NaN has no code (round(NaN) is NaN, "not a value"; encode(NaN) throws).
//  - The scale formats have no sign. e8m0 (OCP MX's shared scale) is 2^(code − 127) for the codes 0..254
//    and NaN at 0xFF: it has no zero and no subnormals, and round(x) saturates to [2^−127, 2^127] (zero and
//    negative numbers give 2^−127). ue4m3 (NVFP4's block scale) is e4m3 without its sign: negative numbers
//    round to +0.
//  - ordinal(v) numbers the values of the format in increasing order: +0 and −0 are both 0, neighbours differ
//    by 1, ±inf (where present) is one past the largest finite value. ulp_distance is |ordinal(a) −
//    ordinal(b)|: 0 = the same value after rounding, 1 = neighbours. Both NaN → 0; exactly one NaN →
//    UINT64_MAX.
//  - spacing(r) is the distance between consecutive values of the format around the real number r (the
//    "ULP at r" of a real-valued ULP error): 2^(max(⌊log2|r|⌋, emin) − fraction_bits) for the floating
//    formats, the scale for int8; beyond the largest finite value, the spacing of the top binade.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gelu {

enum class FormatId : std::uint8_t { F64, F32, BF16, F16, E4M3, E5M2, Int8, E2M3, E3M2, E2M1, E8M0, UE4M3 };

/// One row of the format table.
struct NumberFormat {
  FormatId id;
  const char* name;         // as typed on the command line and stored in files: "bf16"
  const char* title;        // for people: "bfloat16"
  const char* description;  // one line: layout and where it is used
  int bits;                 // storage bits
  int exponent_bits;        // 0 for int8
  int fraction_bits;        // stored fraction bits (without the hidden bit); 0 for int8
  int exponent_bias;        // 0 for int8
  int emin, emax;           // exponents of the smallest and largest normal binades (0 for int8)
  bool has_infinity;
  bool has_nan;
  bool saturates;              // overflow rounds to the largest finite value (e4m3 "FN", int8)
  bool affine;                 // int8: value = scale · (code − zero_point)
  bool unsigned_only = false;  // the scale formats e8m0, ue4m3: no sign bit, no negative values
};

/// The table, in display order (widest first).
std::span<const NumberFormat> number_formats();
const NumberFormat& number_format(FormatId id);
/// nullptr when the name is not a format's name.
const NumberFormat* find_number_format(std::string_view name);
/// "f64, f32, bf16, f16, e4m3, e5m2, int8, e2m3, e3m2, e2m1, e8m0, ue4m3", for messages and help texts.
std::string number_format_names();

/// Affine int8 quantization: value = scale · (q − zero_point), q ∈ [−128, 127].
struct Quantization {
  double scale = 1.0 / 32;
  int zero_point = 0;

  /// Symmetric: zero_point 0 and ±absmax at the codes ±127.
  static Quantization symmetric(double absmax);
  /// Asymmetric: [lo, hi] (lo ≤ 0 ≤ hi after widening to contain 0) spread over the 256 codes.
  static Quantization asymmetric(double lo, double hi);
  bool operator==(const Quantization&) const = default;
};

/// A format ready to use: its row and, for int8, the quantization (ignored by the other formats).
class Format {
 public:
  explicit Format(FormatId id = FormatId::F32, Quantization q = {});
  /// By name ("bf16"); nullopt when unknown. int8 gets `q`.
  static std::optional<Format> parse(std::string_view name, Quantization q = {});

  const NumberFormat& row() const { return *row_; }
  FormatId id() const { return row_->id; }
  std::string_view name() const { return row_->name; }
  const Quantization& quantization() const { return q_; }
  bool is_float() const { return !row_->affine; }
  /// The 8- and 16-bit formats: every finite value can be listed (at most 65,536).
  bool enumerable() const { return row_->bits <= 16; }

  double round(double x) const;
  bool representable(double x) const;  // x is a value of the format (NaN: only where the format has NaN)

  double max_finite() const;
  double min_positive() const;  // the smallest positive value (a subnormal where the format has them)
  double min_normal() const;    // the smallest positive normal value (int8: the scale)

  /// Ordinal of round(v) (see the header comment); v must not be NaN.
  std::int64_t ordinal(double v) const;
  /// The value with that ordinal (clamped to the finite range, or ±inf where the format has it; 0 is +0).
  double from_ordinal(std::int64_t k) const;
  double next_up(double v) const;    // the next value above round(v) (+inf/ max stays where it is)
  double next_down(double v) const;  // the next value below round(v)
  /// The tie rule, written once: round(d) where d stands for a real number known to lie strictly above d
  /// (side > 0) or strictly below it (side < 0). The same as round(d) except where d is exactly the midpoint
  /// of two neighbouring values of the format: that real number is not a tie, so it rounds to the neighbour
  /// on its side. side == 0 (unknown): round(d).
  double round_beside(double d, int side) const;
  std::uint64_t ulp_distance(double a, double b) const;
  double spacing(double r) const;

  /// Bit pattern of round(v) (the low `bits` bits; int8: the two's-complement code); NaN gets the format's
  /// canonical quiet NaN (int8: throws std::domain_error). decode is its inverse for every pattern.
  std::uint64_t encode(double v) const;
  double decode(std::uint64_t bits) const;

  /// Every finite value in [lo, hi] in increasing order, −0 just before +0. Throws std::logic_error for a
  /// format that is not enumerable().
  std::vector<double> enumerate(double lo, double hi) const;
  std::vector<double> enumerate() const;
  /// How many finite values the format has (±0 counted twice for the signed floating formats).
  std::uint64_t count_finite() const;

  bool operator==(const Format& o) const { return row_ == o.row_ && (!row_->affine || q_ == o.q_); }

 private:
  const NumberFormat* row_;
  Quantization q_;
  std::int64_t max_ordinal() const;  // ordinal of the largest finite value
};

}  // namespace gelu

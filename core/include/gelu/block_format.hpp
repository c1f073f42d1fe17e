// GELU Lab core: block-scaled formats — OCP Microscaling (MXFP8, MXFP6, MXFP4) and NVIDIA's NVFP4 — as one
// table of their own, each row naming its element format and scale format from the number-format table
// (gelu/format.hpp), its block size and its scale rule.
//
// A block of values is stored as one scale and one element per value: value_i = element_i · scale. What a
// value becomes therefore depends on the block's other values (through the block's largest magnitude amax),
// and its error is measured on the block's own lattice: the element format's values times the scale.
//
// The rules, as the specifications give them:
//  - MX (OCP Microscaling Formats v1.0, section 6.3): the shared scale is X = 2^(⌊log2 amax⌋ − emax_elem) in
//    e8m0, where emax_elem is the exponent of the element format's largest normal binade (e4m3 8, e5m2 15,
//    e2m3 2, e3m2 4, e2m1 2). An exponent above e8m0's 127 makes the scale NaN (so does amax NaN or ∞); one
//    below −127 is clamped to −127, and amax = 0 gives 2^−127. Each element is V_i / X rounded to nearest,
//    ties to even, and saturated to the element format's largest finite value (e5m2 included: MX clamps).
//  - NVFP4: a float32 per-tensor scale s_t = tensor_amax / (6·448) (1 when tensor_amax is 0), a ue4m3
//    block scale s_b = ue4m3(amax / (6·s_t)) (rounded to nearest even, saturating at 448), the block's
//    scale s_b·s_t, and e2m1 elements V_i / (s_b·s_t) rounded to nearest even and saturated at ±6. A block
//    whose s_b is 0 stores zeros.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gelu/format.hpp"

namespace gelu {

enum class BlockFormatId : std::uint8_t { MXFP8_E4M3, MXFP8_E5M2, MXFP6_E2M3, MXFP6_E3M2, MXFP4, NVFP4 };

enum class ScaleRule : std::uint8_t {
  MxPow2,      // OCP MX v1.0: 2^(⌊log2 amax⌋ − emax_elem) in e8m0
  NvTwoLevel,  // NVFP4: ue4m3(amax / 6 / s_t) under the float32 tensor scale s_t = tensor_amax / (6·448)
};

/// One row of the block-format table.
struct BlockFormatRow {
  BlockFormatId id;
  const char* name;         // as on the command line: "mxfp4"
  const char* title;        // for people: "MXFP4"
  const char* description;  // one line
  FormatId element;         // e4m3, e5m2, e2m3, e3m2, e2m1
  int block_size;           // 32 (MX), 16 (NVFP4)
  FormatId scale;           // e8m0 (MX), ue4m3 (NVFP4)
  ScaleRule rule;
};

std::span<const BlockFormatRow> block_formats();
const BlockFormatRow& block_format(BlockFormatId id);
/// nullptr when the name is not a block format's name.
const BlockFormatRow* find_block_format(std::string_view name);
/// "mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4, nvfp4".
std::string block_format_names();

/// The scale of one block.
struct BlockScale {
  double value = 1;  // what each element is multiplied by (NVFP4: block · tensor); NaN: the block is NaN
  std::uint64_t code = 0;  // the block scale's code in the scale format (e8m0: exponent + 127; NaN 0xFF)
  double block = 1;        // the decoded block scale (MX: value; NVFP4: the ue4m3 value)
  double tensor = 1;       // the per-tensor scale (MX: 1)
};

/// A block format ready to use: its row and a block size (the row's unless another is given).
class BlockFormat {
 public:
  /// block_size 0: the row's. Throws std::invalid_argument for a size outside [1, 4096].
  explicit BlockFormat(BlockFormatId id = BlockFormatId::MXFP4, int block_size = 0);
  static std::optional<BlockFormat> parse(std::string_view name, int block_size = 0);

  const BlockFormatRow& row() const { return *row_; }
  BlockFormatId id() const { return row_->id; }
  std::string_view name() const { return row_->name; }
  const Format& element() const { return element_; }
  const Format& scale_format() const { return scale_; }
  int block_size() const { return block_size_; }
  /// The element format's largest finite magnitude (6 for e2m1).
  double element_max() const { return element_.max_finite(); }

  /// The per-tensor scale for a tensor whose largest magnitude is tensor_amax (NVFP4; MX: 1). NaN when
  /// tensor_amax is NaN or infinite.
  double tensor_scale(double tensor_amax) const;
  /// The scale of a block whose largest magnitude is amax (≥ 0), under the tensor scale.
  BlockScale block_scale(double amax, double tensor_scale = 1) const;
  /// The scale of a block whose largest magnitude is amax, in a tensor whose largest magnitude is amax too
  /// (what `eval --block-max A` means).
  BlockScale scale_for_max(double amax) const { return block_scale(amax, tensor_scale(amax)); }

  /// x stored in a block of scale s: element(x / s) · s, saturated; NaN when s is NaN or x is NaN.
  double quantize(double x, const BlockScale& s) const;
  /// The element code's ordinal of x / s in the element format (the lattice step), for ULP distances.
  std::int64_t lattice_ordinal(double x, const BlockScale& s) const;
  /// quantize(x, s) and the lattice_ordinal of that stored value, from one division and one rounding (the
  /// inner loop of block_error); the same values as the two calls.
  std::pair<double, std::int64_t> store(double x, const BlockScale& s) const;
  /// store(x′, s) when every real x′ within a relative distance rel of x gives the same stored value and
  /// ordinal (rounding is monotone: both ends of x·(1 ± rel) in the interior of one rounding cell settle it);
  /// nullopt when they may not, or when x is not a normal double or s's value neither 0 nor a normal double
  /// (store of the accurate value then decides). For block_error with the function under test known only
  /// within a bound (BoundedReference). rel in [0, 2^-20).
  /// (Inline: block_error's inner loop.)
  std::optional<std::pair<double, std::int64_t>> store_within(double x, double rel,
                                                              const BlockScale& s) const {
    if (!std::isnormal(x)) return std::nullopt;
    if (s.value == 0) return std::pair<double, std::int64_t>{std::copysign(0.0, x), 0};  // store's quantize
    if (!std::isnormal(s.value) || s.value < 0) return std::nullopt;
    // store's main path, for x and for every x′ near it (x′ / s has x / s's sign, zero quotients included).
    const double v = x / s.value;
    std::size_t k;
    if (!index_within(std::fabs(v), rel, k)) return std::nullopt;
    const double q = std::copysign(pos_[k] * s.value, v);
    if (q != 0 && !std::isnormal(q)) return std::pair<double, std::int64_t>{q, lattice_ordinal(q, s)};
    const auto ok = static_cast<std::int64_t>(k);
    return std::pair<double, std::int64_t>{q, v < 0 ? -ok : ok};
  }
  /// Whether every non-zero value of the block's lattice (the element format's values times s) is a normal
  /// double and s itself one: then store(x, s), for x not NaN, is ±magnitude(k)·s with k = index_within's
  /// index of |x / s| (block_error's fast path).
  bool lattice_is_normal(const BlockScale& s) const {
    return std::isnormal(s.value) && s.value > 0 && std::isnormal(pos_[1] * s.value) &&
           std::isfinite(pos_top_ * s.value);
  }
  /// The element format's k-th non-negative value (k = 0: 0).
  double magnitude(std::size_t k) const { return pos_[k]; }
  /// What index_within computes from, for its vectorized twin in block_error (block_format.cpp): the
  /// element format's fraction bits M and emin, its largest index, that index's value and the midpoint below.
  struct CellConstants {
    double M, emin, top, pos_top, mid_top;
  };
  CellConstants cell_constants() const {
    return {static_cast<double>(M_), static_cast<double>(emin_), static_cast<double>(top_), pos_top_,
            mid_top_};
  }
  /// The index of the element value nearest a ≥ 0 (ties to the even code; beyond the largest, its index)
  /// into k; returns whether every real a′ within a relative distance rel of a has that index (see below).
  bool index_within(double a, double rel, std::size_t& k) const;
  /// lattice_ordinal(x′, s) when it is the same for every real x′ within a relative distance rel of x;
  /// nullopt as for store_within.
  std::optional<std::int64_t> ordinal_within(double x, double rel, const BlockScale& s) const {
    if (!std::isnormal(x)) return std::nullopt;
    if (s.value == 0) return 0;
    if (!std::isnormal(s.value) || s.value < 0) return std::nullopt;
    const double v = x / s.value;
    std::size_t k;
    if (!index_within(std::fabs(v), rel, k)) return std::nullopt;
    const auto ok = static_cast<std::int64_t>(k);
    return v < 0 ? -ok : ok;
  }
  /// The number of lattice steps between the stored values of a and b in a block of scale s (see
  /// Format::ulp_distance).
  std::uint64_t ulp_distance(double a, double b, const BlockScale& s) const;
  /// The spacing of the block's lattice at the real number r.
  double spacing(double r, const BlockScale& s) const { return element_.spacing(r / s.value) * s.value; }
  /// Every value of the block's lattice in increasing order (the element format's values times s).
  std::vector<double> lattice(const BlockScale& s) const;

  /// Stores `in` block by block (consecutive runs of block_size(); the last may be shorter) into `out`
  /// (dequantized values, the same size), with the tensor scale from the whole of `in`; the scale of each
  /// block goes to `scales` when it is not null.
  void quantize_blocks(std::span<const double> in, std::span<double> out,
                       std::vector<BlockScale>* scales = nullptr) const;

  /// The flush-to-zero threshold of v ≠ 0: the smallest block max A ≥ |v| such that v is stored as 0 in a
  /// block of scale_for_max(A) (and in every block of a larger max: the stored magnitude never grows with
  /// A). For a function whose minimum is v, its whole negative lobe is stored as 0 from A on. +inf when no
  /// finite A flushes v; NaN for v = 0 or NaN.
  double flush_threshold(double v) const;

  bool operator==(const BlockFormat& o) const { return row_ == o.row_ && block_size_ == o.block_size_; }

 private:
  const BlockFormatRow* row_;
  Format element_, scale_;
  int block_size_;
  // The element format's non-negative values (index = code): a stored element is pos_[index_of(|v|)].
  std::vector<double> pos_;
  // The element format's fraction bits and emin, the largest index, its value and the midpoint below it.
  std::int64_t M_ = 0, emin_ = 0;
  std::size_t top_ = 0;
  double pos_top_ = 0, mid_top_ = 0;
  std::size_t index_of(double a) const {  // a ≥ 0, not NaN: the index of the nearest value, ties to even
    std::size_t k;
    index_within(a, 0, k);
    return k;
  }
};

// The index of the nearest value into k, from a's exponent: a = t·2^(e − M) with t rounded to an integer m
// (ties to even: m's parity is the code's), k = (e − emin)·2^M + m; below emin the subnormal codes m;
// m = 2^(M+1) rolls over into the next binade's first code; beyond the largest value its index
// (saturation). Returns whether every real a′ within a relative distance rel of a — and, for a = |x / s|,
// the roundings of each x′ / s (2^-48 covers them) — has the same index: |t − m| + t·rel < 1/2, the whole
// interval strictly inside m's cell (where it reaches into a binade below, that binade's half-size steps
// still leave the cell 1/4 below m = 2^M, far more than t·rel < 2^-17). NaN and ∞ give false.
inline bool BlockFormat::index_within(double a, double rel, std::size_t& k) const {
  const double r = rel + 0x1p-48;
  if (!(a < pos_top_)) {
    k = top_;
    return a - a * r > mid_top_;
  }
  std::uint64_t b;
  std::memcpy(&b, &a, sizeof b);
  const std::int64_t e = std::max(static_cast<std::int64_t>(b >> 52) - 1023, emin_);
  const std::uint64_t sb = static_cast<std::uint64_t>(M_ - e + 1023) << 52;
  double scale;
  std::memcpy(&scale, &sb, sizeof scale);
  const double t = a * scale, m = std::nearbyint(t);  // t − m is exact
  k = static_cast<std::size_t>(std::min<std::uint64_t>(
      (static_cast<std::uint64_t>(e - emin_) << M_) + static_cast<std::uint64_t>(m), top_));
  return std::fabs(t - m) + t * r < 0.5;
}

/// Whether x is a normal double, from its exponent bits (no branches).
inline bool is_normal_bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return ((b >> 52) & 0x7ff) - 1 < 0x7fe;
}

/// A number format or a block format: what --dtype names.
struct DType {
  std::optional<Format> plain;
  std::optional<BlockFormat> block;
  std::string_view name() const { return block ? block->name() : plain->name(); }
};

/// Errors of outputs quantized block by block, on each block's own lattice.
struct BlockErrorReport {
  std::size_t n = 0, blocks = 0;
  std::uint64_t max_ulp = 0;  // lattice steps between the stored value and the reference on that lattice
  double mean_ulp = 0;        // over the elements whose error is finite
  std::size_t infinite = 0;   // NaN against a number, or no lattice (a NaN scale): left out of the mean
  std::size_t mismatch = 0;   // elements whose stored value is not the reference rounded to their lattice
  // Where the largest error is (the first element with it); at_block_max is that block's largest |y|.
  std::size_t at_index = 0, at_block = 0;
  double at_x = 0, at_value = 0, at_stored = 0, at_reference = 0, at_block_max = 0;
  // Negative outputs (reference < 0): how many, how many stored as 0, and the x range of those.
  std::size_t negative = 0, flushed = 0;
  double flushed_x_lo = 0, flushed_x_hi = 0;
  double flushed_share() const {
    return negative ? static_cast<double>(flushed) / static_cast<double>(negative) : 0;
  }
  double max_abs = 0;  // largest |stored − reference|
};

/// x: the pre-activations; y: the function's outputs (as computed, before storage); ref: the reference
/// outputs (double). The outputs y are stored block by block (quantize_blocks); each stored value is
/// compared with ref rounded to the same block's lattice. Throws std::invalid_argument when the sizes differ.
BlockErrorReport block_error(const BlockFormat& f, std::span<const double> x, std::span<const double> y,
                             std::span<const double> ref);

}  // namespace gelu

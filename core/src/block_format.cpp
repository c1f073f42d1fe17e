// The block-format table and its rules (see gelu/block_format.hpp).
//
// Index of this file:
//   [SECTION] The table
//   [SECTION] Scales, storage and the lattice
//   [SECTION] Errors over blocks
#include "gelu/block_format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "gelu/bounded_reference.hpp"
#include "gelu/kernels.hpp"
#include "simd/simd_config.hpp"

namespace gelu {
namespace {

// clang-format off
constexpr std::array<BlockFormatRow, 6> kBlockFormats{{
  {BlockFormatId::MXFP8_E4M3, "mxfp8_e4m3", "MXFP8 (E4M3)", "OCP MX: 32 e4m3 elements sharing one e8m0 power-of-two scale",
   FormatId::E4M3, 32, FormatId::E8M0, ScaleRule::MxPow2},
  {BlockFormatId::MXFP8_E5M2, "mxfp8_e5m2", "MXFP8 (E5M2)", "OCP MX: 32 e5m2 elements sharing one e8m0 power-of-two scale",
   FormatId::E5M2, 32, FormatId::E8M0, ScaleRule::MxPow2},
  {BlockFormatId::MXFP6_E2M3, "mxfp6_e2m3", "MXFP6 (E2M3)", "OCP MX: 32 e2m3 elements sharing one e8m0 power-of-two scale",
   FormatId::E2M3, 32, FormatId::E8M0, ScaleRule::MxPow2},
  {BlockFormatId::MXFP6_E3M2, "mxfp6_e3m2", "MXFP6 (E3M2)", "OCP MX: 32 e3m2 elements sharing one e8m0 power-of-two scale",
   FormatId::E3M2, 32, FormatId::E8M0, ScaleRule::MxPow2},
  {BlockFormatId::MXFP4, "mxfp4", "MXFP4", "OCP MX: 32 e2m1 elements sharing one e8m0 power-of-two scale",
   FormatId::E2M1, 32, FormatId::E8M0, ScaleRule::MxPow2},
  {BlockFormatId::NVFP4, "nvfp4", "NVFP4", "NVIDIA: 16 e2m1 elements sharing one ue4m3 scale, under a float32 scale per tensor",
   FormatId::E2M1, 16, FormatId::UE4M3, ScaleRule::NvTwoLevel},
}};
// clang-format on

constexpr int kMaxBlockSize = 4096;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

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

}  // namespace

// [SECTION] The table

std::span<const BlockFormatRow> block_formats() {
  return kBlockFormats;
}

const BlockFormatRow& block_format(BlockFormatId id) {
  for (const BlockFormatRow& f : kBlockFormats)
    if (f.id == id) return f;
  throw std::logic_error("block_format: unknown BlockFormatId");
}

const BlockFormatRow* find_block_format(std::string_view name) {
  for (const BlockFormatRow& f : kBlockFormats)
    if (name == f.name) return &f;
  return nullptr;
}

std::string block_format_names() {
  std::string s;
  for (const BlockFormatRow& f : kBlockFormats) {
    if (!s.empty()) s += ", ";
    s += f.name;
  }
  return s;
}

BlockFormat::BlockFormat(BlockFormatId id, int block_size)
    : row_(&block_format(id)),
      element_(row_->element),
      scale_(row_->scale),
      block_size_(block_size == 0 ? row_->block_size : block_size) {
  if (block_size_ < 1 || block_size_ > kMaxBlockSize)
    throw std::invalid_argument("block size " + std::to_string(block_size) + " is not in [1, " +
                                std::to_string(kMaxBlockSize) + "]");
  for (double v : element_.enumerate(0, element_.max_finite()))
    if (!std::signbit(v)) pos_.push_back(v);
  M_ = element_.row().fraction_bits;
  emin_ = element_.row().emin;
  top_ = pos_.size() - 1;
  pos_top_ = pos_[top_];
  mid_top_ = (pos_[top_ - 1] + pos_[top_]) / 2;
}

// [SECTION] Scales, storage and the lattice

std::optional<BlockFormat> BlockFormat::parse(std::string_view name, int block_size) {
  const BlockFormatRow* f = find_block_format(name);
  if (!f) return std::nullopt;
  return BlockFormat(f->id, block_size);
}

double BlockFormat::tensor_scale(double tensor_amax) const {
  if (row_->rule == ScaleRule::MxPow2) return 1;
  if (std::isnan(tensor_amax) || std::isinf(tensor_amax)) return kNan;
  const double a = std::fabs(tensor_amax);
  if (a == 0) return 1;
  // Float32, as the recipe stores it; a tensor max beyond float's range saturates there.
  const double t = static_cast<double>(static_cast<float>(a / (element_max() * scale_.max_finite())));
  return t == 0 ? static_cast<double>(std::numeric_limits<float>::denorm_min()) : std::min(t, 0x1.fffffep127);
}

BlockScale BlockFormat::block_scale(double amax, double tensor_scale) const {
  BlockScale s;
  amax = std::fabs(amax);
  if (row_->rule == ScaleRule::MxPow2) {
    if (std::isnan(amax) || std::isinf(amax)) {
      s.value = s.block = kNan;
      s.code = scale_.encode(kNan);
      return s;
    }
    // ⌊log2 amax⌋ exactly (ilogb is exact for every finite non-zero double, subnormals included).
    int e = amax == 0 ? -127 : std::ilogb(amax) - element_.row().emax;
    if (e > 127) {
      s.value = s.block = kNan;
      s.code = scale_.encode(kNan);
      return s;
    }
    e = std::max(e, -127);
    s.value = s.block = std::ldexp(1.0, e);
    s.code = static_cast<std::uint64_t>(e + 127);
    return s;
  }
  // NVFP4.
  s.tensor = tensor_scale;
  if (std::isnan(amax) || std::isnan(tensor_scale) || std::isinf(amax)) {
    s.value = s.block = kNan;
    s.code = scale_.encode(kNan);
    return s;
  }
  s.block = scale_.round(amax / element_max() / tensor_scale);
  s.code = scale_.encode(s.block);
  s.value = s.block * tensor_scale;
  return s;
}

double BlockFormat::quantize(double x, const BlockScale& s) const {
  if (std::isnan(x) || std::isnan(s.value)) return kNan;
  if (s.value == 0) return std::copysign(0.0, x);
  const double v = x / s.value;  // beyond the largest value: clamped (MX clamps e5m2 too)
  return std::copysign(pos_[index_of(std::fabs(v))] * s.value, v);
}

std::int64_t BlockFormat::lattice_ordinal(double x, const BlockScale& s) const {
  if (s.value == 0) return 0;
  const double v = x / s.value;
  const auto k = static_cast<std::int64_t>(index_of(std::fabs(v)));
  return v < 0 ? -k : k;
}

std::pair<double, std::int64_t> BlockFormat::store(double x, const BlockScale& s) const {
  if (std::isnan(x) || !(s.value > 0) || std::isinf(s.value)) {
    const double q = quantize(x, s);
    return {q, lattice_ordinal(q, s)};
  }
  const double v = x / s.value;
  const std::size_t k = index_of(std::fabs(v));
  const double q = std::copysign(pos_[k] * s.value, v);
  // q / s.value is pos_[k] within a rounding of the product, far nearer to it than to its neighbours (the
  // element formats' steps are 2^-3 of a value at least), so its ordinal is ±k; where the product is not a
  // normal double (a tiny NVFP4 tensor scale) that reasoning is not needed: it is computed.
  if (q != 0 && !std::isnormal(q)) return {q, lattice_ordinal(q, s)};
  const auto ok = static_cast<std::int64_t>(k);
  return {q, v < 0 ? -ok : ok};
}

std::uint64_t BlockFormat::ulp_distance(double a, double b, const BlockScale& s) const {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na && nb ? 0 : std::numeric_limits<std::uint64_t>::max();
  if (std::isnan(s.value)) return std::numeric_limits<std::uint64_t>::max();  // no lattice to place them on
  const std::int64_t oa = lattice_ordinal(a, s), ob = lattice_ordinal(b, s);
  return oa >= ob ? static_cast<std::uint64_t>(oa - ob) : static_cast<std::uint64_t>(ob - oa);
}

std::vector<double> BlockFormat::lattice(const BlockScale& s) const {
  std::vector<double> v = element_.enumerate();
  for (double& x : v) x *= s.value;
  return v;
}

void BlockFormat::quantize_blocks(std::span<const double> in, std::span<double> out,
                                  std::vector<BlockScale>* scales) const {
  if (in.size() != out.size()) throw std::invalid_argument("quantize_blocks: sizes differ");
  double tensor_amax = 0;
  if (row_->rule == ScaleRule::NvTwoLevel)
    for (double v : in)
      tensor_amax = std::isnan(v) || std::isnan(tensor_amax) ? kNan : std::max(tensor_amax, std::fabs(v));
  const double t = tensor_scale(tensor_amax);
  const auto bs = static_cast<std::size_t>(block_size_);
  if (scales) scales->clear();
  for (std::size_t i = 0; i < in.size(); i += bs) {
    const std::size_t n = std::min(bs, in.size() - i);
    double amax = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double a = std::fabs(in[i + j]);
      amax = std::isnan(a) || std::isnan(amax) ? kNan : std::max(amax, a);
    }
    const BlockScale s = block_scale(amax, t);
    for (std::size_t j = 0; j < n; ++j) out[i + j] = quantize(in[i + j], s);
    if (scales) scales->push_back(s);
  }
}

double BlockFormat::flush_threshold(double v) const {
  if (std::isnan(v) || v == 0) return kNan;
  const double a = std::fabs(v);
  const auto flushed = [&](double amax) {
    const BlockScale s = scale_for_max(amax);
    return !std::isnan(s.value) && quantize(v, s) == 0;
  };
  // The stored magnitude never grows with the block max, so "flushed" is false, then true: bisect over the
  // ordered doubles in [|v|, the largest finite double].
  std::uint64_t lo = bits_of(a), hi = bits_of(std::numeric_limits<double>::max());
  if (flushed(a)) return a;
  if (!flushed(double_of(hi))) {
    // MX: the scale is NaN beyond 2^(127 + emax + 1); search below that.
    hi = bits_of(std::ldexp(1.0, 127 + element_.row().emax + 1)) - 1;
    if (hi <= lo || !flushed(double_of(hi))) return kInf;
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (flushed(double_of(mid)) ? hi : lo) = mid;
  }
  return double_of(hi);
}

// [SECTION] Errors over blocks

namespace {

/// One run of whole blocks [b0, b1) of block_error, with the sum of the finite errors for the mean.
struct Partial {
  BlockErrorReport r;
  double sum = 0;
  bool any = false, any_flush = false;
  // Elements whose |stored − reference| was only bounded (its upper bound up), kept while up can reach
  // max_abs_lo, the largest known lower bound of that error (r.max_abs: the largest known value).
  struct Candidate {
    std::size_t i;
    double up, stored;
  };
  std::vector<Candidate> abs_candidates;
  double max_abs_lo = 0;
  double flushed_lo = kInf, flushed_hi = -kInf;  // the x range of the flushed elements (r's at the end)
};

/// What one block's fast pass adds up (score_blocks).
struct PassSums {
  std::uint64_t sum = 0, mismatch = 0, negative = 0, flushed = 0, bmax = 0;
  double abs_lo = 0, abs_up = 0, f_lo = kInf, f_hi = -kInf;
  bool ok = true;
};

#if GELU_AVX512
/// BlockFormat::index_within on 8 lanes: the element value (m·2^(e − M), the value of index k) and the
/// index as doubles, and the lanes whose interval a·(1 ± r) is settled; the scalar steps one by one (e from
/// getexp, clamped to emin as the exponent field is; 2^(M − e) by scalef; nearbyint by roundscale).
struct Cell8 {
  __m512d mag, k;
  __mmask8 settled;
};
inline Cell8 cell8(const BlockFormat::CellConstants& c, __m512d a, __m512d r) {
  const __m512d M = _mm512_set1_pd(c.M), emin = _mm512_set1_pd(c.emin), top = _mm512_set1_pd(c.top),
                pos_top = _mm512_set1_pd(c.pos_top);
  const __mmask8 below = _mm512_cmp_pd_mask(a, pos_top, _CMP_LT_OQ);
  const __m512d ab = _mm512_maskz_mov_pd(below, a);
  const __m512d e = _mm512_max_pd(_mm512_getexp_pd(ab), emin);  // getexp(0) = −∞
  const __m512d t = _mm512_scalef_pd(ab, _mm512_sub_pd(M, e));
  const __m512d m = _mm512_roundscale_pd(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512d code = _mm512_add_pd(_mm512_scalef_pd(_mm512_sub_pd(e, emin), M), m);
  Cell8 out;
  out.mag = _mm512_mask_blend_pd(below, pos_top, _mm512_scalef_pd(m, _mm512_sub_pd(e, M)));
  out.k = _mm512_mask_blend_pd(below, top, _mm512_min_pd(code, top));
  const __m512d dist = _mm512_add_pd(_mm512_abs_pd(_mm512_sub_pd(t, m)), _mm512_mul_pd(t, r));
  const __mmask8 in_cell = _mm512_cmp_pd_mask(dist, _mm512_set1_pd(0.5), _CMP_LT_OQ);
  const __mmask8 above =
      _mm512_cmp_pd_mask(_mm512_sub_pd(a, _mm512_mul_pd(a, r)), _mm512_set1_pd(c.mid_top), _CMP_GT_OQ);
  out.settled = static_cast<__mmask8>((below & in_cell) | (~below & above));
  return out;
}

/// score_blocks' fast pass over one block on 8 lanes (a masked tail): the same values as the scalar loop.
template <bool Same>
PassSums pass_avx512(const BlockFormat& f, const double* yv, const double* ev, const double* xv,
                     std::size_t n, double sv, double rel_y, double rel, bool exact, bool exact_ref,
                     double* qs, double* ups, std::uint64_t* ds) {
  const BlockFormat::CellConstants c = f.cell_constants();
  const __m512d s = _mm512_set1_pd(sv), ry = _mm512_set1_pd(rel_y + 0x1p-48),
                re = _mm512_set1_pd(rel + 0x1p-48);
  const __m512d lo_f = _mm512_set1_pd(1 - rel), hi_f = _mm512_set1_pd(1 + rel), zero = _mm512_setzero_pd();
  const __m512d sign = _mm512_set1_pd(-0.0);
  constexpr int kNotNormal = 0xBF;  // QNaN, ±0, ±∞, denormal, SNaN
  __m512d dsum = zero, dmax = zero, abs_lo = zero, abs_up = zero, f_lo = _mm512_set1_pd(kInf),
          f_hi = _mm512_set1_pd(-kInf);
  PassSums out;
  for (std::size_t j = 0; j < n; j += 8) {
    const __mmask8 lane = n - j >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << (n - j)) - 1);
    const __m512d yi = _mm512_maskz_loadu_pd(lane, yv + j),
                  ei = Same ? yi : _mm512_maskz_loadu_pd(lane, ev + j);
    const __m512d xi = _mm512_maskz_loadu_pd(lane, xv + j);
    const __m512d v = _mm512_div_pd(yi, s), w = Same ? v : _mm512_div_pd(ei, s);
    const Cell8 cy = cell8(c, _mm512_abs_pd(v), ry), ce = Same ? cy : cell8(c, _mm512_abs_pd(w), re);
    const __mmask8 normal = static_cast<__mmask8>(~_mm512_fpclass_pd_mask(yi, kNotNormal) &
                                                  ~_mm512_fpclass_pd_mask(ei, kNotNormal));
    const __mmask8 good =
        static_cast<__mmask8>((exact ? 0xFF : cy.settled) & (exact_ref ? 0xFF : ce.settled) & normal);
    if ((good & lane) != lane) out.ok = false;
    const __m512d q = _mm512_or_pd(_mm512_mul_pd(cy.mag, s), _mm512_and_pd(v, sign));
    const __m512d oy = _mm512_mask_sub_pd(cy.k, _mm512_cmp_pd_mask(v, zero, _CMP_LT_OQ), zero, cy.k);
    const __m512d oe = _mm512_mask_sub_pd(ce.k, _mm512_cmp_pd_mask(w, zero, _CMP_LT_OQ), zero, ce.k);
    const __m512d d = _mm512_abs_pd(_mm512_sub_pd(oy, oe));  // small whole numbers: exact
    dsum = _mm512_add_pd(dsum, d);
    dmax = _mm512_max_pd(dmax, d);
    out.mismatch +=
        static_cast<std::uint64_t>(__builtin_popcount(_mm512_cmp_pd_mask(d, zero, _CMP_NEQ_OQ) & lane));
    const __m512d e1 = _mm512_mul_pd(ei, lo_f), e2 = _mm512_mul_pd(ei, hi_f);
    const __m512d e_lo = _mm512_min_pd(e1, e2), e_hi = _mm512_max_pd(e1, e2);
    const __m512d a = _mm512_abs_pd(_mm512_sub_pd(q, e_lo)), cc = _mm512_abs_pd(_mm512_sub_pd(q, e_hi));
    const __mmask8 inside = static_cast<__mmask8>(_mm512_cmp_pd_mask(e_lo, q, _CMP_LE_OQ) &
                                                  _mm512_cmp_pd_mask(q, e_hi, _CMP_LE_OQ));
    const __m512d up = _mm512_max_pd(a, cc),
                  down = _mm512_maskz_mov_pd(static_cast<__mmask8>(~inside), _mm512_min_pd(a, cc));
    abs_lo = _mm512_max_pd(abs_lo, down);
    abs_up = _mm512_max_pd(abs_up, up);
    _mm512_mask_storeu_pd(qs + j, lane, q);
    _mm512_mask_storeu_pd(ups + j, lane, up);
    _mm512_mask_storeu_epi64(ds + j, lane, _mm512_cvttpd_epu64(d));
    const __mmask8 neg = static_cast<__mmask8>(_mm512_cmp_pd_mask(ei, zero, _CMP_LT_OQ) & lane);
    const __mmask8 fl = static_cast<__mmask8>(neg & _mm512_cmp_pd_mask(q, zero, _CMP_EQ_OQ));
    out.negative += static_cast<std::uint64_t>(__builtin_popcount(neg));
    out.flushed += static_cast<std::uint64_t>(__builtin_popcount(fl));
    f_lo = _mm512_mask_min_pd(f_lo, fl, f_lo, xi);
    f_hi = _mm512_mask_max_pd(f_hi, fl, f_hi, xi);
  }
  out.sum = static_cast<std::uint64_t>(_mm512_reduce_add_pd(dsum));
  out.bmax = static_cast<std::uint64_t>(_mm512_reduce_max_pd(dmax));
  out.abs_lo = _mm512_reduce_max_pd(abs_lo);
  out.abs_up = _mm512_reduce_max_pd(abs_up);
  out.f_lo = _mm512_reduce_min_pd(f_lo);
  out.f_hi = _mm512_reduce_max_pd(f_hi);
  return out;
}
#endif

/// Whether a and b are the same scale (both ends of a block max's interval gave it).
bool same_scale(const BlockScale& a, const BlockScale& b) {
  return a.code == b.code && bits_of(a.value) == bits_of(b.value) && bits_of(a.block) == bits_of(b.block);
}

/// fabs(v), NaN-propagating max, as the block maxima take it.
double max_abs_nan(double amax, double v) {
  const double a = std::fabs(v);
  return std::isnan(a) || std::isnan(amax) ? kNan : std::max(amax, a);
}

void score_blocks(const BlockFormat& f, double tensor_scale, std::span<const double> x,
                  const BoundedReference& y, const BoundedReference& ref, std::size_t b0, std::size_t b1,
                  Partial& p) {
  const auto bs = static_cast<std::size_t>(f.block_size());
  const double rel = ref.rel_error, rel_y = y.rel_error;
  BlockErrorReport& r = p.r;
  std::vector<double> accurate_y;  // a block's accurate outputs, where its approximations do not settle it
  std::vector<double> qs(bs), ups(bs);
  std::vector<std::uint64_t> ds(bs);
  for (std::size_t b = b0; b < b1; ++b) {
    const std::size_t lo = b * bs, hi = std::min(x.size(), lo + bs);
    // The block's scale. With y only bounded: from both ends of its largest |y|'s interval, when they give
    // one scale and every approximation is a normal double (the block max itself is then not known:
    // block_error computes it for the block it reports); otherwise from the accurate outputs.
    bool exact = rel_y == 0;
    const double* yv = y.approx.data() + lo;
    double amax = 0;
    BlockScale s;
    if (!exact) {
      double top = 0;
      bool normal = true;
      for (std::size_t i = lo; i < hi; ++i) {
        const double a = std::fabs(y.approx[i]);
        normal = normal && std::isnormal(a);
        top = std::max(top, a);
      }
      const double d = top * (rel_y + 0x1p-48);
      if (normal) s = f.block_scale(top - d, tensor_scale);
      exact = !normal || !(s.value == 0 || std::isnormal(s.value)) ||
              !same_scale(s, f.block_scale(top + d, tensor_scale));
      if (exact) {
        accurate_y.resize(hi - lo);
        for (std::size_t i = lo; i < hi; ++i) accurate_y[i - lo] = y.accurate(i);
        yv = accurate_y.data();
      }
    }
    if (exact) {
      for (std::size_t i = lo; i < hi; ++i) amax = max_abs_nan(amax, yv[i - lo]);
      s = f.block_scale(amax, tensor_scale);
    }
    const bool lattice = !std::isnan(s.value);
    ++r.blocks;
    // Every case: the element's stored value and ordinal, the reference's ordinal (from its interval when
    // that settles it, else accurate), and what they add to the report.
    // A new largest error (or the first): where it is. The value and the reference are the approximations
    // where only bounded; block_error replaces them for the element it reports.
    const auto note_max = [&](std::uint64_t d, std::size_t i, double stored, double e) {
      if (d <= r.max_ulp && p.any) return;
      r.max_ulp = d;
      r.at_index = i;
      r.at_block = b;
      r.at_x = x[i];
      r.at_value = yv[i - lo];
      r.at_stored = stored;
      r.at_reference = e;
      r.at_block_max = amax;
      p.any = true;
    };
    const auto general = [&](std::size_t i) {
      std::pair<double, std::int64_t> so;
      if (exact) {
        so = f.store(yv[i - lo], s);
      } else if (const auto w = f.store_within(yv[i - lo], rel_y, s)) {
        so = *w;
      } else {
        so = f.store(y.accurate(i), s);
      }
      const auto [stored, ordinal] = so;
      double e = ref.approx[i];  // the reference, exact when `known`
      bool known = rel == 0 || !std::isnormal(e) || !lattice || std::isnan(stored);
      double e_lo = e, e_hi = e;  // the interval holding the accurate reference
      std::int64_t o = 0;         // its lattice ordinal (when the lattice and both values are numbers)
      if (!known) {
        if (const auto w = f.ordinal_within(e, rel, s)) {
          o = *w;
          e_lo = e * (1 - rel), e_hi = e * (1 + rel);
          if (e < 0) std::swap(e_lo, e_hi);
        } else {
          known = true;
        }
      }
      if (known && rel != 0) e = e_lo = e_hi = ref.accurate(i);
      std::uint64_t d;
      if (std::isnan(stored) || std::isnan(e) || !lattice) {
        d = f.ulp_distance(stored, e, s);
      } else {
        if (known) o = f.lattice_ordinal(e, s);
        d = ordinal >= o ? static_cast<std::uint64_t>(ordinal - o) : static_cast<std::uint64_t>(o - ordinal);
      }
      if (d != 0) ++r.mismatch;
      if (d == std::numeric_limits<std::uint64_t>::max())
        ++r.infinite;
      else
        p.sum += static_cast<double>(d);
      note_max(d, i, stored, e);
      if (std::isfinite(stored) && std::isfinite(e)) {
        if (known) {
          r.max_abs = std::max(r.max_abs, std::fabs(stored - e));
        } else {
          // fl|stored − t| is monotone in t on each side of stored: its value at the accurate t lies between
          // its values at the interval's ends (0 when stored is inside).
          const double a = std::fabs(stored - e_lo), c = std::fabs(stored - e_hi);
          const double up = std::max(a, c), down = e_lo <= stored && stored <= e_hi ? 0 : std::min(a, c);
          p.max_abs_lo = std::max(p.max_abs_lo, down);
          if (up >= std::max(p.max_abs_lo, r.max_abs)) p.abs_candidates.push_back({i, up, stored});
        }
      }
      if (e < 0) {
        ++r.negative;
        if (stored == 0) {
          ++r.flushed;
          p.flushed_lo = std::min(p.flushed_lo, x[i]);
          p.flushed_hi = std::max(p.flushed_hi, x[i]);
        }
      }
    };
    if (!lattice || !f.lattice_is_normal(s)) {
      for (std::size_t i = lo; i < hi; ++i) general(i);
      continue;
    }
    // The common case, the same results without a branch on the data: both values normal doubles, both
    // roundings settled (or exact), on a lattice of normal doubles (store's main path: ±magnitude(k)·s).
    const double sv = s.value;
    // One pass with no calls and no branches on the data: the block's sums in locals, its stored values,
    // errors and upper bounds of |stored − reference| in qs, ds and ups; committed when every element took
    // it, else the block again, by `general`. When y and ref are one object (the function against itself:
    // one set of values, one accurate function) the reference's rounding is the stored value's.
    std::uint64_t sum = 0, mismatch = 0, negative = 0, flushed = 0, bmax = 0;
    double abs_lo = 0, abs_up = 0, f_lo = kInf, f_hi = -kInf;
    bool ok = true;
    const std::size_t n = hi - lo;
    const double* ev = ref.approx.data() + lo;
    const double* xv = x.data() + lo;
    const bool exact_ref = rel == 0;
    const auto pass = [&](auto same) {
      for (std::size_t j = 0; j < n; ++j) {
        const double yi = yv[j], ei = same ? yi : ev[j];
        const double v = yi / sv, w = same ? v : ei / sv;
        std::size_t ky, ke;
        const bool sy = f.index_within(std::fabs(v), rel_y, ky);
        const bool se = same ? sy : f.index_within(std::fabs(w), rel, ke);
        if (same) ke = ky;
        // Without branches: the four conditions as 0/1 integers.
        ok &= (static_cast<unsigned>(sy | exact) & static_cast<unsigned>(se | exact_ref) &
               static_cast<unsigned>(is_normal_bits(yi)) & static_cast<unsigned>(is_normal_bits(ei))) != 0;
        const double q = std::copysign(f.magnitude(ky) * sv, v);
        const auto iy = static_cast<std::int64_t>(ky), ie = static_cast<std::int64_t>(ke);
        const std::int64_t diff = (v < 0 ? -iy : iy) - (w < 0 ? -ie : ie);
        const auto d = static_cast<std::uint64_t>(diff < 0 ? -diff : diff);
        mismatch += d != 0;
        sum += d;
        bmax = std::max(bmax, d);
        // |stored − reference| between its values at the interval's ends (as `general`; with rel = 0 both
        // are the value); products with 0 or 1 and bit masks instead of branches on random data.
        const double e1 = ei * (1 - rel), e2 = ei * (1 + rel);
        const double e_lo = std::min(e1, e2), e_hi = std::max(e1, e2);
        const double a = std::fabs(q - e_lo), c = std::fabs(q - e_hi);
        const bool inside = (e_lo <= q) & (q <= e_hi);
        const double up = std::max(a, c), down = std::min(a, c) * static_cast<double>(!inside);
        abs_lo = std::max(abs_lo, down);
        abs_up = std::max(abs_up, up);
        qs[j] = q;
        ups[j] = up;
        ds[j] = d;
        const bool neg = ei < 0, fl = neg & (q == 0);
        negative += neg;
        flushed += fl;
        const std::uint64_t keep = std::uint64_t{0} - static_cast<std::uint64_t>(fl), xb = bits_of(xv[j]);
        f_lo = std::min(f_lo, double_of((xb & keep) | (bits_of(kInf) & ~keep)));
        f_hi = std::max(f_hi, double_of((xb & keep) | (bits_of(-kInf) & ~keep)));
      }
    };
#if GELU_AVX512
    const PassSums ps = &y == &ref ? pass_avx512<true>(f, yv, ev, xv, n, sv, rel_y, rel, exact, exact_ref,
                                                       qs.data(), ups.data(), ds.data())
                                   : pass_avx512<false>(f, yv, ev, xv, n, sv, rel_y, rel, exact, exact_ref,
                                                        qs.data(), ups.data(), ds.data());
    sum = ps.sum, mismatch = ps.mismatch, negative = ps.negative, flushed = ps.flushed, bmax = ps.bmax;
    abs_lo = ps.abs_lo, abs_up = ps.abs_up, f_lo = ps.f_lo, f_hi = ps.f_hi, ok = ps.ok;
    (void)pass;
#else
    if (&y == &ref)
      pass(std::true_type{});
    else
      pass(std::false_type{});
#endif
    std::size_t bat = lo;  // the block's first largest error
    while (ds[bat - lo] != bmax) ++bat;
    if (!ok) {
      for (std::size_t i = lo; i < hi; ++i) general(i);
      continue;
    }
    p.sum += static_cast<double>(sum);
    r.mismatch += mismatch;
    r.negative += negative;
    r.flushed += flushed;
    p.flushed_lo = std::min(p.flushed_lo, f_lo);
    p.flushed_hi = std::max(p.flushed_hi, f_hi);
    note_max(bmax, bat, qs[bat - lo], ref.approx[bat]);
    if (rel == 0) {
      r.max_abs = std::max(r.max_abs, abs_up);
    } else {
      p.max_abs_lo = std::max(p.max_abs_lo, abs_lo);
      const double floor = std::max(p.max_abs_lo, r.max_abs);
      if (abs_up >= floor)
        for (std::size_t i = lo; i < hi; ++i)
          if (ups[i - lo] >= floor) p.abs_candidates.push_back({i, ups[i - lo], qs[i - lo]});
    }
  }
  if (r.flushed) {
    r.flushed_x_lo = p.flushed_lo;
    r.flushed_x_hi = p.flushed_hi;
    p.any_flush = true;
  }
}

/// The tensor scale of NVFP4 from y's largest magnitude: exact, or, with y bounded, from both ends of that
/// maximum's interval when they agree (the accurate values of the elements that can be the largest when not).
double tensor_scale_of(const BlockFormat& f, const BoundedReference& y) {
  if (f.row().rule != ScaleRule::NvTwoLevel) return 1;
  double tensor_amax = 0;
  if (y.rel_error == 0) {
    for (double v : y.approx) tensor_amax = max_abs_nan(tensor_amax, v);
    return f.tensor_scale(tensor_amax);
  }
  double top = 0, other = 0;  // the largest normal approximation; the largest accurate value of the others
  for (std::size_t i = 0; i < y.approx.size(); ++i) {
    const double a = std::fabs(y.approx[i]);
    if (std::isnormal(a))
      top = std::max(top, a);
    else
      other = max_abs_nan(other, y.accurate(i));
  }
  const double d = top * (y.rel_error + 0x1p-48);
  const double t = f.tensor_scale(std::max(top - d, other));
  if (!std::isnan(other) && bits_of(t) == bits_of(f.tensor_scale(std::max(top + d, other)))) return t;
  tensor_amax = other;
  for (std::size_t i = 0; i < y.approx.size(); ++i) {
    const double a = std::fabs(y.approx[i]);
    if (std::isnormal(a) && a + a * (y.rel_error + 0x1p-48) >= top - d)
      tensor_amax = max_abs_nan(tensor_amax, y.accurate(i));
  }
  return f.tensor_scale(tensor_amax);
}

}  // namespace

BlockErrorReport block_error(const BlockFormat& f, std::span<const double> x, std::span<const double> y,
                             std::span<const double> ref) {
  if (x.size() != ref.size())
    throw std::invalid_argument("block_error: x, y and the reference differ in size");
  return block_error(f, x, y, BoundedReference{ref, 0, [&](std::size_t i) { return ref[i]; }});
}

BlockErrorReport block_error(const BlockFormat& f, std::span<const double> x, std::span<const double> y,
                             const BoundedReference& ref) {
  if (x.size() != y.size()) throw std::invalid_argument("block_error: x, y and the reference differ in size");
  return block_error(f, x, BoundedReference{y, 0, [&](std::size_t i) { return y[i]; }}, ref);
}

BlockErrorReport block_error(const BlockFormat& f, std::span<const double> x, const BoundedReference& y,
                             const BoundedReference& ref) {
  if (x.size() != y.approx.size() || x.size() != ref.approx.size())
    throw std::invalid_argument("block_error: x, y and the reference differ in size");
  for (const double rel : {y.rel_error, ref.rel_error})
    if (!(rel >= 0 && rel < 0x1p-20))
      throw std::invalid_argument("block_error: the reference's relative error bound is not in [0, 2^-20)");
  const double t = tensor_scale_of(f, y);
  const auto bs = static_cast<std::size_t>(f.block_size());
  const std::size_t nblocks = (x.size() + bs - 1) / bs;
  // Runs of whole blocks on the pool; the partial reports merged in block order, so the result (the first
  // element with the largest error included) does not depend on the split.
  std::mutex m;
  std::vector<std::pair<std::size_t, Partial>> parts;
  parallel_for(nblocks, std::max<std::size_t>(1, 4096 / bs), [&](std::size_t b0, std::size_t b1) {
    Partial p;
    score_blocks(f, t, x, y, ref, b0, b1, p);
    const std::lock_guard<std::mutex> lock(m);
    parts.emplace_back(b0, std::move(p));
  });
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  BlockErrorReport r;
  r.n = x.size();
  double sum = 0, max_abs_lo = 0;
  bool any = false, any_flush = false;
  for (const auto& [b0, p] : parts) {
    const BlockErrorReport& q = p.r;
    r.blocks += q.blocks;
    r.mismatch += q.mismatch;
    r.infinite += q.infinite;
    sum += p.sum;
    if (p.any && (!any || q.max_ulp > r.max_ulp)) {
      r.max_ulp = q.max_ulp;
      r.at_index = q.at_index;
      r.at_block = q.at_block;
      r.at_x = q.at_x;
      r.at_value = q.at_value;
      r.at_stored = q.at_stored;
      r.at_reference = q.at_reference;
      r.at_block_max = q.at_block_max;
      any = true;
    }
    r.max_abs = std::max(r.max_abs, q.max_abs);
    max_abs_lo = std::max(max_abs_lo, p.max_abs_lo);
    r.negative += q.negative;
    r.flushed += q.flushed;
    if (p.any_flush) {
      r.flushed_x_lo = any_flush ? std::min(r.flushed_x_lo, q.flushed_x_lo) : q.flushed_x_lo;
      r.flushed_x_hi = any_flush ? std::max(r.flushed_x_hi, q.flushed_x_hi) : q.flushed_x_hi;
      any_flush = true;
    }
  }
  // The largest |stored − reference| among the elements only bounded that can still reach it.
  const double floor_abs = std::max(max_abs_lo, r.max_abs);
  for (const auto& [b0, p] : parts)
    for (const Partial::Candidate& c : p.abs_candidates)
      if (c.up >= floor_abs) r.max_abs = std::max(r.max_abs, std::fabs(c.stored - ref.accurate(c.i)));
  if (any && ref.rel_error != 0) r.at_reference = ref.accurate(r.at_index);
  if (any && y.rel_error != 0) {
    r.at_value = y.accurate(r.at_index);
    double amax = 0;
    for (std::size_t i = r.at_block * bs; i < std::min(x.size(), (r.at_block + 1) * bs); ++i)
      amax = max_abs_nan(amax, y.accurate(i));
    r.at_block_max = amax;
  }
  r.mean_ulp = r.n > r.infinite ? sum / static_cast<double>(r.n - r.infinite) : 0;
  return r;
}

}  // namespace gelu

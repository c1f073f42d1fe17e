// GELU Lab core: the precision lab — zoo entries (gelu/zoo.hpp) in the number formats models are stored in.
//
// Semantics for a storage format S and a compute format C: the input x is a value of S; the entry is
// evaluated at x with its intermediates in C ("as computed") and its result rounded once to S; the reference
// is the registry's double evaluation (formulas.hpp, within 1-2 ULP of double) at x, and "the correctly
// rounded value in S" is that double rounded once to S. Errors are scored by analysis::score: abs and rel
// against the double reference, ULP as analysis::ulp_error (for the 8- and 16-bit formats the number of
// values of S between the two rounded results: 0 = identical after rounding), and a mismatch wherever the
// two rounded results differ.
//
// Everything here returns plain data and takes an optional progress/cancel callback, so the GUI can run it on
// a worker thread and draw the result on the next frame.
//
// [SECTION] Sweeps: every value of a format in [lo, hi] (or n samples), one entry against the reference.
// [SECTION] Facts: where results vanish and intermediates overflow; a one-line verdict; the int8 view.
// [SECTION] Summary tables: one row per entry and format, as text, CSV and Markdown.
// [SECTION] Pair checks: (x, y) pairs from an implementation against the correctly rounded function, with
//           memory independent of the number of pairs (gelulab check).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/analysis.hpp"
#include "gelu/cost.hpp"
#include "gelu/format.hpp"
#include "gelu/zoo.hpp"

namespace gelu::precision {

/// Called now and then with the fraction done (0 to 1); returning false cancels the computation.
using Progress = std::function<bool(double fraction)>;

// [SECTION] Sweeps

/// The compute format frameworks use for a storage format: f64 for f64, f32 otherwise (upcast, compute in
/// f32, round once).
Format default_compute(const Format& storage);

/// The inputs of a sweep: with samples == 0 every finite value of `storage` in [lo, hi] in increasing order
/// (-0 before +0; storage must be enumerable, else std::invalid_argument); otherwise `samples` evenly spaced
/// points of [lo, hi] (finite, lo <= hi) rounded to storage.
std::vector<double> inputs(const Format& storage, double lo, double hi, std::size_t samples = 0);

struct SweepSpec {
  Format storage{FormatId::BF16};
  Format compute{FormatId::F32};
  int order = 0;  // 0: f, 1: f' (against the reference's f')
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  std::size_t samples = 0;  // 0: exhaustive (see inputs())
};

struct Sweep {
  std::string entry_id;
  Format compute;
  int order = 0;
  /// errors.format is the storage format; errors.value the entry's results rounded to it; errors.fn is
  /// empty (the entry is not a registry function), errors.reference the reference at `order`.
  analysis::ErrorReport errors;
  std::vector<std::uint8_t>
      overflowed;             // per input: 1 where an intermediate overflowed in the compute format
  std::size_t overflows = 0;  // inputs with an overflow (entries evaluated through Arith only)
  bool cancelled = false;     // the callback stopped it; nothing else is filled in
};

/// One entry against the reference (a registry function; its order is replaced by spec.order) at
/// inputs(spec.storage, spec.lo, spec.hi, spec.samples). Throws std::invalid_argument for order 1 when the
/// entry has no f'. An exhaustive 16-bit sweep takes a few ms (tests/bench/precision_bench.cpp).
Sweep sweep(const zoo::Entry& e, const analysis::FunctionSpec& reference, const SweepSpec& spec,
            const Progress& progress = {});
/// The same at the given inputs (each rounded to storage).
Sweep sweep_at(const zoo::Entry& e, const analysis::FunctionSpec& reference, std::vector<double> x,
               const Format& storage, const Format& compute, int order = 0, const Progress& progress = {});

/// A sweep computed a few chunks of 4096 inputs at a time, for a caller without threads (the browser's
/// Precision panel, between frames): sweep_job sets it up (throws as sweep does), sweep_some computes chunks
/// until `go_on` says no after one of them (or the inputs end) and is called again to go on. The finished
/// job's sweep is the same as sweep_at's, bit for bit (sweep_at runs through it).
struct SweepJob {
  zoo::Entry entry;
  analysis::FunctionSpec reference;
  Format storage, compute;
  int order = 0;
  Sweep sweep;
  std::size_t at = 0;  // the inputs done
  bool done = false;
};
SweepJob sweep_job(const zoo::Entry& e, const analysis::FunctionSpec& reference, std::vector<double> x,
                   const Format& storage, const Format& compute, int order = 0);
SweepJob sweep_job(const zoo::Entry& e, const analysis::FunctionSpec& reference, const SweepSpec& spec);
/// True when the job is done (its sweep scored); false when `go_on` (given the fraction done) stopped it.
bool sweep_some(SweepJob& job, const Progress& go_on);

// [SECTION] Facts

/// Where an entry's results vanish and its intermediates overflow, over the values of a storage format. For
/// the 8- and 16-bit formats every value is evaluated; for f32 and f64 the boundaries are found by bisection
/// over the values (ordinals), which assumes one crossing on each side.
struct Tails {
  /// The most negative input whose stored result is not zero, every input below it giving ±0 ("non-zero
  /// down to x = …"), and the input just below it ("0 from x = …"). Both empty when even the most negative
  /// value of the format gives a non-zero result.
  std::optional<double> lowest_nonzero, first_zero;
  /// The smallest positive and the largest negative input at which an intermediate overflows in the compute
  /// format; empty when none does (or the entry is not evaluated through Arith, e.g. a live peer).
  std::optional<double> overflow_above, overflow_below;
};
/// Over the values of `storage` in [lo, hi] (every one by default): a zero run that reaches x = 0 and beyond
/// (ReLU) ends where the first non-zero result is, so lowest_nonzero is empty only when every input in the
/// range gives zero. f32 and f64 (bisection over the whole format) drop a point outside [lo, hi].
Tails tails(const zoo::Entry& e, const Format& storage, const Format& compute, int order = 0,
            double lo = -std::numeric_limits<double>::infinity(),
            double hi = std::numeric_limits<double>::infinity());

/// A verdict computed from a sweep, with its one-line text, e.g. "identical to exact in bf16 for x ≥ 0.527
/// and x ≤ −13.5; up to 12 ULP on [−13.4, 0.523] (max at x = −4.06); 31.2% of 65280 inputs differ".
/// Inputs at which an intermediate overflowed in the compute format and the result is wrong are named apart
/// ("; besides, 16384 inputs with |x| ≥ 7.01e+12 are wrong: an intermediate overflows in f32"), never folded
/// into the ULP figures: mismatch, max_ulp, differ_lo/hi and the identical runs are over the other inputs.
struct Verdict {
  std::size_t n = 0, mismatch = 0;
  double max_ulp = 0, x_at_max = 0;
  /// The smallest input from which every input up is identical, and the largest up to which every input
  /// down is identical; empty when the last (first) input differs or nothing differs.
  std::optional<double> identical_from, identical_to;
  double differ_lo = 0, differ_hi = 0;  // the lowest and highest inputs that differ (mismatch > 0)
  /// Inputs that are wrong where an intermediate overflowed; the positive one nearest 0 and the negative one
  /// nearest 0 among them (empty when none on that side).
  std::size_t overflow_wrong = 0;
  std::optional<double> overflow_wrong_from, overflow_wrong_to;
  std::string overflow_text;  // the text's overflow phrase alone ("16384 inputs with …"); empty: none wrong
  std::string text;
};
/// What a verdict reads of a sweep, per input in increasing x: its ULP error, whether it differs from the
/// correctly rounded reference after rounding (analysis::differs) and whether an intermediate overflowed.
/// Spans into storage the caller keeps (a sweep, or a cell that keeps only these).
struct VerdictInput {
  std::span<const double> x, ulp;
  std::span<const std::uint8_t> differs, overflowed;  // overflowed may be empty (none)
  Format format{FormatId::BF16}, compute{FormatId::F32};
  std::string reference;  // as the text names it: "exact", "exact's derivative", "gelu_tanh"
};
/// Per input: 1 where the sweep's stored result differs from the correctly rounded reference.
std::vector<std::uint8_t> differing(const Sweep& s);
/// The reference as a verdict names it: reference_name, else "exact" for gelu, else the reference's id;
/// "'s derivative" added at order 1.
std::string verdict_reference(const Sweep& s, std::string_view reference_name = {});
/// The verdict over the inputs in [lo, hi] (every input by default). Restricted to less than the whole
/// sweep, the text names the range: "…; 1.7% of the 9088 inputs in [−8, 4] differ".
Verdict verdict(const VerdictInput& in, double lo = -std::numeric_limits<double>::infinity(),
                double hi = std::numeric_limits<double>::infinity());
/// reference_name names the reference in the text ("exact" when omitted and the reference is gelu, else its
/// id).
Verdict verdict(const Sweep& s, std::string_view reference_name = {},
                double lo = -std::numeric_limits<double>::infinity(),
                double hi = std::numeric_limits<double>::infinity());

/// How an entry or registry function id is evaluated, for an output that names it (the phrase gelulab check
/// uses): "zoo entry tanh_form as shipped, computed in f32, rounded to bf16", "registry function gelu_tanh,
/// correctly rounded to bf16" (in f32 "…, its float path"; in f64 "…, in double"). The zoo's tanh_form and
/// the registry's gelu_tanh are one formula with two semantics that give different answers (13,588 and 6,538
/// bf16 ULP at most). Empty for an unknown id.
std::string semantics(std::string_view id, const Format& storage, const Format& compute);
/// The same phrase where the result goes through a rounding-point chain or into blocks: "zoo entry tanh_form
/// as shipped, computed in f32, stored in mxfp4" and "registry function gelu_tanh, in double, stored in
/// mxfp4" (the registry's double quantized block by block); with `rounded_to_compute` (a chain: the registry
/// function correctly rounded to the compute format) "registry function gelu_tanh, correctly rounded to bf16,
/// stored in mxfp4". `compute` and `store` are names as printed ("each chain's compute format" reads too).
/// Empty for an unknown id.
std::string stored_semantics(std::string_view id, std::string_view compute, std::string_view store,
                             bool rounded_to_compute);

/// int8: how many codes GELU's negative lobe gets at a quantization, and the error that follows. Inputs and
/// results are int8 values of the same quantization.
struct Int8View {
  Quantization q;
  double lobe_min_x = 0, lobe_min = 0;  // GELU's minimum (analysis::properties), −0.16997 at x = −0.75179
  /// The negative codes between round(lobe_min) and 0: the most distinct values the lobe can take.
  int lobe_codes = 0;
  /// Distinct negative codes among the entry's results over the 256 inputs, and the negative inputs whose
  /// result is not zero.
  int lobe_codes_reached = 0;
  int lobe_inputs_nonzero = 0;
  analysis::ErrorStats abs, ulp;  // over the 256 inputs
  analysis::ErrorStats lobe_abs;  // over the negative inputs
};
Int8View int8_view(const zoo::Entry& e, const Quantization& q, const Format& compute);

// [SECTION] Summary tables

struct SummaryRow {
  std::string fn, vs, format, compute;  // compute: empty when the function ignores it (a registry function)
  int order = 0;
  analysis::ErrorStats abs, rel, ulp;  // n and mismatch are in each
  std::optional<Cost> cost;
};
SummaryRow summary_row(const analysis::ErrorReport& r, std::string fn, std::string vs, std::string compute,
                       int order, std::optional<Cost> cost = std::nullopt);
SummaryRow summary_row(const Sweep& s, const zoo::Entry& e, std::string vs);
/// Columns: fn, vs, format, compute, order, n, mismatch, mismatch_pct, max_abs, mean_abs, max_rel,
/// mean_rel, max_ulp, mean_ulp, x_at_max_ulp, cost (weighted, empty when unknown), cost_text. CSV numbers
/// round-trip (inf, nan spelled so); Markdown and text show 3 significant digits. `metrics` not empty: only
/// those metrics' columns (max_abs/mean_abs, max_rel/mean_rel, max_ulp/mean_ulp/x_at_max_ulp).
std::string summary_csv(std::span<const SummaryRow> rows,
                        std::span<const analysis::ErrorMetric> metrics = {});
std::string summary_markdown(std::span<const SummaryRow> rows,
                             std::span<const analysis::ErrorMetric> metrics = {});
std::string summary_text(std::span<const SummaryRow> rows,
                         std::span<const analysis::ErrorMetric> metrics = {});

// [SECTION] Pair checks

struct PairCheckResult {
  std::size_t n = 0, mismatch = 0;
  std::uint64_t max_ulp = 0;
  double x_at_max = 0;  // the first x with the largest error
  double mean_ulp = 0;
  struct Bucket {
    std::uint64_t lo, hi;  // ULP errors in [lo, hi]: 0, 1, 2, 3-4, 5-8, 9-16, …
    std::size_t count;
  };
  std::vector<Bucket> histogram;  // every bucket from 0 up to the largest error's
  struct Worst {
    std::size_t row;  // as given to add()
    double x, y, expected;
    std::uint64_t ulp;
  };
  std::vector<Worst> worst;  // up to 10, largest error first, earlier rows first among equals
};

/// Accumulates (x, y) pairs of a format against the correctly rounded reference: the entry evaluated in f64
/// and rounded once to the format (for a registry function from zoo::from_registry, the double evaluation).
/// Memory is constant (a 512 KiB cache of reference values for the 8- and 16-bit formats).
class PairCheck {
 public:
  /// `compute`: the format the reference is evaluated in before the rounding to `fmt` (f64: correctly
  /// rounded for a registry function; a zoo entry's compute format to check it as shipped).
  PairCheck(zoo::Entry reference, const Format& fmt, int order = 0,
            const Format& compute = Format(FormatId::F64));
  /// The correctly rounded reference at x (a value of the format).
  double expected(double x);
  /// Adds one pair (x and y values of the format, finite) and returns its ULP error.
  std::uint64_t add(std::size_t row, double x, double y) { return add(row, x, y, expected(x)); }
  /// The same with the reference value `want` (= expected(x)) already at hand.
  std::uint64_t add(std::size_t row, double x, double y, double want);
  PairCheckResult result() const;

 private:
  zoo::Entry ref_;
  Format fmt_;
  int order_;
  Format compute_;
  std::vector<double> cache_;
  std::vector<std::uint8_t> cached_;
  std::size_t n_ = 0, mismatch_ = 0;
  std::uint64_t max_ulp_ = 0;
  double x_at_max_ = 0;
  long double sum_ = 0;
  std::array<std::size_t, 66> buckets_{};
  std::vector<PairCheckResult::Worst> worst_;
};

}  // namespace gelu::precision

// The Precision panel's model (no ImGui): exhaustive sweeps of zoo entries over every value of the chosen
// storage formats against the correctly rounded GELU (gelu/precision.hpp), their verdicts, where results
// vanish and intermediates overflow, the int8 view, the whole zoo's cost against its error, and the summary
// table as CSV or Markdown. The sweeps run on a worker thread (start/cancel/take, as the benchmark runner);
// results are shared, immutable cells, cached by (entry, format, compute, order), so ticking a format on or
// off costs nothing twice. A headless shot computes the same on its own thread (run_now).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gelu/block_format.hpp"
#include "gelu/chain.hpp"
#include "gelu/format.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"
#include "model/threads.hpp"

namespace gelu::app {

struct PrecisionConfig {
  std::vector<std::string> entries{"tanh_form", "erf_naive", "erfc_form", "sigmoid_form"};  // zoo ids
  std::vector<std::string> formats{"bf16", "f16"};  // storage formats (8- and 16-bit floats)
  std::string compute = "auto";  // "auto" (what frameworks do: precision::default_compute) or a format name
  int order = 0;                 // 1: the derivatives against GELU′
  double int8_scale = 0.03125;   // the int8 view's quantization: value = scale · code, zero point 0
  bool operator==(const PrecisionConfig&) const = default;
};

/// The storage formats the panel sweeps (enumerable floats: bf16, f16, e4m3, e5m2) and the compute formats.
const std::vector<std::string>& precision_storage_formats();
const std::vector<std::string>& precision_compute_formats();  // "auto", f64, f32, bf16, f16
/// The compute format used for a storage format under the config's choice.
Format compute_for(const std::string& compute, const Format& storage);

/// One entry in one storage format: the sweep's curve, its statistics, verdict and tails.
struct PrecisionCell {
  std::string entry, name;  // zoo id and display name
  std::string format;       // storage format name
  std::string compute;      // compute format name as used ("" when the entry ignores it)
  int order = 0;
  std::vector<double> x, ulp;      // every input and its ULP error (0: identical after rounding)
  std::vector<double> overflow_x;  // inputs at which an intermediate overflowed
  /// Per input: 1 where the stored result differs from the correctly rounded GELU, 1 where an intermediate
  /// overflowed (what cell_verdict reads); the formats as used and the reference as the verdict names it.
  std::vector<std::uint8_t> differs, overflowed;
  Format storage{FormatId::BF16}, compute_format{FormatId::F32};
  std::string reference;
  std::size_t n = 0, mismatch = 0;
  double max_ulp = 0, x_at_max = 0, mean_ulp = 0;
  std::string verdict;  // precision::verdict's one line, over every value of the format
  precision::Tails tails;
  precision::SummaryRow row;
  double sweep_ms = 0;  // wall time of precision::sweep alone
  std::string error;    // non-empty: nothing else is filled in (e.g. the entry has no f′)
};

/// The cell's verdict over its inputs in [lo, hi] (precision::verdict): what a plot of [lo, hi] shows, with
/// wrong results where an intermediate overflowed named apart.
precision::Verdict cell_verdict(const PrecisionCell& c, double lo, double hi);

/// The int8 view of one entry: the codes GELU's negative lobe gets and the error that follows.
struct Int8Cell {
  std::string entry, name;
  precision::Int8View view;
  std::vector<double> x, value, ref;  // the 256 inputs, the entry's results and exact GELU, all int8 values
  std::string error;
};

/// One point of a cost-against-error plot: the weighted cost and the largest |f − GELU| on a range, in f64.
struct ZooPoint {
  std::string id, name, cost_text;
  double cost = 0;
  double max_abs_error = 0, x_at_max = 0;
  bool user = false;  // added at run time (a Designer candidate)
};
/// The yardstick shared by the Precision scatter and the Designer's Pareto plot: max |f − GELU| over
/// `samples` even points of [lo, hi], the entry computed in f64 (its own accuracy, not a format's).
ZooPoint zoo_point(const zoo::Entry& e, double lo = -8, double hi = 8, std::size_t samples = 20001);
/// Every zoo entry on the yardstick (entries that cannot be evaluated are left out), computed once per
/// comparison generation and shared by the Precision and Designer workers (thread-safe; ~0.1 s when stale).
std::vector<ZooPoint> zoo_points();
/// Whether zoo_points() would return at once.
bool zoo_points_fresh();
/// Computes the yardstick's entries not yet computed for this comparison generation, one after the other,
/// until `pause` says to stop (asked after each entry): true when all are done. zoo_points() finishes them.
bool fill_zoo_points(const std::function<bool()>& pause);

/// A zoo entry as the panel lists it.
struct ZooEntryInfo {
  std::string id, name, formula, used_in, cost_text;
  bool has_d1 = false, user = false;
};

struct PrecisionSnapshot {
  PrecisionConfig cfg;                                      // what the cells are for
  std::vector<std::shared_ptr<const PrecisionCell>> cells;  // entries × formats, entry-major (done so far)
  std::vector<std::shared_ptr<const Int8Cell>> int8;        // one per entry (order 0 only)
  /// Where exact GELU (correctly rounded: the registry's double, rounded once) is 0 in each format.
  std::vector<std::pair<std::string, precision::Tails>> exact_tails;
  std::vector<ZooPoint> zoo;          // every zoo entry on the yardstick
  std::vector<ZooEntryInfo> catalog;  // the zoo's entries (built on the worker: first use
  zoo::FittedConstants constants;     // fits the constants, tens of ms)
  std::vector<std::string> missing;   // configured ids that are not in the zoo now
  int done = 0, total = 0;
  bool running = false;
  std::string current;  // what is being swept now
  std::uint64_t version = 0;
  /// The cell of (entry, format), or null.
  const PrecisionCell* cell(const std::string& entry, const std::string& format) const;
};

/// The summary table of a snapshot's cells (precision::summary_row, in cell order).
std::vector<precision::SummaryRow> summary_rows(const PrecisionSnapshot& s);
/// Writes BASE.csv and BASE.md (precision::summary_csv / summary_markdown) through gelu::write_file_atomic,
/// after the output-path check (gelu::why_not_writable); returns what was written or why not.
std::string export_summary(const PrecisionSnapshot& s, const std::string& base);

/// The block view (issue 56): GELU's and SiLU's negative lobe on [−4, 0] as stored in one block of a block
/// format (gelu/block_format.hpp) whose largest magnitude is block_max, against the exact curves.
struct BlockCurve {
  std::string fn;                        // registry id: "gelu", "silu"
  std::vector<double> x, exact, stored;  // samples of [−4, 0]; stored: exact quantized in the block
  double lobe_min = 0, lobe_min_x = 0;   // the lobe's minimum (in double) and where
  /// Where the stored output stops being 0 coming from x = −4: every x in [−4, flush_x) is stored as 0
  /// (bisected to 1e−9). −4 when f(−4) already survives; 0 when the whole lobe is stored as 0.
  double flush_x = 0;
  /// BlockFormat::flush_threshold(lobe_min): the block max from which the whole lobe is stored as 0.
  double flush_block_max = 0;
  std::size_t nonzero = 0;  // samples stored non-zero
};
struct BlockView {
  std::string format;
  double block_max = 0;
  double scale = 0;                // the block's scale (what each element is multiplied by)
  std::vector<double> lattice;     // the block's lattice values in [−1.2, 0.2] (the plot's room)
  std::vector<BlockCurve> curves;  // gelu, silu
};
/// The block formats the view offers (gelu::block_formats() names, in table order).
const std::vector<std::string>& precision_block_formats();
/// Computes the block view; throws std::invalid_argument for an unknown format or block_max ≤ 0.
BlockView block_view(const std::string& format, double block_max, std::size_t samples = 801);

/// The block max that makes x GELU's flush-to-zero threshold: the smallest block max at which GELU(x) is
/// stored as 0 (BlockFormat::flush_threshold), clamped to [lo, hi] — what dragging the threshold line sets.
/// NaN for x ≥ 0 or an unknown format.
double block_max_flushing_at(const std::string& format, double x, double lo = 0.0625, double hi = 64);

/// The distribution view: blocks of pre-activations ~ normal(0, 1), each function's outputs stored block by
/// block (BlockFormat::quantize_blocks, the tensor scale from all of them); per format, the share of the
/// negative outputs that stay non-zero.
struct SurvivalRow {
  std::string format;
  double gelu = 0, silu = 0;  // surviving share of negative outputs, in [0, 1]
  std::size_t negative_gelu = 0, negative_silu = 0;
};
struct SurvivalView {
  std::size_t blocks = 0;  // per format
  std::uint64_t seed = 0;
  std::vector<SurvivalRow> rows;  // one per precision_block_formats() entry
};
/// `blocks` blocks of each format's own block size, seed `seed` (gelu::stochastic::sample_normal).
SurvivalView survival_view(std::size_t blocks = 2048, std::uint64_t seed = 1);

/// The formats each part of a chain offers: 0 the accumulator and 1 the compute format (the number formats
/// one computes in: not int8, not the scale formats), 2 the storage (those and the block formats).
const std::vector<std::string>& precision_chain_formats(int part);
/// "ACC:COMPUTE:STORE" with each part one of precision_chain_formats(part); nullopt (and *why) otherwise.
std::optional<Chain> parse_panel_chain(const std::string& text, std::string* why = nullptr);
/// The rounding-point chains' view: GELU through two chains ACC:COMPUTE:STORE (gelu/chain.hpp) on the same
/// pre-activations ~ normal(0, 1), side by side (gelu::compare_chains, what `gelulab chain` prints).
struct ChainView {
  std::vector<std::string> chains;  // as asked
  int order = 0;                    // 1: the backward pass (GELU′ through the chains)
  std::size_t blocks = 0;           // of 32 pre-activations
  std::uint64_t seed = 0;
  std::vector<double> x;  // the pre-activations
  ChainComparison cmp;
  std::string error;  // non-empty: a chain is not one the panel offers (nothing else is filled in)
};
ChainView chain_view(const std::string& a, const std::string& b, int order = 0, std::size_t blocks = 256,
                     std::uint64_t seed = 1);

class PrecisionLab {
 public:
  PrecisionLab() = default;
  ~PrecisionLab();  // cancels and joins
  PrecisionLab(const PrecisionLab&) = delete;
  PrecisionLab& operator=(const PrecisionLab&) = delete;

  /// Asks for the config's results; a sweep in progress for another config is abandoned. Returns at once.
  void start(const PrecisionConfig& c);
  /// Computes the config's results on the calling thread and publishes them (headless shots, tests); a
  /// request the worker is on is abandoned first.
  void run_now(const PrecisionConfig& c);
  bool running() const { return busy_.load(); }
  /// Copies the latest results when newer than out.version.
  bool take(PrecisionSnapshot& out);

 private:
  struct Key {
    std::string entry, format, compute;
    int order;
    std::uint64_t stamp;  // the comparison generation for entries added at run time, else 0
    bool operator<(const Key& o) const {
      return std::tie(entry, format, compute, order, stamp) <
             std::tie(o.entry, o.format, o.compute, o.order, o.stamp);
    }
    bool operator==(const Key& o) const = default;
  };
  void loop();
  /// Computes `c`; `stale` says when to give up (a newer request or shutdown), `pause` when to stop for now
  /// (without threads: the frame's slice is used up; the cells done are cached for the next call). Returns
  /// false when it gave up or paused.
  bool compute(const PrecisionConfig& c, const std::function<bool()>& stale,
               const std::function<bool()>& pause = {});
  void publish(const std::function<void(PrecisionSnapshot&)>& change);

  /// One request of the worker's loop (wait: for one to come); false once the lab stops.
  bool loop_once(bool wait);
  std::thread thread_;
  std::mutex mu_;  // guards pending_, stop_, shared_
  std::condition_variable cv_;
  std::optional<PrecisionConfig> pending_;
  bool stop_ = false;
  std::atomic<bool> busy_{false};
  std::atomic<std::uint64_t> request_{0};
  PrecisionSnapshot shared_;
  std::mutex cache_mu_;  // guards the caches (the worker and run_now)
  std::map<Key, std::shared_ptr<const PrecisionCell>> cells_;
  std::map<Key, std::shared_ptr<const Int8Cell>> int8_;
  std::map<Key, precision::Tails> exact_;
  struct PartialCell;
  std::shared_ptr<PartialCell> partial_;  // a cell paused inside its sweep (guarded by cache_mu_)
};

}  // namespace gelu::app

// GELU Lab core: checking an implementation's (x, y) pairs against a function — the one source of truth of
// `gelulab check` and of the Python module's gelulab.check (python/).
//
// Each y is compared with the reference value at x rounded once to the format: for a registry function its
// correctly rounded value (the double evaluation rounded once), for a zoo entry the entry as shipped,
// computed in its compute format, then rounded. Every pair counts:
//  - finite x with finite y and finite expected value: the ULP distance and the absolute error;
//  - a "special" pair — x = ±inf or NaN, or y or the expected value NaN or infinite: it matches when y is
//    the expected value (NaN matches NaN; the sign of a zero is not looked at, as for the ULP distance);
//    NaN where −0 is right is a mismatch, reported with the specials, not folded into the ULP figures.
// Budgets (Scope): limits on the maximum ULP error, the mismatches (a count or a percentage), the maximum
// absolute error, over all pairs or over the pairs whose x lies in a range; a budget file (JSON) lists
// several, with a policy for the special pairs. No pair at all is an input error, never a pass.
//
// Input: text (one pair per line: "x y" or "x,y"; blank lines, # comments and a header line such as x,y or
// "x","y" are skipped) and NumPy .npy files (an (N, 2) array, or two 1-D arrays), all opened through the
// one file reader (gelu/fileio.hpp: a FIFO or a device is refused, never waited on) and streamed a chunk at
// a time: memory is that of the histogram however many pairs there are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/format.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"

namespace gelu::check {

/// Bad input (a file, a value, an option, a budget file): one line naming what and where. The CLI exits
/// with status 2; the Python module raises ValueError.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The limits of one budget; unset limits are not checked.
struct Limits {
  std::optional<std::uint64_t> max_ulp;
  std::optional<std::uint64_t> max_mismatch;   // pairs that differ (specials included)
  std::optional<double> max_mismatch_percent;  // of the pairs in the scope
  std::optional<double> max_abs;               // |y - expected| over the finite pairs
  bool any() const { return max_ulp || max_mismatch || max_mismatch_percent || max_abs; }
};

/// "N" (pairs) or "P%" (a percentage, 0 to 100) into l.max_mismatch / l.max_mismatch_percent; InputError
/// starting with `what` ("--max-mismatch") otherwise.
void parse_mismatch(std::string_view text, const std::string& what, Limits& l);

/// What a budget does with the special pairs (x = ±inf/NaN, y or expected NaN/inf).
enum class Specials {
  Exact,   // every special pair must match; one that differs breaks the budget (the default)
  Ignore,  // reported, not gated
};

/// A budget over the pairs whose x lies in [lo, hi] (all pairs, NaN x included, when `all`).
struct Scope {
  std::string name;      // for messages: "--max-ulp", "budget 'b.json'", "budget 'b.json' range [-4, 4]"
  bool options = false;  // from command-line options (--max-ulp …), not a budget file
  bool all = true;
  double lo = -kInf, hi = kInf;
  Limits limits;
  bool contains(double x) const { return all || (x >= lo && x <= hi); }
};

struct Budget {
  std::vector<Scope> scopes;
  Specials specials = Specials::Exact;
};

/// A budget file: {"max_ulp": N, "max_mismatch": N | "P%", "max_abs": E, "specials": "exact" | "ignore",
/// "ranges": [{"range": [A, B], "max_ulp": …, "max_mismatch": …, "max_abs": …}, …]} (A and B numbers or
/// "-inf"/"inf"; every key optional, unknown keys refused). `name` names the file in messages.
Budget parse_budget(std::string_view text, const std::string& name);
/// read_file + parse_budget; InputError naming the file for every problem (missing, a FIFO, bad JSON).
Budget read_budget(const std::string& path);

/// The figures of one scope.
struct Stats {
  std::size_t n = 0, mismatch = 0;  // pairs, and those that differ (specials included)
  std::uint64_t max_ulp = 0;        // over the finite pairs
  double x_at_max = 0;
  double max_abs = 0, x_at_max_abs = 0;
  std::size_t specials = 0, specials_mismatch = 0;
  double x_first_special_mismatch = 0;
};

struct Special {
  std::size_t row;
  double x, y, expected;
};

/// A budget that does not hold.
struct Broken {
  std::string budget;   // "--max-ulp 1", "budget 'b.json' range [-4, 4]: max_ulp 1"
  std::string message;  // "max ULP error 5 exceeds --max-ulp 1 (at x = -3.5)"
  double x = 0;         // its worst input
};

struct Result {
  std::string fn;                     // "gelu", "gelu'"
  std::string format;                 // "bf16"
  std::string semantics;              // "registry function gelu, correctly rounded to bf16"
  std::size_t n = 0;                  // pairs compared (finite and special, within --range)
  std::size_t outside = 0;            // pairs skipped by --range
  std::size_t mismatch = 0;           // pairs that differ (specials included)
  precision::PairCheckResult finite;  // the finite pairs: ULP figures, histogram, ten worst
  double max_abs = 0, x_at_max_abs = 0;
  std::size_t specials = 0, specials_mismatch = 0;
  std::vector<Special> special_mismatches;  // the first ten
  std::vector<Scope> scopes;                // the budget's scopes …
  std::vector<Stats> scope_stats;           // … and their figures
  Specials specials_policy = Specials::Exact;
  std::vector<Broken> broken;  // empty: every budget holds
  bool passed() const { return broken.empty(); }
};

/// What is compared with what.
struct Setup {
  zoo::Entry reference;
  bool registry = true;  // a registry function (correctly rounded) or a zoo entry (as shipped)
  std::string fn;        // the name in reports ("gelu", "tanh_form")
  Format format;
  int order = 0;                  // 0: f, 1: f'
  std::optional<Format> compute;  // a zoo entry's compute format (default: precision::default_compute)
  bool have_range = false;        // --range: only pairs with x in [lo, hi] are compared
  double lo = -kInf, hi = kInf;
  Budget budget;
};

/// Accumulates pairs; constant memory.
class Checker {
 public:
  explicit Checker(Setup s);
  /// One pair of values of the format (NaN and infinities included where the format has them). `row` names
  /// it in the worst lists.
  void add(std::size_t row, double x, double y);
  /// Pairs x[i], y[i] with rows first_row + i: the same result as add() one by one. For f32 and f64 (no cache
  /// of reference values) and a registry function the reference values — where the time goes — are computed
  /// on the thread pool (gelu/kernels.hpp).
  void add_many(const double* x, const double* y, std::size_t n, std::size_t first_row);
  /// The figures and the budgets' verdict. InputError when no pair was compared (`source` names the input).
  Result result(const std::string& source) const;
  const Format& format() const { return s_.format; }

 private:
  Setup s_;
  Format compute_;
  precision::PairCheck pairs_;
  std::size_t outside_ = 0, mismatch_ = 0, specials_ = 0, specials_mismatch_ = 0;
  double max_abs_ = 0, x_at_max_abs_ = 0;
  std::vector<Special> special_mismatches_;
  std::vector<Stats> stats_;
  std::vector<double> want_;
  double special_expected(double x) const;
  void add_with(std::size_t row, double x, double y, const double* want);
};

/// Turns a number read from a file into a value of the format, or says why it is not one.
class Values {
 public:
  explicit Values(const Format& f) : f_(f) {}
  /// From text. f32 and f64: any decimal that reads (rounded once, directly to the format) to a value of
  /// the format is that value — a %.9g print included. The narrow formats: the value itself, within 1/16 of
  /// the format's spacing of it (printed with the digits of a wider format), or its shortest decimal in
  /// the format. nan, inf, -inf where the format has them. `where` and `what` name it in messages.
  double from_text(std::string_view tok, const std::string& where, const char* what) const;
  /// From a .npy file's value (exact): it must be a value of the format as it is.
  double from_binary(double d, const std::string& where, const char* what) const;

 private:
  Format f_;
  [[noreturn]] void not_a_value(std::string_view shown, double nearest, const std::string& where,
                                const char* what) const;
};

/// Text pairs from an open descriptor (not closed here); `name` names it in messages ("--pairs 'p.txt'").
void read_text(int fd, const std::string& name, Checker& check);
/// --pairs FILE: a .npy array of shape (N, 2), or text. `name` as for read_text.
void read_pairs(const std::string& path, const std::string& name, Checker& check);
/// --x X.npy --y Y.npy: two 1-D arrays of the same length.
void read_columns(const std::string& xpath, const std::string& xname, const std::string& ypath,
                  const std::string& yname, Checker& check);

/// "registry function gelu, correctly rounded to bf16" / "zoo entry tanh_form as shipped, computed in f32,
/// rounded to bf16".
std::string semantics(const Setup& s);

}  // namespace gelu::check

// GELU Lab core: the approximation zoo — every GELU approximation as it is shipped, evaluated "as computed".
//
// An entry is a formula, where it is used, its cost (gelu/cost.hpp) and evaluators f and, where meaningful,
// f' that take (x, compute format): every intermediate is rounded to the compute format (gelu/format.hpp)
// as the shipped code rounds it — FasterTransformer's half2 path computes x³ in f16, reduced-precision
// frameworks upcast to f32 and round once. The storage format (what x and the result are stored in) is the
// precision lab's business (gelu/precision.hpp), not the entry's.
//
// [SECTION] Arith: arithmetic in a compute format, the building block of every built-in evaluator.
// [SECTION] Entries: the record, the built-in list, entries added at run time (live peers such as oneDNN,
//           candidates of the approximation designer), the registry functions as correctly rounded entries.
// [SECTION] Factories and fitted constants: uniform piecewise-linear GELU for any N and a; the constants
//           fitted to GELU itself by analysis::fit_minimax (never typed in).
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/cost.hpp"
#include "gelu/format.hpp"

namespace gelu::zoo {

// [SECTION] Arith

/// Arithmetic in a compute format. Each operation computes its exact result in double and rounds it once to
/// the format. For +, -, ×, ÷ of operands of a format with p ≤ 24 significant bits that is the correctly
/// rounded result (double's 53 bits ≥ 2p + 2 make the double rounding innocuous); fma and the
/// transcendentals (exp, tanh, erf, erfc: the double library value rounded once) behave as a correctly
/// rounded library of that format, to within double's own accuracy. In f64 every operation is plain double.
/// An overflow — a finite operand giving a result the format cannot hold (±inf, or beyond the largest
/// finite value + half a spacing where the format saturates: e4m3, int8) — is counted on the calling thread
/// (overflow_count), so the precision lab can mark where intermediates overflow.
class Arith {
 public:
  explicit Arith(const Format& f);
  const Format& format() const { return f_; }

  double in(double v) const { return r(v, v); }  // an input or a constant, rounded into the format
  double add(double a, double b) const { return r(a + b, a, b); }
  double sub(double a, double b) const { return r(a - b, a, b); }
  double mul(double a, double b) const { return r(a * b, a, b); }
  double div(double a, double b) const { return r(a / b, a, b); }
  double fma(double a, double b, double c) const;  // a·b + c rounded once
  double exp(double a) const;
  double tanh(double a) const;
  double erf(double a) const;
  double erfc(double a) const;
  double min(double a, double b) const { return a < b ? a : b; }  // exact: no rounding, no overflow
  double max(double a, double b) const { return a > b ? a : b; }

 private:
  Format f_;
  double saturate_above_;  // |exact| beyond which a saturating format counts an overflow
  double r(double exact, double a, double b = 0.0) const;
};

/// Overflows counted by Arith on this thread since the last reset.
std::size_t overflow_count();
void reset_overflow_count();

// [SECTION] Entries

/// f or f' of an entry at x (a double; the evaluator rounds it into the compute format itself).
using Evaluator = std::function<double(double x, const Format& compute)>;
/// Optional whole-array path: y[i] = f^(order)(x[i]) for order 0 or 1 (live peers run their library on the
/// whole array at once). When empty, f and d1 are called per element.
using BatchEvaluator =
    std::function<void(std::span<const double> x, std::span<double> y, int order, const Format& compute)>;

enum class Origin {
  Builtin,   // the static list below
  Registry,  // a registry function as its correctly rounded entry (from_registry)
  Peer,      // a live peer evaluated through another library (oneDNN), added at run time
  User,      // added at run time by the app (the approximation designer's candidates)
};

struct Entry {
  std::string id;        // stable identifier for the CLI and files, e.g. "tanh_form"
  std::string name;      // for people, e.g. "tanh form"
  std::string formula;   // Unicode math, e.g. "½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))"
  std::string used_in;   // where it is shipped
  std::string citation;  // where it comes from
  Cost cost;             // one evaluation of f
  Evaluator f;           // required
  Evaluator d1;          // f'; empty where it is not meaningful (a table, an integer kernel)
  BatchEvaluator batch;  // optional
  /// The published maximum of |f - GELU| over the reals (NaN where none is published) and where it is
  /// reached, as published; tests reproduce it in f64.
  double published_max_error = std::numeric_limits<double>::quiet_NaN();
  std::string published_at;
  /// False where the entry's arithmetic is fixed whatever compute format is asked for (a table built in
  /// f32, an integer kernel, a registry function evaluated in double): the precision lab says so.
  bool uses_compute = true;
  Origin origin = Origin::User;

  bool has_d1() const { return static_cast<bool>(d1) || static_cast<bool>(batch); }
  /// y[i] = f^(order)(x[i]) in the compute format (order 0 or 1; order 1 without d1 throws
  /// std::invalid_argument), through batch when present.
  void eval(std::span<const double> x, std::span<double> y, int order, const Format& compute) const;
  double eval(double x, int order, const Format& compute) const;
};

/// Every entry: the built-in ones in display order, then those added at run time in the order they were
/// added. A snapshot (entries are cheap to copy: their evaluators share state).
std::vector<Entry> entries();
/// The built-in entries only.
std::vector<Entry> builtin_entries();
/// The entry with that id (built-in or added), nullopt when there is none. Registry ids are not entries:
/// see resolve().
std::optional<Entry> find(std::string_view id);
/// A zoo entry by id, else the registry function of that id as its correctly rounded entry; nullopt when
/// the id is neither.
std::optional<Entry> resolve(std::string_view id);
/// Comma-separated ids of entries(), for messages.
std::string ids();

/// Adds an entry at run time, or replaces the added entry of the same id. Thread-safe. Throws
/// std::invalid_argument when the id is empty or has characters other than [a-z0-9_], f is empty, or the id
/// belongs to a built-in entry or a registry function.
void add(Entry e);
/// Removes an added entry; false when no added entry has that id.
bool remove(std::string_view id);

/// A registry function as an entry: f and f' evaluated in double (the registry's source of truth) whatever
/// the compute format (uses_compute = false), so that rounded once to a storage format it is the correctly
/// rounded function. id and name are the registry's.
Entry from_registry(const Activation& a, const Params& p);
Entry from_registry(const Activation& a);

/// d = e.eval(x, order, compute) rounded to fmt as a reference: for a registry function's entry
/// (Origin::Registry) its correctly rounded value (gelu::correctly_rounded, the tie rule included), for any
/// other entry fmt.round(d) (its result as computed, rounded once).
double rounded_result(const Entry& e, const Format& fmt, double x, double d, int order);

// [SECTION] Factories and fitted constants

/// Uniform piecewise-linear GELU: N segments on [-a, a] through exact GELU at the knots, 0 below -a and x
/// above a; evaluated as y = slope[i]·x + intercept[i] with i = ⌊(x + a)·N/(2a)⌋ and the table in the
/// compute format. Throws std::invalid_argument unless 1 <= N <= 65536 and 0 < a <= 1000. id "pwl<N>" (with
/// "_a<a>" when a != 8).
Entry make_pwl(int segments, double a);

/// The GELU constants fitted to exact GELU itself (minimax on [-8, 8] by analysis::fit_minimax), beside the
/// shipped ones that were fitted to Φ (0.044715, √(2/π), 1.702). Computed once, on first use (a few ms).
struct FittedConstants {
  double tanh_c = 0, tanh_c_error = 0;                       // ½x(1 + tanh(√(2/π)(x + c·x³)))
  double tanh_a = 0, tanh_ac_c = 0, tanh_ac_error = 0;       // ½x(1 + tanh(a·(x + c·x³)))
  double sigmoid_k = 0, sigmoid_k_error = 0;                 // x·σ(k·x)
  double shipped_tanh_error = 0, shipped_sigmoid_error = 0;  // the shipped constants' errors, same grid
};
const FittedConstants& fitted_constants();

}  // namespace gelu::zoo

// GELU Lab: correctly rounded fits (optional: needs GLPK and MPFR; gelu::fit_cr, GELU_HAVE_FIT_CR).
//
// A candidate whose result, computed as the exported code computes it (Horner in the compute format, f32 or
// f64, with or without fma), rounded to nearest even in a small format (bf16, f16, e4m3, e5m2), equals the
// correctly rounded GELU (or GELU′) for EVERY finite input of that format. The RLIBM idea (see
// docs/designer.md):
//  1. Reference: for every input x, the correctly rounded value r(x), from MPFR with a Ziv loop: the value at
//     precision p with an error bound (2^-p·(8 + 4x²) relative per term, covering erfc's and exp's condition
//     numbers); the precision doubles until the whole error interval rounds to one value of the format.
//     |x| ≥ 40 is decided by a bound instead (GELU: 0 < x − GELU(x) < e^-800 above, |GELU| < e^-800 below).
//  2. Rounding intervals: [lo, hi], the values of the compute format that round to r(x) in the format.
//  3. Per piece, a linear program (GLPK's simplex) over those intervals: maximize δ subject to
//     lo + δ·w ≤ p(x) ≤ hi − δ·w (w the interval's half width), a normalized minimax; δ ≥ 0 is feasible.
//     Cutting planes: a few inputs first, then the worst violators of all the piece's inputs, until none.
//  4. The coefficients are rounded to the compute format and the piece is evaluated exactly as exported;
//     inputs that round wrong get their intervals narrowed and the LP is re-solved, until every input passes.
//  5. Degree and pieces: the smallest cost (gelu/cost.hpp) found; finally every finite input of the format
//     is verified through the candidate's own evaluator, clamps included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/fit.hpp"
#include "gelu/fit_export.hpp"

namespace gelu::fit {

/// The correctly rounded value of GELU (Target::Gelu) or GELU′ (Target::GeluPrime) at x in `fmt` (a
/// floating format of at most 16 bits, or f32), by MPFR. Throws FitError for other targets or formats.
double correctly_rounded(Target t, FormatId fmt, double x);

/// Every finite input of a format with its correctly rounded value and rounding interval in the compute
/// format (shared, computed once per target, format and compute format; thread-safe).
struct CrTable {
  Target target = Target::Gelu;
  FormatId format = FormatId::BF16, compute = FormatId::F32;
  std::vector<double> x;       // every finite value of the format, increasing (−0 before +0)
  std::vector<double> r;       // the correctly rounded target there
  std::vector<double> lo, hi;  // the compute-format values that round to r in the format: [lo, hi]
};
std::shared_ptr<const CrTable> cr_table(Target t, FormatId format, FormatId compute);

struct CrSpec {
  Target target = Target::Gelu;      // gelu or gelu_prime
  FormatId format = FormatId::BF16;  // bf16, f16, e4m3, e5m2
  FormatId compute = FormatId::F32;  // f32 or f64
  bool fma = true;                   // Horner with fma (false: each product and sum rounded apart)
  Form form = Form::Piecewise;       // poly or piecewise (uniform pieces)
  int pieces = 0;                    // piecewise: 1..kMaxPieces, 0 = auto (the cheapest found)
  std::optional<double> a, b;        // the range (values of the format); nullopt: the smallest range
                                     // outside which the clamp (0 below, x or 1 above) is already correct
  int max_degree = 12;               // the degree cap per piece
  bool operator==(const CrSpec&) const = default;
};

struct CrPiece {
  double from = 0, to = 0;  // the inputs of the piece: the smallest and largest
  std::size_t inputs = 0;
  int degree = -1;    // the lowest degree that passed (−1: none)
  double margin = 0;  // the LP's δ at that degree (0 … 1: the share of the half interval left free)
  int lp_solves = 0;
};

struct CrResult {
  CrSpec spec;          // as fitted (a, b filled in)
  Candidate candidate;  // form poly or piecewise, spec.format = the compute format, clamp limits, spec.fma
  std::vector<CrPiece> pieces;
  std::size_t inputs = 0;   // every finite input of the format
  std::size_t correct = 0;  // of them, rounded correctly by the candidate as exported (== inputs on success)
  std::vector<double> failing;  // inputs that do not (empty on success; at most 64 kept)
  int lp_solves = 0;
  double seconds = 0;
  /// The result at x (a value of the format): the candidate in the compute format, rounded to the format.
  double eval(double x) const;
};

/// Refused or failed: what() is one line naming the piece and why ("piece 3 of 8 [-2.5, -1.25]: …").
class CrError : public FitError {
 public:
  using FitError::FitError;
};

struct CrOptions {
  /// Called now and then: the fraction done, the stage, and the inputs still failing in the piece being
  /// refined; returning false cancels (Cancelled). Called on the fitting thread.
  std::function<bool(double fraction, std::string_view stage, std::size_t failing)> progress;
};

/// Throws CrError when `s` is not a correctly rounded request the designer takes (before any work).
void validate(const CrSpec& s);
/// Fits and verifies exhaustively. Throws CrError (refused, or no candidate found: the line names the piece
/// and why), Cancelled.
CrResult fit_correctly_rounded(const CrSpec& s, const CrOptions& o = {});

/// Counts the inputs of `t` that `c` (evaluated as exported, fma or not) rounds correctly; failing inputs
/// (up to `keep`) go to `failing`.
std::size_t count_correct(const Candidate& c, const CrTable& t, std::vector<double>* failing = nullptr,
                          std::size_t keep = 64);

/// Test vectors: every finite input of the format and its correctly rounded value.
TestVectors cr_test_vectors(const CrResult& r);
/// "gelulab check --fn gelu [--order 1] --dtype bf16 --pairs PAIRS --max-mismatch 0".
std::string cr_check_command(const CrResult& r, std::string_view pairs = "your_outputs.txt");

}  // namespace gelu::fit

// GELU Lab core: exporting a designer candidate (gelu/fit.hpp) as code with its test vectors.
//
//  - C++: a scalar inline function and a loop over arrays that compilers vectorize (branch-free: clamps are
//    selects), coefficients as hex float literals, Horner with std::fma in the designer's own operation
//    order, so the exported function returns the same bits as Candidate::eval (float or double).
//  - GLSL (4.30 compute or any stage): `float NAME(float x)`; GLSL has no hex float literals, so each
//    coefficient is uintBitsToFloat(bits) with its hex float in a comment.
//  - CUDA C: a __host__ __device__ function and a grid-stride kernel.
// f32, bf16 and f16 candidates compute in float (their coefficients are exact floats; bf16/f16 results are
// rounded to the format by the caller, as kernels that upcast do); f64 candidates in double (GLSL: float).
//
// Test vectors: x (values of the format in [A, B]: all of them for bf16/f16 when there are at most 65,536,
// else an even spread plus the ends, breakpoints and extrema) and y, what the exported code computes (its
// operation order, fma, compute format) rounded to the format. `gelulab check --fn gelu --dtype FMT --pairs
// FILE --max-abs E | --max-ulp N` verifies an implementation's pairs against the correctly rounded GELU at
// the vectors' own figures (see check_command): the loop fit → export → compile → check closes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/fit.hpp"

namespace gelu::fit {

struct TestVectors {
  FormatId format = FormatId::F32;
  /// y: what the exported code computes — the designer's operation order, fma, float arithmetic (double for
  /// f64) — rounded to the format: the C++ export reproduces every y bit for bit
  /// (tests/fit/export_loop_test.py).
  std::vector<double> x, y;
  /// The largest ULP distance (in the format) of y from the correctly rounded GELU (GELU′ for gelu_prime),
  /// the reference of `gelulab check --fn gelu`, and where.
  std::uint64_t measured_ulp = 0;
  double x_at_measured = 0;
  /// The bound the check command states: measured_ulp (the vectors meet it exactly; an implementation in
  /// another operation order may land one ULP further where a value sits near a rounding boundary).
  std::uint64_t max_ulp = 0;
  /// The largest |y - correctly rounded GELU| and where: the bound of an absolute-error fit's check command.
  double max_abs = 0, x_at_max_abs = 0;
  /// How many y differ from the correctly rounded value (the check command's --max-mismatch where some
  /// do not).
  std::size_t mismatch = 0;
  std::vector<std::uint64_t> ulp;  // per x: y's ULP distance from the correctly rounded value
  std::vector<double> abs_error;   // per x: |y - correctly rounded value|
  bool abs_weight = false;         // the candidate was fitted for absolute error
  /// A budget file for `gelulab check --budget`: [A, B] cut into `parts` ranges of as many vectors each, each
  /// with the vectors' own largest error there (max_abs for an abs fit, max_ulp otherwise) and, where some
  /// values are correctly rounded, the count of those that are not. A gate a shifted coefficient cannot
  /// pass: it raises the error somewhere, and each range is held to its own figure.
  std::string budget_json(std::size_t parts = 128) const;
  /// "x y" per line, each number in the shortest text that reads back to the same value of the format.
  std::string text() const;
};

/// The vectors for the candidate; `count` is the spread for formats with too many values to list (f32, f64).
TestVectors test_vectors(const Candidate& c, std::size_t count = 4097);

/// "gelulab check --fn gelu --dtype f32 --pairs PAIRS --max-ulp N" (with --order 1 for gelu_prime): a real
/// gate at the vectors' own figures — an abs-weighted fit states --max-abs E (its largest absolute error), a
/// rel- or ULP-weighted fit --max-ulp N; the vectors pass it, a coefficient moved by 0.1 % fails it.
/// With `budget` (the path of budget_json() written next to the vectors): "... --budget BUDGET" instead of
/// the single bounds.
std::string check_command(const Candidate& c, const TestVectors& v,
                          std::string_view pairs = "your_outputs.txt", std::string_view budget = {});

struct ExportOptions {
  std::string name = "gelu_fit";  // the function's name: a C identifier (is_identifier)
  std::string command;            // the gelulab command line that made the candidate, for the comment
  std::string vectors_file;       // where the test vectors were written, for the comment (may be empty)
  std::string check;              // the check command, for the comment (may be empty)
  std::string note;               // one more comment line after the command (may be empty)
};

std::string export_cpp(const Candidate& c, const ExportOptions& o);
std::string export_glsl(const Candidate& c, const ExportOptions& o);
std::string export_cuda(const Candidate& c, const ExportOptions& o);

/// Why `s` cannot name the exported function (nullopt: it can): not [A-Za-z_][A-Za-z0-9_]* of at most 64
/// characters, a C++ keyword or alternative token, a name <cmath>/<cstddef> define (std, size_t, NAN, M_PI,
/// sqrt, …), a GLSL keyword or reserved word (input, sample, half, shared, …), a CUDA built-in, or reserved
/// (gl_, __, _X).
std::optional<std::string> why_not_identifier(std::string_view s);
bool is_identifier(std::string_view s);
/// The exact value as a C hex float ("0x1.99999ap-4"), with an f suffix when `is_float`.
std::string hex_literal(double v, bool is_float);

}  // namespace gelu::fit

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
// else an even spread plus the ends, breakpoints and extrema) and y, the candidate's exact value rounded to
// the format. `gelulab check --fn gelu --dtype FMT --pairs FILE --max-ulp N` verifies an implementation's
// pairs against the correctly rounded GELU; N is the candidate's own largest distance (see TestVectors).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/fit.hpp"

namespace gelu::fit {

struct TestVectors {
  FormatId format = FormatId::F32;
  std::vector<double> x, y;  // y: the candidate's value (exact arithmetic) rounded to the format
  /// The largest ULP distance (in the format) from the correctly rounded GELU (GELU′ for gelu_prime) over x,
  /// of the candidate computed as the exported code computes it: with fma, and without (each product and
  /// sum rounded apart), whichever is larger.
  std::uint64_t measured_ulp = 0;
  double x_at_measured = 0;
  /// measured_ulp + 1: an implementation may evaluate in another order and land one ULP away from our
  /// result where the value sits near a rounding boundary of the format; the +1 covers that step.
  std::uint64_t max_ulp = 0;
  /// "x y" per line, each number in the shortest text that reads back to the same value of the format.
  std::string text() const;
};

/// The vectors for the candidate; `count` is the spread for formats with too many values to list (f32, f64).
TestVectors test_vectors(const Candidate& c, std::size_t count = 4097);

/// "gelulab check --fn gelu --dtype f32 --pairs PAIRS --max-ulp N" (with --order 1 for gelu_prime).
std::string check_command(const Candidate& c, const TestVectors& v,
                          std::string_view pairs = "your_outputs.txt");

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

/// [A-Za-z_][A-Za-z0-9_]*, at most 64 characters, not a C/C++/GLSL/CUDA keyword we know of.
bool is_identifier(std::string_view s);
/// The exact value as a C hex float ("0x1.99999ap-4"), with an f suffix when `is_float`.
std::string hex_literal(double v, bool is_float);

}  // namespace gelu::fit

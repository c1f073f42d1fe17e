// GELU Lab core: the cost model of an approximation — what one evaluation of f(x) costs in operations, as
// a kernel engineer counts them. One definition for the approximation zoo (precision lab) and the candidates
// of the approximation designer, so that both sit on the same cost-vs-error plot.
#pragma once

#include <cstddef>
#include <string>

namespace gelu {

struct Cost {
  int multiply_adds = 0;        // multiplications, additions and fused multiply-adds, one each
  int divisions = 0;            // divisions and reciprocals
  int transcendentals = 0;      // exp, erf, tanh, log, … (each as one library call)
  int comparisons = 0;          // comparisons, min/max, abs, clamps, selects
  std::size_t table_bytes = 0;  // size of the lookup table the evaluation reads from (0: none)

  /// One number for plots: multiply-adds and comparisons count 1, a division 4, a transcendental 16, and a
  /// table lookup 2 (an L1/L2 load). The weights are a rough reading of AVX-512 throughput on Zen 4 and
  /// Skylake-X (a division is 4-8 FMAs' worth, an exp or erf from a vector math library 10-25); measured
  /// speed (ns/element) is reported beside it wherever a kernel exists.
  double weighted() const {
    return multiply_adds + comparisons + 4.0 * divisions + 16.0 * transcendentals +
           (table_bytes > 0 ? 2.0 : 0.0);
  }
  /// "7 madd, 1 div, 1 transc, 2 cmp, 128 KiB table" (zero terms left out; "free" when everything is 0).
  std::string text() const {
    std::string s;
    auto add = [&s](int n, const char* what) {
      if (n == 0) return;
      if (!s.empty()) s += ", ";
      s += std::to_string(n) + " " + what;
    };
    add(multiply_adds, "madd");
    add(divisions, "div");
    add(transcendentals, "transc");
    add(comparisons, "cmp");
    if (table_bytes > 0) {
      if (!s.empty()) s += ", ";
      s += table_bytes >= 1024 && table_bytes % 1024 == 0 ? std::to_string(table_bytes / 1024) + " KiB table"
                                                          : std::to_string(table_bytes) + " B table";
    }
    return s.empty() ? "free" : s;
  }
  bool operator==(const Cost&) const = default;
};

}  // namespace gelu

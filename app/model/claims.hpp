// Claims a lesson checks live, and quantities a lesson asks about: computed by gelu::core at run time, never
// typed into a lesson. No ImGui.
//
// A lesson quotes them in a step's text as {key} (model/lessons.hpp), in any panel's step:
//   {claim:value:gelu:-0.2:-0.0084}     "GELU(−0.2) ≈ −0.0084"
//   {claim:rising_above:gelu:-1}        "GELU′(x) > 0 for every x > −1"
//   {claim:unbounded:gelu}              "GELU's range is (−∞, ∞)"
//   {claim:slope_peak:gelu:1.4}         "its slope peaks near x ≈ 1.4"
//   {claim:within:gelu_tanh:gelu:0.001} "the tanh form is within 0.001 of exact"
//   {claim:cost:gelu:relu:3}            "exact GELU costs about 3× ReLU" (measured here, scalar and
//                                       vectorized, as the Benchmarks panel measures)
// Each becomes one sentence that starts with the verdict ("✓ holds" or "✗ does not hold") and says what was
// computed. "≈ v" and "about v" hold when the computed number, rounded to the digits v is written with,
// is v.
//
// A predict-then-reveal question's answer is a quantity key (without braces):
//   value:FN:X, slope:FN:X, min:FN, argmin:FN, slope_peak:FN, rising_from:FN, maxdiff:FN:FN2,
//   cost:FN:BASE (vectorized time ratio), cost_scalar:FN:BASE, flush_max:FN:BLOCKFORMAT (the block max
//   from which FN's whole negative lobe is stored as 0 in that block format: BlockFormat::flush_threshold)
// FN is a registry id at its default parameters.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gelu::app::model {

/// True for the keys this module computes ("claim:…"); such keys work in every panel's steps.
bool is_claim_key(std::string_view key);
/// Empty when `key` ("claim:…") is one this module computes, else why not (for the lesson check).
std::string claim_problem(std::string_view key);
/// The sentence for a claim key. Cost claims measure on a worker thread: empty until the measurement is
/// done, unless `wait` (then it blocks). Throws std::invalid_argument for a key claim_problem() refuses.
std::string claim_text(std::string_view key, bool wait = false);

/// Empty when `key` is a quantity key (above), else why not.
std::string quantity_problem(std::string_view key);
/// The quantity's value: empty while a measurement runs (unless `wait`). Throws std::invalid_argument for
/// a key quantity_problem() refuses.
std::optional<double> quantity(std::string_view key, bool wait = false);
/// The quantity as a person reads it: "x = 1.414", "0.000473", "2.6×".
std::string quantity_text(std::string_view key, double value);

/// True when `computed`, rounded to the decimal digits `written` is given with (its text), equals it:
/// "≈ −0.0084" holds for −0.008415, "about 3" for 2.6.
bool rounds_to(double computed, std::string_view written);

}  // namespace gelu::app::model

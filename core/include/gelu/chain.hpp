// GELU Lab core: where the rounding happens — a rounding-point chain accumulator → compute → storage
// (docs/precision.md, "Rounding-point chains"). The input (a GEMM's accumulator value, here a double) is
// rounded to the accumulator format, the activation computed in the compute format (a zoo entry with every
// intermediate rounded there; a registry function as its correctly rounded value, rounded once to it), and
// the result stored in the storage format: a number format (rounded once) or a block format (stored block by
// block, gelu/block_format.hpp). "GELU in float32 on the accumulator, then MXFP4" is f32:f32:mxfp4; "bf16 in,
// GELU in bf16, bf16 out" is bf16:bf16:bf16.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/block_format.hpp"
#include "gelu/format.hpp"
#include "gelu/zoo.hpp"

namespace gelu {

struct Chain {
  Format accumulator{FormatId::F32};
  Format compute{FormatId::F32};
  DType store;
  /// "ACC:COMPUTE:STORE", e.g. "f32:f32:mxfp4"; nullopt (and *why set) when a part is not a format, or the
  /// accumulator or compute format is int8 or a scale format, or the storage is a scale format.
  static std::optional<Chain> parse(std::string_view text, std::string* why = nullptr);
  std::string name() const;
};

/// What a chain did to its inputs.
struct ChainValues {
  std::vector<double> computed;    // the function's outputs in the compute format, before storage
  std::vector<double> stored;      // as stored (block formats: dequantized)
  std::vector<BlockScale> scales;  // block storage: each block's scale (one for all with a block max)
};

/// The chain applied to every x: order 0 is the forward pass, 1 the backward pass's f' through the same
/// chain (f' computed in the compute format, stored in the storage format). Block storage: consecutive
/// blocks of the format's size, or, with block_max, every value in a block whose largest magnitude is
/// block_max (NVFP4: in a tensor of that largest magnitude too; what `eval --block-max` means). Throws
/// std::invalid_argument for a block_max with a number format as storage.
ChainValues run_chain_values(const zoo::Entry& e, const Chain& c, std::span<const double> x, int order = 0,
                             std::optional<double> block_max = std::nullopt);
/// run_chain_values(…).stored.
std::vector<double> run_chain(const zoo::Entry& e, const Chain& c, std::span<const double> x, int order = 0);

/// The chain's stored outputs of x scored against the reference outputs ref (double): block storage as
/// block_error does (ULPs of each block's lattice, the block's scale from the computed outputs); a number
/// format S as Format::ulp_distance(stored, ref) (values of S between the stored value and ref rounded once
/// to S; blocks = 0). The negative outputs (ref < 0) stored as 0 are counted alike. Throws
/// std::invalid_argument when x and ref differ in size.
BlockErrorReport chain_error(const zoo::Entry& e, const Chain& c, std::span<const double> x,
                             std::span<const double> ref, int order = 0);

/// One chain's side of a comparison.
struct ChainSide {
  Chain chain;
  std::vector<double> stored;
  double max_abs = 0, x_at_max = 0;       // the largest |stored − exact| and its x (the first one)
  std::size_t negative = 0, flushed = 0;  // exact outputs < 0, and of those the ones stored as 0
  // The recompute of the backward pass (activation checkpointing): the chain run again on the
  // pre-activation as a framework saves it for the backward, in the chain's storage format (block formats:
  // block by block); whether it stores the same bits as the run on x, and on how many inputs it does not.
  bool recompute_identical = true;
  std::size_t recompute_differ = 0;
};
/// Chains side by side on the same inputs (what `gelulab chain` and the Precision panel show).
struct ChainComparison {
  std::vector<ChainSide> sides;
  std::size_t differ = 0;                // inputs the first two chains store differently (+0 and −0 equal)
  std::vector<std::size_t> differences;  // the first `listed` of them, as indices of x
};
/// Runs each chain on x (order 0 forward, 1 backward), and again on x as stored in the chain's storage
/// format (ChainSide::recompute_identical), against the exact outputs `exact` (the same size as x). Throws
/// std::invalid_argument when the sizes differ.
ChainComparison compare_chains(const zoo::Entry& e, std::span<const Chain> chains, std::span<const double> x,
                               std::span<const double> exact, int order = 0, std::size_t listed = 10);

}  // namespace gelu

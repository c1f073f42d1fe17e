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

/// The chain applied to every x: order 0 is the forward pass, 1 the backward pass's f' through the same
/// chain (f' computed in the compute format, stored in the storage format).
std::vector<double> run_chain(const zoo::Entry& e, const Chain& c, std::span<const double> x, int order = 0);

}  // namespace gelu

// A rounding-point chain on the existing commands (gelu/chain.hpp, docs/precision.md "Rounding-point
// chains"): eval, error and check take --store FMT [--compute FMT] [--accumulator FMT] and then run the chain
// versions (eval: cmd_eval.cpp; error and check: cmd_blocks.cpp) through gelu::run_chain_values, the one
// implementation behind `gelulab chain` too.
#pragma once

#include <string>

#include "cli/cli.hpp"
#include "gelu/chain.hpp"
#include "gelu/numio.hpp"

namespace gelu::cli {

/// --store is given (looked at, not taken).
inline bool has_store(const Args& args) {
  return args.peek("store").has_value();
}

/// --accumulator A (default f32), --compute C (default f32), --store S [--block-size N] as one chain. A bad
/// part is a UsageError naming its option; --dtype is refused (the chain's three formats say it all).
inline Chain parse_chain_options(Args& args) {
  const auto store = args.option("store");
  const auto compute = args.option("compute");
  const auto acc = args.option("accumulator");
  const auto block_size = args.option("block-size");
  if (const auto d = args.option("dtype"))
    throw UsageError(
        "--dtype " + printable(*d) +
        ": not with --store; the chain is --accumulator FMT (what inputs are rounded to, default "
        "f32), --compute FMT (default f32) and --store FMT");
  const std::string a = acc.value_or("f32"), c = compute.value_or("f32");
  for (const auto& [opt, text] :
       {std::pair{"accumulator", a}, std::pair{"compute", c}, std::pair{"store", *store}})
    if (text.find(':') != std::string::npos)
      throw UsageError("--" + std::string(opt) + ": " + quote(text) + " is one format, not a chain");
  std::string why;
  std::optional<Chain> chain = Chain::parse(a + ":" + c + ":" + *store, &why);
  if (!chain) {
    const std::string opt = why.find("accumulator") != std::string::npos ? "--accumulator " + quote(a)
                            : why.find("compute") != std::string::npos   ? "--compute " + quote(c)
                                                                         : "--store " + quote(*store);
    const auto its = why.find("its ");
    throw UsageError(opt + ": " + (its == 0 ? why.substr(4) : why));
  }
  if (block_size) {
    if (!chain->store.block)
      throw UsageError("--block-size: applies to a block format as --store, not " + quote(*store));
    chain->store.block = BlockFormat(chain->store.block->id(),
                                     static_cast<int>(Args::to_int("block-size", *block_size, 1, 4096)));
  }
  return *chain;
}

int run_eval_chain(Args& args);   // gelulab eval --store FMT (cmd_eval.cpp)
int run_error_chain(Args& args);  // gelulab error --store FMT (cmd_blocks.cpp)
int run_check_chain(Args& args);  // gelulab check --store FMT (cmd_blocks.cpp)

}  // namespace gelu::cli

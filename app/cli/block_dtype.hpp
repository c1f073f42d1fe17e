// The block formats on the command line (gelu/block_format.hpp): eval, error and check take
// --dtype mxfp8_e4m3|mxfp8_e5m2|mxfp6_e2m3|mxfp6_e3m2|mxfp4|nvfp4 and then run the block versions below
// (app/cli/cmd_blocks.cpp), whose options are their own: a block format's results depend on the block.
#pragma once

#include "cli/cli.hpp"
#include "gelu/block_format.hpp"

namespace gelu::cli {

/// --dtype names a block format (looked at, not taken).
inline bool is_block_dtype(const Args& args) {
  const auto d = args.peek("dtype");
  return d && find_block_format(*d) != nullptr;
}

int run_eval_blocks(Args& args);   // gelulab eval --dtype BLOCK
int run_error_blocks(Args& args);  // gelulab error --dtype BLOCK
int run_check_blocks(Args& args);  // gelulab check --dtype BLOCK

}  // namespace gelu::cli

// gelulab fit --correctly-rounded: the correctly rounded designer path (cmd_fit_cr.cpp), entered from
// cmd_fit.cpp when the option is given.
#pragma once

#include <string>

#include "cli/cli.hpp"

namespace gelu::cli {

/// Runs the rest of `gelulab fit` for --correctly-rounded FORMAT (its value). Without GLPK and MPFR: a
/// UsageError saying so.
int run_fit_cr(Args& args, const std::string& format);

}  // namespace gelu::cli

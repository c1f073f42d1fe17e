// The command-line room: one cmd_*.cpp per subcommand (registered with GELU_COMMAND), options shared by
// several of them (fn_options.hpp) and the backend choice (backend.hpp). The subcommands speak the command
// framework's vocabulary (app/command), brought into gelu::cli here.
#pragma once

#include "command/command.hpp"

namespace gelu::cli {

using command::Args;
using command::check_output_path;
using command::dry_run;
using command::is_terminal;
using command::UsageError;

}  // namespace gelu::cli

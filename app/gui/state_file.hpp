// --state FILE: a small JSON object describing the active panel's view (keys per panel; see
// `gelulab shot --help`). Shared by `gelulab gui` and `gelulab shot`.
#pragma once

#include <string>

#include "app.hpp"

namespace gelu::app {

/// Reads FILE and applies it to the active panel; throws cli::UsageError with the file, position and
/// reason on an unreadable file, malformed JSON or a bad key/value.
void load_state_file(App& app, const std::string& path);

}  // namespace gelu::app

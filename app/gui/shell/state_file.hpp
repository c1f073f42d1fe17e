// --state FILE: a small JSON object describing the active panel's view (keys per panel; see
// `gelulab shot --help`). Shared by `gelulab gui` and `gelulab shot`.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "gui/shell/app.hpp"

namespace gelu::app {

/// Reads FILE and applies it to the active panel; throws command::UsageError with the file, position and
/// reason on an unreadable file, malformed JSON or a bad key/value.
void load_state_file(App& app, const std::string& path);

/// The view options `gelulab gui` and `gelulab shot` share, applied in this order: --lesson FILE [--step N]
/// (opens that step), --panel ID, --state FILE, --presentation SCALE. Throws command::UsageError naming the
/// option.
struct ViewOptions {
  std::optional<std::string> lesson, step, panel, state, presentation;
};
void apply_view_options(App& app, const ViewOptions& o);

/// --size WxH of `gelulab gui` (the window) and `gelulab shot` (the picture): 320x240 to 8192x8192,
/// default 1280x800; anything else is a command::UsageError.
std::pair<int, int> parse_window_size(const std::optional<std::string>& text);

}  // namespace gelu::app

// Sessions: the whole app as one JSON document (every panel's state, the active panel, presentation and
// window settings, the current lesson step), saved from the File menu and automatically on exit to
// $XDG_CONFIG_HOME/gelulab/session.json, restored on start.
//
//   {"format": "gelulab-session", "version": 1, "active_panel": "curves",
//    "panels": {"curves": {…}, "approx": {…}, …},
//    "presentation": {"on": false, "scale": 1.75},
//    "window": {"x": 0, "y": 0, "width": 1280, "height": 800, "fullscreen": false},
//    "lesson": {"file": "…/what_is_gelu.json", "step": 2}}      (or null)
//
// Restoring is all or nothing: a malformed file, a bad panel state or a newer version leaves the app as it
// was and throws SessionError with the file, the position or field, and the reason.
#pragma once

#include <stdexcept>
#include <string>

#include "gelu/fileio.hpp"
#include "gelu/json.hpp"

namespace gelu::app {

class App;

inline constexpr int kSessionVersion = 1;

class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The session as JSON.
json::Value session_json(const App& app);
/// Applies a session document to `app` (all or nothing). `name` prefixes error messages.
void apply_session(App& app, const json::Value& session, const std::string& name);
/// Reads and parses a session file; throws SessionError naming the file, line and column.
json::Value read_session_file(const std::string& path);
/// read_session_file + apply_session.
void load_session(App& app, const std::string& path);
/// Writes the session to `path` atomically (gelu::write_file_atomic: the previous file survives a full disk,
/// a read-only directory or a kill mid-save, a symbolic link stays a link, the mode is kept); throws
/// SessionError. The directory must exist, except for the default location (MissingDirectories::Create).
/// The window geometry is clamped to what a session may hold; a non-finite number is an error naming its key.
void save_session(const App& app, const std::string& path,
                  MissingDirectories dirs = MissingDirectories::Refuse);

/// Where the session is saved on exit when no --session is given: $XDG_CONFIG_HOME/gelulab/session.json,
/// else $HOME/.config/gelulab/session.json (the directories are made, mode 0700). `path` is empty when
/// the environment allows no such place, and `problem` then says which variable is wrong and how ("HOME is
/// not set", "XDG_CONFIG_HOME='/x' is not a directory"); `note` says when a variable was ignored
/// (a relative XDG_CONFIG_HOME, as the XDG spec wants). The app shows either from the first frame.
struct SessionLocation {
  std::string path, problem, note;
};
SessionLocation default_session_location();
/// default_session_location().path.
std::string default_session_path();

}  // namespace gelu::app

// Scripted input for `gelulab gui --script FILE` (tests and frame-time measurements): synthetic mouse
// events aimed at named widget rectangles (ui::mark), so scripts survive layout changes.
//
// One command per line; '#' starts a comment; positions (u v) are fractions of the target rectangle.
//   panel ID                         switch to a panel (an id of model::panel_kinds())
//   move TARGET [u v]                move the mouse (default: the centre)
//   click TARGET [u v]               press and release the left button
//   dblclick TARGET [u v]            double-click
//   drag TARGET u0 v0 u1 v1 FRAMES   press at (u0 v0), move to (u1 v1) over FRAMES frames, release
//   wheel TARGET u v CLICKS          mouse wheel (positive zooms in), one click per frame
//   key NAME                         press and release a key: F1 F5 F6 F11 F12 shiftF12 left right escape
//                                    ctrlE ctrlO enter ctrlplus ctrlminus ctrl1..ctrl9 (see kKeys in
//                                    script.cpp)
// A TARGET ending in '?' (click slider:probe? 0.3 0.5) is optional: the command is skipped when no widget
// of that name was drawn on the previous frame, instead of failing the script.
//   wait FRAMES                      idle frames
//   await TARGET FRAMES              idle frames until TARGET was drawn on the previous frame, at most FRAMES
//                                    (then the script goes on: what it checks afterwards fails)
//   quit                             as File > Quit: the app ends (and saves its session) after this frame
//   repeat N ... end                 repeat the enclosed lines N times (no nesting)
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "gui/shell/app.hpp"

namespace gelu::app {

class Script {
 public:
  /// Parses a script; throws std::runtime_error naming the line on a syntax error.
  static Script parse(const std::string& text);
  /// Applies this frame's input to io (call after the platform backend's NewFrame, before ImGui::NewFrame).
  /// Returns false when the script has finished. Unknown targets throw std::runtime_error.
  bool step(App& app, ImGuiIO& io);
  std::size_t size() const { return cmds_.size(); }
  /// The names `key` takes, in the order of the script language's table (tests that write random scripts).
  static std::vector<std::string> key_names();
  /// Parses `text` (script lines, as for parse) and adds its commands after the ones already there: a script
  /// written while it runs (the monkey, gui/testing/monkey.hpp). Throws as parse does.
  void append(const std::string& text);
  /// Whether every command has run (step would return false).
  bool done() const { return pc_ >= cmds_.size(); }
  /// Starts again from the first command (`gelulab gui --script-loop`: a soak repeats its script).
  void restart() {
    pc_ = 0;
    t_ = 0;
  }

 private:
  struct Cmd {
    std::string op, target;
    float u0 = 0.5f, v0 = 0.5f, u1 = 0.5f, v1 = 0.5f;
    int frames = 1;
    int line = 0;
  };
  std::vector<Cmd> cmds_;
  std::size_t pc_ = 0;
  int t_ = 0;  // frames spent in the current command
  ImVec2 mouse_{-1, -1}, drag_from_{0, 0}, drag_to_{0, 0};
};

}  // namespace gelu::app

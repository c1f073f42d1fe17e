// The monkey: random use of the app, aimed at the widgets it draws (`gelulab gui --monkey SEED`).
//
// Every frame where no action is under way, the monkey looks at the rectangles marked on the last frame
// (ui::mark: every checkbox, radio button, combo and its options, slider, button, input, plot, legend and the
// window itself) and picks an action: a click, a double-click, a drag, a wheel or a key. Toggles —
// checkboxes, radio buttons, combos and their options — that it has not clicked yet on the active panel come
// first two times in three, so a few hundred frames toggle every one of them; a toggle scrolled out of its
// view is brought in first, with the wheel over its column or a click on its view's scrollbar. Each action is
// a line of the script language (gui/testing/script.hpp), with its target marked optional ('?'), and the
// script so far is written to a file after every action: a run that crashes, trips a sanitizer, hangs or
// reports a GL error leaves the exact script that led there, which `gelulab gui --headless --script FILE`
// (with the same --panel, --size and --presentation, named in the file's first line) replays.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>

#include "gelu/json.hpp"
#include "gui/shell/app.hpp"
#include "gui/testing/script.hpp"

namespace gelu::app::testing {

class Monkey {
 public:
  /// `script_path`: where the script is written (empty: kept in memory only); `replay`: the command line that
  /// replays it, written as the file's first comment.
  Monkey(std::uint64_t seed, std::string script_path, std::string replay);
  /// Applies this frame's input (call where Script::step would be called). Throws std::runtime_error when
  /// the script file cannot be written.
  void step(App& app, ImGuiIO& io);
  /// Actions so far, and per panel the toggles it saw with how often each was clicked.
  json::Object report() const;
  /// The toggles of `panel` seen but never clicked.
  std::vector<std::string> untoggled(const std::string& panel) const;
  long actions() const { return actions_; }
  /// Toggles that earlier runs already clicked (`--monkey-tried FILE`): they no longer count as fresh, so
  /// this run goes for the rest first. The report still counts only this run's own clicks.
  void set_tried(std::set<std::string> tried) { tried_ = std::move(tried); }

 private:
  std::string next_action(App& app, const ImGuiIO& io);
  void record(const std::string& line);

  std::mt19937_64 rng_;
  std::string path_, text_;
  std::string home_;  // the panel it started on
  Script script_;
  long actions_ = 0;
  std::map<std::string, std::map<std::string, int>> toggles_;  // panel → toggle mark → clicks
  std::map<std::string, int> reach_tries_;                     // toggles out of sight: tries to bring them in
  std::set<std::string> tried_;                                // clicked by earlier runs
};

/// Whether a mark names a toggle the monkey must click at least once: "check:", "radio:", "combo:",
/// "option:".
bool is_toggle(const std::string& mark);

}  // namespace gelu::app::testing

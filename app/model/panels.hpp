// The one list of the app's panels, in tab order: id, title, and what each panel's state looks like (its
// field table, model/panel_states.hpp). Lesson and session files are checked against it without ImGui, and
// `gelulab shot --help` prints it. The GUI's panel classes register a factory under their id
// (gui/panels/panel_list.hpp); a test checks that every kind here has one.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/json.hpp"

namespace gelu::app::model {

class SampleRng;

struct PanelKind {
  const char* id;     // "curves": --panel value, state-file and session key
  const char* title;  // tab title
  /// Reads `state` into a fresh default state, as the panel would; throws json::JsonError naming the key.
  std::function<void(const json::Value& state)> validate;
  /// The state's keys, values and help, one line each (from the field table).
  std::function<std::string()> help;
  /// The default state.
  std::function<json::Value()> defaults;
  /// A random valid state, drawn field by field from the table (property tests, fuzzers).
  std::function<json::Value(SampleRng& rng)> sample;
  /// `state` read into a fresh default state and written back: what a fresh panel given `state` saves.
  /// Throws json::JsonError as validate does.
  std::function<json::Value(const json::Value& state)> normalize;
  /// Text this panel computes at run time, which a lesson step may quote as {key} (model/lessons.hpp): empty
  /// when the panel in `state` computes `key`, else why not. Null: the panel computes no text.
  std::function<std::string(const json::Value& state, std::string_view key)> computed_text_problem;
  /// The ids of the plots a lesson step may choose to show (StepView::plots, the plot ids of `--meta` and
  /// of Shift+F12), and of the controls a step may keep on screen in presentation mode (StepView::controls).
  std::vector<std::string> plots, controls;
};

std::span<const PanelKind> panel_kinds();
const PanelKind* find_panel_kind(std::string_view id);  // nullptr when unknown
/// "curves|approx|precision|…", for messages.
std::string panel_ids();

}  // namespace gelu::app::model

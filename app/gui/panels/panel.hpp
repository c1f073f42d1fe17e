// A panel of the desktop app: one class per file, one drawContent() (the ImHex pattern). Panels hold view
// state only; every number they show comes from gelu::core (or gelu::gpu).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gelu/json.hpp"
#include "plot/plot.hpp"

namespace gelu::app {

/// The largest JSON file the app reads as a panel state, lesson or session (gelu::read_file's limit): real
/// ones are kilobytes; a bigger file is refused with its size before it is parsed.
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{16} << 20;

class Panel {
 public:
  virtual ~Panel() = default;
  virtual const char* id() const = 0;     // "curves": --panel value and state-file key
  virtual const char* title() const = 0;  // tab title
  /// Draws the panel into the current ImGui window (content region = the panel's area).
  virtual void drawContent() = 0;
  /// Applies a JSON panel state (see app/gui/state.md); throws json::JsonError on a malformed state.
  virtual void load_state(const json::Value& state) = 0;
  /// The panel's view as a state that set_state() on a fresh panel reproduces (sessions, lessons);
  /// null when the panel has nothing to save.
  virtual json::Value state() const { return json::Value(); }
  /// Applies a saved or lesson state to this panel (by default load_state); throws json::JsonError.
  virtual void set_state(const json::Value& state) { load_state(state); }
  /// Facts for tests and shots: each plot's transform plus panel-specific values (drawn series colours,
  /// Monte-Carlo results...). Written next to a shot with --meta.
  virtual json::Object meta() const = 0;
  /// True while the panel animates (sampling), so the window keeps drawing instead of idling.
  virtual bool animating() const { return false; }
  /// Headless shots are single still frames: panels that animate jump to their final state.
  virtual void settle_for_shot() {}
  /// Why settle_for_shot() would take too long for a headless shot (what the state asks for and the
  /// limit), or empty. `gelulab shot` refuses such a state before it starts.
  virtual std::string shot_limit_error() const { return {}; }
};

/// The JSON description of a plot's last frame (ranges, scales, pixel rectangle), for meta().
json::Value plot_meta(const plot::PlotState& s);
/// "#rrggbb" of an ImU32 colour.
std::string color_hex(unsigned int color);

// Panel-state readers: an absent key leaves `out` alone; a present key of the wrong shape throws
// json::JsonError naming the key ("'x' must be [min, max] with min < max").
void read_range(const json::Value& state, std::string_view key, plot::Range& out);
void read_number(const json::Value& state, std::string_view key, double& out, double min, double max);
void read_bool(const json::Value& state, std::string_view key, bool& out);
void read_string(const json::Value& state, std::string_view key, std::string& out);
/// Throws unless `state` is an object whose keys are all in `known` (typos are errors, not silence).
void check_keys(const json::Value& state, std::initializer_list<std::string_view> known);

}  // namespace gelu::app

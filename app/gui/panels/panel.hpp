// A panel of the desktop app: one class per file, one drawContent() (the ImHex pattern). Panels hold view
// state only; every number they show comes from gelu::core (or gelu::gpu) or the model layer. What a panel's
// state file holds is its field table in model/panel_states.hpp; its id and title are its entry in the one
// panel list (model/panels.hpp); docs/adding-a-panel.md walks through a new one.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gelu/json.hpp"
#include "model/limits.hpp"
#include "model/panels.hpp"
#include "plot/plot.hpp"
#include "plot/slide.hpp"

namespace gelu::app {

class Panel {
 public:
  /// `kind_id` names the panel's entry in model::panel_kinds() (std::logic_error when there is none).
  explicit Panel(std::string_view kind_id);
  virtual ~Panel() = default;
  const char* id() const { return kind_->id; }        // "curves": --panel value and state-file key
  const char* title() const { return kind_->title; }  // tab title
  /// Draws the panel into the current ImGui window (content region = the panel's area).
  virtual void drawContent() = 0;
  /// Applies a JSON panel state (keys absent from it keep their values); throws json::JsonError on a
  /// malformed state, naming the key.
  virtual void load_state(const json::Value& state) = 0;
  /// The panel's view as a state that set_state() on a fresh panel reproduces (sessions, lessons);
  /// null when the panel has nothing to save.
  virtual json::Value state() const { return json::Value(); }
  /// Applies a saved or lesson state to this panel (by default load_state); throws json::JsonError.
  virtual void set_state(const json::Value& state) { load_state(state); }
  /// A session's state for a panel made aside (model::apply_session): as set_state, but with no effect
  /// outside the panel until restored(), so a session refused later changes nothing.
  virtual void restore_state(const json::Value& state) { set_state(state); }
  /// Called once the whole session has been read, just before the app takes the panels: effects outside the
  /// panel are restored without being announced to the other panels, whose states already say what they
  /// show (the Designer registers its compared candidates as zoo entries).
  virtual void restored() {}
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
  /// Text computed at run time that a lesson step quotes as {key} (model::PanelKind::computed_text_problem
  /// says which keys); empty while it is not computed yet.
  virtual std::string computed_text(std::string_view /*key*/) const { return {}; }

 private:
  const model::PanelKind* kind_;
};

/// The JSON description of a plot's last frame (ranges, scales, pixel rectangle), for meta().
json::Value plot_meta(const plot::PlotState& s);
/// Everything a plot drew last frame, in pixels: its frame, tick labels, legend, notes and marker labels.
plot::Box plot_extent(const plot::PlotState& s);
/// The text boxes (titles, labels, ticks, legends, notes, marker labels) of `plots` that overlap one another
/// by more than a pixel each way, one phrase a pair ("label of plot0 [l, t, r, b] overlaps legend of plot1
/// [...]"), at most `max`: the layout matrix's check (tests/app) and the browser's layout report.
std::vector<std::string> text_overlaps(
    const std::vector<std::pair<std::string, const plot::PlotState*>>& plots, std::size_t max = 5);
/// "#rrggbb" of an ImU32 colour.
std::string color_hex(unsigned int color);

// [SECTION] The panel list: each panel class registers its factory under its id (GELU_PANEL in its .cpp);
// the order and the ids are model::panel_kinds()'.
using PanelFactory = std::unique_ptr<Panel> (*)();
struct PanelRegistrar {
  PanelRegistrar(const char* id, PanelFactory make);
};
#define GELU_PANEL(Class)                                                \
  static const ::gelu::app::PanelRegistrar gelu_panel_registrar_##Class( \
      Class::kId, []() -> std::unique_ptr<::gelu::app::Panel> { return std::make_unique<Class>(); })

/// A fresh panel of that kind with its defaults; nullptr when unknown.
std::unique_ptr<Panel> make_panel(std::string_view id);
/// Every panel, freshly constructed with its defaults, in tab order.
std::vector<std::unique_ptr<Panel>> make_panels();
/// The ids with a registered factory (for the test that every panel kind has one).
std::vector<std::string> registered_panel_ids();

}  // namespace gelu::app

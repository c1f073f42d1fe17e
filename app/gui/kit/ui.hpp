// Small UI helpers shared by the panels: fonts, em units, headings, and named widget rectangles that the
// scripted-input mode (`gelulab gui --script`) aims at.
#pragma once

#include <imgui.h>

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/lessons.hpp"
#include "plot/plot.hpp"

namespace gelu::app::ui {

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  // The menu bar and the tab titles: at most 1.5× the base size, so a projector's 3× text leaves the room to
  // the panel and the lesson (the regular font when that is no smaller).
  ImFont* chrome = nullptr;
};
Fonts& fonts();

/// One em: the current font size in pixels. Every size in the UI is a multiple of it.
inline float em() {
  return ImGui::GetFontSize();
}

/// Whether panels draw their controls column (App hides it in presentation mode until F6).
bool show_controls();
void set_show_controls(bool show);

/// The view of the lesson step on screen (App sets it each frame; null outside a step with a "view"): which
/// plots the panel shows and which controls stay in presentation mode (its series, legends and annotations
/// go to the plot layer: plot::ViewFilter).
void set_step_view(const StepView* view);
const StepView* step_view();
/// Whether the panel draws plot `id` (a lesson step may show only some of a panel's plots; its ids are the
/// panel kind's `plots`, model/panels.hpp).
bool plot_shown(std::string_view id);
/// Whether the control `name` (model::PanelKind::controls) stays on screen while the controls column is
/// hidden (presentation mode): a lesson step asked for it.
bool control_pinned(std::string_view name);

/// A slide (plot/slide.hpp): a lesson step on screen in presentation mode (App sets it around the step's
/// panel). A panel on a slide shows the plots the step shows and fills its room without scrolling: plots that
/// do not fit stacked go side by side where they fit across (slide_columns), and what is not a plot (tables,
/// readouts, sliders) stays off unless the step pins it (extra_shown).
bool slide();
void set_slide(bool on);
/// Whether a panel draws its element `name` (a table, a readout; model::PanelKind::controls): always outside
/// a slide; on a slide only where the step's view pins it ("controls": [name]).
bool extra_shown(std::string_view name);
/// On a slide, how many columns `n` plots take so that each keeps plot::Plot::min_frame() in `avail`: 1 when
/// they fit stacked, else the fewest columns that fit across and down (at most n); 1 off a slide.
int slide_columns(int n, ImVec2 avail, float gap);
void mark(const std::string& name, ImVec2 min, ImVec2 max);  // (below, with the other marks)
/// How far the panel's "view" child (begin_panel) scrolls: its content below what it shows, in pixels, as
/// ImGui measured it from the last frame; 0 when it fits. Reset by begin_frame().
void note_view_overflow(float px);
float view_overflow();

/// A panel's layout: its controls column (`width_em` wide; hidden in presentation mode until F6) and then the
/// "view" child that takes the rest, left open for the caller to fill and close with ImGui::EndChild().
/// The controls column's width: `width_em` em, narrower where that would leave the view less than one plot's
/// smallest frame (plot::Plot::min_frame; F6 in presentation mode at 1024×768 with 2× text), never under a
/// third of the room.
float controls_width(float width_em);
template <class Controls>
void begin_panel(float width_em, Controls&& controls) {
  if (show_controls()) {
    ImGui::BeginChild("controls", ImVec2(controls_width(width_em), 0), true);
    mark("controls", ImGui::GetWindowPos(),
         ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
    controls();
    ImGui::EndChild();
    ImGui::SameLine();
  }
  // The view scrolls when its plots need more room than the window has (a plot never shrinks below
  // plot::kMinAreaHeight); the mouse wheel over a plot zooms it instead.
  ImGui::BeginChild("view", ImVec2(0, 0), false);
  note_view_overflow(ImGui::GetScrollMaxY());
}

/// How many plots fit side by side in `avail_x` pixels (1 to `want`), each keeping plot::Plot::min_frame()'s
/// width, `gap` pixels apart (< 0: the style's item spacing): a panel stacks its plots (and its view scrolls)
/// rather than shrinking them.
int plot_columns(int want, float avail_x, float gap = -1.0f);
/// The gap between plots side by side in a panel's view (for plot_columns and ImGui::SameLine): a quarter em,
/// as every plot frame keeps 4 em left of its data (its numbers) and 1 em right. With the style's item
/// spacing instead, two plots missed a 1024 px window at 2× text by 2 px once the view's scrollbar took its
/// room, and the FFN lab's maps, the dropout view's and the benchmark panel's plots stacked.
inline float plot_gap() {
  return 0.25f * em();
}

/// `text` with line breaks at spaces so that no line is wider than `width` pixels (<= 0: the room left of
/// the content region at the cursor); its own '\n' are kept. Numbers are never split (see plot::wrap_words).
std::string wrap_at_spaces(std::string_view text, float width = 0);
/// Wrapped text (printf format) broken at spaces only: use instead of ImGui::TextWrapped, which breaks after
/// '.' and so can split "0.0139" into "0." and "0139".
void text_wrapped(const char* fmt, ...) IM_FMTARGS(1);
/// The same in the disabled (grey) text colour.
void text_wrapped_disabled(const char* fmt, ...) IM_FMTARGS(1);

/// A bold section heading with a little space above.
void heading(const char* text);
/// A "(?)" that shows `text` in a tooltip when hovered.
void help_marker(const char* text);

/// Remembers the last item's screen rectangle under `name` (for scripts: "slider:k", "plot:curves").
void mark(const std::string& name);
void mark(const std::string& name, ImVec2 min, ImVec2 max);
/// Marks the last item under `name` and passes its result through, so that a widget inside a condition is
/// marked before anything its body draws: `if (ui::marked("check:log", ImGui::Checkbox("log", &on)))`.
inline bool marked(const std::string& name, bool result) {
  mark(name);
  return result;
}
/// ImGui::Combo over `names`, marked for scripts: the combo as "combo:KEY", each option while the list is
/// open as "option:KEY:WORD" (the option's first word). True when the choice changed.
bool combo(const std::string& key, const char* label, int* current, std::span<const char* const> names);
/// Whether `name` was marked during the last frame that ended (marks() keeps every rectangle ever marked:
/// a widget that is no longer drawn keeps its last one).
bool marked_last_frame(const std::string& name);
struct Rect {
  ImVec2 min, max;
  bool visible = true;  // mark(name): the item was inside its window's clip rectangle (not scrolled away)
  ImVec2 center() const { return ImVec2((min.x + max.x) / 2, (min.y + max.y) / 2); }
};
/// Marks a finished plot: "plot:ID" (its data area), "legend:ID" (its legend box) and, when it drew a note,
/// "note:ID" (the last note's box).
void mark_plot(const std::string& id, const plot::PlotState& s);
/// Rectangles marked during the last frame.
const std::map<std::string, Rect>& marks();

/// What a frame's draw data asks of the GPU: its vertices, indices (three a triangle), draw commands, and
/// the triangles' area in pixels (overdraw counted, clipping not). A software renderer (the browser's
/// SwiftShader) takes time in proportion to the area: a frame fills its pixels a little over once when the
/// main window draws no background of its own (gui/kit/gl.hpp's begin_frame_drawing clears to it).
struct DrawCost {
  double vertices = 0, indices = 0, commands = 0, filled_px = 0;
  double largest_px = 0;  // the largest triangle's area (a full-frame quad is two of half the frame)
};
DrawCost draw_cost(const ImDrawData* data);

/// The plots marked (mark_plot) during the current frame, in drawing order: the export commands pick the
/// plot under the mouse, else the first one. Cleared by begin_frame().
struct PlotRef {
  std::string id;
  plot::PlotState* state;
};
void mark_plot(const std::string& id, plot::PlotState& s);
const std::vector<PlotRef>& frame_plots();
void begin_frame();

}  // namespace gelu::app::ui

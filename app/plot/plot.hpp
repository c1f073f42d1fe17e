// GELU Lab plot layer, part 2: the ImGui renderer and interaction on top of plot_core.hpp.
//
// Usage (immediate mode, one Plot object per plot per frame):
//   gelu::plot::Plot p("curves", state, size, "x", "f(x)");
//   p.function("GELU", color, f, &df);   // re-sampled on the visible x range every frame
//   p.line("mean", color, xs, ys);       // arrays must outlive the Plot object (until end())
//   p.probe(&x);                          // draggable vertical line
//   p.end();                              // axes, legend, hover readout, fit (also run by the destructor)
// Interaction: drag pans (over an axis: that axis only), wheel zooms about the cursor (over an axis: that
// axis only), double-click fits, a click on a legend entry toggles its series.
#pragma once

#include <imgui.h>

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plot/place.hpp"
#include "plot/plot_core.hpp"

namespace gelu::plot {

/// One visible series as the last captured frame drew it (functions at one sample per pixel column). A heat
/// map's cells carry their values in `value` (one per point); other series leave it empty.
struct CapturedSeries {
  std::string label;
  std::vector<double> x, y, value;
};

/// Where a legend is drawn: in the data area, right of it, or below the plot (under the x label).
enum class LegendPlace { Inside, Right, Below };

/// Every plot's data area keeps at least this many pixels (a panel that gives a plot less gets a larger
/// plot and scrolls): readable from the back of a room at any text scale.
inline constexpr float kMinAreaWidth = 300, kMinAreaHeight = 150;

/// What a text box drawn by a plot is: axis text (title, labels, tick labels), a label on the data (a
/// marker's or a note), or the legend.
enum class TextKind { Axis, Label, Legend };
struct TextBox {
  ImVec2 min, max;
  TextKind kind;
  ImVec2 anchor{NAN, NAN};  // a marker label: the centre of the dot it names (else NaN)
  ImU32 color = 0;          // a marker label: its dot's colour
  std::string text = {};    // as drawn (wrapped lines joined by '\n')
};
/// A marker or scatter dot as drawn: its centre in pixels and its colour.
struct Dot {
  ImVec2 p;
  ImU32 color;
};

/// Persistent per-plot state: kept by the panel between frames.
struct PlotState {
  Axis x, y;
  Range home_x{-4, 4}, home_y{-1, 4};  // double-click target for an axis that has no data series to fit
  std::set<std::string> hidden;        // series toggled off in the legend
  Axis* linked_x = nullptr;            // stacked plots share one x axis through this pointer
  bool fit_x_request = false, fit_y_request = false;
  bool y_fixed = false;  // double-click leaves y alone (e.g. probabilities in [0, 1])
  // The legend goes where it covers no drawn data: legend_anchor ((0, 0) top-left ... (1, 1) bottom-right of
  // the data area) first, then the other corners and edges; when every place inside covers data (or the
  // legend would fill too much of the plot), outside: right of the data area, or below the plot. Dragging
  // it puts it inside where it is dropped (legend_user); a right-click on the plot shows or hides it.
  ImVec2 legend_anchor{0, 0};
  bool legend_shown = true;
  bool legend_user = false;
  // Marker labels only beside their dots (within about 1.5 em): one that finds no place there clear of the
  // labels placed before it is left out, and hovering its dot shows it. For plots of many labelled dots,
  // where a label pushed further off reads as the label of another dot.
  bool labels_near = false;
  bool square = false;  // a square data area (maps): the frame grows or the area narrows to keep it
  std::vector<std::string>
      x_categories;  // non-empty: x ticks are these labels at x = 0, 1, 2, ... (bar groups)

  // Written by the renderer each frame (read by scripts, shots and tests).
  Transform last;
  ImVec2 legend_min{0, 0}, legend_max{0, 0};  // (0, 0) both: no legend drawn
  ImVec2 note_min{0, 0}, note_max{0, 0};      // the last note's box this frame; (0, 0) both: no note
  LegendPlace legend_place = LegendPlace::Inside;
  ImVec2 legend_out{0, 0};    // the room kept outside the data area for a legend placed right or below
  ImVec2 legend_key{-1, -1};  // the plot size, text size and number of entries legend_place was decided for
  float legend_key_em = 0, legend_key_n = 0;
  ImVec2 legend_grab{0, 0};   // mouse position in the legend when a drag began
  bool legend_moved = false;  // the current press on the legend has moved it (a drag, not a click)
  ImVec2 frame_min{0, 0}, frame_max{0, 0};  // the whole plot: title, axes, labels and data area
  std::vector<TextBox> texts;               // every text box the last frame drew (layout tests)
  std::vector<Dot> dots;                    // the marker and scatter dots it drew
  std::string dot_tip;                      // the label a hovered dot showed in its tooltip (else empty)
  /// Plot::function's samples by series label, for a keyed function (see there).
  struct Samples {
    std::string key;
    Axis x;
    std::size_t n = 0;
    std::vector<double> xs, ys;
  };
  std::map<std::string, Samples, std::less<>> samples;
  // Ctrl+C (or Cmd+C) while the readout shows puts its numbers on the clipboard, one line each, tab-separated
  // and exact (shortest round-trip): "x\t0.5", then "label\tvalue\tslope" per series.
  std::string copied;        // what was copied last
  int copied_frame = -1000;  // ImGui's frame count when it was (the readout says "copied" for a while)
  double probe_px = -1e30;
  int drag = 0;  // what the current left-button drag does: 0 none, 1 pan, 2 pan x, 3 pan y, 4 probe, 5 legend
  bool legend_click = false;

  // CSV export: set `capture`; the next frame that draws this plot fills `captured` with its visible
  // (not legend-hidden) series and clears `capture`.
  bool capture = false;
  std::vector<CapturedSeries> captured;
  // Data items the last frame drew (points, bars, functions, images; legend-hidden series not counted):
  // 0 means the plot shows no data yet. Counted where it draws, not where it captures (--meta lists it).
  int drawn_items = 0;
  int category_labels = 0;      // x category labels drawn last frame (whole, on two lines, or cut with "…")
  int category_labels_cut = 0;  // of those, the ones cut with "…" (a part still wider than its group)
  int x_tick_labels = 0,
      y_tick_labels = 0;  // numbers drawn on each axis last frame (colliding ones left out)
};

/// The text with every '-' replaced by the Unicode minus sign (U+2212), which reads better on a projector.
std::string unicode_minus(std::string_view s);

/// `text` in lines no wider than `width` pixels (the current font), broken at spaces only, so a number such
/// as "0.000473" is never split (ImGui's own wrapping breaks after '.' and ','); a word wider than `width`
/// stays whole on its own line. Empty text: no lines.
std::vector<std::string> wrap_words(const std::string& text, float width);

/// A bar group's name in at most `max_lines` lines (1 or 2) no wider than `width` pixels (the current font):
/// whole when it fits; else, with two lines, broken after a '_' or '-' or at a space ("gelu_tanh" -> "gelu_",
/// "tanh"), at the break that makes the wider line narrowest; a line still too wide (or a name with no
/// break) is cut to fit with "…" (one character at least). `cut` says whether anything was cut.
std::vector<std::string> fit_category_label(const std::string& label, float width, int max_lines, bool* cut);

/// Colour palette (Tableau 10, readable on white and on a projector).
ImU32 palette(int i, float alpha = 1.0f);

/// Multiplier on every series' line thickness and dot radius (presentation mode thickens lines for a
/// projector); 1 by default.
/// Starts a frame of plots (ui::begin_frame calls it): the data areas linked plots drew in the frame that
/// ended become the ones they share in this one (stacked plots of one linked x axis keep one x extent).
void new_frame();
void set_line_scale(float scale);
float line_scale();

/// Slides (a lesson step in presentation mode): each curve is named by a compact label at its line's end, in
/// its colour, instead of a legend row (a legend placed below the plot took a whole row of the slide); series
/// without a line end (bars, shadings, dots) and curves whose label finds no room keep the legend. Off by
/// default.
void set_inline_legends(bool on);
bool inline_legends();

/// Tests: false places legends as usual (legend_min/max, texts) but draws nothing of them, so a picture
/// shows what lies under them with the same layout.
void set_draw_legends(bool draw);

/// What a lesson step shows of every plot (the app sets it while a step with a "view" is on screen): only the
/// series named in `series` (when not empty; a series is named by its legend text or its "##key"), none of
/// `reveal` beyond the first `revealed`, and no legends when `legends` is false. Series it hides are not
/// drawn and not listed in the legend. Null (the default): everything.
/// A lesson step's annotation of plot `plot` (the id its Plot is made with) at data coordinates: an arrow
/// pointing at (x, y) from a callout with `text`, an x-band [x, x1] with its text, or a marker at (x, y).
struct PlotNote {
  enum Kind { Arrow, Band, Marker } kind = Marker;
  std::string plot;
  double x = 0, y = 0, x1 = 0;
  std::string text;
};
struct ViewFilter {
  std::vector<PlotNote> notes;  // drawn by the plot they name, before its legend is placed (it avoids them)
  std::vector<std::string> series;
  std::vector<std::string> reveal;
  int revealed = 0;
  bool legends = true;
  /// The step asks a question not answered yet: a panel leaves out what would give its answer away (the
  /// Precision panel's block view: the block max from which a lobe is all 0).
  bool question_open = false;
  bool hides(std::string_view text, std::string_view key) const;
};
void set_view_filter(const ViewFilter* filter);
const ViewFilter* view_filter();
/// The lesson check (`gelulab lessons`): while set, every series a plot is asked to draw under a view filter
/// is added to *names, by its legend text and by its key ("text##key": both), whether the filter hides it or
/// not, so that a step's view.series and view.reveal can be compared with the series its plots do draw.
/// Null (the default): nothing is recorded.
void set_series_names(std::set<std::string>* names);

class Plot {
 public:
  /// `size`: the frame (title, axes, labels and data area); a component <= 0 is the available room plus it.
  /// The frame grows to keep the data area at least kMinAreaWidth × kMinAreaHeight.
  Plot(const char* id, PlotState& state, ImVec2 size, const char* x_label, const char* y_label);
  /// The smallest frame a plot gets with the current font (one title line and one x-label line, plus the
  /// room its legend took outside the data area last frame): what panels lay their plots out with.
  static ImVec2 min_frame(const PlotState* state = nullptr);
  /// The height from a plot's top to the bottom of its x tick labels at the least (its data area wholly
  /// visible with its scale): what a lesson bar leaves above it.
  static float min_height_to_ticks(const PlotState* state = nullptr);
  ~Plot() { end(); }
  Plot(const Plot&) = delete;
  Plot& operator=(const Plot&) = delete;

  const Transform& transform() const { return tf_; }
  bool hovered() const { return hovered_; }
  float em() const { return em_; }

  /// A function re-sampled on the visible x range (one point per pixel); df gives the exact slope for the
  /// hover readout (a central difference of f when null). Non-finite values leave gaps. `key`, when given,
  /// names everything f's values depend on (the function, the order, the parameters): a frame with the same
  /// key, x axis and width as the series' last one reuses its samples instead of evaluating f again (the
  /// references are slow where long double is software: the browser).
  void function(const char* label, ImU32 color, const BatchFn& f, const BatchFn* df = nullptr,
                float thickness_em = 0.17f, std::string_view key = {});
  /// A polyline through data arrays (xs ascending for the hover readout).
  void line(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
            float thickness_em = 0.14f);
  void scatter(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
               float radius_em = 0.22f);
  /// Bars centred at xs with data-unit width from 0 (or the axis bottom on a log axis) to heights.
  void bars(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> heights,
            double width);
  /// Bars from 0 (or the log axis bottom) to mid[i] with a min/max whisker from lo[i] to hi[i] (capped).
  /// Non-finite entries are skipped; lo/hi may be empty (no whiskers).
  void whisker_bars(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> lo,
                    std::span<const double> mid, std::span<const double> hi, double width);
  /// Hollow circles (e.g. a test set drawn beside a filled training set).
  void rings(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
             float radius_em = 0.26f, float thickness_em = 0.09f);
  /// A texture stretched over the data rectangle [x0, x1] × [y0, y1]; uv_lo is the texture coordinate at
  /// (x0, y0) and uv_hi at (x1, y1) (heatmaps as textures: one quad, not one rectangle per cell).
  void image(ImTextureID texture, double x0, double y0, double x1, double y1, ImVec2 uv_lo, ImVec2 uv_hi);
  /// For the CSV export only (draws nothing): the cells of a heat map drawn as an image, one (x, y, value)
  /// per cell, all of them (the image covers them).
  void cells(const char* label, std::span<const double> xs, std::span<const double> ys,
             std::span<const double> values);
  /// For the CSV export only (draws nothing): a data series drawn without a legend entry ("##" labels), under
  /// the name the CSV gives it.
  void data(const char* label, std::span<const double> xs, std::span<const double> ys);
  /// Pixel position of a data point (for overlays drawn by the caller).
  ImVec2 to_pixels(double x, double y) const { return px(x, y); }
  /// A vertical band over the full plot height (x0 < x1; infinities extend to the plot edge).
  void shade_x(const char* label, ImU32 color, double x0, double x1);
  /// The region between two curves sampled at xs.
  void shade_between(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> y0,
                     std::span<const double> y1);
  void hline(double y, ImU32 color, float thickness_em = 0.06f, bool dashed = false);
  void vline(double x, ImU32 color, float thickness_em = 0.06f, bool dashed = false);
  /// A dot with an optional text label beside it. A dot left or right of the view is not seen: its label,
  /// at that edge, points to it ("← text", "text →"), or goes beside a legend outside the plot.
  void marker(double x, double y, ImU32 color, const char* text = nullptr, float radius_em = 0.3f);
  /// The tangent line y0 + slope·(x − x0) across the plot.
  void tangent(double x0, double y0, double slope, ImU32 color, float thickness_em = 0.09f);
  /// A draggable vertical probe line; returns true when the user moved it this frame.
  bool probe(double* x, ImU32 color);
  /// Lists the series keyed `key` first in the legend, whatever order it was drawn in (so a reference
  /// curve can be drawn last, on top, and still lead the legend).
  void legend_first(const char* key) { legend_first_ = key; }
  /// Text in a plot corner (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left), for annotations.
  /// `compact`, when given, replaces `text` where `text` would cover more than a third of the data area's
  /// height (a small plot, large text): the same fact in fewer words. Where every corner would cover some of
  /// the data and the legend sits outside the data area, the note goes into the room the legend leaves there
  /// (under it at the right, beside it below the plot), if it fits.
  void note(const char* text, int corner, ImU32 color, const char* compact = nullptr);
  /// Diagonal hatching over the whole data area (a view whose data is not valid: a diverged net's map),
  /// spacing_em apart; drawn over what came before it.
  void hatch(ImU32 color, float spacing_em = 0.9f);

  void end();

 private:
  struct Entry {
    std::string label, key;
    ImU32 color;
    bool hidden;
    bool readout;                    // listed in the hover readout
    bool dot = false;                // legend swatch: a dot (scatter) instead of a line or a filled box
    BatchFn f, df;                   // function series
    std::span<const double> xs, ys;  // data series
    ImVec2 end{NAN, NAN};            // the last point its line drew, in pixels (NaN: none)
    ImVec2 mid{NAN, NAN};            // a point of its line at 60 % of the view (where the end is crowded)
    bool inlined = false;            // named at its line's end (set_inline_legends), not in the legend
  };
  bool begin_series(const char* label, ImU32 color, bool readout, Entry** out);
  void polyline(std::span<const double> xs, std::span<const double> ys, ImU32 color, float thickness);
  ImVec2 px(double x, double y) const;
  void draw_axes();
  void text_at(ImVec2 pos, ImU32 color, const char* text, TextKind kind = TextKind::Axis);
  bool tick_text(ImVec2 pos, ImU32 color, const char* text);
  void draw_legend();
  void draw_inline_labels();
  /// The last finite point of (xs, ys) in the visible x range, in pixels (NaN when there is none).
  ImVec2 line_end(std::span<const double> xs, std::span<const double> ys) const;
  /// A finite point of (xs, ys) in the visible x range near `share` of it, in pixels (NaN when none).
  ImVec2 line_at(std::span<const double> xs, std::span<const double> ys, double share) const;
  void draw_readout();
  bool draw_dot_tip();
  void draw_view_notes();
  /// Sets where the legend's room is kept outside the data area (place_.outside) as it stands now.
  void sync_outside_room();
  /// Draws the notes placed in the room the legend leaves outside the data area (place_.outside_notes).
  void draw_outside_notes();
  /// Draws `text` near p where place.hpp's place_label puts it (beside it, or further off as a lesson's
  /// callout with a pale box and a border): the box, or nothing when it was left out or went beside the
  /// legend outside the plot. A `marker`'s label keeps off its own dot and nearer its dot than others of its
  /// colour; `near` (labels_near) keeps it within reach of the dot, else leaves it out; `optional` moves it
  /// out of the data area where it would lie on the data over a sixth of the plot or more (a small plot at a
  /// large text scale): into the room under the legend when the legend is at the right, else it is left out.
  /// A marker's label whose dot is left or right of the view points to it from that edge, or goes beside a
  /// legend outside the plot where it would lie on the data.
  std::optional<std::pair<ImVec2, ImVec2>> label_near(ImVec2 p, const char* text, ImU32 color, bool callout,
                                                      bool marker = false, bool near = false,
                                                      bool optional = false);
  void apply_fit();
  void capture(const std::string& label, std::span<const double> xs, std::span<const double> ys);

  PlotState& s_;
  std::string id_;
  Transform tf_;
  ImDrawList* dl_ = nullptr;
  // Channel 0: series and shading; channel 1: marker labels and notes, so no curve drawn later covers them;
  // channels 2 and 3: marker dots' halos and colours, so no label covers a dot.
  // Its own splitter, so a plot inside an ImGui table (which splits the window's list) still works.
  ImDrawListSplitter layers_;
  ImVec2 frame_min_, frame_max_, area_min_, area_max_;
  std::string x_label_, y_label_;
  // The title (y_label_) and the x label as drawn: one line, or word-wrapped to the plot's width (a number is
  // never split: lines break at spaces only).
  std::vector<std::string> title_lines_, x_label_lines_;
  int category_lines_ = 1;  // lines the x category labels may take this frame (2 where a name needs them)
  int items_ = 0;           // data items drawn this frame (PlotState::drawn_items)
  float em_ = 13;
  bool hovered_ = false, ended_ = false;
  std::vector<Entry> entries_;
  std::string legend_first_;
  Range fit_y_{1e300, -1e300}, fit_x_{1e300, -1e300};
  std::vector<double> sx_, sy_;  // sampling scratch
  // What placement (place.hpp) knows of this plot: what the data drawn so far covers (line segments, dots,
  // filled rectangles, shaded x-bands), the label and note boxes placed so far and the notes placed in the
  // room a legend outside the data area leaves (drawn by end(), see note()).
  Scene place_;
  float lu_ = 13;          // line unit: series widths and dot radii follow the plot's size, not the text
  ImVec2 reserved_{0, 0};  // room kept outside the data area this frame (legend right / below)
  LegendPlace reserved_place_ = LegendPlace::Inside;
  ImVec2 key_size_{0, 0};   // the size the panel asked for (PlotState::legend_key)
  ImVec2 free_area_{0, 0};  // the data area that size gives with no room kept for the legend
  // Labelled marker dots, in drawing order: end() places their labels, once every dot and curve of the plot
  // is drawn, and hovering one shows its label (draw_dot_tip).
  struct NamedDot {
    ImVec2 p;
    float r;  // radius in pixels
    std::string text;
    ImU32 color;
    bool lesson;  // a lesson step's marker: its label is never left out, nor held near by labels_near
  };
  std::vector<NamedDot> named_dots_;
  bool in_view_notes_ = false;
};

}  // namespace gelu::plot

// GELU Lab plot layer: where things go in and around a plot, decided on rectangles without ImGui (tests check
// it with a fixed-width text rule). The plot records what its data covers (segments, dots, filled boxes,
// shaded bands) into a Scene while it draws; this file decides, from that scene and the text sizes a
// measuring callback gives, where the legend goes inside the data area, where a marker's label or a callout
// goes, which corner a note takes (and whether its compact text), and what goes into the room a legend
// outside the plot leaves. plot_place.cpp is the ImGui side: it measures text with the font, asks here, and
// draws what it is told.
//
// Index of this file:
//   [SECTION] Geometry
//   [SECTION] The scene
//   [SECTION] Labels
//   [SECTION] Notes
//   [SECTION] The legend
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plot/slide.hpp"

namespace gelu::plot {

// [SECTION] Geometry

/// A point in pixels (y grows downward).
struct Point {
  float x = 0, y = 0;
};
/// A rectangle in pixels from min (left, top) to max (right, bottom).
struct Rect {
  Point min, max;
};
/// Whether a and b overlap (touching edges do not).
bool boxes_meet(const Rect& a, const Rect& b);
/// Whether the segment a–b, widened by r, touches the rectangle `box` (Liang–Barsky clipping).
bool segment_hits(Point a, Point b, float r, const Rect& box);
/// From q to the nearest point of `box` (0 inside it).
float box_distance(Point q, const Rect& box);

/// The size of a text as drawn, in pixels: its widest line's width and its lines' height ('\n' breaks lines).
/// The ImGui side measures with the font (ImGui::CalcTextSize); tests with a fixed-width rule.
using MeasureText = std::function<Point(const std::string&)>;
/// `text` wrapped at spaces to `width` (a word wider than `width` keeps its own line: a number is never
/// split); runs of spaces collapse at a break. Empty text: no lines.
std::vector<std::string> wrap_words(const std::string& text, float width, const MeasureText& measure);

// [SECTION] The scene

/// What the data drawn so far covers: a line segment (a == b: a dot) widened by r pixels.
struct Ink {
  Point a, b;
  float r = 0;
};
/// A marker or scatter dot: its centre and its colour (ImGui's packed RGBA).
struct InkDot {
  Point p;
  std::uint32_t color = 0;
};
/// A note or label placed in the room a legend outside the data area leaves (drawn after the legend).
struct OutsideNote {
  Point pos;
  std::uint32_t color = 0;
  std::string text;
};

/// One plot as placement sees it: its data area and frame, the text size, what its data covers, the label and
/// note boxes placed so far, and the room a legend outside the data area leaves.
struct Scene {
  Rect area, frame;
  float em = 13;           // the font size
  float line_height = 13;  // one text line's height
  MeasureText measure;
  std::vector<Ink> ink;
  std::vector<Rect> ink_rects;   // filled boxes: bars, images, a callout's box
  std::vector<Rect> soft_rects;  // shaded x-bands: they count only between places that cover no data
  std::vector<InkDot> dots;
  std::vector<Rect> labels;  // marker label and note boxes placed so far (inside and outside)
  /// Where the legend's room is kept outside the data area this frame, where the legend is shown: Right or
  /// Below; Inside: no room outside. legend_size: the legend's box there.
  LegendSlot outside = LegendSlot::Inside;
  Point legend_size;
  std::vector<OutsideNote> outside_notes;  // placed in that room, in order
  float outside_next_y = 0;                // where the next one may start (below the last)
};

// [SECTION] Labels

/// A label to place near the point p.
struct LabelAsk {
  Point p;
  std::string text;  // as it reads (minus signs already U+2212)
  std::uint32_t color = 0;
  bool callout = false;   // a lesson's arrow: further off, in a pale box with a border
  bool marker = false;    // a marker's label: off its own dot, nearer it than other dots of its colour
  bool near = false;      // labels_near: within reach of its dot (about 1.5 em), else left out
  bool optional = false;  // may leave the data area where it would cover a sixth of the plot's data
};
/// Where a label went.
struct LabelPlace {
  enum class Where {
    Here,     // in the data area: `text` at `at`, its box `box` (a callout's bordered box: `callout_box`)
    Outside,  // beside the legend outside the plot (Scene::outside_notes' last)
    Left,     // left out: no place clear of the other labels, or it hid more than it said
  } where = Where::Left;
  Point at;
  std::string text;  // as drawn: an edge arrow ("← ", " →") for an off-view dot, wrapped lines
  Rect box, callout_box;
};
/// Places a label where it covers the least: beside the point (right-below, right-above, left-below,
/// left-above, below, above), further out where those are taken, pushed inside the data area. Another label
/// under it is worst, then data (segments 3, filled boxes 30), shadings (10), dots (1); a marker's label on
/// its own dot, or nearer another dot of its colour than its own, costs 100. A one-line label that lies on
/// data or on a label everywhere tries two lines. A marker's dot left or right of the view: its label sits at
/// that edge with an arrow pointing out, or, on data, beside a legend outside the plot. The box placed is
/// added to scene.labels (a callout's box also to scene.ink_rects).
LabelPlace place_label(Scene& scene, const LabelAsk& ask);

/// The texts a curve's name tries at its line's end on a slide, in order: the compact name (the part before a
/// double space, without parameter values in parentheses; a shading's (`curve` false) without its ": "
/// explanation), then its part before ": ". Each is tried at the line's end, then at 60 % of the view.
std::vector<std::string> inline_label_texts(const std::string& label, bool curve);
/// A curve's name as a slide labels it: up to a double space ("exact GELU  x·Φ(x)": the name, then its
/// formula), without the parameter values in parentheses ("tanh form (c = 0.044715): max …" -> "tanh form:
/// max …"); a parenthesis that tells curves apart ("GELU (exact)") stays.
std::string compact_label(const std::string& label);

// [SECTION] Notes

/// Where a note went.
struct NotePlace {
  bool outside = false;  // beside the legend outside the plot (Scene::outside_notes' last)
  Point at, size;        // inside: the text's position and size
  std::string text;      // inside: as drawn (wrapped, cut with "…" below the plot's height)
  Rect box;              // the box recorded (PlotState::note_min/max)
};
/// A note in a corner of the data area (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left), wrapped to
/// its width; `compact` (may be empty: none) replaces `text` where `text` would take more than a third of the
/// area's height. The asked-for corner unless another covers less of the data and the labels; where every
/// corner covers some and the legend is outside, the room beside the legend (the full text, else the compact
/// one), if it fits. Its box is added to scene.labels.
NotePlace place_note(Scene& scene, const std::string& text, int corner, std::uint32_t color,
                     const std::string& compact = {});
/// Places a text in the room the legend leaves outside the data area: under a legend at the right (as wide as
/// it, down to the frame's bottom; a label, `is_note` false, keeps above the x axis's row), or beside a
/// legend below the plot (centred on it), below the texts placed there before; the text if it fits, else
/// `compact` (empty: none). Returns the box placed (added to scene.labels and scene.outside_notes), or
/// nothing: no room there, or neither text fits.
std::optional<Rect> place_outside_note(Scene& scene, const std::string& text, const std::string& compact,
                                       std::uint32_t color, bool is_note);

// [SECTION] The legend

/// The legend's two shapes: a column of entries (`box`), and rows flowing across the plot's width below it
/// (`flow_box`; each entry at `flow[i]`, its text `flow_text[i]` wrapped where wider than the plot, its width
/// with the swatch `flow_width[i]`). pad, swatch, row: the column's padding, swatch width and row height.
struct LegendShape {
  float pad = 0, swatch = 0, row = 0;
  Point box, flow_box;
  std::vector<Point> flow;
  std::vector<std::string> flow_text;
  std::vector<float> flow_width;
};
/// The legend's shapes for these entry labels; `flow_room`: the width the rows below the plot may take.
LegendShape legend_shape(const std::vector<std::string>& labels, float em, float line_height, float flow_room,
                         const MeasureText& measure);

/// What a legend box at a place covers: data and labels (hard: how many), shadings (soft: their area).
struct LegendCover {
  int hard = 0;
  float soft = 0;
};
LegendCover legend_cover(const Scene& scene, const Rect& box);
/// The legend's top-left inside the data area at `anchor` ((0, 0) top-left ... (1, 1) bottom-right), `inset`
/// from its edges.
Point legend_corner(const Rect& area, Point box, Point anchor, float inset);
/// The legend's place inside the data area: the preferred anchor, else of the corners and edges (top-right,
/// top-left, bottom-right, bottom-left, top, bottom, right, left, then the top's and bottom's quarters) the
/// first that covers fewer data and labels (then less shading), stopping at one that covers nothing.
struct LegendInside {
  Point at;
  LegendCover cover;
};
LegendInside legend_inside(const Scene& scene, Point box, Point preferred, float inset);

/// What the last decision of a legend's place was made for (PlotState::legend_key, _em, _n): key.x < 0 when
/// none was made.
struct LegendMemory {
  Point key{-1, -1};
  float em = 0, n = 0;
};
/// A legend's place decided: where it goes (inside, at the right, below), its top-left inside, and whether
/// the decision was made again this frame (then `memory` holds what it was made for).
struct LegendChoice {
  LegendSlot slot = LegendSlot::Inside;
  Point at;
  bool decided = false;
};
/// What a legend's place is decided from: its shape, the plot's asked-for size (`key`), the data area that
/// size gives without room for a legend (`free_area`), the number of entries, the gap beside it, whether the
/// plot has bar groups, and where it is now.
struct LegendAsk {
  const LegendShape* shape = nullptr;
  Point preferred;  // PlotState::legend_anchor
  Point key, free_area;
  float n_entries = 0, gap = 0, min_area_w = 300, inset = 0;
  bool bar_groups = false;
  LegendSlot now = LegendSlot::Inside;
};
/// Inside where it fits (at most 0.3 of the free area) and covers no data or label; else outside
/// (legend_slot). Decided again only when the plot's size moved by more than 3 em, the text size or the
/// number of entries changed, or it is inside and may no longer be; otherwise a legend once outside stays
/// there (no flicker).
LegendChoice choose_legend(const Scene& scene, const LegendAsk& ask, LegendMemory& memory);

}  // namespace gelu::plot

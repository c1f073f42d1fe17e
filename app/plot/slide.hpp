// GELU Lab plot layer: the slide's geometry, without ImGui (tests check it on rectangles). A lesson step in
// presentation mode is a slide: every plot it draws, with its tick labels, legend, notes and marker labels,
// lies inside the window and above the lesson bar, and neither the panel nor the step's text scrolls. This
// file measures that from rectangles: what share of a plot the class sees, and what does not fit, in words
// (`gelulab lessons` prints them, `gelulab shot --meta` lists them, the layout matrix asserts them away).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gelu::plot {

/// A rectangle in pixels, left/top inclusive; empty when r <= l or b <= t.
struct Box {
  double l = 0, t = 0, r = 0, b = 0;
  double width() const { return r > l ? r - l : 0; }
  double height() const { return b > t ? b - t : 0; }
  double area() const { return width() * height(); }
  bool empty() const { return !(r > l && b > t); }
};
/// Where both boxes are (empty when they do not meet).
Box intersect(const Box& a, const Box& b);
/// The smallest box holding both (an empty box adds nothing).
Box unite(const Box& a, const Box& b);

/// The share of `extent`'s area inside `seen`: 1 when all of it is, 0 when none is. An empty extent (a plot
/// that drew nothing) is 1: there is nothing the class misses.
double visible_fraction(const Box& extent, const Box& seen);

/// One plot as a slide sees it: its id and everything it drew (frame, tick labels, legend, notes, labels).
struct SlidePlot {
  std::string id;
  Box extent;
};
/// The slide around the plots: the window, the room the panel has above the lesson bar (`room`), whether a
/// lesson bar is there (its top is room.b), the step text's lines against the lines the bar shows, and how
/// far the panel's own content runs past its room (it scrolls).
struct SlideFrame {
  Box window, room;
  bool lesson_bar = false;
  int text_lines = 0, bar_lines = 0;  // lines the step's text needs, lines the bar shows of it
  double text_overflow_px = 0;        // the step's text below what the bar shows (0: all of it shows)
  double panel_overflow_px = 0;       // the panel's content below its room (0: nothing to scroll to)
};

/// What does not fit, one phrase each, in the order: plots (in drawing order), the text, the panel:
///   "plot 'histograms' ends 132 px under the lesson bar", "plot 'errors' is not on screen (under the lesson
///   bar)", "plot 'x' runs 12 px past the window's right edge", "text needs 6 lines, the bar shows 4",
///   "the panel scrolls: 40 px of it below the lesson bar".
/// Empty: the slide holds. Half a pixel of slack absorbs rounding.
std::vector<std::string> slide_problems(const std::vector<SlidePlot>& plots, const SlideFrame& frame);

// [SECTION] Legend place

/// Where a plot's legend goes when its place is decided: inside the data area, at its right, or below the
/// plot (entries flowing in rows).
enum class LegendSlot { Inside, Right, Below };
/// The room a legend decision weighs, in pixels: the data area the plot's asked-for size gives without any
/// room kept for a legend (free_w × free_h), the legend as a column (box_w × box_h) and as rows below the
/// plot (flow_h tall), the gap kept beside it, the least data-area width, and whether the plot has bar groups
/// (which keep the width for their names).
struct LegendRoom {
  double free_w = 0, free_h = 0, box_w = 0, box_h = 0, flow_h = 0, gap = 0, min_area_w = 300;
  bool inside_ok = false;  // inside it covers no data and leaves most of the plot free
  bool bar_groups = false;
};
/// Inside where it may be; at the right where the width left keeps min_area_w and the plot grows less than
/// below it would (a legend taller than the data area makes the area as tall as the legend; bar groups only
/// where it fits the height as it is); below otherwise.
LegendSlot legend_slot(const LegendRoom& r);

// [SECTION] Linked plots

/// One plot's data area across x as it would be on its own, the axis its x is linked to (null: none) and the
/// left edge of its frame.
struct LinkedArea {
  const void* axis = nullptr;
  double frame_left = 0, left = 0, right = 0;
};
/// The data area across x that `mine` shares with the plots of its column: those linked to the same axis
/// whose frames start at the same left edge (within a pixel; stacked plots of a panel) share the narrowest
/// common extent [the largest left, the smallest right], so that the same x is the same screen column in each
/// of them. `others`: the plots as they were last drawn (one frame late: a plot learns its column's extent
/// from the frame before). A plot with no axis, or no other plot of its column, keeps its own.
std::pair<double, double> shared_x_extent(const std::vector<LinkedArea>& others, const LinkedArea& mine);

}  // namespace gelu::plot

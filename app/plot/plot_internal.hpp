// GELU Lab plot layer, inside: the one plot context (the settings every plot of a frame shares, and what
// linked plots learn from each other) and the colours and helpers the plot's source files share. Panels use
// plot.hpp. The plot is split as ImPlot splits: plot.hpp (the API), this file (the internal types), plot.cpp
// (a plot's begin and end: layout, input, grid, axes, readout), plot_items.cpp (the series), plot_place.cpp
// (the ImGui side of placement: it measures, asks place.hpp where legends, labels and notes go, and draws).
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plot/place.hpp"
#include "plot/plot.hpp"
#include "plot/slide.hpp"

namespace gelu::plot::detail {

/// What the file globals were: set through plot.hpp's set_line_scale, set_draw_legends, set_inline_legends,
/// set_view_filter and set_series_names; linked plots' data areas across x (plot/slide.hpp, shared_x_extent).
struct Context {
  float line_scale = 1.0f;
  bool draw_legends = true;
  bool inline_legends = false;
  const ViewFilter* view_filter = nullptr;
  std::set<std::string>* series_names = nullptr;
  std::vector<LinkedArea> linked_last, linked_now;  // the frame that ended, and this one
};
/// The one plot context.
Context& context();

constexpr ImU32 kPalette[] = {IM_COL32(31, 119, 180, 255),  IM_COL32(255, 127, 14, 255),
                              IM_COL32(44, 160, 44, 255),   IM_COL32(214, 39, 40, 255),
                              IM_COL32(148, 103, 189, 255), IM_COL32(140, 86, 75, 255),
                              IM_COL32(227, 119, 194, 255), IM_COL32(127, 127, 127, 255),
                              IM_COL32(188, 189, 34, 255),  IM_COL32(23, 190, 207, 255)};

constexpr ImU32 kPlotBg = IM_COL32(255, 255, 255, 255);
constexpr float kMinLine =
    2.0f;  // thinnest line drawn, in pixels: thinner ones fade to grey when anti-aliased
// A polyline's points within this many pixels (ImGui's, before the framebuffer's scale) of the line through
// their neighbours are dropped before drawing (simplify_polyline): a third of a device pixel at 3×.
constexpr float kPolylineTolerance = 0.1f;
constexpr ImU32 kGridMajor = IM_COL32(0, 0, 0, 38);
constexpr ImU32 kGridMinor = IM_COL32(0, 0, 0, 14);
constexpr ImU32 kZeroLine = IM_COL32(0, 0, 0, 110);
constexpr ImU32 kFrame = IM_COL32(0, 0, 0, 140);
constexpr ImU32 kText = IM_COL32(20, 20, 20, 255);

inline bool inside(ImVec2 p, ImVec2 a, ImVec2 b) {
  return p.x >= a.x && p.x <= b.x && p.y >= a.y && p.y <= b.y;
}

// Pixel coordinates far outside the plot are clamped before the float conversion: ImGui draws in float and
// a curve at 1e30 would otherwise produce Inf vertices. With one sample per pixel the clamp bends at most
// the segment that leaves the plot, which is clipped anyway.
inline float clamp_px(double v, double lo, double hi) {
  const double margin = (hi - lo) * 4 + 100;
  return static_cast<float>(std::clamp(v, lo - margin, hi + margin));
}

inline std::string format_value(double v) {
  char buf[48];
  if (std::isnan(v)) return "—";
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Between ImGui's vectors and placement's points and rectangles (place.hpp).
inline Point pt(ImVec2 v) {
  return {v.x, v.y};
}
inline ImVec2 iv(Point p) {
  return {p.x, p.y};
}
inline Rect rect(ImVec2 lo, ImVec2 hi) {
  return {pt(lo), pt(hi)};
}
/// A text's size as the current font draws it: placement's measuring callback (place.hpp's MeasureText).
inline Point measure_text(const std::string& text) {
  return pt(ImGui::CalcTextSize(text.c_str()));
}

/// `text` cut to fit `width` with "…": whole UTF-8 characters dropped from the end (one kept at least).
inline std::string cut_to_fit(std::string text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  while (text.size() > 1 && ImGui::CalcTextSize((text + "…").c_str()).x > width) {
    std::size_t cut = text.size() - 1;
    while (cut > 1 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
  }
  return text + "…";
}

}  // namespace gelu::plot::detail

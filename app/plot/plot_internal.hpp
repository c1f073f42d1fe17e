// GELU Lab plot layer, inside: the one plot context (the settings every plot of a frame shares, and what
// linked plots learn from each other) and the colours and helpers the plot's source files share. Panels use
// plot.hpp. The plot is split as ImPlot splits: plot.hpp (the API), this file (the internal types), plot.cpp
// (a plot's begin and end: layout, input, grid, axes, readout), plot_items.cpp (the series), plot_place.cpp
// (where legends, labels and notes go).
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

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

// From the point q to the nearest point of the box b (0 inside it).
inline float box_distance(ImVec2 q, const std::pair<ImVec2, ImVec2>& b) {
  const float dx = std::max({b.first.x - q.x, 0.0f, q.x - b.second.x});
  const float dy = std::max({b.first.y - q.y, 0.0f, q.y - b.second.y});
  return std::hypot(dx, dy);
}

// Whether the segment a–b, widened by r, touches the rectangle [lo, hi] (Liang–Barsky clipping).
inline bool segment_hits(ImVec2 a, ImVec2 b, float r, ImVec2 lo, ImVec2 hi) {
  lo = ImVec2(lo.x - r, lo.y - r);
  hi = ImVec2(hi.x + r, hi.y + r);
  float t0 = 0, t1 = 1;
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float p[4] = {-dx, dx, -dy, dy}, q[4] = {a.x - lo.x, hi.x - a.x, a.y - lo.y, hi.y - a.y};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const float t = q[i] / p[i];
    if (p[i] < 0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 > t1) return false;
  }
  return true;
}

inline bool boxes_meet(ImVec2 alo, ImVec2 ahi, ImVec2 blo, ImVec2 bhi) {
  return alo.x < bhi.x && blo.x < ahi.x && alo.y < bhi.y && blo.y < ahi.y;
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

// A curve's name as a slide labels it: up to a double space ("exact GELU  x·Φ(x)": the name, then its
// formula), without the parameter values in parentheses ("tanh form (c = 0.044715): max …" -> "tanh form:
// max …"); a parenthesis that tells curves apart ("GELU (exact)") stays.
inline std::string compact_label(const std::string& label) {
  std::string t = label.substr(0, label.find("  "));
  for (std::size_t at = t.find(" ("); at != std::string::npos; at = t.find(" (", at + 1)) {
    const std::size_t close = t.find(')', at);
    if (close == std::string::npos) break;
    if (t.substr(at, close - at).find('=') == std::string::npos) continue;
    t.erase(at, close + 1 - at);
    if (at-- == 0) break;
  }
  return t.empty() ? label : t;
}

}  // namespace gelu::plot::detail

// The slide's geometry (see slide.hpp).
#include "plot/slide.hpp"

#include <algorithm>
#include <cmath>

namespace gelu::plot {

Box intersect(const Box& a, const Box& b) {
  return {std::max(a.l, b.l), std::max(a.t, b.t), std::min(a.r, b.r), std::min(a.b, b.b)};
}

Box unite(const Box& a, const Box& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.l, b.l), std::min(a.t, b.t), std::max(a.r, b.r), std::max(a.b, b.b)};
}

double visible_fraction(const Box& extent, const Box& seen) {
  const double all = extent.area();
  if (!(all > 0)) return 1.0;
  return std::clamp(intersect(extent, seen).area() / all, 0.0, 1.0);
}

namespace {
std::string px(double v) {
  return std::to_string(static_cast<long long>(std::ceil(v - 0.5))) + " px";
}
}  // namespace

std::vector<std::string> slide_problems(const std::vector<SlidePlot>& plots, const SlideFrame& f) {
  constexpr double kSlack = 0.5;
  std::vector<std::string> out;
  const char* const below = f.lesson_bar ? "the lesson bar" : "the window's bottom edge";
  for (const SlidePlot& p : plots) {
    if (p.extent.empty()) continue;
    const std::string name = "plot '" + p.id + "'";
    const Box seen = intersect(f.room, f.window);
    if (visible_fraction(p.extent, seen) <= 0) {
      out.push_back(
          name + " is not on screen (" +
          (p.extent.t >= seen.b ? std::string("under ") + below : std::string("outside the window")) + ")");
      continue;
    }
    if (p.extent.b > seen.b + kSlack)
      out.push_back(name + " ends " + px(p.extent.b - seen.b) + " under " + below);
    if (p.extent.t < seen.t - kSlack)
      out.push_back(name + " starts " + px(seen.t - p.extent.t) + " above its room");
    if (p.extent.r > seen.r + kSlack)
      out.push_back(name + " runs " + px(p.extent.r - seen.r) + " past the window's right edge");
    if (p.extent.l < seen.l - kSlack)
      out.push_back(name + " runs " + px(seen.l - p.extent.l) + " past the window's left edge");
  }
  if (f.text_overflow_px > kSlack)
    out.push_back("text needs " + std::to_string(f.text_lines) + " lines, the bar shows " +
                  std::to_string(f.bar_lines));
  if (f.panel_overflow_px > kSlack)
    out.push_back("the panel scrolls: " + px(f.panel_overflow_px) + " of it below " + below);
  return out;
}

LegendSlot legend_slot(const LegendRoom& r) {
  if (r.inside_ok) return LegendSlot::Inside;
  if (r.free_w - r.box_w - r.gap >= r.min_area_w &&
      (r.box_h <= r.free_h || (!r.bar_groups && r.box_h <= r.free_h + r.flow_h + r.gap)))
    return LegendSlot::Right;
  return LegendSlot::Below;
}

std::pair<double, double> shared_x_extent(const std::vector<LinkedArea>& others, const LinkedArea& mine) {
  double left = mine.left, right = mine.right;
  if (!mine.axis) return {left, right};
  for (const LinkedArea& o : others) {
    if (o.axis != mine.axis || std::fabs(o.frame_left - mine.frame_left) > 1.0) continue;
    left = std::max(left, o.left);
    right = std::min(right, o.right);
  }
  if (right <= left) return {mine.left, mine.right};  // columns that do not meet: each keeps its own
  return {left, right};
}

}  // namespace gelu::plot

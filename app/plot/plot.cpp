// GELU Lab plot layer: ImDrawList renderer and interaction (see plot.hpp for the contract).
//
// Index of this file:
//   [SECTION] Begin
//   [SECTION] Series
//   [SECTION] End
#include "plot/plot.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gelu::plot {

namespace {

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

bool inside(ImVec2 p, ImVec2 a, ImVec2 b) {
  return p.x >= a.x && p.x <= b.x && p.y >= a.y && p.y <= b.y;
}

// Pixel coordinates far outside the plot are clamped before the float conversion: ImGui draws in float and
// a curve at 1e30 would otherwise produce Inf vertices. With one sample per pixel the clamp bends at most
// the segment that leaves the plot, which is clipped anyway.
float clamp_px(double v, double lo, double hi) {
  const double margin = (hi - lo) * 4 + 100;
  return static_cast<float>(std::clamp(v, lo - margin, hi + margin));
}

std::string format_value(double v) {
  char buf[48];
  if (std::isnan(v)) return "—";
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// From the point q to the nearest point of the box b (0 inside it).
float box_distance(ImVec2 q, const std::pair<ImVec2, ImVec2>& b) {
  const float dx = std::max({b.first.x - q.x, 0.0f, q.x - b.second.x});
  const float dy = std::max({b.first.y - q.y, 0.0f, q.y - b.second.y});
  return std::hypot(dx, dy);
}

// Whether the segment a–b, widened by r, touches the rectangle [lo, hi] (Liang–Barsky clipping).
bool segment_hits(ImVec2 a, ImVec2 b, float r, ImVec2 lo, ImVec2 hi) {
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

bool boxes_meet(ImVec2 alo, ImVec2 ahi, ImVec2 blo, ImVec2 bhi) {
  return alo.x < bhi.x && blo.x < ahi.x && alo.y < bhi.y && blo.y < ahi.y;
}

}  // namespace

std::string unicode_minus(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    if (c == '-') {
      out += "\xE2\x88\x92";
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> wrap_words(const std::string& text, float width) {
  std::vector<std::string> lines;
  if (text.empty()) return lines;
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return {text};
  std::string cur;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    const std::string joined = cur.empty() ? word : cur + " " + word;
    if (!cur.empty() && ImGui::CalcTextSize(joined.c_str()).x > width) {
      lines.push_back(cur);
      cur = word;
    } else {
      cur = joined;
    }
    at = end + 1;
    while (at < text.size() && text[at] == ' ') ++at;  // runs of spaces (title gaps) collapse at a break
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

namespace {
/// `text` cut to fit `width` with "…": whole UTF-8 characters dropped from the end (one kept at least).
std::string cut_to_fit(std::string text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  while (text.size() > 1 && ImGui::CalcTextSize((text + "…").c_str()).x > width) {
    std::size_t cut = text.size() - 1;
    while (cut > 1 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
  }
  return text + "…";
}
}  // namespace

std::vector<std::string> fit_category_label(const std::string& label, float width, int max_lines, bool* cut) {
  auto wide = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  std::vector<std::string> lines;
  if (wide(label) <= width || max_lines < 2) {
    lines.push_back(label);
  } else {
    // The break (after '_' or '-', or at a space, which is dropped) whose wider line is narrowest.
    float best = 0;
    for (std::size_t i = 1; i + 1 < label.size(); ++i) {
      const char c = label[i];
      if (c != '_' && c != '-' && c != ' ') continue;
      std::string a = label.substr(0, c == ' ' ? i : i + 1), b = label.substr(i + 1);
      const float w = std::max(wide(a), wide(b));
      if (lines.empty() || w < best) {
        lines = {std::move(a), std::move(b)};
        best = w;
      }
    }
    if (lines.empty()) lines.push_back(label);
  }
  bool any = false;
  for (std::string& l : lines) {
    std::string c = cut_to_fit(l, width);
    any = any || c != l;
    l = std::move(c);
  }
  if (cut) *cut = any;
  return lines;
}

ImU32 palette(int i, float alpha) {
  ImU32 c = kPalette[static_cast<std::size_t>(i) % (sizeof kPalette / sizeof kPalette[0])];
  const auto a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f + 0.5f);
  return (c & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

namespace {
float g_line_scale = 1.0f;
bool g_draw_legends = true;
}  // namespace
void set_draw_legends(bool draw) {
  g_draw_legends = draw;
}
namespace {
bool g_inline_legends = false;
}  // namespace
void set_inline_legends(bool on) {
  g_inline_legends = on;
}
bool inline_legends() {
  return g_inline_legends;
}

void set_line_scale(float scale) {
  g_line_scale = std::clamp(scale, 0.25f, 8.0f);
}
float line_scale() {
  return g_line_scale;
}

// [SECTION] Begin: layout, input, grid

namespace {
const ViewFilter* g_view_filter = nullptr;
std::set<std::string>* g_series_names = nullptr;
}  // namespace

void set_series_names(std::set<std::string>* names) {
  g_series_names = names;
}

bool ViewFilter::hides(std::string_view text, std::string_view key) const {
  const auto named = [&](const std::string& n) { return n == text || n == key; };
  if (!series.empty() && std::none_of(series.begin(), series.end(), named)) return true;
  const auto it = std::find_if(reveal.begin(), reveal.end(), named);
  return it != reveal.end() && it - reveal.begin() >= revealed;
}
void set_view_filter(const ViewFilter* filter) {
  g_view_filter = filter;
}
const ViewFilter* view_filter() {
  return g_view_filter;
}

Plot::Plot(const char* id, PlotState& state, ImVec2 size, const char* x_label, const char* y_label)
    : s_(state), id_(id ? id : ""), x_label_(x_label ? x_label : ""), y_label_(y_label ? y_label : "") {
  em_ = ImGui::GetFontSize();
  s_.note_min = s_.note_max = ImVec2(0, 0);
  if (g_view_filter && !g_view_filter->legends) s_.legend_shown = false;  // the lesson step's choice
  dl_ = ImGui::GetWindowDrawList();
  if (s_.capture) s_.captured.clear();
  s_.texts.clear();
  if (s_.linked_x) s_.x = *s_.linked_x;
  // A scale switch (linear -> log) can leave a range outside the new scale's domain: repair it first.
  s_.x.range = sanitize(s_.x, s_.x.range, sanitize(s_.x, s_.home_x, Range{1, 10}));
  s_.y.range = sanitize(s_.y, s_.y.range, sanitize(s_.y, s_.home_y, Range{1e-3, 1}));

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = avail.x + size.x;
  if (size.y <= 0) size.y = avail.y + size.y;
  // The legend's signature: the size the panel asked for (not grown by the legend's own room, so a legend
  // moved outside does not change what its place was decided for) and the text size.
  key_size_ = size;
  const bool out = s_.legend_shown && s_.legend_place != LegendPlace::Inside;
  reserved_place_ = out ? s_.legend_place : LegendPlace::Inside;
  const float gap = 0.6f * em_;
  if (reserved_place_ == LegendPlace::Right) reserved_.x = s_.legend_out.x + gap;
  if (reserved_place_ == LegendPlace::Below) reserved_.y = s_.legend_out.y + gap;
  size.x = std::max(size.x, 5.0f * em_ + kMinAreaWidth + reserved_.x);
  frame_min_ = ImGui::GetCursorScreenPos();
  // A title or x label wider than the plot wraps at spaces onto more lines (it never runs over the plot
  // beside it, and a number is never split); the frame grows to keep the data area. Line height: 1.2 em.
  title_lines_ = wrap_words(y_label_, size.x - 4.0f * em_);
  x_label_lines_ = wrap_words(x_label_, size.x - reserved_.x - 1.0f * em_);
  const float line = 1.2f * em_;
  const float top_pad =
      title_lines_.empty() ? 0.6f * em_ : 0.3f * em_ + line * static_cast<float>(title_lines_.size());
  // Bar groups whose name is wider than the group get a second line for it (see draw_axes).
  category_lines_ = 1;
  if (s_.x_categories.size() > 1 && s_.x.range.valid()) {
    const auto group = static_cast<float>((size.x - 5.0f * em_ - reserved_.x) / s_.x.range.size());
    for (const std::string& c : s_.x_categories)
      if (ImGui::CalcTextSize(c.c_str()).x > group - 0.5f * em_) category_lines_ = 2;
  }
  const float bottom_pad =
      1.7f * em_ + line * static_cast<float>(x_label_lines_.size() + category_lines_ - 1) + reserved_.y;
  // The data area the panel's size gives without any room kept for the legend: where the legend's place
  // is decided (the same whatever place it had, so a decision does not undo itself).
  // (From the width asked for, not the width grown to keep room for a legend at the right: a legend that no
  // longer fits beside a narrower plot, F6 showing the controls in presentation mode, moves below it.)
  free_area_ = ImVec2(std::max(kMinAreaWidth, key_size_.x - 5.0f * em_),
                      std::max(kMinAreaHeight, size.y - (top_pad + bottom_pad - reserved_.y)));
  // A legend at the right keeps the data area at least as tall as itself (see draw_legend).
  const float min_area_h =
      reserved_place_ == LegendPlace::Right ? std::max(kMinAreaHeight, s_.legend_out.y) : kMinAreaHeight;
  size.y = std::max(size.y, top_pad + bottom_pad + min_area_h + 1.0f);
  float square_cut = 0;  // width a square area leaves unused at the right
  if (s_.square) {
    const float w = size.x - 5.0f * em_ - reserved_.x, h = size.y - top_pad - bottom_pad;
    const float side = std::max(std::min(w, h), kMinAreaWidth);
    size.y += std::max(0.0f, side - h);
    square_cut = std::max(0.0f, w - side);
  }
  frame_max_ = ImVec2(frame_min_.x + size.x, frame_min_.y + size.y);
  area_min_ = ImVec2(std::floor(frame_min_.x + 4.0f * em_), std::floor(frame_min_.y + top_pad));
  area_max_ = ImVec2(std::floor(frame_max_.x - 1.0f * em_ - reserved_.x - square_cut),
                     std::floor(frame_max_.y - bottom_pad));
  s_.frame_min = frame_min_;
  s_.frame_max = frame_max_;
  // Series widths and dot radii: 13 px units for a plot of about 800 × 250 px, thinner in a small plot and
  // thicker in a large one, whatever the text scale.
  lu_ =
      std::clamp(std::sqrt((area_max_.x - area_min_.x) * (area_max_.y - area_min_.y)) / 34.0f, 10.0f, 22.0f);

  ImGui::PushID(id);
  ImGui::InvisibleButton("##plot", size);
  hovered_ = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  const bool activated = ImGui::IsItemActivated();
  ImGui::SetItemUsingMouseWheel();
  ImGui::PopID();

  auto set_tf = [&] {
    tf_.x = s_.x;
    tf_.y = s_.y;
    tf_.left = area_min_.x;
    tf_.right = area_max_.x;
    tf_.top = area_min_.y;
    tf_.bottom = area_max_.y;
  };
  set_tf();

  // Input. Regions: the plot area, the x axis strip below it and the y axis strip left of it.
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 m = io.MousePos;
  const bool in_area = inside(m, area_min_, area_max_);
  const bool over_x = m.x >= area_min_.x && m.x <= area_max_.x && m.y > area_max_.y && m.y <= frame_max_.y;
  const bool over_y = m.y >= area_min_.y && m.y <= area_max_.y && m.x < area_min_.x && m.x >= frame_min_.x;
  s_.legend_click = false;
  if (activated) {
    if (inside(m, s_.legend_min, s_.legend_max)) {
      s_.drag = 5;
      s_.legend_grab = ImVec2(m.x - s_.legend_min.x, m.y - s_.legend_min.y);
      s_.legend_moved = false;
    } else if (in_area && std::fabs(m.x - s_.probe_px) < 0.7 * em_) {
      s_.drag = 4;
    } else {
      s_.drag = in_area ? 1 : over_x ? 2 : over_y ? 3 : 0;
    }
  }
  // A press on the legend that does not move is a click (it toggles the entry under it); one that moves
  // drags the legend, which then stays where it is dropped, inside the data area.
  if (s_.drag == 5 && ImGui::IsItemDeactivated() && !s_.legend_moved) s_.legend_click = true;
  if (!active) s_.drag = 0;
  if (s_.drag == 5 && !s_.legend_moved) {
    const ImVec2 d = ImGui::GetMouseDragDelta(0);
    s_.legend_moved = d.x * d.x + d.y * d.y > 0.09f * em_ * em_;
  }
  if (s_.drag == 5 && s_.legend_moved) s_.legend_user = true;
  if (hovered_ && ImGui::IsMouseClicked(1)) s_.legend_shown = !s_.legend_shown;
  if (active && (io.MouseDelta.x != 0 || io.MouseDelta.y != 0)) {
    if (s_.drag == 1 || s_.drag == 2) s_.x.range = pan(s_.x, area_min_.x, area_max_.x, io.MouseDelta.x);
    if (s_.drag == 1 || s_.drag == 3) s_.y.range = pan(s_.y, area_max_.y, area_min_.y, io.MouseDelta.y);
  }
  if (hovered_ && io.MouseWheel != 0) {
    const double factor = std::pow(0.85, static_cast<double>(io.MouseWheel));
    if (in_area || over_x) s_.x.range = zoom_about(s_.x, area_min_.x, area_max_.x, m.x, factor);
    if (in_area || over_y) s_.y.range = zoom_about(s_.y, area_max_.y, area_min_.y, m.y, factor);
  }
  if (hovered_ && in_area && ImGui::IsMouseDoubleClicked(0) && !inside(m, s_.legend_min, s_.legend_max)) {
    s_.fit_x_request = true;
    s_.fit_y_request = !s_.y_fixed;
  }
  if (s_.linked_x) *s_.linked_x = s_.x;
  set_tf();

  // Background and grid.
  dl_->AddRectFilled(area_min_, area_max_, kPlotBg);
  const float w = area_max_.x - area_min_.x, h = area_max_.y - area_min_.y;
  if (s_.x_categories.empty()) {
    for (const Tick& t : make_ticks(s_.x, w, 4.2 * em_)) {
      const float x = std::floor(static_cast<float>(tf_.px_x(t.value))) + 0.5f;
      dl_->AddLine(ImVec2(x, area_min_.y), ImVec2(x, area_max_.y), t.major ? kGridMajor : kGridMinor, 1.0f);
    }
  }
  for (const Tick& t : make_ticks(s_.y, h, 2.6 * em_)) {
    const float y = std::floor(static_cast<float>(tf_.px_y(t.value))) + 0.5f;
    dl_->AddLine(ImVec2(area_min_.x, y), ImVec2(area_max_.x, y), t.major ? kGridMajor : kGridMinor, 1.0f);
  }
  layers_.Split(dl_, 4);
  layers_.SetCurrentChannel(dl_, 0);
  dl_->PushClipRect(area_min_, area_max_, true);
  if (s_.x.range.contains(0.0) && s_.x_categories.empty()) {
    const float x = std::floor(static_cast<float>(tf_.px_x(0.0))) + 0.5f;
    dl_->AddLine(ImVec2(x, area_min_.y), ImVec2(x, area_max_.y), kZeroLine, 1.0f);
  }
  if (s_.y.scale != Scale::Log10 && s_.y.range.contains(0.0)) {
    const float y = std::floor(static_cast<float>(tf_.px_y(0.0))) + 0.5f;
    dl_->AddLine(ImVec2(area_min_.x, y), ImVec2(area_max_.x, y), kZeroLine, 1.0f);
  }
}

ImVec2 Plot::min_frame(const PlotState* state) {
  const float em = ImGui::GetFontSize();
  ImVec2 size(5.0f * em + kMinAreaWidth, (0.3f + 1.2f + 1.7f + 1.2f) * em + kMinAreaHeight + 1.0f);
  if (state && state->square) size.y += kMinAreaWidth - kMinAreaHeight;
  if (state && state->legend_shown && state->legend_place == LegendPlace::Right) {
    size.x += state->legend_out.x + 0.6f * em;
    size.y += std::max(0.0f, state->legend_out.y - kMinAreaHeight);
  }
  if (state && state->legend_shown && state->legend_place == LegendPlace::Below)
    size.y += state->legend_out.y + 0.6f * em;
  return size;
}

float Plot::min_height_to_ticks(const PlotState* state) {
  const float em = ImGui::GetFontSize();
  const float area = state && state->square ? kMinAreaWidth : kMinAreaHeight;
  // The title's height as last drawn (it may wrap), else one line.
  const float title = state && state->last.top > state->frame_min.y
                          ? static_cast<float>(state->last.top) - state->frame_min.y
                          : (0.3f + 1.2f) * em;
  return title + area + 1.0f + 1.7f * em;
}

ImVec2 Plot::px(double x, double y) const {
  return ImVec2(clamp_px(tf_.px_x(x), tf_.left, tf_.right), clamp_px(tf_.px_y(y), tf_.top, tf_.bottom));
}

// [SECTION] Series

bool Plot::begin_series(const char* label, ImU32 color, bool readout, Entry** out) {
  *out = nullptr;
  if (!label || !label[0] || (label[0] == '#' && label[1] == '#')) return true;
  const std::string_view l(label);
  const auto hash = l.find("##");
  std::string text(l.substr(0, hash)), key(hash == std::string_view::npos ? l : l.substr(hash + 2));
  if (g_view_filter && g_series_names) {
    if (!text.empty()) g_series_names->insert(text);
    g_series_names->insert(key);
  }
  if (g_view_filter && g_view_filter->hides(text, key)) return false;  // not on this lesson step
  const bool hidden = s_.hidden.count(key) > 0;
  entries_.push_back(Entry{std::move(text), std::move(key), color, hidden, readout, false, {}, {}, {}, {}});
  *out = &entries_.back();
  return !hidden;
}

void Plot::polyline(std::span<const double> xs, std::span<const double> ys, ImU32 color, float thickness) {
  thickness = std::max(kMinLine, thickness * g_line_scale);
  // Long data series are strided to about two points per pixel column.
  const std::size_t n = std::min(xs.size(), ys.size());
  const std::size_t cols = static_cast<std::size_t>(std::max(1.0f, area_max_.x - area_min_.x));
  const std::size_t stride = n > 4 * cols ? n / (2 * cols) : 1;
  static thread_local std::vector<ImVec2> pts;
  for_each_finite_run(xs.first(n), ys.first(n), s_.y, [&](std::size_t b, std::size_t e) {
    pts.clear();
    for (std::size_t i = b; i < e; i += stride) pts.push_back(px(xs[i], ys[i]));
    if (stride > 1 && (e - 1 - b) % stride) pts.push_back(px(xs[e - 1], ys[e - 1]));
    for (std::size_t i = 0; i < pts.size(); ++i)
      ink_.push_back({pts[i], pts[i + 1 < pts.size() ? i + 1 : i], thickness * 0.5f});
    if (pts.size() == 1) {
      dl_->AddCircleFilled(pts[0], thickness * 0.5f, color);
    } else {
      dl_->AddPolyline(pts.data(), static_cast<int>(pts.size()), color, ImDrawFlags_None, thickness);
    }
  });
}

void Plot::function(const char* label, ImU32 color, const BatchFn& f, const BatchFn* df, float thickness_em) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, true, &e);
  if (e) {
    e->f = f;
    if (df) e->df = *df;
  }
  if (!visible) return;
  const auto n = static_cast<std::size_t>(std::clamp(area_max_.x - area_min_.x, 32.0f, 8192.0f)) + 1;
  sample_function(s_.x, n, f, sx_, sy_);
  ++items_;
  if (s_.capture && e) s_.captured.push_back({e->label, sx_, sy_, {}});
  const Range b = data_bounds(sy_, s_.y);
  fit_y_.min = std::min(fit_y_.min, b.min);
  fit_y_.max = std::max(fit_y_.max, b.max);
  polyline(sx_, sy_, color, thickness_em * lu_);
  if (e) {
    e->end = line_end(sx_, sy_);
    e->mid = line_at(sx_, sy_, 0.6);
  }
}

ImVec2 Plot::line_at(std::span<const double> xs, std::span<const double> ys, double share) const {
  const double target = s_.x.range.min + share * (s_.x.range.max - s_.x.range.min);
  std::size_t best = SIZE_MAX;
  for (std::size_t i = 0; i < std::min(xs.size(), ys.size()); ++i)
    if (std::isfinite(xs[i]) && std::isfinite(ys[i]) && s_.x.range.contains(xs[i]) &&
        (s_.y.scale != Scale::Log10 || ys[i] > 0) &&
        (best == SIZE_MAX || std::fabs(xs[i] - target) < std::fabs(xs[best] - target)))
      best = i;
  return best == SIZE_MAX ? ImVec2(NAN, NAN) : px(xs[best], ys[best]);
}

ImVec2 Plot::line_end(std::span<const double> xs, std::span<const double> ys) const {
  for (std::size_t i = std::min(xs.size(), ys.size()); i-- > 0;)
    if (std::isfinite(xs[i]) && std::isfinite(ys[i]) && s_.x.range.contains(xs[i]) &&
        (s_.y.scale != Scale::Log10 || ys[i] > 0))
      return px(xs[i], ys[i]);
  return ImVec2(NAN, NAN);
}

namespace {
// A curve's name as a slide labels it: up to a double space ("exact GELU  x·Φ(x)": the name, then its
// formula), without the parameter values in parentheses ("tanh form (c = 0.044715): max …" -> "tanh form:
// max …"); a parenthesis that tells curves apart ("GELU (exact)") stays.
std::string compact_label(const std::string& label) {
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
}  // namespace

// Each curve's name at its line's end (slides): beside the last point it drew, where it covers the least; a
// name that finds no room clear of the other labels stays in the legend.
void Plot::draw_inline_labels() {
  if (!g_inline_legends || !s_.legend_shown) return;
  // The curves first (what the step talks about), then the shadings.
  for (const bool curves : {true, false})
    for (Entry& e : entries_) {
      if (e.hidden || std::isnan(e.end.x) || e.readout != curves) continue;
      // A shading's name without its explanation ("ReLU dead zone: f = f′ = 0" -> "ReLU dead zone").
      std::string t = compact_label(e.label);
      if (!curves && t.find(": ") != std::string::npos) t.resize(t.find(": "));
      // At its end, else at 60 % of the view; where neither has room, its name alone (before ": ").
      const ImU32 col = e.color | IM_COL32_A_MASK;
      auto place = [&](const std::string& text) {
        return label_near(e.end, text.c_str(), col, false).has_value() ||
               (!std::isnan(e.mid.x) && label_near(e.mid, text.c_str(), col, false).has_value());
      };
      e.inlined = place(t) || (t.find(": ") != std::string::npos && place(t.substr(0, t.find(": "))));
    }
}

void Plot::line(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
                float thickness_em) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, true, &e);
  if (e) {
    e->xs = xs;
    e->ys = ys;
  }
  if (!visible) return;
  items_ += static_cast<int>(std::min(xs.size(), ys.size()));
  if (s_.capture && e) capture(e->label, xs, ys);
  const Range bx = data_bounds(xs, s_.x), by = data_bounds(ys, s_.y);
  fit_x_ = {std::min(fit_x_.min, bx.min), std::max(fit_x_.max, bx.max)};
  fit_y_ = {std::min(fit_y_.min, by.min), std::max(fit_y_.max, by.max)};
  polyline(xs, ys, color, thickness_em * lu_);
  if (e) {
    e->end = line_end(xs, ys);
    e->mid = line_at(xs, ys, 0.6);
  }
}

void Plot::scatter(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
                   float radius_em) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, false, &e);
  if (e) e->dot = true;
  if (!visible) return;
  items_ += static_cast<int>(std::min(xs.size(), ys.size()));
  if (s_.capture && e) capture(e->label, xs, ys);
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
    const ImVec2 p = px(xs[i], ys[i]);
    dl_->AddCircleFilled(p, radius_em * lu_ * g_line_scale, color, 12);
    ink_.push_back({p, p, radius_em * lu_ * g_line_scale});
    dots_.push_back({p, color});
  }
  const Range bx = data_bounds(xs, s_.x), by = data_bounds(ys, s_.y);
  fit_x_ = {std::min(fit_x_.min, bx.min), std::max(fit_x_.max, bx.max)};
  fit_y_ = {std::min(fit_y_.min, by.min), std::max(fit_y_.max, by.max)};
  // A few named dots (inflection points) are named beside the last of them on a slide; a cloud of points
  // (a data set) keeps its legend entry.
  if (e && n <= 8) e->end = line_end(xs, ys);
}

void Plot::bars(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> heights,
                double width) {
  Entry* e = nullptr;
  if (!begin_series(label, color, false, &e)) return;
  items_ += static_cast<int>(std::min(xs.size(), heights.size()));
  if (s_.capture && e) capture(e->label, xs, heights);
  const double base = s_.y.scale == Scale::Log10 ? s_.y.range.min : 0.0;
  const std::size_t n = std::min(xs.size(), heights.size());
  const ImU32 edge = (color & ~IM_COL32_A_MASK) | (255u << IM_COL32_A_SHIFT);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(heights[i])) continue;
    const ImVec2 a = px(xs[i] - width / 2, heights[i]), b = px(xs[i] + width / 2, base);
    const ImVec2 lo(std::min(a.x, b.x), std::min(a.y, b.y)), hi(std::max(a.x, b.x), std::max(a.y, b.y));
    dl_->AddRectFilled(lo, hi, color);
    ink_rects_.emplace_back(lo, hi);
    if (hi.x - lo.x > 4) dl_->AddRect(lo, hi, edge, 0.0f, ImDrawFlags_None, 1.0f);
  }
  const Range by = data_bounds(heights, s_.y);
  fit_y_ = {std::min({fit_y_.min, by.min, base}), std::max({fit_y_.max, by.max, base})};
  if (n) {
    const Range bx = data_bounds(xs, s_.x);
    fit_x_ = {std::min(fit_x_.min, bx.min - width), std::max(fit_x_.max, bx.max + width)};
  }
}

void Plot::whisker_bars(const char* label, ImU32 color, std::span<const double> xs,
                        std::span<const double> lo, std::span<const double> mid, std::span<const double> hi,
                        double width) {
  const std::size_t before = entries_.size();
  bars(label, color, xs, mid, width);
  if (entries_.size() > before && entries_.back().hidden) return;
  const ImU32 ink = IM_COL32(25, 25, 25, 255);
  const float t = std::max(1.0f, 0.09f * lu_);
  const std::size_t n = std::min({xs.size(), lo.size(), hi.size()});
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(lo[i]) || !std::isfinite(hi[i])) continue;
    const ImVec2 a = px(xs[i], lo[i]), b = px(xs[i], hi[i]);
    const float cap =
        std::min(0.35f * em_, 0.3f * std::fabs(px(xs[i] + width / 2, 0).x - px(xs[i] - width / 2, 0).x));
    dl_->AddLine(a, b, ink, t);
    ink_.push_back({a, b, t});
    dl_->AddLine(ImVec2(a.x - cap, a.y), ImVec2(a.x + cap, a.y), ink, t);
    dl_->AddLine(ImVec2(b.x - cap, b.y), ImVec2(b.x + cap, b.y), ink, t);
  }
  const Range bh = data_bounds(hi.first(n), s_.y), bl = data_bounds(lo.first(n), s_.y);
  fit_y_ = {std::min({fit_y_.min, bl.min}), std::max({fit_y_.max, bh.max})};
}

void Plot::rings(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
                 float radius_em, float thickness_em) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, false, &e);
  if (e) e->dot = true;
  if (!visible) return;
  items_ += static_cast<int>(std::min(xs.size(), ys.size()));
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
    const ImVec2 p = px(xs[i], ys[i]);
    dl_->AddCircle(p, radius_em * lu_, color, 12, thickness_em * lu_);
    ink_.push_back({p, p, radius_em * lu_});
  }
}

void Plot::image(ImTextureID texture, double x0, double y0, double x1, double y1, ImVec2 uv_lo,
                 ImVec2 uv_hi) {
  ++items_;
  const ImVec2 a = px(x0, y0), b = px(x1, y1);  // a: (x0, y0), b: (x1, y1) on screen
  // AddImage wants the top-left corner first; swap texture coordinates along with the corners.
  ImVec2 p0(a.x, b.y), p1(b.x, a.y), uv0(uv_lo.x, uv_hi.y), uv1(uv_hi.x, uv_lo.y);
  if (p0.x > p1.x) {
    std::swap(p0.x, p1.x);
    std::swap(uv0.x, uv1.x);
  }
  if (p0.y > p1.y) {
    std::swap(p0.y, p1.y);
    std::swap(uv0.y, uv1.y);
  }
  dl_->AddImage(texture, p0, p1, uv0, uv1);
  ink_rects_.emplace_back(p0, p1);
}

void Plot::shade_x(const char* label, ImU32 color, double x0, double x1) {
  Entry* e = nullptr;
  if (!begin_series(label, color, false, &e)) return;
  const float a = std::isinf(x0) ? area_min_.x : px(x0, 0).x, b = std::isinf(x1) ? area_max_.x : px(x1, 0).x;
  dl_->AddRectFilled(ImVec2(std::min(a, b), area_min_.y), ImVec2(std::max(a, b), area_max_.y), color);
  soft_rects_.emplace_back(ImVec2(std::min(a, b), area_min_.y), ImVec2(std::max(a, b), area_max_.y));
  // On a slide its name goes near the band's top (draw_inline_labels).
  if (e && std::max(a, b) - std::min(a, b) >= 1.0f) {
    e->end = ImVec2((a + b) / 2, area_min_.y + 0.5f * em_);
    e->mid = ImVec2((a + b) / 2, area_max_.y - 1.5f * em_);  // (or near its bottom)
  }
}

void Plot::shade_between(const char* label, ImU32 color, std::span<const double> xs,
                         std::span<const double> y0, std::span<const double> y1) {
  Entry* e = nullptr;
  if (!begin_series(label, color, false, &e)) return;
  const std::size_t n = std::min({xs.size(), y0.size(), y1.size()});
  items_ += static_cast<int>(n);
  const std::size_t cols = static_cast<std::size_t>(std::max(1.0f, area_max_.x - area_min_.x));
  const std::size_t stride = n > 4 * cols ? n / (2 * cols) : 1;
  auto ok = [&](std::size_t i) {
    return std::isfinite(xs[i]) && std::isfinite(y0[i]) && std::isfinite(y1[i]);
  };
  // Without anti-aliased fill: the triangles share edges, and AA fringes would overlap into visible seams.
  const ImDrawListFlags saved = dl_->Flags;
  dl_->Flags &= ~ImDrawListFlags_AntiAliasedFill;
  for (std::size_t i = 0; i + 1 < n; i += stride) {
    const std::size_t j = std::min(i + stride, n - 1);
    if (!ok(i) || !ok(j)) continue;
    const ImVec2 a = px(xs[i], y0[i]), b = px(xs[j], y0[j]), c = px(xs[j], y1[j]), d = px(xs[i], y1[i]);
    // Two triangles: a quad between crossing curves is not convex.
    dl_->AddTriangleFilled(a, b, c, color);
    dl_->AddTriangleFilled(a, c, d, color);
    ink_rects_.emplace_back(ImVec2(std::min(a.x, d.x), std::min({a.y, b.y, c.y, d.y})),
                            ImVec2(std::max(b.x, c.x), std::max({a.y, b.y, c.y, d.y})));
  }
  dl_->Flags = saved;
  // On a slide its name goes by the middle of the shaded region (draw_inline_labels).
  for (std::size_t k = 0, i = n / 2; e && k < n; ++k, i = (i + 1) % n)
    if (ok(i) && s_.x.range.contains(xs[i])) {
      e->end = px(xs[i], 0.5 * (y0[i] + y1[i]));
      break;
    }
}

void Plot::hline(double y, ImU32 color, float thickness_em, bool dashed) {
  const float py = px(0, y).y;
  thickness_em = std::max(kMinLine / lu_, thickness_em);
  ink_.push_back({ImVec2(area_min_.x, py), ImVec2(area_max_.x, py), 1.0f});  // a legend does not hide it
  if (!dashed) {
    dl_->AddLine(ImVec2(area_min_.x, py), ImVec2(area_max_.x, py), color, thickness_em * lu_);
    return;
  }
  for (float x = area_min_.x; x < area_max_.x; x += 0.9f * em_)
    dl_->AddLine(ImVec2(x, py), ImVec2(std::min(x + 0.5f * em_, area_max_.x), py), color, thickness_em * lu_);
}

void Plot::vline(double x, ImU32 color, float thickness_em, bool dashed) {
  const float pxx = px(x, 0).x;
  thickness_em = std::max(kMinLine / lu_, thickness_em);
  ink_.push_back({ImVec2(pxx, area_min_.y), ImVec2(pxx, area_max_.y), 1.0f});  // a legend does not hide it
  if (!dashed) {
    dl_->AddLine(ImVec2(pxx, area_min_.y), ImVec2(pxx, area_max_.y), color, thickness_em * lu_);
    return;
  }
  for (float y = area_min_.y; y < area_max_.y; y += 0.9f * em_)
    dl_->AddLine(ImVec2(pxx, y), ImVec2(pxx, std::min(y + 0.5f * em_, area_max_.y)), color,
                 thickness_em * lu_);
}

void Plot::marker(double x, double y, ImU32 color, const char* text, float radius_em) {
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  const ImVec2 p = px(x, y);
  radius_em *= g_line_scale;
  // The dot on the top channel: no label (placed before or after it) nor curve covers it.
  // White halos under every dot's colour (channel 2 under 3): a halo never covers a neighbouring dot.
  layers_.SetCurrentChannel(dl_, 2);
  dl_->AddCircleFilled(p, radius_em * lu_, IM_COL32_WHITE, 16);
  layers_.SetCurrentChannel(dl_, 3);
  dl_->AddCircleFilled(p, radius_em * lu_ * 0.72f, color, 16);
  layers_.SetCurrentChannel(dl_, 0);
  ink_.push_back({p, p, radius_em * lu_});
  dots_.push_back({p, color});
  if (!text || !text[0]) return;
  named_dots_.push_back({p, radius_em * lu_, text, color, in_view_notes_});
}

std::optional<std::pair<ImVec2, ImVec2>> Plot::label_near(ImVec2 p, const char* text, ImU32 color,
                                                          bool callout, bool marker, bool near,
                                                          bool optional) {
  std::string t = unicode_minus(text);
  const std::string one_line = t;
  // A marker left or right of the view is not seen: its label, at that edge, points to it.
  const bool off_view = marker && (p.x < area_min_.x || p.x > area_max_.x);
  if (off_view) t = p.x < area_min_.x ? "← " + t : t + " →";
  // Wider than the plot: wrapped at spaces (never cut at the plot's edge).
  if (const float room = area_max_.x - area_min_.x - 0.6f * em_; ImGui::CalcTextSize(t.c_str()).x > room) {
    std::string w;
    for (const std::string& l : wrap_words(t, room)) w += (w.empty() ? "" : "\n") + l;
    t = std::move(w);
  }
  // The label beside the dot: right-below, right-above, left-below, left-above, further out, the first that
  // stays inside the plot and clear of the labels and dots placed before it (else the least crowded).
  const float dx = 0.6f * em_, dy = 0.35f * em_, m = 0.2f * em_;
  auto box_of = [&](ImVec2 tp, ImVec2 ts) {
    return std::pair<ImVec2, ImVec2>(ImVec2(tp.x - m, tp.y - 0.05f * em_),
                                     ImVec2(tp.x + ts.x + m, tp.y + ts.y));
  };
  auto overlap = [](const std::pair<ImVec2, ImVec2>& a, const std::pair<ImVec2, ImVec2>& b) {
    return a.first.x < b.second.x && b.first.x < a.second.x && a.first.y < b.second.y &&
           b.first.y < a.second.y;
  };
  struct Place {
    ImVec2 at;
    long score = 1L << 40;
    bool on_data = false;  // it covers a curve or a filled area
  };
  // The best place for a text of size ts.
  auto search = [&](ImVec2 ts) {
    // Never cut by the plot's edge: a place partly outside is pushed in.
    auto clamp_in = [&](ImVec2 tp) {
      return ImVec2(std::max(area_min_.x + m, std::min(tp.x, area_max_.x - m - ts.x)),
                    std::max(area_min_.y + m, std::min(tp.y, area_max_.y - m - ts.y)));
    };
    Place best;
    best.at = ImVec2(p.x + dx, p.y + dy);
    if (best.at.x + ts.x > area_max_.x - m) best.at.x = p.x - dx - ts.x;
    if (best.at.y + ts.y > area_max_.y - m) best.at.y = p.y - dy - ts.y;
    best.at = clamp_in(best.at);
    // A callout (a lesson's arrow) stands further off, so that its arrow is seen; a marker's label in a plot
    // of many (near: labels_near) stays beside its dot.
    const std::vector<float> reaches = callout ? std::vector<float>{3.6f, 5.0f, 2.2f, 7.0f}
                                       : near  ? std::vector<float>{1.0f, 2.2f}
                                               : std::vector<float>{1.0f, 2.2f, 3.6f, 5.0f};
    for (const float reach : reaches) {
      for (ImVec2 tp :
           {ImVec2(p.x + dx * reach, p.y + dy * reach), ImVec2(p.x + dx * reach, p.y - dy * reach - ts.y),
            ImVec2(p.x - dx * reach - ts.x, p.y + dy * reach),
            ImVec2(p.x - dx * reach - ts.x, p.y - dy * reach - ts.y),
            ImVec2(p.x - ts.x / 2, p.y + dy * reach + 0.3f * em_),
            ImVec2(p.x - ts.x / 2, p.y - dy * reach - 0.3f * em_ - ts.y)}) {
        tp = clamp_in(tp);
        const auto b = box_of(tp, ts);
        // Another label under it is worst, then drawn data (each segment of a curve it covers), then a dot
        // (it stays on top, but reads as part of the text).
        long score = 0;
        for (const auto& l : labels_) score += overlap(b, l) ? 1000 : 0;
        long data = 0;
        for (const Ink& k : ink_) data += segment_hits(k.a, k.b, k.r, b.first, b.second) ? 3 : 0;
        for (const auto& r : ink_rects_) data += overlap(b, r) ? 30 : 0;
        score += data;
        const bool on_data = data > 0;
        for (const auto& r : soft_rects_) score += overlap(b, r) ? 10 : 0;
        const float r = 0.3f * em_;
        for (const Dot& d : dots_)
          score += overlap(b, {ImVec2(d.p.x - r, d.p.y - r), ImVec2(d.p.x + r, d.p.y + r)}) ? 1 : 0;
        // A marker's label over its own dot hides what it names (a dot at the plot's edge can push it there).
        if (marker && overlap(b, {ImVec2(p.x - r, p.y - r), ImVec2(p.x + r, p.y + r)})) score += 100;
        // A marker's label nearer another dot of its colour than its own reads as that dot's (a label in
        // another colour than the dots around it is told by its colour).
        if (marker) {
          const std::pair<ImVec2, ImVec2> glyphs(tp, ImVec2(tp.x + ts.x, tp.y + ts.y));
          const float own = box_distance(p, glyphs);
          for (const Dot& d : dots_)
            if (d.color == color && box_distance(d.p, glyphs) < own - 0.5f) {
              score += 100;
              break;
            }
        }
        if (score < best.score) best = {tp, score, on_data};
        if (score == 0) break;
      }
      if (best.score == 0) break;
    }
    return best;
  };
  ImVec2 ts = ImGui::CalcTextSize(t.c_str());
  Place place = search(ts);
  // A one-line label that lies on a curve or a filled area wherever it goes, or finds no place clear of the
  // labels before it (a long label in a small plot, or at 2× and 3× text), may do better on two lines: it
  // takes them where they lie clear of data (shadings, shade_x, are not data here: a place that only covers
  // one beats a place on a curve), or, for a label that would be left out, clear of the other labels.
  const auto rank = [](const Place& q) { return q.score >= 1000 ? 2 : q.on_data ? 1 : 0; };
  // (Not a label of a dot out of view: on data it goes beside the legend, below.)
  if (!callout && !off_view && rank(place) > 0 && t.find('\n') == std::string::npos &&
      t.find(' ') != std::string::npos) {
    // Broken at the space that makes the longer line shortest.
    std::string two;
    float widest = ts.x;
    for (std::size_t at = t.find(' '); at != std::string::npos; at = t.find(' ', at + 1)) {
      const std::string a = t.substr(0, at), b = t.substr(at + 1);
      const float w = std::max(ImGui::CalcTextSize(a.c_str()).x, ImGui::CalcTextSize(b.c_str()).x);
      if (w < widest) {
        widest = w;
        two = a + "\n" + b;
      }
    }
    if (!two.empty()) {
      const ImVec2 ts2 = ImGui::CalcTextSize(two.c_str());
      const Place alt = search(ts2);
      if (rank(alt) < rank(place) && (rank(alt) == 1 || alt.score < 100)) {
        t = std::move(two);
        ts = ts2;
        place = alt;
      }
    }
  }
  text = t.c_str();
  const ImVec2 best = place.at;
  const long best_score = place.score;
  const bool best_on_data = place.on_data;
  // No place without another label under it: the label is left out (the dot stays; it would only be read as
  // part of the other text). In a plot of many labelled dots (near), nor one on its own dot or nearer another
  // dot of its colour (the dot shows it when hovered).
  if (best_score >= 1000 && !callout) return std::nullopt;
  if (near && best_score >= 100) return std::nullopt;
  const auto b = box_of(best, ts);
  // A label that would cover a sixth of the plot or more and lies on its curves hides more than it says
  // (a small plot at 3× text): under the legend when that is at the plot's right (as the plot's notes), else
  // left out; its dot shows it when hovered.
  if (optional && best_on_data &&
      (b.second.x - b.first.x) * (b.second.y - b.first.y) >=
          0.15f * (area_max_.x - area_min_.x) * (area_max_.y - area_min_.y)) {
    if (!near && s_.legend_shown && reserved_place_ == LegendPlace::Right)
      outside_note(one_line.c_str(), nullptr, color, false);
    return std::nullopt;
  }
  // The label of a dot left or right of the view names something the plot does not show: where it would lie
  // on the data, it goes beside the legend when that is outside the plot (as the plot's notes); else it
  // stays here, the only place it is seen (an unseen dot has no hover).
  if (off_view && best_on_data && s_.legend_shown && outside_note(one_line.c_str(), nullptr, color, false))
    return std::nullopt;
  labels_.push_back(b);
  layers_.SetCurrentChannel(dl_, 1);
  if (callout) {
    const std::pair<ImVec2, ImVec2> c(ImVec2(b.first.x - 0.15f * em_, b.first.y - 0.1f * em_),
                                      ImVec2(b.second.x + 0.15f * em_, b.second.y + 0.1f * em_));
    dl_->AddRectFilled(c.first, c.second, IM_COL32(255, 247, 214, 240), 0.25f * em_);
    dl_->AddRect(c.first, c.second, color, 0.25f * em_, ImDrawFlags_None, std::max(1.0f, 0.08f * em_));
    ink_rects_.push_back(c);
  } else {
    dl_->AddRectFilled(b.first, b.second, IM_COL32(255, 255, 255, 235), 0.2f * em_);
  }
  text_at(best, color, text, TextKind::Label);
  if (marker) {
    s_.texts.back().anchor = p;
    s_.texts.back().color = color;
  }
  layers_.SetCurrentChannel(dl_, 0);
  return b;
}

void Plot::tangent(double x0, double y0, double slope, ImU32 color, float thickness_em) {
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(slope)) return;
  // A segment about 14 em long centred on the point: long enough to read the slope, short enough not to
  // pass for another curve. Sampled, so it is right on log and symlog y axes too (where it bends).
  const double L = 7.0 * em_;
  const double sx =
      (tf_.right - tf_.left) / (scale_forward(s_.x, s_.x.range.max) - scale_forward(s_.x, s_.x.range.min));
  const double sy = (tf_.bottom - tf_.top) / s_.y.range.size();
  const double hx =
      s_.y.scale == Scale::Linear && s_.x.scale == Scale::Linear ? L / std::hypot(sx, slope * sy) : L / sx;
  constexpr int n = 33;
  double xs[n], ys[n];
  for (int i = 0; i < n; ++i) {
    xs[i] = x0 + hx * (2.0 * i / (n - 1.0) - 1.0);
    ys[i] = y0 + slope * (xs[i] - x0);
  }
  polyline(std::span<const double>(xs, n), std::span<const double>(ys, n), color, thickness_em * lu_);
}

bool Plot::probe(double* x, ImU32 color) {
  bool changed = false;
  const ImGuiIO& io = ImGui::GetIO();
  if (s_.drag == 4 && ImGui::IsMouseDown(0)) {
    const double mx = std::clamp(static_cast<double>(io.MousePos.x), tf_.left, tf_.right);
    const double nx = tf_.data_x(mx);
    changed = nx != *x;
    *x = nx;
  }
  s_.probe_px = tf_.px_x(*x);
  if (!std::isfinite(*x) || !s_.x.range.contains(*x)) return changed;
  const float p = px(*x, 0).x;
  const bool near = s_.drag == 4 || (hovered_ && std::fabs(io.MousePos.x - p) < 0.7f * em_ &&
                                     inside(io.MousePos, area_min_, area_max_));
  if (near) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  dl_->AddLine(ImVec2(p, area_min_.y), ImVec2(p, area_max_.y), color, (near ? 0.16f : 0.1f) * em_);
  const float r = 0.45f * em_;
  dl_->AddTriangleFilled(ImVec2(p - r, area_min_.y), ImVec2(p + r, area_min_.y),
                         ImVec2(p, area_min_.y + r * 1.3f), color);
  return changed;
}

void Plot::note(const char* text_in, int corner, ImU32 color, const char* compact) {
  const float pad = 0.5f * em_;
  // Wrapped at spaces to the data area's width: never cut by the plot's edge.
  std::string wrapped;
  const float max_lines =
      std::max(1.0f, std::floor((area_max_.y - area_min_.y - 2 * pad) / ImGui::GetTextLineHeight()));
  auto wrap = [&](std::string_view all) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= all.size();) {  // its own lines, each wrapped
      std::size_t end = all.find('\n', at);
      if (end == std::string_view::npos) end = all.size();
      for (std::string& l :
           wrap_words(std::string(all.substr(at, end - at)), area_max_.x - area_min_.x - 2 * pad))
        out.push_back(std::move(l));
      at = end + 1;
    }
    return out;
  };
  std::vector<std::string> lines = wrap(text_in);
  if (compact &&
      static_cast<float>(lines.size()) * ImGui::GetTextLineHeight() > (area_max_.y - area_min_.y) / 3)
    lines = wrap(compact);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (static_cast<float>(i) + 1 > max_lines) {  // taller than the plot: the lines that fit, then "…"
      wrapped += "…";
      break;
    }
    wrapped += (wrapped.empty() ? "" : "\n") + lines[i];
  }
  const char* text = wrapped.c_str();
  const ImVec2 ts = ImGui::CalcTextSize(text);
  layers_.SetCurrentChannel(dl_, 1);
  // The asked-for corner, unless another covers less of the data drawn so far and no other label.
  auto at_corner = [&](int c) {
    return ImVec2(c == 1 || c == 2 ? area_max_.x - ts.x - pad : area_min_.x + pad,
                  c >= 2 ? area_max_.y - ts.y - pad : area_min_.y + pad);
  };
  auto cost = [&](ImVec2 q) {
    const ImVec2 lo(q.x - 0.25f * em_, q.y - 0.1f * em_),
        hi(q.x + ts.x + 0.25f * em_, q.y + ts.y + 0.1f * em_);
    long n = 0;
    for (const Ink& k : ink_) n += segment_hits(k.a, k.b, k.r, lo, hi) ? 3 : 0;
    for (const auto& r : ink_rects_) n += boxes_meet(r.first, r.second, lo, hi) ? 30 : 0;
    for (const auto& l : labels_) n += boxes_meet(l.first, l.second, lo, hi) ? 1000 : 0;
    return n;
  };
  ImVec2 p = at_corner(corner);
  long best = cost(p);
  for (int c = 0; c < 4 && best > 0; ++c) {
    if (c == corner) continue;
    const long n = cost(at_corner(c));
    if (n < best) best = n, p = at_corner(c);
  }
  if (best > 0 && s_.legend_shown && reserved_place_ != LegendPlace::Inside &&
      outside_note(text_in, compact, color)) {
    layers_.SetCurrentChannel(dl_, 0);
    return;
  }
  dl_->AddRectFilled(ImVec2(p.x - 0.25f * em_, p.y - 0.1f * em_),
                     ImVec2(p.x + ts.x + 0.25f * em_, p.y + ts.y + 0.1f * em_), IM_COL32(255, 255, 255, 225),
                     0.25f * em_);
  text_at(p, color, text, TextKind::Label);
  labels_.push_back(
      {ImVec2(p.x - 0.25f * em_, p.y - 0.1f * em_), ImVec2(p.x + ts.x + 0.25f * em_, p.y + ts.y)});
  s_.note_min = labels_.back().first;
  s_.note_max = labels_.back().second;
  layers_.SetCurrentChannel(dl_, 0);
}

bool Plot::outside_note(const char* text_in, const char* compact, ImU32 color, bool is_note) {
  // The room the legend leaves in its own place: under a legend at the right (as wide as it, down to the
  // frame's bottom), or beside a legend below the plot (to the frame's right edge, as tall as the legend).
  const float gap = 0.6f * em_, pad = 0.25f * em_;
  const bool below = reserved_place_ == LegendPlace::Below;
  float x0, width, top, bottom;
  if (reserved_place_ == LegendPlace::Right) {
    x0 = area_max_.x + gap;
    width = s_.legend_out.x;
    top = area_min_.y + s_.legend_out.y + gap;
    // A marker's label keeps above the row of the axis's ticks and title, which can reach under the legend.
    bottom = is_note ? frame_max_.y : area_max_.y;
  } else if (below) {
    x0 = frame_min_.x + 0.5f * em_ + s_.legend_out.x + gap;
    width = frame_max_.x - x0;
    top = frame_max_.y - s_.legend_out.y;
    bottom = frame_max_.y;
  } else {
    return false;
  }
  if (width < 4 * em_) return false;
  const bool stacked = !outside_notes_.empty();  // below the notes placed before, not centred
  if (stacked) top = std::max(top, outside_next_y_);
  for (const char* t : {text_in, compact}) {
    if (!t) continue;
    std::string wrapped;
    for (const std::string& l : wrap_words(t, width - 2 * pad)) wrapped += (wrapped.empty() ? "" : "\n") + l;
    const ImVec2 ts = ImGui::CalcTextSize(wrapped.c_str());
    const float margin = below ? 0.0f : 0.2f * em_;  // beside a legend below: as tall as it, centred on it
    if (ts.x > width - 2 * pad + 0.5f || top + ts.y + margin > bottom + 0.5f) continue;
    const float y = below && !stacked ? std::floor(top + (bottom - top - ts.y) / 2) : top;
    const ImVec2 pos(x0 + pad, y);
    outside_notes_.push_back({pos, color, wrapped});
    outside_next_y_ = pos.y + ts.y + 0.1f * em_;
    labels_.push_back({ImVec2(pos.x - pad, pos.y - 0.1f * em_), ImVec2(pos.x + ts.x + pad, pos.y + ts.y)});
    if (is_note) {
      s_.note_min = labels_.back().first;
      s_.note_max = labels_.back().second;
    }
    return true;
  }
  return false;
}

void Plot::draw_outside_notes() {
  // Only where the legend is in the place its room was kept for this frame (the frame it moves out, neither
  // is drawn).
  if (s_.legend_shown && s_.legend_place != LegendPlace::Inside && s_.legend_place == reserved_place_)
    for (const OutsideNote& n : outside_notes_) text_at(n.pos, n.color, n.text.c_str(), TextKind::Label);
  outside_notes_.clear();
}

void Plot::hatch(ImU32 color, float spacing_em) {
  const float step = std::max(4.0f, spacing_em * em_), thick = std::max(1.0f, 0.1f * em_);
  const float w = area_max_.x - area_min_.x, h = area_max_.y - area_min_.y;
  if (w <= 0 || h <= 0) return;
  // 45° lines from the bottom edge up to the right, each clipped to the data area.
  for (float t = -h; t < w; t += step) {
    ImVec2 a(area_min_.x + t, area_max_.y), b(area_min_.x + t + h, area_min_.y);
    if (a.x < area_min_.x) a = ImVec2(area_min_.x, area_max_.y - (area_min_.x - a.x));
    if (b.x > area_max_.x) b = ImVec2(area_max_.x, area_min_.y + (b.x - area_max_.x));
    dl_->AddLine(a, b, color, thick);
  }
}

// [SECTION] End: axes, legend, readout, fit

bool Plot::tick_text(ImVec2 pos, ImU32 color, const char* text) {
  // A tick label that would touch one drawn before it (dense decades on a log axis, the corner where the
  // lowest y label meets the first x label) is left out; its tick stays.
  const ImVec2 ts = ImGui::CalcTextSize(text);
  const float gap = 0.15f * em_;
  for (const TextBox& b : s_.texts)
    if (pos.x - gap < b.max.x && b.min.x < pos.x + ts.x + gap && pos.y < b.max.y && b.min.y < pos.y + ts.y)
      return false;
  text_at(pos, color, text);
  return true;
}

void Plot::text_at(ImVec2 pos, ImU32 color, const char* text, TextKind kind) {
  dl_->AddText(pos, color, text);
  const ImVec2 ts = ImGui::CalcTextSize(text);
  s_.texts.push_back({pos, ImVec2(pos.x + ts.x, pos.y + ts.y), kind, ImVec2(NAN, NAN), 0, text});
}

void Plot::draw_axes() {
  dl_->AddRect(area_min_, area_max_, kFrame, 0.0f, ImDrawFlags_None, 1.0f);
  const float w = area_max_.x - area_min_.x, h = area_max_.y - area_min_.y;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  // A category label wider than its group's spacing goes on two lines, broken after '_' ("gelu_" over
  // "tanh"); only a part still too wide is cut to fit with "…" (left out, as a colliding tick label would
  // be, it would leave its group unnamed).
  const float spacing = static_cast<float>(std::fabs(tf_.px_x(1.0) - tf_.px_x(0.0))) - 0.5f * em_;
  const float line = 1.2f * em_;
  s_.category_labels = 0;
  s_.category_labels_cut = 0;
  s_.x_tick_labels = s_.y_tick_labels = 0;
  for (std::size_t i = 0; i < s_.x_categories.size(); ++i) {
    const double v = static_cast<double>(i);
    if (!s_.x.range.contains(v)) continue;
    bool cut = false;
    const std::vector<std::string> lines =
        s_.x_categories.size() > 1 ? fit_category_label(s_.x_categories[i], spacing, category_lines_, &cut)
                                   : std::vector<std::string>{s_.x_categories[i]};
    const float x = static_cast<float>(tf_.px_x(v));
    bool drawn = false;
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const ImVec2 ts = ImGui::CalcTextSize(lines[l].c_str());
      const float lx = std::clamp(std::round(x - ts.x / 2), frame_min_.x, frame_max_.x - ts.x);
      const float ly = area_max_.y + 0.4f * em_ + line * static_cast<float>(l);
      if (tick_text(ImVec2(lx, ly), text, lines[l].c_str()) && l == 0) drawn = true;
    }
    s_.category_labels += drawn ? 1 : 0;
    s_.category_labels_cut += drawn && cut ? 1 : 0;
  }
  for (const Tick& t : make_ticks(s_.x, w, 4.2 * em_)) {
    if (!s_.x_categories.empty()) break;
    const float x = static_cast<float>(tf_.px_x(t.value));
    dl_->AddLine(ImVec2(x, area_max_.y), ImVec2(x, area_max_.y + (t.major ? 0.35f : 0.2f) * em_), kFrame,
                 1.0f);
    if (!t.major) continue;
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    // Kept inside the plot's frame: the last label at the right edge would otherwise be cut off.
    const float lx = std::min(std::round(x - ts.x / 2), frame_max_.x - ts.x);
    // 0.55 em below the axis: the lowest y number, centred on the axis, ends 0.05 em above (at 0.4 em the
    // two met at the corner and the y axis lost its lowest number, the x numbers being drawn first).
    s_.x_tick_labels += tick_text(ImVec2(lx, area_max_.y + 0.55f * em_), text, t.label.c_str()) ? 1 : 0;
  }
  for (const Tick& t : make_ticks(s_.y, h, 2.6 * em_)) {
    const float y = static_cast<float>(tf_.px_y(t.value));
    dl_->AddLine(ImVec2(area_min_.x - (t.major ? 0.35f : 0.2f) * em_, y), ImVec2(area_min_.x, y), kFrame,
                 1.0f);
    if (!t.major) continue;
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    const ImVec2 at(area_min_.x - 0.5f * em_ - ts.x, std::round(y - ts.y / 2));
    s_.y_tick_labels += tick_text(at, text, t.label.c_str()) ? 1 : 0;
  }
  for (std::size_t i = 0; i < x_label_lines_.size(); ++i) {
    const std::string& l = x_label_lines_[i];
    const ImVec2 ts = ImGui::CalcTextSize(l.c_str());
    const float x = std::clamp(std::round((area_min_.x + area_max_.x - ts.x) / 2), frame_min_.x,
                               std::max(frame_min_.x, frame_max_.x - ts.x));
    const float below = line * static_cast<float>(i + static_cast<std::size_t>(category_lines_) - 1);
    text_at(ImVec2(x, area_max_.y + 1.6f * em_ + below), text, l.c_str());
  }
  for (std::size_t i = 0; i < title_lines_.size(); ++i)
    text_at(ImVec2(area_min_.x, frame_min_.y + 0.1f * em_ + line * static_cast<float>(i)), text,
            title_lines_[i].c_str());
}

void Plot::draw_legend() {
  s_.legend_min = s_.legend_max = ImVec2(0, 0);
  if (entries_.empty()) {  // nothing to list: no room kept for it either
    s_.legend_place = LegendPlace::Inside;
    s_.legend_key = ImVec2(-1, -1);
    return;
  }
  if (!s_.legend_shown) return;
  if (!legend_first_.empty())
    std::stable_partition(entries_.begin(), entries_.end(),
                          [&](const Entry& e) { return e.key == legend_first_; });
  const float pad = 0.4f * em_, swatch = 1.6f * em_, row = ImGui::GetTextLineHeight() + 0.2f * em_;
  const float gap = 0.6f * em_, item_gap = 1.2f * em_;
  float wmax = 0;
  std::vector<float> widths;
  for (const Entry& e : entries_) {
    widths.push_back(ImGui::CalcTextSize(e.label.c_str()).x);
    wmax = std::max(wmax, widths.back());
  }
  const ImVec2 box(2 * pad + swatch + 0.5f * em_ + wmax, 2 * pad + row * static_cast<float>(entries_.size()));
  // Below the plot the entries flow in rows across the plot's width.
  const float flow_w = frame_max_.x - frame_min_.x - 1.0f * em_;
  // An entry wider than the plot wraps at spaces onto more lines (never past the plot's side).
  std::vector<ImVec2> flow;            // each entry's offset in the flow box
  std::vector<std::string> flow_text;  // each entry's text there (wrapped)
  std::vector<float> flow_w_item;
  float fx = pad, fy = pad, flow_right = 0, row_h = row;
  const float text_room = std::max(4.0f * em_, flow_w - 2 * pad - swatch - 0.5f * em_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    std::string t = entries_[i].label;
    float tw = widths[i], th = row;
    if (tw > text_room) {
      const std::vector<std::string> lines = wrap_words(t, text_room);
      t.clear();
      tw = 0;
      for (const std::string& l : lines) {
        t += (t.empty() ? "" : "\n") + l;
        tw = std::max(tw, ImGui::CalcTextSize(l.c_str()).x);
      }
      th = ImGui::CalcTextSize(t.c_str()).y + 0.2f * em_;
    }
    const float w = swatch + 0.5f * em_ + tw;
    if (fx > pad && fx + w + pad > flow_w) {
      fx = pad;
      fy += row_h;
      row_h = row;
    }
    row_h = std::max(row_h, th);
    flow.emplace_back(fx, fy);
    flow_text.push_back(std::move(t));
    flow_w_item.push_back(w);
    flow_right = std::max(flow_right, fx + w);
    fx += w + item_gap;
  }
  const ImVec2 flow_box(flow_right + pad, fy + row_h + pad);

  // The data area without the room kept outside it, and the places inside it, the preferred one first.
  const float inset = 0.6f * em_;
  const float aw = area_max_.x - area_min_.x, ah = area_max_.y - area_min_.y;
  auto corner = [&](ImVec2 anchor) {
    return ImVec2(std::floor(area_min_.x + inset + (aw - 2 * inset - box.x) * anchor.x),
                  std::floor(area_min_.y + inset + (ah - 2 * inset - box.y) * anchor.y));
  };
  struct Cover {
    int hard = 0;
    float soft = 0;
  };
  auto covered = [&](ImVec2 lo) {
    const ImVec2 hi(lo.x + box.x, lo.y + box.y);
    Cover c;
    for (const Ink& k : ink_) c.hard += segment_hits(k.a, k.b, k.r + 1.0f, lo, hi);
    for (const auto& r : ink_rects_) c.hard += boxes_meet(r.first, r.second, lo, hi);
    for (const auto& l : labels_) c.hard += boxes_meet(l.first, l.second, lo, hi);
    for (const auto& r : soft_rects_)
      if (boxes_meet(r.first, r.second, lo, hi))
        c.soft += (std::min(r.second.x, hi.x) - std::max(r.first.x, lo.x)) *
                  (std::min(r.second.y, hi.y) - std::max(r.first.y, lo.y));
    return c;
  };
  const ImVec2 m = ImGui::GetIO().MousePos;
  ImVec2 a;
  LegendPlace place = s_.legend_place;
  if (s_.drag == 5 && s_.legend_moved) {  // dragged: inside, where the mouse puts it
    place = LegendPlace::Inside;
    a = ImVec2(std::clamp(m.x - s_.legend_grab.x, area_min_.x + inset, area_max_.x - inset - box.x),
               std::clamp(m.y - s_.legend_grab.y, area_min_.y + inset, area_max_.y - inset - box.y));
    if (aw - 2 * inset > box.x) s_.legend_anchor.x = (a.x - area_min_.x - inset) / (aw - 2 * inset - box.x);
    if (ah - 2 * inset > box.y) s_.legend_anchor.y = (a.y - area_min_.y - inset) / (ah - 2 * inset - box.y);
    s_.legend_anchor =
        ImVec2(std::clamp(s_.legend_anchor.x, 0.0f, 1.0f), std::clamp(s_.legend_anchor.y, 0.0f, 1.0f));
  } else if (s_.legend_user) {
    place = LegendPlace::Inside;
    a = corner(s_.legend_anchor);
  } else {
    // Inside only where it covers no data and leaves most of the plot free; a new plot size or new entries
    // decide again from the start, otherwise a legend once outside stays there (no flicker).
    // A new size (beyond a scrollbar's width, which comes and goes with the view's content), text size or
    // number of entries decides again.
    const float n_entries = static_cast<float>(entries_.size());
    const bool redecide = s_.legend_key.x < 0 || std::fabs(s_.legend_key.x - key_size_.x) > 3 * em_ ||
                          std::fabs(s_.legend_key.y - key_size_.y) > 3 * em_ || s_.legend_key_em != em_ ||
                          s_.legend_key_n != n_entries;
    const float fw = free_area_.x, fh = free_area_.y;
    const bool fits = box.x <= std::min(aw, fw) - 2 * inset && box.y <= std::min(ah, fh) - 2 * inset &&
                      box.x * box.y <= 0.3f * fw * fh;
    a = corner(s_.legend_anchor);
    Cover best = covered(a);
    for (const ImVec2 anchor : {ImVec2(1, 0), ImVec2(0, 0), ImVec2(1, 1), ImVec2(0, 1), ImVec2(0.5f, 0),
                                ImVec2(0.5f, 1), ImVec2(1, 0.5f), ImVec2(0, 0.5f), ImVec2(0.75f, 0),
                                ImVec2(0.25f, 0), ImVec2(0.75f, 1), ImVec2(0.25f, 1)}) {
      if (best.hard == 0 && best.soft == 0) break;
      const ImVec2 c = corner(anchor);
      const Cover n = covered(c);
      if (n.hard < best.hard || (n.hard == best.hard && n.soft < best.soft)) best = n, a = c;
    }
    const bool inside_ok = fits && best.hard == 0;
    if (redecide || (place == LegendPlace::Inside && !inside_ok)) {
      if (inside_ok) {
        place = LegendPlace::Inside;
      } else if (fw - box.x - gap >= kMinAreaWidth &&
                 (box.y <= fh || (s_.x_categories.size() <= 1 && box.y <= fh + flow_box.y + gap))) {
        // At the right where the width allows and the plot grows less than below it would (a legend
        // taller than the data area makes the area as tall as the legend); bar groups keep the width for
        // their names unless the legend fits the height as it is.
        place = LegendPlace::Right;
        s_.legend_out = box;
      } else {
        place = LegendPlace::Below;
        s_.legend_out = flow_box;
      }
      s_.legend_key = key_size_;
      s_.legend_key_em = em_;
      s_.legend_key_n = n_entries;
    }
  }
  s_.legend_place = place;
  // The room kept next frame follows the legend's size now (its texts, the plot's width).
  if (place == LegendPlace::Right) s_.legend_out = box;
  if (place == LegendPlace::Below) s_.legend_out = flow_box;
  bool flowing = false;
  ImVec2 size = box;
  // Outside but without its room yet (the frame it moves out): not drawn this one frame, rather than over
  // the data or the plot beside it.
  if (place != LegendPlace::Inside && place != reserved_place_) return;
  if (place != LegendPlace::Inside) {
    if (place == LegendPlace::Right) {
      a = ImVec2(area_max_.x + gap, area_min_.y);
    } else {
      a = ImVec2(frame_min_.x + 0.5f * em_, frame_max_.y - reserved_.y + gap);
      size = flow_box;
      flowing = true;
    }
  }
  const ImVec2 b(a.x + size.x, a.y + size.y);
  s_.legend_min = a;
  s_.legend_max = b;
  s_.texts.push_back({a, b, TextKind::Legend});
  if (!g_draw_legends) return;  // (tests: the picture under the legend, same layout)
  dl_->AddRectFilled(a, b, IM_COL32(255, 255, 255, 230), 0.3f * em_);
  dl_->AddRect(a, b, IM_COL32(0, 0, 0, 60), 0.3f * em_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    const ImVec2 o = flowing ? flow[i] : ImVec2(pad, pad + row * static_cast<float>(i));
    const float x = a.x + o.x, y = a.y + o.y;
    const ImVec2 ra(flowing ? x : a.x, y), rb(flowing ? x + flow_w_item[i] : b.x, y + row);
    if (hovered_ && inside(m, ra, rb)) {
      dl_->AddRectFilled(ra, rb, IM_COL32(0, 0, 0, 18));
      if (s_.legend_click) {
        if (e.hidden) {
          s_.hidden.erase(e.key);
        } else {
          s_.hidden.insert(e.key);
        }
        e.hidden = !e.hidden;
      }
    }
    const ImU32 col = e.hidden ? IM_COL32(150, 150, 150, 255) : (e.color | IM_COL32_A_MASK);
    const float cy = y + row / 2;
    if (e.dot) {
      dl_->AddCircleFilled(ImVec2(x + swatch / 2, cy), 0.3f * em_, col, 16);
    } else if (e.readout) {
      dl_->AddLine(ImVec2(x, cy), ImVec2(x + swatch, cy), col, 0.22f * em_);
    } else {
      dl_->AddRectFilled(ImVec2(x, cy - 0.35f * em_), ImVec2(x + swatch, cy + 0.35f * em_),
                         e.hidden ? IM_COL32(150, 150, 150, 90) : e.color);
    }
    dl_->AddText(ImVec2(x + swatch + 0.5f * em_, y + 0.1f * em_),
                 e.hidden ? IM_COL32(140, 140, 140, 255) : kText,
                 flowing ? flow_text[i].c_str() : e.label.c_str());
  }
  s_.legend_click = false;
}

/// Hovering a labelled dot shows its label and its coordinates (a label left out for want of room included),
/// in place of the curves' readout. Returns whether it did.
bool Plot::draw_dot_tip() {
  s_.dot_tip.clear();
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (!hovered_ || s_.drag != 0 || !inside(m, area_min_, area_max_)) return false;
  const NamedDot* best = nullptr;
  float best_d = 0;
  for (const NamedDot& d : named_dots_) {
    const float dist = std::hypot(m.x - d.p.x, m.y - d.p.y);
    if (dist <= std::max(d.r, 0.5f * em_) && (!best || dist < best_d)) best = &d, best_d = dist;
  }
  if (!best) return false;
  s_.dot_tip = best->text;
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(unicode_minus(best->text).c_str());
  ImGui::TextDisabled("x = %s, y = %s", format_value(tf_.data_x(best->p.x)).c_str(),
                      format_value(tf_.data_y(best->p.y)).c_str());
  ImGui::EndTooltip();
  return true;
}

void Plot::draw_readout() {
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (!hovered_ || s_.drag != 0 || !inside(m, area_min_, area_max_) ||
      inside(m, s_.legend_min, s_.legend_max))
    return;
  const double x = tf_.data_x(m.x);
  dl_->AddLine(ImVec2(m.x, area_min_.y), ImVec2(m.x, area_max_.y), IM_COL32(0, 0, 0, 70), 1.0f);
  struct Row {
    const Entry* e;
    double y, slope;
  };
  std::vector<Row> rows;
  for (const Entry& e : entries_) {
    if (e.hidden || !e.readout) continue;
    double y = NAN, slope = NAN;
    if (e.f) {
      double xv[3] = {x, x, x}, yv[3];
      const double h = std::max(std::fabs(x), 1.0) * 1e-6;
      xv[1] = x - h;
      xv[2] = x + h;
      e.f(std::span<const double>(xv, 3), std::span<double>(yv, 3));
      y = yv[0];
      if (e.df) {
        e.df(std::span<const double>(xv, 1), std::span<double>(yv, 1));
        slope = yv[0];
      } else {
        slope = (yv[2] - yv[1]) / (xv[2] - xv[1]);
      }
    } else {
      y = interpolate(e.xs, e.ys, x, &slope);
    }
    rows.push_back({&e, y, slope});
    if (std::isfinite(y) && s_.y.range.contains(y)) {
      const ImVec2 p = px(x, y);
      dl_->AddCircleFilled(p, 0.3f * em_, IM_COL32_WHITE, 12);
      dl_->AddCircleFilled(p, 0.22f * em_, e.color | IM_COL32_A_MASK, 12);
    }
  }
  ImGui::BeginTooltip();
  ImGui::Text("x = %.6g", x);
  if (!rows.empty() &&
      ImGui::BeginTable("##readout", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("series");
    ImGui::TableSetupColumn("value");
    ImGui::TableSetupColumn("slope");
    ImGui::TableHeadersRow();
    for (const Row& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, r.e->color | IM_COL32_A_MASK);
      ImGui::TextUnformatted(r.e->label.c_str());
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_value(r.y).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_value(r.slope).c_str());
    }
    ImGui::EndTable();
  }
  ImGui::EndTooltip();
}

void Plot::apply_fit() {
  if (s_.fit_x_request) {
    s_.x.range = fit_x_.min <= fit_x_.max ? padded(s_.x, fit_x_, 0.03) : s_.home_x;
    s_.fit_x_request = false;
    if (s_.linked_x) *s_.linked_x = s_.x;
    return;  // y is fitted next frame, to the curves re-sampled on the new x range
  }
  if (s_.fit_y_request) {
    s_.y.range = fit_y_.min <= fit_y_.max ? padded(s_.y, fit_y_, 0.06) : s_.home_y;
    s_.fit_y_request = false;
  }
}

void Plot::draw_view_notes() {
  if (!g_view_filter) return;
  const ImU32 ink = IM_COL32(160, 70, 0, 255);
  for (const PlotNote& n : g_view_filter->notes) {
    if (n.plot != id_) continue;
    if (n.kind == PlotNote::Band) {
      shade_x("##lesson_band", IM_COL32(255, 170, 0, 50), n.x, n.x1);
      const double xa = std::max(n.x, s_.x.range.min), xb = std::min(n.x1, s_.x.range.max);
      if (xa < xb) label_near(px((xa + xb) / 2, s_.y.range.max), n.text.c_str(), ink, false);
    } else if (n.kind == PlotNote::Marker) {
      marker(n.x, n.y, ink, n.text.c_str(), 0.34f);
    } else if (std::isfinite(n.x) && std::isfinite(n.y)) {
      // An arrow from a callout to the point: the callout placed as a label, further off.
      const ImVec2 p = px(n.x, n.y);
      const auto box = label_near(p, n.text.c_str(), ink, true);
      if (!box) continue;
      const ImVec2 from(std::clamp(p.x, box->first.x, box->second.x),
                        std::clamp(p.y, box->first.y, box->second.y));
      const ImVec2 d(p.x - from.x, p.y - from.y);
      const float len = std::sqrt(d.x * d.x + d.y * d.y);
      if (len < 2) continue;
      const ImVec2 u(d.x / len, d.y / len), nrm(-u.y, u.x);
      const float head = std::max(6.0f, 0.6f * lu_), w = std::max(kMinLine, 0.13f * lu_);
      const ImVec2 tip(p.x - u.x * 0.25f * lu_, p.y - u.y * 0.25f * lu_);
      const ImVec2 base(tip.x - u.x * head, tip.y - u.y * head);
      layers_.SetCurrentChannel(dl_, 1);
      dl_->AddLine(from, base, ink, w);
      dl_->AddTriangleFilled(tip, ImVec2(base.x + nrm.x * head * 0.5f, base.y + nrm.y * head * 0.5f),
                             ImVec2(base.x - nrm.x * head * 0.5f, base.y - nrm.y * head * 0.5f), ink);
      layers_.SetCurrentChannel(dl_, 0);
      ink_.push_back({from, tip, w});
    }
  }
}

void Plot::end() {
  if (ended_) return;
  ended_ = true;
  in_view_notes_ = true;
  draw_view_notes();  // a lesson step's annotations, before the legend looks for a place
  in_view_notes_ = false;
  // The markers' labels, in the order of their markers, now that every dot and curve is drawn.
  for (const NamedDot& d : named_dots_)
    label_near(d.p, d.text.c_str(), d.color, false, true, s_.labels_near && !d.lesson, !d.lesson);
  draw_inline_labels();
  s_.dots = dots_;
  layers_.Merge(dl_);
  dl_->PopClipRect();
  draw_axes();
  // The legend lists what is not named at its line's end; the hover readout keeps every curve.
  std::vector<Entry> all;
  if (std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.inlined; })) {
    all = entries_;
    std::erase_if(entries_, [](const Entry& e) { return e.inlined; });
  }
  draw_legend();
  if (!all.empty()) entries_ = std::move(all);
  draw_outside_notes();
  if (!draw_dot_tip()) draw_readout();
  apply_fit();
  s_.last = tf_;
  s_.capture = false;
  s_.drawn_items = items_;
}

void Plot::cells(const char* label, std::span<const double> xs, std::span<const double> ys,
                 std::span<const double> values) {
  if (!s_.capture) return;
  const std::size_t n = std::min({xs.size(), ys.size(), values.size()});
  s_.captured.push_back({label,
                         {xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(n)},
                         {ys.begin(), ys.begin() + static_cast<std::ptrdiff_t>(n)},
                         {values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n)}});
}

void Plot::data(const char* label, std::span<const double> xs, std::span<const double> ys) {
  if (s_.capture) capture(label, xs, ys);
}

void Plot::capture(const std::string& label, std::span<const double> xs, std::span<const double> ys) {
  // Data series: the points inside the visible x range (what the plot shows).
  CapturedSeries c{label, {}, {}, {}};
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; i < n; ++i)
    if (xs[i] >= s_.x.range.min && xs[i] <= s_.x.range.max) {
      c.x.push_back(xs[i]);
      c.y.push_back(ys[i]);
    }
  s_.captured.push_back(std::move(c));
}

}  // namespace gelu::plot

// GELU Lab plot layer: a plot's begin and end: layout, input, grid, axes, readout, fit (see plot.hpp for the
// contract, plot_internal.hpp for how the plot's files are split).
//
// Index of this file:
//   [SECTION] Context and settings
//   [SECTION] Begin
//   [SECTION] End
#include <imgui_internal.h>

#include "gelu/numio.hpp"
#include "plot/plot_internal.hpp"

namespace gelu::plot {

using namespace detail;  // NOLINT: the plot's own internals

// [SECTION] Context and settings

Context& detail::context() {
  static Context c;
  return c;
}

void new_frame() {
  Context& c = context();
  c.linked_last.swap(c.linked_now);
  c.linked_now.clear();
}

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
  return wrap_words(text, width, measure_text);
}

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

void set_draw_legends(bool draw) {
  context().draw_legends = draw;
}
void set_inline_legends(bool on) {
  context().inline_legends = on;
}
bool inline_legends() {
  return context().inline_legends;
}

void set_line_scale(float scale) {
  context().line_scale = std::clamp(scale, 0.25f, 8.0f);
}
float line_scale() {
  return context().line_scale;
}

void set_series_names(std::set<std::string>* names) {
  context().series_names = names;
}

bool ViewFilter::hides(std::string_view text, std::string_view key) const {
  const auto named = [&](const std::string& n) { return n == text || n == key; };
  if (!series.empty() && std::none_of(series.begin(), series.end(), named)) return true;
  const auto it = std::find_if(reveal.begin(), reveal.end(), named);
  return it != reveal.end() && it - reveal.begin() >= revealed;
}
void set_view_filter(const ViewFilter* filter) {
  context().view_filter = filter;
}
const ViewFilter* view_filter() {
  return context().view_filter;
}

// [SECTION] Begin: layout, input, grid

Plot::Plot(const char* id, PlotState& state, ImVec2 size, const char* x_label, const char* y_label)
    : s_(state), id_(id ? id : ""), x_label_(x_label ? x_label : ""), y_label_(y_label ? y_label : "") {
  em_ = ImGui::GetFontSize();
  s_.note_min = s_.note_max = ImVec2(0, 0);
  if (context().view_filter && !context().view_filter->legends)
    s_.legend_shown = false;  // the lesson step's choice
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
  // Stacked plots linked to one x axis share one data area across x (the narrowest of theirs, as drawn the
  // frame before): the same x is the same screen column in each (a legend at the right of one narrows all).
  if (s_.linked_x && !s_.square) {
    Context& c = context();
    const LinkedArea mine{s_.linked_x, frame_min_.x, area_min_.x, area_max_.x};
    if (c.linked_now.size() < 256) c.linked_now.push_back(mine);
    const auto [l, r] = shared_x_extent(c.linked_last, mine);
    area_min_.x = static_cast<float>(l);
    area_max_.x = static_cast<float>(r);
  }
  place_.area = rect(area_min_, area_max_);
  place_.frame = rect(frame_min_, frame_max_);
  place_.em = em_;
  place_.line_height = ImGui::GetTextLineHeight();
  place_.measure = measure_text;
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
  const ImGuiIO& io = ImGui::GetIO();
  if ((io.KeyCtrl || io.KeySuper) && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_C), false)) {
    std::string text = "x\t";
    append_f64(text, x);
    for (const Row& r : rows) {
      text += '\n';
      text += r.e->label;
      text += '\t';
      append_f64(text, r.y);
      text += '\t';
      append_f64(text, r.slope);
    }
    text += '\n';
    ImGui::SetClipboardText(text.c_str());
    s_.copied = std::move(text);
    s_.copied_frame = ImGui::GetFrameCount();
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
  ImGui::TextDisabled("%s", ImGui::GetFrameCount() - s_.copied_frame < 120 ? "copied to the clipboard"
                                                                           : "Ctrl+C copies these numbers");
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
  if (!context().view_filter) return;
  const ImU32 ink = IM_COL32(160, 70, 0, 255);
  for (const PlotNote& n : context().view_filter->notes) {
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
      place_.ink.push_back({pt(from), pt(tip), w});
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
  s_.dots.clear();
  for (const InkDot& d : place_.dots) s_.dots.push_back({iv(d.p), d.color});
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

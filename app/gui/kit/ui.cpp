#include "gui/kit/ui.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace gelu::app::ui {

Fonts& fonts() {
  static Fonts f;
  return f;
}

namespace {
bool g_show_controls = true;
}  // namespace
bool show_controls() {
  return g_show_controls;
}
void set_show_controls(bool show) {
  g_show_controls = show;
}

namespace {
const StepView* g_step_view = nullptr;
}  // namespace
void set_step_view(const StepView* view) {
  g_step_view = view;
}
const StepView* step_view() {
  return g_step_view;
}
bool plot_shown(std::string_view id) {
  if (!g_step_view || g_step_view->plots.empty()) return true;
  return std::find(g_step_view->plots.begin(), g_step_view->plots.end(), id) != g_step_view->plots.end();
}
bool control_pinned(std::string_view name) {
  if (!g_step_view || show_controls()) return false;
  return std::find(g_step_view->controls.begin(), g_step_view->controls.end(), name) !=
         g_step_view->controls.end();
}

namespace {
// A lesson's annotation over a finished plot (its transform is the last frame's, which is this frame's).
void draw_annotation(const Annotation& a, const plot::Transform& tf) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float e = em();
  const ImVec2 lo(static_cast<float>(tf.left), static_cast<float>(tf.top));
  const ImVec2 hi(static_cast<float>(tf.right), static_cast<float>(tf.bottom));
  dl->PushClipRect(lo, hi, true);
  const ImU32 ink = IM_COL32(160, 70, 0, 255), paper = IM_COL32(255, 247, 214, 235);
  const std::vector<std::string> lines = plot::wrap_words(plot::unicode_minus(a.text), 0.45f * (hi.x - lo.x));
  std::string text;
  for (const std::string& l : lines) text += (text.empty() ? "" : "\n") + l;
  const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
  const float pad = 0.25f * e;
  auto callout = [&](ImVec2 at) {  // a box whose top-left is `at`, kept inside the data area
    at.x = std::clamp(at.x, lo.x + pad, std::max(lo.x + pad, hi.x - ts.x - 2 * pad));
    at.y = std::clamp(at.y, lo.y + pad, std::max(lo.y + pad, hi.y - ts.y - 2 * pad));
    const ImVec2 b(at.x + ts.x + 2 * pad, at.y + ts.y + 2 * pad);
    dl->AddRectFilled(at, b, paper, 0.2f * e);
    dl->AddRect(at, b, ink, 0.2f * e, 0, std::max(1.0f, 0.08f * e));
    dl->AddText(ImVec2(at.x + pad, at.y + pad), ink, text.c_str());
    return std::pair(at, b);
  };
  const float px = static_cast<float>(tf.px_x(a.x)), py = static_cast<float>(tf.px_y(a.y));
  if (a.kind == Annotation::Kind::Band) {
    const float x0 = std::max(lo.x, static_cast<float>(tf.px_x(a.x))),
                x1 = std::min(hi.x, static_cast<float>(tf.px_x(a.x1)));
    if (x1 > x0) {
      dl->AddRectFilled(ImVec2(x0, lo.y), ImVec2(x1, hi.y), IM_COL32(255, 170, 0, 45));
      dl->AddLine(ImVec2(x0, lo.y), ImVec2(x0, hi.y), IM_COL32(200, 110, 0, 160), std::max(1.0f, 0.08f * e));
      dl->AddLine(ImVec2(x1, lo.y), ImVec2(x1, hi.y), IM_COL32(200, 110, 0, 160), std::max(1.0f, 0.08f * e));
      callout(ImVec2((x0 + x1) / 2 - ts.x / 2 - pad, lo.y + pad));
    }
  } else if (a.kind == Annotation::Kind::Marker) {
    const float r = std::max(4.0f, 0.35f * e);
    dl->AddCircleFilled(ImVec2(px, py), r + 2, IM_COL32_WHITE);
    dl->AddCircleFilled(ImVec2(px, py), r, ink);
    callout(ImVec2(px + r + pad, py - ts.y - 2 * pad - r));
  } else {
    // The callout sits up and toward the middle of the plot, the arrow runs from its edge to the point.
    const float dx = px > (lo.x + hi.x) / 2 ? -(ts.x + 2 * pad) - 2.5f * e : 2.5f * e;
    const float dy = py > (lo.y + hi.y) / 2 ? -(ts.y + 2 * pad) - 2.5f * e : 2.5f * e;
    const auto [b0, b1] = callout(ImVec2(px + dx, py + dy));
    const ImVec2 from(std::clamp(px, b0.x, b1.x), std::clamp(py, b0.y, b1.y));
    const ImVec2 d(px - from.x, py - from.y);
    const float len = std::sqrt(d.x * d.x + d.y * d.y);
    if (len > 1) {
      const ImVec2 u(d.x / len, d.y / len), n(-u.y, u.x);
      const float head = std::max(6.0f, 0.6f * e), w = std::max(1.5f, 0.13f * e);
      const ImVec2 tip(px - u.x * 0.2f * e, py - u.y * 0.2f * e);
      const ImVec2 base(tip.x - u.x * head, tip.y - u.y * head);
      dl->AddLine(from, base, ink, w);
      dl->AddTriangleFilled(tip, ImVec2(base.x + n.x * head * 0.5f, base.y + n.y * head * 0.5f),
                            ImVec2(base.x - n.x * head * 0.5f, base.y - n.y * head * 0.5f), ink);
    }
  }
  dl->PopClipRect();
}
}  // namespace

int plot_columns(int want, float avail_x) {
  const float w = plot::Plot::min_frame().x, gap = ImGui::GetStyle().ItemSpacing.x;
  int n = std::max(1, want);
  while (n > 1 && static_cast<float>(n) * w + static_cast<float>(n - 1) * gap > avail_x) --n;
  return n;
}

std::string wrap_at_spaces(std::string_view text, float width) {
  if (width <= 0) width = ImGui::GetContentRegionAvail().x;
  width = std::max(width, 1.0f);
  std::string out;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::vector<std::string> lines = plot::wrap_words(std::string(text.substr(at, end - at)), width);
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

namespace {
void vtext_wrapped(bool disabled, const char* fmt, va_list args) {
  char buf[2048];
  std::vsnprintf(buf, sizeof buf, fmt, args);
  if (disabled) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextUnformatted(wrap_at_spaces(buf).c_str());
  if (disabled) ImGui::PopStyleColor();
}
}  // namespace

void text_wrapped(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vtext_wrapped(false, fmt, args);
  va_end(args);
}

void text_wrapped_disabled(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vtext_wrapped(true, fmt, args);
  va_end(args);
}

void heading(const char* text) {
  ImGui::Dummy(ImVec2(0, 0.2f * em()));
  if (fonts().bold) ImGui::PushFont(fonts().bold);
  ImGui::TextUnformatted(text);
  if (fonts().bold) ImGui::PopFont();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(wrap_at_spaces(text, ImGui::GetFontSize() * 28.0f).c_str());
    ImGui::EndTooltip();
  }
}

namespace {
std::map<std::string, Rect>& mark_map() {
  static std::map<std::string, Rect> m;
  return m;
}
}  // namespace

void mark(const std::string& name) {
  mark(name, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}
void mark(const std::string& name, ImVec2 min, ImVec2 max) {
  mark_map()[name] = Rect{min, max};
}
void mark_plot(const std::string& id, const plot::PlotState& s) {
  mark("plot:" + id, ImVec2(static_cast<float>(s.last.left), static_cast<float>(s.last.top)),
       ImVec2(static_cast<float>(s.last.right), static_cast<float>(s.last.bottom)));
  mark("legend:" + id, s.legend_min, s.legend_max);
  if (g_step_view)
    for (const Annotation& a : g_step_view->annotations)
      if (a.plot == id) draw_annotation(a, s.last);
}

const std::map<std::string, Rect>& marks() {
  return mark_map();
}

namespace {
std::vector<PlotRef>& plot_list() {
  static std::vector<PlotRef> v;
  return v;
}
}  // namespace

void mark_plot(const std::string& id, plot::PlotState& s) {
  mark_plot(id, static_cast<const plot::PlotState&>(s));
  plot_list().push_back(PlotRef{id, &s});
}
const std::vector<PlotRef>& frame_plots() {
  return plot_list();
}
void begin_frame() {
  plot_list().clear();
}

}  // namespace gelu::app::ui

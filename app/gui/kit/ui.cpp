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
bool g_slide = false;
}  // namespace
bool slide() {
  return g_slide;
}
void set_slide(bool on) {
  g_slide = on;
}
bool extra_shown(std::string_view name) {
  if (!g_slide) return true;
  return g_step_view && std::find(g_step_view->controls.begin(), g_step_view->controls.end(), name) !=
                            g_step_view->controls.end();
}
float controls_width(float width_em) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float want = width_em * em(), avail = ImGui::GetContentRegionAvail().x;
  const float keep = plot::Plot::min_frame().x + st.ScrollbarSize + st.ItemSpacing.x + 2 * st.WindowPadding.x;
  return std::floor(std::max(std::min(want, avail - keep), std::min(want, avail / 3)));
}

int slide_columns(int n, ImVec2 avail, float gap) {
  if (!g_slide || n <= 1) return 1;
  const ImVec2 m = plot::Plot::min_frame();
  for (int cols = 1; cols <= n; ++cols) {
    const int rows = (n + cols - 1) / cols;
    const float w = (avail.x - gap * static_cast<float>(cols - 1)) / static_cast<float>(cols);
    const float h = (avail.y - gap * static_cast<float>(rows - 1)) / static_cast<float>(rows);
    if (w < m.x) break;  // narrower than a plot: more columns fit even less
    if (h >= m.y) return cols;
  }
  return 1;
}

int plot_columns(int want, float avail_x, float gap) {
  const float w = plot::Plot::min_frame().x;
  if (gap < 0) gap = ImGui::GetStyle().ItemSpacing.x;
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
// The frame each mark was last made in (begin_frame counts frames).
std::map<std::string, long>& mark_frames() {
  static std::map<std::string, long> m;
  return m;
}
long g_frame = 0;
}  // namespace

bool combo(const std::string& key, const char* label, int* current, std::span<const char* const> names) {
  const int n = static_cast<int>(names.size());
  const bool valid = *current >= 0 && *current < n;
  bool changed = false;
  if (ImGui::BeginCombo(label, valid ? names[static_cast<std::size_t>(*current)] : "")) {
    for (int i = 0; i < n; ++i) {
      // Marked by the option's first word ("GEGLU (GELU gate)" → "option:KEY:GEGLU"): script targets have no
      // spaces.
      const std::string_view name = names[static_cast<std::size_t>(i)];
      if (marked("option:" + key + ":" + std::string(name.substr(0, name.find(' '))),
                 ImGui::Selectable(names[static_cast<std::size_t>(i)], i == *current)) &&
          i != *current) {
        *current = i;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  mark("combo:" + key);
  return changed;
}

bool marked_last_frame(const std::string& name) {
  const auto it = mark_frames().find(name);
  return it != mark_frames().end() && it->second == g_frame;
}

void mark(const std::string& name) {
  mark(name, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  mark_map()[name].visible = ImGui::IsItemVisible();
}
void mark(const std::string& name, ImVec2 min, ImVec2 max) {
  mark_map()[name] = Rect{min, max, true};
  mark_frames()[name] = g_frame;
}
void mark_plot(const std::string& id, const plot::PlotState& s) {
  mark("plot:" + id, ImVec2(static_cast<float>(s.last.left), static_cast<float>(s.last.top)),
       ImVec2(static_cast<float>(s.last.right), static_cast<float>(s.last.bottom)));
  mark("legend:" + id, s.legend_min, s.legend_max);
  if (s.note_max.x > s.note_min.x) mark("note:" + id, s.note_min, s.note_max);
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
namespace {
float g_view_overflow = 0;
}  // namespace
void note_view_overflow(float px) {
  g_view_overflow = std::max(g_view_overflow, px);
}
float view_overflow() {
  return g_view_overflow;
}

void begin_frame() {
  plot::new_frame();
  g_view_overflow = 0;
  plot_list().clear();
  ++g_frame;
}

DrawCost draw_cost(const ImDrawData* data) {
  DrawCost c;
  if (!data || !data->Valid) return c;
  c.vertices = data->TotalVtxCount;
  c.indices = data->TotalIdxCount;
  for (int i = 0; i < data->CmdListsCount; ++i) {
    const ImDrawList* l = data->CmdLists[i];
    c.commands += l->CmdBuffer.Size;
    for (int k = 0; k + 2 < l->IdxBuffer.Size; k += 3) {
      const ImVec2 a = l->VtxBuffer[l->IdxBuffer[k]].pos, b = l->VtxBuffer[l->IdxBuffer[k + 1]].pos,
                   d = l->VtxBuffer[l->IdxBuffer[k + 2]].pos;
      const double area = std::fabs((b.x - a.x) * (d.y - a.y) - (d.x - a.x) * (b.y - a.y)) / 2;
      c.filled_px += area;
      c.largest_px = std::max(c.largest_px, area);
    }
  }
  return c;
}

}  // namespace gelu::app::ui

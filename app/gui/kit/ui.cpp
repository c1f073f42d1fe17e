#include "gui/kit/ui.hpp"

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
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
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

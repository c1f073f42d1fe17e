// Classroom mode (see classroom.hpp).
#include "gui/shell/classroom.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "gui/kit/ui.hpp"

namespace gelu::app {

namespace {
constexpr float kLadder[] = {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};

struct Shortcut {
  const char* keys;
  const char* what;
};
constexpr Shortcut kShortcuts[] = {
    {"F1", "show / hide these shortcuts"},
    {"F5", "presentation mode: large crisp text, projector theme"},
    {"Ctrl+=  Ctrl+−", "presentation text larger / smaller (1× … 3×)"},
    {"F6", "show / hide the panel controls (hidden while presenting)"},
    {"F7", "lesson bar: its title line only / the whole step text"},
    {"F11", "fullscreen on / off"},
    {"← →", "previous / next lesson step (Lessons menu)"},
    {"Esc", "leave the lesson, close this overlay"},
    {"Ctrl+1 … Ctrl+9", "switch panel"},
    {"F12  Ctrl+S", "PNG of the window"},
    {"Shift+F12", "PNG of the plot under the mouse (else the first plot)"},
    {"Ctrl+E", "CSV of the visible series of that plot"},
#ifdef __EMSCRIPTEN__
    {"Ctrl+Shift+S", "save the session (JSON, a download)"},
    {"Ctrl+O", "open a lesson or session from this computer (or drop it on the page)"},
#else
    {"Ctrl+Shift+S  Ctrl+O", "save / restore the session (JSON)"},
    {"Ctrl+Q", "quit (the session is saved automatically)"},
#endif
    {"Ctrl+C", "over a plot: copy the readout's numbers"},
    {"drag / wheel", "pan / zoom a plot (over an axis: that axis only)"},
    {"double-click", "fit the plot · click a legend entry to hide it"},
    {"drag a legend", "move it (it stays where it is dropped) · right-click a plot: legend on / off"},
};
}  // namespace

void Presentation::step(int direction) {
  const float* begin = std::begin(kLadder);
  const float* end = std::end(kLadder);
  if (direction > 0) {
    const float* it = std::upper_bound(begin, end, scale + 1e-3f);
    scale = it == end ? kMaxScale : *it;
  } else {
    const float* it = std::lower_bound(begin, end, scale - 1e-3f);
    scale = it == begin ? kMinScale : *(it - 1);
  }
}

void apply_projector_colors(ImGuiStyle& style) {
  ImVec4* c = style.Colors;
  const ImVec4 white(1, 1, 1, 1), black(0, 0, 0, 1), blue(0.05f, 0.28f, 0.63f, 1.0f);
  c[ImGuiCol_WindowBg] = white;
  c[ImGuiCol_PopupBg] = white;
  c[ImGuiCol_Text] = black;
  c[ImGuiCol_TextDisabled] = ImVec4(0.25f, 0.25f, 0.28f, 1.0f);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.86f, 0.88f, 0.92f, 1.0f);
  c[ImGuiCol_Border] = ImVec4(0, 0, 0, 0.55f);
  c[ImGuiCol_FrameBg] = white;
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.85f, 0.91f, 1.0f, 1.0f);
  c[ImGuiCol_CheckMark] = blue;
  c[ImGuiCol_SliderGrab] = blue;
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.0f, 0.18f, 0.45f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.84f, 0.88f, 0.95f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.80f, 0.86f, 0.96f, 1.0f);
  c[ImGuiCol_Tab] = ImVec4(0.80f, 0.83f, 0.88f, 1.0f);
  c[ImGuiCol_TabActive] = blue;
  c[ImGuiCol_TabHovered] = ImVec4(0.20f, 0.42f, 0.78f, 1.0f);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(0, 0, 0, 0.05f);
  c[ImGuiCol_Separator] = ImVec4(0, 0, 0, 0.5f);
  style.FrameBorderSize = 1.0f;
  style.ChildBorderSize = 1.0f;
  style.WindowBorderSize = 1.0f;
}

void apply_theme_colors(ImGuiStyle& style, Theme theme) {
  if (theme == Theme::Light) return;
  ImVec4* c = style.Colors;
  if (theme == Theme::Dark) {
    ImGui::StyleColorsDark(&style);
    c[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
    c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_PopupBg] = ImVec4(0.14f, 0.15f, 0.17f, 1.0f);
    c[ImGuiCol_Text] = ImVec4(0.92f, 0.93f, 0.95f, 1.0f);
    c[ImGuiCol_TextDisabled] = ImVec4(0.62f, 0.64f, 0.68f, 1.0f);
    c[ImGuiCol_MenuBarBg] = ImVec4(0.16f, 0.17f, 0.20f, 1.0f);
    c[ImGuiCol_FrameBg] = ImVec4(0.20f, 0.22f, 0.26f, 1.0f);
    c[ImGuiCol_Border] = ImVec4(1, 1, 1, 0.16f);
    c[ImGuiCol_Tab] = ImVec4(0.20f, 0.23f, 0.28f, 1.0f);
    c[ImGuiCol_TabActive] = ImVec4(0.26f, 0.47f, 0.78f, 1.0f);
    c[ImGuiCol_TabHovered] = ImVec4(0.36f, 0.56f, 0.86f, 1.0f);
    return;
  }
  // High contrast: black and white, yellow for what is active, every frame outlined.
  const ImVec4 black(0, 0, 0, 1), white(1, 1, 1, 1), yellow(1.0f, 0.86f, 0.0f, 1.0f);
  ImGui::StyleColorsDark(&style);
  c[ImGuiCol_WindowBg] = black;
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_PopupBg] = black;
  c[ImGuiCol_Text] = white;
  c[ImGuiCol_TextDisabled] = ImVec4(0.85f, 0.85f, 0.85f, 1.0f);
  c[ImGuiCol_MenuBarBg] = black;
  c[ImGuiCol_Border] = white;
  c[ImGuiCol_FrameBg] = black;
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.25f, 0.22f, 0.0f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.35f, 0.30f, 0.0f, 1.0f);
  c[ImGuiCol_CheckMark] = yellow;
  c[ImGuiCol_SliderGrab] = ImVec4(0.55f, 0.46f, 0.0f, 1.0f);  // dark enough under the slider's white text
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.70f, 0.58f, 0.0f, 1.0f);
  c[ImGuiCol_Button] = black;
  c[ImGuiCol_ButtonHovered] = ImVec4(0.30f, 0.26f, 0.0f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.45f, 0.39f, 0.0f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.30f, 0.26f, 0.0f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.45f, 0.39f, 0.0f, 1.0f);
  c[ImGuiCol_Tab] = black;
  c[ImGuiCol_TabActive] = ImVec4(0.50f, 0.42f, 0.0f, 1.0f);  // white tab titles stay readable
  c[ImGuiCol_TabHovered] = ImVec4(0.55f, 0.47f, 0.0f, 1.0f);
  c[ImGuiCol_Separator] = white;
  style.FrameBorderSize = 1.0f;
  style.ChildBorderSize = 1.0f;
  style.WindowBorderSize = 1.0f;
  style.TabBorderSize = 1.0f;
}

void toggle_fullscreen(GLFWwindow* window, WindowGeometry& g) {
  if (!g.fullscreen) {
    glfwGetWindowPos(window, &g.x, &g.y);
    glfwGetWindowSize(window, &g.width, &g.height);
    // The monitor that holds the window's centre (the primary one if none does).
    int count = 0;
    GLFWmonitor** monitors = glfwGetMonitors(&count);
    GLFWmonitor* best = glfwGetPrimaryMonitor();
    const int cx = g.x + g.width / 2, cy = g.y + g.height / 2;
    for (int i = 0; i < count; ++i) {
      int mx = 0, my = 0;
      glfwGetMonitorPos(monitors[i], &mx, &my);
      const GLFWvidmode* m = glfwGetVideoMode(monitors[i]);
      if (m && cx >= mx && cx < mx + m->width && cy >= my && cy < my + m->height) best = monitors[i];
    }
    if (!best) return;
    const GLFWvidmode* mode = glfwGetVideoMode(best);
    if (!mode) return;
    glfwSetWindowMonitor(window, best, 0, 0, mode->width, mode->height, mode->refreshRate);
    g.fullscreen = true;
  } else {
    glfwSetWindowMonitor(window, nullptr, g.x, g.y, g.width, g.height, GLFW_DONT_CARE);
    g.fullscreen = false;
  }
}

void shortcuts_overlay(bool* open) {
  if (!*open) return;
  const float em = ui::em();
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(1.2f * em, 1.0f * em));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.12f * em);
  if (ImGui::Begin("##shortcuts", nullptr, flags)) {
    ui::heading("Keyboard shortcuts");
    ImGui::Separator();
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const Shortcut& s : kShortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (ui::fonts().bold) ImGui::PushFont(ui::fonts().bold);
        ImGui::TextUnformatted(s.keys);
        if (ui::fonts().bold) ImGui::PopFont();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.what);
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("F1, Esc or a click closes this");
    if (ImGui::IsMouseClicked(0) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) *open = false;
  }
  ImGui::End();
  ImGui::PopStyleVar(2);
}

}  // namespace gelu::app

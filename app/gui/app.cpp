// The desktop app's frame: fonts, theme, menu bar and panel tabs (see app.hpp).
#include "app.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdio>
#include <filesystem>

#include "approx_panel.hpp"
#include "bench_panel.hpp"
#include "curves_panel.hpp"
#include "dropout_panel.hpp"
#include "ffn_panel.hpp"
#include "gelu/activation.hpp"
#include "ui.hpp"

namespace gelu::app {

namespace {
constexpr const char* kFontRegular = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr const char* kFontBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
// Symbols the UI writes itself (the registry's texts are added on top of these).
constexpr const char* kUiSymbols =
    "ΦφσπαβμΣΔ√∞≈−′″·²³ˣ⁻⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂±×≤≥∈→←½—…●○▶❚∂∫⟨⟩";

void apply_theme(float scale) {
  ImGuiStyle style;
  ImGui::StyleColorsLight(&style);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.965f, 0.965f, 0.97f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_Text] = ImVec4(0.08f, 0.08f, 0.10f, 1.0f);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.90f, 0.91f, 0.93f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(1, 1, 1, 1);
  c[ImGuiCol_Border] = ImVec4(0, 0, 0, 0.18f);
  c[ImGuiCol_Tab] = ImVec4(0.84f, 0.86f, 0.90f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(0.26f, 0.47f, 0.78f, 1.0f);
  c[ImGuiCol_TabHovered] = ImVec4(0.40f, 0.60f, 0.88f, 1.0f);
  style.WindowRounding = 0;
  style.ChildRounding = 4;
  style.FrameRounding = 4;
  style.GrabRounding = 4;
  style.TabRounding = 5;
  style.FramePadding = ImVec2(7, 4);
  style.ItemSpacing = ImVec2(9, 7);
  style.WindowPadding = ImVec2(10, 8);
  style.GrabMinSize = 12;
  style.AntiAliasedLines = true;
  style.AntiAliasedLinesUseTex = true;
  style.AntiAliasedFill = true;
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}
}  // namespace

App::App() {
  panels_.push_back(std::make_unique<CurvesPanel>());
  panels_.push_back(std::make_unique<ApproxPanel>());
  panels_.push_back(std::make_unique<DropoutPanel>());
  panels_.push_back(std::make_unique<FfnPanel>());
  panels_.push_back(std::make_unique<BenchPanel>());
}
App::~App() = default;

std::string App::panel_ids() { return "curves|approx|dropout|ffn|bench"; }

void App::setup_fonts_and_style(float content_scale) {
  scale_ = content_scale > 0 ? content_scale : 1.0f;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontGlyphRangesBuilder b;
  b.AddRanges(io.Fonts->GetGlyphRangesDefault());
  b.AddText(kUiSymbols);
  for (const Activation& a : registry()) {
    b.AddText(a.name);
    b.AddText(a.formula);
    b.AddText(a.description);
    for (const ParamSpec& p : a.params) b.AddText(p.description);
  }
  glyph_ranges_.clear();
  b.BuildRanges(&glyph_ranges_);
  const float px = kBaseFontPx * scale_;
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 2;
  cfg.PixelSnapH = false;
  formula_glyphs_ok_ = std::filesystem::exists(kFontRegular);
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  if (formula_glyphs_ok_) {
    regular = io.Fonts->AddFontFromFileTTF(kFontRegular, px, &cfg, glyph_ranges_.Data);
    if (std::filesystem::exists(kFontBold))
      bold = io.Fonts->AddFontFromFileTTF(kFontBold, px * 1.12f, &cfg, glyph_ranges_.Data);
  }
  if (!regular) {
    // Without DejaVu the UI still works in ImGui's built-in font (formula symbols show as '?').
    ImFontConfig d;
    d.SizePixels = 13.0f * scale_;
    regular = io.Fonts->AddFontDefault(&d);
    formula_glyphs_ok_ = false;
  }
  io.FontDefault = regular;
  ui::fonts().regular = regular;
  ui::fonts().bold = bold ? bold : regular;
  io.Fonts->Build();
  apply_theme(scale_);
}

bool App::select(std::string_view id) {
  for (std::size_t i = 0; i < panels_.size(); ++i)
    if (id == panels_[i]->id()) {
      active_ = i;
      pending_select_ = static_cast<int>(i);
      return true;
    }
  return false;
}

Panel* App::find(std::string_view id) {
  for (auto& p : panels_)
    if (id == p->id()) return p.get();
  return nullptr;
}

bool App::animating() const { return panels_[active_]->animating(); }

bool App::take_png_request() {
  const bool r = png_request_;
  png_request_ = false;
  return r;
}

std::string App::png_path() const {
  return "gelulab-" + std::string(panels_[active_]->id()) + "-" + std::to_string(png_counter_) + ".png";
}

void App::menu_bar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Save PNG of the view", "F12")) png_request_ = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    for (std::size_t i = 0; i < panels_.size(); ++i) {
      const std::string shortcut = "Ctrl+" + std::to_string(i + 1);
      if (ImGui::MenuItem(panels_[i]->title(), shortcut.c_str(), active_ == i)) select(panels_[i]->id());
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted("Plots: drag to pan (over an axis: that axis only)");
    ImGui::TextUnformatted("Wheel: zoom about the cursor (over an axis: that axis only)");
    ImGui::TextUnformatted("Double-click: fit · Click a legend entry: show/hide it");
    ImGui::TextUnformatted("Drag the triangle-topped probe line to move the probe");
    ImGui::Separator();
    ImGui::TextUnformatted("The same pictures without a window: gelulab shot --help");
    ImGui::EndMenu();
  }
  if (!status_.empty()) {
    ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(status_.c_str()).x - 2 * ImGui::GetFontSize());
    ImGui::TextDisabled("%s", status_.c_str());
  }
  ImGui::EndMenuBar();
}

void App::frame() {
  ImGuiIO& io = ImGui::GetIO();
  // Keys are GLFW key codes in ImGui 1.86's io.KeysDown (the GLFW backend's mapping).
  const bool ctrl = io.KeyCtrl;
  if (ImGui::IsKeyPressed(GLFW_KEY_F12, false) || (ctrl && ImGui::IsKeyPressed(GLFW_KEY_S, false)))
    png_request_ = true;
  if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) quit_ = true;
  for (std::size_t i = 0; i < panels_.size() && i < 9; ++i)
    if (ctrl && ImGui::IsKeyPressed(GLFW_KEY_1 + static_cast<int>(i), false)) select(panels_[i]->id());

  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_MenuBar |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("GELU Lab", nullptr, flags);
  menu_bar();
  if (ImGui::BeginTabBar("panels")) {
    for (std::size_t i = 0; i < panels_.size(); ++i) {
      const ImGuiTabItemFlags tf = pending_select_ == static_cast<int>(i) ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(panels_[i]->title(), nullptr, tf)) {
        if (pending_select_ < 0 || pending_select_ == static_cast<int>(i)) active_ = i;
        ImGui::BeginChild(panels_[i]->id(), ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
        panels_[i]->drawContent();
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    pending_select_ = -1;
    ImGui::EndTabBar();
  }
  ImGui::End();
}

// [SECTION] Meta helpers (panel.hpp)

std::string color_hex(unsigned int c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff);
  return buf;
}

json::Value plot_meta(const plot::PlotState& s) {
  const plot::Transform& t = s.last;
  auto scale = [](plot::Scale sc) {
    return sc == plot::Scale::Linear ? "linear" : sc == plot::Scale::Log10 ? "log" : "symlog";
  };
  json::Object o;
  o["left"] = t.left;
  o["top"] = t.top;
  o["right"] = t.right;
  o["bottom"] = t.bottom;
  o["x_min"] = t.x.range.min;
  o["x_max"] = t.x.range.max;
  o["y_min"] = t.y.range.min;
  o["y_max"] = t.y.range.max;
  o["x_scale"] = scale(t.x.scale);
  o["y_scale"] = scale(t.y.scale);
  o["symlog_c"] = t.y.symlog_c;
  return o;
}

namespace {
// Built with += (GCC 12's -Wrestrict misfires on "'" + std::string(...)).
std::string quoted(std::string_view key) {
  std::string s = "'";
  s += key;
  s += "'";
  return s;
}
}  // namespace

void read_range(const json::Value& state, std::string_view key, plot::Range& out) {
  const json::Value* v = state.find(key);
  if (!v) return;
  const std::string msg = quoted(key) + " must be [min, max] with finite min < max";
  if (!v->is_array() || v->as_array().size() != 2 || !v->as_array()[0].is_number() || !v->as_array()[1].is_number())
    throw json::JsonError(msg);
  const plot::Range r{v->as_array()[0].as_number(), v->as_array()[1].as_number()};
  if (!r.valid()) throw json::JsonError(msg);
  out = r;
}

void read_number(const json::Value& state, std::string_view key, double& out, double min, double max) {
  const json::Value* v = state.find(key);
  if (!v) return;
  if (!v->is_number() || !(v->as_number() >= min && v->as_number() <= max)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "'%.*s' must be a number in [%g, %g]", static_cast<int>(key.size()), key.data(),
                  min, max);
    throw json::JsonError(buf);
  }
  out = v->as_number();
}

void read_bool(const json::Value& state, std::string_view key, bool& out) {
  const json::Value* v = state.find(key);
  if (!v) return;
  if (!v->is_bool()) throw json::JsonError(quoted(key) + " must be true or false");
  out = v->as_bool();
}

void read_string(const json::Value& state, std::string_view key, std::string& out) {
  const json::Value* v = state.find(key);
  if (!v) return;
  if (!v->is_string()) throw json::JsonError(quoted(key) + " must be a string");
  out = v->as_string();
}

void check_keys(const json::Value& state, std::initializer_list<std::string_view> known) {
  if (!state.is_object()) throw json::JsonError("the panel state must be a JSON object");
  for (const auto& [k, v] : state.as_object()) {
    bool ok = false;
    for (std::string_view n : known) ok = ok || k == n;
    if (!ok) {
      std::string list;
      for (std::string_view n : known) {
        if (!list.empty()) list += ", ";
        list += n;
      }
      throw json::JsonError("unknown key '" + k + "' (known: " + list + ")");
    }
  }
}

}  // namespace gelu::app

// The desktop app's frame: fonts, theme, menu bar and the panel tabs. Shared by the window (cmd_gui.cpp)
// and the headless shot (cmd_shot.cpp), so a shot is exactly what the window shows.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

#include "panel.hpp"

namespace gelu::app {

/// Base font size in pixels at content scale 1; every size in the UI is a multiple of the font size (em).
inline constexpr float kBaseFontPx = 17.0f;

class App {
 public:
  App();
  ~App();

  /// (Re)builds the font atlas for a content scale (DejaVu Sans with the glyphs of every registry formula)
  /// and scales the style. Call before the renderer backend creates its font texture.
  void setup_fonts_and_style(float content_scale);
  /// The whole UI for one frame; call between ImGui::NewFrame() and ImGui::Render().
  void frame();

  bool select(std::string_view panel_id);  // false when unknown
  Panel* find(std::string_view panel_id);
  Panel& active() { return *panels_[active_]; }
  const std::vector<std::unique_ptr<Panel>>& panels() const { return panels_; }
  static std::string panel_ids();  // "curves|approx|dropout"

  bool animating() const;
  /// Set by the menu item or the key (F12 / Ctrl+S); the window saves the PNG after rendering.
  bool take_png_request();
  bool quit_requested() const { return quit_; }
  std::string png_path() const;  // where the live view's PNG goes: gelulab-<panel>-N.png in the cwd
  void png_saved() { ++png_counter_; }
  void set_status(std::string s) { status_ = std::move(s); }
  bool font_has_formula_glyphs() const { return formula_glyphs_ok_; }

 private:
  void menu_bar();
  std::vector<std::unique_ptr<Panel>> panels_;
  std::size_t active_ = 0;
  int pending_select_ = -1;
  bool png_request_ = false, quit_ = false;
  int png_counter_ = 0;
  std::string status_;
  bool formula_glyphs_ok_ = false;
  float scale_ = 1.0f;
  ImVector<ImWchar> glyph_ranges_;
};

}  // namespace gelu::app

// Classroom mode: presentation settings (font scale, projector theme), fullscreen and the shortcuts
// overlay. The font itself is rebuilt by App::setup_fonts_and_style at the new pixel size (crisp text,
// no bitmap scaling); this file holds the settings, the theme and the window-side helpers.
#pragma once

#include <imgui.h>

#include <string>

struct GLFWwindow;

namespace gelu::app {

/// Presentation mode (F5): a font scale in [kMinScale, kMaxScale] and the high-contrast light theme.
struct Presentation {
  static constexpr float kMinScale = 1.0f, kMaxScale = 3.0f, kDefaultScale = 1.75f;
  bool on = false;
  float scale = kDefaultScale;

  /// The font scale in effect (1 when presentation mode is off).
  float font_scale() const { return on ? scale : 1.0f; }
  /// One step up or down the ladder 1, 1.25, 1.5, 1.75, 2, 2.5, 3 (Ctrl+= / Ctrl+-).
  void step(int direction);
  static bool valid_scale(double s) { return s >= kMinScale && s <= kMaxScale; }
};

/// The everyday theme outside presentation mode (View > Theme, saved in the session). Presentation mode
/// always uses the projector theme.
enum class Theme { Light, Dark, HighContrast };
inline constexpr const char* kThemeNames[] = {"light", "dark", "high_contrast"};
inline constexpr const char* kThemeTitles[] = {"Light", "Dark", "High contrast"};
/// The dark and high-contrast colours on top of the light theme's sizes (data areas stay white).
void apply_theme_colors(ImGuiStyle& style, Theme theme);
/// The everyday UI scale (View > UI scale, saved in the session): 1 to 3, the ladder below.
inline constexpr float kUiScales[] = {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};

/// The projector theme on top of the normal light theme: pure white, black text, dark borders, saturated
/// tabs and check marks; thicker plot lines come from plot::set_line_scale.
void apply_projector_colors(ImGuiStyle& style);
/// How much thicker plot lines and dots are in presentation mode at 2× text; they thicken with the text scale
/// (projector_line_scale), so 3× text does not draw 2× lines.
inline constexpr float kProjectorLineScale = 1.5f;
/// The line scale at presentation text scale `s`: kProjectorLineScale at 2×, 1.125 at 1×, 1.875 at 3×.
inline float projector_line_scale(float s) {
  return kProjectorLineScale * (0.5f + 0.25f * s);
}

/// The window geometry before going fullscreen, restored when leaving it (F11).
struct WindowGeometry {
  // The limits a session file may hold; the window host sets the same minimum size (glfwSetWindowSizeLimits).
  static constexpr int kMinWidth = 320, kMinHeight = 240, kMaxSide = 16384, kMaxOffset = 100000;
  int x = 0, y = 0, width = 1280, height = 800;
  bool fullscreen = false;
  /// Within the limits, so that what a session saves it can load again.
  WindowGeometry clamped() const {
    const auto clamp = [](int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; };
    return {clamp(x, -kMaxOffset, kMaxOffset), clamp(y, -kMaxOffset, kMaxOffset),
            clamp(width, kMinWidth, kMaxSide), clamp(height, kMinHeight, kMaxSide), fullscreen};
  }
};
/// Switches `window` between windowed and fullscreen on its current monitor (glfwSetWindowMonitor),
/// remembering the windowed geometry in `g`.
void toggle_fullscreen(GLFWwindow* window, WindowGeometry& g);

/// The F1 overlay listing every shortcut; sets *open = false when dismissed (F1, Esc or a click).
void shortcuts_overlay(bool* open);

}  // namespace gelu::app

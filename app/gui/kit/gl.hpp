// The OpenGL API the GUI draws with: desktop OpenGL 4.3 core through libepoxy, or WebGL2 (OpenGL ES 3.0)
// in the web build (cmake/emscripten-web.cmake), whose headers emscripten provides. Code that needs more
// than ES 3.0 (KHR_debug, the GL version query of libepoxy) is inside `#ifndef __EMSCRIPTEN__`.
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <epoxy/gl.h>
#endif

#include <imgui.h>

namespace gelu::app {

/// Starts a frame's drawing: the viewport w×h, cleared to the style's window background. The app's main
/// window covers the whole frame without drawing its own background (App::frame), so this clear is the only
/// full-frame fill under the UI: one million pixels fewer to draw at 1280×800, which the browser's software
/// WebGL (SwiftShader) takes a third of a Curves frame for (docs/performance.md).
inline void begin_frame_drawing(int w, int h) {
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glViewport(0, 0, w, h);
  glClearColor(bg.x, bg.y, bg.z, 1.0f);  // every theme's window background is opaque
  glClear(GL_COLOR_BUFFER_BIT);
}

}  // namespace gelu::app

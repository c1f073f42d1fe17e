// Hosts: where the app's frames go. The window (GLFW on a display) or headless (EGL surfaceless or the EGL
// device, into a framebuffer object): the same App, script, session handling and checks run on both.
#pragma once

#include <imgui.h>

#include <memory>
#include <utility>

#include "gui/shell/app.hpp"

namespace gelu::app {

class Host {
 public:
  virtual ~Host() = default;
  virtual void init_imgui() = 0;
  virtual void shutdown_imgui() = 0;
  virtual bool should_close() = 0;
  /// Waits for or polls events (busy: something moves) and applies window requests.
  virtual void poll(App& app, bool busy) = 0;
  virtual float content_scale() = 0;
  virtual bool take_rescale() = 0;
  virtual void new_frame(ImGuiIO& io) = 0;
  /// Binds the framebuffer to draw into and returns its size in pixels.
  virtual std::pair<int, int> begin_render() = 0;
  virtual void select_read_buffer() = 0;
  virtual void present() = 0;
};

/// A GLFW window with an OpenGL 4.3 core context, sized `size` (or the session's geometry when
/// restore_geometry). nullptr after printing why (no display, no GL 4.3).
std::unique_ptr<Host> make_window_host(App& app, std::pair<int, int> size, bool restore_geometry, bool vsync);
/// No window: an offscreen framebuffer on a headless EGL context. nullptr after printing why; also when the
/// build has no GPU backend (EGL).
std::unique_ptr<Host> make_headless_host(std::pair<int, int> size);

}  // namespace gelu::app

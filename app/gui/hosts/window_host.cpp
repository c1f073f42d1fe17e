// The window host: GLFW + OpenGL 4.3 core, idle throttling (the app sleeps until an event unless something
// moves), fullscreen and the window geometry the session keeps.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "gui/hosts/host.hpp"
#include "gui/kit/gl.hpp"
#include "gui/shell/classroom.hpp"

namespace gelu::app {
namespace {

struct Events {
  int recent = 0;  // frames still to draw after the last input event
  bool rescale = false;
};
Events g_events;

void on_event() {
  g_events.recent = 6;
}
void cursor_cb(GLFWwindow*, double, double) {
  on_event();
}
void button_cb(GLFWwindow*, int, int, int) {
  on_event();
}
void scroll_cb(GLFWwindow*, double, double) {
  on_event();
}
void key_cb(GLFWwindow*, int, int, int, int) {
  on_event();
}
void char_cb(GLFWwindow*, unsigned int) {
  on_event();
}
void size_cb(GLFWwindow*, int, int) {
  on_event();
}
void scale_cb(GLFWwindow*, float, float) {
  on_event();
  g_events.rescale = true;
}

App* g_drop_app = nullptr;  // the app that a file dropped on the window goes to
void drop_cb(GLFWwindow*, int count, const char** paths) {
  on_event();
  // Called from glfwPollEvents, between two frames; the first file of a drop (one view at a time).
  if (g_drop_app && count > 0 && paths[0])
    g_drop_app->open_user_file(paths[0], std::filesystem::path(paths[0]).filename().string());
}

class WindowHost : public Host {
 public:
  static std::unique_ptr<WindowHost> create(App& app, std::pair<int, int> size, bool restore_geometry,
                                            bool vsync) {
    glfwSetErrorCallback([](int code, const char* msg) {
      std::fprintf(stderr, "gelulab gui: GLFW error %d: %s\n", code, msg);
    });
    if (!glfwInit()) {
      std::fprintf(stderr,
                   "gelulab: cannot connect to the display; use the command line instead ('gelulab --help',\n"
                   "or 'gelulab gui --headless' to run the app without a display).\n");
      return nullptr;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    WindowGeometry& geom = app.window_geometry();
    GLFWwindow* window =
        glfwCreateWindow(restore_geometry ? geom.width : size.first,
                         restore_geometry ? geom.height : size.second, "GELU Lab", nullptr, nullptr);
    if (!window) {
      std::fprintf(stderr,
                   "gelulab: cannot create an OpenGL 4.3 core window (the driver offers no GL 4.3 core\n"
                   "context); use the command line instead ('gelulab --help').\n");
      glfwTerminate();
      return nullptr;
    }
    auto host = std::unique_ptr<WindowHost>(new WindowHost(window));
    glfwMakeContextCurrent(window);
    // The smallest window the panels lay out in, and the smallest a session file may hold.
    glfwSetWindowSizeLimits(window, WindowGeometry::kMinWidth, WindowGeometry::kMinHeight, GLFW_DONT_CARE,
                            GLFW_DONT_CARE);
    if (restore_geometry) glfwSetWindowPos(window, geom.x, geom.y);
    const bool start_fullscreen = restore_geometry && geom.fullscreen;
    geom.fullscreen = false;
    glfwGetWindowPos(window, &geom.x, &geom.y);
    glfwGetWindowSize(window, &geom.width, &geom.height);
    if (start_fullscreen) toggle_fullscreen(window, geom);
    glfwSwapInterval(vsync ? 1 : 0);
    // Our callbacks first: the ImGui backend chains to them (install_callbacks = true).
    glfwSetCursorPosCallback(window, cursor_cb);
    glfwSetMouseButtonCallback(window, button_cb);
    glfwSetScrollCallback(window, scroll_cb);
    glfwSetKeyCallback(window, key_cb);
    glfwSetCharCallback(window, char_cb);
    glfwSetFramebufferSizeCallback(window, size_cb);
    glfwSetWindowContentScaleCallback(window, scale_cb);
    g_drop_app = &app;  // a lesson or session file dropped on the window opens (App::open_user_file)
    glfwSetDropCallback(window, drop_cb);
    return host;
  }
  ~WindowHost() override {
    g_drop_app = nullptr;
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  void init_imgui() override {
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
    ImGui_ImplOpenGL3_Init("#version 430 core");
  }
  void shutdown_imgui() override {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
  }
  bool should_close() override { return glfwWindowShouldClose(window_); }
  void poll(App& app, bool busy) override {
    // Idle throttling: sleep until an event (or 0.5 s; a stop signal also wakes it) unless something moves.
    if (busy || g_events.recent > 0) {
      glfwPollEvents();
    } else {
      glfwWaitEventsTimeout(0.5);
    }
    if (g_events.recent > 0) --g_events.recent;
    WindowGeometry& geom = app.window_geometry();
    if (app.take_fullscreen_request()) toggle_fullscreen(window_, geom);
    if (!geom.fullscreen) {
      glfwGetWindowPos(window_, &geom.x, &geom.y);
      glfwGetWindowSize(window_, &geom.width, &geom.height);
    }
  }
  float content_scale() override {
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window_, &sx, &sy);
    return std::max(sx, sy);
  }
  bool take_rescale() override { return std::exchange(g_events.rescale, false); }
  void new_frame(ImGuiIO&) override {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
  }
  std::pair<int, int> begin_render() override {
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window_, &fw, &fh);
    return {fw, fh};
  }
  void select_read_buffer() override { glReadBuffer(GL_BACK); }
  void present() override { glfwSwapBuffers(window_); }

 private:
  explicit WindowHost(GLFWwindow* w) : window_(w) {}
  GLFWwindow* window_;
};

}  // namespace

std::unique_ptr<Host> make_window_host(App& app, std::pair<int, int> size, bool restore_geometry,
                                       bool vsync) {
  return WindowHost::create(app, size, restore_geometry, vsync);
}

}  // namespace gelu::app

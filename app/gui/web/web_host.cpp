// The browser's host: emscripten's GLFW emulation on the page's canvas with a WebGL2 context, in place of the
// desktop's window host (hosts/window_host.cpp) and without the headless one (EGL). The canvas fills the
// browser window; its drawing buffer has devicePixelRatio pixels per CSS pixel, and the UI is laid out in
// those pixels at that content scale, as on a HiDPI desktop: text is rasterized at its real size and stays
// crisp (emscripten's GLFW knows nothing of devicePixelRatio: the host sizes the drawing buffer itself; GLFW
// then reports the mouse in the same drawing-buffer pixels).
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "gui/hosts/host.hpp"
#include "gui/kit/gl.hpp"

namespace gelu::app {
namespace {

/// The page's size in CSS pixels and its device pixel ratio.
struct PageSize {
  int w = 1280, h = 800;
  double ratio = 1;
  bool operator==(const PageSize&) const = default;
};
PageSize page_size() {
  PageSize p;
  const int w = EM_ASM_INT({ return window.innerWidth; }), h = EM_ASM_INT({ return window.innerHeight; });
  if (w >= 1 && h >= 1) {
    p.w = w;
    p.h = h;
  }
  p.ratio = std::clamp(emscripten_get_device_pixel_ratio(), 1.0, 4.0);
  return p;
}

GLFWwindow* g_window = nullptr;  // the page's one window, for gelu_web_wheel

std::string& clipboard() {
  static std::string text;
  return text;
}

class WebHost : public Host {
 public:
  static std::unique_ptr<WebHost> create() {
    glfwSetErrorCallback([](int code, const char* msg) {
      std::fprintf(stderr, "gelulab gui: GLFW error %d: %s\n", code, msg);
    });
    if (!glfwInit()) {
      std::fprintf(stderr, "gelulab: GLFW could not start in this browser\n");
      return nullptr;
    }
    const PageSize p = page_size();
    // An opaque drawing buffer without depth or stencil (the UI uses neither): the browser composites the
    // canvas without blending it with the page, and keeps no buffers it never reads.
    glfwWindowHint(GLFW_ALPHA_BITS, 0);
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    GLFWwindow* window = glfwCreateWindow(p.w, p.h, "GELU Lab", nullptr, nullptr);
    if (!window) {
      std::fprintf(stderr, "gelulab: this browser gives no WebGL2 context (GELU Lab draws with WebGL2)\n");
      glfwTerminate();
      return nullptr;
    }
    glfwMakeContextCurrent(window);
    g_window = window;
    auto host = std::unique_ptr<WebHost>(new WebHost(window));
    host->apply(p);
    return host;
  }
  void init_imgui() override {
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
    ImGui_ImplOpenGL3_Init("#version 300 es");
    // emscripten's GLFW has no clipboard: a copied number goes to the browser's (navigator.clipboard, where
    // the page is a secure context: https or localhost), and pasting inside the app gives it back.
    ImGuiIO& io = ImGui::GetIO();
    io.SetClipboardTextFn = [](void*, const char* text) {
      clipboard() = text ? text : "";
      EM_ASM(
          {
            const t = UTF8ToString($0);
            if (navigator.clipboard && window.isSecureContext)
              navigator.clipboard.writeText(t).catch(function(){});
            if (window.gelulab) window.gelulab.clipboard = t;
          },
          clipboard().c_str());
    };
    io.GetClipboardTextFn = [](void*) { return clipboard().c_str(); };
  }
  void shutdown_imgui() override {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
  }
  bool should_close() override { return false; }  // the page ends with its tab
  void poll(App&, bool) override {
    const PageSize p = page_size();
    if (!(p == size_)) {
      rescale_ = rescale_ || p.ratio != size_.ratio;
      apply(p);
    }
  }
  float content_scale() override { return static_cast<float>(size_.ratio); }
  bool take_rescale() override { return std::exchange(rescale_, false); }
  void new_frame(ImGuiIO&) override {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
  }
  std::pair<int, int> begin_render() override { return {pixels(size_.w), pixels(size_.h)}; }
  void select_read_buffer() override {}  // WebGL reads the drawing buffer before it is presented
  void present() override {}             // the browser presents when the frame's callback returns

 private:
  explicit WebHost(GLFWwindow* w) : window_(w) {}
  int pixels(int css) const { return static_cast<int>(std::lround(css * size_.ratio)); }
  void apply(const PageSize& p) {
    size_ = p;
    glfwSetWindowSize(window_, pixels(p.w), pixels(p.h));  // the drawing buffer, in device pixels
    // …shown at the page's CSS size.
    EM_ASM(
        {
          const c = document.getElementById('canvas');
          c.style.width = $0 + 'px';
          c.style.height = $1 + 'px';
        },
        p.w, p.h);
  }
  GLFWwindow* window_;
  PageSize size_;
  bool rescale_ = false;
};

}  // namespace

std::unique_ptr<Host> make_window_host(App&, std::pair<int, int>, bool, bool) {
  return WebHost::create();
}

std::unique_ptr<Host> make_headless_host(std::pair<int, int>) {
  std::fprintf(stderr, "gelulab gui: --headless needs EGL, which the browser does not have\n");
  return nullptr;
}

}  // namespace gelu::app

/// The wheel as GLFW gives it on the desktop (a notch is 1, upwards and leftwards positive), from page.js: in
/// place of emscripten 3.1.6's GLFW, which passes the browser's pixels with the browser's sign.
extern "C" EMSCRIPTEN_KEEPALIVE void gelu_web_wheel(double dx, double dy) {
  if (gelu::app::g_window && std::isfinite(dx) && std::isfinite(dy))
    ImGui_ImplGlfw_ScrollCallback(gelu::app::g_window, std::clamp(dx, -50.0, 50.0),
                                  std::clamp(dy, -50.0, 50.0));
}

/// Text the user pasted into the page (page.js's paste event): ImGui's clipboard, read by its Ctrl+V.
extern "C" EMSCRIPTEN_KEEPALIVE void gelu_web_paste(const char* text) {
  if (text) gelu::app::clipboard() = text;
}

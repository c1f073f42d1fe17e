// The headless host: the whole app on a headless EGL context, drawing into an offscreen framebuffer (no
// display needed): `gelulab gui --headless` for soak and fault tests.
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "gui/hosts/host.hpp"
#include "gui/hosts/offscreen.hpp"
#include "gui/kit/gl.hpp"

namespace gelu::app {
namespace {

class HeadlessHost : public Host {
 public:
  static std::unique_ptr<HeadlessHost> create(std::pair<int, int> size) {
    std::string error;
    auto screen = Offscreen::create(size, &error);
    if (!screen) {
      std::fprintf(stderr, "gelulab gui: --headless: %s\n", error.c_str());
      return nullptr;
    }
    return std::unique_ptr<HeadlessHost>(new HeadlessHost(std::move(screen)));
  }
  void init_imgui() override { ImGui_ImplOpenGL3_Init("#version 430 core"); }
  void shutdown_imgui() override { ImGui_ImplOpenGL3_Shutdown(); }
  bool should_close() override { return false; }
  void poll(App&, bool busy) override {
    // Nothing to wait for without a display: an idle headless app (no script, no --frames) ticks at 20 Hz.
    if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  float content_scale() override { return 1.0f; }
  bool take_rescale() override { return false; }
  void new_frame(ImGuiIO& io) override {
    ImGui_ImplOpenGL3_NewFrame();
    const auto now = std::chrono::steady_clock::now();
    io.DeltaTime = std::clamp(std::chrono::duration<float>(now - last_).count(), 1e-4f, 0.1f);
    last_ = now;
    const auto [w, h] = screen_->size();
    io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));
    io.DisplayFramebufferScale = ImVec2(1, 1);
  }
  std::pair<int, int> begin_render() override {
    screen_->bind();
    return screen_->size();
  }
  void select_read_buffer() override { glReadBuffer(GL_COLOR_ATTACHMENT0); }
  void present() override { glFinish(); }  // what a swap with vsync does: one frame in flight at most

 private:
  explicit HeadlessHost(std::unique_ptr<Offscreen> screen) : screen_(std::move(screen)) {}
  std::unique_ptr<Offscreen> screen_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

std::unique_ptr<Host> make_headless_host(std::pair<int, int> size) {
  return HeadlessHost::create(size);
}

}  // namespace gelu::app

// gelulab gui: the desktop window (GLFW + OpenGL 4.3 core + Dear ImGui 1.86). `gelulab` with no
// arguments runs this. Hidden options drive it from tests: --frames, --script, --report-frame-time.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <epoxy/gl.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "app.hpp"
#include "cli.hpp"
#include "export.hpp"
#include "gl_capture.hpp"
#include "script.hpp"
#include "session.hpp"
#include "state_file.hpp"
#ifdef GELU_HAVE_GPU
#include "gpu_compare.hpp"
#endif

namespace gelu::app {
namespace {

using cli::Args;
using cli::UsageError;

struct Events {
  int recent = 0;  // frames still to draw after the last input event
  bool rescale = false;
};
Events g_events;

void on_event() { g_events.recent = 6; }
void cursor_cb(GLFWwindow*, double, double) { on_event(); }
void button_cb(GLFWwindow*, int, int, int) { on_event(); }
void scroll_cb(GLFWwindow*, double, double) { on_event(); }
void key_cb(GLFWwindow*, int, int, int, int) { on_event(); }
void char_cb(GLFWwindow*, unsigned int) { on_event(); }
void size_cb(GLFWwindow*, int, int) { on_event(); }
void scale_cb(GLFWwindow*, float, float) {
  on_event();
  g_events.rescale = true;
}

// Resident set size after returning the allocator's free pages to the OS (malloc_trim), so the figure
// tracks live memory (a leak) rather than glibc's caching of freed blocks.
long rss_kb() {
  malloc_trim(0);
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4;  // 4 KiB pages on x86-64 Linux
}

std::pair<int, int> parse_size(const std::optional<std::string>& s, std::pair<int, int> def) {
  if (!s) return def;
  int w = 0, h = 0;
  char x = 0, extra = 0;
  if (std::sscanf(s->c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || w < 320 || h < 240 ||
      w > 8192 || h > 8192)
    throw UsageError("--size: '" + *s + "' is not WxH with 320x240 <= WxH <= 8192x8192");
  return {w, h};
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

int run_gui(Args& args) {
  const auto size_opt = args.option("size");
  const auto size = parse_size(size_opt, {1280, 800});
  const auto panel = args.option("panel");
  const auto state = args.option("state");
  const auto frames_opt = args.option("frames");
  const auto script_path = args.option("script");
  const auto save_png = args.option("save-png");
  const auto rss_limit = args.option("max-rss-growth-kb");
  const auto rss_base = args.option("rss-baseline-frame");
  const bool report = args.flag("report-frame-time");
  const auto session_opt = args.option("session");
  const auto presentation_opt = args.option("presentation");
  const auto lesson_opt = args.option("lesson");
  const auto step_opt = args.option("step");
  args.finish();
  const long max_frames = frames_opt ? Args::to_int("frames", *frames_opt, 1, 100000000) : -1;
  const long rss_limit_kb = rss_limit ? Args::to_int("max-rss-growth-kb", *rss_limit, 0, 1 << 30) : -1;
  // The first use of each code path allocates for good (Mesa shader variants, ImGui window and table
  // storage); a leak shows as growth after that, so the baseline is taken once every path has run.
  const long rss_base_frame = rss_base ? Args::to_int("rss-baseline-frame", *rss_base, 0, 100000000) : 60;
  if (cli::dry_run()) return 0;

  App app;
  // The session: restored from --session FILE or the XDG file, saved there on exit. Scripted test runs
  // (--frames) without --session leave the user's session alone.
  app.set_autosave_path(session_opt ? *session_opt : max_frames >= 0 ? std::string() : default_session_path());
  bool restored = false;
  if (!app.autosave_path().empty() && std::filesystem::exists(app.autosave_path())) {
    try {
      load_session(app, app.autosave_path());
      restored = true;
    } catch (const SessionError& e) {
      app.block_autosave();
      const std::string msg = std::string("Could not restore the last session: ") + e.what() +
                              ". GELU Lab started with the defaults. The file was left as it was and will not be "
                              "overwritten on exit (File › Save session as… saves this session elsewhere).";
      app.show_message(msg, true);
      std::fprintf(stderr, "gelulab gui: %s\n", msg.c_str());
    }
  }
  apply_view_options(app, ViewOptions{lesson_opt, step_opt, panel, state, presentation_opt});
  Script script;
  if (script_path) {
    std::ifstream f(*script_path);
    if (!f) throw UsageError("--script: cannot read '" + *script_path + "'");
    std::stringstream ss;
    ss << f.rdbuf();
    try {
      script = Script::parse(ss.str());
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("--script: ") + e.what());
    }
  }

  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland)) {
    std::fprintf(stderr,
                 "gelulab: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop app cannot open.\n"
                 "Everything also works from the command line: 'gelulab --help' lists the subcommands,\n"
                 "and 'gelulab shot --panel curves --out curves.png' renders a panel without a display.\n");
    return 2;
  }
  glfwSetErrorCallback([](int code, const char* msg) { std::fprintf(stderr, "gelulab gui: GLFW error %d: %s\n", code, msg); });
  if (!glfwInit()) {
    std::fprintf(stderr, "gelulab: cannot connect to the display; use the command line instead ('gelulab --help').\n");
    return 2;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  WindowGeometry& geom = app.window_geometry();
  const bool restore_geometry = restored && !size_opt;
  GLFWwindow* window = glfwCreateWindow(restore_geometry ? geom.width : size.first,
                                        restore_geometry ? geom.height : size.second, "GELU Lab", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "gelulab: cannot create an OpenGL 4.3 core window; use the command line instead "
                         "('gelulab --help').\n");
    glfwTerminate();
    return 2;
  }
  glfwMakeContextCurrent(window);
  if (restore_geometry) glfwSetWindowPos(window, geom.x, geom.y);
  const bool start_fullscreen = restore_geometry && geom.fullscreen;
  geom.fullscreen = false;
  glfwGetWindowPos(window, &geom.x, &geom.y);
  glfwGetWindowSize(window, &geom.width, &geom.height);
  if (start_fullscreen) toggle_fullscreen(window, geom);
  glfwSwapInterval(report ? 0 : 1);  // vsync, except when measuring frame time

  // Our callbacks first: the ImGui backend chains to them (install_callbacks = true).
  glfwSetCursorPosCallback(window, cursor_cb);
  glfwSetMouseButtonCallback(window, button_cb);
  glfwSetScrollCallback(window, scroll_cb);
  glfwSetKeyCallback(window, key_cb);
  glfwSetCharCallback(window, char_cb);
  glfwSetFramebufferSizeCallback(window, size_cb);
  glfwSetWindowContentScaleCallback(window, scale_cb);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  float sx = 1, sy = 1;
  glfwGetWindowContentScale(window, &sx, &sy);
  app.setup_fonts_and_style(std::max(sx, sy));
  app.take_fonts_dirty();  // the atlas above already has the presentation size
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 430 core");

  std::vector<double> cpu_ms, ui_ms, total_ms;
  long frame = 0, gl_errors = 0, rss_start = 0;
  bool script_running = script.size() > 0;
  int status = 0;
  while (!glfwWindowShouldClose(window) && !app.quit_requested()) {
    if (max_frames >= 0 && frame >= max_frames) break;
    // Idle throttling: sleep until an event (or 0.5 s) unless something moves.
    const bool busy = g_events.recent > 0 || app.animating() || script_running || max_frames >= 0 ||
                      ImGui::IsAnyMouseDown();
    if (busy) {
      glfwPollEvents();
    } else {
      glfwWaitEventsTimeout(0.5);
    }
    if (g_events.recent > 0) --g_events.recent;
    if (app.take_fullscreen_request()) toggle_fullscreen(window, geom);
    if (!geom.fullscreen) {
      glfwGetWindowPos(window, &geom.x, &geom.y);
      glfwGetWindowSize(window, &geom.width, &geom.height);
    }
    // Presentation mode changes rebuild the font atlas at the new pixel size and re-upload its texture.
    if (app.take_fonts_dirty()) g_events.rescale = true;
    if (g_events.rescale) {
      g_events.rescale = false;
      glfwGetWindowContentScale(window, &sx, &sy);
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      app.setup_fonts_and_style(std::max(sx, sy));
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    const auto t0 = std::chrono::steady_clock::now();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (script_running) {
      try {
        script_running = script.step(app, io);
      } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "gelulab gui: %s\n", e.what());
        status = 1;
        break;
      }
    }
    const auto tu0 = std::chrono::steady_clock::now();
    ImGui::NewFrame();
    app.frame();
    ImGui::Render();
    const auto tu1 = std::chrono::steady_clock::now();
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    glClearColor(0.965f, 0.965f, 0.97f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    const auto t1 = std::chrono::steady_clock::now();
    if (report) glFinish();
    const auto t2 = std::chrono::steady_clock::now();
    if (app.take_png_request()) {
      std::string err;
      const std::string path = app.png_path();
      glReadBuffer(GL_BACK);
      const bool ok = write_framebuffer_png(path, fw, fh, &err);
      app.set_status(ok ? "saved " + path : err);
      if (ok) app.png_saved();
    }
    ImVec2 plot_min, plot_max;
    std::string plot_path;
    if (app.take_plot_png_request(&plot_min, &plot_max, &plot_path)) {
      std::string err;
      const ImVec2 fs = io.DisplayFramebufferScale;
      glReadBuffer(GL_BACK);
      const bool ok = write_framebuffer_region_png(plot_path, fh, ImVec2(plot_min.x * fs.x, plot_min.y * fs.y),
                                                   ImVec2(plot_max.x * fs.x, plot_max.y * fs.y), &err);
      app.set_status(ok ? "saved " + plot_path : err);
      if (ok) app.png_saved();
    }
    for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError()) {
      ++gl_errors;
      std::fprintf(stderr, "gelulab gui: GL error 0x%04x at frame %ld\n", e, frame);
    }
    if (save_png && max_frames >= 0 && frame + 1 == max_frames) {
      std::string err;
      glReadBuffer(GL_BACK);
      if (!write_framebuffer_png(*save_png, fw, fh, &err)) {
        std::fprintf(stderr, "gelulab gui: %s\n", err.c_str());
        status = 1;
      }
    }
    glfwSwapBuffers(window);
    if (frame >= 30) {  // after warm-up (font atlas, first layouts)
      cpu_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      ui_ms.push_back(std::chrono::duration<double, std::milli>(tu1 - tu0).count());
      total_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
    }
    if (frame == rss_base_frame) rss_start = rss_kb();
    ++frame;
  }
  const long rss_end = rss_kb();
  if (app.autosave_allowed()) {
    try {
      save_session(app, app.autosave_path());
    } catch (const SessionError& e) {
      std::fprintf(stderr, "gelulab gui: the session was not saved: %s\n", e.what());
    }
  } else if (!app.autosave_path().empty()) {
    std::fprintf(stderr, "gelulab gui: the session was not saved: %s was left as it was\n",
                 app.autosave_path().c_str());
  }

#ifdef GELU_HAVE_GPU
  gpu_release();
#endif
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();

  if (report && !cpu_ms.empty()) {
    std::printf("frames measured: %zu (after 30 warm-up), %dx%d, panel %s\n", cpu_ms.size(), size.first, size.second,
                app.active().id());
    std::printf("UI (panels, sampling, draw lists: NewFrame..Render): median %.2f ms, p95 %.2f ms\n",
                percentile(ui_ms, 0.5), percentile(ui_ms, 0.95));
    std::printf("CPU per frame (UI + GL submit): median %.2f ms, p95 %.2f ms, max %.2f ms\n",
                percentile(cpu_ms, 0.5), percentile(cpu_ms, 0.95), percentile(cpu_ms, 1.0));
    std::printf("including glFinish (llvmpipe rasterizes on the CPU): median %.2f ms, p95 %.2f ms\n",
                percentile(total_ms, 0.5), percentile(total_ms, 0.95));
  }
  if (max_frames >= 0 || script_path) {
    std::printf("frames=%ld gl_errors=%ld rss_start_kb=%ld rss_end_kb=%ld rss_growth_kb=%ld\n", frame, gl_errors,
                rss_start, rss_end, rss_start ? rss_end - rss_start : 0);
    if (gl_errors) status = 1;
    if (rss_limit_kb >= 0 && rss_start && rss_end - rss_start > rss_limit_kb) {
      std::fprintf(stderr, "gelulab gui: RSS grew by %ld KiB (> %ld)\n", rss_end - rss_start, rss_limit_kb);
      status = 1;
    }
    if (script_running) {
      std::fprintf(stderr, "gelulab gui: the script did not finish within %ld frames\n", frame);
      status = 1;
    }
  }
  return status;
}

}  // namespace

GELU_CLI_COMMAND(gui, "gui", "open the desktop app (the default with no subcommand)",
                 "usage: gelulab gui [--panel ID] [--state FILE] [--size WxH] [--session FILE]\n"
                 "                   [--presentation SCALE] [--lesson FILE [--step N]]\n\n"
                 "Opens the GELU Lab window (OpenGL 4.3, Dear ImGui). Needs a display; without one it says so\n"
                 "and exits with status 2 (everything also works from the CLI; see 'gelulab shot').\n"
                 "  --panel ID     start on this panel\n"
                 "  --state FILE   a JSON panel state, as for 'gelulab shot'\n"
                 "  --size WxH     initial window size in screen coordinates (default 1280x800)\n"
                 "  --session FILE restore the session from FILE and save it there on exit (default:\n"
                 "                 $XDG_CONFIG_HOME/gelulab/session.json, i.e. ~/.config/gelulab/session.json)\n"
                 "  --presentation SCALE  start in presentation mode with text SCALE times larger (1 to 3)\n"
                 "  --lesson FILE  start a lesson (assets/lessons/*.json) at step N (default 1)\n"
                 "Keys: F1 lists them all. F5 presentation mode, F11 fullscreen, Left/Right lesson steps,\n"
                 "F12 or Ctrl+S a PNG of the window, Shift+F12 of the plot, Ctrl+E a CSV of the plot,\n"
                 "Ctrl+1..9 switch panels, Ctrl+Q quits.\n",
                 run_gui);

}  // namespace gelu::app

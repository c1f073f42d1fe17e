// gelulab gui: the desktop window (GLFW + OpenGL 4.3 core + Dear ImGui 1.86). `gelulab` with no
// arguments runs this. Hidden options drive it from tests: --frames, --script, --report-frame-time.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <epoxy/gl.h>
#include <imgui.h>
#include <malloc.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "app.hpp"
#include "cli.hpp"
#include "export.hpp"
#include "gelu/fileio.hpp"
#include "gl_capture.hpp"
#include "script.hpp"
#include "session.hpp"
#include "state_file.hpp"
#ifdef GELU_HAVE_GPU
#include "gpu_compare.hpp"
#include "offscreen.hpp"
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

// Resident set size after returning the allocator's free pages to the OS (malloc_trim), so the figure
// tracks live memory (a leak) rather than glibc's caching of freed blocks.
long rss_kb() {
  malloc_trim(0);
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4;  // 4 KiB pages on x86-64 Linux
}

// Bytes the program holds from malloc (all arenas, mmapped blocks included), in KiB: live data, without the
// allocator's free lists. Beside RSS it tells a growing data structure from allocator or driver memory.
long heap_in_use_kb() {
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<long>((mi.uordblks + mi.hblkhd) / 1024);
}

struct MemSample {
  long frame = 0, rss_kb = 0, heap_kb = 0;
};

// A record of at most `capacity` values whose storage is allocated and written (so resident) up front: the
// soak's own bookkeeping must not show up as RSS growth during the run.
template <class T>
struct Record {
  std::vector<T> v;
  std::size_t n = 0;
  void allocate(std::size_t capacity) { v.assign(capacity, T{}); }
  void add(const T& x) {
    if (n < v.size()) v[n++] = x;
  }
  std::size_t size() const { return n; }
  bool empty() const { return n == 0; }
  const T* begin() const { return v.data(); }
  const T* end() const { return v.data() + n; }
  std::vector<T> values() const { return std::vector<T>(begin(), end()); }
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

// [SECTION] Signals: SIGTERM, SIGINT and SIGHUP end the frame loop; the session is then saved as on a normal
// quit. The handler only sets a flag, so a signal that arrives while a file is being written lets the write
// finish (write_file_atomic), and the previous file is never left half-written.
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void on_stop_signal(int sig) {
  g_stop_signal = sig;
}

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
}

const char* signal_name(int sig) {
  return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

// [SECTION] KHR_debug: in test runs (--frames) every GL message of the render context is counted; errors
// fail the run. A marker inserted at start-up proves the channel works (else the check would pass vacuously).
struct GlDebug {
  long errors = 0, messages = 0;
  bool self_test = false;
};
GlDebug g_gl_debug;
constexpr GLuint kDebugSelfTestId = 0x6e1u;

void GLAPIENTRY on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                            const GLchar* message, const void*) {
  if (source == GL_DEBUG_SOURCE_APPLICATION && id == kDebugSelfTestId) {
    g_gl_debug.self_test = true;
    return;
  }
  ++g_gl_debug.messages;
  const bool error = type == GL_DEBUG_TYPE_ERROR || type == GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR ||
                     severity == GL_DEBUG_SEVERITY_HIGH;
  if (error) ++g_gl_debug.errors;
  if (error && g_gl_debug.errors <= 20)
    std::fprintf(stderr, "gelulab gui: GL debug error (type 0x%04x, id %u): %.*s\n", type, id,
                 length < 0 ? static_cast<int>(std::strlen(message)) : static_cast<int>(length), message);
}

bool enable_gl_debug() {
  if (epoxy_gl_version() < 43 && !epoxy_has_gl_extension("GL_KHR_debug")) return false;
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(on_gl_debug, nullptr);
  glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
  glDebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_MARKER, kDebugSelfTestId,
                       GL_DEBUG_SEVERITY_NOTIFICATION, -1, "gelulab: KHR_debug self-test");
  return g_gl_debug.self_test;
}

// [SECTION] Hosts: where frames go. The window (GLFW, a display) or headless (EGL surfaceless or the EGL
// device, into a framebuffer object): the same App, script, session handling and checks run on both.
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
    return host;
  }
  ~WindowHost() override {
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

#ifdef GELU_HAVE_GPU
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
#endif

// [SECTION] Frame-time windows: the median and p95 of every `kWindow` frames, so a 100,000-frame soak keeps
// a few hundred numbers (no growth that would look like a leak) and a drift in frame time shows.
struct FrameWindows {
  static constexpr std::size_t kWindow = 1000;
  std::vector<double> current;
  json::Array windows;
  std::vector<double> medians;
  long first_frame = 0;
  void reserve_for(long frames) {  // up front, so that the record does not grow during a soak
    const auto n = static_cast<std::size_t>(std::min<long>(frames, 100000000) / kWindow + 2);
    windows.reserve(n);
    medians.reserve(n);
  }
  void add(long frame, double ms) {
    if (current.empty()) {
      current.reserve(kWindow);
      first_frame = frame;
    }
    current.push_back(ms);
    if (current.size() == kWindow) flush();
  }
  void flush() {
    if (current.empty()) return;
    const double med = percentile(current, 0.5), p95 = percentile(current, 0.95);
    json::Object w;
    w["from_frame"] = static_cast<double>(first_frame);
    w["frames"] = static_cast<double>(current.size());
    w["median_ms"] = med;
    w["p95_ms"] = p95;
    windows.emplace_back(std::move(w));
    if (current.size() == kWindow) medians.push_back(med);
    current.clear();
  }
};

int run_gui(Args& args) {
  const auto size_opt = args.option("size");
  const auto size = parse_window_size(size_opt);
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
  const bool headless = args.flag("headless");
  const auto report_path = args.option("report");
  const auto drift_opt = args.option("max-frame-time-growth");
  const bool script_loop = args.flag("script-loop");
  args.finish();
  const long max_frames = frames_opt ? Args::to_int("frames", *frames_opt, 1, 100000000) : -1;
  const long rss_limit_kb = rss_limit ? Args::to_int("max-rss-growth-kb", *rss_limit, 0, 1 << 30) : -1;
  // The first use of each code path allocates for good (Mesa shader variants, ImGui window and table
  // storage); a leak shows as growth after that, so the baseline is taken once every path has run.
  const long rss_base_frame = rss_base ? Args::to_int("rss-baseline-frame", *rss_base, 0, 100000000) : 60;
  double max_drift = -1;
  if (drift_opt) {
    max_drift = Args::to_double("max-frame-time-growth", *drift_opt);
    if (!(max_drift >= 1 && max_drift <= 100))
      throw UsageError("--max-frame-time-growth: " + quote(*drift_opt) + " is not a ratio in [1, 100]");
  }

  App app;  // no GL, no ImGui context: the validate-only mode (cli::dry_run) checks the view options and
            // script
  // The session: restored from --session FILE or the XDG file, saved there on exit. Scripted test runs
  // (--frames) without --session leave the user's session alone; so does the validate-only mode.
  app.set_autosave_path(cli::dry_run()    ? std::string()
                        : session_opt     ? *session_opt
                        : max_frames >= 0 ? std::string()
                                          : default_session_path());
  bool restored = false;
  if (!app.autosave_path().empty() && std::filesystem::exists(app.autosave_path())) {
    try {
      load_session(app, app.autosave_path());
      restored = true;
    } catch (const SessionError& e) {
      app.block_autosave();
      const std::string msg =
          std::string("Could not restore the last session: ") + e.what() +
          ". GELU Lab started with the defaults. The file was left as it was and will not be "
          "overwritten on exit (File > Save session as… saves this session elsewhere).";
      app.show_message(msg, true);
      std::fprintf(stderr, "gelulab gui: %s\n", msg.c_str());
    }
  }
  if (app.autosave_allowed()) {
    if (const auto why = why_not_writable(app.autosave_path())) {
      const std::string msg = "This session cannot be saved on exit to " + app.autosave_path() + " (" + *why +
                              "). File > Save session as… saves it elsewhere.";
      app.show_message(msg, true);
      std::fprintf(stderr, "gelulab gui: %s\n", msg.c_str());
    }
  }
  apply_view_options(app, ViewOptions{lesson_opt, step_opt, panel, state, presentation_opt});
  Script script;
  if (script_path) {
    try {
      script = Script::parse(read_file(*script_path, kMaxJsonFileBytes));
    } catch (const std::runtime_error& e) {  // FileError or a script error
      throw UsageError(std::string("--script: ") + e.what());
    }
  }
  if (cli::dry_run()) return 0;

  std::unique_ptr<Host> host;
  if (headless) {
#ifdef GELU_HAVE_GPU
    host = HeadlessHost::create(size);
#else
    std::fprintf(stderr,
                 "gelulab gui: --headless needs the GPU backend (EGL), which this build does not have\n");
#endif
    if (!host) return 2;
  } else {
    const char* display = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if ((!display || !*display) && (!wayland || !*wayland)) {
      std::fprintf(stderr,
                   "gelulab: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop app "
                   "cannot open.\n"
                   "Everything also works from the command line: 'gelulab --help' lists the subcommands,\n"
                   "and 'gelulab shot --panel curves --out curves.png' renders a panel without a display.\n");
      return 2;
    }
    host = WindowHost::create(app, size, restored && !size_opt, /*vsync=*/!report);
    if (!host) return 2;
  }
  const bool test_run = max_frames >= 0 || script_path;
  const bool gl_debug = test_run && enable_gl_debug();
  if (test_run && !gl_debug)
    std::fprintf(
        stderr,
        "gelulab gui: KHR_debug output is not available; GL errors are checked with glGetError only\n");
  install_stop_signals();

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  app.setup_fonts_and_style(host->content_scale());
  app.take_fonts_dirty();  // the atlas above already has the presentation size
  host->init_imgui();

  Record<double> cpu_ms, ui_ms, total_ms;
  if (report && max_frames > 0) {
    const auto n = static_cast<std::size_t>(std::min<long>(max_frames, 1000000));
    cpu_ms.allocate(n);
    ui_ms.allocate(n);
    total_ms.allocate(n);
  }
  FrameWindows windows;
  if (test_run && max_frames > 0) windows.reserve_for(max_frames);
  // RSS (and the heap in use) is sampled every kRssEvery frames into a Record allocated now.
  // Worker threads allocate and free benchmark arrays and GL contexts, so single samples swing by tens of
  // MiB; a leak raises the floor. Growth = the lowest sample of the last stretch minus the lowest of the
  // first stretch after the baseline frame (stretches of up to 1000 frames).
  constexpr long kRssEvery = 10;
  Record<MemSample> rss_samples;
  if (test_run)
    rss_samples.allocate(
        static_cast<std::size_t>(std::min<long>(max_frames > 0 ? max_frames : 0, 10000000) / kRssEvery + 2));
  long frame = 0, gl_errors = 0;
  bool script_running = script.size() > 0;
  int status = 0;
  const auto run_t0 = std::chrono::steady_clock::now();
  while (!host->should_close() && !app.quit_requested() && !g_stop_signal) {
    if (max_frames >= 0 && frame >= max_frames) break;
    const bool busy = app.animating() || script_running || max_frames >= 0 || ImGui::IsAnyMouseDown();
    host->poll(app, busy);
    if (g_stop_signal) break;
    // Presentation mode changes rebuild the font atlas at the new pixel size and re-upload its texture.
    if (app.take_fonts_dirty() || host->take_rescale()) {
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      app.setup_fonts_and_style(host->content_scale());
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    const auto t0 = std::chrono::steady_clock::now();
    host->new_frame(io);
    if (script_running) {
      try {
        script_running = script.step(app, io);
        if (!script_running && script_loop) {
          script.restart();
          script_running = true;
        }
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
    const auto [fw, fh] = host->begin_render();
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
      host->select_read_buffer();
      const bool ok = write_framebuffer_png(path, fw, fh, &err);
      app.set_status(ok ? "saved " + path : err);
      if (ok) app.png_saved();
    }
    ImVec2 plot_min, plot_max;
    std::string plot_path;
    if (app.take_plot_png_request(&plot_min, &plot_max, &plot_path)) {
      std::string err;
      const ImVec2 fs = io.DisplayFramebufferScale;
      host->select_read_buffer();
      const bool ok =
          write_framebuffer_region_png(plot_path, fh, ImVec2(plot_min.x * fs.x, plot_min.y * fs.y),
                                       ImVec2(plot_max.x * fs.x, plot_max.y * fs.y), &err);
      app.set_status(ok ? "saved " + plot_path : err);
      if (ok) app.png_saved();
    }
    for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError()) {
      ++gl_errors;
      if (gl_errors <= 20) std::fprintf(stderr, "gelulab gui: GL error 0x%04x at frame %ld\n", e, frame);
    }
    if (save_png && max_frames >= 0 && frame + 1 == max_frames) {
      std::string err;
      host->select_read_buffer();
      if (!write_framebuffer_png(*save_png, fw, fh, &err)) {
        std::fprintf(stderr, "gelulab gui: %s\n", err.c_str());
        status = 1;
      }
    }
    host->present();
    const auto t3 = std::chrono::steady_clock::now();
    if (frame >= 30) {  // after warm-up (font atlas, first layouts)
      if (report) {
        cpu_ms.add(std::chrono::duration<double, std::milli>(t1 - t0).count());
        ui_ms.add(std::chrono::duration<double, std::milli>(tu1 - tu0).count());
        total_ms.add(std::chrono::duration<double, std::milli>(t2 - t0).count());
      }
      if (test_run && frame >= rss_base_frame)
        windows.add(frame, std::chrono::duration<double, std::milli>(t3 - t0).count());
    }
    if (test_run && frame % kRssEvery == 0) rss_samples.add(MemSample{frame, rss_kb(), heap_in_use_kb()});
    ++frame;
  }
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_t0).count();
  const int stop_signal = g_stop_signal;
  if (stop_signal)
    std::fprintf(stderr, "gelulab gui: %s received after %ld frames: saving the session and quitting\n",
                 signal_name(stop_signal), frame);
  long rss_start = 0, rss_end = rss_kb(), heap_start = 0, heap_end = 0;
  {
    const long stretch = std::min<long>(1000, std::max<long>(kRssEvery, (frame - rss_base_frame) / 2));
    long lo_first = LONG_MAX, lo_last = LONG_MAX, heap_first = LONG_MAX, heap_last = LONG_MAX;
    for (const MemSample& m : rss_samples) {
      if (m.frame >= rss_base_frame && m.frame < rss_base_frame + stretch) {
        lo_first = std::min(lo_first, m.rss_kb);
        heap_first = std::min(heap_first, m.heap_kb);
      }
      if (m.frame >= frame - stretch && m.frame >= rss_base_frame + stretch) {
        lo_last = std::min(lo_last, m.rss_kb);
        heap_last = std::min(heap_last, m.heap_kb);
      }
    }
    if (lo_first != LONG_MAX) rss_start = lo_first;
    if (lo_last != LONG_MAX) rss_end = lo_last;
    if (heap_first != LONG_MAX && heap_last != LONG_MAX) {
      heap_start = heap_first;
      heap_end = heap_last;
    }
  }
  if (app.autosave_allowed()) {
    try {
      save_session(app, app.autosave_path());
    } catch (const SessionError& e) {
      std::fprintf(stderr, "gelulab gui: the session was not saved: %s\n", e.what());
      if (test_run) status = 1;
    }
  } else if (!app.autosave_path().empty()) {
    std::fprintf(stderr, "gelulab gui: the session was not saved: %s was left as it was\n",
                 app.autosave_path().c_str());
  }
  windows.flush();
  json::Object panels_meta;
  if (report_path)
    for (const auto& p : app.panels()) panels_meta[p->id()] = p->meta();

#ifdef GELU_HAVE_GPU
  gpu_release();
#endif
  host->shutdown_imgui();
  ImGui::DestroyContext();
  host.reset();

  if (report && !cpu_ms.empty()) {
    std::printf("frames measured: %zu (after 30 warm-up), %dx%d, panel %s\n", cpu_ms.size(), size.first,
                size.second, app.active().id());
    std::printf("UI (panels, sampling, draw lists: NewFrame..Render): median %.2f ms, p95 %.2f ms\n",
                percentile(ui_ms.values(), 0.5), percentile(ui_ms.values(), 0.95));
    std::printf("CPU per frame (UI + GL submit): median %.2f ms, p95 %.2f ms, max %.2f ms\n",
                percentile(cpu_ms.values(), 0.5), percentile(cpu_ms.values(), 0.95),
                percentile(cpu_ms.values(), 1.0));
    std::printf("including glFinish (llvmpipe rasterizes on the CPU): median %.2f ms, p95 %.2f ms\n",
                percentile(total_ms.values(), 0.5), percentile(total_ms.values(), 0.95));
  }
  if (test_run) {
    // Frame-time drift: the slowest of the last windows against the first full window after the baseline
    // (medians, so a one-off stall does not count).
    double drift = 0;
    if (windows.medians.size() >= 2) drift = windows.medians.back() / windows.medians.front();
    std::printf(
        "frames=%ld gl_errors=%ld gl_debug_errors=%ld gl_debug_messages=%ld gl_debug=%s rss_start_kb=%ld "
        "rss_end_kb=%ld rss_growth_kb=%ld heap_growth_kb=%ld frame_time_growth=%.2f seconds=%.1f\n",
        frame, gl_errors, g_gl_debug.errors, g_gl_debug.messages, gl_debug ? "on" : "off", rss_start, rss_end,
        rss_start ? rss_end - rss_start : 0, heap_end - heap_start, drift, run_s);
    if (gl_errors || g_gl_debug.errors) status = 1;
    if (rss_limit_kb >= 0 && rss_start && rss_end - rss_start > rss_limit_kb) {
      std::fprintf(stderr, "gelulab gui: RSS grew by %ld KiB (> %ld)\n", rss_end - rss_start, rss_limit_kb);
      status = 1;
    }
    if (max_drift > 0 && drift > max_drift) {
      std::fprintf(
          stderr,
          "gelulab gui: frame time grew %.2fx (median of the last %zu frames vs the first; > %.2fx)\n", drift,
          FrameWindows::kWindow, max_drift);
      status = 1;
    }
    if (script_running && !stop_signal && !script_loop) {
      std::fprintf(stderr, "gelulab gui: the script did not finish within %ld frames\n", frame);
      status = 1;
    }
    if (report_path) {
      json::Object r;
      r["frames"] = static_cast<double>(frame);
      r["seconds"] = run_s;
      r["size"] = json::Array{static_cast<double>(size.first), static_cast<double>(size.second)};
      r["host"] = headless ? "headless" : "window";
      r["gl_errors"] = static_cast<double>(gl_errors);
      json::Object dbg;
      dbg["enabled"] = gl_debug;
      dbg["errors"] = static_cast<double>(g_gl_debug.errors);
      dbg["messages"] = static_cast<double>(g_gl_debug.messages);
      r["gl_debug"] = std::move(dbg);
      r["rss_baseline_frame"] = static_cast<double>(rss_base_frame);
      r["rss_start_kb"] = static_cast<double>(rss_start);
      r["rss_end_kb"] = static_cast<double>(rss_end);
      r["rss_growth_kb"] = static_cast<double>(rss_start ? rss_end - rss_start : 0);
      r["heap_start_kb"] = static_cast<double>(heap_start);
      r["heap_end_kb"] = static_cast<double>(heap_end);
      r["heap_growth_kb"] = static_cast<double>(heap_end - heap_start);
      json::Array samples;
      for (const MemSample& m : rss_samples)
        samples.emplace_back(json::Array{static_cast<double>(m.frame), static_cast<double>(m.rss_kb),
                                         static_cast<double>(m.heap_kb)});
      r["rss_samples_frame_kb"] = std::move(samples);
      r["rss_samples_columns"] = json::Array{"frame", "rss_kb", "heap_in_use_kb"};
      r["frame_windows"] = std::move(windows.windows);
      r["frame_time_growth"] = drift;
      r["stop_signal"] = stop_signal ? json::Value(signal_name(stop_signal)) : json::Value();
      r["message"] = app.message();
      r["panels"] = std::move(panels_meta);
      r["status"] = status;
      try {
        write_file_atomic(*report_path, json::write(json::Value(std::move(r)), 2) + "\n");
      } catch (const FileError& e) {
        std::fprintf(stderr, "gelulab gui: --report: %s\n", e.what());
        status = 1;
      }
    }
  }
  return status;
}

}  // namespace

GELU_CLI_COMMAND(
    gui, "gui", "open the desktop app (the default with no subcommand)",
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
    "  --headless     no window: render into an offscreen framebuffer through EGL (no display\n"
    "                 needed); with --frames/--script for soak and fault tests\n"
    "Test and soak options: --frames N (stop after N frames), --script FILE (scripted input, see\n"
    "app/gui/script.hpp), --script-loop (run it again and again), --save-png FILE (the last\n"
    "frame), --report FILE (JSON: frame-time windows, RSS samples, GL errors, every panel's\n"
    "state), --max-rss-growth-kb K, --rss-baseline-frame N, --max-frame-time-growth R,\n"
    "--report-frame-time. With --frames or --script, GL errors (glGetError and KHR_debug)\n"
    "make the exit status 1.\n"
    "SIGTERM, SIGINT and SIGHUP save the session and quit, as Ctrl+Q does.\n"
    "Keys: F1 lists them all. F5 presentation mode, F11 fullscreen, Left/Right lesson steps,\n"
    "F12 or Ctrl+S a PNG of the window, Shift+F12 of the plot, Ctrl+E a CSV of the plot,\n"
    "Ctrl+1..9 switch panels, Ctrl+Q quits.\n",
    run_gui);

}  // namespace gelu::app

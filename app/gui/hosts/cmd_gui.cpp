// gelulab gui (and the bare `gelulab [options]`): the desktop app in a window (GLFW + OpenGL 4.3 core + Dear
// ImGui 1.86), or headless on EGL with --headless. Hidden options drive it from tests: --frames, --script,
// --report, --report-frame-time (gui/testing/soak.hpp).
//
// [SECTION] Signals
// [SECTION] Options and the session
// [SECTION] The frame loop
// [SECTION] The end of a run: session, report
//
// Index of this file:
//   [SECTION] Signals
//   [SECTION] Options and the session
//   [SECTION] The frame loop
//   [SECTION] The end of a run
#include <backends/imgui_impl_opengl3.h>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>

#include "gui/web/page.hpp"
#endif
#include <imgui.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

#include "command/command.hpp"
#include "gelu/fileio.hpp"
#include "gui/hosts/frame_draw.hpp"
#include "gui/hosts/host.hpp"
#include "gui/kit/damage.hpp"
#include "gui/kit/gl.hpp"
#include "gui/kit/gl_capture.hpp"
#include "gui/kit/ui.hpp"
#include "gui/panels/panel.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/export.hpp"
#include "gui/shell/session.hpp"
#include "gui/shell/state_file.hpp"
#include "gui/testing/monkey.hpp"
#include "gui/testing/script.hpp"
#include "gui/testing/soak.hpp"
#include "model/backends.hpp"
#include "model/ui_font.hpp"

namespace gelu::app {
namespace {

using command::Args;
using command::UsageError;
using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
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

// [SECTION] Options and the session
struct GuiOptions {
  std::optional<std::string> size_text, panel, state, script_path, save_png, session, presentation, lesson,
      step, report_path, monkey_script, monkey_tried;
  std::optional<std::uint64_t> monkey_seed;
  std::pair<int, int> size;
  bool headless = false, script_loop = false;
  testing::SoakLimits limits;

  static GuiOptions parse(Args& args) {
    GuiOptions o;
    o.size_text = args.option("size");
    o.size = parse_window_size(o.size_text);
    o.panel = args.option("panel");
    o.state = args.option("state");
    const auto frames = args.option("frames");
    o.script_path = args.option("script");
    o.save_png = args.option("save-png");
    const auto rss_limit = args.option("max-rss-growth-kb");
    const auto rss_base = args.option("rss-baseline-frame");
    o.limits.frame_time_summary = args.flag("report-frame-time");
    o.session = args.option("session");
    o.presentation = args.option("presentation");
    o.lesson = args.option("lesson");
    o.step = args.option("step");
    o.headless = args.flag("headless");
    o.report_path = args.option("report");
    const auto drift = args.option("max-frame-time-growth");
    o.script_loop = args.flag("script-loop");
    const auto monkey = args.option("monkey");
    o.monkey_script = args.option("monkey-script");
    o.monkey_tried = args.option("monkey-tried");
    args.finish();
    if (monkey) {
      o.monkey_seed = static_cast<std::uint64_t>(Args::to_int("monkey", *monkey, 0, 2147483647));
      if (o.script_path)
        throw UsageError("--monkey writes its own script: give --script or --monkey, not both");
      if (!frames) throw UsageError("--monkey needs --frames N (the monkey never finishes by itself)");
    } else if (o.monkey_script || o.monkey_tried) {
      throw UsageError(std::string(o.monkey_script
                                       ? "--monkey-script FILE is where --monkey SEED writes its actions"
                                       : "--monkey-tried FILE lists toggles --monkey SEED leaves for last") +
                       "; --monkey is missing");
    }
    // The output-path policy (command.hpp): --report, --save-png and --monkey-script before anything runs;
    // "-" is standard output where a stream makes sense; no two outputs on one file. (--session's own
    // problems are checked in prepare_app: the app still opens when it cannot be saved, with a banner.)
    command::check_outputs({{"report", &o.report_path},
                            {"save-png", &o.save_png, nullptr, true},
                            {"monkey-script", &o.monkey_script, "the script rewritten after every action"},
                            {"session", &o.session, "a session the app restores and saves", false, false}});
    o.limits.max_frames = frames ? static_cast<long>(Args::to_int("frames", *frames, 1, 100000000)) : -1;
    o.limits.max_rss_growth_kb =
        rss_limit ? static_cast<long>(Args::to_int("max-rss-growth-kb", *rss_limit, 0, 1 << 30)) : -1;
    // The first use of each code path allocates for good (Mesa shader variants, ImGui window and table
    // storage); a leak shows as growth after that, so the baseline is taken once every path has run.
    o.limits.rss_baseline_frame =
        rss_base ? static_cast<long>(Args::to_int("rss-baseline-frame", *rss_base, 0, 100000000)) : 60;
    if (drift) {
      o.limits.max_frame_time_growth = Args::to_double("max-frame-time-growth", *drift);
      if (!(o.limits.max_frame_time_growth >= 1 && o.limits.max_frame_time_growth <= 100))
        throw UsageError("--max-frame-time-growth: " + quote(*drift) + " is not a ratio in [1, 100]");
    }
    return o;
  }
  bool test_run() const { return limits.max_frames >= 0 || script_path || monkey_seed; }
  /// The command line that replays a monkey's script (its file's first comment).
  std::string replay_command() const {
    std::string c = std::string("gelulab gui") + (headless ? " --headless" : "");
    const auto add = [&](const char* name, const std::optional<std::string>& v) {
      if (v) c += std::string(" --") + name + " " + quote(*v);
    };
    add("panel", panel);
    add("state", state);
    add("size", size_text);
    add("presentation", presentation);
    add("lesson", lesson);
    add("step", step);
    add("session", session);
    c += " --frames " + std::to_string(limits.max_frames) + " --script " +
         (monkey_script ? quote(*monkey_script) : std::string("FILE"));
    return c;
  }
};

/// What prepare_app decided about the session file.
struct SessionPlan {
  bool restored = false;          // a session was restored
  bool default_location = false;  // the autosave goes to the XDG location (its directories are made)
  std::string unsaved;            // why the session will not be saved on exit, when the environment says so
};

/// Restores the session (from --session FILE or the XDG file), says from the first frame when it cannot be
/// saved on exit (the variable that is wrong, the directory that is read-only) and applies the view options.
/// Scripted test runs (--frames) without --session leave the user's session alone; so does the
/// validate-only mode.
SessionPlan prepare_app(App& app, const GuiOptions& o) {
  SessionPlan plan;
  const auto banner = [&](const std::string& msg) {  // on screen from the first frame, and on stderr
    app.show_message(app.message().empty() ? msg : app.message() + "\n" + msg, true);
    std::fprintf(stderr, "gelulab gui: %s\n", printable(msg, 1000).c_str());
  };
  std::string path;
  std::string note;
  if (o.session) {
    path = *o.session;
  } else if (!command::dry_run() && o.limits.max_frames < 0) {
    const SessionLocation loc = default_session_location();
    path = loc.path;
    plan.default_location = true;
    plan.unsaved = loc.problem;
    note = loc.note;
  }
  if (command::dry_run()) path.clear();
  app.set_autosave_path(path);
  if (!app.autosave_path().empty() && std::filesystem::exists(app.autosave_path())) {
    try {
      load_session(app, app.autosave_path());
      plan.restored = true;
    } catch (const SessionError& e) {
      app.block_autosave();
      banner(std::string("Could not restore the last session: ") + e.what() +
             ". GELU Lab started with the defaults. The file was left as it was and will not be "
             "overwritten on exit (File > Save session as… saves this session elsewhere).");
    }
  }
  const char* elsewhere = ". File > Save session as… saves it to a file you name.";
  if (app.autosave_allowed()) {
    const auto dirs = plan.default_location ? MissingDirectories::Create : MissingDirectories::Refuse;
    if (const auto why = why_not_writable(app.autosave_path(), dirs)) {
      banner("This session cannot be saved on exit to " + app.autosave_path() + " (" + *why + ")" +
             elsewhere);
    } else if (!note.empty()) {
      banner(note + ".");
    }
  } else if (!plan.unsaved.empty()) {
    std::string msg = plan.unsaved + elsewhere;
    msg[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(msg[0])));
    banner(msg);
  }
  apply_view_options(app, ViewOptions{o.lesson, o.step, o.panel, o.state, o.presentation});
  return plan;
}

std::unique_ptr<Host> open_host(App& app, const GuiOptions& o, bool restored) {
  if (o.headless) return make_headless_host(o.size);
#ifdef __EMSCRIPTEN__
  return make_window_host(app, o.size, restored && !o.size_text, true);  // the page's canvas
#endif
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland)) {
    std::fprintf(stderr,
                 "gelulab: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop app "
                 "cannot open.\n"
                 "Everything also works from the command line: 'gelulab --help' lists the subcommands,\n"
                 "and 'gelulab shot --panel curves --out curves.png' renders a panel without a display.\n");
    return nullptr;
  }
  return make_window_host(app, o.size, restored && !o.size_text,
                          /*vsync=*/!o.limits.frame_time_summary);
}

// [SECTION] The frame loop
struct LoopResult {
  long frames = 0, gl_errors = 0;
  int status = 0;
  bool script_running = false;
  double seconds = 0;
};

/// Reads back the framebuffer for the PNG requests of this frame (F12, Shift+F12, --save-png).
void capture_requests(App& app, Host& host, const ImGuiIO& io, int fw, int fh, const GuiOptions& o,
                      long frame, int* status) {
  if (app.take_png_request()) {
    std::string err;
    const std::string path = app.png_path();
    host.select_read_buffer();
    const bool ok = write_framebuffer_png(path, fw, fh, &err);
    if (ok)
      app.note_saved(path);
    else
      app.set_status(err);
    if (ok) app.png_saved();
  }
  ImVec2 plot_min, plot_max;
  std::string plot_path;
  if (app.take_plot_png_request(&plot_min, &plot_max, &plot_path)) {
    std::string err;
    const ImVec2 fs = io.DisplayFramebufferScale;
    host.select_read_buffer();
    const bool ok = write_framebuffer_region_png(plot_path, fh, ImVec2(plot_min.x * fs.x, plot_min.y * fs.y),
                                                 ImVec2(plot_max.x * fs.x, plot_max.y * fs.y), &err);
    if (ok)
      app.note_saved(plot_path);
    else
      app.set_status(err);
    if (ok) app.png_saved();
  }
  if (o.save_png && o.limits.max_frames >= 0 && frame + 1 == o.limits.max_frames) {
    std::string err;
    host.select_read_buffer();
    if (!write_framebuffer_png(*o.save_png, fw, fh, &err)) {
      std::fprintf(stderr, "gelulab gui: %s\n", err.c_str());
      *status = 1;
    }
  }
}

/// What the frame loop carries from one frame to the next.
struct FrameLoop {
  App& app;
  Host& host;
  Script& script;
  testing::Monkey* monkey;
  const GuiOptions& o;
  testing::SoakMonitor& monitor;
  LoopResult r;
  Clock::time_point run_t0;
};

/// One frame; false when the loop ends (before drawing it).
bool frame_step(FrameLoop& L) {
  App& app = L.app;
  Host& host = L.host;
  const GuiOptions& o = L.o;
  LoopResult& r = L.r;
  ImGuiIO& io = ImGui::GetIO();
  const long max_frames = o.limits.max_frames;
  if (host.should_close() || app.quit_requested() || g_stop_signal) return false;
  if (max_frames >= 0 && r.frames >= max_frames) return false;
  const bool busy = app.animating() || r.script_running || max_frames >= 0 || ImGui::IsAnyMouseDown();
  host.poll(app, busy);
  if (g_stop_signal) return false;
#ifdef __EMSCRIPTEN__
  web::page_frame(app);  // the URL's fragment and File > Copy link
#endif
  // Presentation mode changes rebuild the font atlas at the new pixel size and re-upload its texture.
  if (app.take_fonts_dirty() || host.take_rescale()) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    app.setup_fonts_and_style(host.content_scale());
    ImGui_ImplOpenGL3_CreateFontsTexture();
    ui::note_texture_upload();  // the font atlas's pixels changed: the next frame is drawn whole
  }
  const auto t0 = Clock::now();
  host.new_frame(io);
  if (L.monkey) {
    try {
      L.monkey->step(app, io);
    } catch (const std::runtime_error& e) {  // its script file could not be written, or a bad action
      std::fprintf(stderr, "gelulab gui: --monkey: %s\n", e.what());
      r.status = 1;
      return false;
    }
  } else if (r.script_running) {
    try {
      r.script_running = L.script.step(app, io) && !L.script.done();  // done: its last command was `quit`
      if (!r.script_running && o.script_loop) {
        L.script.restart();
        r.script_running = true;
      }
    } catch (const std::runtime_error& e) {
      std::fprintf(stderr, "gelulab gui: %s\n", e.what());
      r.status = 1;
      return false;
    }
  }
  const auto tu0 = Clock::now();
  ImGui::NewFrame();
  app.frame();
  ImGui::Render();
  const auto tu1 = Clock::now();
  const auto [fw, fh] = host.begin_render();
#ifdef __EMSCRIPTEN__
  // The browser draws only what changed since the last frame (gui/kit/damage.hpp), unless the page asks for
  // whole frames (window.gelulab.whole_frames: the tests compare the two).
  static ui::DamageTracker damage;
  const bool whole = web::whole_frames();
  if (whole) damage.reset();
  const long drawn = draw_frame(ImGui::GetDrawData(), fw, fh, whole ? nullptr : &damage);
#else
  draw_frame(ImGui::GetDrawData(), fw, fh, nullptr);
#endif
  const auto t1 = Clock::now();
  if (o.limits.frame_time_summary) glFinish();
  const auto t2 = Clock::now();
  capture_requests(app, host, io, fw, fh, o, r.frames, &r.status);
#ifdef __EMSCRIPTEN__
  // In the browser glGetError waits for the GPU process to draw everything queued (a whole frame in software
  // WebGL): the error flags are read every 32nd frame, and whenever the page reports its layout
  // (gelu_web_report). A flag stays set until read, so no error goes unseen; the frame named is the check's.
  const bool check_gl = r.frames % 32 == 0;
#else
  const bool check_gl = true;
#endif
  for (GLenum e = check_gl ? glGetError() : GL_NO_ERROR; e != GL_NO_ERROR; e = glGetError()) {
    ++r.gl_errors;
    if (r.gl_errors <= 20) std::fprintf(stderr, "gelulab gui: GL error 0x%04x at frame %ld\n", e, r.frames);
  }
  host.present();
  const auto t3 = Clock::now();
  L.monitor.frame_done(r.frames, ms_between(t0, t1), ms_between(tu0, tu1), ms_between(t0, t2),
                       ms_between(t0, t3));
#ifdef __EMSCRIPTEN__
  web::page_frame_done(ms_between(t0, t3), ms_between(tu0, tu1),
                       static_cast<double>(drawn));  // the page's frame times (docs/performance.md)
#endif
  ++r.frames;
  return true;
}

LoopResult frame_loop(App& app, Host& host, Script& script, testing::Monkey* monkey, const GuiOptions& o,
                      testing::SoakMonitor& monitor) {
  FrameLoop L{app, host, script, monkey, o, monitor, {}, Clock::now()};
  L.r.script_running = script.size() > 0;
  while (frame_step(L)) {
  }
  L.r.seconds = std::chrono::duration<double>(Clock::now() - L.run_t0).count();
  return L.r;
}

#ifdef __EMSCRIPTEN__
/// The browser calls the page's frames (requestAnimationFrame): the loop's state lives on the heap for as
/// long as the page does, and this function does not return (emscripten unwinds to the browser's event loop).
[[noreturn]] void run_page_loop(App& app, Host& host, Script& script, testing::Monkey* monkey,
                                const GuiOptions& o, testing::SoakMonitor& monitor) {
  auto* L = new FrameLoop{app, host, script, monkey, o, monitor, {}, Clock::now()};
  L->r.script_running = script.size() > 0;
  emscripten_set_main_loop_arg(
      [](void* p) {
        if (!frame_step(*static_cast<FrameLoop*>(p))) emscripten_cancel_main_loop();
      },
      L, 0, true);
  std::abort();  // not reached: the call above never returns
}
#endif

// [SECTION] The end of a run: session, report
int run_gui(Args& args) {
  // On the heap: in the browser they outlive this function (run_page_loop).
  const auto options = std::make_unique<const GuiOptions>(GuiOptions::parse(args));
  const GuiOptions& o = *options;
  auto app_owner = std::make_unique<App>();
  App& app = *app_owner;  // no GL, no ImGui context: the validate-only mode (command::dry_run) checks the
                          // options and files
  const SessionPlan plan = prepare_app(app, o);
  const bool restored = plan.restored;
  auto script_owner = std::make_unique<Script>();
  Script& script = *script_owner;
  if (o.script_path) {
    try {
      script = Script::parse(read_file(*o.script_path, kMaxJsonFileBytes));
    } catch (const std::runtime_error& e) {  // FileError or a script error
      throw UsageError(std::string("--script: ") + e.what());
    }
  }
  if (command::dry_run()) return 0;
  // The environment is named when it is wrong: without its font the app would draw '?' for '4' and '−'.
  if (const std::string why = ui_font_problem(); !why.empty()) {
    std::fprintf(stderr, "gelulab gui: %s\n", why.c_str());
    return 2;
  }

  std::unique_ptr<Host> host = open_host(app, o, restored);
  if (!host) return 2;
  const bool test_run = o.test_run();
  const bool gl_debug = test_run && testing::enable_gl_debug();
  if (test_run && !gl_debug)
    std::fprintf(
        stderr,
        "gelulab gui: KHR_debug output is not available; GL errors are checked with glGetError only\n");
  install_stop_signals();

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  app.setup_fonts_and_style(host->content_scale());
  app.take_fonts_dirty();  // the atlas above already has the presentation size
  host->init_imgui();

  auto monitor_owner = std::make_unique<testing::SoakMonitor>(test_run, o.limits);
  testing::SoakMonitor& monitor = *monitor_owner;
  std::unique_ptr<testing::Monkey> monkey;
  if (o.monkey_seed) {
    try {
      monkey =
          std::make_unique<testing::Monkey>(*o.monkey_seed, o.monkey_script.value_or(""), o.replay_command());
    } catch (const FileError& e) {
      throw UsageError(std::string("--monkey-script: ") + e.what());
    }
    if (o.monkey_tried) {
      std::set<std::string> tried;
      std::string text;
      try {
        text = read_file(*o.monkey_tried, 1 << 22);
      } catch (const FileError& e) {
        throw UsageError(std::string("--monkey-tried: ") + e.what());
      }
      std::size_t at = 0;
      while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        if (end > at) tried.insert(text.substr(at, end - at));
        at = end + 1;
      }
      monkey->set_tried(std::move(tried));
    }
  }
#ifdef __EMSCRIPTEN__
  // The page: frames until the tab closes; the URL's fragment opens a view first.
  web::page_start(app);
  (void)app_owner.release();
  (void)script_owner.release();
  (void)monitor_owner.release();
  run_page_loop(app, *host.release(), script, monkey.release(), *new GuiOptions(o), monitor);
#endif
  LoopResult r = frame_loop(app, *host, script, monkey.get(), o, monitor);
  const int stop_signal = g_stop_signal;
  if (stop_signal)
    std::fprintf(stderr, "gelulab gui: %s received after %ld frames: %s\n", signal_name(stop_signal),
                 r.frames, app.autosave_allowed() ? "saving the session and quitting" : "quitting");
  monitor.finish(r.frames);
  if (app.autosave_allowed()) {
    try {
      save_session(app, app.autosave_path(),
                   plan.default_location ? MissingDirectories::Create : MissingDirectories::Refuse);
    } catch (const SessionError& e) {
      std::fprintf(stderr, "gelulab gui: the session was not saved: %s\n", e.what());
      if (test_run) r.status = 1;
    }
  } else if (!app.autosave_path().empty()) {
    std::fprintf(stderr, "gelulab gui: the session was not saved: %s was left as it was\n",
                 app.autosave_path().c_str());
  } else if (!plan.unsaved.empty()) {
    std::fprintf(stderr, "gelulab gui: the session was not saved: %s\n",
                 printable(plan.unsaved, 1000).c_str());
  }
  json::Object panels_meta, marks, plots_meta;
  json::Array plot_ids;
  if (o.report_path) {
    for (const auto& p : app.panels()) panels_meta[p->id()] = p->meta();
    // The last frame's named rectangles (the targets of --script) and its plots in drawing order (the ids
    // Ctrl+E and `shot --csv-plot` take), as `shot --meta` lists them.
    for (const auto& [name, rect] : ui::marks())
      marks[name] = json::Array{static_cast<double>(rect.min.x), static_cast<double>(rect.min.y),
                                static_cast<double>(rect.max.x), static_cast<double>(rect.max.y)};
    for (const ui::PlotRef& plot : ui::frame_plots()) {
      plot_ids.emplace_back(plot.id);
      plots_meta[plot.id] = plot_meta(*plot.state);
    }
  }

  gpu_release_current();
  host->shutdown_imgui();
  ImGui::DestroyContext();
  host.reset();

  monitor.print_frame_time_summary(o.size.first, o.size.second, app.active().id());
  if (!test_run) return r.status;
  if (!monitor.check(r.frames, r.gl_errors, gl_debug, r.seconds)) r.status = 1;
  if (r.script_running && !stop_signal && !o.script_loop) {
    std::fprintf(stderr, "gelulab gui: the script did not finish within %ld frames\n", r.frames);
    r.status = 1;
  }
  if (o.report_path) {
    json::Object rep = monitor.report(r.frames, r.gl_errors, gl_debug, r.seconds);
    rep["size"] = json::Array{static_cast<double>(o.size.first), static_cast<double>(o.size.second)};
    rep["host"] = o.headless ? "headless" : "window";
    rep["stop_signal"] = stop_signal ? json::Value(signal_name(stop_signal)) : json::Value();
    rep["message"] = app.message();
    rep["panels"] = std::move(panels_meta);
    rep["active_panel"] = app.active_id();
    rep["ui_marks"] = std::move(marks);
    rep["plot_ids"] = std::move(plot_ids);
    rep["plots"] = std::move(plots_meta);
    if (monkey) rep["monkey"] = monkey->report();
    rep["status"] = r.status;
    try {
      write_output(*o.report_path,  // "-": standard output
                   json::write(json::Value(std::move(rep)), 2, json::NonFinite::NullWithNote) + "\n");
    } catch (const FileError& e) {
      std::fprintf(stderr, "gelulab gui: --report: %s\n", e.what());
      r.status = 1;
    }
  }
  return r.status;
}

}  // namespace

GELU_COMMAND(
    gui, "gui", "open the desktop app (the default with no subcommand)",
    "usage: gelulab gui [--panel ID] [--state FILE] [--size WxH] [--session FILE]\n"
    "                   [--presentation SCALE] [--lesson FILE [--step N]]\n"
    "       gelulab [the same options]\n\n"
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
    "app/gui/testing/script.hpp), --script-loop (run it again and again), --save-png FILE (the last\n"
    "frame), --report FILE (JSON: frame-time windows, RSS samples, GL errors, every panel's\n"
    "state), --max-rss-growth-kb K, --rss-baseline-frame N, --max-frame-time-growth R,\n"
    "--report-frame-time, --monkey SEED (random clicks, drags, wheels and keys aimed at every\n"
    "widget drawn; needs --frames; see app/gui/testing/monkey.hpp), --monkey-script FILE (where\n"
    "the monkey writes what it did, as a script to replay), --monkey-tried FILE (toggles, one per line,\n"
    "that earlier runs clicked: this run goes for the others first). --report - and --save-png - (not to a\n"
    "terminal) write standard output. With --frames or --script, GL errors (glGetError "
    "and KHR_debug)\n"
    "make the exit status 1.\n"
    "SIGTERM, SIGINT and SIGHUP save the session and quit, as Ctrl+Q does.\n"
    "Keys: F1 lists them all. F5 presentation mode, F11 fullscreen, Left/Right lesson steps,\n"
    "F12 or Ctrl+S a PNG of the window, Shift+F12 of the plot, Ctrl+E a CSV of the plot,\n"
    "Ctrl+1..9 switch panels, Ctrl+Q quits.\n",
    run_gui);

}  // namespace gelu::app

// gelulab shot: renders one panel headless (EGL surfaceless on Mesa, the EGL device on NVIDIA) into a
// framebuffer object with ImGui's OpenGL3 backend and writes a PNG — the same frame the window shows.
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <utility>

#include "command/command.hpp"
#include "gui/hosts/offscreen.hpp"
#include "gui/kit/gl.hpp"
#include "gui/kit/gl_capture.hpp"
#include "gui/kit/ui.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/export.hpp"
#include "gui/shell/session.hpp"
#include "gui/shell/state_file.hpp"
#include "model/backends.hpp"
#include "model/claims.hpp"
#include "model/ui_font.hpp"

namespace gelu::app {
namespace {

using command::Args;
using command::UsageError;

int run_shot(Args& args) {
  const auto panel = args.option("panel");
  const auto size = parse_window_size(args.option("size"));
  const auto state = args.option("state");
  const auto out = args.option("out");
  const auto meta_path = args.option("meta");
  const auto scale_opt = args.option("scale");
  const auto session_opt = args.option("session");
  const auto session_out = args.option("session-out");
  const auto presentation_opt = args.option("presentation");
  const auto lesson_opt = args.option("lesson");
  const auto step_opt = args.option("step");
  const auto next_opt = args.option("next");
  const auto pick_opt = args.option("pick");
  const auto csv_opt = args.option("csv");
  const auto csv_plot = args.option("csv-plot");
  const auto plot_out = args.option("plot-out");
  args.finish();
  if (!panel && !session_opt && !lesson_opt)
    throw UsageError("--panel is required (" + model::panel_ids() +
                     ") unless --session or --lesson gives one");
  if (!out) throw UsageError("--out FILE.png is required");
  if (csv_plot && !csv_opt) throw UsageError("--csv-plot needs --csv FILE");
  if ((next_opt || pick_opt) && !lesson_opt) throw UsageError("--next and --pick need --lesson FILE");
  const int nexts = next_opt ? static_cast<int>(Args::to_int("next", *next_opt, 0, 100)) : 0;
  const int pick = pick_opt ? static_cast<int>(Args::to_int("pick", *pick_opt, 1, 4)) : 0;
  const double scale = scale_opt ? Args::to_double("scale", *scale_opt) : 1.0;
  if (!(scale >= 0.5 && scale <= 4)) throw UsageError("--scale must be in [0.5, 4]");
  // The output-path policy (command.hpp), before anything is read or rendered.
  // "-" is standard output (one of them; a PNG not to a terminal), and two outputs never share a file.
  command::check_outputs({{"out", &out, nullptr, true},
                          {"meta", &meta_path},
                          {"session-out", &session_out},
                          {"csv", &csv_opt},
                          {"plot-out", &plot_out, nullptr, true}});

  App app;  // no GL, no ImGui context: the validate-only mode (command::dry_run) checks the files and options
            // below
  if (session_opt) {
    try {
      load_session(app, *session_opt);
    } catch (const SessionError& e) {
      throw UsageError(std::string("--session: ") + e.what());
    }
  }
  apply_view_options(app, ViewOptions{lesson_opt, step_opt, panel, state, presentation_opt});
  if (const std::string e = app.active().shot_limit_error(); !e.empty()) {
    // The panel's state came from the last of these that was given (--state applies last).
    const std::string source = state         ? "--state " + printable(*state, 200)
                               : lesson_opt  ? "--lesson " + printable(*lesson_opt, 200)
                               : session_opt ? "--session " + printable(*session_opt, 200)
                                             : std::string("--panel");
    throw UsageError(source + ": " + e);
  }
  if (command::dry_run()) return 0;
  // The environment is named when it is wrong: without its font the app would draw '?' for '4' and '−'.
  if (const std::string why = ui_font_problem(); !why.empty()) {
    std::fprintf(stderr, "gelulab shot: %s\n", why.c_str());
    return 2;
  }
  // As the class would: pick a choice, press → (reveals the next series, the answer, then the next step).
  if (pick) app.pick_choice(pick - 1);
  for (int i = 0; i < nexts; ++i) app.lesson_next();
  // A still picture waits for what the step computes at run time (claims that measure, the answer).
  if (const Lesson* l = app.lesson()) {
    const LessonStep& st = l->steps[static_cast<std::size_t>(app.lesson_step())];
    for (const std::string& key : computed_text_keys(st.text))
      if (model::is_claim_key(key)) model::claim_text(key, true);
    if (st.view.question) model::quantity(st.view.question->answer, true);
  }
  if (session_out) {
    try {
      save_session(app, *session_out);
    } catch (const SessionError& e) {
      std::fprintf(stderr, "gelulab shot: --session-out: %s\n", e.what());
      return 2;
    }
  }
  if (csv_opt) app.request_csv(csv_plot.value_or(""), *csv_opt);

  std::string error;
  const auto screen = Offscreen::create(size, &error);
  if (!screen) {
    std::fprintf(stderr, "gelulab shot: %s\n", error.c_str());
    return 2;
  }
  const int w = size.first,
            h = size.second;  // not a structured binding: the render lambda captures them (clang)

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  app.setup_fonts_and_style(static_cast<float>(scale));
  if (!ImGui_ImplOpenGL3_Init("#version 430 core")) {
    std::fprintf(stderr, "gelulab shot: the ImGui OpenGL3 renderer failed to initialize\n");
    return 2;
  }
  app.active().settle_for_shot();
  const auto render = [&] {
    io.DeltaTime = 1.0f / 60.0f;
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover readouts in a still picture
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    app.frame();
    ImGui::Render();
    screen->bind();
    begin_frame_drawing(w, h);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  };
  // A few frames: ImGui sizes windows, tables and tabs from the previous frame's layout (and a panel other
  // than the first is on screen from the second frame); a CSV request then needs the active panel drawn once
  // to pick its plot and once more to capture it. The last frame is the picture (--out, --plot-out).
  constexpr int kFrames = 6, kMaxFrames = 18;
  int frames = 1;
  for (; frames < kFrames || (app.csv_pending() && frames < kMaxFrames); ++frames) render();
  if (plot_out) app.request_plot_png();
  render();
  glFinish();
  int status = 0;
  ImVec2 plot_min, plot_max;
  std::string plot_name;
  if (plot_out) {
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    if (!app.take_plot_png_request(&plot_min, &plot_max, &plot_name) ||
        !write_framebuffer_region_png(*plot_out, h, plot_min, plot_max, &error)) {
      std::fprintf(stderr, "gelulab shot: --plot-out: %s\n",
                   error.empty() ? "no plot on this panel" : error.c_str());
      status = 2;
    }
  }
  // The plots the last frame drew, in drawing order: what --csv-plot and scripts (plot:ID) accept, the first
  // one being the default, and what --meta lists.
  std::vector<std::string> plot_ids;
  for (const ui::PlotRef& r : ui::frame_plots()) plot_ids.push_back(r.id);
  // A plot without data yet: the app said so on stderr and wrote nothing; not a failure of the shot.
  if (csv_opt && app.last_csv().empty() && app.csv_no_data().empty()) {
    std::string ids;
    for (const std::string& id : plot_ids) ids += (ids.empty() ? "" : ", ") + id;
    const std::string panel_name = std::string("the ") + app.active().id() + " panel";
    if (plot_ids.empty()) {
      std::fprintf(stderr, "gelulab shot: --csv: %s drew no plot\n", panel_name.c_str());
    } else if (csv_plot && std::find(plot_ids.begin(), plot_ids.end(), *csv_plot) == plot_ids.end()) {
      std::fprintf(stderr, "gelulab shot: --csv-plot: no plot %s on %s (its plots: %s)\n",
                   quote(*csv_plot, 80).c_str(), panel_name.c_str(), ids.c_str());
    } else {
      std::fprintf(stderr, "gelulab shot: --csv: no CSV written: %s\n", printable(app.status(), 300).c_str());
    }
    status = 2;
  }
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  if (!write_framebuffer_png(*out, w, h, &error)) {
    std::fprintf(stderr, "gelulab shot: %s\n", error.c_str());
    status = 2;
  }
  GLenum gl_error = glGetError();
  if (gl_error != GL_NO_ERROR) {
    std::fprintf(stderr, "gelulab shot: GL error 0x%04x while rendering\n", gl_error);
    status = 2;
  }
  if (meta_path && status == 0) {
    json::Object m = app.active().meta();
    m["panel"] = app.active().id();
    json::Object plots;
    // What the class sees of each plot: the share of everything it drew (frame, ticks, legend, notes,
    // labels) inside the window and above the lesson bar (plot/slide.hpp).
    const plot::SlideFrame& slide = app.slide_frame();
    for (const ui::PlotRef& r : ui::frame_plots()) {
      json::Value pm = plot_meta(*r.state);
      const plot::Box e = plot_extent(*r.state);
      pm.as_object()["visible_fraction"] =
          plot::visible_fraction(e, plot::intersect(slide.room, slide.window));
      pm.as_object()["extent"] = json::Array{e.l, e.t, e.r, e.b};
      plots[r.id] = std::move(pm);
    }
    m["plots"] = std::move(plots);
    json::Array ids;
    for (const std::string& id : plot_ids) ids.emplace_back(id);
    m["plot_ids"] = std::move(ids);
    json::Object marks;  // every named rectangle of the last frame (the targets of gui --script)
    for (const auto& [name, r] : ui::marks())
      marks[name] = json::Array{static_cast<double>(r.min.x), static_cast<double>(r.min.y),
                                static_cast<double>(r.max.x), static_cast<double>(r.max.y)};
    m["ui_marks"] = std::move(marks);
    m["width"] = w;
    m["height"] = h;
    m["renderer"] = screen->renderer();
    m["formula_font"] = app.font_has_formula_glyphs();
    m["font_px"] = static_cast<double>(ImGui::GetFontSize());
    json::Object pres;
    pres["on"] = app.presentation().on;
    pres["scale"] = static_cast<double>(app.presentation().scale);
    m["presentation"] = pres;
    if (const Lesson* l = app.lesson()) {
      json::Object les;
      les["title"] = l->title;
      les["step"] = app.lesson_step() + 1;
      les["steps"] = static_cast<int>(l->steps.size());
      les["step_title"] = l->steps[static_cast<std::size_t>(app.lesson_step())].title;
      les["text"] = app.step_text();  // with the text computed at run time filled in
      const StepView& v = l->steps[static_cast<std::size_t>(app.lesson_step())].view;
      // The step's text below what the bar shows (0: all of it shows), in pixels and in lines.
      les["text_overflow_px"] = slide.text_overflow_px;
      les["text_lines"] = slide.text_lines;
      les["bar_lines"] = slide.bar_lines;
      les["bar_collapsed"] = app.bar_collapsed();
      les["revealed"] = app.revealed();  // series of the step's "reveal" shown so far
      les["reveal"] = static_cast<int>(v.reveal.size());
      if (v.question) {
        json::Object q;
        q["picked"] = app.picked_choice() + 1;  // 0: none
        q["answered"] = app.answered();
        if (app.answered()) q["answer"] = model::quantity(v.question->answer, true).value_or(NAN);
        les["question"] = q;
      }
      m["lesson"] = les;
    }
    auto rect = [](const char* name) {
      const auto it = ui::marks().find(name);
      if (it == ui::marks().end()) return json::Value();
      return json::Value(
          json::Array{static_cast<double>(it->second.min.x), static_cast<double>(it->second.min.y),
                      static_cast<double>(it->second.max.x), static_cast<double>(it->second.max.y)});
    };
    m["lesson_bar"] = rect("lesson_bar");
    m["panel_overflow_px"] = slide.panel_overflow_px;  // the panel's content below its room (it scrolls)
    json::Array problems;  // what does not fit the slide, in words (empty: it is one)
    for (const std::string& p : app.slide_problems()) problems.emplace_back(p);
    m["slide_problems"] = std::move(problems);
    m["message"] = app.message();
    if (plot_out) {
      m["plot_png_rect"] = json::Array{static_cast<double>(plot_min.x), static_cast<double>(plot_min.y),
                                       static_cast<double>(plot_max.x), static_cast<double>(plot_max.y)};
    }
    try {
      // Metadata records what was drawn, a diverged net's NaN loss included: null plus the "non_finite" note.
      write_output(*meta_path,  // "-": standard output
                   json::write(json::Value(std::move(m)), 2, json::NonFinite::NullWithNote) + "\n");
    } catch (const FileError& e) {
      std::fprintf(stderr, "gelulab shot: --meta: %s\n", e.what());
      status = 2;
    }
  }
  gpu_release_current();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
  return status;
}

}  // namespace

/// Every panel's state keys, from the field tables (model/panel_states.hpp).
std::string panel_states_help() {
  std::string out =
      "\nPanel states (--state FILE, lesson steps, sessions): a JSON object with any of these keys\n";
  for (const model::PanelKind& k : model::panel_kinds())
    out += "  " + std::string(k.id) + " (" + k.title + "):\n" + k.help();
  return out;
}

GELU_COMMAND(shot, "shot", "render a panel headless (no display) into a PNG",
             "usage: gelulab shot --panel ID --out FILE.png [--size WxH] [--state "
             "FILE]\n\n"
             "Renders the panel exactly as the window shows it, through EGL (no X), and writes a PNG.\n"
             "  --size WxH     picture size in pixels (default 1280x800)\n"
             "  --state FILE   JSON panel state: the keys of each panel are listed below\n"
             "  --scale S      UI scale (font size multiplier, default 1)\n"
             "  --presentation SCALE  presentation mode: projector theme, text SCALE (1 to 3) times larger\n"
             "  --session FILE restore a saved session first (the panel is the session's unless --panel)\n"
             "  --session-out FILE  write the session JSON (after --session/--state/--lesson) to FILE\n"
             "  --lesson FILE [--step N]  show step N (default 1) of a lesson, with its lesson bar\n"
             "  --pick K       choose answer K (1 to 4) of the step's question\n"
             "  --next N       press the right arrow N times: reveals the step's series one at a time,\n"
             "                 then its question's answer, then goes to the next step\n"
             "  --csv FILE [--csv-plot ID]  also write the visible series of a plot as CSV (default: the\n"
             "                 panel's first plot; the ids are those --meta lists under plot_ids)\n"
             "  --plot-out FILE  also write a PNG of the first plot alone\n"
             "  --meta FILE    also write the plots' geometry and drawn values as JSON (for tests)\n"
             "An output given as - goes to standard output (one of them; a PNG only when standard output is\n"
             "not a terminal); two outputs naming one file are refused before anything is drawn. shot needs\n"
             "the DejaVu Sans font files (fonts-dejavu-core; GELU_FONT_DIR names another directory).\n"
             "Every option works on every panel.\n",
             run_shot, panel_states_help);

}  // namespace gelu::app

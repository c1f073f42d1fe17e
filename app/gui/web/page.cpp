#include "gui/web/page.hpp"

#include <emscripten.h>
#include <imgui.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "gui/kit/gl.hpp"
#include "gui/kit/ui.hpp"
#include "gui/panels/panel.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/classroom.hpp"
#include "gui/shell/session.hpp"
#include "model/lessons.hpp"
#include "model/link.hpp"

namespace gelu::app::web {
namespace {

App* g_app = nullptr;
bool g_hash_changed = false;
std::string g_shown;  // the fragment the page shows, as this code last read or wrote it
long g_frame = 0;
std::string g_saved;  // the session as last written to the browser's storage

/// The session goes to the browser's storage when it changed (every 2nd second at most): the page has no
/// "on exit" (a tab is closed, not quit).
void keep_session(App& app) {
  if (!app.autosave_allowed() || app.autosave_path().empty()) return;
  std::string text;
  try {
    text = json::write(session_json(app));
  } catch (const std::exception&) {
    return;  // a non-finite number while a field is being edited: the next look saves it
  }
  if (text == g_saved) return;
  try {
    save_session(app, app.autosave_path(), MissingDirectories::Create);
    g_saved = std::move(text);
    EM_ASM({
      FS.syncfs(
          false, function(err) {
            if (err) console.warn('gelulab: the session was not stored: ' + err);
          });
    });
  } catch (const SessionError& e) {
    app.set_status(std::string("the session was not saved: ") + e.what());
    g_saved = std::move(text);  // said once, not every second
  }
}

std::string page_fragment() {
  std::string h = emscripten_run_script_string("window.location.hash");
  if (!h.empty() && h.front() == '#') h.erase(0, 1);
  return h;
}

/// A fresh panel's state, the link's baseline.
const json::Value& default_state(const std::string& id) {
  static std::map<std::string, json::Value> cache;
  auto it = cache.find(id);
  if (it == cache.end()) {
    const std::unique_ptr<Panel> p = make_panel(id);
    it = cache.emplace(id, p ? p->state() : json::Value()).first;
  }
  return it->second;
}

/// Whether `path` is a lesson of the site's lessons folder (a lesson link opens it); one the user opened
/// from their disk is not on the site: its link is the view of its step's panel.
bool on_site(const std::string& path) {
  const std::string folder = lessons_folder().path + "/";
  return path.compare(0, folder.size(), folder) == 0;
}

std::string view_fragment(App& app) {
  const double present = app.presentation().on ? app.presentation().scale : 0;
  if (const Lesson* l = app.lesson(); l && on_site(l->path))
    return model::with_presentation(model::lesson_link(l->path, app.lesson_step() + 1), present);
  const Panel& p = app.active();
  return model::with_presentation(model::panel_link(p.id(), p.state(), default_state(p.id())), present);
}

/// present=SCALE of a link, checked before the view changes.
void check_present(const model::Link& link) {
  if (link.present > 0 && !Presentation::valid_scale(link.present)) {
    char num[32];
    std::snprintf(num, sizeof num, "%g", link.present);
    throw model::LinkError(std::string("present=") + num +
                           " is not a text size of presentation mode (1 to 3)");
  }
}

void apply_present(App& app, const model::Link& link) {
  if (!(link.present > 0)) return;
  Presentation p = app.presentation();
  p.on = true;
  p.scale = static_cast<float>(link.present);
  app.set_presentation(p);
}

/// The view of `fragment`; nothing changes when it is not a link the app can open (the message says why).
void open_fragment(App& app, const std::string& fragment) {
  if (fragment.empty()) return;
  try {
    const model::Link link = model::parse_link(fragment);
    check_present(link);
    if (!link.lesson.empty()) {
      Lesson lesson = load_lesson(model::lesson_link_path(lessons_folder().path, link.lesson));
      if (link.step > static_cast<int>(lesson.steps.size()))
        throw model::LinkError("step=" + std::to_string(link.step) + ": the lesson has " +
                               std::to_string(lesson.steps.size()) + " steps");
      app.open_lesson(std::move(lesson), link.step - 1);
      app.apply_pending();
      apply_present(app, link);
    } else {
      // Checked on a fresh panel first, so that a bad field leaves the view as it was.
      const std::unique_ptr<Panel> probe = make_panel(link.panel);
      if (!probe)
        throw model::LinkError("panel=" + quote(link.panel) + " is not a panel (" + model::panel_ids() + ")");
      probe->load_state(json::Value(link.state));
      if (app.lesson()) app.close_lesson();
      app.select(link.panel);
      app.active().set_state(default_state(link.panel));
      app.active().load_state(json::Value(link.state));
      apply_present(app, link);
    }
  } catch (const std::exception& e) {  // LinkError, LessonError, json::JsonError
    std::string why = printable(e.what(), 300);
    for (char& c : why)
      if (c == '\n') c = ' ';
    app.show_message("This link does not open a view: " + why + ". GELU Lab shows its defaults instead.",
                     true);
  }
}

}  // namespace

void page_start(App& app) {
  g_app = &app;
  EM_ASM({
    window.addEventListener(
        'hashchange', function() { Module.ccall('gelu_web_hash_changed', null, [], []); });
  });
  EM_ASM({ gelulabPage.start(); });  // files from the user's disk, the wheel, touch (gui/web/page.js)
  g_shown = page_fragment();
  open_fragment(app, g_shown);
}

void page_frame(App& app) {
  if (g_hash_changed) {
    g_hash_changed = false;
    const std::string f = page_fragment();
    if (f != g_shown) {
      g_shown = f;
      open_fragment(app, f);
    }
  }
  EM_ASM(
      {
        if (window.gelulab) window.gelulab.frames = $0;
      },
      static_cast<int>(g_frame));
  if (app.take_open_file_request()) EM_ASM({ gelulabPage.chooseFile(); });
  // The fragment follows the view (every 10th frame: a panel's state is a few hundred bytes of JSON).
  const bool copy = app.take_copy_link_request();
  if (++g_frame % 10 == 0 || copy) {
    const std::string f = view_fragment(app);
    if (f != g_shown) {
      g_shown = f;
      // The fragment is percent-encoded: no quote or backslash can end the string literal early.
      emscripten_run_script(("history.replaceState(null, '', '#' + \"" + f + "\")").c_str());
    }
  }
  if (g_frame % 120 == 60) keep_session(app);
  // What the app saved goes to the user as a download (the file system here is the page's memory).
  for (const std::string& path : app.take_saved_files()) {
    EM_ASM(
        {
          const path = UTF8ToString($0);
          try {
            const data = FS.readFile(path);
            const a = document.createElement('a');
            a.href = URL.createObjectURL(new Blob([data]));
            a.download = path.split('/').pop();
            document.body.appendChild(a);
            a.click();
            a.remove();
            if (window.gelulab) (window.gelulab.downloads = window.gelulab.downloads || []).push(a.download);
          } catch (e) {
            console.warn('gelulab: ' + path + ' could not be offered as a download: ' + e);
          }
        },
        path.c_str());
  }
  if (copy) {
    EM_ASM({
      const url = window.location.href;
      const fallback = function() {
        const t = document.createElement('textarea');
        t.value = url;
        document.body.appendChild(t);
        t.select();
        try {
          document.execCommand('copy');
        } catch (e) {
        }
        t.remove();
      };
      if (navigator.clipboard && window.isSecureContext)
        navigator.clipboard.writeText(url).catch(fallback);
      else
        fallback();
      if (window.gelulab) window.gelulab.copied = url;
    });
    app.set_status("Copied the link to this view: " +
                   std::string(emscripten_run_script_string("window.location.href")));
  }
}

void page_frame_done(double work_ms, double ui_ms, double drawn_px) {
  EM_ASM(
      {
        const g = window.gelulab;
        if (!g) return;
        if (g.first_frame_ms == null)
          g.first_frame_ms = performance.now();  // "==": clang-format splits "==="
        const keep = function(name, v) {
          const a = g[name] = g[name] || [];
          a.push(v);
          if (a.length > 600) a.splice(0, a.length - 600);
        };
        keep('frame_ms', $0);
        keep('ui_ms', $1);
        keep('drawn_px', $2);
      },
      work_ms, ui_ms, drawn_px);
}

bool whole_frames() {
  return EM_ASM_INT({ return window.gelulab && window.gelulab.whole_frames ? 1 : 0; }) != 0;
}

}  // namespace gelu::app::web

/// The last frame's layout for the browser test, as `gelulab shot --meta` and `gui --report` give it on the
/// desktop: the active panel, the message, every panel's facts, the named rectangles and the plots.
extern "C" EMSCRIPTEN_KEEPALIVE const char* gelu_web_report() {
  using namespace gelu;
  static std::string out;
  app::App* a = app::web::g_app;
  if (!a) return "{}";
  // The frame loop reads the GL error flags every 32nd frame only (cmd_gui.cpp): a test asking for the layout
  // sees every error up to this frame.
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())
    std::fprintf(stderr, "gelulab gui: GL error 0x%04x (read by the layout report)\n", e);
  json::Object rep, panels, marks, plots;
  json::Array plot_ids;
  for (const auto& p : a->panels()) panels[p->id()] = p->meta();
  for (const auto& [name, rect] : app::ui::marks())
    if (app::ui::marked_last_frame(name) && rect.visible)  // not scrolled out of its window
      marks[name] = json::Array{static_cast<double>(rect.min.x), static_cast<double>(rect.min.y),
                                static_cast<double>(rect.max.x), static_cast<double>(rect.max.y)};
  for (const app::ui::PlotRef& plot : app::ui::frame_plots()) {
    plot_ids.emplace_back(plot.id);
    plots[plot.id] = app::plot_meta(*plot.state);
  }
  rep["active_panel"] = a->active_id();
  rep["message"] = a->message();
  rep["fragment"] = app::web::g_shown;
  json::Object present;
  present["on"] = a->presentation().on;
  present["scale"] = static_cast<double>(a->presentation().scale);
  rep["presentation"] = std::move(present);
  rep["lesson_step"] = a->lesson() ? json::Value(static_cast<double>(a->lesson_step() + 1)) : json::Value();
  // The slide check of the desktop (plot::slide_problems over the plots the frame drew; issue 52): empty
  // when the lesson step's plots are wholly on screen above the lesson bar, its text fits, nothing scrolls.
  json::Array slide;
  if (a->lesson())
    for (const std::string& p : a->slide_problems()) slide.emplace_back(p);
  rep["slide_problems"] = std::move(slide);
  // The layout matrix's text check: no two text boxes of the plots overlap.
  std::vector<std::pair<std::string, const plot::PlotState*>> drawn;
  for (const app::ui::PlotRef& r : app::ui::frame_plots()) drawn.emplace_back(r.id, r.state);
  json::Array overlaps;
  for (const std::string& o : app::text_overlaps(drawn)) overlaps.emplace_back(o);
  rep["text_overlaps"] = std::move(overlaps);
  // What the last frame gave the GPU (the browser's frame time is mostly its drawing: docs/performance.md).
  {
    const app::ui::DrawCost c = app::ui::draw_cost(ImGui::GetDrawData());
    json::Object draw;
    draw["vertices"] = c.vertices;
    draw["indices"] = c.indices;
    draw["commands"] = c.commands;
    draw["filled_px"] = c.filled_px;
    draw["largest_px"] = c.largest_px;
    rep["draw"] = std::move(draw);
  }
  rep["panels"] = std::move(panels);
  rep["ui_marks"] = std::move(marks);
  rep["plot_ids"] = std::move(plot_ids);
  rep["plots"] = std::move(plots);
  out = json::write(json::Value(std::move(rep)), 0, json::NonFinite::NullWithNote);
  return out.c_str();
}

extern "C" EMSCRIPTEN_KEEPALIVE void gelu_web_hash_changed() {
  gelu::app::web::g_hash_changed = true;
}

/// A file the user picked or dropped, copied into the page's file system by page.js (between two frames).
extern "C" EMSCRIPTEN_KEEPALIVE void gelu_web_open_file(const char* path, const char* name) {
  if (gelu::app::web::g_app && path && name) gelu::app::web::g_app->open_user_file(path, name);
}

/// A file the browser could not read (page.js): the message says which.
extern "C" EMSCRIPTEN_KEEPALIVE void gelu_web_open_failed(const char* name, const char* why) {
  if (!gelu::app::web::g_app || !name || !why) return;
  gelu::app::web::g_app->show_message(std::string("The browser could not read ") +
                                          gelu::printable(name, 200) + ": " + gelu::printable(why, 200) +
                                          ". Nothing was changed.",
                                      true);
}

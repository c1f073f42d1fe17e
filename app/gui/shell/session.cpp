// Sessions (see session.hpp).
#include "gui/shell/session.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gelu/numio.hpp"
#include "gui/shell/app.hpp"
#include "model/lessons.hpp"

namespace gelu::app {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& field, const std::string& what) {
  throw SessionError(name + ": " + (field.empty() ? "" : field + ": ") + what);
}

double number(const json::Value& obj, const std::string& name, const std::string& field, const char* key,
              double min, double max) {
  const json::Value* v = obj.find(key);
  if (!v) fail(name, field + "." + key, "missing");
  if (!v->is_number() || !(v->as_number() >= min && v->as_number() <= max))
    fail(name, field + "." + key, "must be a number in [" + format_f64(min) + ", " + format_f64(max) + "]");
  return v->as_number();
}

bool boolean(const json::Value& obj, const std::string& name, const std::string& field, const char* key) {
  const json::Value* v = obj.find(key);
  if (!v) fail(name, field + "." + key, "missing");
  if (!v->is_bool()) fail(name, field + "." + key, "must be true or false");
  return v->as_bool();
}

void only_keys(const json::Value& v, const std::string& name, const std::string& field,
               std::initializer_list<std::string_view> known) {
  if (!v.is_object()) fail(name, field, std::string("must be an object, not ") + v.type_name());
  for (const auto& [k, x] : v.as_object()) {
    bool ok = false;
    for (std::string_view n : known) ok = ok || k == n;
    if (!ok) fail(name, field.empty() ? printable(k) : field + "." + printable(k), "unknown key");
  }
}

}  // namespace

json::Value session_json(const App& app) {
  json::Object o;
  o["format"] = "gelulab-session";
  o["version"] = kSessionVersion;
  o["active_panel"] = app.active_id();
  json::Object panels;
  for (const auto& p : app.panels()) {
    json::Value s = p->state();
    if (!s.is_null()) panels[p->id()] = std::move(s);
  }
  o["panels"] = std::move(panels);
  json::Object pres;
  pres["on"] = app.presentation().on;
  pres["scale"] = static_cast<double>(app.presentation().scale);
  o["presentation"] = std::move(pres);
  json::Object view;  // View > UI scale and View > Theme
  view["ui_scale"] = static_cast<double>(app.ui_scale());
  view["theme"] = kThemeNames[static_cast<int>(app.theme())];
  o["view"] = std::move(view);
  const WindowGeometry g = app.window_geometry().clamped();  // never a size the reader would refuse
  json::Object win;
  win["x"] = g.x;
  win["y"] = g.y;
  win["width"] = g.width;
  win["height"] = g.height;
  win["fullscreen"] = g.fullscreen;
  o["window"] = std::move(win);
  if (const Lesson* l = app.lesson()) {
    json::Object les;
    // Absolute: the next start may be in another directory.
    les["file"] = fs::absolute(l->path).lexically_normal().string();
    les["step"] = app.lesson_step() + 1;
    o["lesson"] = std::move(les);
  } else {
    o["lesson"] = json::Value();
  }
  return o;
}

void apply_session(App& app, const json::Value& s, const std::string& name) {
  if (!s.is_object()) fail(name, "", "a session must be a JSON object");
  const json::Value* format = s.find("format");
  if (!format || !format->is_string() || format->as_string() != "gelulab-session")
    fail(name, "format", "must be \"gelulab-session\" (is this a GELU Lab session file?)");
  const json::Value* version = s.find("version");
  if (!version || !version->is_number() || version->as_number() != std::floor(version->as_number()) ||
      version->as_number() < 1)
    fail(name, "version", "must be a positive integer");
  if (version->as_number() > kSessionVersion)
    fail(name, "version",
         "this session was written by a newer GELU Lab (session version " + format_f64(version->as_number()) +
             "; this one reads up to version " + std::to_string(kSessionVersion) + "), so it was not loaded");
  only_keys(s, name, "",
            {"format", "version", "active_panel", "panels", "presentation", "view", "window", "lesson"});

  // Everything is checked and built aside; the app changes only when all of it is good.
  std::vector<std::unique_ptr<Panel>> panels = make_panels();
  if (const json::Value* ps = s.find("panels")) {
    if (!ps->is_object()) fail(name, "panels", "must be an object {panel id: state}");
    for (const auto& [id, state] : ps->as_object()) {
      Panel* target = nullptr;
      for (auto& p : panels)
        if (id == p->id()) target = p.get();
      if (!target) fail(name, "panels." + printable(id), "no such panel (" + model::panel_ids() + ")");
      try {
        target->restore_state(state);
      } catch (const json::JsonError& e) {
        fail(name, "panels." + printable(id), e.what());
      }
    }
  }
  std::string active = app.active_id();
  if (const json::Value* a = s.find("active_panel")) {
    if (!a->is_string()) fail(name, "active_panel", "must be a panel id");
    bool known = false;
    for (const auto& p : panels) known = known || a->as_string() == p->id();
    if (!known)
      fail(name, "active_panel", "unknown panel " + quote(a->as_string()) + " (" + model::panel_ids() + ")");
    active = a->as_string();
  }
  Presentation pres = app.presentation();
  if (const json::Value* p = s.find("presentation")) {
    only_keys(*p, name, "presentation", {"on", "scale"});
    pres.on = boolean(*p, name, "presentation", "on");
    pres.scale = static_cast<float>(
        number(*p, name, "presentation", "scale", Presentation::kMinScale, Presentation::kMaxScale));
  }
  float ui_scale = app.ui_scale();
  Theme theme = app.theme();
  if (const json::Value* v = s.find("view")) {  // absent in sessions written before View > Theme
    only_keys(*v, name, "view", {"ui_scale", "theme"});
    if (v->find("ui_scale"))
      ui_scale = static_cast<float>(number(*v, name, "view", "ui_scale", kUiScales[0], kUiScales[6]));
    if (const json::Value* t = v->find("theme")) {
      bool known = false;
      for (int i = 0; i < 3; ++i)
        if (t->is_string() && t->as_string() == kThemeNames[i]) {
          theme = static_cast<Theme>(i);
          known = true;
        }
      if (!known) fail(name, "view.theme", "must be \"light\", \"dark\" or \"high_contrast\"");
    }
  }
  WindowGeometry geom = app.window_geometry();
  const json::Value* w = s.find("window");
  if (w) {
    only_keys(*w, name, "window", {"x", "y", "width", "height", "fullscreen"});
    using G = WindowGeometry;
    geom.x = static_cast<int>(number(*w, name, "window", "x", -G::kMaxOffset, G::kMaxOffset));
    geom.y = static_cast<int>(number(*w, name, "window", "y", -G::kMaxOffset, G::kMaxOffset));
    geom.width = static_cast<int>(number(*w, name, "window", "width", G::kMinWidth, G::kMaxSide));
    geom.height = static_cast<int>(number(*w, name, "window", "height", G::kMinHeight, G::kMaxSide));
    geom.fullscreen = boolean(*w, name, "window", "fullscreen");
  }
  std::optional<Lesson> lesson;
  int step = 0;
  std::string lesson_note;
  if (const json::Value* l = s.find("lesson"); l && !l->is_null()) {
    only_keys(*l, name, "lesson", {"file", "step"});
    const json::Value* file = l->find("file");
    if (!file || !file->is_string()) fail(name, "lesson.file", "must be the path of a lesson file");
    // A lesson file that moved or changed since is not the session's fault: the rest is restored.
    try {
      lesson = load_lesson(file->as_string());
      step =
          static_cast<int>(number(*l, name, "lesson", "step", 1, static_cast<double>(lesson->steps.size()))) -
          1;
    } catch (const LessonError& e) {
      lesson_note = std::string("The session's lesson was not reopened: ") + e.what();
      lesson.reset();
    } catch (const SessionError& e) {
      lesson_note = std::string("The session's lesson was not reopened: ") + e.what();
      lesson.reset();
    }
  }

  for (auto& p : panels) p->restored();  // nothing below can refuse the session
  app.replace_panels(std::move(panels), active);
  app.set_presentation(pres);
  app.set_ui_scale(ui_scale);
  app.set_theme(theme);
  app.window_geometry() = geom;
  if (lesson) {
    app.open_lesson(std::move(*lesson), step,
                    /*apply_state=*/false);  // the panels already hold the session's state
  } else {
    app.close_lesson();
  }
  if (!lesson_note.empty()) app.show_message(lesson_note, true);
}

json::Value read_session_file(const std::string& path) {
  std::string text;
  try {
    text = read_file(path, kMaxJsonFileBytes);
  } catch (const FileError& e) {
    throw SessionError(e.what());
  }
  try {
    return json::parse(text);
  } catch (const json::JsonError& e) {
    throw SessionError(path + ": not valid JSON (line " + std::to_string(e.line()) + ", column " +
                       std::to_string(e.column()) + "): " + e.what());
  }
}

void load_session(App& app, const std::string& path) {
  apply_session(app, read_session_file(path), path);
}

void save_session(const App& app, const std::string& path, MissingDirectories dirs) {
  try {
    // Refuse: a session is read back, so a non-finite number in it is an error naming its key.
    const std::string text = json::write(session_json(app), 2) + "\n";
    if (path == "-")
      write_output(path, text);  // shot --session-out -: standard output
    else
      write_file_atomic(path, text, dirs);
  } catch (const FileError& e) {
    throw SessionError(e.what());
  } catch (const json::JsonError& e) {
    throw SessionError(path + ": " + e.what() + " (the previous file is unchanged)");
  }
}

namespace {
// An environment variable holding a directory: empty when usable, else what is wrong with it.
// XDG_CONFIG_HOME may name a directory still to be made (the XDG rule); HOME must exist.
std::string directory_problem(const char* var, const std::string& value, bool may_be_missing) {
  const std::string named = std::string(var) + "=" + quote(value, 200);
  if (value.empty() || value[0] != '/') return named + " is not an absolute path";
  std::error_code ec;
  const fs::file_status st = fs::status(value, ec);
  if (!fs::exists(st)) return may_be_missing ? std::string() : named + " does not exist";
  if (!fs::is_directory(st)) return named + " is not a directory";
  return {};
}
}  // namespace

SessionLocation default_session_location() {
  SessionLocation loc;
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::string ignored;
  if (xdg && *xdg) {
    const std::string problem = directory_problem("XDG_CONFIG_HOME", xdg, true);
    if (problem.empty()) {
      loc.path = std::string(xdg) + "/gelulab/session.json";
      return loc;
    }
    if (xdg[0] != '/') {
      ignored = problem + " and is ignored (the XDG rule)";  // then HOME decides
    } else {
      // Set on purpose to a place that cannot hold it: not silently elsewhere.
      loc.problem = problem + ", so the session cannot be saved on exit to " + xdg + "/gelulab/session.json";
      return loc;
    }
  }
  if (!home || !*home) {
    loc.problem = (ignored.empty() ? std::string("neither XDG_CONFIG_HOME nor HOME is set")
                                   : ignored + ", and HOME is not set") +
                  ", so the session cannot be saved on exit";
    return loc;
  }
  if (const std::string problem = directory_problem("HOME", home, false); !problem.empty()) {
    loc.problem =
        (ignored.empty() ? "" : ignored + "; ") + problem + ", so the session cannot be saved on exit";
    return loc;
  }
  loc.path = std::string(home) + "/.config/gelulab/session.json";
  if (!ignored.empty()) loc.note = ignored + "; the session is saved to " + loc.path;
  return loc;
}

std::string default_session_path() {
  return default_session_location().path;
}

}  // namespace gelu::app

// Lessons (see lessons.hpp).
#include "model/lessons.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gelu/fileio.hpp"
#include "gelu/numio.hpp"
#include "model/limits.hpp"
#include "model/panels.hpp"
#include "model/ui_font.hpp"

namespace gelu::app {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& field, const std::string& what) {
  throw LessonError(name + ": " + (field.empty() ? "" : field + ": ") + what);
}

void only_keys(const json::Value& v, const std::string& name, const std::string& field,
               std::initializer_list<std::string_view> known) {
  for (const auto& [k, x] : v.as_object()) {
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    std::string list;
    for (std::string_view n : known) list += (list.empty() ? "" : ", ") + std::string(n);
    fail(name, field.empty() ? printable(k) : field + "." + printable(k),
         "unknown key (known: " + list + ")");
  }
}

const std::string& text_field(const json::Value& obj, const std::string& name, const std::string& field,
                              const char* key, std::size_t max_bytes) {
  const json::Value* v = obj.find(key);
  const std::string where = field.empty() ? key : field + "." + key;
  if (!v) fail(name, where, "missing (a string is required)");
  if (!v->is_string()) fail(name, where, std::string("must be a string, not ") + v->type_name());
  const std::string& s = v->as_string();
  if (s.find_first_not_of(" \t\n") == std::string::npos) fail(name, where, "must not be empty");
  if (s.size() > max_bytes)
    fail(name, where,
         "is " + std::to_string(s.size()) + " bytes; keep it under " + std::to_string(max_bytes) +
             " so it fits the lesson bar");
  return s;
}

}  // namespace

Lesson parse_lesson(std::string_view text, const std::string& name,
                    const std::vector<std::string>& panel_ids) {
  json::Value doc;
  try {
    doc = json::parse(text);
  } catch (const json::JsonError& e) {
    fail(name, "",
         "not valid JSON (line " + std::to_string(e.line()) + ", column " + std::to_string(e.column()) +
             "): " + e.what());
  }
  if (!doc.is_object()) fail(name, "", "the lesson must be a JSON object {\"title\": …, \"steps\": […]}");
  only_keys(doc, name, "", {"title", "version", "steps"});
  if (const json::Value* v = doc.find("version")) {
    if (!v->is_number() || v->as_number() != std::floor(v->as_number()) || v->as_number() < 1)
      fail(name, "version", "must be a positive integer");
    if (v->as_number() > kLessonVersion)
      fail(name, "version",
           "is " + format_f64(v->as_number()) + ": written for a newer GELU Lab (this one reads version " +
               std::to_string(kLessonVersion) + ")");
  }
  Lesson lesson;
  lesson.path = name;
  lesson.title = text_field(doc, name, "", "title", kLessonTitleMax);
  const json::Value* steps = doc.find("steps");
  if (!steps) fail(name, "steps", "missing (an array of steps is required)");
  if (!steps->is_array() || steps->as_array().empty()) fail(name, "steps", "must be a non-empty array");
  std::string ids;
  for (const std::string& id : panel_ids) ids += (ids.empty() ? "" : "|") + id;
  for (std::size_t i = 0; i < steps->as_array().size(); ++i) {
    const json::Value& s = steps->as_array()[i];
    const std::string field = "steps[" + std::to_string(i) + "]";
    if (!s.is_object()) fail(name, field, "must be an object {title, text, panel, state}");
    only_keys(s, name, field, {"title", "text", "panel", "state"});
    LessonStep step;
    step.title = text_field(s, name, field, "title", kLessonTitleMax);
    step.text = text_field(s, name, field, "text", kLessonTextMax);
    step.panel = text_field(s, name, field, "panel", 32);
    if (std::find(panel_ids.begin(), panel_ids.end(), step.panel) == panel_ids.end())
      fail(name, field + ".panel", "unknown panel " + quote(step.panel) + " (" + ids + ")");
    const json::Value* st = s.find("state");
    if (st && !st->is_object()) fail(name, field + ".state", "must be an object (a panel state)");
    step.state = st ? *st : json::Value(json::Object{});
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

namespace {
/// The {key} at text[at] ('{' there): its length including the braces, or 0 when it is not one.
std::size_t key_length(std::string_view text, std::size_t at) {
  std::size_t i = at + 1;
  while (i < text.size() && ((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= '0' && text[i] <= '9') ||
                             text[i] == '_' || text[i] == ':'))
    ++i;
  return i > at + 1 && i < text.size() && text[i] == '}' ? i + 1 - at : 0;
}
}  // namespace

std::vector<std::string> computed_text_keys(std::string_view text) {
  std::vector<std::string> keys;
  for (std::size_t at = text.find('{'); at != std::string_view::npos; at = text.find('{', at + 1))
    if (const std::size_t n = key_length(text, at)) keys.emplace_back(text.substr(at + 1, n - 2));
  return keys;
}

std::string fill_computed_text(std::string_view text,
                               const std::function<std::string(std::string_view)>& value) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find('{'); at != std::string_view::npos; at = text.find('{', at + 1)) {
    const std::size_t n = key_length(text, at);
    if (!n) continue;
    out.append(text.substr(from, at - from));
    const std::string v = value(text.substr(at + 1, n - 2));
    out += v.empty() ? "…" : v;
    from = at + n;
  }
  out.append(text.substr(from));
  return out;
}

Lesson check_lesson(std::string_view text, const std::string& name) {
  std::vector<std::string> ids;
  for (const model::PanelKind& k : model::panel_kinds()) ids.push_back(k.id);
  Lesson lesson = parse_lesson(text, name, ids);
  // Every character must be one the UI font draws (else the app shows '?': lesson 5's ⊙ once did).
  auto drawable = [&](const std::string& field, const std::string& value) {
    if (const auto u = first_undrawable(value))
      fail(name, field,
           describe_code_point(u->code_point) + " at byte " + std::to_string(u->byte_offset) +
               " cannot be drawn: " + u->why);
  };
  drawable("title", lesson.title);
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    drawable("steps[" + std::to_string(i) + "].title", lesson.steps[i].title);
    drawable("steps[" + std::to_string(i) + "].text", lesson.steps[i].text);
  }
  // Every step's state must be one its panel reads (the same field table the lesson bar applies); no ImGui.
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    const LessonStep& s = lesson.steps[i];
    const model::PanelKind* kind = model::find_panel_kind(s.panel);
    try {
      kind->validate(s.state);
    } catch (const json::JsonError& e) {
      fail(name, "steps[" + std::to_string(i) + "].state", e.what());
    }
    for (const std::string& key : computed_text_keys(s.text)) {
      const std::string problem = kind->computed_text_problem
                                      ? kind->computed_text_problem(s.state, key)
                                      : "the " + std::string(kind->title) + " panel computes no text";
      if (!problem.empty()) fail(name, "steps[" + std::to_string(i) + "].text", "{" + key + "}: " + problem);
    }
  }
  return lesson;
}

Lesson load_lesson(const std::string& path) {
  std::string text;
  try {
    text = read_file(path, kMaxJsonFileBytes);
  } catch (const FileError& e) {
    throw LessonError(e.what());
  }
  return check_lesson(text, path);
}

int append_lesson_step(const std::string& path, const LessonStep& step, const std::string& new_title) {
  json::Object lesson;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(path, ec)) || fs::is_symlink(fs::symlink_status(path, ec))) {
    std::string text;
    try {
      text = read_file(path, kMaxJsonFileBytes);
    } catch (const FileError& e) {
      throw LessonError(e.what());
    }
    check_lesson(text, path);  // a broken file stays as it is: nothing is appended to it
    lesson = json::parse(text).as_object();
  } else {
    lesson["title"] = new_title;
    lesson["version"] = kLessonVersion;
    lesson["steps"] = json::Array{};
  }
  json::Object s;
  s["title"] = step.title;
  s["text"] = step.text;
  s["panel"] = step.panel;
  s["state"] = step.state.is_null() ? json::Value(json::Object{}) : step.state;
  json::Array steps = lesson.at("steps").as_array();
  steps.emplace_back(std::move(s));
  const int n = static_cast<int>(steps.size());
  lesson["steps"] = std::move(steps);
  const std::string out = json::write(json::Value(std::move(lesson)), 2) + "\n";
  check_lesson(out, path);  // the step itself: its title, text and state, as the app will read them
  try {
    write_file_atomic(path, out);
  } catch (const FileError& e) {
    throw LessonError(e.what());
  }
  return n;
}

LessonsFolder lessons_folder() {
  LessonsFolder f;
  if (const char* env = std::getenv("GELULAB_LESSONS"); env && *env) {
    f.path = env;
    f.source = "GELULAB_LESSONS";
  } else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    const fs::path installed = exe.parent_path().parent_path() / "share" / "gelulab" / "lessons";
    if (!ec && fs::is_directory(installed, ec)) {
      f.path = installed.string();
      f.source = "the installation";
    } else {
#ifdef GELU_ASSETS_SOURCE_DIR
      f.path = std::string(GELU_ASSETS_SOURCE_DIR) + "/lessons";
#else
      f.path = "assets/lessons";
#endif
      f.source = "the source tree";
    }
  }
  std::error_code ec;
  const fs::file_status st = fs::status(f.path, ec);
  std::string what;
  if (!fs::exists(st))
    what = "does not exist";
  else if (!fs::is_directory(st))
    what = "is not a folder";
  else if (::access(f.path.c_str(), R_OK | X_OK) != 0)
    what = std::string("cannot be read: ") + std::strerror(errno);
  if (!what.empty())
    f.problem = "the lessons folder " + quote(f.path, 200) + " " + what + " (the path comes from " +
                f.source + (f.source == "GELULAB_LESSONS" ? "; unset it to use the installed lessons)" : ")");
  return f;
}

std::string lessons_dir() {
  return lessons_folder().path;
}

std::vector<std::string> find_lessons() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(lessons_dir(), ec))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gelu::app

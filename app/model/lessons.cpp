// Lessons (see lessons.hpp).
//
// Index of this file:
//   [SECTION] Parsing
//   [SECTION] A step's view and the lesson
//   [SECTION] Checking
//   [SECTION] Writing a step
//   [SECTION] The lessons folder
#include "model/lessons.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gelu/fileio.hpp"
#include "gelu/numio.hpp"
#include "model/claims.hpp"
#include "model/limits.hpp"
#include "model/panels.hpp"
#include "model/ui_font.hpp"

namespace gelu::app {

namespace fs = std::filesystem;

namespace {

// [SECTION] Parsing

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
             " (whether it fits the lesson bar, the layout check says)");
  return s;
}

// [SECTION] A step's view and the lesson (format 2)

std::vector<std::string> string_list(const json::Value& v, const std::string& name, const std::string& field,
                                     std::size_t max_items) {
  if (!v.is_array() || v.as_array().empty() || v.as_array().size() > max_items)
    fail(name, field, "must be an array of 1 to " + std::to_string(max_items) + " strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.as_array().size(); ++i) {
    const json::Value& e = v.as_array()[i];
    if (!e.is_string() || e.as_string().empty() || e.as_string().size() > kLessonTitleMax)
      fail(name, field + "[" + std::to_string(i) + "]",
           "must be a non-empty string of at most " + std::to_string(kLessonTitleMax) + " bytes");
    out.push_back(e.as_string());
  }
  return out;
}

double finite_number(const json::Value& v, const std::string& name, const std::string& field) {
  if (!v.is_number() || !std::isfinite(v.as_number())) fail(name, field, "must be a finite number");
  return v.as_number();
}

StepView parse_view(const json::Value& v, const std::string& name, const std::string& field) {
  if (!v.is_object()) fail(name, field, "must be an object (what the step shows)");
  only_keys(v, name, field, {"plots", "series", "legends", "controls", "annotations", "reveal", "question"});
  StepView view;
  if (const json::Value* x = v.find("plots")) view.plots = string_list(*x, name, field + ".plots", 8);
  if (const json::Value* x = v.find("series")) view.series = string_list(*x, name, field + ".series", 16);
  if (const json::Value* x = v.find("controls"))
    view.controls = string_list(*x, name, field + ".controls", 8);
  if (const json::Value* x = v.find("reveal")) {
    view.reveal = string_list(*x, name, field + ".reveal", 8);
    if (view.reveal.size() < 2)
      fail(name, field + ".reveal", "needs at least 2 series to reveal one at a time");
  }
  if (const json::Value* x = v.find("legends")) {
    if (!x->is_bool()) fail(name, field + ".legends", "must be true or false");
    view.legends = x->as_bool();
  }
  if (const json::Value* x = v.find("annotations")) {
    if (!x->is_array() || x->as_array().empty() || x->as_array().size() > 8)
      fail(name, field + ".annotations", "must be an array of 1 to 8 annotations");
    for (std::size_t i = 0; i < x->as_array().size(); ++i) {
      const json::Value& a = x->as_array()[i];
      const std::string f = field + ".annotations[" + std::to_string(i) + "]";
      if (!a.is_object())
        fail(name, f, "must be an object {plot, arrow: [x, y] | band: [x0, x1] | marker: [x, y], text}");
      only_keys(a, name, f, {"plot", "arrow", "band", "marker", "text"});
      Annotation an;
      an.plot = text_field(a, name, f, "plot", 32);
      an.text = text_field(a, name, f, "text", kLessonTitleMax);
      int kinds = 0;
      for (const char* k : {"arrow", "band", "marker"}) {
        const json::Value* p = a.find(k);
        if (!p) continue;
        ++kinds;
        const std::string pf = f + "." + k;
        if (!p->is_array() || p->as_array().size() != 2) fail(name, pf, "must be a pair of numbers [a, b]");
        const double u = finite_number(p->as_array()[0], name, pf + "[0]");
        const double w = finite_number(p->as_array()[1], name, pf + "[1]");
        if (std::string_view(k) == "band") {
          if (!(u < w)) fail(name, pf, "must be [x0, x1] with x0 < x1");
          an.kind = Annotation::Kind::Band;
          an.x = u;
          an.x1 = w;
        } else {
          an.kind = std::string_view(k) == "arrow" ? Annotation::Kind::Arrow : Annotation::Kind::Marker;
          an.x = u;
          an.y = w;
        }
      }
      if (kinds != 1) fail(name, f, "needs exactly one of arrow: [x, y], band: [x0, x1] or marker: [x, y]");
      view.annotations.push_back(std::move(an));
    }
  }
  if (const json::Value* x = v.find("question")) {
    const std::string f = field + ".question";
    if (!x->is_object()) fail(name, f, "must be an object {prompt, choices, answer}");
    only_keys(*x, name, f, {"prompt", "choices", "answer"});
    Question q;
    q.prompt = text_field(*x, name, f, "prompt", kLessonTitleMax * 2);
    q.answer = text_field(*x, name, f, "answer", 80);
    const json::Value* c = x->find("choices");
    if (!c || !c->is_array() || c->as_array().size() < 2 || c->as_array().size() > 4)
      fail(name, f + ".choices", "must be an array of 2 to 4 choices {text, value}");
    for (std::size_t i = 0; i < c->as_array().size(); ++i) {
      const json::Value& e = c->as_array()[i];
      const std::string cf = f + ".choices[" + std::to_string(i) + "]";
      if (!e.is_object()) fail(name, cf, "must be an object {text, value}");
      only_keys(e, name, cf, {"text", "value"});
      Question::Choice ch;
      ch.text = text_field(e, name, cf, "text", kLessonTitleMax);
      const json::Value* val = e.find("value");
      if (!val) fail(name, cf + ".value", "missing (the number this choice stands for)");
      ch.value = finite_number(*val, name, cf + ".value");
      q.choices.push_back(std::move(ch));
    }
    view.question = std::move(q);
  }
  return view;
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
  int version = 1;
  if (const json::Value* v = doc.find("version")) version = static_cast<int>(v->as_number());
  Lesson lesson;
  lesson.path = name;
  lesson.title = text_field(doc, name, "", "title", kLessonTitleMax);
  const json::Value* steps = doc.find("steps");
  if (!steps) fail(name, "steps", "missing (an array of steps is required)");
  if (!steps->is_array() || steps->as_array().empty()) fail(name, "steps", "must be a non-empty array");
  if (steps->as_array().size() > static_cast<std::size_t>(kMaxLessonSteps))
    fail(name, "steps",
         "has " + std::to_string(steps->as_array().size()) + " steps; a lesson may have at most " +
             std::to_string(kMaxLessonSteps) + " (the most --step can open)");
  std::string ids;
  for (const std::string& id : panel_ids) ids += (ids.empty() ? "" : "|") + id;
  for (std::size_t i = 0; i < steps->as_array().size(); ++i) {
    const json::Value& s = steps->as_array()[i];
    const std::string field = "steps[" + std::to_string(i) + "]";
    if (!s.is_object()) fail(name, field, "must be an object {title, text, panel, state}");
    only_keys(s, name, field, {"title", "text", "panel", "state", "view", "notes"});
    LessonStep step;
    step.title = text_field(s, name, field, "title", kLessonTitleMax);
    step.text = text_field(s, name, field, "text", kLessonTextMax);
    step.panel = text_field(s, name, field, "panel", 32);
    if (s.find("notes")) step.notes = text_field(s, name, field, "notes", kLessonNotesMax);
    if (std::find(panel_ids.begin(), panel_ids.end(), step.panel) == panel_ids.end())
      fail(name, field + ".panel", "unknown panel " + quote(step.panel) + " (" + ids + ")");
    const json::Value* st = s.find("state");
    if (st && !st->is_object()) fail(name, field + ".state", "must be an object (a panel state)");
    step.state = st ? *st : json::Value(json::Object{});
    if (const json::Value* v = s.find("view")) {
      if (version < 2)
        fail(name, field + ".view", "needs \"version\": 2 (a step's view came with version 2)");
      step.view = parse_view(*v, name, field + ".view");
      step.view_json = *v;
    }
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

namespace {
/// The {key} at text[at] ('{' there): its length including the braces, or 0 when it is not one.
std::size_t key_length(std::string_view text, std::size_t at) {
  std::size_t i = at + 1;
  while (i < text.size() && ((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= '0' && text[i] <= '9') ||
                             text[i] == '_' || text[i] == ':' || text[i] == '.' || text[i] == '-'))
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

// [SECTION] Checking

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
    const std::string f = "steps[" + std::to_string(i) + "]";
    const LessonStep& s = lesson.steps[i];
    drawable(f + ".title", s.title);
    drawable(f + ".text", s.text);
    drawable(f + ".notes", s.notes);
    for (std::size_t k = 0; k < s.view.annotations.size(); ++k)
      drawable(f + ".view.annotations[" + std::to_string(k) + "].text", s.view.annotations[k].text);
    if (s.view.question) {
      drawable(f + ".view.question.prompt", s.view.question->prompt);
      for (std::size_t k = 0; k < s.view.question->choices.size(); ++k)
        drawable(f + ".view.question.choices[" + std::to_string(k) + "].text",
                 s.view.question->choices[k].text);
    }
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
    const std::string f = "steps[" + std::to_string(i) + "].view";
    auto known = [&](const std::vector<std::string>& names, const std::vector<std::string>& have,
                     const std::string& field, const char* what) {
      std::string list;
      for (const std::string& h : have) list += (list.empty() ? "" : "|") + h;
      for (std::size_t k = 0; k < names.size(); ++k)
        if (std::find(have.begin(), have.end(), names[k]) == have.end())
          fail(name, field + "[" + std::to_string(k) + "]",
               "the " + std::string(kind->title) + " panel has no " + what + " " + quote(names[k]) +
                   (have.empty() ? std::string(" (it has none a step can choose)") : " (" + list + ")"));
    };
    known(s.view.plots, kind->plots, f + ".plots", "plot");
    known(s.view.controls, kind->controls, f + ".controls", "control");
    for (std::size_t k = 0; k < s.view.annotations.size(); ++k)
      if (std::find(kind->plots.begin(), kind->plots.end(), s.view.annotations[k].plot) == kind->plots.end())
        known({s.view.annotations[k].plot}, kind->plots, f + ".annotations", "plot");
    if (s.view.question)
      if (const std::string problem = model::quantity_problem(s.view.question->answer); !problem.empty())
        fail(name, f + ".question.answer", problem);
    for (const std::string& key : computed_text_keys(s.text)) {
      if (model::is_claim_key(key)) {
        if (const std::string problem = model::claim_problem(key); !problem.empty())
          fail(name, "steps[" + std::to_string(i) + "].text", "{" + key + "}: " + problem);
        continue;
      }
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

std::string slide_size_name(const SlideSize& s) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%dx%d, %gx", s.width, s.height, static_cast<double>(s.scale));
  return buf;
}

namespace {
/// Edits (insert, delete, replace a byte) from a to b, case folded (ASCII): how near a misspelt name is.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::vector<std::string> series_problems(const LessonStep& step, std::size_t index,
                                         const std::vector<std::string>& drawn) {
  std::vector<std::string> out;
  std::string list;
  for (const std::string& d : drawn) list += (list.empty() ? "" : ", ") + quote(d, 80);
  const auto check = [&](const std::vector<std::string>& names, const char* entry) {
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (std::find(drawn.begin(), drawn.end(), names[k]) != drawn.end()) continue;
      // A near miss (a few edits, or another case) is named first: the rest of the list can be long.
      std::string near;
      std::size_t best = std::max<std::size_t>(2, names[k].size() / 8) + 1;
      for (const std::string& d : drawn)
        if (const std::size_t e = edit_distance(names[k], d); e < best) {
          best = e;
          near = d;
        }
      out.push_back("steps[" + std::to_string(index) + "].view." + entry + "[" + std::to_string(k) +
                    "]: no series " + quote(names[k], 80) + " on this step" +
                    (near.empty() ? std::string() : " (did you mean " + quote(near, 80) + "?)") +
                    (drawn.empty() ? std::string(" (its plots draw no named series)")
                                   : " (its plots draw: " + list + ")"));
    }
  };
  check(step.view.series, "series");
  check(step.view.reveal, "reveal");
  return out;
}

namespace {
SlideCheck g_slide_check = nullptr;
}  // namespace
void set_slide_check(SlideCheck check) {
  g_slide_check = check;
}
SlideCheck slide_check() {
  return g_slide_check;
}
namespace {
SlideRender g_slide_render = nullptr;
}  // namespace
void set_slide_render(SlideRender render) {
  g_slide_render = render;
}
SlideRender slide_render() {
  return g_slide_render;
}

// [SECTION] Writing a step

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
  if (!step.notes.empty()) s["notes"] = step.notes;
  s["state"] = step.state.is_null() ? json::Value(json::Object{}) : step.state;
  if (!step.view_json.is_null()) {
    s["view"] = step.view_json;
    lesson["version"] = kLessonVersion;
  }
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

// [SECTION] The lessons folder

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

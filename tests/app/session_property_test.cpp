// Everything the app writes, it reads back (reliability class 5), as a property: random sessions — every
// panel's state drawn from its field table (model::PanelKind::sample, so a new panel or field is covered the
// day it is added), presentation settings, window geometries below the minimum and huge, lessons made of
// random steps — and random scripts and window sizes are saved by the app and loaded back to the same
// session; every JSON file the app writes on the way (sessions, `gui --report`, `shot --meta`, bench exports,
// model files, lessons made of its states) parses with its own strict reader, gelu::json::parse.
//
// Seeded and reproducible: GELU_PROPERTY_SEED (default 1851) picks the cases, GELU_PROPERTY_CASES multiplies
// their number (default 1: 12 sessions in process, 12 invalid values per panel field, 1 end-to-end case per
// panel, 3 model files). A failure
// names the seed and the case. GELU_PROPERTY_KEEP=1 keeps the end-to-end files (their directory is printed);
// GELU_PROPERTY_CORPUS=DIR writes the sessions and panel states drawn, one file each (the seed corpus of
// tests/fuzz's fuzz_session_roundtrip came from here).
//
// Index of this file:
//   [SECTION] Helpers
//   [SECTION] Random documents
//   [SECTION] In process
//   [SECTION] Invalid values
//   [SECTION] End to end
//   [SECTION] Model files
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/network.hpp"
#include "gelu/json.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/classroom.hpp"
#include "gui/shell/session.hpp"
#include "gui/testing/script.hpp"
#include "model/lessons.hpp"
#include "model/panels.hpp"
#include "model/state_schema.hpp"
#include "support/files.hpp"
#include "support/png_image.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace json = gelu::json;
using gelu::app::App;
using gelu::app::Presentation;
using gelu::app::WindowGeometry;
using gelu::app::model::PanelKind;
using gelu::app::model::SampleRng;

// [SECTION] Helpers

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}
std::uint64_t seed() {
  return env_number("GELU_PROPERTY_SEED", 1851);
}
int cases(int per_unit) {
  return per_unit * static_cast<int>(std::max<std::uint64_t>(1, env_number("GELU_PROPERTY_CASES", 1)));
}
/// A generator for one case: the seed, what is drawn and the case number (FNV-1a, the same everywhere).
SampleRng rng_for(const std::string& what, int i) {
  std::uint64_t h = 1469598103934665603ULL ^ seed();
  for (const char c : what + "#" + std::to_string(i))
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return SampleRng(h);
}
std::string case_name(const std::string& what, int i) {
  return "GELU_PROPERTY_SEED=" + std::to_string(seed()) + ", " + what + " case " + std::to_string(i);
}

using gelu::test::put;
using gelu::test::slurp;

/// A directory of its own under the temporary directory, removed afterwards unless GELU_PROPERTY_KEEP=1.
class Scratch : public gelu::test::ScratchDir {
 public:
  explicit Scratch(const std::string& name)
      : ScratchDir("gelulab_property", name, env_number("GELU_PROPERTY_KEEP", 0) != 0) {}
  /// gelulab in this directory (its exports land here), with a private config directory and no display.
  gelu::test::ExecResult run(const std::vector<std::string>& args, int timeout_s = 180) const {
    return gelu::test::exec_gelulab(args, "", (dir() / "run").string(), private_env(), timeout_s, 0,
                                    gelu::test::StdoutTo::Captured, dir().string());
  }
};

/// The text with the app's own strict reader, or a test failure naming the file.
json::Value parse_file(const fs::path& p) {
  const std::string text = slurp(p);
  try {
    return json::parse(text);
  } catch (const json::JsonError& e) {
    ADD_FAILURE() << p << " does not parse with gelu::json::parse: " << e.what() << "\n"
                  << text.substr(0, 2000);
    return json::Value();
  }
}

/// Every file a run left in `dir` that the app wrote besides the session: JSON parses strictly, a CSV has its
/// header and rows, a PNG decodes. Returns how many files it checked.
int check_written_files(const fs::path& dir, const std::vector<std::string>& skip) {
  int n = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    SCOPED_TRACE(name);
    const std::string ext = e.path().extension().string();
    if (ext == ".json") {
      parse_file(e.path());
    } else if (ext == ".csv") {
      std::istringstream in(slurp(e.path()));
      std::string first, header, row;
      std::getline(in, first);
      if (first.rfind("# gelulab plot ", 0) == 0) {
        std::getline(in, header);
        EXPECT_EQ(header, "series,x,y");
      } else {
        EXPECT_EQ(first.rfind("function,backend,size", 0), 0u) << first;  // the benchmark export
      }
      EXPECT_TRUE(static_cast<bool>(std::getline(in, row))) << "no rows";
    } else if (ext == ".png") {
      const gelu::test::Image img(e.path().string());
      EXPECT_TRUE(img.ok() && img.w() > 0 && img.h() > 0);
    } else {
      continue;
    }
    ++n;
  }
  return n;
}

// [SECTION] Random documents: lessons, sessions, scripts

/// Text people write into lessons: letters, punctuation, quotes, backslashes, accents, symbols, tabs — every
/// character one the UI font draws (the lesson check refuses others, e.g. an emoji:
/// tests/app/glyphs_test.cpp).
std::string random_words(SampleRng& rng, std::size_t max_chars) {
  return "T" + rng.text(0, max_chars, "abc xyz ABC 0129 ,.;:!?'\"\\/()–—…éüßΦσ√≈⊙\t");
}

/// A lesson of 1 to 4 random steps, each on a random panel with a state drawn from its table, as a teacher's
/// "save this view as a step" would write it.
json::Value random_lesson(SampleRng& rng) {
  json::Object l;
  l["title"] = random_words(rng, 18);  // 4-byte characters at most: within kLessonTitleMax
  l["version"] = gelu::app::kLessonVersion;
  json::Array steps;
  const auto kinds = gelu::app::model::panel_kinds();
  for (std::uint64_t n = 1 + rng.below(4); n > 0; --n) {
    const PanelKind& k = kinds[static_cast<std::size_t>(rng.below(kinds.size()))];
    json::Object s;
    s["title"] = random_words(rng, 18);
    s["text"] = random_words(rng, 100);
    s["panel"] = k.id;
    if (rng.chance(0.85)) s["state"] = k.sample(rng);
    steps.emplace_back(std::move(s));
  }
  l["steps"] = std::move(steps);
  return l;
}

/// A session document the reader takes: each part present or not, every panel's state drawn from its table.
json::Value random_session(SampleRng& rng, const std::string& lesson_file, std::size_t lesson_steps) {
  const auto kinds = gelu::app::model::panel_kinds();
  json::Object s;
  s["format"] = "gelulab-session";
  s["version"] = gelu::app::kSessionVersion;
  if (rng.chance(0.9)) s["active_panel"] = kinds[static_cast<std::size_t>(rng.below(kinds.size()))].id;
  if (rng.chance(0.9)) {
    json::Object panels;
    for (const PanelKind& k : kinds)
      if (rng.chance(0.8)) panels[k.id] = k.sample(rng);
    s["panels"] = std::move(panels);
  }
  if (rng.chance(0.9)) {
    json::Object p;
    p["on"] = rng.chance(0.5);
    p["scale"] = rng.number(Presentation::kMinScale, Presentation::kMaxScale);
    s["presentation"] = std::move(p);
  }
  if (rng.chance(0.7)) {  // View > UI scale and View > Theme
    json::Object v;
    if (rng.chance(0.8))
      v["ui_scale"] = static_cast<double>(gelu::app::kUiScales[rng.below(std::size(gelu::app::kUiScales))]);
    if (rng.chance(0.8)) v["theme"] = gelu::app::kThemeNames[rng.below(3)];
    s["view"] = std::move(v);
  }

  if (rng.chance(0.9)) {
    using G = WindowGeometry;
    json::Object w;
    w["x"] = rng.integer(-G::kMaxOffset, G::kMaxOffset);
    w["y"] = rng.integer(-G::kMaxOffset, G::kMaxOffset);
    w["width"] = rng.integer(G::kMinWidth, G::kMaxSide);
    w["height"] = rng.integer(G::kMinHeight, G::kMaxSide);
    w["fullscreen"] = rng.chance(0.3);
    s["window"] = std::move(w);
  }
  if (!lesson_file.empty() && rng.chance(0.6)) {
    json::Object l;
    l["file"] = lesson_file;
    l["step"] = rng.integer(1, static_cast<double>(lesson_steps));
    s["lesson"] = std::move(l);
  } else if (rng.chance(0.5)) {
    s["lesson"] = json::Value();
  }
  return s;
}

/// A side of a window as a window system may report it: below the minimum, zero, negative, huge.
int random_side(SampleRng& rng) {
  static const std::vector<int> edges = {INT_MIN,
                                         -(1 << 30),
                                         -5,
                                         0,
                                         1,
                                         100,
                                         239,
                                         240,
                                         319,
                                         320,
                                         1280,
                                         WindowGeometry::kMaxSide,
                                         WindowGeometry::kMaxSide + 1,
                                         1 << 30,
                                         INT_MAX};
  return rng.chance(0.5) ? rng.pick(edges) : static_cast<int>(rng.integer(-100000, 100000));
}

/// What the session must hold after `doc` was applied to a fresh app whose window then took `geometry`.
json::Value expected_session(const json::Value& doc, const WindowGeometry& geometry) {
  json::Object want;
  want["format"] = "gelulab-session";
  want["version"] = gelu::app::kSessionVersion;
  const json::Value* active = doc.find("active_panel");
  want["active_panel"] = active ? active->as_string() : gelu::app::model::panel_kinds()[0].id;
  json::Object panels;
  const json::Value* given = doc.find("panels");
  for (const PanelKind& k : gelu::app::model::panel_kinds()) {
    const json::Value* st = given ? given->find(k.id) : nullptr;
    panels[k.id] = st ? k.normalize(*st) : k.defaults();
  }
  want["panels"] = std::move(panels);
  json::Object pres;
  const json::Value* p = doc.find("presentation");
  pres["on"] = p && p->at("on").as_bool();
  pres["scale"] = static_cast<double>(p ? static_cast<float>(p->at("scale").as_number())
                                        : Presentation::kDefaultScale);  // held as a float
  want["presentation"] = std::move(pres);
  json::Object view;
  const json::Value* v = doc.find("view");
  const json::Value* ui_scale = v ? v->find("ui_scale") : nullptr;
  const json::Value* theme = v ? v->find("theme") : nullptr;
  view["ui_scale"] = ui_scale ? ui_scale->as_number() : 1.0;
  view["theme"] = theme ? theme->as_string() : std::string("light");
  want["view"] = std::move(view);
  const WindowGeometry g = geometry.clamped();
  json::Object win;
  win["x"] = g.x;
  win["y"] = g.y;
  win["width"] = g.width;
  win["height"] = g.height;
  win["fullscreen"] = g.fullscreen;
  want["window"] = std::move(win);
  const json::Value* l = doc.find("lesson");
  if (l && !l->is_null()) {
    json::Object les;
    les["file"] = fs::absolute(l->at("file").as_string()).lexically_normal().string();
    les["step"] = l->at("step");
    want["lesson"] = std::move(les);
  } else {
    want["lesson"] = json::Value();
  }
  return want;
}

/// A random script (app/gui/testing/script.hpp) on `panel`: mouse commands aimed at the widgets it drew
/// (`marks`, each optional: skipped when a state or a key took it off the screen), the script language's
/// keys, waits, and returns to the panel. *frames gets how many frames it takes.
std::string random_script(SampleRng& rng, const std::string& panel, const std::vector<std::string>& marks,
                          int* frames) {
  static const std::vector<std::string> keys = gelu::app::Script::key_names();
  std::string out = "panel " + panel + "\nwait 3\n";
  *frames = 4;
  char buf[160];
  const auto frac = [&] { return rng.uniform(-0.1, 1.1); };
  for (std::uint64_t block = 1 + rng.below(2); block > 0; --block) {
    for (std::uint64_t op = 1 + rng.below(4); op > 0 && !marks.empty(); --op) {
      const std::string t = rng.pick(marks) + "?";
      switch (rng.below(5)) {
        case 0:
          std::snprintf(buf, sizeof buf, "move %s %.3f %.3f\n", t.c_str(), frac(), frac());
          *frames += 1;
          break;
        case 1:
          std::snprintf(buf, sizeof buf, "click %s %.3f %.3f\n", t.c_str(), frac(), frac());
          *frames += 3;
          break;
        case 2:
          std::snprintf(buf, sizeof buf, "dblclick %s %.3f %.3f\n", t.c_str(), frac(), frac());
          *frames += 5;
          break;
        case 3: {
          const int n = 1 + static_cast<int>(rng.below(8));
          std::snprintf(buf, sizeof buf, "drag %s %.3f %.3f %.3f %.3f %d\n", t.c_str(), frac(), frac(),
                        frac(), frac(), n);
          *frames += n + 3;
          break;
        }
        default: {
          const int n = 1 + static_cast<int>(rng.below(6));
          std::snprintf(buf, sizeof buf, "wheel %s %.3f %.3f %d\n", t.c_str(), frac(), frac(),
                        rng.chance(0.5) ? n : -n);
          *frames += n;
          break;
        }
      }
      out += buf;
    }
    for (std::uint64_t k = rng.below(3); k > 0; --k) {
      out += "key " + rng.pick(keys) + "\n";
      *frames += 3;
    }
    const int w = 1 + static_cast<int>(rng.below(4));
    out += "wait " + std::to_string(w) + "\n";
    *frames += w;
    if (rng.chance(0.4)) {
      out += "panel " + panel + "\nwait 3\n";
      *frames += 4;
    }
  }
  return out;
}

/// Writes a drawn document into GELU_PROPERTY_CORPUS, when set.
void to_corpus(const std::string& name, const json::Value& v) {
  const char* dir = std::getenv("GELU_PROPERTY_CORPUS");
  if (!dir || !*dir) return;
  fs::create_directories(dir);
  put(fs::path(dir) / name, json::write(v));
}

// [SECTION] In process: save, strict parse, load, the same session

TEST(SessionProperty, RandomSessionsAreSavedAndLoadedBackToTheSameSession) {
  const Scratch dir("in_process");
  // A few lessons of random steps: the lesson reader takes what the panels' tables write.
  std::vector<std::pair<std::string, std::size_t>> lessons;
  for (int i = 0; i < 4; ++i) {
    SampleRng rng = rng_for("lesson", i);
    const json::Value l = random_lesson(rng);
    const fs::path p = dir / ("lesson" + std::to_string(i) + ".json");
    put(p, json::write(l, 2) + "\n");
    ASSERT_NO_THROW(gelu::app::load_lesson(p.string())) << case_name("lesson", i);
    lessons.emplace_back(p.string(), l.at("steps").as_array().size());
  }
  const int n = cases(12);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(case_name("session", i));
    SampleRng rng = rng_for("session", i);
    const auto& [lesson, steps] = lessons[static_cast<std::size_t>(rng.below(lessons.size()))];
    const json::Value doc = random_session(rng, lesson, steps);
    to_corpus("session_" + std::to_string(i) + ".json", doc);
    if (const json::Value* ps = doc.find("panels"))
      for (const auto& [id, st] : ps->as_object())
        to_corpus("state_" + id + "_" + std::to_string(i) + ".json", st);
    App app;
    ASSERT_NO_THROW(gelu::app::apply_session(app, doc, "random.json")) << json::write(doc, 2);
    EXPECT_EQ(app.message(), "");
    // The window system resized it meanwhile: anything a window manager may report, the minimum not kept.
    WindowGeometry g = app.window_geometry();
    if (rng.chance(0.6))
      g = {random_side(rng), random_side(rng), random_side(rng), random_side(rng), rng.chance(0.5)};
    app.window_geometry() = g;

    const fs::path file = dir / "session.json";
    ASSERT_NO_THROW(gelu::app::save_session(app, file.string()));
    const std::string text = slurp(file);
    const json::Value saved = parse_file(file);
    EXPECT_EQ(json::write(saved, 2), json::write(expected_session(doc, g), 2)) << json::write(doc, 2);

    App back;
    ASSERT_NO_THROW(gelu::app::load_session(back, file.string())) << text;
    EXPECT_EQ(back.message(), "");
    EXPECT_EQ(json::write(gelu::app::session_json(back), 2) + "\n", text);
    if (HasFailure()) return;  // the first failing case is enough to reproduce
  }
}

// [SECTION] Invalid values: refused with a message naming the field, never a crash

/// A random JSON value of any type and shape (numbers at the edges, words the tables know, invisible
/// characters, nested arrays and objects): most are not what a given field takes.
json::Value random_value(SampleRng& rng, int depth = 0) {
  static const std::vector<double> numbers = {0,      -0.0,  0.5,    -1,   1,        2,
                                              3,      7,     8,      129,  4097,     67108865.0,
                                              1e-300, 1e300, -1e300, 1e15, 1e15 + 2, 9007199254740993.0,
                                              -7.5};
  static const std::vector<std::string> words = {"",
                                                 "?",
                                                 "gelu",
                                                 "nosuch",
                                                 "sigmoid",
                                                 "tanh",
                                                 "cpu",
                                                 "gpu",
                                                 "gpu_kernel",
                                                 "adam",
                                                 "geglu",
                                                 "add",
                                                 "moons",
                                                 "1",
                                                 "true",
                                                 "null",
                                                 "\xef\xbb\xbfgelu",
                                                 "gelu\xe2\x80\x8b",
                                                 "a\nb",
                                                 "gelu.c",
                                                 "gelu_tanh.c"};
  switch (rng.below(depth > 1 ? 5 : 7)) {
    case 0:
      return json::Value();
    case 1:
      return json::Value(rng.chance(0.5));
    case 2:
      return json::Value(rng.number(-1e300, 1e300));
    case 3:
      return json::Value(rng.pick(numbers));
    case 4:
      return json::Value(rng.chance(0.7) ? rng.pick(words) : rng.text(0, 12, "ab?. \t\"\\é"));
    case 5: {
      json::Array a;
      for (std::uint64_t n = rng.below(5); n > 0; --n) a.push_back(random_value(rng, depth + 1));
      return json::Value(std::move(a));
    }
    default: {
      static const std::vector<std::string> keys = {"activations", "glu", "stochastic",  "op", "x", "y",
                                                    "label",       "k",   "gelu_tanh.c", "?",  ""};
      json::Object o;
      for (std::uint64_t n = rng.below(4); n > 0; --n) o[rng.pick(keys)] = random_value(rng, depth + 1);
      return json::Value(std::move(o));
    }
  }
}

/// Whether `message` starts with one of the table's keys in quotes ('key': or 'key' must ...).
bool names_a_field(const std::string& message, const json::Object& fields) {
  for (const auto& [key, v] : fields)
    if (message.rfind("'" + key + "'", 0) == 0 || message.rfind("'" + key + "[", 0) == 0) return true;
  return false;
}

TEST(SessionProperty, InvalidPanelValuesAreRefusedNamingTheFieldAndChangeNothing) {
  // Every field of every table: random valid states with that one field replaced by a random value of any
  // type. An accepted value must round-trip like any valid state; a refused one must be refused through the
  // table (--state, lessons) with a message starting with the field's key, and through a session with
  // "FILE: panels.ID: 'key'..." leaving the app as it was. Any other exception is a failure.
  // 12 values per field by default (case 0 always one that no field takes); GELU_PROPERTY_CASES scales it.
  // One app per panel takes every refused session: each refusal must leave it as it was, so it stays valid.
  const int n = cases(12);
  for (const PanelKind& k : gelu::app::model::panel_kinds()) {
    const json::Value defaults = k.defaults();
    App app;
    const std::string before = json::write(gelu::app::session_json(app));
    for (const auto& [key, def] : defaults.as_object()) {
      const std::string field = std::string(k.id) + "." + key;
      int refused = 0, named = 0;
      for (int i = 0; i <= n; ++i) {
        SCOPED_TRACE(case_name("invalid " + field, i));
        SampleRng rng = rng_for("invalid " + field, i);
        json::Value state = k.sample(rng);
        json::Object wrong;  // case 0: a value no field takes
        wrong["?"] = json::Array{};
        state.as_object()[key] = i == 0 ? json::Value(std::move(wrong)) : random_value(rng);
        const std::string what = json::write(state);
        std::string message;
        try {
          k.validate(state);
        } catch (const json::JsonError& e) {
          message = e.what();
        } catch (const std::exception& e) {
          ADD_FAILURE() << "not a JsonError: " << e.what() << "\n" << what;
          continue;
        }
        if (message.empty()) {
          const json::Value normal = k.normalize(state);
          EXPECT_EQ(json::write(k.normalize(normal)), json::write(normal)) << what;
          continue;
        }
        ++refused;
        // A value that makes a later field out of range (another tuned_form, say) is named by that field.
        EXPECT_TRUE(names_a_field(message, defaults.as_object())) << message << "\n" << what;
        named += message.rfind("'" + key, 0) == 0;
        json::Object doc;
        doc["format"] = "gelulab-session";
        doc["version"] = gelu::app::kSessionVersion;
        json::Object panels;
        panels[k.id] = state;
        doc["panels"] = std::move(panels);
        try {
          gelu::app::apply_session(app, json::Value(std::move(doc)), "bad.json");
          ADD_FAILURE() << "a session accepted a state the table refuses: " << message << "\n" << what;
        } catch (const gelu::app::SessionError& e) {
          EXPECT_EQ(std::string(e.what()), "bad.json: panels." + std::string(k.id) + ": " + message);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "not a SessionError: " << e.what() << "\n" << what;
        }
        EXPECT_EQ(json::write(gelu::app::session_json(app)), before) << "a refused session changed the app";
      }
      EXPECT_GT(named, 0) << field << ": no value was refused naming it (" << refused << " refused)";
      if (HasFailure()) return;
    }
  }
}

TEST(SessionProperty, InvalidSessionValuesAreRefusedNamingTheFieldAndChangeNothing) {
  // The session's own fields, each replaced in random valid sessions by a random value of any type.
  const Scratch dir("invalid_session");
  SampleRng lr = rng_for("invalid lesson", 0);
  const json::Value l = random_lesson(lr);
  const fs::path lesson = dir / "lesson.json";
  put(lesson, json::write(l, 2) + "\n");
  const std::vector<std::vector<std::string>> paths = {{"format"},
                                                       {"version"},
                                                       {"active_panel"},
                                                       {"panels"},
                                                       {"presentation"},
                                                       {"presentation", "on"},
                                                       {"presentation", "scale"},
                                                       {"window"},
                                                       {"window", "x"},
                                                       {"window", "y"},
                                                       {"window", "width"},
                                                       {"window", "height"},
                                                       {"window", "fullscreen"},
                                                       {"lesson"},
                                                       {"lesson", "file"}};
  const int n = cases(30);
  for (const auto& path : paths) {
    std::string field = path[0];
    for (std::size_t j = 1; j < path.size(); ++j) field += "." + path[j];
    int refused = 0;
    for (int i = 0; i <= n; ++i) {
      SCOPED_TRACE(case_name("invalid session " + field, i));
      SampleRng rng = rng_for("invalid session " + field, i);
      json::Value doc = random_session(rng, lesson.string(), l.at("steps").as_array().size());
      json::Object* parent = &doc.as_object();
      for (std::size_t j = 0; j + 1 < path.size(); ++j) {
        json::Value& child = (*parent)[path[j]];
        if (!child.is_object()) child = json::Object{};
        parent = &child.as_object();
      }
      json::Object wrong;
      wrong["?"] = json::Array{};
      (*parent)[path.back()] = i == 0 ? json::Value(std::move(wrong)) : random_value(rng);
      const std::string what = json::write(doc);
      App app;
      const std::string before = json::write(gelu::app::session_json(app));
      try {
        gelu::app::apply_session(app, doc, "bad.json");
        continue;  // a valid value (or a lesson that no longer opens: a note, not an error)
      } catch (const gelu::app::SessionError& e) {
        ++refused;
        // The refused field is named; one the random value made incomplete (a missing sibling) names that.
        const std::string m = e.what();
        const std::string parent_field = field.substr(0, field.find('.'));
        EXPECT_TRUE(m.rfind("bad.json: " + field, 0) == 0 || m.rfind("bad.json: " + parent_field, 0) == 0)
            << m << "\n"
            << what;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "not a SessionError: " << e.what() << "\n" << what;
      }
      EXPECT_EQ(json::write(gelu::app::session_json(app)), before) << "a refused session changed the app";
    }
    EXPECT_GT(refused, 0) << field << ": no value was refused";
    if (HasFailure()) return;
  }
}

// [SECTION] End to end: gui --headless and shot save, and load back

std::vector<std::string> panel_ids() {
  std::vector<std::string> ids;
  for (const PanelKind& k : gelu::app::model::panel_kinds()) ids.emplace_back(k.id);
  return ids;
}

std::string size_text(int w, int h) {
  return std::to_string(w) + "x" + std::to_string(h);
}

class SessionPropertyE2E : public ::testing::TestWithParam<std::string> {};

TEST_P(SessionPropertyE2E, TheAppSavesWhatItLoadsAfterRandomScriptsAndSizes) {
  const std::string panel = GetParam();
  const Scratch dir("e2e_" + panel);
  // The widgets the panel draws (its marks): what the random scripts aim at.
  std::vector<std::string> marks;
  {
    const auto r = dir.run({"gui", "--headless", "--size", "1280x800", "--frames", "4", "--panel", panel,
                            "--report", "marks.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json::Value report = parse_file(dir / "marks.json");  // kept: the loop reads into it
    for (const auto& [name, rect] : report.at("ui_marks").as_object()) marks.push_back(name);
    ASSERT_FALSE(marks.empty());
    fs::remove(dir / "marks.json");
  }
  const int n = cases(1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(case_name("e2e " + panel, i));
    SampleRng rng = rng_for("e2e " + panel, i);
    const fs::path lesson = dir / "lesson.json";
    const json::Value l = random_lesson(rng);
    put(lesson, json::write(l, 2) + "\n");
    json::Value doc = random_session(rng, lesson.string(), l.at("steps").as_array().size());
    doc.as_object()["active_panel"] = panel;
    {
      App check;
      ASSERT_NO_THROW(gelu::app::apply_session(check, doc, "random.json")) << json::write(doc, 2);
    }
    put(dir / "s.json", json::write(doc, 2) + "\n");
    // The picture: mostly ordinary, sometimes the smallest, a wide strip or a tall one.
    // (Software rendering on 2 cores: the pictures stay under a megapixel so the test stays within seconds.)
    int w = static_cast<int>(rng.integer(320, 960)), h = static_cast<int>(rng.integer(240, 600));
    if (rng.chance(0.15)) w = 320, h = 240;
    if (rng.chance(0.1)) w = 2048, h = 240;
    if (rng.chance(0.1)) w = 320, h = 1600;
    int frames = 0;
    const std::string script = random_script(rng, panel, marks, &frames);
    put(dir / "script.txt", script);
    const std::string what =
        "size " + size_text(w, h) + "\nscript:\n" + script + "\nsession:\n" + json::write(doc, 2);

    // 1. The app runs the script and saves the session on exit; the session loads and writes the same bytes.
    const auto r =
        dir.run({"gui", "--headless", "--size", size_text(w, h), "--frames", std::to_string(frames + 5),
                 "--session", "s.json", "--script", "script.txt", "--report", "r.json"});
    ASSERT_TRUE(r.exited && r.status == 0) << "status " << r.status << " signal " << r.signal << "\n"
                                           << r.err << "\n"
                                           << what;
    const std::string s1 = slurp(dir / "s.json");
    const json::Value v1 = parse_file(dir / "s.json");
    App loaded;
    ASSERT_NO_THROW(gelu::app::apply_session(loaded, v1, "s.json")) << s1;
    EXPECT_EQ(json::write(gelu::app::session_json(loaded), 2) + "\n", s1) << what;
    EXPECT_EQ(parse_file(dir / "r.json").at("status").as_number(), 0);
    // Exports the keys made (CSV, PNG, the benchmark's CSV and JSON) parse and decode.
    check_written_files(dir.dir(), {"s.json", "r.json", "lesson.json"});

    // 2. Started again on that session, the app saves it unchanged.
    fs::copy_file(dir / "s.json", dir / "s2.json", fs::copy_options::overwrite_existing);
    const auto r2 =
        dir.run({"gui", "--headless", "--size", size_text(w, h), "--frames", "2", "--session", "s2.json"});
    ASSERT_EQ(r2.status, 0) << r2.err;
    EXPECT_EQ(json::write(parse_file(dir / "s2.json"), 2), json::write(v1, 2)) << what;

    // 3. shot restores it, applies the active panel's defaults (--state), and writes the session it shows.
    const std::string active = v1.at("active_panel").as_string();
    const PanelKind* kind = gelu::app::model::find_panel_kind(active);
    ASSERT_NE(kind, nullptr);
    // The defaults, but the smallest benchmark sweep (64 elements, once, on the scalar CPU backend): the
    // shot measures it, and a default sweep takes minutes here.
    json::Value defaults = kind->defaults();
    if (active == "bench") {
      defaults.as_object()["sizes"] = json::Array{64};
      defaults.as_object()["reps"] = 1;
      defaults.as_object()["backends"] = json::Array{"cpu_scalar"};
    }
    put(dir / "defaults.json", json::write(defaults, 2));
    const auto r3 = dir.run({"shot", "--session", "s.json", "--state", "defaults.json", "--session-out",
                             "o.json", "--out", "o.png", "--meta", "m.json", "--size",
                             size_text(std::min(w, 1600), std::min(h, 1000))});
    ASSERT_EQ(r3.status, 0) << r3.err << "\n" << what;
    json::Value want = v1;
    want.as_object()["panels"].as_object()[active] = kind->normalize(defaults);
    EXPECT_EQ(json::write(parse_file(dir / "o.json"), 2), json::write(want, 2)) << what;
    EXPECT_EQ(parse_file(dir / "m.json").at("panel").as_string(), active);
    for (const fs::directory_entry& e : fs::directory_iterator(dir.dir()))
      if (e.is_regular_file() && e.path().filename() != "lesson.json" && e.path().filename() != "script.txt")
        fs::remove(e.path());
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPanel, SessionPropertyE2E, ::testing::ValuesIn(panel_ids()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// [SECTION] Model files

TEST(SessionProperty, ModelFilesTrainSavesLoadAndSaveTheSame) {
  // train --save writes a model file; train --load reads it and, with no steps, saves the same bytes.
  const Scratch dir("model");
  std::vector<std::string> datasets, acts;
  for (const gelu::ffn::DatasetInfo& d : gelu::ffn::datasets()) datasets.emplace_back(d.id);
  for (const gelu::Activation& a : gelu::registry()) acts.emplace_back(a.id);
  const std::vector<std::string> glus = {"", "geglu", "swiglu", "reglu"};
  const int n = cases(3);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(case_name("model", i));
    SampleRng rng = rng_for("model", i);
    const std::string ds = rng.pick(datasets);
    std::vector<std::string> args = {"train",
                                     "--dataset",
                                     ds,
                                     "--steps",
                                     std::to_string(rng.below(30)),
                                     "--batch",
                                     "16",
                                     "--every",
                                     "1000",
                                     "--samples",
                                     "200",
                                     "--act",
                                     rng.pick(acts)};
    const std::string glu = rng.pick(glus);
    if (!glu.empty()) args.insert(args.end(), {"--glu", glu});
    if (rng.chance(0.3) && (args[12] == "gelu" || glu == "geglu")) args.emplace_back("--stochastic");
    args.insert(args.end(), {"--save", "m.json", "--json"});
    const auto r = dir.run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NO_THROW(json::parse(r.out)) << r.out;
    const json::Value m = parse_file(dir / "m.json");
    const auto r2 = dir.run({"train", "--dataset", ds, "--samples", "200", "--steps", "0", "--load", "m.json",
                             "--save", "m2.json"});
    ASSERT_EQ(r2.status, 0) << r2.err;
    // The same network; its meta says what this run did (0 steps).
    json::Value m2 = parse_file(dir / "m2.json");
    EXPECT_EQ(m2.at("meta").at("steps").as_number(), 0);
    json::Value want = m;
    want.as_object()["meta"].as_object()["steps"] = 0;
    EXPECT_EQ(json::write(m2, 2), json::write(want, 2));
  }
}

}  // namespace

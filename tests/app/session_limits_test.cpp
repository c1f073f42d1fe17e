// Everything the app writes, it reads back (reliability class 5, the parts outside the panels): a session
// never holds a window geometry that its reader refuses, and a lesson opened by a relative path is saved
// by its absolute path, so the next start reopens it from any directory. A file the user hands the app (the
// page's file chooser, a file dropped on the window: App::open_user_file) opens as a lesson or restores as a
// session, and what cannot be opened changes nothing and says which file and why.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gelu/json.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/classroom.hpp"
#include "gui/shell/session.hpp"
#include "model/lessons.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::app::App;
using gelu::app::WindowGeometry;

/// Writes the session as the app does, parses it with the strict reader and applies it to a fresh app.
void round_trip(const App& from, App& to) {
  const std::string text = gelu::json::write(gelu::app::session_json(from), 2);
  gelu::app::apply_session(to, gelu::json::parse(text), "session.json");
}

TEST(SessionReadBack, EveryWindowGeometryIsSavedWithinWhatTheReaderTakes) {
  using G = WindowGeometry;
  const int sides[] = {-5, 0, 1, 100, 239, 240, 319, 320, 1280, G::kMaxSide, G::kMaxSide + 1, 1 << 30};
  const int offsets[] = {-(1 << 30), -G::kMaxOffset - 1, -1, 0, 50, G::kMaxOffset + 1, 1 << 30};
  std::size_t k = 0;
  for (const int w : sides)
    for (const int h : sides) {
      const int o = offsets[k++ % std::size(offsets)];  // every offset meets many sizes
      App app;
      app.window_geometry() = WindowGeometry{o, -o, w, h, (w & 1) != 0};
      App back;
      ASSERT_NO_THROW(round_trip(app, back)) << w << "x" << h << " at " << o;
      const WindowGeometry g = back.window_geometry();
      EXPECT_GE(g.width, G::kMinWidth);
      EXPECT_GE(g.height, G::kMinHeight);
      EXPECT_LE(g.width, G::kMaxSide);
      EXPECT_LE(g.height, G::kMaxSide);
      if (w >= G::kMinWidth && w <= G::kMaxSide) {
        EXPECT_EQ(g.width, w);
      }
      if (o >= -G::kMaxOffset && o <= G::kMaxOffset) {
        EXPECT_EQ(g.x, o);
      }
      EXPECT_EQ(g.fullscreen, (w & 1) != 0);
    }
}

TEST(SessionReadBack, ALessonOpenedByARelativePathIsSavedAbsolute) {
  const fs::path before = fs::current_path();
  fs::current_path(GELU_SOURCE_DIR);
  App app;
  app.open_lesson(gelu::app::load_lesson("assets/lessons/1_what_is_gelu.json"), 2, false);
  const gelu::json::Value s = gelu::app::session_json(app);
  fs::current_path("/");  // the next start, elsewhere
  const std::string file = s.at("lesson").at("file").as_string();
  EXPECT_EQ(file, std::string(GELU_SOURCE_DIR) + "/assets/lessons/1_what_is_gelu.json");
  App back;
  gelu::app::apply_session(back, gelu::json::parse(gelu::json::write(s)), "session.json");
  ASSERT_NE(back.lesson(), nullptr) << back.message();
  EXPECT_EQ(back.lesson_step(), 2);
  EXPECT_EQ(back.message(), "");
  fs::current_path(before);
}

/// A file of `text` in a fresh folder of the test's.
std::string write_temp(const std::string& name, const std::string& text) {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gelulab-open-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  std::ofstream(dir / name, std::ios::binary) << text;
  return (dir / name).string();
}

TEST(OpenUserFile, ALessonFileOpensAtItsFirstStep) {
  App app;
  const std::string path = std::string(GELU_SOURCE_DIR) + "/assets/lessons/4_gelu_vs_relu_training.json";
  app.open_user_file(path, "4_gelu_vs_relu_training.json");
  ASSERT_NE(app.lesson(), nullptr) << app.message();
  EXPECT_EQ(app.lesson_step(), 0);
  app.apply_pending();
  EXPECT_STREQ(app.active_id(), app.lesson()->steps[0].panel.c_str());
  EXPECT_NE(app.message().find("Opened the lesson 4_gelu_vs_relu_training.json"), std::string::npos)
      << app.message();
}

TEST(OpenUserFile, ASessionTheAppSavedIsRestored) {
  App saved;
  ASSERT_TRUE(saved.select("dropout"));
  saved.open_lesson(
      gelu::app::load_lesson(std::string(GELU_SOURCE_DIR) + "/assets/lessons/1_what_is_gelu.json"), 2, false);
  const std::string path =
      write_temp("saved-session.json", gelu::json::write(gelu::app::session_json(saved), 2));
  App app;
  app.open_user_file(path, "my session.json");
  ASSERT_NE(app.lesson(), nullptr) << app.message();
  EXPECT_EQ(app.lesson_step(), 2);
  EXPECT_NE(app.message().find("Restored the session from my session.json"), std::string::npos)
      << app.message();
}

TEST(OpenUserFile, WhatCannotBeOpenedChangesNothingAndSaysWhichFileAndWhy) {
  const std::string lesson_missing_panel =
      R"({"title": "t", "steps": [{"title": "a", "panel": "no_such_panel", "text": "x"}]})";
  const struct {
    std::string name, text, says;
  } cases[] = {
      {"broken.json", "{\"steps\": [", "broken.json is not a lesson or a session"},
      {"empty.json", "", "empty.json is not a lesson or a session"},
      {"photo.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10), "photo.png is not a lesson or a session"},
      {"bad_lesson.json", lesson_missing_panel, "Could not open the lesson bad_lesson.json"},
      {"not_a_session.json", R"({"version": 99, "panels": 3})", "Could not restore the session"},
      {"array.json", "[1, 2, 3]", "Could not restore the session"},
  };
  for (const auto& c : cases) {
    App app;
    ASSERT_TRUE(app.select("dropout"));
    app.apply_pending();
    app.open_user_file(write_temp(c.name, c.text), c.name);
    EXPECT_NE(app.message().find(c.says), std::string::npos) << c.name << ": " << app.message();
    EXPECT_NE(app.message().find("Nothing was changed"), std::string::npos)
        << c.name << ": " << app.message();
    EXPECT_EQ(app.message().find('\n'), std::string::npos) << c.name << ": " << app.message();
    EXPECT_EQ(app.lesson(), nullptr) << c.name;
    EXPECT_STREQ(app.active_id(), "dropout") << c.name;
  }
  // Not a regular file: a folder and a FIFO are named, and nothing blocks.
  App app;
  const std::string dir = write_temp("x", "");
  fs::remove(dir);
  fs::create_directory(dir);
  app.open_user_file(dir, "a folder");
  EXPECT_NE(app.message().find("a folder is not a lesson or a session"), std::string::npos) << app.message();
  const std::string fifo = dir + "/fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  app.open_user_file(fifo, "fifo.json");
  EXPECT_NE(app.message().find("FIFO"), std::string::npos) << app.message();
}

}  // namespace

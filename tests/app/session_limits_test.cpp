// Everything the app writes, it reads back (reliability class 5, the parts outside the panels): a session
// never holds a window geometry that its reader refuses, and a lesson opened by a relative path is saved
// by its absolute path, so the next start reopens it from any directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
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

}  // namespace

// Characters the UI font cannot draw (issue: lesson 5 showed "(x·W) ? g(x·V)" and `gelulab lessons` said the
// file was fine): model/ui_font reads DejaVu Sans' cmap; the lesson check names the file, the field and the
// code point; the atlas holds every character of every lesson the app opens, and of the registry and zoo.
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/zoo.hpp"
#include "gui/shell/app.hpp"
#include "model/lessons.hpp"
#include "model/ui_font.hpp"
#include "support/files.hpp"
#include "support/run_gelulab.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gelu::app;

std::vector<char32_t> code_points(const std::string& s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) out.push_back(next_code_point(s, i));
  return out;
}

std::vector<std::string> shipped_lessons() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(GELU_SOURCE_DIR) / "assets" / "lessons"))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  return files;
}

TEST(UiFont, ReadsTheFontsCoverage) {
  ASSERT_TRUE(fs::exists(ui_font_regular())) << "CI installs fonts-dejavu-core (tools/dev.sh)";
  EXPECT_FALSE(first_undrawable("GELU(x) = x·Φ(x) ≈ 0.8413 for x = 1, (x·W) ⊙ g(x·V)\nnext line"));
  // Not in DejaVu Sans: a CJK ideograph; beyond 16 bits: an emoji; a control character; bytes that are not
  // UTF-8.
  const auto cjk = first_undrawable("abc 中文");
  ASSERT_TRUE(cjk);
  EXPECT_EQ(cjk->code_point, 0x4E2Du);
  EXPECT_EQ(cjk->byte_offset, 4u);
  EXPECT_NE(cjk->why.find("DejaVu Sans has no glyph"), std::string::npos) << cjk->why;
  const auto emoji = first_undrawable("ok \xF0\x9F\x98\x80");
  ASSERT_TRUE(emoji);
  EXPECT_EQ(emoji->code_point, 0x1F600u);
  EXPECT_NE(emoji->why.find("Basic Multilingual Plane"), std::string::npos) << emoji->why;
  EXPECT_FALSE(first_undrawable("a\tb")) << "ImGui draws a tab as 4 spaces";
  const auto control = first_undrawable("a\x01z");
  ASSERT_TRUE(control);
  EXPECT_EQ(control->code_point, 0x01u);
  const auto bytes = first_undrawable("a\xFF");
  ASSERT_TRUE(bytes);
  EXPECT_NE(bytes->why.find("not UTF-8"), std::string::npos);
  EXPECT_EQ(describe_code_point(0x2299), "U+2299 '⊙'");
  EXPECT_EQ(describe_code_point(0x01), "U+0001");
}

TEST(UiFont, EveryTextTheAppShipsIsDrawable) {
  const std::string t = ui_glyph_text();
  for (std::size_t i = 0; i < t.size();) {
    const std::size_t at = i;
    const char32_t c = next_code_point(t, i);
    EXPECT_FALSE(first_undrawable(t.substr(at, i - at)))
        << describe_code_point(c) << " (the registry's, the zoo's or the UI's own text)";
  }
  for (const std::string& f : shipped_lessons()) EXPECT_NO_THROW(load_lesson(f)) << f;
}

/// The characters above U+007F inside the string literals of a C++ source (comments and escapes skipped).
std::string literal_text(const std::string& src) {
  std::string out;
  for (std::size_t i = 0; i < src.size();) {
    if (src.compare(i, 2, "//") == 0) {
      i = src.find('\n', i);
      if (i == std::string::npos) break;
    } else if (src.compare(i, 2, "/*") == 0) {
      i = src.find("*/", i);
      if (i == std::string::npos) break;
      i += 2;
    } else if (src[i] == '\'') {
      for (++i; i < src.size() && src[i] != '\''; i += src[i] == '\\' ? 2 : 1) {
      }
      ++i;
    } else if (src[i] == '"') {
      for (++i; i < src.size() && src[i] != '"'; i += src[i] == '\\' ? 2 : 1)
        if (static_cast<unsigned char>(src[i]) >= 0x80) out += src[i];
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

TEST(UiFont, EveryCharacterInTheAppsOwnStringsIsInTheAtlas) {
  // The app's own texts (step bars, verdicts, tooltips) are built in code: each character outside Latin-1
  // (ImGui's default ranges) must be in ui_glyph_text(), which the atlas is built from — else it draws '?'
  // (the quiz prompt's "keys 1–4" did).
  const std::string atlas = ui_glyph_text();
  std::vector<char32_t> have = code_points(atlas);
  std::size_t files = 0;
  for (const char* room : {"gui", "model", "plot"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(GELU_SOURCE_DIR) / "app" / room)) {
      if (e.path().extension() != ".cpp" && e.path().extension() != ".hpp") continue;
      ++files;
      const std::string src = gelu::test::slurp(e.path());
      for (const char32_t c : code_points(literal_text(src))) {
        if (c <= 0xFF) continue;
        EXPECT_NE(std::find(have.begin(), have.end(), c), have.end())
            << describe_code_point(c) << " in a string of " << e.path().string()
            << " is not in the atlas (add it to kUiSymbols, app/model/ui_font.cpp)";
      }
    }
  EXPECT_GT(files, 50u);
  EXPECT_EQ(literal_text("a = \"x–y\"; // \"z—w\"\n'\"'; \"\\\"·\""), "–·");
}

TEST(UiFont, TheAtlasHoldsEveryCharacterOfAnOpenedLesson) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  App app;
  std::vector<Lesson> lessons;
  for (const std::string& f : shipped_lessons()) lessons.push_back(load_lesson(f));
  for (const Lesson& l : lessons) app.open_lesson(l, 0);
  EXPECT_TRUE(app.take_fonts_dirty()) << "a lesson with new characters asks for a new atlas";
  app.setup_fonts_and_style(1.0f);
  ASSERT_TRUE(io.Fonts->Build());
  ASSERT_TRUE(app.font_has_formula_glyphs());
  for (ImFont* font : io.Fonts->Fonts) {
    for (const Lesson& l : lessons) {
      std::string text = l.title;
      for (const LessonStep& s : l.steps) text += s.title + s.text;
      for (const char32_t c : code_points(text)) {
        if (c == '\n') continue;
        EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(c)), nullptr)
            << describe_code_point(c) << " of " << l.path;
      }
    }
    for (const char32_t c : code_points(ui_glyph_text()))
      EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(c)), nullptr) << describe_code_point(c);
  }
  // Opening the same lessons again adds nothing: no new atlas.
  for (const Lesson& l : lessons) app.open_lesson(l, 0);
  EXPECT_FALSE(app.take_fonts_dirty());
  ImGui::DestroyContext();
}

TEST(UiFont, TheLessonCheckNamesTheFileTheFieldAndTheCodePoint) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("glyphs_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "cjk.json").string();
  std::ofstream(file) << R"({"title": "t", "steps": [
      {"title": "a", "text": "fine ⊙", "panel": "curves"},
      {"title": "b", "text": "GELU 激活", "panel": "curves"}]})";
  const gelu::test::ExecResult r = gelu::test::exec_gelulab({"lessons", "--check", file}, "", dir.string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(
      r.err.find(file + ": steps[1].text: U+6FC0 '激' at byte 5 cannot be drawn: DejaVu Sans has no glyph"),
      std::string::npos)
      << r.err;
  const std::string title = (dir / "title.json").string();
  std::ofstream(title)
      << R"({"title": "t", "steps": [{"title": "smile 😀", "text": "b", "panel": "curves"}]})";
  const gelu::test::ExecResult t = gelu::test::exec_gelulab({"lessons", "--check", title}, "", dir.string());
  EXPECT_EQ(t.status, 2) << t.err;
  EXPECT_NE(t.err.find("steps[0].title: U+1F600"), std::string::npos) << t.err;
  fs::remove_all(dir);
}

}  // namespace

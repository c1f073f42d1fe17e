// Teachers write lessons by clicking (issue 13, point 8): "Save view as lesson step" appends the current
// panel's state to a lesson file, or makes the file, in one atomic write; a file or a step that does not
// check leaves the file as it was, and the error names the file and the field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "model/lessons.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gelu::app;

struct TempDir : gelu::test::ScratchDir {
  TempDir()
      : ScratchDir("lesson_authoring", ::testing::UnitTest::GetInstance()->current_test_info()->name()) {}
  const fs::path path = dir();
};

std::string contents(const fs::path& p) {
  return gelu::test::slurp(p);
}

LessonStep step(const std::string& title, const std::string& panel, const std::string& state_json) {
  return LessonStep{title, "What the class sees now, in two sentences. Then the next thing.",
                    panel, gelu::json::parse(state_json),
                    {},    {},
                    {}};
}

TEST(LessonAuthoring, TheFirstStepMakesALessonThatLoadsBack) {
  TempDir d;
  const fs::path f = d.path / "mine.json";
  EXPECT_EQ(append_lesson_step(f.string(), step("Exact GELU", "curves", R"({"functions": ["gelu"]})"),
                               "My own lesson"),
            1);
  const Lesson l = load_lesson(f.string());
  EXPECT_EQ(l.title, "My own lesson");
  ASSERT_EQ(l.steps.size(), 1u);
  EXPECT_EQ(l.steps[0].title, "Exact GELU");
  EXPECT_EQ(l.steps[0].panel, "curves");
  EXPECT_EQ(gelu::json::write(l.steps[0].state), R"({"functions":["gelu"]})");
}

TEST(LessonAuthoring, LaterStepsAreAppendedInOrderAndKeepTheTitle) {
  TempDir d;
  const fs::path f = d.path / "mine.json";
  append_lesson_step(f.string(), step("One", "curves", R"({"functions": ["gelu"]})"), "Title");
  EXPECT_EQ(
      append_lesson_step(f.string(), step("Two", "dropout", R"({"x0": -1})"), "ignored: the file has one"),
      2);
  EXPECT_EQ(append_lesson_step(f.string(), step("Three", "ffn", R"({"layer": 1})"), "ignored"), 3);
  const Lesson l = load_lesson(f.string());
  EXPECT_EQ(l.title, "Title");
  ASSERT_EQ(l.steps.size(), 3u);
  EXPECT_EQ(l.steps[1].title, "Two");
  EXPECT_EQ(l.steps[1].panel, "dropout");
  EXPECT_EQ(l.steps[2].panel, "ffn");
}

TEST(LessonAuthoring, AShippedLessonTakesOneMoreStep) {
  TempDir d;
  const fs::path f = d.path / "copy.json";
  fs::copy_file(fs::path(GELU_SOURCE_DIR) / "assets" / "lessons" / "1_what_is_gelu.json", f);
  const std::size_t before = load_lesson(f.string()).steps.size();
  EXPECT_EQ(append_lesson_step(f.string(), step("Added", "approx", R"({"metric": "ulp"})"), "x"),
            static_cast<int>(before) + 1);
  const Lesson l = load_lesson(f.string());
  EXPECT_EQ(l.steps.size(), before + 1);
  EXPECT_EQ(l.steps.back().title, "Added");
}

TEST(LessonAuthoring, ABrokenFileOrABadStepLeavesTheFileAsItWas) {
  TempDir d;
  const fs::path broken = d.path / "broken.json";
  std::ofstream(broken)
      << R"({"title": "t", "version": 1, "steps": [{"title": "s", "text": "x", "panel": "nope"}]})";
  const std::string was = contents(broken);
  try {
    append_lesson_step(broken.string(), step("More", "curves", "{}"), "t");
    ADD_FAILURE() << "appended to a lesson that does not check";
  } catch (const LessonError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("panel"), std::string::npos) << e.what();
  }
  EXPECT_EQ(contents(broken), was);

  const fs::path good = d.path / "good.json";
  append_lesson_step(good.string(), step("One", "curves", "{}"), "t");
  const std::string good_was = contents(good);
  // A state the panel refuses (an unknown key), and a title past the length limit: named, nothing written.
  EXPECT_THROW(append_lesson_step(good.string(), step("Two", "curves", R"({"funtions": ["gelu"]})"), "t"),
               LessonError);
  EXPECT_THROW(
      append_lesson_step(good.string(), step(std::string(kLessonTitleMax + 1, 'a'), "curves", "{}"), "t"),
      LessonError);
  EXPECT_EQ(contents(good), good_was);
  // A file that cannot be written (its folder is gone): LessonError, not a crash.
  EXPECT_THROW(
      append_lesson_step((d.path / "no_such_dir" / "x.json").string(), step("One", "curves", "{}"), "t"),
      LessonError);
}

}  // namespace

// The validate-only mode (what the CLI fuzz target runs) reaches the checks of gui's and shot's view options
// and of the files they name, and writes nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "command/command.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {
namespace fs = std::filesystem;

int validate(std::vector<std::string> args) {
  args.insert(args.begin(), "gelulab");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  gelu::command::set_dry_run(true);
  const int status = gelu::command::run_main(static_cast<int>(args.size()), argv.data());
  gelu::command::set_dry_run(false);
  return status;
}

struct TempDir : gelu::test::ScratchDir {
  TempDir() : ScratchDir("validate", ::testing::UnitTest::GetInstance()->current_test_info()->name()) {}
  std::string file(const std::string& name, const std::string& text) const {
    gelu::test::put(dir() / name, text);
    return (dir() / name).string();
  }
};
}  // namespace

TEST(ValidateOnly, GuiChecksItsViewOptions) {
  EXPECT_EQ(validate({"gui", "--panel", "curves"}), 0);
  EXPECT_EQ(validate({"gui", "--panel", "nope"}), 2) << "an unknown panel";
  EXPECT_EQ(validate({"gui", "--step", "2"}), 2) << "--step without --lesson";
  EXPECT_EQ(validate({"gui", "--presentation", "9"}), 2) << "a presentation scale out of [1, 3]";
}

TEST(ValidateOnly, GuiReadsAndChecksItsScriptAndState) {
  TempDir d;
  EXPECT_EQ(validate({"gui", "--script", d.file("ok.txt", "panel ffn\nwait 2\n")}), 0);
  EXPECT_EQ(validate({"gui", "--script", d.file("bad.txt", "panel ffn\nfrobnicate 3\n")}), 2);
  EXPECT_EQ(validate({"gui", "--state", d.file("bad.json", "{\"format\": ")}), 2) << "truncated JSON";
}

TEST(ValidateOnly, ShotChecksTheStateFileAndWritesNothing) {
  TempDir d;
  const std::string png = (d / "out.png").string();
  EXPECT_EQ(validate({"shot", "--panel", "curves", "--out", png}), 0);
  EXPECT_FALSE(fs::exists(png)) << "validate-only must not render or write";
  EXPECT_EQ(validate({"shot", "--panel", "curves", "--out", png, "--state", d.file("bad.json", "[1, 2")}), 2);
  EXPECT_EQ(validate({"shot", "--out", png, "--lesson", d.file("lesson.json", "{}")}), 2)
      << "a lesson with no steps";
  EXPECT_FALSE(fs::exists(png));
}

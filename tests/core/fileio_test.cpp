// write_file_atomic and read_file: whole files or nothing, temporaries cleaned up, errors that name the path.
// (A full disk and a read-only directory are in tests/app/fault_test.cpp, which mounts tmpfs file systems.)
#include "gelu/fileio.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

fs::path dir_for(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("gelu-fileio-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int entries(const fs::path& d) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}

TEST(FileIo, WritesCreatesDirectoriesAndReplaces) {
  const fs::path d = dir_for("write");
  const fs::path p = d / "a" / "b" / "x.json";
  gelu::write_file_atomic(p.string(), "first");
  EXPECT_EQ(slurp(p), "first");
  gelu::write_file_atomic(p.string(), std::string("second\0with nul", 15));
  EXPECT_EQ(slurp(p), std::string("second\0with nul", 15));
  EXPECT_EQ(entries(p.parent_path()), 1);  // no temporary left behind
  gelu::write_file_atomic(p.string(), "");
  EXPECT_EQ(fs::file_size(p), 0u);
}

TEST(FileIo, RefusesADirectoryAndNamesThePath) {
  const fs::path d = dir_for("dir");
  fs::create_directories(d / "taken");
  try {
    gelu::write_file_atomic((d / "taken").string(), "x");
    FAIL() << "no error";
  } catch (const gelu::FileError& e) {
    EXPECT_NE(std::string(e.what()).find((d / "taken").string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gelu::write_file_atomic("", "x"), gelu::FileError);
  EXPECT_EQ(entries(d), 1);
}

TEST(FileIo, RemovesTemporariesOfDeadProcessesOnly) {
  const fs::path d = dir_for("stale");
  // A pid that is certainly dead: a child that has exited and been reaped.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int st = 0;
  ::waitpid(child, &st, 0);
  const fs::path dead = d / (".s.json.tmp-" + std::to_string(child));
  const fs::path alive = d / (".s.json.tmp-" + std::to_string(::getppid()));  // our parent is running
  const fs::path other = d / (".t.json.tmp-" + std::to_string(child));        // another file's temporary
  for (const fs::path& p : {dead, alive, other}) std::ofstream(p) << "partial";
  gelu::write_file_atomic((d / "s.json").string(), "whole");
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(slurp(d / "s.json"), "whole");
}

TEST(FileIo, ReadFileLimitsAndReasons) {
  const fs::path d = dir_for("read");
  std::ofstream(d / "small") << "hello";
  EXPECT_EQ(gelu::read_file((d / "small").string(), 5), "hello");
  try {
    gelu::read_file((d / "small").string(), 4);
    FAIL() << "no error";
  } catch (const gelu::FileError& e) {
    EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
  }
  try {
    gelu::read_file(d.string(), 100);
    FAIL() << "no error";
  } catch (const gelu::FileError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  try {
    gelu::read_file((d / "missing").string(), 100);
    FAIL() << "no error";
  } catch (const gelu::FileError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST(FileIo, WritableCheck) {
  const fs::path d = dir_for("writable");
  EXPECT_FALSE(gelu::why_not_writable((d / "new" / "deeper" / "s.json").string()).has_value());
  // The read-only case needs a read-only mount: tests/app/fault_test.cpp (ReadOnlyConfigDir…).
}

}  // namespace

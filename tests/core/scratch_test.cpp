// The tests' scratch directories (tests/support/scratch.hpp): one root per process, gone when the process
// exits, and left alone by a forked child that destroys its copy of the parent's root.
#include "support/scratch.hpp"

#include <gtest/gtest.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/files.hpp"

namespace {

namespace fs = std::filesystem;

fs::path root_of(pid_t pid) {
  return fs::temp_directory_path() / ("gelulab-test-" + std::to_string(pid));
}

TEST(Scratch, ADirectoryUnderThisProcesssRoot) {
  const fs::path d = gelu::test::scratch_dir("scratch_test");
  EXPECT_TRUE(fs::is_directory(d));
  EXPECT_EQ(d.parent_path(), root_of(::getpid()));
  std::ofstream(d / "kept") << "x";
  // Asking again keeps what is there.
  EXPECT_TRUE(fs::exists(gelu::test::scratch_dir("scratch_test") / "kept"));
}

TEST(Scratch, AForkedChildLeavesItsParentsRootAndTheOwnerRemovesIt) {
  // The child destroys its copy of the root, as exit() would (exit() itself is unsafe in a child of a process
  // with threads: a static thread pool's destructor would wait for workers the child does not have).
  auto* root = new gelu::test::ScratchRoot("gelulab-scratch-test");
  const fs::path d = root->dir();
  ASSERT_TRUE(fs::is_directory(d));
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::ofstream(d / "from_child") << "x";
    delete root;
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_TRUE(fs::exists(d / "from_child")) << "the child removed its parent's scratch root";
  delete root;
  EXPECT_FALSE(fs::exists(d)) << "the owner left " << d;
}

TEST(Scratch, TheRootIsRemovedWhenItsProcessExits) {
  // This executable again, running only the first test above (its output kept to see that it ran): it makes
  // its root and must remove it at exit.
  const fs::path log = gelu::test::scratch_dir("scratch_exit") / "child.log";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!std::freopen(log.c_str(), "w", stdout)) ::_exit(126);
    ::unsetenv("GTEST_TOTAL_SHARDS");  // a sharded CTest entry would otherwise run nothing in the child
    ::unsetenv("GTEST_SHARD_INDEX");
    ::execl("/proc/self/exe", "scratch_child", "--gtest_filter=Scratch.ADirectoryUnderThisProcesssRoot",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::string out = gelu::test::slurp(log);
  ASSERT_NE(out.find("[  PASSED  ] 1 test."), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(root_of(pid))) << root_of(pid) << " was left behind";
}

}  // namespace

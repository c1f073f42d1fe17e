// Scratch files of a test process: one directory per process under the temp directory ($TMPDIR, else /tmp),
// made at first use and removed with everything in it when the process exits, so a test run leaves nothing
// behind in /tmp (a full ctest run left about 135 when each file made its own and kept it).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace gelu::test {

/// A scratch root, `<prefix>-<pid>` in the temp directory, removed by its destructor. Only the process that
/// made it removes it: a forked child that exits through exit() runs the same static destructors and must
/// leave its parent's files alone.
class ScratchRoot {
 public:
  explicit ScratchRoot(const std::string& prefix)
      : owner_(::getpid()),
        dir_(std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(owner_))) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchRoot() {
    if (::getpid() != owner_) return;
    std::error_code ec;  // a destructor at exit: nothing to throw to
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  pid_t owner_;
  std::filesystem::path dir_;
};

/// `name` under the process's scratch root, made if missing (its contents are kept: a caller that needs an
/// empty directory removes them). One root for every file of a test executable (an inline function's static).
inline std::filesystem::path scratch_dir(const std::string& name) {
  static const ScratchRoot root("gelulab-test");
  std::filesystem::path d = root.dir() / name;
  std::filesystem::create_directories(d);
  return d;
}

/// A test's own directory, `name` under scratch_dir(root): emptied when made, with an empty `run` folder in
/// it (where a test runs gelulab, so that its exports land there), and removed with its contents when it
/// goes, unless `keep` (then its path is printed).
class ScratchDir {
 public:
  ScratchDir(const std::string& root, const std::string& name, bool keep = false)
      : dir_(scratch_dir(root) / name), keep_(keep) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "run");
  }
  ~ScratchDir() {
    if (keep_) {
      std::printf("kept %s\n", dir_.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }
  /// The environment for gelulab run here: no display (DISPLAY and WAYLAND_DISPLAY unset) and a private
  /// config directory (XDG_CONFIG_HOME=<dir>/config), then `more`.
  std::vector<std::string> private_env(const std::vector<std::string>& more = {}) const {
    std::vector<std::string> e = {"DISPLAY", "WAYLAND_DISPLAY",
                                  "XDG_CONFIG_HOME=" + (dir_ / "config").string()};
    e.insert(e.end(), more.begin(), more.end());
    return e;
  }

 private:
  std::filesystem::path dir_;
  bool keep_;
};

}  // namespace gelu::test

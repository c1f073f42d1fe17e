// Fault injection on the real binary: a full disk and a read-only config directory (tmpfs mounts in a private
// mount namespace), SIGTERM and SIGKILL in the middle of a save, a GPU context lost mid-training, shader
// files missing or corrupt, no EGL and no GL 4.3. Each must end with a clear message, the previous file
// intact and, for the app, training and plotting going on on the CPU. The app runs headless (EGL), so no X is
// needed.
//
// Index of this file:
//   [SECTION] Processes
//   [SECTION] Private mounts
//   [SECTION] Disk full
//   [SECTION] Read-only config directory
//   [SECTION] The session's environment
//   [SECTION] Signals while saving
//   [SECTION] GPU faults
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gelu/json.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
namespace json = gelu::json;

using gelu::test::slurp;

void put(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = gelu::test::scratch_dir("gelulab-fault") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// [SECTION] Processes
struct Proc {
  pid_t pid = -1;
  fs::path log;  // stdout and stderr
};

Proc spawn(const std::vector<std::string>& args, const std::vector<std::string>& env_add,
           const fs::path& log) {
  // env_add: "NAME=VALUE" sets (replacing), "NAME" unsets.
  std::vector<std::string> env;
  const auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  for (char** e = environ; *e; ++e) {
    bool replaced = false;
    for (const std::string& a : env_add) replaced = replaced || name_of(a) == name_of(*e);
    if (!replaced) env.emplace_back(*e);
  }
  for (const std::string& a : env_add)
    if (a.find('=') != std::string::npos) env.push_back(a);
  std::vector<char*> argv, envp;
  std::string exe = GELULAB_EXE;
  argv.push_back(exe.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  Proc p;
  p.log = log;
  if (posix_spawn(&p.pid, exe.c_str(), &fa, nullptr, argv.data(), envp.data()) != 0) p.pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return p;
}

/// Exit status, or 128 + signal for a process killed by a signal, or -1 after `timeout_s` (then killed).
int wait_for(const Proc& p, double timeout_s) {
  const auto t0 = Clock::now();
  for (;;) {
    int st = 0;
    const pid_t r = ::waitpid(p.pid, &st, WNOHANG);
    if (r == p.pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (std::chrono::duration<double>(Clock::now() - t0).count() > timeout_s) {
      ::kill(p.pid, SIGKILL);
      ::waitpid(p.pid, &st, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

struct Outcome {
  int status = -1;
  std::string out;
};

Outcome run(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
            double timeout_s = 300) {
  static int n = 0;
  const fs::path log = fresh_dir("logs") / ("run" + std::to_string(n++) + ".txt");
  Proc p = spawn(args, env, log);
  Outcome r;
  r.status = p.pid > 0 ? wait_for(p, timeout_s) : -1;
  r.out = slurp(log);
  return r;
}

/// True once the process has a handler for `sig` (its SigCgt mask in /proc), i.e. it is past start-up.
bool catches(pid_t pid, int sig) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
  return false;
}

bool wait_until(const std::function<bool()>& cond, double timeout_s) {
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < timeout_s) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

std::vector<fs::path> temporaries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path());
  return out;
}

// A session to start from: the Dropout panel active (the runs below switch to another panel, so the session
// they would save differs from this one).
void write_session(const fs::path& path) {
  const fs::path png = fresh_dir("png") / "s.png";
  const Outcome r = run({"shot", "--panel", "dropout", "--size", "320x240", "--session-out", path.string(),
                         "--out", png.string()});
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_TRUE(fs::exists(path));
}

// [SECTION] Private mounts: tmpfs file systems that can be filled or made read-only without touching the
// host.
std::string g_mount_error;

bool enter_private_mount_namespace() {
  if (const char* no = std::getenv("GELU_TEST_NO_MOUNT_NAMESPACE"); no && *no) {
    g_mount_error = "GELU_TEST_NO_MOUNT_NAMESPACE is set";
    return false;
  }
  if (::geteuid() != 0) {
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      g_mount_error = std::string("unshare(CLONE_NEWUSER | CLONE_NEWNS): ") + std::strerror(errno);
      return false;
    }
    put("/proc/self/setgroups", "deny");
    put("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1");
    put("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
  } else if (::unshare(CLONE_NEWNS) != 0) {
    g_mount_error = std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
    return false;
  }
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    g_mount_error = std::string("making / private: ") + std::strerror(errno);
    return false;
  }
  return true;
}

// Where no private mount namespace can be made (a container, a chroot whose / is not a mount point, no user
// namespaces), the same tests run on plain directories with the product's own fault injection standing in
// for the file system: GELU_FAULT=disk-full=DIR (every save under DIR fails at its first write with ENOSPC)
// and GELU_FAULT=read-only=DIR (EROFS). They assert the same outcomes; the test log says which mode ran.
class Faults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    in_namespace_ = enter_private_mount_namespace();
    if (!in_namespace_)
      std::fprintf(
          stderr,
          "[fault tests] no private mount namespace (%s): a full or read-only disk is simulated with "
          "GELU_FAULT=disk-full=DIR / read-only=DIR\n",
          g_mount_error.c_str());
  }
  void SetUp() override { RecordProperty("file_system_faults", in_namespace_ ? "tmpfs" : "GELU_FAULT"); }
  /// A fresh tmpfs of `kib` KiB, or a plain directory when no private mounts can be made.
  fs::path tmpfs(const std::string& name, int kib) {
    const fs::path d = fresh_dir(name);
    if (!in_namespace_) return d;
    const std::string opts = "size=" + std::to_string(kib) + "k,mode=0755";
    if (::mount("tmpfs", d.c_str(), "tmpfs", 0, opts.c_str()) != 0) {
      ADD_FAILURE() << "mount tmpfs on " << d << ": " << std::strerror(errno);
      return {};
    }
    mounts_.push_back(d);
    return d;
  }
  /// Fills the disk under `dir` (real: write until ENOSPC; simulated: GELU_FAULT=disk-full=dir from now on).
  void fill(const fs::path& dir) {
    if (!in_namespace_) {
      fault_env_.push_back("disk-full=" + dir.string());
      return;
    }
    std::FILE* f = std::fopen((dir / "filler").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::vector<char> block(4096, 'x');
    while (std::fwrite(block.data(), 1, block.size(), f) == block.size()) {
    }
    std::fclose(f);
    // Single bytes too, so not even a short write fits.
    std::FILE* g = std::fopen((dir / "filler2").c_str(), "wb");
    if (g) {
      while (std::fputc('x', g) != EOF && std::fflush(g) == 0) {
      }
      std::fclose(g);
    }
  }
  /// Makes `dir` read-only (real: remount the tmpfs read-only; simulated: GELU_FAULT=read-only=dir).
  void make_read_only(const fs::path& dir) {
    if (!in_namespace_) {
      fault_env_.push_back("read-only=" + dir.string());
      return;
    }
    ASSERT_EQ(::mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0)
        << std::strerror(errno);
  }
  /// The environment of the runs after fill()/make_read_only(): empty when the faults are real.
  std::vector<std::string> env() const {
    if (fault_env_.empty()) return {};
    std::string spec = "GELU_FAULT=";
    for (std::size_t i = 0; i < fault_env_.size(); ++i) spec += (i ? "," : "") + fault_env_[i];
    return {spec};
  }
  void TearDown() override {
    for (const fs::path& d : mounts_) ::umount2(d.c_str(), MNT_DETACH);
  }
  static inline bool in_namespace_ = false;
  std::vector<fs::path> mounts_;
  std::vector<std::string> fault_env_;
};

const std::vector<std::string> kHeadless = {"gui", "--headless", "--size", "640x400"};

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// [SECTION] Disk full
TEST_F(Faults, DiskFullSessionSaveKeepsThePreviousFile) {
  const fs::path d = tmpfs("full", 256);
  ASSERT_FALSE(d.empty());
  const fs::path session = d / "session.json";
  write_session(session);
  const std::string before = slurp(session);
  fill(d);
  const Outcome r =
      run(cat(kHeadless, {"--frames", "20", "--session", session.string(), "--panel", "curves"}), env());
  EXPECT_EQ(r.status, 1) << r.out;  // a test run (--frames) reports the failed save in its status
  EXPECT_NE(r.out.find("the session was not saved"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the previous file is unchanged"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(session), before);
  EXPECT_TRUE(temporaries(d).empty());
}

TEST_F(Faults, DiskFullCliSavesFailWithTheReason) {
  const fs::path d = tmpfs("full-cli", 256);
  ASSERT_FALSE(d.empty());
  const fs::path model = d / "model.json";
  const Outcome first =
      run({"train", "--dataset", "circle", "--layers", "2,8,1", "--steps", "20", "--save", model.string()});
  ASSERT_EQ(first.status, 0) << first.out;
  const std::string before = slurp(model);
  fill(d);
  const Outcome train =
      run({"train", "--dataset", "circle", "--layers", "2,8,1", "--steps", "40", "--save", model.string()},
          env());
  EXPECT_NE(train.status, 0);
  EXPECT_NE(train.out.find(model.string()), std::string::npos) << train.out;
  EXPECT_NE(train.out.find("No space left on device"), std::string::npos) << train.out;
  EXPECT_EQ(slurp(model), before);

  const Outcome csv = run(
      {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "10000", "--csv", (d / "e.csv").string()},
      env());
  EXPECT_EQ(csv.status, 2) << csv.out;
  EXPECT_NE(csv.out.find("--csv"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("No space left on device"), std::string::npos) << csv.out;
  EXPECT_FALSE(fs::exists(d / "e.csv"));

  const Outcome shot =
      run({"shot", "--panel", "curves", "--size", "320x240", "--out", (d / "c.png").string()}, env());
  EXPECT_EQ(shot.status, 2) << shot.out;
  EXPECT_NE(shot.out.find("No space left on device"), std::string::npos) << shot.out;
  EXPECT_FALSE(fs::exists(d / "c.png"));
  EXPECT_TRUE(temporaries(d).empty());
}

// [SECTION] Read-only config directory
TEST_F(Faults, ReadOnlyConfigDirWarnsAtStartAndKeepsTheFile) {
  const fs::path d = tmpfs("ro", 1024);
  ASSERT_FALSE(d.empty());
  const fs::path session = d / "gelulab" / "session.json";
  fs::create_directories(session.parent_path());  // a user-named file's directory must exist (no mkdir -p)
  write_session(session);
  const std::string before = slurp(session);
  make_read_only(d);
  const fs::path report = fresh_dir("ro-report") / "r.json";
  const Outcome r = run(cat(kHeadless, {"--frames", "20", "--session", session.string(), "--panel", "curves",
                                        "--report", report.string()}),
                        env());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cannot be saved on exit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Read-only file system"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(session), before);
  // The warning is on screen from the first frame (the banner), while the user can still save elsewhere.
  const json::Value rep = json::parse(slurp(report));
  EXPECT_NE(rep.at("message").as_string().find("Save session as"), std::string::npos);
  EXPECT_EQ(rep.at("frames").as_number(), 20);
}

// Every writer option finds a read-only directory before it computes anything (reliability class 2): the
// runs below would take minutes to hours if the check came after the work.
TEST_F(Faults, ReadOnlyOutputDirectoryIsFoundBeforeTheWork) {
  const fs::path d = tmpfs("ro-out", 256);
  ASSERT_FALSE(d.empty());
  make_read_only(d);
  const std::string ok = fresh_dir("ro-out-ok").string();
  struct Writer {
    std::vector<std::string> args;
    std::string option;
  };
  const std::vector<Writer> writers = {
      {{"train", "--dataset", "spiral", "--layers", "2,128,128,128,1", "--steps", "3000000", "--save",
        (d / "m.json").string()},
       "--save"},
      {{"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "10000000", "--csv",
        (d / "e.csv").string()},
       "--csv"},
      {{"shot", "--panel", "curves", "--out", (d / "x.png").string()}, "--out"},
      {{"shot", "--panel", "curves", "--out", ok + "/x.png", "--meta", (d / "m.json").string()}, "--meta"},
      {{"shot", "--panel", "curves", "--out", ok + "/x.png", "--session-out", (d / "s.json").string()},
       "--session-out"},
      {cat(kHeadless, {"--frames", "100000000", "--report", (d / "r.json").string()}), "--report"},
  };
  for (const Writer& w : writers) {
    const Outcome r = run(w.args, env(), 120);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(w.option + ": cannot write"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Read-only file system"), std::string::npos) << r.out;
  }
  EXPECT_TRUE(fs::is_empty(d));
}

// [SECTION] The session's environment (reliability class 8): which variable is wrong, and where the session
// is (or cannot be) saved, from the first frame (start-up, before any frame is drawn); the app otherwise
// runs as usual. No --frames: the default location is used only by a real run, which SIGTERM ends.
struct EnvRun {
  int status = -1;
  std::string log;
};

EnvRun run_until_sigterm(const std::string& name, const std::vector<std::string>& env) {
  const fs::path d = fresh_dir(name);
  Proc p = spawn(cat(kHeadless, {"--panel", "approx"}), env, d / "log.txt");
  EnvRun r;
  if (p.pid <= 0) return r;
  if (!wait_until([&] { return catches(p.pid, SIGTERM); }, 120)) {
    ::kill(p.pid, SIGKILL);
    wait_for(p, 60);
    r.log = slurp(p.log);
    return r;
  }
  ::kill(p.pid, SIGTERM);
  r.status = wait_for(p, 120);
  r.log = slurp(p.log);
  return r;
}

TEST(SessionEnvironment, NoHomeAndNoXdgConfigHomeSaysTheSessionCannotBeSaved) {
  const EnvRun r = run_until_sigterm("env-nohome", {"HOME", "XDG_CONFIG_HOME"});
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_NE(r.log.find("Neither XDG_CONFIG_HOME nor HOME is set, so the session cannot be saved on exit"),
            std::string::npos)
      << r.log;
  EXPECT_NE(r.log.find("Save session as"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find("saving the session"), std::string::npos) << r.log;  // it does not pretend to
  EXPECT_NE(r.log.find("SIGTERM received after"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("the session was not saved: neither XDG_CONFIG_HOME nor HOME is set"),
            std::string::npos)
      << r.log;
}

TEST(SessionEnvironment, XdgConfigHomeOnAFileIsNamedAndNothingIsWritten) {
  const fs::path d = fresh_dir("env-xdgfile");
  put(d / "config", "a file");
  const EnvRun r = run_until_sigterm("env-xdgfile-run", {"XDG_CONFIG_HOME=" + (d / "config").string()});
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_NE(r.log.find("XDG_CONFIG_HOME='" + (d / "config").string() + "' is not a directory"),
            std::string::npos)
      << r.log;
  EXPECT_NE(r.log.find("cannot be saved on exit to " + (d / "config").string() + "/gelulab/session.json"),
            std::string::npos)
      << r.log;
  EXPECT_EQ(r.log.find("saving the session"), std::string::npos) << r.log;
  EXPECT_EQ(slurp(d / "config"), "a file");
}

TEST(SessionEnvironment, HomeThatIsMissingOrAFileIsNamed) {
  const fs::path d = fresh_dir("env-home");
  put(d / "file", "x");
  for (const auto& [home, what] : {std::pair{(d / "missing").string(), "does not exist"},
                                   std::pair{(d / "file").string(), "is not a directory"}}) {
    const EnvRun r = run_until_sigterm("env-home-run", {"XDG_CONFIG_HOME", "HOME=" + home});
    EXPECT_EQ(r.status, 0) << r.log;
    EXPECT_NE(r.log.find("HOME='" + home + "' " + what), std::string::npos) << r.log;
    EXPECT_EQ(r.log.find("saving the session"), std::string::npos) << r.log;
  }
  EXPECT_FALSE(fs::exists(d / "missing"));
}

TEST(SessionEnvironment, TheDefaultLocationIsMadePrivateAndARelativeXdgConfigHomeIsIgnoredAloud) {
  // An absolute XDG_CONFIG_HOME that does not exist yet: made, mode 0700, and the session saved there.
  const fs::path d = fresh_dir("env-xdg");
  const EnvRun r = run_until_sigterm("env-xdg-run", {"XDG_CONFIG_HOME=" + (d / "cfg").string()});
  EXPECT_EQ(r.status, 0) << r.log;
  EXPECT_NE(r.log.find("saving the session and quitting"), std::string::npos) << r.log;
  const fs::path session = d / "cfg" / "gelulab" / "session.json";
  ASSERT_TRUE(fs::exists(session)) << r.log;
  EXPECT_EQ(json::parse(slurp(session)).at("active_panel").as_string(), "approx");
  EXPECT_EQ(fs::status(d / "cfg" / "gelulab").permissions(), fs::perms::owner_all);
  // A relative XDG_CONFIG_HOME is ignored (the XDG rule), and the banner says so and where the session goes.
  const fs::path home = fresh_dir("env-relxdg");
  const EnvRun rel =
      run_until_sigterm("env-relxdg-run", {"XDG_CONFIG_HOME=relative/cfg", "HOME=" + home.string()});
  EXPECT_EQ(rel.status, 0) << rel.log;
  EXPECT_NE(rel.log.find("XDG_CONFIG_HOME='relative/cfg' is not an absolute path and is ignored"),
            std::string::npos)
      << rel.log;
  EXPECT_NE(rel.log.find("the session is saved to " + (home / ".config/gelulab/session.json").string()),
            std::string::npos)
      << rel.log;
  EXPECT_TRUE(fs::exists(home / ".config" / "gelulab" / "session.json")) << rel.log;
}

// [SECTION] Signals while saving
struct SlowSave {
  fs::path dir, session;
  std::string before;
  Proc proc;
};

SlowSave start_slow_save(const std::string& name) {
  SlowSave s;
  s.dir = fresh_dir(name);
  s.session = s.dir / "session.json";
  write_session(s.session);
  s.before = slurp(s.session);
  // No --frames: the app runs until a signal, like a user's; every save writes 512 bytes per 100 ms.
  s.proc = spawn(cat(kHeadless, {"--session", s.session.string(), "--panel", "approx"}),
                 {"GELU_FAULT=slow-write=100"}, s.dir / "log.txt");
  return s;
}

TEST(Signals, SigtermWhileSavingFinishesTheSaveAndQuits) {
  SlowSave s = start_slow_save("sigterm");
  ASSERT_GT(s.proc.pid, 0);
  ASSERT_TRUE(wait_until([&] { return catches(s.proc.pid, SIGTERM); }, 120)) << slurp(s.proc.log);
  ::kill(s.proc.pid, SIGTERM);  // quit: the session is saved on the way out
  ASSERT_TRUE(wait_until([&] { return !temporaries(s.dir).empty(); }, 60)) << slurp(s.proc.log);
  // More signals while the file is being written: the save must complete, not be cut short.
  ::kill(s.proc.pid, SIGTERM);
  ::kill(s.proc.pid, SIGINT);
  ::kill(s.proc.pid, SIGHUP);
  const int status = wait_for(s.proc, 120);
  const std::string log = slurp(s.proc.log);
  EXPECT_EQ(status, 0) << log;
  EXPECT_NE(log.find("SIGTERM received"), std::string::npos) << log;
  const std::string after = slurp(s.session);
  EXPECT_NE(after, s.before);
  const json::Value v = json::parse(after);  // complete and valid
  EXPECT_EQ(v.at("active_panel").as_string(), "approx");
  EXPECT_TRUE(temporaries(s.dir).empty());
}

TEST(Signals, SigkillMidSaveLeavesThePreviousFileAndTheNextSaveCleansUp) {
  SlowSave s = start_slow_save("sigkill");
  ASSERT_GT(s.proc.pid, 0);
  ASSERT_TRUE(wait_until([&] { return catches(s.proc.pid, SIGTERM); }, 120)) << slurp(s.proc.log);
  ::kill(s.proc.pid, SIGTERM);
  ASSERT_TRUE(wait_until([&] { return !temporaries(s.dir).empty(); }, 60)) << slurp(s.proc.log);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // part of the file is written
  ::kill(s.proc.pid, SIGKILL);
  EXPECT_EQ(wait_for(s.proc, 60), 128 + SIGKILL);
  EXPECT_EQ(slurp(s.session), s.before);  // the previous session, byte for byte
  ASSERT_EQ(temporaries(s.dir).size(), 1u);
  // The next save removes the dead process's partial file.
  const Outcome r = run({"shot", "--panel", "curves", "--size", "320x240", "--session-out",
                         s.session.string(), "--out", (s.dir / "x.png").string()});
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(temporaries(s.dir).empty());
  EXPECT_EQ(json::parse(slurp(s.session)).at("active_panel").as_string(), "curves");
}

// [SECTION] GPU faults: the app keeps working on the CPU
// The app headless on the FFN lab, training on the GPU, until the lab reports that it moved to the CPU (a
// line on stderr), then two more seconds of training; SIGTERM ends it and the report gives every panel's
// state.
json::Value headless_ffn_report(const std::string& name, const std::vector<std::string>& env, Outcome* out) {
  const fs::path d = fresh_dir(name);
  put(d / "ffn.json", R"({"dataset": "circle", "widths": [16, 16], "backend": "gpu", "playing": true,
                          "ab": false, "speed": 0})");
  const fs::path report = d / "report.json";
  Proc p = spawn(cat(kHeadless, {"--frames", "1000000", "--panel", "ffn", "--state",
                                 (d / "ffn.json").string(), "--report", report.string()}),
                 env, d / "log.txt");
  if (p.pid <= 0) return json::Value();
  const bool moved = wait_until([&] { return slurp(p.log).find("FFN lab:") != std::string::npos; }, 180);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ::kill(p.pid, SIGTERM);
  out->status = wait_for(p, 120);
  out->out = slurp(p.log);
  if (!moved || !fs::exists(report)) return json::Value();
  return json::parse(slurp(report));
}

TEST(GpuFaults, ContextLostMidTrainingGoesOnOnTheCpu) {
  Outcome r;
  const json::Value rep = headless_ffn_report("gl-lost", {"GELU_FAULT=gl-lost-after=30"}, &r);
  ASSERT_TRUE(rep.is_object()) << r.out;
  EXPECT_EQ(r.status, 0) << r.out;  // no GL error on the render context, no crash
  const json::Value& ffn = rep.at("panels").at("ffn");
  EXPECT_EQ(ffn.at("backend").as_string(), "CPU");
  const std::string notice = ffn.at("notice").as_string();
  EXPECT_NE(notice.find("context was lost"), std::string::npos) << notice;
  EXPECT_NE(notice.find("on the CPU from step"), std::string::npos) << notice;
  EXPECT_EQ(ffn.at("error").as_string(), "");
  // Training went on after the loss: more steps than when the CPU took over.
  const std::size_t at = notice.find("from step ");
  const int from = std::stoi(notice.substr(at + 10));
  EXPECT_GT(ffn.at("nets").as_array()[0].at("steps").as_number(), from + 10) << notice;
  EXPECT_NE(r.out.find("FFN lab: The GPU stopped"), std::string::npos) << r.out;
}

// eval reads its numbers from a file (stdin is /dev/null here).
std::string one_input() {
  const fs::path p = fresh_dir("input") / "x.txt";
  put(p, "1.0 -0.5\n");
  return p.string();
}

fs::path shader_copy(const std::string& name) {
  const fs::path d = fresh_dir(name) / "shaders";
  fs::copy(fs::path(GELU_SOURCE_DIR) / "shaders", d, fs::copy_options::recursive);
  return d;
}

TEST(GpuFaults, MissingShaderFile) {
  const fs::path d = shader_copy("shader-missing");
  fs::remove(d / "activations.glsl");
  const std::string env = "GELU_SHADER_DIR=" + d.string();
  const Outcome eval = run({"eval", "--backend", "gpu", "--fn", "gelu", "--input", one_input()}, {env});
  EXPECT_EQ(eval.status, 2) << eval.out;
  EXPECT_NE(eval.out.find("activations.glsl"), std::string::npos) << eval.out;
  EXPECT_EQ(eval.out.find("terminate called"), std::string::npos) << eval.out;
  // The CPU path is unaffected.
  const Outcome cpu = run({"eval", "--fn", "gelu", "--input", one_input()}, {env});
  EXPECT_EQ(cpu.status, 0) << cpu.out;
  // The app: the FFN lab trains on the CPU and says why.
  Outcome r;
  const json::Value rep = headless_ffn_report("shader-missing-app", {env}, &r);
  ASSERT_TRUE(rep.is_object()) << r.out;
  EXPECT_EQ(r.status, 0) << r.out;
  const json::Value& ffn = rep.at("panels").at("ffn");
  EXPECT_EQ(ffn.at("backend").as_string(), "CPU");
  EXPECT_NE(ffn.at("notice").as_string().find("activations.glsl"), std::string::npos)
      << ffn.at("notice").as_string();
  EXPECT_GT(ffn.at("nets").as_array()[0].at("steps").as_number(), 0);
}

TEST(GpuFaults, CorruptShaderFileNamesFileAndLine) {
  const fs::path d = shader_copy("shader-corrupt");
  std::string text = slurp(d / "activations.glsl");
  const std::size_t mid = text.find('\n', text.size() / 2);
  text.insert(mid + 1, "this is not GLSL @@@ \x01\x02\n");
  put(d / "activations.glsl", text);
  const Outcome eval = run({"eval", "--backend", "gpu", "--fn", "gelu", "--input", one_input()},
                           {"GELU_SHADER_DIR=" + d.string()});
  EXPECT_EQ(eval.status, 2) << eval.out;
  EXPECT_NE(eval.out.find("activations.glsl:"), std::string::npos) << eval.out;
  EXPECT_EQ(eval.out.find("terminate called"), std::string::npos) << eval.out;
}

TEST(GpuFaults, NoEglOrNoGl43IsAClearMessage) {
  const std::vector<std::string> no_egl = {"__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/egl_vendor.json",
                                           "__EGL_VENDOR_LIBRARY_DIRS=/nonexistent"};
  const Outcome eval = run({"eval", "--backend", "gpu", "--fn", "gelu", "--input", one_input()}, no_egl);
  EXPECT_EQ(eval.status, 2) << eval.out;
  EXPECT_NE(eval.out.find("EGL"), std::string::npos) << eval.out;
  const Outcome gui = run(cat(kHeadless, {"--frames", "5"}), no_egl);
  EXPECT_EQ(gui.status, 2) << gui.out;
  EXPECT_NE(gui.out.find("cannot create a headless OpenGL 4.3 context"), std::string::npos) << gui.out;
  const Outcome shot =
      run({"shot", "--panel", "curves", "--out", (fresh_dir("noegl") / "x.png").string()}, no_egl);
  EXPECT_EQ(shot.status, 2) << shot.out;

  const Outcome old_gl = run({"eval", "--backend", "gpu", "--fn", "gelu", "--input", one_input()},
                             {"MESA_GL_VERSION_OVERRIDE=3.3"});
  EXPECT_EQ(old_gl.status, 2) << old_gl.out;
  EXPECT_NE(old_gl.out.find("4.3"), std::string::npos) << old_gl.out;
}

}  // namespace

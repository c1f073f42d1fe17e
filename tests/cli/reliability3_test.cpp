// Reliability, round three: the classes of hostile input the first two rounds did not reach, run end to end
// on the real binary (docs/reliability.md, "Round three: the classes"). Each section covers a class with
// cases of its own, not only the example that found it:
//   1. interrupted and limited writes: signals during a save, `ulimit -f`, long names, checks before work
//   2. reads never block, in every command
//   3. machine-readable output: integers in --json, UTF-8 in JSON, names in listings, NUL in sessions
//   4. one convention for output paths: `-` is standard output; two outputs on one path are refused
//   5. messages that name what is wrong: look-alike characters, error --all, --int8-range
//   6. numbers parsed once (see also tests/core/format_test.cpp)
//   7. the environment named: fonts, GELU_THREADS
//   8. lessons checked as they are used
// Every run is bounded by exec_gelulab's 20 s limit: a hang fails its test instead of stalling the suite.
//
// Index of this file:
//   [SECTION] Helpers
//   [SECTION] 1
//   [SECTION] 2
//   [SECTION] 4
//   [SECTION] 3
//   [SECTION] 5
//   [SECTION] 6
//   [SECTION] 7
//   [SECTION] 8
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gelu/json.hpp"
#include "support/files.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace json = gelu::json;
using gelu::test::ExecResult;
using gelu::test::StdoutTo;

// [SECTION] Helpers

class Scratch : public gelu::test::ScratchDir {
 public:
  explicit Scratch(const std::string& name) : ScratchDir("gelulab_reliability3", name) {}
  std::vector<std::string> env(const std::vector<std::string>& more = {}) const {
    std::vector<std::string> e = private_env({"GELU_FAULT", "GELU_THREADS"});
    e.insert(e.end(), more.begin(), more.end());
    return e;
  }
  /// gelulab in this directory, with a private config directory and no display.
  ExecResult run(const std::vector<std::string>& args, const std::vector<std::string>& more_env = {},
                 const std::string& input = "", std::size_t file_size_limit = 0) const {
    return gelu::test::exec_gelulab(args, input, (dir() / "run").string(), env(more_env), 20, 0,
                                    StdoutTo::Captured, "", file_size_limit);
  }
};

using gelu::test::put;
using gelu::test::slurp;

std::vector<std::string> temporaries(const fs::path& d) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path().string());
  return out;
}

/// The run ended (no hang, no signal) with `status`, and stderr holds every needle.
void expect_run(const ExecResult& r, int status, const std::vector<std::string>& needles) {
  ASSERT_FALSE(r.timed_out) << "hang; stderr: " << r.err;
  ASSERT_TRUE(r.exited) << "signal " << r.signal << "; stderr: " << r.err;
  EXPECT_EQ(r.status, status) << r.err;
  for (const std::string& n : needles)
    EXPECT_NE(r.err.find(n), std::string::npos) << "'" << n << "' not in: " << r.err;
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
}

[[maybe_unused]] std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Starts gelulab in the background (stdout and stderr into `log`), for tests that signal it mid-run.
pid_t spawn(const std::vector<std::string>& args, const std::vector<std::string>& env, const fs::path& cwd,
            const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int in = ::open("/dev/null", O_RDONLY);
  if (fd < 0 || in < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0 || ::dup2(in, 0) < 0) _exit(127);
  if (::chdir(cwd.c_str()) != 0) _exit(127);
  for (const std::string& e : env) {
    const auto eq = e.find('=');
    if (eq == std::string::npos)
      ::unsetenv(e.c_str());
    else
      ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
  }
  std::string exe = GELULAB_EXE;
  std::vector<std::string> copy = args;
  std::vector<char*> argv{exe.data()};
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(exe.c_str(), argv.data());
  _exit(127);
}

template <class F>
bool wait_until(F done, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

/// Waits for `pid` (at most `seconds`; then kills it) and returns its wait status, or -1 for a hang.
int wait_for(pid_t pid, double seconds) {
  int st = 0;
  if (wait_until([&] { return ::waitpid(pid, &st, WNOHANG) == pid; }, seconds)) return st;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &st, 0);
  return -1;
}

// [SECTION] 1. Interrupted and limited writes

/// A writer option of a subcommand: the arguments with "{o}" for the output path, and enough output that a
/// slow write (GELU_FAULT=slow-write) takes a while.
struct Writer {
  std::string name;
  std::vector<std::string> args;
};

std::vector<Writer> writers() {
  std::vector<Writer> w = {
      {"error_csv", {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "3001", "--csv", "{o}"}},
      {"fit_export_cpp",
       {"fit", "--form", "poly", "--degree", "6", "--range", "-4:4", "--export-cpp", "{o}"}},
      {"fit_vectors", {"fit", "--form", "poly", "--degree", "4", "--range", "-4:4", "--vectors", "{o}"}},
      {"train_save", {"train", "--dataset", "circle", "--layers", "2,16,1", "--steps", "3", "--save", "{o}"}},
  };
#if GELU_TEST_HAVE_GUI
  w.push_back({"shot_out", {"shot", "--panel", "curves", "--size", "320x240", "--out", "{o}"}});
  w.push_back(
      {"shot_csv", {"shot", "--panel", "curves", "--size", "320x240", "--out", "/dev/null", "--csv", "{o}"}});
#endif
  return w;
}

std::vector<std::string> with_out(const std::vector<std::string>& args, const std::string& out) {
  std::vector<std::string> r;
  for (const std::string& a : args) r.push_back(a == "{o}" ? out : a);
  return r;
}

TEST(InterruptedWrites, EverySignalThatEndsASaveRemovesItsTemporaryAndKeepsThePreviousFile) {
  for (const Writer& w : writers()) {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      const Scratch s("signal_" + w.name + "_" + std::to_string(sig));
      const fs::path out = s / "out.dat";
      put(out, "the previous file\n");
      const pid_t pid =
          spawn(with_out(w.args, out.string()), s.env({"GELU_FAULT=slow-write=40"}), s.dir(), s / "log.txt");
      ASSERT_GT(pid, 0);
      // The save has begun when its temporary exists (the work before it may take a moment).
      const bool saving = wait_until([&] { return !temporaries(s.dir()).empty(); }, 15);
      ::kill(pid, sig);
      const int st = wait_for(pid, 15);
      ASSERT_TRUE(saving) << w.name << ": no temporary seen; log: " << slurp(s / "log.txt");
      ASSERT_NE(st, -1) << w.name << " hangs after signal " << sig;
      EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sig)
          << w.name << ": ends as the signal says (status " << st << "); log: " << slurp(s / "log.txt");
      EXPECT_TRUE(temporaries(s.dir()).empty()) << w.name << " left " << temporaries(s.dir()).front();
      EXPECT_EQ(slurp(out), "the previous file\n") << w.name;
    }
  }
}

TEST(InterruptedWrites, ASignalDuringAFirstSaveLeavesNoFileAtAll) {
  const Scratch s("signal_new_file");
  const fs::path out = s / "new.csv";
  const pid_t pid = spawn(with_out(writers()[0].args, out.string()), s.env({"GELU_FAULT=slow-write=40"}),
                          s.dir(), s / "log.txt");
  ASSERT_TRUE(wait_until([&] { return !temporaries(s.dir()).empty(); }, 15));
  ::kill(pid, SIGTERM);
  const int st = wait_for(pid, 15);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) << st;
  EXPECT_TRUE(temporaries(s.dir()).empty());
  EXPECT_FALSE(fs::exists(out));
}

TEST(LimitedWrites, AFileSizeLimitIsAnErrorNamingTheFileNotSignal153) {
  for (const Writer& w : writers()) {
    const Scratch s("fsize_" + w.name);
    const fs::path out = s / "out.dat";
    put(out, "old\n");
    // 1 KiB: below every output above; stderr (a few hundred bytes) still fits.
    const ExecResult r = s.run(with_out(w.args, out.string()), {}, "", 1024);
    expect_run(r, 2, {out.string(), "File too large", "ulimit -f"});
    EXPECT_EQ(slurp(out), "old\n") << w.name;
    EXPECT_TRUE(temporaries(s.dir()).empty()) << w.name;
  }
}

TEST(LimitedWrites, StandardOutputPastTheLimitIsAnErrorToo) {
  const Scratch s("fsize_stdout");
  // Plain output (eval of many points), and a file option given as "-".
  const std::vector<std::vector<std::string>> runs = {
      {"eval", "--fn", "gelu"},
      {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "3001", "--csv", "-"},
      {"list", "--json"},
  };
  std::string numbers;
  for (int i = 0; i < 2000; ++i) numbers += std::to_string(i * 0.001) + "\n";
  for (const auto& args : runs) {
    const ExecResult r = s.run(args, {}, numbers, 512);
    expect_run(r, 2, {"standard output", "File too large"});
  }
}

TEST(LongNames, ALegalNameUpTo255BytesIsSavedByEveryWriter) {
  for (const Writer& w : writers()) {
    const Scratch s("long_" + w.name);
    // ASCII, and UTF-8 whose cut for the temporary's name would fall inside a character.
    for (const std::string& name : {std::string(250, 'n'), std::string(255, 'm'), std::string("x") + [] {
                                      std::string u;
                                      while (u.size() < 250) u += "\xc3\xa9";  // é
                                      return u;
                                    }()}) {
      const fs::path out = s / name;
      expect_run(s.run(with_out(w.args, out.string())), 0, {});
      EXPECT_TRUE(fs::is_regular_file(out)) << w.name << " " << name.size();
      EXPECT_GT(fs::file_size(out), 0u) << w.name;
      EXPECT_TRUE(temporaries(s.dir()).empty()) << w.name;
      // Saved again over the existing file (the temporary's name is the long one's again).
      expect_run(s.run(with_out(w.args, out.string())), 0, {});
      EXPECT_TRUE(temporaries(s.dir()).empty()) << w.name;
    }
  }
}

TEST(LongNames, ANameOverNameMaxIsRefusedBeforeTheWork) {
  const Scratch s("too_long");
  const std::string name(256, 'z');
  // A training run of many minutes: the refusal must come first, within the test's 20 s.
  const std::vector<std::string> train_long = {
      "train",   "--dataset", "spiral", "--layers", "2,128,128,128,1",  "--steps",
      "3000000", "--batch",   "256",    "--save",   (s / name).string()};
  expect_run(s.run(train_long), 2, {"--save", "256 bytes", "NAME_MAX"});
  const std::vector<std::string> error_long = {
      "error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "10000000", "--csv", (s / name).string()};
  expect_run(s.run(error_long), 2, {"--csv", "NAME_MAX"});
}

// [SECTION] 2. Reads never block, in every command

/// Every file option of the commands that round two's list did not have (check's --pairs, --x, --y): a
/// FIFO (with or without a writer), a socket and an endless device are refused at once, by name.
TEST(ReadsNeverBlock, EveryFileOfCheckGoesThroughTheOneReader) {
  const std::vector<std::vector<std::string>> cases = {
      {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", "{f}"},
      {"check", "--fn", "gelu", "--dtype", "bf16", "--x", "{f}", "--y", "{npy}"},
      {"check", "--fn", "gelu", "--dtype", "bf16", "--x", "{npy}", "--y", "{f}"},
  };
  for (const auto& args : cases) {
    const Scratch s("check_reader");
    // A real .npy file for the other column (the one under test is the FIFO).
    std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string npy = "\x93NUMPY\x01";
    npy += '\0';
    npy += static_cast<char>(h.size());
    npy += '\0';
    npy += h + std::string(4, '\0');
    put(s / "ok.npy", npy);
    const fs::path fifo = s / "in.npy";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    std::vector<std::string> a;
    for (const std::string& x : args)
      a.push_back(x == "{f}" ? fifo.string() : x == "{npy}" ? (s / "ok.npy").string() : x);
    expect_run(s.run(a), 2, {fifo.string(), "a FIFO (named pipe)"});
    const int w = ::open(fifo.c_str(), O_RDWR);
    ASSERT_GE(w, 0);
    expect_run(s.run(a), 2, {"FIFO"});
    ::close(w);
    std::vector<std::string> dev;
    for (const std::string& x : a) dev.push_back(x == fifo.string() ? "/dev/zero" : x);
    expect_run(s.run(dev), 2, {"a character device"});
  }
}

// [SECTION] 4. One convention for output paths

/// "-" is standard output for every writer that can write a stream: the output is exactly what the file
/// would hold, and no file named "-" is made.
TEST(OutputPaths, DashIsStandardOutputForEveryStreamWriter) {
  for (const Writer& w : writers()) {
    const Scratch s("dash_" + w.name);
    const ExecResult to_file = s.run(with_out(w.args, (s / "file.out").string()));
    expect_run(to_file, 0, {});
    const ExecResult to_stdout = s.run(with_out(w.args, "-"));
    expect_run(to_stdout, 0, {});
    EXPECT_FALSE(fs::exists(s / "run" / "-")) << w.name << " made a file named '-'";
    const std::string file = slurp(s / "file.out");
    ASSERT_FALSE(file.empty()) << w.name;
    if (w.name == "shot_out") {
      EXPECT_EQ(to_stdout.out.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << w.name;
    } else if (w.name == "train_save" || w.name == "fit_export_cpp" || w.name == "fit_vectors") {
      // Deterministic outputs (a seeded training run; the fit): the same bytes.
      EXPECT_EQ(to_stdout.out, file) << w.name;
    } else {
      EXPECT_EQ(to_stdout.out.substr(0, 40), file.substr(0, 40)) << w.name;
    }
  }
}

TEST(OutputPaths, DashIsRefusedWhereStandardOutputIsTakenOrMakesNoSense) {
  const Scratch s("dash_refused");
  // Two outputs on standard output; an output and the --json report.
  expect_run(s.run({"fit", "--form", "poly", "--degree", "4", "--range", "-4:4", "--export-cpp", "-",
                    "--vectors", "-"}),
             2, {"--vectors -", "--export-cpp - already writes standard output"});
  expect_run(
      s.run({"fit", "--form", "poly", "--degree", "4", "--range", "-4:4", "--export-glsl", "-", "--json"}), 2,
      {"--export-glsl -", "the JSON"});
  expect_run(
      s.run({"train", "--dataset", "circle", "--layers", "2,4,1", "--steps", "2", "--save", "-", "--json"}),
      2, {"--save -", "the JSON"});
  expect_run(s.run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--csv", "-", "--markdown"}), 2,
             {"--csv -", "the Markdown"});
#if GELU_TEST_HAVE_GUI
  expect_run(s.run({"shot", "--panel", "curves", "--size", "320x240", "--out", "-", "--meta", "-"}), 2,
             {"--meta -", "--out - already writes standard output"});
  expect_run(s.run({"gui", "--headless", "--frames", "2", "--session", "-"}), 2, {"--session -", "a file"});
  expect_run(s.run({"gui", "--headless", "--frames", "2", "--monkey", "1", "--monkey-script", "-"}), 2,
             {"--monkey-script -"});
#endif
  EXPECT_FALSE(fs::exists(s / "run" / "-"));
}

/// Two outputs naming one file, in every spelling: the same text, "./x", "d/../x", a symbolic link, a hard
/// link, a dangling link to where the other would be made. Refused before the work, exit 2, nothing written.
TEST(OutputPaths, TwoOutputsOnOneFileAreRefusedBeforeTheWork) {
  const Scratch s("same_file");
  fs::create_directories(s / "d");
  put(s / "exists.txt", "old\n");
  fs::create_symlink(s / "exists.txt", s / "link.txt");
  fs::create_hard_link(s / "exists.txt", s / "hard.txt");
  fs::create_symlink(s / "new.txt", s / "dangling.txt");
  const std::vector<std::pair<std::string, std::string>> spellings = {
      {(s / "exists.txt").string(), (s / "exists.txt").string()},
      {(s / "exists.txt").string(), (s / "d" / ".." / "exists.txt").string()},
      {"exists.txt", "./exists.txt"},
      {(s / "exists.txt").string(), (s / "link.txt").string()},
      {(s / "hard.txt").string(), (s / "exists.txt").string()},
      {(s / "new.txt").string(), (s / "dangling.txt").string()},
      {(s / "new.txt").string(), (s / "d" / ".." / "new.txt").string()},
  };
  for (const auto& [a, b] : spellings) {
    // fit: --export-cpp and --vectors (a fit that takes seconds: refused first).
    expect_run(
        gelu::test::exec_gelulab(
            {"fit", "--form", "poly", "--degree", "8", "--range", "-8:8", "--export-cpp", a, "--vectors", b},
            "", (s / "run").string(), s.env(), 20, 0, StdoutTo::Captured, s.dir().string()),
        2, {"--export-cpp and --vectors both name the file", "one output would overwrite the other"});
    expect_run(gelu::test::exec_gelulab({"fit", "--form", "poly", "--degree", "4", "--range", "-4:4",
                                         "--export-glsl", a, "--export-cuda", b},
                                        "", (s / "run").string(), s.env(), 20, 0, StdoutTo::Captured,
                                        s.dir().string()),
               2, {"--export-glsl and --export-cuda"});
#if GELU_TEST_HAVE_GUI
    const std::vector<std::vector<std::string>> shots = {
        {"--out", a, "--plot-out", b},
        {"--out", a, "--meta", b},
        {"--out", "/dev/null", "--meta", a, "--csv", b},
        {"--out", "/dev/null", "--session-out", a, "--csv", b}};
    for (const auto& extra : shots)
      expect_run(gelu::test::exec_gelulab(cat({"shot", "--panel", "curves", "--size", "320x240"}, extra), "",
                                          (s / "run").string(), s.env(), 20, 0, StdoutTo::Captured,
                                          s.dir().string()),
                 2, {"both name the file"});
    expect_run(
        gelu::test::exec_gelulab({"gui", "--headless", "--frames", "2", "--report", a, "--save-png", b}, "",
                                 (s / "run").string(), s.env(), 20, 0, StdoutTo::Captured, s.dir().string()),
        2, {"--report and --save-png both name the file"});
#endif
    EXPECT_EQ(slurp(s / "exists.txt"), "old\n");
    EXPECT_FALSE(fs::exists(s / "new.txt"));
  }
  // Devices may be shared: both outputs into /dev/null is fine.
  expect_run(s.run({"fit", "--form", "poly", "--degree", "4", "--range", "-4:4", "--export-cpp", "/dev/null",
                    "--vectors", "/dev/null"}),
             0, {});
}

// [SECTION] 3. Machine-readable output is machine-readable

/// Every number token of a JSON text (outside strings) whose value is an integer up to 2^53 is spelled as
/// an integer: the first one that is not ("1e+07", "3.0"), or "" when all are.
std::string first_integer_not_spelled_as_one(const std::string& text) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i + 1;
      while (j < text.size() && std::string_view("0123456789.eE+-").find(text[j]) != std::string_view::npos)
        ++j;
      const std::string token = text.substr(i, j - i);
      const double v = std::strtod(token.c_str(), nullptr);
      if (v == std::floor(v) && std::fabs(v) <= 9007199254740992.0 &&
          token.find_first_of(".eE") != std::string::npos)
        return token;
      i = j - 1;
    }
  }
  return "";
}

TEST(MachineReadable, EveryIntegerInEveryCommandsJsonIsWrittenAsAnInteger) {
  const Scratch s("json_integers");
  const std::vector<std::vector<std::string>> runs = {
      {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "1000000", "--json"},
      {"error", "--fn", "gelu_tanh", "--fn", "silu", "--vs", "gelu", "--samples", "2000000", "--json"},
      {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--all", "--dtype", "bf16", "--json"},
      {"train", "--dataset", "circle", "--layers", "2,4,1", "--steps", "2", "--seed", "10000000", "--json"},
      {"fit", "--form", "poly", "--degree", "4", "--range", "-4:4", "--json"},
      {"props", "--fn", "gelu", "--json"},
      {"list", "--json"},
  };
  for (const auto& args : runs) {
    const ExecResult r = s.run(args);
    expect_run(r, 0, {});
    ASSERT_NO_THROW(json::parse(r.out)) << args[0];
    EXPECT_EQ(first_integer_not_spelled_as_one(r.out), "") << args[0] << " " << args[1];
  }
  EXPECT_NE(s.run(runs[0]).out.find("\"samples\":1000000"), std::string::npos);
  // Files too: the model file's meta (steps, seed), the session.
  expect_run(s.run({"train", "--dataset", "circle", "--layers", "2,4,1", "--steps", "2", "--seed", "10000000",
                    "--save", (s / "m.json").string()}),
             0, {});
  EXPECT_EQ(first_integer_not_spelled_as_one(slurp(s / "m.json")), "");
  EXPECT_NE(slurp(s / "m.json").find("10000000"), std::string::npos);
}

bool valid_utf8(const std::string& t) {
  for (std::size_t i = 0; i < t.size();) {
    const auto c = static_cast<unsigned char>(t[i]);
    const std::size_t n = c < 0x80                 ? 1
                          : c >= 0xC2 && c <= 0xDF ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
    if (n == 0 || i + n > t.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(t[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

#if GELU_TEST_HAVE_GUI
const std::string kLesson = std::string(GELU_SOURCE_DIR) + "/assets/lessons/1_what_is_gelu.json";

TEST(MachineReadable, ASessionWithALessonPathThatIsNotUtf8IsStillUtf8Json) {
  for (const std::string& name : {std::string("le\xE7on.json"), std::string("\xFF\xFE.json"),
                                  std::string("cut\xE2\x82.json"), std::string("\xC0\x80.json")}) {
    const Scratch s("session_utf8");
    fs::copy_file(kLesson, s / name);
    const fs::path session = s / "s.json";
    expect_run(s.run({"shot", "--lesson", (s / name).string(), "--size", "320x240", "--out", "/dev/null",
                      "--session-out", session.string()}),
               0, {});
    const std::string text = slurp(session);
    EXPECT_TRUE(valid_utf8(text)) << text.substr(0, 200);
    ASSERT_NO_THROW(json::parse(text));
    EXPECT_NE(text.find("\\ufffd"), std::string::npos);
  }
}

TEST(MachineReadable, ASessionsLessonPathHoldingNulIsRefusedNotCut) {
  const Scratch s("session_nul");
  fs::copy_file(kLesson, s / "x.json");
  // What the path would be cut to is a real lesson: it must not be opened.
  const std::string session = R"({"format": "gelulab-session", "version": 1, "active_panel": "curves",
      "lesson": {"file": ")" + (s / "x.json").string() +
                              R"(\u0000.evil", "step": 1}})";
  put(s / "s.json", session);
  const ExecResult r = s.run({"shot", "--session", (s / "s.json").string(), "--size", "320x240", "--out",
                              "/dev/null", "--meta", (s / "m.json").string()});
  expect_run(r, 0, {});
  const json::Value meta = json::parse(slurp(s / "m.json"));
  EXPECT_TRUE(meta.at("lesson_bar").is_null()) << "the cut path was opened";
  const std::string message = meta.at("message").as_string();
  EXPECT_NE(message.find("NUL"), std::string::npos) << message;
}

TEST(MachineReadable, TheLessonsListingPrintsEveryNameOnItsOwnLine) {
  const Scratch s("lessons_names");
  fs::create_directories(s / "lessons");
  for (const std::string& name : {std::string("a\nok  fake.json"), std::string("tab\there.json"),
                                  std::string("esc\x1b[31mred.json"), std::string("bad\xFF.json")})
    fs::copy_file(kLesson, s / "lessons" / name);
  const ExecResult r = s.run({"lessons"}, {"GELULAB_LESSONS=" + (s / "lessons").string()});
  expect_run(r, 0, {});
  std::istringstream lines(r.out);
  std::string line;
  int entries = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("lessons in", 0) == 0) continue;
    EXPECT_EQ(line.rfind("ok  ", 0), 0u) << "a line that is not an entry: " << line;
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
    EXPECT_EQ(line.find('\t'), std::string::npos) << line;
    ++entries;
  }
  EXPECT_EQ(entries, 4) << r.out;
}
#endif

// [SECTION] 5. Messages that name what is wrong

TEST(Messages, LookAlikeAndInvisibleCharactersAreNamedByCodePointWithWhatToType) {
  const Scratch s("look_alikes");
  const struct {
    std::string text, code, hint;
  } chars[] = {
      {"\xE2\x88\x92", "U+2212", "use '-'"},  // minus sign (the app draws it)
      {"\xE2\x80\x93", "U+2013", "use '-'"},  // en dash
      {"\xE2\x80\x94", "U+2014", "use '-'"},  // em dash
      {"\xE2\x80\x90", "U+2010", "use '-'"},  // hyphen
      {"\xEF\xBC\x8D", "U+FF0D", "use '-'"},  // fullwidth hyphen-minus
      {"\xEF\xB9\xA3", "U+FE63", "use '-'"},  // small hyphen-minus
  };
  for (const auto& c : chars) {
    // As a sign in a number option, and in a range.
    expect_run(s.run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--range", c.text + "1:1"}), 2,
               {"--range", c.code, c.hint});
    expect_run(s.run({"eval", "--fn", "gelu_tanh", "--param", "c=" + c.text + "0.1"}), 2,
               {"--param", c.code, c.hint});
    // In eval's input.
    expect_run(s.run({"eval", "--fn", "gelu"}, {}, c.text + "1\n"), 2, {c.code, c.hint});
  }
  expect_run(s.run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "\xEF\xBC\x91\xEF\xBC\x90"}),
             2, {"--samples", "U+FF11", "use '1'", "U+FF10", "use '0'"});
  expect_run(s.run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples",
                    "1\xE2\x80\x8B"
                    "0"}),
             2, {"--samples", "U+200B"});
  expect_run(s.run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--range", "-1\xC2\xA0:1"}), 2,
             {"--range", "U+00A0"});
  expect_run(s.run({"eval", "--fn", "gelu"}, {},
                   "1\xD0\xB5"
                   "3\n"),
             2, {"U+0435", "use 'e'"});
}

/// Every "x = NUMBER" in a report: the numbers.
std::vector<std::string> x_values(const std::string& out) {
  std::vector<std::string> v;
  for (std::size_t at = out.find("x = "); at != std::string::npos; at = out.find("x = ", at + 1)) {
    std::size_t end = at + 4;
    while (end < out.size() && out[end] != ' ' && out[end] != ')' && out[end] != '\n' && out[end] != ';')
      ++end;
    v.push_back(out.substr(at + 4, end - at - 4));
  }
  return v;
}

TEST(Messages, ErrorAllNeverPrintsAnEmptyNumberAndKeepsTailsInTheRange) {
  const Scratch s("error_all");
  for (const std::string fn : {"relu", "gelu", "silu", "gelu_tanh"}) {
    for (const std::string dtype : {"bf16", "f16", "e4m3", "e5m2"}) {
      for (const std::vector<std::string>& range :
           {std::vector<std::string>{}, {"--range", "0:3"}, {"--range", "-2:3"}, {"--range", "-30:-1"}}) {
        const ExecResult r =
            s.run(cat({"error", "--fn", fn, "--vs", "gelu", "--all", "--dtype", dtype}, range));
        expect_run(r, 0, {});
        EXPECT_EQ(r.out.find("= -)"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("= -\n"), std::string::npos) << r.out;
        const double lo = range.empty() ? -INFINITY : std::strtod(range[1].c_str(), nullptr);
        const double hi =
            range.empty() ? INFINITY : std::strtod(range[1].c_str() + range[1].find(':', 1) + 1, nullptr);
        // The tail reports ("zero:", "overflow:" lines); the verdict's figures are rounded to 3 digits.
        std::string tails;
        std::istringstream lines(r.out);
        for (std::string line; std::getline(lines, line);)
          if (line.rfind("zero:", 0) == 0 || line.rfind("overflow:", 0) == 0) tails += line + "\n";
        for (const std::string& x : x_values(tails)) {
          char* end = nullptr;
          const double v = std::strtod(x.c_str(), &end);
          EXPECT_TRUE(!x.empty() && *end == '\0') << fn << " " << dtype << ": '" << x << "' in " << r.out;
          EXPECT_TRUE(v >= lo && v <= hi) << fn << " " << dtype << ": x = " << x << " outside the range\n"
                                          << r.out;
        }
      }
    }
  }
}

TEST(Messages, AnInt8RangeTooNarrowNamesTheOptionNotAZeroPoint) {
  const Scratch s("int8_range");
  for (const std::string r : {"-5e-324:5e-324", "0:5e-324", "-1e-322:0", "-4e-323:4e-323"}) {
    for (const std::string cmd : {"error", "eval"}) {
      std::vector<std::string> args = {cmd, "--fn", "gelu_tanh", "--dtype", "int8", "--int8-range", r};
      if (cmd == "error") args = cat(args, {"--vs", "gelu"});
      const ExecResult x = s.run(args, {}, "1\n");
      expect_run(x, 2, {"--int8-range", r});
      EXPECT_EQ(x.err.find("zero point"), std::string::npos) << x.err;
    }
  }
}

// [SECTION] 6. Numbers parsed once (the table of every format: tests/core/numio_test.cpp)

TEST(NumbersParsedOnce, EvalReadsADecimalJustBelowOverflowAsTheLargestValue) {
  const Scratch s("overflow");
  const struct {
    const char* dtype;
    const char* below;  // a hair below the overflow threshold: its nearest double is the threshold
    const char* max;
  } cases[] = {{"f16", "65519.999999999999999999", "65504"},
               {"e5m2", "61439.99999999999999999", "57344"},
               {"bf16", "339617752923046005526922703901628039167.9999999999", "3.3895314e+38"}};
  for (const auto& c : cases) {
    // eval prints f(x) of x as read; f = the identity is not in the registry, so read what relu gives.
    const ExecResult r = s.run({"eval", "--fn", "relu", "--dtype", c.dtype}, {}, std::string(c.below) + "\n");
    expect_run(r, 0, {});
    EXPECT_EQ(r.out.find("inf"), std::string::npos) << c.dtype << ": " << r.out;
  }
}

// [SECTION] 7. The environment is named when it is wrong

TEST(Environment, AnInvalidGeluThreadsIsAnErrorNamingItAndTheRange) {
  const Scratch s("threads");
  for (const std::string v :
       {"abc", "0", "-2", "1.5", "100000", "", " 4", "4x", "+4", "99999999999999999999"}) {
    const ExecResult r = s.run({"list"}, {"GELU_THREADS=" + v});
    expect_run(r, 2, {"GELU_THREADS", "1 to 1024"});
    EXPECT_TRUE(r.out.empty()) << v;
  }
  for (const std::string v : {"1", "2", "1024"}) expect_run(s.run({"list"}, {"GELU_THREADS=" + v}), 0, {});
  expect_run(s.run({"eval", "--fn", "gelu"}, {"GELU_THREADS=0"}, "1\n"), 2, {"GELU_THREADS='0'"});
}

#if GELU_TEST_HAVE_GUI
TEST(Environment, MissingFontsAreAnErrorNamingTheFileNotQuestionMarks) {
  const Scratch s("fonts");
  fs::create_directories(s / "fonts");
  const std::string src = "/usr/share/fonts/truetype/dejavu/";
  // No font at all; only the regular one; a FIFO in place of the bold one (the one reader: no hang).
  for (int c = 0; c < 3; ++c) {
    fs::remove_all(s / "fonts");
    fs::create_directories(s / "fonts");
    if (c >= 1) fs::copy_file(src + "DejaVuSans.ttf", s / "fonts" / "DejaVuSans.ttf");
    if (c == 2) {
      ASSERT_EQ(::mkfifo((s / "fonts" / "DejaVuSans-Bold.ttf").c_str(), 0644), 0);
    }
    const std::string missing = (s / "fonts" / (c == 0 ? "DejaVuSans.ttf" : "DejaVuSans-Bold.ttf")).string();
    const std::vector<std::string> env = {"GELU_FONT_DIR=" + (s / "fonts").string()};
    expect_run(
        s.run({"shot", "--panel", "curves", "--size", "320x240", "--out", (s / "o.png").string()}, env), 2,
        {missing, "GELU_FONT_DIR"});
    EXPECT_FALSE(fs::exists(s / "o.png"));
    expect_run(s.run({"gui", "--headless", "--frames", "2"}, env), 2, {missing});
  }
  // With both: draws.
  fs::remove_all(s / "fonts");
  fs::create_directories(s / "fonts");
  for (const char* f : {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf"}) fs::copy_file(src + f, s / "fonts" / f);
  expect_run(s.run({"shot", "--panel", "curves", "--size", "320x240", "--out", (s / "o.png").string()},
                   {"GELU_FONT_DIR=" + (s / "fonts").string()}),
             0, {});
}

// [SECTION] 8. Lessons are checked as they are used

std::string lesson_with_steps(int n) {
  std::string steps;
  for (int i = 0; i < n; ++i)
    steps += std::string(i ? "," : "") + R"({"title": "s", "text": "t", "panel": "curves", "state": {}})";
  return R"({"title": "many", "version": 1, "steps": [)" + steps + "]}";
}

TEST(LessonsChecked, AStepCountBeyondWhatStepCanOpenIsAnError) {
  const Scratch s("lesson_steps");
  for (const int n : {1001, 1500, 10000}) {
    put(s / "l.json", lesson_with_steps(n));
    expect_run(s.run({"lessons", "--check", (s / "l.json").string()}), 2,
               {"steps", std::to_string(n) + " steps", "at most 1000"});
  }
  // 1000 checks, and its last step opens. (--no-layout: laying 1000 steps out at three sizes takes minutes;
  // the count is the structure check's.)
  put(s / "l.json", lesson_with_steps(1000));
  expect_run(s.run({"lessons", "--check", (s / "l.json").string(), "--no-layout"}), 0, {});
  expect_run(s.run({"shot", "--lesson", (s / "l.json").string(), "--step", "1000", "--size", "320x240",
                    "--out", "/dev/null"}),
             0, {});
}

// A lesson whose steps are curves steps at the default state (it draws GELU (exact), GELU (tanh
// approximation), ReLU and SiLU / Swish), each with the view given.
std::string curves_lesson(const std::vector<std::string>& views) {
  std::string steps;
  for (const std::string& v : views)
    steps += std::string(steps.empty() ? "" : ",") +
             R"({"title": "s", "text": "t", "panel": "curves", "state": {}, "view": )" + v + "}";
  return R"({"title": "series", "version": 2, "steps": [)" + steps + "]}";
}

TEST(LessonsChecked, AViewSeriesNamingNoSeriesIsAnErrorNamingStepEntryNameAndTheSeriesThereAre) {
  const Scratch s("lesson_series");
  const std::string good = R"j({"series": ["GELU (exact)", "ReLU"]})j";
  put(s / "ok.json", curves_lesson({good}));
  put(s / "bad.json", curves_lesson({good, R"j({"series": ["GELU (exact)", "Swish"]})j"}));
  for (const bool layout : {true, false}) {
    std::vector<std::string> args = {"lessons"};
    if (!layout) args.push_back("--no-layout");
    expect_run(s.run(cat(args, {"--check", (s / "ok.json").string()})), 0, {});
    const ExecResult r = s.run(cat(args, {"--check", (s / "bad.json").string()}));
    expect_run(
        r, 2,
        {"bad.json", "steps[1].view.series[1]", "'Swish'", "'GELU (exact)'", "'ReLU'", "'SiLU / Swish'"});
    EXPECT_EQ(r.err.find("steps[0]"), std::string::npos) << "the good step was refused: " << r.err;
    // 'Swish' is a part of 'SiLU / Swish', not a near miss of any name: no guess is offered.
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("series[0]"), std::string::npos) << "a drawn series was refused: " << r.err;
  }
}

TEST(LessonsChecked, ARevealNamingNoSeriesIsAnErrorToo) {
  const Scratch s("lesson_reveal");
  put(s / "l.json", curves_lesson({R"j({"reveal": ["ReLU", "GELU (exact)", "GELU (erf)"]})j"}));
  for (const bool layout : {true, false}) {
    std::vector<std::string> args = {"lessons", "--check", (s / "l.json").string()};
    if (!layout) args.push_back("--no-layout");
    const ExecResult r = s.run(args);
    expect_run(r, 2, {"l.json", "steps[0].view.reveal[2]", "'GELU (erf)'", "'GELU (tanh approximation)'"});
    EXPECT_EQ(r.err.find("reveal[0]"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("reveal[1]"), std::string::npos) << r.err;
  }
  // Both lists of one step, each entry named.
  put(s / "l.json",
      curves_lesson({R"j({"series": ["GELU (exact)", "relu"], "reveal": ["GELU (exact)", "SiLU/Swish"]})j"}));
  expect_run(s.run({"lessons", "--check", (s / "l.json").string(), "--no-layout"}), 2,
             {"steps[0].view.series[1]: no series 'relu' on this step (did you mean 'ReLU'?)",
              "steps[0].view.reveal[1]: no series 'SiLU/Swish' on this step (did you mean 'SiLU / Swish'?)"});
}

TEST(LessonsChecked, ANearMissSpellingOfAShippedLessonsRevealFails) {
  const Scratch s("lesson_near_miss");
  const std::string shipped =
      slurp(std::string(GELU_SOURCE_DIR) + "/assets/lessons/6_checking_common_claims.json");
  const std::string name = "\"GELU (tanh approximation)\"";
  ASSERT_NE(shipped.find(name), std::string::npos) << "lesson 6 no longer reveals the tanh form";
  // A letter dropped, another case, a space more, a space at the end: each is another name.
  for (const char* miss : {"\"GELU (tanh aproximation)\"", "\"GELU (Tanh approximation)\"",
                           "\"GELU  (tanh approximation)\"", "\"GELU (tanh approximation) \""}) {
    std::string text = shipped;
    text.replace(text.find(name), name.size(), miss);
    put(s / "l.json", text);
    const ExecResult r = s.run({"lessons", "--check", (s / "l.json").string(), "--no-layout"});
    expect_run(
        r, 2,
        {"l.json", "steps[4].view.reveal[1]: no series", "(did you mean 'GELU (tanh approximation)'?)"});
  }
}

TEST(LessonsChecked, EveryShippedLessonNamesOnlySeriesItsStepsDraw) {
  const Scratch s("lesson_shipped");
  std::vector<std::string> args = {"lessons", "--no-layout"};
  int n = 0;
  for (const auto& e : fs::directory_iterator(std::string(GELU_SOURCE_DIR) + "/assets/lessons"))
    if (e.path().extension() == ".json") {
      args.insert(args.end(), {"--check", e.path().string()});
      ++n;
    }
  ASSERT_GE(n, 7);
  const ExecResult r = s.run(args);
  expect_run(r, 0, {});
  EXPECT_EQ(r.err, "") << "a shipped lesson's series were not checked";
}
#endif

}  // namespace

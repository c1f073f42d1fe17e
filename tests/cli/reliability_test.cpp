// Reliability, round two: what a real user's files, disks and environment do to gelulab, run end to end on
// the real binary (docs/reliability.md lists the classes; the section names here follow them).
//   1. writes through what is at the path: symbolic links, modes, /dev/null, FIFOs, sockets
//   2. one output-path policy, checked before the work, for every writer option of every subcommand
//   3. standard output is a file too: /dev/full and a closed stdout, for every subcommand
//   4. reads that never block: FIFOs (with and without a writer), sockets and devices for every file option
//   5. everything the app writes, it reads back: relative lessons in sessions, non-finite numbers in reports
//   8. the environment is named when it is wrong: GELU_EGL_PLATFORM, GELULAB_LESSONS
//   9. text a person cannot see: a byte order mark on eval's input
// (Class 6 is in tests/core/properties_range_test.cpp; 9 and 10 also have rows in hostile_input_test.cpp;
// read-only disks and the session's environment (XDG_CONFIG_HOME, HOME) in tests/app/fault_test.cpp.)
// Every run is bounded by exec_gelulab's 20 s limit: a hang fails its test instead of stalling the suite.
//
// Index of this file:
//   [SECTION] Helpers
//   [SECTION] 1
//   [SECTION] 2
//   [SECTION] 3
//   [SECTION] 4
//   [SECTION] 5
//   [SECTION] 8
//   [SECTION] 9
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
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

const std::string kLesson = std::string(GELU_SOURCE_DIR) + "/assets/lessons/1_what_is_gelu.json";

// [SECTION] Helpers

class Scratch : public gelu::test::ScratchDir {
 public:
  explicit Scratch(const std::string& name) : ScratchDir("gelulab_reliability", name) {}
  /// gelulab in this directory, with a private config directory and no display.
  ExecResult run(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                 const std::string& input = "", StdoutTo to = StdoutTo::Captured) const {
    return gelu::test::exec_gelulab(args, input, (dir() / "run").string(), private_env(env), 20, 0, to);
  }
};

using gelu::test::put;
using gelu::test::slurp;

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 07777;
}

bool is_link(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

int temporaries(const fs::path& d) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(d))
    n += e.path().filename().string().find(".tmp-") != std::string::npos;
  return n;
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

int bind_socket(const fs::path& p) {
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", p.c_str());
  return ::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? s : -1;
}

const std::vector<std::string> kTrainSmall = {"train", "--dataset", "circle", "--layers",
                                              "2,4,1", "--steps",   "5"};
// A run that would take many minutes: an output problem must be found before it starts.
const std::vector<std::string> kTrainLong = {"train",   "--dataset", "spiral",  "--layers", "2,128,128,128,1",
                                             "--steps", "3000000",   "--batch", "256"};

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// [SECTION] 1. Writes through what is at the path

TEST(WritesThroughThePath, TrainSaveThroughASymlinkWritesTheTargetKeepsTheLinkAndTheMode) {
  const Scratch s("train_link");
  fs::create_directories(s / "real");
  const fs::path real = s / "real" / "t.json";
  expect_run(s.run(cat(kTrainSmall, {"--save", real.string()})), 0, {});
  ::chmod(real.c_str(), 0600);
  fs::create_symlink("real/t.json", s / "link.json");
  const std::vector<std::string> train7 = {"train", "--dataset", "circle", "--layers",
                                           "2,4,1", "--steps",   "7"};
  expect_run(s.run(cat(train7, {"--save", (s / "link.json").string()})), 0, {});
  EXPECT_TRUE(is_link(s / "link.json"));
  EXPECT_EQ(fs::read_symlink(s / "link.json"), "real/t.json");
  EXPECT_EQ(json::parse(slurp(real)).at("meta").at("steps").as_number(), 7);
  EXPECT_EQ(mode_of(real), 0600u);
  EXPECT_EQ(temporaries(s / "real"), 0);
  EXPECT_EQ(temporaries(s.dir()), 0);
}

TEST(WritesThroughThePath, CsvIntoDevNullLeavesTheDevice) {
  const Scratch s("devnull");
  expect_run(s.run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "101", "--csv", "/dev/null"}),
             0, {});
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // Through a link (a dotfile pointing at /dev/null): the link stays.
  fs::create_symlink("/dev/null", s / "null.csv");
  expect_run(
      s.run({"error", "--fn", "gelu", "--vs", "gelu", "--samples", "11", "--csv", (s / "null.csv").string()}),
      0, {});
  EXPECT_TRUE(is_link(s / "null.csv"));
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(WritesThroughThePath, CsvIntoAFifoReachesItsReaderAndWithoutOneIsRefused) {
  const Scratch s("fifo");
  const fs::path fifo = s / "curve.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::vector<std::string> args = {"error",     "--fn", "gelu_tanh", "--vs",       "gelu",
                                         "--samples", "11",   "--csv",     fifo.string()};
  expect_run(s.run(args), 2, {"--csv", "FIFO", "nothing is reading"});
  const int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rfd, 0);
  std::string got;
  std::atomic<bool> done{false};
  std::thread reader([&] {  // a reader like `cat`: reads until the writer has come and gone
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(rfd, buf, sizeof buf);
      if (n > 0) {
        got.append(buf, static_cast<std::size_t>(n));
      } else if (done) {
        break;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // no writer yet, or nothing written yet
      }
    }
  });
  const ExecResult r = s.run(args);
  done = true;
  reader.join();
  ::close(rfd);
  expect_run(r, 0, {});
  EXPECT_EQ(got.rfind("x,value,reference", 0), 0u) << got;
  EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 12);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(WritesThroughThePath, ASocketIsRefusedBeforeTheWork) {
  const Scratch s("socket");
  const int sock = bind_socket(s / "m.json");
  ASSERT_GE(sock, 0);
  expect_run(s.run(cat(kTrainLong, {"--save", (s / "m.json").string()})), 2,
             {"--save: cannot write", "a socket"});
  ::close(sock);
}

#if GELU_TEST_HAVE_GUI
TEST(WritesThroughThePath, EveryShotOutputThroughALinkKeepsTheLinkAndTheMode) {
  const Scratch s("shot_links");
  fs::create_directories(s / "dots");
  struct Out {
    const char* option;
    const char* name;
  };
  const std::vector<Out> outs = {{"--out", "a.png"},
                                 {"--csv", "a.csv"},
                                 {"--plot-out", "p.png"},
                                 {"--meta", "m.json"},
                                 {"--session-out", "s.json"}};
  std::vector<std::string> args = {"shot", "--panel", "curves", "--size", "640x400"};
  for (const Out& o : outs) {
    const fs::path real = s / "dots" / o.name;
    put(real, "old");
    ::chmod(real.c_str(), 0640);
    fs::create_symlink(fs::path("dots") / o.name, s / o.name);
    args.push_back(o.option);
    args.push_back((s / o.name).string());
  }
  expect_run(s.run(args), 0, {});
  for (const Out& o : outs) {
    EXPECT_TRUE(is_link(s / o.name)) << o.option;
    EXPECT_NE(slurp(s / "dots" / o.name), "old") << o.option;
    EXPECT_EQ(mode_of(s / "dots" / o.name), 0640u) << o.option;
  }
  EXPECT_EQ(temporaries(s / "dots"), 0);
  EXPECT_EQ(json::parse(slurp(s / "dots" / "s.json")).at("active_panel").as_string(), "curves");
}

TEST(WritesThroughThePath, TheAutosaveWritesASymlinkedSessionsTarget) {
  const Scratch s("autosave_link");
  fs::create_directories(s / "dotfiles");
  const fs::path real = s / "dotfiles" / "session.json";
  expect_run(s.run({"shot", "--panel", "dropout", "--size", "320x240", "--session-out", real.string(),
                    "--out", (s / "x.png").string()}),
             0, {});
  ::chmod(real.c_str(), 0600);
  fs::create_symlink(real, s / "session.json");  // as a dotfile manager leaves it
  expect_run(s.run({"gui", "--headless", "--size", "640x400", "--frames", "3", "--panel", "approx",
                    "--session", (s / "session.json").string()}),
             0, {});
  EXPECT_TRUE(is_link(s / "session.json"));
  EXPECT_EQ(json::parse(slurp(real)).at("active_panel").as_string(), "approx");
  EXPECT_EQ(mode_of(real), 0600u);
}
#endif

// [SECTION] 2. One output-path policy, checked before the work

struct Writer {
  std::string name;
  std::vector<std::string> args;  // "{p}" is the output path
  std::string option;
};

std::vector<Writer> writers() {
  std::vector<Writer> w = {
      {"error_csv",
       {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "10000000", "--csv", "{p}"},
       "--csv"},
      {"train_save", cat(kTrainLong, {"--save", "{p}"}), "--save"},
  };
#if GELU_TEST_HAVE_GUI
  // A shot of the benchmark panel at 64M elements takes minutes; the check comes first.
  const std::vector<std::string> shot = {"shot", "--panel", "curves", "--size", "640x400"};
  for (const char* opt : {"--out", "--csv", "--plot-out", "--meta", "--session-out"}) {
    std::vector<std::string> a = shot;
    if (std::string(opt) != "--out") a.insert(a.end(), {"--out", "{ok}/a.png"});
    a.insert(a.end(), {opt, "{p}"});
    w.push_back({std::string("shot_") + (opt + 2), a, opt});
  }
  const std::vector<std::string> gui = {"gui", "--headless", "--size", "640x400", "--frames", "100000000"};
  w.push_back({"gui_report", cat(gui, {"--report", "{p}"}), "--report"});
  w.push_back({"gui_save_png", cat(gui, {"--save-png", "{p}"}), "--save-png"});
#endif
  return w;
}

std::vector<std::string> with_path(const std::vector<std::string>& args, const std::string& p,
                                   const std::string& ok) {
  std::vector<std::string> out;
  for (std::string a : args) {
    if (a == "{p}") a = p;
    if (a.rfind("{ok}", 0) == 0) a = ok + a.substr(4);
    out.push_back(a);
  }
  return out;
}

TEST(OutputPathPolicy, AMissingDirectoryIsRefusedBeforeTheWorkAndNeverMade) {
  for (const Writer& w : writers()) {
    const Scratch s("policy_missing_" + w.name);
    const fs::path p = s / "no_dir" / "out.file";
    const ExecResult r = s.run(with_path(w.args, p.string(), s.dir().string()));
    expect_run(r, 2, {w.option + ": cannot write", "the directory", "does not exist"});
    EXPECT_EQ(r.out, "") << w.name;
    EXPECT_FALSE(fs::exists(s / "no_dir")) << w.name;
  }
}

TEST(OutputPathPolicy, ADirectoryOrADanglingLinkIntoNowhereIsRefusedBeforeTheWork) {
  for (const Writer& w : writers()) {
    const Scratch s("policy_dir_" + w.name);
    fs::create_directories(s / "adir");
    expect_run(s.run(with_path(w.args, (s / "adir").string(), s.dir().string())), 2,
               {w.option + ": cannot write", "it is a directory"});
    fs::create_symlink("nowhere/out.file", s / "lost");
    expect_run(s.run(with_path(w.args, (s / "lost").string(), s.dir().string())), 2,
               {w.option + ": cannot write", "does not exist"});
    EXPECT_FALSE(fs::exists(s / "nowhere")) << w.name;
  }
}

#if GELU_TEST_HAVE_GUI
TEST(OutputPathPolicy, TheGuiSessionInAMissingDirectoryIsABannerFromTheFirstFrame) {
  const Scratch s("policy_session");
  const fs::path report = s / "r.json";
  const ExecResult r = s.run({"gui", "--headless", "--size", "640x400", "--frames", "3", "--session",
                              (s / "no_dir" / "s.json").string(), "--report", report.string()});
  expect_run(r, 1, {"cannot be saved on exit", "does not exist", "the session was not saved"});
  EXPECT_FALSE(fs::exists(s / "no_dir"));
  EXPECT_NE(json::parse(slurp(report)).at("message").as_string().find("does not exist"), std::string::npos);
}
#endif

// [SECTION] 3. Standard output is a file too

std::vector<std::vector<std::string>> stdout_commands() {
  std::vector<std::vector<std::string>> c = {
      {"list"},
      {"list", "--json"},
      {"props", "--fn", "gelu"},
      {"props", "--fn", "gelu", "--json"},
      {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "11"},
      {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--samples", "11", "--json"},
      {"eval", "--fn", "gelu"},
      {"train", "--dataset", "circle", "--layers", "2,4,1", "--steps", "5"},
      {"train", "--dataset", "circle", "--layers", "2,4,1", "--steps", "5", "--json"},
      {"bench", "--backend", "cpu", "--fn", "relu", "--size", "1024", "--reps", "1"},
      {"bench", "--backend", "cpu", "--fn", "relu", "--size", "1024", "--reps", "1", "--json"},
      {"--help"},
      {"list", "--help"},
  };
#if GELU_TEST_HAVE_GUI
  c.push_back({"lessons", "--no-layout"});  // the layout check of every step takes 30 s under ASan
  c.push_back({"lessons", "--check", kLesson});
  c.push_back({"gui", "--help"});
#endif
  return c;
}

TEST(StandardOutput, AFullDiskIsAnErrorForEverySubcommand) {
  const Scratch s("stdout_full");
  for (const auto& args : stdout_commands()) {
    const ExecResult ok = s.run(args, {}, "1 2 3\n");
    expect_run(ok, 0, {});
    EXPECT_FALSE(ok.out.empty()) << args[0];
    const ExecResult r = s.run(args, {}, "1 2 3\n", StdoutTo::DevFull);
    expect_run(r, 2, {"cannot write to standard output: " + std::string(std::strerror(ENOSPC))});
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(StandardOutput, AClosedStandardOutputIsAnErrorForEverySubcommand) {
  const Scratch s("stdout_closed");
  for (const auto& args : stdout_commands()) {
    const ExecResult r = s.run(args, {}, "1 2 3\n", StdoutTo::Closed);
    expect_run(r, 2, {"cannot write to standard output: it is closed"});
  }
  // A closed stdout is not reused by the first file opened: the CSV holds the curve, nothing else.
  const ExecResult r =
      s.run({"error", "--fn", "gelu", "--vs", "gelu", "--samples", "3", "--csv", (s / "e.csv").string()}, {},
            "", StdoutTo::Closed);
  expect_run(r, 2, {"it is closed"});
  EXPECT_EQ(slurp(s / "e.csv").rfind("x,value,reference,", 0), 0u);
  EXPECT_EQ(slurp(s / "e.csv").find("metric"), std::string::npos);
}

// [SECTION] 4. Reads that never block

struct Reader {
  std::string name;
  std::vector<std::string> args;  // "{f}" is the file read
  std::string needle;             // the option, in the message
  int status = 2;
};

std::vector<Reader> readers() {
  std::vector<Reader> r = {
      {"eval_input", {"eval", "--fn", "gelu", "--input", "{f}"}, "--input"},
      {"train_load", {"train", "--steps", "1", "--load", "{f}"}, "--load"},
  };
#if GELU_TEST_HAVE_GUI
  const std::vector<std::string> shot = {"shot", "--size", "320x240", "--out", "{o}"};
  r.push_back({"shot_state", cat(shot, {"--panel", "curves", "--state", "{f}"}), "--state"});
  r.push_back({"shot_lesson", cat(shot, {"--lesson", "{f}"}), "--lesson"});
  r.push_back({"shot_session", cat(shot, {"--session", "{f}"}), "--session"});
  r.push_back({"lessons_check", {"lessons", "--check", "{f}"}, "{f}"});
  r.push_back({"gui_script", {"gui", "--headless", "--frames", "2", "--script", "{f}"}, "--script"});
  r.push_back({"gui_state",
               {"gui", "--headless", "--frames", "2", "--panel", "curves", "--state", "{f}"},
               "--state"});
  // The session the app restores and saves: not restored, said so, and left alone.
  r.push_back(
      {"gui_session", {"gui", "--headless", "--frames", "2", "--session", "{f}"}, "Could not restore", 0});
#endif
  return r;
}

std::vector<std::string> with_file(const std::vector<std::string>& args, const std::string& f,
                                   const fs::path& dir) {
  std::vector<std::string> out;
  for (const std::string& a : args) out.push_back(a == "{f}" ? f : a == "{o}" ? (dir / "o.png").string() : a);
  return out;
}

TEST(ReadsNeverBlock, AFifoWithOrWithoutAWriterIsRefusedByEveryFileOption) {
  for (const Reader& rd : readers()) {
    const Scratch s("fifo_" + rd.name);
    const fs::path fifo = s / "s.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const std::string needle = rd.needle == "{f}" ? fifo.string() : rd.needle;
    expect_run(s.run(with_file(rd.args, fifo.string(), s.dir())), rd.status, {needle, "a FIFO (named pipe)"});
    // A writer that never writes (a stuck program at the other end).
    const int w = ::open(fifo.c_str(), O_RDWR);
    ASSERT_GE(w, 0);
    expect_run(s.run(with_file(rd.args, fifo.string(), s.dir())), rd.status, {needle, "FIFO"});
    ::close(w);
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << rd.name;  // never replaced either
  }
}

TEST(ReadsNeverBlock, SocketsAndEndlessDevicesAreRefused) {
  for (const Reader& rd : readers()) {
    const Scratch s("special_" + rd.name);
    const int sock = bind_socket(s / "s.json");
    ASSERT_GE(sock, 0);
    expect_run(s.run(with_file(rd.args, (s / "s.json").string(), s.dir())), rd.status, {"a socket"});
    ::close(sock);
    expect_run(s.run(with_file(rd.args, "/dev/zero", s.dir())), rd.status, {"a character device"});
  }
}

#if GELU_TEST_HAVE_GUI
TEST(ReadsNeverBlock, AStrayFifoInTheLessonsFolderIsReportedNotWaitedOn) {
  const Scratch s("lessons_fifo");
  fs::create_directories(s / "lessons");
  fs::copy_file(kLesson, s / "lessons" / "1.json");
  ASSERT_EQ(::mkfifo((s / "lessons" / "2_stray.json").c_str(), 0644), 0);
  const ExecResult r = s.run({"lessons"}, {"GELULAB_LESSONS=" + (s / "lessons").string()});
  expect_run(r, 2, {"2_stray.json", "a FIFO (named pipe)"});
  EXPECT_NE(r.out.find("ok  "), std::string::npos) << r.out;  // the good lesson is still checked
}
#endif

// [SECTION] 5. Everything the app writes, it reads back

#if GELU_TEST_HAVE_GUI
TEST(ReadBack, ALessonOpenedByARelativePathIsReopenedFromAnotherDirectory) {
  const Scratch s("relative_lesson");
  fs::create_directories(s / "a" / "lessons");
  fs::create_directories(s / "b");
  fs::copy_file(kLesson, s / "a" / "lessons" / "l.json");
  // From a/, by a relative path.
  const ExecResult w = gelu::test::exec_gelulab(
      {"shot", "--lesson", "lessons/l.json", "--step", "2", "--session-out", (s / "s.json").string(), "--out",
       (s / "x.png").string(), "--size", "640x400"},
      "", (s / "run").string(), {"DISPLAY", "WAYLAND_DISPLAY"}, 20, 0, StdoutTo::Captured,
      (s / "a").string());
  expect_run(w, 0, {});
  const json::Value session = json::parse(slurp(s / "s.json"));
  const std::string file = session.at("lesson").at("file").as_string();
  EXPECT_TRUE(fs::path(file).is_absolute()) << file;
  EXPECT_TRUE(fs::equivalent(file, s / "a" / "lessons" / "l.json")) << file;
  // From b/: the lesson comes back at its step.
  const ExecResult r =
      gelu::test::exec_gelulab({"shot", "--session", (s / "s.json").string(), "--out", (s / "y.png").string(),
                                "--size", "640x400", "--meta", (s / "m.json").string()},
                               "", (s / "run").string(), {"DISPLAY", "WAYLAND_DISPLAY"}, 20, 0,
                               StdoutTo::Captured, (s / "b").string());
  expect_run(r, 0, {});
  const json::Value meta = json::parse(slurp(s / "m.json"));
  EXPECT_EQ(meta.at("lesson").at("step").as_number(), 2);
  EXPECT_EQ(meta.at("message").as_string(), "");
}

// A net that diverges (SGD at the largest learning rate on GLU blocks): its losses are NaN.
const char* kDivergingFfn = R"({"optimizer": "sgd", "lr": 1, "widths": [16], "shot_steps": 50, "batch": 8,
  "glu": true, "a": {"activations": ["softplus"]}, "b": {"activations": ["softplus"]}})";

TEST(ReadBack, ADivergedNetsMetaAndReportAreWrittenWithNullAndANote) {
  const Scratch s("diverged");
  put(s / "ffn.json", kDivergingFfn);
  const ExecResult shot =
      s.run({"shot", "--panel", "ffn", "--size", "640x400", "--state", (s / "ffn.json").string(), "--out",
             (s / "f.png").string(), "--meta", (s / "m.json").string()});
  expect_run(shot, 0, {});
  const json::Value meta = json::parse(slurp(s / "m.json"));  // the strict reader takes it
  // Both nets stop where they diverge (their loss past 1e6 × the first step's), so the meta says so; a loss
  // that is no longer a number is null, named in the note.
  for (std::size_t i = 0; i < 2; ++i) {
    const json::Value& n = meta.at("nets").as_array()[i];
    EXPECT_GT(n.at("diverged_at_step").as_number(), 0) << i;
    EXPECT_EQ(n.at("diverged_at_step").as_number(), n.at("steps").as_number()) << i;
    if (n.at("test_loss").is_null()) {
      EXPECT_EQ(meta.at(json::kNonFiniteKey).at("nets[" + std::to_string(i) + "].test_loss").as_string(),
                "nan");
    }
  }
  // gelulab train --json on a run that diverged: its last loss is written as null with the note.
  const ExecResult train = s.run({"train", "--dataset", "sin", "--layers", "1,32,32,1", "--optimizer", "sgd",
                                  "--lr", "1", "--steps", "400", "--json"});
  EXPECT_EQ(train.status, 3) << train.err;
  const json::Value t = json::parse(train.out);
  const json::Array& h = t.at("history").as_array();
  ASSERT_FALSE(h.empty());
  EXPECT_TRUE(h.back().as_array()[1].is_null());
  const std::string spelled =
      t.at(json::kNonFiniteKey).at("history[" + std::to_string(h.size() - 1) + "][1]").as_string();
  EXPECT_TRUE(spelled == "nan" || spelled == "inf" || spelled == "-inf") << spelled;

  // The app, training live on its worker thread (how far it gets in 60 frames is up to the machine): the
  // report is written and parses, and each loss that is null is a NaN named in the note.
  std::string live = kDivergingFfn;
  live.insert(live.rfind('}'), R"(, "playing": true, "speed": 0)");
  put(s / "live.json", live);
  const ExecResult gui = s.run({"gui", "--headless", "--size", "640x400", "--frames", "60", "--panel", "ffn",
                                "--state", (s / "live.json").string(), "--report", (s / "r.json").string(),
                                "--session", (s / "session.json").string()});
  expect_run(gui, 0, {});
  const json::Value rep = json::parse(slurp(s / "r.json"));
  const json::Value& nets = rep.at("panels").at("ffn").at("nets");
  for (std::size_t i = 0; i < 2; ++i)
    if (nets.as_array()[i].at("test_loss").is_null() && nets.as_array()[i].at("steps").as_number() > 0) {
      EXPECT_EQ(
          rep.at(json::kNonFiniteKey).at("panels.ffn.nets[" + std::to_string(i) + "].test_loss").as_string(),
          "nan");
    }
  // The session (read back at the next start) holds no non-finite number and loads.
  expect_run(s.run({"shot", "--session", (s / "session.json").string(), "--size", "320x240", "--out",
                    (s / "g.png").string()}),
             0, {});
}
#endif

// [SECTION] 8. The environment is named when it is wrong

TEST(Environment, ABogusEglPlatformIsOneShortLineNamingTheVariable) {
  const Scratch s("egl");
  put(s / "x.txt", "1\n");
  std::vector<std::vector<std::string>> runs = {
      {"eval", "--backend", "gpu", "--fn", "gelu", "--input", (s / "x.txt").string()},
      {"bench", "--backend", "gpu", "--fn", "relu", "--size", "1024", "--reps", "1"}};
#if GELU_TEST_HAVE_GUI
  runs.push_back({"shot", "--panel", "curves", "--out", (s / "x.png").string()});
  runs.push_back({"gui", "--headless", "--frames", "2"});
#endif
  for (const auto& args : runs) {
    const ExecResult r = s.run(args, {"GELU_EGL_PLATFORM=bogus"});
    expect_run(r, 2, {"GELU_EGL_PLATFORM='bogus' is not one of device, surfaceless"});
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(r.err.size(), 300u) << r.err;
  }
}

#if GELU_TEST_HAVE_GUI
TEST(Environment, TheLessonsFolderSaysWhatIsWrongAndWhereItCameFrom) {
  const Scratch s("lessons_env");
  put(s / "afile", "x");
  fs::create_directories(s / "empty");
  struct Case {
    std::string value, needle;
  };
  for (const Case& c : {Case{"/nonexistent/lessons", "'/nonexistent/lessons' does not exist"},
                        Case{(s / "afile").string(), "is not a folder"},
                        Case{(s / "empty").string(), "no lesson files (*.json)"}}) {
    const ExecResult r = s.run({"lessons"}, {"GELULAB_LESSONS=" + c.value});
    expect_run(r, 2, {c.needle, "GELULAB_LESSONS"});  // the status its help gives
    EXPECT_EQ(r.out, "");
  }
  expect_run(s.run({"lessons"}, {"GELULAB_LESSONS=" + (s / "empty").string()}), 2, {});
  const ExecResult help = s.run({"lessons", "--help"});
  EXPECT_NE(help.out.find("Exit status: 0 when every lesson checks; 2 when"), std::string::npos) << help.out;
}
#endif

// [SECTION] 9. Text a person cannot see

TEST(InvisibleText, EvalSkipsOneLeadingByteOrderMarkAndNamesAnyOther) {
  const Scratch s("bom");
  ExecResult r = s.run({"eval", "--fn", "relu"}, {},
                       "\xEF\xBB\xBF"
                       "1\n-2\n");
  expect_run(r, 0, {});
  EXPECT_EQ(r.out, "1\n0\n");
  put(s / "in.txt",
      "\xEF\xBB\xBF"
      "3\n");
  r = s.run({"eval", "--fn", "relu", "--input", (s / "in.txt").string()});
  expect_run(r, 0, {});
  EXPECT_EQ(r.out, "3\n");
  r = s.run({"eval", "--fn", "relu"}, {},
            "1 \xEF\xBB\xBF"
            "2\n");
  expect_run(r, 2, {"'\\u{FEFF}2' (U+FEFF byte order mark) is not a number"});
  r = s.run({"eval", "--fn", "relu"}, {},
            "\xEF\xBB\xBF\xEF\xBB\xBF"
            "1\n");
  expect_run(r, 2, {"U+FEFF byte order mark"});
  r = s.run({"eval", "--fn", "relu"}, {},
            "1\xC2\xA0"
            "2\n");
  expect_run(r, 2, {"'1\\u{00A0}2' (U+00A0 no-break space)"});
}

}  // namespace

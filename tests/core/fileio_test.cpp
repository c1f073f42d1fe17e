// write_file_atomic and read_file: whole files or nothing, temporaries cleaned up, errors that name the path;
// writes through what is at the path (symbolic links, modes, devices, FIFOs, sockets) and reads that never
// block (reliability classes 1 and 4). (A full disk and a read-only directory are in
// tests/app/fault_test.cpp, which mounts tmpfs file systems.)
//
// Index of this file:
//   [SECTION] Writes through what is at the path
//   [SECTION] Reads that never block
#include "gelu/fileio.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;

fs::path dir_for(const std::string& name) {
  const fs::path d = gelu::test::scratch_dir("gelu-fileio") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

using gelu::test::slurp;

int entries(const fs::path& d) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}

TEST(FileIo, WritesAndReplaces) {
  const fs::path d = dir_for("write");
  const fs::path p = d / "x.json";
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
  EXPECT_FALSE(gelu::why_not_writable((d / "s.json").string()).has_value());
  EXPECT_FALSE(
      gelu::why_not_writable((d / "new" / "deeper" / "s.json").string(), gelu::MissingDirectories::Create));
  // The read-only case needs a read-only mount: tests/app/fault_test.cpp (ReadOnlyConfigDir…).
}

// [SECTION] Writes through what is at the path

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gelu::FileError& e) {
    return e.what();
  }
  return "no error";
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 07777;
}

bool is_link(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

/// Runs `f` in a child process that an alarm ends after 60 s: true when it returned (a read or a write that
/// blocks on a FIFO is a failure, not a test that never ends).
bool finishes(const std::function<void()>& f) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::alarm(60);
    f();
    ::_exit(0);
  }
  int st = 0;
  ::waitpid(child, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

TEST(FileIoPaths, MissingDirectoriesAreRefusedUnlessAsked) {
  const fs::path d = dir_for("missing");
  const fs::path p = d / "a" / "b" / "x.json";
  const std::string e = error_of([&] { gelu::write_file_atomic(p.string(), "x"); });
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(d / "a"));
  EXPECT_NE(gelu::why_not_writable(p.string()).value_or("").find("the directory '"), std::string::npos);
  // The app's configuration directory (XDG): made on demand, private.
  gelu::write_file_atomic(p.string(), "x", gelu::MissingDirectories::Create);
  EXPECT_EQ(slurp(p), "x");
  EXPECT_EQ(mode_of(d / "a"), 0700u);
  EXPECT_EQ(mode_of(d / "a" / "b"), 0700u);
}

TEST(FileIoPaths, SymbolicLinksStayLinksAndTheirTargetIsWritten) {
  const fs::path d = dir_for("links");
  fs::create_directories(d / "real");
  const fs::path real = d / "real" / "t.json";
  std::ofstream(real) << "old";
  fs::create_symlink("real/t.json", d / "link.json");  // relative, as `ln -s real/t.json link.json`
  gelu::write_file_atomic((d / "link.json").string(), "new");
  EXPECT_TRUE(is_link(d / "link.json"));
  EXPECT_EQ(fs::read_symlink(d / "link.json"), "real/t.json");
  EXPECT_EQ(slurp(real), "new");
  EXPECT_EQ(entries(d / "real"), 1);  // the temporary was in the target's directory, and is gone
  EXPECT_EQ(entries(d), 2);

  // A chain: absolute, then relative through another directory.
  fs::create_directories(d / "dots");
  fs::create_symlink(d / "link.json", d / "dots" / "a.json");
  fs::create_symlink("dots/a.json", d / "b.json");
  gelu::write_file_atomic((d / "b.json").string(), "chained");
  EXPECT_TRUE(is_link(d / "b.json"));
  EXPECT_TRUE(is_link(d / "dots" / "a.json"));
  EXPECT_TRUE(is_link(d / "link.json"));
  EXPECT_EQ(slurp(real), "chained");

  // A dangling link: its target is made (as the shell's >), the link stays.
  fs::create_symlink("real/new.json", d / "dangling.json");
  gelu::write_file_atomic((d / "dangling.json").string(), "made");
  EXPECT_TRUE(is_link(d / "dangling.json"));
  EXPECT_EQ(slurp(d / "real" / "new.json"), "made");

  // A dangling link into a missing directory, and a loop: refused, naming the path.
  fs::create_symlink("nowhere/x.json", d / "lost.json");
  std::string e = error_of([&] { gelu::write_file_atomic((d / "lost.json").string(), "x"); });
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  EXPECT_NE(gelu::why_not_writable((d / "lost.json").string()).value_or("").find("does not exist"),
            std::string::npos);
  fs::create_symlink("loop2.json", d / "loop1.json");
  fs::create_symlink("loop1.json", d / "loop2.json");
  e = error_of([&] { gelu::write_file_atomic((d / "loop1.json").string(), "x"); });
  EXPECT_NE(e.find((d / "loop1.json").string()), std::string::npos) << e;
  EXPECT_NE(e.find("symbolic links"), std::string::npos) << e;
  EXPECT_TRUE(is_link(d / "loop1.json"));
  // A link to a directory is a directory.
  fs::create_directory_symlink(d / "real", d / "dirlink");
  e = error_of([&] { gelu::write_file_atomic((d / "dirlink").string(), "x"); });
  EXPECT_NE(e.find("directory"), std::string::npos) << e;
  EXPECT_TRUE(is_link(d / "dirlink"));
}

TEST(FileIoPaths, ModesAndOwnerAreKept) {
  const fs::path d = dir_for("modes");
  for (const mode_t m : {0600u, 0640u, 0604u, 0755u, 0444u}) {
    const fs::path p = d / ("m" + std::to_string(m) + ".json");
    std::ofstream(p) << "old";
    ::chmod(p.c_str(), m);
    gelu::write_file_atomic(p.string(), "new");
    EXPECT_EQ(mode_of(p), m) << std::oct << m;
    EXPECT_EQ(slurp(p), "new");
  }
  // Through a link: the target's mode.
  const fs::path secret = d / "secret.json";
  std::ofstream(secret) << "old";
  ::chmod(secret.c_str(), 0600);
  fs::create_symlink(secret, d / "secret-link.json");
  gelu::write_file_atomic((d / "secret-link.json").string(), "new");
  EXPECT_EQ(mode_of(secret), 0600u);
  // A new file: 0666 less the umask.
  const mode_t old_mask = ::umask(027);
  gelu::write_file_atomic((d / "fresh.json").string(), "x");
  ::umask(077);
  gelu::write_file_atomic((d / "private.json").string(), "x");
  ::umask(old_mask);
  EXPECT_EQ(mode_of(d / "fresh.json"), 0640u);
  EXPECT_EQ(mode_of(d / "private.json"), 0600u);
  // The owner: as root, a file of another user stays that user's.
  if (::geteuid() == 0) {
    const fs::path theirs = d / "theirs.json";
    std::ofstream(theirs) << "old";
    ASSERT_EQ(::chown(theirs.c_str(), 12345, 12346), 0);
    gelu::write_file_atomic(theirs.string(), "new");
    struct stat st {};
    ::stat(theirs.c_str(), &st);
    EXPECT_EQ(st.st_uid, 12345u);
    EXPECT_EQ(st.st_gid, 12346u);
  } else {
    const fs::path mine = d / "mine.json";
    std::ofstream(mine) << "old";
    gelu::write_file_atomic(mine.string(), "new");
    struct stat st {};
    ::stat(mine.c_str(), &st);
    EXPECT_EQ(st.st_uid, ::geteuid());
  }
}

TEST(FileIoPaths, DevicesAreWrittenIntoNeverReplaced) {
  gelu::write_file_atomic("/dev/null", "into the void");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(gelu::why_not_writable("/dev/null").has_value());
  const std::string e = error_of([] { gelu::write_file_atomic("/dev/full", "x"); });
  EXPECT_NE(e.find("/dev/full"), std::string::npos) << e;
  EXPECT_NE(e.find(std::strerror(ENOSPC)), std::string::npos) << e;
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // A link to a device: the device.
  const fs::path d = dir_for("devlink");
  fs::create_symlink("/dev/null", d / "null.csv");
  gelu::write_file_atomic((d / "null.csv").string(), "x");
  EXPECT_TRUE(is_link(d / "null.csv"));
}

TEST(FileIoPaths, AFifoIsWrittenIntoWhenReadAndRefusedWhenNot) {
  const fs::path d = dir_for("fifo");
  const fs::path p = d / "out.csv";
  ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0);
  // No reader: refused at once.
  std::string e;
  EXPECT_TRUE(finishes([&] {
    const std::string m = error_of([&] { gelu::write_file_atomic(p.string(), "x"); });
    if (m.find("nothing is reading") == std::string::npos) ::_exit(3);
  }));
  // A reader: the bytes arrive through the FIFO, which stays a FIFO.
  const int rfd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rfd, 0);
  std::string got;
  std::atomic<bool> done{false};
  std::thread reader([&] {  // reads until the writer has come and gone (EOF before it opens means nothing)
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(rfd, buf, sizeof buf);
      if (n > 0)
        got.append(buf, static_cast<std::size_t>(n));
      else if (done)
        break;
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const std::string payload(100000, 'y');  // more than a pipe buffer: the writer waits for a slow reader
  gelu::write_file_atomic(p.string(), payload);
  done = true;
  reader.join();
  ::close(rfd);
  EXPECT_EQ(got, payload);
  struct stat st {};
  ASSERT_EQ(::lstat(p.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(d), 1);
}

int bind_socket(const fs::path& p) {
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", p.c_str());
  if (::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  return s;
}

TEST(FileIoPaths, SocketsAndDirectoriesAreRefused) {
  const fs::path d = dir_for("socket");
  const int s = bind_socket(d / "s.json");
  ASSERT_GE(s, 0) << std::strerror(errno);
  std::string e = error_of([&] { gelu::write_file_atomic((d / "s.json").string(), "x"); });
  EXPECT_NE(e.find("a socket"), std::string::npos) << e;
  EXPECT_NE(gelu::why_not_writable((d / "s.json").string()).value_or("").find("socket"), std::string::npos);
  e = error_of([&] { gelu::read_file((d / "s.json").string(), 100); });
  EXPECT_NE(e.find("a socket, not a regular file"), std::string::npos) << e;
  ::close(s);
  EXPECT_EQ(gelu::why_not_writable(d.string()).value_or(""), "it is a directory");
  EXPECT_EQ(gelu::why_not_writable("").value_or(""), "the file name is empty");
}

// [SECTION] Reads that never block

TEST(FileIoReads, FifosDevicesAndSocketsAreRefusedWithoutBlocking) {
  const fs::path d = dir_for("nonblocking");
  const fs::path fifo = d / "s.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_TRUE(finishes([&] {
    const std::string e = error_of([&] { gelu::read_file(fifo.string(), 100); });
    if (e.find("a FIFO (named pipe), not a regular file") == std::string::npos) ::_exit(3);
    if (e.find(fifo.string()) == std::string::npos) ::_exit(4);
  }));
  // A FIFO with a writer that never writes: still refused before any read.
  const int wfd = ::open(fifo.c_str(), O_RDWR);  // keeps a writer (and a reader) on it
  ASSERT_GE(wfd, 0);
  EXPECT_TRUE(finishes([&] {
    const std::string e = error_of([&] { ::close(gelu::open_for_reading(fifo.string())); });
    if (e.find("FIFO") == std::string::npos) ::_exit(3);
  }));
  ::close(wfd);
  // Devices that never end, or never begin.
  for (const char* dev : {"/dev/zero", "/dev/null", "/dev/urandom"}) {
    EXPECT_TRUE(finishes([&] {
      const std::string e = error_of([&] { gelu::read_file(dev, 100); });
      if (e.find("a character device, not a regular file") == std::string::npos) ::_exit(3);
    })) << dev;
  }
  // A link to a FIFO is a FIFO.
  fs::create_symlink(fifo, d / "link.json");
  EXPECT_TRUE(finishes([&] {
    const std::string e = error_of([&] { gelu::read_file((d / "link.json").string(), 100); });
    if (e.find("FIFO") == std::string::npos) ::_exit(3);
  }));
  // A regular file through a link reads as usual.
  std::ofstream(d / "real.json") << "{}";
  fs::create_symlink("real.json", d / "real-link.json");
  EXPECT_EQ(gelu::read_file((d / "real-link.json").string(), 100), "{}");
}

TEST(FileIoReads, FileKindsAreNamed) {
  EXPECT_EQ(gelu::file_kind(S_IFIFO), "a FIFO (named pipe)");
  EXPECT_EQ(gelu::file_kind(S_IFSOCK), "a socket");
  EXPECT_EQ(gelu::file_kind(S_IFCHR), "a character device");
  EXPECT_EQ(gelu::file_kind(S_IFBLK), "a block device");
  EXPECT_EQ(gelu::file_kind(S_IFDIR), "a directory");
}

}  // namespace

// Round three, class 1 (docs/reliability.md): the temporary's name is bounded, `ulimit -f` is an error that
// names the file (a signal during a save: tests/cli/reliability3_test.cpp, on the real binary, since
// GELU_FAULT is read once per process).
namespace {

TEST(FileIoRoundThree, EveryLegalNameLengthCanBeSavedAndReplaced) {
  const fs::path d = dir_for("names");
  for (const std::size_t n : {239u, 240u, 241u, 250u, 254u, 255u}) {
    const fs::path p = d / std::string(n, 'a');
    gelu::write_file_atomic(p.string(), "one");
    gelu::write_file_atomic(p.string(), "two");
    EXPECT_EQ(slurp(p), "two") << n;
    EXPECT_FALSE(gelu::why_not_writable(p.string())) << n;
  }
  // Two long names that share their first 230 bytes get different temporaries (and both are saved).
  const std::string stem(230, 'b');
  gelu::write_file_atomic((d / (stem + std::string(20, 'x'))).string(), "x");
  gelu::write_file_atomic((d / (stem + std::string(20, 'y'))).string(), "y");
  EXPECT_EQ(slurp(d / (stem + std::string(20, 'y'))), "y");
  EXPECT_EQ(entries(d), 8);  // the six and the two: no temporary left
  const fs::path too_long = d / std::string(256, 'c');
  EXPECT_NE(error_of([&] { gelu::write_file_atomic(too_long.string(), "x"); }).find("NAME_MAX"),
            std::string::npos);
  ASSERT_TRUE(gelu::why_not_writable(too_long.string()));
  EXPECT_NE(gelu::why_not_writable(too_long.string())->find("256 bytes"), std::string::npos);
}

TEST(FileIoRoundThree, AFileSizeLimitIsAFileErrorAndThePreviousFileStays) {
  const fs::path d = dir_for("fsize");
  const fs::path p = d / "big.csv";
  gelu::write_file_atomic(p.string(), "old");
  const pid_t child = ::fork();
  if (child == 0) {
    // Standard output into a file of this directory, so that the limit applies to it too.
    const int fd = ::open((d / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, 1) < 0) ::_exit(2);
    const rlimit lim{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    const std::string e = error_of([&] { gelu::write_file_atomic(p.string(), std::string(100000, 'z')); });
    const std::string o = error_of([&] { gelu::write_output("-", std::string(100000, 'z')); });
    const bool named =
        e.find(p.string()) != std::string::npos && e.find("File too large") != std::string::npos;
    const bool out =
        o.find("standard output") != std::string::npos && o.find("File too large") != std::string::npos;
    ::_exit(named && out ? 0 : 1);
  }
  int st = 0;
  ::waitpid(child, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
      << "status " << st << ", signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  EXPECT_EQ(slurp(p), "old");
  EXPECT_EQ(entries(d), 2);  // the file and the child's standard output: no temporary
}

}  // namespace

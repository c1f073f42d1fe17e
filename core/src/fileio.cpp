// The one writer and the one reader (see fileio.hpp for the rules).
//
// Index of this file:
//   [SECTION] Temporaries removed on SIGINT, SIGTERM and SIGHUP
//   [SECTION] Names of temporaries
#include "gelu/fileio.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "gelu/fault.hpp"
#include "gelu/numio.hpp"

namespace gelu {

namespace fs = std::filesystem;

std::string file_kind(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO (named pipe)";
    case S_IFSOCK:
      return "a socket";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFREG:
      return "a regular file";
    default:
      return "not a regular file";
  }
}

namespace {

constexpr int kMaxLinks = 40;  // as the kernel's ELOOP limit

std::string q(const std::string& path) {
  return quote(path, 200);
}

// [SECTION] Temporaries removed on SIGINT, SIGTERM and SIGHUP
// A save interrupted by Ctrl+C, a SIGTERM or a closed terminal must not leave ".NAME.tmp-PID" behind. Each
// temporary is registered in a fixed table (no allocation: the handler may only touch what is
// async-signal-safe), the handler unlinks every registered one, puts the default action back and raises the
// signal again, so the process still ends as that signal says (status 128+N in a shell). Installed only
// where the signal has its default action: a program that handles the signal itself (the GUI's frame loop
// sets a flag and lets the write finish) or ignores it keeps its choice.
constexpr int kTemporarySlots = 32;
struct TemporarySlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a path
  char path[PATH_MAX + 1] = {};
};
TemporarySlot g_temporaries[kTemporarySlots];
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporaries_and_reraise(int sig) {
  const int saved = errno;
  for (TemporarySlot& t : g_temporaries)
    if (t.state.load(std::memory_order_acquire) == 2) ::unlink(t.path);
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
  ::raise(sig);  // pending until this handler returns (the signal is blocked while it runs), then default
  errno = saved;
}

void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kCleanupSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;  // handled or ignored
      struct sigaction sa {};
      sa.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&sa.sa_mask);
      for (int other : kCleanupSignals) sigaddset(&sa.sa_mask, other);  // one cleanup at a time
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

/// Registers a temporary for removal on a signal for as long as it lives (the scope of one save).
class RegisteredTemporary {
 public:
  explicit RegisteredTemporary(const std::string& path) {
    install_cleanup_handlers();
    if (path.size() > PATH_MAX) return;  // open() would fail with ENAMETOOLONG anyway
    for (TemporarySlot& t : g_temporaries) {
      int expected = 0;
      if (!t.state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) continue;
      std::memcpy(t.path, path.c_str(), path.size() + 1);
      t.state.store(2, std::memory_order_release);
      slot_ = &t;
      return;
    }
    // 32 saves at once: this one is still atomic, only not cleaned up on a signal.
  }
  ~RegisteredTemporary() {
    if (slot_) slot_->state.store(0, std::memory_order_release);
  }
  RegisteredTemporary(const RegisteredTemporary&) = delete;
  RegisteredTemporary& operator=(const RegisteredTemporary&) = delete;

 private:
  TemporarySlot* slot_ = nullptr;
};

// [SECTION] Names of temporaries: bounded by NAME_MAX
// ".NAME.tmp-PID" is 16 bytes longer than NAME: a legal 250-byte name would give a temporary the file system
// refuses (ENAMETOOLONG). A long name keeps its first bytes (never cut inside a UTF-8 sequence) and gains a
// hash of the whole name, so two long names with the same beginning still get different temporaries.
constexpr std::size_t kNameMax = NAME_MAX;  // 255 on Linux
constexpr std::size_t kPidDigits = 10;

std::string temporary_prefix(const std::string& name) {
  std::string prefix = ".";  // built with += (GCC 12's -Wrestrict misfires on "." + std::string)
  if (1 + name.size() + 5 + kPidDigits <= kNameMax) {
    prefix += name;
  } else {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    char hex[18];
    std::snprintf(hex, sizeof hex, "~%016llx", static_cast<unsigned long long>(h));
    std::size_t keep = kNameMax - 1 - 17 - 5 - kPidDigits;
    while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
    prefix += name.substr(0, keep);
    prefix += hex;
  }
  prefix += ".tmp-";
  return prefix;
}

/// A path with a NUL byte (from JSON's \u0000): the system would read it only up to the NUL and open
/// another file. Refused, never cut.
void refuse_nul(const std::string& path) {
  if (path.find('\0') != std::string::npos)
    throw FileError(printable(path, 200) +
                    ": a file name cannot hold a NUL byte (U+0000); refused rather than cut at the NUL");
}

std::string fits_name_max(const std::string& name) {
  if (name.size() <= kNameMax) return {};
  return "the file name is " + std::to_string(name.size()) + " bytes long; a name may have at most " +
         std::to_string(kNameMax) + " (NAME_MAX)";
}

// Removes ".NAME.tmp-PID" files next to the target whose process is gone (a save killed by SIGKILL or a
// power cut leaves one behind; the target itself was never touched).
void remove_stale_temporaries(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const long pid = std::strtol(digits.c_str(), nullptr, 10);
    if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) continue;  // still alive
    ::unlink(it->path().c_str());
  }
}

/// The file a write to `path` changes: `path` itself, or the end of its chain of symbolic links (which may
/// not exist yet: a dangling link). `exists` and `st` describe that file.
struct Target {
  std::string path;
  bool exists = false;
  struct stat st {};
};

Target resolve_links(const std::string& path) {
  Target t;
  t.path = path;
  for (int hop = 0;; ++hop) {
    if (::lstat(t.path.c_str(), &t.st) != 0) {
      if (errno == ENOENT) return t;  // a new file (or where a dangling link points)
      throw FileError(path + ": cannot save: " + std::strerror(errno));
    }
    if (!S_ISLNK(t.st.st_mode)) {
      t.exists = true;
      return t;
    }
    if (hop == kMaxLinks) throw FileError(path + ": cannot save: " + std::strerror(ELOOP));
    std::vector<char> buf(static_cast<std::size_t>(std::max<off_t>(t.st.st_size, 255)) + 1);
    const ssize_t n = ::readlink(t.path.c_str(), buf.data(), buf.size());
    if (n < 0)
      throw FileError(path + ": cannot save: reading the link " + q(t.path) + ": " + std::strerror(errno));
    const fs::path link_to(std::string(buf.data(), static_cast<std::size_t>(n)));
    t.path = link_to.is_absolute() ? link_to.string() : (fs::path(t.path).parent_path() / link_to).string();
  }
}

fs::path directory_of(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

mode_t current_umask() {
  // umask() can only be read by setting it, which races with other threads; Linux shows it in /proc.
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  return 022;
}

/// Makes the missing directories on the way to `dir` with mode 0700.
void make_directories(const fs::path& dir, const std::string& path) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path d = dir; !d.empty() && !fs::exists(d, ec); d = d.parent_path()) {
    missing.push_back(d);
    if (d == d.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it)
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
      throw FileError(path + ": cannot create the directory " + q(it->string()) + ": " +
                      std::strerror(errno));
}

/// The write loop shared by files and devices, with the disk-full and slow-write faults.
int write_all(int fd, std::string_view bytes, bool disk_full) {
  const long slow_ms = fault::value("slow-write");
  const std::size_t piece = slow_ms >= 0 ? 512 : bytes.size();
  std::size_t done = 0;
  while (done < bytes.size()) {
    if (slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
    const std::size_t want = std::min(piece, bytes.size() - done);
    const ssize_t n = disk_full ? (errno = ENOSPC, -1) : ::write(fd, bytes.data() + done, want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// For EFBIG: which limit it was (SIGXFSZ is ignored, so the write fails instead of killing the process).
std::string size_limit_hint(int err) {
  return err == EFBIG ? " (the file size limit of this process, `ulimit -f`)" : "";
}

/// A character device or a FIFO: written straight into (nothing to replace, nothing to rename).
void write_into(const std::string& path, const struct stat& st, std::string_view bytes, bool disk_full) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO && S_ISFIFO(st.st_mode))
      throw FileError(path +
                      ": cannot write: it is a FIFO (named pipe) that nothing is reading (GELU Lab does "
                      "not wait for a reader)");
    throw FileError(path + ": cannot write into " + file_kind(st.st_mode) + ": " + std::strerror(errno));
  }
  // Non-blocking only to open it: a reader that is slow is waited for, as by any program writing a pipe.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const int err = write_all(fd, bytes, disk_full);
  if (::close(fd) != 0 && err == 0) throw FileError(path + ": cannot write (close): " + std::strerror(errno));
  if (err) throw FileError(path + ": cannot write: " + std::strerror(err) + size_limit_hint(err));
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes, MissingDirectories dirs) {
  if (path.empty()) throw FileError("cannot save: the file name is empty");
  refuse_nul(path);
  if (std::string why = fits_name_max(fs::path(path).filename().string()); !why.empty())
    throw FileError(path + ": cannot save: " + why);
  const auto full = fault::text("disk-full");
  const auto ro = fault::text("read-only");
  // What the path finally names (stat follows every link, /proc/self/fd/N to a pipe included).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw FileError(path + ": cannot save: a directory has that name");
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
      throw FileError(path + ": cannot save: it is " + file_kind(st.st_mode) +
                      ", which GELU Lab does not write into");
    ignore_file_size_signal();
    write_into(path, st, bytes, full && fault::path_is_under(path, *full));
    return;
  }
  const Target target = resolve_links(path);
  if (fs::path(target.path).filename().empty())
    throw FileError(path + ": cannot save: the name is a directory");
  const fs::path dir = directory_of(target.path);
  std::error_code ec;
  if (dirs == MissingDirectories::Create) make_directories(dir, path);
  if (!fs::is_directory(dir, ec)) {
    if (fs::exists(dir, ec))
      throw FileError(path + ": cannot save: " + q(dir.string()) + " is not a directory");
    throw FileError(path + ": cannot save: the directory " + q(dir.string()) + " does not exist");
  }
  const std::string name = fs::path(target.path).filename().string();
  if (const std::string why = fits_name_max(name); !why.empty())
    throw FileError(path + ": cannot save: " + why);
  const std::string prefix = temporary_prefix(name);
  remove_stale_temporaries(dir, prefix);
  const fs::path tmp = dir / (prefix + std::to_string(::getpid()));
  ignore_file_size_signal();
  const RegisteredTemporary registered(tmp.string());
  const auto fail = [&](const char* what, int err) {
    ::unlink(tmp.c_str());
    std::string msg = path + ": " + what + ": " + std::strerror(err) + size_limit_hint(err);
    if (target.exists) msg += " (the previous file is unchanged)";
    throw FileError(msg);
  };
  if (ro && (fault::path_is_under(path, *ro) || fault::path_is_under(target.path, *ro)))
    fail("cannot save (creating a temporary file in its directory failed)", EROFS);
  ::unlink(tmp.c_str());  // our own leftover (a reused pid), never followed: O_EXCL below
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot save (creating a temporary file in its directory failed)", errno);
  // The file keeps its owner, group and mode; a new one gets the default mode. The temporary is 0600 until
  // then, so a private file is never readable by others, not even for a moment.
  if (target.exists) {
    if (::fchown(fd, target.st.st_uid, target.st.st_gid) != 0)
      (void)!::fchown(fd, static_cast<uid_t>(-1), target.st.st_gid);  // not root: at least the group
  }
  const mode_t mode = target.exists ? (target.st.st_mode & 07777) : (0666 & ~current_umask());
  if (::fchmod(fd, mode) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot save (setting the file's mode)", err);
  }
  if (const int err = write_all(
          fd, bytes,
          full && (fault::path_is_under(path, *full) || fault::path_is_under(target.path, *full)))) {
    ::close(fd);
    fail("cannot write", err);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot write (fsync)", err);
  }
  if (::close(fd) != 0) fail("cannot write (close)", errno);
  if (::rename(tmp.c_str(), target.path.c_str()) != 0) fail("cannot replace the file", errno);
  // The rename itself is durable once the directory is synced.
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void ignore_file_size_signal() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction old {};
    if (::sigaction(SIGXFSZ, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
      ::signal(SIGXFSZ, SIG_IGN);
  });
}

void write_output(const std::string& path, std::string_view bytes) {
  if (path != "-") return write_file_atomic(path, bytes);
  ignore_file_size_signal();
  errno = 0;
  if (std::fflush(stdout) != 0) {  // what the command printed before comes first
    const int err = errno;
    throw FileError(std::string("standard output: cannot write: ") + std::strerror(err) +
                    size_limit_hint(err));
  }
  if (const int err = write_all(1, bytes, false))
    throw FileError(std::string("standard output: cannot write: ") + std::strerror(err) +
                    size_limit_hint(err));
}

std::string output_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode)) return {};  // /dev/null, a terminal: many outputs may share one
    return "file " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  std::string where = path;
  try {
    where = resolve_links(path).path;  // a dangling link: the file it would create
  } catch (const FileError&) {
  }
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(directory_of(where), ec), ec);
  return "new " + (dir / fs::path(where).filename()).lexically_normal().string();
}

std::optional<std::string> why_not_writable(const std::string& path, MissingDirectories dirs) {
  if (path.empty()) return "the file name is empty";
  if (path.find('\0') != std::string::npos) return "a file name cannot hold a NUL byte (U+0000)";
  if (std::string why = fits_name_max(fs::path(path).filename().string()); !why.empty()) return why;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return "it is a directory";
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
      return "it is " + file_kind(st.st_mode) + ", which GELU Lab does not write into";
    if (::access(path.c_str(), W_OK) != 0) return "it is not writable: " + std::string(std::strerror(errno));
    return std::nullopt;  // a device or a FIFO: written straight into
  }
  Target target;
  try {
    target = resolve_links(path);
  } catch (const FileError& e) {
    const std::string what = e.what();
    return what.substr(std::min(what.size(), path.size() + 2));  // the reason, without "PATH: "
  }
  if (fs::path(target.path).filename().empty()) return "the name is a directory";
  if (std::string why = fits_name_max(fs::path(target.path).filename().string()); !why.empty()) return why;
  fs::path dir = directory_of(target.path);
  std::error_code ec;
  if (dirs == MissingDirectories::Create)
    while (!fs::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path()) dir = dir.parent_path();
  if (!fs::is_directory(dir, ec)) {
    if (fs::exists(dir, ec)) return q(dir.string()) + " is not a directory";
    return "the directory " + q(dir.string()) + " does not exist";
  }
  const auto ro = fault::text("read-only");
  if (ro && fault::path_is_under(dir.string(), *ro))
    return "the directory " + q(dir.string()) + " is not writable: " + std::strerror(EROFS);
  if (::access(dir.c_str(), W_OK) != 0)
    return "the directory " + q(dir.string()) + " is not writable: " + std::strerror(errno);
  return std::nullopt;
}

int open_for_reading(const std::string& path) {
  refuse_nul(path);
  // stat first: open() itself would block on a FIFO without a writer (without O_NONBLOCK) or fail on a
  // socket with a reason that does not say what the path is.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw FileError(path + ": is a directory, not a file");
    throw FileError(path + ": is " + file_kind(st.st_mode) + ", not a regular file");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw FileError(path + ": cannot read: " + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // replaced between stat and open
    ::close(fd);
    if (S_ISDIR(st.st_mode)) throw FileError(path + ": is a directory, not a file");
    throw FileError(path + ": is " + file_kind(st.st_mode) + ", not a regular file");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  const int fd = open_for_reading(path);
  struct stat st {};
  ::fstat(fd, &st);
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    ::close(fd);
    throw FileError(path + ": too large (" + std::to_string(st.st_size) + " bytes; the limit is " +
                    std::to_string(max_bytes) + ")");
  }
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  for (;;) {
    if (done == out.size()) {
      if (out.size() >= max_bytes) break;
      out.resize(std::min(max_bytes, out.size() + 65536));  // the file grew since fstat (or is in /proc)
    }
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw FileError(path + ": cannot read: " + std::strerror(err));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

}  // namespace gelu

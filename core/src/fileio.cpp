// Atomic saves and bounded reads (see fileio.hpp).
#include "gelu/fileio.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "gelu/fault.hpp"

namespace gelu {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
  if (path.empty()) throw FileError("cannot save: the file name is empty");
  const fs::path target(path);
  if (target.filename().empty()) throw FileError(path + ": cannot save: the name is a directory");
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw FileError(path + ": cannot create the directory " + dir.string() + ": " + ec.message());
  if (fs::is_directory(target, ec)) throw FileError(path + ": cannot save: a directory has that name");
  std::string prefix = ".";  // built with += (GCC 12's -Wrestrict misfires on "." + std::string)
  prefix += target.filename().string();
  prefix += ".tmp-";
  remove_stale_temporaries(dir, prefix);
  const fs::path tmp = dir / (prefix + std::to_string(::getpid()));
  const auto fail = [&](const char* what, int err) {
    ::unlink(tmp.c_str());
    std::string msg = path + ": " + what + ": " + std::strerror(err);
    if (fs::exists(target, ec)) msg += " (the previous file is unchanged)";
    throw FileError(msg);
  };
  if (const auto ro = fault::text("read-only"); ro && fault::path_is_under(path, *ro))
    fail("cannot save (creating a temporary file in its directory failed)", EROFS);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot save (creating a temporary file in its directory failed)", errno);
  const auto full = fault::text("disk-full");
  const bool disk_full = full && fault::path_is_under(path, *full);
  const long slow_ms = fault::value("slow-write");
  const std::size_t piece = slow_ms >= 0 ? 512 : bytes.size();
  std::size_t done = 0;
  while (done < bytes.size()) {
    if (slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
    const std::size_t want = std::min(piece, bytes.size() - done);
    const ssize_t n = disk_full ? (errno = ENOSPC, -1) : ::write(fd, bytes.data() + done, want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      fail("cannot write", err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot write (fsync)", err);
  }
  if (::close(fd) != 0) fail("cannot write (close)", errno);
  if (::rename(tmp.c_str(), target.c_str()) != 0) fail("cannot replace the file", errno);
  // The rename itself is durable once the directory is synced.
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::optional<std::string> why_not_writable(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  while (!fs::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path()) dir = dir.parent_path();
  if (const auto ro = fault::text("read-only"); ro && fault::path_is_under(dir.string(), *ro))
    return dir.string() + ": " + std::strerror(EROFS);
  if (::access(dir.c_str(), W_OK) != 0) return dir.string() + ": " + std::strerror(errno);
  return std::nullopt;
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError(path + ": cannot read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    throw FileError(path + (dir ? ": is a directory, not a file" : ": not a regular file"));
  }
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
      out.resize(std::min(max_bytes, out.size() + 65536));  // the file grew since fstat
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

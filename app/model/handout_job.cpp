// The handout export as a child process (see handout_job.hpp).
#include "model/handout_job.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

extern char** environ;

namespace gelu::app {

HandoutJob::~HandoutJob() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
  }
  if (fd_ >= 0) close(fd_);
}

bool HandoutJob::start(const std::string& lesson, const std::string& dir, std::string* error) {
  if (pid_ > 0) {
    *error = "an export is running";
    return false;
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    *error = "cannot find this program's path (/proc/self/exe): " + ec.message();
    return false;
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    *error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);  // progress and the result on stdout,
  posix_spawn_file_actions_adddup2(&fa, p[1], 2);  // errors on stderr: one stream, in order
  const std::string exe_s = exe.string();
  std::vector<std::string> args = {exe_s, "lessons", "--handout", lesson, "--out", dir, "--progress"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe_s.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(p[1]);
  if (rc != 0) {
    close(p[0]);
    *error = "cannot start " + exe_s + ": " + std::strerror(rc);
    return false;
  }
  fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
  if (fd_ >= 0) close(fd_);
  fd_ = p[0];
  pid_ = pid;
  buf_.clear();
  message_ = "starting…";
  done_ = total_ = 0;
  status_ = -1;
  finished_ = false;
  return true;
}

void HandoutJob::line(const std::string& l) {
  if (l.empty()) return;
  int k = 0, n = 0;
  if (std::sscanf(l.c_str(), "step %d of %d", &k, &n) == 2) {
    done_ = k;
    total_ = n;
  }
  message_ = l;
}

void HandoutJob::poll() {
  if (fd_ >= 0) {
    char b[4096];
    for (;;) {
      const ssize_t r = read(fd_, b, sizeof b);
      if (r > 0) {
        buf_.append(b, static_cast<std::size_t>(r));
        std::size_t at;
        while ((at = buf_.find('\n')) != std::string::npos) {
          line(buf_.substr(0, at));
          buf_.erase(0, at + 1);
        }
        continue;
      }
      if (r == 0) {  // the child closed its end
        line(buf_);
        buf_.clear();
        close(fd_);
        fd_ = -1;
      }
      break;  // EAGAIN: nothing more now
    }
  }
  if (pid_ > 0) {
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      finished_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
      if (fd_ >= 0) {  // what is left in the pipe
        poll();
      }
      if (status_ != 0 && message_.rfind("gelulab", 0) != 0)
        message_ = "the export stopped (exit status " + std::to_string(status_) + "): " + message_;
    }
  }
}

}  // namespace gelu::app

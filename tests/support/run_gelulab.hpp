// Runs the built gelulab (GELULAB_EXE): run_gelulab through the shell, stdout and stderr together (tests of
// the CLI's output and exit status); exec_gelulab with exact argv bytes, apart streams and a time limit
// (tests of hostile input).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/files.hpp"

namespace gelu::test {

struct RunResult {
  int status = -1;  // exit status, -1 when the process did not exit normally
  std::string out;  // stdout and stderr
};

inline RunResult run_gelulab(const std::string& subcommand, const std::string& args) {
  const std::string cmd = std::string(GELULAB_EXE) + " " + subcommand + " " + args + " 2>&1";
  RunResult r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// How a run of gelulab ended, for tests of hostile input: the exact exit status or the signal, or a hang.
struct ExecResult {
  bool exited = false;  // exited normally (then status holds the exit status)
  int status = -1;
  int signal = 0;          // the signal that ended it, when it did not exit
  bool timed_out = false;  // still running after the limit: killed (SIGKILL) and reported as a hang
  std::string out, err;    // stdout and stderr, apart
};

/// Where a run's standard output goes: captured (the normal case), /dev/full, or closed (`>&-`).
enum class StdoutTo { Captured, DevFull, Closed };

/// Runs gelulab with exactly these arguments (any bytes but NUL: no shell), `input` on stdin, stdout and
/// stderr captured apart, and the environment changed by `env` ("NAME=VALUE" sets, "NAME" unsets).
/// Killed after timeout_s seconds. address_space_bytes > 0 caps its memory (RLIMIT_AS), so that a large
/// allocation fails in it as on a machine without that much memory. It runs in `cwd` when one is given.
/// file_size_bytes > 0 caps the size of any file it writes (RLIMIT_FSIZE, the shell's `ulimit -f`), its
/// standard output included.
inline ExecResult exec_gelulab(const std::vector<std::string>& args, const std::string& input,
                               const std::string& scratch_dir, const std::vector<std::string>& env = {},
                               int timeout_s = 20, std::size_t address_space_bytes = 0,
                               StdoutTo stdout_to = StdoutTo::Captured, const std::string& cwd = "",
                               std::size_t file_size_bytes = 0) {
  const std::string in = scratch_dir + "/stdin", out = scratch_dir + "/stdout", err = scratch_dir + "/stderr";
  std::ofstream(in, std::ios::binary) << input;
  ExecResult r;
  const pid_t pid = fork();
  if (pid < 0) return r;
  if (pid == 0) {
    const int fi = ::open(in.c_str(), O_RDONLY), fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
              fe = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fi < 0 || fo < 0 || fe < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(127);
    if (stdout_to == StdoutTo::DevFull) {
      const int full = ::open("/dev/full", O_WRONLY);
      if (full < 0 || dup2(full, 1) < 0) _exit(127);
      ::close(full);
    } else if (stdout_to == StdoutTo::Closed) {
      ::close(1);
    }
    for (const int fd : {fi, fo, fe})
      if (fd > 2) ::close(fd);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) _exit(127);
    if (address_space_bytes) {
      const rlimit lim{address_space_bytes, address_space_bytes};
      if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(127);
    }
    if (file_size_bytes) {
      const rlimit lim{file_size_bytes, file_size_bytes};
      if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(127);
    }
    for (const std::string& e : env) {
      const auto eq = e.find('=');
      if (eq == std::string::npos)
        unsetenv(e.c_str());
      else
        setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
    }
    std::string exe = GELULAB_EXE;
    std::vector<std::string> copy = args;
    std::vector<char*> argv{exe.data()};
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int wstatus = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    const pid_t done = waitpid(pid, &wstatus, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.exited = !r.timed_out && WIFEXITED(wstatus);
  if (r.exited) r.status = WEXITSTATUS(wstatus);
  if (!r.timed_out && WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace gelu::test

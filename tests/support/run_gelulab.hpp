// Runs the built gelulab (GELULAB_EXE) with a subcommand and arguments through the shell; stdout and stderr
// together. For tests of the CLI's output and exit status.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

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

}  // namespace gelu::test

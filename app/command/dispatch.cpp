// gelulab's subcommand dispatch (run_main, called by main()), the checks of the standard streams, and the
// validate-only mode (see command.hpp).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "command/command.hpp"
#include "gelu/fileio.hpp"
#include "gelu/kernels.hpp"

namespace gelu::command {
namespace {

bool g_dry_run = false;

const Command* find(const std::string& name) {
  for (const Command& c : commands())
    if (name == c.name) return &c;
  return nullptr;
}

// Both faces: the desktop app (the bare command, with the app's options) and the subcommands.
void print_overview(std::FILE* out) {
  std::fprintf(out, "GELU Lab — explore, teach and measure the GELU activation and its relatives.\n\n");
  if (find("gui")) {
    std::fprintf(out,
                 "usage: gelulab [APP OPTIONS]             the desktop app (the same as 'gelulab gui')\n"
                 "       gelulab SUBCOMMAND [options]      the command line\n\n"
                 "The desktop app: plots, lessons, classroom mode, FFN lab, benchmarks.\n"
                 "  gelulab                                open it (restores the last session)\n"
                 "  gelulab --size 1920x1080               in a window of that size\n"
                 "  gelulab --lesson FILE [--step N]       on a lesson\n"
                 "  gelulab --presentation 2               in presentation mode, text twice as large\n"
                 "  gelulab --panel ID [--state FILE]      on a panel\n"
                 "  (every option: 'gelulab gui --help')\n\n");
  } else {
    std::fprintf(out,
                 "usage: gelulab SUBCOMMAND [options]   (this build has no desktop app: its packages were\n"
                 "                                      missing at configure time)\n\n");
  }
  std::fprintf(out, "The command line:\n");
  for (const Command& c : commands()) std::fprintf(out, "  %-8s %s\n", c.name, c.summary);
  std::fprintf(out, "\n'gelulab SUBCOMMAND --help' shows a subcommand's options.\n");
}

// A standard stream that the caller closed (`gelulab list >&-`) must not be reused by the first file the
// command opens (its output would land in that file): each closed one gets /dev/null. Standard output gets
// it read-only, so that every write to it fails (EBADF) and the check at the end reports it.
bool g_stdout_closed = false;
std::vector<std::string> g_notes;  // note_after_output

void occupy_closed_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int got = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);  // the lowest free descriptor: fd
    if (got >= 0 && got != fd) ::close(got);
    if (fd == 1) g_stdout_closed = true;
  }
}

// Standard output is a file too: the last buffered bytes are written by the flush, and a full disk, a
// closed descriptor or /dev/full shows there or in the error flag of an earlier write; errors that a file
// system reports only when the file is closed (NFS) show when a duplicate of the descriptor is closed (the
// stream itself stays open, so that run_main can run again in one process: the fuzz target, the tests).
// One line on stderr and status 2 (as for every output that could not be written), unless the command
// already failed with its own status.
int finish_standard_output(const std::string& name, int status) {
  errno = 0;
  bool failed = std::fflush(stdout) != 0;
  int err = errno;
  if (std::ferror(stdout)) failed = true;
  if (const int dup = ::dup(1); dup >= 0 && ::close(dup) != 0 && !failed) {
    failed = true;
    err = errno;
  }
  if (!failed) {
    if (status == 0)
      for (const std::string& n : g_notes)
        std::fprintf(stderr, "gelulab%s%s: %s\n", name.empty() ? "" : " ", name.c_str(), n.c_str());
    g_notes.clear();
    return status;
  }
  g_notes.clear();
  std::clearerr(stdout);
  // A write that failed earlier left only the error flag; at the file size limit it was EFBIG.
  struct stat st {};
  rlimit lim{};
  if (!err && ::fstat(1, &st) == 0 && S_ISREG(st.st_mode) && ::getrlimit(RLIMIT_FSIZE, &lim) == 0 &&
      lim.rlim_cur != RLIM_INFINITY && static_cast<rlim_t>(st.st_size) >= lim.rlim_cur)
    err = EFBIG;
  std::string why = g_stdout_closed ? "it is closed" : err ? std::strerror(err) : "a write failed";
  if (err == EFBIG) why += " (the file size limit of this process, `ulimit -f`)";
  std::fprintf(stderr, "gelulab%s%s: cannot write to standard output: %s\n", name.empty() ? "" : " ",
               name.c_str(), why.c_str());
  return status != 0 ? status : 2;
}

int dispatch(int argc, char** argv, std::string& name) {
  int first_arg = 2;
  if (argc < 2) {
    name = find("gui") ? "gui" : "list";
  } else {
    name = argv[1];
  }
  if (name == "--help" || name == "-h" || name == "help") {
    print_overview(stdout);
    return 0;
  }
  // The bare command is the app: options without a subcommand are the app's (gelulab --size 1920x1080).
  if (name.size() > 1 && name[0] == '-' && find("gui")) {
    name = "gui";
    first_arg = 1;
  }
  const Command* cmd = find(name);
  if (!cmd) {
    std::string names;
    for (const Command& c : commands()) names.append(names.empty() ? "" : ", ").append(c.name);
    std::fprintf(stderr, "gelulab: unknown subcommand %s (one of %s; see gelulab --help)\n",
                 quote(name).c_str(), names.c_str());
    return 2;
  }
  std::vector<std::string> rest;
  for (int i = first_arg; i < argc; ++i) rest.emplace_back(argv[i]);
  for (const std::string& a : rest) {
    if (a == "--help" || a == "-h") {
      std::fputs(cmd->usage, stdout);
      if (cmd->usage_tail) std::fputs(cmd->usage_tail().c_str(), stdout);
      return 0;
    }
  }
  Args args(name, std::move(rest));
  try {
    return cmd->run(args);
  } catch (const UsageError& e) {
    // printable(): one line, whatever user text the message quotes (a path, a token) held.
    std::fprintf(stderr, "gelulab %s: %s\n", name.c_str(), printable(e.what(), 600).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "gelulab %s: out of memory: the input asks for more than this machine has\n",
                 name.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gelulab %s: error: %s\n", name.c_str(), printable(e.what(), 600).c_str());
    return 2;
  }
}

}  // namespace

void note_after_output(std::string line) {
  g_notes.push_back(std::move(line));
}

void set_dry_run(bool on) {
  g_dry_run = on;
}

std::vector<Args::Declared> declared_options(std::string_view name) {
  const Command* c = find(std::string(name));
  if (!c) return {};
  Args args(c->name, {});
  const bool was = g_dry_run;
  g_dry_run = true;  // nothing is done: most commands stop at a missing required option after finish()
  try {
    c->run(args);
  } catch (const std::exception&) {
  }
  g_dry_run = was;
  return args.declared();
}
bool dry_run() {
  return g_dry_run;
}

int run_main(int argc, char** argv) {
  occupy_closed_standard_streams();
  // `ulimit -f`: a write past the limit fails with EFBIG (and is reported, standard output included) instead
  // of SIGXFSZ ending the process with status 153 and no message.
  ignore_file_size_signal();
  // The environment is named when it is wrong: an invalid GELU_THREADS is an error, not silently ignored.
  if (const std::string why = thread_setting_problem(); !why.empty()) {
    std::fprintf(stderr, "gelulab: %s\n", why.c_str());
    return 2;
  }
  // Into a file or a pipe, output is fully buffered in 64 KiB: the write of most outputs then happens in the
  // final flush, where a full disk is reported with its reason (an earlier failed write leaves only the error
  // flag). A terminal keeps stdio's line buffering, so interactive use shows each result at once.
  static char out_buffer[std::size_t{1} << 16];
  static bool buffered = false;
  if (!buffered && !::isatty(1)) {
    std::setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
    buffered = true;
  }
  std::string name;
  const int status = dispatch(argc, argv, name);
  return finish_standard_output(name.size() > 0 && name[0] != '-' && name != "help" ? name : "", status);
}

}  // namespace gelu::command

// gelulab's subcommand dispatch (run_main, called by main()) and the validate-only mode (see cli.hpp).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "command/command.hpp"

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

}  // namespace

void set_dry_run(bool on) {
  g_dry_run = on;
}
bool dry_run() {
  return g_dry_run;
}

int run_main(int argc, char** argv) {
  std::string name;
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

}  // namespace gelu::command

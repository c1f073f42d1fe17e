// Checks gelulab's argument handling: the input is split into argv tokens at newlines and NULs (the first
// token picks the subcommand) and run through run_main in validate-only mode (set_dry_run), so every
// subcommand parses and checks all its options and does nothing else. The exit status is 0 or 2; any crash,
// UB, leak or escaped exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "command/command.hpp"

// The subcommands print usage errors and help on stdout/stderr; -close_fd_mask=3 sends them to /dev/null
// while libFuzzer and the sanitizers keep reporting on a duplicate of stderr. It is put first, so a flag on
// the command line (-close_fd_mask=0 to see the output of one input) overrides it.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  static std::vector<char*> args;
  static char quiet[] = "-close_fd_mask=3";
  args.assign(*argv, *argv + *argc);
  args.insert(args.begin() + 1, quiet);
  args.push_back(nullptr);
  *argc = static_cast<int>(args.size()) - 1;
  *argv = args.data();
  gelu::command::set_dry_run(true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> tokens{"gelulab"};
  std::string cur;
  bool open = false;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      tokens.push_back(cur);
      cur.clear();
      open = false;
    } else {
      cur += c;
      open = true;
    }
  }
  if (open) tokens.push_back(cur);
  std::vector<char*> argv;
  for (std::string& t : tokens) argv.push_back(t.data());
  argv.push_back(nullptr);
  const int status = gelu::command::run_main(static_cast<int>(tokens.size()), argv.data());
  if (status != 0 && status != 2) __builtin_trap();
  return 0;
}

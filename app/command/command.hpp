// The command framework both faces of GELU Lab use: `gelulab SUBCOMMAND [options]` for the command line
// (app/cli) and `gelulab [options]` / `gelulab gui`, `gelulab shot` for the desktop app (app/gui/hosts).
// Arguments, usage errors, the list of subcommands, dispatch and main() live here, and nothing else: the
// subcommands live in their rooms and register themselves with GELU_COMMAND, so adding one touches no other
// file. Errors in the user's input are thrown as UsageError: run_main prints "gelulab CMD: message" on
// stderr and exits with status 2.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/numio.hpp"  // quote(), printable(): user text in messages

namespace gelu::command {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Options parsed from argv: "--name value", "--name=value" and bare flags ("--json").
class Args {
 public:
  Args(std::string command, std::vector<std::string> argv)
      : command_(std::move(command)), argv_(std::move(argv)) {}

  /// Declares a flag and returns whether it was given (twice: UsageError).
  bool flag(std::string_view name);
  /// Declares an option taking one value; given more than once: UsageError (options() for repeatable ones).
  std::optional<std::string> option(std::string_view name);
  /// All occurrences, in order.
  std::vector<std::string> options(std::string_view name);
  /// Throws UsageError on anything not declared (unknown option, stray argument).
  void finish();
  /// The value of the first occurrence of an option not yet taken, without taking or declaring it (a
  /// command that branches on an option's value before parsing the rest: --dtype mxfp4).
  std::optional<std::string> peek(std::string_view name) const;

  // Typed accessors; throw UsageError naming the option and the bad value.
  static double to_double(std::string_view option, const std::string& value);
  static std::int64_t to_int(std::string_view option, const std::string& value, std::int64_t min,
                             std::int64_t max);

  const std::string& command() const { return command_; }

  /// An option or flag the command asked for (flag() or option()/options()), in the order it asked.
  struct Declared {
    std::string name;  // without the leading "--"
    bool flag;         // takes no value
  };
  const std::vector<Declared>& declared() const { return declared_; }

 private:
  void declare(std::string_view name, bool is_flag);
  std::string command_;
  std::vector<std::string> argv_;
  std::vector<Declared> declared_;
  std::vector<bool> used_ = std::vector<bool>(argv_.size(), false);
  bool matches(std::size_t i, std::string_view name, std::optional<std::string>* inline_value) const;
};

struct Command {
  const char* name;
  const char* summary;  // one line for `gelulab --help`
  const char* usage;    // full help text for `gelulab CMD --help`
  int (*run)(Args& args);
  std::string (*usage_tail)() = nullptr;  // generated text appended to usage (e.g. from a field table)
};

std::vector<Command>& commands();
struct Registrar {
  explicit Registrar(Command c) { commands().push_back(c); }
};
#define GELU_COMMAND(ident, ...) \
  static ::gelu::command::Registrar gelu_command_registrar_##ident({__VA_ARGS__})

/// True when the stream is a terminal (progress displays only then).
bool is_terminal(int fd);

/// The output-path policy, one rule for every option that names a file to write (error --csv, train --save,
/// shot --out/--csv/--plot-out/--session-out/--meta, gui --session/--report/--save-png): the file's
/// directory must already exist and be writable (no directories are ever made for it), and the path must
/// not be a directory, a socket or a block device (a symbolic link is followed; a character device or a
/// FIFO is written straight into). Called before any work, so a mistyped path fails at once rather than
/// after minutes of computing. Throws UsageError "--OPTION: cannot write 'PATH': REASON"
/// (gelu::why_not_writable gives the reason).
void check_output_path(std::string_view option, const std::string& path);

/// One output option of a command, for check_outputs.
struct Output {
  std::string_view option;                 // without "--"
  const std::optional<std::string>* path;  // not given: nullopt
  /// What standard output cannot carry, or nullptr when "-" (standard output) is fine: "a session the app
  /// restores" (gui --session), "binary PNG data to a terminal" is added by check_outputs itself for PNGs.
  const char* no_stream = nullptr;
  bool binary = false;     // refused as "-" when standard output is a terminal (a PNG)
  bool check_path = true;  // false: only the same-file rule (gui --session, whose problems are a banner)
};

/// The output-path policy for all of a command's outputs at once, before any work:
///   - "-" is standard output, for every output that can be a stream; refused (UsageError "--OPTION -: …")
///     where `no_stream` says why not, and for binary data when standard output is a terminal;
///   - at most one output on standard output, and none when the command's report already goes there
///     (`report_on_stdout`, e.g. "the JSON": refused "--OPTION -: standard output already carries the JSON");
///   - every other path checked by check_output_path;
///   - two outputs naming one file (the same path, or two spellings, symbolic or hard links of one file:
///     gelu::output_identity) refused: "--A and --B both name the file 'P'; one output would overwrite the
///     other" (a character device such as /dev/null may be shared).
/// Returns the option that writes standard output, or an empty view (the command then prints nothing else
/// there: its report gives way).
std::string_view check_outputs(const std::vector<Output>& outputs, const char* report_on_stdout = nullptr);

/// A line for stderr that run_main prints once standard output is written: after the command succeeded and
/// its output reached its file (not when the write failed, where the one line is the failure's). `eval`'s
/// "evaluated as …" note; "gelulab CMD: " is put before it.
void note_after_output(std::string line);

/// gelulab's main(): picks the subcommand from argv[1] (none: gui when built, else list), handles --help,
/// runs it and turns UsageError and other exceptions into "gelulab CMD: message" and status 2.
int run_main(int argc, char** argv);

/// Every option and flag the subcommand `name` accepts, as its run function declares them (run with no
/// arguments in validate-only mode, up to its Args::finish()): tests that cover every option of a command
/// take the list from here, so a new option is covered, or fails its test, the day it is added. Empty for an
/// unknown subcommand.
std::vector<Args::Declared> declared_options(std::string_view name);

/// Validate-only mode (the CLI fuzz target): every subcommand parses and checks all its options, then
/// returns 0 before doing its work (nothing written, no window, no GPU, no training). gui and shot also read
/// and check the lesson, state, session and script files they are given, as they would before starting.
void set_dry_run(bool on);
bool dry_run();

}  // namespace gelu::command

// The one file writer and the one file reader of GELU Lab. Every file the project writes (sessions, model
// files, exports, screenshots, reports) goes through write_file_atomic, and every named file it reads
// (states, lessons, sessions, scripts, model files, eval's --input, shader overrides) goes through
// read_file or open_for_reading. A full disk, a read-only directory, a crash or a SIGKILL in the middle of a
// save leave the previous file exactly as it was; a FIFO, a socket or a device never makes a read block.
//
// What is at the path decides how a write goes (the rules, in order):
//   - a symbolic link (or a chain of them, at most 40): the file it finally points to is written, atomically,
//     in that file's directory; the link stays a link. A dangling link creates its target (whose directory
//     must exist), as the shell's `>` would.
//   - a regular file: a temporary file in the same directory (".NAME.tmp-PID"; for a name too long for that,
//     its first bytes and a hash of the whole name, so the temporary's name never passes NAME_MAX), fsync,
//     rename over the file,
//     fsync of the directory. The file keeps its permission bits (0600 stays 0600) and, where the process
//     may set them, its owner and group. (A file with several hard links: the name written gets the new
//     content; the other names keep the old one.)
//   - nothing: a new file with the default mode (0666 less the umask).
//   - a character device or a FIFO: written straight into, never replaced (`--csv /dev/null`, `--out
//     /dev/stdout` into a pipe). A FIFO that nobody is reading is refused at once (opened non-blocking),
//     never waited on.
//   - a directory, a socket or a block device: refused with a FileError that says which.
// The file's directory must exist: missing directories are an error (MissingDirectories::Refuse), except
// for the app's own configuration directory, which is made on demand with mode 0700 (::Create, the XDG
// rule).
//
// Interrupted and limited writes: SIGINT, SIGTERM and SIGHUP during a save remove the temporary and then end
// the process as the signal says (where the signal still has its default action); SIGXFSZ (`ulimit -f`) is
// ignored, so a write past the limit fails with EFBIG and a FileError naming the file and the limit, standard
// output included (write_output "-", and run_main's check of standard output).
//
// Reading: a named file must be a regular file. It is opened with O_NONBLOCK | O_NOCTTY and checked with
// fstat before any byte is read, so a FIFO, a socket, a terminal or a device is refused with a message that
// names the path and what it is, and nothing blocks.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gelu {

/// A file that could not be read or written; what() names the path, the step and the system's reason,
/// e.g. "/home/a/s.json: cannot write: No space left on device (the previous file is unchanged)".
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Whether a write may make the directories on the way to its file.
enum class MissingDirectories {
  Refuse,  // the directory must exist (every file a user names)
  Create,  // made with mode 0700 (the app's configuration directory, per the XDG base directory spec)
};

/// Writes `bytes` to `path` by the rules above: a reader sees the old file or the new one, never a mix. On
/// failure the temporary file is removed and FileError is thrown; the previous file, if any, is untouched.
/// Stale temporary files of dead processes (a SIGKILL during an earlier save) next to the file are removed
/// first.
void write_file_atomic(const std::string& path, std::string_view bytes,
                       MissingDirectories dirs = MissingDirectories::Refuse);

/// The writer of every output that can be a stream: "-" is standard output (what was printed before is
/// flushed first; a failure is a FileError "standard output: cannot write: …"), anything else
/// write_file_atomic.
void write_output(const std::string& path, std::string_view bytes);

/// Ignores SIGXFSZ (once, if it has its default action), so that a write past `ulimit -f` fails with EFBIG
/// instead of killing the process with status 153 and no message. The writers call it; run_main too, for
/// standard output.
void ignore_file_size_signal();

/// Why write_file_atomic(path, …, dirs) would fail before any byte is written, as a phrase for "cannot write
/// PATH: …" ("the directory 'out' does not exist", "it is a directory", "the directory '/mnt' is not
/// writable: Read-only file system", "the file name is 300 bytes long; …"), or nullopt when it looks
/// writable. Follows symbolic links as the writer does. Lets every command check its output paths before it
/// computes anything, and the app warn at start-up instead of losing the session at exit.
std::optional<std::string> why_not_writable(const std::string& path,
                                            MissingDirectories dirs = MissingDirectories::Refuse);

/// What a write to `path` would change, as a key that every spelling of one file shares ("a.png",
/// "./a.png", "dir/../a.png", a symbolic link to it, a hard link of it): the device and inode of an existing
/// file, or the canonical path where a new one would be made (through its directory's links and a dangling
/// link's chain). Empty for a character device (/dev/null, a terminal), which several outputs may share.
/// Lets a command refuse two outputs on one file before any work.
std::string output_identity(const std::string& path);

/// Reads a whole regular file of at most `max_bytes` bytes; FileError names the path and the reason
/// (missing, a directory, a FIFO, a socket, a device, unreadable, too large). Never blocks.
std::string read_file(const std::string& path, std::size_t max_bytes);

/// The checks of read_file, for readers that stream (eval --input): opens `path` for reading and returns
/// the descriptor (close-on-exec, blocking mode restored) once fstat has shown a regular file; otherwise
/// FileError as read_file. The caller closes it.
int open_for_reading(const std::string& path);

/// What a stat mode is, for messages: "a directory", "a FIFO (named pipe)", "a socket", "a character
/// device", "a block device", "a regular file", "a symbolic link".
std::string file_kind(unsigned mode);

}  // namespace gelu

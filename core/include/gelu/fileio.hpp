// Saving files so that nothing is ever half-written: every file GELU Lab writes (sessions, model files,
// exports, screenshots) goes through write_file_atomic. A full disk, a read-only directory, a crash or a
// SIGKILL in the middle of a save leave the previous file exactly as it was.
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

/// Writes `bytes` to `path` so that a reader sees the old file or the new one, never a mix: a temporary
/// file in the same directory (".NAME.tmp-PID"), fsync, rename over `path`, fsync of the directory.
/// Creates missing directories. On failure the temporary file is removed and FileError is thrown; the
/// previous file at `path`, if any, is untouched. Stale temporary files of dead processes (a SIGKILL
/// during an earlier save) next to `path` are removed first.
void write_file_atomic(const std::string& path, std::string_view bytes);

/// Why write_file_atomic(path, …) would fail before any byte is written (its directory, or the nearest
/// existing parent, is on a read-only file system or not writable), or nullopt when it looks writable.
/// Lets the app warn at start-up instead of losing the session at exit.
std::optional<std::string> why_not_writable(const std::string& path);

/// Reads a whole regular file of at most `max_bytes` bytes; FileError names the path and the reason
/// (missing, a directory, unreadable, too large).
std::string read_file(const std::string& path, std::size_t max_bytes);

}  // namespace gelu

// Fault injection for the reliability tests: faults that are hard to provoke for real on demand (a GPU
// context lost mid-run, a save that is slow enough to be interrupted by a signal) are switched on by the
// environment variable GELU_FAULT, a comma-separated list of NAME or NAME=VALUE:
//
//   slow-write=MS      write_file_atomic writes in 512-byte pieces and sleeps MS milliseconds before each
//   gl-lost-after=N    the GPU backend reports its OpenGL context lost after N successful GPU calls
//   disk-full=DIR      saves of files under DIR fail at their first write with ENOSPC, as on a full disk
//   read-only=DIR      DIR behaves as a read-only file system: saves under it fail with EROFS, and
//                      why_not_writable() says so (the fault tests use these two where no private mount
//                      namespace can be made for a real full or read-only tmpfs: in a container or a chroot)
//
// Unset (the normal case) every fault is off and the checks cost one branch. The code that reacts to a
// fault is the product's own (the same path a real ENOSPC or GL_GUILTY_CONTEXT_RESET takes).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gelu::fault {

/// The value of fault `name` in $GELU_FAULT: -1 when absent, 1 for a bare NAME, else its integer value.
long value(std::string_view name);
/// The text after "NAME=" of fault `name` (a path for disk-full and read-only), or nullopt when absent.
std::optional<std::string> text(std::string_view name);
/// True when `path` is `dir` or inside it (lexically, after making both absolute).
bool path_is_under(const std::string& path, const std::string& dir);

}  // namespace gelu::fault

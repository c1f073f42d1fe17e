// Fault injection for the reliability tests: faults that are hard to provoke for real on demand (a GPU
// context lost mid-run, a save that is slow enough to be interrupted by a signal) are switched on by the
// environment variable GELU_FAULT, a comma-separated list of NAME or NAME=VALUE:
//
//   slow-write=MS      write_file_atomic writes in 512-byte pieces and sleeps MS milliseconds before each
//   gl-lost-after=N    the GPU backend reports its OpenGL context lost after N successful GPU calls
//
// Unset (the normal case) every fault is off and the checks cost one branch. The code that reacts to a
// fault is the product's own (the same path a real ENOSPC or GL_GUILTY_CONTEXT_RESET takes).
#pragma once

#include <string_view>

namespace gelu::fault {

/// The value of fault `name` in $GELU_FAULT: -1 when absent, 1 for a bare NAME, else its integer value.
long value(std::string_view name);

}  // namespace gelu::fault

// Limits the app applies to what it reads, in one place.
#pragma once

#include <cstddef>

namespace gelu::app {

/// The largest JSON file the app reads as a panel state, lesson, session or script (gelu::read_file's limit):
/// real ones are kilobytes; a bigger file is refused with its size before it is parsed.
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{16} << 20;

}  // namespace gelu::app

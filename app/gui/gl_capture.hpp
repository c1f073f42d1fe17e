// Reads back the framebuffer bound for reading and writes it as a PNG (the live view's F12 and the
// headless shot share this).
#pragma once

#include <string>

namespace gelu::app {

/// Reads w×h RGBA pixels from the current GL read framebuffer and writes them to `path` as an opaque PNG
/// (rows flipped to top-down). Returns false and sets *error on failure.
bool write_framebuffer_png(const std::string& path, int w, int h, std::string* error);

}  // namespace gelu::app

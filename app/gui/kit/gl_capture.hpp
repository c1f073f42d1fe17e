// Reads back the framebuffer bound for reading and writes it as a PNG (the live view's F12 and the
// headless shot share this).
#pragma once

#include <string>

namespace gelu::app {

/// Reads w×h RGBA pixels from the current GL read framebuffer and writes them to `path` as an opaque PNG
/// (rows flipped to top-down). Returns false and sets *error on failure.
bool write_framebuffer_png(const std::string& path, int w, int h, std::string* error);

/// Encodes top-down RGBA rows (w·4 bytes each) as PNG and saves it with gelu::write_file_atomic, so a full
/// disk or a read-only directory leaves any previous file intact. False and *error (path and reason) on
/// failure.
bool save_rgba_png(const std::string& path, int w, int h, const unsigned char* rgba, std::string* error);

}  // namespace gelu::app

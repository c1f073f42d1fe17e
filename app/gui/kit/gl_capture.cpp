#include "gui/kit/gl_capture.hpp"

#include <stb_image_write.h>

#include <cstring>
#include <vector>

#include "gelu/fileio.hpp"
#include "gui/kit/gl.hpp"

namespace gelu::app {

bool write_framebuffer_png(const std::string& path, int w, int h, std::string* error) {
  if (w <= 0 || h <= 0) {
    *error = "empty framebuffer";
    return false;
  }
  const auto row = static_cast<std::size_t>(w) * 4;
  std::vector<unsigned char> px(row * static_cast<std::size_t>(h)), flipped(px.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    *error = "glReadPixels failed (GL error " + std::to_string(e) + ")";
    return false;
  }
  for (int y = 0; y < h; ++y)
    std::memcpy(&flipped[static_cast<std::size_t>(y) * row], &px[static_cast<std::size_t>(h - 1 - y) * row],
                row);
  for (std::size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // the window is opaque
  return save_rgba_png(path, w, h, flipped.data(), error);
}

bool save_rgba_png(const std::string& path, int w, int h, const unsigned char* rgba, std::string* error) {
  std::string png;
  const auto append = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, w, h, 4, rgba, w * 4)) {
    *error = path + ": PNG encoding failed";
    return false;
  }
  try {
    write_output(path, png);  // "-": standard output (shot --out -, --plot-out -)
  } catch (const FileError& e) {
    *error = e.what();
    return false;
  }
  return true;
}

}  // namespace gelu::app

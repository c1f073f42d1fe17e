// A headless OpenGL 4.3 context (EGL surfaceless on Mesa, the EGL device on NVIDIA) with an RGBA8
// framebuffer object to draw into: what `gelulab shot` and `gelulab gui --headless` render on. In a build
// without the GPU backend (no EGL), create() says so.
#pragma once

#include <memory>
#include <string>
#include <utility>

namespace gelu::app {

class Offscreen {
 public:
  /// The context is current on this thread afterwards. nullptr and *error (why) on failure.
  static std::unique_ptr<Offscreen> create(std::pair<int, int> size, std::string* error);
  ~Offscreen();  // deletes the framebuffer; call while the context is still current (it is, on this thread)
  Offscreen(const Offscreen&) = delete;
  Offscreen& operator=(const Offscreen&) = delete;

  /// Binds the framebuffer for drawing and reading.
  void bind() const;
  std::pair<int, int> size() const { return size_; }
  /// The GL renderer string.
  std::string renderer() const;

 private:
  struct Impl;
  Offscreen(std::unique_ptr<Impl> impl, std::pair<int, int> size);
  std::unique_ptr<Impl> impl_;
  std::pair<int, int> size_;
};

}  // namespace gelu::app

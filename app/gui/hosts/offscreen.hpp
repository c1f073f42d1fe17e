// A headless OpenGL 4.3 context (EGL surfaceless on Mesa, the EGL device on NVIDIA) with an RGBA8
// framebuffer object to draw into: what `gelulab shot` and `gelulab gui --headless` render on.
#pragma once

#ifdef GELU_HAVE_GPU
#include <memory>
#include <string>
#include <utility>

#include "gelu/gpu/context.hpp"

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
  const gpu::GlInfo& info() const { return ctx_->info(); }

 private:
  Offscreen(std::unique_ptr<gpu::Context> ctx, std::pair<int, int> size)
      : ctx_(std::move(ctx)), size_(size) {}
  std::unique_ptr<gpu::Context> ctx_;
  std::pair<int, int> size_;
  unsigned fbo_ = 0, rb_ = 0;
};

}  // namespace gelu::app
#endif

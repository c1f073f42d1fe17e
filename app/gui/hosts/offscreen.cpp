// The offscreen framebuffer (see offscreen.hpp).
#include "gui/hosts/offscreen.hpp"

#ifdef GELU_HAVE_GPU
#include "gelu/gpu/context.hpp"
#include "gui/kit/gl.hpp"

namespace gelu::app {

struct Offscreen::Impl {
  std::unique_ptr<gpu::Context> ctx;
  unsigned fbo = 0, rb = 0;
};

std::unique_ptr<Offscreen> Offscreen::create(std::pair<int, int> size, std::string* error) {
  auto impl = std::make_unique<Impl>();
  impl->ctx = gpu::Context::create_headless(error);
  if (!impl->ctx) {
    *error = "cannot create a headless OpenGL 4.3 context: " + *error;
    return nullptr;
  }
  std::unique_ptr<Offscreen> o(new Offscreen(std::move(impl), size));
  glGenFramebuffers(1, &o->impl_->fbo);
  glGenRenderbuffers(1, &o->impl_->rb);
  glBindRenderbuffer(GL_RENDERBUFFER, o->impl_->rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, size.first, size.second);
  o->bind();
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->impl_->rb);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    *error =
        "cannot create a " + std::to_string(size.first) + "x" + std::to_string(size.second) + " framebuffer";
    return nullptr;
  }
  return o;
}

Offscreen::~Offscreen() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &impl_->rb);
  glDeleteFramebuffers(1, &impl_->fbo);
}

void Offscreen::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, impl_->fbo);
}

std::string Offscreen::renderer() const {
  return impl_->ctx->info().renderer;
}

}  // namespace gelu::app
#else
namespace gelu::app {

struct Offscreen::Impl {};

std::unique_ptr<Offscreen> Offscreen::create(std::pair<int, int>, std::string* error) {
  *error = "this build has no GPU backend (gelu::gpu, EGL), so it cannot render headless";
  return nullptr;
}
Offscreen::~Offscreen() = default;
void Offscreen::bind() const {}
std::string Offscreen::renderer() const {
  return {};
}

}  // namespace gelu::app
#endif

namespace gelu::app {
Offscreen::Offscreen(std::unique_ptr<Impl> impl, std::pair<int, int> size)
    : impl_(std::move(impl)), size_(size) {}
}  // namespace gelu::app

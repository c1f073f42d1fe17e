// The offscreen framebuffer (see offscreen.hpp) on the headless GL context of the app's GPU door
// (model/backends.hpp); without one, create() says why.
#include "gui/hosts/offscreen.hpp"

#include "gui/kit/gl.hpp"
#include "model/backends.hpp"

namespace gelu::app {

struct Offscreen::Impl {
  std::unique_ptr<HeadlessGl> ctx;
  unsigned fbo = 0, rb = 0;
};

Offscreen::Offscreen(std::unique_ptr<Impl> impl, std::pair<int, int> size)
    : impl_(std::move(impl)), size_(size) {}

std::unique_ptr<Offscreen> Offscreen::create(std::pair<int, int> size, std::string* error) {
  auto impl = std::make_unique<Impl>();
  impl->ctx = headless_gl(error);
  if (!impl->ctx) return nullptr;
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
  return impl_->ctx->renderer();
}

}  // namespace gelu::app

#ifdef GELU_HAVE_GPU
#include "gui/hosts/offscreen.hpp"

#include <epoxy/gl.h>

namespace gelu::app {

std::unique_ptr<Offscreen> Offscreen::create(std::pair<int, int> size, std::string* error) {
  auto ctx = gpu::Context::create_headless(error);
  if (!ctx) {
    *error = "cannot create a headless OpenGL 4.3 context: " + *error;
    return nullptr;
  }
  std::unique_ptr<Offscreen> o(new Offscreen(std::move(ctx), size));
  glGenFramebuffers(1, &o->fbo_);
  glGenRenderbuffers(1, &o->rb_);
  glBindRenderbuffer(GL_RENDERBUFFER, o->rb_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, size.first, size.second);
  o->bind();
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->rb_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    *error =
        "cannot create a " + std::to_string(size.first) + "x" + std::to_string(size.second) + " framebuffer";
    return nullptr;
  }
  return o;
}

Offscreen::~Offscreen() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &rb_);
  glDeleteFramebuffers(1, &fbo_);
}

void Offscreen::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
}

}  // namespace gelu::app
#endif

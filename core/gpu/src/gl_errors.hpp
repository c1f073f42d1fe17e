// A GL error code as the word the GL spec gives it, for the GPU backend's messages (the evaluator's and the
// FFN trainer's): "GL_OUT_OF_MEMORY", else "GL error N". One definition for both.
#pragma once

#include <epoxy/gl.h>

#include <string>

namespace gelu::gpu {

inline std::string gl_error_text(GLenum e) {
  switch (e) {
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    default:
      return "GL error " + std::to_string(e);
  }
}

}  // namespace gelu::gpu

// The OpenGL API the GUI draws with: desktop OpenGL 4.3 core through libepoxy, or WebGL2 (OpenGL ES 3.0)
// in the web build (cmake/emscripten-web.cmake), whose headers emscripten provides. Code that needs more
// than ES 3.0 (KHR_debug, the GL version query of libepoxy) is inside `#ifndef __EMSCRIPTEN__`.
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <epoxy/gl.h>
#endif

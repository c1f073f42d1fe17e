/* Debian's stb_image_write (libstb-dev) compiled into the site: the desktop links Debian's libstb, whose
   build is not emscripten's. */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

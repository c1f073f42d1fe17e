// [SECTION] Headless EGL contexts and adoption of the app's context.
//
// Display choice for create_headless, first that yields a GL >= 4.3 core context wins:
//   1. the EGL device platform on a hardware device (NVIDIA's way to run without X),
//   2. Mesa's surfaceless platform (llvmpipe on CI, or the Mesa driver of a local GPU),
//   3. the EGL device platform on a software device.
// GELU_EGL_PLATFORM=device|surfaceless restricts the choice (for debugging a machine with both).
#include "gelu/gpu/context.hpp"

#include <dlfcn.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gelu/fault.hpp"
#include "gelu/numio.hpp"

namespace gelu::gpu {

struct Context::Egl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
};

namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

std::string egl_error_text(EGLint e) {
  switch (e) {
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "EGL error 0x%04x", static_cast<unsigned>(e));
      return buf;
    }
  }
}

// Displays from eglGetPlatformDisplay are per-process singletons, and they stay initialized for the life of
// the process once a context was made on one (as most EGL programs leave them): eglTerminate would invalidate
// every other Context on the display, and Mesa's eglTerminate unloads the driver (swrast_dri.so), whose
// static caches then leak — on the AMD EPYC Zen 4 machines LeakSanitizer reported a 128-byte block allocated
// by the unloaded driver in every process that had used the GPU backend (tools/dev.sh sanitize), once per
// load of the driver. A second Context on the display initializes it again (no-op) and loads nothing.

struct Candidate {
  EGLenum platform;
  void* native;
  std::string label;
};

/// Fills GlInfo from the current context. Returns false (with *error) when it is not GL >= 4.3.
bool query_info(GlInfo* info, std::string* error) {
  const auto str = [](GLenum e) {
    const GLubyte* s = glGetString(e);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
  };
  info->vendor = str(GL_VENDOR);
  info->renderer = str(GL_RENDERER);
  info->version = str(GL_VERSION);
  const int v = epoxy_gl_version();
  info->major = v / 10;
  info->minor = v % 10;
  if (!epoxy_is_desktop_gl() || v < 43) {
    if (error)
      *error = "OpenGL 4.3 with compute shaders is required; found " +
               std::string(epoxy_is_desktop_gl() ? "" : "OpenGL ES ") + info->version + " (" +
               info->renderer + ", " + info->vendor + ")";
    return false;
  }
  GLint64 block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  info->max_ssbo_block_size = static_cast<long long>(block);
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &info->max_work_group_invocations);
  GLint count_x = 0;
  glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &count_x);
  info->max_work_group_count_x = count_x;
  glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &info->ssbo_offset_alignment);
  GLint bits = 0;
  glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &bits);
  info->timer_query = bits > 0;
  while (glGetError() != GL_NO_ERROR) {
  }
  return true;
}

bool gl_context_is_current() {
  using GetCurrent = void* (*)();
  const std::pair<const char*, const char*> probes[] = {{"libEGL.so.1", "eglGetCurrentContext"},
                                                        {"libGLX.so.0", "glXGetCurrentContext"},
                                                        {"libGL.so.1", "glXGetCurrentContext"}};
  for (const auto& [lib, sym] : probes) {
    void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    const auto fn = reinterpret_cast<GetCurrent>(dlsym(h, sym));
    const bool current = fn && fn() != nullptr;
    dlclose(h);
    if (current) return true;
  }
  return false;
}

}  // namespace

std::unique_ptr<Context> Context::create_headless(std::string* error) {
  std::string local_error;
  if (!error) error = &local_error;
  // A wrong value is the user's choice, not EGL's failure: say so first, in one line (empty is unset).
  const char* only = std::getenv("GELU_EGL_PLATFORM");
  if (only && !*only) only = nullptr;
  if (only && std::strcmp(only, "device") != 0 && std::strcmp(only, "surfaceless") != 0) {
    *error = "GELU_EGL_PLATFORM=" + quote(only) +
             " is not one of device, surfaceless (unset it to let GELU Lab "
             "choose)";
    return nullptr;
  }
  // libepoxy aborts the process when it cannot dlopen libEGL; probe first so the caller gets a message.
  if (void* lib = dlopen("libEGL.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(lib);
  } else {
    *error =
        "EGL is not available (libEGL.so.1 could not be loaded: install libegl1 and a driver such as "
        "libegl-mesa0 or the NVIDIA driver)";
    return nullptr;
  }
  const char* client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!has_extension(client_ext, "EGL_EXT_platform_base")) {
    *error = "EGL has no EGL_EXT_platform_base (client extensions: " +
             std::string(client_ext ? client_ext : "none") +
             "); cannot open a display without a window system";
    return nullptr;
  }
  const bool allow_device = !only || std::strcmp(only, "device") == 0;
  const bool allow_surfaceless = !only || std::strcmp(only, "surfaceless") == 0;

  std::vector<Candidate> hardware, software;
  if (allow_device && has_extension(client_ext, "EGL_EXT_device_enumeration") &&
      has_extension(client_ext, "EGL_EXT_platform_device")) {
    EGLint n = 0;
    eglQueryDevicesEXT(0, nullptr, &n);
    std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(std::max(n, 0)));
    if (n > 0 && eglQueryDevicesEXT(n, devices.data(), &n)) {
      for (EGLint i = 0; i < n; ++i) {
        const char* dev_ext = eglQueryDeviceStringEXT(devices[static_cast<std::size_t>(i)], EGL_EXTENSIONS);
        const bool sw = has_extension(dev_ext, "EGL_MESA_device_software");
        Candidate c{EGL_PLATFORM_DEVICE_EXT, devices[static_cast<std::size_t>(i)],
                    std::string("EGL device ") + std::to_string(i) + (sw ? " (software)" : "")};
        (sw ? software : hardware).push_back(c);
      }
    }
  }
  std::vector<Candidate> order = hardware;
  if (allow_surfaceless && has_extension(client_ext, "EGL_MESA_platform_surfaceless"))
    order.push_back({EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, "EGL surfaceless (Mesa)"});
  order.insert(order.end(), software.begin(), software.end());
  if (order.empty()) {
    if (only) {
      *error = std::string("GELU_EGL_PLATFORM=") + only + " asks for the EGL " + only +
               " platform, which this EGL does not offer (unset it to let GELU Lab choose)";
      return nullptr;
    }
    *error =
        "EGL offers neither the device platform (EGL_EXT_platform_device) nor Mesa's surfaceless platform "
        "(EGL_MESA_platform_surfaceless); client extensions: " +
        std::string(client_ext ? client_ext : "none");
    return nullptr;
  }

  std::string tried;  // one clause per candidate, for the error message
  for (const Candidate& c : order) {
    EGLDisplay d = eglGetPlatformDisplayEXT(c.platform, c.native, nullptr);
    EGLint major = 0, minor = 0;
    if (d == EGL_NO_DISPLAY || !eglInitialize(d, &major, &minor)) {
      tried += "; " + c.label + ": eglInitialize failed (" + egl_error_text(eglGetError()) + ")";
      continue;
    }
    const char* dpy_ext = eglQueryString(d, EGL_EXTENSIONS);
    if (!eglBindAPI(EGL_OPENGL_API) || !has_extension(dpy_ext, "EGL_KHR_surfaceless_context")) {
      tried += "; " + c.label + ": no desktop OpenGL API or no EGL_KHR_surfaceless_context";
      continue;
    }
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!has_extension(dpy_ext, "EGL_KHR_no_config_context")) {
      const EGLint attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
      EGLint count = 0;
      if (!eglChooseConfig(d, attrs, &config, 1, &count) || count < 1) {
        tried += "; " + c.label + ": no EGL config with EGL_OPENGL_BIT";
        continue;
      }
    }
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                4,
                                EGL_CONTEXT_MINOR_VERSION,
                                3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                EGL_NONE};
    EGLContext ctx = eglCreateContext(d, config, EGL_NO_CONTEXT, ctx_attrs);
    if (ctx == EGL_NO_CONTEXT) {
      const EGLint e = eglGetError();
      // Say what the driver does offer: a default context reports its version.
      std::string found = "unknown";
      EGLContext any = eglCreateContext(d, config, EGL_NO_CONTEXT, nullptr);
      if (any != EGL_NO_CONTEXT && eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, any)) {
        const GLubyte* v = glGetString(GL_VERSION);
        const GLubyte* r = glGetString(GL_RENDERER);
        found = std::string(v ? reinterpret_cast<const char*>(v) : "?") + " (" +
                (r ? reinterpret_cast<const char*>(r) : "?") + ")";
        eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      }
      if (any != EGL_NO_CONTEXT) eglDestroyContext(d, any);
      tried += "; " + c.label + ": no OpenGL 4.3 core context (" + egl_error_text(e) +
               "), the driver offers " + found;
      continue;
    }
    if (!eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      tried += "; " + c.label + ": eglMakeCurrent failed (" + egl_error_text(eglGetError()) + ")";
      eglDestroyContext(d, ctx);
      continue;
    }
    std::unique_ptr<Context> out(new Context());
    out->egl_ = std::make_unique<Egl>();
    out->egl_->display = d;
    out->egl_->context = ctx;
    out->headless_ = true;
    std::string why;
    if (!query_info(&out->info_, &why)) {
      tried += "; " + c.label + ": " + why;
      continue;  // ~Context destroys the context
    }
    out->info_.platform = c.label;
    return out;
  }
  *error = "could not create a headless OpenGL 4.3 context" + tried;
  return nullptr;
}

std::unique_ptr<Context> Context::adopt_current(std::string* error) {
  std::string local_error;
  if (!error) error = &local_error;
  // Without a current context glGetString returns null (or worse); ask the window-system libraries that
  // are already loaded (RTLD_NOLOAD: the app loaded them when it made its context) whether one is current.
  if (!gl_context_is_current()) {
    *error = "no OpenGL context is current on this thread";
    return nullptr;
  }
  std::unique_ptr<Context> out(new Context());
  if (!query_info(&out->info_, error)) return nullptr;
  out->info_.platform = "adopted";
  return out;
}

Context::~Context() {
  if (!egl_) return;
  if (eglGetCurrentContext() == egl_->context)
    eglMakeCurrent(egl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(egl_->display, egl_->context);
}

void Context::make_current() {
  if (egl_) eglMakeCurrent(egl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_->context);
}

std::optional<std::string> context_lost() {
  static std::mutex mu;
  static std::optional<std::string> lost;
  static long calls = 0;
  static const long fault_after = fault::value("gl-lost-after");
  std::lock_guard lk(mu);
  if (lost) return lost;
  if (fault_after >= 0 && ++calls > fault_after) {
    lost = "the OpenGL context was lost (GL_UNKNOWN_CONTEXT_RESET, injected by GELU_FAULT=gl-lost-after=" +
           std::to_string(fault_after) + ")";
    return lost;
  }
  if (epoxy_gl_version() >= 45 || epoxy_has_gl_extension("GL_KHR_robustness")) {
    const GLenum status = glGetGraphicsResetStatus();
    if (status != GL_NO_ERROR) {
      const char* what = status == GL_GUILTY_CONTEXT_RESET     ? "GL_GUILTY_CONTEXT_RESET"
                         : status == GL_INNOCENT_CONTEXT_RESET ? "GL_INNOCENT_CONTEXT_RESET"
                                                               : "GL_UNKNOWN_CONTEXT_RESET";
      lost = std::string("the OpenGL context was lost (") + what + ")";
    }
  }
  return lost;
}

}  // namespace gelu::gpu

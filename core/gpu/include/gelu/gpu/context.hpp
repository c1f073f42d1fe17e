// gelu::gpu — an OpenGL 4.3+ core context, either headless (EGL) or adopted from the app's GLFW window.
// GL, no ImGui. Errors come back as text the app can show while the CPU path keeps working.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace gelu::gpu {

struct GlInfo {
  std::string vendor, renderer, version;  // glGetString
  int major = 0, minor = 0;
  long long max_ssbo_block_size = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE, bytes
  int max_work_group_invocations = 0;
  bool timer_query = false;              // GL_TIME_ELAPSED usable
  long long max_work_group_count_x = 0;  // GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]
  int ssbo_offset_alignment = 0;         // GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, bytes
  std::string platform;                  // "EGL device", "EGL surfaceless (Mesa)" or "adopted"
};

class Context {
 public:
  /// A headless GL 4.3+ core context made current on this thread: EGL surfaceless on Mesa
  /// (EGL_PLATFORM_SURFACELESS_MESA), the EGL device platform on NVIDIA. nullptr + *error on failure.
  static std::unique_ptr<Context> create_headless(std::string* error);
  /// Wraps the context already current on this thread (the app's GLFW window); checks GL >= 4.3.
  static std::unique_ptr<Context> adopt_current(std::string* error);

  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// Makes the context current on the calling thread (headless only; an adopted context is the app's).
  void make_current();
  const GlInfo& info() const { return info_; }
  bool headless() const { return headless_; }

 private:
  Context() = default;
  struct Egl;
  std::unique_ptr<Egl> egl_;  // only for headless contexts
  GlInfo info_;
  bool headless_ = false;
};

/// Whether the context current on this thread was lost (a driver reset, a hung or removed GPU): asks
/// glGetGraphicsResetStatus where the context has it (GL 4.5 / KHR_robustness), and counts calls for the
/// `gl-lost-after=N` fault (gelu/fault.hpp). Returns the reason once lost, and from then on for the whole
/// process: objects of a lost context are gone, so callers drop the GPU path and carry on with the CPU.
std::optional<std::string> context_lost();

}  // namespace gelu::gpu

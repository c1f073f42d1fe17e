#include "cli/backend.hpp"

#include "cli/cli.hpp"

namespace gelu::cli {

Backend parse_backend(const std::optional<std::string>& value, bool allow_all) {
  if (!value || *value == "cpu") return Backend::Cpu;
  if (*value == "gpu") return Backend::Gpu;
  if (allow_all && *value == "all") return Backend::All;
  throw UsageError("--backend: " + quote(*value) + " is not one of cpu, gpu" + (allow_all ? ", all" : ""));
}

#ifndef GELU_HAVE_GPU
bool gpu_available() {
  return false;
}
std::optional<std::string> gpu_eval(const Activation&, int, const Params&, std::span<const float>,
                                    std::span<float>) {
  return "this gelulab was built without the GPU backend (GELU_BUILD_GPU=OFF or EGL/libepoxy missing)";
}
#endif

}  // namespace gelu::cli

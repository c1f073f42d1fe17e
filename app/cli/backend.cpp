#include "cli/backend.hpp"

#include "cli/cli.hpp"

namespace gelu::cli {

Backend parse_backend(const std::optional<std::string>& value, bool allow_all) {
  if (!value || *value == "cpu") return Backend::Cpu;
  if (*value == "gpu") return Backend::Gpu;
  if (allow_all && *value == "all") return Backend::All;
  throw UsageError("--backend: " + quote(*value) + " is not one of cpu, gpu" + (allow_all ? ", all" : ""));
}

}  // namespace gelu::cli

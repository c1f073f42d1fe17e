// The CLI's --backend option. The GPU itself is reached through the app's one GPU door (model/backends.hpp).
#pragma once

#include <optional>
#include <span>
#include <string>

#include "gelu/activation.hpp"
#include "model/backends.hpp"

namespace gelu::cli {

/// Parses "--backend" values; throws UsageError for anything but cpu|gpu (and "all" when allow_all).
enum class Backend { Cpu, Gpu, All };
Backend parse_backend(const std::optional<std::string>& value, bool allow_all);

using app::gpu_eval;
using app::gpu_subnormal_note;

}  // namespace gelu::cli

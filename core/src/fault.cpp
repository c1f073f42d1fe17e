// GELU_FAULT parsing (see fault.hpp).
#include "gelu/fault.hpp"

#include <cstdlib>
#include <string>

namespace gelu::fault {

long value(std::string_view name) {
  static const std::string spec = [] {
    const char* s = std::getenv("GELU_FAULT");
    return std::string(s ? s : "");
  }();
  if (spec.empty()) return -1;
  std::string_view rest = spec;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (item.substr(0, eq) != name) continue;
    if (eq == std::string_view::npos) return 1;
    const std::string v(item.substr(eq + 1));
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    return end && *end == '\0' && n >= 0 ? n : 1;
  }
  return -1;
}

}  // namespace gelu::fault

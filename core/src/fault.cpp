// GELU_FAULT parsing (see fault.hpp).
#include "gelu/fault.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

namespace gelu::fault {

namespace {

/// The item "NAME" or "NAME=VALUE" of $GELU_FAULT for `name`; nullopt when absent.
std::optional<std::string_view> item(std::string_view name) {
  static const std::string spec = [] {
    const char* s = std::getenv("GELU_FAULT");
    return std::string(s ? s : "");
  }();
  std::string_view rest = spec;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view it = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (it.substr(0, it.find('=')) == name) return it;
  }
  return std::nullopt;
}

}  // namespace

long value(std::string_view name) {
  const auto it = item(name);
  if (!it) return -1;
  const std::size_t eq = it->find('=');
  if (eq == std::string_view::npos) return 1;
  const std::string v(it->substr(eq + 1));
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  return end && *end == '\0' && n >= 0 ? n : 1;
}

std::optional<std::string> text(std::string_view name) {
  const auto it = item(name);
  if (!it) return std::nullopt;
  const std::size_t eq = it->find('=');
  return eq == std::string_view::npos ? std::string() : std::string(it->substr(eq + 1));
}

bool path_is_under(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(path, ec).lexically_normal();
  const std::filesystem::path d = std::filesystem::absolute(dir, ec).lexically_normal();
  auto pi = p.begin();
  for (auto di = d.begin(); di != d.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

}  // namespace gelu::fault

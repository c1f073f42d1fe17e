// Reading and writing whole files in tests, one definition for every test file.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gelu::test {

/// The file's bytes ("" when it cannot be opened).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Writes `text` to the file, replacing what it held.
inline void put(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace gelu::test

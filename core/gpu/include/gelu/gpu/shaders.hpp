// Shader sources: embedded at build time, or read from a directory (GELU_SHADER_DIR, or GELULAB_SHADER_DIR)
// for live editing. `#include "file"` is resolved here (GLSL has none), with a line map so the driver's
// compile log is reported as file:line of the original sources.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gelu::gpu {

/// A fully expanded shader with, for each of its lines, where that line came from.
struct ExpandedSource {
  std::string text;
  struct Origin {
    std::string file;  // path relative to the shader root, or "<defines>"
    int line;          // 1-based
  };
  std::vector<Origin> lines;  // lines[k] is the origin of line k + 1 of text
};

class ShaderLibrary {
 public:
  /// The directory named by GELU_SHADER_DIR (or GELULAB_SHADER_DIR) when set, else the embedded copies.
  static ShaderLibrary from_environment();
  static ShaderLibrary embedded();
  static ShaderLibrary from_directory(std::string dir);

  /// Empty when usable; otherwise why not (e.g. the shader directory does not exist).
  std::string problem() const;
  /// "embedded" or the directory.
  std::string origin() const { return dir_.empty() ? std::string("embedded") : dir_; }

  /// This library with one more file, `name`, held in memory and read before the library's own files: how
  /// GLSL made at run time (a designer candidate's export) goes through the same #include expansion.
  ShaderLibrary with_file(std::string name, std::string text) const;

  /// The raw text of `name` (relative path), or nullopt and *error.
  std::optional<std::string> read(std::string_view name, std::string* error) const;
  /// `name` with includes resolved (each file once; relative to the including file, then the root) and
  /// `defines` (full lines) inserted after the #version line.
  std::optional<ExpandedSource> expand(std::string_view name, std::string_view defines,
                                       std::string* error) const;

 private:
  std::string dir_;                                                    // empty = embedded
  std::shared_ptr<const std::map<std::string, std::string>> overlay_;  // in-memory files (with_file)
};

/// Rewrites a driver log ("0:12(3): error: ..." on Mesa, "0(12) : error ..." on NVIDIA) so each message
/// starts with "file:line:" of the original source; lines it cannot map are kept as they are.
std::string map_compile_log(std::string_view log, const ExpandedSource& src);

/// Expands `kernel` from `lib` with `defines`, compiles and links it as a compute program (needs a current
/// GL context). Returns the program id, or 0 with *error naming the kernel, `what` (e.g. "act_gelu, order
/// 1"), where the sources came from and the driver's log mapped to file:line of the original sources.
unsigned build_compute_program(const ShaderLibrary& lib, const std::string& kernel, std::string_view defines,
                               const std::string& what, std::string* error);

}  // namespace gelu::gpu

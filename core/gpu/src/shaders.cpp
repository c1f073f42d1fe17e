// [SECTION] Shader sources: embedded or from disk, #include expansion with a line map, log mapping.
#include "gelu/gpu/shaders.hpp"

#include <epoxy/gl.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "embedded_shaders.hpp"
#include "gelu/fileio.hpp"

namespace gelu::gpu {

namespace {
constexpr std::size_t kMaxShaderBytes = std::size_t{4} << 20;  // the embedded set is ~100 KB
}  // namespace

ShaderLibrary ShaderLibrary::from_environment() {
  for (const char* var : {"GELU_SHADER_DIR", "GELULAB_SHADER_DIR"})
    if (const char* d = std::getenv(var); d && *d) return from_directory(d);
  return embedded();
}
ShaderLibrary ShaderLibrary::embedded() {
  return ShaderLibrary();
}
ShaderLibrary ShaderLibrary::from_directory(std::string dir) {
  ShaderLibrary lib;
  lib.dir_ = std::move(dir);
  return lib;
}

std::string ShaderLibrary::problem() const {
  if (dir_.empty()) return detail::embedded_shaders().empty() ? "no shaders were embedded at build time" : "";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_, ec))
    return "shader directory '" + dir_ + "' (GELU_SHADER_DIR) does not exist or is not a directory";
  return "";
}

ShaderLibrary ShaderLibrary::with_file(std::string name, std::string text) const {
  ShaderLibrary lib = *this;
  auto files = overlay_ ? std::make_shared<std::map<std::string, std::string>>(*overlay_)
                        : std::make_shared<std::map<std::string, std::string>>();
  (*files)[std::move(name)] = std::move(text);
  lib.overlay_ = std::move(files);
  return lib;
}

std::optional<std::string> ShaderLibrary::read(std::string_view name, std::string* error) const {
  if (overlay_)
    if (const auto it = overlay_->find(std::string(name)); it != overlay_->end()) return it->second;
  if (dir_.empty()) {
    for (const detail::EmbeddedShader& s : detail::embedded_shaders())
      if (name == s.path) return std::string(reinterpret_cast<const char*>(s.data), s.size);
    if (error) *error = "shader '" + std::string(name) + "' is not among the embedded shaders";
    return std::nullopt;
  }
  const std::filesystem::path p = std::filesystem::path(dir_) / std::string(name);
  try {
    return read_file(p.string(), kMaxShaderBytes);  // the one reader: a FIFO or a device is refused, not read
  } catch (const FileError& e) {
    if (error) *error = std::string("cannot read shader ") + e.what();
    return std::nullopt;
  }
}

namespace {

struct Expander {
  const ShaderLibrary& lib;
  std::set<std::string> done;
  std::vector<std::string> stack;
  ExpandedSource out;
  std::string error;

  void emit(const std::string& line, const std::string& file, int n) {
    out.text += line;
    out.text += '\n';
    out.lines.push_back({file, n});
  }

  bool file(const std::string& name, std::string_view defines, bool top) {
    for (const std::string& s : stack)
      if (s == name) {
        error = "#include cycle through '" + name + "'";
        return false;
      }
    if (!done.insert(name).second) return true;  // each file once (include guards are then optional)
    const auto text = lib.read(name, &error);
    if (!text) return false;
    stack.push_back(name);
    static const std::regex include_re(R"(^\s*#\s*include\s+\"([^\"]+)\"\s*(//.*)?$)");
    std::istringstream in(*text);
    std::string line;
    int n = 0;
    bool defines_done = !top;
    while (std::getline(in, line)) {
      ++n;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::smatch m;
      if (std::regex_match(line, m, include_re)) {
        // Relative to the including file's folder first, then to the shader root.
        const std::filesystem::path base = std::filesystem::path(name).parent_path();
        std::string target = (base / m[1].str()).lexically_normal().generic_string();
        std::string probe;
        if (!lib.read(target, &probe))
          target = std::filesystem::path(m[1].str()).lexically_normal().generic_string();
        if (!file(target, {}, false)) {
          if (error.find(" (included from ") == std::string::npos)
            error += " (included from " + name + ":" + std::to_string(n) + ")";
          return false;
        }
        continue;
      }
      emit(line, name, n);
      if (!defines_done && line.find("#version") != std::string::npos) {
        std::istringstream d{std::string(defines)};
        std::string dl;
        int dn = 0;
        while (std::getline(d, dl)) emit(dl, "<defines>", ++dn);
        defines_done = true;
      }
    }
    stack.pop_back();
    return true;
  }
};

}  // namespace

std::optional<ExpandedSource> ShaderLibrary::expand(std::string_view name, std::string_view defines,
                                                    std::string* error) const {
  if (std::string p = problem(); !p.empty()) {
    if (error) *error = p;
    return std::nullopt;
  }
  Expander e{*this, {}, {}, {}, {}};
  if (!e.file(std::string(name), defines, true)) {
    if (error) *error = e.error;
    return std::nullopt;
  }
  return std::move(e.out);
}

std::string map_compile_log(std::string_view log, const ExpandedSource& src) {
  static const std::regex mesa(R"(^\s*\d+:(\d+)\(\d+\)\s*:\s*(.*)$)");  // 0:12(3): error: ...
  static const std::regex nvidia(R"(^\s*\d+\((\d+)\)\s*:\s*(.*)$)");    // 0(12) : error C1008: ...
  std::istringstream in{std::string(log)};
  std::string line, out;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, mesa) || std::regex_match(line, m, nvidia)) {
      const long k = std::strtol(m[1].str().c_str(), nullptr, 10);
      if (k >= 1 && static_cast<std::size_t>(k) <= src.lines.size()) {
        const auto& o = src.lines[static_cast<std::size_t>(k - 1)];
        out += o.file + ":" + std::to_string(o.line) + ": " + m[2].str() + "\n";
        continue;
      }
    }
    if (!line.empty()) out += line + "\n";
  }
  return out;
}

unsigned build_compute_program(const ShaderLibrary& lib, const std::string& kernel, std::string_view defines,
                               const std::string& what, std::string* error) {
  const auto src = lib.expand(kernel, defines, error);
  if (!src) return 0;
  const std::string label =
      "shader " + kernel + (what.empty() ? std::string() : " (" + what + ")") + " from " + lib.origin();
  const GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
  const char* text = src->text.c_str();
  glShaderSource(sh, 1, &text, nullptr);
  glCompileShader(sh);
  GLint ok = 0, len = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    glGetShaderiv(sh, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<std::size_t>(std::max(len, 1)), '\0');
    glGetShaderInfoLog(sh, len, nullptr, log.data());
    glDeleteShader(sh);
    *error = label + " does not compile:\n" + map_compile_log(log.c_str(), *src);
    return 0;
  }
  const GLuint prog = glCreateProgram();
  glAttachShader(prog, sh);
  glLinkProgram(prog);
  glDeleteShader(sh);
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    glGetProgramiv(prog, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<std::size_t>(std::max(len, 1)), '\0');
    glGetProgramInfoLog(prog, len, nullptr, log.data());
    glDeleteProgram(prog);
    *error = label + " does not link:\n" + map_compile_log(log.c_str(), *src);
    return 0;
  }
  return prog;
}

}  // namespace gelu::gpu

#include <unistd.h>

#include <charconv>
#include <cmath>

#include "command/command.hpp"
#include "gelu/fileio.hpp"
#include "gelu/numio.hpp"

namespace gelu::command {

std::vector<Command>& commands() {
  static std::vector<Command> c;
  return c;
}

bool is_terminal(int fd) {
  return isatty(fd) != 0;
}

void check_output_path(std::string_view option, const std::string& path) {
  if (const auto why = why_not_writable(path))
    throw UsageError("--" + std::string(option) + ": cannot write " + quote(path, 200) + ": " + *why);
}

std::string_view check_outputs(const std::vector<Output>& outputs, const char* report_on_stdout) {
  std::string_view on_stdout;
  std::vector<std::pair<std::string, const Output*>> seen;  // identity, output
  for (const Output& o : outputs) {
    if (!o.path || !*o.path) continue;
    const std::string& path = **o.path;
    const std::string opt = "--" + std::string(o.option);
    if (path == "-") {
      if (o.no_stream)
        throw UsageError(opt + " -: standard output cannot be " + o.no_stream + "; give a file");
      if (o.binary && is_terminal(1))
        throw UsageError(opt +
                         " -: standard output is a terminal; binary data would garble it (redirect it "
                         "to a file or a pipe, or give a file)");
      if (!on_stdout.empty())
        throw UsageError(opt + " -: --" + std::string(on_stdout) +
                         " - already writes standard output; give one of them a file");
      if (report_on_stdout) throw UsageError(opt + " -: standard output already carries " + report_on_stdout);
      on_stdout = o.option;
      continue;
    }
    if (o.check_path) check_output_path(o.option, path);
    const std::string id = output_identity(path);
    if (id.empty()) continue;
    for (const auto& [other_id, other] : seen)
      if (other_id == id)
        throw UsageError("--" + std::string(other->option) + " and " + opt + " both name the file " +
                         quote(path, 200) +
                         (**other->path == path ? "" : " (as " + quote(**other->path, 200) + ")") +
                         "; one output would overwrite the other: give each its own file");
    seen.emplace_back(id, &o);
  }
  return on_stdout;
}

bool Args::matches(std::size_t i, std::string_view name, std::optional<std::string>* inline_value) const {
  std::string_view a = argv_[i];
  if (a.size() < 3 || a.substr(0, 2) != "--") return false;
  a.remove_prefix(2);
  if (a == name) return true;
  if (a.size() > name.size() && a.substr(0, name.size()) == name && a[name.size()] == '=') {
    if (inline_value) *inline_value = std::string(a.substr(name.size() + 1));
    return true;
  }
  return false;
}

void Args::declare(std::string_view name, bool is_flag) {
  for (const Declared& d : declared_)
    if (d.name == name) return;
  declared_.push_back({std::string(name), is_flag});
}

bool Args::flag(std::string_view name) {
  declare(name, true);
  bool found = false;
  for (std::size_t i = 0; i < argv_.size(); ++i) {
    std::optional<std::string> v;
    if (!used_[i] && matches(i, name, &v)) {
      if (v) throw UsageError("--" + std::string(name) + " takes no value");
      if (found) throw UsageError("--" + std::string(name) + " is given twice");
      used_[i] = true;
      found = true;
    }
  }
  return found;
}

std::vector<std::string> Args::options(std::string_view name) {
  declare(name, false);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv_.size(); ++i) {
    std::optional<std::string> v;
    if (used_[i] || !matches(i, name, &v)) continue;
    used_[i] = true;
    if (!v) {
      if (i + 1 >= argv_.size()) throw UsageError("--" + std::string(name) + " needs a value");
      used_[++i] = true;
      v = argv_[i];
    }
    out.push_back(*v);
  }
  return out;
}

std::optional<std::string> Args::peek(std::string_view name) const {
  for (std::size_t i = 0; i < argv_.size(); ++i) {
    std::optional<std::string> v;
    if (used_[i] || !matches(i, name, &v)) continue;
    if (v) return v;
    if (i + 1 < argv_.size()) return argv_[i + 1];
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> Args::option(std::string_view name) {
  auto all = options(name);
  if (all.empty()) return std::nullopt;
  if (all.size() > 1)
    throw UsageError("--" + std::string(name) + " is given " + std::to_string(all.size()) + " times (" +
                     quote(all[0]) + ", " + quote(all[1]) + (all.size() > 2 ? ", …" : "") +
                     "); give it once");
  return all.back();
}

void Args::finish() {
  for (std::size_t i = 0; i < argv_.size(); ++i) {
    if (used_[i]) continue;
    const std::string& a = argv_[i];
    if (a.rfind("--", 0) == 0)
      throw UsageError("unknown option " + quote(a.substr(0, a.find('='))) + " (see gelulab " + command_ +
                       " --help)");
    throw UsageError("unexpected argument " + quote(a) + " (see gelulab " + command_ + " --help)");
  }
}

double Args::to_double(std::string_view option, const std::string& value) {
  auto v = parse_f64(value);
  if (!v) throw UsageError("--" + std::string(option) + ": " + quote(value) + " is not a number");
  return *v;
}

std::int64_t Args::to_int(std::string_view option, const std::string& value, std::int64_t min,
                          std::int64_t max) {
  std::int64_t v = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == end && (v < min || v > max)))
    throw UsageError("--" + std::string(option) + ": " + printable(value) + " is out of range [" +
                     std::to_string(min) + ", " + std::to_string(max) + "]");
  if (ec != std::errc() || ptr != end || value.empty())
    throw UsageError("--" + std::string(option) + ": " + quote(value) + " is not an integer");
  return v;
}

}  // namespace gelu::command

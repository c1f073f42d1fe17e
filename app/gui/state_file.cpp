#include "state_file.hpp"

#include <fstream>
#include <sstream>

#include "cli.hpp"

namespace gelu::app {

void load_state_file(App& app, const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw cli::UsageError("--state: cannot read '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  try {
    app.active().load_state(json::parse(ss.str()));
  } catch (const json::JsonError& e) {
    std::string where = e.line() ? " (line " + std::to_string(e.line()) + ", column " + std::to_string(e.column()) + ")" : "";
    throw cli::UsageError("--state " + path + where + ": " + e.what());
  }
}

}  // namespace gelu::app

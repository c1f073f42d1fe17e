// Checks session restoring (app/gui/session.hpp) on an App without a window: parse, then apply_session as
// `gelulab gui` does at start. A session either applies or throws SessionError leaving the app exactly as it
// was (all or nothing); one that applies is saved (session_json) and re-applies to a fresh App, giving the
// same session again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gui/shell/app.hpp"
#include "gui/shell/session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gelu;
  using namespace gelu::app;
  json::Value doc;
  try {
    doc = json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const json::JsonError&) {
    return 0;  // read_session_file's SessionError; the parser has its own target (fuzz_model_file)
  }
  App app;
  const std::string before = json::write(session_json(app));
  try {
    apply_session(app, doc, "fuzz.json");
  } catch (const SessionError&) {
    if (json::write(session_json(app)) != before) __builtin_trap();
    return 0;
  }
  const json::Value saved = session_json(app);
  App fresh;
  apply_session(fresh, saved, "saved.json");  // a saved session always restores; SessionError here is a bug
  if (json::write(session_json(fresh)) != json::write(saved)) __builtin_trap();
  return 0;
}

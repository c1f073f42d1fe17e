// Everything the app writes, it reads back (reliability class 5), for any input: bytes that load as a session
// (apply_session, as `gelulab gui` restores one) or as a panel state of any panel of model::panel_kinds()
// (the field table, and the panel itself, as `--state`, lessons and sessions apply one) are written as the
// app writes them; the text parses with the strict reader (json::parse), loads again, and writes the same
// text again. A failed load leaves nothing to check (fuzz_session checks that it changes nothing); anything
// else escaping, a written text that does not parse or load, or a second write that differs, is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gui/panels/panel.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/session.hpp"
#include "model/panels.hpp"

namespace {

using namespace gelu;
using namespace gelu::app;

/// The text the app writes for a session: what save_session puts in the file (non-finite numbers refused).
std::string session_text(const App& app) {
  return json::write(session_json(app), 2) + "\n";
}

void session_round_trip(const json::Value& doc) {
  App app;
  try {
    apply_session(app, doc, "fuzz.json");
  } catch (const SessionError&) {
    return;
  }
  const std::string first = session_text(app);
  App again;
  apply_session(again, json::parse(first), "saved.json");  // throws (a bug) when the written text is refused
  if (session_text(again) != first) __builtin_trap();
}

void state_round_trip(const model::PanelKind& kind, const json::Value& doc) {
  json::Value normal;
  try {
    normal = kind.normalize(doc);
  } catch (const json::JsonError&) {
    return;  // not a state of this panel; the panel itself must refuse it too
  }
  // The table: its written state parses, reads back, and writes the same text.
  const std::string text = json::write(normal, 2);
  if (json::write(kind.normalize(json::parse(text)), 2) != text) __builtin_trap();
  // The panel: a fresh one given the state saves what the table says, and that reloads to the same.
  auto panel = make_panel(kind.id);
  panel->set_state(doc);
  const std::string saved = json::write(panel->state(), 2);
  if (saved != text) __builtin_trap();
  auto fresh = make_panel(kind.id);
  fresh->set_state(json::parse(saved));
  if (json::write(fresh->state(), 2) != saved) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json::Value doc;
  try {
    doc = json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const json::JsonError&) {
    return 0;  // the parser has its own target (fuzz_model_file)
  }
  if (doc.is_object() && doc.find("format")) {
    session_round_trip(doc);
  } else {
    for (const model::PanelKind& kind : model::panel_kinds()) state_round_trip(kind, doc);
  }
  return 0;
}

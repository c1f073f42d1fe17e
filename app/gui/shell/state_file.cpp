#include "gui/shell/state_file.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "command/command.hpp"
#include "gelu/fileio.hpp"
#include "gui/shell/classroom.hpp"
#include "model/lessons.hpp"

namespace gelu::app {

void load_state_file(App& app, const std::string& path) {
  std::string text;
  try {
    text = read_file(path, kMaxJsonFileBytes);
  } catch (const FileError& e) {
    throw command::UsageError(std::string("--state: ") + e.what());
  }
  try {
    app.active().load_state(json::parse(text));
  } catch (const json::JsonError& e) {
    // A parse error's what() already ends with its line and column; a schema error names its key.
    throw command::UsageError("--state " + printable(path, 200) + ": " + e.what());
  }
}

std::pair<int, int> parse_window_size(const std::optional<std::string>& text) {
  if (!text) return {1280, 800};
  const std::size_t x = text->find_first_of("xX");
  const std::string w = text->substr(0, x), h = x == std::string::npos ? std::string() : text->substr(x + 1);
  const auto in_range = [](const std::string& t, long lo, long hi) {
    long v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && ptr == t.data() + t.size() && v >= lo && v <= hi ? v : -1;
  };
  const long wv = in_range(w, 320, 8192), hv = in_range(h, 240, 8192);
  if (x == std::string::npos || wv < 0 || hv < 0)
    throw command::UsageError("--size: " + quote(*text) + " is not WxH with 320x240 <= WxH <= 8192x8192");
  return {static_cast<int>(wv), static_cast<int>(hv)};
}

void apply_view_options(App& app, const ViewOptions& o) {
  using command::Args;
  using command::UsageError;
  if (o.step && !o.lesson) throw UsageError("--step needs --lesson FILE");
  if (o.lesson) {
    const long step = o.step ? static_cast<long>(Args::to_int("step", *o.step, 1, kMaxLessonSteps)) : 1;
    try {
      Lesson l = load_lesson(*o.lesson);
      if (step > static_cast<long>(l.steps.size()))
        throw UsageError("--step: the lesson has " + std::to_string(l.steps.size()) + " steps");
      app.open_lesson(std::move(l), static_cast<int>(step - 1));
    } catch (const LessonError& e) {
      throw UsageError(std::string("--lesson: ") + e.what());
    }
    app.apply_pending();  // now, so that --panel and --state override the step
  }
  if (o.panel && !app.select(*o.panel))
    throw UsageError("--panel: unknown panel " + quote(*o.panel) + " (" + model::panel_ids() + ")");
  if (o.state) load_state_file(app, *o.state);
  if (o.presentation) {
    const double sc = Args::to_double("presentation", *o.presentation);
    if (!Presentation::valid_scale(sc)) throw UsageError("--presentation: the scale must be in [1, 3]");
    app.set_presentation(Presentation{true, static_cast<float>(sc)});
  }
}

}  // namespace gelu::app

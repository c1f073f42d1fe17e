#include "state_file.hpp"

#include <fstream>
#include <sstream>

#include "classroom.hpp"
#include "cli.hpp"
#include "lessons.hpp"

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

void apply_view_options(App& app, const ViewOptions& o) {
  using cli::Args;
  using cli::UsageError;
  if (o.step && !o.lesson) throw UsageError("--step needs --lesson FILE");
  if (o.lesson) {
    const long step = o.step ? Args::to_int("step", *o.step, 1, 1000) : 1;
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
    throw UsageError("--panel: unknown panel '" + *o.panel + "' (" + App::panel_ids() + ")");
  if (o.state) load_state_file(app, *o.state);
  if (o.presentation) {
    const double sc = Args::to_double("presentation", *o.presentation);
    if (!Presentation::valid_scale(sc)) throw UsageError("--presentation: the scale must be in [1, 3]");
    app.set_presentation(Presentation{true, static_cast<float>(sc)});
  }
}

}  // namespace gelu::app

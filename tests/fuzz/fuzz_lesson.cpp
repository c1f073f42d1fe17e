// Checks the lesson loader (app/gui/lessons.hpp): check_lesson — what `gelulab lessons --check` and the
// Lessons menu run on a file's text — returns a lesson that keeps the documented limits (1+ steps, known
// panels, text lengths) or throws LessonError; anything else escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gui/shell/app.hpp"
#include "model/lessons.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gelu::app;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Lesson lesson;
  try {
    lesson = check_lesson(text, "fuzz.json");
  } catch (const LessonError&) {
    return 0;
  }
  if (lesson.steps.empty() || lesson.title.empty() || lesson.title.size() > kLessonTitleMax) __builtin_trap();
  for (const LessonStep& s : lesson.steps) {
    if (s.title.size() > kLessonTitleMax || s.text.size() > kLessonTextMax) __builtin_trap();
    if (!gelu::app::model::find_panel_kind(s.panel) || !s.state.is_object()) __builtin_trap();
  }
  return 0;
}

// Lessons: assets/lessons/*.json, each a sequence of steps {title, text, panel, state} that a teacher walks
// through with the arrow keys. A step's state is a panel state (the same JSON as `gelulab shot --state`),
// applied to a fresh panel so every step looks the same however the class got there.
//
// Text computed at run time: a step's text may quote {key} (key: a-z, 0-9, _ and :), which the app fills in
// from the step's panel when it shows the step (Panel::computed_text; e.g. the Precision panel's
// {verdict:tanh_form}, a verdict line computed from every bf16 value). The check asks the step's panel kind
// whether it computes that key for the step's state (PanelKind::computed_text_problem).
//
// File format (version 1; unknown keys are errors, so typos do not pass silently):
//   {"title": "What GELU is", "version": 1, "steps": [
//     {"title": "…", "text": "two or three sentences", "panel": "curves", "state": {"functions": ["gelu"]}}]}
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gelu/json.hpp"

namespace gelu::app {

inline constexpr int kLessonVersion = 2;            // 2 added a step's "view"; version 1 files still load
inline constexpr std::size_t kLessonTitleMax = 80;  // bytes of UTF-8: one line on the lesson bar at 3×
// Bytes of a step's text: a bound on what a file may hold, not a promise that it fits. Whether a step's text
// fits the lesson bar at the projector sizes is what `gelulab lessons` checks by laying it out (at 1024×768
// with 2× text a line holds about 55 characters, and the bar leaves the plot room for about three lines).
inline constexpr std::size_t kLessonTextMax = 420;
// Bytes of a step's notes: the teacher's longer explanation, shown outside presentation mode and in the
// handout, never on the projector.
inline constexpr std::size_t kLessonNotesMax = 2000;

/// A note drawn on a plot at data coordinates: an arrow pointing at (x, y) with a text callout, a highlighted
/// x-band [x, x1] with its text, or a marker (a dot at (x, y) with its text).
struct Annotation {
  enum class Kind { Arrow, Band, Marker };
  Kind kind = Kind::Marker;
  std::string plot;  // the plot's id (model::PanelKind::plots)
  double x = 0, y = 0, x1 = 0;
  std::string text;
};

/// A predict-then-reveal question: the class picks one of the choices, a key reveals the answer, which the
/// core computes (model/claims.hpp quantity keys) and which is the choice whose value is nearest to it.
struct Question {
  struct Choice {
    std::string text;
    double value = 0;
  };
  std::string prompt;
  std::vector<Choice> choices;  // 2 to 4
  std::string answer;           // a quantity key: "slope_peak:gelu"
};

/// What a step shows of its panel beyond the panel's state (format version 2, "view"). Empty: everything.
struct StepView {
  std::vector<std::string> plots;     // the plot ids shown (empty: all of the panel's)
  std::vector<std::string> series;    // the series labels shown in every plot (empty: all)
  bool legends = true;                // false: no legends
  std::vector<std::string> controls;  // panel controls kept on screen in presentation mode ("mask_grid")
  std::vector<Annotation> annotations;
  std::vector<std::string> reveal;  // series shown one at a time: the first, then one more per → key
  std::optional<Question> question;
  bool empty() const {
    return plots.empty() && series.empty() && legends && controls.empty() && annotations.empty() &&
           reveal.empty() && !question;
  }
};

struct LessonStep {
  std::string title, text, panel;
  json::Value state;
  StepView view;
  json::Value view_json;  // the "view" as written (null: none), kept so that a step saved again is the same
  std::string notes;      // optional ("notes"): for the teacher; never shown in presentation mode
};

/// The most steps a lesson may have: what --step (gui, shot) can open, and what `lessons --check` accepts,
/// one constant for both, so a lesson that checks is a lesson that opens at every step.
inline constexpr int kMaxLessonSteps = 1000;

struct Lesson {
  std::string path, title;
  std::vector<LessonStep> steps;
};

/// A lesson that cannot be used; what() names the file and the field: "what_is_gelu.json: steps[2].panel: …".
class LessonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses and checks a lesson's structure (keys, types, lengths, known panel ids). `name` prefixes errors.
Lesson parse_lesson(std::string_view text, const std::string& name,
                    const std::vector<std::string>& panel_ids);
/// parse_lesson with the app's panels, then checks that every step's state applies to a fresh panel.
Lesson check_lesson(std::string_view text, const std::string& name);
/// Reads a lesson file and check_lesson()s it.
Lesson load_lesson(const std::string& path);

/// "Save view as lesson step": appends `step` to the lesson file at `path`, or makes the file (a lesson
/// titled `new_title`) when there is none, in one atomic write (gelu::write_file_atomic): an existing file is
/// read and checked first, and the new lesson is checked as a whole before anything is written, so a file
/// that does not check, or a step that would not (a title too long, an empty text, a state the panel
/// refuses), leaves the file as it was; LessonError names the file and the field. Returns the lesson's new
/// number of steps.
int append_lesson_step(const std::string& path, const LessonStep& step, const std::string& new_title);

/// The projector sizes every step of a shipped lesson is a slide at (presentation mode): 1024×768 and
/// 1280×800 with 2× text, 1920×1080 with 3×. `gelulab lessons` lays each step out at each of them.
struct SlideSize {
  int width, height;
  float scale;  // presentation text scale
};
inline constexpr SlideSize kSlideSizes[] = {{1024, 768, 2.0f}, {1280, 800, 2.0f}, {1920, 1080, 3.0f}};
/// "1024x768, 2x" (ASCII: messages are printed as they are)
std::string slide_size_name(const SlideSize& s);
/// The layout check: lays every step of `lesson` out headless at each of kSlideSizes and returns what does
/// not fit, one line each ("steps[3] at 1024×768, 2×: plot 'histograms' ends 132 px under the lesson bar");
/// empty when every step is a slide. With it, the series check: every name in a step's view.series and
/// view.reveal must be a series the step's plots draw (series_problem). `layout` false: the series check
/// only (each step that names series laid out once, at the first size). Where it cannot lay out (no headless
/// GL), *error says why. The GUI installs it (gui/hosts/slide_check.cpp); null in a build without the GUI.
using SlideCheck = std::vector<std::string> (*)(const Lesson& lesson, bool layout, std::string* error);
void set_slide_check(SlideCheck check);
SlideCheck slide_check();
/// The series check of step `step` (0-based): for each name of its view.series and view.reveal that is not
/// in `drawn` (the legend texts and keys of the series its plots draw, whether the view hides them or not),
/// one line naming the entry, the name and the series there are: "steps[2].view.reveal[1]: no series
/// 'GELU (tanh)' on this step (its plots draw: 'GELU (exact)', 'ReLU')". Empty when every name is drawn.
std::vector<std::string> series_problems(const LessonStep& step, std::size_t index,
                                         const std::vector<std::string>& drawn);

/// The handout (`gelulab lessons --handout`): step `step` (0-based) of `lesson` rendered headless in
/// presentation mode at `size` into the PNG file `png_path`; *text gets the text its lesson bar shows
/// (run-time text filled in). False and *error on failure. The GUI installs it (gui/hosts/slide_check.cpp);
/// null without the GUI.
using SlideRender = bool (*)(const Lesson& lesson, std::size_t step, const SlideSize& size,
                             const std::string& png_path, std::string* text, std::string* error);
void set_slide_render(SlideRender render);
SlideRender slide_render();
/// The handout's size: each step's slide at 1280×800 with 2× text.
inline constexpr SlideSize kHandoutSize{1280, 800, 2.0f};

/// The {key}s quoted in a step's text, in order.
std::vector<std::string> computed_text_keys(std::string_view text);
/// The text with every {key} replaced by value(key) ("…" when that is empty: not computed yet).
std::string fill_computed_text(std::string_view text,
                               const std::function<std::string(std::string_view)>& value);

/// Where the lessons are: $GELULAB_LESSONS if set, else <prefix>/share/gelulab/lessons next to the
/// installed binary, else the source tree's assets/lessons (running from a build directory).
std::string lessons_dir();
/// The lessons folder, where its path came from ("GELULAB_LESSONS", "the installation", "the source tree")
/// and what is wrong with it: empty when it is a readable directory, else a phrase for a message such as
/// "the lessons folder '/nope' does not exist (the path comes from GELULAB_LESSONS)".
struct LessonsFolder {
  std::string path, source, problem;
};
LessonsFolder lessons_folder();
/// The *.json entries of lessons_dir(), sorted by name (whatever they are: a FIFO or a directory named
/// *.json is listed, and load_lesson reports it without blocking).
std::vector<std::string> find_lessons();

}  // namespace gelu::app

// gelulab lessons: lists the lessons and checks lesson files (structure, lengths, panel ids, and that every
// step's state applies to a fresh panel), so a broken lesson fails in CI rather than in front of a class.
#include <cstdio>

#include "cli/cli.hpp"
#include "model/lessons.hpp"

namespace gelu::app {
namespace {

int run_lessons(cli::Args& args) {
  std::vector<std::string> files = args.options("check");
  const bool no_layout = args.flag("no-layout");
  args.finish();
  if (cli::dry_run()) return 0;
  const bool listing = files.empty();
  if (listing) {
    const LessonsFolder folder = lessons_folder();
    if (!folder.problem.empty()) {
      std::fprintf(stderr, "gelulab lessons: %s\n", printable(folder.problem, 600).c_str());
      return 2;
    }
    files = find_lessons();
    if (files.empty()) {
      std::fprintf(stderr, "gelulab lessons: no lesson files (*.json) in %s (the path comes from %s)\n",
                   quote(folder.path, 200).c_str(), folder.source.c_str());
      return 2;
    }
    std::printf("lessons in %s:\n", folder.path.c_str());
  }
  int bad = 0;
  for (const std::string& f : files) {
    try {
      const Lesson l = load_lesson(f);
      // Every step is a slide at the projector sizes (model::kSlideSizes): laid out headless by the GUI.
      if (const SlideCheck check = slide_check(); check && !no_layout) {
        std::string error;
        const std::vector<std::string> problems = check(l, &error);
        for (const std::string& p : problems)
          std::fprintf(stderr, "gelulab lessons: %s: %s\n", printable(f, 300).c_str(),
                       printable(p, 600).c_str());
        if (!error.empty())
          std::fprintf(stderr, "gelulab lessons: %s: the layout was not checked: %s\n",
                       printable(f, 300).c_str(), printable(error, 300).c_str());
        if (!problems.empty()) {
          ++bad;
          continue;
        }
      }
      std::printf("ok  %-48s %2zu steps  %s\n", f.c_str(), l.steps.size(), l.title.c_str());
    } catch (const LessonError& e) {
      std::fprintf(stderr, "gelulab lessons: %s\n", printable(e.what(), 600).c_str());
      ++bad;
    }
  }
  return bad ? 2 : 0;
}

}  // namespace

GELU_COMMAND(
    lessons, "lessons", "list the classroom lessons, or check lesson files",
    "usage: gelulab lessons [--check FILE]...\n\n"
    "Without options: lists and checks every lesson in the lessons directory ($GELULAB_LESSONS,\n"
    "<prefix>/share/gelulab/lessons, or the source tree's assets/lessons).\n"
    "  --check FILE   check this lesson file (repeatable)\n"
    "  --no-layout    skip the layout check (below)\n"
    "A check reads the JSON, its keys, types and text lengths, the panel of every step, and\n"
    "applies every step's state to a fresh panel. Errors name the file and the field,\n"
    "e.g. 'intro.json: steps[2].state: unknown key 'funtions''.\n"
    "Then it lays every step out headless in presentation mode at 1024x768 and 1280x800 with 2x "
    "text\n"
    "and at 1920x1080 with 3x, and names the step, the size and what does not fit the slide: a plot\n"
    "(its frame, ticks, legend, notes, labels) outside the window or under the lesson bar, a text that\n"
    "needs more lines than the bar shows, a panel that scrolls. No headless GL: said, not checked.\n"
    "Exit status: 0 when every lesson checks; 2 when any fails, or when the lessons directory is\n"
    "missing, not a directory or holds no lesson files (the message says where its path came from).\n"
    "Lesson files: {\"title\": \"…\", \"version\": 1, \"steps\": [{\"title\": \"…\", \"text\": \"…\",\n"
    "               \"panel\": \"curves\", \"state\": {…the panel state, as for 'gelulab shot --state'…}}]}\n"
    "In the app: Lessons menu, Left/Right arrows step, Esc leaves.\n",
    run_lessons);

}  // namespace gelu::app

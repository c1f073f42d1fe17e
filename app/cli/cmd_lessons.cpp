// gelulab lessons: lists the lessons and checks lesson files (structure, lengths, panel ids, and that every
// step's state applies to a fresh panel), so a broken lesson fails in CI rather than in front of a class.
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/cli.hpp"
#include "gelu/fileio.hpp"
#include "model/lessons.hpp"

namespace gelu::app {
namespace {

std::string html_escape(const std::string& t) {
  std::string out;
  for (const char c : t) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
        out += "<br>";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const auto b = [&](std::size_t j) {
      return j < bytes.size() ? static_cast<unsigned char>(bytes[j]) : 0u;
    };
    const unsigned v = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? k[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? k[v & 63] : '=';
  }
  return out;
}

// gelulab lessons --handout FILE --out DIR: one self-contained HTML page (DIR/NAME.html), each step's slide
// at 1280×800 with 2× text as an embedded PNG (also kept as DIR/NAME_step_N.png), its text and its notes; A4
// print styles put one step per half page.
// With `progress`, "step N of M" on standard output as each step is rendered (File > Export lesson handout…
// runs this command and shows them).
int write_handout(const std::string& file, const std::string& dir, bool progress) {
  const SlideRender render = slide_render();
  if (!render) {
    std::fprintf(stderr, "gelulab lessons: --handout needs the GUI (this gelulab was built without it)\n");
    return 2;
  }
  Lesson l;
  try {
    l = load_lesson(file);
  } catch (const LessonError& e) {
    std::fprintf(stderr, "gelulab lessons: %s\n", printable(e.what(), 600).c_str());
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "gelulab lessons: --out: cannot make the folder %s: %s\n", quote(dir, 300).c_str(),
                 ec.message().c_str());
    return 2;
  }
  const std::string name = std::filesystem::path(file).stem().string();
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(l.title) +
      "</title>\n<style>\n"
      "body{font-family:'DejaVu Sans',sans-serif;max-width:46em;margin:2em auto;color:#111;line-height:1.4}\n"
      "section{margin-bottom:2em;page-break-inside:avoid;break-inside:avoid}\n"
      "img{width:100%;border:1px solid #999}\n.notes{color:#444;font-size:0.92em}\n"
      "@page{size:A4;margin:15mm}\n@media print{body{max-width:none;margin:0;font-size:11pt}"
      "section{margin-bottom:8mm}img{max-height:110mm;width:auto;max-width:100%}}\n"
      "</style></head><body>\n<h1>" +
      html_escape(l.title) + "</h1>\n";
  for (std::size_t i = 0; i < l.steps.size(); ++i) {
    const LessonStep& s = l.steps[i];
    const std::string png =
        (std::filesystem::path(dir) / (name + "_step_" + std::to_string(i + 1) + ".png")).string();
    std::string text, error;
    if (!render(l, i, kHandoutSize, png, &text, &error)) {
      std::fprintf(stderr, "gelulab lessons: --handout: steps[%zu]: %s\n", i, printable(error, 400).c_str());
      return 2;
    }
    std::string bytes;
    try {
      bytes = read_file(png, 64u << 20);
    } catch (const FileError& e) {
      std::fprintf(stderr, "gelulab lessons: --handout: %s\n", e.what());
      return 2;
    }
    html += "<section>\n<h2>" + std::to_string(i + 1) + ". " + html_escape(s.title) +
            "</h2>\n<img alt=\"step " + std::to_string(i + 1) + "\" src=\"data:image/png;base64," +
            base64(bytes) + "\">\n<p>" + html_escape(text) + "</p>\n";
    if (!s.notes.empty()) html += "<p class=\"notes\">" + html_escape(s.notes) + "</p>\n";
    html += "</section>\n";
    if (progress) {
      std::printf("step %zu of %zu\n", i + 1, l.steps.size());
      std::fflush(stdout);
    }
  }
  html += "</body></html>\n";
  const std::string out = (std::filesystem::path(dir) / (name + ".html")).string();
  try {
    write_file_atomic(out, html);
  } catch (const FileError& e) {
    std::fprintf(stderr, "gelulab lessons: --handout: %s\n", e.what());
    return 2;
  }
  std::printf("wrote %s (%zu steps)\n", out.c_str(), l.steps.size());
  return 0;
}

int run_lessons(cli::Args& args) {
  std::vector<std::string> files = args.options("check");
  const bool no_layout = args.flag("no-layout");
  const auto handout = args.option("handout");
  const auto out_dir = args.option("out");
  const bool progress = args.flag("progress");
  args.finish();
  if (handout && !out_dir) throw cli::UsageError("--handout FILE needs --out DIR");
  if (out_dir && !handout) throw cli::UsageError("--out DIR goes with --handout FILE");
  if (progress && !handout) throw cli::UsageError("--progress goes with --handout FILE");
  if (cli::dry_run()) return 0;
  if (handout) return write_handout(*handout, *out_dir, progress);
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
    std::printf("lessons in %s:\n", printable(folder.path, 400).c_str());
  }
  int bad = 0;
  for (const std::string& f : files) {
    try {
      const Lesson l = load_lesson(f);
      // Every step is a slide at the projector sizes (model::kSlideSizes): laid out headless by the GUI,
      // which also records the series each step draws, for its view.series and view.reveal. --no-layout
      // skips the sizes, not the series check (each step that names series is laid out once).
      if (const SlideCheck check = slide_check()) {
        std::string error;
        const std::vector<std::string> problems = check(l, !no_layout, &error);
        for (const std::string& p : problems)
          std::fprintf(stderr, "gelulab lessons: %s: %s\n", printable(f, 300).c_str(),
                       printable(p, 600).c_str());
        if (!error.empty())
          std::fprintf(stderr, "gelulab lessons: %s: %s not checked: %s\n", printable(f, 300).c_str(),
                       no_layout ? "the series named in view.series and view.reveal (known only from a "
                                   "laid-out step) were"
                                 : "the layout and the series named in view.series and view.reveal were",
                       printable(error, 300).c_str());
        if (!problems.empty()) {
          ++bad;
          continue;
        }
      }
      // printable(): a file name or a title with a newline or a control character stays on its line.
      std::printf("ok  %-48s %2zu steps  %s\n", printable(f, 400).c_str(), l.steps.size(),
                  printable(l.title, 400).c_str());
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
    "  --no-layout    skip the layout check (below); the series check still lays out, once, each\n"
    "                 step whose view names series\n"
    "  --handout FILE --out DIR  write DIR/NAME.html: one self-contained page with each step's slide\n"
    "                 (1280x800, 2x text, as embedded PNG; the PNGs are kept beside it), text and notes\n"
    "  --progress     with --handout: print 'step N of M' as each step is rendered (File > Export\n"
    "                 lesson handout... in the app runs this command and shows them)\n"
    "A check reads the JSON, its keys, types and text lengths, the panel of every step, and\n"
    "applies every step's state to a fresh panel. Errors name the file and the field,\n"
    "e.g. 'intro.json: steps[2].state: unknown key 'funtions''.\n"
    "Then it lays every step out headless in presentation mode at 1024x768 and 1280x800 with 2x "
    "text\n"
    "and at 1920x1080 with 3x, and names the step, the size and what does not fit the slide: a plot\n"
    "(its frame, ticks, legend, notes, labels) outside the window or under the lesson bar, a text that\n"
    "needs more lines than the bar shows, a panel that scrolls; and every name in a step's\n"
    "view.series and view.reveal that is not a series its plots draw (the message lists those that\n"
    "are). No headless GL: said, not checked.\n"
    "Exit status: 0 when every lesson checks; 2 when any fails, or when the lessons directory is\n"
    "missing, not a directory or holds no lesson files (the message says where its path came from).\n"
    "Lesson files: {\"title\": \"…\", \"version\": 1, \"steps\": [{\"title\": \"…\", \"text\": \"…\",\n"
    "               \"panel\": \"curves\", \"state\": {…the panel state, as for 'gelulab shot --state'…}}]}\n"
    "In the app: Lessons menu, Left/Right arrows step, Esc leaves.\n",
    run_lessons);

}  // namespace gelu::app

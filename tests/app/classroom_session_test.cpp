// Classroom mode, lessons, sessions and export, through the built gelulab: headless shots (EGL) with pixel
// checks, `gelulab lessons`, session files round-tripped and rejected, and the window's autosave under
// xvfb-run. Without a GL context (or xvfb) the commands fail and so do these tests: they never skip.
//
// Index of this file:
//   [SECTION] Helpers
//   [SECTION] Presentation mode
//   [SECTION] Lessons
//   [SECTION] Lesson views
//   [SECTION] Sessions
//   [SECTION] Export
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/json.hpp"
#include "support/files.hpp"
#include "support/png_image.hpp"
#include "support/scratch.hpp"
#include "support/shot.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::json::Value;

// [SECTION] Helpers

fs::path test_dir() {
  return gelu::test::scratch_dir("gelulab_classroom_test");  // new with each process
}

std::string read_file(const fs::path& p) {
  return gelu::test::slurp(p);
}

void write_file(const fs::path& p, const std::string& text) {
  gelu::test::put(p, text);
}

struct Result {
  int status = -1;
  std::string out, err;
};

// Runs gelulab with `args` (no display, unless `display` wraps it in xvfb-run) and captures its output.
Result gelulab(const std::string& args, bool display = false) {
  static int n = 0;
  const fs::path out = test_dir() / ("out" + std::to_string(n) + ".txt");
  const fs::path err = test_dir() / ("err" + std::to_string(n++) + ".txt");
  const std::string exe = std::string("'") + GELULAB_EXE + "' ";
  const std::string cmd = display ? "xvfb-run -a -s '-screen 0 1280x800x24' " + exe + args
                                  : "env -u DISPLAY -u WAYLAND_DISPLAY " + exe + args;
  Result r;
  const int st = std::system((cmd + " > '" + out.string() + "' 2> '" + err.string() + "'").c_str());
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

using gelu::test::dist;
using gelu::test::hex;
using gelu::test::Image;
using gelu::test::Rgb;

struct Shot {
  Result run;
  std::string png;
  Value meta;
};

Shot shot(const std::string& name, const std::string& args) {
  const fs::path png = test_dir() / (name + ".png"), meta = test_dir() / (name + ".meta.json");
  Shot s;
  s.run = gelulab("shot --size 1280x800 --out '" + png.string() + "' --meta '" + meta.string() + "' " + args);
  s.png = png.string();
  if (s.run.status == 0) s.meta = gelu::json::parse(read_file(meta));
  return s;
}

fs::path state_file(const std::string& name, const std::string& json) {
  const fs::path p = test_dir() / (name + ".state.json");
  write_file(p, json);
  return p;
}

// Height in pixels of the first band of dark (text) rows from the top, in the columns [x0, x1): the
// menu bar's "File  View  Lessons  Help".
int menu_text_height(const Image& img, int x0, int x1) {
  int first = -1, last = -1;
  for (int y = 0; y < img.h() / 4; ++y) {
    bool dark = false;
    for (int x = x0; x < x1 && !dark; ++x) dark = img.at(x, y).lum() < 100;
    if (dark && first < 0) first = y;
    if (dark) last = y;
    if (!dark && first >= 0) break;
  }
  return first < 0 ? 0 : last - first + 1;
}

// The number of pixels of colour `c` (within 60) in the pixel column x between y0 and y1.
int run_length(const Image& img, int x, int y0, int y1, Rgb c) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(img.h(), y1); ++y) n += dist(img.at(x, y), c) < 60;
  return n;
}

using Geom = gelu::test::PlotGeom;

const char* kCurvesState = R"({"x": [-3, 3], "y": [-1, 3], "functions": ["gelu"], "probe": null,
                               "shade_dip": false, "shade_dead": false})";

// [SECTION] Presentation mode

TEST(Classroom, PresentationAt2xHasLargerTextThickerLinesAndALightTheme) {
  const fs::path st = state_file("pres", kCurvesState);
  const Shot normal = shot("pres_1x", "--panel curves --state '" + st.string() + "'");
  const Shot big = shot("pres_2x", "--panel curves --state '" + st.string() + "' --presentation 2");
  ASSERT_EQ(normal.run.status, 0) << normal.run.err << " (no headless GL context?)";
  ASSERT_EQ(big.run.status, 0) << big.run.err;
  EXPECT_FALSE(normal.meta.at("presentation").at("on").as_bool());
  EXPECT_TRUE(big.meta.at("presentation").at("on").as_bool());
  // The atlas was rasterized at twice the pixel size (not a scaled bitmap) ...
  EXPECT_EQ(big.meta.at("font_px").as_number(), 2 * normal.meta.at("font_px").as_number());
  const Image a(normal.png), b(big.png);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(b.w(), 1280);
  ASSERT_EQ(b.h(), 800);
  // ... while the menu bar and the tabs keep at most 1.5× (the room goes to the panel and the lesson):
  // "File" alone (no descenders), in the first 2.5 em of the menu bar.
  const int ha = menu_text_height(a, 0, static_cast<int>(2.5 * normal.meta.at("font_px").as_number()));
  const int hb = menu_text_height(b, 0, static_cast<int>(2.5 * big.meta.at("font_px").as_number()));
  ASSERT_GT(ha, 6) << "no menu text found at 1x";
  EXPECT_GE(hb, 1.3 * ha) << "1x: " << ha << " px, 2x: " << hb << " px";
  EXPECT_LE(hb, 1.75 * ha) << "1x: " << ha << " px, 2x: " << hb << " px";
  // The GELU curve is drawn thicker (the projector's line scale), but its width follows the plot's size,
  // not the text scale: twice the text does not double it.
  const Rgb col = hex(big.meta.at("functions").at("gelu").at("color").as_string());
  const double y2 = gelu::find_activation("gelu")->eval(2.0);
  const Geom ga(normal.meta.at("plots").at("plot0")), gb(big.meta.at("plots").at("plot0"));
  const int xa = static_cast<int>(ga.px(2.0)), xb = static_cast<int>(gb.px(2.0));
  const int ta = run_length(a, xa, static_cast<int>(ga.py(y2)) - 30, static_cast<int>(ga.py(y2)) + 30, col);
  const int tb = run_length(b, xb, static_cast<int>(gb.py(y2)) - 40, static_cast<int>(gb.py(y2)) + 40, col);
  ASSERT_GT(ta, 0) << "the GELU curve is not at (2, GELU(2)) at 1x";
  EXPECT_GT(tb, ta) << "line thickness 1x: " << ta << " px, presentation 2x: " << tb << " px";
  EXPECT_LT(tb, 2 * ta) << "line thickness 1x: " << ta << " px, presentation 2x: " << tb << " px";
  // Light, high contrast: mostly pure white (the projector theme's window is #ffffff, the normal one is not)
  // and black text.
  auto white_fraction = [](const Image& img) {
    long n = 0;
    for (int y = 0; y < img.h(); y += 2)
      for (int x = 0; x < img.w(); x += 2) {
        const Rgb p = img.at(x, y);
        n += p.r == 255 && p.g == 255 && p.b == 255;
      }
    return static_cast<double>(n) / ((img.w() / 2) * (img.h() / 2));
  };
  std::printf("menu text %d -> %d px, GELU line %d -> %d px, white %.2f -> %.2f of the picture\n", ha, hb, ta,
              tb, white_fraction(a), white_fraction(b));
  EXPECT_GT(white_fraction(b), 0.6);
  EXPECT_GT(white_fraction(b), white_fraction(a) + 0.05);
  int darkest = 255;
  for (int y = 0; y < 60; ++y)
    for (int x = 0; x < 200; ++x) darkest = std::min(darkest, b.at(x, y).lum());
  EXPECT_LT(darkest, 40) << "menu text is not black";
  // Presentation mode hides the controls column, so the plot spans (nearly) the whole width.
  EXPECT_LT(gb.left, 0.15 * 1280);
  EXPECT_GT(ga.left, 0.25 * 1280);
}

// F6 in presentation mode shows the panel's controls (hidden while presenting): beside them every plot keeps
// its whole frame and its legend inside the view, on a panel and on a lesson step, at both projector sizes
// (the controls column narrows where its 20 em would leave the view less than a plot's smallest frame, and a
// legend that no longer fits beside the narrower plot goes below it).
TEST(Classroom, F6InPresentationShowsTheControlsBesideWholePlotsAndLegends) {
  const fs::path with = test_dir() / "f6.txt", without = test_dir() / "no_f6.txt";
  write_file(with, "wait 3\nkey F6\nwait 6\n");
  write_file(without, "wait 9\n");
  const std::string lesson = "--lesson '" +
                             (fs::path(GELU_SOURCE_DIR) / "assets/lessons/1_what_is_gelu.json").string() +
                             "' --step 4";
  int n = 0;
  for (const std::string size : {"1024x768", "1280x800"})
    for (const std::string& where : {std::string(), lesson})
      for (const bool f6 : {false, true}) {
        SCOPED_TRACE(size + (where.empty() ? " curves" : " lesson 1 step 4") + (f6 ? " F6" : ""));
        const fs::path report = test_dir() / ("f6_" + std::to_string(n) + ".json"),
                       session = test_dir() / ("f6_" + std::to_string(n++) + ".session.json");
        const Result r = gelulab("gui --headless --size " + size + " --presentation 2 " + where +
                                 " --frames 16 --script '" + (f6 ? with : without).string() +
                                 "' --session '" + session.string() + "' --report '" + report.string() + "'");
        ASSERT_EQ(r.status, 0) << r.err;
        const Value v = gelu::json::parse(read_file(report));
        const auto& marks = v.at("ui_marks").as_object();
        EXPECT_EQ(marks.count("controls"), f6 ? 1u : 0u);
        const auto& panel = marks.at("panel").as_array();
        const double left = f6 ? marks.at("controls").as_array()[2].as_number() : panel[0].as_number();
        const double right = panel[2].as_number();
        ASSERT_FALSE(v.at("plots").as_object().empty());
        for (const auto& [id, g] : v.at("plots").as_object()) {
          EXPECT_GE(g.at("frame").at("left").as_number(), left) << id;
          EXPECT_LE(g.at("frame").at("right").as_number(), right) << id;
          EXPECT_GT(g.at("right").as_number() - g.at("left").as_number(), 299) << id;  // a readable data area
          if (g.at("legend").is_null()) continue;
          EXPECT_GE(g.at("legend").at("left").as_number(), left) << id;
          EXPECT_LE(g.at("legend").at("right").as_number(), right) << id;
        }
      }
}

TEST(Classroom, PresentationScaleOutsideOneToThreeIsAUsageError) {
  EXPECT_EQ(gelulab("shot --panel curves --out x.png --presentation 3.5").status, 2);
  EXPECT_EQ(gelulab("shot --panel curves --out x.png --presentation 0.5").status, 2);
}

// [SECTION] Lessons

TEST(Lessons, EveryShippedLessonIsValidAndEveryStepApplies) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(GELU_SOURCE_DIR) / "assets" / "lessons"))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  ASSERT_GE(files.size(), 5u);
  std::string args = "lessons";
  for (const std::string& f : files) args += " --check '" + f + "'";
  const Result r = gelulab(args);
  EXPECT_EQ(r.status, 0) << r.err;
  for (const std::string& f : files)
    EXPECT_NE(r.out.find("ok  " + f), std::string::npos) << f << "\n" << r.out;
  // The listing finds them too (from the source tree, as when running from a build directory).
  const Result list = gelulab("lessons");
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("What GELU is"), std::string::npos) << list.out;
}

TEST(Lessons, ABadLessonNamesTheFileAndTheField) {
  const fs::path bad_state = test_dir() / "bad_state.json";
  write_file(bad_state, R"({"title": "t", "steps": [
      {"title": "a", "text": "b", "panel": "curves", "state": {"functions": ["gelu"]}},
      {"title": "a", "text": "b", "panel": "curves", "state": {"funtions": ["gelu"]}}]})");
  Result r = gelulab("lessons --check '" + bad_state.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(bad_state.string() + ": steps[1].state: unknown key 'funtions'"), std::string::npos)
      << r.err;

  const fs::path bad_panel = test_dir() / "bad_panel.json";
  write_file(bad_panel, R"({"title": "t", "steps": [{"title": "a", "text": "b", "panel": "nope"}]})");
  r = gelulab("lessons --check '" + bad_panel.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("steps[0].panel: unknown panel 'nope'"), std::string::npos) << r.err;

  const fs::path missing = test_dir() / "missing_text.json";
  write_file(missing, R"({"title": "t", "steps": [{"title": "a", "panel": "curves"}]})");
  r = gelulab("lessons --check '" + missing.string() + "'");
  EXPECT_NE(r.err.find("steps[0].text: missing"), std::string::npos) << r.err;

  const fs::path syntax = test_dir() / "syntax.json";
  write_file(syntax, "{\"title\": \"t\",\n \"steps\": [}");
  r = gelulab("lessons --check '" + syntax.string() + "'");
  EXPECT_NE(r.err.find("not valid JSON (line 2"), std::string::npos) << r.err;

  // The shot refuses a bad lesson too (exit 2, the same message).
  r = gelulab("shot --out x.png --lesson '" + bad_state.string() + "' --step 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown key 'funtions'"), std::string::npos) << r.err;
}

// A step that is not a slide is refused by the layout check (issue 52): a text that needs more lines than the
// bar can give beside a plot, and a step showing four FFN plots, named with the step and the size; the same
// file passes with --no-layout (its structure is fine).
TEST(Lessons, AStepThatIsNotASlideIsNamedWithItsSizeAndWhatDoesNotFit) {
  const fs::path f = test_dir() / "not_a_slide.json";
  std::string long_text;
  for (int i = 1; i <= 14; ++i) long_text += "Line " + std::to_string(i) + ".\\n";  // 14 lines
  write_file(f, R"({"title": "Not a slide", "version": 2, "steps": [
      {"title": "Fine", "text": "Short.", "panel": "curves", "state": {"functions": ["gelu"]}},
      {"title": "Too long", "text": ")" +
                    long_text + R"(", "panel": "curves", "state": {"functions": ["gelu"]}},
      {"title": "Four plots", "text": "All of them.", "panel": "ffn", "state": {"playing": false}}]})");
  const Result r = gelulab("lessons --check '" + f.string() + "'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.err.find("steps[0]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("steps[1] at 1024x768, 2x: text needs "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("steps[2] at 1024x768, 2x: plot '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("under the lesson bar"), std::string::npos) << r.err;
  const Result quick = gelulab("lessons --no-layout --check '" + f.string() + "'");
  EXPECT_EQ(quick.status, 0) << quick.err;
}

// Every shipped step as the class sees it (issue 52): at the slide sizes --meta says every plot is wholly
// seen and the whole text shows; F7's bar (the title line only) leaves the plot more room.
TEST(Lessons, ShotMetaSaysWhatTheClassSees) {
  const std::string lesson =
      (fs::path(GELU_SOURCE_DIR) / "assets/lessons/2_exact_vs_approximations.json").string();
  const Shot s = shot("slide_2_2", "--presentation 2 --lesson '" + lesson + "' --step 2");  // 1280×800
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  for (const auto& [id, p] : s.meta.at("plots").as_object())
    EXPECT_EQ(p.at("visible_fraction").as_number(), 1) << id;
  EXPECT_EQ(s.meta.at("lesson").at("text_overflow_px").as_number(), 0);
  EXPECT_TRUE(s.meta.at("slide_problems").as_array().empty());
  // The FFN lab's four plots in one step at 1280×800: the lower ones are under the bar, and --meta says so.
  const fs::path f = test_dir() / "four_plots.json";
  write_file(f, R"({"title": "Four", "version": 2, "steps": [
      {"title": "Four plots", "text": "All of them.", "panel": "ffn", "state": {"playing": false}}]})");
  const Shot four = shot("slide_four", "--presentation 2 --lesson '" + f.string() + "'");
  ASSERT_EQ(four.run.status, 0) << four.run.err;
  EXPECT_LT(four.meta.at("plots").at("loss").at("visible_fraction").as_number(), 1);
  EXPECT_FALSE(four.meta.at("slide_problems").as_array().empty());
}

// The handout: one self-contained HTML page with each step's slide embedded, its text and its notes.
TEST(Lessons, TheHandoutHoldsEveryStepsSlideTextAndNotes) {
  const std::string lesson = (fs::path(GELU_SOURCE_DIR) / "assets/lessons/1_what_is_gelu.json").string();
  const fs::path dir = test_dir() / "handout";
  const Result r = gelulab("lessons --handout '" + lesson + "' --out '" + dir.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = read_file(dir / "1_what_is_gelu.html");
  const gelu::json::Value l = gelu::json::parse(read_file(lesson));
  const auto& steps = l.at("steps").as_array();
  std::size_t imgs = 0;
  for (std::size_t at = html.find("src=\"data:image/png;base64,"); at != std::string::npos;
       at = html.find("src=\"data:image/png;base64,", at + 1))
    ++imgs;
  EXPECT_EQ(imgs, steps.size());
  int notes = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_NE(html.find(steps[i].at("title").as_string()), std::string::npos) << i;
    if (const gelu::json::Value* n = steps[i].find("notes")) {
      ++notes;
      EXPECT_NE(html.find(n->as_string().substr(0, 20)), std::string::npos) << i;
    }
    // The slide itself, 1280×800 (the PNG's IHDR width and height, big-endian).
    const std::string png = read_file(dir / ("1_what_is_gelu_step_" + std::to_string(i + 1) + ".png"));
    ASSERT_GT(png.size(), 24u);
    auto be = [&](std::size_t o) {
      return (static_cast<unsigned char>(png[o]) << 24) | (static_cast<unsigned char>(png[o + 1]) << 16) |
             (static_cast<unsigned char>(png[o + 2]) << 8) | static_cast<unsigned char>(png[o + 3]);
    };
    EXPECT_EQ(be(16), 1280u);
    EXPECT_EQ(be(20), 800u);
  }
  EXPECT_GT(notes, 0) << "the shipped lesson carries notes";
  EXPECT_NE(html.find("@page{size:A4"), std::string::npos);
  EXPECT_EQ(gelulab("lessons --handout '" + lesson + "'").status, 2) << "--out is required";
}

TEST(Lessons, AStepShowsItsPanelStateAndTheLessonBar) {
  const std::string lesson = (fs::path(GELU_SOURCE_DIR) / "assets/lessons/1_what_is_gelu.json").string();
  const Shot s = shot("lesson_1_3", "--lesson '" + lesson + "' --step 3");
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  EXPECT_EQ(s.meta.at("panel").as_string(), "curves");
  EXPECT_EQ(s.meta.at("lesson").at("step").as_number(), 3);
  EXPECT_EQ(s.meta.at("lesson").at("steps").as_number(), 5);
  EXPECT_EQ(s.meta.at("lesson").at("step_title").as_string(), "The negative dip");
  // Step 3's state: x in [-4, 2], GELU and ReLU, the probe at the minimum.
  const Geom g(s.meta.at("plots").at("plot0"));
  EXPECT_EQ(g.x_min, -4);
  EXPECT_EQ(g.x_max, 2);
  EXPECT_EQ(s.meta.at("probe").as_number(), -0.75);
  EXPECT_NE(s.meta.at("functions").find("relu"), nullptr);
  // The lesson bar sits below the plots, across the window, in its pale yellow.
  const auto& bar = s.meta.at("lesson_bar").as_array();
  ASSERT_EQ(bar.size(), 4u);
  EXPECT_GT(bar[1].as_number(), g.bottom);
  EXPECT_GT(bar[2].as_number() - bar[0].as_number(), 1200);
  const Image img(s.png);
  ASSERT_TRUE(img.ok());
  const int bx = static_cast<int>(bar[0].as_number()) + 6, by = static_cast<int>(bar[3].as_number()) - 6;
  EXPECT_LT(dist(img.at(bx, by), Rgb{255, 247, 214}), 12);
  // ... and above it the plot has no yellow.
  EXPECT_GT(dist(img.at(bx + 400, static_cast<int>(g.top) + 5), Rgb{255, 247, 214}), 12);
}

// Lesson 1 introduces the inflection points in step 5 ("Where it bends"): no step before shows them.
TEST(Lessons, LessonOneShowsTheInflectionPointsOnlyFromTheStepThatIntroducesThem) {
  const std::string lesson = (fs::path(GELU_SOURCE_DIR) / "assets/lessons/1_what_is_gelu.json").string();
  for (int step = 1; step <= 5; ++step) {
    const Shot s = shot("lesson_1_infl_" + std::to_string(step),
                        "--lesson '" + lesson + "' --step " + std::to_string(step));
    ASSERT_EQ(s.run.status, 0) << s.run.err;
    const bool introduced = s.meta.at("lesson").at("step_title").as_string() == "Where it bends";
    EXPECT_EQ(introduced, step == 5);
    EXPECT_EQ(s.meta.at("inflections_shown").as_bool(), introduced) << "step " << step;
  }
}

// Lesson 3 explains the histograms of N(μ, σ) in step 4: steps 1-2 show the keep probability, step 3 the
// running mean it talks about, each alone and taking the height (every step a slide, issue 52).
TEST(Lessons, LessonThreeShowsTheHistogramsOnlyFromTheStepThatExplainsThem) {
  const std::string lesson = (fs::path(GELU_SOURCE_DIR) / "assets/lessons/3_stochastic_view.json").string();
  const char* const shown[] = {"keep", "keep", "convergence", "histograms"};
  for (int step = 1; step <= 4; ++step) {
    const Shot s =
        shot("lesson_3_" + std::to_string(step), "--lesson '" + lesson + "' --step " + std::to_string(step));
    ASSERT_EQ(s.run.status, 0) << s.run.err;
    const auto& plots = s.meta.at("plots").as_object();
    EXPECT_EQ(plots.count("histograms") == 1, step == 4) << "step " << step;
    ASSERT_EQ(plots.size(), 1u) << "step " << step;
    ASSERT_EQ(plots.count(shown[step - 1]), 1u) << "step " << step;
    const Geom p(s.meta.at("plots").at(shown[step - 1]));
    if (step < 4) {
      EXPECT_GT(p.bottom - p.top, 400) << "step " << step << ": the plot takes the height";
    }
  }
}

// What lesson 4's steps say holds in what they show: step 3 ("Dead units") shows hidden layer 2, where the
// ReLU network has dead units and the GELU network none; step 4 says both networks use GELU, and they do.
TEST(Lessons, LessonFourShowsWhatItsTextSays) {
  const std::string lesson =
      (fs::path(GELU_SOURCE_DIR) / "assets/lessons/4_gelu_vs_relu_training.json").string();
  // Step 1 says where training pauses; its state's budget says the same number.
  const Shot first = shot("lesson_4_1", "--lesson '" + lesson + "' --step 1");
  ASSERT_EQ(first.run.status, 0) << first.run.err;
  const int budget = static_cast<int>(first.meta.at("state").at("budget").as_number());
  EXPECT_GT(budget, 0);
  const std::string text =
      gelu::json::parse(read_file(lesson)).at("steps").as_array()[0].at("text").as_string();
  EXPECT_NE(text.find("pauses at step " + std::to_string(budget)), std::string::npos) << text;
  const Shot dead = shot("lesson_4_3", "--lesson '" + lesson + "' --step 3");
  ASSERT_EQ(dead.run.status, 0) << dead.run.err;
  EXPECT_EQ(dead.meta.at("state").at("layer").as_number(), 2);
  const auto& nets = dead.meta.at("nets").as_array();
  const double relu_dead = nets[0].at("dead_units").as_array().at(1).as_number();
  const double gelu_dead = nets[1].at("dead_units").as_array().at(1).as_number();
  EXPECT_GT(relu_dead, 0) << "the step's text promises dead ReLU units in the layer shown";
  EXPECT_EQ(gelu_dead, 0);

  const Shot both = shot("lesson_4_4", "--lesson '" + lesson + "' --step 4");
  ASSERT_EQ(both.run.status, 0) << both.run.err;
  EXPECT_NE(both.meta.at("lesson").at("step_title").as_string().find("Stochastic"), std::string::npos);
  for (const char* net : {"a", "b"}) {
    const auto& acts = both.meta.at("state").at(net).at("activations").as_array();
    ASSERT_FALSE(acts.empty());
    for (const Value& a : acts) EXPECT_EQ(a.as_string(), "gelu") << net;
  }
}

// Lesson 4 step 5, the hidden-space view: ReLU folds the plane onto the axes of two hidden units (points with
// a coordinate exactly 0, none negative); GELU bends it (no point exactly on an axis, some slightly
// negative).
TEST(Lessons, TheHiddenSpaceStepShowsReluFoldingAndGeluBending) {
  const std::string lesson =
      (fs::path(GELU_SOURCE_DIR) / "assets/lessons/4_gelu_vs_relu_training.json").string();
  const Shot s = shot("lesson_4_5", "--lesson '" + lesson + "' --step 5");
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  ASSERT_NE(s.meta.at("plots").find("hiddenA"), nullptr);
  ASSERT_NE(s.meta.at("plots").find("hiddenB"), nullptr);
  const auto& nets = s.meta.at("nets").as_array();
  const Value& relu = nets.at(0).at("hidden");
  const Value& gelu = nets.at(1).at("hidden");
  EXPECT_EQ(relu.at("layer").as_number(), 1);
  EXPECT_EQ(relu.at("unit_x").as_number(), 1);
  EXPECT_EQ(relu.at("unit_y").as_number(), 2);
  EXPECT_GT(relu.at("points").as_number(), 100);
  EXPECT_GT(relu.at("on_an_axis").as_number(), 0.2);
  EXPECT_EQ(relu.at("negative").as_number(), 0);
  EXPECT_EQ(gelu.at("on_an_axis").as_number(), 0);
  EXPECT_GT(gelu.at("negative").as_number(), 0.05);
  // The plots show the grid's lines and the points (drawn data).
  EXPECT_GT(s.meta.at("plots").at("hiddenA").at("data_items").as_number(), 100);
}

// Lesson 5 draws the GLU block (x → W and V → g → ⊙ → W_down) above the curves, left to right.
TEST(Lessons, LessonFiveDrawsTheGluBlock) {
  const std::string lesson = (fs::path(GELU_SOURCE_DIR) / "assets/lessons/5_glu_family.json").string();
  const Shot s = shot("lesson_5_1", "--lesson '" + lesson + "' --step 1");
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  const Value* d = s.meta.find("glu_diagram");
  ASSERT_NE(d, nullptr) << "lesson 5 step 1 shows no GLU diagram";
  const auto& boxes = d->at("boxes");
  auto left = [&](const char* n) { return boxes.at(n).as_array()[0].as_number(); };
  auto top = [&](const char* n) { return boxes.at(n).as_array()[1].as_number(); };
  auto bottom = [&](const char* n) { return boxes.at(n).as_array()[3].as_number(); };
  // Top to bottom: x, then x·W and x·V side by side, g under x·V, ⊙, ·W_down, y.
  EXPECT_LT(bottom("x"), top("W"));
  EXPECT_NEAR(top("W") + bottom("W"), top("V") + bottom("V"), 2);
  EXPECT_LT(boxes.at("W").as_array()[2].as_number(), left("V"));
  EXPECT_LT(bottom("V"), top("g"));
  EXPECT_GT(left("g"), boxes.at("W").as_array()[2].as_number());  // under x·V, not under x·W
  EXPECT_LT(bottom("g"), top("⊙"));
  EXPECT_LT(bottom("⊙"), top("W_down"));
  EXPECT_LT(bottom("W_down"), top("y"));
  std::vector<std::string> edges;
  for (const Value& e : d->at("edges").as_array())
    edges.push_back(e.as_array()[0].as_string() + ">" + e.as_array()[1].as_string());
  for (const char* want : {"x>W", "x>V", "V>g", "W>⊙", "g>⊙", "⊙>W_down", "W_down>y"})
    EXPECT_NE(std::find(edges.begin(), edges.end(), want), edges.end()) << want;
  // Beside the plot or above it (never on it), inside the window.
  const Value& frame = s.meta.at("plots").at("plot0").at("frame");
  for (const char* n : {"x", "W", "V", "g", "⊙", "W_down", "y"}) {
    const double right = boxes.at(n).as_array()[2].as_number();
    EXPECT_TRUE(bottom(n) < frame.at("top").as_number() || right < frame.at("left").as_number()) << n;
  }
  EXPECT_LT(boxes.at("y").as_array()[2].as_number(), 1280);
  // The other steps of the lesson do not draw it.
  const Shot two = shot("lesson_5_2", "--lesson '" + lesson + "' --step 2");
  ASSERT_EQ(two.run.status, 0) << two.run.err;
  EXPECT_EQ(two.meta.find("glu_diagram"), nullptr);
}

// [SECTION] Lesson views (format 2)

// Lesson 3 step 1 talks about the masks: in presentation mode (controls hidden) the mask grid stays.
TEST(LessonViews, TheMaskGridStaysOnAProjectorWhereTheStepTalksAboutIt) {
  const std::string lesson = (fs::path(GELU_SOURCE_DIR) / "assets/lessons/3_stochastic_view.json").string();
  const Shot s = shot("lesson_3_1_pres", "--presentation 2 --lesson '" + lesson + "' --step 1");
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  EXPECT_TRUE(s.meta.at("mask_grid_shown").as_bool());
  // Presentation mode outside a lesson hides the controls column but keeps the grid (issue 52, point 8).
  const Shot plain = shot("dropout_pres", "--presentation 2 --panel dropout");
  ASSERT_EQ(plain.run.status, 0) << plain.run.err;
  EXPECT_TRUE(plain.meta.at("mask_grid_shown").as_bool());
  // On the lesson step, beside the plots, not under them: the keep plot starts right of the grid (a fifth of
  // the width at least). Outside a lesson the grid goes beside them only where the two top plots still fit
  // side by side with it (ColumnsShot), else below them: here, at 1280 px with 2x text, below.
  const Geom keep(s.meta.at("plots").at("keep"));
  EXPECT_GT(keep.left, 0.2 * s.meta.at("width").as_number());
  const Geom plain_keep(plain.meta.at("plots").at("keep")),
      plain_conv(plain.meta.at("plots").at("convergence"));
  EXPECT_LT(plain_keep.left, 0.2 * plain.meta.at("width").as_number());
  EXPECT_GT(plain_conv.left, plain_keep.right) << "the two top plots side by side";
}

// Lesson 6 step 2: predict, then reveal; the answer is computed (GELU's minimum, −0.7518), not typed in.
TEST(LessonViews, APredictionIsRevealedOnAKeyWithTheAnswerTheCoreComputes) {
  const std::string lesson =
      (fs::path(GELU_SOURCE_DIR) / "assets/lessons/6_checking_common_claims.json").string();
  const Shot before = shot("lesson_6_2", "--lesson '" + lesson + "' --step 2");
  ASSERT_EQ(before.run.status, 0) << before.run.err;
  const Value& q0 = before.meta.at("lesson").at("question");
  EXPECT_FALSE(q0.at("answered").as_bool());
  const std::string t0 = before.meta.at("lesson").at("text").as_string();
  EXPECT_EQ(t0.find("Answer:"), std::string::npos) << t0;
  EXPECT_NE(t0.find("Predict: "), std::string::npos) << t0;
  // The verdict of the step's claim waits for the answer (it would give it away)...
  EXPECT_EQ(t0.find("does not hold"), std::string::npos) << t0;
  EXPECT_NE(t0.find("the verdict comes with the answer"), std::string::npos) << t0;

  const Shot after = shot("lesson_6_2_answer", "--lesson '" + lesson + "' --step 2 --pick 1 --next 1");
  ASSERT_EQ(after.run.status, 0) << after.run.err;
  EXPECT_EQ(after.meta.at("lesson").at("step").as_number(), 2);  // → showed the answer, not the next step
  const Value& q = after.meta.at("lesson").at("question");
  EXPECT_TRUE(q.at("answered").as_bool());
  EXPECT_EQ(q.at("picked").as_number(), 1);
  const double answer = q.at("answer").as_number();
  EXPECT_NEAR(answer, -0.7518, 1e-4);
  const std::string t = after.meta.at("lesson").at("text").as_string();
  EXPECT_NE(t.find("✓ (2) near x = −0.75"), std::string::npos) << t;  // the nearest choice
  EXPECT_NE(t.find("✗ (1) at x = −1"), std::string::npos) << t;       // the class's pick, wrong
  EXPECT_NE(t.find("Answer: 2, x = −0.7518"), std::string::npos) << t;
  // ... and comes with it, computed: GELU′ is not positive on all of (−1, ∞).
  EXPECT_NE(t.find("✗ does not hold"), std::string::npos) << t;
  EXPECT_NE(t.find("rises only for x > −0.7518"), std::string::npos) << t;
  // → once more goes on to step 3.
  const Shot next = shot("lesson_6_2_next", "--lesson '" + lesson + "' --step 2 --next 2");
  ASSERT_EQ(next.run.status, 0) << next.run.err;
  EXPECT_EQ(next.meta.at("lesson").at("step").as_number(), 3);
}

// Lesson 6 step 5 reveals its three curves one at a time: the CSV of the plot holds what is drawn.
TEST(LessonViews, SeriesAreRevealedOneAtATime) {
  const std::string lesson =
      (fs::path(GELU_SOURCE_DIR) / "assets/lessons/6_checking_common_claims.json").string();
  for (int n = 0; n < 3; ++n) {
    const fs::path csv = test_dir() / ("reveal" + std::to_string(n) + ".csv");
    const Shot s =
        shot("lesson_6_5_" + std::to_string(n), "--lesson '" + lesson + "' --step 5 --next " +
                                                    std::to_string(n) + " --csv '" + csv.string() + "'");
    ASSERT_EQ(s.run.status, 0) << s.run.err;
    EXPECT_EQ(s.meta.at("lesson").at("step").as_number(), 5);
    EXPECT_EQ(s.meta.at("lesson").at("revealed").as_number(), n + 1);
    const std::string head = read_file(csv);  // "series,x,y" rows: the series drawn
    EXPECT_NE(head.find("GELU (exact)"), std::string::npos) << head;
    EXPECT_EQ(head.find("tanh approximation") != std::string::npos, n >= 1) << head;
    EXPECT_EQ(head.find("QuickGELU") != std::string::npos, n >= 2) << head;
  }
}

// A step shows only the plots, series and legends it names, and its annotations at data coordinates.
TEST(LessonViews, AStepShowsOnlyThePlotsSeriesAndLegendsItNames) {
  const fs::path l = test_dir() / "view.json";
  write_file(l, R"J({"title": "View", "version": 2, "steps": [
    {"title": "Only the loss", "text": "Words.", "panel": "ffn", "state": {"playing": false},
     "view": {"plots": ["loss"]}},
    {"title": "Only GELU, no legend", "text": "Words.", "panel": "curves",
     "state": {"functions": ["gelu", "relu", "silu"], "probe": null, "shade_dip": false, "shade_dead": false,
               "inflections": false, "x": [-3, 3], "y": [-1, 3]},
     "view": {"series": ["GELU (exact)"], "legends": false,
              "annotations": [{"plot": "plot0", "band": [1, 2], "text": "here"}]}}]})J");
  const Shot loss = shot("view_loss", "--lesson '" + l.string() + "' --step 1");
  ASSERT_EQ(loss.run.status, 0) << loss.run.err;
  const auto& plots = loss.meta.at("plots").as_object();
  EXPECT_EQ(plots.size(), 1u);
  EXPECT_EQ(plots.count("loss"), 1u);
  const Geom lg(loss.meta.at("plots").at("loss"));
  EXPECT_GT(lg.bottom - lg.top, 400) << "the one plot shown takes the room";

  const fs::path csv = test_dir() / "view.csv";
  const Shot only = shot("view_gelu", "--lesson '" + l.string() + "' --step 2 --csv '" + csv.string() + "'");
  ASSERT_EQ(only.run.status, 0) << only.run.err;
  const std::string head = read_file(csv);  // "series,x,y" rows: the series drawn
  EXPECT_NE(head.find("GELU (exact)"), std::string::npos) << head;
  EXPECT_EQ(head.find("ReLU"), std::string::npos) << head;
  EXPECT_EQ(head.find("SiLU"), std::string::npos) << head;
  EXPECT_TRUE(only.meta.at("plots").at("plot0").at("legend").is_null());
  // The band x in [1, 2] is shaded amber across the plot's height; x in [−2, −1] is not.
  const Geom g(only.meta.at("plots").at("plot0"));
  const Image img(only.png);
  ASSERT_TRUE(img.ok());
  const int y = static_cast<int>(g.bottom) - 8;
  const Rgb in = img.at(static_cast<int>(g.px(1.5)), y), out = img.at(static_cast<int>(g.px(-1.5)), y);
  EXPECT_GT(in.r, in.b + 25) << in.r << "," << in.g << "," << in.b;
  EXPECT_LT(std::abs(out.r - out.b), 12) << out.r << "," << out.g << "," << out.b;
}

// [SECTION] Sessions

const char* kSessionCurves = R"({"x": [-2.5, 2.5], "y": [-0.5, 2], "functions": ["gelu", "gelu_sigmoid"],
                                 "params": {"gelu_sigmoid.k": 1.5}, "probe": 0.5, "derivatives": [1],
                                 "shade_dip": false})";

TEST(Sessions, SaveThenLoadGivesTheSameSession) {
  const fs::path a = test_dir() / "a.session.json", b = test_dir() / "b.session.json";
  const fs::path st = state_file("sess", kSessionCurves);
  const std::string lesson =
      (fs::path(GELU_SOURCE_DIR) / "assets/lessons/2_exact_vs_approximations.json").string();
  // A session with non-default values in several panels, presentation on, and a lesson step.
  Shot s1 = shot("sess_a", "--lesson '" + lesson + "' --step 2 --panel curves --state '" + st.string() +
                               "' --presentation 1.5 --session-out '" + a.string() + "'");
  ASSERT_EQ(s1.run.status, 0) << s1.run.err;
  const Value va = gelu::json::parse(read_file(a));
  EXPECT_EQ(va.at("format").as_string(), "gelulab-session");
  EXPECT_EQ(va.at("version").as_number(), 1);
  EXPECT_EQ(va.at("active_panel").as_string(), "curves");
  EXPECT_TRUE(va.at("presentation").at("on").as_bool());
  EXPECT_EQ(va.at("presentation").at("scale").as_number(), 1.5);
  EXPECT_EQ(va.at("lesson").at("step").as_number(), 2);
  const Value& c = va.at("panels").at("curves");
  EXPECT_EQ(c.at("x").as_array()[0].as_number(), -2.5);
  EXPECT_EQ(c.at("params").at("gelu_sigmoid.k").as_number(), 1.5);
  EXPECT_EQ(c.at("probe").as_number(), 0.5);
  // Lesson step 2 set the approximations panel: metric abs, x [-6, 6], error axis from 1e-9.
  const Value& ap = va.at("panels").at("approx");
  EXPECT_EQ(ap.at("tuned").as_number(), 1.6);
  EXPECT_EQ(ap.at("error_y").as_array()[0].as_number(), 1e-9);
  ASSERT_NE(va.at("panels").find("dropout"), nullptr);
  // Load A, save B: the same document, byte for byte.
  Shot s2 = shot("sess_b", "--session '" + a.string() + "' --session-out '" + b.string() + "'");
  ASSERT_EQ(s2.run.status, 0) << s2.run.err;
  EXPECT_EQ(read_file(a), read_file(b));
  // The restored session is what is drawn: the active panel and its x range.
  EXPECT_EQ(s2.meta.at("panel").as_string(), "curves");
  EXPECT_EQ(Geom(s2.meta.at("plots").at("plot0")).x_min, -2.5);
  EXPECT_TRUE(s2.meta.at("presentation").at("on").as_bool());
  // No temporary file is left next to it (written as temp + fsync + rename).
  for (const auto& e : fs::directory_iterator(test_dir()))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// View > UI scale and View > Theme (outside presentation mode) are saved in the session and applied: the
// atlas at the new size, the window in the theme's colours; an unknown theme is refused by name.
TEST(Sessions, UiScaleAndThemeAreSavedAndApplied) {
  const fs::path base = test_dir() / "theme_base.session.json";
  const Shot plain = shot("theme_plain", "--panel curves --session-out '" + base.string() + "'");
  ASSERT_EQ(plain.run.status, 0) << plain.run.err;
  Value doc = gelu::json::parse(read_file(base));
  EXPECT_EQ(doc.at("view").at("theme").as_string(), "light");
  EXPECT_EQ(doc.at("view").at("ui_scale").as_number(), 1);
  const double px1 = plain.meta.at("font_px").as_number();
  struct Case {
    const char* theme;
    double scale;
    int max_lum;  // the window's background, between the tabs and the plot
  };
  for (const Case& c : {Case{"dark", 2.0, 60}, Case{"high_contrast", 1.5, 10}}) {
    const fs::path f = test_dir() / (std::string(c.theme) + ".session.json");
    const fs::path again = test_dir() / (std::string(c.theme) + ".again.json");
    doc.as_object()["view"] = gelu::json::parse(R"({"ui_scale": )" + std::to_string(c.scale) +
                                                R"(, "theme": ")" + c.theme + R"("})");
    write_file(f, gelu::json::write(doc, 2));
    const Shot s = shot(std::string("theme_") + c.theme,
                        "--session '" + f.string() + "' --session-out '" + again.string() + "'");
    ASSERT_EQ(s.run.status, 0) << s.run.err;
    EXPECT_NEAR(s.meta.at("font_px").as_number(), px1 * c.scale, 0.6) << c.theme;
    const Value back = gelu::json::parse(read_file(again));
    EXPECT_EQ(back.at("view").at("theme").as_string(), c.theme);
    EXPECT_EQ(back.at("view").at("ui_scale").as_number(), c.scale);
    const Image img(s.png);
    ASSERT_TRUE(img.ok());
    EXPECT_LT(img.at(img.w() - 4, img.h() - 4).lum(), c.max_lum) << c.theme;
  }
  const Image light(plain.png);
  ASSERT_TRUE(light.ok());
  EXPECT_GT(light.at(light.w() - 4, light.h() - 4).lum(), 200);
  // A theme the app does not have is refused, naming the field.
  doc.as_object()["view"] = gelu::json::parse(R"({"theme": "neon"})");
  const fs::path bad = test_dir() / "neon.session.json";
  write_file(bad, gelu::json::write(doc, 2));
  const Shot refused = shot("theme_neon", "--session '" + bad.string() + "'");
  EXPECT_EQ(refused.run.status, 2);
  EXPECT_NE(refused.run.err.find("view.theme"), std::string::npos) << refused.run.err;
}

TEST(Sessions, MalformedAndNewerFilesAreRejectedWithAMessage) {
  const fs::path bad = test_dir() / "bad.session.json", newer = test_dir() / "newer.session.json",
                 wrong = test_dir() / "wrong.session.json";
  write_file(
      bad, "{\"format\": \"gelulab-session\",\n \"version\": 1,\n \"panels\": {\"curves\": {\"x\": [1, }}\n");
  write_file(newer, R"({"format": "gelulab-session", "version": 7, "panels": {}, "hologram": true})");
  write_file(wrong, R"({"format": "gelulab-session", "version": 1, "panels": {"curves": {"x": [3, -3]}}})");
  Result r = gelulab("shot --out x.png --session '" + bad.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(bad.string() + ": not valid JSON (line 3"), std::string::npos) << r.err;
  r = gelulab("shot --out x.png --session '" + newer.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("newer GELU Lab"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("session version 7"), std::string::npos) << r.err;
  r = gelulab("shot --out x.png --session '" + wrong.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("panels.curves: 'x' must be [min, max]"), std::string::npos) << r.err;
}

TEST(Sessions, AMissingLessonFileStillRestoresTheRest) {
  const fs::path a = test_dir() / "moved_lesson.session.json";
  write_file(a, R"({"format": "gelulab-session", "version": 1, "active_panel": "curves",
                   "panels": {"curves": {"x": [-1.5, 1.5]}},
                   "lesson": {"file": "/nonexistent/lesson.json", "step": 1}})");
  const Shot s = shot("moved_lesson", "--session '" + a.string() + "'");
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  EXPECT_EQ(Geom(s.meta.at("plots").at("plot0")).x_min, -1.5);
  EXPECT_EQ(s.meta.find("lesson"), nullptr);
  EXPECT_NE(s.meta.at("message").as_string().find("lesson was not reopened: /nonexistent/lesson.json"),
            std::string::npos)
      << s.meta.at("message").as_string();
}

// The window: restore on start, autosave on exit; a bad file is reported and left exactly as it was.
TEST(Sessions, TheWindowKeepsABadSessionFileAndSavesAGoodOne) {
  const fs::path good = test_dir() / "win_good.json";
  const fs::path st = state_file("win", kSessionCurves);
  ASSERT_EQ(
      shot("win_src", "--panel curves --state '" + st.string() + "' --session-out '" + good.string() + "'")
          .run.status,
      0);
  const std::string original = read_file(good);
  fs::remove(good.string() + ".before");
  // Good: restored and written back on exit with the same panels.
  Result r = gelulab("gui --frames 5 --session '" + good.string() + "'", true);
  ASSERT_EQ(r.status, 0) << r.err;
  const Value before = gelu::json::parse(original), after = gelu::json::parse(read_file(good));
  EXPECT_EQ(gelu::json::write(before.at("panels").at("curves")),
            gelu::json::write(after.at("panels").at("curves")));
  EXPECT_EQ(after.at("active_panel").as_string(), "curves");

  // Malformed: a message, the defaults, and the file untouched (no autosave over it).
  const fs::path bad = test_dir() / "win_bad.json";
  const std::string bad_text = original.substr(0, original.size() / 2);  // a truncated write
  write_file(bad, bad_text);
  r = gelulab("gui --frames 5 --session '" + bad.string() + "'", true);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("Could not restore the last session"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("left as it was"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(bad), bad_text);

  // Newer version: the same.
  const fs::path newer = test_dir() / "win_newer.json";
  const std::string newer_text = R"({"format": "gelulab-session", "version": 2, "panels": {}})";
  write_file(newer, newer_text);
  r = gelulab("gui --frames 5 --session '" + newer.string() + "'", true);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("newer GELU Lab"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(newer), newer_text);
  // The good file from before was not touched by either run.
  EXPECT_EQ(gelu::json::write(gelu::json::parse(read_file(good)).at("panels")),
            gelu::json::write(after.at("panels")));
}

TEST(Sessions, TheWindowWritesTheXdgSessionOnExit) {
  const fs::path xdg = test_dir() / "xdg";
  fs::create_directories(xdg);
  // --frames runs leave the user's session alone unless asked: --session names the XDG path here, as a
  // normal start would resolve it from XDG_CONFIG_HOME.
  const fs::path path = xdg / "gelulab" / "session.json";
  fs::create_directories(path.parent_path());  // --session names a file whose directory exists
  const Result r = gelulab("gui --frames 3 --presentation 2 --session '" + path.string() + "'", true);
  ASSERT_EQ(r.status, 0) << r.err;
  const Value v = gelu::json::parse(read_file(path));
  EXPECT_TRUE(v.at("presentation").at("on").as_bool());
  EXPECT_EQ(v.at("presentation").at("scale").as_number(), 2);
  EXPECT_EQ(v.at("window").at("width").as_number(), 1280);
}

// [SECTION] Export

TEST(Export, CsvHoldsTheVisibleSeriesWithExactValues) {
  const fs::path st = state_file("csv", R"({"x": [-2, 2], "y": [-1, 3], "functions": ["gelu", "relu"],
                                            "probe": null, "shade_dip": false, "shade_dead": false})");
  const fs::path csv = test_dir() / "curves.csv", plot_png = test_dir() / "plot.png";
  const Shot s = shot("csv", "--panel curves --state '" + st.string() + "' --csv '" + csv.string() +
                                 "' --plot-out '" + plot_png.string() + "'");
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  std::istringstream in(read_file(csv));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("# gelulab plot plot0: visible x [-2, 2]", 0), 0u) << line;
  std::getline(in, line);
  EXPECT_EQ(line, "series,x,y");
  int gelu_rows = 0, relu_rows = 0, inflection_rows = 0;
  const auto* gelu = gelu::find_activation("gelu");
  while (std::getline(in, line)) {
    const auto q = line.rfind('"');
    ASSERT_NE(q, std::string::npos) << line;
    const std::string label = line.substr(1, q - 1);
    double x = 0, y = 0;
    ASSERT_EQ(std::sscanf(line.c_str() + q + 1, ",%lf,%lf", &x, &y), 2) << line;
    EXPECT_GE(x, -2);
    EXPECT_LE(x, 2);
    if (label == "GELU (exact)") {
      ++gelu_rows;
      EXPECT_EQ(y, gelu->eval(x)) << "x = " << x;
    } else if (label == "ReLU") {
      ++relu_rows;
      EXPECT_EQ(y, std::max(x, 0.0));
    } else if (label.rfind("GELU inflection points", 0) == 0) {
      ++inflection_rows;
      EXPECT_NEAR(std::fabs(x), std::sqrt(2.0), 1e-12);
    } else {
      ADD_FAILURE() << "a series that is not drawn: " << label;
    }
  }
  EXPECT_GT(gelu_rows, 300);  // one sample per pixel column
  EXPECT_EQ(relu_rows, gelu_rows);
  EXPECT_EQ(inflection_rows, 2);
  // The plot PNG is the plot alone: smaller than the window, larger than a thumbnail.
  const Image img(plot_png.string());
  ASSERT_TRUE(img.ok());
  EXPECT_LT(img.w(), 1280);
  EXPECT_GT(img.w(), 500);
  EXPECT_LT(img.h(), 800);
  EXPECT_GT(img.h(), 150);
}

}  // namespace

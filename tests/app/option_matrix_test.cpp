// The documented options work on every panel (reliability class 7): every option and flag that `gelulab shot`
// and `gelulab gui` declare (command::declared_options) is run on every panel of model::panel_kinds(), and
// each output is checked — a PNG of the size asked for, a CSV with its header and rows, JSON that parses with
// gelu::json::parse and says what was asked (panel, lesson step, presentation, plots). The panels, their
// states (the field tables' defaults) and their plots (what `--meta` lists under plot_ids) come from the
// product, never from a list typed here; a new option that no run of the matrix uses fails
// OptionMatrix.EveryDeclaredOptionIsRunOnEveryPanel until a run gives it.
//
// Cells share processes (one shot writes --out, --csv, --plot-out, --meta and --session-out at once), so a
// panel costs one shot per plot beyond the second, three more shots and two headless app runs.
//
// Index of this file:
//   [SECTION] The runs
//   [SECTION] Helpers
//   [SECTION] The matrix
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command/command.hpp"
#include "gelu/json.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/session.hpp"
#include "model/lessons.hpp"
#include "model/panels.hpp"
#include "support/files.hpp"
#include "support/png_image.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace json = gelu::json;
using gelu::app::model::PanelKind;

// [SECTION] The runs: the matrix's rows for one panel (also read by the coverage test)

std::vector<std::string> panel_ids() {
  std::vector<std::string> ids;
  for (const PanelKind& k : gelu::app::model::panel_kinds()) ids.emplace_back(k.id);
  return ids;
}

/// Which step of the matrix's lesson (one step per panel, in the list's order) shows `panel`; 1-based.
std::string lesson_step(const std::string& panel) {
  const auto ids = panel_ids();
  return std::to_string(std::find(ids.begin(), ids.end(), panel) - ids.begin() + 1);
}

using Runs = std::map<std::string, std::vector<std::string>>;

/// shot: every output at once; the session it wrote restored under a lesson step in presentation mode with
/// the panel's second plot as CSV; each further plot by id at the smallest size; an unknown plot id. Every
/// run starts from the matrix's state (without it a benchmark shot would measure the default sweep).
/// `plots` are the plots drawn at 800x500, `classroom_plots` those drawn in the classroom run (a panel at a
/// projector's text size may draw fewer), `small_plots` those drawn at 320x240: a plot the smallest size
/// does not draw is asked for at 800x500.
Runs shot_runs(const std::string& panel, const std::vector<std::string>& plots,
               const std::vector<std::string>& classroom_plots = {"?"},
               const std::vector<std::string>& small_plots = {}) {
  Runs r;
  r["outputs"] = {"shot",    "--panel", panel,     "--state",       "state.json", "--size", "800x500",
                  "--scale", "1.25",    "--out",   "a.png",         "--csv",      "a.csv",  "--plot-out",
                  "ap.png",  "--meta",  "am.json", "--session-out", "as.json"};
  r["classroom"] = {"shot",
                    "--session",
                    "as.json",
                    "--lesson",
                    "lesson.json",
                    "--step",
                    lesson_step(panel),
                    "--presentation",
                    "2",
                    "--size",
                    "640x400",
                    "--out",
                    "b.png",
                    "--meta",
                    "bm.json",
                    "--csv",
                    "b.csv",
                    "--csv-plot",
                    classroom_plots.size() > 1 ? classroom_plots[1] : classroom_plots[0],
                    "--pick",
                    "1",
                    "--next",
                    "0"};  // (a step without a reveal or a question would go on to the next step)
  for (std::size_t i = 2; i < plots.size(); ++i) {
    const bool small = std::find(small_plots.begin(), small_plots.end(), plots[i]) != small_plots.end();
    r["plot " + plots[i]] = {
        "shot",   "--panel", panel,   "--state", "state.json", "--size", small ? "320x240" : "800x500",
        "--out",  "c.png",   "--csv", "c.csv",   "--csv-plot", plots[i], "--meta",
        "cm.json"};
  }
  r["unknown plot"] = {"shot",  "--panel", panel,   "--state", "state.json", "--size",      "320x240",
                       "--out", "d.png",   "--csv", "d.csv",   "--csv-plot", "no_such_plot"};
  return r;
}

/// Each plot's CSV (Ctrl+E with the mouse on it), the plot PNG (Shift+F12) and the window PNG (F12).
std::string export_script(const std::vector<std::string>& plots, int* frames) {
  std::string s = "wait 5\n";
  *frames = 5;
  for (const std::string& id : plots) {
    s += "move plot:" + id + "\nkey ctrlE\nwait 3\n";
    *frames += 1 + 3 + 3;
  }
  s += "key shiftF12\nkey F12\nwait 2\n";
  *frames += 8;
  return s;
}

/// gui: every option of the app at once on the panel (its state, a session, presentation mode, the export
/// script looped, the report, the last frame's PNG, the soak limits); then the panel's lesson step.
Runs gui_runs(const std::string& panel, int frames) {
  Runs r;
  r["outputs"] = {"gui",
                  "--headless",
                  "--size",
                  "800x500",
                  "--frames",
                  std::to_string(frames),
                  "--panel",
                  panel,
                  "--state",
                  "state.json",
                  "--session",
                  "gs.json",
                  "--presentation",
                  "1.5",
                  "--script",
                  "script.txt",
                  "--script-loop",
                  "--report",
                  "gr.json",
                  "--save-png",
                  "g.png",
                  "--report-frame-time",
                  "--max-rss-growth-kb",
                  "1048576",
                  "--rss-baseline-frame",
                  "2",
                  "--max-frame-time-growth",
                  "100"};
  // The monkey: its script file, with the toggles an earlier run clicked left for last.
  r["monkey"] = {"gui",
                 "--headless",
                 "--size",
                 "640x400",
                 "--frames",
                 "40",
                 "--panel",
                 panel,
                 "--monkey",
                 "7",
                 "--monkey-script",
                 "monkey.txt",
                 "--monkey-tried",
                 "tried.txt",
                 "--report",
                 "gm.json"};
  r["lesson"] = {"gui",       "--headless", "--size",      "640x400",  "--frames",
                 "6",         "--lesson",   "lesson.json", "--step",   lesson_step(panel),
                 "--session", "gl.json",    "--report",    "glr.json", "--save-png",
                 "gl.png"};
  return r;
}

TEST(OptionMatrix, EveryDeclaredOptionIsRunOnEveryPanelAndDocumented) {
  for (const std::string cmd : {"shot", "gui"}) {
    SCOPED_TRACE(cmd);
    std::set<std::string> used;
    for (const std::string& panel : panel_ids()) {
      const Runs runs = cmd == "shot" ? shot_runs(panel, {"p1", "p2", "p3"}) : gui_runs(panel, 10);
      for (const auto& [name, args] : runs)
        for (const std::string& a : args)
          if (a.rfind("--", 0) == 0) used.insert(a.substr(2));
    }
    const auto declared = gelu::command::declared_options(cmd);
    ASSERT_GT(declared.size(), 5u);
    const gelu::command::Command* c = nullptr;
    for (const auto& k : gelu::command::commands())
      if (k.name == cmd) c = &k;
    ASSERT_NE(c, nullptr);
    for (const auto& d : declared) {
      EXPECT_TRUE(used.count(d.name)) << "--" << d.name << " is in no run of the option matrix";
      EXPECT_NE(std::string(c->usage).find("--" + d.name), std::string::npos)
          << "--" << d.name << " is not in 'gelulab " << cmd << " --help'";
    }
  }
}

// [SECTION] Helpers

using gelu::test::slurp;

json::Value parse_file(const fs::path& p) {
  const std::string text = slurp(p);
  try {
    return json::parse(text);
  } catch (const json::JsonError& e) {
    ADD_FAILURE() << p << " does not parse with gelu::json::parse: " << e.what();
    return json::Value();
  }
}

/// A PNG of exactly w x h (or, with w = 0, any size that is smaller than the window and not empty).
void expect_png(const fs::path& p, int w, int h) {
  const gelu::test::Image img(p.string());
  ASSERT_TRUE(img.ok()) << p << " is not a PNG";
  if (w > 0) {
    EXPECT_EQ(img.w(), w) << p;
    EXPECT_EQ(img.h(), h) << p;
  } else {
    EXPECT_GT(img.w(), 20) << p;
    EXPECT_GT(img.h(), 20) << p;
  }
}

/// The plot CSV: its '#' line names the plot, then the header (a heat map's cells add a value column, which
/// some row then fills), then at least one row.
void expect_csv(const fs::path& p, const std::string& plot) {
  std::istringstream in(slurp(p));
  std::string first, header, row;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("# gelulab plot " + plot + ": visible x [", 0), 0u) << p << ": " << first;
  std::getline(in, header);
  const bool cells = header == "series,x,y,value";
  EXPECT_TRUE(cells || header == "series,x,y") << p << ": " << header;
  int rows = 0, values = 0;
  while (std::getline(in, row)) {
    ++rows;
    const auto commas = std::count(row.begin(), row.end(), ',');
    EXPECT_GE(commas, cells ? 3 : 2) << p << ": " << row;
    if (cells && row.back() != ',') ++values;
  }
  EXPECT_GT(rows, 0) << p << " has no rows";
  if (cells) {
    EXPECT_GT(values, 0) << p << " has a value column and no values";
  }
}

/// The line a CSV request for a plot without data writes to stderr (and nothing else).
std::string no_data_line(const std::string& panel, const std::string& plot) {
  return "gelulab: CSV: the plot '" + plot + "' on the " + panel +
         " panel has no data yet; nothing written\n";
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

/// What a CSV request of `plot` must leave, by what the run's last frame drew (`plots` of --meta or of the
/// report, counted where the plot draws, not where it exports): with data, the CSV with its rows; without,
/// no file and one stderr line naming the plot. A plot that drew data and exported no rows fails here.
void expect_plot_csv(const fs::path& p, const std::string& panel, const std::string& plot,
                     const json::Value& meta, const std::string& err) {
  const double items = meta.at("plots").at(plot).at("data_items").as_number();
  if (items > 0) {
    ASSERT_TRUE(fs::exists(p)) << plot << " drew " << items
                               << " data items and its CSV was not written: " << err;
    expect_csv(p, plot);
    EXPECT_EQ(count_of(err, no_data_line(panel, plot)), 0u) << err;
  } else {
    EXPECT_FALSE(fs::exists(p)) << plot << " drew no data, yet " << p << " was written";
    EXPECT_EQ(count_of(err, no_data_line(panel, plot)), 1u) << err;
  }
}

/// The session a run wrote: it parses, loads into a fresh app, and shows `panel`.
json::Value expect_session(const fs::path& p, const std::string& panel) {
  const json::Value s = parse_file(p);
  gelu::app::App app;
  EXPECT_NO_THROW(gelu::app::apply_session(app, s, p.string()));
  EXPECT_EQ(s.at("active_panel").as_string(), panel) << p;
  return s;
}

class Dir {
 public:
  explicit Dir(const std::string& name) : dir_(gelu::test::scratch_dir("gelulab_matrix") / name) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "run");
  }
  ~Dir() { fs::remove_all(dir_); }
  fs::path operator/(const std::string& n) const { return dir_ / n; }
  const fs::path& path() const { return dir_; }
  gelu::test::ExecResult run(const std::vector<std::string>& args) const {
    auto a = args;
    return gelu::test::exec_gelulab(
        a, "", (dir_ / "run").string(),
        {"DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME=" + (dir_ / "config").string()}, 120, 0,
        gelu::test::StdoutTo::Captured, dir_.string());
  }

 private:
  fs::path dir_;
};

/// The panel's default state, except that a benchmark measures the smallest sweep that still draws bars (64
/// elements, once, on the scalar CPU backend, whose first measurement needs no GPU context): the matrix is
/// about the options, and a default sweep takes minutes per shot on 2 cores.
json::Value quick_state(const PanelKind& kind) {
  json::Value s = kind.defaults();
  if (std::string(kind.id) == "bench") {
    s.as_object()["sizes"] = json::Array{64};
    s.as_object()["reps"] = 1;
    s.as_object()["backends"] = json::Array{"cpu_scalar"};
  }
  return s;
}

/// The files every run of a panel reads: its default state and a lesson with one step per panel.
void write_inputs(const Dir& d, const PanelKind& kind) {
  std::ofstream(d / "state.json") << json::write(quick_state(kind), 2);
  json::Object lesson;
  lesson["title"] = "Every panel";
  lesson["version"] = gelu::app::kLessonVersion;
  json::Array steps;
  for (const PanelKind& k : gelu::app::model::panel_kinds()) {
    json::Object s;
    s["title"] = std::string("The ") + k.title + " panel";
    s["text"] = "One step per panel, with its default state.";
    s["panel"] = k.id;
    s["state"] = quick_state(k);
    steps.emplace_back(std::move(s));
  }
  lesson["steps"] = std::move(steps);
  std::ofstream(d / "lesson.json") << json::write(json::Value(std::move(lesson)), 2);
}

// [SECTION] The matrix

class OptionMatrixPanel : public ::testing::TestWithParam<std::string> {};

TEST_P(OptionMatrixPanel, EveryShotOptionWorks) {
  const std::string panel = GetParam();
  const PanelKind& kind = *gelu::app::model::find_panel_kind(panel);
  const Dir d("shot_" + panel);
  write_inputs(d, kind);
  // The first run also finds the panel's plots (its --meta lists them): the rest of the matrix uses them.
  const auto outputs = shot_runs(panel, {"?"}).at("outputs");
  auto r = d.run(outputs);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const json::Value meta = parse_file(d / "am.json");
  std::vector<std::string> plots;
  for (const json::Value& id : meta.at("plot_ids").as_array()) plots.push_back(id.as_string());
  ASSERT_FALSE(plots.empty()) << "the " << panel << " panel drew no plot";
  std::set<std::string> listed;
  for (const auto& [id, geometry] : meta.at("plots").as_object()) listed.insert(id);
  EXPECT_EQ(listed, std::set<std::string>(plots.begin(), plots.end())) << "meta's plots are the plots drawn";
  EXPECT_EQ(meta.at("panel").as_string(), panel);
  EXPECT_EQ(meta.at("width").as_number(), 800);
  EXPECT_EQ(meta.at("height").as_number(), 500);
  EXPECT_NEAR(meta.at("font_px").as_number(), gelu::app::kBaseFontPx * 1.25, 0.01);  // --scale
  expect_png(d / "a.png", 800, 500);
  expect_plot_csv(d / "a.csv", panel, plots[0], meta, r.err);  // the default plot is the first
  expect_png(d / "ap.png", 0, 0);
  const json::Value session = expect_session(d / "as.json", panel);
  EXPECT_EQ(json::write(session.at("panels").at(panel)), json::write(kind.normalize(quick_state(kind))));

  // The plots drawn in the classroom run and at the smallest size, from the same runs without a CSV.
  auto drawn = [&](std::vector<std::string> run) {
    const auto at = std::find(run.begin(), run.end(), "--csv");
    run.erase(at, at + 4);  // --csv F --csv-plot ID
    const auto m = std::find(run.begin(), run.end(), "--meta");
    if (m != run.end())
      *(m + 1) = "probe.json";
    else
      run.insert(run.end(), {"--meta", "probe.json"});
    const auto p = d.run(run);
    EXPECT_EQ(p.status, 0) << p.err;
    std::vector<std::string> ids;
    if (p.status != 0) return ids;
    const json::Value probe = parse_file(d / "probe.json");  // kept: the loop reads into it
    for (const json::Value& id : probe.at("plot_ids").as_array()) ids.push_back(id.as_string());
    return ids;
  };
  const std::vector<std::string> classroom_plots = drawn(shot_runs(panel, plots).at("classroom"));
  const std::vector<std::string> small_plots = drawn(shot_runs(panel, plots).at("unknown plot"));
  ASSERT_FALSE(classroom_plots.empty());
  const Runs runs = shot_runs(panel, plots, classroom_plots, small_plots);
  r = d.run(runs.at("classroom"));
  ASSERT_EQ(r.status, 0) << r.err;
  const json::Value m2 = parse_file(d / "bm.json");
  EXPECT_EQ(m2.at("panel").as_string(), panel);
  EXPECT_EQ(m2.at("lesson").at("step").as_number(), std::stod(lesson_step(panel)));
  EXPECT_TRUE(m2.at("presentation").at("on").as_bool());
  EXPECT_EQ(m2.at("presentation").at("scale").as_number(), 2);
  expect_png(d / "b.png", 640, 400);
  expect_plot_csv(d / "b.csv", panel, classroom_plots.size() > 1 ? classroom_plots[1] : classroom_plots[0],
                  m2, r.err);

  for (std::size_t i = 2; i < plots.size(); ++i) {
    SCOPED_TRACE(plots[i]);
    fs::remove(d / "c.csv");
    r = d.run(runs.at("plot " + plots[i]));
    ASSERT_EQ(r.status, 0) << r.err;
    const bool small = std::find(small_plots.begin(), small_plots.end(), plots[i]) != small_plots.end();
    expect_png(d / "c.png", small ? 320 : 800, small ? 240 : 500);
    expect_plot_csv(d / "c.csv", panel, plots[i], parse_file(d / "cm.json"), r.err);
  }

  // An unknown plot id: exit 2, one line naming every plot of the panel.
  r = d.run(runs.at("unknown plot"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--csv-plot: no plot 'no_such_plot' on the " + panel + " panel"), std::string::npos)
      << r.err;
  for (const std::string& id : small_plots) EXPECT_NE(r.err.find(id), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "d.csv"));
}

TEST_P(OptionMatrixPanel, EveryGuiOptionWorks) {
  const std::string panel = GetParam();
  const PanelKind& kind = *gelu::app::model::find_panel_kind(panel);
  const Dir d("gui_" + panel);
  write_inputs(d, kind);
  // The panel's plots, from the app itself (the report lists the last frame's plots in drawing order), at the
  // size, text scale and state of the run below (a panel at a projector's text size may draw fewer).
  auto r = d.run({"gui", "--headless", "--frames", "4", "--panel", panel, "--state", "state.json", "--size",
                  "800x500", "--presentation", "1.5", "--report", "plots.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> plots;
  const json::Value first = parse_file(d / "plots.json");  // kept: the loop reads into it
  for (const json::Value& id : first.at("plot_ids").as_array()) plots.push_back(id.as_string());
  ASSERT_FALSE(plots.empty());
  int frames = 0;
  std::ofstream(d / "script.txt") << export_script(plots, &frames);
  // Two passes of the looped script (the third is still in its first wait when the run ends).
  const Runs runs = gui_runs(panel, 2 * frames + 2);

  r = d.run(runs.at("outputs"));
  ASSERT_EQ(r.status, 0) << r.err;
  expect_png(d / "g.png", 800, 500);
  const json::Value report = parse_file(d / "gr.json");
  EXPECT_EQ(report.at("status").as_number(), 0);
  EXPECT_EQ(report.at("active_panel").as_string(), panel);
  for (const std::string& id : panel_ids()) EXPECT_NE(report.at("panels").find(id), nullptr) << id;
  const json::Value session = expect_session(d / "gs.json", panel);
  EXPECT_EQ(json::write(session.at("panels").at(panel)), json::write(kind.normalize(quick_state(kind))));
  EXPECT_TRUE(session.at("presentation").at("on").as_bool());
  EXPECT_EQ(session.at("presentation").at("scale").as_number(), 1.5);
  // Each of the two Ctrl+E per plot wrote its CSV (gelulab-PANEL-PLOT-N.csv) or, when the plot had no data
  // then (a panel that computes on a worker thread may not have finished), one line on stderr; Shift+F12 a
  // plot PNG, F12 the window. A plot that still has no data in the last frame (the report's data_items) wrote
  // no CSV.
  for (const std::string& id : plots) {
    SCOPED_TRACE(id);
    int found = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(d.path())) {
      const std::string name = e.path().filename().string();
      if (name.rfind("gelulab-" + panel + "-" + id + "-", 0) == 0 && e.path().extension() == ".csv") {
        expect_csv(e.path(), id);
        ++found;
      }
    }
    const std::size_t said = count_of(r.err, no_data_line(panel, id));
    EXPECT_EQ(found + said, 2u) << "each Ctrl+E on " << id << " writes a CSV or says why not: " << r.err;
    if (report.at("plots").at(id).at("data_items").as_number() == 0) {
      EXPECT_EQ(found, 0) << id << " has no data and a CSV of it was written";
    }
  }
  int window_pngs = 0, plot_pngs = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(d.path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gelulab-" + panel + "-", 0) != 0 || e.path().extension() != ".png") continue;
    const gelu::test::Image img(e.path().string());
    ASSERT_TRUE(img.ok()) << name;
    if (img.w() == 800 && img.h() == 500) {
      ++window_pngs;
    } else {
      ++plot_pngs;
    }
  }
  EXPECT_GE(window_pngs, 1) << "F12";
  EXPECT_GE(plot_pngs, 1) << "Shift+F12";

  // The monkey writes its actions as a script that replays with the command on its second line.
  std::ofstream(d / "tried.txt") << "window\n";
  r = d.run(runs.at("monkey"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string monkey = slurp(d / "monkey.txt");
  EXPECT_NE(monkey.find("# replay: gelulab gui --headless --panel '" + panel + "'"), std::string::npos)
      << monkey;
  EXPECT_GT(parse_file(d / "gm.json").at("monkey").at("actions").as_number(), 0);
  r = d.run({"gui", "--headless", "--size", "640x400", "--frames", "40", "--panel", panel, "--script",
             "monkey.txt"});
  EXPECT_EQ(r.status, 0) << r.err;

  r = d.run(runs.at("lesson"));
  ASSERT_EQ(r.status, 0) << r.err;
  expect_png(d / "gl.png", 640, 400);
  const json::Value ls = expect_session(d / "gl.json", panel);
  EXPECT_EQ(ls.at("lesson").at("step").as_number(), std::stod(lesson_step(panel)));
  EXPECT_EQ(ls.at("lesson").at("file").as_string(), (d / "lesson.json").string());
  EXPECT_EQ(parse_file(d / "glr.json").at("active_panel").as_string(), panel);
}

INSTANTIATE_TEST_SUITE_P(EveryPanel, OptionMatrixPanel, ::testing::ValuesIn(panel_ids()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace

// What a student sees at the back of the room (issue 13, point 2): every panel and every step of every
// lesson, at 1024×768, 1280×720, 1280×800 and 1920×1080, in presentation mode at 1×, 1.5×, 2× and 3×,
// rendered in this process the way `gelulab shot` renders them (one headless GL context, the same App), and
// checked from the layout and from the pixels:
//   - every plot keeps a data area of at least 300 × 150 px and lies across the window (never cut at a side);
//   - the first plot is wholly on screen (above the lesson bar in a lesson);
//   - a legend never covers drawn data: the picture drawn without legends (same layout) has no data pixels
//     under a legend placed inside its plot, and a legend placed outside stays off every data area;
//   - no two text boxes of the plots overlap (titles, labels, ticks, legends, notes, marker labels);
//   - in a plot of many labelled dots (labels_near) every label drawn lies beside its own dot: within two
//     lines of text of it, and no other dot of its colour nearer to it (else it reads as that dot's);
//   - a plot that has data shows it (data-coloured or dark pixels in its data area);
//   - a bar group's name wider than its group goes on two lines rather than being cut with "…";
//   - at the projector sizes of model::kSlideSizes every lesson step is a slide (issue 52): each plot wholly
//     inside the window and above the lesson bar (visible_fraction 1), its text wholly in the bar
//     (text_overflow_px 0), nothing scrolling; from the rectangles and, independently, from the pixels.
// Runs headless; without a GL context it fails, it does not skip.
//
// Index of this file:
//   [SECTION] Rendering
//   [SECTION] Checks
//   [SECTION] The matrix
#include <backends/imgui_impl_opengl3.h>
#include <epoxy/gl.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "gui/hosts/offscreen.hpp"
#include "gui/kit/gl.hpp"
#include "gui/kit/ui.hpp"
#include "gui/panels/panel.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/state_file.hpp"
#include "model/lessons.hpp"
#include "model/panels.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using namespace gelu::app;

namespace {

/// The most a frame's triangles may cover, in frames (Frame::cost): the FFN lab's heatmaps over their
/// plots reach 1.9.
constexpr double kMaxFill = 2.0;

// [SECTION] Rendering

struct Config {
  int w, h;
  const char* scale;
};
constexpr Config kConfigs[] = {{1024, 768, "1"},  {1024, 768, "1.5"},  {1024, 768, "2"},  {1024, 768, "3"},
                               {1280, 720, "1"},  {1280, 720, "1.5"},  {1280, 720, "2"},  {1280, 720, "3"},
                               {1280, 800, "1"},  {1280, 800, "1.5"},  {1280, 800, "2"},  {1280, 800, "3"},
                               {1920, 1080, "1"}, {1920, 1080, "1.5"}, {1920, 1080, "2"}, {1920, 1080, "3"}};

/// What a panel or a lesson step is: a panel id, or a lesson file and a step (1-based).
struct Subject {
  std::string panel, lesson;
  int step = 0;
  std::string name;  // for the test's name: letters, digits and '_'
};

struct Rect {
  float l, t, r, b;
  bool meets(const Rect& o, float slack = 0.5f) const {
    return l + slack < o.r && o.l + slack < r && t + slack < o.b && o.t + slack < b;
  }
  float w() const { return r - l; }
  float h() const { return b - t; }
};
Rect rect(ImVec2 a, ImVec2 b) {
  return {a.x, a.y, b.x, b.y};
}

struct PlotSeen {
  std::string id;
  Rect frame, area, legend;
  bool has_legend = false;
  gelu::plot::LegendPlace place = gelu::plot::LegendPlace::Inside;
  std::vector<gelu::plot::TextBox> texts;
  int data_items = 0;
  int category_labels_cut = 0;
  int categories = 0, x_tick_labels = 0, y_tick_labels = 0;
  gelu::plot::Axis x, y;
  bool labels_near = false;
  std::vector<gelu::plot::Dot> dots;
};

struct Picture {
  int w = 0, h = 0;
  std::vector<unsigned char> rgba;  // top row first
  const unsigned char* at(int x, int y) const { return &rgba[(static_cast<std::size_t>(y) * w + x) * 4]; }
};

struct Frame {
  std::vector<PlotSeen> plots;
  std::vector<gelu::plot::Box> extents;  // each plot's frame, ticks, legend, notes and labels (plot_extent)
  gelu::plot::SlideFrame slide;          // the room above the lesson bar, the text's lines (App::slide_frame)
  std::vector<std::string> slide_problems;
  std::vector<std::string> text_overlaps;  // panel.hpp's text_overlaps over the frame's plots
  ui::DrawCost cost;                       // the drawn frame's draw data (ui::draw_cost)
  Picture with_legends, without_legends;
  std::optional<Rect> lesson_bar;
  std::string error;
};

/// One headless context for the whole process, as large as the largest picture.
Offscreen* screen(std::string* error) {
  static std::unique_ptr<Offscreen> s = Offscreen::create({1920, 1080}, error);
  return s.get();
}

Picture read_back(int w, int h) {
  Picture p;
  p.w = w;
  p.h = h;
  std::vector<unsigned char> raw(static_cast<std::size_t>(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, raw.data());  // ImGui draws at the bottom left
  p.rgba.resize(raw.size());
  for (int y = 0; y < h; ++y)  // GL's first row is the bottom one
    std::copy_n(&raw[static_cast<std::size_t>(h - 1 - y) * w * 4], static_cast<std::size_t>(w) * 4,
                &p.rgba[static_cast<std::size_t>(y) * w * 4]);
  return p;
}

Frame render(const Subject& s, const Config& c) {
  Frame f;
  Offscreen* scr = screen(&f.error);
  if (!scr) return f;
  App app;
  ViewOptions o;
  if (!s.panel.empty()) o.panel = s.panel;
  if (s.panel == "bench") {  // its shot measures: the smallest measurement, the same plots
    static const fs::path st = [] {
      const fs::path p = gelu::test::scratch_dir("layout") / "bench.json";
      std::ofstream(p) << R"({"sizes": [1024, 4096], "reps": 1, "backends": ["cpu_scalar", "cpu_vector"]})";
      return p;
    }();
    o.state = st.string();
  }
  if (!s.lesson.empty()) {
    o.lesson = s.lesson;
    o.step = std::to_string(s.step);
  }
  o.presentation = c.scale;
  try {
    apply_view_options(app, o);
  } catch (const std::exception& e) {
    f.error = e.what();
    return f;
  }
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(static_cast<float>(c.w), static_cast<float>(c.h));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  const auto t0 = std::chrono::steady_clock::now();
  app.setup_fonts_and_style(1.0f);
  const auto t1 = std::chrono::steady_clock::now();
  if (!ImGui_ImplOpenGL3_Init("#version 430 core")) {
    f.error = "the ImGui OpenGL3 renderer failed to initialize";
    ImGui::DestroyContext();
    return f;
  }
  app.active().settle_for_shot();
  const auto t2 = std::chrono::steady_clock::now();
  // The frames that let the layout settle are laid out only (ImGui's layout needs no drawing); the last two
  // are drawn: the picture, and the same frame without legends.
  auto draw = [&](bool gl = true) {
    io.DeltaTime = 1.0f / 60.0f;
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    app.frame();
    ImGui::Render();
    if (!gl) return;
    scr->bind();
    gelu::app::begin_frame_drawing(c.w, c.h);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glFinish();
  };
  for (int i = 0; i < 6; ++i) draw(false);  // as `gelulab shot`: layouts settle from the previous frames
  draw();
  f.cost = ui::draw_cost(ImGui::GetDrawData());
  const auto t3 = std::chrono::steady_clock::now();
  f.with_legends = read_back(c.w, c.h);
  if (std::getenv("GELU_LAYOUT_TIMES"))
    std::printf("fonts %.0f ms, settle %.0f ms, frames %.0f ms\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count(),
                std::chrono::duration<double, std::milli>(t2 - t1).count(),
                std::chrono::duration<double, std::milli>(t3 - t2).count());
  for (const ui::PlotRef& r : ui::frame_plots()) {
    const gelu::plot::PlotState& st = *r.state;
    PlotSeen p;
    p.id = r.id;
    p.frame = rect(st.frame_min, st.frame_max);
    p.area = {static_cast<float>(st.last.left), static_cast<float>(st.last.top),
              static_cast<float>(st.last.right), static_cast<float>(st.last.bottom)};
    p.has_legend = st.legend_max.x > st.legend_min.x;
    p.legend = rect(st.legend_min, st.legend_max);
    p.place = st.legend_place;
    p.texts = st.texts;
    p.data_items = st.drawn_items;
    p.category_labels_cut = st.category_labels_cut;
    p.categories = static_cast<int>(st.x_categories.size());
    p.x_tick_labels = st.x_tick_labels;
    p.y_tick_labels = st.y_tick_labels;
    p.x = st.x;
    p.y = st.y;
    p.labels_near = st.labels_near;
    p.dots = st.dots;
    f.plots.push_back(std::move(p));
    f.extents.push_back(plot_extent(st));
  }
  f.slide = app.slide_frame();
  f.slide_problems = app.slide_problems();
  {
    std::vector<std::pair<std::string, const gelu::plot::PlotState*>> drawn;
    for (const ui::PlotRef& r : ui::frame_plots()) drawn.emplace_back(r.id, r.state);
    f.text_overlaps = text_overlaps(drawn);
  }
  if (const auto it = ui::marks().find("lesson_bar"); it != ui::marks().end() && app.lesson())
    f.lesson_bar = rect(it->second.min, it->second.max);
  gelu::plot::set_draw_legends(false);  // the same frame again, without drawing the legends
  draw();
  gelu::plot::set_draw_legends(true);
  f.without_legends = read_back(c.w, c.h);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
  return f;
}

// [SECTION] Checks

/// A pixel of drawn data: a saturated colour (every series colour of the palette but grey), not the pale
/// shading of bands and zones, nor the grey grid.
bool data_pixel(const unsigned char* p) {
  const int mx = std::max({p[0], p[1], p[2]}), mn = std::min({p[0], p[1], p[2]});
  return mx - mn > 70;
}
bool dark_pixel(const unsigned char* p) {
  return p[0] < 90 && p[1] < 90 && p[2] < 90;
}

int count_in(const Picture& pic, Rect r, bool (*pred)(const unsigned char*)) {
  int n = 0;
  const int x0 = std::max(0, static_cast<int>(r.l)), x1 = std::min(pic.w, static_cast<int>(r.r));
  const int y0 = std::max(0, static_cast<int>(r.t)), y1 = std::min(pic.h, static_cast<int>(r.b));
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) n += pred(pic.at(x, y));
  return n;
}

/// The lesson bar's background (App::lesson_bar): where it is, no plot is.
bool bar_pixel(const unsigned char* p) {
  return p[0] == 255 && p[1] == 247 && p[2] == 214;
}
bool ink_pixel(const unsigned char* p) {
  return 0.3 * p[0] + 0.59 * p[1] + 0.11 * p[2] < 200;
}

/// Whether (w, h, scale) is one of the projector sizes every shipped step is a slide at (model::kSlideSizes).
bool slide_size(const Config& c) {
  for (const SlideSize& z : kSlideSizes)
    if (z.width == c.w && z.height == c.h && std::fabs(z.scale - std::stof(c.scale)) < 1e-3f) return true;
  return false;
}

/// A step is a slide (issue 52): every plot it draws lies wholly inside the window and above the lesson bar
/// and nothing scrolls, seen from the rectangles (visible_fraction, text_overflow_px, the panel's scroll)
/// and, independently, from the pixels: no pixel of the bar's colour inside any plot's extent, and each data
/// area's bottom edge drawn (the frame line under the data, which the panel clips where the bar begins).
void check_slide(const Frame& f) {
  const gelu::plot::Box seen = gelu::plot::intersect(f.slide.room, f.slide.window);
  for (std::size_t i = 0; i < f.plots.size(); ++i) {
    SCOPED_TRACE(f.plots[i].id);
    const gelu::plot::Box& e = f.extents[i];
    EXPECT_EQ(gelu::plot::visible_fraction(e, seen), 1.0)
        << "extent [" << e.l << ", " << e.t << ", " << e.r << ", " << e.b << "], room [" << seen.l << ", "
        << seen.t << ", " << seen.r << ", " << seen.b << "]";
    const Rect inside{static_cast<float>(e.l), static_cast<float>(e.t), static_cast<float>(e.r),
                      static_cast<float>(e.b)};
    EXPECT_EQ(count_in(f.with_legends, inside, bar_pixel), 0) << "the lesson bar covers the plot";
    const Rect& a = f.plots[i].area;
    int best = 0;
    for (int y = static_cast<int>(a.b) - 2; y <= static_cast<int>(a.b) + 1; ++y)
      best = std::max(
          best, count_in(f.with_legends, Rect{a.l, static_cast<float>(y), a.r, static_cast<float>(y + 1)},
                         ink_pixel));
    EXPECT_GE(best, static_cast<int>(0.5f * a.w())) << "the data area's bottom edge is not drawn (clipped?)";
  }
  EXPECT_EQ(f.slide.text_overflow_px, 0.0)
      << "text needs " << f.slide.text_lines << " lines, the bar shows " << f.slide.bar_lines;
  EXPECT_EQ(f.slide.panel_overflow_px, 0.0) << "the panel scrolls";
  for (const std::string& p : f.slide_problems) ADD_FAILURE() << p;
}

void check(const Subject& s, const Config& c) {
  SCOPED_TRACE(s.name + " at " + std::to_string(c.w) + "x" + std::to_string(c.h) + ", presentation " +
               c.scale + "x");
  const Frame f = render(s, c);
  ASSERT_TRUE(f.error.empty()) << f.error << " (no headless GL context?)";
  if (std::getenv("GELU_LAYOUT_DEBUG"))
    for (const PlotSeen& p : f.plots)
      std::printf(
          "%s: frame %.0f %.0f %.0f %.0f area %.0f %.0f %.0f %.0f legend %.0f %.0f %.0f %.0f place %d\n",
          p.id.c_str(), p.frame.l, p.frame.t, p.frame.r, p.frame.b, p.area.l, p.area.t, p.area.r, p.area.b,
          p.legend.l, p.legend.t, p.legend.r, p.legend.b, static_cast<int>(p.place));
  ASSERT_FALSE(f.plots.empty()) << "no plot drawn";
  if (!s.lesson.empty() && slide_size(c)) check_slide(f);
  const float bottom = f.lesson_bar ? f.lesson_bar->t : static_cast<float>(c.h);
  if (!s.lesson.empty()) {
    ASSERT_TRUE(f.lesson_bar.has_value()) << "no lesson bar";
  }
  // The first plot shows its data above the lesson bar: all of it, or at least 150 px of it (a square map
  // at 3× on a short screen; the view scrolls to the rest, and to a legend placed below).
  const Rect& first = f.plots.front().area;
  EXPECT_GE(std::min(first.b, bottom) - first.t, std::min(first.h(), gelu::plot::kMinAreaHeight) - 1)
      << f.plots.front().id << "'s data is under the lesson bar";
  for (const PlotSeen& p : f.plots) {
    SCOPED_TRACE(p.id);
    EXPECT_GE(p.area.w(), gelu::plot::kMinAreaWidth - 1) << "data area " << p.area.w() << " px wide";
    EXPECT_GE(p.area.h(), gelu::plot::kMinAreaHeight - 1) << "data area " << p.area.h() << " px high";
    EXPECT_GE(p.frame.l, -0.5f);
    EXPECT_LE(p.frame.r, static_cast<float>(c.w) + 0.5f) << "the plot is cut at the window's right edge";
    const bool visible = p.frame.t < bottom && p.frame.b > 0;
    if (p.has_legend) {
      EXPECT_GE(p.legend.l, -0.5f);
      EXPECT_LE(p.legend.r, static_cast<float>(c.w) + 0.5f) << "the legend is cut at the window's edge";
      for (const PlotSeen& o : f.plots)
        if (&o != &p) {
          EXPECT_FALSE(p.legend.meets(o.frame)) << "the legend covers plot " << o.id;
        }
      if (p.place == gelu::plot::LegendPlace::Inside) {
        EXPECT_TRUE(p.legend.l >= p.area.l - 0.5f && p.legend.r <= p.area.r + 0.5f &&
                    p.legend.t >= p.area.t - 0.5f && p.legend.b <= p.area.b + 0.5f);
        if (visible) {
          const Rect under{p.legend.l + 1, p.legend.t + 1, std::min(p.legend.r, bottom) - 1,
                           std::min(p.legend.b, bottom) - 1};
          EXPECT_LE(count_in(f.without_legends, under, data_pixel), 4) << "the legend covers drawn data";
        }
      } else {
        EXPECT_FALSE(p.legend.meets(p.area)) << "a legend placed outside lies on its data area";
      }
    }
    EXPECT_EQ(p.category_labels_cut, 0) << "a bar group's name is cut with \"…\"";
    // Every numeric axis shows a scale: two numbers at least (one number alone gives no unit).
    if (p.categories <= 1) {
      EXPECT_GE(p.x_tick_labels, 2) << "the x axis has " << p.x_tick_labels << " number(s) over ["
                                    << p.x.range.min << ", " << p.x.range.max << "] on " << p.area.w()
                                    << " px";
    }
    EXPECT_GE(p.y_tick_labels, 2) << "the y axis has " << p.y_tick_labels << " number(s) over ["
                                  << p.y.range.min << ", " << p.y.range.max << "] on " << p.area.h() << " px";
    float line = 1e9f;  // one line of the plot's text: its shortest text box (a tick number)
    for (const gelu::plot::TextBox& t : p.texts) line = std::min(line, t.max.y - t.min.y);
    if (p.labels_near)
      for (const gelu::plot::TextBox& t : p.texts) {
        if (t.kind != gelu::plot::TextKind::Label || std::isnan(t.anchor.x)) continue;
        // From the dot's centre to the nearest point of the label's box, against the height of one line.
        auto gap = [&t](ImVec2 q) {
          return std::hypot(std::max({t.min.x - q.x, 0.0f, q.x - t.max.x}),
                            std::max({t.min.y - q.y, 0.0f, q.y - t.max.y}));
        };
        const float own = gap(t.anchor);
        EXPECT_LE(own, 2.0f * line) << "a marker label [" << t.min.x << ", " << t.min.y << ", " << t.max.x
                                    << ", " << t.max.y << "] lies " << own / line << " lines from its dot ("
                                    << t.anchor.x << ", " << t.anchor.y << ")";
        for (const gelu::plot::Dot& d : p.dots)
          if (d.color == t.color) {
            EXPECT_GE(gap(d.p), own - 1.0f)
                << "a marker label [" << t.min.x << ", " << t.min.y << ", " << t.max.x << ", " << t.max.y
                << "] is nearer the dot (" << d.p.x << ", " << d.p.y << ") of its colour than its own ("
                << t.anchor.x << ", " << t.anchor.y << ")";
          }
      }
    if (visible && p.data_items > 0 && p.area.b <= bottom) {
      const int ink =
          count_in(f.without_legends, p.area, data_pixel) + count_in(f.without_legends, p.area, dark_pixel);
      EXPECT_GT(ink, 20) << "a plot with data shows none of it";
    }
  }
  // No two text boxes overlap: within a plot (titles, ticks, labels, the legend) and across plots.
  for (const std::string& o : f.text_overlaps) ADD_FAILURE() << o;  // the browser's report gives the same
  // No quad covers the whole frame (the main window's background is the clear, not a quad over it) and the
  // triangles cover at most kMaxFill frames: a software renderer's time goes with this area (the browser's
  // SwiftShader, docs/performance.md; the Curves panel's frame covered 2.1 frames with the background quad,
  // 1.1 without, at 1280×800).
  const double frame_px = static_cast<double>(f.with_legends.w) * f.with_legends.h;
  EXPECT_LT(f.cost.largest_px, 0.45 * frame_px) << "one triangle covers almost half the frame";
  EXPECT_LE(f.cost.filled_px, kMaxFill * frame_px)
      << "the frame's triangles cover " << f.cost.filled_px / frame_px << " times its pixels";
  if (std::getenv("GELU_LAYOUT_FILL")) std::printf("fill %.3f\n", f.cost.filled_px / frame_px);
}

// A bar group's name: whole where it fits, else on two lines broken after '_' or '-' or at a space, at the
// break that makes the wider line narrowest, and cut with "…" only where a line still does not fit.
TEST(CategoryLabel, BreaksAfterAnUnderscoreBeforeCutting) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(800, 600);
  io.Fonts->AddFontDefault();
  ASSERT_TRUE(io.Fonts->Build());
  ImGui::NewFrame();
  auto w = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  auto fit = [](const std::string& l, float width, int lines, bool& cut) {
    return gelu::plot::fit_category_label(l, width, lines, &cut);
  };
  bool cut = true;
  EXPECT_EQ(fit("relu", w("relu"), 2, cut), std::vector<std::string>{"relu"});
  EXPECT_FALSE(cut);
  EXPECT_EQ(fit("gelu_tanh", w("gelu_tanh") - 1, 2, cut), (std::vector<std::string>{"gelu_", "tanh"}));
  EXPECT_FALSE(cut);
  EXPECT_EQ(fit("leaky relu", w("leaky"), 2, cut), (std::vector<std::string>{"leaky", "relu"}));
  EXPECT_FALSE(cut);
  EXPECT_EQ(fit("x-sigmoid", w("sigmoid"), 2, cut), (std::vector<std::string>{"x-", "sigmoid"}));
  EXPECT_FALSE(cut);
  // The narrowest wider line: "ab_cd_" over "efgh", not "ab_" over "cd_efgh".
  EXPECT_EQ(fit("ab_cd_efgh", w("ab_cd_"), 2, cut), (std::vector<std::string>{"ab_cd_", "efgh"}));
  EXPECT_FALSE(cut);
  // One line allowed, no break, or a part still too wide: cut to fit with "…".
  for (const auto& [label, lines] :
       {std::pair<std::string, int>{"gelu_tanh", 1}, {"geluexact", 2}, {"gelu_sigmoid", 2}}) {
    SCOPED_TRACE(label);
    const float width = w("gelu_") + 1;
    const std::vector<std::string> got = fit(label, width, lines, cut);
    EXPECT_TRUE(cut);
    ASSERT_FALSE(got.empty());
    EXPECT_LE(got.size(), static_cast<std::size_t>(lines));
    for (const std::string& l : got) EXPECT_LE(w(l), width) << l;
    EXPECT_EQ(got.back().substr(got.back().size() - 3), "…");
  }
  ImGui::EndFrame();
  ImGui::DestroyContext();
}

/// An ImGui context for the plot tests below (the default font, `font_scale` times larger) and frames of one
/// full-window "plots" window, the mouse at `mouse`, drawn by `draw`.
class PlotFrames {
 public:
  PlotFrames(ImVec2 display, float font_scale) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = display;
    io.DeltaTime = 1.0f / 60;
    io.FontGlobalScale = font_scale;
    io.Fonts->AddFontDefault();
    built = io.Fonts->Build();
  }
  ~PlotFrames() { ImGui::DestroyContext(); }
  template <class Draw>
  void frame(ImVec2 mouse, const Draw& draw) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("plots", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    draw();
    ImGui::End();
    ImGui::Render();
  }
  bool built = false;
};

std::vector<gelu::plot::TextBox> marker_labels(const gelu::plot::PlotState& st) {
  std::vector<gelu::plot::TextBox> v;
  for (const gelu::plot::TextBox& t : st.texts)
    if (t.kind == gelu::plot::TextKind::Label) v.push_back(t);
  return v;
}

const ImVec2 kNoMouse(-FLT_MAX, -FLT_MAX);

/// Three frames of a plot 400 px tall on [0, 10]², room for its legend beside it, with one curve and one
/// labelled marker: the plot's state after them.
gelu::plot::PlotState marker_beside_a_legend(PlotFrames& f, const char* curve, std::span<const double> xs,
                                             std::span<const double> ys, ImVec2 dot, ImU32 color,
                                             const char* text, float radius_em) {
  gelu::plot::PlotState st;
  st.x.range = {0, 10};
  st.y.range = {0, 10};
  for (int i = 0; i < 3; ++i)
    f.frame(kNoMouse, [&] {
      gelu::plot::Plot p("beside", st, ImVec2(-1, 400), "x", "y");
      p.line(curve, IM_COL32(30, 90, 200, 255), xs, ys, 0.14f);
      p.marker(dot.x, dot.y, color, text, radius_em);
    });
  return st;
}

// A labelled dot shows its label when hovered, the label drawn beside it or left out for want of room.
TEST(PlotDots, HoveringALabelledDotShowsItsLabel) {
  PlotFrames f(ImVec2(800, 600), 1.0f);
  ASSERT_TRUE(f.built);
  gelu::plot::PlotState st;
  st.labels_near = true;
  st.x.range = {0, 10};
  st.y.range = {0, 10};
  auto frame = [&](ImVec2 mouse) {
    f.frame(mouse, [&] {
      gelu::plot::Plot p("dots", st, ImVec2(-1, -1), "x", "y");
      p.marker(3, 5, IM_COL32(200, 30, 30, 255), "alpha", 0.3f);
      // Three dots at one place: at most one of their labels fits beside them; each shows when hovered.
      for (const char* name : {"beta", "gamma", "delta"})
        p.marker(7, 5, IM_COL32(90, 90, 90, 255), name, 0.3f);
    });
  };
  frame(kNoMouse);
  frame(kNoMouse);
  ASSERT_EQ(st.dots.size(), 4u);
  const ImVec2 a = st.dots[0].p, b = st.dots[1].p;
  EXPECT_LT(marker_labels(st).size(), 4u) << "three labels beside one place";
  for (int i = 0; i < 3; ++i) frame(a);
  EXPECT_EQ(st.dot_tip, "alpha");
  for (int i = 0; i < 3; ++i) frame(b);
  EXPECT_EQ(st.dot_tip, "beta");  // the first drawn of the dots under the mouse
  for (int i = 0; i < 3; ++i) frame(ImVec2((a.x + b.x) / 2, a.y));
  EXPECT_EQ(st.dot_tip, "") << "no dot under the mouse: the curves' readout, not a dot's label";
}

// The text check the matrix and the browser's layout report share: overlapping boxes of one plot or of two
// are named with their plots; boxes that only touch (within a pixel) are not.
TEST(TextOverlaps, NamesEachOverlappingPairWithItsPlots) {
  gelu::plot::PlotState a, b;
  using gelu::plot::TextKind;
  a.texts = {{ImVec2(0, 0), ImVec2(100, 20), TextKind::Label},
             {ImVec2(100.5f, 0), ImVec2(200, 20), TextKind::Axis}};
  b.texts = {{ImVec2(150, 10), ImVec2(250, 30), TextKind::Legend}};
  const std::vector<std::string> o = text_overlaps({{"plot0", &a}, {"plot1", &b}});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_NE(o[0].find("axis text of plot0"), std::string::npos) << o[0];
  EXPECT_NE(o[0].find("overlaps legend of plot1"), std::string::npos) << o[0];
  b.texts[0].min = ImVec2(199.5f, 10);  // touching within the slack
  EXPECT_TRUE(text_overlaps({{"plot0", &a}, {"plot1", &b}}).empty());
}

// The readout's numbers are the user's to take: Ctrl+C over a plot puts x and each series' value and slope
// there on the clipboard, exactly (shortest round-trip text), and the readout says it did.
TEST(PlotReadout, CtrlCCopiesTheNumbersUnderTheMouseExactly) {
  PlotFrames f(ImVec2(800, 600), 1.0f);
  ASSERT_TRUE(f.built);
  gelu::plot::PlotState st;
  st.x.range = {0, 10};
  st.y.range = {0, 20};
  const double xs[] = {0, 10}, ys[] = {0, 20};
  ImGuiIO& io = ImGui::GetIO();
  io.KeyMap[ImGuiKey_C] = 'C';
  auto frame = [&](ImVec2 mouse) {
    f.frame(mouse, [&] {
      gelu::plot::Plot p("readout", st, ImVec2(-1, -1), "x", "y");
      p.line("twice x", IM_COL32(30, 90, 200, 255), xs, ys, 0.14f);
    });
  };
  frame(kNoMouse);
  frame(kNoMouse);
  const ImVec2 at(static_cast<float>(0.3 * st.last.left + 0.7 * st.last.right),
                  static_cast<float>((st.last.top + st.last.bottom) / 2));
  frame(at);
  frame(at);
  EXPECT_EQ(st.copied, "") << "nothing copied before the keys";
  io.KeyCtrl = true;
  io.KeysDown['C'] = true;
  frame(at);
  io.KeysDown['C'] = false;
  io.KeyCtrl = false;
  frame(at);
  ASSERT_FALSE(st.copied.empty());
  EXPECT_EQ(std::string(ImGui::GetClipboardText()), st.copied);
  double x = NAN, y = NAN, slope = NAN;
  char label[32] = {};
  ASSERT_EQ(std::sscanf(st.copied.c_str(), "x\t%lf\n%31[^\t]\t%lf\t%lf\n", &x, label, &y, &slope), 4)
      << st.copied;
  EXPECT_STREQ(label, "twice x");
  EXPECT_GT(x, 6.0);
  EXPECT_LT(x, 8.0);
  EXPECT_NEAR(y, 2 * x, 1e-12 * x);
  EXPECT_NEAR(slope, 2.0, 1e-12);
  const std::string once = st.copied;
  frame(ImVec2(at.x - 40, at.y));
  EXPECT_EQ(st.copied, once) << "moving the mouse copies nothing";
}

// A marker's label that would lie on the curves over a sixth of a small plot or more (a small plot at a
// large text scale) is left out, the dot showing it when hovered; in a plot with room it is drawn.
TEST(PlotDots, ALabelCoveringASmallPlotsCurvesLeavesTheDataArea) {
  PlotFrames f(ImVec2(900, 700), 3.0f);  // text as large as in presentation mode
  ASSERT_TRUE(f.built);
  const char* text = "erf_naive: 0 from here";
  std::vector<double> xs, ys, ys2;
  for (int i = 0; i <= 60; ++i) {  // curves across the whole plot
    xs.push_back(i / 6.0);
    ys.push_back(5 + 4.5 * std::sin(i / 1.5));
    ys2.push_back(10 - ys.back());
  }
  for (const ImVec2 size : {ImVec2(640, 230), ImVec2(-1, -1)}) {
    SCOPED_TRACE(size.x);
    gelu::plot::PlotState st;
    st.x.range = {0, 10};
    st.y.range = {0, 10};
    auto frame = [&](ImVec2 mouse) {
      f.frame(mouse, [&] {
        gelu::plot::Plot p("small", st, size, "x", "y");
        p.line("wave", IM_COL32(30, 90, 200, 255), xs, ys, 0.14f);
        p.line("wave 2", IM_COL32(200, 90, 30, 255), xs, ys2, 0.14f);
        p.marker(4, 5, IM_COL32(230, 120, 20, 255), text, 0.2f);
      });
    };
    frame(kNoMouse);
    frame(kNoMouse);
    ASSERT_EQ(st.dots.size(), 1u);
    const std::size_t labels = marker_labels(st).size();
    if (size.x > 0)
      EXPECT_EQ(labels, 0u) << "a label over a sixth of a small plot's curves";
    else
      EXPECT_EQ(labels, 1u) << "a plot with room keeps its marker's label";
    const ImVec2 d = st.dots[0].p;
    for (int i = 0; i < 3; ++i) frame(d);
    EXPECT_EQ(st.dot_tip, text);
  }
  // With the legend beside the plot and room under it, such a label goes there, outside the data area.
  const gelu::plot::PlotState st =
      marker_beside_a_legend(f, "a sine wave", xs, ys, ImVec2(4, 5), IM_COL32(230, 120, 20, 255), text, 0.2f);
  ASSERT_EQ(st.legend_place, gelu::plot::LegendPlace::Right);
  const std::vector<gelu::plot::TextBox> labels = marker_labels(st);
  ASSERT_EQ(labels.size(), 1u) << "the marker's label, beside the legend";
  EXPECT_GE(labels[0].min.x, st.last.right) << "outside the data area";
  EXPECT_GE(labels[0].min.y, st.legend_max.y) << "under the legend";
}

// A marker's label that crosses curves on one line wherever it goes, with room clear of them for two lines
// near its dot, goes there on two lines, broken where the longer line is shortest (the Curves panel's "min
// −0.16997 at x = −0.75179" at 2× text crossed the probe line and three curves at x = 1); a label that fits
// beside its dot on one line keeps it.
TEST(PlotDots, ALabelTakesTwoLinesToStayOffTheCurves) {
  PlotFrames f(ImVec2(900, 700), 2.0f);
  ASSERT_TRUE(f.built);
  std::vector<double> xs, ys;
  for (int i = 0; i <= 40; ++i) {  // a zigzag over the right half of the plot, top to bottom
    xs.push_back(5 + i / 8.0);
    ys.push_back(i % 2 ? 9.8 : 0.2);
  }
  for (const char* text : {"min −0.16997 at x = −0.75179", "min"}) {
    SCOPED_TRACE(text);
    gelu::plot::PlotState st;
    st.x.range = {0, 10};
    st.y.range = {0, 10};
    float one_line = 0;
    for (int i = 0; i < 3; ++i)
      f.frame(kNoMouse, [&] {
        gelu::plot::Plot p("half", st, ImVec2(600, 360), "x", "y");
        p.line("zigzag", IM_COL32(30, 90, 200, 255), xs, ys, 0.14f);
        p.marker(2.5, 5, IM_COL32(200, 30, 30, 255), text, 0.2f);
        one_line = ImGui::CalcTextSize(text).x;
      });
    const std::vector<gelu::plot::TextBox> labels = marker_labels(st);
    ASSERT_EQ(labels.size(), 1u);
    const float zigzag = static_cast<float>(st.last.left + st.last.right) / 2;  // x = 5
    EXPECT_LT(labels[0].max.x, zigzag) << "clear of the zigzag";
    if (one_line < zigzag - static_cast<float>(st.last.left)) {
      EXPECT_EQ(labels[0].text, text) << "room on one line";
      continue;
    }
    EXPECT_EQ(labels[0].text, "min −0.16997\nat x = −0.75179") << "on two lines, the longer one shortest";
  }
}

// A marker whose x lies left or right of the view (the Precision panel's "exact GELU is 0 from x = −13.6
// down" in a view from −12) is not seen; its label stays at that edge of the plot and points out of it.
TEST(PlotDots, AMarkerOutsideTheViewIsPointedToFromItsEdge) {
  PlotFrames f(ImVec2(900, 600), 1.0f);
  ASSERT_TRUE(f.built);
  gelu::plot::PlotState st;
  st.x.range = {0, 10};
  st.y.range = {0, 10};
  for (int i = 0; i < 3; ++i)
    f.frame(kNoMouse, [&] {
      gelu::plot::Plot p("edges", st, ImVec2(-1, -1), "x", "y");
      p.marker(-3, 8, IM_COL32(200, 30, 30, 255), "zero from x = −3 down", 0.3f);
      p.marker(14, 2, IM_COL32(30, 30, 200, 255), "overflow from x = 14 up", 0.3f);
      p.marker(5, 5, IM_COL32(30, 150, 30, 255), "inside", 0.3f);
    });
  const std::vector<gelu::plot::TextBox> labels = marker_labels(st);
  ASSERT_EQ(labels.size(), 3u);
  std::map<std::string, gelu::plot::TextBox> by_text;
  for (const gelu::plot::TextBox& b : labels) by_text[b.text] = b;
  ASSERT_EQ(by_text.count("← zero from x = −3 down"), 1u) << labels[0].text;
  ASSERT_EQ(by_text.count("overflow from x = 14 up →"), 1u);
  ASSERT_EQ(by_text.count("inside"), 1u) << "a dot in the view: its label as given";
  const float em = ImGui::GetFontSize();
  const gelu::plot::TextBox& left = by_text["← zero from x = −3 down"];
  const gelu::plot::TextBox& right = by_text["overflow from x = 14 up →"];
  EXPECT_GE(left.min.x, st.last.left) << "inside the plot";
  EXPECT_LT(left.min.x, st.last.left + em) << "at its left edge";
  EXPECT_LE(right.max.x, st.last.right);
  EXPECT_GT(right.max.x, st.last.right - em) << "at its right edge";

  // Where that label would lie on the curves and the legend is beside the plot, it goes under the legend,
  // without the arrow (nothing to point along there).
  std::vector<double> xs, ys;
  for (int i = 0; i <= 60; ++i) {
    xs.push_back(i / 6.0);
    ys.push_back(i % 2 ? 9.5 : 0.5);  // a zigzag over the whole data area
  }
  const gelu::plot::PlotState beside =
      marker_beside_a_legend(f, "a zigzag over the whole plot", xs, ys, ImVec2(-3, 5),
                             IM_COL32(200, 30, 30, 255), "zero from x = −3 down", 0.3f);
  ASSERT_EQ(beside.legend_place, gelu::plot::LegendPlace::Right);
  const std::vector<gelu::plot::TextBox> moved = marker_labels(beside);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].text, "zero from x = −3 down");
  EXPECT_GE(moved[0].min.x, beside.last.right) << "outside the data area";
  EXPECT_GE(moved[0].min.y, beside.legend_max.y) << "under the legend";
}

// [SECTION] The matrix

std::string clean(std::string s) {
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

std::vector<Subject> subjects() {
  std::vector<Subject> v;
  for (const gelu::app::model::PanelKind& k : gelu::app::model::panel_kinds())
    v.push_back({k.id, "", 0, std::string("panel_") + k.id});
  std::vector<fs::path> files;
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(GELU_SOURCE_DIR) / "assets" / "lessons"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    const Lesson l = load_lesson(p.string());
    for (std::size_t i = 0; i < l.steps.size(); ++i)
      v.push_back({"", p.string(), static_cast<int>(i + 1),
                   "lesson_" + clean(p.stem().string()) + "_step_" + std::to_string(i + 1)});
  }
  return v;
}

void PrintTo(const Subject& s, std::ostream* os) {
  *os << s.name;
}

class LayoutMatrix : public ::testing::TestWithParam<Subject> {};

TEST_P(LayoutMatrix, ReadableAtEveryProjectorSizeAndScale) {
  for (const Config& c : kConfigs) check(GetParam(), c);
}

INSTANTIATE_TEST_SUITE_P(Every, LayoutMatrix, ::testing::ValuesIn(subjects()),
                         [](const ::testing::TestParamInfo<Subject>& i) { return i.param.name; });

}  // namespace

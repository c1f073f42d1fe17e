// Drawing only what changed (gui/kit/damage.hpp, gui/hosts/frame_draw.hpp), as the browser does:
//   - the tracker on hand-made frames: an unchanged frame damages nothing, a moved rectangle damages where it
//     was and where it is and little else, a texture upload, a new clear colour, a callback or a framebuffer
//     scale other than 1 damage everything; a command's scissor is the backend's rounding; merged rectangles
//     are disjoint and cover every damaged tile;
//   - the app itself, rendered headless the way the page renders it (at 1280×800, and at 1024×768 in
//     presentation mode at 2×): a framebuffer kept from frame to frame
//     and drawn with the tracker holds, after every frame of a user's mouse moves, hovers and clicks over the
//     Curves and Approximations panels, exactly the pixels of the same frame drawn whole; an idle frame draws
//     nothing, a frame where only the mouse moved over a plot draws under a fifth of the screen.
// The GL half runs headless (EGL) and fails without a context, it does not skip.
#include "gui/kit/damage.hpp"

#include <backends/imgui_impl_opengl3.h>
#include <epoxy/gl.h>
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gui/hosts/frame_draw.hpp"
#include "gui/hosts/offscreen.hpp"
#include "gui/kit/ui.hpp"
#include "gui/panels/panel.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/state_file.hpp"

using namespace gelu::app;
using gelu::app::ui::DamageTracker;
using gelu::app::ui::PixelRect;

namespace {

// [SECTION] The tracker on hand-made frames

/// An ImGui context with a built font atlas and no renderer: frames of rectangles drawn on the background.
class Frames {
 public:
  Frames(float w, float h, float scale) {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(w, h);
    io.DisplayFramebufferScale = ImVec2(scale, scale);
    unsigned char* px;
    int tw, th;
    io.Fonts->GetTexDataAsRGBA32(&px, &tw, &th);
  }
  ~Frames() { ImGui::DestroyContext(ctx_); }
  struct Box {
    ImVec2 a, b;
    ImU32 col;
  };
  ImDrawData* frame(const std::vector<Box>& boxes, bool callback = false) {
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    for (const Box& b : boxes) dl->AddRectFilled(b.a, b.b, b.col);
    if (callback) dl->AddCallback([](const ImDrawList*, const ImDrawCmd*) {}, nullptr);
    ImGui::Render();
    return ImGui::GetDrawData();
  }

 private:
  ImGuiContext* ctx_;
};

long area(const std::vector<PixelRect>& rs) {
  long a = 0;
  for (const PixelRect& r : rs) a += r.area();
  return a;
}
bool covers(const std::vector<PixelRect>& rs, int x, int y) {
  for (const PixelRect& r : rs)
    if (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1) return true;
  return false;
}
const PixelRect kWhole1280{0, 0, 1280, 800};

TEST(DamageTracker, AnUnchangedFrameDamagesNothingAndTheFirstEverything) {
  Frames f(1280, 800, 1);
  DamageTracker t;
  const std::vector<Frames::Box> boxes = {{{100, 100}, {300, 200}, IM_COL32(200, 0, 0, 255)},
                                          {{500, 400}, {520, 700}, IM_COL32(0, 0, 0, 90)}};
  EXPECT_EQ(t.update(f.frame(boxes), 0xffffffff), std::vector<PixelRect>{kWhole1280});
  EXPECT_TRUE(t.update(f.frame(boxes), 0xffffffff).empty());
  EXPECT_TRUE(t.update(f.frame(boxes), 0xffffffff).empty());
  t.reset();
  EXPECT_EQ(t.update(f.frame(boxes), 0xffffffff), std::vector<PixelRect>{kWhole1280});
}

TEST(DamageTracker, AMovedRectangleDamagesWhereItWasAndWhereItIs) {
  Frames f(1280, 800, 1);
  DamageTracker t;
  const Frames::Box still{{100, 100}, {300, 200}, IM_COL32(200, 0, 0, 255)};
  t.update(f.frame({still, {{600, 300}, {604, 500}, IM_COL32(0, 0, 0, 255)}}), 0xffffffff);
  const auto d = t.update(f.frame({still, {{640, 300}, {644, 500}, IM_COL32(0, 0, 0, 255)}}), 0xffffffff);
  ASSERT_FALSE(d.empty());
  for (int y = 300; y < 500; y += 7) {
    EXPECT_TRUE(covers(d, 600, y) && covers(d, 603, y)) << "the old line at y " << y;
    EXPECT_TRUE(covers(d, 640, y) && covers(d, 643, y)) << "the new line at y " << y;
  }
  EXPECT_FALSE(covers(d, 200, 150)) << "the rectangle that did not move";
  EXPECT_LT(area(d), 1280 * 800 / 20);
  // Only a colour changes: its tiles.
  const auto c = t.update(f.frame({{{100, 100}, {300, 200}, IM_COL32(0, 0, 200, 255)},
                                   {{640, 300}, {644, 500}, IM_COL32(0, 0, 0, 255)}}),
                          0xffffffff);
  EXPECT_TRUE(covers(c, 100, 100) && covers(c, 299, 199));
  EXPECT_FALSE(covers(c, 642, 400));
}

TEST(DamageTracker, UploadsClearColoursCallbacksAndOtherScalesDamageEverything) {
  Frames f(1280, 800, 1);
  DamageTracker t;
  const std::vector<Frames::Box> boxes = {{{100, 100}, {300, 200}, IM_COL32(200, 0, 0, 255)}};
  t.update(f.frame(boxes), 0xffffffff);
  ui::note_texture_upload();
  EXPECT_EQ(t.update(f.frame(boxes), 0xffffffff), std::vector<PixelRect>{kWhole1280});
  EXPECT_TRUE(t.update(f.frame(boxes), 0xffffffff).empty());
  EXPECT_EQ(t.update(f.frame(boxes), 0xff000000), std::vector<PixelRect>{kWhole1280}) << "the clear colour";
  EXPECT_EQ(t.update(f.frame(boxes, true), 0xff000000), std::vector<PixelRect>{kWhole1280}) << "a callback";
  EXPECT_EQ(t.update(f.frame(boxes), 0xff000000), std::vector<PixelRect>{kWhole1280})
      << "the frame after a callback (what it drew is not known)";
  EXPECT_TRUE(t.update(f.frame(boxes), 0xff000000).empty());

  Frames g(800, 500, 1.5f);  // ImGui's pixels are not the framebuffer's (a desktop HiDPI window)
  DamageTracker u;
  const PixelRect whole{0, 0, 1200, 750};
  EXPECT_EQ(u.update(g.frame(boxes), 0xffffffff), std::vector<PixelRect>{whole});
  EXPECT_EQ(u.update(g.frame(boxes), 0xffffffff), std::vector<PixelRect>{whole});
}

TEST(DamageTracker, ACommandsScissorIsTheBackendsRounding) {
  // x from (int) of the left edge, y counted from the bottom: (int)(h - bottom edge), heights truncated.
  EXPECT_EQ(ui::backend_scissor(ImVec4(10.5f, 20.25f, 100.75f, 60.5f), 800), (PixelRect{10, 21, 100, 61}));
  EXPECT_EQ(ui::backend_scissor(ImVec4(10.5f, 627.4f, 100.0f, 660.15f), 800), (PixelRect{10, 629, 99, 661}));
  EXPECT_EQ(ui::backend_scissor(ImVec4(0, 0, 1280, 800), 800), (PixelRect{0, 0, 1280, 800}));
  const PixelRect none = ui::backend_scissor(ImVec4(5, 5, 5, 9), 800);
  EXPECT_TRUE(none.x1 <= none.x0 || none.y1 <= none.y0);
}

TEST(MergeTiles, DisjointFewRectanglesCoveringEveryDamagedTile) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int cols = 1 + static_cast<int>(rng() % 40), rows = 1 + static_cast<int>(rng() % 25);
    std::vector<unsigned char> dmg(static_cast<std::size_t>(cols) * rows);
    const auto density = rng() % 30;
    for (auto& d : dmg) {
      d = rng() % 100 < density;
    }
    const int w = cols * 32 - static_cast<int>(rng() % 32), h = rows * 32 - static_cast<int>(rng() % 32);
    const auto rs = ui::merge_tiles(dmg, cols, rows, 32, w, h, 8);
    EXPECT_LE(rs.size(), 8u);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        if (dmg[static_cast<std::size_t>(r) * cols + c]) {
          ASSERT_TRUE(covers(rs, c * 32, r * 32)) << "trial " << trial << " tile " << c << "," << r;
        }
    for (std::size_t i = 0; i < rs.size(); ++i) {
      EXPECT_TRUE(rs[i].x0 >= 0 && rs[i].y0 >= 0 && rs[i].x1 <= w && rs[i].y1 <= h && rs[i].area() > 0);
      for (std::size_t j = i + 1; j < rs.size(); ++j)
        ASSERT_FALSE(rs[i].x0 < rs[j].x1 && rs[j].x0 < rs[i].x1 && rs[i].y0 < rs[j].y1 && rs[j].y0 < rs[i].y1)
            << "trial " << trial << ": rectangles " << i << " and " << j << " overlap";
    }
  }
}

// [SECTION] The app, drawn as the page draws it

/// An RGBA8 framebuffer of its own (the page's drawing buffer, kept between frames).
class Target {
 public:
  Target(int w, int h) : w_(w), h_(h) {
    glGenTextures(1, &tex_);
    glBindTexture(GL_TEXTURE_2D, tex_);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
    glGenFramebuffers(1, &fbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex_, 0);
  }
  ~Target() {
    glDeleteFramebuffers(1, &fbo_);
    glDeleteTextures(1, &tex_);
  }
  void bind() const { glBindFramebuffer(GL_FRAMEBUFFER, fbo_); }
  std::vector<unsigned char> pixels() const {
    bind();
    std::vector<unsigned char> p(static_cast<std::size_t>(w_) * h_ * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w_, h_, GL_RGBA, GL_UNSIGNED_BYTE, p.data());
    return p;
  }

 private:
  int w_, h_;
  GLuint tex_ = 0, fbo_ = 0;
};

struct PanelRun {
  std::string error;
  std::vector<long> drawn;                // pixels drawn by the tracked frame, frame by frame
  std::vector<std::string> mismatches;    // frames whose tracked pixels differ from the whole frame's
  std::vector<int> mouse_only_over_plot;  // frames where only the mouse moved, over the plot
};

/// A user's minute in one panel: idle frames, the mouse crossing the panel and its plot, hovers, clicks on
/// the controls at the left (seeded), idle again; each frame drawn tracked into one target and whole into
/// another, their pixels compared.
PanelRun use_panel(const std::string& panel, int w, int h, const std::string& presentation) {
  PanelRun run;
  static std::unique_ptr<Offscreen> screen = Offscreen::create({16, 16}, &run.error);
  if (!screen) return run;
  App app;
  ViewOptions o;
  o.panel = panel;
  if (!presentation.empty()) o.presentation = presentation;
  apply_view_options(app, o);
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  app.setup_fonts_and_style(1.0f);
  if (!ImGui_ImplOpenGL3_Init("#version 430 core")) {
    run.error = "the ImGui OpenGL3 renderer failed to initialize";
    ImGui::DestroyContext();
    return run;
  }
  {
    Target tracked(w, h), whole(w, h);
    DamageTracker tracker;
    std::mt19937 rng(11);
    const ImVec2 size = io.DisplaySize;
    for (int frame = 0; frame < 70; ++frame) {
      bool mouse_only = false;
      if (frame < 8) {
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
      } else if (frame < 40) {  // across the window, left to right, over the middle (the plot)
        io.MousePos = ImVec2(size.x * (0.35f + 0.018f * static_cast<float>(frame - 8)), size.y * 0.45f);
        mouse_only = frame > 9;
      } else if (frame < 60) {  // clicks on the controls at the left, one every other frame
        io.MousePos = ImVec2(size.x * (0.02f + 0.22f * static_cast<float>(rng() % 1000) / 1000),
                             size.y * (0.1f + 0.8f * static_cast<float>(rng() % 1000) / 1000));
        io.MouseDown[0] = frame % 2 == 0;
      } else {
        io.MouseDown[0] = false;
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
      }
      io.DeltaTime = 1.0f / 60.0f;
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();
      app.frame();
      ImGui::Render();
      bool over_plot = false;
      for (const ui::PlotRef& p : ui::frame_plots())
        if (p.state && io.MousePos.x > p.state->frame_min.x && io.MousePos.x < p.state->frame_max.x &&
            io.MousePos.y > p.state->frame_min.y && io.MousePos.y < p.state->frame_max.y)
          over_plot = true;
      tracked.bind();
      run.drawn.push_back(draw_frame(ImGui::GetDrawData(), w, h, &tracker));
      whole.bind();
      draw_frame(ImGui::GetDrawData(), w, h, nullptr);
      if (mouse_only && over_plot) run.mouse_only_over_plot.push_back(frame);
      const auto pa = tracked.pixels(), pb = whole.pixels();
      if (pa != pb) {
        long n = 0, first = -1, last = -1;
        for (std::size_t i = 0; i < pa.size(); i += 4)
          if (std::memcmp(&pa[i], &pb[i], 4) != 0) {
            ++n;
            if (first < 0) first = static_cast<long>(i / 4);
            last = static_cast<long>(i / 4);
          }
        run.mismatches.push_back(std::to_string(frame) + " (" + std::to_string(n) + " px, first at x " +
                                 std::to_string(first % w) + " y " + std::to_string(h - 1 - first / w) +
                                 ", last at x " + std::to_string(last % w) + " y " +
                                 std::to_string(h - 1 - last / w) + ")");
      }
    }
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
  return run;
}

class DrawnOnlyWhereChanged : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(DrawnOnlyWhereChanged, EveryFrameHasTheWholeFramesPixels) {
  const auto& [panel, presentation] = GetParam();
  const int w = presentation.empty() ? 1280 : 1024, h = presentation.empty() ? 800 : 768;
  const PanelRun run = use_panel(panel, w, h, presentation);
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.drawn.size(), 70u);
  std::string bad;
  for (const std::string& m : run.mismatches) bad += " " + m;
  EXPECT_TRUE(run.mismatches.empty())
      << panel << " (presentation " << presentation << "): frames whose tracked pixels differ:" << bad;
  EXPECT_EQ(run.drawn[0], static_cast<long>(w) * h) << "the first frame is whole";
  EXPECT_EQ(run.drawn[7], 0) << "an idle frame draws nothing";
  EXPECT_EQ(run.drawn[69], 0) << "an idle frame draws nothing";
  ASSERT_GE(run.mouse_only_over_plot.size(), 5u) << "the mouse crossed the plot";
  std::vector<long> over;
  for (int f : run.mouse_only_over_plot) over.push_back(run.drawn[static_cast<std::size_t>(f)]);
  std::sort(over.begin(), over.end());
  EXPECT_LT(over[over.size() / 2], static_cast<long>(w) * h / 5)
      << "the median frame where only the mouse moved over the plot";
}

INSTANTIATE_TEST_SUITE_P(Panels, DrawnOnlyWhereChanged,
                         ::testing::Combine(::testing::Values("curves", "approx"),
                                            ::testing::Values("", "2")),
                         [](const auto& i) {
                           const std::string& p = std::get<1>(i.param);
                           return std::get<0>(i.param) + (p.empty() ? "_window" : "_presentation" + p);
                         });

}  // namespace

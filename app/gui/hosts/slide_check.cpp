// The layout check of `gelulab lessons` (model::slide_check, lessons.hpp): every step of a lesson laid out
// headless, as `gelulab shot --lesson FILE --step N --presentation S --size WxH` lays it out (the same App,
// the same frames), at each projector size of kSlideSizes; what does not fit is App::slide_problems(). The
// same frames record the series each step's plots draw (plot::set_series_names), which its view.series and
// view.reveal must name (model::series_problems).
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gui/hosts/offscreen.hpp"
#include "gui/kit/gl.hpp"
#include "gui/kit/gl_capture.hpp"
#include "gui/shell/app.hpp"
#include "gui/shell/state_file.hpp"
#include "model/backends.hpp"
#include "model/claims.hpp"
#include "model/lessons.hpp"
#include "plot/plot.hpp"

namespace gelu::app {
namespace {

/// One step laid out as `gelulab shot` lays it out: the App on the step at the size's text scale, a fresh
/// ImGui context of the size with its fonts and renderer, and the frames shot renders before its picture
/// (ImGui sizes windows from the previous frame's layout). The context is left current for the caller, who
/// ends it with close().
struct SlideFrames {
  App app;
  bool ok = false;
  SlideFrames(const Lesson& lesson, std::size_t step, const SlideSize& size, std::string* error) {
    char scale[16];
    std::snprintf(scale, sizeof scale, "%g", static_cast<double>(size.scale));
    apply_view_options(app, ViewOptions{lesson.path, std::to_string(step + 1), std::nullopt, std::nullopt,
                                        std::string(scale)});  // throws for a step that does not apply
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(static_cast<float>(size.width), static_cast<float>(size.height));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    app.setup_fonts_and_style(1.0f);
    ok = ImGui_ImplOpenGL3_Init("#version 430 core");
    if (!ok) {
      *error = "the ImGui OpenGL3 renderer failed to initialize";
      return;
    }
    app.active().settle_for_shot();
    for (int f = 0; f < 7; ++f) {
      io.DeltaTime = 1.0f / 60.0f;
      io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();
      app.frame();
      ImGui::Render();
    }
  }
  SlideFrames(const SlideFrames&) = delete;
  SlideFrames& operator=(const SlideFrames&) = delete;
  ~SlideFrames() {
    if (ok) ImGui_ImplOpenGL3_Shutdown();
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
  }
};

std::vector<std::string> check_slides(const Lesson& lesson, bool layout, std::string* error) {
  std::vector<std::string> out;
  const auto names_series = [](const LessonStep& s) {
    return !s.view.series.empty() || !s.view.reveal.empty();
  };
  if (!layout && std::none_of(lesson.steps.begin(), lesson.steps.end(), names_series)) return out;
  const auto screen = Offscreen::create({1920, 1080}, error);
  if (!screen) return out;
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    const bool series = names_series(lesson.steps[i]);
    if (!layout && !series) continue;
    // What the step computes at run time is in its text before it is measured (as a shot waits for it).
    for (const std::string& key : computed_text_keys(lesson.steps[i].text))
      if (model::is_claim_key(key)) model::claim_text(key, true);
    std::set<std::string> drawn;  // the series the step's plots are asked to draw, at any size
    bool laid_out = false;
    for (const SlideSize& size : kSlideSizes) {
      plot::set_series_names(&drawn);
      std::unique_ptr<SlideFrames> slide;
      try {
        slide = std::make_unique<SlideFrames>(lesson, i, size, error);
      } catch (const std::exception& e) {
        plot::set_series_names(nullptr);
        out.push_back("steps[" + std::to_string(i) + "]: " + e.what());
        break;
      }
      plot::set_series_names(nullptr);
      if (!slide->ok) return out;
      laid_out = true;
      if (layout)
        for (const std::string& p : slide->app.slide_problems())
          out.push_back("steps[" + std::to_string(i) + "] at " + slide_size_name(size) + ": " + p);
      slide.reset();
      if (!layout) break;  // the series check needs one size
    }
    if (series && laid_out)
      for (std::string& p : series_problems(lesson.steps[i], i, {drawn.begin(), drawn.end()}))
        out.push_back(std::move(p));
  }
  gpu_release_current();
  return out;
}

// The handout's picture of one step: the same frames, the last one drawn and read back.
bool render_slide(const Lesson& lesson, std::size_t step, const SlideSize& size, const std::string& png_path,
                  std::string* text, std::string* error) {
  const auto screen = Offscreen::create({size.width, size.height}, error);
  if (!screen) return false;
  for (const std::string& key : computed_text_keys(lesson.steps[step].text))
    if (model::is_claim_key(key)) model::claim_text(key, true);
  std::unique_ptr<SlideFrames> slide;
  try {
    slide = std::make_unique<SlideFrames>(lesson, step, size, error);
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  bool ok = slide->ok;
  if (ok) {
    screen->bind();
    begin_frame_drawing(size.width, size.height);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glFinish();
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    ok = write_framebuffer_png(png_path, size.width, size.height, error);
    *text = slide->app.step_text();
  }
  slide.reset();
  gpu_release_current();
  return ok;
}

[[maybe_unused]] const bool g_installed = [] {
  set_slide_check(check_slides);
  set_slide_render(render_slide);
  return true;
}();

}  // namespace
}  // namespace gelu::app

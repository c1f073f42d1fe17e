// gelulab shot: renders one panel headless (EGL surfaceless on Mesa, the EGL device on NVIDIA) into a
// framebuffer object with ImGui's OpenGL3 backend and writes a PNG — the same frame the window shows.
#include <epoxy/gl.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

#include <cfloat>
#include <cstdio>
#include <fstream>

#include "app.hpp"
#include "cli.hpp"
#include "gl_capture.hpp"
#include "state_file.hpp"
#ifdef GELU_HAVE_GPU
#include "gelu/gpu/context.hpp"
#include "gpu_compare.hpp"
#endif

namespace gelu::app {
namespace {

using cli::Args;
using cli::UsageError;

std::pair<int, int> parse_shot_size(const std::optional<std::string>& s) {
  if (!s) return {1280, 800};
  int w = 0, h = 0;
  char x = 0, extra = 0;
  if (std::sscanf(s->c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || w < 320 || h < 240 ||
      w > 8192 || h > 8192)
    throw UsageError("--size: '" + *s + "' is not WxH with 320x240 <= WxH <= 8192x8192");
  return {w, h};
}

int run_shot(Args& args) {
  const auto panel = args.option("panel");
  const auto size = parse_shot_size(args.option("size"));
  const auto state = args.option("state");
  const auto out = args.option("out");
  const auto meta_path = args.option("meta");
  const auto scale_opt = args.option("scale");
  args.finish();
  if (!panel) throw UsageError("--panel is required (" + App::panel_ids() + ")");
  if (!out) throw UsageError("--out FILE.png is required");
  const double scale = scale_opt ? Args::to_double("scale", *scale_opt) : 1.0;
  if (!(scale >= 0.5 && scale <= 4)) throw UsageError("--scale must be in [0.5, 4]");

  App app;
  if (!app.select(*panel)) throw UsageError("--panel: unknown panel '" + *panel + "' (" + App::panel_ids() + ")");
  if (state) load_state_file(app, *state);

#ifndef GELU_HAVE_GPU
  std::fprintf(stderr, "gelulab shot: this build has no GPU backend (gelu::gpu, EGL), so it cannot render headless\n");
  return 2;
#else
  std::string error;
  auto ctx = gpu::Context::create_headless(&error);
  if (!ctx) {
    std::fprintf(stderr, "gelulab shot: cannot create a headless OpenGL context: %s\n", error.c_str());
    return 2;
  }
  const auto [w, h] = size;
  GLuint fbo = 0, rb = 0;
  glGenFramebuffers(1, &fbo);
  glGenRenderbuffers(1, &rb);
  glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    std::fprintf(stderr, "gelulab shot: cannot create a %dx%d framebuffer\n", w, h);
    return 2;
  }

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  app.setup_fonts_and_style(static_cast<float>(scale));
  if (!ImGui_ImplOpenGL3_Init("#version 430 core")) {
    std::fprintf(stderr, "gelulab shot: the ImGui OpenGL3 renderer failed to initialize\n");
    return 2;
  }
  app.active().settle_for_shot();
  // A few frames: ImGui sizes windows, tables and tabs from the previous frame's layout.
  for (int i = 0; i < 4; ++i) {
    io.DeltaTime = 1.0f / 60.0f;
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover readouts in a still picture
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    app.frame();
    ImGui::Render();
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, w, h);
    glClearColor(0.965f, 0.965f, 0.97f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }
  glFinish();
  int status = 0;
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  if (!write_framebuffer_png(*out, w, h, &error)) {
    std::fprintf(stderr, "gelulab shot: %s\n", error.c_str());
    status = 2;
  }
  GLenum gl_error = glGetError();
  if (gl_error != GL_NO_ERROR) {
    std::fprintf(stderr, "gelulab shot: GL error 0x%04x while rendering\n", gl_error);
    status = 2;
  }
  if (meta_path && status == 0) {
    json::Object m = app.active().meta();
    m["panel"] = app.active().id();
    m["width"] = w;
    m["height"] = h;
    m["renderer"] = ctx->info().renderer;
    m["formula_font"] = app.font_has_formula_glyphs();
    std::ofstream f(*meta_path);
    f << json::write(json::Value(std::move(m)), 2) << "\n";
    if (!f) {
      std::fprintf(stderr, "gelulab shot: cannot write %s\n", meta_path->c_str());
      status = 2;
    }
  }
  gpu_release();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &rb);
  glDeleteFramebuffers(1, &fbo);
  return status;
#endif
}

}  // namespace

GELU_CLI_COMMAND(shot, "shot", "render a panel headless (no display) into a PNG",
                 "usage: gelulab shot --panel curves|approx|dropout --out FILE.png [--size WxH] [--state FILE]\n\n"
                 "Renders the panel exactly as the window shows it, through EGL (no X), and writes a PNG.\n"
                 "  --size WxH     picture size in pixels (default 1280x800)\n"
                 "  --state FILE   JSON panel state, for example\n"
                 "                 curves:  {\"x\": [-4, 4], \"y\": [-1, 4], \"functions\": [\"gelu\", \"relu\"],\n"
                 "                           \"params\": {\"gelu_sigmoid.k\": 1.702}, \"probe\": 1.0,\n"
                 "                           \"derivatives\": [1], \"shade_dip\": true, \"shade_dead\": true}\n"
                 "                 approx:  {\"x\": [-6, 6], \"metric\": \"abs|rel|ulp\", \"log\": true,\n"
                 "                           \"dtype\": \"f64|f32\", \"tuned_form\": \"sigmoid|tanh\", \"tuned\": 1.8}\n"
                 "                 dropout: {\"x0\": 1.0, \"samples\": 2000, \"seed\": 1, \"mu\": 0.5, \"sigma\": 1}\n"
                 "  --scale S      UI scale (font size multiplier, default 1)\n"
                 "  --meta FILE    also write the plots' geometry and drawn values as JSON (for tests)\n",
                 run_shot);

}  // namespace gelu::app

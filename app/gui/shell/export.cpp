// Export (see export.hpp).
#include "gui/shell/export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gui/kit/gl.hpp"
#include "gui/kit/gl_capture.hpp"

namespace gelu::app {

namespace {
std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
// RFC 4180 quoting for labels (they may hold commas: "tanh form (c = 0.044715)").
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::size_t captured_rows(const plot::PlotState& s) {
  std::size_t n = 0;
  for (const plot::CapturedSeries& c : s.captured) n += std::min(c.x.size(), c.y.size());
  return n;
}

std::string series_csv(const std::string& plot_id, const plot::PlotState& s) {
  const bool cells = std::any_of(s.captured.begin(), s.captured.end(),
                                 [](const plot::CapturedSeries& c) { return !c.value.empty(); });
  std::string out = "# gelulab plot " + plot_id + ": visible x [" + num(s.last.x.range.min) + ", " +
                    num(s.last.x.range.max) + "], y [" + num(s.last.y.range.min) + ", " +
                    num(s.last.y.range.max) + "]\n" + (cells ? "series,x,y,value\n" : "series,x,y\n");
  for (const plot::CapturedSeries& c : s.captured) {
    const std::string label = quoted(c.label);
    for (std::size_t i = 0; i < std::min(c.x.size(), c.y.size()); ++i) {
      out += label;
      out += ',';
      out += num(c.x[i]);
      out += ',';
      out += num(c.y[i]);
      if (cells) {
        out += ',';
        if (i < c.value.size()) out += num(c.value[i]);
      }
      out += '\n';
    }
  }
  return out;
}

void plot_frame_rect(const plot::PlotState& s, float em, ImVec2 display, ImVec2* min, ImVec2* max) {
  if (s.frame_max.x > s.frame_min.x && s.frame_max.y > s.frame_min.y) {  // the frame as last drawn
    min->x = std::clamp(s.frame_min.x, 0.0f, display.x);
    min->y = std::clamp(s.frame_min.y, 0.0f, display.y);
    max->x = std::clamp(s.frame_max.x, 0.0f, display.x);
    max->y = std::clamp(s.frame_max.y, 0.0f, display.y);
    return;
  }
  const auto f = [](double v) { return static_cast<float>(v); };
  min->x = std::clamp(f(s.last.left) - 4.6f * em, 0.0f, display.x);
  min->y = std::clamp(f(s.last.top) - 0.6f * em, 0.0f, display.y);
  max->x = std::clamp(f(s.last.right) + 0.8f * em, 0.0f, display.x);
  max->y = std::clamp(f(s.last.bottom) + 2.9f * em, 0.0f, display.y);
}

bool write_framebuffer_region_png(const std::string& path, int fb_h, ImVec2 min, ImVec2 max,
                                  std::string* error) {
  const int x0 = static_cast<int>(std::floor(min.x)), y0 = static_cast<int>(std::floor(min.y));
  const int w = static_cast<int>(std::ceil(max.x)) - x0, h = static_cast<int>(std::ceil(max.y)) - y0;
  if (w <= 0 || h <= 0 || y0 < 0 || y0 + h > fb_h) {
    *error = "the plot is not on screen";
    return false;
  }
  const auto row = static_cast<std::size_t>(w) * 4;
  std::vector<unsigned char> px(row * static_cast<std::size_t>(h)), flipped(px.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x0, fb_h - y0 - h, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());  // GL rows are bottom-up
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    *error = "glReadPixels failed (GL error " + std::to_string(e) + ")";
    return false;
  }
  for (int y = 0; y < h; ++y)
    std::copy_n(&px[static_cast<std::size_t>(h - 1 - y) * row], row,
                &flipped[static_cast<std::size_t>(y) * row]);
  for (std::size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
  return save_rgba_png(path, w, h, flipped.data(), error);
}

}  // namespace gelu::app

// Decision heatmaps as GL textures (see ffn_heatmap.hpp).
#include "gui/kit/ffn_heatmap.hpp"

#include <algorithm>
#include <cmath>

#include "gui/kit/damage.hpp"
#include "gui/kit/gl.hpp"
#include "plot/plot.hpp"

namespace gelu::app {

ImU32 class_color(int c) {
  // Class 0 blue, class 1 orange (the palette's first two), then the rest of the palette.
  return plot::palette(c);
}

ImU32 heat_color(int c, double q) {
  // At most 50% of the class colour: the data points on top (full colour) stay readable.
  const double t = 0.5 * std::clamp(q, 0.0, 1.0);
  const ImU32 k = class_color(c);
  auto mix = [&](int shift) {
    const double v = static_cast<double>((k >> shift) & 0xFF);
    return static_cast<ImU32>(std::lround(255.0 * (1 - t) + v * t)) << shift;
  };
  return mix(IM_COL32_R_SHIFT) | mix(IM_COL32_G_SHIFT) | mix(IM_COL32_B_SHIFT) | IM_COL32_A_MASK;
}

std::vector<std::uint32_t> heat_texels(const ffn::GridOutput& g, int classes) {
  std::vector<std::uint32_t> t(g.values.size());
  for (std::size_t k = 0; k < g.values.size(); ++k) {
    const double v = g.values[k];
    if (classes <= 2) {  // P(class 1)
      t[k] = heat_color(v >= 0.5 ? 1 : 0, std::fabs(2 * v - 1));
    } else {  // argmax class, confidence rescaled so that chance (1/K) is white
      const double conf = k < g.confidence.size() ? g.confidence[k] : 1.0;
      const double chance = 1.0 / classes;
      t[k] = heat_color(static_cast<int>(v), (conf - chance) / (1 - chance));
    }
  }
  return t;
}

void HeatmapTexture::upload(const ffn::GridOutput& g, int classes) {
  if (g.nx < 2 || g.ny < 2 ||
      g.values.size() != static_cast<std::size_t>(g.nx) * static_cast<std::size_t>(g.ny))
    return;
  const std::vector<std::uint32_t> texels = heat_texels(g, classes);
  GLint prev = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev);
  if (tex_ == 0) {
    GLuint t = 0;
    glGenTextures(1, &t);
    tex_ = t;
  }
  glBindTexture(GL_TEXTURE_2D, tex_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  if (w_ != g.nx || h_ != g.ny) {
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    // ImU32 is little-endian RGBA in memory, which is GL_RGBA/GL_UNSIGNED_BYTE.
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, g.nx, g.ny, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
    w_ = g.nx;
    h_ = g.ny;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g.nx, g.ny, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
  }
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(prev));
  ui::note_texture_upload();  // the browser's next frame is drawn whole (gui/kit/damage.hpp)
  for (int k = 0; k < 2; ++k) {
    lo_[k] = g.lo[k];
    hi_[k] = g.hi[k];
  }
}

void HeatmapTexture::draw(plot::Plot& p) const {
  if (!tex_) return;
  // Texel centres on the grid points: the grid's corners are half a texel inside the texture's edges.
  // Row 0 (lowest y) is at v = 0.
  const float du = 0.5f / static_cast<float>(w_), dv = 0.5f / static_cast<float>(h_);
  const auto id = reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(tex_));
  p.image(id, lo_[0], lo_[1], hi_[0], hi_[1], ImVec2(du, dv), ImVec2(1 - du, 1 - dv));
}

}  // namespace gelu::app

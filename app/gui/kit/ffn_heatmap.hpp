// Decision heatmaps as GL textures: one texel per grid point of a GridOutput, drawn with one AddImage and
// bilinear filtering (not one rectangle per cell). Colours: the class colour of the prediction, faded
// towards white as the confidence drops to chance.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <vector>

#include "gelu/ffn/train.hpp"
#include "plot/plot.hpp"

namespace gelu::app {

/// Colour of class c (0..7), the same in heatmaps, data points and legends.
ImU32 class_color(int c);
/// The heatmap's colour for class c at confidence q in [0, 1] (q = 0: white, q = 1: a light class tint).
ImU32 heat_color(int c, double q);
/// RGBA texels (row 0 = the grid's lowest y) of a grid: 2-class P(class 1) or multi-class argmax.
std::vector<std::uint32_t> heat_texels(const ffn::GridOutput& g, int classes);

class HeatmapTexture {
 public:
  HeatmapTexture() = default;
  /// The GL texture is not deleted here: the panel can outlive the GL context (it dies with the context).
  ~HeatmapTexture() = default;
  HeatmapTexture(const HeatmapTexture&) = delete;
  HeatmapTexture& operator=(const HeatmapTexture&) = delete;

  /// Uploads a grid (creates or resizes the texture; the current GL context must be the drawing one).
  void upload(const ffn::GridOutput& g, int classes);
  bool ready() const { return tex_ != 0; }
  /// Draws the texture into a plot with texel centres on the grid's points (bilinear in between).
  void draw(plot::Plot& p) const;

 private:
  unsigned tex_ = 0;
  int w_ = 0, h_ = 0;
  double lo_[2] = {0, 0}, hi_[2] = {1, 1};
};

}  // namespace gelu::app

// What changed on screen between two frames, from their ImGui draw data alone (no GL): the browser draws
// only those parts again. In Chromium's software WebGL (SwiftShader) a whole Curves frame took ~30 ms on a
// 2-core machine, nearly all of it the GPU process drawing every pixel and triangle again, where moving the
// mouse over a plot changes a crosshair and a readout (docs/performance.md). The web build keeps its drawing
// buffer between frames and draws each frame's triangles clipped to the damaged rectangles only, after
// clearing them; a frame that changed nothing draws nothing.
//
// How. The framebuffer is cut into tiles of 32×32 pixels. Every triangle the frame draws is hashed (its
// three vertices' position, texture coordinates and colour, its command's scissor and texture) into each tile
// its bounding box, a pixel wider and cut to the scissor, touches, in drawing order. A tile whose hash
// differs from the last frame's is damaged: some triangle over it moved, changed, appeared or went. A pixel
// outside every damaged tile is covered by the same triangles in the same order over the same clear colour
// as before, so it keeps its value. The damaged tiles are merged into a few disjoint rectangles; over half
// the screen, the whole screen. Only where ImGui's pixels are the framebuffer's (a framebuffer scale of 1, as
// in the browser, whose GLFW window is the canvas in device pixels): there a command's scissor, the OpenGL3
// backend's rounding of its clip rectangle, is a rectangle of whole pixels that can be cut to a damaged one
// exactly (frame_draw.cpp). Any other scale draws every frame whole.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <vector>

namespace gelu::app::ui {

/// A rectangle of framebuffer pixels [x0, x1) × [y0, y1), y down from the top (ImGui's orientation).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int area() const { return (x1 - x0) * (y1 - y0); }
  bool operator==(const PixelRect&) const = default;
};

/// Tells the tracker that a texture's pixels changed (an upload): every frame after it is redrawn whole.
void note_texture_upload();

class DamageTracker {
 public:
  static constexpr int kTile = 32;     // tile side in pixels
  static constexpr int kMaxRects = 8;  // damaged tiles merged into at most this many rectangles
  /// The rectangles of this frame that differ from the last frame given to update(): empty when nothing
  /// changed, the whole framebuffer on the first frame, after reset(), a new size, scale or clear colour, or
  /// a texture upload. Disjoint, inside the framebuffer.
  std::vector<PixelRect> update(const ImDrawData* data, ImU32 clear_colour);
  /// Forgets the last frame (the next update() damages everything): after the drawing buffer was lost.
  void reset() { hashes_.clear(); }

 private:
  /// next_ = this frame's tile hashes; false where a command is a callback (drawing the tracker cannot see).
  bool hash_tiles(const ImDrawData* data, int w, int h, int cols, int rows);
  std::vector<std::uint64_t> hashes_, next_;
  std::uint64_t key_ = 0, textures_ = 0;
};

/// A command's scissor as ImGui's OpenGL3 backend sets it for a w×h framebuffer, top-down: (int) of the clip
/// rectangle's corner and of its width and height, the height counted from the bottom edge (GL's rows).
/// Empty (x1 <= x0 or y1 <= y0) where the backend skips the command.
PixelRect backend_scissor(const ImVec4& clip, int h);

/// Merges damaged tiles (flags, cols×rows, row by row) into at most `max_rects` disjoint rectangles of tiles
/// covering all of them, as pixel rectangles clamped to width×height. Exposed for tests.
std::vector<PixelRect> merge_tiles(const std::vector<unsigned char>& damaged, int cols, int rows, int tile,
                                   int width, int height, int max_rects);

}  // namespace gelu::app::ui

// Drawing a frame's ImGui draw data into the current framebuffer: whole, or only what changed (the browser).
#pragma once

#include <imgui.h>

#include "gui/kit/damage.hpp"

namespace gelu::app {

/// Draws the frame into the fw×fh framebuffer. Without a tracker, or where it damages everything: cleared to
/// the style's window background (begin_frame_drawing) and drawn whole. With a tracker, the framebuffer must
/// still hold the frame the tracker saw last (WebGL's preserveDrawingBuffer): only the damaged rectangles are
/// cleared and drawn again, every command cut to each of them; a frame that changed nothing draws nothing.
/// Returns the framebuffer pixels drawn.
long draw_frame(ImDrawData* data, int fw, int fh, ui::DamageTracker* tracker);

}  // namespace gelu::app

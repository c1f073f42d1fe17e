// The page around the app in the web build: the URL's fragment is a link to the view (model/link.hpp), read
// when the page opens and whenever the user edits it, and kept current as the view changes; File > Copy link
// puts the page's address on the clipboard.
#pragma once

namespace gelu::app {
class App;
}

namespace gelu::app::web {

/// Opens the fragment's view (a malformed or unknown one: a one-line message, and the defaults).
void page_start(App& app);
/// Once a frame: an edited fragment is opened, the fragment follows the view, Copy link is answered.
void page_frame(App& app);
/// After the frame's draw calls: the page keeps the time of its first frame since navigation
/// (window.gelulab.first_frame_ms) and the last frames' times in ms: frame_ms the app's whole frame (its GL
/// calls and their waits included), ui_ms the part that lays out the UI (ImGui's NewFrame to Render),
/// drawn_px the framebuffer pixels the frame drew again (0: nothing changed; gui/kit/damage.hpp).
void page_frame_done(double work_ms, double ui_ms, double drawn_px);
/// Whether the page asks for whole frames (window.gelulab.whole_frames) instead of only what changed.
bool whole_frames();

}  // namespace gelu::app::web

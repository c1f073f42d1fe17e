#include "gui/hosts/frame_draw.hpp"

#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <vector>

#include "gui/kit/gl.hpp"

namespace gelu::app {

long draw_frame(ImDrawData* data, int fw, int fh, ui::DamageTracker* tracker) {
  const long whole = static_cast<long>(fw) * fh;
  if (!tracker || !data) {
    begin_frame_drawing(fw, fh);
    ImGui_ImplOpenGL3_RenderDrawData(data);
    return whole;
  }
  ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  bg.w = 1.0f;
  const std::vector<ui::PixelRect> rects = tracker->update(data, ImGui::ColorConvertFloat4ToU32(bg));
  if (rects.empty()) return 0;
  // The framebuffer as the backend sees it (its viewport, and the height it flips scissors by), which can be
  // a pixel short of fw×fh where the display size times the scale is not whole.
  const ImVec2 s = data->FramebufferScale;
  const int bw = static_cast<int>(data->DisplaySize.x * s.x),
            bh = static_cast<int>(data->DisplaySize.y * s.y);
  if (rects.size() == 1 && rects[0] == ui::PixelRect{0, 0, bw, bh}) {
    begin_frame_drawing(fw, fh);
    ImGui_ImplOpenGL3_RenderDrawData(data);
    return whole;
  }
  long drawn = 0;
  glViewport(0, 0, fw, fh);
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glEnable(GL_SCISSOR_TEST);
  for (const ui::PixelRect& r : rects) {
    glScissor(r.x0, bh - r.y1, r.x1 - r.x0, r.y1 - r.y0);  // GL counts rows from the bottom
    glClear(GL_COLOR_BUFFER_BIT);
    drawn += r.area();
  }
  glDisable(GL_SCISSOR_TEST);
  // Every command once per rectangle, its clip rectangle replaced by its scissor (as the backend rounds it)
  // cut to the rectangle: whole pixels, which the backend's rounding keeps as they are (the tracker damages
  // only where ImGui's pixels are the framebuffer's).
  std::vector<ImVector<ImDrawCmd>> kept(static_cast<std::size_t>(data->CmdListsCount));
  for (int n = 0; n < data->CmdListsCount; ++n) {
    ImDrawList* list = data->CmdLists[n];
    ImVector<ImDrawCmd> cut;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      const ui::PixelRect sc = ui::backend_scissor(cmd.ClipRect, bh);
      for (const ui::PixelRect& r : rects) {
        const int x0 = std::max(sc.x0, r.x0), y0 = std::max(sc.y0, r.y0);
        const int x1 = std::min(sc.x1, r.x1), y1 = std::min(sc.y1, r.y1);
        if (x1 <= x0 || y1 <= y0) continue;
        ImDrawCmd k = cmd;
        k.ClipRect = ImVec4(static_cast<float>(x0), static_cast<float>(y0), static_cast<float>(x1),
                            static_cast<float>(y1));
        cut.push_back(k);
      }
    }
    kept[static_cast<std::size_t>(n)].swap(list->CmdBuffer);
    list->CmdBuffer.swap(cut);
  }
  ImGui_ImplOpenGL3_RenderDrawData(data);
  for (int n = 0; n < data->CmdListsCount; ++n)
    data->CmdLists[n]->CmdBuffer.swap(kept[static_cast<std::size_t>(n)]);
  return drawn;
}

}  // namespace gelu::app

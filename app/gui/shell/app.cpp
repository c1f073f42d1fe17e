// The desktop app's frame: fonts, theme, menu bar and panel tabs (see app.hpp).
//
// Index of this file:
//   [SECTION] Lessons
//   [SECTION] Messages, sessions, export
//   [SECTION] Frame
#include "gui/shell/app.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "gelu/activation.hpp"
#include "gelu/numio.hpp"
#include "gui/kit/ui.hpp"
#include "gui/shell/export.hpp"
#include "gui/shell/session.hpp"
#include "model/claims.hpp"
#include "model/limits.hpp"
#include "model/ui_font.hpp"

namespace gelu::app {

namespace {
// The font, its file and the characters the atlas holds: model/ui_font.hpp (the lesson check uses the same).
static_assert(kUiMaxCodePoint == (sizeof(ImWchar) == 2 ? 0xFFFFu : 0x10FFFFu),
              "model/ui_font.hpp's kUiMaxCodePoint must match this ImGui's ImWchar");

void apply_theme(float scale, bool projector, Theme theme) {
  ImGuiStyle style;
  ImGui::StyleColorsLight(&style);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.965f, 0.965f, 0.97f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_Text] = ImVec4(0.08f, 0.08f, 0.10f, 1.0f);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.90f, 0.91f, 0.93f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(1, 1, 1, 1);
  c[ImGuiCol_Border] = ImVec4(0, 0, 0, 0.18f);
  c[ImGuiCol_Tab] = ImVec4(0.84f, 0.86f, 0.90f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(0.26f, 0.47f, 0.78f, 1.0f);
  c[ImGuiCol_TabHovered] = ImVec4(0.40f, 0.60f, 0.88f, 1.0f);
  style.WindowRounding = 0;
  style.ChildRounding = 4;
  style.FrameRounding = 4;
  style.GrabRounding = 4;
  style.TabRounding = 5;
  style.FramePadding = ImVec2(7, 4);
  style.ItemSpacing = ImVec2(9, 7);
  style.WindowPadding = ImVec2(10, 8);
  style.GrabMinSize = 12;
  style.AntiAliasedLines = true;
  style.AntiAliasedLinesUseTex = true;
  style.AntiAliasedFill = true;
  if (projector) {
    apply_projector_colors(style);
  } else {
    apply_theme_colors(style, theme);
  }
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}
}  // namespace

App::App() : panels_(make_panels()) {}
App::~App() = default;

void App::replace_panels(std::vector<std::unique_ptr<Panel>> panels, std::string_view active) {
  panels_ = std::move(panels);
  active_ = 0;
  if (!select(active)) pending_select_ = 0;
}

void App::setup_fonts_and_style(float content_scale) {
  scale_ = content_scale > 0 ? content_scale : 1.0f;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontGlyphRangesBuilder b;
  b.AddRanges(io.Fonts->GetGlyphRangesDefault());
  static const std::string base = ui_glyph_text();  // the UI's symbols, the registry's and the zoo's texts
  b.AddText(base.c_str());
  b.AddText(lesson_glyphs_.c_str());  // every lesson opened so far
  glyph_ranges_.clear();
  b.BuildRanges(&glyph_ranges_);
  // Presentation mode rasterizes the glyphs at the larger size (crisp), rather than scaling a bitmap.
  const float total = scale_ * (presentation_.on ? presentation_.font_scale() : ui_scale_);
  const float px = kBaseFontPx * total;
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 2;
  cfg.PixelSnapH = false;
  const char* kFontRegular = ui_font_regular().c_str();
  const char* kFontBold = ui_font_bold().c_str();
  formula_glyphs_ok_ = std::filesystem::exists(kFontRegular);
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  ImFont* chrome = nullptr;
  const float chrome_px =
      presentation_.on ? kBaseFontPx * scale_ * std::min(presentation_.font_scale(), 1.5f) : px;
  if (formula_glyphs_ok_) {
    regular = io.Fonts->AddFontFromFileTTF(kFontRegular, px, &cfg, glyph_ranges_.Data);
    if (std::filesystem::exists(kFontBold))
      bold = io.Fonts->AddFontFromFileTTF(kFontBold, px * 1.12f, &cfg, glyph_ranges_.Data);
    if (chrome_px < px - 0.5f)
      chrome = io.Fonts->AddFontFromFileTTF(kFontRegular, chrome_px, &cfg, glyph_ranges_.Data);
  }
  if (!regular) {
    // Without DejaVu the UI still works in ImGui's built-in font (formula symbols show as '?').
    ImFontConfig d;
    d.SizePixels = 13.0f * total;
    regular = io.Fonts->AddFontDefault(&d);
    formula_glyphs_ok_ = false;
  }
  io.FontDefault = regular;
  ui::fonts().regular = regular;
  ui::fonts().bold = bold ? bold : regular;
  ui::fonts().chrome = chrome ? chrome : regular;
  io.Fonts->Build();
  apply_theme(total, presentation_.on, theme_);
  plot::set_line_scale(presentation_.on ? projector_line_scale(presentation_.scale) : 1.0f);
}

void App::set_ui_scale(float s) {
  s = std::clamp(s, kUiScales[0], kUiScales[std::size(kUiScales) - 1]);
  if (s != ui_scale_) fonts_dirty_ = true;
  ui_scale_ = s;
}

void App::set_theme(Theme t) {
  if (t != theme_) fonts_dirty_ = true;  // the style is rebuilt with the fonts
  theme_ = t;
}

bool App::take_fonts_dirty() {
  const bool r = fonts_dirty_;
  fonts_dirty_ = false;
  return r;
}

void App::set_presentation(const Presentation& p) {
  Presentation q = p;
  q.scale = std::clamp(q.scale, Presentation::kMinScale, Presentation::kMaxScale);
  if (q.on != presentation_.on || q.scale != presentation_.scale) fonts_dirty_ = true;
  if (q.on != presentation_.on) ui::set_show_controls(!q.on);  // presenting: plots first, controls on F6
  presentation_ = q;
}

bool App::take_fullscreen_request() {
  const bool r = fullscreen_request_;
  fullscreen_request_ = false;
  return r;
}

bool App::select(std::string_view id) {
  for (std::size_t i = 0; i < panels_.size(); ++i)
    if (id == panels_[i]->id()) {
      active_ = i;
      pending_select_ = static_cast<int>(i);
      return true;
    }
  return false;
}

Panel* App::find(std::string_view id) {
  for (auto& p : panels_)
    if (id == p->id()) return p.get();
  return nullptr;
}

bool App::animating() const {
  return panels_[active_]->animating() || handout_.running();
}

bool App::take_png_request() {
  const bool r = png_request_;
  png_request_ = false;
  return r;
}

std::string App::png_path() const {
  return "gelulab-" + std::string(panels_[active_]->id()) + "-" + std::to_string(png_counter_) + ".png";
}

void App::menu_bar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ui::marked("menu:file", ImGui::BeginMenu("File"))) {
    if (ImGui::MenuItem("Save PNG of the window", "F12")) png_request_ = true;
    if (ImGui::MenuItem("Save PNG of the plot", "Shift+F12")) plot_png_wanted_ = true;
    if (ImGui::MenuItem("Save CSV of the plot's visible series", "Ctrl+E")) request_csv();
    ImGui::Separator();
    if (ImGui::MenuItem("Save session as…", "Ctrl+Shift+S")) open_save_dialog_ = true;
#ifdef __EMSCRIPTEN__  // the page's files are in its memory: the user picks one from their own disk
    if (ui::marked("menu:open_file",
                   ImGui::MenuItem("Open a lesson or session from this computer…", "Ctrl+O")))
      open_file_request_ = true;
    ImGui::Separator();
#else
    if (ImGui::MenuItem("Restore session…", "Ctrl+O")) open_restore_dialog_ = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Open lesson…")) open_lesson_dialog_ = true;
#endif
    if (ImGui::MenuItem("Save view as lesson step…")) save_step_dialog_ = true;
#ifndef __EMSCRIPTEN__  // the handout runs `gelulab lessons --handout` as a child process
    // The same code as `gelulab lessons --handout` (it runs that command): every step's slide, text, notes.
    if (ui::marked("menu:export_handout",
                   ImGui::MenuItem("Export lesson handout…", nullptr, false, player_.lesson() != nullptr)))
      handout_dialog_ = true;
#endif
#ifdef __EMSCRIPTEN__
    ImGui::Separator();
    if (ui::marked("menu:copy_link", ImGui::MenuItem("Copy link", nullptr, false)))
      copy_link_request_ = true;  // the view as a URL fragment
#endif
#ifndef __EMSCRIPTEN__  // a page ends with its tab
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
#endif
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    for (std::size_t i = 0; i < panels_.size(); ++i) {
      const std::string shortcut = "Ctrl+" + std::to_string(i + 1);
      if (ImGui::MenuItem(panels_[i]->title(), shortcut.c_str(), active_ == i)) select(panels_[i]->id());
    }
    ImGui::Separator();
    Presentation p = presentation_;
    if (ImGui::MenuItem("Presentation mode", "F5", p.on)) p.on = !p.on;
    if (ImGui::BeginMenu("Presentation text size")) {
      for (float sc : {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f}) {
        char label[16];
        std::snprintf(label, sizeof label, "%g×", static_cast<double>(sc));
        if (ImGui::MenuItem(label, nullptr, p.scale == sc)) {
          p.scale = sc;
          p.on = true;
        }
      }
      ImGui::EndMenu();
    }
    set_presentation(p);
    // Everyday comfort, outside presentation mode (which has its own text size and the projector theme).
    if (ImGui::BeginMenu("UI scale", !presentation_.on)) {
      for (float sc : kUiScales) {
        char label[16];
        std::snprintf(label, sizeof label, "%g×", static_cast<double>(sc));
        if (ImGui::MenuItem(label, nullptr, ui_scale_ == sc)) set_ui_scale(sc);
      }
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Theme", !presentation_.on)) {
      for (int t = 0; t < 3; ++t)
        if (ImGui::MenuItem(kThemeTitles[t], nullptr, static_cast<int>(theme_) == t))
          set_theme(static_cast<Theme>(t));
      ImGui::EndMenu();
    }
    if (presentation_.on && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("Presentation mode uses its own text size and the projector theme (F5 leaves it)");
    if (ImGui::MenuItem("Panel controls", "F6", ui::show_controls()))
      ui::set_show_controls(!ui::show_controls());
    if (ImGui::MenuItem("Fullscreen", "F11", geometry_.fullscreen)) fullscreen_request_ = true;
    ImGui::EndMenu();
  }
  lessons_menu();
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keyboard shortcuts", "F1")) shortcuts_open_ = true;
    ImGui::Separator();
    ImGui::TextUnformatted("Plots: drag to pan (over an axis: that axis only)");
    ImGui::TextUnformatted("Wheel: zoom about the cursor (over an axis: that axis only)");
    ImGui::TextUnformatted("Double-click: fit · Click a legend entry: show/hide it");
    ImGui::TextUnformatted("Drag a legend: move it · Right-click a plot: legend on/off");
    ImGui::TextUnformatted("Drag the triangle-topped probe line to move the probe");
    ImGui::Separator();
    ImGui::TextUnformatted("The same pictures without a window: gelulab shot --help");
    ImGui::EndMenu();
  }
  if (!status_.empty()) {
    ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(status_.c_str()).x -
                    2 * ImGui::GetFontSize());
    ImGui::TextDisabled("%s", status_.c_str());
  }
  ImGui::EndMenuBar();
}

void App::lessons_menu() {
  if (!ImGui::BeginMenu("Lessons")) {
    lesson_files_.clear();  // re-scanned each time the menu opens
    return;
  }
  if (lesson_files_.empty()) {
    lesson_files_ = find_lessons();
    // Each lesson by its title (its file name beside it): only the "title" is read here; opening one checks
    // it.
    lesson_titles_.clear();
    for (const std::string& f : lesson_files_) {
      std::string title;
      try {
        const json::Value v = json::parse(read_file(f, kMaxJsonFileBytes));
        if (v.is_object() && v.as_object().count("title") && v.as_object().at("title").is_string())
          title = v.as_object().at("title").as_string();
      } catch (const std::exception&) {
        title.clear();  // shown by its file name; opening it says what is wrong
      }
      lesson_titles_.push_back(printable(title, kLessonTitleMax));
    }
  }
  if (lesson_files_.empty()) {
    const LessonsFolder folder = lessons_folder();
    ImGui::TextDisabled("%s", folder.problem.empty() ? ("no lessons in " + folder.path).c_str()
                                                     : printable(folder.problem, 300).c_str());
  }
  for (std::size_t i = 0; i < lesson_files_.size(); ++i) {
    const std::string& f = lesson_files_[i];
    const std::string name = std::filesystem::path(f).stem().string();
    const std::string& title = i < lesson_titles_.size() ? lesson_titles_[i] : name;
    const bool current = player_.lesson() && player_.lesson()->path == f;
    if (ImGui::MenuItem((title.empty() ? name : title).c_str(), name.c_str(), current)) {
      try {
        open_lesson(load_lesson(f), 0);
      } catch (const LessonError& e) {
        show_message(e.what(), true);
      }
    }
  }
  if (player_.lesson()) {
    ImGui::Separator();
    if (ImGui::MenuItem("Leave the lesson", "Esc")) close_lesson();
  }
  ImGui::EndMenu();
}

// [SECTION] Lessons

void App::open_lesson(Lesson lesson, int step, bool apply_state) {
  // Its characters join the atlas (rebuilt before the next frame when one is new).
  std::string text = lesson.title;
  for (const LessonStep& s : lesson.steps) {
    text += s.title + s.text + s.notes;
    for (const Annotation& a : s.view.annotations) text += a.text;
    if (s.view.question) {
      text += s.view.question->prompt;
      for (const Question::Choice& c : s.view.question->choices) text += c.text;
    }
  }
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    const char32_t c = next_code_point(text, i);
    if (c > 0x7F && c <= kUiMaxCodePoint && lesson_code_points_.insert(c).second) {
      lesson_glyphs_.append(text, at, i - at);
      fonts_dirty_ = true;
    }
  }
  player_.open(std::move(lesson), step, apply_state);
  bar_collapsed_ = false;
}

void App::apply_pending() {
  const LessonStep* pending = player_.take_pending();
  if (!pending) return;
  const LessonStep& s = *pending;
  const std::string& path = player_.lesson()->path;
  std::unique_ptr<Panel> fresh = make_panel(s.panel);
  if (!fresh) {
    show_message(path + ": step " + std::to_string(player_.step() + 1) + ": no panel '" + s.panel + "'",
                 true);
    return;
  }
  try {
    fresh->set_state(s.state);
  } catch (const json::JsonError& e) {
    show_message(path + ": steps[" + std::to_string(player_.step()) + "].state: " + e.what(), true);
    return;
  }
  if (csv_stage_ == 2) csv_stage_ = 1;  // its plot is replaced: pick it again in the new panel
  for (auto& p : panels_)
    if (s.panel == p->id()) p = std::move(fresh);
  select(s.panel);
}

std::string App::step_text() const {
  const LessonStep* s = player_.current();
  if (!s) return {};
  const Panel& p = *panels_[active_];
  return player_.text(
      [&](std::string_view key) { return s->panel == p.id() ? p.computed_text(key) : std::string(); });
}

namespace {
constexpr const char* kLessonButtonsWide[3] = {"◀ Back", "Next ▶", "Leave"};
constexpr const char* kLessonButtonsNarrow[3] = {"◀", "▶", "×"};  // (tooltips say what they do)

float buttons_width(const char* const (&labels)[3]) {
  const ImGuiStyle& st = ImGui::GetStyle();
  float w = 2 * st.ItemSpacing.x;
  for (const char* l : labels) w += ImGui::CalcTextSize(l).x + 2 * st.FramePadding.x;
  return w;
}
// The lesson bar's buttons: with their words, or only their symbols where the words would take almost half
// the bar (a projector's 3× text), leaving the step's title its line.
const char* const (&lesson_buttons(float bar_w))[3] {
  return buttons_width(kLessonButtonsWide) <= 0.45f * bar_w ? kLessonButtonsWide : kLessonButtonsNarrow;
}
float lesson_buttons_width(float bar_w) {
  return buttons_width(lesson_buttons(bar_w));
}

// The bold first line of the lesson bar: "step k/n · step title", followed by the lesson title when it fits
// beside the buttons; wrapped (never hidden under the buttons) when even the step title is too long.
struct LessonHeader {
  std::string text;
  float wrap = 0, height = 0;
  bool below = false;  // on its own lines under the buttons (beside them it would take over two lines)
  // Beside the symbol buttons (a projector's 3× text) a step title that would wrap moves to the top of the
  // scrolling text, in bold, and the header keeps one line ("2/7").
  std::string lead;
};

float lead_height(const std::string& lead, float w) {
  if (lead.empty()) return 0;
  if (ui::fonts().bold) ImGui::PushFont(ui::fonts().bold);
  const float h =
      ImGui::CalcTextSize(ui::wrap_at_spaces(lead, w).c_str()).y + ImGui::GetStyle().ItemSpacing.y;
  if (ui::fonts().bold) ImGui::PopFont();
  return h;
}
LessonHeader lesson_header(const Lesson& l, int step, float content_w) {
  // The buttons as lesson_bar draws them: in the regular font (measured in the bold one, they took the
  // symbols here and the words there, and the header ran under the buttons).
  const float buttons_w = lesson_buttons_width(content_w);
  const bool narrow = &lesson_buttons(content_w)[0] == &kLessonButtonsNarrow[0];
  if (ui::fonts().bold) ImGui::PushFont(ui::fonts().bold);
  LessonHeader h;
  h.wrap = std::max(4 * ui::em(), content_w - buttons_w - ui::em());
  char buf[64];
  // "Step 2/7" where there is room, "2/7" beside the symbol buttons (a projector's 3× text).
  std::snprintf(buf, sizeof buf, narrow ? "%d/%zu  ·  " : "Step %d/%zu  ·  ", step + 1, l.steps.size());
  h.text = buf + l.steps[static_cast<std::size_t>(step)].title;
  const std::string with_title = h.text + "   —   " + l.title;
  if (ImGui::CalcTextSize(with_title.c_str()).x <= h.wrap) h.text = with_title;
  // Beside the buttons the header starts where their labels do (lesson_bar centres its first line on them).
  const float centre = std::max(0.0f, (ImGui::GetFrameHeight() - ImGui::GetTextLineHeight()) / 2);
  h.height = std::max(ImGui::CalcTextSize(ui::wrap_at_spaces(h.text, h.wrap).c_str()).y + centre,
                      ImGui::GetFrameHeight());
  if (narrow && h.height > 1.5f * ImGui::GetTextLineHeightWithSpacing()) {
    h.lead = l.steps[static_cast<std::size_t>(step)].title;
    h.text = std::string(buf).substr(0, std::string(buf).find("  ·"));
    h.height = ImGui::GetFrameHeight();
  } else if (h.height > 2.5f * ImGui::GetTextLineHeightWithSpacing()) {
    h.below = true;
    h.wrap = content_w;
    h.height = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.y +
               ImGui::CalcTextSize(ui::wrap_at_spaces(h.text, h.wrap).c_str()).y;
  }
  if (ui::fonts().bold) ImGui::PopFont();
  return h;
}
}  // namespace

namespace {
// The lesson bar's padding above and below its text: tighter on the projector, where the slide's height is
// the scarce room.
float bar_padding_y(bool presenting) {
  return (presenting ? 0.4f : 0.6f) * ui::em();
}
std::string notes_text(const LessonStep& s) {
  return "Notes (not shown while presenting): " + s.notes;
}
}  // namespace

float App::lesson_bar_height(float tabs_frame_h) const {
  if (!player_.lesson()) return 0;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float em = ui::em();
  const float content_w = ImGui::GetContentRegionAvail().x - 1.6f * em;  // the bar's padding
  const LessonHeader h = lesson_header(*player_.lesson(), player_.step(), content_w);
  const float text_h = ImGui::CalcTextSize(ui::wrap_at_spaces(step_text(), content_w).c_str()).y +
                       lead_height(h.lead, content_w);
  const float header_h = h.height;
  const float pad = 2 * bar_padding_y(presentation_.on);
  if (bar_collapsed_) return std::floor(pad + header_h + 2.0f);  // F7: the title line only
  // Outside presentation mode the teacher's notes follow the text (they scroll); never on the projector.
  const LessonStep& step = *player_.current();
  const float notes_h =
      presentation_.on || step.notes.empty()
          ? 0.0f
          : ImGui::CalcTextSize(ui::wrap_at_spaces(notes_text(step), content_w).c_str()).y + st.ItemSpacing.y;
  const float full = pad + header_h + st.ItemSpacing.y + text_h + notes_h + 2.0f;
  // The panel above keeps room for one plot (plot::Plot::min_frame) below the tab bar; the step's text then
  // scrolls inside the bar, which always shows the header and at least two lines of text.
  const float tabs = tabs_frame_h + 2 * st.ItemSpacing.y;
  const float room = ImGui::GetContentRegionAvail().y - tabs - st.ItemSpacing.y - first_plot_min_h_;
  const float least = pad + header_h + st.ItemSpacing.y + 1.1f * ImGui::GetTextLineHeightWithSpacing();
  return std::floor(std::min(full, std::max(least, room)));
}

void App::lesson_bar(float height) {
  const std::string text = step_text();
  const int n = player_.steps(), at = player_.step();
  const float em = ui::em();
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(255, 247, 214, 255));
  ImGui::PushStyleColor(ImGuiCol_Border, IM_COL32(150, 120, 20, 200));
  // Dark text and light buttons on the pale bar in every theme (dark, high contrast).
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(20, 20, 20, 255));
  ImGui::PushStyleColor(ImGuiCol_Button, IM_COL32(214, 224, 242, 255));
  ImGui::PushStyleColor(ImGuiCol_ButtonHovered, IM_COL32(180, 200, 235, 255));
  ImGui::PushStyleColor(ImGuiCol_ButtonActive, IM_COL32(150, 178, 228, 255));
  ImGui::PushStyleVar(ImGuiStyleVar_ChildBorderSize, std::max(1.0f, 0.1f * em));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0.8f * em, bar_padding_y(presentation_.on)));
  ImGui::BeginChild("##lesson", ImVec2(0, height), true, ImGuiWindowFlags_NoScrollbar);
  ui::mark("lesson_bar", ImGui::GetWindowPos(),
           ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                  ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
  const float content_w = ImGui::GetContentRegionAvail().x;
  const LessonHeader h = lesson_header(*player_.lesson(), player_.step(), content_w);
  const float y0 = ImGui::GetCursorPosY();
  if (ui::fonts().bold) ImGui::PushFont(ui::fonts().bold);
  if (h.below) {
    ImGui::SetCursorPosY(y0 + ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.y);
  } else {
    ImGui::SetCursorPosY(y0 + std::max(0.0f, (ImGui::GetFrameHeight() - ImGui::GetTextLineHeight()) / 2));
  }
  ImGui::TextUnformatted(ui::wrap_at_spaces(h.text, h.wrap).c_str());
  if (ui::fonts().bold) ImGui::PopFont();
  const float y1 = ImGui::GetCursorPosY();
  ImGui::SetCursorPos(ImVec2(ImGui::GetWindowContentRegionMax().x - lesson_buttons_width(content_w), y0));
  ImGui::BeginDisabled(at == 0);
  const char* const(&labels)[3] = lesson_buttons(content_w);
  const bool narrow = &labels[0] == &kLessonButtonsNarrow[0];
  if (ui::marked("button:lesson_back", ImGui::Button(labels[0]))) go_to_step(at - 1);
  if (narrow && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Back (Left arrow)");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(at + 1 == n && !player_.more_on_step());
  if (ui::marked("button:lesson_next", ImGui::Button(labels[1]))) player_.next();
  if (narrow && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Next (Right arrow)");
  ImGui::EndDisabled();
  ImGui::SameLine();
  const bool leave = ui::marked("button:lesson_leave", ImGui::Button(labels[2]));
  if (narrow && ImGui::IsItemHovered()) ImGui::SetTooltip("Leave the lesson (Esc)");
  ImGui::SetCursorPosY(std::max(y1, y0 + ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.y));
  // The text scrolls when the bar is capped (a projector's 3× text on a short screen): what a slide must not
  // need (slide_frame() says by how much, `gelulab lessons` refuses it).
  const float shown_h = ImGui::GetContentRegionAvail().y;
  const std::string wrapped = ui::wrap_at_spaces(text, content_w);
  const float text_h = ImGui::CalcTextSize(wrapped.c_str()).y + lead_height(h.lead, content_w);
  const float line_h = ImGui::GetTextLineHeight();  // a text's lines are this far apart
  slide_.text_lines = static_cast<int>(std::ceil(text_h / line_h - 0.05f));
  slide_.bar_lines = bar_collapsed_ ? 0 : std::max(0, static_cast<int>(std::floor(shown_h / line_h + 0.05f)));
  slide_.text_overflow_px = bar_collapsed_ ? 0.0 : std::max(0.0f, std::floor(text_h - shown_h));
  if (!bar_collapsed_) {
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::BeginChild("##lesson_text", ImVec2(0, 0), false);
    if (!h.lead.empty()) {
      if (ui::fonts().bold) ImGui::PushFont(ui::fonts().bold);
      ImGui::TextUnformatted(ui::wrap_at_spaces(h.lead).c_str());
      if (ui::fonts().bold) ImGui::PopFont();
    }
    ImGui::TextUnformatted(ui::wrap_at_spaces(text).c_str());
    const LessonStep& step = *player_.current();
    if (!presentation_.on && !step.notes.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(90, 80, 40, 255));
      ImGui::TextUnformatted(ui::wrap_at_spaces(notes_text(step)).c_str());
      ImGui::PopStyleColor();
    }
    ImGui::EndChild();
    ImGui::PopStyleVar();
  }
  ImGui::EndChild();
  ImGui::PopStyleVar(2);
  ImGui::PopStyleColor(6);
  if (leave) close_lesson();
}

std::vector<std::string> App::slide_problems() const {
  std::vector<plot::SlidePlot> plots;
  for (const ui::PlotRef& r : ui::frame_plots()) plots.push_back({r.id, plot_extent(*r.state)});
  return plot::slide_problems(plots, slide_);
}

// [SECTION] Messages, sessions, export

void App::show_message(std::string text, bool error) {
  message_ = std::move(text);
  message_error_ = error;
}

void App::message_banner() {
  if (message_.empty()) return;
  const float em = ui::em();
  ImGui::PushStyleColor(ImGuiCol_ChildBg,
                        message_error_ ? IM_COL32(253, 226, 226, 255) : IM_COL32(224, 242, 226, 255));
  ImGui::PushStyleColor(ImGuiCol_Text, message_error_ ? IM_COL32(120, 0, 0, 255) : IM_COL32(0, 80, 20, 255));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0.6f * em, 0.4f * em));
  const float wrap = ImGui::GetContentRegionAvail().x - 6 * em;
  const float h = ImGui::CalcTextSize(ui::wrap_at_spaces(message_, wrap).c_str()).y + 0.9f * em;
  ImGui::BeginChild("##message", ImVec2(0, std::max(h, ImGui::GetFrameHeight() + 0.9f * em)), true,
                    ImGuiWindowFlags_NoScrollbar);
  ui::mark("message", ImGui::GetWindowPos(),
           ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                  ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
  ImGui::TextUnformatted(ui::wrap_at_spaces(message_, wrap).c_str());
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - 4 * em);
  ImGui::PopStyleColor();  // the button in the normal text colour
  const bool ok = ImGui::Button("OK", ImVec2(4 * em, 0));
  ImGui::EndChild();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
  if (ok) message_.clear();
}

namespace {
// The dialogs' last row: Cancel (or Esc) closes the popup, which ends here.
void cancel_and_end_popup(float em) {
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(8 * em, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}
}  // namespace

void App::restore_now(const std::string& path, const std::string& name) {
  if (csv_stage_ == 2) csv_stage_ = 1;  // its plot is replaced: pick it again in the new panels
  message_.clear();
  try {
    load_session(*this, path);
    if (message_.empty()) show_message("Restored the session from " + name, false);
  } catch (const SessionError& e) {
    show_message(std::string("Could not restore the session: ") + e.what() + ". Nothing was changed.", true);
  }
}

void App::open_user_file(const std::string& path, const std::string& name) {
  // A lesson has "steps"; anything else is read as a session, whose loader says what is wrong with it.
  bool lesson = false;
  try {
    const json::Value doc = json::parse(read_file(path, kMaxJsonFileBytes));
    lesson = doc.is_object() && doc.find("steps") != nullptr;
  } catch (const std::exception& e) {
    show_message(name + " is not a lesson or a session GELU Lab can open: " + printable(e.what(), 300) +
                     ". Nothing was changed.",
                 true);
    return;
  }
  if (!lesson) {
    restore_now(path, name);
    return;
  }
  try {
    open_lesson(load_lesson(path), 0);
    show_message(
        "Opened the lesson " + name + " (" + std::to_string(player_.lesson()->steps.size()) + " steps)",
        false);
  } catch (const LessonError& e) {
    show_message(
        "Could not open the lesson " + name + ": " + printable(e.what(), 300) + ". Nothing was changed.",
        true);
  }
}

void App::session_dialogs() {
  const std::string fallback = autosave_path_.empty() ? default_session_path() : autosave_path_;
  if (open_save_dialog_ || open_restore_dialog_) {
    std::snprintf(dialog_path_, sizeof dialog_path_, "%s", fallback.c_str());
    ImGui::OpenPopup(open_save_dialog_ ? "Save session" : "Restore session");
    open_save_dialog_ = open_restore_dialog_ = false;
  }
  const float em = ui::em();
  for (int save = 1; save >= 0; --save) {
    const char* name = save ? "Save session" : "Restore session";
    ImGui::SetNextWindowSize(ImVec2(36 * em, 0));
    if (!ImGui::BeginPopupModal(name, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) continue;
    ImGui::TextUnformatted(save ? "Save the whole session (panels, lesson step, presentation) as JSON to:"
                                : "Restore a session saved by GELU Lab from:");
    ImGui::SetNextItemWidth(-1);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter =
        ImGui::InputText("##path", dialog_path_, sizeof dialog_path_, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button(save ? "Save" : "Restore", ImVec2(8 * em, 0)) || enter) {
      try {
        if (save) {
          save_session(*this, dialog_path_);
          note_saved(dialog_path_);
        } else {
          pending_restore_ =
              dialog_path_;  // at the start of the next frame: this frame still draws the old panels
        }
      } catch (const SessionError& e) {
        show_message(std::string(save ? "Could not save the session: " : "Could not restore the session: ") +
                         e.what() + (save ? "" : ". Nothing was changed."),
                     true);
      }
      ImGui::CloseCurrentPopup();
    }
    cancel_and_end_popup(em);
  }
}

void App::lesson_dialogs() {
  const float em = ui::em();
  if (open_lesson_dialog_ || save_step_dialog_) {
    const std::string start = player_.lesson() ? player_.lesson()->path : std::string("my_lesson.json");
    std::snprintf(lesson_path_, sizeof lesson_path_, "%s", start.c_str());
    if (save_step_dialog_) {
      std::snprintf(lesson_title_, sizeof lesson_title_, "%s",
                    player_.lesson() ? player_.lesson()->title.c_str() : "My lesson");
      std::snprintf(step_title_, sizeof step_title_, "%s", active().title());
      step_body_[0] = 0;
    }
    ImGui::OpenPopup(open_lesson_dialog_ ? "Open lesson" : "Save view as lesson step");
    open_lesson_dialog_ = save_step_dialog_ = false;
  }
  ImGui::SetNextWindowSize(ImVec2(40 * em, 0));
  if (ImGui::BeginPopupModal("Open lesson", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::TextUnformatted("Open a lesson file (JSON; see docs or assets/lessons):");
    ImGui::SetNextItemWidth(-1);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter = ImGui::InputText("##lesson_path", lesson_path_, sizeof lesson_path_,
                                        ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button("Open", ImVec2(8 * em, 0)) || enter) {
      try {
        open_lesson(load_lesson(lesson_path_), 0);
      } catch (const LessonError& e) {
        show_message(e.what(), true);
      }
      ImGui::CloseCurrentPopup();
    }
    cancel_and_end_popup(em);
  }
  handout_dialog();
  ImGui::SetNextWindowSize(ImVec2(44 * em, 0));
  if (ImGui::BeginPopupModal("Save view as lesson step", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ui::text_wrapped(
        "Appends what the %s panel shows now as a new step of a lesson file (made if it does not "
        "exist). The file is checked before and after, and written in one piece.",
        active().title());
    ImGui::SetNextItemWidth(-12 * em);
    ImGui::InputText("lesson file", lesson_path_, sizeof lesson_path_);
    ImGui::SetNextItemWidth(-12 * em);
    ImGui::InputText("lesson title (new file)", lesson_title_, sizeof lesson_title_);
    ImGui::SetNextItemWidth(-12 * em);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    ImGui::InputText("step title", step_title_, sizeof step_title_);
    ImGui::InputTextMultiline("##step_text", step_body_, sizeof step_body_, ImVec2(-1, 5 * em));
    if (ImGui::Button("Append step", ImVec2(10 * em, 0))) {
      try {
        const json::Value st = active().state();
        const int n = append_lesson_step(
            lesson_path_, LessonStep{step_title_, step_body_, active().id(), st, {}, {}, {}}, lesson_title_);
        note_saved(lesson_path_, "step " + std::to_string(n) + " added to " + std::string(lesson_path_));
      } catch (const LessonError& e) {
        show_message(std::string("Could not add the step: ") + e.what() + ". The file was not changed.",
                     true);
      }
      ImGui::CloseCurrentPopup();
    }
    cancel_and_end_popup(em);
  }
}

void App::handout_dialog() {
  const float em = ui::em();
  handout_.poll();
  const Lesson* lesson = player_.lesson();
  if (handout_dialog_ && lesson) {
    const std::filesystem::path l(lesson->path);
    std::snprintf(handout_dir_, sizeof handout_dir_, "%s", (l.stem().string() + "_handout").c_str());
    ImGui::OpenPopup("Export lesson handout");
  }
  handout_dialog_ = false;
  ImGui::SetNextWindowSize(ImVec2(44 * em, 0));
  if (!ImGui::BeginPopupModal("Export lesson handout", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ui::text_wrapped(
      "Writes FOLDER/NAME.html: one self-contained page with every step of \"%s\" as its slide (1280×800, "
      "2× text), its text and its notes, readable printed on A4 (what `gelulab lessons --handout` writes).",
      lesson ? lesson->title.c_str() : "");
  ImGui::SetNextItemWidth(-6 * em);
  ImGui::BeginDisabled(handout_.running());
  ImGui::InputText("folder", handout_dir_, sizeof handout_dir_);
  ui::mark("input:handout_dir");
  if (ui::marked("button:export_handout", ImGui::Button("Export", ImVec2(8 * em, 0))) && lesson) {
    std::string error;
    if (!handout_.start(lesson->path, handout_dir_, &error)) show_message(error, true);
  }
  ImGui::EndDisabled();
  if (handout_.running() || handout_.finished()) {
    const int n = handout_.total_steps(), k = handout_.done_steps();
    const float frac = handout_.finished() ? 1.0f
                       : n > 0             ? static_cast<float>(k) / static_cast<float>(n)
                                           : 0.0f;
    char over[64];
    std::snprintf(over, sizeof over, handout_.running() ? "step %d / %d" : "%d / %d", k, n);
    ImGui::ProgressBar(frac, ImVec2(-1, 0), over);
    ui::text_wrapped("%s", handout_.message().c_str());
    if (handout_.finished()) ui::mark(handout_.ok() ? "text:handout_done" : "text:handout_failed");
  }
  ImGui::SameLine();
  if (ui::marked("button:handout_close",
                 ImGui::Button(handout_.running() ? "Running…" : "Close", ImVec2(8 * em, 0))) &&
      !handout_.running())
    ImGui::CloseCurrentPopup();
  if (!handout_.running() && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void App::request_csv(std::string plot_id, std::string path) {
  csv_stage_ = 1;
  csv_no_data_.clear();
  csv_plot_ = std::move(plot_id);
  csv_path_ = std::move(path);
}

bool App::take_plot_png_request(ImVec2* min, ImVec2* max, std::string* path) {
  if (!plot_png_request_) return false;
  plot_png_request_ = false;
  *min = plot_png_min_;
  *max = plot_png_max_;
  *path = plot_png_path_;
  return true;
}

namespace {
// The plot named `id`, else the one under the mouse, else the first drawn this frame.
const ui::PlotRef* pick_plot(const std::string& id) {
  const auto& plots = ui::frame_plots();
  const ImVec2 m = ImGui::GetIO().MousePos;
  for (const ui::PlotRef& r : plots)
    if (!id.empty() && r.id == id) return &r;
  if (!id.empty()) return nullptr;
  for (const ui::PlotRef& r : plots) {
    const plot::Transform& t = r.state->last;
    if (m.x >= t.left && m.x <= t.right && m.y >= t.top && m.y <= t.bottom) return &r;
  }
  return plots.empty() ? nullptr : &plots.front();
}
}  // namespace

void App::export_requests() {
  // This frame's plots are the drawn tab's. Right after a switch of panels (a key, a lesson step, a restored
  // session, the first frame of a shot) that is still the previous panel for a frame; its plot must not be
  // exported under the new one's name, so a request waits for the active panel to be drawn (a few frames at
  // most: then it says why it gave up).
  constexpr int kMaxWait = 30;
  const bool ready = drawn_ == static_cast<int>(active_);
  if ((plot_png_wanted_ || csv_stage_ == 1) && !ready) {
    if (++export_wait_ > kMaxWait) {
      set_status("export: the " + std::string(active_id()) + " panel was not drawn");
      plot_png_wanted_ = false;
      csv_stage_ = 0;
      export_wait_ = 0;
    }
  } else {
    export_wait_ = 0;
  }
  if (plot_png_wanted_ && ready) {
    plot_png_wanted_ = false;
    const ui::PlotRef* r = pick_plot({});
    // A plot scrolled out of the view (a panel's view scrolls when its plots need more room than the window
    // has) is no picture: then the first plot on screen.
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    auto on_screen = [&](const plot::PlotState& s) {
      return s.frame_max.x > 0 && s.frame_max.y > 0 && s.frame_min.x < d.x && s.frame_min.y < d.y;
    };
    if (r && !on_screen(*r->state))
      for (const ui::PlotRef& o : ui::frame_plots())
        if (on_screen(*o.state)) {
          r = &o;
          break;
        }
    if (r) {
      plot_frame_rect(*r->state, ui::em(), d, &plot_png_min_, &plot_png_max_);
      plot_png_path_ =
          "gelulab-" + std::string(active_id()) + "-" + r->id + "-" + std::to_string(png_counter_) + ".png";
      plot_png_request_ = true;
    } else {
      set_status("no plot on this panel");
    }
  }
  if (csv_stage_ == 2) {
    csv_stage_ = 0;
    const auto& plots = ui::frame_plots();
    const bool drawn =
        std::any_of(plots.begin(), plots.end(), [&](const ui::PlotRef& r) { return r.state == csv_state_; });
    if (!drawn || csv_state_->capture) {
      set_status("CSV: the plot was not drawn");
    } else if (captured_rows(*csv_state_) == 0) {
      // Nothing to export yet (a benchmark before its first measurement, per-layer statistics before the
      // first step): no file with a header and no rows, and one line that names the plot.
      csv_no_data_ = csv_plot_;
      set_status("CSV: the plot '" + csv_plot_ + "' on the " + std::string(active_id()) +
                 " panel has no data yet; nothing written");
      std::fprintf(stderr, "gelulab: %s\n", status_.c_str());
    } else {
      const std::string path = csv_path_.empty() ? "gelulab-" + std::string(active_id()) + "-" + csv_plot_ +
                                                       "-" + std::to_string(png_counter_) + ".csv"
                                                 : csv_path_;
      try {
        write_output(path, series_csv(csv_plot_, *csv_state_));  // "-": standard output (shot --csv -)
        last_csv_ = path;
        if (path == "-")
          set_status("saved " + path);
        else
          note_saved(path);
        if (csv_path_.empty()) ++png_counter_;
      } catch (const FileError& e) {
        set_status(e.what());
      }
    }
  }
  if (csv_stage_ == 1 && ready) {
    if (const ui::PlotRef* r = pick_plot(csv_plot_)) {
      csv_plot_ = r->id;
      csv_state_ = r->state;
      csv_state_->capture = true;  // the next frame's Plot::end fills captured
      csv_stage_ = 2;
    } else {
      set_status(csv_plot_.empty() ? "CSV: no plot on this panel"
                                   : "CSV: no plot '" + csv_plot_ + "' on this panel");
      csv_stage_ = 0;
    }
  }
}

// [SECTION] Frame

void App::shortcuts() {
  const ImGuiIO& io = ImGui::GetIO();
  // Keys are GLFW key codes in ImGui 1.86's io.KeysDown (the GLFW backend's mapping).
  const bool ctrl = io.KeyCtrl, shift = io.KeyShift;
  const auto pressed = [](int key) { return ImGui::IsKeyPressed(key, false); };
  if (pressed(GLFW_KEY_F12) || (ctrl && !shift && pressed(GLFW_KEY_S))) {
    if (shift) {
      plot_png_wanted_ = true;
    } else {
      png_request_ = true;
    }
  }
  if (ctrl && shift && pressed(GLFW_KEY_S)) open_save_dialog_ = true;
#ifdef __EMSCRIPTEN__
  if (ctrl && pressed(GLFW_KEY_O)) open_file_request_ = true;
#else
  if (ctrl && pressed(GLFW_KEY_O)) open_restore_dialog_ = true;
#endif
  if (ctrl && pressed(GLFW_KEY_E)) request_csv();
#ifndef __EMSCRIPTEN__  // the browser keeps Ctrl+Q; a page ends with its tab
  if (ctrl && pressed(GLFW_KEY_Q)) quit_ = true;
#endif
  for (std::size_t i = 0; i < panels_.size() && i < 9; ++i)
    if (ctrl && pressed(GLFW_KEY_1 + static_cast<int>(i))) select(panels_[i]->id());
  Presentation p = presentation_;
  if (pressed(GLFW_KEY_F5)) p.on = !p.on;
  if (ctrl && (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD))) {
    p.on = true;
    p.step(+1);
  }
  if (ctrl && (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT))) p.step(-1);
  set_presentation(p);
  if (pressed(GLFW_KEY_F11)) fullscreen_request_ = true;
  if (pressed(GLFW_KEY_F6)) ui::set_show_controls(!ui::show_controls());
  if (pressed(GLFW_KEY_F7) && player_.lesson()) bar_collapsed_ = !bar_collapsed_;
  if (pressed(GLFW_KEY_F1)) shortcuts_open_ = !shortcuts_open_;
  // Arrows step through a lesson unless a text field or a popup has the keyboard.
  if (player_.lesson() && !io.WantTextInput &&
      !ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel)) {
    if (pressed(GLFW_KEY_RIGHT) || pressed(GLFW_KEY_PAGE_DOWN)) player_.next();
    for (int k = 0; k < 4; ++k)
      if (!ctrl && pressed(GLFW_KEY_1 + k)) player_.pick(k);
    if (pressed(GLFW_KEY_ENTER) || pressed(GLFW_KEY_KP_ENTER)) player_.reveal_answer();
    if (pressed(GLFW_KEY_LEFT) || pressed(GLFW_KEY_PAGE_UP)) player_.go_to(player_.step() - 1);
    if (pressed(GLFW_KEY_ESCAPE) && !shortcuts_open_) close_lesson();
  }
}

void App::frame() {
  ImGuiIO& io = ImGui::GetIO();
  ui::begin_frame();
  if (!pending_restore_.empty()) {
    const std::string path = std::move(pending_restore_);
    pending_restore_.clear();
    restore_now(path, path);
  }
  apply_pending();
  shortcuts();

  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus |
      ImGuiWindowFlags_NoBackground;  // the frame's clear is it: begin_frame_drawing
  // The menu bar and the tab titles in the chrome font (at most 1.5×); everything else in the regular one.
  ImFont* const regular = ImGui::GetFont();
  ImGui::PushFont(ui::fonts().chrome ? ui::fonts().chrome : regular);
  ImGui::Begin("GELU Lab", nullptr, flags);
  ui::mark("window", ImVec2(0, 0), io.DisplaySize);  // scripts and the monkey aim anywhere through it
  slide_ = plot::SlideFrame{};
  slide_.window = {0, 0, io.DisplaySize.x, io.DisplaySize.y};
  slide_.lesson_bar = player_.lesson() != nullptr;
  menu_bar();
  const float tabs_h = ImGui::GetFrameHeight();
  ImGui::PushFont(regular);
  message_banner();
  const float bar_h = lesson_bar_height(tabs_h);
  ImGui::PopFont();
  drawn_ = -1;
  // Tabs keep their whole titles (scrolling when they do not fit) rather than shrinking to "Appro…".
  if (ImGui::BeginTabBar("panels", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (std::size_t i = 0; i < panels_.size(); ++i) {
      const ImGuiTabItemFlags tf = pending_select_ == static_cast<int>(i) ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(panels_[i]->title(), nullptr, tf)) {
        if (pending_select_ < 0 || pending_select_ == static_cast<int>(i)) active_ = i;
        drawn_ = static_cast<int>(i);
        const float below = bar_h > 0 ? bar_h + ImGui::GetStyle().ItemSpacing.y : 0.0f;
        ImGui::PushFont(regular);
        ImGui::BeginChild(panels_[i]->id(), ImVec2(0, -below), false, ImGuiWindowFlags_NoScrollWithMouse);
        const float panel_top = ImGui::GetWindowPos().y;
        ui::mark("panel", ImGui::GetWindowPos(),
                 ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                        ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
        // A lesson step's view applies to its own panel only.
        const LessonStep* step = player_.pending() ? nullptr : player_.current();
        ui::set_slide(presentation_.on && step && step->panel == panels_[i]->id());
        plot::set_inline_legends(ui::slide());
        if (step && step->panel == panels_[i]->id() && !step->view.empty()) {
          view_filter_.series = step->view.series;
          view_filter_.reveal = step->view.reveal;
          view_filter_.revealed = player_.revealed();
          view_filter_.legends = step->view.legends;
          view_filter_.question_open = step->view.question && !player_.answered();
          view_filter_.notes.clear();
          for (const Annotation& a : step->view.annotations)
            view_filter_.notes.push_back(
                plot::PlotNote{a.kind == Annotation::Kind::Arrow  ? plot::PlotNote::Arrow
                               : a.kind == Annotation::Kind::Band ? plot::PlotNote::Band
                                                                  : plot::PlotNote::Marker,
                               a.plot, a.x, a.y, a.x1, a.text});
          plot::set_view_filter(&view_filter_);
          ui::set_step_view(&step->view);
        }
        panels_[i]->drawContent();
        ui::set_slide(false);
        plot::set_inline_legends(false);
        // The slide's room: the panel's child, above the lesson bar; what it scrolls (it, or its view).
        slide_.room = {ImGui::GetWindowPos().x, ImGui::GetWindowPos().y,
                       ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                       ImGui::GetWindowPos().y + ImGui::GetWindowSize().y};
        slide_.panel_overflow_px = std::max(ImGui::GetScrollMaxY(), ui::view_overflow());
        plot::set_view_filter(nullptr);
        ui::set_step_view(nullptr);
        // What the lesson bar leaves above it next frame: the first plot, wholly, down to its tick labels.
        const auto& plots = ui::frame_plots();
        // (Below whatever the panel draws above it: the GLU diagram of lesson 5.)
        const float above =
            plots.empty() ? 0.0f : std::max(0.0f, plots.front().state->frame_min.y - panel_top);
        first_plot_min_h_ = above +
                            plot::Plot::min_height_to_ticks(plots.empty() ? nullptr : plots.front().state) +
                            ImGui::GetStyle().WindowPadding.y;
        ImGui::EndChild();
        ImGui::PopFont();
        ImGui::EndTabItem();
      }
    }
    pending_select_ = -1;
    ImGui::EndTabBar();
  }
  ImGui::PushFont(regular);
  if (player_.lesson()) lesson_bar(bar_h);
  session_dialogs();
  lesson_dialogs();
  export_requests();
  ImGui::PopFont();
  ImGui::End();
  ImGui::PopFont();
  shortcuts_overlay(&shortcuts_open_);
}

}  // namespace gelu::app

// The desktop app's frame: fonts, theme, menu bar and the panel tabs. Shared by the window (cmd_gui.cpp)
// and the headless shot (cmd_shot.cpp), so a shot is exactly what the window shows.
#pragma once

#include <imgui.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gui/panels/panel.hpp"
#include "gui/shell/classroom.hpp"
#include "model/handout_job.hpp"
#include "model/lesson_player.hpp"
#include "model/lessons.hpp"
#include "plot/slide.hpp"

namespace gelu::app {

/// Base font size in pixels at content scale 1; every size in the UI is a multiple of the font size (em).
inline constexpr float kBaseFontPx = 17.0f;

class App {
 public:
  App();
  ~App();

  /// (Re)builds the font atlas for a content scale times the presentation scale (DejaVu Sans rasterized at
  /// that pixel size, with the glyphs of every registry formula) and scales the style. Call before the
  /// renderer backend creates its font texture (and between Destroy/CreateFontsTexture afterwards).
  void setup_fonts_and_style(float content_scale);
  /// True once after presentation settings changed: the window rebuilds the atlas and its texture.
  bool take_fonts_dirty();
  /// The whole UI for one frame; call between ImGui::NewFrame() and ImGui::Render().
  void frame();

  bool select(std::string_view panel_id);  // false when unknown
  Panel* find(std::string_view panel_id);
  Panel& active() { return *panels_[active_]; }
  const char* active_id() const { return panels_[active_]->id(); }
  const std::vector<std::unique_ptr<Panel>>& panels() const { return panels_; }
  /// Swaps in a new set of panels (a restored session) and selects `active`.
  void replace_panels(std::vector<std::unique_ptr<Panel>> panels, std::string_view active);

  // [SECTION] Classroom mode
  const Presentation& presentation() const { return presentation_; }
  /// View > UI scale and View > Theme (outside presentation mode; saved in the session): the atlas is
  /// rebuilt at the new size before the next frame.
  float ui_scale() const { return ui_scale_; }
  void set_ui_scale(float s);
  Theme theme() const { return theme_; }
  void set_theme(Theme t);
  void set_presentation(const Presentation& p);
  WindowGeometry& window_geometry() { return geometry_; }
  const WindowGeometry& window_geometry() const { return geometry_; }
  bool take_fullscreen_request();

  // [SECTION] Lessons
  // The lesson player (model/lesson_player.hpp) holds the lesson, its step and what the class did on it;
  // the app draws it (the lesson bar, the step's view) and applies a pending step's panel state.
  const model::LessonPlayer& player() const { return player_; }
  const Lesson* lesson() const { return player_.lesson(); }
  int lesson_step() const { return player_.step(); }  // 0-based
  /// The step's reveal and question (tests): series shown so far, the choice picked (-1: none), answered.
  int revealed() const { return player_.revealed(); }
  int picked_choice() const { return player_.picked(); }
  bool answered() const { return player_.answered(); }
  /// What the keys do on a step: → (next), 1–4 (pick a choice), Enter (reveal the answer).
  void lesson_next() { player_.next(); }
  void pick_choice(int i) { player_.pick(i); }
  void reveal_answer() { player_.reveal_answer(); }
  /// Starts `lesson` at `step` (0-based, clamped) and adds its characters to the font atlas; with
  /// apply_state the step's panel state is applied at the start of the next frame (or by apply_pending()).
  void open_lesson(Lesson lesson, int step, bool apply_state = true);
  void close_lesson() { player_.close(); }
  void go_to_step(int step) { player_.go_to(step); }
  /// Applies a pending lesson step now: a fresh panel of the step's kind with the step's state, selected.
  void apply_pending();
  /// The current step's text with the {key}s its panel computes filled in (model/lessons.hpp).
  std::string step_text() const;
  /// F7: the lesson bar shows its title line only (the teacher talks over the whole plot); off again with
  /// F7, and whenever a lesson opens.
  bool bar_collapsed() const { return bar_collapsed_; }
  void set_bar_collapsed(bool c) { bar_collapsed_ = c; }
  /// The slide as the last frame laid it out (plot/slide.hpp): the window, the panel's room above the lesson
  /// bar, the step text's lines against the bar's, and how far the panel scrolls.
  const plot::SlideFrame& slide_frame() const { return slide_; }
  /// What of the last frame does not fit the slide (plot::slide_problems over the plots it drew); empty when
  /// it is a slide.
  std::vector<std::string> slide_problems() const;

  // [SECTION] Sessions and export
  /// Where the session is restored from on start and saved on exit; empty: no autosave.
  void set_autosave_path(std::string path) { autosave_path_ = std::move(path); }
  const std::string& autosave_path() const { return autosave_path_; }
  /// After a failed restore the file is kept as it was: autosave is turned off and the message says so.
  void block_autosave() { autosave_blocked_ = true; }
  bool autosave_allowed() const { return !autosave_path_.empty() && !autosave_blocked_; }
  /// A message in a banner under the menu bar until dismissed (errors in red).
  void show_message(std::string text, bool error);
  const std::string& message() const { return message_; }
  /// A plot PNG request (Shift+F12): the rectangle to read back after rendering and the file name.
  bool take_plot_png_request(ImVec2* min, ImVec2* max, std::string* path);
  /// Asks for a CSV of the visible series of the plot `plot_id` ("" = under the mouse, else the first) of
  /// the active panel; written to `path` ("" = gelulab-<panel>-<plot>-N.csv) once the active panel has been
  /// drawn (right after a switch of panels the previous one may still be on screen for a frame) and then
  /// drawn once more to capture its series: two frames later, or three after a switch.
  void request_csv(std::string plot_id = {}, std::string path = {});
  /// Whether a CSV request is still under way.
  bool csv_pending() const { return csv_stage_ != 0; }
  /// Asks for a PNG of the plot under the mouse (else the first) of the active panel at the end of this frame
  /// (or of the first frame that draws the active panel).
  void request_plot_png() { plot_png_wanted_ = true; }
  /// Non-empty once a requested CSV was written (its path) — for the headless shot.
  const std::string& last_csv() const { return last_csv_; }
  /// Non-empty when the last CSV request found its plot without data (the plot's id): nothing was written,
  /// and one line on stderr said so.
  const std::string& csv_no_data() const { return csv_no_data_; }
  /// The last line of the status bar ("saved FILE", or why an export failed).
  const std::string& status() const { return status_; }

  bool animating() const;
  /// Handles keys and requests between frames; part of frame().
  void shortcuts();
  /// Set by the menu item or the key (F12 / Ctrl+S); the window saves the PNG after rendering.
  bool take_png_request();
  bool quit_requested() const { return quit_; }
  void request_quit() { quit_ = true; }  // as File > Quit (scripts: `quit`)
  std::string png_path() const;          // where the live view's PNG goes: gelulab-<panel>-N.png in the cwd
  void png_saved() { ++png_counter_; }
  void set_status(std::string s) { status_ = std::move(s); }
  /// A file the app wrote for the user (a PNG, a CSV, a session, a lesson): the status says so, and the web
  /// build's page offers it as a download (gui/web/page.cpp).
  void note_saved(const std::string& path, std::string status = {}) {
    status_ = status.empty() ? "saved " + path : std::move(status);
    saved_files_.push_back(path);
  }
  std::vector<std::string> take_saved_files() { return std::exchange(saved_files_, {}); }
  /// File > Copy link (the web build's menu: the page answers it, gui/web/page.cpp).
  bool take_copy_link_request() { return std::exchange(copy_link_request_, false); }
  /// File > Open a lesson or session from this computer… (the web build's menu: the page shows the browser's
  /// file chooser and hands the file to open_user_file).
  bool take_open_file_request() { return std::exchange(open_file_request_, false); }
  /// A file the user gave the app between two frames (the page's file chooser, a file dropped on the window;
  /// `name` as the user knows it): a lesson (it has "steps") opens at its first step, anything else is
  /// restored as a session; what cannot be opened changes nothing and the message names the file and why.
  void open_user_file(const std::string& path, const std::string& name);
  bool font_has_formula_glyphs() const { return formula_glyphs_ok_; }

 private:
  void menu_bar();
  void lesson_bar(float height);
  float lesson_bar_height(float tabs_frame_h) const;
  float first_plot_min_h_ =
      0;  // the active panel's first plot down to its x tick labels (last frame), at least
  void message_banner();
  void session_dialogs();
  void restore_now(const std::string& path, const std::string& name);  // between frames
  void lessons_menu();
  void export_requests();
  std::vector<std::unique_ptr<Panel>> panels_;
  std::size_t active_ = 0;
  int pending_select_ = -1;
  int drawn_ = -1;       // the panel whose tab was drawn this frame (ui::frame_plots() are its plots)
  int export_wait_ = 0;  // frames an export request has waited for the active panel to be drawn
  bool png_request_ = false, quit_ = false;
  int png_counter_ = 0;
  std::string status_;
  bool formula_glyphs_ok_ = false;
  std::string lesson_glyphs_;              // one of each non-ASCII character of the lessons opened
  std::set<char32_t> lesson_code_points_;  // the same, as code points
  float scale_ = 1.0f;                     // content scale of the display
  ImVector<ImWchar> glyph_ranges_;
  Presentation presentation_;
  float ui_scale_ = 1.0f;
  Theme theme_ = Theme::Light;
  bool fonts_dirty_ = false, fullscreen_request_ = false, shortcuts_open_ = false;
  WindowGeometry geometry_;
  model::LessonPlayer player_;
  bool bar_collapsed_ = false;
  plot::SlideFrame slide_;
  plot::ViewFilter view_filter_;  // the step's view, which the plot layer reads while the step's panel draws
  std::vector<std::string> lesson_files_;
  std::vector<std::string> lesson_titles_;  // each file's "title" ("" when it cannot be read), for the menu
  std::string autosave_path_;
  bool autosave_blocked_ = false;
  std::string message_;
  bool message_error_ = false;
  bool open_save_dialog_ = false, open_restore_dialog_ = false;
  char dialog_path_[1024] = {};
  // File > Open lesson… and File > Save view as lesson step… (a teacher writes a lesson by clicking).
  bool open_lesson_dialog_ = false, save_step_dialog_ = false;
  bool copy_link_request_ = false, open_file_request_ = false;
  std::vector<std::string> saved_files_;
  char lesson_path_[1024] = {}, lesson_title_[96] = {}, step_title_[96] = {}, step_body_[512] = {};
  // File > Export lesson handout…: the folder, and `gelulab lessons --handout` running as a child.
  bool handout_dialog_ = false;
  char handout_dir_[1024] = {};
  HandoutJob handout_;
  void lesson_dialogs();
  void handout_dialog();         // File > Export lesson handout… (runs `gelulab lessons --handout`)
  std::string pending_restore_;  // a session file to restore at the start of the next frame
  bool plot_png_request_ = false, plot_png_wanted_ = false;
  ImVec2 plot_png_min_{0, 0}, plot_png_max_{0, 0};
  std::string plot_png_path_;
  int csv_stage_ = 0;  // 1: pick a plot at the end of this frame, 2: write what it captured
  std::string csv_plot_, csv_path_, last_csv_, csv_no_data_;
  plot::PlotState* csv_state_ = nullptr;
};

}  // namespace gelu::app

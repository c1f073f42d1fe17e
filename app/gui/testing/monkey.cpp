#include "gui/testing/monkey.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gelu/fileio.hpp"
#include "gui/kit/ui.hpp"

namespace gelu::app::testing {

namespace {
bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}
}  // namespace

bool is_toggle(const std::string& mark) {
  return starts_with(mark, "check:") || starts_with(mark, "radio:") || starts_with(mark, "combo:") ||
         starts_with(mark, "option:");
}

Monkey::Monkey(std::uint64_t seed, std::string script_path, std::string replay)
    : rng_(seed), path_(std::move(script_path)) {
  text_ = "# gelulab monkey, seed " + std::to_string(seed) + "\n# replay: " + replay + "\n";
  if (!path_.empty()) write_file_atomic(path_, text_);
}

void Monkey::record(const std::string& line) {
  script_.append(line);
  text_ += line + "\n";
  ++actions_;
  if (!path_.empty()) write_file_atomic(path_, text_);
}

std::string Monkey::next_action(App& app, const ImGuiIO& io) {
  auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); };
  auto pick = [&](const std::vector<std::string>& v) -> const std::string& {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng_)];
  };
  auto frac = [&] { return uniform(0.1, 0.9); };
  char buf[512];

  // What the last frame drew: every mark, the toggles among them, the combo options open now.
  std::vector<std::string> drawn, options, fresh;
  const std::string panel = app.active_id();
  std::map<std::string, int>& seen = toggles_[panel];
  for (const auto& [name, rect] : ui::marks()) {
    // (A name with a space cannot be a script's target; none is marked so, and the monkey never aims at one.)
    if (!ui::marked_last_frame(name) || rect.max.x <= rect.min.x || rect.max.y <= rect.min.y ||
        name.find_first_of(" \t\n#") != std::string::npos)
      continue;
    drawn.push_back(name);
    if (!is_toggle(name)) continue;
    const int clicks = seen.try_emplace(name, 0).first->second;
    if (starts_with(name, "option:")) options.push_back(name);
    if (clicks == 0 && !tried_.count(name)) fresh.push_back(name);
  }
  if (drawn.empty()) return "wait 1";
  // A combo whose options were seen open but not all clicked is opened again (its options are marked only
  // while its list is open).
  std::vector<std::string> reopen;  // combos drawn now whose lists hold an option never clicked
  if (options.empty())
    for (const auto& [name, clicks] : seen) {
      if (clicks > 0 || tried_.count(name) || !starts_with(name, "option:")) continue;
      const std::string key = name.substr(7, name.find(':', 7) - 7);
      const std::string combo = "combo:" + key;
      if (ui::marked_last_frame(combo) && std::find(reopen.begin(), reopen.end(), combo) == reopen.end())
        reopen.push_back(combo);
    }

  auto click = [&](const std::string& name) {
    std::snprintf(buf, sizeof buf, "click %s? %.3f %.3f", name.c_str(), frac(), frac());
    if (is_toggle(name)) ++seen[name];
    return std::string(buf);
  };
  // A toggle out of sight (its view scrolled, or below the window): the wheel over its column brings it in.
  auto reach = [&](const std::string& name) -> std::string {
    const ui::Rect& r = ui::marks().at(name);
    const auto view = ui::marks().find("panel");
    const float bottom = view != ui::marks().end() ? view->second.max.y : io.DisplaySize.y;
    const bool inside = r.visible && r.center().y >= 0 && r.center().y <= io.DisplaySize.y &&
                        r.center().x >= 0 && r.center().x <= io.DisplaySize.x;
    if (inside || view == ui::marks().end() || starts_with(name, "option:")) return click(name);
    if (!options.empty()) return "key escape";  // an open combo list takes the wheel: close it first
    const ui::Rect& p = view->second;
    if (std::getenv("GELU_MONKEY_DEBUG"))
      std::fprintf(stderr, "monkey: %s out of sight at (%.0f, %.0f)-(%.0f, %.0f), visible %d\n", name.c_str(),
                   r.min.x, r.min.y, r.max.x, r.max.y, r.visible ? 1 : 0);
    const bool below = r.center().y > bottom;
    // First the wheel over its column (a sidebar scrolls with it), then the panel's scrollbar: its view
    // does not scroll with the wheel (the wheel zooms the plots), so a click on the track moves it there.
    const int tries = reach_tries_[name]++;
    if (tries % 4 == 3) return "key escape";  // whatever holds the view (a dialog, a popup) lets go
    if (tries % 4 < 2) {
      const double u = std::clamp((r.center().x - p.min.x) / std::max(1.0f, p.max.x - p.min.x), 0.02f, 0.98f);
      std::snprintf(buf, sizeof buf, "wheel panel? %.3f 0.500 %d", u, below ? -3 : 3);
    } else {
      // Its column's scrollbar (the controls column's, where it lies in it; else the panel's), its grab
      // dragged from the track's middle past the end the toggle lies towards.
      const auto column = ui::marks().find("controls");
      const bool in_column = column != ui::marks().end() && ui::marked_last_frame("controls") &&
                             r.center().x >= column->second.min.x && r.center().x <= column->second.max.x;
      const ui::Rect& c = in_column ? column->second : p;
      const float w = std::max(1.0f, c.max.x - c.min.x);
      const double u = 1.0 - 0.6 * ImGui::GetStyle().ScrollbarSize / w;
      std::snprintf(buf, sizeof buf, "drag %s? %.4f 0.5 %.4f %.2f 8", in_column ? "controls" : "panel", u, u,
                    below ? 1.2 : -0.2);
    }
    return buf;
  };

  const double r = uniform(0, 1);
  // A dialog (Ctrl+O, a menu item) is open and no combo list: half the time it is closed as a user would
  // (Esc), the other half the monkey goes on clicking (the dialog's buttons, or past it).
  if (options.empty() && ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId) && r < 0.5) return "key escape";
  // Ctrl+1..9 take it to other panels; it comes back to the panel it started on, as a user returns to a tab.
  if (panel != home_ && r < 0.25) return "panel " + home_;
  if (!options.empty() && r < 0.9) {  // a combo is open: pick one of its options, a new one first
    std::vector<std::string> fresh_options;
    for (const std::string& o : options)
      if (seen[o] == 0 && !tried_.count(o)) fresh_options.push_back(o);
    return click(pick(fresh_options.empty() ? options : fresh_options));
  }
  // A combo opens one option per visit (the click closes it): one with options left is reopened first, a
  // panel of many checkboxes would otherwise leave a five-option list half tried.
  // A later script of a panel (--monkey-tried) is there for what the earlier ones missed: it goes for those
  // most of the time.
  const bool focused = !tried_.empty();
  if (!reopen.empty() && r < (focused ? 0.8 : 0.55)) return reach(pick(reopen));
  // No toggle on screen (presentation mode hides the controls): F6 shows them, as a teacher would.
  bool any_toggle = false;
  for (const std::string& n : drawn) any_toggle = any_toggle || is_toggle(n);
  if (!any_toggle && panel == home_ && r < 0.5) return "key F6";
  if (!fresh.empty() && r < (focused ? 0.9 : 0.75)) return reach(pick(fresh));
  // Toggles seen once and gone since (the FFN lab's activation combos while "GLU blocks" is ticked): a
  // checkbox ticked an odd number of times is ticked back, which brings them back.
  bool gone = false;
  for (const auto& [name, clicks] : seen)
    gone = gone || (clicks == 0 && !starts_with(name, "option:") && !ui::marked_last_frame(name));
  if (gone && r < 0.8) {
    std::vector<std::string> back;
    for (const std::string& n : drawn)
      if (starts_with(n, "check:") && seen[n] % 2 == 1) back.push_back(n);
    if (!back.empty()) return click(pick(back));
  }

  const double a = uniform(0, 1);
  const std::string& target = pick(drawn);
  if (a < 0.40) return click(target);
  if (a < 0.48) {
    std::snprintf(buf, sizeof buf, "dblclick %s? %.3f %.3f", target.c_str(), frac(), frac());
    return buf;
  }
  if (a < 0.66) {  // drags reach past the widget: sliders to their ends, plots panned off their data
    std::snprintf(buf, sizeof buf, "drag %s? %.3f %.3f %.3f %.3f %d", target.c_str(), frac(), frac(),
                  uniform(-0.3, 1.3), uniform(-0.3, 1.3), std::uniform_int_distribution<int>(1, 12)(rng_));
    return buf;
  }
  if (a < 0.80) {
    int clicks = std::uniform_int_distribution<int>(-4, 4)(rng_);
    if (clicks == 0) clicks = 1;
    std::snprintf(buf, sizeof buf, "wheel %s? %.3f %.3f %d", target.c_str(), frac(), frac(), clicks);
    return buf;
  }
  if (a < 0.88) {
    const std::vector<std::string> keys = Script::key_names();
    return "key " + pick(keys);
  }
  if (a < 0.96) {  // anywhere in the window: menus, tabs, the lesson bar, widgets nobody marked
    std::snprintf(buf, sizeof buf, "click window? %.4f %.4f", uniform(0, 1), uniform(0, 1));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "wait %d", std::uniform_int_distribution<int>(1, 20)(rng_));
  return buf;
}

void Monkey::step(App& app, ImGuiIO& io) {
  if (home_.empty()) home_ = app.active_id();
  // The script's commands aim at last frame's rectangles; a new action is chosen only once the last one has
  // run to its end (a click's release, a drag's last move), so every action is one whole line of the file.
  if (script_.done()) record(next_action(app, io));
  if (!script_.step(app, io)) {
    io.MouseDown[0] = false;
  }
}

json::Object Monkey::report() const {
  json::Object o, panels;
  o["actions"] = static_cast<double>(actions_);
  for (const auto& [panel, seen] : toggles_) {
    json::Object p;
    json::Array toggled, never;
    for (const auto& [name, clicks] : seen) (clicks > 0 ? toggled : never).emplace_back(name);
    p["toggled"] = std::move(toggled);
    p["untoggled"] = std::move(never);
    panels[panel] = std::move(p);
  }
  o["panels"] = std::move(panels);
  return o;
}

std::vector<std::string> Monkey::untoggled(const std::string& panel) const {
  std::vector<std::string> v;
  const auto it = toggles_.find(panel);
  if (it == toggles_.end()) return v;
  for (const auto& [name, clicks] : it->second)
    if (clicks == 0) v.push_back(name);
  return v;
}

}  // namespace gelu::app::testing

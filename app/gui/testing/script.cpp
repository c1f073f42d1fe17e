#include "gui/testing/script.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "gelu/numio.hpp"
#include "gui/kit/ui.hpp"

namespace gelu::app {

namespace {
struct NamedKey {
  const char* name;
  int key;
  bool ctrl, shift;
};
constexpr NamedKey kKeys[] = {
    {"F1", GLFW_KEY_F1, false, false},         {"F5", GLFW_KEY_F5, false, false},
    {"F6", GLFW_KEY_F6, false, false},         {"F11", GLFW_KEY_F11, false, false},
    {"F12", GLFW_KEY_F12, false, false},       {"shiftF12", GLFW_KEY_F12, false, true},
    {"left", GLFW_KEY_LEFT, false, false},     {"right", GLFW_KEY_RIGHT, false, false},
    {"escape", GLFW_KEY_ESCAPE, false, false}, {"ctrlE", GLFW_KEY_E, true, false},
    {"ctrlplus", GLFW_KEY_EQUAL, true, false}, {"ctrlminus", GLFW_KEY_MINUS, true, false},
    {"ctrl1", GLFW_KEY_1, true, false},        {"ctrl2", GLFW_KEY_2, true, false},
    {"ctrl3", GLFW_KEY_3, true, false},        {"ctrl4", GLFW_KEY_4, true, false},
    {"ctrl5", GLFW_KEY_5, true, false},        {"ctrl6", GLFW_KEY_6, true, false},
    {"ctrl7", GLFW_KEY_7, true, false},        {"ctrl8", GLFW_KEY_8, true, false},
    {"ctrl9", GLFW_KEY_9, true, false},        {"ctrlO", GLFW_KEY_O, true, false},
    {"enter", GLFW_KEY_ENTER, false, false},
};
constexpr const char* kKeyNames =
    "F1 F5 F6 F11 F12 shiftF12 left right escape ctrlE ctrlO enter ctrlplus ctrlminus ctrl1..ctrl9";
const NamedKey* find_key(const std::string& name) {
  for (const NamedKey& k : kKeys)
    if (name == k.name) return &k;
  return nullptr;
}
}  // namespace

std::vector<std::string> Script::key_names() {
  std::vector<std::string> names;
  for (const NamedKey& k : kKeys) names.emplace_back(k.name);
  return names;
}

Script Script::parse(const std::string& text) {
  Script s;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::vector<Cmd> block;
  int repeat = 0, repeat_line = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error("script line " + std::to_string(lineno) + ": " + why);
  };
  // Counts are bounded so that a hostile script fails here instead of exhausting memory (a repeat block is
  // expanded) or overflowing a frame count: 10^6 commands or frames are hours of frames.
  constexpr long long kMaxCount = 1'000'000;
  auto count_ok = [&](long long n) { return n <= kMaxCount; };
  while (std::getline(in, line)) {
    ++lineno;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream ls(line);
    Cmd c;
    c.line = lineno;
    if (!(ls >> c.op)) continue;
    auto pos = [&](float& u, float& v) {
      if (!(ls >> u >> v)) fail("expected two fractions u v");
    };
    // For move/click/dblclick the position is optional (default: the centre).
    auto optional_pos = [&](float& u, float& v) {
      std::string a, b;
      if (!(ls >> a)) return;
      if (!(ls >> b)) fail("expected two fractions u v");
      try {
        u = std::stof(a);
        v = std::stof(b);
      } catch (const std::exception&) {
        fail("expected two fractions u v");
      }
    };
    if (c.op == "panel") {
      if (!(ls >> c.target)) fail("panel needs an id");
    } else if (c.op == "move" || c.op == "click" || c.op == "dblclick") {
      if (!(ls >> c.target)) fail(c.op + " needs a target");
      optional_pos(c.u0, c.v0);
      c.frames = c.op == "move" ? 1 : c.op == "click" ? 3 : 5;
    } else if (c.op == "drag") {
      if (!(ls >> c.target)) fail("drag needs a target");
      pos(c.u0, c.v0);
      pos(c.u1, c.v1);
      if (!(ls >> c.frames) || c.frames < 1 || !count_ok(c.frames))
        fail("drag needs a frame count in [1, 1000000]");
      c.frames += 3;  // press, the moves, release, settle
    } else if (c.op == "wheel") {
      if (!(ls >> c.target)) fail("wheel needs a target");
      pos(c.u0, c.v0);
      if (!(ls >> c.frames) || c.frames == 0 || !count_ok(std::abs(static_cast<long long>(c.frames))))
        fail("wheel needs a non-zero click count in [-1000000, 1000000]");
      c.u1 = c.frames > 0 ? 1.0f : -1.0f;  // direction
      c.frames = std::abs(c.frames);
    } else if (c.op == "key") {
      if (!(ls >> c.target) || !find_key(c.target)) fail(std::string("key takes ") + kKeyNames);
      c.frames = 3;
    } else if (c.op == "wait") {
      if (!(ls >> c.frames) || c.frames < 1 || !count_ok(c.frames))
        fail("wait needs a frame count in [1, 1000000]");
    } else if (c.op == "await") {
      if (!(ls >> c.target)) fail("await needs a target");
      if (!(ls >> c.frames) || c.frames < 1 || !count_ok(c.frames))
        fail("await needs a frame count in [1, 1000000]");
    } else if (c.op == "quit") {
      c.frames = 1;
    } else if (c.op == "repeat") {
      if (repeat) fail("repeat blocks do not nest");
      if (!(ls >> repeat) || repeat < 1 || !count_ok(repeat)) fail("repeat needs a count in [1, 1000000]");
      repeat_line = lineno;
      continue;
    } else if (c.op == "end") {
      if (!repeat) fail("end without repeat");
      if (!count_ok(static_cast<long long>(s.cmds_.size()) + static_cast<long long>(block.size()) * repeat))
        fail("the script expands to more than 1000000 commands");
      for (int i = 0; i < repeat; ++i) s.cmds_.insert(s.cmds_.end(), block.begin(), block.end());
      block.clear();
      repeat = 0;
      continue;
    } else {
      fail("unknown command " + quote(c.op));
    }
    std::string extra;
    if (ls >> extra) fail("unexpected " + quote(extra));
    (repeat ? block : s.cmds_).push_back(c);
    if (!count_ok(static_cast<long long>(s.cmds_.size() + block.size())))
      fail("the script has more than 1000000 commands");
  }
  if (repeat) {
    lineno = repeat_line;
    fail("repeat without end");
  }
  return s;
}

void Script::append(const std::string& text) {
  const Script more = parse(text);
  cmds_.insert(cmds_.end(), more.cmds_.begin(), more.cmds_.end());
}

bool Script::step(App& app, ImGuiIO& io) {
  io.MouseDown[0] = false;
  while (pc_ < cmds_.size()) {
    const Cmd& c = cmds_[pc_];
    if (t_ >= c.frames) {
      ++pc_;
      t_ = 0;
      continue;
    }
    // TARGET? aims at TARGET when it is on screen and skips the command when it is not (random scripts, and
    // widgets that come and go with the state: a probe slider, presentation mode's hidden controls).
    const bool optional = c.op != "panel" && c.op != "key" && !c.target.empty() && c.target.back() == '?';
    const std::string name = optional ? c.target.substr(0, c.target.size() - 1) : c.target;
    if (c.op == "await" && ui::marked_last_frame(name)) {
      ++pc_;
      t_ = 0;
      continue;
    }
    if (optional && !ui::marked_last_frame(name)) {
      ++pc_;
      t_ = 0;
      continue;
    }
    auto target = [&](float u, float v) {
      const auto& m = ui::marks();
      auto it = m.find(name);
      if (it == m.end())
        throw std::runtime_error("script line " + std::to_string(c.line) + ": no widget named '" + name +
                                 "' on this frame");
      return ImVec2(it->second.min.x + u * (it->second.max.x - it->second.min.x),
                    it->second.min.y + v * (it->second.max.y - it->second.min.y));
    };
    const int t = t_++;
    if (c.op == "panel") {
      if (!app.select(c.target))
        throw std::runtime_error("script line " + std::to_string(c.line) + ": unknown panel '" + c.target +
                                 "'");
    } else if (c.op == "move") {
      mouse_ = target(c.u0, c.v0);
    } else if (c.op == "click") {
      mouse_ = target(c.u0, c.v0);
      io.MouseDown[0] = t == 1;
    } else if (c.op == "dblclick") {
      mouse_ = target(c.u0, c.v0);
      io.MouseDown[0] = t == 1 || t == 3;
    } else if (c.op == "drag") {
      const int moves = c.frames - 3;
      if (t == 0) {
        mouse_ = target(c.u0, c.v0);
        io.MouseDown[0] = true;  // press
      } else if (t <= moves) {
        const float a = static_cast<float>(t) / static_cast<float>(moves);
        // Interpolated in the rectangle captured at the press (it may move while dragging a plot).
        const ImVec2 p0 = target(c.u0, c.v0), p1 = target(c.u1, c.v1);
        if (t == 1) {
          drag_from_ = p0;
          drag_to_ = p1;
        }
        mouse_ = ImVec2(drag_from_.x + a * (drag_to_.x - drag_from_.x),
                        drag_from_.y + a * (drag_to_.y - drag_from_.y));
        io.MouseDown[0] = true;
      }
    } else if (c.op == "wheel") {
      mouse_ = target(c.u0, c.v0);
      io.MouseWheel += c.u1;
    } else if (c.op == "quit") {
      app.request_quit();  // the app ends after this frame: the command is done now
      ++pc_;
      t_ = 0;
    } else if (c.op == "key") {
      // GLFW key codes, as ImGui 1.86's GLFW backend stores them in io.KeysDown.
      const NamedKey* k = find_key(c.target);
      io.KeysDown[k->key] = t == 1;
      io.KeyCtrl = k->ctrl && t == 1;
      io.KeyShift = k->shift && t == 1;
      io.KeysDown[GLFW_KEY_LEFT_CONTROL] = io.KeyCtrl;
      io.KeysDown[GLFW_KEY_LEFT_SHIFT] = io.KeyShift;
    }
    io.MousePos = mouse_;
    return true;
  }
  io.MousePos = mouse_;
  return false;
}

}  // namespace gelu::app

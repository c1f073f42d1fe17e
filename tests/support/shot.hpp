// Running `gelulab shot` from tests: a panel with a state file renders headless to a PNG plus a meta JSON
// that gives each plot's pixel frame and data ranges; PlotGeom maps data to pixels independently of app/plot.
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gelu/json.hpp"
#include "support/scratch.hpp"

namespace gelu::test {

struct PlotGeom {
  double left, top, right, bottom, x_min, x_max, y_min, y_max;
  bool log_x, log_y;
  explicit PlotGeom(const json::Value& v)
      : left(v.at("left").as_number()),
        top(v.at("top").as_number()),
        right(v.at("right").as_number()),
        bottom(v.at("bottom").as_number()),
        x_min(v.at("x_min").as_number()),
        x_max(v.at("x_max").as_number()),
        y_min(v.at("y_min").as_number()),
        y_max(v.at("y_max").as_number()),
        log_x(v.at("x_scale").as_string() == "log"),
        log_y(v.at("y_scale").as_string() == "log") {}
  // The linear/log maps written out here, not taken from app/plot.
  double px(double x) const {
    const double t =
        log_x ? std::log10(x / x_min) / std::log10(x_max / x_min) : (x - x_min) / (x_max - x_min);
    return left + t * (right - left);
  }
  double py(double y) const {
    const double t =
        log_y ? std::log10(y / y_min) / std::log10(y_max / y_min) : (y - y_min) / (y_max - y_min);
    return bottom + t * (top - bottom);
  }
};

struct Shot {
  int status = -1;
  std::string png;
  json::Value meta;
};

/// Runs `gelulab shot` (GELULAB_EXE) for `panel` with `state_json`, with no display in the environment; the
/// PNG and its meta JSON land in a per-process temp dir under `name`. `view` sets the size and the text
/// scale.
inline Shot shoot(const std::string& panel, const std::string& state_json, const std::string& name,
                  const std::string& view = "--size 1280x800") {
  namespace fs = std::filesystem;
  const fs::path dir = gelu::test::scratch_dir("gelulab_shot_test");
  const fs::path state = dir / (name + ".json"), png = dir / (name + ".png"),
                 meta = dir / (name + ".meta.json");
  std::ofstream(state) << state_json;
  const std::string cmd = std::string("env -u DISPLAY -u WAYLAND_DISPLAY '") + GELULAB_EXE +
                          "' shot --panel " + panel + " " + view + " --state '" + state.string() +
                          "' --out '" + png.string() + "' --meta '" + meta.string() + "'";
  Shot s;
  s.status = std::system(cmd.c_str());
  s.png = png.string();
  if (s.status == 0) {
    std::ifstream f(meta);
    std::stringstream ss;
    ss << f.rdbuf();
    s.meta = json::parse(ss.str());
  }
  return s;
}

}  // namespace gelu::test

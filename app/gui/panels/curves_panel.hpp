// Curves: any set of registry functions overlaid, with f′ and f″ in linked stacked plots, parameter
// sliders, a probe with tangents and a readout table, GELU's negative dip and ReLU's dead zone shaded.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gelu/activation.hpp"
#include "gui/panels/panel.hpp"
#include "model/panel_states.hpp"

namespace gelu::app {

class CurvesPanel : public Panel {
 public:
  CurvesPanel();
  static constexpr const char* kId = "curves";
  void drawContent() override;
  void load_state(const json::Value& state) override;
  json::Value state() const override;
  json::Object meta() const override;

 private:
  bool shown_[3] = {true, false, false};  // f, f′, f″ drawn in the last frame
  struct Fn {
    const Activation* a;
    bool shown;
    Params params;
  };
  /// The registry's functions with whether each is shown and its parameters, as st_ says (each frame).
  std::vector<Fn> fns() const;
  bool shown(const Activation& a) const;
  void set_shown(const Activation& a, bool on);
  Params params(const Activation& a) const;
  void set_param(const Activation& a, std::size_t i, double v);
  /// The functions in registry order; parameters only of known functions and where they differ from the
  /// default (what state() writes).
  void normalize();
  double probe_x() const { return st_.probe.value_or(probe_off_x_); }
  void controls();
  void plots(float height);
  void readout_table();
  /// The GLU block as a diagram, top to bottom in a column `width` wide and `height` tall: x → x·W and x·V →
  /// g → ⊙ → ·W_down → y. Its boxes, by name, go to meta() ("glu_diagram").
  void glu_diagram(float height, float width);
  std::vector<std::pair<std::string, ImVec4>> glu_boxes_;       // name, (min x, min y, max x, max y)
  std::vector<std::pair<std::string, std::string>> glu_edges_;  // from → to
  double minimum_x_ = 0, minimum_y_ = 0;                        // GELU's global minimum, from core
  // The panel's state (model/panel_states.hpp); its x and y ranges and the y scale live in the plots while
  // they draw (pan, zoom) and are read back into it by state().
  model::CurvesState st_;
  double probe_off_x_ = 1.0;             // where the probe comes back when it is switched on again
  std::vector<double> infl_x_, infl_y_;  // GELU's inflection points, drawn as a scatter
  std::string dip_key_;                  // what dip_x_, dip_y_ were sampled for (the range, the parameters)
  std::vector<double> dip_x_, dip_y_;    // the dip under the x axis, shaded
  plot::Axis shared_x_;
  plot::PlotState plot_[3];
};

}  // namespace gelu::app

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
  model::CurvesState current() const;
  void apply(const model::CurvesState& s);
  void controls();
  void plots(float height);
  void readout_table();
  /// The GLU block as a diagram, top to bottom in a column `width` wide and `height` tall: x → x·W and x·V →
  /// g → ⊙ → ·W_down → y. Its boxes, by name, go to meta() ("glu_diagram").
  void glu_diagram(float height, float width);
  bool glu_diagram_ = false;
  std::vector<std::pair<std::string, ImVec4>> glu_boxes_;       // name, (min x, min y, max x, max y)
  std::vector<std::pair<std::string, std::string>> glu_edges_;  // from → to
  double minimum_x_ = 0, minimum_y_ = 0;                        // GELU's global minimum, from core
  std::vector<Fn> fns_;
  bool show_order_[3] = {true, false, false};
  bool probe_on_ = true, shade_dip_ = true, shade_dead_ = true, inflections_ = true;
  double probe_x_ = 1.0;
  std::vector<double> infl_x_, infl_y_;  // GELU's inflection points, drawn as a scatter
  plot::Axis shared_x_;
  plot::PlotState plot_[3];
};

}  // namespace gelu::app

// Designer: fit your own GELU (gelu/fit.hpp). Form, degree, range, clamp, weight and format as controls; a
// live refit on DesignerLab's worker thread (model/designer_lab.hpp) at every change; the error curve with
// its equioscillation points and extrema marked; the coefficient table with hex floats; the cost; a Pareto
// plot of cost against maximum error with every zoo entry and every candidate kept in this session; "Add to
// comparison" (the candidate becomes a zoo entry the Approximations and Precision panels show); certification
// by Sollya on request; export as C++, GLSL, CUDA C and test vectors with the gelulab check command.
#pragma once

#include <string>
#include <vector>

#include "gui/panels/panel.hpp"
#include "model/designer_lab.hpp"
#include "model/panel_states.hpp"

namespace gelu::app {

class DesignerPanel : public Panel {
 public:
  DesignerPanel();
  static constexpr const char* kId = "designer";
  void drawContent() override;
  void load_state(const json::Value& state) override { set_state(state); }
  json::Value state() const override;
  /// Applies a state; candidates marked "compared" join the comparison (announced to the Approximations and
  /// Precision panels, which add them to their lists).
  void set_state(const json::Value& state) override;
  /// Applies a state; its compared candidates are registered (not announced) by restored().
  void restore_state(const json::Value& state) override;
  void restored() override;
  json::Object meta() const override;
  bool animating() const override { return dirty_ || points_dirty_ || cr_dirty_ || lab_.running(); }
  /// Fits on the calling thread, so the still frame shows the candidate.
  void settle_for_shot() override;
  std::string shot_limit_error() const override;

 private:
  void controls();
  void spec_controls();
  void candidate_controls();
  void export_controls();
  void error_plot(ImVec2 size);
  void coefficient_table(ImVec2 size);
  void pareto_plot(ImVec2 size);
  void cr_controls();
  void cr_plot(ImVec2 size);
  void keep(bool compare);
  void apply(const json::Value& state);
  void changed() { dirty_ = true; }
  unsigned int kept_color(std::size_t i) const;

  model::DesignerState st_;
  DesignerLab lab_;
  DesignerSnapshot snap_;
  bool dirty_ = true, points_dirty_ = true;
  bool compact_ = false;  // the last frame drew the compact layout (a projector's 3× text: no Pareto plot)
  std::string note_, check_;
  plot::PlotState err_, pareto_;
  plot::Range shown_range_{0, 0};  // the fitted range the error plot was last fitted to
  bool shown_log_ = false;
  // The correctly rounded target (panel-local, not in the session): on/off, the format (an index of
  // kCrFormats; f32 with fma); the band the plot draws, rebuilt when a new result arrives.
  bool cr_on_ = false, cr_dirty_ = false;
  int cr_format_ = 0;
  plot::PlotState cr_plot_;
  [[maybe_unused]] const void* cr_shown_ = nullptr;  // the result the band below was built from
  std::vector<double> cr_x_, cr_lo_, cr_hi_, cr_y_, cr_breaks_;
  struct Mark {
    std::string plot, kind, label;
    unsigned int color = 0;
    double x = 0, y = 0;
  };
  std::vector<Mark> marks_;  // what the last frame drew (meta)
};

}  // namespace gelu::app

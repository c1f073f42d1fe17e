// Approximations: exact GELU vs the tanh form vs the sigmoid form vs a user-tuned coefficient, with their
// error curves (abs, rel, ULP; log y) in a linked plot below, max-error markers, float32 vs float64, a
// "fit" button minimizing the max error on the visible range (analysis::fit_minimax, model/designer_lab.hpp),
// CPU vs GPU when gelu::gpu is linked, and zoo entries compared beside them (the Designer's candidates arrive
// here through "Add to comparison", model/comparison.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/zoo.hpp"
#include "gui/panels/panel.hpp"
#include "model/panel_states.hpp"

namespace gelu::app {

class ApproxPanel : public Panel {
 public:
  ApproxPanel();
  static constexpr const char* kId = "approx";
  void drawContent() override;
  void load_state(const json::Value& state) override;
  json::Value state() const override;
  json::Object meta() const override;

 public:
  struct MaxError {
    double x = 0, value = 0;  // where the largest error is, and how large
  };

 private:
  bool shown_[2] = {true, true};  // functions, errors: drawn in the last frame (a lesson step may hide one)
  using ErrorMetric = analysis::ErrorMetric;
  struct Series {
    std::string label;
    const Activation* a;
    Params p;
    unsigned int color;
    MaxError max;  // on the visible range, this frame
  };
  /// The state with the plots' ranges and the comparison's newest entries in it (what state() writes).
  model::ApproxState synced() const;
  ErrorMetric metric() const;
  bool is_f32() const { return st_.dtype == "f32"; }
  bool tuned_sigmoid() const { return st_.tuned_form == "sigmoid"; }  // else the tanh form's c is tuned
  void controls();
  void fit();
  std::vector<Series> series() const;
  const Activation* exact_;
  const Activation* tanh_;
  const Activation* sigmoid_;
  // The panel's state (model/panel_states.hpp); its ranges live in the plots while they draw (pan, zoom) and
  // are read back into it by state().
  model::ApproxState st_;
  std::string fit_text_;
  std::string gpu_status_;
  plot::Axis shared_x_;
  plot::PlotState fplot_, eplot_;
  std::vector<Series> last_;  // what the last frame drew (for meta)
  struct MaxKey {
    plot::Range range;
    ErrorMetric metric;
    bool f32;
    const Activation* a;
    Params p;
    bool operator==(const MaxKey&) const = default;
  };
  std::vector<std::pair<MaxKey, MaxError>> max_cache_;
  // Zoo entries compared (state key "compare"), their entries as of the last comparison generation, and the
  // largest error of each on view (cached like the forms').
  struct Compared {
    std::string id, label;
    std::optional<zoo::Entry> entry;  // empty: not in the zoo (a candidate whose Designer state is absent)
    unsigned int color = 0;
    MaxError max;
    plot::Range range{0, 0};
    ErrorMetric metric = ErrorMetric::Abs;
    bool f32 = false, measured = false;
  };
  void refresh_compared();
  void compare_controls();
  std::vector<Compared> compared_;
  std::uint64_t compare_generation_ = 0;
  bool compare_dirty_ = true;
  void gpu_series(plot::Plot& p, plot::Range xr);
  plot::Range gpu_range_{0, 0};
  ErrorMetric gpu_metric_ = ErrorMetric::Abs;
  std::vector<double> gpu_x_, gpu_err_[2];
  double gpu_max_ulp_[2] = {NAN, NAN};
};

}  // namespace gelu::app

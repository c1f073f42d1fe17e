// FFN lab: train two tiny networks side by side on a 2-D classification dataset and watch them learn.
// Dataset picker (click adds a point, shift-click one of the other class, ctrl-click removes one), a
// network editor (widths, activation per layer, GLU, stochastic GELU, optimizer, learning rate),
// play/pause/step/reset, overlaid loss curves, decision heatmaps drawn as GL textures with the data on
// top, per-layer activation histograms with dead-unit counts, and a CPU/GPU backend switch. The training
// itself runs on FfnLab's worker thread (ffn_lab.hpp).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "gui/kit/ffn_heatmap.hpp"
#include "gui/panels/panel.hpp"
#include "model/ffn_lab.hpp"
#include "model/panel_states.hpp"

namespace gelu::app {

class FfnPanel : public Panel {
 public:
  FfnPanel();
  static constexpr const char* kId = "ffn";
  void drawContent() override;
  void load_state(const json::Value& state) override { set_state(state); }
  json::Object meta() const override;
  bool animating() const override { return lab_.running(); }
  /// Trains deterministically for `shot_steps` (state key "shot_steps", default 300) before a still frame.
  void settle_for_shot() override;
  std::string shot_limit_error() const override;

  /// What the user set: dataset, point edits, architecture, both nets, optimizer, backend.
  json::Value state() const override;
  /// Applies a state() (absent keys keep their values) and restarts training from fresh weights.
  void set_state(const json::Value& state) override;

 private:
  // heatA, heatB, loss, layers, hiddenA, hiddenB: drawn in the last frame (a lesson step may hide some).
  bool shown_[6] = {true, true, true, true, false, false};
  void hidden_plot(int i, ImVec2 size);
  plot::PlotState hidden_[2];
  std::array<std::vector<std::vector<double>>, 2> hidden_pts_x_, hidden_pts_y_;
  std::uint64_t hidden_fit_version_[2] = {0, 0};
  void controls();
  void net_editor();
  void net_choice(int i);
  void heatmap_view(int i, ImVec2 size);
  void hover_prediction(const ffn::GridOutput& g, const plot::Transform& tf, bool hovered) const;
  void loss_plot(ImVec2 size);
  void layer_plot(ImVec2 size);
  void changed(bool reset);

  // The panel's state (model/panel_states.hpp): the lab's configuration, the steps a shot trains, whether it
  // plays — as the user or the state asked: state() writes it, so a session saved before the training
  // thread has looked at the nets is the state that was given (the lab's own flag drops when it cannot
  // train, and controls() follows it the next frame) — and the hidden layer shown, 1-based as asked (a
  // session's, a lesson's; shown_layer() clamps it to the configured layers).
  model::FfnState st_;
  FfnLab lab_;
  LabSnapshot snap_;
  std::array<HeatmapTexture, 2> heat_;
  std::array<std::uint64_t, 2> heat_version_{0, 0};
  int steps_per_click_ = 10;
  bool gpu_available_ = false;
  std::string gpu_note_;
  std::array<ImVec2, 2> heat_min_{}, heat_max_{};  // last drawn heatmap rectangles
  std::array<plot::PlotState, 2> heat_plot_;
  plot::PlotState loss_, layers_;
  std::vector<std::vector<double>> train_x_, train_y_, test_x_, test_y_;  // per class
  std::array<std::vector<double>, 2> hist_x_, hist_y_;
  int shown_layer() const;
  std::uint64_t layers_version_ = 0;
};

}  // namespace gelu::app

// Dropout view: GELU as the expected value of a random mask. Φ(x) and 1 − Φ(x); masks m ~ Bernoulli(Φ(x))
// sampled live with the running mean of x·m converging to GELU(x) inside its confidence band; and a
// Gaussian pre-activation N(μ, σ) pushed through GELU and ReLU, with both output histograms and means.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "gelu/stochastic.hpp"
#include "gui/panels/panel.hpp"
#include "model/panel_states.hpp"

namespace gelu::app {

class DropoutPanel : public Panel {
 public:
  DropoutPanel();
  static constexpr const char* kId = "dropout";
  void drawContent() override;
  void load_state(const json::Value& state) override;
  json::Value state() const override;
  json::Object meta() const override;
  bool animating() const override { return state_.playing && stream_.count() < max_samples_; }
  void settle_for_shot() override;

 private:
  void controls();
  void mask_grid();
  bool shown_[3] = {true, true, false};  // keep, convergence, histograms: drawn in the last frame
  bool mask_grid_shown_ = true;
  void restart();
  void draw(std::uint64_t n);
  void probability_plot(ImVec2 size);
  void convergence_plot(ImVec2 size);
  void histogram_plot(ImVec2 size);
  void update_histograms();

  model::DropoutState state_;  // x0, masks for a shot, seed, μ and σ, rate, playing, the histograms shown
  std::uint64_t max_samples_ = model::DropoutState::kMaxSamples;
  static constexpr std::size_t kRecentMasks = 60;  // masks shown in the grid
  stochastic::GateStream stream_;
  stochastic::MonteCarloResult mc_;           // the estimator over the stream's draws so far (core's)
  std::vector<double> ns_, means_, lo_, hi_;  // running mean and its 95% band, from the core estimator

  double hist_mu_ = NAN, hist_sigma_ = NAN;  // the N(μ, σ) the histograms were made for
  std::vector<double> bin_x_, gelu_h_, bin_edges_, relu_h_;
  double relu_zero_mass_ = 0, bin_w_ = 0, mean_gelu_ = 0, mean_relu_ = 0;

  plot::PlotState prob_, conv_, hist_;
};

}  // namespace gelu::app

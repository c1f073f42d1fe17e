// Benchmarks: live timings of every registry function on four paths — CPU scalar (the float scalar
// evaluator in a loop: the double formula rounded once), CPU vectorized (the registry's batched float
// path; for gelu the SIMD kernels of gelu::simd), GPU kernel-only and GPU end to end — at sizes from 1K to
// 64M elements. Bars with min/median/max whiskers, throughput against the measured host copy bandwidth
// (the physical limit for a one-read-one-write kernel), a history strip of every measurement, progress and
// a Stop button, CSV/JSON export. The measuring runs on BenchRunner's worker thread (bench_runner.hpp).
#pragma once

#include <string>
#include <vector>

#include "gui/panels/panel.hpp"
#include "model/bench_runner.hpp"
#include "model/panel_states.hpp"

namespace gelu::app {

class BenchPanel : public Panel {
 public:
  BenchPanel();
  static constexpr const char* kId = "bench";
  void drawContent() override;
  void load_state(const json::Value& state) override { set_state(state); }
  json::Object meta() const override;
  std::string gpu_line() const;  // the "GPU:" line: the renderer measured, or why there is none
  bool animating() const override { return runner_.running(); }
  /// Runs the selected (small) benchmark synchronously so the still frame shows its results.
  void settle_for_shot() override;
  std::string shot_limit_error() const override;

  /// What the user set: functions, backends, sizes, repetitions, the size shown in the bars, export path.
  json::Value state() const override;
  void set_state(const json::Value& state) override;

 private:
  void controls();
  void bars_plot(ImVec2 size);
  void size_plot(ImVec2 size);
  void history_plot(ImVec2 size);
  void export_files();

  // The panel's state (model/panel_states.hpp): the sweep's configuration, the size and function the plots
  // show, the exports' base name; its GPU rows are off by default when the GPU backend is not built.
  model::BenchState st_;
  BenchRunner runner_;
  BenchSnapshot snap_;
  bool size_picked_ = false;  // the user chose the bars' size (else they follow the largest measured)
  std::string export_note_;
  plot::PlotState bars_, sizes_, history_;
  std::vector<double> bar_x_, bar_med_, bar_lo_, bar_hi_;  // what the bar plot drew last (meta)
  std::vector<int> bar_backend_;
  double bar_width_ = 0;
  float bars_area_lines_ = 100;  // the bar plot's data-area height last frame, in text lines
};

}  // namespace gelu::app

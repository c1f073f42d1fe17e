// Every panel's state as plain data (no ImGui), with its field table (state_schema.hpp). What a panel state
// file, a lesson step, a session and `gelulab shot --help` say about a panel comes from here; the panels in
// gui/panels hold one of these and draw it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/bench_runner.hpp"
#include "model/ffn_lab.hpp"
#include "model/state_schema.hpp"
#include "plot/plot_core.hpp"

namespace gelu::app::model {

/// The registry's featured functions (Activation::featured), in registry order: what the panels show first.
std::vector<std::string> featured_functions();

/// Curves: registry functions with f, f′, f″.
struct CurvesState {
  plot::Range x{-4, 3}, y{-0.6, 3};  // x is shared by the stacked plots; y is f's plot
  std::vector<std::string> functions = featured_functions();  // shown, in registry order
  std::map<std::string, double> params;                       // "gelu_tanh.c" → value; defaults omitted
  std::optional<double> probe = 1.0;                          // nullopt: no probe
  bool d1 = false, d2 = false;                                // the f′ and f″ plots
  bool shade_dip = true, shade_dead = true, symlog = false;
};
const Schema<CurvesState>& curves_schema();

/// Approximations: exact GELU against its tanh and sigmoid forms and a tuned coefficient.
struct ApproxState {
  plot::Range x{-6, 6}, y{-0.5, 3}, error_y{1e-8, 0.3};
  std::string metric = "abs";  // abs|rel|ulp
  bool log = true;             // log error axis
  std::string dtype = "f64";   // f64|f32 (the precision lab covers the 16- and 8-bit formats)
  std::string tuned_form = "sigmoid";
  double tuned = 1.6;  // k of the sigmoid form or c of the tanh form
  bool gpu = false;
};
const Schema<ApproxState>& approx_schema();

/// Dropout view: GELU as the expected value of a Bernoulli(Φ(x)) mask.
struct DropoutState {
  static constexpr std::uint64_t kMaxSamples = 100000;
  double x0 = 1.0;
  std::uint64_t samples = 3000;  // masks drawn for a still shot
  std::uint64_t seed = 1;
  double mu = 0.5, sigma = 1.0;  // the Gaussian pushed through GELU and ReLU
  int rate = 10;                 // masks per frame while playing
  bool playing = true;
};
const Schema<DropoutState>& dropout_schema();

/// FFN lab: the lab's configuration plus what a shot trains.
struct FfnState {
  LabConfig cfg;
  int shot_steps = 300;
  bool playing = false;
};
const Schema<FfnState>& ffn_schema();

/// Benchmarks: the sweep's configuration plus what the plots show.
struct BenchState {
  BenchConfig cfg = [] {
    BenchConfig c;
    c.functions = featured_functions();
    return c;
  }();
  std::size_t shown_size = std::size_t{1} << 20;
  std::string shown_function = "gelu";
  std::string export_base = "gelulab-bench";
};
const Schema<BenchState>& bench_schema();

}  // namespace gelu::app::model

// Every panel's state as plain data (no ImGui), with its field table (state_schema.hpp). What a panel state
// file, a lesson step, a session and `gelulab shot --help` say about a panel comes from here; the panels in
// gui/panels hold one of these and draw it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gelu/fit.hpp"
#include "model/backends.hpp"
#include "model/bench_runner.hpp"
#include "model/designer_lab.hpp"
#include "model/ffn_lab.hpp"
#include "model/precision_lab.hpp"
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
  bool inflections = true;  // mark GELU's inflection points (f″ = 0) on f
  bool glu_diagram = false;  // the GLU block as a diagram above the plots (x → W and V → g → ⊙ → W_down)
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
  std::vector<std::string>
      compare;  // zoo entries shown beside the forms (the Designer's "Add to comparison")
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
  bool gaussian = true;  // show the N(μ, σ) histograms below the two plots of x
};
const Schema<DropoutState>& dropout_schema();

/// FFN lab: the lab's configuration plus what a shot trains.
struct FfnState {
  LabConfig cfg;
  int shot_steps = 300;
  bool playing = false;
  int layer = 1;  // the hidden layer the histogram shows (1-based; clamped to the layers there are)
};
const Schema<FfnState>& ffn_schema();

/// Benchmarks: the sweep's configuration plus what the plots show.
struct BenchState {
  // The default a fresh panel starts from, so a state read into it saves what the panel saves: without the
  // GPU backend built, the GPU rows are off (fuzz_session_roundtrip found the two disagreeing).
  BenchConfig cfg = [] {
    BenchConfig c;
    c.functions = featured_functions();
    if (!gpu_built()) c.backends[2] = c.backends[3] = false;
    return c;
  }();
  std::size_t shown_size = std::size_t{1} << 20;
  std::string shown_function = "gelu";
  std::string export_base = "gelulab-bench";
};
const Schema<BenchState>& bench_schema();

/// Precision: zoo entries in the storage formats models use, exhaustively.
struct PrecisionState {
  PrecisionConfig cfg;
  plot::Range x{-12, 6};  // the ULP plot's x range
  std::string export_base = "gelulab-precision";
  // The block view (lower row in place of int8 and cost): GELU's and SiLU's lobe stored in one block.
  bool block_view = false;
  std::string block_format = "mxfp4";
  double block_max = 3;  // the block's largest magnitude
  // Two rounding-point chains ACC:COMPUTE:STORE side by side on the same inputs (beside the block view).
  std::string chain_a = "f32:f32:mxfp4", chain_b = "bf16:bf16:bf16";
  bool chain_backward = false;           // GELU′ through the chains (the backward pass)
  std::string block_table = "survival";  // beside the block view: "survival" (per format) or "chains"
};
const Schema<PrecisionState>& precision_schema();
/// The text a Precision panel computes for a lesson step ({key} in its text; see model/lessons.hpp):
///   verdict:ENTRY[:FORMAT]  the entry's verdict line in FORMAT (default: the first format) over the x range
///                           the plots show (the step's "x"), wrong results at overflow named apart
///   zero:ENTRY[:FORMAT]     where the entry's result becomes 0 ("x = −5.54"), or "nowhere"
///   maxulp:ENTRY[:FORMAT]   the largest ULP error over the x range the plots show, overflow apart ("12 ULP")
///   overflow:ENTRY[:FORMAT] over every value of the format: which inputs an intermediate overflow makes
///                           wrong ("16384 inputs with |x| ≥ 7.01e+12 are wrong: …"), or that none does
///   lobe:ENTRY              the int8 view: "k of n lobe codes, max error m LSB"
/// Empty when `state` (a precision state) has that entry and format, else why not.
std::string precision_text_problem(const json::Value& state, std::string_view key);
/// A computed-text key split at its colons: "verdict:tanh_form:bf16" → {"verdict", "tanh_form", "bf16"}.
std::vector<std::string> text_key_parts(std::string_view key);

/// A designer request (gelu::fit::Spec) as a field table: the Designer's controls, and the spec inside each
/// saved candidate.
const Schema<fit::Spec>& fit_spec_schema();

/// A candidate the user kept: its zoo id and whether it is in the comparison (a zoo entry of its own).
struct KeptCandidate {
  std::string id;
  bool compared = false;
  std::shared_ptr<const fit::Candidate> c;
};
/// The Designer's default request: GELU by 0.5·x + a degree-6 polynomial in |x| on [−4, 4], f32 coefficients.
fit::Spec default_designer_spec();

/// Designer: a fit's request, the candidates kept in this session, and the export's names.
struct DesignerState {
  static constexpr std::size_t kMaxCandidates = 32;
  fit::Spec spec = default_designer_spec();
  std::vector<KeptCandidate> candidates;
  bool log_error = false;  // the error plot: |error| on a log axis instead of the signed error
  std::string export_name = "gelu_fit";
  std::string export_base = "gelulab-fit";
};
const Schema<DesignerState>& designer_schema();

}  // namespace gelu::app::model

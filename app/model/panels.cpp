// The panel list (see panels.hpp).
#include "model/panels.hpp"

#include <vector>

#include "model/panel_states.hpp"
#include "model/precision_lab.hpp"

namespace gelu::app::model {
namespace {

template <class S>
PanelKind kind(const char* id, const char* title, const Schema<S>& (*schema)()) {
  return {id,
          title,
          [schema](const json::Value& state) {
            S s;
            schema().read(state, s);
          },
          [schema] { return schema().help(); },
          [schema] { return schema().write(S{}); },
          [schema](SampleRng& rng) { return schema().sample(rng); },
          [schema](const json::Value& state) { return schema().normalized(state); },
          nullptr,
          {},
          {}};
}

PanelKind with_text(PanelKind k, std::string (*problem)(const json::Value&, std::string_view)) {
  k.computed_text_problem = problem;
  return k;
}

PanelKind with_view(PanelKind k, std::vector<std::string> plots, std::vector<std::string> controls = {}) {
  k.plots = std::move(plots);
  k.controls = std::move(controls);
  return k;
}

// The Precision panel's plots: one ULP plot per storage format ("ulp_bf16"), the int8 view and the cost plot,
// the block view.
std::vector<std::string> precision_plot_ids() {
  std::vector<std::string> ids;
  for (const std::string& f : precision_storage_formats()) ids.push_back("ulp_" + f);
  ids.push_back("int8");
  ids.push_back("cost");
  ids.push_back("block");
  return ids;
}

}  // namespace

std::span<const PanelKind> panel_kinds() {
  static const std::vector<PanelKind> kinds = {
      with_view(kind<CurvesState>("curves", "Curves", curves_schema), {"plot0", "plot1", "plot2"},
                {"readout"}),
      with_view(kind<ApproxState>("approx", "Approximations", approx_schema), {"functions", "errors"}),
      with_view(
          with_text(kind<PrecisionState>("precision", "Precision", precision_schema), precision_text_problem),
          precision_plot_ids(), {"verdicts", "survival", "chains"}),
      kind<DesignerState>("designer", "Designer", designer_schema),
      with_view(kind<DropoutState>("dropout", "Dropout view", dropout_schema),
                {"keep", "convergence", "histograms"}, {"mask_grid"}),
      with_view(kind<FfnState>("ffn", "FFN lab", ffn_schema),
                {"heatA", "heatB", "loss", "layers", "hiddenA", "hiddenB"}, {"layer_slider"}),
      kind<BenchState>("bench", "Benchmarks", bench_schema),
  };
  return kinds;
}

const PanelKind* find_panel_kind(std::string_view id) {
  for (const PanelKind& k : panel_kinds())
    if (id == k.id) return &k;
  return nullptr;
}

std::string panel_ids() {
  std::string s;
  for (const PanelKind& k : panel_kinds()) {
    if (!s.empty()) s += '|';
    s += k.id;
  }
  return s;
}

}  // namespace gelu::app::model

// The panel list (see panels.hpp).
#include "model/panels.hpp"

#include <vector>

#include "model/panel_states.hpp"

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
          nullptr};
}

PanelKind with_text(PanelKind k, std::string (*problem)(const json::Value&, std::string_view)) {
  k.computed_text_problem = problem;
  return k;
}

}  // namespace

std::span<const PanelKind> panel_kinds() {
  static const std::vector<PanelKind> kinds = {
      kind<CurvesState>("curves", "Curves", curves_schema),
      kind<ApproxState>("approx", "Approximations", approx_schema),
      with_text(kind<PrecisionState>("precision", "Precision", precision_schema), precision_text_problem),
      kind<DesignerState>("designer", "Designer", designer_schema),
      kind<DropoutState>("dropout", "Dropout view", dropout_schema),
      kind<FfnState>("ffn", "FFN lab", ffn_schema),
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

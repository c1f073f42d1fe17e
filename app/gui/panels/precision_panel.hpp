// Precision: zoo entries (gelu/zoo.hpp) as shipped, in the storage formats models run in — bf16, f16, fp8 —
// on every value of each format: the error in ULPs of the format against the correctly rounded GELU (one
// plot per format, log y), where exact GELU and each entry become 0 and where intermediates overflow
// (marked), a verdict line per entry and format, derivatives on a toggle, the int8 view (the codes GELU's
// negative lobe gets at a scale, and the error that follows), the whole zoo's cost against its error, the
// fitted constants beside the shipped ones, and the summary table as CSV and Markdown. The sweeps run on
// PrecisionLab's worker thread (model/precision_lab.hpp); this class holds the view and draws.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gui/panels/panel.hpp"
#include "model/panel_states.hpp"
#include "model/precision_lab.hpp"

namespace gelu::app {

class PrecisionPanel : public Panel {
 public:
  PrecisionPanel();
  static constexpr const char* kId = "precision";
  void drawContent() override;
  void load_state(const json::Value& state) override { set_state(state); }
  json::Value state() const override;
  void set_state(const json::Value& state) override;
  json::Object meta() const override;
  bool animating() const override { return dirty_ || lab_.running(); }
  /// Sweeps on the calling thread, so the still frame shows every result.
  void settle_for_shot() override;
  std::string shot_limit_error() const override;
  /// {verdict:ENTRY[:FORMAT]}, {zero:ENTRY[:FORMAT]}, {lobe:ENTRY} (model::precision_text_problem).
  std::string computed_text(std::string_view key) const override;

 private:
  void controls();
  void entry_list();
  void ulp_plot(const std::string& format, ImVec2 size, bool x_label);
  void verdict_table(ImVec2 size);
  void int8_plot(ImVec2 size);
  void cost_plot(ImVec2 size);
  void block_plot(ImVec2 size);      // the block view: the lobes stored in one block, its lattice
  void survival_table(ImVec2 size);  // the distribution view: surviving negative outputs per format
  const BlockView& block();          // the block view for st_'s format and max (recomputed when they change)
  void chain_controls();             // the two chains' formats and the backward pass
  void chain_table(ImVec2 size);     // the two chains side by side, the differences listed
  const ChainView& chains();         // for st_'s chains (recomputed when they change)
  unsigned int entry_color(const std::string& id) const;
  void changed();
  void sync_compared();  // entries added to the comparison join the list

  model::PrecisionState st_;
  PrecisionLab lab_;
  PrecisionSnapshot snap_;
  bool dirty_ = true;  // the config changed since the worker was last asked
  void slide_layout(ImVec2 avail);
  std::vector<std::string> slide_plots_;  // on a slide (ui::slide): the plots the last frame drew, in order
  bool slide_ = false;
  bool compact_ = false;  // the last frame drew the compact layout (a projector's text scale: fewer plots)
  std::uint64_t compare_generation_ = 0;
  std::string export_note_;
  plot::Axis shared_x_;
  // One per format, by name: the controls (drawn before the plots in the same frame) may add or remove a
  // format, so a plot finds its state by the format it draws, never by a position in st_.cfg.formats.
  std::map<std::string, plot::PlotState> ulp_plots_;
  plot::PlotState& ulp_state(const std::string& format);
  plot::PlotState int8_, cost_, block_;
  BlockView block_view_;
  std::optional<SurvivalView> survival_view_;  // computed on first use (~10 ms)
  std::optional<ChainView> chain_view_;        // computed when shown (~5 ms)
  // What the last frame drew (meta): per plot its series (label, colour, points) and markers.
  struct Drawn {
    std::string plot, kind, label;
    unsigned int color = 0;
    double x = 0, y = 0;
    std::size_t points = 0;
  };
  std::vector<Drawn> drawn_;
  // The ULP curves as drawn: per cell, the largest error in each pixel column of the visible range (zero
  // columns are gaps), cached until the view or the results change.
  struct Envelope {
    const PrecisionCell* cell = nullptr;
    plot::Range range{0, 0};
    int columns = 0;
    std::vector<double> x, y;
  };
  std::vector<Envelope> envelopes_;
  /// Verdicts over an x range (cell_verdict), kept until the next snapshot: the bar, the plot's labels and
  /// the table ask for them every frame.
  struct ShownVerdict {
    const PrecisionCell* cell;
    double lo, hi;
    precision::Verdict v;
  };
  mutable std::vector<ShownVerdict> verdicts_;
  precision::Verdict shown_verdict(const PrecisionCell& c, double lo, double hi) const;
  const Envelope& envelope(const PrecisionCell& c, plot::Range r, int columns);
};

}  // namespace gelu::app

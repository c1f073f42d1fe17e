// Precision panel (see precision_panel.hpp).
//
// Index of this file:
//   [SECTION] Controls
//   [SECTION] Plots and the verdict table
//   [SECTION] State and meta
#include "gui/panels/precision_panel.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "gelu/activation.hpp"
#include "gelu/numio.hpp"
#include "gui/kit/ui.hpp"
#include "model/comparison.hpp"

namespace gelu::app {

namespace {

constexpr ImU32 kExact = IM_COL32(20, 20, 20, 255);
constexpr ImU32 kOtherZoo = IM_COL32(150, 150, 150, 255);
constexpr ImU32 kCandidate = IM_COL32(148, 103, 189, 255);
constexpr double kMaxShotSweeps16 = 96;  // 16-bit sweeps (with their tails) a headless shot runs: ~50 ms each

std::string g3(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return plot::unicode_minus(b);
}

std::string pct(std::size_t k, std::size_t n) {
  char b[32];
  const double p = n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0;
  std::snprintf(b, sizeof b, p > 0 && p < 0.01 ? "%.1e%%" : "%.3g%%", p);
  return b;
}

bool enumerable16(const std::string& format) {
  return format == "bf16" || format == "f16";
}

}  // namespace

PrecisionPanel::PrecisionPanel() : Panel(kId) {
  shared_x_.range = st_.x;
  int8_.y_fixed = true;
  cost_.y.scale = plot::Scale::Log10;
  cost_.legend_anchor = ImVec2(1, 0);
  int8_.legend_anchor = ImVec2(1, 1);
  cost_.labels_near = true;  // 16 labelled dots, several at one cost
  compare_generation_ = comparison_generation();
  changed();
}

void PrecisionPanel::changed() {
  dirty_ = true;  // the next frame asks the worker (a panel that is never drawn sweeps nothing)
}

unsigned int PrecisionPanel::entry_color(const std::string& id) const {
  const auto it = std::find(st_.cfg.entries.begin(), st_.cfg.entries.end(), id);
  if (it == st_.cfg.entries.end()) return kOtherZoo;
  return plot::palette(static_cast<int>(it - st_.cfg.entries.begin()));
}

std::string PrecisionPanel::shot_limit_error() const {
  double sweeps = 0;
  for (const std::string& f : st_.cfg.formats) sweeps += enumerable16(f) ? 1 : 0;
  sweeps *= static_cast<double>(st_.cfg.entries.size());
  if (sweeps <= kMaxShotSweeps16) return {};
  char buf[200];
  std::snprintf(
      buf, sizeof buf,
      "the precision state asks for %.0f exhaustive 16-bit sweeps (entries x bf16/f16 formats), more "
      "than the %.0f a headless shot runs (fewer entries or formats)",
      sweeps, kMaxShotSweeps16);
  return buf;
}

void PrecisionPanel::settle_for_shot() {
  sync_compared();
  lab_.run_now(st_.cfg);
  dirty_ = false;
}

std::string PrecisionPanel::computed_text(std::string_view key) const {
  const std::vector<std::string> parts = model::text_key_parts(key);
  if (parts.size() < 2 || !(snap_.cfg == st_.cfg)) return {};  // results for another config: not yet
  if (parts[0] == "lobe") {
    for (const auto& c : snap_.int8)
      if (c->entry == parts[1] && c->error.empty()) {
        char b[160];
        std::snprintf(b, sizeof b, "%d of %d lobe codes, max error %s LSB", c->view.lobe_codes_reached,
                      c->view.lobe_codes, g3(c->view.ulp.max).c_str());
        return b;
      }
    return {};
  }
  const std::string format = parts.size() > 2 ? parts[2] : st_.cfg.formats.empty() ? "" : st_.cfg.formats[0];
  const PrecisionCell* c = snap_.cell(parts[1], format);
  if (!c) return {};
  if (!c->error.empty()) return c->error;
  // Over the x range the plots show: what the class sees is what the sentence is about.
  const plot::Range xr = shared_x_.range;
  if (parts[0] == "verdict") return shown_verdict(*c, xr.min, xr.max).text;
  if (parts[0] == "zero") return c->tails.first_zero ? "x = " + g3(*c->tails.first_zero) : "nowhere";
  if (parts[0] == "maxulp") return g3(shown_verdict(*c, xr.min, xr.max).max_ulp) + " ULP";
  if (parts[0] == "overflow") {
    const precision::Verdict all = shown_verdict(*c, -INFINITY, INFINITY);
    if (!all.overflow_text.empty()) return all.overflow_text;
    if (c->overflow_x.empty()) return "no intermediate overflows in " + std::string(c->compute_format.name());
    return "an intermediate overflows in " + std::string(c->compute_format.name()) + " at " +
           std::to_string(c->overflow_x.size()) + " inputs, every result there still right";
  }
  return {};
}

precision::Verdict PrecisionPanel::shown_verdict(const PrecisionCell& c, double lo, double hi) const {
  for (const ShownVerdict& k : verdicts_)
    if (k.cell == &c && k.lo == lo && k.hi == hi) return k.v;
  if (verdicts_.size() > 64) verdicts_.clear();
  verdicts_.push_back({&c, lo, hi, cell_verdict(c, lo, hi)});
  return verdicts_.back().v;
}

// [SECTION] Controls

void PrecisionPanel::entry_list() {
  const float em = ui::em();
  ImGui::BeginChild("entries", ImVec2(0, 9.5f * em), true);
  if (snap_.catalog.empty()) ImGui::TextDisabled("reading the zoo…");
  for (const ZooEntryInfo& e : snap_.catalog) {
    bool on = std::find(st_.cfg.entries.begin(), st_.cfg.entries.end(), e.id) != st_.cfg.entries.end();
    ImGui::PushID(e.id.c_str());
    ImGui::PushStyleColor(ImGuiCol_CheckMark, entry_color(e.id));
    if (ImGui::Checkbox("##on", &on)) {
      std::erase(st_.cfg.entries, e.id);
      if (on) st_.cfg.entries.push_back(e.id);
      changed();
    }
    ui::mark("check:" + e.id);
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text,
                          on ? entry_color(e.id) : (e.user ? kCandidate : ImGui::GetColorU32(ImGuiCol_Text)));
    ImGui::TextUnformatted(e.id.c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\n%s\n%s\ncost: %s%s", e.name.c_str(), e.formula.c_str(), e.used_in.c_str(),
                        e.cost_text.c_str(), e.has_d1 ? "" : "\n(no f′: skipped under derivatives)");
    ImGui::PopID();
  }
  for (const std::string& id : snap_.missing) ImGui::TextDisabled("%s (not in this session)", id.c_str());
  ImGui::EndChild();
}

void PrecisionPanel::controls() {
  const float em = ui::em();
  ui::heading("Storage formats");
  ui::help_marker(
      "Every finite value of each format is an input (65,280 for bf16, 63,488 for f16, 254 for e4m3). The "
      "entry runs with its intermediates in the compute format, its result is rounded once to the storage "
      "format, and the error is the number of values of that format between it and the correctly rounded "
      "GELU (0: identical).");
  const auto& formats = precision_storage_formats();
  for (std::size_t i = 0; i < formats.size(); ++i) {
    bool on = std::find(st_.cfg.formats.begin(), st_.cfg.formats.end(), formats[i]) != st_.cfg.formats.end();
    if (ImGui::Checkbox(formats[i].c_str(), &on)) {
      std::vector<std::string> next;
      for (const std::string& f : formats)
        if (f == formats[i]
                ? on
                : std::find(st_.cfg.formats.begin(), st_.cfg.formats.end(), f) != st_.cfg.formats.end())
          next.push_back(f);
      if (!next.empty()) {
        st_.cfg.formats = next;
        changed();
      }
    }
    ui::mark("check:" + formats[i]);
    if (i + 1 < formats.size()) ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(-7.5f * em);
  const std::string shown = st_.cfg.compute == "auto" ? "auto (f32)" : st_.cfg.compute;
  if (ImGui::BeginCombo("compute in", shown.c_str())) {
    for (const std::string& c : precision_compute_formats())
      if (ui::marked("option:compute:" + c,
                     ImGui::Selectable(c == "auto" ? "auto (f32, as frameworks upcast)" : c.c_str(),
                                       c == st_.cfg.compute))) {
        st_.cfg.compute = c;
        changed();
      }
    ImGui::EndCombo();
  }
  ui::mark("combo:compute");
  bool d1 = st_.cfg.order == 1;
  if (ImGui::Checkbox("derivatives: f′ against GELU′", &d1)) {
    st_.cfg.order = d1 ? 1 : 0;
    changed();
  }
  ui::mark("check:derivatives");

  ui::heading("Zoo entries");
  entry_list();

  ui::heading("int8 view");
  ImGui::SetNextItemWidth(-3.5f * em);
  double scale = st_.cfg.int8_scale;
  const double lo = 1e-3, hi = 0.25;
  if (ImGui::SliderScalar("scale", ImGuiDataType_Double, &scale, &lo, &hi, "%.5f",
                          ImGuiSliderFlags_Logarithmic)) {
    st_.cfg.int8_scale = scale;
    changed();
  }
  ui::mark("slider:int8_scale");

  ui::heading("Block view");
  ui::help_marker(
      "GELU's and SiLU's negative lobe stored in one block of a block-scaled format (OCP MX v1.0, NVFP4) "
      "whose largest magnitude is the block max: the block's scale follows the max, and outputs below half "
      "the block's smallest step are stored as 0. The distribution view stores normal(0, 1) pre-activations' "
      "outputs block by block and counts the negative outputs that survive.");
  ui::marked("check:block_view", ImGui::Checkbox("show the block view", &st_.block_view));
  {
    const auto& names = precision_block_formats();
    std::vector<const char*> items;
    for (const std::string& n : names) items.push_back(n.c_str());
    int cur = static_cast<int>(std::find(names.begin(), names.end(), st_.block_format) - names.begin());
    if (cur >= static_cast<int>(names.size())) cur = 0;
    ImGui::SetNextItemWidth(-5.5f * em);
    if (ui::combo("block_format", "format", &cur, items))
      st_.block_format = names[static_cast<std::size_t>(cur)];
    ImGui::SetNextItemWidth(-5.5f * em);
    const double bmin = 0.0625, bmax = 64;
    ImGui::SliderScalar("block max", ImGuiDataType_Double, &st_.block_max, &bmin, &bmax, "%.4g",
                        ImGuiSliderFlags_Logarithmic);
    ui::mark("slider:block_max");
    st_.block_max = std::clamp(st_.block_max, bmin, bmax);
  }
  chain_controls();

  ui::heading("Fitted constants");
  ui::help_marker(
      "The shipped constants were fitted to Φ; these are fitted to GELU itself (minimax on [−8, 8], "
      "analysis::fit_minimax), with the largest |f − GELU| of each.");
  const zoo::FittedConstants& k = snap_.constants;
  if (k.tanh_c > 0) {
    ui::text_wrapped("tanh c: 0.044715 (%s) → %.7f (%s)", g3(k.shipped_tanh_error).c_str(), k.tanh_c,
                     g3(k.tanh_c_error).c_str());
    ui::text_wrapped("tanh a, c: %.6f, %.7f (%s)", k.tanh_a, k.tanh_ac_c, g3(k.tanh_ac_error).c_str());
    ui::text_wrapped("sigmoid k: 1.702 (%s) → %.5f (%s)", g3(k.shipped_sigmoid_error).c_str(), k.sigmoid_k,
                     g3(k.sigmoid_k_error).c_str());
  }

  ui::heading("Summary table");
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s", st_.export_base.c_str());
  ImGui::SetNextItemWidth(-4 * em);
  if (ui::marked("input:name", ImGui::InputText("name", buf, sizeof buf)) && buf[0]) st_.export_base = buf;
  ImGui::BeginDisabled(snap_.running || snap_.cells.empty());
  if (ImGui::Button("Save CSV + Markdown")) export_note_ = export_summary(snap_, st_.export_base);
  ImGui::EndDisabled();
  ui::mark("button:export");
  if (!export_note_.empty()) {
    ui::text_wrapped_disabled("%s", export_note_.c_str());
  }
  const float frac =
      snap_.total > 0 ? static_cast<float>(snap_.done) / static_cast<float>(snap_.total) : 1.0f;
  char over[64];
  std::snprintf(over, sizeof over, snap_.running ? "sweeping %d / %d" : "%d / %d done", snap_.done,
                snap_.total);
  ImGui::ProgressBar(snap_.running ? frac : 1.0f, ImVec2(-1, 0), over);
  if (snap_.running && !snap_.current.empty()) ImGui::TextDisabled("%s", snap_.current.c_str());
}

// [SECTION] Plots and the verdict table

const PrecisionPanel::Envelope& PrecisionPanel::envelope(const PrecisionCell& c, plot::Range r, int columns) {
  for (const Envelope& e : envelopes_)
    if (e.cell == &c && e.range == r && e.columns == columns) return e;
  Envelope e;
  e.cell = &c;
  e.range = r;
  e.columns = columns;
  // The largest error in each pixel column, at the x where it occurs; a NaN between runs of non-zero columns.
  const auto begin = std::lower_bound(c.x.begin(), c.x.end(), r.min);
  int col = -1;
  double best = 0, best_x = 0;
  bool gap = true;
  auto flush = [&] {
    if (col < 0) return;
    if (best > 0) {
      e.x.push_back(best_x);
      e.y.push_back(best);
      gap = false;
    } else if (!gap) {
      e.x.push_back(best_x);
      e.y.push_back(NAN);
      gap = true;
    }
  };
  for (auto it = begin; it != c.x.end() && *it <= r.max; ++it) {
    const std::size_t i = static_cast<std::size_t>(it - c.x.begin());
    const int k = std::clamp(static_cast<int>((*it - r.min) / r.size() * columns), 0, columns - 1);
    if (k != col) {
      flush();
      col = k;
      best = 0;
      best_x = *it;
    }
    if (c.ulp[i] > best) best = c.ulp[i], best_x = *it;
  }
  flush();
  if (envelopes_.size() > 64) envelopes_.clear();
  envelopes_.push_back(std::move(e));
  return envelopes_.back();
}

void PrecisionPanel::ulp_plot(const std::string& format, ImVec2 size, bool x_label) {
  plot::PlotState& ps = ulp_state(format);
  std::vector<const PrecisionCell*> cells;
  for (const auto& c : snap_.cells)
    if (c->format == format && c->error.empty()) cells.push_back(c.get());
  ps.y.scale = plot::Scale::Log10;
  std::size_t n = 0;
  for (const PrecisionCell* c : cells) n = std::max(n, c->n);
  // A short title (one line where it can: a projector's text keeps the data in view); what the curve
  // covers under the x axis.
  char title[200], xl[160];
  std::snprintf(title, sizeof title, "%s%s: ULP error vs correctly rounded GELU%s", format.c_str(),
                st_.cfg.order ? " f′" : "", st_.cfg.order ? "′" : "");
  // Which semantics: the zoo entries as shipped, computed in the compute format (not the registry's
  // correctly rounded gelu_tanh, which gives other answers).
  const std::string cf(
      compute_for(st_.cfg.compute, Format::parse(format).value_or(Format(FormatId::BF16))).name());
  std::snprintf(xl, sizeof xl, "%sall %zu values as shipped in %s; 0 ULP not drawn", x_label ? "x: " : "", n,
                cf.c_str());
  const std::string id = "ulp_" + format;
  // The y range fits the errors drawn: up to 3× the largest finite one in the x range shown (an infinite one,
  // where an intermediate overflowed, is drawn at the top and marked by its overflow line).
  const plot::Range xr = ps.x.range;
  double top = 8;
  for (const PrecisionCell* c : cells)
    for (std::size_t i = 0; i < c->x.size(); ++i)
      if (xr.contains(c->x[i]) && std::isfinite(c->ulp[i])) top = std::max(top, 3 * c->ulp[i]);
  ps.y.range = {0.6, top};
  plot::Plot p(id.c_str(), ps, size, xl, title);
  const int columns = std::max(16, static_cast<int>(p.transform().right - p.transform().left));
  for (const PrecisionCell* c : cells) {
    const Envelope& e = envelope(*c, xr, columns);
    const precision::Verdict v = shown_verdict(*c, xr.min, xr.max);
    // On a slide the step's text quotes the verdict: the curve is named by its entry alone (a name whose
    // length does not move it between its line's end and the legend as the figures change); an entry with no
    // error in the range draws nothing, and its name says so.
    const std::string label =
        slide_
            ? c->entry + (v.mismatch == 0 ? ": 0 ULP" : "") + "##" + c->entry
            : c->entry + ": " + pct(v.mismatch, v.n) + " differ, max " + g3(v.max_ulp) + " ULP" +
                  (v.overflow_wrong ? ", " + std::to_string(v.overflow_wrong) + " wrong at overflow" : "") +
                  "##" + c->entry;
    const unsigned int col = entry_color(c->entry);
    p.line(label.c_str(), col, e.x, e.y, 0.14f);
    drawn_.push_back({id, "series", c->entry, col, 0, 0, e.x.size()});
  }
  const double ylab =
      std::pow(10.0, std::log10(ps.y.range.min) + 0.93 * (std::log10(top) - std::log10(ps.y.range.min)));
  // Where exact GELU is 0 in this format, and where each entry is 0 or overflows.
  for (const auto& [f, t] : snap_.exact_tails) {
    if (f != format || !t.first_zero) continue;
    p.vline(*t.first_zero, kExact, 0.1f, true);
    char txt[96];
    std::snprintf(txt, sizeof txt, "exact GELU%s is 0 from x = %s down", st_.cfg.order ? "′" : "",
                  g3(*t.first_zero).c_str());
    p.marker(*t.first_zero, ylab, kExact, txt, 0.22f);
    drawn_.push_back({id, "exact_zero", "gelu", kExact, *t.first_zero, ylab, 0});
  }
  double row = 0;
  for (const PrecisionCell* c : cells) {
    const unsigned int col = entry_color(c->entry);
    const double y = std::pow(
        10.0, std::log10(ylab) - (0.12 + 0.1 * row) * (std::log10(top) - std::log10(ps.y.range.min)));
    bool any = false;
    auto mark = [&](double x, const char* kind, const std::string& text, bool dashed) {
      p.vline(x, col, 0.08f, dashed);
      if (xr.contains(x)) p.marker(x, y, col, text.c_str(), 0.2f);
      drawn_.push_back({id, kind, c->entry, col, x, y, 0});
      any = true;
    };
    const precision::Tails& t = c->tails;
    bool same_as_exact = false;
    for (const auto& [f, et] : snap_.exact_tails)
      if (f == format) same_as_exact = et.first_zero == t.first_zero;
    if (t.first_zero && !same_as_exact) mark(*t.first_zero, "zero", c->entry + ": 0 from here down", true);
    if (t.overflow_above) mark(*t.overflow_above, "overflow", c->entry + ": overflow from here up", false);
    if (t.overflow_below) mark(*t.overflow_below, "overflow", c->entry + ": overflow from here down", false);
    row += any ? 1 : 0;
  }
  if (cells.empty())
    p.note(snap_.running ? "sweeping…" : "no results: pick entries", 0, IM_COL32(90, 90, 90, 255));
  p.end();
  ui::mark_plot(id, ps);
}

void PrecisionPanel::verdict_table(ImVec2 size) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  const float top = ImGui::GetCursorScreenPos().y;
  if (!ImGui::BeginTable("verdicts", 5, flags, size)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  // Names and numbers keep their width (never cut); the verdict takes the rest and wraps at spaces.
  ImGui::TableSetupColumn("entry", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("format", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("differ", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("max ULP", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("verdict, computed now from every value in the plotted x range",
                          ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  for (const auto& cp : snap_.cells) {
    const PrecisionCell& c = *cp;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(ImGuiCol_Text, entry_color(c.entry));
    ImGui::TextUnformatted(c.entry.c_str());
    ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c.format.c_str());
    if (!c.error.empty()) {
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", c.error.c_str());
      continue;
    }
    const precision::Verdict shown = shown_verdict(c, shared_x_.range.min, shared_x_.range.max);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(pct(shown.mismatch, shown.n).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(g3(shown.max_ulp).c_str());
    ImGui::TableNextColumn();
    std::string v = shown.text;
    if (c.tails.first_zero) v += "; 0 from x = " + g3(*c.tails.first_zero) + " down";
    if (c.tails.overflow_above || c.tails.overflow_below) {
      v += "; an intermediate overflows in " + c.compute;
      if (c.tails.overflow_above) v += " from x = " + g3(*c.tails.overflow_above) + " up";
      if (c.tails.overflow_below)
        v += std::string(c.tails.overflow_above ? " and" : "") + " from x = " + g3(*c.tails.overflow_below) +
             " down";
    }
    ImGui::TextUnformatted(ui::wrap_at_spaces(v.c_str()).c_str());
  }
  ImGui::EndTable();
  ui::mark("table:verdicts", ImVec2(ImGui::GetItemRectMin().x, top), ImGui::GetItemRectMax());
}

void PrecisionPanel::int8_plot(ImVec2 size) {
  const double scale = st_.cfg.int8_scale;
  double lobe = -0.17, ymin = -0.17;
  int codes = 0;
  for (const auto& c : snap_.int8)
    if (c->error.empty()) {
      lobe = c->view.lobe_min;
      codes = c->view.lobe_codes;
      for (std::size_t i = 0; i < c->x.size(); ++i)
        if (c->x[i] <= 0.5) ymin = std::min(ymin, c->value[i]);
    }
  int8_.x.range = {std::max(-128 * scale, -4.5), std::min(127 * scale, 0.5)};
  int8_.y.range = {std::min(ymin, lobe) - 1.5 * scale, std::max(0.04, 2.5 * scale)};
  char title[160];
  std::snprintf(title, sizeof title, "int8, scale %.4g: GELU's lobe (min %s) gets %d codes", scale,
                g3(lobe).c_str(), codes);
  plot::Plot p("int8", int8_, size, "x", title);
  auto steps = [](const std::vector<double>& x, const std::vector<double>& y, std::vector<double>& sx,
                  std::vector<double>& sy) {
    sx.clear();
    sy.clear();
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double next = i + 1 < x.size() ? x[i + 1] : x[i];
      const double mid = (x[i] + next) / 2, prev_mid = i > 0 ? (x[i - 1] + x[i]) / 2 : x[i];
      sx.push_back(prev_mid);
      sy.push_back(y[i]);
      sx.push_back(mid);
      sy.push_back(y[i]);
    }
  };
  static thread_local std::vector<double> ex, ey;
  static thread_local std::vector<std::vector<double>> sxs, sys;
  sxs.resize(snap_.int8.size());
  sys.resize(snap_.int8.size());
  std::string notes;
  for (std::size_t k = 0; k < snap_.int8.size(); ++k) {
    const Int8Cell& c = *snap_.int8[k];
    if (!c.error.empty()) continue;
    if (k == 0) {
      steps(c.x, c.ref, ex, ey);
      p.line("exact GELU, rounded", kExact, ex, ey, 0.3f);
    }
    steps(c.x, c.value, sxs[k], sys[k]);
    const unsigned int col = entry_color(c.entry);
    p.line((c.entry + "##int8" + c.entry).c_str(), col, sxs[k], sys[k], 0.13f);
    drawn_.push_back({"int8", "series", c.entry, col, 0, 0, sxs[k].size()});
    char line[160];
    std::snprintf(line, sizeof line, "%s%s: %d of %d lobe codes, max error %s LSB", notes.empty() ? "" : "\n",
                  c.entry.c_str(), c.view.lobe_codes_reached, c.view.lobe_codes, g3(c.view.ulp.max).c_str());
    notes += line;
  }
  if (!notes.empty()) p.note(notes.c_str(), 3, IM_COL32(40, 40, 40, 255));
  if (snap_.int8.empty())
    p.note(st_.cfg.order ? "int8: for f, not f′" : "sweeping…", 0, IM_COL32(90, 90, 90, 255));
  p.end();
  ui::mark_plot("int8", int8_);
}

void PrecisionPanel::cost_plot(ImVec2 size) {
  double lo = 1e300, hi = 0, cmax = 0;
  for (const ZooPoint& z : snap_.zoo) {
    const double e = std::max(z.max_abs_error, 1e-17);
    lo = std::min(lo, e);
    hi = std::max(hi, e);
    cmax = std::max(cmax, z.cost);
  }
  if (hi <= 0) lo = 1e-8, hi = 1;
  cost_.y.range = {lo / 4, hi * 6};
  cost_.x.range = {-1, cmax + 6};
  plot::Plot p("cost", cost_, size, "cost (weighted operations: madd 1, div 4, transcendental 16, table 2)",
               "the zoo: max |f − GELU| on [−8, 8] in f64 against cost");
  static thread_local std::vector<double> gx, gy;
  gx.clear();
  gy.clear();
  for (const ZooPoint& z : snap_.zoo) {
    const bool picked =
        std::find(st_.cfg.entries.begin(), st_.cfg.entries.end(), z.id) != st_.cfg.entries.end();
    if (!picked && !z.user) {
      gx.push_back(z.cost);
      gy.push_back(std::max(z.max_abs_error, 1e-17));
    }
  }
  p.scatter("other zoo entries", kOtherZoo, gx, gy, 0.2f);
  // The picked entries and the candidates first with larger dots, the grey ones smaller on top: a grey dot
  // next to a picked one stays visible, and the picked one shows as a ring around it.
  std::vector<const ZooPoint*> order;
  for (const bool front : {true, false})
    for (const ZooPoint& z : snap_.zoo)
      if ((z.user ||
           std::find(st_.cfg.entries.begin(), st_.cfg.entries.end(), z.id) != st_.cfg.entries.end()) == front)
        order.push_back(&z);
  for (const ZooPoint* zp : order) {
    const ZooPoint& z = *zp;
    const bool picked =
        std::find(st_.cfg.entries.begin(), st_.cfg.entries.end(), z.id) != st_.cfg.entries.end();
    const unsigned int col = picked ? entry_color(z.id) : z.user ? kCandidate : kOtherZoo;
    p.marker(z.cost, std::max(z.max_abs_error, 1e-17), col, z.id.c_str(), picked || z.user ? 0.3f : 0.2f);
    drawn_.push_back({"cost",
                      picked   ? "picked"
                      : z.user ? "candidate"
                               : "zoo",
                      z.id, col, z.cost, z.max_abs_error, 1});
  }
  p.end();
  ui::mark_plot("cost", cost_);
}

const BlockView& PrecisionPanel::block() {
  if (block_view_.format != st_.block_format || block_view_.block_max != st_.block_max) {
    try {
      block_view_ = block_view(st_.block_format, st_.block_max);
    } catch (const std::invalid_argument&) {
      block_view_ = block_view(precision_block_formats().front(), st_.block_max > 0 ? st_.block_max : 1);
    }
  }
  return block_view_;
}

void PrecisionPanel::block_plot(ImVec2 size) {
  const BlockView& v = block();
  block_.x.range = {-4.1, 0.1};
  double low = -0.36;  // room for the lobes and for a stored value below them (−0.5 at scale 1)
  for (const BlockCurve& c : v.curves)
    for (const double y : c.stored) low = std::min(low, y - 0.06);
  block_.y.range = {std::max(low, -1.2), 0.06};
  block_.y_fixed = true;
  block_.legend_anchor = ImVec2(0, 1);
  char title[200];
  // On a slide (a projector's text) the short form, so that it keeps one line beside a table.
  if (slide_)
    std::snprintf(title, sizeof title, "%s, block max %s", v.format.c_str(), g3(v.block_max).c_str());
  else
    std::snprintf(title, sizeof title, "%s, block max %s: the lobe as stored (scale %s)", v.format.c_str(),
                  g3(v.block_max).c_str(), g3(v.scale).c_str());
  plot::Plot p("block", block_, size, "x", title);
  constexpr ImU32 kLattice = IM_COL32(190, 190, 190, 255);
  for (const double q : v.lattice) p.hline(q, kLattice, 0.04f);
  drawn_.push_back({"block", "lattice", v.format, kLattice, 0, 0, v.lattice.size()});
  static thread_local std::vector<double> sx, sy;
  std::string flush_notes;  // each function's flush-to-zero threshold, computed now
  for (std::size_t k = 0; k < v.curves.size(); ++k) {
    const BlockCurve& c = v.curves[k];
    const unsigned int col = plot::palette(static_cast<int>(k) + 4);
    const std::string exact = c.fn + " exact##bx" + c.fn, stored = c.fn + " stored##bs" + c.fn;
    p.line(exact.c_str(), k == 0 ? kExact : kOtherZoo, c.x, c.exact, 0.08f);
    sx.clear();
    sy.clear();
    for (std::size_t i = 0; i < c.x.size(); ++i) {  // a staircase: each stored value held to the next x
      if (i > 0 && c.stored[i] != c.stored[i - 1]) {
        sx.push_back(c.x[i]);
        sy.push_back(c.stored[i - 1]);
      }
      sx.push_back(c.x[i]);
      sy.push_back(c.stored[i]);
    }
    p.line(stored.c_str(), col, sx, sy, 0.14f);
    drawn_.push_back({"block", "stored", c.fn, col, 0, 0, sx.size()});
    p.vline(c.flush_x, col, 0.08f, true);
    char txt[160];
    // Before a lesson's question on it is answered, the note keeps the block max from which the lobe is
    // all 0 to itself (that is what the step asks the class to predict).
    const plot::ViewFilter* vf = plot::view_filter();
    if (vf && vf->question_open && c.flush_x >= 0)
      std::snprintf(txt, sizeof txt, "%s: whole lobe stored as 0", c.fn.c_str());
    else if (vf && vf->question_open)
      std::snprintf(txt, sizeof txt, "%s: 0 below x = %s", c.fn.c_str(), g3(c.flush_x).c_str());
    else if (c.flush_x >= 0)
      std::snprintf(txt, sizeof txt, "%s: whole lobe stored as 0 (from block max %s)", c.fn.c_str(),
                    g3(c.flush_block_max).c_str());
    else
      std::snprintf(txt, sizeof txt, "%s: 0 below x = %s; all 0 from block max %s", c.fn.c_str(),
                    g3(c.flush_x).c_str(), g3(c.flush_block_max).c_str());
    // On the exact curve where storage starts keeping it (the lobe's minimum when nothing is kept).
    const bool all = c.flush_x >= 0;
    const double mx = all ? c.lobe_min_x : c.flush_x;
    const double my = all ? c.lobe_min : find_activation(c.fn)->eval(mx);
    p.marker(mx, my, col, nullptr, 0.2f);
    flush_notes += (flush_notes.empty() ? "" : "\n") + std::string(txt);
    drawn_.push_back({"block", "flush", c.fn, col, c.flush_x, my, 0});
  }
  // Where the note would cover too much of a small plot (a slide): the thresholds alone.
  std::string compact = "stored as 0 below x:";
  for (const BlockCurve& c : v.curves) compact += " " + c.fn + " " + g3(c.flush_x);
  p.note(flush_notes.c_str(), 3, IM_COL32(40, 40, 40, 255), compact.c_str());
  // GELU's threshold line can be dragged: the block max follows (the smallest that flushes GELU there).
  if (!v.curves.empty()) {
    double fx = v.curves[0].flush_x;
    if (p.probe(&fx, IM_COL32(40, 40, 40, 120))) {
      const double a = block_max_flushing_at(v.format, std::clamp(fx, -4.0, -1e-3));
      if (std::isfinite(a)) st_.block_max = a;
    }
  }
  p.end();
  ui::mark_plot("block", block_);
}

void PrecisionPanel::chain_controls() {
  ui::heading("Rounding-point chains");
  ui::help_marker(
      "Where the rounding happens: each chain rounds a GEMM's accumulator value to the accumulator format, "
      "computes GELU in the compute format and stores the result in the storage format (a block format in "
      "blocks of its size). The two chains run on the same normal(0, 1) pre-activations, shown side by side "
      "under the block view with the values they store differently.");
  const float w = std::floor((ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3);
  for (std::string* text : {&st_.chain_a, &st_.chain_b}) {
    const char* key = text == &st_.chain_a ? "chain_a" : "chain_b";
    std::optional<Chain> c = parse_panel_chain(*text);
    if (!c) c = parse_panel_chain(text == &st_.chain_a ? "f32:f32:mxfp4" : "bf16:bf16:bf16");
    std::string parts[3] = {std::string(c->accumulator.name()), std::string(c->compute.name()),
                            std::string(c->store.name())};
    const char* part_keys[3] = {"_acc", "_compute", "_store"};
    bool changed_here = false;
    for (int k = 0; k < 3; ++k) {
      const std::vector<std::string>& names = precision_chain_formats(k);
      std::vector<const char*> items;
      for (const std::string& n : names) items.push_back(n.c_str());
      int cur = static_cast<int>(std::find(names.begin(), names.end(), parts[k]) - names.begin());
      if (k) ImGui::SameLine();
      ImGui::SetNextItemWidth(k == 2 ? -FLT_MIN : w);
      ImGui::PushID(key);
      ImGui::PushID(k);
      if (ui::combo(std::string(key) + part_keys[k], "##part", &cur, items)) {
        parts[k] = names[static_cast<std::size_t>(cur)];
        changed_here = true;
      }
      ImGui::PopID();
      ImGui::PopID();
    }
    if (changed_here) {
      *text = parts[0] + ":" + parts[1] + ":" + parts[2];
      st_.block_table = "chains";  // a chain just chosen is what to look at
    }
  }
  if (ui::marked("check:chain_backward", ImGui::Checkbox("backward pass (GELU′)", &st_.chain_backward)))
    st_.block_table = "chains";
  bool chains_shown = st_.block_table == "chains";
  if (ui::marked("check:block_table", ImGui::Checkbox("the chains beside the block view", &chains_shown)))
    st_.block_table = chains_shown ? "chains" : "survival";
}

const ChainView& PrecisionPanel::chains() {
  const int order = st_.chain_backward ? 1 : 0;
  if (!chain_view_ || chain_view_->chains != std::vector<std::string>{st_.chain_a, st_.chain_b} ||
      chain_view_->order != order)
    chain_view_ = chain_view(st_.chain_a, st_.chain_b, order);
  return *chain_view_;
}

void PrecisionPanel::chain_table(ImVec2 size) {
  const ChainView& v = chains();
  const float top = ImGui::GetCursorScreenPos().y;
  ImGui::BeginChild("chains", size);
  if (!v.error.empty()) {
    ImGui::TextWrapped("%s", v.error.c_str());
  } else {
    ImGui::TextWrapped("GELU%s through two chains (accumulator:compute:storage), %zu inputs ~ normal(0, 1)",
                       v.order ? "′" : "", v.x.size());
    const ImGuiTableFlags flags =
        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
    // Side by side: one column per chain, one row per measure.
    if (ImGui::BeginTable("chain_rows", 3, flags)) {
      ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
      for (const ChainSide& c : v.cmp.sides) ImGui::TableSetupColumn(c.chain.name().c_str());
      ImGui::TableHeadersRow();
      const auto row = [&](const char* what, const auto& cell) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(what);
        for (const ChainSide& c : v.cmp.sides) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(cell(c).c_str());
        }
      };
      row("max |error|", [](const ChainSide& c) { return g3(c.max_abs) + " at " + g3(c.x_at_max); });
      row("negatives as 0",
          [](const ChainSide& c) { return std::to_string(c.flushed) + " of " + std::to_string(c.negative); });
      row("recomputed", [](const ChainSide& c) {
        return c.recompute_identical ? std::string("bit-identical")
                                     : "differs on " + std::to_string(c.recompute_differ);
      });
      ImGui::EndTable();
    }
    ImGui::TextWrapped("Stored differently: %zu of %zu", v.cmp.differ, v.x.size());
    if (!v.cmp.differences.empty() && ImGui::BeginTable("chain_diffs", 3, flags)) {
      ImGui::TableSetupColumn("x");
      ImGui::TableSetupColumn(v.cmp.sides[0].chain.name().c_str());
      ImGui::TableSetupColumn(v.cmp.sides[1].chain.name().c_str());
      ImGui::TableHeadersRow();
      for (const std::size_t i : v.cmp.differences) {
        ImGui::TableNextRow();
        for (const double t : {v.x[i], v.cmp.sides[0].stored[i], v.cmp.sides[1].stored[i]}) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(g3(t).c_str());
        }
      }
      ImGui::EndTable();
    }
  }
  if (slide_) ui::note_view_overflow(ImGui::GetScrollMaxY());
  ImGui::EndChild();
  ui::mark("table:chains", ImVec2(ImGui::GetItemRectMin().x, top), ImGui::GetItemRectMax());
}

void PrecisionPanel::survival_table(ImVec2 size) {
  if (!survival_view_) survival_view_ = survival_view();
  const SurvivalView& v = *survival_view_;
  const float top = ImGui::GetCursorScreenPos().y;
  ImGui::BeginChild("survival", size);
  // On a slide the rows are numbers (a bar's frame makes a row a third taller) under a one-line title.
  if (slide_)
    ImGui::TextUnformatted("Negative outputs kept");
  else
    ImGui::TextWrapped("Negative outputs kept: %zu blocks of normal(0, 1) per format", v.blocks);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("survival_rows", 3, flags)) {
    ImGui::TableSetupColumn("format", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn(slide_ ? "GELU" : "GELU kept");
    ImGui::TableSetupColumn(slide_ ? "SiLU" : "SiLU kept");
    ImGui::TableHeadersRow();
    for (const SurvivalRow& r : v.rows) {
      const bool picked = r.format == st_.block_format;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(picked ? (r.format + " ◀").c_str() : r.format.c_str());
      for (const double share : {r.gelu, r.silu}) {
        ImGui::TableNextColumn();
        char t[32];
        std::snprintf(t, sizeof t, slide_ ? "%.3g%%" : "%.1f%%", 100 * share);
        if (slide_)
          ImGui::TextUnformatted(t);
        else
          ImGui::ProgressBar(static_cast<float>(share), ImVec2(-1, 0), t);
      }
    }
    ImGui::EndTable();
  }
  // On a slide the table must not scroll: what it hides counts as the panel's overflow (lessons --check).
  if (slide_) ui::note_view_overflow(ImGui::GetScrollMaxY());
  ImGui::EndChild();
  ui::mark("table:survival", ImVec2(ImGui::GetItemRectMin().x, top), ImGui::GetItemRectMax());
}

plot::PlotState& PrecisionPanel::ulp_state(const std::string& format) {
  auto [it, added] = ulp_plots_.try_emplace(format);
  if (added) {
    plot::PlotState& ps = it->second;
    ps.linked_x = &shared_x_;
    ps.x.range = shared_x_.range;
    ps.home_x = {-12, 6};
    ps.y_fixed = true;
    ps.legend_anchor = ImVec2(1, 0);
  }
  return it->second;
}

void PrecisionPanel::drawContent() {
  sync_compared();
  if (dirty_) {
    lab_.start(st_.cfg);
    dirty_ = false;
  }
  if (lab_.take(snap_)) {
    envelopes_.clear();
    verdicts_.clear();
  }
  drawn_.clear();
  ui::begin_panel(20.5f, [this] { controls(); });
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& st = ImGui::GetStyle();
  slide_ = ui::slide();
  if (slide_) {
    slide_layout(avail);
    ImGui::EndChild();
    st_.x = shared_x_.range;
    return;
  }
  // A projector's text scale (presentation 2× and 3×) leaves too little height for five plots and a table:
  // there the panel shows fewer plots rather than shrinking them (the first format's ULP plot and the verdict
  // table; the other formats, int8 and cost come back at 1× or with a taller window). Otherwise the ULP plots
  // share 42 % of the height, the table 20 %, the int8 and cost plots the rest.
  const bool compact = avail.y < 26.0f * ui::em();
  compact_ = compact;
  const std::size_t nf = compact ? std::min<std::size_t>(1, st_.cfg.formats.size()) : st_.cfg.formats.size();
  const float ulp_h = std::floor(avail.y * (compact ? 0.6f : 0.42f));
  const float table_h = compact ? -1.0f : std::floor(avail.y * 0.2f);  // compact: the rest
  for (std::size_t i = 0; i < nf; ++i) {
    const bool last = i + 1 == nf;
    const float h = std::max(
        48.0f, std::floor((ulp_h - st.ItemSpacing.y * static_cast<float>(nf - 1)) / static_cast<float>(nf)));
    ulp_plot(st_.cfg.formats[i], ImVec2(-1, h), last);
  }
  verdict_table(ImVec2(0, table_h));
  if (!compact) {
    const bool blocks = st_.block_view;
    if (ui::plot_columns(2, avail.x) == 2) {
      const float half = std::floor((avail.x - st.ItemSpacing.x) * (blocks ? 0.6f : 0.45f));
      blocks ? block_plot(ImVec2(half, -1)) : int8_plot(ImVec2(half, -1));
      ImGui::SameLine();
      if (blocks) {  // the survival table or the chains, as chosen
        st_.block_table == "chains" ? chain_table(ImVec2(-1, -1)) : survival_table(ImVec2(-1, -1));
      } else {
        cost_plot(ImVec2(-1, -1));
      }
    } else {  // stacked; the view scrolls
      const ImVec2 sz(-1, std::floor(avail.y * 0.38f));
      blocks ? block_plot(sz) : int8_plot(sz);
      if (blocks)
        st_.block_table == "chains" ? chain_table(sz) : survival_table(sz);
      else
        cost_plot(sz);
    }
  }
  ImGui::EndChild();
  st_.x = shared_x_.range;
}

// On a slide (a lesson step in presentation mode): the plots the step's view names (by default the first
// format's ULP plot) share the room, side by side where stacked ones would not keep their size; the verdict
// table only where the step pins it ("controls": ["verdicts"]), under them.
void PrecisionPanel::slide_layout(ImVec2 avail) {
  const StepView* v = ui::step_view();
  const bool listed = v && !v->plots.empty();
  // A step that pins the survival table and lists no plots shows the table alone (it needs the room).
  const bool table_alone = !listed && (ui::extra_shown("survival") || ui::extra_shown("chains"));
  slide_plots_.clear();
  for (const std::string& f : st_.cfg.formats)
    if (listed ? ui::plot_shown("ulp_" + f) : slide_plots_.empty() && !table_alone)
      slide_plots_.push_back("ulp_" + f);
  for (const char* id : {"int8", "cost", "block"})
    if (listed && ui::plot_shown(id)) slide_plots_.push_back(id);
  const ImGuiStyle& st = ImGui::GetStyle();
  const bool survival = ui::extra_shown("survival") || ui::extra_shown("chains");
  const bool table = ui::extra_shown("verdicts");
  const int n = static_cast<int>(slide_plots_.size());
  const float gap = ui::plot_gap();
  // A pinned survival or chains table goes beside the plots where both halves keep a plot's least size: below
  // them it would leave neither its rows (six formats) nor the plots room at a projector's 2x and 3x text.
  const float half = std::floor((avail.x - gap) * 0.58f);
  const bool beside = survival && n > 0 && half >= plot::Plot::min_frame().x;
  const float table_h = table_alone         ? avail.y
                        : beside            ? 0.0f
                        : table || survival ? std::floor(avail.y * (survival ? 0.68f : 0.3f))
                                            : 0.0f;
  const float room = avail.y - (table_h > 0 ? table_h + st.ItemSpacing.y : 0.0f);
  const float plots_w = beside ? half : avail.x;
  const int cols = ui::slide_columns(n, ImVec2(plots_w, room), gap);
  const int rows = n > 0 ? (n + cols - 1) / cols : 1;
  const float w = cols > 1
                      ? std::floor((plots_w - gap * static_cast<float>(cols - 1)) / static_cast<float>(cols))
                  : beside ? plots_w
                           : -1.0f;
  const float h =
      std::floor((room - st.ItemSpacing.y * static_cast<float>(rows - 1)) / static_cast<float>(rows));
  if (beside) ImGui::BeginGroup();
  for (int k = 0; k < n; ++k) {
    if (k % cols != 0) ImGui::SameLine(0, gap);
    const std::string& id = slide_plots_[static_cast<std::size_t>(k)];
    if (id == "int8") {
      int8_plot(ImVec2(w, h));
    } else if (id == "cost") {
      cost_plot(ImVec2(w, h));
    } else if (id == "block") {
      block_plot(ImVec2(w, h));
    } else {
      ulp_plot(id.substr(4), ImVec2(w, h), true);
    }
  }
  if (beside) {
    ImGui::EndGroup();
    ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
  }
  const float tables_h = beside ? avail.y : table_h;
  if (table) verdict_table(ImVec2(0, survival ? std::floor(tables_h * (beside ? 0.34f : 0.5f)) : -1.0f));
  if (survival) {
    const bool both = ui::extra_shown("survival") && ui::extra_shown("chains");
    const float left = ImGui::GetContentRegionAvail().y;
    if (ui::extra_shown("survival")) survival_table(ImVec2(0, both ? std::floor(left * 0.4f) : -1.0f));
    if (ui::extra_shown("chains")) chain_table(ImVec2(0, -1));
  }
  if (beside) ImGui::EndGroup();
}

// [SECTION] State and meta

json::Value PrecisionPanel::state() const {
  model::PrecisionState s = st_;
  s.x = shared_x_.range;
  // Entries added to the comparison since this panel last drew (a panel in a background tab) are in it too.
  for (const std::string& id : compared_since(compare_generation_, nullptr))
    if (std::find(s.cfg.entries.begin(), s.cfg.entries.end(), id) == s.cfg.entries.end())
      s.cfg.entries.push_back(id);
  return model::precision_schema().write(s);
}

void PrecisionPanel::sync_compared() {
  std::uint64_t now = 0;
  const std::vector<std::string> added = compared_since(compare_generation_, &now);
  if (now == compare_generation_) return;
  compare_generation_ = now;
  for (const std::string& id : added)
    if (std::find(st_.cfg.entries.begin(), st_.cfg.entries.end(), id) == st_.cfg.entries.end())
      st_.cfg.entries.push_back(id);
  changed();  // a candidate may have been replaced or removed too
}

void PrecisionPanel::set_state(const json::Value& state) {
  model::PrecisionState s = st_;
  s.x = shared_x_.range;
  model::precision_schema().read(state, s);
  const bool cfg_changed = !(s.cfg == st_.cfg);
  st_ = s;
  shared_x_.range = s.x;
  for (auto& [format, ps] : ulp_plots_) ps.x.range = s.x;
  if (cfg_changed) changed();
}

json::Object PrecisionPanel::meta() const {
  json::Object o, plots;
  // Only the plots drawn in the last frame (the compact layout leaves some out).
  const std::size_t shown =
      compact_ ? std::min<std::size_t>(1, st_.cfg.formats.size()) : st_.cfg.formats.size();
  for (std::size_t i = 0; i < shown && !slide_; ++i) {
    const auto it = ulp_plots_.find(st_.cfg.formats[i]);
    if (it != ulp_plots_.end()) plots["ulp_" + st_.cfg.formats[i]] = plot_meta(it->second);
  }
  for (const std::string& id : slide_ ? slide_plots_ : std::vector<std::string>{}) {
    if (id == "int8") plots["int8"] = plot_meta(int8_);
    if (id == "cost") plots["cost"] = plot_meta(cost_);
    if (id == "block") plots["block"] = plot_meta(block_);
    if (const auto it = ulp_plots_.find(id.substr(4)); id.rfind("ulp_", 0) == 0 && it != ulp_plots_.end())
      plots[id] = plot_meta(it->second);
  }
  if (!compact_ && !slide_ && !st_.block_view) {
    plots["int8"] = plot_meta(int8_);
    plots["cost"] = plot_meta(cost_);
  }
  if (!compact_ && !slide_ && st_.block_view) {
    plots["block"] = plot_meta(block_);
  }
  // The block view's numbers (computed in the model: precision_lab.hpp's block_view and survival_view).
  if (block_view_.block_max > 0) {
    json::Object b;
    b["format"] = block_view_.format;
    b["block_max"] = block_view_.block_max;
    b["scale"] = block_view_.scale;
    b["lattice_lines"] = static_cast<double>(block_view_.lattice.size());
    for (const BlockCurve& c : block_view_.curves) {
      json::Object e;
      e["flush_x"] = c.flush_x;
      e["flush_block_max"] =
          std::isfinite(c.flush_block_max) ? json::Value(c.flush_block_max) : json::Value();
      e["lobe_min"] = c.lobe_min;
      e["nonzero"] = static_cast<double>(c.nonzero);
      b[c.fn] = std::move(e);
    }
    o["block_view"] = std::move(b);
  }
  if (chain_view_ && chain_view_->error.empty()) {
    json::Object c;
    c["order"] = chain_view_->order;
    c["n"] = static_cast<double>(chain_view_->x.size());
    c["seed"] = static_cast<double>(chain_view_->seed);
    json::Array sides;
    for (const ChainSide& side : chain_view_->cmp.sides) {
      json::Object e;
      e["chain"] = side.chain.name();
      e["max_abs"] = side.max_abs;
      e["x_at_max"] = side.x_at_max;
      e["negative"] = static_cast<double>(side.negative);
      e["flushed"] = static_cast<double>(side.flushed);
      e["recompute_identical"] = side.recompute_identical;
      e["recompute_differ"] = static_cast<double>(side.recompute_differ);
      sides.emplace_back(std::move(e));
    }
    c["chains"] = std::move(sides);
    c["differ"] = static_cast<double>(chain_view_->cmp.differ);
    json::Array diffs;
    for (const std::size_t i : chain_view_->cmp.differences)
      diffs.emplace_back(json::Array{chain_view_->x[i], chain_view_->cmp.sides[0].stored[i],
                                     chain_view_->cmp.sides[1].stored[i]});
    c["differences"] = std::move(diffs);
    o["chains"] = std::move(c);
  }
  if (survival_view_) {
    json::Array rows;
    for (const SurvivalRow& r : survival_view_->rows) {
      json::Object e;
      e["format"] = r.format;
      e["gelu"] = r.gelu;
      e["silu"] = r.silu;
      rows.emplace_back(std::move(e));
    }
    o["survival"] = std::move(rows);
  }
  o["compact"] = compact_;
  o["plots"] = plots;
  json::Array cells;
  for (const auto& cp : snap_.cells) {
    const PrecisionCell& c = *cp;
    json::Object e;
    e["entry"] = c.entry;
    e["format"] = c.format;
    e["compute"] = c.compute;
    e["order"] = c.order;
    e["color"] = color_hex(entry_color(c.entry));
    e["error"] = c.error;
    e["n"] = static_cast<double>(c.n);
    e["mismatch"] = static_cast<double>(c.mismatch);
    e["max_ulp"] = c.max_ulp;
    e["x_at_max"] = c.x_at_max;
    e["verdict"] = c.verdict;
    {
      // What the plots show: the verdict over their x range (the one lesson steps quote).
      const precision::Verdict v = shown_verdict(c, shared_x_.range.min, shared_x_.range.max);
      json::Object sh;
      sh["x"] = json::Array{json::Value(shared_x_.range.min), json::Value(shared_x_.range.max)};
      sh["n"] = static_cast<double>(v.n);
      sh["mismatch"] = static_cast<double>(v.mismatch);
      sh["max_ulp"] = v.max_ulp;
      sh["x_at_max"] = v.x_at_max;
      sh["overflow_wrong"] = static_cast<double>(v.overflow_wrong);
      sh["verdict"] = v.text;
      e["shown"] = std::move(sh);
    }
    e["sweep_ms"] = c.sweep_ms;
    auto opt = [](const std::optional<double>& v) { return v ? json::Value(*v) : json::Value(); };
    e["first_zero"] = opt(c.tails.first_zero);
    e["overflow_above"] = opt(c.tails.overflow_above);
    e["overflow_below"] = opt(c.tails.overflow_below);
    e["overflows"] = static_cast<double>(c.overflow_x.size());
    cells.emplace_back(std::move(e));
  }
  o["cells"] = std::move(cells);
  json::Object exact;
  for (const auto& [f, t] : snap_.exact_tails)
    exact[f] = t.first_zero ? json::Value(*t.first_zero) : json::Value();
  o["exact_first_zero"] = std::move(exact);
  json::Array int8;
  for (const auto& cp : snap_.int8) {
    json::Object e;
    e["entry"] = cp->entry;
    e["lobe_codes"] = cp->view.lobe_codes;
    e["lobe_codes_reached"] = cp->view.lobe_codes_reached;
    e["max_ulp"] = cp->view.ulp.max;
    e["max_abs"] = cp->view.abs.max;
    e["error"] = cp->error;
    int8.emplace_back(std::move(e));
  }
  o["int8"] = std::move(int8);
  json::Array zoo;
  for (const ZooPoint& z : snap_.zoo) {
    json::Object e;
    e["id"] = z.id;
    e["cost"] = z.cost;
    e["max_abs_error"] = z.max_abs_error;
    e["user"] = z.user;
    zoo.emplace_back(std::move(e));
  }
  o["zoo"] = std::move(zoo);
  json::Array drawn;
  for (const Drawn& d : drawn_) {
    json::Object e;
    e["plot"] = d.plot;
    e["kind"] = d.kind;
    e["label"] = d.label;
    e["color"] = color_hex(d.color);
    e["x"] = d.x;
    e["y"] = d.y;
    e["points"] = static_cast<double>(d.points);
    drawn.emplace_back(std::move(e));
  }
  o["drawn"] = std::move(drawn);
  json::Array missing;
  for (const std::string& m : snap_.missing) missing.emplace_back(m);
  o["missing"] = std::move(missing);
  o["running"] = snap_.running;
  const zoo::FittedConstants& k = snap_.constants;
  json::Object fitted;
  fitted["tanh_c"] = k.tanh_c;
  fitted["sigmoid_k"] = k.sigmoid_k;
  o["fitted_constants"] = std::move(fitted);
  o["export_note"] = export_note_;
  o["state"] = state();
  return o;
}

GELU_PANEL(PrecisionPanel);

}  // namespace gelu::app

// Approximations panel (see approx_panel.hpp).
//
// Index of this file:
//   [SECTION] Error curves from the core analysis
//   [SECTION] Series, fitting and the comparison
//   [SECTION] Controls
//   [SECTION] GPU series and drawing
//   [SECTION] State and meta
#include "gui/panels/approx_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gelu/analysis.hpp"
#include "gelu/precision.hpp"
#include "gui/kit/ui.hpp"
#include "model/backends.hpp"
#include "model/comparison.hpp"
#include "model/designer_lab.hpp"

namespace gelu::app {

// [SECTION] Error curves from the core analysis

namespace {

using analysis::ErrorMetric;

Format format_of(bool f32) {
  return Format(f32 ? FormatId::F32 : FormatId::F64);
}

/// err[i] = the error of `approx` against `ref` at xs[i] in the metric, as gelu::analysis scores it.
void error_curve(ErrorMetric m, bool f32, const Activation& approx, const Params& pa, const Activation& ref,
                 const Params& pr, std::span<const double> xs, std::span<double> err) {
  const analysis::ErrorReport r =
      analysis::compare_at(analysis::FunctionSpec{&approx, pa, 0}, analysis::FunctionSpec{&ref, pr, 0},
                           std::vector<double>(xs.begin(), xs.end()), format_of(f32));
  const std::vector<double>& c = r.curve(m);
  std::copy(c.begin(), c.begin() + static_cast<long>(std::min(c.size(), err.size())), err.begin());
}

/// The largest error on n evenly spaced samples of [a, b] and where it occurs (gelu::analysis::compare).
ApproxPanel::MaxError max_error(ErrorMetric m, bool f32, const Activation& approx, const Params& pa,
                                const Activation& ref, const Params& pr, double a, double b, std::size_t n) {
  // The comparison is kept by value: stats() refers into it (a reference into the temporary dangled).
  const auto r = analysis::compare(analysis::FunctionSpec{&approx, pa, 0},
                                   analysis::FunctionSpec{&ref, pr, 0}, a, b, n, format_of(f32));
  const analysis::ErrorStats& s = r.stats(m);
  return {s.x_at_max, s.max};
}

/// The same for a zoo entry against exact GELU: in f64, or with f32 the entry computed in float32 (compute
/// format f32) on float32-rounded inputs, ULPs then float32 ULPs.
void entry_error_curve(ErrorMetric m, bool f32, const zoo::Entry& e, std::span<const double> xs,
                       std::span<double> err) {
  const Format fmt = format_of(f32);
  const std::size_t n = std::min(xs.size(), err.size());
  thread_local std::vector<double> xd, r, v;
  xd.assign(xs.begin(), xs.begin() + static_cast<long>(n));
  for (double& x : xd) x = fmt.round(x);
  r.resize(n);
  v.resize(n);
  const Activation& gelu = *find_activation("gelu");
  gelu.eval(std::span<const double>(xd), std::span<double>(r));
  e.eval(std::span<const double>(xd), std::span<double>(v), 0, fmt);
  for (std::size_t i = 0; i < n; ++i) err[i] = analysis::error(m, fmt, v[i], r[i]);
}

ApproxPanel::MaxError entry_max_error(ErrorMetric m, bool f32, const zoo::Entry& e, double a, double b,
                                      std::size_t n) {
  precision::SweepSpec spec;
  spec.storage = spec.compute = format_of(f32);
  spec.lo = a;
  spec.hi = b;
  spec.samples = n;
  const precision::Sweep s = precision::sweep(e, analysis::spec(*find_activation("gelu")), spec);
  const analysis::ErrorStats& st = s.errors.stats(m);
  return {st.x_at_max, st.max};
}

constexpr const char* kMetricName[3] = {"absolute  |f − GELU|", "relative  |f − GELU| / |GELU|",
                                        "ULP (units in the last place)"};
constexpr const char* kMetricKey[3] = {"abs", "rel", "ulp"};
constexpr std::size_t kFitSamples = 2001;

plot::BatchFn batch(const Activation* a, Params p) {
  return [a, p](std::span<const double> x, std::span<double> y) { a->eval(x, y, 0, &p); };
}

int color_index(const Activation* a) {
  return static_cast<int>(a - registry().data());
}

std::string fmt_g(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}
std::string fmt_f(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

std::vector<double> grid(plot::Range r, std::size_t n) {
  std::vector<double> xs(n);
  for (std::size_t i = 0; i < n; ++i)
    xs[i] = r.min + (r.max - r.min) * static_cast<double>(i) / static_cast<double>(n - 1);
  return xs;
}

}  // namespace

ApproxPanel::ApproxPanel()
    : Panel(kId),
      exact_(find_activation("gelu")),
      tanh_(find_activation("gelu_tanh")),
      sigmoid_(find_activation("gelu_sigmoid")) {
  shared_x_.range = {-6, 6};
  fplot_.linked_x = eplot_.linked_x = &shared_x_;
  fplot_.home_x = eplot_.home_x = {-6, 6};
  fplot_.y.range = fplot_.home_y = {-0.5, 3};
  eplot_.y.scale = plot::Scale::Log10;
  eplot_.y.range = eplot_.home_y = {1e-8, 0.3};
  eplot_.legend_anchor = ImVec2(0.5f, 1.0f);
  compare_generation_ = comparison_generation();
}

// [SECTION] Series, fitting and the comparison

std::vector<ApproxPanel::Series> ApproxPanel::series() const {
  std::vector<Series> s;
  char label[96];
  std::snprintf(label, sizeof label, "tanh form (c = %.6g)", tanh_->defaults()[0]);
  s.push_back({label, tanh_, tanh_->defaults(), plot::palette(color_index(tanh_)), {}});
  std::snprintf(label, sizeof label, "sigmoid form (k = %.6g)", sigmoid_->defaults()[0]);
  s.push_back({label, sigmoid_, sigmoid_->defaults(), plot::palette(color_index(sigmoid_)), {}});
  const Activation* form = tuned_sigmoid() ? sigmoid_ : tanh_;
  Params p;
  p[0] = st_.tuned;
  std::snprintf(label, sizeof label, "tuned %s (%s = %.6g)", tuned_sigmoid() ? "sigmoid" : "tanh",
                tuned_sigmoid() ? "k" : "c", st_.tuned);
  s.push_back({label, form, p, plot::palette(4), {}});
  return s;
}

void ApproxPanel::fit() {
  // The coefficient minimizing the max |error| against exact GELU on the visible x range: core's minimax
  // fitter (analysis::fit_minimax, a few ms), the same that fits the zoo's constants.
  const Activation* form = tuned_sigmoid() ? sigmoid_ : tanh_;
  const ParamSpec& ps = form->params[0];
  const plot::Range r = shared_x_.range;
  const CoefficientFit f = fit_coefficient(*form, r.min, r.max, kFitSamples);
  st_.tuned = f.value;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "best %s on [%.3g, %.3g]: %.6f\n%+.6f from the textbook %g\nmax |error| %.3g (textbook %.3g)",
                ps.name, r.min, r.max, st_.tuned, st_.tuned - ps.default_value, ps.default_value, f.max_error,
                f.textbook_error);
  fit_text_ = buf;
}

void ApproxPanel::refresh_compared() {
  // New entries from "Add to comparison" join the list; the entries are looked up again when the
  // comparison changes (a candidate replaced or removed), not every frame.
  std::uint64_t now = 0;
  const std::vector<std::string> added = compared_since(compare_generation_, &now);
  if (now != compare_generation_) {
    for (const std::string& id : added)
      if (std::find(st_.compare.begin(), st_.compare.end(), id) == st_.compare.end())
        st_.compare.push_back(id);
    compare_generation_ = now;
    compare_dirty_ = true;
  }
  if (!compare_dirty_) return;
  compare_dirty_ = false;
  compared_.clear();
  for (std::size_t i = 0; i < st_.compare.size(); ++i) {
    Compared c;
    c.id = st_.compare[i];
    c.entry = zoo::find(c.id);
    c.label = c.entry ? c.entry->name : c.id + " (not in this session)";
    c.color = plot::palette(5 + static_cast<int>(i));
    compared_.push_back(std::move(c));
  }
}

void ApproxPanel::compare_controls() {
  const float em = ui::em();
  ui::heading("Compared zoo entries");
  ui::help_marker(
      "Entries of the approximation zoo drawn beside the forms, computed as shipped (gelulab list --zoo). "
      "The Designer's \"Add to comparison\" sends its candidates here.");
  int remove = -1;
  for (std::size_t i = 0; i < compared_.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    if (ui::marked("button:remove:" + st_.compare[i], ImGui::SmallButton("×"))) remove = static_cast<int>(i);
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, compared_[i].color);
    ImGui::TextUnformatted(compared_[i].entry ? compared_[i].entry->id.c_str() : compared_[i].label.c_str());
    ImGui::PopStyleColor();
    ImGui::PopID();
  }
  if (remove >= 0) {
    st_.compare.erase(st_.compare.begin() + remove);
    compare_dirty_ = true;
  }
  ImGui::SetNextItemWidth(-1.5f * em);
  if (ImGui::BeginCombo("##addzoo", "add a zoo entry…")) {
    for (const zoo::Entry& e : zoo::entries()) {
      if (std::find(st_.compare.begin(), st_.compare.end(), e.id) != st_.compare.end()) continue;
      if (ui::marked("option:compare:" + e.id, ImGui::Selectable((e.id + "  —  " + e.name).c_str()))) {
        st_.compare.push_back(e.id);
        compare_dirty_ = true;
      }
    }
    ImGui::EndCombo();
  }
  ui::mark("combo:compare");
}

// [SECTION] Controls

void ApproxPanel::controls() {
  const float em = ui::em();
  ui::heading("Error metric");
  for (int m = 0; m < 3; ++m) {
    if (ImGui::RadioButton(kMetricName[m], metric() == static_cast<ErrorMetric>(m))) {
      st_.metric = kMetricKey[m];
      eplot_.fit_y_request = true;
    }
    ui::mark(std::string("radio:") + kMetricKey[m]);
  }
  if (ImGui::Checkbox("log y axis", &st_.log)) {
    eplot_.y.scale = st_.log ? plot::Scale::Log10 : plot::Scale::Linear;
    eplot_.fit_y_request = true;
  }
  ui::mark("check:log");
  ui::heading("Precision");
  if (ui::marked("radio:f64", ImGui::RadioButton("float64", !is_f32())))
    st_.dtype = "f64", eplot_.fit_y_request = true;
  ImGui::SameLine();
  if (ImGui::RadioButton("float32", is_f32())) st_.dtype = "f32", eplot_.fit_y_request = true;
  ui::mark("radio:f32");
  ui::help_marker(
      "float32: the approximations run in single precision on float32 inputs; the error is "
      "measured against exact GELU in double (ULPs are float32 ULPs). The blue curve then shows "
      "exact GELU's own float32 rounding, the floor no float formula can beat.");

  ui::heading("Tuned coefficient");
  if (ui::marked("radio:tuned_sigmoid", ImGui::RadioButton("x·σ(k·x)", tuned_sigmoid())) &&
      !tuned_sigmoid()) {
    st_.tuned_form = "sigmoid";
    st_.tuned = 1.6;
    fit_text_.clear();
  }
  ImGui::SameLine();
  if (ui::marked("radio:tuned_tanh", ImGui::RadioButton("tanh form, c", !tuned_sigmoid())) &&
      tuned_sigmoid()) {
    st_.tuned_form = "tanh";
    st_.tuned = 0.03;
    fit_text_.clear();
  }
  const ParamSpec& ps = (tuned_sigmoid() ? sigmoid_ : tanh_)->params[0];
  ImGui::SetNextItemWidth(-1.5f * em);
  if (ImGui::SliderScalar(ps.name, ImGuiDataType_Double, &st_.tuned, &ps.min, &ps.max, "%.6f"))
    fit_text_.clear();
  ui::mark("slider:tuned");
  if (ImGui::Button(tuned_sigmoid() ? "Fit k on the visible range" : "Fit c on the visible range")) fit();
  ui::mark("button:fit");
  ui::help_marker(
      "Finds the coefficient that minimizes the largest |error| against exact GELU over the x "
      "range currently visible. Zoom or pan first to fit another range.");
  if (!fit_text_.empty()) ui::text_wrapped("%s", fit_text_.c_str());

  ui::heading("Largest error on view");
  if (ImGui::BeginTable("maxerr", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("max", ImGuiTableColumnFlags_WidthFixed);  // numbers are never cut
    ImGui::TableSetupColumn("at x", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    for (const Series& s : last_) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, s.color);
      ImGui::Text("%.3g", s.max.value);
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", s.max.x);
    }
    for (const Compared& c : compared_) {
      if (!c.entry) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, c.color);
      ImGui::Text("%.3g", c.max.value);
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", c.max.x);
    }
    ImGui::EndTable();
  }
  compare_controls();
  if (!gpu_built()) return;  // a build without the GPU backend has nothing to compare
  ui::heading("CPU vs GPU");
  ImGui::Checkbox("GPU results (float32)", &st_.gpu);
  ui::mark("check:gpu");
  ui::help_marker(
      "Evaluates exact GELU and the tanh form with the GLSL compute shaders (gelu::gpu) on the "
      "grid of the visible range, plots their error against exact GELU in the chosen metric, "
      "and reports how many float32 ULPs the GPU results are from the CPU's.");
  if (st_.gpu && !gpu_status_.empty()) ui::text_wrapped("%s", gpu_status_.c_str());
}

// [SECTION] GPU series and drawing

void ApproxPanel::gpu_series(plot::Plot& p, plot::Range xr) {
  // Recomputed only when the view or the metric changes: the GPU round trip is not free on llvmpipe.
  const bool stale = gpu_range_ != xr || gpu_metric_ != metric() || gpu_x_.empty();
  if (stale) {
    gpu_range_ = xr;
    gpu_metric_ = metric();
    gpu_status_.clear();
    const std::vector<double> xs = grid(xr, kFitSamples);
    gpu_x_.clear();
    for (double x : xs) gpu_x_.push_back(static_cast<double>(static_cast<float>(x)));
    std::vector<float> xf(gpu_x_.begin(), gpu_x_.end()), gpu(xf.size()), cpu(xf.size());
    std::vector<double> ref(xf.size());
    const Activation* fns[2] = {exact_, tanh_};
    for (int k = 0; k < 2; ++k) {
      const Params pa = fns[k]->defaults();
      if (const std::optional<std::string> err = gpu_eval_current(*fns[k], pa, xf, gpu)) {
        gpu_status_ = "GPU unavailable: " + *err;
        gpu_err_[k].clear();
        continue;
      }
      fns[k]->eval(std::span<const float>(xf), std::span<float>(cpu), 0, &pa);
      exact_->eval(std::span<const double>(gpu_x_), std::span<double>(ref));
      gpu_err_[k].resize(xf.size());
      std::uint64_t worst = 0;
      double worst_x = 0;
      for (std::size_t i = 0; i < xf.size(); ++i) {
        gpu_err_[k][i] = analysis::error(metric(), format_of(true), static_cast<double>(gpu[i]), ref[i]);
        const std::uint64_t d = analysis::ulp_distance(gpu[i], cpu[i]);
        if (d > worst) worst = d, worst_x = gpu_x_[i];
      }
      gpu_max_ulp_[k] = static_cast<double>(worst);
      char line[160];
      std::snprintf(line, sizeof line, "%s%s: GPU vs CPU float32 at most %llu ULP apart (x = %.4g)",
                    gpu_status_.empty() ? "" : "\n", k == 0 ? "exact GELU" : "tanh form",
                    static_cast<unsigned long long>(worst), worst_x);
      gpu_status_ += line;
    }
  }
  if (!gpu_err_[0].empty())
    p.line("exact GELU on the GPU (float32)", IM_COL32(23, 190, 207, 255), gpu_x_, gpu_err_[0], 0.1f);
  if (!gpu_err_[1].empty())
    p.line("tanh form on the GPU (float32)", IM_COL32(120, 60, 10, 255), gpu_x_, gpu_err_[1], 0.1f);
}

void ApproxPanel::drawContent() {
  refresh_compared();
  ui::begin_panel(19.5f, [this] { controls(); });
  const float avail = ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y;
  std::vector<Series> ss = series();
  const Params exact_p = exact_->defaults();
  // A lesson step may show one of the two plots (model::PanelKind::plots).
  shown_[0] = ui::plot_shown("functions");
  shown_[1] = ui::plot_shown("errors");
  // On a slide where the two would not keep their size stacked: side by side, each with its x axis.
  const float gap = ui::plot_gap();
  const bool across = shown_[0] && shown_[1] &&
                      ui::slide_columns(2, ImVec2(ImGui::GetContentRegionAvail().x, avail), gap) == 2;
  const float half = std::floor((ImGui::GetContentRegionAvail().x - gap) / 2);
  if (shown_[0]) {
    plot::Plot p("functions", fplot_,
                 across ? ImVec2(half, -1.0f) : ImVec2(-1, shown_[1] ? avail * 0.42f : -1.0f),
                 shown_[1] && !across ? nullptr : "x", "f(x)");
    // The approximations wide underneath, exact GELU on top: where they agree, the reference shows.
    for (const Series& s : ss) p.function(s.label.c_str(), s.color, batch(s.a, s.p), nullptr, 0.3f);
    const Format fmt(is_f32() ? FormatId::F32 : FormatId::F64);
    for (const Compared& c : compared_) {
      if (!c.entry) continue;
      const zoo::Entry* e = &*c.entry;
      p.function((c.label + "##cmp" + c.id).c_str(), c.color,
                 [e, fmt](std::span<const double> x, std::span<double> y) { e->eval(x, y, 0, fmt); }, nullptr,
                 0.22f);
    }
    p.function("exact GELU  x·Φ(x)", plot::palette(color_index(exact_)), batch(exact_, exact_p), nullptr,
               0.14f);
    p.legend_first("exact GELU  x·Φ(x)");
    p.end();
    ui::mark_plot("functions", fplot_);
  }
  // Which semantics: the registry's functions (gelu_tanh, evaluated in the format), not the Precision panel's
  // zoo entries as shipped (tanh_form), which give other answers.
  char ylabel[128];
  std::snprintf(ylabel, sizeof ylabel, "%s error vs exact GELU (registry functions, %s)",
                metric() == ErrorMetric::Abs   ? "absolute"
                : metric() == ErrorMetric::Rel ? "relative"
                                               : "ULP",
                is_f32() ? "float32" : "float64");
  if (across) ImGui::SameLine(0, gap);
  if (shown_[1]) {
    plot::Plot p("errors", eplot_, ImVec2(-1, -1), "x", ylabel);
    const plot::Range xr = shared_x_.range;
    if (is_f32()) {
      // Exact GELU's own float32 rounding: the floor for every float32 formula.
      const ErrorMetric m = metric();
      p.function("exact GELU in float32", plot::palette(color_index(exact_), 0.8f),
                 [this, m, exact_p](std::span<const double> x, std::span<double> y) {
                   error_curve(m, true, *exact_, exact_p, *exact_, exact_p, x, y);
                 });
    }
    for (Series& s : ss) {
      const ErrorMetric m = metric();
      const bool f32 = is_f32();
      const Activation* a = s.a;
      const Params pa = s.p;
      // On a grid of the visible range finer than the pixels, so the marker sits on the true max.
      // Cached per (series, range, metric, dtype, parameters): 2001 evaluations need not run every frame.
      const std::size_t si = static_cast<std::size_t>(&s - ss.data());
      MaxKey key{xr, metric(), is_f32(), s.a, s.p};
      if (si >= max_cache_.size()) max_cache_.resize(si + 1);
      if (!(max_cache_[si].first == key)) {
        max_cache_[si] = {
            key, max_error(metric(), is_f32(), *s.a, s.p, *exact_, exact_p, xr.min, xr.max, kFitSamples)};
      }
      s.max = max_cache_[si].second;
      char label[160];
      std::snprintf(label, sizeof label, "%s: max %s at x = %s##%s", s.label.c_str(),
                    plot::unicode_minus(fmt_g(s.max.value)).c_str(),
                    plot::unicode_minus(fmt_f(s.max.x)).c_str(), s.label.c_str());
      p.function(label, s.color,
                 [this, m, f32, a, pa, exact_p](std::span<const double> x, std::span<double> y) {
                   error_curve(m, f32, *a, pa, *exact_, exact_p, x, y);
                 });
    }
    for (Compared& c : compared_) {
      if (!c.entry) continue;
      if (!c.measured || c.range != xr || c.metric != metric() || c.f32 != is_f32()) {
        c.max = entry_max_error(metric(), is_f32(), *c.entry, xr.min, xr.max, kFitSamples);
        c.range = xr;
        c.metric = metric();
        c.f32 = is_f32();
        c.measured = true;
      }
      const zoo::Entry* e = &*c.entry;
      const ErrorMetric m = metric();
      const bool f32 = is_f32();
      char label[200];
      std::snprintf(label, sizeof label, "%s: max %s at x = %s##cmp%s", c.label.c_str(),
                    plot::unicode_minus(fmt_g(c.max.value)).c_str(),
                    plot::unicode_minus(fmt_f(c.max.x)).c_str(), c.id.c_str());
      p.function(label, c.color, [e, m, f32](std::span<const double> x, std::span<double> y) {
        entry_error_curve(m, f32, *e, x, y);
      });
      if (!eplot_.hidden.count("cmp" + c.id) && std::isfinite(c.max.value))
        p.marker(c.max.x, c.max.value, c.color);
    }
    if (st_.gpu) gpu_series(p, xr);
    for (const Series& s : ss) {
      if (eplot_.hidden.count(s.label) || !std::isfinite(s.max.value)) continue;
      p.marker(s.max.x, s.max.value, s.color);  // the value and x are in the legend
    }
    p.end();
    ui::mark_plot("errors", eplot_);
  }
  last_ = ss;
  ImGui::EndChild();
}

// [SECTION] State and meta

ApproxPanel::ErrorMetric ApproxPanel::metric() const {
  for (int m = 0; m < 3; ++m)
    if (st_.metric == kMetricKey[m]) return static_cast<ErrorMetric>(m);
  return ErrorMetric::Abs;
}

model::ApproxState ApproxPanel::synced() const {
  model::ApproxState s = st_;
  s.x = shared_x_.range;
  s.y = fplot_.y.range;
  s.error_y = eplot_.y.range;
  // Entries added to the comparison since this panel last drew (a panel in a background tab) are in it too.
  for (const std::string& id : compared_since(compare_generation_, nullptr))
    if (std::find(s.compare.begin(), s.compare.end(), id) == s.compare.end()) s.compare.push_back(id);
  return s;
}

void ApproxPanel::load_state(const json::Value& state) {
  model::ApproxState s = synced();  // all or nothing: read into a copy
  model::approx_schema().read(state, s);
  if (s.compare != st_.compare) compare_dirty_ = true;
  st_ = s;
  shared_x_.range = s.x;
  fplot_.x = eplot_.x = shared_x_;
  fplot_.y.range = s.y;
  eplot_.y.scale = st_.log ? plot::Scale::Log10 : plot::Scale::Linear;
  eplot_.y.range = s.error_y;
  eplot_.fit_y_request = state.find("error_y") == nullptr;  // no error range given: fit it to the errors
}

json::Value ApproxPanel::state() const {
  return model::approx_schema().write(synced());
}

json::Object ApproxPanel::meta() const {
  json::Object o, plots;
  if (shown_[0]) plots["functions"] = plot_meta(fplot_);
  if (shown_[1]) plots["errors"] = plot_meta(eplot_);
  o["plots"] = plots;
  json::Array ss;
  for (const Series& s : last_) {
    json::Object e;
    e["label"] = s.label;
    e["color"] = color_hex(s.color);
    e["max_error"] = s.max.value;
    e["max_error_x"] = s.max.x;
    ss.push_back(e);
  }
  o["series"] = ss;
  json::Array cmp;
  for (const Compared& c : compared_) {
    json::Object e;
    e["id"] = c.id;
    e["label"] = c.label;
    e["color"] = color_hex(c.color);
    e["in_zoo"] = c.entry.has_value();
    e["max_error"] = c.entry ? json::Value(c.max.value) : json::Value();
    e["max_error_x"] = c.entry ? json::Value(c.max.x) : json::Value();
    cmp.push_back(e);
  }
  o["compared"] = cmp;
  o["exact_color"] = color_hex(plot::palette(color_index(exact_)));
  o["metric"] = kMetricKey[static_cast<int>(metric())];
  o["dtype"] = is_f32() ? "f32" : "f64";
  o["tuned"] = st_.tuned;
  if (st_.gpu) {
    o["gpu_status"] = gpu_status_;
    o["gpu_max_ulp_vs_cpu"] = json::Array{gpu_max_ulp_[0], gpu_max_ulp_[1]};
  }
  return o;
}

GELU_PANEL(ApproxPanel);

}  // namespace gelu::app

// Benchmarks panel (see bench_panel.hpp).
//
// Index of this file:
//   [SECTION] Controls
//   [SECTION] Plots
//   [SECTION] State and meta
#include "gui/panels/bench_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gelu/activation.hpp"
#include "gelu/fileio.hpp"
#include "gui/kit/ui.hpp"
#include "model/backends.hpp"

namespace gelu::app {

namespace {
// One opaque colour per backend (opaque so that a bar's pixels are exactly its colour).
const ImU32 kBackendColor[kBenchBackends] = {IM_COL32(127, 127, 127, 255), IM_COL32(31, 119, 180, 255),
                                             IM_COL32(44, 160, 44, 255), IM_COL32(255, 127, 14, 255)};
const ImU32 kLimitColor = IM_COL32(200, 30, 30, 255);

/// How the memory limit is derived: "14.4 GB/s ÷ 8 B/element = 1.80 Gelem/s" (the controls and the bar plot).
std::string limit_formula(double copy_gb_per_s) {
  char t[96];
  std::snprintf(t, sizeof t, "%.1f GB/s ÷ %zu B/element = %.2f Gelem/s", copy_gb_per_s,
                bench::kBytesPerElement, copy_gb_per_s / bench::kBytesPerElement);
  return t;
}
constexpr std::size_t kSizeChoices[] = {1024,    4096,    16384,    65536,   262144,
                                        1048576, 4194304, 16777216, 67108864};

std::string size_text(std::size_t n) {
  char b[32];
  if (n >= (1u << 20) && n % (1u << 20) == 0) {
    std::snprintf(b, sizeof b, "%zuM", n >> 20);
  } else if (n >= 1024 && n % 1024 == 0) {
    std::snprintf(b, sizeof b, "%zuK", n >> 10);
  } else {
    std::snprintf(b, sizeof b, "%zu", n);
  }
  return b;
}

/// A log-axis range showing [lo, hi] with some room (a decade when there is nothing yet).
plot::Range log_range(double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo)) return {0.01, 10};
  return {lo / 1.6, hi * 1.8};
}
}  // namespace

BenchPanel::BenchPanel() : Panel(kId) {
  for (plot::PlotState* s : {&bars_, &sizes_, &history_}) {
    s->y.scale = plot::Scale::Log10;
    s->y.range = s->home_y = {0.01, 10};
  }
  sizes_.x.scale = plot::Scale::Log10;
  sizes_.x.range = sizes_.home_x = {512, 1.3e8};
  bars_.legend_anchor = ImVec2(0, 0);
  sizes_.legend_anchor = ImVec2(0, 1);
  history_.x.range = history_.home_x = {0, 50};
}

std::string BenchPanel::shot_limit_error() const {
  // A shot measures synchronously. functions x sizes x (reps + 1 warm-up) x backends element evaluations:
  // the scalar path and the GPU on llvmpipe take ~30 ns each, so the limit is about a minute; the default
  // configuration is 1.4e9.
  constexpr double kMaxShotEvaluations = 2e9;
  double elements = 0;
  for (std::size_t n : st_.cfg.sizes) elements += static_cast<double>(n);
  int backends = 0;
  for (bool on : st_.cfg.backends) backends += on;
  const double fns =
      static_cast<double>(st_.cfg.functions.empty() ? registry().size() : st_.cfg.functions.size());
  const double total = fns * elements * (st_.cfg.reps + 1.0) * backends;
  if (total <= kMaxShotEvaluations) return {};
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "the bench state asks for %.2g evaluations (functions x sizes x (reps + 1) x backends), more than "
      "the limit of %.0e for a headless shot (lower reps or sizes)",
      total, kMaxShotEvaluations);
  return buf;
}

void BenchPanel::settle_for_shot() {
  runner_.start(st_.cfg);
  runner_.join();
}

void BenchPanel::export_files() {
  namespace fs = std::filesystem;
  const fs::path csv = fs::absolute(st_.export_base + ".csv"), js = fs::absolute(st_.export_base + ".json");
  try {
    write_file_atomic(csv.string(), bench_csv(snap_));
    // A measurement export, like a report: a non-finite number is null plus the "non_finite" note (the JSON
    // policy, gelu/json.hpp), never an exception out of the frame.
    write_file_atomic(js.string(), json::write(bench_json(snap_), 2, json::NonFinite::NullWithNote) + "\n");
    export_note_ = "wrote " + csv.string() + " and " + js.filename().string();
  } catch (const FileError& e) {
    export_note_ = e.what();
  }
}

// [SECTION] Controls

void BenchPanel::controls() {
  const float em = ui::em();
  const bool running = snap_.running;
  ImGui::BeginDisabled(running);
  ui::heading("Functions");
  if (ui::marked("button:all", ImGui::SmallButton("all"))) {
    st_.cfg.functions.clear();
    for (const Activation& a : registry()) st_.cfg.functions.push_back(a.id);
  }
  ImGui::SameLine();
  if (ui::marked("button:gelu_family", ImGui::SmallButton("GELU family"))) {  // the registry's gelu* entries
    st_.cfg.functions.clear();
    for (const Activation& a : registry())
      if (std::string_view(a.id).starts_with("gelu")) st_.cfg.functions.emplace_back(a.id);
  }
  ImGui::BeginChild("fns", ImVec2(0, 5.6f * em), true);
  for (const Activation& a : registry()) {
    bool on = std::find(st_.cfg.functions.begin(), st_.cfg.functions.end(), a.id) != st_.cfg.functions.end();
    if (ui::marked(std::string("check:fn:") + a.id, ImGui::Checkbox(a.name, &on))) {
      std::erase(st_.cfg.functions, std::string(a.id));
      if (on) {  // keep registry order
        std::vector<std::string> ordered;
        for (const Activation& b : registry())
          if (&b == &a ||
              std::find(st_.cfg.functions.begin(), st_.cfg.functions.end(), b.id) != st_.cfg.functions.end())
            ordered.push_back(b.id);
        st_.cfg.functions = ordered;
      }
    }
  }
  ImGui::EndChild();
  ui::heading("Backends");
  for (int b = 0; b < kBenchBackends; ++b) {
    ImGui::BeginDisabled(b >= 2 && !gpu_built());
    ImGui::PushStyleColor(ImGuiCol_CheckMark, kBackendColor[b]);
    ImGui::Checkbox(display_name(static_cast<BenchBackend>(b)), &st_.cfg.backends[b]);
    ui::mark("check:backend:" + std::to_string(b));
    ImGui::PopStyleColor();
    ImGui::EndDisabled();
    if (b % 2 == 0) ImGui::SameLine(9.5f * em);
  }
  ui::heading("Sizes (elements)");
  for (std::size_t i = 0; i < std::size(kSizeChoices); ++i) {
    const std::size_t n = kSizeChoices[i];
    bool on = std::find(st_.cfg.sizes.begin(), st_.cfg.sizes.end(), n) != st_.cfg.sizes.end();
    if (ui::marked("check:size:" + std::to_string(n), ImGui::Checkbox(size_text(n).c_str(), &on))) {
      std::erase(st_.cfg.sizes, n);
      if (on) st_.cfg.sizes.push_back(n);
      std::sort(st_.cfg.sizes.begin(), st_.cfg.sizes.end());
    }
    if (i % 3 != 2) ImGui::SameLine(static_cast<float>(i % 3 + 1) * 6.3f * em);
  }
  ImGui::SetNextItemWidth(-5 * em);
  ImGui::SliderInt("repetitions", &st_.cfg.reps, 3, 30);
  ui::mark("slider:reps");
  ImGui::EndDisabled();

  if (!running) {
    ImGui::BeginDisabled(st_.cfg.sizes.empty() || st_.cfg.functions.empty());
    if (ImGui::Button("Run", ImVec2(5 * em, 0))) {
      size_picked_ = false;
      runner_.start(st_.cfg);
    }
    ImGui::EndDisabled();
  } else if (ImGui::Button("Stop", ImVec2(5 * em, 0))) {
    runner_.stop();
  }
  ui::mark("button:run");
  ImGui::SameLine();
  const float frac =
      snap_.total > 0 ? static_cast<float>(snap_.done) / static_cast<float>(snap_.total) : 0.0f;
  char over[48];
  std::snprintf(over, sizeof over, "%d / %d repetitions", snap_.done, snap_.total);
  ImGui::ProgressBar(frac, ImVec2(-1, 0), over);
  if (running) {
    ui::text_wrapped_disabled("%s", snap_.current.c_str());
  }
  if (snap_.cancelled) ImGui::TextDisabled("stopped: partial results");
  if (!snap_.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kLimitColor);
    ui::text_wrapped("%s", snap_.error.c_str());
    ImGui::PopStyleColor();
  }
  ui::text_wrapped("host copy bandwidth: %.1f GB/s", snap_.copy_gb_per_s);
  if (snap_.copy_gb_per_s > 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, kLimitColor);
    ui::text_wrapped("memory limit (the red dashed line): %s; arrays that fit in a cache can beat it",
                     limit_formula(snap_.copy_gb_per_s).c_str());
    ImGui::PopStyleColor();
  }
  ui::text_wrapped("GPU: %s", gpu_line().c_str());

  ui::heading("Show");
  std::vector<std::size_t> measured;
  for (const BenchRow& r : snap_.rows)
    if (std::find(measured.begin(), measured.end(), r.size) == measured.end()) measured.push_back(r.size);
  ImGui::SetNextItemWidth(-7 * em);
  if (ImGui::BeginCombo("bars at size", size_text(st_.shown_size).c_str())) {
    for (std::size_t n : measured)
      if (ui::marked("option:bars_size:" + std::to_string(n),
                     ImGui::Selectable(size_text(n).c_str(), n == st_.shown_size))) {
        st_.shown_size = n;
        size_picked_ = true;
      }
    ImGui::EndCombo();
  }
  ui::mark("combo:bars_size");
  const Activation* shown = find_activation(st_.shown_function);
  ImGui::SetNextItemWidth(-7 * em);
  if (ImGui::BeginCombo("size sweep of", shown ? shown->name : st_.shown_function.c_str())) {
    for (const Activation& a : registry())
      if (ui::marked(std::string("option:sweep_fn:") + a.id, ImGui::Selectable(a.name, shown == &a)))
        st_.shown_function = a.id;
    ImGui::EndCombo();
  }
  ui::mark("combo:sweep_fn");

  ui::heading("Export");
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s", st_.export_base.c_str());
  ImGui::SetNextItemWidth(-4 * em);
  if (ui::marked("input:name", ImGui::InputText("name", buf, sizeof buf))) st_.export_base = buf;
  ImGui::BeginDisabled(snap_.rows.empty());
  if (ImGui::Button("Save CSV + JSON")) export_files();
  ui::mark("button:export");
  ImGui::EndDisabled();
  if (!export_note_.empty()) {
    ui::text_wrapped_disabled("%s", export_note_.c_str());
  }
}

// [SECTION] Plots

void BenchPanel::bars_plot(ImVec2 size) {
  // Groups: functions in measured order; bars: backends. Throughput = elements / time, so the whisker's
  // top is the fastest repetition and its bottom the slowest.
  std::vector<std::string> fns;
  for (const BenchRow& r : snap_.rows)
    if (r.size == st_.shown_size && std::find(fns.begin(), fns.end(), r.fn) == fns.end()) fns.push_back(r.fn);
  bars_.x_categories.clear();
  for (const std::string& id : fns) {
    const Activation* a = find_activation(id);
    bars_.x_categories.push_back(a ? a->id : id);
  }
  const double group = 0.8;
  bars_.x.range = bars_.home_x = {-0.6, std::max(0.6, static_cast<double>(fns.size()) - 0.4)};
  double lo = 1e300, hi = 0;
  for (const BenchRow& r : snap_.rows)
    if (r.size == st_.shown_size) {
      lo = std::min(lo, r.gelem_worst());
      hi = std::max(hi, r.gelem_best());
    }
  const double limit = snap_.copy_gb_per_s / bench::kBytesPerElement;
  if (limit > 0) hi = std::max(hi, limit);
  // Headroom above the tallest whisker for the legend and the limit's label.
  bars_.y.range = log_range(lo, hi);
  bars_.y.range.max *= 6;
  // The memory limit's label: the whole explanation in a data area with room for it; one line in a short one
  // (a projector's large text), where the explanation would cover the bars (it stays in the controls); in the
  // title when even one line would (the area's height is last frame's: the title's length changes it).
  const float line_h = ImGui::GetTextLineHeight();
  const bool limit_in_title = limit > 0 && bars_area_lines_ < 5;
  char yl[192];
  char in_title[64] = "";
  if (limit_in_title) std::snprintf(in_title, sizeof in_title, "; dashed: memory limit %.2f Gelem/s", limit);
  std::snprintf(yl, sizeof yl, "throughput at %s elements, Gelem/s (median, whiskers: min..max%s)",
                size_text(st_.shown_size).c_str(), in_title);
  plot::Plot p("bars", bars_, size, nullptr, yl);
  const float area_h = std::fabs(p.to_pixels(0, bars_.y.range.min).y - p.to_pixels(0, bars_.y.range.max).y);
  bars_area_lines_ = area_h / line_h;
  bar_x_.clear();
  bar_med_.clear();
  bar_lo_.clear();
  bar_hi_.clear();
  bar_backend_.clear();
  for (int b = 0; b < kBenchBackends; ++b) {
    std::vector<double> xs, lo_v, mid, hi_v;
    for (std::size_t g = 0; g < fns.size(); ++g)
      for (const BenchRow& r : snap_.rows)
        if (r.size == st_.shown_size && r.fn == fns[g] && static_cast<int>(r.backend) == b) {
          xs.push_back(static_cast<double>(g) + plot::bar_offset(b, kBenchBackends, group));
          lo_v.push_back(r.gelem_worst());
          mid.push_back(r.gelem_median());
          hi_v.push_back(r.gelem_best());
        }
    if (xs.empty()) continue;
    p.whisker_bars(display_name(static_cast<BenchBackend>(b)), kBackendColor[b], xs, lo_v, mid, hi_v,
                   group / kBenchBackends * 0.92);
    for (std::size_t k = 0; k < xs.size(); ++k) {
      bar_x_.push_back(xs[k]);
      bar_med_.push_back(mid[k]);
      bar_lo_.push_back(lo_v[k]);
      bar_hi_.push_back(hi_v[k]);
      bar_backend_.push_back(b);
    }
  }
  bar_width_ = group / kBenchBackends * 0.92;
  if (limit > 0) {
    p.hline(limit, kLimitColor, 0.12f, true);
    char t[64];
    std::snprintf(t, sizeof t, "limit %.2f Gelem/s", limit);
    const std::string full = "memory limit: host copy " + limit_formula(snap_.copy_gb_per_s) +
                             "\n(arrays that fit in a cache can beat it)";
    if (!limit_in_title) p.note(area_h >= 9 * line_h ? full.c_str() : t, 1, kLimitColor);
  }
  if (fns.empty())
    p.note(snap_.running ? "measuring…" : "press Run to measure", 0, IM_COL32(90, 90, 90, 255));
  p.end();
  ui::mark_plot("bars", bars_);
}

void BenchPanel::size_plot(ImVec2 size) {
  double lo = 1e300, hi = 0;
  const double limit = snap_.copy_gb_per_s / bench::kBytesPerElement;
  std::vector<double> xs[kBenchBackends], ys[kBenchBackends];
  for (const BenchRow& r : snap_.rows)
    if (r.fn == st_.shown_function) {
      xs[static_cast<int>(r.backend)].push_back(static_cast<double>(r.size));
      ys[static_cast<int>(r.backend)].push_back(r.gelem_median());
      lo = std::min(lo, r.gelem_median());
      hi = std::max(hi, r.gelem_median());
    }
  if (limit > 0) hi = std::max(hi, limit);
  sizes_.y.range = log_range(lo, hi);
  // x: 512 .. 1.3e8 elements, widened to every size measured (a sweep may start at 1): an unpanned view
  // follows its home, so no measured size is drawn off the plot.
  double size_lo = 512, size_hi = 1.3e8;
  for (const BenchRow& r : snap_.rows) {
    size_lo = std::min(size_lo, static_cast<double>(r.size) / 1.5);
    size_hi = std::max(size_hi, static_cast<double>(r.size) * 1.5);
  }
  if (sizes_.x.range.min == sizes_.home_x.min && sizes_.x.range.max == sizes_.home_x.max)
    sizes_.x.range = {size_lo, size_hi};
  sizes_.home_x = {size_lo, size_hi};
  const Activation* a = find_activation(st_.shown_function);
  char yl[96];
  std::snprintf(yl, sizeof yl, "%s: Gelem/s (median) by size", a ? a->name : st_.shown_function.c_str());
  plot::Plot p("sizes", sizes_, size, "elements", yl);
  if (limit > 0) p.hline(limit, kLimitColor, 0.12f, true);
  for (int b = 0; b < kBenchBackends; ++b) {
    if (xs[b].empty()) continue;
    char label[64];
    std::snprintf(label, sizeof label, "##size%d", b);
    p.line(label, kBackendColor[b], xs[b], ys[b], 0.14f);
    std::snprintf(label, sizeof label, "##sizedot%d", b);  // colours as in the bar plot's legend
    p.scatter(label, kBackendColor[b], xs[b], ys[b], 0.26f);
    p.data(display_name(static_cast<BenchBackend>(b)), xs[b], ys[b]);  // the CSV's name for it
  }
  p.end();
  ui::mark_plot("sizes", sizes_);
}

void BenchPanel::history_plot(ImVec2 size) {
  // Every measurement in the order it finished: a run's drift (thermal throttling, another load) shows.
  std::vector<double> xs[kBenchBackends], ys[kBenchBackends];
  double lo = 1e300, hi = 0;
  const double first = static_cast<double>(snap_.history_first);
  for (std::size_t i = 0; i < snap_.history.size(); ++i) {
    const BenchRow& r = snap_.history[i];
    xs[static_cast<int>(r.backend)].push_back(first + static_cast<double>(i));
    ys[static_cast<int>(r.backend)].push_back(r.gelem_median());
    lo = std::min(lo, r.gelem_median());
    hi = std::max(hi, r.gelem_median());
  }
  history_.y.range = log_range(lo, hi);
  const double n = static_cast<double>(snap_.history.size());
  history_.x.range = {first - 1, first + std::max(20.0, n + 1)};
  char title[96];
  if (snap_.history_first > 0)
    std::snprintf(title, sizeof title, "history: the last %zu measurements, Gelem/s", snap_.history.size());
  else
    std::snprintf(title, sizeof title, "history: each measurement, Gelem/s");
  plot::Plot p("history", history_, size, "measurement number", title);
  for (int b = 0; b < kBenchBackends; ++b) {
    char label[32];
    std::snprintf(label, sizeof label, "##hist%d", b);
    p.scatter(label, kBackendColor[b], xs[b], ys[b], 0.2f);
    p.data(display_name(static_cast<BenchBackend>(b)), xs[b], ys[b]);
  }
  p.end();
  ui::mark_plot("history", history_);
}

void BenchPanel::drawContent() {
  if (runner_.take(snap_)) {
    // The bars follow the largest size measured so far, unless the user picked one that exists.
    bool have = false;
    std::size_t largest = 0;
    for (const BenchRow& r : snap_.rows) {
      have = have || r.size == st_.shown_size;
      largest = std::max(largest, r.size);
    }
    if ((!have || !size_picked_) && largest) st_.shown_size = largest;
  }
  ui::begin_panel(20.5f, [this] { controls(); });
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& st = ImGui::GetStyle();
  const bool two = ui::plot_columns(2, avail.x, ui::plot_gap()) == 2;
  const float top_h = std::floor((avail.y - st.ItemSpacing.y) * 0.6f);
  const float half_w = (avail.x - ui::plot_gap()) * 0.5f;
  bars_plot(ImVec2(-1, top_h));
  if (two) {
    size_plot(ImVec2(half_w, -1));
    ImGui::SameLine(0, ui::plot_gap());
    history_plot(ImVec2(-1, -1));
  } else {  // too narrow for two plots side by side: stacked, the view scrolls
    size_plot(ImVec2(-1, avail.y - top_h));
    history_plot(ImVec2(-1, avail.y - top_h));
  }
  ImGui::EndChild();
}

// [SECTION] State and meta

json::Value BenchPanel::state() const {
  return model::bench_schema().write(st_);
}

void BenchPanel::set_state(const json::Value& state) {
  model::BenchState s = st_;  // all or nothing: read into a copy
  model::bench_schema().read(state, s);
  st_ = std::move(s);
}

std::string BenchPanel::gpu_line() const {
  if (!snap_.gpu.empty()) return snap_.gpu;
  return gpu_built() ? "(measured at the next run)" : "unavailable: " + gpu_unbuilt_reason();
}

json::Object BenchPanel::meta() const {
  json::Object o, plots;
  o["gpu"] = gpu_line();  // the panel's "GPU:" line
  plots["bars"] = plot_meta(bars_);
  plots["sizes"] = plot_meta(sizes_);
  plots["history"] = plot_meta(history_);
  o["plots"] = plots;
  o["history_rows"] = static_cast<double>(snap_.history.size());
  o["history_first"] = static_cast<double>(snap_.history_first);
  json::Array bars;
  for (std::size_t i = 0; i < bar_x_.size(); ++i) {
    json::Object b;
    b["x"] = bar_x_[i];
    b["median_gelem_per_s"] = bar_med_[i];
    b["worst_gelem_per_s"] = bar_lo_[i];
    b["best_gelem_per_s"] = bar_hi_[i];
    b["backend"] = to_string(static_cast<BenchBackend>(bar_backend_[i]));
    b["color"] = color_hex(kBackendColor[bar_backend_[i]]);
    b["function"] = bars_.x_categories.empty() ? std::string()
                                               : bars_.x_categories[static_cast<std::size_t>(std::clamp(
                                                     static_cast<int>(std::lround(bar_x_[i])), 0,
                                                     static_cast<int>(bars_.x_categories.size()) - 1))];
    bars.emplace_back(std::move(b));
  }
  o["bars"] = std::move(bars);
  o["bar_width"] = bar_width_;
  o["shown_size"] = static_cast<double>(st_.shown_size);
  o["legend"] = json::Array{bars_.legend_min.x, bars_.legend_min.y, bars_.legend_max.x, bars_.legend_max.y};
  o["export"] = bench_json(snap_);
  o["csv"] = bench_csv(snap_);
  o["state"] = state();
  return o;
}

GELU_PANEL(BenchPanel);

}  // namespace gelu::app

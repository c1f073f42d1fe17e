// Dropout view panel (see dropout_panel.hpp).
#include "gui/panels/dropout_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gelu/activation.hpp"
#include "gui/kit/ui.hpp"

namespace gelu::app {

namespace {
constexpr std::size_t kRecent = 60;          // masks shown in the grid
constexpr std::size_t kHistSamples = 40000;  // z ~ N(μ, σ) draws for the histograms
constexpr int kBins = 64;
constexpr double kZ95 = 1.959963984540054;  // two-sided 95% normal quantile
constexpr const char* kConvergenceTitle = "running mean of x·m";
const ImU32 kKeepColor = IM_COL32(31, 119, 180, 255);
const ImU32 kDropColor = IM_COL32(214, 39, 40, 255);
const ImU32 kGeluColor = IM_COL32(31, 119, 180, 255);
const ImU32 kReluColor = IM_COL32(214, 39, 40, 255);
}  // namespace

DropoutPanel::DropoutPanel() : Panel(kId), stream_(state_.x0, state_.seed, kRecentMasks) {
  prob_.x.range = prob_.home_x = {-4, 4};
  prob_.y.range = prob_.home_y = {-0.04, 1.04};
  prob_.y_fixed = true;
  conv_.x.scale = plot::Scale::Log10;
  conv_.x.range = conv_.home_x = {1, 10};
  hist_.x.range = hist_.home_x = {-0.5, 3.5};
  hist_.legend_anchor = ImVec2(1, 0);
  prob_.legend_anchor = ImVec2(1, 0.45f);
  conv_.legend_anchor = ImVec2(1, 1);
  restart();
}

void DropoutPanel::restart() {
  stream_ = stochastic::GateStream(state_.x0, state_.seed, kRecentMasks);
  ns_.clear();
  means_.clear();
  lo_.clear();
  hi_.clear();
  const double m = std::max(std::fabs(state_.x0), 1e-3);
  conv_.y.range = conv_.home_y = {std::min(0.0, state_.x0) - 0.15 * m, std::max(0.0, state_.x0) + 0.15 * m};
  conv_.x.range = {1, 10};
}

void DropoutPanel::draw(std::uint64_t n) {
  const auto target = static_cast<std::size_t>(std::min<std::uint64_t>(stream_.count() + n, max_samples_));
  if (target == stream_.count()) return;
  stream_.draw_to(target);
  mc_ = stream_.result(std::min<std::size_t>(target, 4096));
  // The band: GELU(x) ± 1.96·s/√n at each recorded n, with s the sample standard deviation of x·m that
  // the estimator reports (its standard error at the final n times √n).
  const stochastic::MonteCarloResult& r = mc_;
  const double s = r.std_error * std::sqrt(static_cast<double>(r.samples));
  ns_.resize(r.running_n.size());
  lo_.resize(ns_.size());
  hi_.resize(ns_.size());
  for (std::size_t i = 0; i < ns_.size(); ++i) {
    ns_[i] = static_cast<double>(r.running_n[i]);
    const double half = kZ95 * s / std::sqrt(ns_[i]);
    lo_[i] = r.exact - half;
    hi_[i] = r.exact + half;
  }
  means_ = r.running_mean;
}

void DropoutPanel::settle_for_shot() {
  state_.playing = false;
  restart();
  draw(state_.samples);
  conv_.x.range = {1, std::max(10.0, static_cast<double>(stream_.count()) * 1.15)};
}

void DropoutPanel::update_histograms() {
  if (hist_mu_ == state_.mu && hist_sigma_ == state_.sigma) return;
  hist_mu_ = state_.mu;
  hist_sigma_ = state_.sigma;
  // One sample of X ~ N(μ, σ) (same seed) through both functions, binned on one grid.
  const stochastic::Pushforward g = stochastic::pushforward(*find_activation("gelu"), {}, state_.mu,
                                                            state_.sigma, kHistSamples, 12345, kBins);
  const stochastic::Pushforward r = stochastic::pushforward(*find_activation("relu"), {}, state_.mu,
                                                            state_.sigma, kHistSamples, 12345, kBins);
  const double lo = -0.4, hi = std::max(1.0, state_.mu + 3.5 * state_.sigma);
  const stochastic::Histogram gh = stochastic::histogram(g.output, kBins, lo, hi);
  // ReLU's point mass at 0 is reported, not drawn as an infinitely tall density.
  std::vector<double> positive;
  positive.reserve(r.output.size());
  for (double v : r.output)
    if (v != 0) positive.push_back(v);
  const stochastic::Histogram rh = stochastic::histogram(positive, kBins, lo, hi);
  relu_zero_mass_ =
      static_cast<double>(r.output.size() - positive.size()) / static_cast<double>(r.output.size());
  bin_w_ = gh.bin_width();
  const double norm = 1.0 / (static_cast<double>(kHistSamples) * bin_w_);  // densities of the whole sample
  bin_x_.resize(kBins);
  gelu_h_.resize(kBins);
  bin_edges_.clear();
  relu_h_.clear();
  for (int b = 0; b < kBins; ++b) {
    const auto i = static_cast<std::size_t>(b);
    bin_x_[i] = lo + (b + 0.5) * bin_w_;
    gelu_h_[i] = static_cast<double>(gh.counts[i]) * norm;
    const double h = static_cast<double>(rh.counts[i]) * norm;  // a step outline: two points per bin
    bin_edges_.push_back(lo + b * bin_w_);
    relu_h_.push_back(h);
    bin_edges_.push_back(lo + (b + 1) * bin_w_);
    relu_h_.push_back(h);
  }
  mean_gelu_ = stochastic::expected_gelu(state_.mu, state_.sigma);
  mean_relu_ = stochastic::expected_relu(state_.mu, state_.sigma);
  hist_.x.range = hist_.home_x = {lo, hi};
  const double top = std::max(*std::max_element(gelu_h_.begin(), gelu_h_.end()),
                              *std::max_element(relu_h_.begin(), relu_h_.end()));
  hist_.y.range = hist_.home_y = {0, top * 1.12};
}

// The last masks, oldest first: filled = kept (m = 1, x passes), hollow = dropped (m = 0); with the running
// mean against GELU(x). In the controls column, or beside the plots where a lesson step keeps it on screen
// in presentation mode ("mask_grid").
void DropoutPanel::mask_grid() {
  const float em = ui::em();
  ui::text_wrapped("last masks m ~ Bernoulli(Φ(x)):");
  const int cols = 12;
  const float gap = 0.22f * em;
  const float cell = std::min(1.45f * em, (ImGui::GetContentRegionAvail().x - gap * (cols - 1)) / cols);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const int rows = static_cast<int>((kRecent + cols - 1) / cols);
  ImGui::Dummy(ImVec2(cols * (cell + gap), static_cast<float>(rows) * (cell + gap)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const std::vector<bool>& recent = stream_.recent();
  for (std::size_t i = 0; i < recent.size(); ++i) {
    const float cx = origin.x + static_cast<float>(i % cols) * (cell + gap);
    const float cy = origin.y + static_cast<float>(i / cols) * (cell + gap);
    if (recent[i]) {
      dl->AddRectFilled(ImVec2(cx, cy), ImVec2(cx + cell, cy + cell), kKeepColor, 0.2f * em);
    } else {
      dl->AddRect(ImVec2(cx, cy), ImVec2(cx + cell, cy + cell), kDropColor, 0.2f * em, 0, 0.12f * em);
    }
  }
  const double g = find_activation("gelu")->eval(state_.x0);
  ImGui::Text("n = %llu masks", static_cast<unsigned long long>(stream_.count()));
  ImGui::Text("mean of x·m = %.4f", mc_.mean);
  ui::text_wrapped("± %.4f  (95%%, 1.96 standard errors)", kZ95 * mc_.std_error);
  ui::text_wrapped("GELU(x) = x·Φ(x) = %.4f", g);
}

void DropoutPanel::controls() {
  const float em = ui::em();
  ui::heading("Stochastic view at x");
  ImGui::SetNextItemWidth(-1.5f * em);
  const double xlo = -3, xhi = 3;
  if (ImGui::SliderScalar("x", ImGuiDataType_Double, &state_.x0, &xlo, &xhi, "%.3f")) restart();
  ui::mark("slider:x");
  ImGui::Text("keep Φ(x) = %.4f   drop = %.4f", stream_.keep(), stochastic::drop_probability(state_.x0));
  if (ImGui::Button(state_.playing ? "Pause" : "Play")) state_.playing = !state_.playing;
  ui::mark("button:play");
  ImGui::SameLine();
  if (ui::marked("button:plus1000", ImGui::Button("+1000"))) draw(1000);
  ImGui::SameLine();
  if (ImGui::Button("Restart")) restart();
  ui::mark("button:restart");
  ImGui::SetNextItemWidth(-6.0f * em);
  ImGui::SliderInt("masks/frame", &state_.rate, 1, 500, "%d", ImGuiSliderFlags_Logarithmic);
  ui::mark("slider:rate");

  mask_grid();
  ui::heading("Gaussian input z ~ N(μ, σ)");
  ImGui::Checkbox("show its histograms", &state_.gaussian);
  ui::mark("check:gaussian");
  const double mlo = -3, mhi = 3, slo = 0.05, shi = 3;
  ImGui::SetNextItemWidth(-1.5f * em);
  ImGui::SliderScalar("μ", ImGuiDataType_Double, &state_.mu, &mlo, &mhi, "%.3f");
  ui::mark("slider:mu");
  ImGui::SetNextItemWidth(-1.5f * em);
  ImGui::SliderScalar("σ", ImGuiDataType_Double, &state_.sigma, &slo, &shi, "%.3f");
  ui::mark("slider:sigma");
  // Exact values (closed forms) and sampled ones (the histograms' draws) are labelled as such.
  ImGui::PushStyleColor(ImGuiCol_Text, kGeluColor);
  ImGui::Text("E[GELU(z)] = %.4f  exact", mean_gelu_);
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, kReluColor);
  ImGui::Text("E[ReLU(z)] = %.4f  exact", mean_relu_);
  ImGui::TextUnformatted("P(ReLU(z) = 0) = Φ(−μ/σ)");
  ImGui::Text("  = %.4f exact; sampled %.4f", stochastic::keep_probability(-state_.mu / state_.sigma),
              relu_zero_mass_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("sampled: the fraction of %zu draws of z that ReLU sends to 0 (the histograms' sample)",
                      kHistSamples);
  ImGui::PopStyleColor();
}

void DropoutPanel::probability_plot(ImVec2 size) {
  plot::Plot p("keep", prob_, size, "x", "probability");
  // The values at the probe in the legend too: a small plot at a large text scale can leave the markers'
  // labels out (they would cover the curves), the legend never.
  const double drop = stochastic::drop_probability(state_.x0);
  char t[64];
  std::snprintf(t, sizeof t, "keep  Φ(x) = %.3f##keep", stream_.keep());
  p.function(t, kKeepColor, [](std::span<const double> x, std::span<double> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = stochastic::keep_probability(x[i]);
  });
  std::snprintf(t, sizeof t, "drop  1 − Φ(x) = %.3f##drop", drop);
  p.function(t, kDropColor, [](std::span<const double> x, std::span<double> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = stochastic::drop_probability(x[i]);
  });
  std::snprintf(t, sizeof t, "Φ = %.3f", stream_.keep());
  p.marker(state_.x0, stream_.keep(), kKeepColor, t);
  std::snprintf(t, sizeof t, "1 − Φ = %.3f", drop);
  p.marker(state_.x0, drop, kDropColor, t);
  const double before = state_.x0;
  p.probe(&state_.x0, IM_COL32(40, 40, 40, 200));
  if (state_.x0 != before) {
    state_.x0 = std::clamp(state_.x0, -3.0, 3.0);
    restart();
  }
  p.end();
  ui::mark_plot("keep", prob_);
}

void DropoutPanel::convergence_plot(ImVec2 size) {
  if (state_.playing) conv_.x.range = {1, std::max(10.0, static_cast<double>(stream_.count()) * 1.15)};
  plot::Plot p("convergence", conv_, size, "number of masks n", kConvergenceTitle);
  p.shade_between("95% band  GELU(x) ± 1.96·se", IM_COL32(44, 160, 44, 60), ns_, lo_, hi_);
  const double g = mc_.exact;
  const double gx[2] = {1, std::max(10.0, static_cast<double>(stream_.count()))}, gy[2] = {g, g};
  char t[64];
  std::snprintf(t, sizeof t, "GELU(%.2f) = %.4f##gelu", state_.x0, g);
  p.line(t, IM_COL32(44, 120, 44, 255), gx, gy, 0.1f);
  p.line("mean of x·m", IM_COL32(20, 20, 20, 255), ns_, means_, 0.14f);
  p.end();
  ui::mark_plot("convergence", conv_);
}

void DropoutPanel::histogram_plot(ImVec2 size) {
  char xl[96];
  std::snprintf(xl, sizeof xl, "output value for z ~ N(%.2f, %.2f)", state_.mu, state_.sigma);
  plot::Plot p("histograms", hist_, size, xl, "density");
  char bars[64];
  std::snprintf(bars, sizeof bars, "GELU(z), %zu sampled draws", kHistSamples);
  p.bars(bars, IM_COL32(31, 119, 180, 110), bin_x_, gelu_h_, bin_w_ * 0.96);
  char label[96];
  std::snprintf(label, sizeof label, "ReLU(z) for z > 0  (+ a spike P = %.4f at 0, exact)",
                stochastic::keep_probability(-state_.mu / state_.sigma));
  p.line(label, kReluColor, bin_edges_, relu_h_, 0.16f);
  p.vline(mean_gelu_, kGeluColor, 0.12f, true);
  p.vline(mean_relu_, kReluColor, 0.12f, true);
  const double top = hist_.y.range.max;
  char t[64];
  std::snprintf(t, sizeof t, "E[GELU(z)] = %.3f exact", mean_gelu_);
  p.marker(mean_gelu_, top * 0.62, kGeluColor, t, 0.25f);
  std::snprintf(t, sizeof t, "E[ReLU(z)] = %.3f exact", mean_relu_);
  p.marker(mean_relu_, top * 0.48, kReluColor, t, 0.25f);
  p.end();
  ui::mark_plot("histograms", hist_);
}

void DropoutPanel::drawContent() {
  if (state_.playing) draw(static_cast<std::uint64_t>(state_.rate));
  update_histograms();
  ui::begin_panel(19.5f, [this] { controls(); });
  // The masks stay beside the plots where the controls column is hidden: a lesson step that pins them, and
  // presentation mode outside a lesson (F5 hides the column, not what the class is looking at).
  // Outside a lesson the grid goes beside the plots only where the two top plots still fit side by side
  // (their comparison is what the view is for; at 3× text a grid beside them left one plot on screen and cut
  // the grid's own text); elsewhere it follows the plots, below them.
  const bool presenting = !ui::slide() && !ui::show_controls() && !ui::step_view();
  const float grid_w = std::min(19.5f * ui::em(), 0.4f * ImGui::GetContentRegionAvail().x);
  const float title_w0 = ImGui::CalcTextSize(kConvergenceTitle).x + 4.0f * ImGui::GetFontSize();
  const float rest = ImGui::GetContentRegionAvail().x - grid_w - ImGui::GetStyle().ItemSpacing.x;
  const bool room_beside =
      ui::plot_columns(2, rest, ui::plot_gap()) == 2 && 2.0f * title_w0 + ui::plot_gap() <= rest;
  const bool pinned = ui::control_pinned("mask_grid") || (presenting && room_beside);
  const bool grid_below = presenting && !pinned;
  if (pinned) {  // a lesson step shows the masks on a projector: the grid beside the plots
    ImGui::BeginChild("mask_grid",
                      ImVec2(std::min(19.5f * ui::em(), 0.4f * ImGui::GetContentRegionAvail().x), 0), true);
    mask_grid();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("plots", ImVec2(0, 0), false);
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& st = ImGui::GetStyle();
  // Without the histograms (a lesson's first steps), the two plots of x take the whole height. Too narrow
  // for both side by side, they stack (and the view scrolls).
  // A lesson step may show only some of the plots.
  const bool keep = ui::plot_shown("keep"), conv = ui::plot_shown("convergence");
  const bool hist = state_.gaussian && ui::plot_shown("histograms");
  shown_[0] = keep;
  shown_[1] = conv;
  shown_[2] = hist;
  mask_grid_shown_ = pinned || grid_below || ui::show_controls();
  const int tops = (keep ? 1 : 0) + (conv ? 1 : 0);
  // Side by side only where the convergence plot's title stays on one line (a plot wraps its title beyond
  // its width less 4 em): at 3× text on a 1280 px window it went onto two lines, its legend ran off the
  // bottom, and the x label touched the scrollbar; stacked, each plot has the whole width and the view
  // scrolls.
  const float title_w = ImGui::CalcTextSize(kConvergenceTitle).x + 4.0f * ImGui::GetFontSize();
  const bool two = tops == 2 && ui::plot_columns(2, avail.x, ui::plot_gap()) == 2 &&
                   2.0f * title_w + ui::plot_gap() <= avail.x;
  const float rows = static_cast<float>(two ? 1 : tops) + (hist ? (tops ? 0.92f : 1.0f) : 0.0f);
  const float top_h = std::floor((avail.y - st.ItemSpacing.y * (rows - 1)) / std::max(rows, 1.0f));
  const float half_w = two ? (avail.x - ui::plot_gap()) * 0.5f : -1.0f;
  if (keep) probability_plot(ImVec2(half_w, top_h));
  if (keep && two) ImGui::SameLine(0, ui::plot_gap());
  if (conv) convergence_plot(ImVec2(half_w, top_h));
  if (hist) histogram_plot(ImVec2(-1, std::max(top_h * 0.92f, ImGui::GetContentRegionAvail().y)));
  if (grid_below) {
    ImGui::BeginChild("mask_grid", ImVec2(0, 14.0f * ui::em()), true);
    mask_grid();
    ImGui::EndChild();
  }
  if (pinned) ImGui::EndChild();
  ImGui::EndChild();
}

void DropoutPanel::load_state(const json::Value& state) {
  model::DropoutState s = state_;  // all or nothing: read into a copy
  model::dropout_schema().read(state, s);
  state_ = s;
  restart();
}

json::Value DropoutPanel::state() const {
  return model::dropout_schema().write(state_);
}

json::Object DropoutPanel::meta() const {
  json::Object o, plots;
  if (shown_[0]) plots["keep"] = plot_meta(prob_);
  if (shown_[1]) plots["convergence"] = plot_meta(conv_);
  if (shown_[2]) plots["histograms"] = plot_meta(hist_);
  o["mask_grid_shown"] = mask_grid_shown_;
  o["plots"] = plots;
  o["x0"] = state_.x0;
  const stochastic::MonteCarloResult& r = mc_;
  o["keep_probability"] = stream_.keep();
  o["samples"] = static_cast<double>(r.samples);
  o["mean"] = r.mean;
  o["standard_error"] = r.std_error;
  o["replayed_mean"] =
      r.samples ? state_.x0 * static_cast<double>(stream_.kept()) / static_cast<double>(r.samples) : 0.0;
  o["gelu"] = r.exact;
  o["band_lo"] = lo_.empty() ? json::Value() : json::Value(lo_.back());
  o["band_hi"] = hi_.empty() ? json::Value() : json::Value(hi_.back());
  o["mean_color"] = color_hex(IM_COL32(20, 20, 20, 255));
  o["band_color"] = color_hex(IM_COL32(44, 160, 44, 60));
  o["mu"] = state_.mu;
  o["sigma"] = state_.sigma;
  o["mean_gelu"] = mean_gelu_;
  o["mean_relu"] = mean_relu_;
  o["relu_zero_mass"] = relu_zero_mass_;  // sampled (the histograms' draws)
  o["relu_zero_mass_exact"] = stochastic::keep_probability(-state_.mu / state_.sigma);
  return o;
}

GELU_PANEL(DropoutPanel);

}  // namespace gelu::app

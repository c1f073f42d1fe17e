// Dropout view panel (see dropout_panel.hpp).
#include "dropout_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gelu/activation.hpp"
#include "ui.hpp"

namespace gelu::app {

namespace {
constexpr std::size_t kRecent = 60;           // masks shown in the grid
constexpr std::size_t kHistSamples = 40000;   // z ~ N(μ, σ) draws for the histograms
constexpr int kBins = 64;
constexpr double kZ95 = 1.959963984540054;    // two-sided 95% normal quantile
const ImU32 kKeepColor = IM_COL32(31, 119, 180, 255);
const ImU32 kDropColor = IM_COL32(214, 39, 40, 255);
const ImU32 kGeluColor = IM_COL32(31, 119, 180, 255);
const ImU32 kReluColor = IM_COL32(214, 39, 40, 255);
}  // namespace

DropoutPanel::DropoutPanel() : est_(x0_, seed_) {
  prob_.x.range = prob_.home_x = {-4, 4};
  prob_.y.range = prob_.home_y = {-0.04, 1.04};
  prob_.y_fixed = true;
  conv_.x.scale = plot::Scale::Log10;
  conv_.x.range = conv_.home_x = {1, 10};
  hist_.x.range = hist_.home_x = {-0.5, 3.5};
  hist_.legend_anchor = ImVec2(1, 0);
  prob_.legend_anchor = ImVec2(1, 0.45f);
  conv_.legend_anchor = ImVec2(1, 1);
  hist_.y.range = hist_.home_y = {0, 1};
  restart();
}

void DropoutPanel::restart() {
  est_ = MaskEstimator(x0_, seed_);
  tail_provisional_ = false;
  recent_.clear();
  ns_.clear();
  means_.clear();
  lo_.clear();
  hi_.clear();
  const double m = std::max(std::fabs(x0_), 1e-3);
  conv_.y.range = conv_.home_y = {std::min(0.0, x0_) - 0.15 * m, std::max(0.0, x0_) + 0.15 * m};
  conv_.x.range = {1, 10};
}

void DropoutPanel::draw(std::uint64_t n) {
  const double g = find_activation("gelu")->eval(x0_);
  if (tail_provisional_ && !ns_.empty()) {
    ns_.pop_back();
    means_.pop_back();
    lo_.pop_back();
    hi_.pop_back();
  }
  tail_provisional_ = false;
  for (std::uint64_t i = 0; i < n && est_.count() < max_samples_; ++i) {
    recent_.push_back(est_.draw());
    if (recent_.size() > kRecent) recent_.pop_front();
    // The history is plotted on a log n axis: every sample up to 500, then ~0.2% apart in n, so it stays a
    // few thousand points however long the sampling runs.
    const auto n_now = static_cast<double>(est_.count());
    if (n_now > 500 && n_now < ns_.back() * 1.002) continue;
    const double half = kZ95 * est_.standard_error();
    ns_.push_back(n_now);
    means_.push_back(est_.mean());
    lo_.push_back(g - half);
    hi_.push_back(g + half);
  }
  if (est_.count() && ns_.back() != static_cast<double>(est_.count())) {
    // Always end on the latest sample; replaced by the next draw so it does not break the spacing.
    tail_provisional_ = true;
    const double half = kZ95 * est_.standard_error();
    ns_.push_back(static_cast<double>(est_.count()));
    means_.push_back(est_.mean());
    lo_.push_back(g - half);
    hi_.push_back(g + half);
  }
}

void DropoutPanel::settle_for_shot() {
  playing_ = false;
  restart();
  draw(shot_samples_);
  conv_.x.range = {1, std::max(10.0, static_cast<double>(est_.count()) * 1.15)};
}

void DropoutPanel::update_histograms() {
  if (hist_mu_ == mu_ && hist_sigma_ == sigma_) return;
  hist_mu_ = mu_;
  hist_sigma_ = sigma_;
  std::vector<double> z(kHistSamples), g(kHistSamples), r(kHistSamples);
  normal_samples(mu_, sigma_, 12345, z);
  find_activation("gelu")->eval(std::span<const double>(z), std::span<double>(g));
  find_activation("relu")->eval(std::span<const double>(z), std::span<double>(r));
  const double lo = -0.4, hi = std::max(1.0, mu_ + 3.5 * sigma_);
  bin_w_ = (hi - lo) / kBins;
  bin_x_.resize(kBins);
  gelu_h_.assign(kBins, 0);
  relu_h_.assign(2 * kBins + 2, 0);
  std::vector<double> relu_counts(kBins, 0);
  std::size_t zeros = 0;
  for (std::size_t i = 0; i < kHistSamples; ++i) {
    const auto bg = static_cast<long>(std::floor((g[i] - lo) / bin_w_));
    if (bg >= 0 && bg < kBins) gelu_h_[static_cast<std::size_t>(bg)] += 1;
    if (r[i] == 0) {
      ++zeros;  // ReLU's point mass at 0 is reported, not drawn as an infinitely tall density
      continue;
    }
    const auto br = static_cast<long>(std::floor((r[i] - lo) / bin_w_));
    if (br >= 0 && br < kBins) relu_counts[static_cast<std::size_t>(br)] += 1;
  }
  const double norm = 1.0 / (static_cast<double>(kHistSamples) * bin_w_);
  for (int b = 0; b < kBins; ++b) {
    bin_x_[static_cast<std::size_t>(b)] = lo + (b + 0.5) * bin_w_;
    gelu_h_[static_cast<std::size_t>(b)] *= norm;
  }
  // ReLU as a step outline: two points per bin.
  relu_h_.clear();
  bin_edges_.clear();
  for (int b = 0; b < kBins; ++b) {
    const double h = relu_counts[static_cast<std::size_t>(b)] * norm;
    bin_edges_.push_back(lo + b * bin_w_);
    relu_h_.push_back(h);
    bin_edges_.push_back(lo + (b + 1) * bin_w_);
    relu_h_.push_back(h);
  }
  relu_zero_mass_ = static_cast<double>(zeros) / static_cast<double>(kHistSamples);
  expected_ = gaussian_through(mu_, sigma_);
  hist_.x.range = hist_.home_x = {lo, hi};
  const double top = *std::max_element(gelu_h_.begin(), gelu_h_.end());
  hist_.y.range = hist_.home_y = {0, std::max(top, *std::max_element(relu_h_.begin(), relu_h_.end())) * 1.12};
}

void DropoutPanel::controls() {
  const float em = ui::em();
  ui::heading("Stochastic view at x");
  ImGui::SetNextItemWidth(-1.5f * em);
  const double xlo = -3, xhi = 3;
  if (ImGui::SliderScalar("x", ImGuiDataType_Double, &x0_, &xlo, &xhi, "%.3f")) restart();
  ui::mark("slider:x");
  ImGui::Text("keep Φ(x) = %.4f   drop = %.4f", est_.keep(), 1 - est_.keep());
  if (ImGui::Button(playing_ ? "Pause" : "Play")) playing_ = !playing_;
  ui::mark("button:play");
  ImGui::SameLine();
  if (ImGui::Button("+1000")) draw(1000);
  ImGui::SameLine();
  if (ImGui::Button("Restart")) restart();
  ui::mark("button:restart");
  ImGui::SetNextItemWidth(-6.0f * em);
  ImGui::SliderInt("masks/frame", &per_frame_, 1, 500, "%d", ImGuiSliderFlags_Logarithmic);
  ui::mark("slider:rate");

  // The last masks, oldest first: filled = kept (m = 1, x passes), hollow = dropped (m = 0).
  ImGui::TextUnformatted("last masks m ~ Bernoulli(Φ(x)):");
  const int cols = 12;
  const float gap = 0.22f * em;
  const float cell = std::min(1.45f * em, (ImGui::GetContentRegionAvail().x - gap * (cols - 1)) / cols);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const int rows = static_cast<int>((kRecent + cols - 1) / cols);
  ImGui::Dummy(ImVec2(cols * (cell + gap), static_cast<float>(rows) * (cell + gap)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (std::size_t i = 0; i < recent_.size(); ++i) {
    const float cx = origin.x + static_cast<float>(i % cols) * (cell + gap);
    const float cy = origin.y + static_cast<float>(i / cols) * (cell + gap);
    if (recent_[i]) {
      dl->AddRectFilled(ImVec2(cx, cy), ImVec2(cx + cell, cy + cell), kKeepColor, 0.2f * em);
    } else {
      dl->AddRect(ImVec2(cx, cy), ImVec2(cx + cell, cy + cell), kDropColor, 0.2f * em, 0, 0.12f * em);
    }
  }
  const double g = find_activation("gelu")->eval(x0_);
  ImGui::Text("n = %llu masks", static_cast<unsigned long long>(est_.count()));
  ImGui::Text("mean of x·m = %.4f", est_.mean());
  ImGui::Text("± %.4f  (95%%, 1.96 standard errors)", kZ95 * est_.standard_error());
  ImGui::Text("GELU(x) = x·Φ(x) = %.4f", g);

  ui::heading("Gaussian input z ~ N(μ, σ)");
  const double mlo = -3, mhi = 3, slo = 0.05, shi = 3;
  ImGui::SetNextItemWidth(-1.5f * em);
  ImGui::SliderScalar("μ", ImGuiDataType_Double, &mu_, &mlo, &mhi, "%.3f");
  ui::mark("slider:mu");
  ImGui::SetNextItemWidth(-1.5f * em);
  ImGui::SliderScalar("σ", ImGuiDataType_Double, &sigma_, &slo, &shi, "%.3f");
  ui::mark("slider:sigma");
  ImGui::PushStyleColor(ImGuiCol_Text, kGeluColor);
  ImGui::Text("E[GELU(z)] = %.4f", expected_.mean_gelu);
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, kReluColor);
  ImGui::Text("E[ReLU(z)] = %.4f", expected_.mean_relu);
  ImGui::Text("P(ReLU(z) = 0) = %.3f", relu_zero_mass_);
  ImGui::PopStyleColor();
}

void DropoutPanel::probability_plot(ImVec2 size) {
  plot::Plot p("keep", prob_, size, "x", "probability");
  p.function("keep  Φ(x)", kKeepColor, [](std::span<const double> x, std::span<double> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = keep_probability(x[i]);
  });
  p.function("drop  1 − Φ(x)", kDropColor, [](std::span<const double> x, std::span<double> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = 1 - keep_probability(x[i]);
  });
  char t[64];
  std::snprintf(t, sizeof t, "Φ = %.3f", est_.keep());
  p.marker(x0_, est_.keep(), kKeepColor, t);
  std::snprintf(t, sizeof t, "1 − Φ = %.3f", 1 - est_.keep());
  p.marker(x0_, 1 - est_.keep(), kDropColor, t);
  const double before = x0_;
  p.probe(&x0_, IM_COL32(40, 40, 40, 200));
  if (x0_ != before) {
    x0_ = std::clamp(x0_, -3.0, 3.0);
    restart();
  }
  p.end();
  ui::mark_plot("keep", prob_);
}

void DropoutPanel::convergence_plot(ImVec2 size) {
  if (playing_) conv_.x.range = {1, std::max(10.0, static_cast<double>(est_.count()) * 1.15)};
  plot::Plot p("convergence", conv_, size, "number of masks n", "running mean of x·m");
  p.shade_between("95% band  GELU(x) ± 1.96·se", IM_COL32(44, 160, 44, 60), ns_, lo_, hi_);
  const double g = find_activation("gelu")->eval(x0_);
  p.hline(g, IM_COL32(44, 120, 44, 255), 0.1f, true);
  p.line("mean of x·m", IM_COL32(20, 20, 20, 255), ns_, means_, 0.14f);
  char t[64];
  std::snprintf(t, sizeof t, "GELU(%.2f) = %.4f", x0_, g);
  p.note(t, 3, IM_COL32(44, 120, 44, 255));
  p.end();
  ui::mark_plot("convergence", conv_);
}

void DropoutPanel::histogram_plot(ImVec2 size) {
  char xl[96];
  std::snprintf(xl, sizeof xl, "output value for z ~ N(%.2f, %.2f)", mu_, sigma_);
  plot::Plot p("histograms", hist_, size, xl, "density");
  p.bars("GELU(z)", IM_COL32(31, 119, 180, 110), bin_x_, gelu_h_, bin_w_ * 0.96);
  char label[96];
  std::snprintf(label, sizeof label, "ReLU(z) for z > 0  (+ a spike P = %.3f at 0)", relu_zero_mass_);
  p.line(label, kReluColor, bin_edges_, relu_h_, 0.16f);
  p.vline(expected_.mean_gelu, kGeluColor, 0.12f, true);
  p.vline(expected_.mean_relu, kReluColor, 0.12f, true);
  const double top = hist_.y.range.max;
  char t[64];
  std::snprintf(t, sizeof t, "E[GELU(z)] = %.3f", expected_.mean_gelu);
  p.marker(expected_.mean_gelu, top * 0.62, kGeluColor, t, 0.25f);
  std::snprintf(t, sizeof t, "E[ReLU(z)] = %.3f", expected_.mean_relu);
  p.marker(expected_.mean_relu, top * 0.48, kReluColor, t, 0.25f);
  p.end();
  ui::mark_plot("histograms", hist_);
}

void DropoutPanel::drawContent() {
  if (playing_) draw(static_cast<std::uint64_t>(per_frame_));
  update_histograms();
  const float em = ui::em();
  ImGui::BeginChild("controls", ImVec2(19.5f * em, 0), true);
  controls();
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("view", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoScrollbar);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& st = ImGui::GetStyle();
  const float top_h = (avail.y - st.ItemSpacing.y) * 0.52f;
  const float half_w = (avail.x - st.ItemSpacing.x) * 0.5f;
  probability_plot(ImVec2(half_w, top_h));
  ImGui::SameLine();
  convergence_plot(ImVec2(half_w, top_h));
  histogram_plot(ImVec2(-1, -1));
  ImGui::EndChild();
}

void DropoutPanel::load_state(const json::Value& s) {
  check_keys(s, {"x0", "samples", "seed", "mu", "sigma", "rate", "playing"});
  read_number(s, "x0", x0_, -3, 3);
  double v = static_cast<double>(shot_samples_);
  read_number(s, "samples", v, 1, static_cast<double>(max_samples_));
  shot_samples_ = static_cast<std::uint64_t>(v);
  v = static_cast<double>(seed_);
  read_number(s, "seed", v, 0, 9007199254740992.0);
  seed_ = static_cast<std::uint64_t>(v);
  read_number(s, "mu", mu_, -3, 3);
  read_number(s, "sigma", sigma_, 0.05, 3);
  v = per_frame_;
  read_number(s, "rate", v, 1, 500);
  per_frame_ = static_cast<int>(v);
  read_bool(s, "playing", playing_);
  restart();
}

json::Object DropoutPanel::meta() const {
  json::Object o, plots;
  plots["keep"] = plot_meta(prob_);
  plots["convergence"] = plot_meta(conv_);
  plots["histograms"] = plot_meta(hist_);
  o["plots"] = plots;
  o["x0"] = x0_;
  o["keep_probability"] = est_.keep();
  o["samples"] = static_cast<double>(est_.count());
  o["mean"] = est_.mean();
  o["standard_error"] = est_.standard_error();
  o["gelu"] = find_activation("gelu")->eval(x0_);
  o["band_lo"] = lo_.empty() ? json::Value() : json::Value(lo_.back());
  o["band_hi"] = hi_.empty() ? json::Value() : json::Value(hi_.back());
  o["mean_color"] = color_hex(IM_COL32(20, 20, 20, 255));
  o["band_color"] = color_hex(IM_COL32(44, 160, 44, 60));
  o["mu"] = mu_;
  o["sigma"] = sigma_;
  o["mean_gelu"] = expected_.mean_gelu;
  o["mean_relu"] = expected_.mean_relu;
  o["relu_zero_mass"] = relu_zero_mass_;
  return o;
}

}  // namespace gelu::app

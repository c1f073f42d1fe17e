// FFN lab panel (see ffn_panel.hpp).
//
// Index of this file:
//   [SECTION] Controls
//   [SECTION] Views
//   [SECTION] State and meta
#include "gui/panels/ffn_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gelu/activation.hpp"
#include "gelu/ffn/network.hpp"
#include "gui/kit/ui.hpp"
#include "model/backends.hpp"

namespace gelu::app {

namespace {
const ImU32 kNetColor[2] = {IM_COL32(148, 103, 189, 255), IM_COL32(44, 160, 44, 255)};  // A purple, B green
const char* const kNetName[2] = {"A", "B"};

std::string net_label(const LabConfig& c, int i) {
  const NetChoice& n = c.nets[static_cast<std::size_t>(i)];
  std::string s;
  if (c.glu) {
    s = ffn::to_string(n.glu_kind);
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    // GEGLU as in Shazeer's paper and the lessons (SwiGLU and ReGLU keep their mixed case there too).
    if (s == "SWIGLU") s = "SwiGLU";
    if (s == "REGLU") s = "ReGLU";
  } else {
    std::vector<std::string> names;
    for (std::size_t l = 0; l < c.widths.size() && !n.activations.empty(); ++l) {
      const Activation* a = find_activation(n.activations[std::min(l, n.activations.size() - 1)]);
      const std::string name = a ? a->name : "?";
      if (names.empty() || names.back() != name) names.push_back(name);
    }
    for (const std::string& x : names) s += (s.empty() ? "" : " / ") + x;
  }
  if (n.stochastic) s += " (stochastic)";
  return s;
}

double last_or_nan(const std::vector<double>& v) {
  return v.empty() ? NAN : v.back();
}

/// A decision map's title: the net, then its accuracy, or the step at which it diverged.
std::string heat_title(const LabConfig& c, const NetSnapshot& n, int i) {
  char title[192];
  const double acc = last_or_nan(n.train_acc), tacc = last_or_nan(n.test_acc);
  if (n.diverged_at) {
    std::snprintf(title, sizeof title, "%s: %s   diverged at step %d — lower the learning rate", kNetName[i],
                  net_label(c, i).c_str(), n.diverged_at);
  } else if (std::isnan(acc)) {
    std::snprintf(title, sizeof title, "%s: %s", kNetName[i], net_label(c, i).c_str());
  } else {
    std::snprintf(title, sizeof title, "%s: %s   train %.1f%% · test %.1f%% right", kNetName[i],
                  net_label(c, i).c_str(), 100 * acc, 100 * tacc);
  }
  return title;
}
}  // namespace

FfnPanel::FfnPanel() : Panel(kId) {
  gpu_available_ = gpu_built();
  if (!gpu_available_) gpu_note_ = "this build has no GPU backend";
  loss_.y.scale = plot::Scale::Log10;
  loss_.x.range = loss_.home_x = {0, 100};
  loss_.y.range = loss_.home_y = {0.01, 1};
  loss_.legend_anchor = ImVec2(1, 0);
  layers_.legend_anchor = ImVec2(1, 0);
  for (auto& h : heat_plot_) {
    h.y_fixed = true;
    h.square = true;  // a map: equal scales on both axes
    h.legend_anchor = ImVec2(1, 1);
  }
  lab_.reset(st_.cfg);
}

void FfnPanel::changed(bool reset) {
  if (reset) {
    lab_.reset(st_.cfg);
  } else {
    lab_.reconfigure(st_.cfg);
  }
}

std::string FfnPanel::shot_limit_error() const {
  // shot_steps x batch x parameters of both nets: ~0.2 ns each on this 2-core machine, so the limit is a
  // few tens of seconds; the largest state (4 GLU layers of 128, batch 4096, 100000 steps) would take a day.
  constexpr double kMaxShotWork = 1e11;
  ffn::Dataset d;
  d.classes = st_.cfg.data.classes;
  double work = 0;
  for (int i = 0; i < (st_.cfg.ab ? 2 : 1); ++i) {
    try {
      work += static_cast<double>(st_.cfg.batch) *
              static_cast<double>(ffn::Network<float>(st_.cfg.spec(i, d)).parameter_count()) * st_.shot_steps;
    } catch (const ffn::SpecError&) {
      // An invalid net trains nothing; the panel reports it.
    }
  }
  if (work <= kMaxShotWork) return {};
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "the ffn state's shot_steps %d x batch %d x the nets' parameters = %.2g multiply-adds, more than the "
      "limit of %.0e for a headless shot (lower shot_steps, batch or widths)",
      st_.shot_steps, st_.cfg.batch, work, kMaxShotWork);
  return buf;
}

void FfnPanel::settle_for_shot() {
  st_.playing = false;
  lab_.set_running(false);
  lab_.reset(st_.cfg);
  // A training budget below shot_steps: the shot shows where playing would have paused.
  lab_.step(st_.cfg.step_budget > 0 ? std::min(st_.shot_steps, st_.cfg.step_budget) : st_.shot_steps);
  lab_.wait_idle();
  // drawContent takes the published results (and uploads the heatmaps) in the first frame.
}

// [SECTION] Controls

void FfnPanel::net_choice(int i) {
  NetChoice& n = st_.cfg.nets[static_cast<std::size_t>(i)];
  ImGui::PushID(i);
  ImGui::PushStyleColor(ImGuiCol_Text, kNetColor[i]);
  ui::heading(i == 0 ? "Net A" : "Net B");
  ImGui::PopStyleColor();
  bool any_gelu = false;
  if (st_.cfg.glu) {
    const ffn::GluKind kinds[] = {ffn::GluKind::GeGlu, ffn::GluKind::SwiGlu, ffn::GluKind::ReGlu};
    static const char* const names[] = {"GEGLU (GELU gate)", "SwiGLU (SiLU gate)", "ReGLU (ReLU gate)"};
    int cur = n.glu_kind == ffn::GluKind::SwiGlu ? 1 : n.glu_kind == ffn::GluKind::ReGlu ? 2 : 0;
    ImGui::SetNextItemWidth(-0.5f * ui::em());
    if (ui::combo(std::string("glu") + kNetName[i], "##glu", &cur, names)) {
      n.glu_kind = kinds[cur];
      changed(false);
    }
    any_gelu = n.glu_kind == ffn::GluKind::GeGlu;
  } else {
    n.activations.resize(st_.cfg.widths.size(), n.activations.empty() ? "gelu" : n.activations.back());
    for (std::size_t l = 0; l < st_.cfg.widths.size(); ++l) {
      ImGui::PushID(static_cast<int>(l));
      const Activation* cur = find_activation(n.activations[l]);
      ImGui::SetNextItemWidth(-4.0f * ui::em());
      char label[32];
      std::snprintf(label, sizeof label, "layer %zu", l + 1);
      if (ImGui::BeginCombo(label, cur ? cur->name : n.activations[l].c_str())) {
        for (const Activation& a : registry())
          if (ui::marked(std::string("option:act") + kNetName[i] + std::to_string(l) + ":" + a.id,
                         ImGui::Selectable(a.name, cur == &a))) {
            n.activations[l] = a.id;
            changed(false);
          }
        ImGui::EndCombo();
      }
      ui::mark(std::string("combo:act") + kNetName[i] + std::to_string(l));
      any_gelu = any_gelu || n.activations[l] == "gelu";
      ImGui::PopID();
    }
  }
  ImGui::BeginDisabled(!any_gelu);
  if (ui::marked(std::string("check:stochastic") + kNetName[i],
                 ImGui::Checkbox("stochastic GELU", &n.stochastic)))
    changed(false);
  ImGui::EndDisabled();
  ui::help_marker(
      "In training a GELU unit outputs x·m with m ~ Bernoulli(Φ(x)); evaluated, it outputs the "
      "mean x·Φ(x). Needs a GELU layer (or GEGLU).");
  ImGui::PopID();
}

void FfnPanel::controls() {
  const float em = ui::em();
  // The lab pauses itself when the nets cannot train (an error); the saved state follows it from here.
  const bool playing = lab_.running();
  st_.playing = st_.playing && playing;
  const int trained = std::max(snap_.nets[0].steps, snap_.ab ? snap_.nets[1].steps : 0);
  if (ImGui::Button(playing ? "Pause" : "Play", ImVec2(4.5f * em, 0))) {
    if (!playing && st_.cfg.step_budget > 0 && trained >= st_.cfg.step_budget) {
      st_.cfg.step_budget = 0;  // Play after a budget's pause goes on training
      lab_.set_step_budget(0);
    }
    lab_.set_running(!playing);
    st_.playing = !playing;
  }
  ui::mark("button:play");
  ImGui::SameLine();
  char step_label[32];
  std::snprintf(step_label, sizeof step_label, "Step +%d", steps_per_click_);
  if (ImGui::Button(step_label)) lab_.step(steps_per_click_);
  ui::mark("button:step");
  ImGui::SameLine();
  if (ImGui::Button("Reset")) changed(true);
  ui::mark("button:reset");
  bool full = st_.cfg.speed == 0;
  int speed = full ? 20000 : st_.cfg.speed;
  ImGui::BeginDisabled(full);
  ImGui::SetNextItemWidth(-9.0f * em);
  if (ui::marked("slider:speed",
                 ImGui::SliderInt("steps/s", &speed, 5, 20000, "%d", ImGuiSliderFlags_Logarithmic))) {
    st_.cfg.speed = speed;
    lab_.set_speed(speed);
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ui::marked("check:max_speed", ImGui::Checkbox("max", &full))) {
    st_.cfg.speed = full ? 0 : 200;
    lab_.set_speed(st_.cfg.speed);
  }
  if (st_.cfg.step_budget > 0)
    ImGui::Text("step %d of %d · %s", trained, st_.cfg.step_budget, snap_.backend.c_str());
  else
    ImGui::Text("step %d · %s", trained, snap_.backend.c_str());
  // Why the GPU was asked for and the CPU trains: next to the backend name, not at the bottom of the column.
  if (!snap_.notice.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(170, 90, 0, 255));
    ui::text_wrapped("%s", snap_.notice.c_str());
    ImGui::PopStyleColor();
  }
  ui::heading("Data");
  const ffn::DatasetInfo* info = ffn::find_dataset(st_.cfg.data.id);
  ImGui::SetNextItemWidth(-0.5f * em);
  if (ImGui::BeginCombo("##dataset", info ? info->id : st_.cfg.data.id.c_str())) {
    for (const ffn::DatasetInfo& d : ffn::datasets()) {
      if (d.task != ffn::Task::Classification || d.inputs != 2) continue;
      if (ui::marked(std::string("option:dataset:") + d.id,
                     ImGui::Selectable(d.id, st_.cfg.data.id == d.id))) {
        st_.cfg.data.id = d.id;
        st_.cfg.data.classes = 2;
        st_.cfg.edits.clear();
        changed(true);
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", d.description);
    }
    ImGui::EndCombo();
  }
  ui::mark("combo:dataset");
  if (info && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info->description);
  ui::text_wrapped("Click a map: add a blue point · Shift+click: orange · Ctrl+click: remove");
  ImGui::Text("%d training points", static_cast<int>(snap_.data.x_train.cols()));
  if (!st_.cfg.edits.empty()) {
    ImGui::SameLine();
    if (ui::marked("button:undo_points", ImGui::SmallButton("undo my points"))) {
      st_.cfg.edits.clear();
      changed(false);
    }
  }

  ui::heading("Hidden space");
  if (ImGui::Checkbox("show the plane in two hidden units", &st_.cfg.hidden.on)) changed(false);
  ui::mark("check:hidden_space");
  ui::help_marker(
      "The input plane's grid lines and the training points pushed through each net to a hidden layer, "
      "drawn in the coordinates of two of its units: ReLU folds the plane onto the axes, GELU bends it "
      "smoothly.");
  if (st_.cfg.hidden.on) {
    const int layers = static_cast<int>(st_.cfg.widths.size());
    const int width =
        st_.cfg.widths[static_cast<std::size_t>(std::clamp(st_.cfg.hidden.layer, 1, layers) - 1)];
    ImGui::SetNextItemWidth(-6.5f * em);
    if (layers > 1 && ui::marked("slider:hidden_layer",
                                 ImGui::SliderInt("layer##hidden", &st_.cfg.hidden.layer, 1, layers)))
      changed(false);
    ImGui::SetNextItemWidth(-6.5f * em);
    if (ui::marked("slider:unit_x",
                   ImGui::SliderInt("x: unit", &st_.cfg.hidden.unit_x, 1, std::max(1, width))))
      changed(false);
    ImGui::SetNextItemWidth(-6.5f * em);
    if (ui::marked("slider:unit_y",
                   ImGui::SliderInt("y: unit", &st_.cfg.hidden.unit_y, 1, std::max(1, width))))
      changed(false);
  }
  ui::heading("Network");
  int layers = static_cast<int>(st_.cfg.widths.size());
  ImGui::SetNextItemWidth(-6.0f * em);
  if (ui::marked("slider:layers", ImGui::SliderInt("hidden layers", &layers, 1, 4))) {
    st_.cfg.widths.resize(static_cast<std::size_t>(layers), st_.cfg.widths.back());
    changed(true);
  }
  for (std::size_t l = 0; l < st_.cfg.widths.size(); ++l) {
    ImGui::PushID(static_cast<int>(l));
    char label[32];
    std::snprintf(label, sizeof label, "width %zu", l + 1);
    ImGui::SetNextItemWidth(-6.0f * em);
    if (ui::marked("slider:width" + std::to_string(l + 1),
                   ImGui::SliderInt(label, &st_.cfg.widths[l], 1, 64)))
      changed(true);
    ImGui::PopID();
  }
  if (ui::marked("check:glu", ImGui::Checkbox("GLU blocks", &st_.cfg.glu))) changed(true);
  ui::help_marker(
      "Each hidden block becomes W_down·(act(W_gate·x) ⊙ W_up·x): the gate's activation "
      "multiplies a linear branch (GEGLU, SwiGLU, ReGLU).");
  ImGui::SameLine();
  if (ui::marked("check:ab", ImGui::Checkbox("A/B", &st_.cfg.ab))) changed(true);
  ui::help_marker("Train net B beside net A from identical initial weights.");
  net_choice(0);
  if (st_.cfg.ab) net_choice(1);

  ui::heading("Training");
  int opt = st_.cfg.optimizer == ffn::OptimizerKind::Adam ? 1 : 0;
  ImGui::SetNextItemWidth(6 * em);
  static const char* const kOptimizers[] = {"SGD", "Adam"};
  if (ui::combo("optimizer", "optimizer", &opt, kOptimizers)) {
    st_.cfg.optimizer = opt ? ffn::OptimizerKind::Adam : ffn::OptimizerKind::Sgd;
    changed(false);
  }
  const double lr_lo = 1e-4, lr_hi = 1.0;
  ImGui::SetNextItemWidth(-6.0f * em);
  if (ImGui::SliderScalar("learning rate", ImGuiDataType_Double, &st_.cfg.lr, &lr_lo, &lr_hi, "%.4g",
                          ImGuiSliderFlags_Logarithmic))
    changed(false);
  ui::mark("slider:lr");
  ImGui::SetNextItemWidth(-6.0f * em);
  if (ui::marked("slider:batch",
                 ImGui::SliderInt("batch", &st_.cfg.batch, 1, 512, "%d", ImGuiSliderFlags_Logarithmic)))
    changed(false);
  int backend = st_.cfg.gpu ? 1 : 0;
  ImGui::TextUnformatted("backend");
  ImGui::SameLine();
  if (ui::marked("radio:cpu", ImGui::RadioButton("CPU", &backend, 0))) {
    st_.cfg.gpu = false;
    changed(false);
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!gpu_available_);
  if (ui::marked("radio:gpu", ImGui::RadioButton("GPU", &backend, 1))) {
    st_.cfg.gpu = true;
    changed(false);
  }
  ImGui::EndDisabled();
  if (!gpu_note_.empty()) ImGui::TextDisabled("%s", gpu_note_.c_str());

  if (!snap_.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(200, 30, 30, 255));
    ui::text_wrapped("%s", snap_.error.c_str());
    ImGui::PopStyleColor();
  }
}

// [SECTION] Views

void FfnPanel::heatmap_view(int i, ImVec2 size) {
  const NetSnapshot& n = snap_.nets[static_cast<std::size_t>(i)];
  plot::PlotState& st = heat_plot_[static_cast<std::size_t>(i)];
  const ffn::Dataset& d = snap_.data;
  st.x.range = st.home_x = {d.lo[0], d.hi[0]};
  st.y.range = st.home_y = {d.lo[1], d.hi[1]};
  if (!st.x.range.valid() || !st.y.range.valid()) st.x.range = st.y.range = {-1, 1};
  // The net on top, how it does below the map (short titles: a projector's 3× text keeps the map in view).
  const std::string full = heat_title(st_.cfg, n, i);
  std::string name = std::string(kNetName[i]) + ": " + net_label(st_.cfg, i);
  std::string status = full.size() > name.size() ? full.substr(name.size()) : std::string();
  status.erase(0, status.find_first_not_of(' '));
  // On a slide the map's title keeps one line: "B: GELU (stochastic)", not "B: GELU (exact) (stochastic)".
  if (const auto at = name.find(" (exact) "); ui::slide() && at != std::string::npos) name.erase(at, 8);
  // On a slide the scores keep one line under a half-width map ("right" is what the percentages count).
  if (ui::slide() && status.size() > 6 && status.ends_with(" right")) status.resize(status.size() - 6);
  ImGui::PushID(i);
  plot::Plot p(i == 0 ? "heatA" : "heatB", st, size, status.empty() ? nullptr : status.c_str(), name.c_str());
  heat_[static_cast<std::size_t>(i)].draw(p);
  for (std::size_t c = 0; c < train_x_.size(); ++c) {
    p.rings("##test", class_color(static_cast<int>(c)), test_x_[c], test_y_[c], 0.24f, 0.08f);
    p.scatter("##rim", IM_COL32_WHITE, train_x_[c], train_y_[c], 0.3f);
    p.scatter("##dot", class_color(static_cast<int>(c)), train_x_[c], train_y_[c], 0.22f);
  }
  if (st.capture) {  // the CSV export: the map's cells with their values, then the points on it
    const ffn::GridOutput& g = n.grid;
    if (g.nx >= 2 && g.ny >= 2 &&
        g.values.size() == static_cast<std::size_t>(g.nx) * static_cast<std::size_t>(g.ny)) {
      std::vector<double> cx, cy;
      for (int y = 0; y < g.ny; ++y)
        for (int x = 0; x < g.nx; ++x) {  // x fastest, as in the grid's values
          cx.push_back(g.lo[0] + (g.hi[0] - g.lo[0]) * x / (g.nx - 1));
          cy.push_back(g.lo[1] + (g.hi[1] - g.lo[1]) * y / (g.ny - 1));
        }
      p.cells(d.classes == 0   ? "output"
              : d.classes == 2 ? "P(class 1)"
                               : "predicted class",
              cx, cy, g.values);
    }
    for (std::size_t c = 0; c < train_x_.size(); ++c) {
      p.data(("train points, class " + std::to_string(c)).c_str(), train_x_[c], train_y_[c]);
      p.data(("test points, class " + std::to_string(c)).c_str(), test_x_[c], test_y_[c]);
    }
  }
  if (n.diverged_at) {  // its weights are no longer numbers: the map is hatched, training of this net stopped
    p.hatch(IM_COL32(200, 30, 30, 170));
    p.note("training stopped: Reset starts again", 0, IM_COL32(200, 30, 30, 255));
  }
  if (!n.error.empty()) p.note(n.error.c_str(), 0, IM_COL32(200, 30, 30, 255));
  const plot::Transform tf = p.transform();
  const bool hovered = p.hovered();
  p.end();
  ImGui::PopID();
  hover_prediction(n.grid, tf, hovered);
  heat_min_[static_cast<std::size_t>(i)] = ImVec2(static_cast<float>(tf.left), static_cast<float>(tf.top));
  heat_max_[static_cast<std::size_t>(i)] =
      ImVec2(static_cast<float>(tf.right), static_cast<float>(tf.bottom));
  ui::mark_plot(std::string("heat") + kNetName[i], st);

  // Point edits: a click (no drag) inside the map.
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 m = io.MousePos;
  const bool inside = m.x >= tf.left && m.x <= tf.right && m.y >= tf.top && m.y <= tf.bottom;
  if (!hovered || !inside || !ImGui::IsMouseReleased(0) || io.MouseDragMaxDistanceSqr[0] > 16) return;
  const double x = tf.data_x(m.x), y = tf.data_y(m.y);
  if (io.KeyCtrl) {
    // The nearest training point within 0.8 em on screen.
    double best = 0.8 * ui::em() * 0.8 * ui::em();
    Eigen::Index arg = -1;
    for (Eigen::Index k = 0; k < d.x_train.cols(); ++k) {
      const double dx = tf.px_x(d.x_train(0, k)) - m.x, dy = tf.px_y(d.x_train(1, k)) - m.y;
      if (dx * dx + dy * dy < best) {
        best = dx * dx + dy * dy;
        arg = k;
      }
    }
    if (arg < 0) return;
    st_.cfg.edits.push_back(PointEdit{false, d.x_train(0, arg), d.x_train(1, arg), 0});
  } else {
    st_.cfg.edits.push_back(PointEdit{true, x, y, io.KeyShift ? 1 : 0});
  }
  changed(false);
}

void FfnPanel::hover_prediction(const ffn::GridOutput& g, const plot::Transform& tf, bool hovered) const {
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (!hovered || g.nx < 2 || g.ny < 2 || m.x < tf.left || m.x > tf.right || m.y < tf.top || m.y > tf.bottom)
    return;
  // The nearest grid point's prediction (appended to the plot's hover tooltip).
  const double fx = (tf.data_x(m.x) - g.lo[0]) / (g.hi[0] - g.lo[0]) * (g.nx - 1);
  const double fy = (tf.data_y(m.y) - g.lo[1]) / (g.hi[1] - g.lo[1]) * (g.ny - 1);
  const int i = std::clamp(static_cast<int>(std::lround(fx)), 0, g.nx - 1);
  const int j = std::clamp(static_cast<int>(std::lround(fy)), 0, g.ny - 1);
  const std::size_t k =
      static_cast<std::size_t>(j) * static_cast<std::size_t>(g.nx) + static_cast<std::size_t>(i);
  if (k >= g.values.size()) return;
  ImGui::BeginTooltip();
  if (g.confidence.empty()) {
    ImGui::Text("P(orange) = %.3f", g.values[k]);
  } else {
    ImGui::Text("class %d, p = %.3f", static_cast<int>(g.values[k]), g.confidence[k]);
  }
  ImGui::TextDisabled("click: add blue · shift: orange · ctrl: remove");
  ImGui::EndTooltip();
}

void FfnPanel::loss_plot(ImVec2 size) {
  plot::Plot p("loss", loss_, size, "training step", "loss (thin: minibatch, thick: test set)");
  const int nets = snap_.ab ? 2 : 1;
  for (int i = 0; i < nets; ++i) {
    const NetSnapshot& n = snap_.nets[static_cast<std::size_t>(i)];
    char label[64];
    std::snprintf(label, sizeof label, "##batch%d", i);
    p.line(label, (kNetColor[i] & ~IM_COL32_A_MASK) | (90u << IM_COL32_A_SHIFT), n.loss_steps, n.batch_loss,
           0.08f);
  }
  for (int i = 0; i < nets; ++i) {
    const NetSnapshot& n = snap_.nets[static_cast<std::size_t>(i)];
    char label[160];
    if (n.diverged_at)
      std::snprintf(label, sizeof label, "%s: %s  diverged at step %d##test%d", kNetName[i],
                    net_label(st_.cfg, i).c_str(), n.diverged_at, i);
    else
      std::snprintf(label, sizeof label, "%s: %s  test %.3g##test%d", kNetName[i],
                    net_label(st_.cfg, i).c_str(), last_or_nan(n.test_loss), i);
    p.line(label, kNetColor[i], n.eval_steps, n.test_loss, 0.17f);
  }
  if (snap_.nets[0].steps == 0) p.note("press Play or Step to train", 3, IM_COL32(90, 90, 90, 255));
  p.end();
  ui::mark_plot("loss", loss_);
}

void FfnPanel::hidden_plot(int i, ImVec2 size) {
  const NetSnapshot& n = snap_.nets[static_cast<std::size_t>(i)];
  char title[160], xl[64];
  const char* const id = i == 0 ? "hiddenA" : "hiddenB";
  if (n.hidden) {
    std::snprintf(title, sizeof title, "%s: %s · unit %d", kNetName[i], net_label(st_.cfg, i).c_str(),
                  n.hidden->unit_y + 1);
    std::snprintf(xl, sizeof xl, "unit %d (hidden layer %d)", n.hidden->unit_x + 1, n.hidden->block + 1);
  } else {
    std::snprintf(title, sizeof title, "%s: hidden space", kNetName[i]);
    std::snprintf(xl, sizeof xl, "%s", n.hidden_error.empty() ? "not computed yet" : n.hidden_error.c_str());
  }
  plot::PlotState& st = hidden_[static_cast<std::size_t>(i)];
  plot::Plot p(id, st, size, xl, title);
  if (n.hidden) {
    const ffn::HiddenSpace& h = *n.hidden;
    // The grid lines: x = const in one colour, y = const in another, then the points by class on top.
    const std::size_t lines = h.xs.size() / 2;
    for (std::size_t k = 0; k < h.xs.size(); ++k)
      p.line(k == 0       ? "grid lines x = const"
             : k == lines ? "grid lines y = const"
                          : "##grid",
             k < lines ? IM_COL32(90, 90, 160, 150) : IM_COL32(170, 110, 60, 150), h.xs[k], h.ys[k], 0.07f);
    auto& xs = hidden_pts_x_[static_cast<std::size_t>(i)];
    auto& ys = hidden_pts_y_[static_cast<std::size_t>(i)];
    const int classes = std::max(2, snap_.data.classes);
    xs.assign(static_cast<std::size_t>(classes), {});
    ys.assign(static_cast<std::size_t>(classes), {});
    for (std::size_t k = 0; k < h.px.size(); ++k) {
      const auto c = static_cast<std::size_t>(std::clamp(h.label[k], 0, classes - 1));
      xs[c].push_back(h.px[k]);
      ys[c].push_back(h.py[k]);
    }
    for (int c = 0; c < classes; ++c)
      p.scatter(c == 0 ? "training points, by class" : "##pts", class_color(c),
                xs[static_cast<std::size_t>(c)], ys[static_cast<std::size_t>(c)], 0.18f);
    // Follow the data while training: the view fits every published snapshot (the layer moves as it learns).
    if (snap_.version != hidden_fit_version_[static_cast<std::size_t>(i)]) {
      st.fit_x_request = st.fit_y_request = true;
      hidden_fit_version_[static_cast<std::size_t>(i)] = snap_.version;
    }
  }
  p.end();
  ui::mark_plot(id, st);
}

// The layer asked for is kept as asked and clamped where it is used, to the layers the configuration has:
// what is saved never depends on whether a snapshot arrived before the app closed.
int FfnPanel::shown_layer() const {
  return std::clamp(st_.layer - 1, 0, static_cast<int>(st_.cfg.widths.size()) - 1);
}

void FfnPanel::layer_plot(ImVec2 size) {
  const int nets = snap_.ab ? 2 : 1;
  const int layer = shown_layer();
  char xl[96];
  std::snprintf(xl, sizeof xl, "activation value in hidden layer %d (latest minibatch)", layer + 1);
  // Both nets' histograms as densities on one axis: step outlines (two points per bin).
  double lo = 1e300, hi = -1e300, top = 0;
  for (int i = 0; i < nets; ++i) {
    auto& xs = hist_x_[static_cast<std::size_t>(i)];
    auto& ys = hist_y_[static_cast<std::size_t>(i)];
    xs.clear();
    ys.clear();
    const auto& layers = snap_.nets[static_cast<std::size_t>(i)].layers;
    if (layer >= static_cast<int>(layers.size())) continue;
    const ffn::LayerStats& s = layers[static_cast<std::size_t>(layer)];
    const int bins = static_cast<int>(s.histogram.size());
    double total = 0;
    for (int c : s.histogram) total += c;
    const double w = s.hi > s.lo ? (s.hi - s.lo) / bins : 1.0;
    for (int b = 0; b < bins; ++b) {
      const double dens = total > 0 ? s.histogram[static_cast<std::size_t>(b)] / (total * w) : 0.0;
      xs.push_back(s.lo + b * w);
      ys.push_back(dens);
      xs.push_back(s.lo + (b + 1) * w);
      ys.push_back(dens);
      top = std::max(top, dens);
    }
    // A diverged net's activations (often huge) do not set the axis while the other net still trains.
    const bool other_trains = nets == 2 && snap_.nets[static_cast<std::size_t>(1 - i)].diverged_at == 0;
    if (snap_.nets[static_cast<std::size_t>(i)].diverged_at && other_trains) continue;
    lo = std::min(lo, s.lo);
    hi = std::max(hi, s.lo + bins * w);
  }
  if (lo < hi && top > 0 && snap_.version != layers_version_) {
    layers_.x.range = layers_.home_x = plot::padded(layers_.x, {lo, hi}, 0.03);
    // Densities spike at 0 for ReLU (dead and negative inputs): cap the view at a readable height.
    layers_.y.range = layers_.home_y = {0, std::min(top, 6.0) * 1.1};
    layers_version_ = snap_.version;
  }
  plot::Plot p("layers", layers_, size, xl, "density");
  for (int i = 0; i < nets; ++i) {
    const auto& layers = snap_.nets[static_cast<std::size_t>(i)].layers;
    if (layer >= static_cast<int>(layers.size())) continue;
    const ffn::LayerStats& s = layers[static_cast<std::size_t>(layer)];
    char label[96];
    std::snprintf(label, sizeof label, "%s: %d of %d units dead##h%d", kNetName[i],
                  static_cast<int>(std::lround(s.dead_fraction * s.units)), s.units, i);
    p.line(label, kNetColor[i], hist_x_[static_cast<std::size_t>(i)], hist_y_[static_cast<std::size_t>(i)],
           0.15f);
  }
  if (snap_.nets[0].layers.empty())
    p.note("per-layer statistics appear after the first step", 0, IM_COL32(90, 90, 90, 255));
  p.end();
  ui::mark_plot("layers", layers_);
}

void FfnPanel::drawContent() {
  if (lab_.take(snap_)) {
    const int classes = std::max(2, snap_.data.classes);
    for (std::size_t i = 0; i < 2; ++i) heat_[i].upload(snap_.nets[i].grid, classes);
    // Points per class (train filled, test hollow), drawn on both maps.
    train_x_.assign(static_cast<std::size_t>(classes), {});
    train_y_ = test_x_ = test_y_ = train_x_;
    const ffn::Dataset& d = snap_.data;
    for (Eigen::Index k = 0; k < d.x_train.cols(); ++k) {
      const auto c = static_cast<std::size_t>(std::clamp(static_cast<int>(d.y_train(k)), 0, classes - 1));
      train_x_[c].push_back(d.x_train(0, k));
      train_y_[c].push_back(d.x_train(1, k));
    }
    for (Eigen::Index k = 0; k < d.x_test.cols(); ++k) {
      const auto c = static_cast<std::size_t>(std::clamp(static_cast<int>(d.y_test(k)), 0, classes - 1));
      test_x_[c].push_back(d.x_test(0, k));
      test_y_[c].push_back(d.x_test(1, k));
    }
    // The loss axes follow the data (log y). A diverged net's climb is drawn but does not set the scale: only
    // its losses up to 10× its starting loss count, so the other net stays readable.
    double steps = 10;
    std::vector<double> all;
    for (const NetSnapshot& n : snap_.nets) {
      steps = std::max(steps, static_cast<double>(n.steps));
      const double cap =
          n.diverged_at && std::isfinite(n.start_loss) && n.start_loss > 0 ? 10 * n.start_loss : HUGE_VAL;
      for (const std::vector<double>* v : {&n.batch_loss, &n.test_loss})
        for (const double l : *v)
          if (std::isfinite(l) && l <= cap) all.push_back(l);
    }
    loss_.x.range = loss_.home_x = {0, steps * 1.02};
    const plot::Range b = plot::data_bounds(all, loss_.y);
    if (b.min <= b.max) loss_.y.range = loss_.home_y = plot::padded(loss_.y, b, 0.05);
  }

  const float em = ui::em();
  ui::begin_panel(20.5f, [this] { controls(); });
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& st = ImGui::GetStyle();
  // Two columns when two plots fit across, else one (the view scrolls).
  const float col_gap = ui::plot_gap();
  const bool two = ui::plot_columns(2, avail.x, col_gap) == 2;
  const float half_w = two ? (avail.x - col_gap) * 0.5f : avail.x;
  // Square maps: the plot frame adds about 5 em of margins across and 2.3 em down.
  // A lesson step may show only some of the four plots (model::PanelKind::plots).
  shown_[0] = ui::plot_shown("heatA");
  shown_[1] = snap_.ab && ui::plot_shown("heatB");
  shown_[2] = ui::plot_shown("loss");
  shown_[3] = ui::plot_shown("layers");
  const bool low = shown_[2] || shown_[3];
  const float top_h = std::min(two && low ? avail.y * 0.58f : avail.y, half_w - 2.7f * em);
  if (shown_[0]) heatmap_view(0, ImVec2(half_w, top_h));
  if (shown_[0] && two) ImGui::SameLine(0, col_gap);
  if (shown_[1]) {
    heatmap_view(1, ImVec2(half_w, top_h));
  } else if (shown_[0] && two) {
    ImGui::Dummy(ImVec2(half_w, top_h));
  }
  // Stacked (one column), a lower plot takes 0.6 of the view so the next one shows below it; alone under no
  // map (a lesson step that shows only the histogram, say) it takes all of it.
  const bool alone = !shown_[0] && !shown_[1] && !(shown_[2] && shown_[3]);
  const float low_h = two || alone ? -1.0f : avail.y * 0.6f;
  // The hidden-space view takes the lower row: A and B side by side, as the maps above.
  shown_[4] = st_.cfg.hidden.on && ui::plot_shown("hiddenA");
  shown_[5] = st_.cfg.hidden.on && snap_.ab && ui::plot_shown("hiddenB");
  if (shown_[4] || shown_[5]) {
    shown_[2] = shown_[3] = false;
    const float w = shown_[4] && shown_[5] ? half_w : -1.0f;
    if (shown_[4]) hidden_plot(0, ImVec2(w, low_h));
    if (shown_[4] && shown_[5] && two) ImGui::SameLine(0, col_gap);
    if (shown_[5]) hidden_plot(1, ImVec2(w, low_h));
  }
  const float low_w = shown_[2] && shown_[3] ? half_w : -1.0f;
  if (shown_[2]) loss_plot(ImVec2(low_w, low_h));
  if (shown_[2] && shown_[3] && two) ImGui::SameLine(0, col_gap);
  if (shown_[3]) {
    // The layer slider goes under the histogram: the plot's top lines up with the loss plot beside it, and
    // a lesson step that shows the histogram alone starts with its data, not with a slider.
    ImGui::BeginGroup();
    // (On a slide the layer shown is the step's: no slider unless the step pins it.)
    const int count = ui::extra_shown("layer_slider") ? static_cast<int>(st_.cfg.widths.size()) : 1;
    const float row = count > 1 ? ImGui::GetFrameHeightWithSpacing() : 0.0f;
    layer_plot(ImVec2(low_w, low_h - row));
    if (count > 1) {
      // Slider, label and "(?)" within the histogram's width: the slider narrows (to 3 em), then the label
      // shortens, so nothing runs past the window's edge (a half-width column at 3× text).
      float room = ImGui::GetContentRegionAvail().x;
      if (low_w > 0) room = std::min(room, low_w);
      room -= ImGui::CalcTextSize("(?)").x + st.ItemSpacing.x + st.ItemInnerSpacing.x;
      const bool full = room - ImGui::CalcTextSize("hidden layer shown").x >= 3 * em;
      const float w = room - ImGui::CalcTextSize(full ? "hidden layer shown" : "layer").x;
      ImGui::SetNextItemWidth(std::clamp(w, 3 * em, 8 * em));
      int shown = shown_layer() + 1;
      if (ui::marked(
              "slider:layer_shown",
              ImGui::SliderInt(full ? "hidden layer shown###layer" : "layer###layer", &shown, 1, count)))
        st_.layer = shown;
      ui::help_marker("A dead unit: dL/dz = 0 for every sample of the latest minibatch.");
    }
    ImGui::EndGroup();
  }
  ImGui::EndChild();
}

// [SECTION] State and meta

json::Value FfnPanel::state() const {
  return model::ffn_schema().write(st_);
}

void FfnPanel::set_state(const json::Value& state) {
  // Absent "playing" means paused: a state is a still picture unless it says otherwise.
  model::FfnState s = st_;  // all or nothing: read into a copy
  s.playing = false;
  model::ffn_schema().read(state, s);
  st_ = s;  // its layer is clamped to the layers there are when drawn (shown_layer)
  lab_.reset(st_.cfg);
  lab_.set_running(st_.playing);
}

json::Object FfnPanel::meta() const {
  json::Object o, plots;
  if (shown_[0]) plots["heatA"] = plot_meta(heat_plot_[0]);
  if (shown_[1] || (!snap_.ab && shown_[0])) plots["heatB"] = plot_meta(heat_plot_[1]);
  if (shown_[2]) plots["loss"] = plot_meta(loss_);
  if (shown_[3]) plots["layers"] = plot_meta(layers_);
  if (shown_[4]) plots["hiddenA"] = plot_meta(hidden_[0]);
  if (shown_[5]) plots["hiddenB"] = plot_meta(hidden_[1]);
  o["plots"] = plots;
  o["state"] = state();
  o["backend"] = snap_.backend;
  o["error"] = snap_.error;
  o["notice"] = snap_.notice;
  o["ab"] = snap_.ab;
  json::Array nets;
  for (std::size_t i = 0; i < 2; ++i) {
    const NetSnapshot& n = snap_.nets[i];
    json::Object m;
    m["steps"] = n.steps;
    m["train_accuracy"] = n.train_acc.empty() ? json::Value() : json::Value(n.train_acc.back());
    m["test_accuracy"] = n.test_acc.empty() ? json::Value() : json::Value(n.test_acc.back());
    m["test_loss"] = n.test_loss.empty() ? json::Value() : json::Value(n.test_loss.back());
    json::Array dead, units;
    for (const ffn::LayerStats& s : n.layers) {
      dead.emplace_back(static_cast<int>(std::lround(s.dead_fraction * s.units)));
      units.emplace_back(s.units);
    }
    m["dead_units"] = std::move(dead);
    if (n.hidden) {  // the hidden-space view: where the training points land in the two units
      json::Object h;
      h["layer"] = n.hidden->block + 1;
      h["unit_x"] = n.hidden->unit_x + 1;
      h["unit_y"] = n.hidden->unit_y + 1;
      std::size_t zero = 0, negative = 0;
      for (std::size_t k = 0; k < n.hidden->px.size(); ++k) {
        zero += n.hidden->px[k] == 0 || n.hidden->py[k] == 0;
        negative += n.hidden->px[k] < 0 || n.hidden->py[k] < 0;
      }
      const double count = std::max<double>(1, static_cast<double>(n.hidden->px.size()));
      h["points"] = static_cast<double>(n.hidden->px.size());
      h["on_an_axis"] = static_cast<double>(zero) / count;  // a coordinate exactly 0: folded onto an axis
      h["negative"] = static_cast<double>(negative) / count;
      h["lines"] = static_cast<double>(n.hidden->xs.size());
      m["hidden"] = std::move(h);
    } else if (!n.hidden_error.empty()) {
      m["hidden_error"] = n.hidden_error;
    }
    m["units"] = std::move(units);
    m["error"] = n.error;
    m["diverged_at_step"] = n.diverged_at ? json::Value(n.diverged_at) : json::Value();
    m["title"] = heat_title(st_.cfg, n, static_cast<int>(i));
    nets.emplace_back(std::move(m));
  }
  o["nets"] = std::move(nets);
  json::Array colors, tints;
  for (int c = 0; c < 2; ++c) {
    colors.emplace_back(color_hex(class_color(c)));
    tints.emplace_back(color_hex(heat_color(c, 1.0)));
  }
  o["class_colors"] = std::move(colors);
  o["heat_colors"] = std::move(tints);
  o["train_points"] = static_cast<int>(snap_.data.x_train.cols());
  return o;
}

GELU_PANEL(FfnPanel);

}  // namespace gelu::app

// Curves panel (see curves_panel.hpp).
//
// Index of this file:
//   [SECTION] Controls
//   [SECTION] Plots
//   [SECTION] The GLU diagram
//   [SECTION] State and meta
#include "gui/panels/curves_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "gelu/analysis.hpp"
#include "gelu/numio.hpp"
#include "gui/kit/ui.hpp"

namespace gelu::app {

namespace {

constexpr const char* kOrderName[3] = {"f(x)", "f′(x)", "f″(x)"};

int color_index(const Activation* a) {
  const auto r = registry();
  return static_cast<int>(a - r.data());
}

plot::BatchFn batch(const Activation* a, int order, Params p) {
  return [a, order, p](std::span<const double> x, std::span<double> y) { a->eval(x, y, order, &p); };
}

/// What batch(a, order, p) computes, as Plot::function's key: frames that change none of it reuse the
/// samples.
std::string sample_key(const Activation* a, int order, const Params& p) {
  char buf[64];
  std::string k = a->id;
  std::snprintf(buf, sizeof buf, "@%p/%d", static_cast<const void*>(a), order);
  k += buf;
  for (const double v : p.v) {
    std::snprintf(buf, sizeof buf, "/%a", v);
    k += buf;
  }
  return k;
}

/// GELU's properties (its minimum and inflection points), solved by the core once per process.
const analysis::Properties& gelu_properties() {
  return analysis::default_properties(*find_activation("gelu"));
}

}  // namespace

CurvesPanel::CurvesPanel() : Panel(kId) {
  shared_x_.range = {-4, 3};
  for (auto& p : plot_) {
    p.linked_x = &shared_x_;
    p.home_x = {-4, 3};
  }
  plot_[0].y.range = plot_[0].home_y = {-0.6, 3};
  plot_[1].y.range = plot_[1].home_y = {-0.3, 1.3};
  plot_[2].y.range = plot_[2].home_y = {-0.3, 0.6};
  const auto& m = gelu_properties().global_minimum;
  minimum_x_ = m ? m->x : NAN;
  minimum_y_ = m ? m->value : NAN;
}

// [SECTION] Controls

void CurvesPanel::controls() {
  const float em = ui::em();
  ui::heading("Functions");
  for (const Activation& fa : registry()) {
    const Activation* const a = &fa;
    const ImU32 col = plot::palette(color_index(a));
    ImGui::PushID(a->id);
    ImGui::PushStyleColor(ImGuiCol_CheckMark, col);
    bool on = shown(fa);
    if (ImGui::Checkbox("##shown", &on)) set_shown(fa, on);
    ui::mark(std::string("check:") + a->id);
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, col);
    ImGui::TextUnformatted(a->name);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", a->formula, a->description);
    if (on) {
      const Params p = params(fa);
      for (std::size_t i = 0; i < a->params.size(); ++i) {
        const ParamSpec& ps = a->params[i];
        double v = p[static_cast<int>(i)];
        ImGui::Indent(1.9f * em);
        ImGui::SetNextItemWidth(-3.2f * em);
        if (ImGui::SliderScalar(ps.name, ImGuiDataType_Double, &v, &ps.min, &ps.max, "%.6g"))
          set_param(fa, i, v);
        ui::mark(std::string("slider:") + a->id + "." + ps.name);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (default %g)", ps.description, ps.default_value);
        if (ImGui::IsItemClicked(1)) set_param(fa, i, ps.default_value);  // right-click resets
        ImGui::Unindent(1.9f * em);
      }
    }
    ImGui::PopID();
  }
  ui::heading("Plots");
  ImGui::Checkbox("f′(x)", &st_.d1);
  ui::mark("check:d1");
  ImGui::SameLine(7 * em);
  ImGui::Checkbox("f″(x)", &st_.d2);
  ui::mark("check:d2");
  ImGui::Checkbox("GELU's negative dip", &st_.shade_dip);
  ui::mark("check:dip");
  ImGui::Checkbox("ReLU's dead zone", &st_.shade_dead);
  ui::mark("check:dead");
  ImGui::Checkbox("GELU's inflection points", &st_.inflections);
  ui::mark("check:inflections");
  ImGui::Checkbox("GLU block diagram", &st_.glu_diagram);
  ui::mark("check:glu_diagram");
  bool symlog = plot_[0].y.scale == plot::Scale::SymLog;
  if (ui::marked("check:symlog", ImGui::Checkbox("symlog y axis", &symlog))) {
    plot_[0].y.scale = symlog ? plot::Scale::SymLog : plot::Scale::Linear;
    plot_[0].y.symlog_c = 0.1;
    plot_[0].y.range = symlog ? plot::Range{-1, 1000} : plot_[0].home_y;
    plot_[0].home_y = plot_[0].y.range;
  }
  ui::heading("Probe");
  bool probe_on = st_.probe.has_value();
  if (ImGui::Checkbox("##probe", &probe_on)) {
    if (probe_on) {
      st_.probe = probe_off_x_;
    } else {
      probe_off_x_ = *st_.probe;
      st_.probe.reset();
    }
  }
  ui::mark("check:probe");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("probe line with tangents (drag it in the plot)");
  if (st_.probe) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.5f * em);
    const double lo = -8, hi = 8;
    ImGui::SliderScalar("x₀", ImGuiDataType_Double, &*st_.probe, &lo, &hi, "%.4f");
    ui::mark("slider:probe");
  }
  ImGui::Dummy(ImVec2(0, 0.4f * em));
  if (ui::marked("button:reset_view", ImGui::Button("Reset view"))) {
    for (auto& p : plot_) {
      p.fit_x_request = true;
      p.y.range = p.home_y;
    }
  }
}

// [SECTION] Plots

void CurvesPanel::plots(float height) {
  // f, f′, f″ as the state says, less any a lesson step does not show (model::PanelKind::plots).
  bool vis[3];
  const bool orders[3] = {true, st_.d1, st_.d2};
  for (int o = 0; o < 3; ++o) vis[o] = orders[o] && ui::plot_shown("plot" + std::to_string(o));
  if (!vis[0] && !vis[1] && !vis[2]) vis[0] = true;
  std::copy(vis, vis + 3, shown_);
  const int n_plots = vis[0] + vis[1] + vis[2];
  const float gap = 0.3f * ui::em();
  // Stacked (the same x is the same screen column in every plot); on a slide where stacked plots would not
  // keep their size, side by side.
  const float avail_x = ImGui::GetContentRegionAvail().x;
  const int cols = ui::slide_columns(n_plots, ImVec2(avail_x, height), ui::plot_gap());
  const int rows = (n_plots + cols - 1) / cols;
  const float h = (height - gap * static_cast<float>(rows - 1)) / static_cast<float>(rows);
  const float w =
      cols > 1
          ? std::floor((avail_x - ui::plot_gap() * static_cast<float>(cols - 1)) / static_cast<float>(cols))
          : -1.0f;
  const Activation* gelu = find_activation("gelu");
  const std::vector<Fn> fns = this->fns();
  const Fn* gelu_fn = nullptr;
  const Fn* relu_fn = nullptr;
  for (const Fn& f : fns) {
    if (f.a == gelu && f.shown) gelu_fn = &f;
    if (std::string_view(f.a->id) == "relu" && f.shown) relu_fn = &f;
  }
  std::vector<double> zeros;
  int drawn = 0;
  for (int order = 0; order < 3; ++order) {
    if (!vis[order]) continue;
    if (cols > 1 && drawn % cols != 0) ImGui::SameLine(0, ui::plot_gap());
    ++drawn;
    const bool last = drawn == n_plots;
    const bool bottom = drawn > n_plots - (n_plots % cols == 0 ? cols : n_plots % cols);  // the last row
    char id[16];
    std::snprintf(id, sizeof id, "plot%d", order);
    plot::Plot p(id, plot_[order], ImVec2(w, h), last || (cols > 1 && bottom) ? "x" : nullptr,
                 kOrderName[order]);
    if (relu_fn && st_.shade_dead)
      p.shade_x(order == 0 ? "ReLU dead zone: f = f′ = 0" : "ReLU dead zone", IM_COL32(214, 39, 40, 26),
                -std::numeric_limits<double>::infinity(), 0.0);
    if (order == 0 && gelu_fn && st_.shade_dip) {
      // The dip: the region between GELU and 0 where GELU < 0 (all of x < 0), re-sampled like the curve.
      const plot::Range xr = plot_[0].x.range;
      if (xr.min < 0) {
        plot::Axis ax = plot_[0].x;
        ax.range = {xr.min, std::min(xr.max, 0.0)};
        char range[64];
        std::snprintf(range, sizeof range, "[%a, %a]", ax.range.min, ax.range.max);
        const std::string key = sample_key(gelu, 0, gelu_fn->params) + range;
        if (key != dip_key_) {  // sampled again only when the range or the parameters change
          plot::sample_function(ax, 400, batch(gelu, 0, gelu_fn->params), dip_x_, dip_y_);
          dip_key_ = key;
        }
        zeros.assign(dip_x_.size(), 0.0);
        p.shade_between("GELU < 0: the dip", plot::palette(color_index(gelu), 0.22f), dip_x_, dip_y_, zeros);
      }
    }
    // Exact GELU is drawn last, on top of the curves that approximate it, and listed first.
    std::vector<const Fn*> order_of_drawing;
    for (const Fn& f : fns)
      if (f.shown && f.a != gelu) order_of_drawing.push_back(&f);
    if (gelu_fn) order_of_drawing.push_back(gelu_fn);
    p.legend_first(gelu->name);
    for (const Fn* fp : order_of_drawing) {
      const Fn& f = *fp;
      const plot::BatchFn fn = batch(f.a, order, f.params);
      const plot::BatchFn dfn = order < 2 ? batch(f.a, order + 1, f.params) : plot::BatchFn();
      p.function(f.a->name, plot::palette(color_index(f.a)), fn, order < 2 ? &dfn : nullptr, 0.17f,
                 sample_key(f.a, order, f.params));
    }
    if (order == 0 && gelu_fn && st_.inflections) {
      // GELU's inflection points (f″ = 0), solved by core: where the curve turns from convex to concave.
      infl_x_ = gelu_properties().inflection_points;
      infl_y_.resize(infl_x_.size());
      gelu->eval(std::span<const double>(infl_x_), std::span<double>(infl_y_), 0, &gelu_fn->params);
      p.scatter("GELU inflection points (f″ = 0)", IM_COL32(60, 60, 60, 255), infl_x_, infl_y_, 0.28f);
    }
    if (order == 0 && gelu_fn && st_.shade_dip) {
      char text[96];
      std::snprintf(text, sizeof text, "min %.5f at x = %.5f", minimum_y_, minimum_x_);
      p.marker(minimum_x_, minimum_y_, IM_COL32(20, 20, 20, 255), text);
    }
    if (st_.probe) {
      double& probe_x = *st_.probe;
      for (const Fn& f : fns) {
        if (!f.shown || plot_[order].hidden.count(f.a->name)) continue;
        const double y = f.a->eval(probe_x, order, &f.params);
        const double slope = order < 2 ? f.a->eval(probe_x, order + 1, &f.params) : NAN;
        const ImU32 col = plot::palette(color_index(f.a), 0.75f);
        if (order < 2) p.tangent(probe_x, y, slope, col);
        p.marker(probe_x, y, plot::palette(color_index(f.a)));
      }
      p.probe(&probe_x, IM_COL32(40, 40, 40, 200));
    }
    p.end();
    ui::mark_plot(id, plot_[order]);
    if (!last && cols == 1) ImGui::Dummy(ImVec2(0, gap - ImGui::GetStyle().ItemSpacing.y));
  }
}

void CurvesPanel::readout_table() {
  const double px = probe_x();
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("readout", 5, flags)) return;
  char head[3][32];
  std::snprintf(head[0], sizeof head[0], "f(%.4g)", px);
  std::snprintf(head[1], sizeof head[1], "f′(%.4g)", px);
  std::snprintf(head[2], sizeof head[2], "f″(%.4g)", px);
  // The numbers keep their width (a number is never cut); names and formulas share the rest and wrap.
  ImGui::TableSetupColumn("function", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("formula", ImGuiTableColumnFlags_WidthStretch, 2.2f);
  for (auto& h : head) ImGui::TableSetupColumn(h, ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableHeadersRow();
  for (const Fn& f : fns()) {
    if (!f.shown) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(ImGuiCol_Text, plot::palette(color_index(f.a)));
    ImGui::TextUnformatted(ui::wrap_at_spaces(f.a->name).c_str());
    ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    std::string formula = f.a->formula;
    for (std::size_t i = 0; i < f.a->params.size(); ++i) {
      char b[48];
      std::snprintf(b, sizeof b, "%s%s = %.6g", i ? ", " : "   ", f.a->params[i].name,
                    f.params[static_cast<int>(i)]);
      formula += b;
    }
    ImGui::TextUnformatted(ui::wrap_at_spaces(formula.c_str()).c_str());
    for (int order = 0; order < 3; ++order) {
      ImGui::TableNextColumn();
      ImGui::Text("%.6g", f.a->eval(px, order, &f.params));
    }
  }
  ImGui::EndTable();
}

// [SECTION] The GLU diagram

namespace {
constexpr const char* kGluCaption = "g = ReLU: ReGLU\ng = GELU: GEGLU\ng = Swish: SwiGLU";
}  // namespace

void CurvesPanel::glu_diagram(float height, float width) {
  // Top to bottom, so that it fits a column beside the curves: x; x·W and x·V side by side; g under x·V;
  // ⊙ joins them; ·W_down; y. What g makes of the block is written under it.
  const float em = ui::em(), line = ImGui::GetTextLineHeight();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float w = width;
  ImGui::Dummy(ImVec2(w, height));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 ink = IM_COL32(30, 30, 30, 255), box = IM_COL32(232, 240, 250, 255),
              gate = IM_COL32(255, 236, 200, 255);
  // Rows 2.3 lines apart, closer where the column is shorter than that (a slide's room), down to 1.6 lines.
  const float caption_h =
      ImGui::CalcTextSize(ui::wrap_at_spaces(kGluCaption, width - 0.3f * em).c_str()).y + 1.6f * line;
  const float pitch = std::clamp((height - 0.9f * line - caption_h) / 5.0f, 1.6f * line, 2.3f * line);
  const float thick = std::max(1.5f, 0.1f * em), pad = 0.5f * em;
  const float cx = o.x + w / 2, dx = w / 4;
  struct Node {
    const char* name;
    const char* text;
    float cx, cy;
    ImU32 fill;
    bool round;
  };
  auto row = [&](int r) { return o.y + 0.9f * line + static_cast<float>(r) * pitch; };
  const Node nodes[] = {
      {"x", "x", cx, row(0), 0, true},           {"W", "x·W", cx - dx, row(1), box, false},
      {"V", "x·V", cx + dx, row(1), box, false}, {"g", "g(x·V)", cx + dx, row(2), gate, false},
      {"⊙", "⊙", cx, row(3), 0, true},           {"W_down", "·W_down", cx, row(4), box, false},
      {"y", "y", cx, row(5), 0, true},
  };
  auto rect_of = [&](const Node& n) {
    const ImVec2 ts = ImGui::CalcTextSize(n.text);
    const float hw = n.round ? std::max(ts.x, ts.y) / 2 + 0.3f * em : ts.x / 2 + pad;
    const float hh = n.round ? hw : 0.8f * line;
    return ImVec4(n.cx - hw, n.cy - hh, n.cx + hw, n.cy + hh);
  };
  auto find = [&](std::string_view name) -> const Node& {
    for (const Node& n : nodes)
      if (name == n.name) return n;
    return nodes[0];
  };
  // Straight arrows from the bottom of one node to the top of the next.
  auto arrow = [&](const char* from, const char* to) {
    const ImVec4 a = rect_of(find(from)), b = rect_of(find(to));
    const ImVec2 p0((a.x + a.z) / 2, a.w), p1((b.x + b.z) / 2, b.y);
    const float head = std::max(6.0f, 0.5f * em);
    const ImVec2 d(p1.x - p0.x, p1.y - p0.y);
    const float len = std::max(1.0f, std::sqrt(d.x * d.x + d.y * d.y));
    const ImVec2 u(d.x / len, d.y / len), n(-u.y, u.x);
    const ImVec2 base(p1.x - u.x * head, p1.y - u.y * head);
    dl->AddLine(p0, base, ink, thick);
    dl->AddTriangleFilled(p1, ImVec2(base.x + n.x * head * 0.45f, base.y + n.y * head * 0.45f),
                          ImVec2(base.x - n.x * head * 0.45f, base.y - n.y * head * 0.45f), ink);
    glu_edges_.emplace_back(from, to);
  };
  arrow("x", "W");
  arrow("x", "V");
  arrow("V", "g");
  arrow("W", "⊙");
  arrow("g", "⊙");
  arrow("⊙", "W_down");
  arrow("W_down", "y");
  for (const Node& n : nodes) {
    const ImVec4 r = rect_of(n);
    if (!n.round) {
      dl->AddRectFilled(ImVec2(r.x, r.y), ImVec2(r.z, r.w), n.fill, 0.3f * em);
      dl->AddRect(ImVec2(r.x, r.y), ImVec2(r.z, r.w), ink, 0.3f * em, 0, thick);
    } else if (std::string_view(n.name) == "⊙") {
      dl->AddCircleFilled(ImVec2(n.cx, n.cy), (r.z - r.x) / 2, IM_COL32_WHITE, 32);
      dl->AddCircle(ImVec2(n.cx, n.cy), (r.z - r.x) / 2, ink, 32, thick);
    }
    const ImVec2 ts = ImGui::CalcTextSize(n.text);
    dl->AddText(ImVec2(n.cx - ts.x / 2, n.cy - ts.y / 2), ink, n.text);
    glu_boxes_.emplace_back(n.name, r);
  }
  const std::string caption = ui::wrap_at_spaces(kGluCaption, w - 0.3f * em);
  dl->AddText(ImVec2(o.x + 0.2f * em, row(5) + 1.3f * line), IM_COL32(70, 70, 70, 255), caption.c_str());
}

namespace {
/// The GLU diagram's size in the current font: a column `width` wide and `height` tall.
ImVec2 glu_diagram_size() {
  const float line = ImGui::GetTextLineHeight();
  const float w = 13.0f * ImGui::GetFontSize();
  const float caption = ImGui::CalcTextSize(ui::wrap_at_spaces(kGluCaption, w - 0.3f * ui::em()).c_str()).y;
  return ImVec2(w, 0.9f * line + 5 * 2.3f * line + 1.3f * line + caption + 0.3f * line);
}
}  // namespace

void CurvesPanel::drawContent() {
  const float em = ui::em();
  ui::begin_panel(19.5f, [this] { controls(); });
  const int shown = static_cast<int>(st_.functions.size());
  const float row = ImGui::GetTextLineHeightWithSpacing() + 2 * ImGui::GetStyle().CellPadding.y;
  // On a slide (a lesson step in presentation mode) the readout table only where the step pins it.
  const bool table = ui::extra_shown("readout");
  const float table_h = table ? row * static_cast<float>(shown + 1) + 0.6f * em : 0.0f;
  float plots_h =
      ImGui::GetContentRegionAvail().y - table_h - (table ? ImGui::GetStyle().ItemSpacing.y : 0.0f);
  glu_boxes_.clear();
  glu_edges_.clear();
  if (st_.glu_diagram) {
    // In the chrome font (at most 1.5× in presentation), beside the curves where the width allows (a
    // projector's height is the scarce room), else above them.
    ImGui::PushFont(ui::fonts().chrome ? ui::fonts().chrome : ImGui::GetFont());
    const ImVec2 size = glu_diagram_size();
    const float h = size.y, w = size.x;
    ImGui::PopFont();
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const bool beside = ImGui::GetContentRegionAvail().x - w - gap >= plot::Plot::min_frame().x;
    ImGui::PushFont(ui::fonts().chrome ? ui::fonts().chrome : ImGui::GetFont());
    if (beside) ImGui::BeginGroup();
    glu_diagram(std::min(h, ImGui::GetContentRegionAvail().y), w);
    if (beside) ImGui::EndGroup();
    ImGui::PopFont();
    if (beside) {
      ImGui::SameLine();
      ImGui::BeginGroup();
      plots(plots_h);
      if (table) readout_table();
      ImGui::EndGroup();
      ImGui::EndChild();
      return;
    }
    plots_h -= h + ImGui::GetStyle().ItemSpacing.y;
  }
  plots(plots_h);
  if (table) readout_table();
  ImGui::EndChild();
}

// [SECTION] State and meta

std::vector<CurvesPanel::Fn> CurvesPanel::fns() const {
  std::vector<Fn> out;
  for (const Activation& a : registry()) out.push_back({&a, shown(a), params(a)});
  return out;
}

bool CurvesPanel::shown(const Activation& a) const {
  return std::find(st_.functions.begin(), st_.functions.end(), a.id) != st_.functions.end();
}

void CurvesPanel::set_shown(const Activation& a, bool on) {
  std::vector<std::string> fs;
  for (const Activation& b : registry())
    if (&b == &a ? on : shown(b)) fs.emplace_back(b.id);
  st_.functions = std::move(fs);
}

Params CurvesPanel::params(const Activation& a) const {
  Params p = a.defaults();
  for (std::size_t i = 0; i < a.params.size(); ++i)
    if (const auto it = st_.params.find(std::string(a.id) + "." + a.params[i].name); it != st_.params.end())
      p[static_cast<int>(i)] = it->second;
  return p;
}

void CurvesPanel::set_param(const Activation& a, std::size_t i, double v) {
  const std::string key = std::string(a.id) + "." + a.params[i].name;
  if (v != a.params[i].default_value)
    st_.params[key] = v;
  else
    st_.params.erase(key);
}

void CurvesPanel::normalize() {
  std::vector<std::string> fs;
  std::map<std::string, double> ps;
  for (const Activation& a : registry()) {
    if (shown(a)) fs.emplace_back(a.id);
    const Params p = params(a);
    for (std::size_t i = 0; i < a.params.size(); ++i)
      if (p[static_cast<int>(i)] != a.params[i].default_value)
        ps[std::string(a.id) + "." + a.params[i].name] = p[static_cast<int>(i)];
  }
  st_.functions = std::move(fs);
  st_.params = std::move(ps);
}

void CurvesPanel::load_state(const json::Value& state) {
  model::CurvesState s = st_;  // all or nothing: read into a copy
  s.x = shared_x_.range;
  s.y = plot_[0].y.range;
  s.symlog = plot_[0].y.scale == plot::Scale::SymLog;
  const double x_before = probe_x();
  model::curves_schema().read(state, s);
  st_ = s;
  normalize();
  if (!st_.probe) probe_off_x_ = x_before;
  shared_x_.range = s.x;
  for (auto& p : plot_) p.x = shared_x_;
  plot_[0].y.range = s.y;
  if (s.symlog) {
    plot_[0].y.scale = plot::Scale::SymLog;
    plot_[0].y.symlog_c = 0.1;
  } else if (plot_[0].y.scale == plot::Scale::SymLog) {
    plot_[0].y.scale = plot::Scale::Linear;
  }
}

json::Value CurvesPanel::state() const {
  model::CurvesState s = st_;
  s.x = shared_x_.range;
  s.y = plot_[0].y.range;
  s.symlog = plot_[0].y.scale == plot::Scale::SymLog;
  return model::curves_schema().write(s);
}

json::Object CurvesPanel::meta() const {
  json::Object o;
  json::Object plots;  // keyed by the plot ids scripts and --csv-plot use
  for (int i = 0; i < 3; ++i)
    if (shown_[i]) plots["plot" + std::to_string(i)] = plot_meta(plot_[i]);
  o["plots"] = plots;
  json::Object fns;
  for (const Fn& f : this->fns()) {
    if (!f.shown) continue;
    json::Object e;
    e["color"] = color_hex(plot::palette(color_index(f.a)));
    json::Array params;
    for (std::size_t i = 0; i < f.a->params.size(); ++i) params.push_back(f.params[static_cast<int>(i)]);
    e["params"] = params;
    fns[f.a->id] = e;
  }
  o["functions"] = fns;
  o["probe"] = st_.probe ? json::Value(*st_.probe) : json::Value();
  o["gelu_minimum"] = json::Array{minimum_x_, minimum_y_};
  json::Array infl;
  for (double x : gelu_properties().inflection_points) infl.push_back(x);
  o["gelu_inflections"] = infl;
  o["inflections_shown"] = st_.inflections;  // the dots on f (drawn when GELU is among the functions)
  o["inflection_color"] = color_hex(IM_COL32(60, 60, 60, 255));
  if (st_.glu_diagram) {  // the diagram's boxes (pixels) and arrows, by name
    json::Object d, boxes;
    for (const auto& [name, r] : glu_boxes_) boxes[name] = json::Array{r.x, r.y, r.z, r.w};
    json::Array edges;
    for (const auto& [a, b] : glu_edges_) edges.push_back(json::Array{a, b});
    d["boxes"] = boxes;
    d["edges"] = edges;
    o["glu_diagram"] = d;
  }
  return o;
}

GELU_PANEL(CurvesPanel);

}  // namespace gelu::app

// Designer panel (see designer_panel.hpp).
//
// Index of this file:
//   [SECTION] Controls
//   [SECTION] Plots and the coefficient table
//   [SECTION] State and meta
#include "gui/panels/designer_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gelu/fit_export.hpp"
#include "gelu/numio.hpp"
#include "gui/kit/ui.hpp"
#include "model/comparison.hpp"
#ifdef GELU_HAVE_FIT_CR
#include "gelu/fit_cr.hpp"
#endif

namespace gelu::app {

namespace {

constexpr ImU32 kCurrent = IM_COL32(214, 39, 40, 255);
constexpr ImU32 kCurve = IM_COL32(31, 119, 180, 255);
constexpr ImU32 kReference = IM_COL32(255, 127, 14, 255);
constexpr ImU32 kZoo = IM_COL32(120, 120, 120, 255);
constexpr ImU32 kError = IM_COL32(170, 20, 20, 255);

std::string g3(double v, const char* f = "%.3g") {
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return plot::unicode_minus(b);
}

/// A combo over one of gelu::fit's name tables; true when the choice changed.
template <class E>
bool enum_combo(const char* label, E* value, std::span<const fit::Named<E>> table) {
  bool changed = false;
  if (ImGui::BeginCombo(label, fit::name(*value))) {
    for (const fit::Named<E>& n : table) {
      if (ui::marked(std::string("option:") + label + ":" + n.name,
                     ImGui::Selectable(n.name, n.id == *value))) {
        changed = n.id != *value;
        *value = n.id;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", n.text);
    }
    ImGui::EndCombo();
  }
  ui::mark(std::string("combo:") + label);
  return changed;
}

constexpr const char* kCrFormats[] = {"bf16", "f16", "e4m3", "e5m2"};
[[maybe_unused]] constexpr ImU32 kBand = IM_COL32(44, 160, 44, 90);  // unused without GLPK

std::string hex_of(double v, FormatId f) {
  return fit::hex_literal(v, f != FormatId::F64);
}

}  // namespace

DesignerPanel::DesignerPanel() : Panel(kId) {
  pareto_.y.scale = plot::Scale::Log10;
  pareto_.legend_anchor = ImVec2(1, 0);
  err_.legend_anchor = ImVec2(1, 0);
  pareto_.labels_near = true;  // the zoo's labelled dots, several at one cost
}

unsigned int DesignerPanel::kept_color(std::size_t i) const {
  return plot::palette(static_cast<int>(i) + 1);
}

std::string DesignerPanel::shot_limit_error() const {
  // A shot fits synchronously. The exchange's cost grows with the coefficients; optimized breakpoints refit
  // every piece up to 16 times. Measured (docs/designer.md): degree 30 ~0.1 s, 8 optimized pieces of degree 3
  // ~0.09 s; the limit keeps a shot under about 10 s.
  const fit::Spec& s = st_.spec;
  const double coefficients = s.form == fit::Form::Piecewise  ? s.pieces * (s.degree + 1.0)
                              : s.form == fit::Form::Rational ? s.degree + s.denominator_degree + 2.0
                                                              : s.degree + 1.0;
  const double rounds =
      s.form == fit::Form::Piecewise && s.breakpoints == fit::Breakpoints::Optimized ? 16 : 1;
  const double work = coefficients * rounds;
  constexpr double kMaxShotWork = 4096;
  if (work <= kMaxShotWork) return {};
  char buf[240];
  std::snprintf(
      buf, sizeof buf,
      "the designer state asks for a fit of %.0f coefficients%s, more than a headless shot fits (at most "
      "%.0f coefficients x refits; fewer pieces or a lower degree)",
      coefficients, rounds > 1 ? " with optimized breakpoints (16 refits)" : "", kMaxShotWork);
  return buf;
}

void DesignerPanel::settle_for_shot() {
  lab_.fit_now(st_.spec);
  DesignerLab::Kept kept;
  for (const model::KeptCandidate& k : st_.candidates) kept.emplace_back(k.id, k.c);
  lab_.points_now(std::move(kept));
  dirty_ = points_dirty_ = false;
}

// [SECTION] Controls

void DesignerPanel::spec_controls() {
  const float em = ui::em();
  fit::Spec& s = st_.spec;
  ui::heading("Fit");
  ImGui::SetNextItemWidth(-5.5f * em);
  if (enum_combo("target", &s.target, fit::targets())) changed();
  ImGui::SetNextItemWidth(-5.5f * em);
  if (enum_combo("form", &s.form, fit::forms())) changed();
  const int zero = 0, one = 1, max_degree = fit::kMaxDegree, max_pieces = fit::kMaxPieces;
  ImGui::SetNextItemWidth(-5.5f * em);
  if (ImGui::SliderScalar(s.form == fit::Form::Rational ? "numerator" : "degree", ImGuiDataType_S32,
                          &s.degree, &zero, &max_degree))
    changed();
  ui::mark("slider:degree");
  if (s.form == fit::Form::Rational) {
    ImGui::SetNextItemWidth(-5.5f * em);
    if (ui::marked("slider:denominator", ImGui::SliderScalar("denominator", ImGuiDataType_S32,
                                                             &s.denominator_degree, &one, &max_degree)))
      changed();
  }
  if (s.form == fit::Form::Piecewise) {
    ImGui::SetNextItemWidth(-5.5f * em);
    if (ui::marked("slider:pieces",
                   ImGui::SliderScalar("pieces", ImGuiDataType_S32, &s.pieces, &one, &max_pieces)))
      changed();
    ImGui::SetNextItemWidth(-5.5f * em);
    if (enum_combo("breakpoints", &s.breakpoints, fit::breakpoint_rules())) changed();
  }
  double ab[2] = {s.a, s.b};
  ImGui::SetNextItemWidth(-5.5f * em);
  if (ImGui::InputScalarN("range", ImGuiDataType_Double, ab, 2, nullptr, nullptr, "%.4g",
                          ImGuiInputTextFlags_EnterReturnsTrue)) {
    if (std::isfinite(ab[0]) && std::isfinite(ab[1]) && ab[0] < ab[1] &&
        std::fabs(ab[0]) <= fit::kMaxAbsRange && std::fabs(ab[1]) <= fit::kMaxAbsRange) {
      s.a = ab[0];
      s.b = ab[1];
      changed();
    }
  }
  ui::mark("input:range");
  ImGui::SetNextItemWidth(-5.5f * em);
  if (enum_combo("clamp", &s.clamp, fit::clamps())) changed();
  ImGui::SetNextItemWidth(-5.5f * em);
  if (enum_combo("weight", &s.weight, fit::weights())) changed();
  ImGui::SetNextItemWidth(-5.5f * em);
  if (enum_combo("method", &s.method, fit::methods())) changed();
  ImGui::SetNextItemWidth(-5.5f * em);
  const char* formats[] = {"f64", "f32", "bf16", "f16"};
  if (ImGui::BeginCombo("format", number_format(s.format).name)) {
    for (const char* f : formats)
      if (ui::marked(std::string("option:format:") + f,
                     ImGui::Selectable(f, number_format(s.format).name == std::string_view(f)))) {
        s.format = Format::parse(f)->id();
        changed();
      }
    ImGui::EndCombo();
  }
  ui::mark("combo:format");
  if (ui::marked("check:reoptimize", ImGui::Checkbox("re-optimize after rounding", &s.reoptimize))) changed();
  // Status: the running fit, its time, or why there is none.
  if (snap_.running) {
    char over[64];
    std::snprintf(over, sizeof over, "fitting: %s", snap_.stage.empty() ? "…" : snap_.stage.c_str());
    ImGui::ProgressBar(static_cast<float>(snap_.progress), ImVec2(-1, 0), over);
  } else if (snap_.candidate && snap_.error.empty()) {
    ImGui::TextDisabled("fitted in %.1f ms", snap_.candidate->fit_seconds * 1e3);
  }
  if (!snap_.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kError);
    ui::text_wrapped("%s", snap_.error.c_str());
    ImGui::PopStyleColor();
  }
}

void DesignerPanel::cr_controls() {
  const float em = ui::em();
  ui::heading("Correctly rounded");
  const bool can = designer_can_round_correctly();
  ImGui::BeginDisabled(!can);
  if (ui::marked("check:correctly_rounded", ImGui::Checkbox("correctly rounded in", &cr_on_)))
    cr_dirty_ = true;
  ImGui::EndDisabled();
  if (!can && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "this build has no GLPK and MPFR (apt install libglpk-dev libmpfr-dev, then reconfigure)");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-0.5f * em);
  if (ImGui::BeginCombo("##cr_format", kCrFormats[cr_format_])) {
    for (int i = 0; i < 4; ++i)
      if (ui::marked(std::string("option:cr_format:") + kCrFormats[i],
                     ImGui::Selectable(kCrFormats[i], i == cr_format_))) {
        cr_dirty_ = cr_dirty_ || i != cr_format_;
        cr_format_ = i;
      }
    ImGui::EndCombo();
  }
  ui::mark("combo:cr_format");
  if (!cr_on_) return;
  if (snap_.cr_running) {
    char over[96];
    std::snprintf(over, sizeof over, "%s: %zu inputs failing",
                  snap_.cr_stage.empty() ? "refining" : snap_.cr_stage.c_str(), snap_.cr_failing);
    ImGui::ProgressBar(static_cast<float>(snap_.cr_progress), ImVec2(-1, 0), over);
  }
#ifdef GELU_HAVE_FIT_CR
  if (snap_.cr && snap_.cr_error.empty()) {
    const fit::CrResult& r = *snap_.cr;
    ui::text_wrapped_disabled("correctly rounded: %zu of %zu inputs; %d piece%s of degree %d; cost %s (%g)",
                              r.correct, r.inputs, r.candidate.spec.pieces,
                              r.candidate.spec.pieces == 1 ? "" : "s", r.candidate.spec.degree,
                              r.candidate.cost().text().c_str(), r.candidate.cost().weighted());
  }
#endif
  if (!snap_.cr_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kError);
    ui::text_wrapped("%s", snap_.cr_error.c_str());
    ImGui::PopStyleColor();
  }
}

void DesignerPanel::cr_plot(ImVec2 size) {
#ifdef GELU_HAVE_FIT_CR
  const std::shared_ptr<const fit::CrResult> cr = snap_.cr;
  if (cr && cr.get() != cr_shown_) {
    // The band: each input's rounding interval and the candidate's compute-format result, in ULPs of the
    // format around the correctly rounded value; at most ~4000 inputs of the range, evenly by index.
    cr_shown_ = cr.get();
    cr_x_.clear(), cr_lo_.clear(), cr_hi_.clear(), cr_y_.clear(), cr_breaks_.clear();
    const auto t = fit::cr_table(cr->spec.target, cr->spec.format, cr->spec.compute);
    const Format fmt(cr->spec.format);
    std::vector<std::size_t> in;
    for (std::size_t i = 0; i < t->x.size(); ++i)
      if (t->x[i] >= *cr->spec.a && t->x[i] <= *cr->spec.b) in.push_back(i);
    const std::size_t step = std::max<std::size_t>(1, in.size() / 4000);
    for (std::size_t k = 0; k < in.size(); k += step) {
      const std::size_t i = in[k];
      const double r = t->r[i];
      const double u = r == 0 ? fmt.min_positive() : fmt.spacing(r);
      const double y = cr->spec.compute == FormatId::F32
                           ? static_cast<double>(cr->candidate.eval(static_cast<float>(t->x[i])))
                           : cr->candidate.eval(t->x[i]);
      cr_x_.push_back(t->x[i]);
      cr_lo_.push_back((t->lo[i] - r) / u);
      cr_hi_.push_back((t->hi[i] - r) / u);
      cr_y_.push_back((y - r) / u);
    }
    for (std::size_t j = 1; j + 1 < cr->candidate.breakpoints.size(); ++j)
      cr_breaks_.push_back(cr->candidate.breakpoints[j]);
    const double pad = 0.03 * (*cr->spec.b - *cr->spec.a);
    cr_plot_.x.range = cr_plot_.home_x = {*cr->spec.a - pad, *cr->spec.b + pad};
    cr_plot_.y.range = cr_plot_.home_y = {-0.8, 0.8};
  }
  char title[160];
  std::snprintf(
      title, sizeof title,
      "correctly rounded in %s: rounding intervals (band) and the candidate, in ULPs of %s around the "
      "correctly rounded value",
      kCrFormats[cr_format_], kCrFormats[cr_format_]);
  plot::Plot p("correctly_rounded", cr_plot_, size, "x", title);
  if (cr && !cr_x_.empty()) {
    p.shade_between("rounding intervals", kBand, cr_x_, cr_lo_, cr_hi_);
    for (double b : cr_breaks_) p.vline(b, IM_COL32(0, 0, 0, 60), 0.04f, true);
    p.scatter("candidate", kCurve, cr_x_, cr_y_, 0.12f);
    char note[160];
    std::snprintf(note, sizeof note, "%zu of %zu inputs correctly rounded; %d pieces (dashed)", cr->correct,
                  cr->inputs, cr->candidate.spec.pieces);
    p.note(note, 3, IM_COL32(40, 40, 40, 255));
  } else {
    p.note(snap_.cr_running         ? "fitting…"
           : snap_.cr_error.empty() ? ""
                                    : "no candidate: see the message on the left",
           0, IM_COL32(90, 90, 90, 255));
  }
  p.end();
  ui::mark_plot("correctly_rounded", cr_plot_);
#else
  (void)size;
#endif
}

void DesignerPanel::keep(bool compare) {
  const std::shared_ptr<const fit::Candidate>& c = snap_.candidate;
  if (!c || !snap_.error.empty()) return;
  model::KeptCandidate* k = nullptr;
  for (model::KeptCandidate& x : st_.candidates)
    if (x.c == c) k = &x;
  if (!k) {
    if (st_.candidates.size() >= model::DesignerState::kMaxCandidates) {
      note_ =
          "at most " + std::to_string(model::DesignerState::kMaxCandidates) + " candidates: remove one first";
      return;
    }
    std::vector<std::string> taken;
    for (const model::KeptCandidate& x : st_.candidates) taken.push_back(x.id);
    st_.candidates.push_back({unique_candidate_id(*c, taken), false, c});
    k = &st_.candidates.back();
    points_dirty_ = true;
  }
  if (compare && !k->compared) {
    try {
      add_to_comparison(candidate_entry(k->c, k->id));
      k->compared = true;
      note_ = k->id + " is in the comparison: see the Approximations and Precision panels";
    } catch (const std::exception& e) {
      note_ = e.what();
    }
  }
}

void DesignerPanel::candidate_controls() {
  const float em = ui::em();
  ui::heading("Candidates");
  const bool ok = snap_.candidate && snap_.error.empty() && !snap_.running;
  const bool prime = snap_.candidate && snap_.candidate->spec.target == fit::Target::GeluPrime;
  ImGui::BeginDisabled(!ok);
  if (ImGui::Button("Keep")) keep(false);
  ui::mark("button:keep");
  ImGui::SameLine();
  ImGui::BeginDisabled(prime);
  if (ImGui::Button("Add to comparison")) keep(true);
  ui::mark("button:compare");
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!designer_can_certify() || snap_.certifying);
  if (ImGui::Button("Certify")) lab_.request_certify();
  ui::mark("button:certify");
  ImGui::EndDisabled();
  ImGui::EndDisabled();
  if (!designer_can_certify() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("this build has no Sollya (apt install libsollya-dev, then reconfigure)");
  if (snap_.certifying) ImGui::TextDisabled("certifying with Sollya…");
  if (!snap_.certify_note.empty()) {
    ui::text_wrapped_disabled("%s", snap_.certify_note.c_str());
  }
  int remove = -1;
  for (std::size_t i = 0; i < st_.candidates.size(); ++i) {
    model::KeptCandidate& k = st_.candidates[i];
    ImGui::PushID(static_cast<int>(i));
    if (ui::marked("button:remove:" + k.id, ImGui::SmallButton("×"))) remove = static_cast<int>(i);
    ImGui::SameLine();
    bool cmp = k.compared;
    ImGui::BeginDisabled(k.c->spec.target == fit::Target::GeluPrime);
    if (ui::marked("check:compared:" + k.id, ImGui::Checkbox("##cmp", &cmp))) {
      if (cmp) {
        try {
          add_to_comparison(candidate_entry(k.c, k.id));
          k.compared = true;
        } catch (const std::exception& e) {
          note_ = e.what();
        }
      } else {
        remove_from_comparison(k.id);
        k.compared = false;
      }
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("in the comparison (Approximations and Precision panels)");
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, kept_color(i));
    ImGui::TextUnformatted(k.id.c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\nmax error %s\ncost %s", k.c->name().c_str(), g3(k.c->max_error).c_str(),
                        k.c->cost().text().c_str());
    ImGui::PopID();
  }
  if (remove >= 0) {
    if (st_.candidates[static_cast<std::size_t>(remove)].compared)
      remove_from_comparison(st_.candidates[static_cast<std::size_t>(remove)].id);
    st_.candidates.erase(st_.candidates.begin() + remove);
    points_dirty_ = true;
  }
  (void)em;
}

void DesignerPanel::export_controls() {
  const float em = ui::em();
  ui::heading("Export");
  char name[128], base[512];
  std::snprintf(name, sizeof name, "%s", st_.export_name.c_str());
  std::snprintf(base, sizeof base, "%s", st_.export_base.c_str());
  ImGui::SetNextItemWidth(-5.5f * em);
  if (ui::marked("input:function", ImGui::InputText("function", name, sizeof name)) &&
      fit::is_identifier(name))
    st_.export_name = name;
  ImGui::SetNextItemWidth(-5.5f * em);
  if (ui::marked("input:files", ImGui::InputText("files", base, sizeof base)) && base[0])
    st_.export_base = base;
  const bool ok = snap_.candidate && snap_.error.empty() && !snap_.running;
  ImGui::BeginDisabled(!ok);
  auto run = [&](std::vector<ExportKind> kinds) {
    const ExportResult r = export_candidate(*snap_.candidate, st_.export_base, st_.export_name, kinds);
    note_ = r.message;
    check_ = r.check;
  };
  if (ImGui::Button("C++")) run({ExportKind::Cpp, ExportKind::Vectors});
  ui::mark("button:export_cpp");
  ImGui::SameLine();
  if (ui::marked("button:export_glsl", ImGui::Button("GLSL"))) run({ExportKind::Glsl, ExportKind::Vectors});
  ImGui::SameLine();
  if (ui::marked("button:export_cuda", ImGui::Button("CUDA"))) run({ExportKind::Cuda, ExportKind::Vectors});
  ImGui::SameLine();
  if (ImGui::Button("all")) run({ExportKind::Cpp, ExportKind::Glsl, ExportKind::Cuda, ExportKind::Vectors});
  ui::mark("button:export_all");
  ImGui::EndDisabled();
  if (!note_.empty()) {
    ui::text_wrapped_disabled("%s", note_.c_str());
    if (!check_.empty()) ui::text_wrapped_disabled("check: %s", check_.c_str());
  }
}

void DesignerPanel::controls() {
  spec_controls();
  candidate_controls();
  export_controls();
  cr_controls();
}

// [SECTION] Plots and the coefficient table

void DesignerPanel::error_plot(ImVec2 size) {
  const std::shared_ptr<const fit::Candidate> c = snap_.candidate;
  if (c) {
    const plot::Range r{c->spec.a, c->spec.b};
    if (r != shown_range_ || st_.log_error != shown_log_) {
      const double pad = 0.03 * (r.max - r.min);
      err_.x.range = err_.home_x = {r.min - pad, r.max + pad};
      shown_range_ = r;
      shown_log_ = st_.log_error;
    }
    const double m = c->max_error > 0 ? c->max_error : 1e-300;
    err_.y.scale = st_.log_error ? plot::Scale::Log10 : plot::Scale::Linear;
    err_.y.range = err_.home_y =
        st_.log_error ? plot::Range{m * 1e-4, m * 4} : plot::Range{-1.25 * m, 1.5 * m};
  }
  const char* unit = !c                                   ? ""
                     : c->spec.weight == fit::Weight::Abs ? "absolute"
                     : c->spec.weight == fit::Weight::Rel ? "relative"
                                                          : "ULPs";
  char title[200];
  std::snprintf(title, sizeof title, "%serror of the candidate as stored (%s)%s", st_.log_error ? "|" : "",
                unit, st_.log_error ? "|" : ", signed: target − candidate");
  plot::Plot p("error", err_, size, "x", title);
  if (c) {
    const bool lg = st_.log_error;
    const std::shared_ptr<const fit::Candidate> cc = c;
    p.function("error##curve", kCurve, [cc, lg](std::span<const double> x, std::span<double> y) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = cc->error_at(x[i]);
        y[i] = lg ? std::fabs(e) : e;
      }
    });
    if (!lg) {
      p.hline(c->max_error, kError, 0.06f, true);
      p.hline(-c->max_error, kError, 0.06f, true);
    }
    for (const fit::ErrorPoint& q : c->extrema) {
      const double y = lg ? std::fabs(c->error_at(q.x)) : c->error_at(q.x);
      p.marker(q.x, y, kCurve, nullptr, 0.2f);
      marks_.push_back({"error", "extremum", "", kCurve, q.x, y});
    }
    for (const fit::ErrorPoint& q : c->reference) {
      const double y = lg ? std::fabs(c->error_at(q.x)) : c->error_at(q.x);
      p.marker(q.x, y, kReference, nullptr, 0.32f);
      marks_.push_back({"error", "reference", "", kReference, q.x, y});
    }
    char note[200];
    std::snprintf(note, sizeof note, "max %s at x = %s; %zu equioscillation points (orange), %zu extrema",
                  g3(c->max_error).c_str(), g3(c->x_at_max, "%.4g").c_str(), c->reference.size(),
                  c->extrema.size());
    char compact[80];  // a small plot: the maximum alone (the markers keep their colours); "x = …" unbroken
    std::snprintf(compact, sizeof compact, "max %s at x\u00a0=\u00a0%s", g3(c->max_error).c_str(),
                  g3(c->x_at_max, "%.4g").c_str());
    p.note(note, 3, IM_COL32(40, 40, 40, 255), compact);
  } else {
    p.note(snap_.running         ? "fitting…"
           : snap_.error.empty() ? ""
                                 : "no candidate: see the message on the left",
           0, IM_COL32(90, 90, 90, 255));
  }
  p.end();
  ui::mark_plot("error", err_);
}

void DesignerPanel::coefficient_table(ImVec2 size) {
  ImGui::BeginChild("coefficients", size, true);
  const std::shared_ptr<const fit::Candidate> c = snap_.candidate;
  if (!c) {
    ImGui::TextDisabled("%s", snap_.running ? "fitting…" : "no candidate");
    ImGui::EndChild();
    return;
  }
  const fit::Spec& s = c->spec;
  if (ui::fonts().bold) ImGui::PushFont(ui::fonts().bold);
  ui::text_wrapped("%s", c->name().c_str());
  if (ui::fonts().bold) ImGui::PopFont();
  ui::text_wrapped("%s ≈ %s", s.target == fit::Target::GeluPrime ? "GELU′(x)" : "GELU(x)",
                   c->formula().c_str());
  ui::text_wrapped("max error %s at x = %s%s", g3(c->max_error).c_str(), g3(c->x_at_max, "%.4g").c_str(),
                   c->certified ? " (certified)" : " (sampled)");
  if (c->certified)
    ui::text_wrapped("certified in [%s, %s]", g3(c->certified_lo, "%.9g").c_str(),
                     g3(c->certified_hi, "%.9g").c_str());
  ui::text_wrapped("before rounding %s, rounded to nearest %s", g3(c->unrounded_max_error).c_str(),
                   g3(c->naive_max_error).c_str());
  ui::text_wrapped("cost %s (weighted %g); fitted in %.1f ms", c->cost().text().c_str(), c->cost().weighted(),
                   c->fit_seconds * 1e3);
  const std::size_t per = static_cast<std::size_t>(s.degree) + 1;
  // Numbers keep their width (never cut): a table narrower than them scrolls sideways.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("coefs", 3, flags, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("coef", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("hex", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("decimal", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < c->coefficients.size(); ++i) {
      char label[48];
      if (s.form == fit::Form::Rational)
        std::snprintf(label, sizeof label, "%c%zu", i < per ? 'p' : 'q', i < per ? i : i - per);
      else if (s.form == fit::Form::Piecewise)
        std::snprintf(label, sizeof label, "%zu.%zu", i / per, i % per);
      else
        std::snprintf(label, sizeof label, "c%zu", i);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(label);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(hex_of(c->coefficients[i], s.format).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g3(c->coefficients[i], "%.9g").c_str());
    }
    ImGui::EndTable();
  }
  ImGui::EndChild();
  ui::mark("table:coefficients", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

void DesignerPanel::pareto_plot(ImVec2 size) {
  struct Pt {
    std::string label, kind;
    double cost, error;
    unsigned int color;
  };
  std::vector<Pt> pts;
  for (const ZooPoint& z : snap_.zoo)
    if (!z.user) pts.push_back({z.id, "zoo", z.cost, z.max_abs_error, kZoo});
  for (std::size_t i = 0; i < st_.candidates.size(); ++i)
    for (const auto& [id, z] : snap_.kept_points)
      if (id == st_.candidates[i].id) pts.push_back({id, "kept", z.cost, z.max_abs_error, kept_color(i)});
  if (snap_.candidate && snap_.error.empty() && snap_.point.cost > 0)
    pts.push_back({"this candidate", "current", snap_.point.cost, snap_.point.max_abs_error, kCurrent});
  if (cr_on_ && snap_.cr && snap_.cr_error.empty() && snap_.cr_point.cost > 0)
    pts.push_back({snap_.cr_point.name, "correctly_rounded", snap_.cr_point.cost,
                   snap_.cr_point.max_abs_error, IM_COL32(44, 160, 44, 255)});
  double lo = 1e300, hi = 0, cmax = 0;
  for (Pt& q : pts) {
    q.error = std::max(q.error, 1e-17);
    lo = std::min(lo, q.error);
    hi = std::max(hi, q.error);
    cmax = std::max(cmax, q.cost);
  }
  if (pts.empty()) lo = 1e-8, hi = 1;
  pareto_.y.range = {lo / 5, hi * 8};
  pareto_.x.range = {-1, cmax * 1.08 + 4};
  plot::Plot p(
      "pareto", pareto_, size, "cost (weighted operations: madd 1, div 4, transcendental 16, table 2)",
      "Pareto: max |f − GELU| on [−8, 8] in f64 against cost — the zoo (grey) and this session's candidates");
  // The Pareto front: the points no other point beats in both cost and error.
  std::vector<const Pt*> sorted;
  for (const Pt& q : pts) sorted.push_back(&q);
  std::sort(sorted.begin(), sorted.end(), [](const Pt* a, const Pt* b) {
    return a->cost < b->cost || (a->cost == b->cost && a->error < b->error);
  });
  std::vector<double> fx, fy;
  double best = 1e300;
  for (const Pt* q : sorted)
    if (q->error < best) {
      if (!fx.empty()) {
        fx.push_back(q->cost);
        fy.push_back(fy.back());
      }
      fx.push_back(q->cost);
      fy.push_back(q->error);
      best = q->error;
    }
  p.line("Pareto front##front", IM_COL32(0, 0, 0, 90), fx, fy, 0.08f);
  // This session's points first: where labels_near leaves labels out for want of room, theirs are kept.
  for (const bool zoo : {false, true})
    for (const Pt& q : pts) {
      if ((q.kind == "zoo") != zoo) continue;
      p.marker(q.cost, q.error, q.color, q.label.c_str(), zoo ? 0.22f : 0.34f);
      marks_.push_back({"pareto", q.kind, q.label, q.color, q.cost, q.error});
    }
  p.end();
  ui::mark_plot("pareto", pareto_);
}

void DesignerPanel::drawContent() {
  if (dirty_) {
    lab_.request(st_.spec);
    dirty_ = false;
  }
  if (points_dirty_) {
    DesignerLab::Kept kept;
    for (const model::KeptCandidate& k : st_.candidates) kept.emplace_back(k.id, k.c);
    lab_.request_points(std::move(kept));
    points_dirty_ = false;
  }
  if (cr_dirty_) {
#ifdef GELU_HAVE_FIT_CR
    if (cr_on_) {
      fit::CrSpec cs;
      cs.target = st_.spec.target == fit::Target::GeluPrime ? fit::Target::GeluPrime : fit::Target::Gelu;
      cs.format = Format::parse(kCrFormats[cr_format_])->id();
      cs.fma = true;  // f32 with fma (gelulab fit --fma off for the other)
      lab_.request_cr(cs);
    }
#endif
    cr_dirty_ = false;
  }
  lab_.take(snap_);
  marks_.clear();
  ui::begin_panel(21.0f, [this] { controls(); });
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& st = ImGui::GetStyle();
  // At a projector's 3× text the Pareto plot got 31 px: under 16 em of height the panel shows the error plot
  // across the width and the coefficients below it, and leaves the Pareto plot out (as the Precision panel
  // does).
  compact_ = avail.y < 16.0f * ui::em() ||
             (avail.x - st.ItemSpacing.x) * 0.58f < plot::Plot::min_frame().x;  // no room beside the table
  if (compact_) {
    if (cr_on_)
      cr_plot(ImVec2(-1, std::floor(avail.y * 0.6f)));
    else
      error_plot(ImVec2(-1, std::floor(avail.y * 0.6f)));
    coefficient_table(ImVec2(0, -1));
  } else {
    const float top_h = std::floor((avail.y - st.ItemSpacing.y) * 0.55f);
    const float left_w = std::floor((avail.x - st.ItemSpacing.x) * 0.58f);
    if (cr_on_)
      cr_plot(ImVec2(left_w, top_h));
    else
      error_plot(ImVec2(left_w, top_h));
    ImGui::SameLine();
    coefficient_table(ImVec2(0, top_h));
    pareto_plot(ImVec2(-1, -1));
  }
  ImGui::EndChild();
}

// [SECTION] State and meta

json::Value DesignerPanel::state() const {
  return model::designer_schema().write(st_);
}

void DesignerPanel::apply(const json::Value& state) {
  model::DesignerState s = st_;
  model::designer_schema().read(state, s);
  const bool spec_changed = !(s.spec == st_.spec);
  st_ = std::move(s);
  if (spec_changed) changed();
  points_dirty_ = true;
}

void DesignerPanel::set_state(const json::Value& state) {
  apply(state);
  for (const model::KeptCandidate& k : st_.candidates)
    if (k.compared) add_to_comparison(candidate_entry(k.c, k.id));
}

void DesignerPanel::restore_state(const json::Value& state) {
  apply(state);
}

void DesignerPanel::restored() {
  // Registered, not announced: the other panels' states list the candidates they showed when it was saved.
  for (const model::KeptCandidate& k : st_.candidates)
    if (k.compared) restore_to_comparison(candidate_entry(k.c, k.id));
}

json::Object DesignerPanel::meta() const {
  json::Object o, plots;
  plots["error"] = plot_meta(err_);
  if (!compact_) plots["pareto"] = plot_meta(pareto_);  // only the plots drawn in the last frame
  o["compact"] = compact_;
  o["plots"] = plots;
  o["error"] = snap_.error;
  if (const auto& c = snap_.candidate) {
    json::Object j = candidate_json(*c).as_object();
    j["name"] = c->name();
    j["id"] = c->id();
    j["formula"] = c->formula();
    j["cost_weighted"] = c->cost().weighted();
    j["cost_text"] = c->cost().text();
    json::Array hex;
    for (double v : c->coefficients) hex.emplace_back(hex_of(v, c->spec.format));
    j["coefficients_hex"] = std::move(hex);
    o["candidate"] = std::move(j);
    o["fit_ms"] = c->fit_seconds * 1e3;
  } else {
    o["candidate"] = json::Value();
  }
  json::Array marks;
  for (const Mark& m : marks_) {
    json::Object e;
    e["plot"] = m.plot;
    e["kind"] = m.kind;
    e["label"] = m.label;
    e["color"] = color_hex(m.color);
    e["x"] = m.x;
    e["y"] = m.y;
    marks.emplace_back(std::move(e));
  }
  o["marks"] = std::move(marks);
  o["curve_color"] = color_hex(kCurve);
  o["note"] = note_;
  o["check"] = check_;
  o["certify_note"] = snap_.certify_note;
  o["can_certify"] = designer_can_certify();
  o["state"] = state();
  return o;
}

GELU_PANEL(DesignerPanel);

}  // namespace gelu::app

// Every sentence a shipped lesson step shows is true of what it shows (issue 52, point 6): each step's text,
// as the app fills it in (`gelulab shot --lesson FILE --step N --meta`, the text its lesson bar shows), is
// the step's text with every {key} replaced by what this test computes from gelu::core for the step's own
// state (its entries, formats, compute format, order and x range), never by numbers typed in here. The
// figures a verdict states are also checked against the sweep directly (the inputs in the plotted range, the
// largest ULP error with wrong results at overflow apart, no "inf ULP"), claims' ✓/✗ against the registry
// functions evaluated here, and the ULP plots' y range against the errors they draw. Cost claims measure time
// (as the Benchmarks panel does): only their keys are checked, their steps are not rendered. Without a GL
// context the shots exit non-zero and these tests FAIL (never skip).
//
// Index of this file:
//   [SECTION] The Precision panel's keys, computed here from the step's state
//   [SECTION] Claims, with their ✓ or ✗ checked against the registry functions evaluated here
//   [SECTION] Tests
//   [SECTION] Numbers typed into the shipped steps' prose
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/format.hpp"
#include "gelu/json.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"
#include "model/claims.hpp"
#include "model/designer_lab.hpp"
#include "model/lessons.hpp"
#include "model/panel_states.hpp"
#include "model/precision_lab.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace P = gelu::precision;
using gelu::Format;
using gelu::FormatId;
using gelu::app::Lesson;
using gelu::app::LessonStep;
using gelu::json::Value;

fs::path test_dir() {
  return gelu::test::scratch_dir("gelulab_lesson_claims");
}

using gelu::test::slurp;

/// The step's meta from `gelulab shot --lesson FILE --step N` at the handout's size (presentation 2×).
Value shot_meta(const std::string& lesson, std::size_t step, const std::string& more, std::string* err) {
  const std::string name = fs::path(lesson).stem().string() + "_" + std::to_string(step + 1);
  const fs::path png = test_dir() / (name + ".png"), meta = test_dir() / (name + ".json"),
                 e = test_dir() / (name + ".err");
  const std::string cmd = std::string("env -u DISPLAY -u WAYLAND_DISPLAY '") + GELULAB_EXE +
                          "' shot --size 1280x800 --presentation 2 --lesson '" + lesson + "' --step " +
                          std::to_string(step + 1) + " " + more + " --out '" + png.string() + "' --meta '" +
                          meta.string() + "' 2> '" + e.string() + "'";
  const int st = std::system(cmd.c_str());
  *err = slurp(e);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return Value();
  return gelu::json::parse(slurp(meta));
}

std::vector<std::string> shipped_lessons() {
  std::vector<std::string> out;
  for (const auto& f : fs::directory_iterator(fs::path(GELU_SOURCE_DIR) / "assets/lessons"))
    if (f.path().extension() == ".json") out.push_back(f.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// A number as the Precision panel writes it: 3 significant digits, the minus sign U+2212.
std::string g3(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  std::string s;
  for (const char* c = b; *c; ++c) s += *c == '-' ? std::string("−") : std::string(1, *c);
  return s;
}

const gelu::analysis::FunctionSpec& gelu_ref() {
  static const gelu::analysis::FunctionSpec s = gelu::analysis::spec(*gelu::find_activation("gelu"));
  return s;
}

/// The entry's exhaustive sweep against GELU (each computed once: the sanitizer build is slow at it).
const P::Sweep& sweep_of(const std::string& entry, const Format& storage, const Format& compute, int order) {
  static std::map<std::string, P::Sweep> cache;
  const std::string key = entry + "/" + std::string(storage.name()) + "/" + std::string(compute.name()) +
                          "/" + std::to_string(order);
  auto it = cache.find(key);
  if (it == cache.end()) {
    P::SweepSpec spec;
    spec.storage = storage;
    spec.compute = compute;
    spec.order = order;
    it = cache.emplace(key, P::sweep(*gelu::zoo::find(entry), gelu_ref(), spec)).first;
  }
  return it->second;
}

// [SECTION] The Precision panel's keys, computed here from the step's state

struct PrecisionStep {
  gelu::app::model::PrecisionState st;
  explicit PrecisionStep(const LessonStep& s) { gelu::app::model::precision_schema().read(s.state, st); }
};

/// verdict / maxulp / zero / overflow / lobe for the step, from core; the verdict's figures checked against
/// the sweep itself.
std::string precision_value(const LessonStep& step, const std::string& key) {
  const PrecisionStep ps(step);
  const auto& cfg = ps.st.cfg;
  const std::vector<std::string> parts = gelu::app::model::text_key_parts(key);
  const gelu::zoo::Entry e = *gelu::zoo::find(parts.at(1));
  if (parts[0] == "lobe") {
    const gelu::Quantization q{cfg.int8_scale, 0};
    const Format f(FormatId::Int8, q);
    const P::Int8View v = P::int8_view(e, q, gelu::app::compute_for(cfg.compute, f));
    EXPECT_LE(v.lobe_codes_reached, v.lobe_codes) << key;
    char b[160];
    std::snprintf(b, sizeof b, "%d of %d lobe codes, max error %s LSB", v.lobe_codes_reached, v.lobe_codes,
                  g3(v.ulp.max).c_str());
    return b;
  }
  const std::string format = parts.size() > 2 ? parts[2] : cfg.formats.at(0);
  const Format storage = *Format::parse(format);
  const Format compute = gelu::app::compute_for(cfg.compute, storage);
  const P::Sweep& s = sweep_of(e.id, storage, compute, cfg.order);
  const double lo = ps.st.x.min, hi = ps.st.x.max;
  if (parts[0] == "zero") {
    const P::Tails t = P::tails(e, storage, compute, cfg.order);
    return t.first_zero ? "x = " + g3(*t.first_zero) : "nowhere";
  }
  if (parts[0] == "overflow") {
    const P::Verdict all = P::verdict(s);
    if (!all.overflow_text.empty()) return all.overflow_text;
    if (s.overflows == 0) return "no intermediate overflows in " + std::string(compute.name());
    return "an intermediate overflows in " + std::string(compute.name()) + " at " +
           std::to_string(s.overflows) + " inputs, every result there still right";
  }
  // The figures over the plotted range, straight from the sweep: inputs in [lo, hi]; the largest ULP error
  // of those that differ, leaving out those wrong where an intermediate overflowed.
  const gelu::analysis::ErrorReport& r = s.errors;
  std::size_t n = 0, mismatch = 0, overflow_wrong = 0;
  double max_ulp = 0;
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    if (r.x[i] < lo || r.x[i] > hi) continue;
    ++n;
    const bool differs =
        gelu::analysis::differs(r.format, r.value[i], r.ref_value[i], gelu::analysis::reference_side(r, i));
    if (!differs) continue;
    if (s.overflowed[i]) {
      ++overflow_wrong;
      continue;
    }
    ++mismatch;
    max_ulp = std::max(max_ulp, r.ulp[i]);
  }
  const P::Verdict v = P::verdict(s, {}, lo, hi);
  EXPECT_EQ(v.n, n) << key;
  EXPECT_EQ(v.mismatch, mismatch) << key;
  EXPECT_EQ(v.overflow_wrong, overflow_wrong) << key;
  EXPECT_EQ(v.max_ulp, max_ulp) << key;
  EXPECT_TRUE(std::isfinite(v.max_ulp)) << key;
  EXPECT_EQ(v.text.find("inf ULP"), std::string::npos) << key << ": " << v.text;
  if (mismatch > 0) {
    EXPECT_GE(v.differ_lo, lo) << key;
    EXPECT_LE(v.differ_hi, hi) << key;
    EXPECT_GE(v.x_at_max, lo) << key;
    EXPECT_LE(v.x_at_max, hi) << key;
  }
  if (parts[0] == "maxulp") return g3(max_ulp) + " ULP";
  return v.text;
}

// [SECTION] Claims, with their ✓ or ✗ checked against the registry functions evaluated here

bool rounds_to_digits(double computed, const std::string& written) {
  const std::size_t dot = written.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(written.size() - dot - 1);
  const double scale = std::pow(10.0, decimals);
  return std::round(computed * scale) == std::round(std::stod(written) * scale);
}

/// Whether the claim holds, computed here on grids (nullopt: a kind this test does not evaluate).
std::optional<bool> claim_holds(const std::vector<std::string>& p) {
  const gelu::Activation& a = *gelu::find_activation(p.at(2));
  const auto f = [&](double x) { return a.eval(x); };
  const auto d1 = [&](double x) { return a.eval(x, 1); };
  if (p[1] == "value") return rounds_to_digits(f(std::stod(p[3])), p[4]);
  if (p[1] == "rising_above") {
    const double from = std::stod(p[3]);
    for (double x = from + 0.0005; x <= from + 40; x += 0.0005)
      if (!(d1(x) > 0)) return false;
    return true;
  }
  if (p[1] == "unbounded") {
    double least = INFINITY;
    for (double x = -1e3; x <= 0; x += 0.01) least = std::min(least, f(x));
    return least < -1e2 && f(1e6) > 1e5;  // GELU's least value is its finite minimum
  }
  if (p[1] == "slope_peak") {
    double best = -INFINITY, at = 0;
    for (double x = -10; x <= 10; x += 1e-4)
      if (const double v = d1(x); v > best) best = v, at = x;
    return rounds_to_digits(at, p[3]);
  }
  if (p[1] == "within") {
    const gelu::Activation& b = *gelu::find_activation(p.at(3));
    double worst = 0;
    for (double x = -10; x <= 10; x += 1e-4) worst = std::max(worst, std::fabs(f(x) - b.eval(x)));
    return worst <= std::stod(p[4]);
  }
  return std::nullopt;
}

std::vector<std::string> colon_parts(const std::string& key) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = key.find(':', from);
    out.push_back(key.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

std::string claim_value(const std::string& key) {
  const std::string text = gelu::app::model::claim_text(key, true);
  const std::optional<bool> holds = claim_holds(colon_parts(key));
  EXPECT_TRUE(holds.has_value()) << key << ": a claim kind this test does not evaluate";
  if (holds) {
    const std::string mark = *holds ? "✓ holds: " : "✗ does not hold: ";
    EXPECT_EQ(text.rfind(mark, 0), 0u) << key << ": " << text;
  }
  return text;
}

bool is_cost_claim(const std::string& key) {
  return key.rfind("claim:cost:", 0) == 0;
}

// [SECTION] Tests

TEST(LessonClaims, EveryShippedStepShowsWhatTheCoreComputesForIt) {
  int rendered = 0, keys = 0;
  for (const std::string& path : shipped_lessons()) {
    const Lesson l = gelu::app::load_lesson(path);
    for (std::size_t i = 0; i < l.steps.size(); ++i) {
      const LessonStep& step = l.steps[i];
      SCOPED_TRACE(fs::path(path).filename().string() + " steps[" + std::to_string(i) + "]");
      const std::vector<std::string> text_keys = gelu::app::computed_text_keys(step.text);
      bool timed = false;
      for (const std::string& k : text_keys) timed = timed || is_cost_claim(k);
      // The notes' keys are computed where the app shows them (outside presentation, the handout): each is
      // one the step's panel computes (or a claim).
      for (const std::string& k : gelu::app::computed_text_keys(step.notes)) {
        if (gelu::app::model::is_claim_key(k))
          EXPECT_EQ(gelu::app::model::claim_problem(k), "") << k;
        else
          EXPECT_EQ(step.panel, "precision") << k;
      }
      if (text_keys.empty() || timed) continue;
      // A question holds back the verdicts until it is answered: the shot picks the first answer and shows
      // it; the bar shows the question (and a reveal's progress) after the text.
      // (The → key reveals the step's series one at a time, then the answer.)
      const bool asks = step.view.question.has_value(), reveals = !step.view.reveal.empty();
      const std::size_t presses = (reveals ? step.view.reveal.size() - 1 : 0) + (asks ? 1 : 0);
      std::string err;
      const Value meta = shot_meta(
          path, i,
          (asks ? "--pick 1 " : "") + (presses ? "--next " + std::to_string(presses) : std::string()), &err);
      ASSERT_TRUE(meta.is_object()) << err;
      ++rendered;
      const std::string shown = meta.at("lesson").at("text").as_string();
      const std::string want = gelu::app::fill_computed_text(step.text, [&](std::string_view key) {
        ++keys;
        const std::string k(key);
        return gelu::app::model::is_claim_key(k) ? claim_value(k) : precision_value(step, k);
      });
      if (asks || reveals)
        EXPECT_EQ(shown.substr(0, want.size()), want);
      else
        EXPECT_EQ(shown, want);
      EXPECT_EQ(shown.find("inf ULP"), std::string::npos) << shown;
      // The ULP plots' y range fits the errors they draw in the x range shown: the largest finite one lies
      // inside it and the top is 3× that one (at least 8).
      if (step.panel != "precision") continue;
      const PrecisionStep ps(step);
      for (const auto& [id, g] : meta.at("plots").as_object()) {
        if (id.rfind("ulp_", 0) != 0) continue;
        const Format storage = *Format::parse(id.substr(4));
        double top = 0;
        for (const std::string& entry : ps.st.cfg.entries) {
          const P::Sweep& s =
              sweep_of(entry, storage, gelu::app::compute_for(ps.st.cfg.compute, storage), ps.st.cfg.order);
          for (std::size_t k = 0; k < s.errors.x.size(); ++k)
            if (s.errors.x[k] >= g.at("x_min").as_number() && s.errors.x[k] <= g.at("x_max").as_number() &&
                std::isfinite(s.errors.ulp[k]))
              top = std::max(top, s.errors.ulp[k]);
        }
        EXPECT_EQ(g.at("y_max").as_number(), std::max(8.0, 3 * top)) << id;
        EXPECT_LT(g.at("y_min").as_number(), 1.0) << id;  // 1 ULP, the least drawn, is inside
      }
    }
  }
  EXPECT_GE(rendered, 8);
  EXPECT_GE(keys, 12);
}

// The verdict names wrong results at overflow apart: lesson 7's backward pass over every bf16 value.
TEST(LessonClaims, OverflowIsNamedApartFromTheUlpFigures) {
  P::SweepSpec spec;
  spec.storage = Format(FormatId::BF16);
  spec.compute = Format(FormatId::F32);
  spec.order = 1;
  const P::Sweep s = P::sweep(*gelu::zoo::find("tanh_form"), gelu_ref(), spec);
  const P::Verdict v = P::verdict(s);
  ASSERT_GT(v.overflow_wrong, 0u) << v.text;
  EXPECT_TRUE(std::isfinite(v.max_ulp)) << v.text;
  EXPECT_EQ(v.text.find("inf ULP"), std::string::npos) << v.text;
  EXPECT_NE(v.text.find("; besides, " + std::to_string(v.overflow_wrong) + " inputs with "),
            std::string::npos)
      << v.text;
  EXPECT_NE(v.text.find("an intermediate overflows in f32"), std::string::npos) << v.text;
  // Each wrong-at-overflow input is one whose intermediate overflowed, beyond the first such positive input.
  std::size_t counted = 0;
  for (std::size_t i = 0; i < s.errors.x.size(); ++i)
    if (s.overflowed[i] && gelu::analysis::differs(s.errors.format, s.errors.value[i], s.errors.ref_value[i],
                                                   gelu::analysis::reference_side(s.errors, i)))
      ++counted;
  EXPECT_EQ(counted, v.overflow_wrong);
  ASSERT_TRUE(v.overflow_wrong_from.has_value());
  EXPECT_GT(*v.overflow_wrong_from, 1e12);
  // Over the whole format the ordinary errors are those of [−16, 16]: the overflow is far outside it.
  const P::Verdict near = P::verdict(s, {}, -16, 16);
  EXPECT_EQ(near.overflow_wrong, 0u);
  EXPECT_EQ(near.max_ulp, v.max_ulp);
  EXPECT_EQ(near.mismatch, v.mismatch);
}

// [SECTION] Numbers typed into the shipped steps' prose

/// `v` with `decimals` decimals and the minus sign U+2212, as the lessons write numbers.
std::string fixed(double v, int decimals) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  std::string s;
  for (const char* c = b; *c; ++c) s += *c == '-' ? std::string("−") : std::string(1, *c);
  return s;
}
/// "4.7·10⁻⁴": two significant digits and a superscript exponent.
std::string sci2(double v) {
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  static const char* sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string ex = e < 0 ? "⁻" : "";
  for (const char c : std::to_string(std::abs(e))) ex += sup[c - '0'];
  return fixed(v / std::pow(10.0, e), 1) + "·10" + ex;
}

const gelu::Activation& fn(const char* id) {
  return *gelu::find_activation(id);
}
double max_abs_diff(const char* a, const char* b, double lo, double hi, double* at = nullptr) {
  double worst = 0, x_worst = lo;
  for (int i = 0; i <= 200000; ++i) {
    const double x = lo + (hi - lo) * i / 200000.0, d = std::fabs(fn(a).eval(x) - fn(b).eval(x));
    if (d > worst) worst = d, x_worst = x;
  }
  if (at) *at = x_worst;
  return worst;
}
/// E[f(z)] for z ~ N(0, 1) (Simpson's rule on [−12, 12]).
double normal_mean(const char* id) {
  const int n = 24000;
  const double h = 24.0 / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double z = -12 + h * i, w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    sum += w * fn(id).eval(z) * std::exp(-z * z / 2) / std::sqrt(2 * M_PI);
  }
  return sum * h / 3;
}

// Each number a shipped step's text states in prose is computed here from the core and must be in the text as
// the text writes it: a lesson edited to a wrong number, or a core that changes, fails here. The phrases are
// the lessons'; the numbers are not typed into this test.
TEST(LessonClaims, NumbersTypedIntoShippedStepsAreWhatTheCoreComputes) {
  const auto text = [](const std::string& file, std::size_t step) {
    return gelu::app::load_lesson(std::string(GELU_SOURCE_DIR) + "/assets/lessons/" + file)
        .steps.at(step)
        .text;
  };
  const auto has = [](const std::string& t, const std::string& phrase) {
    EXPECT_NE(t.find(phrase), std::string::npos) << "'" << phrase << "' not in: " << t;
  };
  const gelu::analysis::Properties pr = gelu::analysis::properties(gelu::analysis::spec(fn("gelu")));
  ASSERT_TRUE(pr.global_minimum.has_value());
  // Lesson 1: GELU(1), its minimum, its slope at 0 and its peak, the inflection points.
  const std::string l1 = "1_what_is_gelu.json";
  has(text(l1, 1),
      "Φ(1) ≈ " + fixed(fn("gelu").eval(1.0), 3) + ": GELU(1) ≈ " + fixed(fn("gelu").eval(1.0), 3));
  has(text(l1, 2),
      "minimum " + fixed(pr.global_minimum->value, 3) + " at x ≈ " + fixed(pr.global_minimum->x, 3));
  double peak_x = 0, peak = -1;
  for (double x = -5; x <= 5; x += 1e-5)
    if (const double d = fn("gelu").eval(x, 1); d > peak) peak = d, peak_x = x;
  EXPECT_NEAR(peak_x, std::sqrt(2.0), 1e-4);  // "at x = √2"
  has(text(l1, 3), fixed(fn("gelu").eval(0.0, 1), 1) + " at 0, peak " + fixed(peak, 2) + " at x = √2");
  ASSERT_EQ(pr.inflection_points.size(), 2u);  // "between −√2 and √2 … x = ±√2"
  EXPECT_NEAR(pr.inflection_points[0], -std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(pr.inflection_points[1], std::sqrt(2.0), 1e-9);
  for (double x : {-3.0, -1.0, 0.5, 2.5})  // GELU″(x) = φ(x)·(2 − x²)
    EXPECT_NEAR(fn("gelu").eval(x, 2), std::exp(-x * x / 2) / std::sqrt(2 * M_PI) * (2 - x * x), 1e-12);
  // Lesson 2: the stand-ins' largest errors on [−6, 6], GELU(−6), the fitted k, the f32 ULP errors.
  const std::string l2 = "2_exact_vs_approximations.json";
  has(text(l2, 1), "at most " + sci2(max_abs_diff("gelu_tanh", "gelu", -6, 6)) + ", the sigmoid form by " +
                       fixed(max_abs_diff("gelu_sigmoid", "gelu", -6, 6), 3));
  has(text(l2, 2), "GELU(−6) ≈ " + sci2(fn("gelu").eval(-6.0)));
  const gelu::app::CoefficientFit k = gelu::app::fit_coefficient(fn("gelu_sigmoid"), -6, 6);
  has(text(l2, 3), "k ≈ " + fixed(k.value, 3) + " lowers the worst error from " + fixed(k.textbook_error, 3) +
                       " to " + fixed(k.max_error, 3));
  const gelu::Format f32(gelu::FormatId::F32);
  const auto ulp = [&](const char* id) {
    return gelu::analysis::compare(gelu::analysis::spec(fn(id)), gelu::analysis::spec(fn("gelu")), 0, 6,
                                   100001, f32)
        .ulp_stats.max;
  };
  const double tanh_ulp = ulp("gelu_tanh"), sigmoid_ulp = ulp("gelu_sigmoid");
  has(text(l2, 4),
      "up to about " + std::to_string(static_cast<long>(std::lround(tanh_ulp / 100) * 100)) + " ULPs");
  EXPECT_GE(sigmoid_ulp, 1e5);  // "by hundreds of thousands"
  EXPECT_LT(sigmoid_ulp, 1e6);
  // Lesson 3: the keep probability at −1, the band after 3000 masks at x = 1, the mean outputs of N(0, 1).
  const std::string l3 = "3_stochastic_view.json";
  const double keep = fn("gelu").eval(-1.0) / -1.0;
  has(text(l3, 1), "about " + std::to_string(static_cast<int>(std::lround(100 * keep))) +
                       "% of the time (Φ(−1) ≈ " + fixed(keep, 3) + "), so the average is " +
                       fixed(fn("gelu").eval(-1.0), 3));
  const double p1 = fn("gelu").eval(1.0);
  has(text(l3, 2), "about ±" + fixed(1.96 * std::sqrt(p1 * (1 - p1) / 3000), 3) + " around " + fixed(p1, 3));
  has(text(l3, 3), "mean ReLU output is " + fixed(normal_mean("relu"), 3) + ", the mean GELU output only " +
                       fixed(normal_mean("gelu"), 3));
  // Lesson 4: where GELU's slope is zero.
  has(text("4_gelu_vs_relu_training.json", 2), "zero only at x ≈ " + fixed(pr.global_minimum->x, 2));
  // Lesson 5: GELU and Swish differ by at most … near x = −2 (x·(Φ(x) − σ(x)) is even: as much at +2).
  double at = 0;
  const double d = max_abs_diff("gelu", "silu", -10, 10, &at);
  const double left = -std::fabs(at);
  EXPECT_NEAR(std::fabs(fn("gelu").eval(left) - fn("silu").eval(left)), d, 1e-12);
  has(text("5_glu_family.json", 1),
      "at most " + fixed(d, 2) + " (near x = " + fixed(std::round(left), 0) + ")");
}

}  // namespace

// A predict-then-reveal step keeps its answer off the plot until it is answered: lesson 8 step 2 asks from
// which block max GELU's lobe is all 0, and the block view's note ("…; all 0 from block max 4") says it only
// after the reveal — before, the note holds the thresholds in x alone, a narrower box.
TEST(LessonClaims, TheBlockViewKeepsItsQuestionsAnswerUntilTheReveal) {
  const std::string lesson = (fs::path(GELU_SOURCE_DIR) / "assets/lessons/8_gelu_in_four_bits.json").string();
  std::string err;
  const Value open = shot_meta(lesson, 1, "", &err);
  ASSERT_FALSE(open.is_null()) << err;
  const Value shown = shot_meta(lesson, 1, "--pick 3 --next 1", &err);
  ASSERT_FALSE(shown.is_null()) << err;
  ASSERT_FALSE(open.at("lesson").at("question").at("answered").as_bool());
  ASSERT_TRUE(shown.at("lesson").at("question").at("answered").as_bool());
  const auto width = [](const Value& meta) {
    const auto& box = meta.at("ui_marks").at("note:block").as_array();
    return box[2].as_number() - box[0].as_number();
  };
  // "gelu: 0 below x = −1.31" against "gelu: 0 below x = −1.31; all 0 from block max 4": 25 characters more,
  // at least 10 em at 2× text.
  EXPECT_LT(width(open) + 200, width(shown)) << width(open) << " vs " << width(shown);
}

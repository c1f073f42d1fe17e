// Every sentence a shipped lesson step shows is true of what it shows (issue 52, point 6): each step's text,
// as the app fills it in (`gelulab shot --lesson FILE --step N --meta`, the text its lesson bar shows), is
// the step's text with every {key} replaced by what this test computes from gelu::core for the step's own
// state (its entries, formats, compute format, order and x range), never by numbers typed in here. The
// figures a verdict states are also checked against the sweep directly (the inputs in the plotted range, the
// largest ULP error with wrong results at overflow apart, no "inf ULP"), claims' ✓/✗ against the registry
// functions evaluated here, and the ULP plots' y range against the errors they draw. Cost claims measure time
// (as the Benchmarks panel does): only their keys are checked, their steps are not rendered. Without a GL
// context the shots exit non-zero and these tests FAIL (never skip).
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
#include "gelu/json.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"
#include "model/claims.hpp"
#include "model/lessons.hpp"
#include "model/panel_states.hpp"
#include "model/precision_lab.hpp"
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

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

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
  *err = read_text(e);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return Value();
  return gelu::json::parse(read_text(meta));
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

}  // namespace

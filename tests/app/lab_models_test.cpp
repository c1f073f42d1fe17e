// The Precision and Designer panels' models (app/model, no ImGui): PrecisionLab's cells against core's own
// sweeps and verdicts, its cache and its worker (the latest request wins), the summary export; DesignerLab's
// fits against gelu::fit, the worker, candidates as zoo entries, their session form (a round trip evaluates
// bit for bit the same; hostile candidates are refused), the comparison's announcements, the Approximations
// panel's coefficient fit (analysis::fit_minimax), and lesson 7's computed text.
//
// Index of this file:
//   [SECTION] PrecisionLab
//   [SECTION] DesignerLab and candidates
//   [SECTION] The Approximations panel's fit, lesson 7's computed text
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gelu/fit.hpp"
#include "gelu/json.hpp"
#include "gelu/precision.hpp"
#include "model/comparison.hpp"
#include "model/designer_lab.hpp"
#include "model/lessons.hpp"
#include "model/panel_states.hpp"
#include "model/panels.hpp"
#include "model/precision_lab.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gelu::app;
namespace json = gelu::json;
namespace fit = gelu::fit;
using gelu::Format;
using gelu::FormatId;

const gelu::analysis::FunctionSpec& gelu_spec() {
  static const auto s = gelu::analysis::spec(*gelu::find_activation("gelu"));
  return s;
}

template <class Lab, class Snap>
Snap wait_for(Lab& lab) {
  Snap s;
  for (int i = 0; i < 60000 && lab.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(lab.running());
  lab.take(s);
  return s;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// [SECTION] PrecisionLab

TEST(PrecisionLab, CellsAreCoresSweepsVerdictsAndTails) {
  PrecisionConfig c;
  c.entries = {"tanh_form", "erf_naive"};
  c.formats = {"bf16", "e4m3"};
  PrecisionLab lab;
  lab.run_now(c);
  PrecisionSnapshot s;
  ASSERT_TRUE(lab.take(s));
  EXPECT_FALSE(s.running);
  ASSERT_EQ(s.cells.size(), 4u);
  EXPECT_EQ(s.int8.size(), 2u);
  EXPECT_EQ(s.exact_tails.size(), 2u);
  EXPECT_GE(s.zoo.size(), 16u);  // every built-in entry on the yardstick
  for (const auto& cell : s.cells) {
    SCOPED_TRACE(cell->entry + " " + cell->format);
    ASSERT_TRUE(cell->error.empty()) << cell->error;
    const gelu::zoo::Entry e = *gelu::zoo::find(cell->entry);
    gelu::precision::SweepSpec spec;
    spec.storage = *Format::parse(cell->format);
    spec.compute = Format(FormatId::F32);
    const gelu::precision::Sweep ref = gelu::precision::sweep(e, gelu_spec(), spec);
    EXPECT_EQ(cell->verdict, gelu::precision::verdict(ref).text);
    EXPECT_EQ(cell->n, ref.errors.ulp_stats.n);
    EXPECT_EQ(cell->mismatch, ref.errors.ulp_stats.mismatch);
    EXPECT_EQ(cell->max_ulp, ref.errors.ulp_stats.max);
    EXPECT_EQ(cell->ulp, ref.errors.ulp);
    EXPECT_EQ(cell->tails.first_zero, gelu::precision::tails(e, spec.storage, spec.compute).first_zero);
  }
  // The facts docs/precision.md states, as the panel gets them: erf_naive is 0 from −5.54 down in bf16 (f32
  // compute), exact GELU from −13.56.
  const PrecisionCell* naive = s.cell("erf_naive", "bf16");
  ASSERT_NE(naive, nullptr);
  ASSERT_TRUE(naive->tails.first_zero.has_value());
  EXPECT_NEAR(*naive->tails.first_zero, -5.5625, 0.05);
  ASSERT_EQ(s.exact_tails[0].first, "bf16");
  EXPECT_EQ(s.exact_tails[0].second.first_zero, -13.5625);
}

TEST(PrecisionLab, CachedCellsAreSharedAndTheWorkerTakesTheLatestRequest) {
  PrecisionConfig a, b;
  a.entries = {"tanh_form"};
  a.formats = {"f16"};
  b = a;
  b.compute = "f16";
  PrecisionLab lab;
  lab.run_now(a);
  PrecisionSnapshot s1;
  lab.take(s1);
  ASSERT_EQ(s1.cells.size(), 1u);
  lab.run_now(a);
  PrecisionSnapshot s2;
  lab.take(s2);
  EXPECT_EQ(s1.cells[0].get(), s2.cells[0].get());  // from the cache
  // Two requests in a row: the worker drops the first and publishes the second's results.
  lab.start(a);
  lab.start(b);
  const PrecisionSnapshot s = wait_for<PrecisionLab, PrecisionSnapshot>(lab);
  EXPECT_TRUE(s.cfg == b);
  ASSERT_EQ(s.cells.size(), 1u);
  EXPECT_EQ(s.cells[0]->compute, "f16");
  // Computed in f16 the tanh form's x³ overflows from |x| = 40.34 (docs/precision.md).
  ASSERT_TRUE(s.cells[0]->tails.overflow_above.has_value());
  EXPECT_EQ(*s.cells[0]->tails.overflow_above, 40.34375);
  EXPECT_FALSE(s.cells[0]->overflow_x.empty());
}

TEST(PrecisionLab, DerivativesAndEntriesWithoutOne) {
  PrecisionConfig c;
  c.entries = {"tanh_form", "f16_lut", "nosuch_entry"};
  c.formats = {"bf16"};
  c.order = 1;
  PrecisionLab lab;
  lab.run_now(c);
  PrecisionSnapshot s;
  lab.take(s);
  ASSERT_EQ(s.cells.size(), 2u);
  EXPECT_TRUE(s.cells[0]->error.empty());
  // The derivative's sweep, not f's: its own order and a verdict other than f's.
  EXPECT_EQ(s.cells[0]->order, 1);
  PrecisionConfig f = c;
  f.order = 0;
  f.entries = {"tanh_form"};
  PrecisionLab lab_f;
  lab_f.run_now(f);
  PrecisionSnapshot sf;
  lab_f.take(sf);
  ASSERT_EQ(sf.cells.size(), 1u);
  EXPECT_NE(s.cells[0]->verdict, sf.cells[0]->verdict);
  EXPECT_NE(s.cells[0]->max_ulp, sf.cells[0]->max_ulp);
  EXPECT_NE(s.cells[1]->error.find("no derivative"), std::string::npos) << s.cells[1]->error;
  EXPECT_TRUE(s.int8.empty());  // the int8 view is of f
  ASSERT_EQ(s.missing.size(), 1u);
  EXPECT_EQ(s.missing[0], "nosuch_entry");
}

TEST(PrecisionLab, ASixteenBitCellTakesUnder50msOfCpu) {
  // The issue's figure: an exhaustive 16-bit sweep of one entry against the correctly rounded reference in
  // under 50 ms. Thread CPU time, best of three (the machine is shared; wall time is in the bench).
  const gelu::zoo::Entry e = *gelu::zoo::find("tanh_form");
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    gelu::precision::SweepSpec spec;
    spec.storage = Format(FormatId::BF16);
    const double t0 = thread_cpu_ms();
    const gelu::precision::Sweep s = gelu::precision::sweep(e, gelu_spec(), spec);
    best = std::min(best, thread_cpu_ms() - t0);
    ASSERT_EQ(s.errors.x.size(), 65280u);
  }
  EXPECT_LT(best, 50.0);
}

TEST(PrecisionLab, ExportWritesCsvAndMarkdownOrSaysWhyNot) {
  PrecisionConfig c;
  c.entries = {"tanh_form", "erfc_form"};
  c.formats = {"bf16"};
  PrecisionLab lab;
  lab.run_now(c);
  PrecisionSnapshot s;
  lab.take(s);
  const fs::path dir = gelu::test::scratch_dir("gelulab_lab_models");
  const std::string note = export_summary(s, (dir / "summary").string());
  EXPECT_EQ(note.rfind("wrote ", 0), 0u) << note;
  const std::string text = gelu::test::slurp(dir / "summary.csv");
  EXPECT_EQ(text, gelu::precision::summary_csv(summary_rows(s)));
  EXPECT_NE(text.find("tanh_form,gelu,bf16,f32"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(dir / "summary.md"));
  const std::string refused = export_summary(s, (dir / "no_such_dir" / "summary").string());
  EXPECT_EQ(refused.rfind("cannot write", 0), 0u) << refused;
  fs::remove_all(dir);
}

// [SECTION] DesignerLab and candidates

fit::Spec default_spec() {
  return model::default_designer_spec();
}

TEST(DesignerLab, FitsWhatCoreFitsAndTheWorkerTakesTheLatestSpec) {
  DesignerLab lab;
  lab.fit_now(default_spec());
  DesignerSnapshot s;
  ASSERT_TRUE(lab.take(s));
  ASSERT_TRUE(s.candidate) << s.error;
  const fit::Candidate ref = fit::fit(default_spec());
  EXPECT_EQ(s.candidate->coefficients, ref.coefficients);
  EXPECT_EQ(s.candidate->max_error, ref.max_error);
  EXPECT_NEAR(s.candidate->max_error, 0.00134449, 1e-8);  // docs/designer.md
  EXPECT_GT(s.point.cost, 0);
  EXPECT_GT(s.point.max_abs_error, s.candidate->max_error * 0.99);  // the yardstick is on [−8, 8]
  EXPECT_FALSE(s.zoo.empty());
  // A slow request and then a quick one: the quick one's result is what the panel gets.
  fit::Spec slow = default_spec(), quick = default_spec();
  slow.degree = 24;
  quick.degree = 3;
  lab.request(slow);
  lab.request(quick);
  const DesignerSnapshot d = wait_for<DesignerLab, DesignerSnapshot>(lab);
  EXPECT_TRUE(d.spec == quick);
  ASSERT_TRUE(d.candidate);
  EXPECT_EQ(d.candidate->spec.degree, 3);
  // A refused spec: the error, no candidate.
  fit::Spec bad = default_spec();
  bad.weight = fit::Weight::Rel;
  lab.fit_now(bad);
  DesignerSnapshot e;
  lab.take(e);
  EXPECT_FALSE(e.candidate);
  EXPECT_NE(e.error.find("relative error makes no sense"), std::string::npos) << e.error;
}

TEST(DesignerLab, RefitsUpToDegree12StayUnder100msOfCpu) {
  // The live refit: every control change refits on the worker; up to degree 12 a fit is under 100 ms
  // (thread CPU time, fastest of three: the machine is shared).
  for (fit::Form form : {fit::Form::Poly, fit::Form::HalfXPolyAbs, fit::Form::Even})
    for (int d : {4, 8, 12}) {
      fit::Spec s = default_spec();
      s.form = form;
      s.degree = d;
      double best = 1e9;
      for (int i = 0; i < 3; ++i) {
        DesignerLab lab;
        const double t0 = thread_cpu_ms();
        lab.fit_now(s);
        best = std::min(best, thread_cpu_ms() - t0);
      }
      EXPECT_LT(best, 100.0) << fit::name(form) << " " << d;
    }
}

TEST(Candidates, SessionFormRoundTripsBitForBit) {
  std::vector<fit::Spec> specs(4, default_spec());
  specs[1].form = fit::Form::Rational;
  specs[1].degree = 4;
  specs[1].denominator_degree = 4;
  specs[2].form = fit::Form::Piecewise;
  specs[2].degree = 3;
  specs[2].pieces = 6;
  specs[2].breakpoints = fit::Breakpoints::Optimized;
  specs[2].a = -6;
  specs[2].b = 6;
  specs[3].format = FormatId::BF16;
  specs[3].target = fit::Target::Erf;
  specs[3].form = fit::Form::Poly;
  specs[3].degree = 9;
  specs[3].a = -3;
  specs[3].b = 3;
  for (const fit::Spec& spec : specs) {
    SCOPED_TRACE(fit::name(spec.form));
    const fit::Candidate c = fit::fit(spec);
    const json::Value j = json::parse(json::write(candidate_json(c)));
    const fit::Candidate back = read_candidate(j, "candidate");
    EXPECT_TRUE(back.spec == c.spec);
    EXPECT_EQ(back.coefficients, c.coefficients);
    EXPECT_EQ(back.breakpoints, c.breakpoints);
    EXPECT_EQ(back.centers, c.centers);
    EXPECT_EQ(back.max_error, c.max_error);
    EXPECT_EQ(back.reference.size(), c.reference.size());
    for (int i = 0; i <= 4000; ++i) {
      const double x = -10 + 20.0 * i / 4000;
      ASSERT_EQ(back.eval(x), c.eval(x)) << x;
      ASSERT_EQ(back.eval(static_cast<float>(x)), c.eval(static_cast<float>(x))) << x;
    }
    EXPECT_EQ(json::write(candidate_json(back)), json::write(candidate_json(c)));
  }
}

TEST(Candidates, HostileSessionCandidatesAreRefused) {
  const fit::Candidate c = fit::fit(default_spec());
  const json::Value good = candidate_json(c);
  auto with = [&](const std::string& key, json::Value v) {
    json::Value j = good;
    j.as_object()[key] = std::move(v);
    return j;
  };
  const std::vector<std::pair<json::Value, std::string>> bad = {
      {with("coefficients", json::Array{1.0, 2.0}), "coefficients must be an array of 7"},
      {with("coefficients", json::Array{0.1, 0, 0, 0, 0, 0, 0}), "is not a value of f32"},
      {with("coefficients", json::Array{1e308 * 10, 0, 0, 0, 0, 0, 0}), "finite"},
      {with("spec", json::parse(R"({"degree": 31})")), "'degree'"},
      {with("spec", json::parse(R"({"range": [4, -4]})")), "'range'"},
      {with("spec", json::parse(R"({"form": "piecewise"})")), "coefficients must be an array of 28"},
      {with("max_error", -1.0), "max_error"},
      {with("reference", json::Array{json::Array{1.0}}), "reference"},
      {with("certified", json::Array{2.0, 1.0}), "certified"},
      {with("nonsense", 1.0), "unknown key 'nonsense'"},
  };
  for (const auto& [j, needle] : bad) {
    SCOPED_TRACE(needle);
    try {
      read_candidate(j, "candidates[0]");
      ADD_FAILURE() << "accepted";
    } catch (const json::JsonError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'candidates[0]'"), std::string::npos) << e.what();
    }
  }
  // Piecewise: breakpoints must increase from A to B.
  fit::Spec p = default_spec();
  p.form = fit::Form::Piecewise;
  p.degree = 2;
  p.pieces = 3;
  json::Value pj = candidate_json(fit::fit(p));
  auto& bps = pj.as_object()["breakpoints"].as_array();
  std::swap(bps[1], bps[2]);
  EXPECT_THROW(read_candidate(pj, "c"), json::JsonError);
}

TEST(Candidates, AZooEntryOfTheirOwnComputedAsExported) {
  auto c = std::make_shared<const fit::Candidate>(fit::fit(default_spec()));
  const gelu::zoo::Entry e = candidate_entry(c, "fit_test_entry");
  EXPECT_EQ(e.cost, c->cost());
  for (double x : {-4.5, -1.0, 0.0, 0.3, 2.7, 5.0}) {
    EXPECT_EQ(e.eval(x, 0, Format(FormatId::F64)), c->eval(x));
    EXPECT_EQ(e.eval(x, 0, Format(FormatId::F32)), static_cast<double>(c->eval(static_cast<float>(x))));
  }
  // In the comparison: announced, found by the zoo, swept by the precision lab; removed again.
  const std::uint64_t g0 = comparison_generation();
  add_to_comparison(e);
  std::uint64_t now = 0;
  EXPECT_EQ(compared_since(g0, &now), std::vector<std::string>{"fit_test_entry"});
  EXPECT_GT(now, g0);
  EXPECT_TRUE(is_comparable_id("fit_test_entry"));
  PrecisionConfig cfg;
  cfg.entries = {"fit_test_entry"};
  cfg.formats = {"bf16"};
  PrecisionLab lab;
  lab.run_now(cfg);
  PrecisionSnapshot s;
  lab.take(s);
  ASSERT_EQ(s.cells.size(), 1u);
  EXPECT_TRUE(s.cells[0]->error.empty()) << s.cells[0]->error;
  EXPECT_GT(s.cells[0]->mismatch, 0u);
  bool on_plot = false;
  for (const ZooPoint& z : s.zoo) on_plot = on_plot || (z.id == "fit_test_entry" && z.user);
  EXPECT_TRUE(on_plot);
  EXPECT_TRUE(remove_from_comparison("fit_test_entry"));
  EXPECT_FALSE(gelu::zoo::find("fit_test_entry"));
  // A GELU′ candidate is not a GELU approximation.
  fit::Spec prime = default_spec();
  prime.target = fit::Target::GeluPrime;
  prime.form = fit::Form::Poly;
  EXPECT_THROW(candidate_entry(std::make_shared<const fit::Candidate>(fit::fit(prime)), "fit_p"),
               std::invalid_argument);
}

TEST(Candidates, ExportWritesEveryFileWithTheCheckCommand) {
  const fit::Candidate c = fit::fit(default_spec());
  const fs::path dir = gelu::test::scratch_dir("gelulab_export");
  const ExportResult r =
      export_candidate(c, (dir / "cand").string(), "my_gelu",
                       {ExportKind::Cpp, ExportKind::Glsl, ExportKind::Cuda, ExportKind::Vectors});
  ASSERT_EQ(r.written.size(), 4u) << r.message;
  EXPECT_EQ(r.check.rfind("gelulab check --fn gelu --dtype f32", 0), 0u) << r.check;
  for (const char* f : {"cand.hpp", "cand.glsl", "cand.cu", "cand_vectors.txt"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const std::string text = gelu::test::slurp(dir / "cand.hpp");
  EXPECT_NE(text.find("inline float my_gelu(float x)"), std::string::npos);
  EXPECT_NE(text.find(r.check), std::string::npos);
  EXPECT_NE(text.find("cand_vectors.txt"), std::string::npos);
  EXPECT_TRUE(
      export_candidate(c, (dir / "x").string(), "not an identifier", {ExportKind::Cpp}).written.empty());
  const ExportResult refused = export_candidate(c, (dir / "nodir" / "x").string(), "g", {ExportKind::Cpp});
  EXPECT_TRUE(refused.written.empty());
  EXPECT_EQ(refused.message.rfind("cannot write", 0), 0u) << refused.message;
  fs::remove_all(dir);
}

TEST(DesignerState, CandidatesRoundTripThroughTheFieldTable) {
  model::DesignerState s;
  s.spec.degree = 5;
  auto c = std::make_shared<const fit::Candidate>(fit::fit(s.spec));
  s.candidates.push_back({"fit_a", true, c});
  s.candidates.push_back({"fit_b", false, c});
  const json::Value j = json::parse(json::write(model::designer_schema().write(s)));
  model::DesignerState back;
  model::designer_schema().read(j, back);
  ASSERT_EQ(back.candidates.size(), 2u);
  EXPECT_EQ(back.candidates[0].id, "fit_a");
  EXPECT_TRUE(back.candidates[0].compared);
  EXPECT_EQ(back.candidates[1].c->coefficients, c->coefficients);
  EXPECT_EQ(back.spec.degree, 5);
  EXPECT_EQ(json::write(model::designer_schema().write(back)), json::write(j));
  // The same id twice, or not a candidate id, is refused.
  json::Value twice = j;
  twice.as_object()["candidates"].as_array()[1].as_object()["id"] = "fit_a";
  EXPECT_THROW(model::designer_schema().read(twice, back), json::JsonError);
  json::Value bad_id = j;
  bad_id.as_object()["candidates"].as_array()[0].as_object()["id"] = "tanh_form";
  EXPECT_THROW(model::designer_schema().read(bad_id, back), json::JsonError);
}

// [SECTION] The Approximations panel's fit, lesson 7's computed text

TEST(CoefficientFit, IsCoresMinimaxFitOfTheZoo) {
  // On [−8, 8] with 2001 points the fitted k of x·σ(kx) is the zoo's own fitted constant (the same fitter).
  const CoefficientFit f = fit_coefficient(*gelu::find_activation("gelu_sigmoid"), -8, 8);
  EXPECT_NEAR(f.value, gelu::zoo::fitted_constants().sigmoid_k, 1e-4);
  EXPECT_LT(f.max_error, f.textbook_error);
  const CoefficientFit t = fit_coefficient(*gelu::find_activation("gelu_tanh"), -6, 6);
  EXPECT_NEAR(t.value, gelu::zoo::fitted_constants().tanh_c, 2e-4);
  EXPECT_LT(t.max_error, t.textbook_error);
}

TEST(Lesson7, ChecksAndQuotesOnlyTextThePanelComputes) {
  const Lesson l = load_lesson(std::string(GELU_SOURCE_DIR) + "/assets/lessons/7_gelu_in_low_precision.json");
  EXPECT_EQ(l.title, "GELU in low precision");
  int quoted = 0;
  for (const LessonStep& s : l.steps) {
    EXPECT_EQ(s.panel, "precision");
    quoted += static_cast<int>(computed_text_keys(s.text).size());
  }
  EXPECT_GE(quoted, 6);
  EXPECT_EQ(computed_text_keys("a {verdict:tanh_form} b {not a key} {zero:erf_naive:bf16}"),
            (std::vector<std::string>{"verdict:tanh_form", "zero:erf_naive:bf16"}));
  EXPECT_EQ(
      fill_computed_text("x {verdict:a} y {b}",
                         [](std::string_view k) { return k == "b" ? std::string("B") : std::string(); }),
      "x … y B");
  // A key the step's panel does not compute, or for an entry the step does not sweep, fails the check.
  const auto step = [](const std::string& panel, const std::string& text) {
    return R"({"title": "t", "steps": [{"title": "s", "text": ")" + text + R"(", "panel": ")" + panel +
           R"(", "state": {"entries": ["tanh_form"]}}]})";
  };
  EXPECT_NO_THROW(check_lesson(step("precision", "{verdict:tanh_form:bf16}"), "l.json"));
  EXPECT_THROW(check_lesson(step("precision", "{verdict:erf_naive}"), "l.json"), LessonError);
  EXPECT_THROW(check_lesson(step("precision", "{verdict:tanh_form:e5m2}"), "l.json"), LessonError);
  EXPECT_THROW(check_lesson(step("precision", "{median:tanh_form}"), "l.json"), LessonError);
  try {
    check_lesson(R"({"title": "t", "steps": [{"title": "s", "text": "{verdict:x}", "panel": "curves"}]})",
                 "l.json");
    ADD_FAILURE();
  } catch (const LessonError& e) {
    EXPECT_NE(std::string(e.what()).find("steps[0].text: {verdict:x}: the Curves panel computes no text"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace

// The Precision panel's block view (issue 56): GELU's lobe in one MXFP4 block, computed against the block
// format's own rules (gelu/block_format.hpp), and the distribution view's shares.
TEST(BlockView, Mxfp4LobeFlushesFromBlockMaxFour) {
  using gelu::app::block_view;
  const gelu::app::BlockView v3 = block_view("mxfp4", 3);
  ASSERT_EQ(v3.curves.size(), 2u);
  const gelu::app::BlockCurve& g = v3.curves[0];
  ASSERT_EQ(g.fn, "gelu");
  // x = −0.75 is sample 650 of 801 on [−4, 0]: GELU(−0.75) = −0.170 is stored as −0.25 (scale 0.5).
  EXPECT_DOUBLE_EQ(g.x[650], -0.75);
  EXPECT_NEAR(g.exact[650], -0.1700, 1e-4);
  EXPECT_EQ(g.stored[650], -0.25);
  EXPECT_EQ(v3.scale, 0.5);
  EXPECT_GT(g.nonzero, 0u);
  // Every sample below flush_x is stored as 0, and the lobe's first surviving sample lies just above it.
  for (std::size_t i = 0; i < g.x.size() && g.x[i] < g.flush_x; ++i) EXPECT_EQ(g.stored[i], 0) << g.x[i];
  EXPECT_GT(g.flush_x, -4);
  EXPECT_LT(g.flush_x, g.lobe_min_x);
  const std::size_t above = static_cast<std::size_t>(std::ceil((g.flush_x + 4) / 4 * 800 + 1e-9));
  EXPECT_NE(g.stored[above], 0);
  EXPECT_EQ(g.flush_block_max, 4);
  EXPECT_EQ(v3.curves[1].fn, "silu");
  EXPECT_EQ(v3.curves[1].flush_block_max, 8);
  // The lattice lines are the block's: multiples of the scale's e2m1 values (0, 0.25, 0.5, …).
  for (const double q : v3.lattice) EXPECT_EQ(std::fmod(q / 0.25, 1.0), 0.0) << q;

  const gelu::app::BlockView v4 = block_view("mxfp4", 4);
  EXPECT_EQ(v4.curves[0].nonzero, 0u);  // GELU becomes ReLU
  EXPECT_EQ(v4.curves[0].flush_x, 0);
  EXPECT_GT(v4.curves[1].nonzero, 0u);  // SiLU's deeper lobe survives
  // Dragging GELU's threshold to x sets the smallest block max that stores GELU(x) as 0: at x = −1 (GELU
  // −0.159) that is the MXFP4 block max 4 (below it the scale is 0.5 and −0.159 rounds to −0.25).
  EXPECT_EQ(gelu::app::block_max_flushing_at("mxfp4", -1), 4);
  EXPECT_GE(block_view("mxfp4", gelu::app::block_max_flushing_at("mxfp4", -1.2)).curves[0].flush_x, -1.2);
  EXPECT_TRUE(std::isnan(gelu::app::block_max_flushing_at("mxfp4", 0.5)));
  EXPECT_THROW(block_view("mxfp5", 3), std::invalid_argument);
  EXPECT_THROW(block_view("mxfp4", 0), std::invalid_argument);
}

TEST(BlockView, SurvivalSharesPerFormat) {
  const gelu::app::SurvivalView v = gelu::app::survival_view(256, 3);
  ASSERT_EQ(v.rows.size(), gelu::app::precision_block_formats().size());
  double mxfp4 = -1, e4m3 = -1;
  for (const gelu::app::SurvivalRow& r : v.rows) {
    EXPECT_GT(r.negative_gelu, 256u * 16 * 2 / 5);  // about half of the inputs are negative
    EXPECT_GE(r.gelu, 0);
    EXPECT_LE(r.silu, 1);
    if (r.format == "mxfp4") mxfp4 = r.gelu;
    if (r.format == "mxfp8_e4m3") e4m3 = r.gelu;
  }
  // An 8-bit element keeps far more of the lobe than a 4-bit one.
  EXPECT_GT(e4m3, 0.9);
  EXPECT_LT(mxfp4, e4m3 - 0.2);
}

// Lessons control the view and check claims live (issue 13, points 3, 5 and 6), without ImGui: the claims and
// quantities computed by the core (model/claims.hpp), compared with the core computed here another way; and
// lesson format version 2's "view" (plots, series, legends, controls, annotations, reveal, question) parsed
// and checked, each mistake named by file and field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/json.hpp"
#include "model/claims.hpp"
#include "model/lessons.hpp"

namespace {

using namespace gelu::app;
namespace m = gelu::app::model;

bool holds(const std::string& sentence) {
  return sentence.rfind("✓ holds", 0) == 0;
}
bool fails(const std::string& sentence) {
  return sentence.rfind("✗ does not hold", 0) == 0;
}

// [SECTION] Claims

TEST(Claims, RoundsToReadsTheDigitsTheClaimIsWrittenWith) {
  EXPECT_TRUE(m::rounds_to(-0.008415, "-0.0084"));
  EXPECT_FALSE(m::rounds_to(-0.008415, "-0.0085"));
  EXPECT_TRUE(m::rounds_to(1.41421, "1.4"));
  EXPECT_FALSE(m::rounds_to(1.46, "1.4"));
  EXPECT_TRUE(m::rounds_to(2.6, "3"));
  EXPECT_FALSE(m::rounds_to(3.6, "3"));
  EXPECT_FALSE(m::rounds_to(NAN, "3"));
  EXPECT_FALSE(m::rounds_to(1.0, "1e0"));  // plain decimals only
}

TEST(Claims, AValueClaimIsCheckedAgainstTheRegistry) {
  // GELU(−0.2) = −0.2·Φ(−0.2) = −0.0841: the tutorial figure −0.0084 is ten times too small.
  const double v = gelu::find_activation("gelu")->eval(-0.2);
  ASSERT_NEAR(v, -0.2 * 0.5 * std::erfc(0.2 / std::sqrt(2.0)), 1e-15);
  const std::string no = m::claim_text("claim:value:gelu:-0.2:-0.0084");
  EXPECT_TRUE(fails(no)) << no;
  EXPECT_NE(no.find("GELU(−0.2) = −0.08415, not ≈ −0.0084"), std::string::npos) << no;
  const std::string yes = m::claim_text("claim:value:gelu:-0.2:-0.0841");
  EXPECT_TRUE(holds(yes)) << yes;
  EXPECT_NE(yes.find("≈ −0.0841"), std::string::npos) << yes;
}

TEST(Claims, GeluRisesOnlyRightOfItsMinimumNotFromMinusOne) {
  // The minimum of GELU from the core's analysis: f′ changes sign there and nowhere to its right.
  const gelu::analysis::Properties p =
      gelu::analysis::properties(gelu::analysis::spec(*gelu::find_activation("gelu")));
  ASSERT_TRUE(p.global_minimum);
  const double r = p.global_minimum->x;
  EXPECT_NEAR(r, -0.7518, 1e-4);
  const std::string no = m::claim_text("claim:rising_above:gelu:-1");
  EXPECT_TRUE(fails(no)) << no;
  EXPECT_NE(no.find("rises only for x > −0.7518"), std::string::npos) << no;
  EXPECT_TRUE(holds(m::claim_text("claim:rising_above:gelu:-0.7")));
  // A function flat at 0 left of 0 does not rise there, though its slope never changes sign.
  EXPECT_TRUE(fails(m::claim_text("claim:rising_above:relu:-1")));
  EXPECT_TRUE(holds(m::claim_text("claim:rising_above:relu:0")));
  EXPECT_NEAR(*m::quantity("rising_from:gelu"), r, 1e-12);
}

TEST(Claims, GelusRangeIsBoundedBelowByItsMinimum) {
  const std::string no = m::claim_text("claim:unbounded:gelu");
  EXPECT_TRUE(fails(no)) << no;
  EXPECT_NE(no.find("GELU ≥ −0.17"), std::string::npos) << no;
  EXPECT_NE(no.find("[−0.17"), std::string::npos) << no;
  EXPECT_NEAR(*m::quantity("min:gelu"), -0.16997, 1e-5);
  EXPECT_NEAR(*m::quantity("argmin:gelu"), -0.75179, 1e-5);
  EXPECT_TRUE(holds(m::claim_text("claim:unbounded:leaky_relu")));
}

TEST(Claims, GelusSlopePeaksAtTheSquareRootOfTwo) {
  // GELU″(x) = φ(x)·(2 − x²): zero at ±√2, and GELU′ is largest at +√2.
  EXPECT_NEAR(*m::quantity("slope_peak:gelu"), std::sqrt(2.0), 1e-9);
  EXPECT_TRUE(holds(m::claim_text("claim:slope_peak:gelu:1.4")));
  EXPECT_TRUE(fails(m::claim_text("claim:slope_peak:gelu:1.5")));
  EXPECT_TRUE(fails(m::claim_text("claim:slope_peak:gelu:2")));  // 1.414 is "near 1", not "near 2"
}

TEST(Claims, TheTanhFormIsWithinAThousandthOfExactButSwishIsNot) {
  // An independent look: the largest difference on a grid of 0.01 is within 1e-6 of the claim's maximum.
  const auto* g = gelu::find_activation("gelu");
  const auto* t = gelu::find_activation("gelu_tanh");
  double grid = 0;
  for (int i = -1000; i <= 1000; ++i) grid = std::max(grid, std::abs(g->eval(i * 0.01) - t->eval(i * 0.01)));
  const double d = *m::quantity("maxdiff:gelu_tanh:gelu");
  EXPECT_GE(d, grid);
  EXPECT_LT(d - grid, 1e-6);
  EXPECT_LT(d, 0.001);
  EXPECT_TRUE(holds(m::claim_text("claim:within:gelu_tanh:gelu:0.001")));
  EXPECT_TRUE(fails(m::claim_text("claim:within:gelu_tanh:gelu:0.0001")));
  // Lesson 5 says GELU and Swish (β = 1) differ by at most about 0.19, near x = −2.
  EXPECT_TRUE(m::rounds_to(*m::quantity("maxdiff:silu:gelu"), "0.19"));
  const std::string s = m::claim_text("claim:within:silu:gelu:0.2");
  EXPECT_TRUE(holds(s)) << s;
  EXPECT_NE(s.find("largest at x = −1.96"), std::string::npos) << s;  // "near x = −2"
}

// Lesson 2's numbers are the core's: the largest gaps of the two stand-ins and the far-left values it quotes.
TEST(Claims, LessonTwoQuotesWhatTheCoreComputes) {
  const double tanh_gap = *m::quantity("maxdiff:gelu_tanh:gelu");
  const double sigmoid_gap = *m::quantity("maxdiff:gelu_sigmoid:gelu");
  EXPECT_TRUE(m::rounds_to(tanh_gap * 1e4, "4.7")) << tanh_gap;    // "about 4.7·10⁻⁴"
  EXPECT_TRUE(m::rounds_to(sigmoid_gap, "0.020")) << sigmoid_gap;  // "up to 0.020"
  EXPECT_NEAR(sigmoid_gap / tanh_gap, 40, 5);                      // "about 40 times worse" (43)
  const std::string s = m::claim_text("claim:within:gelu_sigmoid:gelu:0.03");
  EXPECT_TRUE(s.find("largest at x = 2.27") != std::string::npos ||
              s.find("largest at x = −2.27") != std::string::npos)
      << s;                                                                // "near x = ±2.27"
  EXPECT_TRUE(m::rounds_to(*m::quantity("value:gelu:-6") * 1e9, "-5.9"));  // GELU(−6) ≈ −5.9·10⁻⁹
  EXPECT_TRUE(m::rounds_to(*m::quantity("value:gelu_tanh:-6") * 1e11, "-8"));      // about −8·10⁻¹¹
  EXPECT_TRUE(m::rounds_to(*m::quantity("value:gelu_sigmoid:-6") * 1e4, "-2.2"));  // about −2.2·10⁻⁴
}

TEST(Claims, CostIsMeasuredNowAndTheVerdictFollowsTheMeasurement) {
  const double vec = *m::quantity("cost:gelu:relu", true);
  const double scalar = *m::quantity("cost_scalar:gelu:relu", true);
  EXPECT_GT(vec, 1.0);  // exact GELU does more work than max(x, 0)
  EXPECT_GT(scalar, 1.0);
  const std::string s = m::claim_text("claim:cost:gelu:relu:3", true);
  EXPECT_NE(s.find("vectorized"), std::string::npos) << s;
  EXPECT_NE(s.find("scalar"), std::string::npos) << s;
  const bool v3 = m::rounds_to(vec, "3"), s3 = m::rounds_to(scalar, "3");
  EXPECT_EQ(holds(s), v3 && s3) << s;
  EXPECT_EQ(fails(s), !v3 && !s3) << s;
  if (v3 != s3) {
    EXPECT_NE(s.find(v3 ? "✓ " : "✗ "), std::string::npos) << s;
  }
  // Once measured, the same answer at once (one measurement per pair and process).
  EXPECT_EQ(m::claim_text("claim:cost:gelu:relu:3"), s);
}

TEST(Claims, AKeyTheCoreCannotComputeIsNamedWithWhy) {
  EXPECT_EQ(m::claim_problem("claim:value:gelu:-0.2:-0.0084"), "");
  EXPECT_NE(m::claim_problem("claim:valeu:gelu:1:1").find("unknown claim 'valeu'"), std::string::npos);
  EXPECT_NE(m::claim_problem("claim:value:gleu:1:1").find("unknown function 'gleu'"), std::string::npos);
  EXPECT_NE(m::claim_problem("claim:value:gelu:1").find("takes 3 parts"), std::string::npos);
  EXPECT_NE(m::claim_problem("claim:value:gelu:x:1").find("not a plain decimal"), std::string::npos);
  EXPECT_NE(m::quantity_problem("slope_peak").find("takes 1 part"), std::string::npos);
  EXPECT_THROW(m::claim_text("claim:nope"), std::invalid_argument);
  EXPECT_THROW(m::quantity("nope:gelu"), std::invalid_argument);
}

// [SECTION] Lesson format version 2: a step's view

std::string lesson_with(const std::string& panel, const std::string& view, int version = 2) {
  return R"({"title": "T", "version": )" + std::to_string(version) +
         R"(, "steps": [{"title": "S", "text": "Words.",
           "panel": ")" +
         panel + R"(", "state": {}, "view": )" + view + "}]}";
}

std::string error_of(const std::string& text) {
  try {
    check_lesson(text, "v.json");
  } catch (const LessonError& e) {
    return e.what();
  }
  return "";
}

TEST(LessonView, EveryPartOfAViewIsRead) {
  const Lesson l = check_lesson(lesson_with("dropout", R"({
      "plots": ["keep", "convergence"], "series": ["keep"], "legends": false, "controls": ["mask_grid"],
      "annotations": [{"plot": "keep", "arrow": [-1, 0.16], "text": "kept 16%"},
                      {"plot": "keep", "band": [-3, -1], "text": "mostly dropped"},
                      {"plot": "convergence", "marker": [100, 0.84], "text": "GELU at 1"}],
      "reveal": ["keep", "drop"],
      "question": {"prompt": "Where is GELU lowest?", "answer": "argmin:gelu",
                   "choices": [{"text": "−0.75", "value": -0.75}, {"text": "0", "value": 0}]}})"),
                                "v.json");
  const StepView& v = l.steps.at(0).view;
  EXPECT_EQ(v.plots, (std::vector<std::string>{"keep", "convergence"}));
  EXPECT_EQ(v.series, (std::vector<std::string>{"keep"}));
  EXPECT_FALSE(v.legends);
  EXPECT_EQ(v.controls, (std::vector<std::string>{"mask_grid"}));
  ASSERT_EQ(v.annotations.size(), 3u);
  EXPECT_EQ(v.annotations[0].kind, Annotation::Kind::Arrow);
  EXPECT_EQ(v.annotations[1].kind, Annotation::Kind::Band);
  EXPECT_EQ(v.annotations[1].x1, -1);
  EXPECT_EQ(v.annotations[2].kind, Annotation::Kind::Marker);
  EXPECT_EQ(v.reveal.size(), 2u);
  ASSERT_TRUE(v.question);
  EXPECT_EQ(v.question->choices.size(), 2u);
  EXPECT_EQ(v.question->answer, "argmin:gelu");
  EXPECT_FALSE(v.empty());
}

TEST(LessonView, MistakesAreNamedByFieldAndAVersionOneFileStillLoads) {
  EXPECT_NE(
      error_of(lesson_with("curves", R"({"legends": false})", 1)).find("steps[0].view: needs \"version\": 2"),
      std::string::npos);
  EXPECT_NE(error_of(lesson_with("dropout", R"({"plots": ["keep", "histogram"]})"))
                .find("steps[0].view.plots[1]: the Dropout view panel has no plot 'histogram'"),
            std::string::npos)
      << error_of(lesson_with("dropout", R"({"plots": ["keep", "histogram"]})"));
  EXPECT_NE(error_of(lesson_with("curves", R"({"controls": ["mask_grid"]})")).find("has no control"),
            std::string::npos);
  EXPECT_NE(
      error_of(lesson_with("curves", R"({"annotations": [{"plot": "plot0", "arrow": [0, 0], "band": [0, 1],
            "text": "t"}]})"))
          .find("exactly one of"),
      std::string::npos);
  EXPECT_NE(error_of(lesson_with("curves",
                                 R"({"annotations": [{"plot": "plot9", "marker": [0, 0], "text": "t"}]})"))
                .find("steps[0].view.annotations[0]: the Curves panel has no plot 'plot9'"),
            std::string::npos);
  EXPECT_NE(error_of(lesson_with("curves", R"({"question": {"prompt": "p", "answer": "slope_peak:gleu",
            "choices": [{"text": "a", "value": 1}, {"text": "b", "value": 2}]}})"))
                .find("steps[0].view.question.answer: unknown function 'gleu'"),
            std::string::npos);
  EXPECT_NE(error_of(lesson_with("curves", R"({"question": {"prompt": "p", "answer": "slope_peak:gelu",
            "choices": [{"text": "a", "value": 1}]}})"))
                .find("2 to 4 choices"),
            std::string::npos);
  EXPECT_NE(error_of(lesson_with("curves",
                                 R"({"annotations": [{"plot": "plot0", "marker": [0, 0], "text": "激"}]})"))
                .find("steps[0].view.annotations[0].text: U+6FC0"),
            std::string::npos);
  EXPECT_NE(error_of(lesson_with("curves", R"J({"reveal": ["GELU (exact)"]})J")).find("at least 2"),
            std::string::npos);
  EXPECT_NE(error_of(lesson_with("curves", R"({"zoom": 2})")).find("steps[0].view.zoom: unknown key"),
            std::string::npos);
  // A claim in a step's text is checked like the panel's own keys.
  const std::string claim =
      R"({"title": "T", "steps": [{"title": "S", "text": "It is {claim:slope_peak:gleu:1.4}.",
                                "panel": "curves"}]})";
  EXPECT_NE(error_of(claim).find("steps[0].text: {claim:slope_peak:gleu:1.4}: unknown function"),
            std::string::npos)
      << error_of(claim);
  // Version 1 (no "view") is still read, and its steps show everything.
  const Lesson old = check_lesson(R"({"title": "Old", "version": 1, "steps": [{"title": "S", "text": "Words.",
                                      "panel": "curves", "state": {"functions": ["gelu"]}}]})",
                                  "old.json");
  EXPECT_TRUE(old.steps.at(0).view.empty());
}

TEST(LessonView, TheShippedClaimsLessonChecksAndItsVerdictsAreComputed) {
  const Lesson l =
      load_lesson(std::string(GELU_SOURCE_DIR) + "/assets/lessons/6_checking_common_claims.json");
  EXPECT_EQ(l.title, "Checking common claims");
  int claims = 0, questions = 0;
  for (const LessonStep& s : l.steps) {
    for (const std::string& key : computed_text_keys(s.text)) {
      ASSERT_TRUE(m::is_claim_key(key)) << key;
      const std::string t = m::claim_text(key, true);
      EXPECT_TRUE(holds(t) || fails(t) || t.rfind("holds in part", 0) == 0) << key << ": " << t;
      ++claims;
    }
    if (s.view.question) {
      ++questions;
      EXPECT_TRUE(m::quantity(s.view.question->answer, true).has_value()) << s.view.question->answer;
    }
  }
  EXPECT_GE(claims, 8);
  EXPECT_GE(questions, 2);
}

}  // namespace

TEST(Claims, GelusLobeVanishesInMxfp4FromBlockMaxFour) {
  // By hand from OCP MX v1.0: the scale is 2^(⌊log2 A⌋ − emax), and a value is stored as 0 below half the
  // smallest subnormal times the scale. e2m1: emax 2, smallest 0.5, so −0.170 (GELU's minimum) flushes at
  // scale 1 (A = 4), −0.278 (SiLU's) at scale 2 (A = 8). e2m3: emax 2, smallest 0.125: GELU flushes at scale
  // 4 (A = 16).
  EXPECT_EQ(*m::quantity("flush_max:gelu:mxfp4"), 4);
  EXPECT_EQ(*m::quantity("flush_max:silu:mxfp4"), 8);
  EXPECT_EQ(*m::quantity("flush_max:gelu:mxfp6_e2m3"), 16);
  EXPECT_NE(m::quantity_problem("flush_max:gelu:mxfp5").find("not a block format"), std::string::npos);
  EXPECT_NE(m::quantity_problem("flush_max:gelu").find("takes 2 parts"), std::string::npos);
  EXPECT_FALSE(m::quantity("flush_max:relu:mxfp4"));  // no negative lobe: nothing to flush
}

// A predict-then-reveal step must not show its answer before the reveal: where the question asks for the
// block max from which a lobe is stored as 0, the step starts below it (the lobe still stored, for the
// student to drag away), in every shipped lesson.
TEST(LessonView, AFlushQuestionStartsBelowItsAnswer) {
  int asked = 0;
  for (const auto& file :
       std::filesystem::directory_iterator(std::string(GELU_SOURCE_DIR) + "/assets/lessons")) {
    if (file.path().extension() != ".json") continue;
    const Lesson l = load_lesson(file.path().string());
    for (std::size_t i = 0; i < l.steps.size(); ++i) {
      const auto& q = l.steps[i].view.question;
      if (!q || q->answer.rfind("flush_max:", 0) != 0) continue;
      ++asked;
      const std::optional<double> answer = m::quantity(q->answer);
      ASSERT_TRUE(answer) << q->answer;
      const gelu::json::Value* start = l.steps[i].state.find("block_max");
      ASSERT_NE(start, nullptr) << file.path() << " steps[" << i << "] does not set block_max";
      EXPECT_LT(start->as_number(), *answer)
          << file.path() << " steps[" << i << "] starts at block max " << start->as_number()
          << ", the answer it asks for (" << q->answer << " = " << *answer << ")";
    }
  }
  EXPECT_GE(asked, 1);
}

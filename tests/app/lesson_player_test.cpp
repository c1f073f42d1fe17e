// The lesson player without a window (model/lesson_player.hpp): steps, the series revealed one at a time,
// the predict-then-reveal question (pick, answer, marks) and the step's text as the lesson bar shows it.
#include "model/lesson_player.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <string_view>

#include "model/claims.hpp"
#include "model/lessons.hpp"

namespace {

using namespace gelu::app;
namespace m = gelu::app::model;

// Three steps: a plain one with a computed {key}, one revealing three series, one with a question whose
// answer is where GELU′ peaks (a quantity the core computes; its choices 0.7, 1.4 and 2.8).
Lesson three_steps() {
  Lesson l;
  l.path = "test.json";
  l.title = "Test";
  LessonStep plain;
  plain.title = "plain";
  plain.text = "value {answer_key} and {claim:value:gelu:-0.2:-0.0084}";
  plain.panel = "curves";
  LessonStep reveal = plain;
  reveal.title = "reveal";
  reveal.text = "three curves";
  reveal.view.reveal = {"gelu", "gelu_tanh", "relu"};
  LessonStep ask = plain;
  ask.title = "ask";
  ask.text = "guess: {claim:value:gelu:-0.2:-0.0084}";
  Question q;
  q.prompt = "Where is GELU′ largest?";
  q.choices = {{"0.7", 0.7}, {"1.4", 1.4}, {"2.8", 2.8}};
  q.answer = "slope_peak:gelu";
  ask.view.question = q;
  l.steps = {plain, reveal, ask};
  return l;
}

std::string no_panel_text(std::string_view) {
  return {};
}

TEST(LessonPlayer, OpensAtAClampedStepWhosePanelStateIsPendingOnce) {
  m::LessonPlayer p;
  EXPECT_EQ(p.lesson(), nullptr);
  EXPECT_EQ(p.current(), nullptr);
  EXPECT_EQ(p.take_pending(), nullptr);
  EXPECT_EQ(p.text(no_panel_text), "");
  p.open(three_steps(), 7);
  ASSERT_NE(p.lesson(), nullptr);
  EXPECT_EQ(p.steps(), 3);
  EXPECT_EQ(p.step(), 2);
  EXPECT_TRUE(p.pending());
  const LessonStep* s = p.take_pending();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->title, "ask");
  EXPECT_FALSE(p.pending());
  EXPECT_EQ(p.take_pending(), nullptr);
  p.open(three_steps(), -3, false);
  EXPECT_EQ(p.step(), 0);
  EXPECT_FALSE(p.pending());
  p.close();
  EXPECT_EQ(p.lesson(), nullptr);
  EXPECT_FALSE(p.pending());
  p.next();  // nothing open: nothing happens
  p.pick(0);
  p.reveal_answer();
  EXPECT_EQ(p.lesson(), nullptr);
}

TEST(LessonPlayer, NextRevealsTheSeriesOneAtATimeThenTheAnswerThenGoesOn) {
  m::LessonPlayer p;
  p.open(three_steps(), 0);
  EXPECT_EQ(p.revealed(), 0);  // no "reveal": nothing counted
  EXPECT_FALSE(p.more_on_step());
  p.take_pending();
  p.next();
  EXPECT_EQ(p.step(), 1);
  EXPECT_TRUE(p.pending());
  EXPECT_EQ(p.revealed(), 1);  // a step with a "reveal" starts with its first series
  EXPECT_TRUE(p.more_on_step());
  p.next();
  EXPECT_EQ(p.revealed(), 2);
  p.next();
  EXPECT_EQ(p.revealed(), 3);
  EXPECT_FALSE(p.more_on_step());
  EXPECT_EQ(p.step(), 1);
  p.next();
  EXPECT_EQ(p.step(), 2);
  EXPECT_TRUE(p.more_on_step());  // the question's answer is still to show
  EXPECT_FALSE(p.answered());
  p.next();
  EXPECT_EQ(p.step(), 2);
  EXPECT_TRUE(p.answered());
  EXPECT_FALSE(p.more_on_step());
  p.next();  // the last step: it stays
  EXPECT_EQ(p.step(), 2);
  EXPECT_TRUE(p.answered());
}

TEST(LessonPlayer, AStepStartsAfreshWhenItChangesAndOnlyThen) {
  m::LessonPlayer p;
  p.open(three_steps(), 1);
  p.next();
  EXPECT_EQ(p.revealed(), 2);
  p.take_pending();
  p.go_to(1);  // the same step: kept as it is
  EXPECT_EQ(p.revealed(), 2);
  EXPECT_FALSE(p.pending());
  p.go_to(99);
  EXPECT_EQ(p.step(), 2);
  p.pick(1);
  EXPECT_EQ(p.picked(), 1);
  p.go_to(1);
  EXPECT_EQ(p.revealed(), 1);
  EXPECT_EQ(p.picked(), -1);
  EXPECT_FALSE(p.answered());
  EXPECT_TRUE(p.pending());
}

TEST(LessonPlayer, PicksAChoiceOnlyOfTheQuestionAndOnlyBeforeTheAnswer) {
  m::LessonPlayer p;
  p.open(three_steps(), 0);
  p.pick(0);  // no question on this step
  EXPECT_EQ(p.picked(), -1);
  p.reveal_answer();
  EXPECT_FALSE(p.answered());
  p.go_to(2);
  p.pick(3);  // three choices: 0, 1, 2
  p.pick(-1);
  EXPECT_EQ(p.picked(), -1);
  p.pick(2);
  p.pick(0);
  EXPECT_EQ(p.picked(), 0);
  p.reveal_answer();
  EXPECT_TRUE(p.answered());
  p.pick(1);
  EXPECT_EQ(p.picked(), 0);
}

TEST(LessonPlayer, TheTextFillsKeysCountsSeriesAndMarksTheComputedAnswer) {
  m::LessonPlayer p;
  p.open(three_steps(), 0);
  std::string asked;
  const std::string plain = p.text([&](std::string_view key) {
    asked = key;
    return std::string("42");
  });
  EXPECT_EQ(asked, "answer_key");  // claims are not the panel's business
  EXPECT_NE(plain.find("value 42 and "), std::string::npos) << plain;
  EXPECT_NE(plain.find(m::claim_text("claim:value:gelu:-0.2:-0.0084")), std::string::npos) << plain;

  p.go_to(1);
  EXPECT_NE(p.text(no_panel_text).find("(→ next curve: 1 of 3 shown)"), std::string::npos);
  p.next();
  p.next();
  EXPECT_EQ(p.text(no_panel_text).find("next curve"), std::string::npos);

  p.go_to(2);
  const std::string before = p.text(no_panel_text);
  EXPECT_NE(before.find("(the verdict comes with the answer)"), std::string::npos) << before;
  EXPECT_NE(before.find("\nPredict: Where is GELU′ largest?\n"), std::string::npos) << before;
  EXPECT_NE(before.find("(1) 0.7  ·  (2) 1.4  ·  (3) 2.8  (keys 1–3, Enter)"), std::string::npos) << before;
  p.pick(2);
  EXPECT_NE(p.text(no_panel_text).find("▶ (3) 2.8"), std::string::npos);

  // The answer is the choice nearest to the quantity the core computes.
  const std::optional<double> slope = m::quantity("slope_peak:gelu", true);
  ASSERT_TRUE(slope);
  int nearest = 0;
  const double values[3] = {0.7, 1.4, 2.8};
  for (int i = 1; i < 3; ++i)
    if (std::abs(values[i] - *slope) < std::abs(values[nearest] - *slope)) nearest = i;
  ASSERT_NE(nearest, 2);  // so that the pick above is wrong
  p.reveal_answer();
  const std::string after = p.text(no_panel_text);
  EXPECT_EQ(after.find("(the verdict comes with the answer)"), std::string::npos) << after;
  EXPECT_NE(after.find("✗ (3) 2.8"), std::string::npos) << after;
  EXPECT_NE(after.find("✓ (" + std::to_string(nearest + 1) + ") "), std::string::npos) << after;
  EXPECT_NE(after.find("\nAnswer: " + std::to_string(nearest + 1) + ", " +
                       m::quantity_text("slope_peak:gelu", *slope) + " (computed now by GELU Lab's core)"),
            std::string::npos)
      << after;
}

}  // namespace

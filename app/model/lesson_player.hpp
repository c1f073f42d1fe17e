// The lesson player (no ImGui): which lesson is open, its step, and what the class has done on it — the
// series revealed so far, the choice picked, whether the answer is shown — with what the keys do (→ next,
// 1–4 pick, Enter reveal) and the step's text as the lesson bar shows it. The shell (gui/shell/app.cpp) draws
// it and applies a pending step's panel state; tests drive it headless (tests/app/lesson_player_test.cpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/lessons.hpp"

namespace gelu::app::model {

class LessonPlayer {
 public:
  /// Starts `lesson` at `step` (0-based, clamped); with apply_state the step is pending (take_pending()).
  void open(Lesson lesson, int step, bool apply_state = true);
  void close();
  const Lesson* lesson() const { return lesson_ ? &*lesson_ : nullptr; }
  /// The current step; nullptr without a lesson.
  const LessonStep* current() const;
  int step() const { return step_; }  // 0-based
  int steps() const;                  // 0 without a lesson
  /// Goes to `step` (clamped): a new step starts with its first series revealed, nothing picked and pending.
  void go_to(int step);
  /// →: reveals the step's next series, or its question's answer, before it goes to the next step.
  void next();
  /// Whether next() stays on this step (a series or the answer still to show).
  bool more_on_step() const;
  /// A choice of the step's question (0-based), until the answer is shown; others are ignored.
  void pick(int choice);
  /// Shows the answer of the step's question (if it has one).
  void reveal_answer();
  int revealed() const { return revealed_; }  // series of the step's "reveal" shown so far
  int picked() const { return picked_; }      // -1: none
  bool answered() const { return answered_; }

  /// Whether the step's panel state still has to be applied.
  bool pending() const { return lesson_ && pending_; }
  /// The step to apply now, once; nullptr when none is pending.
  const LessonStep* take_pending();

  /// The step's text with its {key}s filled in (claims by model/claims.hpp, their verdicts held back while a
  /// question is unanswered; any other key by panel_text), then the reveal count and the question: prompt,
  /// choices with their marks, and the answer once shown (computed by the core). Empty without a lesson.
  std::string text(const std::function<std::string(std::string_view)>& panel_text) const;

 private:
  void start_step(int step);
  std::optional<Lesson> lesson_;
  int step_ = 0;
  bool pending_ = false;
  int revealed_ = 0, picked_ = -1;
  bool answered_ = false;
};

}  // namespace gelu::app::model

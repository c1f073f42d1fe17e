// The lesson player (see lesson_player.hpp).
#include "model/lesson_player.hpp"

#include <algorithm>
#include <cmath>

#include "model/claims.hpp"

namespace gelu::app::model {

void LessonPlayer::open(Lesson lesson, int step, bool apply_state) {
  lesson_ = std::move(lesson);
  step_ = -1;
  start_step(step);
  pending_ = apply_state;
}

void LessonPlayer::close() {
  lesson_.reset();
  pending_ = false;
}

const LessonStep* LessonPlayer::current() const {
  return lesson_ ? &lesson_->steps[static_cast<std::size_t>(step_)] : nullptr;
}

int LessonPlayer::steps() const {
  return lesson_ ? static_cast<int>(lesson_->steps.size()) : 0;
}

void LessonPlayer::start_step(int step) {
  step_ = std::clamp(step, 0, static_cast<int>(lesson_->steps.size()) - 1);
  pending_ = true;
  revealed_ = current()->view.reveal.empty() ? 0 : 1;
  picked_ = -1;
  answered_ = false;
}

void LessonPlayer::go_to(int step) {
  if (!lesson_) return;
  const int s = std::clamp(step, 0, static_cast<int>(lesson_->steps.size()) - 1);
  if (s != step_) start_step(s);
}

bool LessonPlayer::more_on_step() const {
  if (!lesson_) return false;
  const StepView& v = current()->view;
  return revealed_ < static_cast<int>(v.reveal.size()) || (v.question && !answered_);
}

void LessonPlayer::next() {
  if (!lesson_) return;
  const StepView& v = current()->view;
  if (revealed_ < static_cast<int>(v.reveal.size())) {
    ++revealed_;
  } else if (v.question && !answered_) {
    answered_ = true;
  } else {
    go_to(step_ + 1);
  }
}

void LessonPlayer::pick(int choice) {
  if (!lesson_) return;
  const StepView& v = current()->view;
  if (v.question && choice >= 0 && choice < static_cast<int>(v.question->choices.size()) && !answered_)
    picked_ = choice;
}

void LessonPlayer::reveal_answer() {
  if (lesson_ && current()->view.question) answered_ = true;
}

const LessonStep* LessonPlayer::take_pending() {
  if (!pending()) return nullptr;
  pending_ = false;
  return current();
}

std::string LessonPlayer::text(const std::function<std::string(std::string_view)>& panel_text) const {
  if (!lesson_) return {};
  const LessonStep& s = *current();
  // On a predict-then-reveal step the verdicts wait for the answer (they would give it away).
  const bool hold = s.view.question && !answered_;
  std::string text = fill_computed_text(s.text, [&](std::string_view key) {
    if (is_claim_key(key)) return hold ? std::string("(the verdict comes with the answer)") : claim_text(key);
    return panel_text(key);
  });
  const StepView& v = s.view;
  if (static_cast<int>(v.reveal.size()) > revealed_)
    text += "   (→ next curve: " + std::to_string(revealed_) + " of " + std::to_string(v.reveal.size()) +
            " shown)";
  if (!v.question) return text;
  const Question& q = *v.question;
  // The prompt, then the choices on one line (they wrap where they must): a slide keeps the plot's room.
  text += "\nPredict: " + q.prompt + "\n";
  const std::optional<double> answer = answered_ ? quantity(q.answer) : std::nullopt;
  const double a = answer.value_or(0.0);
  int right = -1;
  if (answer)
    for (std::size_t i = 0; i < q.choices.size(); ++i)
      if (right < 0 ||
          std::abs(q.choices[i].value - a) < std::abs(q.choices[static_cast<std::size_t>(right)].value - a))
        right = static_cast<int>(i);
  for (std::size_t i = 0; i < q.choices.size(); ++i) {
    const int k = static_cast<int>(i);
    const char* mark = k == right                              ? "✓ "
                       : (answered_ && answer && k == picked_) ? "✗ "
                       : k == picked_                          ? "▶ "
                                                               : "";
    // "(1) …  ·  (2) …": the numbers stay apart from the choices' own numbers when the bar wraps the line.
    text += std::string(i ? "  ·  " : "") + mark + "(" + std::to_string(i + 1) + ") " + q.choices[i].text;
  }
  if (!answered_) {
    text += "  (keys 1–" + std::to_string(q.choices.size()) + ", Enter)";
  } else if (!answer) {
    text += "\nComputing the answer…";
  } else {
    text += "\nAnswer: " + std::to_string(right + 1) + ", " + quantity_text(q.answer, a) +
            " (computed now by GELU Lab's core)";
  }
  return text;
}

}  // namespace gelu::app::model

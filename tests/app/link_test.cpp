// Links to views (model/link.hpp: the web build's URL fragment). Every lesson step's panel state goes through
// a link and back into a fresh panel and comes out the same; malformed fragments are refused with one line
// that names the part; lesson links name lessons inside the folder only.
#include "model/link.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gelu/json.hpp"
#include "gui/panels/panel.hpp"
#include "model/lessons.hpp"

namespace {

using gelu::app::model::Link;
using gelu::app::model::LinkError;
using gelu::app::model::parse_link;
namespace json = gelu::json;

TEST(Link, EveryLessonStepRoundTripsThroughALink) {
  std::size_t steps = 0;
  for (const std::string& file : gelu::app::find_lessons()) {
    const gelu::app::Lesson lesson = gelu::app::load_lesson(file);
    for (const gelu::app::LessonStep& step : lesson.steps) {
      auto view = gelu::app::make_panel(step.panel);
      ASSERT_TRUE(view) << step.panel;
      view->set_state(step.state);
      const json::Value want = view->state();
      const std::string fragment =
          gelu::app::model::panel_link(step.panel, want, gelu::app::make_panel(step.panel)->state());
      const Link link = parse_link("#" + fragment);
      EXPECT_EQ(link.panel, step.panel);
      auto fresh = gelu::app::make_panel(link.panel);
      fresh->load_state(json::Value(link.state));
      EXPECT_EQ(json::write(fresh->state()), json::write(want)) << file << ": " << fragment;
      ++steps;
    }
  }
  EXPECT_GT(steps, 20u);
}

TEST(Link, APanelAloneIsItsDefaults) {
  for (const char* id : {"curves", "approx", "ffn"}) {
    auto p = gelu::app::make_panel(id);
    ASSERT_TRUE(p);
    EXPECT_EQ(gelu::app::model::panel_link(id, p->state(), p->state()), std::string("panel=") + id);
    const Link l = parse_link(std::string("#panel=") + id);
    EXPECT_EQ(l.panel, id);
    EXPECT_TRUE(l.state.empty());
  }
}

TEST(Link, ValuesAreJsonOrBareWords) {
  const Link l = parse_link("panel=approx&metric=ulp&x=%5B-4,4%5D&log=true&samples=200&name=%22a%20b%22");
  EXPECT_EQ(l.state.at("metric").as_string(), "ulp");
  EXPECT_EQ(l.state.at("x").as_array().size(), 2u);
  EXPECT_TRUE(l.state.at("log").as_bool());
  EXPECT_EQ(l.state.at("samples").as_number(), 200);
  EXPECT_EQ(l.state.at("name").as_string(), "a b");
  const Link s = parse_link("#lesson=4_gelu_vs_relu_training&step=3");
  EXPECT_EQ(s.lesson, "4_gelu_vs_relu_training");
  EXPECT_EQ(s.step, 3);
  EXPECT_EQ(gelu::app::model::lesson_link("/x/y/4_gelu_vs_relu_training.json", 3),
            "lesson=4_gelu_vs_relu_training&step=3");
  EXPECT_EQ(gelu::app::model::percent_decode(gelu::app::model::percent_encode("\"é&=#% x\"")), "\"é&=#% x\"");
}

TEST(Link, PresentIsTheProjectorsTextSizeForEitherKindOfLink) {
  using gelu::app::model::with_presentation;
  const Link l = parse_link("#" + with_presentation("lesson=1_what_is_gelu&step=2", 2));
  EXPECT_EQ(l.lesson, "1_what_is_gelu");
  EXPECT_EQ(l.step, 2);
  EXPECT_EQ(l.present, 2.0);
  const Link p = parse_link(with_presentation("panel=curves&derivatives=%5B1%5D", 1.75));
  EXPECT_EQ(p.present, 1.75);
  EXPECT_EQ(p.state.size(), 1u) << "present= is not a field of the panel's state";
  EXPECT_EQ(parse_link("panel=curves").present, 0.0) << "a link without present= does not say";
  EXPECT_EQ(with_presentation("panel=curves", 0), "panel=curves");
  EXPECT_EQ(with_presentation("panel=curves", 2.5), "panel=curves&present=2.5");
}

TEST(Link, MalformedFragmentsSayWhatIsWrongInOneLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"#", "empty"},
      {"#panel", "no '='"},
      {"#metric=ulp", "no panel="},
      {"#panel=../x", "not a panel id"},
      {"#panel=a&panel=b", "twice"},
      {"#panel=approx&lesson=x", "not both"},
      {"#lesson=x&step=0", "step"},
      {"#lesson=x&step=2x", "step"},
      {"#lesson=../../etc/passwd", "not a lesson name"},
      {"#lesson=x&metric=ulp", "step= and present= only"},
      {"#panel=curves&step=2", "lesson link"},
      {"#panel=curves&x=%4", "two hex digits"},
      {"#lesson=x&step=2&present=big", "not a text size"},
      {"#panel=curves&present=-2", "not a text size"},
      {"#panel=curves&present=nan", "not a text size"},
  };
  for (const auto& [fragment, words] : cases) {
    try {
      parse_link(fragment);
      ADD_FAILURE() << fragment << " was accepted";
    } catch (const LinkError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(words), std::string::npos) << fragment << ": " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  EXPECT_THROW(parse_link("#panel=curves&x=" + std::string(9000, '1')), LinkError);
  EXPECT_THROW(gelu::app::model::lesson_link_path("/l", "../x"), LinkError);
  EXPECT_EQ(gelu::app::model::lesson_link_path("/l", "1_what_is_gelu"), "/l/1_what_is_gelu.json");
}

}  // namespace

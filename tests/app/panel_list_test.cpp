// The one panel list (model::panel_kinds) and the panels' field tables: every kind has a panel class
// registered under its id and no class is registered outside the list; every panel's state() reads back
// through its table to the same state; the tables' defaults are what a fresh panel writes; and a lesson
// step's state is validated headless, through the table, with the same messages a panel gives; every field
// of every table can draw random values that its reader takes, and a panel given one saves what the table
// says.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gui/panels/panel.hpp"
#include "model/lessons.hpp"
#include "model/panels.hpp"
#include "model/state_schema.hpp"

namespace {

using namespace gelu::app;
namespace json = gelu::json;

TEST(PanelList, EveryKindHasItsPanelClassAndNoClassIsOutsideTheList) {
  std::vector<std::string> kinds;
  for (const model::PanelKind& k : model::panel_kinds()) kinds.emplace_back(k.id);
  std::vector<std::string> registered = registered_panel_ids();
  std::sort(kinds.begin(), kinds.end());
  std::sort(registered.begin(), registered.end());
  EXPECT_EQ(kinds, registered);
  const auto panels = make_panels();
  ASSERT_EQ(panels.size(), model::panel_kinds().size());
  for (std::size_t i = 0; i < panels.size(); ++i) {
    EXPECT_STREQ(panels[i]->id(), model::panel_kinds()[i].id);  // tab order is the list's order
    EXPECT_STREQ(panels[i]->title(), model::panel_kinds()[i].title);
  }
  EXPECT_EQ(make_panel("nosuch"), nullptr);
}

TEST(PanelList, StateReadsBackToTheSameStateThroughTheTable) {
  for (const auto& p : make_panels()) {
    SCOPED_TRACE(p->id());
    const json::Value s = p->state();
    ASSERT_TRUE(s.is_object());
    auto fresh = make_panel(p->id());
    fresh->set_state(s);
    EXPECT_EQ(json::write(fresh->state()), json::write(s));
    // The headless check accepts what a panel writes.
    EXPECT_NO_THROW(model::find_panel_kind(p->id())->validate(s));
  }
}

TEST(PanelList, TheTablesDefaultsAreAFreshPanelsState) {
  for (const auto& p : make_panels()) {
    SCOPED_TRACE(p->id());
    EXPECT_EQ(json::write(model::find_panel_kind(p->id())->defaults()), json::write(p->state()));
  }
}

TEST(PanelList, HeadlessValidationGivesThePanelsMessages) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"curves", R"({"x": [1, -1]})"},    {"curves", R"({"funtions": []})"},
      {"approx", R"({"metric": "max"})"}, {"dropout", R"({"samples": 0})"},
      {"ffn", R"({"widths": []})"},       {"bench", R"({"reps": 0})"},
      {"approx", R"({"tuned": 1e308})"},
  };
  for (const auto& [id, text] : bad) {
    SCOPED_TRACE(id + " " + text);
    const json::Value state = json::parse(text);
    std::string headless, panel;
    try {
      model::find_panel_kind(id)->validate(state);
    } catch (const json::JsonError& e) {
      headless = e.what();
    }
    try {
      make_panel(id)->set_state(state);
    } catch (const json::JsonError& e) {
      panel = e.what();
    }
    EXPECT_FALSE(headless.empty());
    EXPECT_EQ(headless, panel);
  }
}

TEST(PanelList, ShotHelpListsEveryKey) {
  for (const model::PanelKind& k : model::panel_kinds()) {
    const std::string help = k.help();
    const json::Value defaults = k.defaults();
    for (const auto& [key, v] : defaults.as_object()) EXPECT_NE(help.find(key), std::string::npos) << k.id;
  }
}

TEST(PanelList, EveryFieldDrawsValuesItsReaderTakesAndAPanelSavesWhatTheTableSays) {
  // Field::sample is how property tests and fuzzers generate states: a field without one fails here, by name.
  model::SampleRng rng(20240518);
  for (const model::PanelKind& k : model::panel_kinds()) {
    SCOPED_TRACE(k.id);
    for (int i = 0; i < 60; ++i) {
      json::Value state;
      ASSERT_NO_THROW(state = k.sample(rng)) << "a field of the " << k.id << " table has no sampler";
      SCOPED_TRACE(json::write(state));
      ASSERT_NO_THROW(k.validate(state));
      const json::Value normal = k.normalize(state);
      EXPECT_EQ(json::write(k.normalize(json::parse(json::write(normal)))), json::write(normal));
      auto panel = make_panel(k.id);
      panel->set_state(state);
      EXPECT_EQ(json::write(panel->state()), json::write(normal));
    }
  }
}

TEST(PanelList, SamplesCoverEveryFieldAndAreReproducible) {
  for (const model::PanelKind& k : model::panel_kinds()) {
    SCOPED_TRACE(k.id);
    model::SampleRng a(7), b(7);
    std::vector<std::string> seen;
    for (int i = 0; i < 40; ++i) {
      const json::Value s = k.sample(a);
      EXPECT_EQ(json::write(s), json::write(k.sample(b)));
      for (const auto& [key, v] : s.as_object()) seen.push_back(key);
    }
    const json::Value defaults = k.defaults();  // kept: iterating a temporary's object dangles
    for (const auto& [key, v] : defaults.as_object())
      EXPECT_NE(std::find(seen.begin(), seen.end(), key), seen.end()) << key << " never drawn";
  }
}

}  // namespace

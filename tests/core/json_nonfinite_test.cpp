// The non-finite policy of the one JSON writer (reliability class 5): files the app reads back refuse a NaN
// or an infinity with a message naming its key; reports and metadata write null and list every replaced
// number under "non_finite" — and what is written always parses with the strict reader.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gelu/json.hpp"

namespace {

namespace json = gelu::json;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

json::Value diverged_report() {
  json::Object net;
  net["loss"] = kNan;
  net["steps"] = 120;
  net["history"] = json::Array{1.0, kInf, -kInf};
  json::Object ffn;
  ffn["nets"] = json::Array{json::Value(net)};
  ffn["lr"] = 10.0;
  json::Object panels;
  panels["ffn"] = ffn;
  json::Object root;
  root["panels"] = panels;
  root["frames"] = 20;
  return root;
}

TEST(JsonNonFinite, RefuseNamesTheKey) {
  try {
    json::write(diverged_report(), 2);
    FAIL() << "no error";
  } catch (const json::JsonError& e) {
    const std::string m = e.what();
    // Members are written in insertion order, so the first non-finite number met is the loss.
    EXPECT_NE(m.find("cannot write nan to JSON at 'panels.ffn.nets[0].loss'"), std::string::npos) << m;
  }
  try {
    json::write(json::Value(json::Object{{"window", json::Object{{"width", kNan}}}}));
    FAIL() << "no error";
  } catch (const json::JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("nan to JSON at 'window.width'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(json::write(json::Value(-kInf)), json::JsonError);
}

TEST(JsonNonFinite, ReportsWriteNullAndANote) {
  for (const int indent : {0, 2}) {
    const std::string text = json::write(diverged_report(), indent, json::NonFinite::NullWithNote);
    const json::Value v = json::parse(text);  // the strict reader takes it
    const json::Value& net = v.at("panels").at("ffn").at("nets").as_array()[0];
    EXPECT_TRUE(net.at("loss").is_null());
    EXPECT_EQ(net.at("steps").as_number(), 120);
    EXPECT_EQ(net.at("history").as_array()[0].as_number(), 1);
    EXPECT_TRUE(net.at("history").as_array()[1].is_null());
    const json::Value& note = v.at(json::kNonFiniteKey);
    EXPECT_EQ(note.as_object().size(), 3u);
    EXPECT_EQ(note.at("panels.ffn.nets[0].loss").as_string(), "nan");
    EXPECT_EQ(note.at("panels.ffn.nets[0].history[1]").as_string(), "inf");
    EXPECT_EQ(note.at("panels.ffn.nets[0].history[2]").as_string(), "-inf");
    EXPECT_EQ(v.at("frames").as_number(), 20);
  }
  // Nothing non-finite: no note, the same text as Refuse.
  json::Object clean{{"a", 1.0}};
  EXPECT_EQ(json::write(json::Value(clean), 2, json::NonFinite::NullWithNote),
            json::write(json::Value(clean), 2));
  // The note's name is reserved at the root.
  json::Object clash{{json::kNonFiniteKey, 1.0}};
  EXPECT_THROW(json::write(json::Value(clash), 0, json::NonFinite::NullWithNote), json::JsonError);
}

}  // namespace

namespace {

TEST(JsonBuilder, BuildsNestedDocumentsAndWritesThemWithTheOneWriter) {
  json::Builder b;
  b.begin_object()
      .key("name")
      .value("gelu")
      .key("n")
      .value(std::size_t{65536})
      .key("ok")
      .value(true)
      .key("rows")
      .begin_array()
      .value(1)
      .begin_object()
      .key("x")
      .value(-0.5)
      .end_object()
      .null()
      .end_array()
      .key("max")
      .value(std::numeric_limits<double>::infinity())
      .end_object();
  const json::Value v = json::parse(b.str(2));
  EXPECT_EQ(v.at("name").as_string(), "gelu");
  EXPECT_EQ(v.at("n").as_number(), 65536);
  EXPECT_TRUE(v.at("ok").as_bool());
  ASSERT_EQ(v.at("rows").as_array().size(), 3u);
  EXPECT_EQ(v.at("rows").as_array()[1].at("x").as_number(), -0.5);
  EXPECT_TRUE(v.at("rows").as_array()[2].is_null());
  // An infinite measurement is written as null with the root note, never as a bare inf.
  EXPECT_TRUE(v.at("max").is_null());
  EXPECT_EQ(v.at(json::kNonFiniteKey).at("max").as_string(), "inf");
  EXPECT_EQ(b.str(), json::write(b.document(), 0, json::NonFinite::NullWithNote));
}

TEST(JsonBuilder, RefusesAValueWithoutAKeyAndAnUnbalancedClose) {
  json::Builder b;
  b.begin_object();
  EXPECT_THROW(b.value(1), json::JsonError);
  EXPECT_THROW(b.begin_array(), json::JsonError);
  json::Builder c;
  EXPECT_THROW(c.end_object(), json::JsonError);
}

}  // namespace

namespace {

TEST(JsonObject, KeepsInsertionOrderAndRefusesDuplicatesWhenParsing) {
  const json::Value v = json::parse(R"({"zeta": 1, "alpha": 2, "mid": {"b": 1, "a": 2}})");
  std::string keys;
  for (const auto& [k, m] : v.as_object()) keys += k + " ";
  EXPECT_EQ(keys, "zeta alpha mid ");
  EXPECT_EQ(json::write(v), R"({"zeta":1,"alpha":2,"mid":{"b":1,"a":2}})");
  EXPECT_THROW(json::parse(R"({"a": 1, "b": 2, "a": 3})"), json::JsonError);
  json::Object o{{"x", 1}, {"y", 2}, {"z", 3}};
  EXPECT_EQ(o.erase("y"), 1u);
  EXPECT_EQ(o.erase("y"), 0u);
  EXPECT_EQ(o.at("z").as_number(), 3);
  o["w"] = 4;
  EXPECT_EQ(json::write(json::Value(o)), R"({"x":1,"z":3,"w":4})");
}

TEST(JsonObject, ManyMembersParseInNearLinearTime) {
  // The duplicate check uses the sorted index, not a scan: 200,000 members parse (a scan would take minutes).
  std::string text = "{";
  for (int i = 0; i < 200000; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  text += "}";
  const json::Value v = json::parse(text);
  EXPECT_EQ(v.as_object().size(), 200000u);
  EXPECT_EQ(v.at("k199999").as_number(), 199999);
}

}  // namespace

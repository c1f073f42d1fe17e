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
    EXPECT_NE(m.find("cannot write inf to JSON at 'panels.ffn.nets[0].history[1]'"), std::string::npos) << m;
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

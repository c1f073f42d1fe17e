// The JSON parser/writer and model files: round trips, and broken, truncated or foreign input -> clear
// errors.
#include "gelu/ffn/model_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gelu/json.hpp"

namespace gelu::ffn {
namespace {

TEST(Json, ParsesAndWritesRoundTrip) {
  const json::Value v =
      json::parse(R"( {"a": [1, -2.5e3, 0.1, true, null], "s": "x\"\\\u00e9\ud83d\ude00", "o": {}} )");
  EXPECT_EQ(v.at("a").as_array()[1].as_number(), -2500.0);
  EXPECT_EQ(v.at("s").as_string(), "x\"\\\xC3\xA9\xF0\x9F\x98\x80");
  const json::Value w = json::parse(json::write(v, 2));
  EXPECT_EQ(json::write(w), json::write(v));
  EXPECT_EQ(json::parse("0.1").as_number(), 0.1);
  EXPECT_EQ(json::parse("1e-400").as_number(), 0.0);
  // Underflow and overflow by the value, not by the exponent's sign (numio's out-of-range rule).
  EXPECT_EQ(json::parse("0." + std::string(400, '0') + "1e+5").as_number(), 0.0);
  EXPECT_THROW(json::parse("1" + std::string(400, '0') + "e-5"), json::JsonError);
}

void expect_error(const std::string& text, int line, int column, const std::string& fragment) {
  try {
    json::parse(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const json::JsonError& e) {
    EXPECT_EQ(e.line(), line) << text << " -> " << e.what();
    EXPECT_EQ(e.column(), column) << text << " -> " << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Json, ErrorsNameTheirPosition) {
  expect_error("", 1, 1, "end of input");
  expect_error("{\"a\": [1, 2", 1, 12, "end of input");
  expect_error("{\n  \"a\": 1,\n}", 3, 1, "string key");
  expect_error("[1, 2,]", 1, 7, "expected a value");
  expect_error("[01]", 1, 3, "expected ',' or ']'");
  expect_error("[1.]", 1, 4, "digits expected");
  expect_error("{\"a\": 1} x", 1, 10, "after the JSON value");
  expect_error("\"abc", 1, 1, "unterminated string");
  expect_error("[NaN]", 1, 2, "unexpected character 'N'");
  expect_error("[1e999]", 1, 2, "out of range");
  expect_error("{\"a\":1,\"a\":2}", 1, 8, "duplicate key");
  expect_error("\"\\ud800\"", 1, 8, "surrogate");
  expect_error(std::string(10000, '['), 1, 130, "nesting deeper");
}

TEST(Json, NeverCrashesOnAnyPrefixOrMutationOfAModel) {
  const int layers[] = {2, 3, 1};
  Network<double> net(make_spec(layers, "gelu"));
  net.init(Init::He, 1);
  const std::string text = model_to_json(net.spec(), net.parameters());
  for (std::size_t n = 0; n + 1 < text.size(); ++n) {                       // text ends with "}\n"
    EXPECT_THROW(model_from_json(text.substr(0, n)), ModelFileError) << n;  // every truncation
  }
  for (std::size_t i = 0; i < text.size(); i += 7) {
    std::string m = text;
    m[i] = static_cast<char>(m[i] ^ 0x5A);
    try {
      model_from_json(m);  // may happen to stay valid (a digit changed); must not crash
    } catch (const ModelFileError&) {
    }
  }
}

TEST(ModelFile, RoundTripIsExact) {
  const int layers[] = {2, 5, 4, 3};
  NetworkSpec spec = make_spec(layers, "", GluKind::SwiGlu);
  spec.hidden[0].params[0] = 1.5;
  Network<float> net(spec);
  net.init(Init::Xavier, 4);
  const std::string path = ::testing::TempDir() + "ffn_model.json";
  save_model(path, net, json::Object{{"dataset", "spiral"}});
  const ModelFile m = load_model(path);
  EXPECT_TRUE(m.spec == net.spec());
  const Network<float> back = make_network<float>(m);
  EXPECT_EQ(back.parameters(), net.parameters());
  EXPECT_EQ(m.meta.at("dataset").as_string(), "spiral");
  std::remove(path.c_str());
}

void expect_model_error(const std::string& text, const std::string& fragment) {
  try {
    model_from_json(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ModelFile, ForeignBrokenAndInconsistentFilesAreRejected) {
  const int layers[] = {2, 3, 1};
  Network<double> net(make_spec(layers, "relu"));
  const std::string good = model_to_json(net.spec(), net.parameters());
  EXPECT_NO_THROW(model_from_json(good));
  expect_model_error("[1, 2]", "not a GELU Lab model file");
  expect_model_error("{\"format\": \"onnx\"}", "not a GELU Lab model file");
  expect_model_error("{\"a\": ", "not valid JSON");
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  expect_model_error(replace("\"version\": 1", "\"version\": 2"), "version 2 is not supported");
  expect_model_error(replace("\"width\": 3", "\"width\": 0"), "width must be in [1, 512]");
  expect_model_error(replace("\"width\": 3", "\"width\": \"3\""),
                     "spec.hidden[0].width must be an integer, not string");
  expect_model_error(replace("\"relu\"", "\"tanh\""), "unknown activation 'tanh'");
  expect_model_error(replace("\"rows\": 3", "\"rows\": 4"), "shape does not match");
  expect_model_error(replace("\"name\": \"h0.b\"", "\"name\": \"h0.B\""), "expected tensor 'h0.b'");
  expect_model_error(replace("\"inputs\": 2", "\"inputs\": 2.5"), "must be an integer");
  EXPECT_THROW(load_model("/nonexistent/dir/model.json"), ModelFileError);
}

}  // namespace
}  // namespace gelu::ffn

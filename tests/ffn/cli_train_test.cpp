// gelulab train: the issue's command reaches 97% on spiral, --json output, determinism, save/load, bad input
// -> 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gelu/json.hpp"
#include "support/run_gelulab.hpp"

namespace {

using Result = gelu::test::RunResult;
Result run(const std::string& args) {
  return gelu::test::run_gelulab("train", args);
}

gelu::json::Value json_of(const Result& r) {
  EXPECT_EQ(r.status, 0) << r.out;
  return gelu::json::parse(r.out);  // stdout is exactly one JSON object (stderr is not a terminal here)
}

TEST(CliTrain, IssueCommandReaches97PercentOnSpiralDeterministically) {
  const std::string cmd =
      "--dataset spiral --layers 2,32,32,1 --act gelu --optimizer adam --lr 0.01 --steps 3000 --seed 1 "
      "--json";
  const gelu::json::Value a = json_of(run(cmd));
  EXPECT_GE(a.at("test_accuracy").as_number(), 0.97);
  EXPECT_EQ(a.at("steps").as_number(), 3000);
  EXPECT_GT(a.at("median_step_us").as_number(), 0);
  for (const char* k : {"train_loss", "test_loss", "train_accuracy"}) EXPECT_TRUE(a.at(k).is_number()) << k;
  const gelu::json::Value b = json_of(run(cmd));
  EXPECT_EQ(a.at("test_loss").as_number(), b.at("test_loss").as_number());
  EXPECT_EQ(gelu::json::write(a.at("history")), gelu::json::write(b.at("history")));
}

TEST(CliTrain, SaveThenLoadContinuesFromTheSameWeights) {
  const std::string path = ::testing::TempDir() + "cli_model.json";
  const gelu::json::Value a =
      json_of(run("--dataset moons --layers 2,8,1 --steps 200 --json --save " + path));
  const gelu::json::Value b = json_of(run("--dataset moons --steps 0 --json --load " + path));
  EXPECT_EQ(a.at("test_loss").as_number(), b.at("test_loss").as_number());
  EXPECT_EQ(b.at("layers").as_array().size(), 3u);
  std::remove(path.c_str());
}

TEST(CliTrain, RegressionAndVariantsRun) {
  const gelu::json::Value r = json_of(run("--dataset gelu --layers 1,16,1 --steps 300 --json"));
  EXPECT_EQ(r.find("test_accuracy"), nullptr);
  EXPECT_LT(r.at("test_loss").as_number(), 0.05);
  json_of(run("--dataset xor --layers 2,16,16,1 --glu swiglu --steps 50 --json"));
  json_of(run("--dataset circle --stochastic --steps 50 --optimizer sgd --schedule cosine --json"));
  json_of(run("--dataset spiral --classes 3 --layers 2,16,3 --steps 50 --weight-decay 1e-4 --json"));
}

TEST(CliTrain, BadInputIsOneLineAndExitTwo) {
  const std::string bad_file = ::testing::TempDir() + "cli_bad_model.json";
  {
    std::ofstream f(bad_file);
    f << "{\"format\": \"gelulab-ffn\", \"version\": 1, \"spec\": {";
  }
  const char* cases[] = {"--dataset nope",
                         "--layers 2,0,1",
                         "--layers 2,-4,1",
                         "--layers 2,32",
                         "--layers 2,x,1",
                         "--layers 3,32,1",
                         "--lr nan",
                         "--lr inf",
                         "--lr -1",
                         "--act tanh",
                         "--glu gated",
                         "--optimizer rmsprop",
                         "--steps -5",
                         "--batch 0",
                         "--backend tpu",
                         "--stochastic --act relu",
                         "--loss ce",
                         "--bogus",
                         "--load /nonexistent/model.json"};
  for (const char* c : cases) {
    const Result r = run(c);
    EXPECT_EQ(r.status, 2) << c << ": " << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << c << ": " << r.out;  // exactly one line
  }
  const Result r = run("--load " + bad_file);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("line 1, column"), std::string::npos) << r.out;
  std::remove(bad_file.c_str());
}

}  // namespace

// gelulab train: the issue's command reaches 97% on spiral, --json output, determinism, save/load, bad input
// -> 2, divergence -> 3.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
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

// Divergence: SGD at learning rate 1 on sin blows up (the issue's command printed "loss -nan" every step
// and exited 0). Training stops at the first non-finite loss: one line on stderr naming the step, exit 3,
// nothing saved, no NaN printed; --json carries "diverged_at_step" (the same step: the run is deterministic).
TEST(CliTrain, DivergenceStopsAtTheFirstNonFiniteLossAndExitsThree) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("cli_diverge_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string model = (dir / "m.json").string();
  const std::vector<std::string> base = {"train",       "--dataset", "sin",  "--layers", "1,32,32,1",
                                         "--optimizer", "sgd",       "--lr", "1",        "--steps",
                                         "400",         "--every",   "1"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--save", model});
  const gelu::test::ExecResult r = gelu::test::exec_gelulab(args, "", dir.string());
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.status, 3) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  const std::size_t at = r.err.find("diverged at step ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const int step = std::stoi(r.err.substr(at + 17));
  EXPECT_GE(step, 1);
  EXPECT_LE(step, 400);
  EXPECT_NE(r.err.find("lower the learning rate (--lr 1)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was saved"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(model));
  // stdout: the steps before it, every one finite; none at or after the step that diverged.
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out.substr(0, 400);
  int lines = 0;
  for (std::size_t p = r.out.find("step "); p != std::string::npos; p = r.out.find("step ", p + 1)) {
    ++lines;
    EXPECT_LT(std::stoi(r.out.substr(p + 5)), step);
  }
  EXPECT_EQ(lines, step - 1);

  args = base;
  args.push_back("--json");
  const gelu::test::ExecResult j = gelu::test::exec_gelulab(args, "", dir.string());
  ASSERT_TRUE(j.exited) << j.err;
  EXPECT_EQ(j.status, 3) << j.err;
  const gelu::json::Value v = gelu::json::parse(j.out);
  EXPECT_EQ(v.at("diverged_at_step").as_number(), step);
  const gelu::json::Array& h = v.at("history").as_array();
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h.back().as_array()[0].as_number(), step);
  EXPECT_TRUE(h.back().as_array()[1].is_null()) << "the non-finite loss is null with the root note";
  EXPECT_TRUE(v.as_object().count("non_finite"));
  EXPECT_NE(j.err.find("diverged at step " + std::to_string(step)), std::string::npos) << j.err;

  // A learning rate that trains: exit 0, no divergence key.
  args = {"train", "--dataset", "sin",  "--layers", "1,32,32,1", "--optimizer",
          "sgd",   "--lr",      "0.01", "--steps",  "50",        "--json"};
  const gelu::test::ExecResult ok = gelu::test::exec_gelulab(args, "", dir.string());
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_FALSE(gelu::json::parse(ok.out).as_object().count("diverged_at_step"));
  fs::remove_all(dir);
}

}  // namespace

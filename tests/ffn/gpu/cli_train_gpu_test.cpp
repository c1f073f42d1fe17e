// gelulab train --backend gpu: the issue's spiral command reaches 97% test accuracy, and 200 steps track the
// CPU's batch losses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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
  return gelu::json::parse(r.out);
}

TEST(CliTrainGpu, IssueCommandReaches97PercentOnSpiral) {
  const gelu::json::Value a = json_of(
      run("--dataset spiral --layers 2,32,32,1 --act gelu --optimizer adam --lr 0.01 --steps 3000 --seed 1 "
          "--backend gpu --json"));
  EXPECT_EQ(a.at("backend").as_string(), "gpu");
  EXPECT_EQ(a.at("steps").as_number(), 3000);
  EXPECT_GE(a.at("test_accuracy").as_number(), 0.97);
  EXPECT_GT(a.at("median_step_us").as_number(), 0);
}

TEST(CliTrainGpu, TwoHundredStepsTrackTheCpu) {
  const std::string common =
      "--dataset moons --layers 2,16,16,1 --act gelu --steps 200 --every 50 --json --backend ";
  const gelu::json::Value c = json_of(run(common + "cpu"));
  const gelu::json::Value g = json_of(run(common + "gpu"));
  const auto& hc = c.at("history").as_array();
  const auto& hg = g.at("history").as_array();
  ASSERT_EQ(hc.size(), 4u);
  ASSERT_EQ(hg.size(), hc.size());
  for (std::size_t i = 0; i < hc.size(); ++i) {
    const double lc = hc[i].as_array()[1].as_number(), lg = hg[i].as_array()[1].as_number();
    EXPECT_LE(std::abs(lg - lc), 1e-4 * std::abs(lc)) << "step " << hc[i].as_array()[0].as_number();
  }
  EXPECT_LT(hc.back().as_array()[1].as_number(), hc.front().as_array()[1].as_number());
}

}  // namespace

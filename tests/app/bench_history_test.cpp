// The benchmark panel's history is bounded (its plot draws a dot per measurement; the soak's memory bound
// depends on it) and keeps numbering measurements after it starts dropping the oldest.
#include <gtest/gtest.h>

#include "model/bench_runner.hpp"

namespace {
using gelu::app::BenchBackend;
using gelu::app::BenchRow;
using gelu::app::BenchSnapshot;
using gelu::app::kBenchHistory;

BenchRow row(std::size_t number) {
  BenchRow r;
  r.fn = "gelu";
  r.backend = BenchBackend::CpuVector;
  r.size = number;  // the measurement's number, to check which ones were kept
  r.stats.median_s = 1e-3;
  return r;
}
}  // namespace

TEST(BenchHistory, KeepsEveryMeasurementUpToTheBound) {
  BenchSnapshot s;
  for (std::size_t i = 0; i < kBenchHistory; ++i) gelu::app::append_history(s, row(i));
  ASSERT_EQ(s.history.size(), kBenchHistory);
  EXPECT_EQ(s.history_first, 0u);
  EXPECT_EQ(s.history.front().size, 0u);
  EXPECT_EQ(s.history.back().size, kBenchHistory - 1);
}

TEST(BenchHistory, DropsTheOldestBeyondTheBoundAndKeepsTheirNumbers) {
  BenchSnapshot s;
  const std::size_t total = 3 * kBenchHistory + 17;
  for (std::size_t i = 0; i < total; ++i) {
    gelu::app::append_history(s, row(i));
    ASSERT_LE(s.history.size(), kBenchHistory);
    ASSERT_LE(s.history.capacity(), 2 * kBenchHistory) << "the storage must not grow with the measurements";
  }
  ASSERT_EQ(s.history.size(), kBenchHistory);
  EXPECT_EQ(s.history_first, total - kBenchHistory);
  for (std::size_t i = 0; i < s.history.size(); ++i)
    ASSERT_EQ(s.history[i].size, s.history_first + i)
        << "history[" << i << "] is not measurement number first+i";
}

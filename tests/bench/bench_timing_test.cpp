// How the benchmark rows time their calls (tests/bench/bench_timing.hpp): from kPerCallFrom elements on a row
// reports its median call, so one slow call among many leaves it alone; below, the mean, as Google Benchmark.
#include "bench_timing.hpp"

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using gelu::benchtiming::kPerCallFrom;
using gelu::benchtiming::median;
using gelu::benchtiming::now_ns;
using gelu::benchtiming::timed_loop;

/// Keeps the calling thread busy for `ns` of its CPU time.
void spin_ns(double ns) {
  const double t0 = now_ns(1);
  while (now_ns(1) - t0 < ns) {
  }
}

struct Capture : benchmark::BenchmarkReporter {
  std::vector<Run> runs;
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& r) override { runs.insert(runs.end(), r.begin(), r.end()); }
};

/// `ns_per_elem` of a row of 9 calls of n elements, the third call 40 ms and the others 1 ms of CPU time: a
/// median of 1 ms, a mean of 5.3 ms.
double row_with_one_slow_call(std::size_t n) {
  benchmark::ClearRegisteredBenchmarks();
  int call = 0;
  benchmark::RegisterBenchmark("one_slow_call", [&](benchmark::State& st) {
    timed_loop(st, n, 1, 8, [&] { spin_ns(++call == 3 ? 40e6 : 1e6); });
  })->Iterations(9);
  Capture cap;
  benchmark::RunSpecifiedBenchmarks(&cap);
  benchmark::ClearRegisteredBenchmarks();
  if (cap.runs.size() != 1 || cap.runs[0].counters.count("ns_per_elem") == 0) return -1;
  return static_cast<double>(cap.runs[0].counters.at("ns_per_elem")) * static_cast<double>(n) * 1e-6;  // ms
}

TEST(BenchTiming, LargeRowsReportTheirMedianCall) {
  const double ms = row_with_one_slow_call(kPerCallFrom);
  EXPECT_GT(ms, 0.8);
  EXPECT_LT(ms, 2.0) << "the slow call moved a large row's figure: a mean, not the median call";
}

TEST(BenchTiming, SmallRowsReportTheMean) {
  const double ms = row_with_one_slow_call(kPerCallFrom - 16);
  EXPECT_GT(ms, 4.0);
  EXPECT_LT(ms, 8.0);
}

TEST(BenchTiming, MedianOfOddEvenAndEmpty) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7);
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({1, 1, 1, 1000}), 1);
}

}  // namespace

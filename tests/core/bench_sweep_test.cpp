// The benchmark sweep's progress (gelu/bench.hpp): it counts every repetition the total counts, warm-ups
// included, so a finished run reports total_reps (the Benchmarks panel showed "383 / 384" after a run).
#include <gtest/gtest.h>

#include <vector>

#include "gelu/activation.hpp"
#include "gelu/bench.hpp"

namespace {

using namespace gelu;

// A target that evaluates nothing and takes no time: the sweep's bookkeeping alone.
class Instant : public bench::Target {
 public:
  const char* id() const override { return "instant"; }
  std::optional<std::string> run(const Activation&, int, const Params&, std::span<const float>,
                                 std::span<float>, bench::Sample& s) override {
    s.seconds = 1e-9;
    ++runs;
    return std::nullopt;
  }
  int runs = 0;
};

TEST(BenchSweep, AFinishedSweepReportsTheTotalAndCountsUpByOne) {
  bench::SweepPlan plan;
  plan.fns = {find_activation("gelu"), find_activation("relu")};
  plan.sizes = {16, 64, 256};
  plan.reps = 3;
  plan.large_size = 256;  // the largest size gets one repetition: a cell of another length
  plan.large_reps = 1;
  Instant a, b;
  bench::Target* targets[] = {&a, &b};
  std::vector<int> seen;
  bench::SweepCallbacks cb;
  cb.progress = [&](int done) {
    seen.push_back(done);
    return true;
  };
  const bench::SweepOutcome out = bench::sweep(plan, targets, cb);
  ASSERT_FALSE(out.cancelled);
  ASSERT_FALSE(out.error);
  const int total = plan.total_reps(2);
  EXPECT_EQ(total, a.runs + b.runs) << "the total counts every run, warm-ups included";
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), total) << "a finished sweep reports its total";
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i], seen[i - 1]);
  EXPECT_LE(seen.front(), 2) << "the first report counts the warm-up and one repetition";
}

}  // namespace

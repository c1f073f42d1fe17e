// The thread pool behind the batched API (gelu/kernels.hpp): threaded results bit-identical to
// single-threaded ones at sizes around the threshold, tiny sizes and n = 0; exceptions, cancellation, nesting
// and concurrent callers neither deadlock nor lose work.
#include "parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/kernels.hpp"

namespace {

struct ThreadCount {
  explicit ThreadCount(int n) { gelu::set_thread_count(n); }
  ~ThreadCount() { gelu::set_thread_count(0); }
};

std::vector<float> random_inputs(std::size_t n) {
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::vector<float> x(n);
  for (float& v : x) v = d(rng);
  return x;
}

TEST(Parallel, ThreadCountDefaultsOverridesAndRestores) {
  EXPECT_GE(gelu::thread_count(), 1);
  {
    const ThreadCount t(3);
    EXPECT_EQ(gelu::thread_count(), 3);
  }
  gelu::set_thread_count(-5);  // nonsense restores the default
  EXPECT_GE(gelu::thread_count(), 1);
}

TEST(Parallel, BatchedResultsAreBitIdenticalToSingleThreaded) {
  const std::size_t t = gelu::detail::kParallelMinFloat;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, t - 1, t, t + 1, 2 * t - 1,
                        2 * t + 17, std::size_t{1} << 20}) {
    const std::vector<float> x = random_inputs(n);
    for (const char* id : {"gelu", "gelu_tanh", "silu", "softplus", "relu"})
      for (int order = 0; order <= 2; ++order)
        for (gelu::Path path : {gelu::Path::Fast, gelu::Path::Accurate}) {
          const gelu::Activation& a = *gelu::find_activation(id);
          std::vector<float> one(n), many(n);
          {
            const ThreadCount tc(1);
            a.eval(std::span<const float>(x), std::span<float>(one), order, nullptr, path);
          }
          for (int threads : {2, 3, 4}) {
            const ThreadCount tc(threads);
            std::fill(many.begin(), many.end(), -1.0f);
            a.eval(std::span<const float>(x), std::span<float>(many), order, nullptr, path);
            // memcmp of zero bytes still wants valid pointers (UBSan): an empty vector's data() may be null.
            ASSERT_TRUE(n == 0 || std::memcmp(one.data(), many.data(), n * sizeof(float)) == 0)
                << id << " order " << order << " n=" << n << " threads=" << threads;
          }
        }
  }
}

TEST(Parallel, DoubleAndBackwardPathsAreBitIdenticalToo) {
  const std::size_t n = 3 * gelu::detail::kParallelMinFloat + 5;
  const std::vector<float> x = random_inputs(n), dy = random_inputs(n);
  const std::vector<double> xd(x.begin(), x.end());
  for (const char* id : {"gelu", "gelu_tanh", "gelu_sigmoid", "mish"}) {
    const gelu::Activation& a = *gelu::find_activation(id);
    std::vector<float> b1(n), b2(n);
    std::vector<double> d1(n), d2(n);
    {
      const ThreadCount tc(1);
      gelu::backward(a, x, dy, b1);
      a.eval(std::span<const double>(xd), std::span<double>(d1), 1);
    }
    const ThreadCount tc(2);
    gelu::backward(a, x, dy, b2);
    a.eval(std::span<const double>(xd), std::span<double>(d2), 1);
    EXPECT_EQ(0, std::memcmp(b1.data(), b2.data(), n * sizeof(float))) << id;
    EXPECT_EQ(0, std::memcmp(d1.data(), d2.data(), n * sizeof(double))) << id;
  }
}

TEST(Parallel, EveryElementVisitedOnceInChunksOfSixteen) {
  const ThreadCount tc(4);
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{100000}, std::size_t{1000003}}) {
    std::vector<std::atomic<int>> hits(n);
    std::atomic<bool> misaligned{false};
    EXPECT_TRUE(gelu::parallel_for(n, 1000, [&](std::size_t b, std::size_t e) {
      if (b % 16 != 0) misaligned = true;
      for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
    }));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
    EXPECT_FALSE(misaligned.load());
  }
}

TEST(Parallel, ChunksShrinkTowardsTheEnd) {
  // Equal chunks left the faster of two unequal cores idle for up to a chunk at the end of a call; chunks now
  // shrink as the work runs out, so the last ones are small next to the first (still multiples of 16).
  const ThreadCount tc(2);
  const std::size_t n = std::size_t{1} << 24;
  std::mutex mu;
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  EXPECT_TRUE(gelu::parallel_for(n, 16, [&](std::size_t b, std::size_t e) {
    const std::lock_guard<std::mutex> lk(mu);
    chunks.emplace_back(b, e);
  }));
  std::sort(chunks.begin(), chunks.end());
  ASSERT_GE(chunks.size(), 3u);
  std::size_t at = 0;
  for (const auto& [b, e] : chunks) {
    EXPECT_EQ(b, at);
    EXPECT_EQ(b % 16, 0u);
    at = e;
  }
  EXPECT_EQ(at, n);
  const std::size_t first = chunks.front().second - chunks.front().first;
  const std::size_t last = chunks.back().second - chunks.back().first;
  EXPECT_LE(last * 4, first) << chunks.size() << " chunks";
  EXPECT_GE(last, std::size_t{1} << 16) << "no chunk below the floor";
}

TEST(Parallel, ExceptionIsRethrownAndThePoolStaysUsable) {
  const ThreadCount tc(2);
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> calls{0};
    EXPECT_THROW(gelu::parallel_for(1 << 20, 1024,
                                    [&](std::size_t b, std::size_t) {
                                      ++calls;
                                      if (b >= (std::size_t{1} << 18)) throw std::runtime_error("boom");
                                    }),
                 std::runtime_error);
    EXPECT_GE(calls.load(), 1);
  }
  // Still works afterwards.
  std::atomic<std::size_t> total{0};
  EXPECT_TRUE(gelu::parallel_for(1 << 20, 1024, [&](std::size_t b, std::size_t e) { total += e - b; }));
  EXPECT_EQ(total.load(), std::size_t{1} << 20);
}

TEST(Parallel, CancellationStopsHandingOutChunks) {
  const ThreadCount tc(2);
  std::atomic<bool> cancel{false};
  std::atomic<std::size_t> done{0};
  const bool completed = gelu::parallel_for(
      1 << 22, 1024,
      [&](std::size_t b, std::size_t e) {
        done += e - b;
        cancel = true;
      },
      &cancel);
  EXPECT_FALSE(completed);
  EXPECT_LT(done.load(), std::size_t{1} << 22);
  cancel = false;
  EXPECT_TRUE(gelu::parallel_for(
      1 << 16, 1024, [](std::size_t, std::size_t) {}, &cancel));
}

TEST(Parallel, NestedAndConcurrentCallsDoNotDeadlock) {
  const ThreadCount tc(2);
  std::atomic<std::size_t> inner{0}, outer{0};
  gelu::parallel_for(1 << 16, 1024, [&](std::size_t, std::size_t) {
    ++outer;
    gelu::parallel_for(1 << 12, 64, [&](std::size_t b, std::size_t e) { inner += e - b; });
  });
  EXPECT_GE(outer.load(), 2u);
  EXPECT_EQ(inner.load(), outer.load() << 12);
  // Two callers at once: one gets the pool, the other runs inline; both finish with every element.
  std::vector<std::thread> callers;
  std::atomic<std::size_t> total{0};
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int r = 0; r < 50; ++r)
        gelu::parallel_for(1 << 16, 1024, [&](std::size_t b, std::size_t e) { total += e - b; });
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), std::size_t{4} * 50 * (1 << 16));
  // Changing the thread count between jobs resizes the pool.
  for (int n : {1, 4, 2, 3}) {
    gelu::set_thread_count(n);
    std::atomic<std::size_t> t2{0};
    gelu::parallel_for(1 << 18, 1024, [&](std::size_t b, std::size_t e) { t2 += e - b; });
    EXPECT_EQ(t2.load(), std::size_t{1} << 18);
  }
}

}  // namespace

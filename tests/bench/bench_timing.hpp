// How the benchmark rows of tests/bench time their calls: Google Benchmark's loop, the counters the tables
// read (`ns_per_elem`), and for large arrays the median call instead of the mean.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <vector>

namespace gelu::benchtiming {

/// Items, bytes and `ns_per_elem` (the mean over the run's iterations) for n elements a call.
inline void set_counters(benchmark::State& st, std::size_t n, std::size_t bytes_per_elem) {
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(n));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(n * bytes_per_elem));
  st.counters["ns_per_elem"] =
      benchmark::Counter(static_cast<double>(st.iterations()) * static_cast<double>(n) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// Now in ns: the calling thread's CPU time with one thread (as the one-thread rows report), wall time with
/// two.
inline double now_ns(int threads) {
  timespec ts{};
  clock_gettime(threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

/// The median of v (0 for an empty v).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// From this size on each call is timed on its own and `ns_per_elem` is the median call's, not the mean
// Google Benchmark reports in its time columns. On the Zen 5 VM a pass over a 256 MB array now and then takes
// ~350 ms against the 15 ms it needs — the host taking back guest pages, unseen inside the guest (getrusage
// counts no fault); the benchmark's own frees of 256 MB arrays set it off until the arrays were kept — and a
// 64M row's mean over its ~10 calls then carried ~35 ms a call (docs/perf-log/2026-11-28.md, "The 64M rows").
// A 64M call takes milliseconds, so the two clock reads cost nothing; below 1M the mean stays, as before.
inline constexpr std::size_t kPerCallFrom = std::size_t(1) << 20;

/// The timing loop of every row but the pairs: `body` once an iteration, then the counters (set_counters),
/// with `ns_per_elem` the median call's from kPerCallFrom elements on.
template <class Body>
void timed_loop(benchmark::State& st, std::size_t n, int threads, std::size_t bytes_per_elem, Body&& body) {
  const bool per_call = n >= kPerCallFrom;
  std::vector<double> calls;
  for (auto _ : st) {
    const double t0 = per_call ? now_ns(threads) : 0.0;
    body();
    benchmark::ClobberMemory();
    if (per_call) calls.push_back(now_ns(threads) - t0);
  }
  set_counters(st, n, bytes_per_elem);
  if (per_call && !calls.empty()) st.counters["ns_per_elem"] = median(calls) / static_cast<double>(n);
}

}  // namespace gelu::benchtiming

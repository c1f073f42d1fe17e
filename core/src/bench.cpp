// [SECTION] Benchmark harness (no GL): see gelu/bench.hpp.
#include "gelu/bench.hpp"

#include <algorithm>
#include <chrono>

namespace gelu::bench {

Stats summarize(std::vector<double> seconds) {
  Stats s;
  s.reps = static_cast<int>(seconds.size());
  if (seconds.empty()) return s;
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  s.min_s = seconds.front();
  s.max_s = seconds.back();
  s.median_s = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  return s;
}

Result run(int reps, int warmup, const std::function<std::optional<std::string>(Sample&)>& fn,
           const Progress& progress) {
  Result r;
  std::vector<double> wall, kernel;
  bool all_kernel = true;
  for (int i = 0; i < warmup; ++i) {
    Sample s;
    if (auto e = fn(s)) {
      r.error = e;
      return r;
    }
  }
  for (int i = 0; i < reps; ++i) {
    Sample s;
    const auto t0 = std::chrono::steady_clock::now();
    if (auto e = fn(s)) {
      r.error = e;
      break;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    wall.push_back(s.seconds > 0 ? s.seconds : elapsed);
    if (s.kernel_seconds)
      kernel.push_back(*s.kernel_seconds);
    else
      all_kernel = false;
    if (progress && !progress(i + 1, reps)) {
      r.cancelled = true;
      break;
    }
  }
  r.wall = summarize(wall);
  if (all_kernel && !kernel.empty()) r.kernel = summarize(std::move(kernel));
  return r;
}

}  // namespace gelu::bench

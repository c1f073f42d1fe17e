// A benchmark harness with no GL: repetitions of a timed callable, min/median/max, throughput.
// Reused by `gelulab bench` (CPU and GPU) and the app's benchmark panel.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gelu::bench {

/// Summary of one set of repetitions (seconds per repetition).
struct Stats {
  double min_s = 0, median_s = 0, max_s = 0;
  int reps = 0;
};
Stats summarize(std::vector<double> seconds);

/// Throughput for `elements` per repetition moving `bytes` per repetition, at a given time.
inline double gelem_per_s(std::size_t elements, double seconds) {
  return seconds > 0 ? static_cast<double>(elements) / seconds * 1e-9 : 0.0;
}
inline double gb_per_s(std::size_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds * 1e-9 : 0.0;
}

/// One repetition's timings: the callable fills wall (always) and, optionally, a second clock (GPU kernel).
struct Sample {
  double seconds = 0;
  std::optional<double> kernel_seconds;
};

/// Progress and cancellation: called after each repetition with (done, total); return false to stop.
using Progress = std::function<bool(int done, int total)>;

struct Result {
  Stats wall;                   // end to end
  std::optional<Stats> kernel;  // when every sample carried kernel_seconds
  bool cancelled = false;
  std::optional<std::string> error;  // from the callable: the run stopped there
};

/// Runs `warmup` untimed and `reps` timed repetitions of `run`; `run` returns an error text to abort.
/// When `run` leaves Sample::seconds at 0, the harness times the call itself (steady clock).
Result run(int reps, int warmup, const std::function<std::optional<std::string>(Sample&)>& run,
           const Progress& progress = {});

}  // namespace gelu::bench

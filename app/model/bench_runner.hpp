// The benchmark panel's model (no ImGui): a sweep of function × backend × size measured on a worker thread
// with gelu::bench's harness, progress and cancellation, the host's copy bandwidth, and CSV/JSON export.
// The GPU paths run on a headless GL context the worker creates and owns (a GL context is current on one
// thread only; the window's belongs to the UI).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gelu/bench.hpp"
#include "gelu/json.hpp"
#include "model/threads.hpp"

namespace gelu::app {

enum class BenchBackend { CpuScalar = 0, CpuVector = 1, GpuKernel = 2, GpuEndToEnd = 3 };
inline constexpr int kBenchBackends = 4;
const char* to_string(BenchBackend b);     // "cpu_scalar", "cpu_vector", "gpu_kernel", "gpu_end_to_end"
const char* display_name(BenchBackend b);  // "CPU scalar", ...

struct BenchConfig {
  std::vector<std::string> functions;  // registry ids; empty = every registered function
  std::vector<std::size_t> sizes{1024, 16384, 262144, 4194304};
  bool backends[kBenchBackends] = {true, true, true, true};
  int reps = 7;
};

/// One measured cell: function × backend × size.
struct BenchRow {
  std::string fn;
  BenchBackend backend = BenchBackend::CpuScalar;
  std::size_t size = 0;
  bench::Stats stats;  // seconds per repetition
  double gelem_median() const { return bench::gelem_per_s(size, stats.median_s); }
  double gelem_best() const { return bench::gelem_per_s(size, stats.min_s); }
  double gelem_worst() const { return bench::gelem_per_s(size, stats.max_s); }
};

struct BenchSnapshot {
  std::vector<BenchRow> rows;     // this sweep so far
  std::vector<BenchRow> history;  // the last kBenchHistory measurements since the panel opened
  std::size_t history_first = 0;  // the measurement number of history[0] (earlier ones were dropped)
  double copy_gb_per_s = 0;       // host memcpy bandwidth (read + write bytes per second)
  int done = 0, total = 0;        // repetitions
  std::string current;            // what is being measured now
  std::string gpu;                // the GPU renderer, or why there is none
  bool gpu_ok = false;
  bool running = false, cancelled = false;
  std::string error;
  unsigned long long version = 0;
};

/// How many measurements the history keeps. The history plot draws a dot per measurement, and the memory
/// for its vertices (ImGui's draw list, the GL driver: ~9 KiB a dot on Mesa llvmpipe at 1280x800) follows the
/// count, so the bound is also the memory bound; a thousand dots are as many as the strip can show apart.
inline constexpr std::size_t kBenchHistory = 1000;

/// Appends a measurement to the history, dropping the oldest beyond kBenchHistory (their numbers go on).
inline void append_history(BenchSnapshot& s, const BenchRow& row) {
  if (s.history.capacity() < kBenchHistory) s.history.reserve(kBenchHistory);
  if (s.history.size() >= kBenchHistory) {
    s.history.erase(s.history.begin());
    ++s.history_first;
  }
  s.history.push_back(row);
}

/// CSV (one row per cell, header line) and JSON (the same rows plus the machine's copy bandwidth) of a sweep.
std::string bench_csv(const BenchSnapshot& s);
json::Value bench_json(const BenchSnapshot& s);

class BenchRunner {
 public:
  BenchRunner() = default;
  ~BenchRunner();  // cancels and joins
  BenchRunner(const BenchRunner&) = delete;
  BenchRunner& operator=(const BenchRunner&) = delete;

  /// Starts a sweep (cancels and joins a running one first).
  void start(const BenchConfig& c);
  void stop();  // asks the sweep to stop after the current repetition
  void join();
  bool running() const { return running_; }
  bool take(BenchSnapshot& out);  // copies the latest state when newer than out.version

 private:
  void sweep(BenchConfig c);
  std::thread thread_;
  std::optional<BenchConfig> pending_;  // GELU_NO_THREADS: the sweep start() asked for
  std::atomic<bool> cancel_{false}, running_{false};
  mutable std::mutex mu_;
  BenchSnapshot shared_;  // guarded by mu_
};

}  // namespace gelu::app

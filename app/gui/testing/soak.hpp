// Test instrumentation of `gelulab gui` runs with --frames or --script (CI's GUI tests, fault tests, the
// soak): GL errors through KHR_debug (with a self-test, so the check cannot pass vacuously), memory sampled
// every few frames (RSS and the heap in use), frame-time windows, the --report-frame-time summary and the
// --report JSON. Everything the monitor keeps is allocated before the first frame, so its own bookkeeping
// never shows up as growth during a soak.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gelu/json.hpp"

namespace gelu::app::testing {

// [SECTION] GL debug output
struct GlDebugCounts {
  long errors = 0, messages = 0;
  bool self_test = false;
};
/// Enables KHR_debug on the current context, counting every message; true when the self-test marker came
/// back (the channel works).
bool enable_gl_debug();
const GlDebugCounts& gl_debug_counts();

// [SECTION] Memory
/// Resident set size after returning the allocator's free pages to the OS (malloc_trim), so the figure tracks
/// live memory (a leak) rather than glibc's caching of freed blocks.
long rss_kb();
/// Bytes held from malloc (all arenas, mmapped blocks included), in KiB: live data without the allocator's
/// free lists. Beside RSS it tells a growing data structure from allocator or driver memory.
long heap_in_use_kb();

/// The q-quantile of v (q in [0, 1]; 0 for an empty v).
double percentile(std::vector<double> v, double q);

// [SECTION] The monitor of one run
struct SoakLimits {
  long max_frames = -1;          // -1: until the window closes
  long rss_baseline_frame = 60;  // growth is measured after this frame (first uses of code paths allocate)
  long max_rss_growth_kb = -1;   // -1: not checked
  double max_frame_time_growth = -1;  // -1: not checked
  bool frame_time_summary = false;    // --report-frame-time
};

class SoakMonitor {
 public:
  SoakMonitor(bool test_run, const SoakLimits& limits);
  ~SoakMonitor();
  SoakMonitor(const SoakMonitor&) = delete;
  SoakMonitor& operator=(const SoakMonitor&) = delete;

  /// After each frame: its CPU time (UI + GL submit), UI time, time with glFinish, and the whole frame.
  void frame_done(long frame, double cpu_ms, double ui_ms, double finish_ms, double frame_ms);
  /// At the end of the run (after the frame loop), before anything is released.
  void finish(long frames);

  long rss_start_kb() const { return rss_start_; }
  long rss_end_kb() const { return rss_end_; }
  long heap_growth_kb() const { return heap_end_ - heap_start_; }
  double frame_time_growth() const;

  /// Prints the --report-frame-time summary (when asked for) to stdout.
  void print_frame_time_summary(int width, int height, const char* panel) const;
  /// The one-line summary of a test run on stdout; returns false when a limit was broken (named on stderr).
  bool check(long frames, long gl_errors, bool gl_debug, double seconds) const;
  /// The --report document's measurements (frames, memory samples, frame windows, GL counts).
  json::Object report(long frames, long gl_errors, bool gl_debug, double seconds) const;

 private:
  struct Impl;
  Impl* impl_;
  bool test_run_;
  SoakLimits limits_;
  long rss_start_ = 0, rss_end_ = 0, heap_start_ = 0, heap_end_ = 0;
};

}  // namespace gelu::app::testing

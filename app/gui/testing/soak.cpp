// Test-run instrumentation (see soak.hpp).
#include "gui/testing/soak.hpp"

#include <malloc.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "gui/kit/gl.hpp"

namespace gelu::app::testing {
namespace {

// [SECTION] KHR_debug: every GL message of the render context is counted; errors fail the run. A marker
// inserted at start-up proves the channel works (else the check would pass vacuously).
GlDebugCounts g_gl_debug;

#ifndef __EMSCRIPTEN__  // WebGL2 has no KHR_debug: the page's test reads WebGL errors with glGetError
constexpr GLuint kDebugSelfTestId = 0x6e1u;
void GLAPIENTRY on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                            const GLchar* message, const void*) {
  if (source == GL_DEBUG_SOURCE_APPLICATION && id == kDebugSelfTestId) {
    g_gl_debug.self_test = true;
    return;
  }
  ++g_gl_debug.messages;
  const bool error = type == GL_DEBUG_TYPE_ERROR || type == GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR ||
                     severity == GL_DEBUG_SEVERITY_HIGH;
  if (error) ++g_gl_debug.errors;
  if (error && g_gl_debug.errors <= 20)
    std::fprintf(stderr, "gelulab gui: GL debug error (type 0x%04x, id %u): %.*s\n", type, id,
                 length < 0 ? static_cast<int>(std::strlen(message)) : static_cast<int>(length), message);
}
#endif

struct MemSample {
  long frame = 0, rss_kb = 0, heap_kb = 0;
};

// A record of at most `capacity` values whose storage is allocated and written (so resident) up front: the
// soak's own bookkeeping must not show up as RSS growth during the run.
template <class T>
struct Record {
  std::vector<T> v;
  std::size_t n = 0;
  void allocate(std::size_t capacity) { v.assign(capacity, T{}); }
  void add(const T& x) {
    if (n < v.size()) v[n++] = x;
  }
  std::size_t size() const { return n; }
  bool empty() const { return n == 0; }
  const T* begin() const { return v.data(); }
  const T* end() const { return v.data() + n; }
  std::vector<T> values() const { return std::vector<T>(begin(), end()); }
};

// Frame-time windows: the median and p95 of every `kWindow` frames, so a 100,000-frame soak keeps a few
// hundred numbers (no growth that would look like a leak) and a drift in frame time shows.
struct FrameWindows {
  static constexpr std::size_t kWindow = 1000;
  std::vector<double> current;
  json::Array windows;
  std::vector<double> medians;
  long first_frame = 0;
  void reserve_for(long frames) {  // up front, so that the record does not grow during a soak
    const auto n = static_cast<std::size_t>(std::min<long>(frames, 100000000) / kWindow + 2);
    windows.reserve(n);
    medians.reserve(n);
  }
  void add(long frame, double ms) {
    if (current.empty()) {
      current.reserve(kWindow);
      first_frame = frame;
    }
    current.push_back(ms);
    if (current.size() == kWindow) flush();
  }
  void flush() {
    if (current.empty()) return;
    const double med = percentile(current, 0.5), p95 = percentile(current, 0.95);
    json::Object w;
    w["from_frame"] = static_cast<double>(first_frame);
    w["frames"] = static_cast<double>(current.size());
    w["median_ms"] = med;
    w["p95_ms"] = p95;
    windows.emplace_back(std::move(w));
    if (current.size() == kWindow) medians.push_back(med);
    current.clear();
  }
};

// RSS (and the heap in use) is sampled every kRssEvery frames. Worker threads allocate and free benchmark
// arrays and GL contexts, so single samples swing by tens of MiB; a leak raises the floor. Growth = the
// lowest sample of the last stretch minus the lowest of the first stretch after the baseline frame (stretches
// of up to 1000 frames).
constexpr long kRssEvery = 10;
constexpr long kWarmupFrames = 30;  // font atlas, first layouts

}  // namespace

bool enable_gl_debug() {
#ifdef __EMSCRIPTEN__
  return false;
#else
  if (epoxy_gl_version() < 43 && !epoxy_has_gl_extension("GL_KHR_debug")) return false;
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(on_gl_debug, nullptr);
  glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
  glDebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_MARKER, kDebugSelfTestId,
                       GL_DEBUG_SEVERITY_NOTIFICATION, -1, "gelulab: KHR_debug self-test");
  return g_gl_debug.self_test;
#endif
}

const GlDebugCounts& gl_debug_counts() {
  return g_gl_debug;
}

long rss_kb() {
#ifdef __EMSCRIPTEN__
  return static_cast<long>(__builtin_wasm_memory_size(0) * 64);  // the wasm memory, in 64 KiB pages
#else
  malloc_trim(0);
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4;  // 4 KiB pages on x86-64 Linux
#endif
}

long heap_in_use_kb() {
#ifdef __EMSCRIPTEN__
  const struct mallinfo mi = mallinfo();
  return static_cast<long>(mi.uordblks / 1024);
#else
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<long>((mi.uordblks + mi.hblkhd) / 1024);
#endif
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

struct SoakMonitor::Impl {
  Record<double> cpu_ms, ui_ms, total_ms;
  FrameWindows windows;
  Record<MemSample> rss_samples;
};

SoakMonitor::SoakMonitor(bool test_run, const SoakLimits& limits)
    : impl_(new Impl), test_run_(test_run), limits_(limits) {
  if (limits.frame_time_summary && limits.max_frames > 0) {
    const auto n = static_cast<std::size_t>(std::min<long>(limits.max_frames, 1000000));
    impl_->cpu_ms.allocate(n);
    impl_->ui_ms.allocate(n);
    impl_->total_ms.allocate(n);
  }
  if (test_run && limits.max_frames > 0) impl_->windows.reserve_for(limits.max_frames);
  if (test_run)
    impl_->rss_samples.allocate(static_cast<std::size_t>(
        std::min<long>(limits.max_frames > 0 ? limits.max_frames : 0, 10000000) / kRssEvery + 2));
}

SoakMonitor::~SoakMonitor() {
  delete impl_;
}

void SoakMonitor::frame_done(long frame, double cpu_ms, double ui_ms, double finish_ms, double frame_ms) {
  if (frame >= kWarmupFrames) {
    if (limits_.frame_time_summary) {
      impl_->cpu_ms.add(cpu_ms);
      impl_->ui_ms.add(ui_ms);
      impl_->total_ms.add(finish_ms);
    }
    if (test_run_ && frame >= limits_.rss_baseline_frame) impl_->windows.add(frame, frame_ms);
  }
  if (test_run_ && frame % kRssEvery == 0)
    impl_->rss_samples.add(MemSample{frame, rss_kb(), heap_in_use_kb()});
}

void SoakMonitor::finish(long frames) {
  const long base = limits_.rss_baseline_frame;
  rss_end_ = rss_kb();
  const long stretch = std::min<long>(1000, std::max<long>(kRssEvery, (frames - base) / 2));
  long lo_first = LONG_MAX, lo_last = LONG_MAX, heap_first = LONG_MAX, heap_last = LONG_MAX;
  for (const MemSample& m : impl_->rss_samples) {
    if (m.frame >= base && m.frame < base + stretch) {
      lo_first = std::min(lo_first, m.rss_kb);
      heap_first = std::min(heap_first, m.heap_kb);
    }
    if (m.frame >= frames - stretch && m.frame >= base + stretch) {
      lo_last = std::min(lo_last, m.rss_kb);
      heap_last = std::min(heap_last, m.heap_kb);
    }
  }
  if (lo_first != LONG_MAX) rss_start_ = lo_first;
  if (lo_last != LONG_MAX) rss_end_ = lo_last;
  if (heap_first != LONG_MAX && heap_last != LONG_MAX) {
    heap_start_ = heap_first;
    heap_end_ = heap_last;
  }
  impl_->windows.flush();
}

double SoakMonitor::frame_time_growth() const {
  // The slowest of the last windows against the first full window after the baseline (medians, so a one-off
  // stall does not count).
  const std::vector<double>& m = impl_->windows.medians;
  return m.size() >= 2 ? m.back() / m.front() : 0;
}

void SoakMonitor::print_frame_time_summary(int width, int height, const char* panel) const {
  if (!limits_.frame_time_summary || impl_->cpu_ms.empty()) return;
  const Impl& d = *impl_;
  std::printf("frames measured: %zu (after %ld warm-up), %dx%d, panel %s\n", d.cpu_ms.size(), kWarmupFrames,
              width, height, panel);
  std::printf("UI (panels, sampling, draw lists: NewFrame..Render): median %.2f ms, p95 %.2f ms\n",
              percentile(d.ui_ms.values(), 0.5), percentile(d.ui_ms.values(), 0.95));
  std::printf("CPU per frame (UI + GL submit): median %.2f ms, p95 %.2f ms, max %.2f ms\n",
              percentile(d.cpu_ms.values(), 0.5), percentile(d.cpu_ms.values(), 0.95),
              percentile(d.cpu_ms.values(), 1.0));
  std::printf("including glFinish (llvmpipe rasterizes on the CPU): median %.2f ms, p95 %.2f ms\n",
              percentile(d.total_ms.values(), 0.5), percentile(d.total_ms.values(), 0.95));
}

bool SoakMonitor::check(long frames, long gl_errors, bool gl_debug, double seconds) const {
  const GlDebugCounts& dbg = gl_debug_counts();
  const double drift = frame_time_growth();
  std::printf(
      "frames=%ld gl_errors=%ld gl_debug_errors=%ld gl_debug_messages=%ld gl_debug=%s rss_start_kb=%ld "
      "rss_end_kb=%ld rss_growth_kb=%ld heap_growth_kb=%ld frame_time_growth=%.2f seconds=%.1f\n",
      frames, gl_errors, dbg.errors, dbg.messages, gl_debug ? "on" : "off", rss_start_, rss_end_,
      rss_start_ ? rss_end_ - rss_start_ : 0, heap_growth_kb(), drift, seconds);
  bool ok = gl_errors == 0 && dbg.errors == 0;
  if (limits_.max_rss_growth_kb >= 0 && rss_start_ && rss_end_ - rss_start_ > limits_.max_rss_growth_kb) {
    std::fprintf(stderr, "gelulab gui: RSS grew by %ld KiB (> %ld)\n", rss_end_ - rss_start_,
                 limits_.max_rss_growth_kb);
    ok = false;
  }
  if (limits_.max_frame_time_growth > 0 && drift > limits_.max_frame_time_growth) {
    std::fprintf(stderr,
                 "gelulab gui: frame time grew %.2fx (median of the last %zu frames vs the first; > %.2fx)\n",
                 drift, FrameWindows::kWindow, limits_.max_frame_time_growth);
    ok = false;
  }
  return ok;
}

json::Object SoakMonitor::report(long frames, long gl_errors, bool gl_debug, double seconds) const {
  const GlDebugCounts& d = gl_debug_counts();
  json::Object r;
  r["frames"] = static_cast<double>(frames);
  r["seconds"] = seconds;
  r["gl_errors"] = static_cast<double>(gl_errors);
  json::Object dbg;
  dbg["enabled"] = gl_debug;
  dbg["errors"] = static_cast<double>(d.errors);
  dbg["messages"] = static_cast<double>(d.messages);
  r["gl_debug"] = std::move(dbg);
  r["rss_baseline_frame"] = static_cast<double>(limits_.rss_baseline_frame);
  r["rss_start_kb"] = static_cast<double>(rss_start_);
  r["rss_end_kb"] = static_cast<double>(rss_end_);
  r["rss_growth_kb"] = static_cast<double>(rss_start_ ? rss_end_ - rss_start_ : 0);
  r["heap_start_kb"] = static_cast<double>(heap_start_);
  r["heap_end_kb"] = static_cast<double>(heap_end_);
  r["heap_growth_kb"] = static_cast<double>(heap_end_ - heap_start_);
  json::Array samples;
  for (const MemSample& m : impl_->rss_samples)
    samples.emplace_back(json::Array{static_cast<double>(m.frame), static_cast<double>(m.rss_kb),
                                     static_cast<double>(m.heap_kb)});
  r["rss_samples_frame_kb"] = std::move(samples);
  r["rss_samples_columns"] = json::Array{"frame", "rss_kb", "heap_in_use_kb"};
  r["frame_windows"] = impl_->windows.windows;
  r["frame_time_growth"] = frame_time_growth();
  return r;
}

}  // namespace gelu::app::testing

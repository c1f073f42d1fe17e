// A benchmark harness with no GL: repetitions of a timed callable, min/median/max, throughput, and the one
// sweep (functions × orders × targets × sizes) that `gelulab bench` and the app's Benchmarks panel both run.
// Targets are the ways of computing y = f(x) being measured: the CPU scalar and vectorized paths here, the
// GPU in gelu::gpu (gelu/gpu/bench_target.hpp).
//
// [SECTION] Repetitions
// [SECTION] The sweep
// [SECTION] The machine
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gelu/activation.hpp"

namespace gelu::bench {

// [SECTION] Repetitions

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

// [SECTION] The sweep

/// Bytes a float32 elementwise kernel moves per element: one float read, one written (the GB/s figures).
inline constexpr std::size_t kBytesPerElement = 2 * sizeof(float);

/// The inputs every sweep measures: x[i] = −8 + 16·i/n in float32, the same for every target.
void fill_inputs(std::span<float> x);

/// Host memcpy bandwidth in GB/s (bytes read + written), the best of 4 copies of `bytes`; 0 when the
/// buffers cannot be allocated. The memory line the benchmark plots draw.
double copy_bandwidth(std::size_t bytes = std::size_t{64} << 20);

/// One way of computing y = f^(order)(x) over float32 arrays that a sweep measures.
class Target {
 public:
  virtual ~Target() = default;
  /// "cpu_scalar", "cpu_vector", "gpu".
  virtual const char* id() const = 0;
  /// Checked before the sweep (a GPU compiles its program): an error text when fn/order cannot run here.
  virtual std::optional<std::string> prepare(const Activation&, int) { return std::nullopt; }
  /// One evaluation of every x; fills Sample::seconds (0: timed by the harness) and kernel_seconds where
  /// the target knows them. An error text stops this target.
  virtual std::optional<std::string> run(const Activation& fn, int order, const Params& p,
                                         std::span<const float> x, std::span<float> y, Sample& s) = 0;
};
/// The scalar float evaluator (the double formula rounded once), element by element.
std::unique_ptr<Target> cpu_scalar_target();
/// The registry's batched float path (Activation::eval over the array): the vectorized kernels of `path`
/// (Path::Fast: id "cpu_vector"; Path::Accurate, the correctly rounded kernels: "cpu_accurate"), split across
/// the thread pool above its size threshold as thread_count() says (gelu/kernels.hpp).
std::unique_ptr<Target> cpu_vector_target(Path path = Path::Fast);

struct SweepPlan {
  std::vector<const Activation*> fns;  // at their default parameters
  std::vector<int> orders{0};
  std::vector<std::size_t> sizes;
  int reps = 10;  // timed repetitions after one warm-up
  /// Sizes of at least `large_size` get at most `large_reps` repetitions (a 64M scalar sweep is seconds
  /// each).
  std::size_t large_size = ~std::size_t{0};
  int large_reps = 3;

  int reps_for(std::size_t n) const { return n >= large_size ? std::min(reps, large_reps) : reps; }
  /// Repetitions the sweep runs over `targets` targets, warm-ups included (the progress total).
  int total_reps(std::size_t targets) const;
};

/// One cell of a sweep: a function, order and size on one target (index into the targets given).
struct Measurement {
  const Activation* fn = nullptr;
  int order = 0;
  std::size_t size = 0;
  std::size_t target = 0;
  Result result;
};

struct SweepCallbacks {
  std::function<void(const Measurement& cell)> starting;  // before a cell is measured (its result is empty)
  std::function<bool(int reps_done)> progress;            // after every repetition; false cancels
  std::function<void(const Measurement& cell)> measured;  // a finished cell
  /// A target failed (a lost GPU context, a kernel error): true goes on without it, false stops the sweep.
  std::function<bool(std::size_t target, const std::string& error)> failed;
};

struct SweepOutcome {
  bool cancelled = false;
  std::optional<std::string> error;    // the sweep stopped here (a target failed and `failed` said stop)
  std::size_t out_of_memory_size = 0;  // the size whose arrays could not be allocated (the sweep stopped)
};

/// For each size (ascending as given): allocates x and y, fills x, then measures every function × order ×
/// target cell in that order.
SweepOutcome sweep(const SweepPlan& plan, std::span<Target* const> targets, const SweepCallbacks& cb);

// [SECTION] The machine

/// The CPU model that every table of timings names: the first "model name" of `cpuinfo` (Linux's
/// /proc/cpuinfo format, "key<TAB>: value" lines) with its "cpu family" and "model" numbers when present,
/// e.g. "Intel(R) Xeon(R) Processor (family 6, model 207)"; "unknown CPU (<why>)" when the file cannot be
/// read or names no model. Never throws.
std::string cpu_model(const std::string& cpuinfo = "/proc/cpuinfo");

}  // namespace gelu::bench

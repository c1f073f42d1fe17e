// [SECTION] Benchmark harness (no GL): see gelu/bench.hpp.
#include "gelu/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <string_view>

#include "gelu/fileio.hpp"

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

// [SECTION] The sweep

void fill_inputs(std::span<float> x) {
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i) x[i] = -8.0f + 16.0f * static_cast<float>(i) / static_cast<float>(n);
}

double copy_bandwidth(std::size_t bytes) {
  std::unique_ptr<char[]> a, b;
  try {
    a.reset(new char[bytes]);
    b.reset(new char[bytes]);
  } catch (const std::bad_alloc&) {
    return 0;
  }
  std::memset(a.get(), 1, bytes);  // touch every page before timing
  std::memset(b.get(), 2, bytes);
  double best = 1e300;
  for (int i = 0; i < 4; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.get(), a.get(), bytes);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    a[static_cast<std::size_t>(i)] = b[bytes - 1];  // a data dependency the compiler keeps
  }
  return gb_per_s(2 * bytes, best);
}

namespace {

class CpuScalar final : public Target {
 public:
  const char* id() const override { return "cpu_scalar"; }
  std::optional<std::string> run(const Activation& fn, int order, const Params& p, std::span<const float> x,
                                 std::span<float> y, Sample&) override {
    const ScalarF32 f = fn.f32[static_cast<std::size_t>(order)];
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = f(x[i], p);
    return std::nullopt;
  }
};

class CpuVector final : public Target {
 public:
  explicit CpuVector(Path path) : path_(path) {}
  const char* id() const override { return path_ == Path::Fast ? "cpu_vector" : "cpu_accurate"; }
  std::optional<std::string> run(const Activation& fn, int order, const Params& p, std::span<const float> x,
                                 std::span<float> y, Sample&) override {
    fn.eval(x, y, order, &p, path_);
    return std::nullopt;
  }

 private:
  Path path_;
};

}  // namespace

std::unique_ptr<Target> cpu_scalar_target() {
  return std::make_unique<CpuScalar>();
}
std::unique_ptr<Target> cpu_vector_target(Path path) {
  return std::make_unique<CpuVector>(path);
}

int SweepPlan::total_reps(std::size_t targets) const {
  int total = 0;
  for (std::size_t n : sizes)
    total += static_cast<int>(fns.size() * orders.size() * targets) * (reps_for(n) + 1);
  return total;
}

SweepOutcome sweep(const SweepPlan& plan, std::span<Target* const> targets, const SweepCallbacks& cb) {
  SweepOutcome out;
  std::vector<bool> on(targets.size(), true);
  int done_before = 0;
  for (std::size_t n : plan.sizes) {
    // Both arrays are allocated before either is touched, so a size that does not fit fails at once.
    std::unique_ptr<float[]> xb, yb;
    try {
      xb.reset(new float[n]);
      yb.reset(new float[n]);
    } catch (const std::bad_alloc&) {
      out.out_of_memory_size = n;
      return out;
    }
    const std::span<float> x(xb.get(), n), y(yb.get(), n);
    fill_inputs(x);
    const int reps = plan.reps_for(n);
    for (const Activation* fn : plan.fns)
      for (int order : plan.orders)
        for (std::size_t t = 0; t < targets.size(); ++t) {
          if (!on[t]) continue;
          Measurement m{fn, order, n, t, {}};
          if (cb.starting) cb.starting(m);
          const Params p = fn->defaults();
          // The warm-up is one of the cell's reps + 1 (total_reps counts it): after timed repetition d, d + 1
          // are done, so the last one reports the total (it stopped one short: "383 / 384" after a run).
          const Progress progress = [&](int d, int) {
            return !cb.progress || cb.progress(done_before + d + 1);
          };
          m.result = run(
              reps, 1, [&](Sample& s) { return targets[t]->run(*fn, order, p, x, y, s); }, progress);
          done_before += reps + 1;
          if (m.result.error) {
            if (cb.failed && cb.failed(t, *m.result.error)) {
              on[t] = false;
              continue;
            }
            out.error = m.result.error;
            return out;
          }
          if (m.result.cancelled) {
            out.cancelled = true;
            return out;
          }
          if (cb.measured) cb.measured(m);
        }
  }
  return out;
}

// [SECTION] The machine

std::string cpu_model(const std::string& cpuinfo) {
  std::string text;
  try {
    text = read_file(cpuinfo, std::size_t{4} << 20);  // /proc/cpuinfo reports size 0; read up to 4 MB
  } catch (const std::exception& e) {
    return std::string("unknown CPU (") + e.what() + ")";
  }
  std::string model, family, number;
  std::string_view rest(text);
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (line.empty() && !model.empty()) break;  // the end of the first processor's block
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon), value = line.substr(colon + 1);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
      value.remove_suffix(1);
    if (key == "model name" && model.empty())
      model = value;
    else if (key == "cpu family" && family.empty())
      family = value;
    else if (key == "model" && number.empty())
      number = value;
  }
  if (model.empty()) return "unknown CPU (" + cpuinfo + " names no model)";
  if (!family.empty() && !number.empty()) model += " (family " + family + ", model " + number + ")";
  return model;
}

}  // namespace gelu::bench

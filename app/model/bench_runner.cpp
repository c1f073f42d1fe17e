// The benchmark panel's model and worker thread (see bench_runner.hpp).
#include "model/bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "gelu/activation.hpp"
#ifdef GELU_HAVE_GPU
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"
#endif

namespace gelu::app {

const char* to_string(BenchBackend b) {
  switch (b) {
    case BenchBackend::CpuScalar:
      return "cpu_scalar";
    case BenchBackend::CpuVector:
      return "cpu_vector";
    case BenchBackend::GpuKernel:
      return "gpu_kernel";
    case BenchBackend::GpuEndToEnd:
      return "gpu_end_to_end";
  }
  return "?";
}

const char* display_name(BenchBackend b) {
  switch (b) {
    case BenchBackend::CpuScalar:
      return "CPU scalar";
    case BenchBackend::CpuVector:
      return "CPU vectorized";
    case BenchBackend::GpuKernel:
      return "GPU kernel only";
    case BenchBackend::GpuEndToEnd:
      return "GPU end to end";
  }
  return "?";
}

// [SECTION] Configuration

json::Value BenchConfig::to_json() const {
  json::Object o;
  json::Array f, s, b;
  for (const std::string& id : functions) f.emplace_back(id);
  for (std::size_t n : sizes) s.emplace_back(static_cast<double>(n));
  for (int i = 0; i < kBenchBackends; ++i)
    if (backends[i]) b.emplace_back(to_string(static_cast<BenchBackend>(i)));
  o["functions"] = std::move(f);
  o["sizes"] = std::move(s);
  o["backends"] = std::move(b);
  o["reps"] = reps;
  return o;
}

void BenchConfig::from_json(const json::Value& v) {
  if (!v.is_object()) throw json::JsonError("the benchmark state must be a JSON object");
  BenchConfig c = *this;
  if (const json::Value* f = v.find("functions")) {
    if (!f->is_array()) throw json::JsonError("'functions' must be an array of registry ids");
    c.functions.clear();
    for (const json::Value& id : f->as_array()) {
      if (!id.is_string() || !find_activation(id.as_string()))
        throw json::JsonError("'functions' must hold registry ids (" + activation_ids() + ")");
      c.functions.push_back(id.as_string());
    }
  }
  if (const json::Value* s = v.find("sizes")) {
    if (!s->is_array() || s->as_array().empty()) throw json::JsonError("'sizes' must be a non-empty array");
    c.sizes.clear();
    for (const json::Value& n : s->as_array()) {
      if (!n.is_number() || !(n.as_number() >= 1 && n.as_number() <= 67108864.0))
        throw json::JsonError("'sizes' must hold element counts in [1, 67108864]");
      c.sizes.push_back(static_cast<std::size_t>(n.as_number()));
    }
    std::sort(c.sizes.begin(), c.sizes.end());
    c.sizes.erase(std::unique(c.sizes.begin(), c.sizes.end()), c.sizes.end());
  }
  if (const json::Value* b = v.find("backends")) {
    if (!b->is_array()) throw json::JsonError("'backends' must be an array");
    for (bool& on : c.backends) on = false;
    for (const json::Value& id : b->as_array()) {
      bool known = false;
      for (int i = 0; i < kBenchBackends; ++i)
        if (id.is_string() && id.as_string() == to_string(static_cast<BenchBackend>(i)))
          c.backends[i] = known = true;
      if (!known)
        throw json::JsonError("'backends' holds cpu_scalar, cpu_vector, gpu_kernel, gpu_end_to_end");
    }
  }
  if (const json::Value* r = v.find("reps")) {
    if (!r->is_number() || !(r->as_number() >= 1 && r->as_number() <= 1000))
      throw json::JsonError("'reps' must be a number in [1, 1000]");
    c.reps = static_cast<int>(r->as_number());
  }
  *this = std::move(c);
}

// [SECTION] Export

std::string bench_csv(const BenchSnapshot& s) {
  std::string out =
      "function,backend,size,reps,min_s,median_s,max_s,median_gelem_per_s,best_gelem_per_s,median_gb_per_s\n";
  char line[320];
  for (const BenchRow& r : s.rows) {
    std::snprintf(line, sizeof line, "%s,%s,%zu,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", r.fn.c_str(),
                  to_string(r.backend), r.size, r.stats.reps, r.stats.min_s, r.stats.median_s, r.stats.max_s,
                  r.gelem_median(), r.gelem_best(),
                  bench::gb_per_s(r.size * kBenchBytesPerElement, r.stats.median_s));
    out += line;
  }
  return out;
}

json::Value bench_json(const BenchSnapshot& s) {
  json::Object o;
  o["copy_gb_per_s"] = s.copy_gb_per_s;
  o["bytes_per_element"] = static_cast<double>(kBenchBytesPerElement);
  o["gpu"] = s.gpu;
  o["cancelled"] = s.cancelled;
  json::Array rows;
  for (const BenchRow& r : s.rows) {
    json::Object q;
    q["function"] = r.fn;
    q["backend"] = to_string(r.backend);
    q["size"] = static_cast<double>(r.size);
    q["reps"] = r.stats.reps;
    q["min_s"] = r.stats.min_s;
    q["median_s"] = r.stats.median_s;
    q["max_s"] = r.stats.max_s;
    q["median_gelem_per_s"] = r.gelem_median();
    q["best_gelem_per_s"] = r.gelem_best();
    q["worst_gelem_per_s"] = r.gelem_worst();
    rows.emplace_back(std::move(q));
  }
  o["results"] = std::move(rows);
  return o;
}

double measure_copy_bandwidth(std::size_t bytes) {
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
  return bench::gb_per_s(2 * bytes, best);  // bytes read + bytes written
}

// [SECTION] Worker

BenchRunner::~BenchRunner() {
  cancel_ = true;
  join();
}

void BenchRunner::join() {
  if (thread_.joinable()) thread_.join();
}

void BenchRunner::stop() {
  cancel_ = true;
}

void BenchRunner::start(const BenchConfig& c) {
  cancel_ = true;
  join();
  cancel_ = false;
  running_ = true;
  {
    std::lock_guard lk(mu_);
    shared_.rows.clear();
    shared_.done = 0;
    shared_.total = 0;
    shared_.running = true;
    shared_.cancelled = false;
    shared_.error.clear();
    ++shared_.version;
  }
  thread_ = std::thread([this, c] { sweep(c); });
}

bool BenchRunner::take(BenchSnapshot& out) {
  std::lock_guard lk(mu_);
  if (shared_.version == out.version) return false;
  out = shared_;
  return true;
}

void BenchRunner::sweep(BenchConfig c) {
  std::vector<const Activation*> fns;
  for (const std::string& id : c.functions)
    if (const Activation* a = find_activation(id)) fns.push_back(a);
  if (c.functions.empty())
    for (const Activation& a : registry()) fns.push_back(&a);
  const bool want_gpu = c.backends[2] || c.backends[3];

  const double copy = measure_copy_bandwidth();
  std::string gpu_text = "not selected";
  bool gpu_ok = false;
#ifdef GELU_HAVE_GPU
  gpu::ContextEvaluator ce;
  if (want_gpu) {
    ce = gpu::ContextEvaluator::headless();
    gpu_ok = ce.eval != nullptr;
    gpu_text = gpu_ok ? ce.ctx->info().renderer : "unavailable: " + ce.error;
  }
  gpu::Evaluator* ev = ce.eval.get();
#else
  if (want_gpu) gpu_text = "unavailable: this build has no GPU backend";
#endif
  // Paths: 0 CPU scalar, 1 CPU vectorized, 2 GPU (one call yields kernel-only and end-to-end times).
  bool path_on[3] = {c.backends[0], c.backends[1], want_gpu && gpu_ok};
  // Sizes of 16M and more are measured with at most 3 repetitions (a 64M scalar sweep takes seconds each).
  auto reps_for = [&](std::size_t n) { return n >= (std::size_t{1} << 24) ? std::min(c.reps, 3) : c.reps; };
  int total = 0;
  for (std::size_t n : c.sizes)
    for (int p = 0; p < 3; ++p)
      if (path_on[p]) total += static_cast<int>(fns.size()) * (reps_for(n) + 1);
  {
    std::lock_guard lk(mu_);
    shared_.copy_gb_per_s = copy;
    shared_.gpu = gpu_text;
    shared_.gpu_ok = gpu_ok;
    shared_.total = total;
    ++shared_.version;
  }

  int done_before = 0;
  for (std::size_t n : c.sizes) {
    if (cancel_) break;
    std::vector<float> x, y;
    try {
      x.resize(n);
      y.resize(n);
    } catch (const std::bad_alloc&) {
      std::lock_guard lk(mu_);
      shared_.error = "not enough memory for " + std::to_string(n) + " elements";
      break;
    }
    for (std::size_t i = 0; i < n; ++i) x[i] = -8.0f + 16.0f * static_cast<float>(i) / static_cast<float>(n);
    for (const Activation* a : fns)
      for (int path = 0; path < 3 && !cancel_; ++path) {
        if (!path_on[path]) continue;
        const Params p = a->defaults();
        const int reps = reps_for(n);
        {
          std::lock_guard lk(mu_);
          char what[160];
          const bool mega = n >= (std::size_t{1} << 20) && n % (std::size_t{1} << 20) == 0;
          const bool kilo = n >= 1024 && n % 1024 == 0;
          std::snprintf(what, sizeof what, "%s · %s · %zu%s elements", a->id,
                        path == 0   ? "CPU scalar"
                        : path == 1 ? "CPU vectorized"
                                    : "GPU",
                        mega   ? n >> 20
                        : kilo ? n >> 10
                               : n,
                        mega   ? "M"
                        : kilo ? "K"
                               : "");
          shared_.current = what;
          ++shared_.version;
        }
        const bench::Progress progress = [&](int d, int) {
          std::lock_guard lk(mu_);
          shared_.done = done_before + d;
          ++shared_.version;
          return !cancel_.load();
        };
        bench::Result r;
        if (path == 0) {
          // The scalar path: the float evaluator (the double formula rounded once) element by element.
          const ScalarF32 f = a->f32[0];
          r = bench::run(
              reps, 1,
              [&](bench::Sample&) -> std::optional<std::string> {
                for (std::size_t i = 0; i < n; ++i) y[i] = f(x[i], p);
                return std::nullopt;
              },
              progress);
        } else if (path == 1) {
          const BatchF32 f = a->batch_f32[0];
          r = bench::run(
              reps, 1,
              [&](bench::Sample&) -> std::optional<std::string> {
                f(x.data(), y.data(), n, p);
                return std::nullopt;
              },
              progress);
        } else {
#ifdef GELU_HAVE_GPU
          r = bench::run(
              reps, 1,
              [&](bench::Sample& s) -> std::optional<std::string> {
                gpu::Timing t;
                if (auto e = ev->eval(*a, 0, p, x, y, &t)) return e;
                s.seconds = t.end_to_end_s;
                if (t.kernel_timed) s.kernel_seconds = t.kernel_s;
                return std::nullopt;
              },
              progress);
#endif
        }
        done_before += reps + 1;
        std::lock_guard lk(mu_);
        shared_.done = done_before;
        if (r.error && path == 2) {
          // The GPU failed mid-run (a lost context, a kernel error): its rows stop, the CPU rows go on.
          path_on[2] = false;
          shared_.gpu = "failed: " + *r.error + " (the CPU measurements went on)";
          shared_.gpu_ok = false;
          ++shared_.version;
          continue;
        }
        if (r.error) {
          shared_.error = *r.error;
          cancel_ = true;
          break;
        }
        if (r.cancelled) break;
        auto add = [&](BenchBackend b, const bench::Stats& s) {
          const BenchRow row{a->id, b, n, s};
          shared_.rows.push_back(row);
          append_history(shared_, row);
        };
        if (path == 0) add(BenchBackend::CpuScalar, r.wall);
        if (path == 1) add(BenchBackend::CpuVector, r.wall);
        if (path == 2 && c.backends[3]) add(BenchBackend::GpuEndToEnd, r.wall);
        if (path == 2 && c.backends[2] && r.kernel) add(BenchBackend::GpuKernel, *r.kernel);
        ++shared_.version;
      }
  }
#ifdef GELU_HAVE_GPU
  ce.reset();  // GL objects go while their context is current on this thread
#endif
  std::lock_guard lk(mu_);
  shared_.running = false;
  shared_.cancelled = cancel_.load();
  shared_.current.clear();
  ++shared_.version;
  running_ = false;
}

}  // namespace gelu::app

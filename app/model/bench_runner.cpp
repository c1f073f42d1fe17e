// The benchmark panel's model and worker thread (see bench_runner.hpp).
#include "model/bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "gelu/activation.hpp"
#include "model/backends.hpp"

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

// [SECTION] Export

std::string bench_csv(const BenchSnapshot& s) {
  std::string out =
      "function,backend,size,reps,min_s,median_s,max_s,median_gelem_per_s,best_gelem_per_s,median_gb_per_s\n";
  char line[320];
  for (const BenchRow& r : s.rows) {
    std::snprintf(line, sizeof line, "%s,%s,%zu,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", r.fn.c_str(),
                  to_string(r.backend), r.size, r.stats.reps, r.stats.min_s, r.stats.median_s, r.stats.max_s,
                  r.gelem_median(), r.gelem_best(),
                  bench::gb_per_s(r.size * bench::kBytesPerElement, r.stats.median_s));
    out += line;
  }
  return out;
}

json::Value bench_json(const BenchSnapshot& s) {
  json::Object o;
  o["copy_gb_per_s"] = s.copy_gb_per_s;
  o["bytes_per_element"] = static_cast<double>(bench::kBytesPerElement);
  o["gpu"] = s.gpu;
  o["cpu_model"] = bench::cpu_model();  // every table of timings names its machine
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
#ifdef GELU_NO_THREADS
  pending_ = c;  // the sweep runs on the next take(), on the page's thread
#else
  thread_ = std::thread([this, c] { sweep(c); });
#endif
}

bool BenchRunner::take(BenchSnapshot& out) {
#ifdef GELU_NO_THREADS
  if (pending_) {
    const BenchConfig c = *pending_;
    pending_.reset();
    sweep(c);
  }
#endif
  std::lock_guard lk(mu_);
  if (shared_.version == out.version) return false;
  out = shared_;
  return true;
}

void BenchRunner::sweep(BenchConfig c) {
  bench::SweepPlan plan;
  for (const std::string& id : c.functions)
    if (const Activation* a = find_activation(id)) plan.fns.push_back(a);
  if (c.functions.empty())
    for (const Activation& a : registry()) plan.fns.push_back(&a);
  plan.sizes = c.sizes;
  plan.reps = c.reps;
  plan.large_size = std::size_t{1} << 24;  // 16M and more: at most 3 repetitions (a 64M scalar sweep is slow)
  plan.large_reps = 3;

  const double copy = bench::copy_bandwidth();
  // Targets: CPU scalar, CPU vectorized, GPU (one call yields kernel-only and end-to-end times).
  std::vector<std::unique_ptr<bench::Target>> owned;
  std::vector<int> kind;  // 0 scalar, 1 vectorized, 2 GPU
  if (c.backends[0]) owned.push_back(bench::cpu_scalar_target()), kind.push_back(0);
  if (c.backends[1]) owned.push_back(bench::cpu_vector_target()), kind.push_back(1);
  std::string gpu_text = "not selected";
  bool gpu_ok = false;
  if (c.backends[2] || c.backends[3] || !gpu_built()) {  // without the backend: why, selected or not
    std::string device;
    if (auto gpu = gpu_bench_target(&device)) {
      owned.push_back(std::move(gpu));
      kind.push_back(2);
      gpu_ok = true;
      gpu_text = device;
    } else {
      gpu_text = "unavailable: " + device;
    }
  }
  std::vector<bench::Target*> targets;
  for (auto& t : owned) targets.push_back(t.get());
  {
    std::lock_guard lk(mu_);
    shared_.copy_gb_per_s = copy;
    shared_.gpu = gpu_text;
    shared_.gpu_ok = gpu_ok;
    shared_.total = plan.total_reps(targets.size());
    ++shared_.version;
  }

  bench::SweepCallbacks cb;
  cb.starting = [&](const bench::Measurement& m) {
    const std::size_t n = m.size;
    const int k = kind[m.target];
    char what[160];
    const bool mega = n >= (std::size_t{1} << 20) && n % (std::size_t{1} << 20) == 0;
    const bool kilo = n >= 1024 && n % 1024 == 0;
    std::snprintf(what, sizeof what, "%s · %s · %zu%s elements", m.fn->id,
                  k == 0   ? "CPU scalar"
                  : k == 1 ? "CPU vectorized"
                           : "GPU",
                  mega   ? n >> 20
                  : kilo ? n >> 10
                         : n,
                  mega   ? "M"
                  : kilo ? "K"
                         : "");
    std::lock_guard lk(mu_);
    shared_.current = what;
    ++shared_.version;
  };
  cb.progress = [&](int done) {
    std::lock_guard lk(mu_);
    shared_.done = done;
    ++shared_.version;
    return !cancel_.load();
  };
  cb.failed = [&](std::size_t t, const std::string& error) {
    if (kind[t] != 2) return false;
    // The GPU failed mid-run (a lost context, a kernel error): its rows stop, the CPU rows go on.
    std::lock_guard lk(mu_);
    shared_.gpu = "failed: " + error + " (the CPU measurements went on)";
    shared_.gpu_ok = false;
    ++shared_.version;
    return true;
  };
  cb.measured = [&](const bench::Measurement& m) {
    std::lock_guard lk(mu_);
    auto add = [&](BenchBackend b, const bench::Stats& st) {
      const BenchRow row{m.fn->id, b, m.size, st};
      shared_.rows.push_back(row);
      append_history(shared_, row);
    };
    const int k = kind[m.target];
    if (k == 0) add(BenchBackend::CpuScalar, m.result.wall);
    if (k == 1) add(BenchBackend::CpuVector, m.result.wall);
    if (k == 2 && c.backends[3]) add(BenchBackend::GpuEndToEnd, m.result.wall);
    if (k == 2 && c.backends[2] && m.result.kernel) add(BenchBackend::GpuKernel, *m.result.kernel);
    ++shared_.version;
  };
  const bench::SweepOutcome out = bench::sweep(plan, targets, cb);
  owned.clear();  // GL objects go while their context is current on this thread
  std::lock_guard lk(mu_);
  if (out.out_of_memory_size)
    shared_.error = "not enough memory for " + std::to_string(out.out_of_memory_size) + " elements";
  if (out.error) shared_.error = *out.error;
  shared_.running = false;
  shared_.cancelled = out.cancelled || cancel_.load();
  shared_.current.clear();
  ++shared_.version;
  running_ = false;
}

}  // namespace gelu::app

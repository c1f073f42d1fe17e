// gelulab bench: Gelem/s and GB/s of registry functions on the CPU and the GPU (kernel-only and end to end),
// min/median/max over repetitions. Uses the GL-free harness in gelu/bench.hpp.
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "gelu/activation.hpp"
#include "gelu/bench.hpp"
#include "gelu/json.hpp"
#include "gelu/kernels.hpp"
#include "model/backends.hpp"

namespace gelu::cli {
namespace {

using bench::kBytesPerElement;

struct Row {
  std::string backend;
  const Activation* fn;
  int order;
  std::size_t size;
  bench::Result result;
};

// What one run may ask for, checked before anything is allocated: 2^28 elements are 2 GiB of buffers
// (input and output), and 10^11 evaluations take a few minutes at ~1 ns each (the scalar-reference
// functions are slower), where --reps 100000 --size 67108864 would take days.
constexpr std::int64_t kMaxSize = std::int64_t{1} << 28;
constexpr double kMaxEvaluations = 1e11;

void check_budget(int reps, const std::vector<std::size_t>& sizes, std::size_t runs_per_size) {
  double elements = 0;
  for (std::size_t n : sizes) elements += static_cast<double>(n);
  const double total = (reps + 1.0) * elements * static_cast<double>(runs_per_size);  // + 1: the warm-up
  if (total <= kMaxEvaluations) return;
  char buf[320];
  std::snprintf(
      buf, sizeof buf,
      "--reps %d (+1 warm-up) x %.0f elements x %zu function/order/backend run(s) = %.2g evaluations, "
      "more than the limit of %.0e for one run (lower --reps, --size or the number of --fn)",
      reps, elements, runs_per_size, total, kMaxEvaluations);
  throw UsageError(buf);
}

void print_stats_json(json::Builder& w, const char* key, const bench::Stats& s, std::size_t n) {
  w.key(key).begin_object();
  w.key("min_s").value(s.min_s);
  w.key("median_s").value(s.median_s);
  w.key("max_s").value(s.max_s);
  w.key("gelem_per_s").value(bench::gelem_per_s(n, s.median_s));
  w.key("gb_per_s").value(bench::gb_per_s(n * kBytesPerElement, s.median_s));
  w.key("best_gelem_per_s").value(bench::gelem_per_s(n, s.min_s));
  w.key("best_gb_per_s").value(bench::gb_per_s(n * kBytesPerElement, s.min_s));
  w.end_object();
}

std::string stats_text(const bench::Stats& s, std::size_t n) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%9.3f ms [%8.3f .. %8.3f] %7.3f Gelem/s %7.2f GB/s", s.median_s * 1e3,
                s.min_s * 1e3, s.max_s * 1e3, bench::gelem_per_s(n, s.median_s),
                bench::gb_per_s(n * kBytesPerElement, s.median_s));
  return buf;
}

int run_bench(Args& args) {
  const Backend backend = parse_backend(args.option("backend"), true);
  const std::vector<std::string> fn_ids = args.options("fn");
  const std::vector<std::string> size_texts = args.options("size");
  const std::vector<std::string> order_texts = args.options("order");
  const auto reps_text = args.option("reps");
  const auto path_text = args.option("path");
  const auto threads_text = args.option("threads");
  const bool json = args.flag("json");
  args.finish();

  std::vector<const Activation*> fns;
  for (const std::string& id : fn_ids) {
    const Activation* a = find_activation(id);
    if (!a) throw UsageError("--fn: unknown function " + quote(id) + " (one of " + activation_ids() + ")");
    fns.push_back(a);
  }
  if (fns.empty())
    for (const Activation& a : registry()) fns.push_back(&a);
  std::vector<std::size_t> sizes;
  for (const std::string& s : size_texts)
    sizes.push_back(static_cast<std::size_t>(Args::to_int("size", s, 1, kMaxSize)));
  if (sizes.empty()) sizes = {4096, 262144, 67108864};
  std::vector<int> orders;
  for (const std::string& s : order_texts)
    orders.push_back(static_cast<int>(Args::to_int("order", s, 0, kMaxOrder)));
  if (orders.empty()) orders = {0};
  const int reps = reps_text ? static_cast<int>(Args::to_int("reps", *reps_text, 1, 100000)) : 10;
  // --path: which float kernels the CPU rows time (the fast ones by default; the correctly rounded ones that
  // the error analysis uses; or both, one row each).
  std::vector<Path> paths{Path::Fast};
  if (path_text) {
    if (*path_text == "accurate")
      paths = {Path::Accurate};
    else if (*path_text == "both")
      paths = {Path::Fast, Path::Accurate};
    else if (*path_text != "fast")
      throw UsageError("--path: expected fast, accurate or both, got " + quote(*path_text));
  }
  if (threads_text && backend == Backend::Gpu) throw UsageError("--threads: applies to the CPU backend only");
  const int threads = threads_text ? static_cast<int>(Args::to_int("threads", *threads_text, 1, 1024)) : 0;
  const std::size_t cpu_targets = backend == Backend::Gpu ? 0 : paths.size();
  check_budget(reps, sizes, fns.size() * orders.size() * (cpu_targets + (backend == Backend::Cpu ? 0 : 1)));
  if (dry_run()) return 0;

  const bool want_cpu = backend != Backend::Gpu;
  const bool want_gpu = backend != Backend::Cpu;
  std::string device = "none";
  std::vector<std::unique_ptr<bench::Target>> owned;
  std::vector<std::string> names;
  if (want_cpu) {
    for (const Path path : paths) {
      owned.push_back(bench::cpu_vector_target(path));
      names.emplace_back(paths.size() == 1 ? "cpu" : (path == Path::Fast ? "cpu" : "cpu_accurate"));
    }
  }
  // The batched API splits arrays above its threshold across thread_count() threads; --threads sets it for
  // this run (1: single-threaded figures).
  if (threads) set_thread_count(threads);
  const int threads_used = thread_count();
  if (want_gpu) {
    std::unique_ptr<bench::Target> gpu = app::gpu_bench_target(&device);
    if (!gpu) throw UsageError("GPU backend unavailable: " + device);
    for (const Activation* a : fns)
      for (int order : orders)
        if (auto e = gpu->prepare(*a, order)) throw UsageError(*e);
    owned.push_back(std::move(gpu));
    names.emplace_back("gpu");
  }
  std::vector<bench::Target*> targets;
  for (auto& t : owned) targets.push_back(t.get());

  bench::SweepPlan plan;
  plan.fns = fns;
  plan.orders = orders;
  plan.sizes = sizes;
  plan.reps = reps;
  const bool progress_shown = is_terminal(2);
  const int total_runs = static_cast<int>(fns.size() * orders.size() * sizes.size() * targets.size());
  int run_index = 0;
  bench::Measurement current;
  std::vector<Row> rows;
  bench::SweepCallbacks cb;
  cb.starting = [&](const bench::Measurement& m) {
    ++run_index;
    current = m;
  };
  int cell_start = 0;
  cb.measured = [&](const bench::Measurement& m) {
    rows.push_back({names[m.target], m.fn, m.order, m.size, m.result});
    cell_start += reps + 1;
  };
  if (progress_shown)
    cb.progress = [&](int done) {
      std::fprintf(stderr, "\r\033[K[%d/%d] %s %s order %d n=%zu  rep %d/%d", run_index, total_runs,
                   names[current.target].c_str(), current.fn->id, current.order, current.size,
                   std::max(0, done - cell_start), reps + 1);
      return true;
    };
  const bench::SweepOutcome out = bench::sweep(plan, targets, cb);
  if (out.out_of_memory_size)
    throw UsageError("--size " + std::to_string(out.out_of_memory_size) + ": not enough host memory");
  if (out.error) throw UsageError(*out.error);
  if (progress_shown) std::fprintf(stderr, "\r\033[K");

  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("gpu_device").value(device);
    w.key("cpu_model").value(gelu::bench::cpu_model());
    w.key("reps").value(reps);
    w.key("cpu_threads").value(threads_used);
    w.key("cpu_path").value(paths.size() == 2 ? "both" : (paths[0] == Path::Fast ? "fast" : "accurate"));
    w.key("bytes_per_element").value(kBytesPerElement);
    w.key("results").begin_array();
    for (const Row& r : rows) {
      w.begin_object();
      w.key("backend").value(r.backend);
      if (r.backend != "gpu")
        w.key("path").value(r.backend == "cpu" && paths[0] == Path::Fast ? "fast" : "accurate");
      w.key("fn").value(r.fn->id);
      w.key("order").value(r.order);
      w.key("size").value(r.size);
      print_stats_json(w, r.backend == "gpu" ? "end_to_end" : "wall", r.result.wall, r.size);
      if (r.result.kernel) print_stats_json(w, "kernel", *r.result.kernel, r.size);
      w.end_object();
    }
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }
  if (want_gpu) std::printf("GPU: %s\n", device.c_str());
  if (want_cpu) {
    std::printf("CPU model: %s\n", gelu::bench::cpu_model().c_str());
    std::printf("CPU: %s kernels, %d thread%s",
                paths.size() == 2 ? "fast and accurate" : (paths[0] == Path::Fast ? "fast" : "accurate"),
                threads_used, threads_used == 1 ? "" : "s");
    if (threads_used > 1) std::printf(" for arrays of %zu elements or more", kParallelMinFloat);
    std::printf("\n");
  }
  std::printf(
      "median [min .. max] over %d repetitions; GB/s counts one float read and one written per element\n",
      reps);
  for (const Row& r : rows) {
    std::printf("%-12s %-13s f%-2s %10zu  %s %s\n", r.backend.c_str(), r.fn->id,
                r.order == 0 ? "" : (r.order == 1 ? "'" : "''"), r.size,
                r.backend == "gpu" ? "end-to-end" : "          ", stats_text(r.result.wall, r.size).c_str());
    if (r.result.kernel)
      std::printf("%-12s %-13s %-3s %10s  %s %s\n", "", "", "", "", "kernel    ",
                  stats_text(*r.result.kernel, r.size).c_str());
  }
  return 0;
}

}  // namespace

GELU_COMMAND(
    bench, "bench", "throughput of the registry functions on the CPU and the GPU",
    "usage: gelulab bench [--backend cpu|gpu|all] [--fn ID]... [--size N]... [--order 0|1|2]...\n"
    "                     [--reps N] [--path fast|accurate|both] [--threads N] [--json]\n\n"
    "Times y = f(x) over float32 arrays: min, median and max over --reps repetitions (default 10,\n"
    "after one warm-up), in Gelem/s and GB/s (8 bytes per element: one read, one write).\n"
    "The GPU reports end-to-end (upload + dispatch + read-back) and kernel-only (GL timer queries).\n"
    "The output names the CPU model (/proc/cpuinfo) and the GPU, so a table says where it was measured.\n"
    "  --backend  cpu (default), gpu, or all\n"
    "  --fn       function id, repeatable (default: every registered function)\n"
    "  --size     elements, repeatable, 1 to 268435456 (default: 4096, 262144, 67108864)\n"
    "  --order    derivative order, repeatable (default: 0)\n"
    "  --path     CPU float kernels: fast (default; <= 2 ULP), accurate (correctly rounded, the ones the\n"
    "             error analysis uses) or both (one row each)\n"
    "  --threads  CPU threads for arrays above the split size (default: GELU_THREADS or every core)\n"
    "  --json     one JSON object with every result\n"
    "A progress line is drawn on stderr when it is a terminal. GPU unavailable -> exit status 2.\n"
    "A run may do at most 1e11 evaluations ((reps + 1) x sizes x functions x orders x backends).\n",
    run_bench);

}  // namespace gelu::cli

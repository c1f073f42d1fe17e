// gelulab bench: Gelem/s and GB/s of registry functions on the CPU and the GPU (kernel-only and end to end),
// min/median/max over repetitions. Uses the GL-free harness in gelu/bench.hpp.
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "cli/json_writer.hpp"
#include "gelu/activation.hpp"
#include "gelu/bench.hpp"
#ifdef GELU_HAVE_GPU
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/evaluator.hpp"
#endif

namespace gelu::cli {
namespace {

struct Row {
  std::string backend;
  const Activation* fn;
  int order;
  std::size_t size;
  bench::Result result;
};

/// Bytes per element moved through memory: one float read, one float written.
constexpr std::size_t kBytesPerElement = 2 * sizeof(float);

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

void print_stats_json(JsonWriter& w, const char* key, const bench::Stats& s, std::size_t n) {
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
  check_budget(reps, sizes, fns.size() * orders.size() * (backend == Backend::All ? 2 : 1));
  if (dry_run()) return 0;

  const bool want_cpu = backend != Backend::Gpu;
  const bool want_gpu = backend != Backend::Cpu;
  std::string device = "none";
#ifdef GELU_HAVE_GPU
  gpu::ContextEvaluator ce;
  if (want_gpu) {
    ce = gpu::ContextEvaluator::headless();
    if (!ce.eval) throw UsageError("GPU backend unavailable: " + ce.error);
    const gpu::GlInfo& info = ce.ctx->info();
    device = info.renderer + " / " + info.version + " via " + info.platform;
    for (const Activation* a : fns)
      for (int order : orders)
        if (auto e = ce.eval->prepare(*a, order)) throw UsageError(*e);
  }
#else
  if (want_gpu) throw UsageError(*gpu_eval(*fns.front(), 0, Params{}, {}, {}));
#endif

  const bool progress_shown = is_terminal(2);
  const int total_runs =
      static_cast<int>(fns.size() * orders.size() * sizes.size()) * ((want_cpu ? 1 : 0) + (want_gpu ? 1 : 0));
  int run_index = 0;
  std::vector<Row> rows;
  for (std::size_t n : sizes) {
    std::vector<float> x, y;
    try {
      x.resize(n);
      y.resize(n);
    } catch (const std::bad_alloc&) {
      throw UsageError("--size " + std::to_string(n) + ": not enough host memory");
    }
    for (std::size_t i = 0; i < n; ++i) x[i] = -8.0f + 16.0f * static_cast<float>(i) / static_cast<float>(n);
    for (const Activation* a : fns)
      for (int order : orders)
        for (int b = 0; b < 2; ++b) {
          if ((b == 0 && !want_cpu) || (b == 1 && !want_gpu)) continue;
          ++run_index;
          const Params p = a->defaults();
          const std::string name = b == 0 ? "cpu" : "gpu";
          bench::Progress progress;
          if (progress_shown)
            progress = [&](int done, int total) {
              std::fprintf(stderr, "\r\033[K[%d/%d] %s %s order %d n=%zu  rep %d/%d", run_index, total_runs,
                           name.c_str(), a->id, order, n, done, total);
              return true;
            };
          bench::Result r;
          if (b == 0) {
            r = bench::run(
                reps, 1,
                [&](bench::Sample&) -> std::optional<std::string> {
                  a->eval(std::span<const float>(x), std::span<float>(y), order, &p);
                  return std::nullopt;
                },
                progress);
          } else {
#ifdef GELU_HAVE_GPU
            r = bench::run(
                reps, 1,
                [&](bench::Sample& s) -> std::optional<std::string> {
                  gpu::Timing t;
                  if (auto e = ce.eval->eval(*a, order, p, x, y, &t)) return e;
                  s.seconds = t.end_to_end_s;
                  if (t.kernel_timed) s.kernel_seconds = t.kernel_s;
                  return std::nullopt;
                },
                progress);
#endif
          }
          if (r.error) throw UsageError(*r.error);
          rows.push_back({name, a, order, n, std::move(r)});
        }
  }
  if (progress_shown) std::fprintf(stderr, "\r\033[K");

  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("gpu_device").value(device);
    w.key("reps").value(reps);
    w.key("bytes_per_element").value(kBytesPerElement);
    w.key("results").begin_array();
    for (const Row& r : rows) {
      w.begin_object();
      w.key("backend").value(r.backend);
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
  std::printf(
      "median [min .. max] over %d repetitions; GB/s counts one float read and one written per element\n",
      reps);
  for (const Row& r : rows) {
    std::printf("%-3s %-13s f%-2s %10zu  %s %s\n", r.backend.c_str(), r.fn->id,
                r.order == 0 ? "" : (r.order == 1 ? "'" : "''"), r.size,
                r.backend == "gpu" ? "end-to-end" : "          ", stats_text(r.result.wall, r.size).c_str());
    if (r.result.kernel)
      std::printf("%-3s %-13s %-3s %10s  %s %s\n", "", "", "", "", "kernel    ",
                  stats_text(*r.result.kernel, r.size).c_str());
  }
  return 0;
}

}  // namespace

GELU_COMMAND(
    bench, "bench", "throughput of the registry functions on the CPU and the GPU",
    "usage: gelulab bench [--backend cpu|gpu|all] [--fn ID]... [--size N]... [--order 0|1|2]...\n"
    "                     [--reps N] [--json]\n\n"
    "Times y = f(x) over float32 arrays: min, median and max over --reps repetitions (default 10,\n"
    "after one warm-up), in Gelem/s and GB/s (8 bytes per element: one read, one write).\n"
    "The GPU reports end-to-end (upload + dispatch + read-back) and kernel-only (GL timer queries).\n"
    "  --backend  cpu (default), gpu, or all\n"
    "  --fn       function id, repeatable (default: every registered function)\n"
    "  --size     elements, repeatable, 1 to 268435456 (default: 4096, 262144, 67108864)\n"
    "  --order    derivative order, repeatable (default: 0)\n"
    "  --json     one JSON object with every result\n"
    "A progress line is drawn on stderr when it is a terminal. GPU unavailable -> exit status 2.\n"
    "A run may do at most 1e11 evaluations ((reps + 1) x sizes x functions x orders x backends).\n",
    run_bench);

}  // namespace gelu::cli

// Throughput of every registry function (f and f', float32, single thread) at 4K / 256K / 64M elements,
// with the bandwidth line (a scaled copy y = 1.0001 x) and, when built with oneDNN, oneDNN's gelu_erf and
// gelu_tanh forward/backward in the same run. Items/s is elements/s; see README for the table.
//
//   ./build/tests/bench/activations_bench --benchmark_filter='gelu|copy|dnnl'
//
// oneDNN runs on OpenMP: this program re-executes itself with OMP_NUM_THREADS=1 so every figure is
// single-threaded.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "simd_kernels.hpp"

#ifdef GELU_HAVE_DNNL
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

constexpr std::size_t kSizes[] = {4096, 256 * 1024, 64 * 1024 * 1024};

// Inputs as a network would see them: mostly N(0, 2), with a few far tails, fixed seed.
const std::vector<float>& inputs(std::size_t n) {
  static std::vector<float> x;
  if (x.size() < n) {
    std::mt19937 rng(12345);
    std::normal_distribution<float> d(0.0f, 2.0f);
    x.resize(n);
    for (float& v : x) v = d(rng);
  }
  return x;
}

void set_counters(benchmark::State& st, std::size_t n, std::size_t bytes_per_elem) {
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(n));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(n * bytes_per_elem));
  st.counters["ns_per_elem"] =
      benchmark::Counter(static_cast<double>(st.iterations()) * static_cast<double>(n) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_copy(benchmark::State& st) {
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  const float* x = inputs(n).data();
  std::vector<float> y(n);
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) y[i] = 1.0001f * x[i];
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, n, 8);
}

void BM_activation(benchmark::State& st, const gelu::Activation* a, int order) {
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  const float* x = inputs(n).data();
  std::vector<float> y(n);
  const gelu::Params p = a->defaults();
  for (auto _ : st) {
    a->batch_f32[static_cast<std::size_t>(order)](x, y.data(), n, p);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, n, 8);
}

// The backward pass a framework runs: dx = dy * gelu'(x).
void BM_gelu_backward(benchmark::State& st) {
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  const float* x = inputs(n).data();
  std::vector<float> dy(n, 0.5f), dx(n);
  for (auto _ : st) {
    gelu::simd::gelu_backward_f32(x, dy.data(), dx.data(), n);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, n, 12);
}

#ifdef GELU_HAVE_DNNL
void BM_dnnl(benchmark::State& st, dnnl::algorithm alg, bool backward) {
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const dnnl::memory::desc md({static_cast<dnnl::memory::dim>(n)}, dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::a);
  std::vector<float> dy(n, 0.5f), out(n);
  dnnl::memory src(md, eng, const_cast<float*>(inputs(n).data()));
  dnnl::memory dst(md, eng, out.data());
  dnnl::memory ddst(md, eng, dy.data());
  auto fwd_pd = dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg, md, 0.f, 0.f), eng);
  if (!backward) {
    dnnl::eltwise_forward fwd(fwd_pd);
    for (auto _ : st) {
      fwd.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      s.wait();
      benchmark::ClobberMemory();
    }
    set_counters(st, n, 8);
  } else {
    auto bwd_pd = dnnl::eltwise_backward::primitive_desc(dnnl::eltwise_backward::desc(alg, md, md, 0.f, 0.f),
                                                         eng, fwd_pd);
    dnnl::eltwise_backward bwd(bwd_pd);
    for (auto _ : st) {
      bwd.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dst}});
      s.wait();
      benchmark::ClobberMemory();
    }
    set_counters(st, n, 12);
  }
}
#endif

void apply_sizes(benchmark::internal::Benchmark* b) {
  for (std::size_t n : kSizes) b->Arg(static_cast<int64_t>(n));
  b->Unit(benchmark::kMicrosecond)->MinTime(0.3);
}

void register_all() {
  benchmark::RegisterBenchmark("copy", BM_copy)->Apply(apply_sizes);
#ifdef GELU_HAVE_DNNL
  benchmark::RegisterBenchmark("dnnl_gelu_erf/f", BM_dnnl, dnnl::algorithm::eltwise_gelu_erf, false)
      ->Apply(apply_sizes);
  benchmark::RegisterBenchmark("dnnl_gelu_erf/backward", BM_dnnl, dnnl::algorithm::eltwise_gelu_erf, true)
      ->Apply(apply_sizes);
  benchmark::RegisterBenchmark("dnnl_gelu_tanh/f", BM_dnnl, dnnl::algorithm::eltwise_gelu_tanh, false)
      ->Apply(apply_sizes);
  benchmark::RegisterBenchmark("dnnl_gelu_tanh/backward", BM_dnnl, dnnl::algorithm::eltwise_gelu_tanh, true)
      ->Apply(apply_sizes);
#endif
  benchmark::RegisterBenchmark("gelu/backward", BM_gelu_backward)->Apply(apply_sizes);
  for (const gelu::Activation& a : gelu::registry()) {
    for (int order = 0; order <= 1; ++order) {
      const std::string name = std::string(a.id) + (order == 0 ? "/f" : "/df");
      benchmark::RegisterBenchmark(name.c_str(), BM_activation, &a, order)->Apply(apply_sizes);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
#ifdef GELU_HAVE_DNNL
  // libgomp reads OMP_NUM_THREADS when it is loaded, so set it and start again once.
  if (!std::getenv("OMP_NUM_THREADS")) {
    setenv("OMP_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
  }
  omp_set_num_threads(1);
#endif
  benchmark::AddCustomContext("gelu_simd_isa", gelu::simd::isa());
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

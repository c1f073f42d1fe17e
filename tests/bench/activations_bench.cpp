// Throughput of every registry function (f and f', float32) at 4K / 256K / 64M elements, with the bandwidth
// line (a scaled copy y = 1.0001 x) and, when built with oneDNN, oneDNN's eltwise peers in the same run.
// Items/s is elements/s; `ns_per_elem` is the figure docs/performance.md quotes (tools/bench_table.py prints
// the tables).
//
//   ./build/tests/bench/activations_bench --benchmark_filter='gelu|copy|dnnl'
//
// Names (stable; the tables key on them):
//   copy/N                        y = 1.0001·x, compiler-vectorized, one thread
//   <id>/f/N, <id>/df/N           the registry's batched float path (Path::Fast), one thread
//   <id>_accurate/f/N, …/df/N     Path::Accurate, for the functions whose default path is a fast kernel
//   <id>/backward/N               dx = dy·f'(x) (gelu::backward), one thread
//   gelu_bf16/f/N, …/backward/N   bf16 arrays (gelu::bf16), also gelu_tanh_bf16
//   gelu_cr_poly_bf16/f/N, …/d1/N the designer's correctly rounded bf16 polynomials (gelu/fit_cr.hpp; with
//                                 GLPK + MPFR), beside gelu_bf16/d1/N
//   dnnl_<alg>/f/N, …/backward/N  oneDNN eltwise (f32; _bf16 for bf16 memory), one OpenMP thread
//   paired/gelu_f_over_copy/64M   the copy and exact GELU's f timed in pairs (counters ratio, copy_ns,
//   gelu_ns):
//                                 the 64M targets' ratios on a host whose bandwidth moves (BM_paired)
//   …/N/threads:2                 the same with two threads: ours through the core's pool
//                                 (gelu::set_thread_count), the copy split in chunks on that pool, oneDNN
//                                 with two OpenMP threads.
// oneDNN runs on OpenMP: this program re-executes itself with OMP_NUM_THREADS=1 so every figure without
// /threads:2 is single-threaded.
//
// Index of this file:
//   [SECTION] Sizes, buffers and inputs
//   [SECTION] The copy line and the 64M pairs
//   [SECTION] GELU Lab's kernels
//   [SECTION] The designer's correctly rounded bf16 polynomial
//   [SECTION] oneDNN's peers
//   [SECTION] Registration and main
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_timing.hpp"
#include "cpu_tuning.hpp"
#include "gelu/activation.hpp"
#include "gelu/bench.hpp"
#include "gelu/kernels.hpp"
#include "simd/simd_fast.hpp"
#include "simd/simd_gelu.hpp"
#include "simd/simd_sigmoid.hpp"
#ifdef GELU_HAVE_FIT_CR
#include "gelu/fit_cr.hpp"
#endif

#ifdef GELU_HAVE_DNNL
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

// [SECTION] Sizes, buffers and inputs

constexpr std::size_t kSizes[] = {4096, 256 * 1024, 64 * 1024 * 1024};
constexpr std::size_t kThreadedSizes[] = {256 * 1024, 64 * 1024 * 1024};

// Every array a benchmark touches sits at a fixed place within a 4 KB page: inputs at offset 0, dy at 1 KB,
// outputs at 2 KB, the same for every benchmark — ours, the copy and oneDNN's. Left to the heap, the arrays'
// relative offsets differ between benchmarks and between builds of this program, and so does how often a load
// 4K-aliases an earlier store (the core sees the same low 12 address bits and waits): two builds that
// differed only in GELU Lab's kernels measured oneDNN's backward passes 1.5× apart on the Xeon of 2026-11-26.
enum class Place : std::size_t { Input = 0, Dy = 1024, Output = 2048 };

template <class T>
class Buffer {
 public:
  Buffer(std::size_t n, Place place, T fill = T{}) : n_(n) {
    const std::size_t off = static_cast<std::size_t>(place);
    const std::size_t bytes = std::max<std::size_t>(4096, (off + n * sizeof(T) + 4095) / 4096 * 4096);
    base_ = static_cast<unsigned char*>(std::aligned_alloc(4096, bytes));
    if (!base_) throw std::bad_alloc();
    data_ = reinterpret_cast<T*>(base_ + off);
    std::fill(data_, data_ + n, fill);  // touched, as a framework's tensors are
  }
  ~Buffer() { std::free(base_); }
  Buffer(Buffer&& o) noexcept : base_(o.base_), data_(o.data_), n_(o.n_) { o.base_ = nullptr; }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer& operator=(Buffer&&) = delete;
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return n_; }

 private:
  unsigned char* base_ = nullptr;
  T* data_ = nullptr;
  std::size_t n_ = 0;
};

constexpr std::size_t kMaxSize = kSizes[std::size(kSizes) - 1];

// Inputs as a network would see them: mostly N(0, 2), with a few far tails, fixed seed; one array of the
// largest size, whose prefix the smaller sizes use.
const Buffer<float>& inputs(std::size_t n) {
  static const Buffer<float> x = [] {
    Buffer<float> b(kMaxSize, Place::Input);
    std::mt19937 rng(12345);
    std::normal_distribution<float> d(0.0f, 2.0f);
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = d(rng);
    return b;
  }();
  if (n > x.size()) std::abort();
  return x;
}
const Buffer<std::uint16_t>& inputs_bf16(std::size_t n) {
  static const Buffer<std::uint16_t> x = [] {
    Buffer<std::uint16_t> b(kMaxSize, Place::Input);
    const Buffer<float>& f = inputs(kMaxSize);
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = gelu::bf16::from_float(f.data()[i]);
    return b;
  }();
  if (n > x.size()) std::abort();
  return x;
}

// The arrays the benchmarks write, and the dy of the backward passes: one of the largest size per element
// type, kept for the whole program (smaller sizes use a prefix, as with the inputs). Allocated row by row,
// each 64M row paid ~1 s of page faults before its timing and freed 256 MB after it; on the Zen 5 VM the host
// then took back guest pages, and the next row's first pass over its input paid for them (bench_timing.hpp).
template <class T>
T* outputs(std::size_t n) {
  static Buffer<T> y(kMaxSize, Place::Output);
  if (n > y.size()) std::abort();
  return y.data();
}
/// dy = 0.5 everywhere, as float or as bf16 bits.
template <class T>
const T* dys(std::size_t n) {
  static const Buffer<T> dy(kMaxSize, Place::Dy,
                            std::is_same_v<T, float> ? T(0.5f) : T(gelu::bf16::from_float(0.5f)));
  if (n > dy.size()) std::abort();
  return dy.data();
}

using gelu::benchtiming::median;
using gelu::benchtiming::now_ns;
using gelu::benchtiming::timed_loop;

/// Sets the core's thread count for one benchmark and restores single-threaded afterwards.
struct Threads {
  explicit Threads(int n) { gelu::set_thread_count(n); }
  ~Threads() { gelu::set_thread_count(1); }
};

// [SECTION] The copy line and the 64M pairs

/// The copy line y = 1.0001·x (the compiler's loop), on the calling thread or split in the pool's chunks.
void copy_line(const float* x, float* y, std::size_t n, int threads) {
  auto copy = [x, y](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) y[i] = 1.0001f * x[i];
  };
  if (threads == 1)
    copy(0, n);
  else
    gelu::parallel_for(n, 1, copy);  // two halves-ish: the pool's chunks
}

void BM_copy(benchmark::State& st, std::size_t n, int threads) {
  const Threads t(threads);
  const float* x = inputs(n).data();
  float* y = outputs<float>(n);
  timed_loop(st, n, threads, 8, [&] {
    copy_line(x, y, n, threads);
    benchmark::DoNotOptimize(y);
  });
}

// The 64M targets of issue 16 are ratios to the copy, and on a shared host the memory bandwidth moves with
// the neighbours by 2× or more within minutes: two rows measured a minute apart give a ratio of the
// neighbours as much as of the kernels. This one times them in pairs, back to back in one loop — copy then
// gelu f, then gelu f then copy, alternately — and reports the median of the per-pair ratios (`ratio`), with
// the medians of each (`copy_ns`, `gelu_ns`, ns/element). One thread: each call's thread CPU time; two
// threads: wall time.
void BM_paired(benchmark::State& st, std::size_t n, int threads) {
  const Threads t(threads);
  const float* x = inputs(n).data();
  float* yp = outputs<float>(n);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const gelu::Params p = g.defaults();
  auto now = [threads] { return now_ns(threads); };
  auto time_copy = [&] {
    const double t0 = now();
    copy_line(x, yp, n, threads);
    benchmark::DoNotOptimize(yp);
    benchmark::ClobberMemory();
    return now() - t0;
  };
  auto time_gelu = [&] {
    const double t0 = now();
    g.eval(std::span<const float>(x, n), std::span<float>(yp, n), 0, &p, gelu::Path::Fast);
    benchmark::DoNotOptimize(yp);
    benchmark::ClobberMemory();
    return now() - t0;
  };
  std::vector<double> c, f, r;
  bool copy_first = true;
  for (auto _ : st) {
    double tc, tf;
    if (copy_first) {
      tc = time_copy();
      tf = time_gelu();
    } else {
      tf = time_gelu();
      tc = time_copy();
    }
    copy_first = !copy_first;
    c.push_back(tc);
    f.push_back(tf);
    r.push_back(tf / tc);
  }
  st.counters["ratio"] = median(r);
  st.counters["copy_ns"] = median(c) / static_cast<double>(n);
  st.counters["gelu_ns"] = median(f) / static_cast<double>(n);
  st.counters["pairs"] = static_cast<double>(r.size());
}

// [SECTION] GELU Lab's kernels

void BM_activation(benchmark::State& st, const gelu::Activation* a, int order, gelu::Path path, std::size_t n,
                   int threads) {
  const Threads t(threads);
  const float* x = inputs(n).data();
  float* y = outputs<float>(n);
  const gelu::Params p = a->defaults();
  timed_loop(st, n, threads, 8, [&] {
    a->eval(std::span<const float>(x, n), std::span<float>(y, n), order, &p, path);
    benchmark::DoNotOptimize(y);
  });
}

// The backward pass a framework runs: dx = dy * f'(x).
void BM_backward(benchmark::State& st, const gelu::Activation* a, std::size_t n, int threads) {
  const Threads t(threads);
  const float* x = inputs(n).data();
  const float* dy = dys<float>(n);
  float* dx = outputs<float>(n);
  const gelu::Params p = a->defaults();
  timed_loop(st, n, threads, 12, [&] {
    gelu::backward(*a, std::span<const float>(x, n), std::span<const float>(dy, n), std::span<float>(dx, n),
                   &p);
    benchmark::DoNotOptimize(dx);
  });
}

void BM_bf16(benchmark::State& st, bool tanh_form, bool backward, std::size_t n, int threads) {
  const Threads t(threads);
  const std::uint16_t* x = inputs_bf16(n).data();
  const std::uint16_t* dy = dys<std::uint16_t>(n);
  std::uint16_t* y = outputs<std::uint16_t>(n);
  auto run = [&](std::size_t b, std::size_t e) {
    if (backward)
      (tanh_form ? gelu::bf16::gelu_tanh_backward : gelu::bf16::gelu_backward)(x + b, dy + b, y + b, e - b);
    else
      (tanh_form ? gelu::bf16::gelu_tanh : gelu::bf16::gelu)(x + b, y + b, e - b);
  };
  timed_loop(st, n, threads, backward ? 6 : 4, [&] {
    if (threads == 1)
      run(0, n);
    else
      gelu::parallel_for(n, 1, run);
    benchmark::DoNotOptimize(y);
  });
}

// [SECTION] The designer's correctly rounded bf16 polynomial (gelu/fit_cr.hpp, issue 57)

#ifdef GELU_HAVE_FIT_CR
/// `gelulab fit --target gelu|gelu_prime --correctly-rounded bf16` (64 pieces of degree 4, f32 with fma),
/// fitted once at start-up (0.2 s), as a bf16 kernel: bf16 → float by the bits, the candidate's blocked float
/// loop (Candidate::eval over a span: piece index, gathers of the coefficients, Horner with fma), float →
/// bf16 rounded to nearest even by the bits. Correctly rounded for all 65,536 inputs (fit_cr_tests).
const gelu::fit::CrResult& cr_fit(bool d1) {
  static const gelu::fit::CrResult f = [] {
    gelu::fit::CrSpec s;
    return gelu::fit::fit_correctly_rounded(s);
  }();
  static const gelu::fit::CrResult g = [] {
    gelu::fit::CrSpec s;
    s.target = gelu::fit::Target::GeluPrime;
    return gelu::fit::fit_correctly_rounded(s);
  }();
  return d1 ? g : f;
}

void cr_poly_bf16(const gelu::fit::Candidate& c, const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  alignas(64) float xf[256], yf[256];
  for (std::size_t i = 0; i < n; i += 256) {
    const std::size_t m = std::min<std::size_t>(256, n - i);
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint32_t b = static_cast<std::uint32_t>(x[i + j]) << 16;
      std::memcpy(&xf[j], &b, 4);
    }
    c.eval(std::span<const float>(xf, m), std::span<float>(yf, m));
    for (std::size_t j = 0; j < m; ++j) {
      std::uint32_t b;
      std::memcpy(&b, &yf[j], 4);
      y[i + j] = static_cast<std::uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
    }
  }
}

void BM_cr_poly(benchmark::State& st, bool d1, std::size_t n, int threads) {
  const Threads t(threads);
  const gelu::fit::Candidate& c = cr_fit(d1).candidate;
  const std::uint16_t* x = inputs_bf16(n).data();
  std::uint16_t* y = outputs<std::uint16_t>(n);
  auto run = [&](std::size_t b, std::size_t e) { cr_poly_bf16(c, x + b, y + b, e - b); };
  timed_loop(st, n, threads, 4, [&] {
    if (threads == 1)
      run(0, n);
    else
      gelu::parallel_for(n, 1, run);
    benchmark::DoNotOptimize(y);
  });
}

void BM_bf16_d1(benchmark::State& st, std::size_t n, int threads) {
  const Threads t(threads);
  const std::uint16_t* x = inputs_bf16(n).data();
  std::uint16_t* y = outputs<std::uint16_t>(n);
  auto run = [&](std::size_t b, std::size_t e) { gelu::bf16::gelu_d1(x + b, y + b, e - b); };
  timed_loop(st, n, threads, 4, [&] {
    if (threads == 1)
      run(0, n);
    else
      gelu::parallel_for(n, 1, run);
    benchmark::DoNotOptimize(y);
  });
}
#endif

// [SECTION] oneDNN's peers

#ifdef GELU_HAVE_DNNL
void BM_dnnl(benchmark::State& st, dnnl::algorithm alg, float alpha, bool bf16, bool backward, std::size_t n,
             int threads) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const auto dt = bf16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
  const dnnl::memory::desc md({static_cast<dnnl::memory::dim>(n)}, dt, dnnl::memory::format_tag::a);
  void* out = bf16 ? static_cast<void*>(outputs<std::uint16_t>(n)) : static_cast<void*>(outputs<float>(n));
  void* dy = bf16 ? static_cast<void*>(const_cast<std::uint16_t*>(dys<std::uint16_t>(n)))
                  : static_cast<void*>(const_cast<float*>(dys<float>(n)));  // oneDNN only reads it
  void* src_p = bf16 ? static_cast<void*>(const_cast<std::uint16_t*>(inputs_bf16(n).data()))
                     : static_cast<void*>(const_cast<float*>(inputs(n).data()));
  dnnl::memory src(md, eng, src_p);
  dnnl::memory dst(md, eng, out);
  dnnl::memory ddst(md, eng, dy);
  auto fwd_pd = dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg, md, alpha, 0.f), eng);
  const std::size_t elem = bf16 ? 2 : 4;
  if (!backward) {
    dnnl::eltwise_forward fwd(fwd_pd);
    timed_loop(st, n, threads, 2 * elem, [&] {
      fwd.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      s.wait();
    });
  } else {
    auto bwd_pd = dnnl::eltwise_backward::primitive_desc(
        dnnl::eltwise_backward::desc(alg, md, md, alpha, 0.f), eng, fwd_pd);
    dnnl::eltwise_backward bwd(bwd_pd);
    timed_loop(st, n, threads, 3 * elem, [&] {
      bwd.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dst}});
      s.wait();
    });
  }
  omp_set_num_threads(1);
}
#endif

// [SECTION] Registration and main

/// Registers `fn` at every size (and, with `threaded`, at the threaded sizes with two threads) as
/// NAME/N[/threads:2]. One thread: CPU time (robust to a shared machine's preemption); two threads: wall
/// time.
template <class Fn>
void add(const std::string& name, Fn fn, bool threaded = false) {
  for (std::size_t n : kSizes)
    benchmark::RegisterBenchmark((name + "/" + std::to_string(n)).c_str(),
                                 [=](benchmark::State& st) { fn(st, n, 1); })
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.3);
  if (!threaded) return;
  for (std::size_t n : kThreadedSizes)
    benchmark::RegisterBenchmark((name + "/" + std::to_string(n) + "/threads:2").c_str(),
                                 [=](benchmark::State& st) { fn(st, n, 2); })
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.3)
        ->UseRealTime();
}

void register_all() {
  add(
      "copy", [](benchmark::State& st, std::size_t n, int t) { BM_copy(st, n, t); }, true);
#ifdef GELU_HAVE_DNNL
  struct Peer {
    const char* name;
    dnnl::algorithm alg;
    float alpha;
    bool bf16;
  };
  const Peer peers[] = {{"dnnl_gelu_erf", dnnl::algorithm::eltwise_gelu_erf, 0.f, false},
                        {"dnnl_gelu_tanh", dnnl::algorithm::eltwise_gelu_tanh, 0.f, false},
                        {"dnnl_swish_1702", dnnl::algorithm::eltwise_swish, 1.702f, false},
                        {"dnnl_swish", dnnl::algorithm::eltwise_swish, 1.0f, false},
                        {"dnnl_gelu_erf_bf16", dnnl::algorithm::eltwise_gelu_erf, 0.f, true},
                        {"dnnl_gelu_tanh_bf16", dnnl::algorithm::eltwise_gelu_tanh, 0.f, true}};
  for (const Peer& q : peers)
    for (bool bwd : {false, true})
      add(
          std::string(q.name) + (bwd ? "/backward" : "/f"),
          [q, bwd](benchmark::State& st, std::size_t n, int t) {
            BM_dnnl(st, q.alg, q.alpha, q.bf16, bwd, n, t);
          },
          !bwd &&
              (q.alg == dnnl::algorithm::eltwise_gelu_erf || q.alg == dnnl::algorithm::eltwise_gelu_tanh));
#endif
  for (int threads : {1, 2})
    benchmark::RegisterBenchmark(
        ("paired/gelu_f_over_copy/" + std::to_string(kMaxSize) + (threads == 2 ? "/threads:2" : "")).c_str(),
        [threads](benchmark::State& st) { BM_paired(st, kMaxSize, threads); })
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(2.0)
        ->UseRealTime();
  for (const gelu::Activation& a : gelu::registry()) {
    const bool hot = std::string(a.id) == "gelu" || std::string(a.id) == "gelu_tanh";
    for (int order = 0; order <= 1; ++order) {
      const std::string name = std::string(a.id) + (order == 0 ? "/f" : "/df");
      add(
          name,
          [&a, order](benchmark::State& st, std::size_t n, int t) {
            BM_activation(st, &a, order, gelu::Path::Fast, n, t);
          },
          hot && order == 0);
      if (a.batch_f32[static_cast<std::size_t>(order)] !=
          a.batch_f32_accurate[static_cast<std::size_t>(order)])
        add(std::string(a.id) + "_accurate" + (order == 0 ? "/f" : "/df"),
            [&a, order](benchmark::State& st, std::size_t n, int t) {
              BM_activation(st, &a, order, gelu::Path::Accurate, n, t);
            });
    }
    if (a.batch_backward_f32)
      add(
          std::string(a.id) + "/backward",
          [&a](benchmark::State& st, std::size_t n, int t) { BM_backward(st, &a, n, t); }, hot);
  }
  for (bool tanh_form : {false, true})
    for (bool bwd : {false, true})
      add(
          std::string(tanh_form ? "gelu_tanh_bf16" : "gelu_bf16") + (bwd ? "/backward" : "/f"),
          [tanh_form, bwd](benchmark::State& st, std::size_t n, int t) { BM_bf16(st, tanh_form, bwd, n, t); },
          !bwd);
#ifdef GELU_HAVE_FIT_CR
  add("gelu_bf16/d1", [](benchmark::State& st, std::size_t n, int t) { BM_bf16_d1(st, n, t); });
  for (bool d1 : {false, true})
    add(std::string("gelu_cr_poly_bf16") + (d1 ? "/d1" : "/f"),
        [d1](benchmark::State& st, std::size_t n, int t) { BM_cr_poly(st, d1, n, t); });
#endif
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
  gelu::set_thread_count(1);
  benchmark::AddCustomContext("cpu_model", gelu::bench::cpu_model());
  benchmark::AddCustomContext("gelu_simd_isa", gelu::simd::isa());
  // The CPU tuning (core/src/cpu_tuning.hpp: "zen4" or "default", GELU_TUNING overrides it) and the bins of
  // the tanh form's f′ it gives.
  benchmark::AddCustomContext("gelu_tuning", std::string(gelu::simd::tuning_name(gelu::simd::tuning())) +
                                                 ", " + std::to_string(gelu::simd::fast_bins()) + " bins");
  benchmark::AddCustomContext("gelu_bf16_isa", gelu::bf16::isa());
  // Which bf16 kernel each function runs (f and f′ are timed at their first call, here, outside any
  // benchmark).
  std::string bf16_kernels;
  for (bool t : {false, true}) {
    using gelu::bf16::Op;
    bf16_kernels += std::string(bf16_kernels.empty() ? "" : ", ") + (t ? "gelu_tanh " : "gelu ") +
                    gelu::bf16::kernel(t, Op::F) + "/" + gelu::bf16::kernel(t, Op::D1) + "/" +
                    gelu::bf16::kernel(t, Op::Backward);
  }
  benchmark::AddCustomContext("gelu_bf16_kernels", bf16_kernels + " (f/f'/backward)");
  benchmark::AddCustomContext("gelu_threads_default", std::to_string(gelu::thread_count()));
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

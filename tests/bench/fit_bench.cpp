// The approximation designer's speed: the time of one fit (what the Designer panel waits for) and the
// throughput of candidates' vectorized float loops (Candidate::eval over arrays), in ns/element, beside the
// registry's exact GELU float kernel. Single thread; see docs/designer.md for the table.
//
//   ./build/tests/bench/fit_bench --benchmark_filter='eval'
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/fit.hpp"

namespace {

using namespace gelu::fit;

Spec make(Form f, int d, int extra = 0, Breakpoints b = Breakpoints::Uniform) {
  Spec s;
  s.form = f;
  s.degree = d;
  s.a = f == Form::Piecewise ? -6 : -4;
  s.b = -s.a;
  s.format = gelu::FormatId::F32;
  s.denominator_degree = extra;
  s.pieces = extra;
  s.breakpoints = b;
  return s;
}

struct Case {
  const char* name;
  Spec spec;
};
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"half_x_poly_abs/4", make(Form::HalfXPolyAbs, 4)},
      {"half_x_poly_abs/8", make(Form::HalfXPolyAbs, 8)},
      {"half_x_poly_abs/12", make(Form::HalfXPolyAbs, 12)},
      {"half_x_poly_abs/16", make(Form::HalfXPolyAbs, 16)},
      {"half_x_poly_abs/30", make(Form::HalfXPolyAbs, 30)},
      {"poly/12", make(Form::Poly, 12)},
      {"even/6", make(Form::Even, 6)},
      {"rational/4_4", make(Form::Rational, 4, 4)},
      {"piecewise_uniform/8x3", make(Form::Piecewise, 3, 8)},
      {"piecewise_optimized/8x3", make(Form::Piecewise, 3, 8, Breakpoints::Optimized)},
  };
  return c;
}

const std::vector<float>& inputs(std::size_t n) {
  static std::vector<float> x;
  if (x.size() < n) {
    std::mt19937 rng(12345);
    std::normal_distribution<float> d(0.0f, 2.0f);  // as a network's pre-activations
    x.resize(n);
    for (float& v : x) v = d(rng);
  }
  return x;
}

void per_element(benchmark::State& st, std::size_t n) {
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(n));
  st.counters["ns_per_elem"] =
      benchmark::Counter(static_cast<double>(st.iterations()) * static_cast<double>(n) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_fit(benchmark::State& st, Spec s) {
  for (auto _ : st) benchmark::DoNotOptimize(fit(s).max_error);
}

void BM_eval(benchmark::State& st, Spec s) {
  const Candidate c = fit(s);
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  const float* x = inputs(n).data();
  std::vector<float> y(n);
  for (auto _ : st) {
    c.eval(std::span<const float>(x, n), std::span<float>(y));
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  per_element(st, n);
}

void BM_eval_registry_gelu(benchmark::State& st) {
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const std::size_t n = static_cast<std::size_t>(st.range(0));
  const float* x = inputs(n).data();
  std::vector<float> y(n);
  for (auto _ : st) {
    g.eval(std::span<const float>(x, n), std::span<float>(y));
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  per_element(st, n);
}

[[maybe_unused]] const bool registered = [] {
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark((std::string("BM_fit/") + c.name).c_str(), BM_fit, c.spec)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("BM_eval/") + c.name).c_str(), BM_eval, c.spec)
        ->Arg(4096)
        ->Arg(1 << 20);
  }
  benchmark::RegisterBenchmark("BM_eval/registry_gelu_exact", BM_eval_registry_gelu)->Arg(4096)->Arg(1 << 20);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();

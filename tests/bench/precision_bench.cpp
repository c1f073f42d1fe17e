// Speed of the precision lab: an exhaustive sweep of one zoo entry over every value of a 16-bit format
// against the correctly rounded reference (the target: under 50 ms; the Precision panel runs it on a worker
// thread), the same for an 8-bit format, the facts (tails) and a pair check of 10^7 pairs (the core of
// `gelulab check`, without the file reading; the end-to-end figure is in docs/precision.md).
//
//   ./build/tests/bench/precision_bench
//   ./build/tests/bench/precision_bench --benchmark_filter='sweep/bf16'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gelu/check.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"

namespace {

using gelu::Format;
using gelu::FormatId;
namespace P = gelu::precision;

gelu::analysis::FunctionSpec reference() {
  return gelu::analysis::spec(*gelu::find_activation("gelu"));
}

/// One exhaustive sweep per iteration: every finite value of the storage format as input, the entry as
/// computed in f32, the reference evaluated and rounded, every error scored.
void BM_sweep(benchmark::State& st, std::string id, FormatId storage) {
  const gelu::zoo::Entry e = *gelu::zoo::resolve(id);
  const P::SweepSpec spec{Format(storage), Format(FormatId::F32)};
  std::size_t n = 0;
  for (auto _ : st) {
    const P::Sweep s = P::sweep(e, reference(), spec);
    n = s.errors.x.size();
    benchmark::DoNotOptimize(s.errors.ulp_stats.max);
  }
  st.counters["inputs"] = static_cast<double>(n);
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * n));
}

void BM_tails(benchmark::State& st, std::string id, FormatId storage) {
  const gelu::zoo::Entry e = *gelu::zoo::resolve(id);
  for (auto _ : st) benchmark::DoNotOptimize(P::tails(e, Format(storage), Format(storage)).overflow_above);
}

/// 10^7 pairs of bf16 values through PairCheck (reference cached per value, histogram, ten worst).
void BM_pair_check(benchmark::State& st) {
  const Format bf16(FormatId::BF16);
  const std::vector<double> x = P::inputs(bf16, -8, 8);
  constexpr std::size_t kPairs = 10'000'000;
  for (auto _ : st) {
    P::PairCheck c(gelu::zoo::from_registry(*gelu::find_activation("gelu")), bf16);
    for (std::size_t i = 0; i < kPairs; ++i) {
      const double v = x[i % x.size()];
      c.add(i, v, bf16.round(0.5 * v));
    }
    benchmark::DoNotOptimize(c.result().max_ulp);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kPairs));
}

/// `gelulab check` / gelulab.check's core on 10^7 float32 pairs (uniform on [-8, 8], y the correctly rounded
/// value): gelu::check::Checker (the reference, the ULP and absolute errors, the histogram, the ten worst,
/// the specials, one --max-ulp budget). Its peer in the same run: the reference alone (the registry's double
/// GELU rounded to float, 10^7 times), the floor any checker of correctly rounded values pays.
std::vector<float> f32_inputs(std::size_t n) {
  std::vector<float> x(n);
  std::uint64_t s = 0x9e3779b97f4a7c15ULL;
  for (float& v : x) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    v = static_cast<float>(-8.0 + 16.0 * static_cast<double>(s >> 11) * 0x1p-53);
  }
  return x;
}

void BM_check_f32(benchmark::State& st) {
  constexpr std::size_t kPairs = 10'000'000;
  const std::vector<float> x = f32_inputs(kPairs);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  std::vector<float> y(kPairs);
  for (std::size_t i = 0; i < kPairs; ++i) y[i] = static_cast<float>(g.eval(x[i]));
  for (auto _ : st) {
    gelu::check::Setup s;
    s.reference = gelu::zoo::from_registry(g);
    s.fn = "gelu";
    s.format = Format(FormatId::F32);
    gelu::check::Scope b;
    b.options = true;
    b.name = "--max-ulp 1";
    b.limits.max_ulp = 1;
    s.budget.scopes.push_back(b);
    gelu::check::Checker c(s);
    // As the readers and gelulab.check feed it: batches of 64 Ki pairs (reference values on the pool).
    std::vector<double> bx(65536), by(65536);
    for (std::size_t first = 0; first < kPairs; first += bx.size()) {
      const std::size_t n = std::min(bx.size(), kPairs - first);
      for (std::size_t k = 0; k < n; ++k) bx[k] = x[first + k], by[k] = y[first + k];
      c.add_many(bx.data(), by.data(), n, first);
    }
    benchmark::DoNotOptimize(c.result("bench").finite.max_ulp);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kPairs));
}

void BM_reference_f32(benchmark::State& st) {
  constexpr std::size_t kPairs = 10'000'000;
  const std::vector<float> x = f32_inputs(kPairs);
  const gelu::zoo::Entry e = gelu::zoo::from_registry(*gelu::find_activation("gelu"));
  const Format f64(FormatId::F64);
  for (auto _ : st) {
    double sum = 0;
    for (std::size_t i = 0; i < kPairs; ++i) sum += static_cast<float>(e.eval(x[i], 0, f64));
    benchmark::DoNotOptimize(sum);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kPairs));
}

void register_all() {
  benchmark::RegisterBenchmark("check/f32/1e7", BM_check_f32)->Unit(benchmark::kMillisecond)->Iterations(1);
  benchmark::RegisterBenchmark("reference/f32/1e7", BM_reference_f32)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  for (const char* id : {"gelu", "tanh_form", "sigmoid_form", "erf_naive", "erf_as7126", "f16_lut", "ibert",
                         "pwl256", "tanh_fit_ac"})
    benchmark::RegisterBenchmark((std::string("sweep/bf16/") + id).c_str(), BM_sweep, std::string(id),
                                 FormatId::BF16)
        ->Unit(benchmark::kMillisecond);
  for (const char* id : {"tanh_form", "erf_naive"})
    benchmark::RegisterBenchmark((std::string("sweep/f16/") + id).c_str(), BM_sweep, std::string(id),
                                 FormatId::F16)
        ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("sweep/e4m3/tanh_form", BM_sweep, std::string("tanh_form"), FormatId::E4M3)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("tails/f16/tanh_form", BM_tails, std::string("tanh_form"), FormatId::F16)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("tails/f32/erf_naive", BM_tails, std::string("erf_naive"), FormatId::F32)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("pair_check/bf16/1e7", BM_pair_check)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

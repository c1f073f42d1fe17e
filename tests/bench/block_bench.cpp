// Speed of the block formats (docs/precision.md, "Block formats"): the block-distribution error of 10^6
// blocks of 32 (what `gelulab error --dtype mxfp4 --block-dist normal:0,1 --num-blocks 1000000` computes:
// drawing, the function under test and the reference GELU as eval_bounded's double-only values settled by
// block_error's intervals, storing block by block, scoring on each block's lattice;
// target under a second) against a copy of the same bytes (the bandwidth line), and the exhaustive
// single-value sweep of the 4-, 6- and 8-bit element formats.
//
//   ./build/tests/bench/block_bench
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/block_format.hpp"
#include "gelu/bounded_reference.hpp"
#include "gelu/precision.hpp"
#include "gelu/stochastic.hpp"
#include "gelu/zoo.hpp"

namespace {

using gelu::BlockFormat;
using gelu::BlockFormatId;
using gelu::Format;
using gelu::FormatId;

constexpr std::size_t kBlocks = 1'000'000, kBlock = 32, kN = kBlocks * kBlock;

/// The whole pipeline of `gelulab error --fn gelu_tanh --vs gelu --dtype mxfp4 --block-dist normal:0,1
/// --num-blocks 1000000`: both functions as bounded double-only values (bounded_values), settled block by
/// block.
void BM_block_dist_error(benchmark::State& st, BlockFormatId id) {
  const BlockFormat f(id);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const gelu::Activation& t = *gelu::find_activation("gelu_tanh");
  const std::size_t n = kBlocks * static_cast<std::size_t>(f.block_size());
  for (auto _ : st) {
    const std::vector<double> x = gelu::stochastic::sample_normal(0, 1, n, 1);
    const gelu::BoundedReference yb = gelu::bounded_values(t, x);
    const gelu::BlockErrorReport r = gelu::block_error(f, x, yb, gelu::bounded_values(g, x));
    benchmark::DoNotOptimize(r.max_ulp);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kBlocks));
}

/// `gelulab error --fn gelu --vs gelu --dtype mxfp4 --block-dist normal:0,1 --num-blocks 1000000`: one
/// evaluation serves as the outputs and the reference.
void BM_block_dist_error_same(benchmark::State& st, BlockFormatId id) {
  const BlockFormat f(id);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const std::size_t n = kBlocks * static_cast<std::size_t>(f.block_size());
  for (auto _ : st) {
    const std::vector<double> x = gelu::stochastic::sample_normal(0, 1, n, 1);
    const gelu::BoundedReference yb = gelu::bounded_values(g, x);
    benchmark::DoNotOptimize(gelu::block_error(f, x, yb, yb).max_ulp);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kBlocks));
}

/// The gelu_tanh pipeline with both functions computed accurately everywhere first (before eval_bounded).
void BM_block_dist_error_accurate(benchmark::State& st, BlockFormatId id) {
  const BlockFormat f(id);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const gelu::Activation& t = *gelu::find_activation("gelu_tanh");
  const std::size_t n = kBlocks * static_cast<std::size_t>(f.block_size());
  std::vector<double> y(n), ref(n);
  for (auto _ : st) {
    const std::vector<double> x = gelu::stochastic::sample_normal(0, 1, n, 1);
    t.eval(std::span<const double>(x), std::span<double>(y));
    g.eval(std::span<const double>(x), std::span<double>(ref));
    benchmark::DoNotOptimize(gelu::block_error(f, x, y, ref).max_ulp);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kBlocks));
}

/// Only the storing and scoring (block_error) of the same 10^6 blocks.
void BM_block_error_only(benchmark::State& st, BlockFormatId id) {
  const BlockFormat f(id);
  const std::size_t n = kBlocks * static_cast<std::size_t>(f.block_size());
  const std::vector<double> x = gelu::stochastic::sample_normal(0, 1, n, 1);
  std::vector<double> y(n), ref(n);
  gelu::find_activation("gelu_tanh")->eval(std::span<const double>(x), std::span<double>(y));
  gelu::find_activation("gelu")->eval(std::span<const double>(x), std::span<double>(ref));
  for (auto _ : st) benchmark::DoNotOptimize(gelu::block_error(f, x, y, ref).max_ulp);
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kBlocks));
}

/// The peer: copying the three arrays block_error reads and the one it writes (4 · 32 · 10^6 doubles).
void BM_copy_peer(benchmark::State& st) {
  std::vector<double> a(4 * kN, 1.0), b(4 * kN);
  for (auto _ : st) {
    std::memcpy(b.data(), a.data(), a.size() * sizeof(double));
    benchmark::DoNotOptimize(b.data());
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * kBlocks));
}

/// Every value of a small element format, exhaustively (the precision lab's single-value sweep).
void BM_small_sweep(benchmark::State& st, FormatId storage) {
  const gelu::zoo::Entry e = *gelu::zoo::resolve("tanh_form");
  const gelu::precision::SweepSpec spec{Format(storage), Format(FormatId::F32)};
  const gelu::analysis::FunctionSpec ref = gelu::analysis::spec(*gelu::find_activation("gelu"));
  for (auto _ : st) benchmark::DoNotOptimize(gelu::precision::sweep(e, ref, spec).errors.ulp_stats.max);
}

}  // namespace

BENCHMARK_CAPTURE(BM_block_dist_error, mxfp4, BlockFormatId::MXFP4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_block_dist_error_same, mxfp4, BlockFormatId::MXFP4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_block_dist_error_accurate, mxfp4, BlockFormatId::MXFP4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_block_dist_error, nvfp4, BlockFormatId::NVFP4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_block_error_only, mxfp4, BlockFormatId::MXFP4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_block_error_only, mxfp8_e4m3, BlockFormatId::MXFP8_E4M3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_copy_peer)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_small_sweep, e2m1, FormatId::E2M1)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_small_sweep, e2m3, FormatId::E2M3)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_small_sweep, e3m2, FormatId::E3M2)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_small_sweep, e4m3, FormatId::E4M3)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();

// ffn_bench: µs per training step of gelu::ffn (float32, one thread) against PyTorch in the same run.
//
//   build-dir/tests/bench/ffn_bench [--no-torch] [google benchmark flags]
//
// The step is Trainer<float>::step(): gather a shuffled minibatch of 256 spiral points, forward through
// 2 -> H -> H -> 1 with GELU (the registry's vectorized float kernels), BCE with logits, backward, Adam.
// Afterwards, when /usr/bin/python3 imports torch, tests/bench/torch_ffn.py times the same step in PyTorch
// (torch.set_num_threads(1), OpenBLAS) and the table of both with the speed-up is printed.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/network.hpp"
#include "gelu/ffn/train.hpp"

namespace {

using namespace gelu::ffn;

constexpr int kWidths[] = {32, 128};

void BM_FfnTrainStep(benchmark::State& state) {
  const int h = static_cast<int>(state.range(0));
  DatasetOptions o;
  o.id = "spiral";
  const Dataset data = make_dataset(o);
  const int layers[] = {2, h, h, 1};
  Network<float> net(make_spec(layers, "gelu"));
  net.init(Init::He, 1);
  TrainConfig c;
  c.loss = LossKind::Bce;
  c.optimizer = OptimizerKind::Adam;
  c.batch = 256;
  Trainer<float> trainer(net, data, c);
  for (int i = 0; i < 50; ++i) trainer.step();  // warm caches and the allocator
  double sink = 0;
  for (auto _ : state) sink += trainer.step();
  benchmark::DoNotOptimize(sink);
}
BENCHMARK(BM_FfnTrainStep)->Arg(32)->Arg(64)->Arg(128)->Arg(256)->Unit(benchmark::kMicrosecond)->MinTime(1.0);

/// Forward + f' of the GELU layers alone, to show how much of a step the activation costs.
void BM_GeluForwardAndDerivative(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0)) * 256;
  const gelu::Activation* g = gelu::find_activation("gelu");
  std::vector<float> z(n), a(n), d(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = static_cast<float>(i % 1000) * 0.008f - 4.0f;
  for (auto _ : state) {
    g->eval(std::span<const float>(z), std::span<float>(a), 0);
    g->eval(std::span<const float>(z), std::span<float>(d), 1);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_GeluForwardAndDerivative)->Arg(32)->Arg(128)->Unit(benchmark::kMicrosecond);

/// Records the real time per iteration of each BM_FfnTrainStep width.
class Collector : public benchmark::ConsoleReporter {
 public:
  std::map<int, double> us, cpu_us;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const std::string name = r.benchmark_name();
      if (name.rfind("BM_FfnTrainStep/", 0) == 0 && r.run_type == Run::RT_Iteration) {
        const int h = std::stoi(name.substr(std::strlen("BM_FfnTrainStep/")));
        us[h] = r.GetAdjustedRealTime();
        cpu_us[h] = r.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  bool torch = true;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-torch") == 0)
      torch = false;
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::Shutdown();
  if (!torch) return 0;

  std::string widths;
  for (const auto& [h, us] : collector.us) {
    if (!widths.empty()) widths += ',';
    widths += std::to_string(h);
  }
  if (widths.empty()) return 0;
  const std::string cmd = "/usr/bin/python3 '" GELU_TORCH_FFN_SCRIPT "' --widths " + widths + " 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return 0;
  std::map<int, double> torch_us, torch_cpu_us;
  std::string blas;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    int h = 0;
    double us = 0, cpu = 0;
    char lib[3000] = "";
    if (std::sscanf(line, "torch H=%d us_per_step=%lf cpu_us_per_step=%lf blas=%2999s", &h, &us, &cpu, lib) >=
        3) {
      torch_us[h] = us;
      torch_cpu_us[h] = cpu;
      blas = lib;
    } else {
      std::fputs(line, stdout);  // python's own messages (no torch, BLAS warning)
    }
  }
  if (pclose(p) != 0 || torch_us.empty()) {
    std::printf("\nPyTorch peer not run (no python3-torch?): only gelu::ffn figures above.\n");
    return 0;
  }
  std::printf("\nTraining step, Adam + BCE, batch 256, 2->H->H->1 GELU, float32, one thread\n");
  std::printf("PyTorch %s BLAS: %s\n", "1.13", blas.c_str());
  std::printf("%6s | %12s %12s %8s | %12s %12s %8s\n", "H", "ffn wall us", "torch wall", "speed-up",
              "ffn CPU us", "torch CPU", "speed-up");
  for (const auto& [h, us] : collector.us) {
    if (!torch_us.count(h)) continue;
    const double c = collector.cpu_us[h], tw = torch_us[h], tc = torch_cpu_us[h];
    std::printf("%6d | %12.1f %12.1f %7.2fx | %12.1f %12.1f %7.2fx\n", h, us, tw, tw / us, c, tc, tc / c);
  }
  return 0;
}

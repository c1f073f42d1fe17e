// One headless GL context per test program, and CPU/GPU training runs side by side.
#pragma once

// GCC 12 reports false -Wmaybe-uninitialized inside avx512fintrin.h for Eigen's AVX-512 packets (GCC bug
// 105593; see gelu/ffn/network.hpp): the pragma must precede the first Eigen include.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/network.hpp"
#include "gelu/ffn/train.hpp"
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/ffn.hpp"

namespace gelu::gpu::test {

/// The process-wide context. A machine where it cannot be created fails every test that asks (no skipping).
inline Context* ffn_context() {
  static std::string error;
  static std::unique_ptr<Context> ctx = Context::create_headless(&error);
  if (!ctx) ADD_FAILURE() << "no GPU context: " << error;
  if (ctx) ctx->make_current();
  return ctx.get();
}

/// Batch losses of `steps` steps of the CPU Trainer<float> and of FfnTrainer from the same initial network.
struct SideBySide {
  std::vector<double> cpu, gpu;
  ffn::Metrics cpu_metrics, gpu_metrics;
  ffn::Network<float>::Vec cpu_params, gpu_params;
  std::string error;
};

inline SideBySide train_both(Context& ctx, const ffn::NetworkSpec& spec, const ffn::Dataset& data,
                             const ffn::TrainConfig& config, int steps, std::uint64_t init_seed = 1) {
  SideBySide r;
  ffn::Network<float> net(spec);
  net.init(ffn::Init::He, init_seed);
  ffn::Network<float> cpu_net = net, gpu_net = net;
  {
    ffn::Trainer<float> t(cpu_net, data, config);
    for (int s = 0; s < steps; ++s) r.cpu.push_back(t.step());
    r.cpu_metrics = t.evaluate();
  }
  FfnTrainer g(ctx, net, data, config);
  if (!g.ok()) {
    r.error = g.error();
    return r;
  }
  for (int s = 0; s < steps; ++s) r.gpu.push_back(g.step());
  r.gpu_metrics = g.evaluate();
  g.download(gpu_net);
  if (!g.ok()) r.error = g.error();
  r.cpu_params = cpu_net.parameters();
  r.gpu_params = gpu_net.parameters();
  return r;
}

}  // namespace gelu::gpu::test

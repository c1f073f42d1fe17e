// GPU training (core/gpu/ffn, shaders/ffn) against the CPU Trainer: the same model, seed and data give the
// same trajectory (loss after 200 steps within 1e-4 relative) for dense nets with and without bias, every
// loss, both optimizers, schedules and weight decay, GLU blocks and stochastic GELU; the spiral run
// reaches 97% test accuracy; failures come back as text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "ffn_gpu_fixture.hpp"

namespace gelu::ffn {
namespace {

using gpu::test::ffn_context;
using gpu::test::train_both;

double rel(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-30);
}

struct Case {
  const char* name;
  const char* dataset;
  std::vector<int> layers;
  const char* act;
  GluKind glu = GluKind::None;
  bool stochastic = false;
  bool bias = true;
  OptimizerKind optimizer = OptimizerKind::Adam;
  double lr = 0.01;
  double weight_decay = 0.0;
  Schedule schedule = Schedule::Constant;
  int classes = 2;
  int batch = 256;
};

void expect_same_trajectory(const Case& c, int steps, double tol) {
  gpu::Context* ctx = ffn_context();
  ASSERT_NE(ctx, nullptr);
  DatasetOptions o;
  o.id = c.dataset;
  o.classes = c.classes;
  const Dataset d = make_dataset(o);
  const NetworkSpec spec = make_spec(c.layers, c.act, c.glu, c.stochastic, c.bias);
  TrainConfig cfg;
  cfg.loss = default_loss(d, spec.outputs);
  cfg.optimizer = c.optimizer;
  cfg.lr = c.lr;
  cfg.weight_decay = c.weight_decay;
  cfg.schedule = c.schedule;
  cfg.steps = steps;
  cfg.batch = c.batch;
  cfg.seed = 7;
  const auto r = train_both(*ctx, spec, d, cfg, steps);
  ASSERT_TRUE(r.error.empty()) << c.name << ": " << r.error;
  ASSERT_EQ(r.gpu.size(), r.cpu.size());
  std::printf("  %-20s step 1 rel %.1e  step %d rel %.1e  test loss rel %.1e\n", c.name,
              rel(r.gpu.front(), r.cpu.front()), steps, rel(r.gpu.back(), r.cpu.back()),
              rel(r.gpu_metrics.test_loss, r.cpu_metrics.test_loss));
  // The first step is one forward pass from identical weights: float rounding only.
  EXPECT_LE(rel(r.gpu.front(), r.cpu.front()), 1e-5)
      << c.name << " cpu " << r.cpu.front() << " gpu " << r.gpu.front();
  EXPECT_LE(rel(r.gpu.back(), r.cpu.back()), tol)
      << c.name << " step " << steps << ": cpu " << r.cpu.back() << " gpu " << r.gpu.back();
  EXPECT_LE(rel(r.gpu_metrics.test_loss, r.cpu_metrics.test_loss), tol)
      << c.name << ": cpu " << r.cpu_metrics.test_loss << " gpu " << r.gpu_metrics.test_loss;
  // Training did something (a trajectory that stays put would agree trivially).
  EXPECT_LT(r.cpu.back(), 0.8 * r.cpu.front()) << c.name;
  EXPECT_LE((r.gpu_params - r.cpu_params).cwiseAbs().maxCoeff(),
            1e-3f * std::max(1.0f, r.cpu_params.cwiseAbs().maxCoeff()))
      << c.name;
}

TEST(FfnGpu, DenseGeluAdamMatchesCpuAfter200Steps) {
  expect_same_trajectory({"gelu adam", "spiral", {2, 32, 32, 1}, "gelu"}, 200, 1e-4);
}
TEST(FfnGpu, DenseReluSgdMatchesCpuAfter200Steps) {
  Case c{"relu sgd", "moons", {2, 32, 32, 1}, "relu"};
  c.optimizer = OptimizerKind::Sgd;
  c.lr = 0.05;
  expect_same_trajectory(c, 200, 1e-4);
}
TEST(FfnGpu, NoBiasGeluSgdAndReluAdamMatchCpu) {
  Case c{"gelu sgd no bias", "circle", {2, 24, 16, 1}, "gelu"};
  c.bias = false;
  c.optimizer = OptimizerKind::Sgd;
  c.lr = 0.1;
  expect_same_trajectory(c, 200, 1e-4);
  Case r{"relu adam no bias", "xor", {2, 32, 32, 1}, "relu"};
  r.bias = false;
  expect_same_trajectory(r, 200, 1e-4);
}
TEST(FfnGpu, SoftmaxCeCosineWeightDecayMatchesCpu) {
  Case c{"ce cosine wd", "spiral", {2, 32, 32, 3}, "silu"};
  c.classes = 3;
  c.schedule = Schedule::Cosine;
  c.weight_decay = 1e-3;
  expect_same_trajectory(c, 200, 1e-4);
}
TEST(FfnGpu, MseRegressionStepScheduleOddBatchMatchesCpu) {
  Case c{"mse step tanh-gelu", "sin", {1, 20, 7, 1}, "gelu_tanh"};
  c.schedule = Schedule::Step;
  c.batch = 100;
  c.optimizer = OptimizerKind::Sgd;
  c.lr = 0.05;
  expect_same_trajectory(c, 200, 1e-4);
}
TEST(FfnGpu, GluBlocksMatchCpu) {
  expect_same_trajectory({"geglu", "moons", {2, 16, 16, 1}, "", GluKind::GeGlu}, 200, 1e-4);
  Case s{"swiglu no bias", "circle", {2, 12, 1}, "", GluKind::SwiGlu};
  s.bias = false;
  expect_same_trajectory(s, 200, 1e-4);
}
TEST(FfnGpu, StochasticGeluUsesTheCpusDraws) {
  // Same uniforms as the CPU; a mask may flip only where u is within float rounding of Φ(z), so the first
  // steps agree to rounding and the end of the run closely (the tolerance allows a few flipped masks).
  Case c{"stochastic gelu", "moons", {2, 32, 32, 1}, "gelu"};
  c.stochastic = true;
  expect_same_trajectory(c, 200, 1e-2);
  Case g{"stochastic geglu", "moons", {2, 16, 1}, "", GluKind::GeGlu};
  g.stochastic = true;
  expect_same_trajectory(g, 50, 1e-2);
}

TEST(FfnGpu, SpiralReachesNinetySevenPercentTestAccuracy) {
  // The command with --backend gpu: the CLI seeds the data and weights with 1, the batches with 1 +
  // 0x5EED.
  gpu::Context* ctx = ffn_context();
  ASSERT_NE(ctx, nullptr);
  DatasetOptions o;
  o.seed = 1;
  const Dataset d = make_dataset(o);
  const int layers[] = {2, 32, 32, 1};
  Network<float> net(make_spec(layers, "gelu"));
  net.init(Init::He, 1);
  TrainConfig c;
  c.seed = 1 + 0x5EED;
  gpu::FfnTrainer t(*ctx, net, d, c);
  ASSERT_TRUE(t.ok()) << t.error();
  for (int s = 0; s < 3000; ++s) t.step();
  const Metrics m = t.evaluate();
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_GE(m.test_accuracy, 0.97);
  EXPECT_EQ(t.steps_done(), 3000);
  // The downloaded network evaluates the same on the CPU.
  t.download(net);
  Trainer<float> cpu(net, d, c);
  const Metrics mc = cpu.evaluate();
  EXPECT_EQ(mc.test_accuracy, m.test_accuracy);
  EXPECT_LE(rel(mc.test_loss, m.test_loss), 1e-5);
}

TEST(FfnGpu, GradientAndGradNormsMatchTheCpuAfterOneStep) {
  gpu::Context* ctx = ffn_context();
  ASSERT_NE(ctx, nullptr);
  const Dataset d = make_dataset(DatasetOptions{});
  const int layers[] = {2, 8, 6, 1};
  Network<float> net(make_spec(layers, "elu"));
  net.init(Init::Xavier, 3);
  Network<float> cpu_net = net;
  TrainConfig c;
  Trainer<float> cpu(cpu_net, d, c);
  gpu::FfnTrainer g(*ctx, net, d, c);
  ASSERT_TRUE(g.ok()) << g.error();
  cpu.step();
  g.step();
  const std::vector<float> grad = g.download_gradient();
  ASSERT_EQ(grad.size(), net.parameter_count());
  const auto& ref = cpu.last_gradient();
  for (std::size_t i = 0; i < grad.size(); ++i)
    EXPECT_NEAR(grad[i], ref(static_cast<Eigen::Index>(i)),
                1e-5 + 1e-4 * std::abs(ref(static_cast<Eigen::Index>(i))))
        << net.tensors()[0].name << " index " << i;
  const auto gn = g.grad_norms(), cn = cpu.grad_norms();
  ASSERT_EQ(gn.size(), cn.size());
  for (std::size_t i = 0; i < gn.size(); ++i) EXPECT_LE(rel(gn[i], cn[i]), 1e-4) << i;
}

TEST(FfnGpu, LayerStatsAndGridMatchTheCpu) {
  gpu::Context* ctx = ffn_context();
  ASSERT_NE(ctx, nullptr);
  const Dataset d = make_dataset(DatasetOptions{});
  const int layers[] = {2, 8, 6, 1};
  Network<float> dead(make_spec(layers, "relu"));
  dead.init(Init::He, 1);
  dead.tensor(1).setConstant(-100.0f);  // h0.b: every unit of the first layer is off for every input
  gpu::FfnTrainer td(*ctx, dead, d, TrainConfig{});
  ASSERT_TRUE(td.layer_stats().empty());  // no step yet
  td.step();
  const auto ds = td.layer_stats(16);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].dead_fraction, 1.0);
  EXPECT_EQ(ds[0].grad_norm, 0.0);
  EXPECT_EQ(ds[0].histogram[0], 8 * 256);
  EXPECT_EQ(ds[1].dead_fraction, 1.0);

  Network<float> net(make_spec(layers, "gelu"));
  net.init(Init::He, 2);
  Network<float> cpu_net = net;
  Trainer<float> cpu(cpu_net, d, TrainConfig{});
  gpu::FfnTrainer g(*ctx, net, d, TrainConfig{});
  for (int s = 0; s < 20; ++s) {
    cpu.step();
    g.step();
  }
  // evaluate() has its own buffers: the statistics still describe the latest training step.
  g.evaluate();
  const auto gs = g.layer_stats(16), cs = cpu.layer_stats(16);
  ASSERT_EQ(gs.size(), cs.size());
  for (std::size_t i = 0; i < gs.size(); ++i) {
    EXPECT_EQ(gs[i].units, cs[i].units);
    EXPECT_EQ(gs[i].dead_fraction, cs[i].dead_fraction);
    EXPECT_NEAR(gs[i].lo, cs[i].lo, 1e-5);
    EXPECT_NEAR(gs[i].hi, cs[i].hi, 1e-5);
    EXPECT_LE(rel(gs[i].grad_norm, cs[i].grad_norm), 1e-4);
    int diff = 0;
    for (std::size_t b = 0; b < 16; ++b) diff += std::abs(gs[i].histogram[b] - cs[i].histogram[b]);
    EXPECT_LE(diff, 4) << "values on a bin edge may round either way";
  }
  const GridOutput gg = g.grid(20, 10), cg = cpu.grid(20, 10);
  ASSERT_EQ(gg.values.size(), 200u);
  ASSERT_EQ(cg.values.size(), 200u);
  for (std::size_t k = 0; k < 200; ++k) EXPECT_NEAR(gg.values[k], cg.values[k], 1e-5) << k;
}

TEST(FfnGpu, AMissingShaderDirectoryIsAnErrorNotACrash) {
  gpu::Context* ctx = ffn_context();
  ASSERT_NE(ctx, nullptr);
  const Dataset d = make_dataset(DatasetOptions{});
  const int layers[] = {2, 4, 1};
  Network<float> net(make_spec(layers, "gelu"));
  gpu::FfnTrainer t(*ctx, net, d, TrainConfig{},
                    gpu::ShaderLibrary::from_directory("/nonexistent/gelu-shaders"));
  EXPECT_FALSE(t.ok());
  EXPECT_NE(t.error().find("/nonexistent/gelu-shaders"), std::string::npos) << t.error();
  EXPECT_TRUE(std::isnan(t.step()));
  TrainConfig bad;
  bad.lr = -1;
  EXPECT_THROW(gpu::FfnTrainer(*ctx, net, d, bad), std::invalid_argument);
}

}  // namespace
}  // namespace gelu::ffn

// Datasets, optimizers, schedules, teaching statistics, and training quality (spiral >= 97% test accuracy).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/network.hpp"
#include "gelu/ffn/train.hpp"

namespace gelu::ffn {
namespace {

TEST(Dataset, EveryDatasetIsSeededSplitAndBalanced) {
  for (const DatasetInfo& info : datasets()) {
    DatasetOptions o;
    o.id = info.id;
    o.samples = 400;
    const Dataset a = make_dataset(o), b = make_dataset(o);
    EXPECT_EQ(a.x_train, b.x_train) << info.id;
    EXPECT_EQ(a.y_test, b.y_test) << info.id;
    EXPECT_EQ(a.x_train.cols(), 300) << info.id;
    EXPECT_EQ(a.x_test.cols(), 100) << info.id;
    EXPECT_EQ(a.inputs, info.inputs);
    EXPECT_TRUE(a.x_train.allFinite() && a.y_train.allFinite());
    o.seed = 2;
    EXPECT_NE(make_dataset(o).x_train, a.x_train) << info.id;
    if (info.task == Task::Classification) {
      const double ones = a.y_train.sum() / static_cast<double>(a.y_train.size());
      EXPECT_GT(ones, 0.3) << info.id;
      EXPECT_LT(ones, 0.7) << info.id;
    }
  }
}

TEST(Dataset, NoiseAndClassesAreHonoured) {
  DatasetOptions o;
  o.id = "sin";
  o.noise = 0;
  const Dataset d = make_dataset(o);
  for (Eigen::Index i = 0; i < d.x_train.cols(); ++i)
    EXPECT_DOUBLE_EQ(d.y_train(i), std::sin(d.x_train(0, i)));
  o.id = "spiral";
  o.classes = 3;
  EXPECT_EQ(make_dataset(o).y_train.maxCoeff(), 2.0);
  o.id = "moons";
  EXPECT_THROW(make_dataset(o), std::invalid_argument);
  o.id = "nope";
  EXPECT_THROW(make_dataset(o), std::invalid_argument);
}

// The validate-only mode of gelulab train checks against an outline: same checks and fields, no points
// (tests/fuzz/fuzz_cli timed out generating 5.5 million of them).
TEST(Dataset, OutlineHasTheChecksFieldsAndSplitButNoPoints) {
  for (const DatasetInfo& info : datasets()) {
    DatasetOptions o;
    o.id = info.id;
    o.samples = 101;
    const Dataset d = make_dataset(o), e = dataset_outline(o);
    EXPECT_EQ(e.id, d.id);
    EXPECT_EQ(e.task, d.task);
    EXPECT_EQ(e.inputs, d.inputs);
    EXPECT_EQ(e.classes, d.classes);
    EXPECT_EQ(e.noise, d.noise);
    EXPECT_EQ(e.lo[1], d.lo[1]);
    EXPECT_EQ(e.hi[0], d.hi[0]);
    EXPECT_EQ(e.x_train.cols(), d.x_train.cols()) << info.id;
    EXPECT_EQ(e.x_test.cols(), d.x_test.cols()) << info.id;
    EXPECT_EQ(e.x_train.size() + e.y_train.size() + e.y_test.size(), 0);
  }
  DatasetOptions o;
  o.samples = 10'000'000;
  EXPECT_EQ(dataset_outline(o).x_train.cols() + dataset_outline(o).x_test.cols(), 10'000'000);
  o.samples = 3;
  EXPECT_THROW(dataset_outline(o), std::invalid_argument);
  o.samples = 100;
  o.id = "xor";
  o.classes = 3;
  EXPECT_THROW(dataset_outline(o), std::invalid_argument);
}

TEST(Schedule, ConstantStepCosine) {
  TrainConfig c;
  c.lr = 0.1;
  c.steps = 300;
  EXPECT_DOUBLE_EQ(learning_rate(c, 299), 0.1);
  c.schedule = Schedule::Step;
  EXPECT_DOUBLE_EQ(learning_rate(c, 99), 0.1);
  EXPECT_NEAR(learning_rate(c, 100), 0.01, 1e-15);
  EXPECT_NEAR(learning_rate(c, 250), 0.001, 1e-15);
  c.schedule = Schedule::Cosine;
  EXPECT_DOUBLE_EQ(learning_rate(c, 0), 0.1);
  EXPECT_NEAR(learning_rate(c, 150), 0.05, 1e-15);
  EXPECT_NEAR(learning_rate(c, 300), 0.0, 1e-15);
}

TEST(Optimizer, FirstStepsMatchTheFormulas) {
  TrainConfig c;
  c.lr = 0.5;
  Optimizer<double>::Vec p(2), g(2);
  p << 1.0, -2.0;
  g << 0.5, -4.0;
  Optimizer<double> adam(OptimizerKind::Adam, 2);
  adam.step(p, g, c, c.lr);
  // Bias-corrected first Adam step is lr·g/(|g| + ε) ≈ lr·sign(g).
  EXPECT_NEAR(p(0), 1.0 - 0.5 * 0.5 / (0.5 + 1e-8), 1e-12);
  EXPECT_NEAR(p(1), -2.0 + 0.5 * 4.0 / (4.0 + 1e-8), 1e-12);
  Optimizer<double> sgd(OptimizerKind::Sgd, 2);
  p << 1.0, -2.0;
  sgd.step(p, g, c, 0.1);
  sgd.step(p, g, c, 0.1);  // v = g, then v = 0.9 g + g
  EXPECT_NEAR(p(0), 1.0 - 0.1 * 0.5 - 0.1 * 1.9 * 0.5, 1e-15);
}

TEST(Training, WeightDecayShrinksWeightsButNotBiases) {
  DatasetOptions o;
  const Dataset d = make_dataset(o);
  const int layers[] = {2, 8, 1};
  Network<double> net(make_spec(layers, "gelu"));
  net.init(Init::He, 1);
  TrainConfig c;
  c.optimizer = OptimizerKind::Sgd;
  c.momentum = 0;
  c.lr = 0.1;
  c.weight_decay = 0.5;
  Network<double> ref = net;
  TrainConfig c0 = c;
  c0.weight_decay = 0;
  Trainer<double> t(net, d, c), t0(ref, d, c0);
  t.step();
  t0.step();
  const auto diff = (net.parameters() - ref.parameters()).eval();
  // The only difference after one step is −lr·λ·θ on weights.
  const auto expected =
      (-0.1 * 0.5 *
       net.decay_mask().cwiseProduct(Network<double>::Vec((ref.parameters() + 0.1 * t0.last_gradient()))))
          .eval();
  EXPECT_LE((diff - expected).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(Training, SpiralReachesNinetySevenPercentAndIsDeterministic) {
  // The command: --dataset spiral --layers 2,32,32,1 --act gelu --optimizer adam --lr 0.01 --steps
  // 3000
  // --seed 1 (the CLI seeds the data and the weights with 1 and the batches with 1 + 0x5EED).
  DatasetOptions o;
  o.seed = 1;
  const Dataset d = make_dataset(o);
  const int layers[] = {2, 32, 32, 1};
  double acc[2] = {0, 0}, loss[2] = {0, 0};
  for (int run = 0; run < 2; ++run) {
    Network<float> net(make_spec(layers, "gelu"));
    net.init(Init::He, 1);
    TrainConfig c;
    c.seed = 1 + 0x5EED;
    Trainer<float> t(net, d, c);
    for (int s = 0; s < 3000; ++s) t.step();
    const Metrics m = t.evaluate();
    acc[run] = m.test_accuracy;
    loss[run] = m.test_loss;
  }
  EXPECT_GE(acc[0], 0.97);
  EXPECT_EQ(loss[0], loss[1]);  // bit-identical for a fixed seed
}

TEST(Training, EveryVariantLearnsSomething) {
  DatasetOptions o;
  o.id = "moons";
  const Dataset d = make_dataset(o);
  const int layers[] = {2, 16, 16, 1};
  struct V {
    const char* act;
    GluKind glu;
    bool stochastic;
  } variants[] = {{"relu", GluKind::None, false}, {"gelu", GluKind::None, true},
                  {"", GluKind::GeGlu, false},    {"", GluKind::SwiGlu, false},
                  {"", GluKind::ReGlu, false},    {"mish", GluKind::None, false}};
  for (const V& v : variants) {
    Network<float> net(make_spec(layers, v.act, v.glu, v.stochastic));
    net.init(Init::He, 3);
    TrainConfig c;
    Trainer<float> t(net, d, c);
    const double before = t.evaluate().test_loss;
    for (int s = 0; s < 300; ++s) t.step();
    const Metrics m = t.evaluate();
    EXPECT_LT(m.test_loss, 0.5 * before) << v.act << to_string(v.glu);
    EXPECT_GT(m.test_accuracy, 0.9) << v.act << to_string(v.glu);
  }
}

TEST(Stats, DeadUnitsHistogramsGradNormsAndGrid) {
  DatasetOptions o;
  const Dataset d = make_dataset(o);
  const int layers[] = {2, 8, 6, 1};
  Network<float> net(make_spec(layers, "relu"));
  net.init(Init::He, 1);
  net.tensor(1).setConstant(-100.0f);  // h0.b: every unit of the first layer is off for every input
  Trainer<float> t(net, d, TrainConfig{});
  t.step();
  const auto stats = t.layer_stats(16);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].dead_fraction, 1.0);
  EXPECT_EQ(stats[0].grad_norm, 0.0);
  EXPECT_EQ(stats[0].histogram[0], 8 * 256);  // all zeros
  EXPECT_EQ(stats[1].dead_fraction, 1.0);     // its input is all zeros and its bias 0: relu'(0) = 0
  EXPECT_GT(t.grad_norms().back(), 0.0);      // the output bias still learns

  Network<float> healthy(make_spec(layers, "relu"));
  healthy.init(Init::He, 1);
  Trainer<float> th(healthy, d, TrainConfig{});
  th.step();
  const auto hs = th.layer_stats(16);
  EXPECT_LT(hs[0].dead_fraction, 1.0);
  EXPECT_GT(hs[0].grad_norm, 0.0);
  int total = 0;
  for (int c : hs[1].histogram) total += c;
  EXPECT_EQ(total, 6 * 256);
  EXPECT_GT(hs[1].hi, hs[1].lo);
  const GridOutput g = th.grid(20, 10);
  ASSERT_EQ(g.values.size(), 200u);
  for (double v : g.values) EXPECT_TRUE(v >= 0 && v <= 1);
}

TEST(Divergence, NonFiniteAlwaysGrowthPastTheFactorWhenAsked) {
  EXPECT_TRUE(diverged(NAN, 1, 0));
  EXPECT_TRUE(diverged(INFINITY, 1, 0));
  EXPECT_TRUE(diverged(-INFINITY, 1, kDivergedGrowth));
  EXPECT_FALSE(diverged(1e30, 1, 0));  // growth 0 (gelulab train): a finite loss never diverged
  EXPECT_FALSE(diverged(0.5, 1, kDivergedGrowth));
  EXPECT_FALSE(diverged(1e6, 1, 1e6));  // past the factor, not at it
  EXPECT_TRUE(diverged(1.000001e6, 1, 1e6));
  EXPECT_TRUE(diverged(2.6e5, 0.25, 1e6));
  EXPECT_FALSE(diverged(1e30, NAN, 1e6));  // no usable reference: only non-finite counts
  EXPECT_FALSE(diverged(1e30, 0, 1e6));
  EXPECT_FALSE(diverged(1e30, -1, 1e6));
  EXPECT_FALSE(diverged(1e30, INFINITY, 1e6));
}

// The hidden-space view (the FFN lab's): the plane's grid lines and the training points in two units'
// coordinates are the layer's activations, computed here by hand from the weights.
TEST(HiddenSpace, CoordinatesAreTheLayersActivationsByHand) {
  const Dataset d = make_dataset(DatasetOptions{});
  const int layers[] = {2, 5, 4, 1};
  Network<float> net(make_spec(layers, "relu"));
  net.init(Init::He, 3);
  // Plain loops, not an Eigen product: the point is an independent computation of W·x + b, then ReLU.
  const auto layer = [&](int b, const std::vector<double>& x) {
    const auto& blk = net.blocks()[static_cast<std::size_t>(b)];
    const auto t0 = static_cast<std::size_t>(blk.t0);
    const auto w = net.tensor(t0);
    const auto bias = net.tensor(t0 + 1);
    std::vector<double> out(static_cast<std::size_t>(w.rows()));
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
      double z = bias(i, 0);
      for (Eigen::Index j = 0; j < w.cols(); ++j) z += double(w(i, j)) * x[static_cast<std::size_t>(j)];
      out[static_cast<std::size_t>(i)] = std::max(z, 0.0);
    }
    return out;
  };
  const HiddenSpace h = hidden_space(net, d, 0, 1, 3, 5, 7);
  ASSERT_EQ(h.xs.size(), 10u);  // 5 lines x = const, 5 lines y = const
  ASSERT_EQ(h.xs[0].size(), 7u);
  ASSERT_EQ(h.px.size(), static_cast<std::size_t>(d.x_train.cols()));
  // Line 6 is the second y = const line, y = lo + (hi − lo)/4; its point 2 has x = lo + (hi − lo)·2/6.
  const std::vector<double> x = {double(float(d.lo[0] + (d.hi[0] - d.lo[0]) * 2 / 6)),
                                 double(float(d.lo[1] + (d.hi[1] - d.lo[1]) * 1 / 4))};
  const std::vector<double> a = layer(0, x);
  EXPECT_NEAR(h.xs[6][2], a[1], 1e-5);
  EXPECT_NEAR(h.ys[6][2], a[3], 1e-5);
  // A training point through two layers.
  const HiddenSpace h2 = hidden_space(net, d, 1, 0, 2);
  const std::vector<double> p = {double(float(d.x_train(0, 17))), double(float(d.x_train(1, 17)))};
  const std::vector<double> a2 = layer(1, layer(0, p));
  EXPECT_NEAR(h2.px[17], a2[0], 1e-5);
  EXPECT_NEAR(h2.py[17], a2[2], 1e-5);
  EXPECT_EQ(h2.label[17], static_cast<int>(d.y_train(17)));
  // ReLU never goes below zero; GELU does.
  for (std::size_t k = 0; k < h.px.size(); ++k) EXPECT_GE(std::min(h.px[k], h.py[k]), 0.0);
  Network<float> g(make_spec(layers, "gelu"));
  g.init(Init::He, 3);
  const HiddenSpace hg = hidden_space(g, d, 0, 1, 3);
  EXPECT_LT(*std::min_element(hg.px.begin(), hg.px.end()), 0.0);
  // A GLU block's units are its inner (gated) width.
  Network<float> glu(make_spec(layers, "gelu", GluKind::GeGlu));
  glu.init(Init::He, 3);
  EXPECT_EQ(hidden_units(glu, 0), default_glu_hidden(5));
  EXPECT_NO_THROW(hidden_space(glu, d, 0, 0, hidden_units(glu, 0) - 1));
  // What is not there is named.
  EXPECT_THROW(hidden_space(net, d, 2, 0, 1), std::invalid_argument);
  EXPECT_THROW(hidden_space(net, d, 0, 0, 5), std::invalid_argument);
  try {
    hidden_space(net, d, 0, 0, 7);
    ADD_FAILURE() << "unit 8 of a 5-unit layer was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "no unit 8 in hidden layer 1 (it has 5)");
  }
  DatasetOptions sin;
  sin.id = "sin";
  const Dataset one = make_dataset(sin);
  const int flat[] = {1, 4, 1};
  Network<float> n1(make_spec(flat, "relu"));
  EXPECT_THROW(hidden_space(n1, one, 0, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace gelu::ffn

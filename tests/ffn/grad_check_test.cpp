// Hand-written backward vs central finite differences (Richardson-extrapolated, double) on every parameter,
// for every registry activation, every GLU block, every loss, with and without bias, and stochastic GELU.
#include <gtest/gtest.h>

#include <cmath>

#include "gelu/ffn/network.hpp"
#include "gelu/ffn/train.hpp"

namespace gelu::ffn {
namespace {

using Mat = Network<double>::Mat;
using Vec = Network<double>::Vec;

struct Problem {
  Mat x, t;
  LossKind loss;
};

Problem make_problem(LossKind loss, int inputs, int outputs, int batch, std::uint64_t seed) {
  Rng rng(seed);
  Problem p{Mat(inputs, batch), Mat::Zero(outputs, batch), loss};
  for (Eigen::Index i = 0; i < p.x.size(); ++i) p.x.data()[i] = 1.5 * rng.normal();
  for (int c = 0; c < batch; ++c) {
    if (loss == LossKind::SoftmaxCe)
      p.t(static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(outputs))), c) = 1;
    else
      for (int r = 0; r < outputs; ++r)
        p.t(r, c) = loss == LossKind::Bce ? (rng.uniform() < 0.5 ? 0 : 1) : rng.normal();
  }
  return p;
}

// The loss and the "branch signature" of a forward pass: the sign of every pre-activation and every
// stochastic mask. Between two points with the same signature the loss is smooth (ReLU-like kinks sit at
// z = 0, mask flips where Φ(z) crosses the frozen uniform), so finite differences are only trusted there.
struct Eval {
  double loss = 0;
  std::vector<bool> signature;
};

Eval eval_loss(const Network<double>& net, const Problem& p, std::uint64_t mask_seed) {
  Workspace<double> ws;
  Rng rng(mask_seed);  // the same stochastic masks for every evaluation
  const Mat& z = net.forward(p.x, ws, Mode::Train, &rng);
  Eval e{loss<double>(p.loss, z, p.t, nullptr), {}};
  for (std::size_t b = 0; b + 1 < ws.blocks.size(); ++b) {
    const auto& w = ws.blocks[b];
    for (Eigen::Index i = 0; i < w.z.size(); ++i) {
      e.signature.push_back(w.z.data()[i] > 0);
      e.signature.push_back(w.d.data()[i] != 0);
    }
  }
  return e;
}

/// Largest |analytic - numeric| / max(|analytic|, |numeric|, 1e-6) over all parameters; the numeric
/// derivative comes from central differences that never straddle a branch (see below).
double max_relative_error(Network<double>& net, const Problem& p, std::string* worst = nullptr) {
  const std::uint64_t mask_seed = 99;
  Workspace<double> ws;
  Rng rng(mask_seed);
  const Mat& z = net.forward(p.x, ws, Mode::Train, &rng);
  Mat dz;
  loss<double>(p.loss, z, p.t, &dz);
  Vec grad;
  net.backward(p.x, ws, dz, grad);
  const std::vector<bool> base = eval_loss(net, p, mask_seed).signature;

  double max_err = 0;
  Vec& theta = net.parameters();
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    const double saved = theta(k);
    bool smooth = true;
    auto diff = [&](double h) {
      theta(k) = saved + h;
      const Eval up = eval_loss(net, p, mask_seed);
      theta(k) = saved - h;
      const Eval down = eval_loss(net, p, mask_seed);
      theta(k) = saved;
      smooth = smooth && up.signature == base && down.signature == base;
      return (up.loss - down.loss) / (2 * h);
    };
    // The largest starting step (1e-2, 1e-2/8, ...) whose bracket crosses no branch, then Ridders'
    // extrapolation (Numerical Recipes' dfridr): a Neville tableau in h² keeping the estimate with the
    // smallest internal error, which balances truncation against round-off per parameter.
    double h0 = 1e-2;
    for (; h0 > 1e-9; h0 /= 8) {
      smooth = true;
      diff(h0);
      if (smooth) break;
    }
    constexpr int kTab = 10;
    constexpr double kCon = 1.4, kCon2 = kCon * kCon;
    double tab[kTab][kTab];
    double hh = h0, best_err = 1e300, numeric = 0;
    tab[0][0] = diff(hh);
    numeric = tab[0][0];
    for (int i = 1; i < kTab; ++i) {
      hh /= kCon;
      tab[0][i] = diff(hh);
      double fac = kCon2;
      for (int j = 1; j <= i; ++j) {
        tab[j][i] = (tab[j - 1][i] * fac - tab[j - 1][i - 1]) / (fac - 1);
        fac *= kCon2;
        const double e =
            std::max(std::fabs(tab[j][i] - tab[j - 1][i]), std::fabs(tab[j][i] - tab[j - 1][i - 1]));
        if (e <= best_err) {
          best_err = e;
          numeric = tab[j][i];
        }
      }
      if (std::fabs(tab[i][i] - tab[i - 1][i - 1]) >= 2 * best_err) break;
    }
    const double err =
        std::fabs(grad(k) - numeric) / std::max({std::fabs(grad(k)), std::fabs(numeric), 1e-6});
    if (err > max_err) {
      max_err = err;
      if (worst) {
        for (const TensorInfo& t : net.tensors())
          if (static_cast<std::size_t>(k) >= t.offset &&
              static_cast<std::size_t>(k) < t.offset + static_cast<std::size_t>(t.rows * t.cols))
            *worst = t.name + "[" + std::to_string(k - static_cast<Eigen::Index>(t.offset)) + "] analytic " +
                     std::to_string(grad(k)) + " numeric " + std::to_string(numeric);
      }
    }
  }
  return max_err;
}

int outputs_for(LossKind l) {
  return l == LossKind::SoftmaxCe ? 3 : (l == LossKind::Mse ? 2 : 1);
}

TEST(GradCheck, EveryActivationAndLossInAnMlp) {
  for (const Activation& a : registry()) {
    for (LossKind l : {LossKind::Mse, LossKind::Bce, LossKind::SoftmaxCe}) {
      const int out = outputs_for(l);
      const int layers[] = {3, 5, 4, out};
      Network<double> net(make_spec(layers, a.id));
      net.init(Init::Xavier, 7);
      // Non-zero biases so the bias gradients are exercised away from the symmetric point.
      for (const TensorInfo& t : net.tensors())
        if (!t.weight) net.parameters().segment(static_cast<Eigen::Index>(t.offset), t.rows).setConstant(0.1);
      const Problem p = make_problem(l, 3, out, 7, 3);
      std::string worst;
      EXPECT_LE(max_relative_error(net, p, &worst), 1e-6) << a.id << " " << to_string(l) << ": " << worst;
    }
  }
}

TEST(GradCheck, EveryGluBlockAndLoss) {
  for (GluKind g : {GluKind::GeGlu, GluKind::SwiGlu, GluKind::ReGlu}) {
    for (LossKind l : {LossKind::Mse, LossKind::Bce, LossKind::SoftmaxCe}) {
      const int out = outputs_for(l);
      const int layers[] = {3, 4, 5, out};
      NetworkSpec spec = make_spec(layers, "", g);
      spec.hidden[1].glu_hidden = 6;  // one block with a non-default inner width
      Network<double> net(spec);
      EXPECT_EQ(net.blocks()[0].hidden, default_glu_hidden(4));
      EXPECT_EQ(net.blocks()[1].hidden, 6);
      net.init(Init::Xavier, 11);  // GLU blocks multiply: He init makes the loss (and its round-off) large
      const Problem p = make_problem(l, 3, out, 6, 5);
      std::string worst;
      EXPECT_LE(max_relative_error(net, p, &worst), 1e-6)
          << to_string(g) << " " << to_string(l) << ": " << worst;
    }
  }
}

TEST(GradCheck, WithoutBiasAndDeep) {
  const int layers[] = {2, 3, 4, 3, 5, 2, 3, 4, 3, 1};  // 8 hidden layers
  Network<double> net(make_spec(layers, "mish", GluKind::None, false, /*bias=*/false));
  for (const TensorInfo& t : net.tensors()) EXPECT_TRUE(t.weight) << t.name;
  net.init(Init::He, 3);
  const Problem p = make_problem(LossKind::Bce, 2, 1, 5, 9);
  std::string worst;
  EXPECT_LE(max_relative_error(net, p, &worst), 1e-6) << worst;
}

TEST(GradCheck, StochasticGeluWithFrozenMasks) {
  // With the masks fixed, x·m is linear in x and backward's d(x·m)/dx = m is the exact gradient.
  for (GluKind g : {GluKind::None, GluKind::GeGlu}) {
    const int layers[] = {3, 6, 6, 1};
    Network<double> net(make_spec(layers, "gelu", g, /*stochastic=*/true));
    net.init(Init::He, 5);
    const Problem p = make_problem(LossKind::Bce, 3, 1, 8, 2);
    std::string worst;
    EXPECT_LE(max_relative_error(net, p, &worst), 1e-6) << to_string(g) << ": " << worst;
  }
}

TEST(StochasticGelu, TrainingMasksAreBernoulliPhiAndEvalIsGelu) {
  const int layers[] = {1, 1, 1};
  Network<double> net(make_spec(layers, "gelu", GluKind::None, true));
  net.parameters().setZero();
  net.tensor(0)(0, 0) = 1.0;  // h0.W: z = x
  const double x0 = 0.4;
  Mat x = Mat::Constant(1, 20000, x0);
  Workspace<double> ws;
  Rng rng(1);
  net.forward(x, ws, Mode::Train, &rng);
  const Mat& a = ws.blocks[0].a;
  // Each output is x or 0; the fraction of x is Φ(0.4) = 0.65542.
  int kept = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a(i) == x0 || a(i) == 0.0);
    kept += a(i) == x0;
  }
  EXPECT_NEAR(kept / 20000.0, 0.6554217416, 4 * std::sqrt(0.655 * 0.345 / 20000));
  net.forward(x, ws, Mode::Eval);
  EXPECT_NEAR(ws.blocks[0].a(0, 0), x0 * 0.6554217416103242, 1e-12);
}

TEST(GradCheck, FloatBackwardAgreesWithDouble) {
  const int layers[] = {2, 16, 16, 1};
  Network<double> d(make_spec(layers, "gelu"));
  d.init(Init::He, 1);
  const Network<float> f = network_cast<float>(d);
  const Problem p = make_problem(LossKind::Bce, 2, 1, 64, 4);
  Workspace<double> wd;
  Workspace<float> wf;
  Mat dzd;
  Network<float>::Mat dzf;
  const Mat& zd = d.forward(p.x, wd, Mode::Train);
  loss<double>(p.loss, zd, p.t, &dzd);
  const Network<float>::Mat xf = p.x.cast<float>(), tf = p.t.cast<float>();
  const Network<float>::Mat& zf = f.forward(xf, wf, Mode::Train);
  loss<float>(p.loss, zf, tf, &dzf);
  Vec gd;
  Network<float>::Vec gf;
  d.backward(p.x, wd, dzd, gd);
  f.backward(xf, wf, dzf, gf);
  EXPECT_LE((gf.cast<double>() - gd).norm(), 1e-5 * gd.norm());
}

TEST(Loss, BceIsStableForHugeLogits) {
  Mat z(1, 4), t(1, 4), dz;
  z << 1000, -1000, 1000, -1000;
  t << 1, 0, 0, 1;
  const double l = loss<double>(LossKind::Bce, z, t, &dz);
  EXPECT_TRUE(std::isfinite(l));
  EXPECT_NEAR(l, (0 + 0 + 1000 + 1000) / 4.0, 1e-12);
  EXPECT_NEAR(dz(0, 2), 1.0 / 4, 1e-15);
  EXPECT_NEAR(dz(0, 3), -1.0 / 4, 1e-15);
  Network<float>::Mat zf = z.cast<float>(), tf = t.cast<float>(), dzf;
  EXPECT_TRUE(std::isfinite(loss<float>(LossKind::Bce, zf, tf, &dzf)));
}

TEST(Loss, SoftmaxCrossEntropyMatchesTheDefinition) {
  Mat z(3, 1), t(3, 1);
  z << 1.0, 2.0, 500.0;
  t << 0, 1, 0;
  // −log softmax(z)_1 = logsumexp(z) − z_1 ≈ 498.
  EXPECT_NEAR(loss<double>(LossKind::SoftmaxCe, z, t, nullptr),
              500.0 + std::log1p(std::exp(-498.0) + std::exp(-499.0)) - 2.0, 1e-12);
}

}  // namespace
}  // namespace gelu::ffn

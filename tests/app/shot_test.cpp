// Every panel rendered headless by `gelulab shot` (EGL, no X), with pixel checks against values computed
// here from gelu::core. Without a GL context the shot exits non-zero and these tests FAIL (never skip).
#include "support/shot.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/json.hpp"
#include "support/png_image.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::json::Value;

using gelu::test::dist;
using gelu::test::hex;
using gelu::test::Image;
using gelu::test::Rgb;

using gelu::test::PlotGeom;
using gelu::test::shoot;
using gelu::test::Shot;

TEST(AppShot, CurvesGeluPassesThroughItsValueAtOne) {
  const Shot s = shoot("curves",
                       R"({"x": [-4, 4], "y": [-1, 4], "functions": ["gelu", "gelu_sigmoid"],
                           "params": {"gelu_sigmoid.k": 1.0}, "probe": null,
                           "shade_dip": false, "shade_dead": false})",
                       "curves");
  ASSERT_EQ(s.status, 0) << "gelulab shot failed: no headless GL context?";
  const Image img(s.png);
  ASSERT_TRUE(img.ok());
  EXPECT_EQ(img.w(), 1280);
  EXPECT_EQ(img.h(), 800);
  const PlotGeom g(s.meta.at("plots").at("plot0"));
  EXPECT_EQ(g.x_min, -4);
  EXPECT_EQ(g.x_max, 4);
  EXPECT_EQ(g.y_min, -1);
  EXPECT_EQ(g.y_max, 4);
  const Rgb gelu_col = hex(s.meta.at("functions").at("gelu").at("color").as_string());
  const Rgb quick_col = hex(s.meta.at("functions").at("gelu_sigmoid").at("color").as_string());
  const double y1 = gelu::find_activation("gelu")->eval(1.0);
  EXPECT_NEAR(y1, 0.8413447460685429, 1e-15);
  // The exact GELU curve covers the pixel of (1, 0.8413) ...
  EXPECT_LT(img.nearest(g.px(1.0), g.py(y1), gelu_col), 40.0);
  // ... and not the pixel of (1, 0.6) or (1, 1.1) (so the check above can fail).
  EXPECT_GT(img.nearest(g.px(1.0), g.py(0.6), gelu_col), 80.0);
  EXPECT_GT(img.nearest(g.px(1.0), g.py(1.1), gelu_col), 80.0);
  // More points along the curve, including the negative dip.
  for (double x : {-3.0, -0.75, 0.5, 2.5}) {
    EXPECT_LT(img.nearest(g.px(x), g.py(gelu::find_activation("gelu")->eval(x)), gelu_col), 40.0)
        << "x = " << x;
  }
  // The state's parameter reached the curve: x·σ(1·x) at 2 is 1.7616, not the k = 1.702 value 1.9362.
  gelu::Params k1;
  k1[0] = 1.0;
  const double q = gelu::find_activation("gelu_sigmoid")->eval(2.0, 0, &k1);
  EXPECT_LT(img.nearest(g.px(2.0), g.py(q), quick_col), 40.0);
  EXPECT_GT(img.nearest(g.px(2.0), g.py(gelu::find_activation("gelu_sigmoid")->eval(2.0)), quick_col), 80.0);
}

TEST(AppShot, CurvesMinimumMarkerAndDerivativePlot) {
  const Shot s = shoot("curves", R"({"x": [-3, 3], "y": [-0.5, 3], "functions": ["gelu"], "derivatives": [1],
                                     "probe": 1.5})",
                       "curves_d1");
  ASSERT_EQ(s.status, 0);
  const Image img(s.png);
  ASSERT_TRUE(img.ok());
  const auto& m = s.meta.at("gelu_minimum").as_array();
  EXPECT_NEAR(m[0].as_number(), -0.75179, 1e-5);
  EXPECT_NEAR(m[1].as_number(), -0.16997, 1e-5);
  // The inflection points, solved by core, sit at ±√2 (f″ = φ(x)(2 − x²)) and are drawn as dots.
  const auto& infl = s.meta.at("gelu_inflections").as_array();
  ASSERT_EQ(infl.size(), 2u);
  EXPECT_NEAR(infl[0].as_number(), -std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(infl[1].as_number(), std::sqrt(2.0), 1e-12);
  const PlotGeom f0(s.meta.at("plots").at("plot0"));
  const Rgb dot = hex(s.meta.at("inflection_color").as_string());
  const double r2 = std::sqrt(2.0);
  EXPECT_LT(img.nearest(f0.px(r2), f0.py(gelu::find_activation("gelu")->eval(r2)), dot), 30.0);
  EXPECT_GT(img.nearest(f0.px(r2), f0.py(gelu::find_activation("gelu")->eval(r2)) + 25, dot), 60.0);
  const PlotGeom d1(s.meta.at("plots").at("plot1"));
  const Rgb gelu_col = hex(s.meta.at("functions").at("gelu").at("color").as_string());
  // GELU' crosses 1 near x = 0.6 and is 0.5 at 0: the derivative plot has those pixels.
  EXPECT_LT(img.nearest(d1.px(0.0), d1.py(0.5), gelu_col), 40.0);
  const double d = gelu::find_activation("gelu")->eval(2.0, 1);
  EXPECT_LT(img.nearest(d1.px(2.0), d1.py(d), gelu_col), 40.0);
  EXPECT_GT(img.nearest(d1.px(2.0), d1.py(d - 0.25), gelu_col), 80.0);
}

// Plots stacked on one linked x axis share their data area across x: the same x is the same screen column in
// each, whichever of them keeps room at its right for a legend (issue 52: the Approximations panel's error
// plot spanned 418-780 px, its curve plot 418-1252 px over the same [-6, 6]).
TEST(AppShot, StackedLinkedPlotsShareOneXExtent) {
  struct Case {
    std::string panel, state, name;
    std::vector<std::string> plots;
  };
  const std::vector<Case> cases = {{"approx", "{}", "linked_approx", {"functions", "errors"}},
                                   {"curves",
                                    R"({"functions": ["gelu", "relu"], "derivatives": [1, 2]})",
                                    "linked_curves",
                                    {"plot0", "plot1", "plot2"}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.panel);
    const Shot s = shoot(c.panel, c.state, c.name);
    ASSERT_EQ(s.status, 0);
    const Value& first = s.meta.at("plots").at(c.plots[0]);
    for (const std::string& id : c.plots) {
      const Value& g = s.meta.at("plots").at(id);
      EXPECT_EQ(g.at("left").as_number(), first.at("left").as_number()) << id;
      EXPECT_EQ(g.at("right").as_number(), first.at("right").as_number()) << id;
      EXPECT_EQ(g.at("x_min").as_number(), first.at("x_min").as_number()) << id;
      EXPECT_EQ(g.at("x_max").as_number(), first.at("x_max").as_number()) << id;
      EXPECT_GE(g.at("right").as_number() - g.at("left").as_number(), 300) << id;
    }
  }
}

TEST(AppShot, ApproxErrorCurvesAndMaxMarkersMatchCore) {
  const Shot s =
      shoot("approx", R"({"x": [-4, 4], "metric": "abs", "log": true, "error_y": [1e-8, 1]})", "approx");
  ASSERT_EQ(s.status, 0);
  const Image img(s.png);
  ASSERT_TRUE(img.ok());
  const PlotGeom f(s.meta.at("plots").at("functions"));
  const PlotGeom e(s.meta.at("plots").at("errors"));
  EXPECT_TRUE(e.log_y);
  EXPECT_LT(img.nearest(f.px(1.0), f.py(0.8413447460685429), hex(s.meta.at("exact_color").as_string())),
            40.0);
  // The max |tanh form − GELU| on the visible grid, recomputed here from the registry.
  const auto* gelu = gelu::find_activation("gelu");
  const auto* tanh = gelu::find_activation("gelu_tanh");
  double best = 0, where = 0;
  for (int i = 0; i <= 2000; ++i) {
    const double x = -4 + 8.0 * i / 2000;
    const double d = std::fabs(tanh->eval(x) - gelu->eval(x));
    if (d > best) best = d, where = x;
  }
  const auto& tanh_series = s.meta.at("series").as_array()[0];
  EXPECT_NEAR(tanh_series.at("max_error").as_number(), best, best * 1e-9);
  EXPECT_NEAR(std::fabs(tanh_series.at("max_error_x").as_number()), std::fabs(where), 1e-9);
  EXPECT_GT(best, 4e-4);
  EXPECT_LT(best, 5e-4);
  // The marker and the curve are at that pixel on the log axis; a decade lower there is no tanh colour.
  const Rgb tanh_col = hex(tanh_series.at("color").as_string());
  const double mx = tanh_series.at("max_error_x").as_number();
  EXPECT_LT(img.nearest(e.px(mx), e.py(best), tanh_col), 40.0);
  EXPECT_GT(img.nearest(e.px(mx), e.py(best / 10), tanh_col), 80.0);
}

TEST(AppShot, DropoutMonteCarloMeanLiesInsideItsBand) {
  const Shot s =
      shoot("dropout", R"({"x0": 1.0, "samples": 3000, "seed": 7, "mu": 0.5, "sigma": 1.0})", "dropout");
  ASSERT_EQ(s.status, 0);
  const Image img(s.png);
  ASSERT_TRUE(img.ok());
  const Value& m = s.meta;
  EXPECT_EQ(m.at("samples").as_number(), 3000);
  EXPECT_NEAR(m.at("keep_probability").as_number(), 0.8413447460685429, 1e-12);
  EXPECT_NEAR(m.at("gelu").as_number(), gelu::find_activation("gelu")->eval(1.0), 1e-15);
  const double mean = m.at("mean").as_number(), lo = m.at("band_lo").as_number(),
               hi = m.at("band_hi").as_number();
  EXPECT_LE(lo, mean);
  EXPECT_LE(mean, hi);
  // The band is GELU(x) ± 1.96 standard errors as the core estimator reports them ...
  const double se = m.at("standard_error").as_number();
  EXPECT_NEAR(hi - lo, 2 * 1.959963984540054 * se, 1e-12);
  // ... which are close to the exact |x|·√(Φ(1 − Φ)/n).
  EXPECT_NEAR(se, std::sqrt(0.8413447460685429 * (1 - 0.8413447460685429) / 3000), 0.05 * se);
  // The masks the panel shows are the estimator's own draws: replaying them gives its mean exactly.
  EXPECT_NEAR(m.at("replayed_mean").as_number(), mean, 1e-12);
  // In the picture: the running-mean line at n = 3000 lies between the band's edges.
  const PlotGeom c(m.at("plots").at("convergence"));
  EXPECT_TRUE(c.log_x);
  const Rgb line = hex(m.at("mean_color").as_string());
  const double x = c.px(2900);
  int found = -1;
  for (int y = static_cast<int>(c.top); y < static_cast<int>(c.bottom); ++y)
    if (img.nearest(x, y, line, 0) < 60) {
      found = y;
      break;
    }
  ASSERT_GE(found, 0) << "no running-mean pixel in the column of n = 2900";
  EXPECT_GE(found, c.py(hi) - 3);
  EXPECT_LE(found, c.py(lo) + 3);
  // The expected outputs of N(0.5, 1) through ReLU: μΦ(μ/σ) + σφ(μ/σ), and P(ReLU = 0) ≈ Φ(−0.5).
  const double mu = 0.5;
  const double relu_mean =
      mu * 0.5 * std::erfc(-mu / std::sqrt(2.0)) + std::exp(-mu * mu / 2) / std::sqrt(2 * M_PI);
  EXPECT_NEAR(m.at("mean_relu").as_number(), relu_mean, 1e-12);
  EXPECT_NEAR(m.at("relu_zero_mass").as_number(), 0.5 * std::erfc(mu / std::sqrt(2.0)), 0.01);  // sampled
  EXPECT_NEAR(m.at("relu_zero_mass_exact").as_number(), 0.5 * std::erfc(mu / std::sqrt(2.0)), 1e-15);
  EXPECT_LT(m.at("mean_gelu").as_number(), relu_mean);  // GELU lets some negative values through
}

TEST(AppShot, ApproxGpuResultsAgreeWithTheCpu) {
  const Shot s = shoot("approx", R"({"x": [-6, 6], "metric": "ulp", "gpu": true})", "approx_gpu");
  ASSERT_EQ(s.status, 0);
  const Value* status = s.meta.find("gpu_status");
  ASSERT_NE(status, nullptr) << "built without gelu::gpu";
  const std::string text = status->as_string();
  EXPECT_NE(text.find("exact GELU: GPU vs CPU float32 at most"), std::string::npos) << text;
  EXPECT_NE(text.find("tanh form: GPU vs CPU float32 at most"), std::string::npos) << text;
  // The GPU backend's contract: within 4 ULP of the correctly rounded value, so within 5 of the CPU's.
  for (const Value& u : s.meta.at("gpu_max_ulp_vs_cpu").as_array()) EXPECT_LE(u.as_number(), 5.0);
}

TEST(AppShot, BadInputIsAUsageError) {
  const Shot s = shoot("curves", R"({"x": [4, -4]})", "bad_range");
  EXPECT_NE(s.status, 0);
  const Shot t = shoot("curves", R"({"functions": ["nope"]})", "bad_fn");
  EXPECT_NE(t.status, 0);
  const Shot u = shoot("curves", R"({"x": [-4, 4],)", "bad_json");
  EXPECT_NE(u.status, 0);
  const Shot v = shoot("nonexistent_panel", "{}", "bad_panel");
  EXPECT_NE(v.status, 0);
}

}  // namespace

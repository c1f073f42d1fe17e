// The FFN lab and Benchmarks panels rendered headless by `gelulab shot` (EGL, no X), with pixel checks
// against numbers computed here (datasets from gelu::ffn) or exported by the panel itself. Without a GL
// context the shot exits non-zero and these tests FAIL (never skip).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gelu/bench.hpp"
#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/network.hpp"  // first: its pragma silences GCC 12's false AVX-512 warnings in Eigen
#include "gelu/json.hpp"
#include "plot/plot_core.hpp"
#include "support/png_image.hpp"
#include "support/shot.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::json::Value;

using gelu::test::dist;
using gelu::test::hex;
using gelu::test::Image;
using gelu::test::Rgb;

using Geom = gelu::test::PlotGeom;
using gelu::test::shoot;
using gelu::test::Shot;

// The dataset the panel trains on with its defaults (xor, 400 samples, seed 1), generated here from core.
gelu::ffn::Dataset xor_data() {
  gelu::ffn::DatasetOptions o;
  o.id = "xor";
  o.samples = 400;
  o.seed = 1;
  return gelu::ffn::make_dataset(o);
}

// Blue-ish (class 0), orange-ish (class 1) or neither: the heat tints and the dots share their class's hue.
int hue_class(Rgb p) {
  if (p.b > p.r + 25) return 0;
  if (p.r > p.b + 25) return 1;
  return -1;
}

TEST(FfnShot, HeatmapColourAtTrainingPointsIsTheirClassAfterTraining) {
  const Shot s = shoot("ffn",
                       R"({"dataset": "xor", "samples": 400, "shot_steps": 300, "ab": true, "backend": "cpu",
                           "a": {"activations": ["relu", "relu"]}, "b": {"activations": ["gelu", "gelu"]}})",
                       "ffn_xor");
  ASSERT_EQ(s.status, 0) << "gelulab shot failed (no EGL context?)";
  Image img(s.png);
  ASSERT_TRUE(img.ok());
  ASSERT_EQ(img.w(), 1280);
  const gelu::ffn::Dataset d = xor_data();
  ASSERT_EQ(s.meta.at("train_points").as_number(), static_cast<double>(d.x_train.cols()));
  for (int net = 0; net < 2; ++net) {
    const Value& m = s.meta.at("nets").as_array()[static_cast<std::size_t>(net)];
    EXPECT_EQ(m.at("steps").as_number(), 300);
    EXPECT_GT(m.at("train_accuracy").as_number(), 0.9) << "net " << net;
    const Geom g(s.meta.at("plots").at(net == 0 ? "heatA" : "heatB"));
    // Around every training point away from XOR's boundaries (the axes): pixels 8 px off the point's
    // centre along the diagonals (outside its dot, on the heatmap or on a neighbour's dot).
    int right = 0, wrong = 0;
    for (Eigen::Index k = 0; k < d.x_train.cols(); ++k) {
      const double x = d.x_train(0, k), y = d.x_train(1, k);
      if (std::fabs(x) < 0.3 || std::fabs(y) < 0.3) continue;
      const int label = static_cast<int>(d.y_train(k));
      for (int dx : {-8, 8})
        for (int dy : {-8, 8}) {
          const int c = hue_class(img.at(static_cast<int>(std::lround(g.px(x))) + dx,
                                         static_cast<int>(std::lround(g.py(y))) + dy));
          if (c < 0) continue;
          (c == label ? right : wrong) += 1;
        }
    }
    EXPECT_GT(right, 400) << "net " << net;
    EXPECT_GT(right, 19 * wrong) << "net " << net << ": " << wrong << " pixels of the other class";
  }
  // The heat tints are the class colours faded (so the hue test above reads the right classes).
  for (int c = 0; c < 2; ++c)
    EXPECT_EQ(hue_class(hex(s.meta.at("heat_colors").as_array()[static_cast<std::size_t>(c)].as_string())),
              c);
}

TEST(FfnShot, IdenticalNetsTrainIdenticallyAndPointEditsApply) {
  // Both nets GELU: identical initialization and minibatches -> the same test loss to the last bit.
  // Edits: remove a lone training point (by its exact coordinates) and add a class-0 point in a corner.
  const gelu::ffn::Dataset d = xor_data();
  // A training point with no other point (train or test) within 0.1: after its removal its spot is bare.
  Eigen::Index k0 = -1;
  for (Eigen::Index k = 0; k < d.x_train.cols() && k0 < 0; ++k) {
    bool alone = true;
    for (const Eigen::MatrixXd* m : {&d.x_train, &d.x_test})
      for (Eigen::Index j = 0; j < m->cols(); ++j)
        if ((m != &d.x_train || j != k) && (m->col(j) - d.x_train.col(k)).norm() < 0.1) alone = false;
    if (alone) k0 = k;
  }
  ASSERT_GE(k0, 0);
  char state[512];
  std::snprintf(
      state, sizeof state,
      R"({"shot_steps": 60, "a": {"activations": ["gelu", "gelu"]}, "b": {"activations": ["gelu", "gelu"]},
                    "edits": [{"op": "remove", "x": %.17g, "y": %.17g}, {"op": "add", "x": 1.3, "y": -1.3, "label": 0}]})",
      d.x_train(0, k0), d.x_train(1, k0));
  const Shot s = shoot("ffn", state, "ffn_same");
  ASSERT_EQ(s.status, 0);
  const Value& a = s.meta.at("nets").as_array()[0];
  const Value& b = s.meta.at("nets").as_array()[1];
  EXPECT_EQ(a.at("steps").as_number(), 60);
  EXPECT_EQ(a.at("test_loss").as_number(), b.at("test_loss").as_number());
  EXPECT_EQ(s.meta.at("train_points").as_number(), static_cast<double>(d.x_train.cols()));  // -1 + 1
  Image img(s.png);
  ASSERT_TRUE(img.ok());
  const Rgb blue = hex(s.meta.at("class_colors").as_array()[0].as_string());
  for (const char* plot : {"heatA", "heatB"}) {
    const Geom g(s.meta.at("plots").at(plot));
    // The added point is drawn (its dot's centre is the class colour) and the removed one is gone.
    EXPECT_LT(
        dist(img.at(static_cast<int>(std::lround(g.px(1.3))), static_cast<int>(std::lround(g.py(-1.3)))),
             blue),
        30)
        << plot;
    const Rgb removed = img.at(static_cast<int>(std::lround(g.px(d.x_train(0, k0)))),
                               static_cast<int>(std::lround(g.py(d.x_train(1, k0)))));
    const Rgb dot =
        hex(s.meta.at("class_colors").as_array()[static_cast<std::size_t>(d.y_train(k0))].as_string());
    EXPECT_GT(dist(removed, dot), 30) << plot;
  }
  // The state round-trips what was set.
  const Value& st = s.meta.at("state");
  EXPECT_EQ(st.at("edits").as_array().size(), 2u);
  EXPECT_EQ(st.at("b").at("activations").as_array()[0].as_string(), "gelu");
}

// Each bar's top edge: scanning down a column inside the bar (off the whisker), the first pixel of the bar's
// colour is at the median's height — nothing drawn over the bar (the legend is skipped where it crosses the
// column). Returns how many bars were checked.
int check_bar_tops(const Shot& s, const Image& img, std::size_t size) {
  const Geom g(s.meta.at("plots").at("bars"));
  const auto& legend = s.meta.at("legend").as_array();
  const auto& rows = s.meta.at("export").at("results").as_array();
  const double width_px = s.meta.at("bar_width").as_number() / (g.x_max - g.x_min) * (g.right - g.left);
  int checked = 0;
  for (const Value& b : s.meta.at("bars").as_array()) {
    // The bar's number is the exported one.
    bool found = false;
    for (const Value& r : rows)
      if (r.at("function").as_string() == b.at("function").as_string() &&
          r.at("backend").as_string() == b.at("backend").as_string() &&
          r.at("size").as_number() == static_cast<double>(size))
        found = found || r.at("median_gelem_per_s").as_number() == b.at("median_gelem_per_s").as_number();
    EXPECT_TRUE(found) << b.at("function").as_string() << " " << b.at("backend").as_string();
    const int col = static_cast<int>(std::lround(g.px(b.at("x").as_number()) + 0.38 * width_px));
    const double expect = g.py(b.at("median_gelem_per_s").as_number());
    int start = static_cast<int>(g.top) + 1;
    if (col >= legend[0].as_number() - 2 && col <= legend[2].as_number() + 2 &&
        legend[1].as_number() < g.bottom) {
      if (expect < legend[3].as_number() + 4) continue;
      start = static_cast<int>(legend[3].as_number()) + 2;
    }
    const Rgb colour = hex(b.at("color").as_string());
    int top = -1;
    for (int y = start; y < static_cast<int>(g.bottom); ++y)
      if (dist(img.at(col, y), colour) < 30) {
        top = y;
        break;
      }
    EXPECT_GE(top, 0) << "no bar of colour " << b.at("color").as_string();
    if (top < 0) continue;
    // A whisker's cap where the best run is within a pixel or two of the median lies on the bar's top edge:
    // dark pixels from the median's height down to the bar's colour are that cap, not something covering it.
    int edge = top;
    while (edge > start && edge > expect - 1 && img.at(col, edge - 1).lum() < 90) --edge;
    EXPECT_NEAR(edge, expect, 2.5) << b.at("function").as_string() << " " << b.at("backend").as_string();
    ++checked;
  }
  return checked;
}

// A 1024 px projector with 2× text: two plots of minimum width fit across, scrollbar and all, so the FFN
// lab shows A's and B's maps side by side (the comparison it is for), the dropout view its two top plots and
// the benchmark panel its size and history plots. With the style's item spacing between them they missed by
// 2 px and stacked.
TEST(ColumnsShot, TwoPlotsSideBySideAt1024WithTwiceTheText) {
  struct Case {
    const char* panel;
    const char* state;
    const char* left;
    const char* right;
  };
  const char* small_bench =
      R"({"functions": ["gelu"], "sizes": [4096], "reps": 1, "backends": ["cpu_scalar"]})";
  for (const Case& c : {Case{"ffn", "{}", "heatA", "heatB"}, Case{"dropout", "{}", "keep", "convergence"},
                        Case{"bench", small_bench, "sizes", "history"}}) {
    SCOPED_TRACE(c.panel);
    const Shot s =
        shoot(c.panel, c.state, std::string("columns_") + c.panel, "--size 1024x768 --presentation 2");
    ASSERT_EQ(s.status, 0);
    const Value& plots = s.meta.at("plots");
    const Value &a = plots.at(c.left).at("frame"), &b = plots.at(c.right).at("frame");
    EXPECT_EQ(a.at("top").as_number(), b.at("top").as_number()) << "stacked, not side by side";
    EXPECT_LE(a.at("right").as_number(), b.at("left").as_number());
    EXPECT_LE(b.at("right").as_number(), 1024 - 20) << "the right plot runs under the scrollbar";
  }
}

// The dropout view's two top plots go side by side only where the convergence plot's title ("running mean of
// x·m") stays on one line: at 1280×800 with 3× text it wrapped onto two and its legend ran off the window;
// there they stack. Its title is as tall as the probability plot's one-line title at every size.
TEST(ColumnsShot, DropoutTitlesStayOnOneLine) {
  for (const char* opts :
       {"--size 1280x800", "--size 1280x800 --presentation 2", "--size 1280x800 --presentation 3",
        "--size 1024x768 --presentation 2", "--size 1024x768 --presentation 3"}) {
    SCOPED_TRACE(opts);
    const Shot s = shoot("dropout", "{}", "dropout_titles", opts);
    ASSERT_EQ(s.status, 0);
    const Value& plots = s.meta.at("plots");
    auto title_h = [&](const char* id) {
      const Value& p = plots.at(id);
      return p.at("top").as_number() - p.at("frame").at("top").as_number();
    };
    EXPECT_EQ(title_h("convergence"), title_h("keep"));
  }
}

// On a projector (1024×768, text three times larger) the bar plot's data area is a few lines tall: the
// memory limit's label moves to the title rather than covering the bars, and "gelu_tanh", wider than its
// group, goes on two lines ("gelu_" over "tanh") rather than being left out or cut.
TEST(BenchShot, MemoryLimitLabelLeavesTheBarsVisibleOnAProjector) {
  const Shot s = shoot("bench",
                       R"({"functions": ["gelu", "gelu_tanh", "relu", "silu"], "sizes": [65536], "reps": 2,
                           "backends": ["cpu_scalar", "cpu_vector"]})",
                       "bench_projector", "--size 1024x768 --presentation 3");
  ASSERT_EQ(s.status, 0);
  Image img(s.png);
  ASSERT_TRUE(img.ok());
  ASSERT_GT(s.meta.at("export").at("copy_gb_per_s").as_number(), 0.1);
  EXPECT_EQ(check_bar_tops(s, img, 65536), 8);
  // Every group is named under its bars, whole.
  EXPECT_EQ(s.meta.at("plots").at("bars").at("category_labels").as_number(), 4);
  EXPECT_EQ(s.meta.at("plots").at("bars").at("category_labels_cut").as_number(), 0);
}

TEST(BenchShot, BarHeightsMatchTheExportedMedians) {
  const Shot s = shoot("bench",
                       R"({"functions": ["gelu", "relu"], "sizes": [4096, 65536], "reps": 3,
                           "backends": ["cpu_scalar", "cpu_vector", "gpu_kernel", "gpu_end_to_end"]})",
                       "bench_small");
  ASSERT_EQ(s.status, 0);
  Image img(s.png);
  ASSERT_TRUE(img.ok());
  const Value& ex = s.meta.at("export");
  EXPECT_GT(ex.at("copy_gb_per_s").as_number(), 0.1);
  EXPECT_EQ(ex.at("cpu_model").as_string(), gelu::bench::cpu_model());  // the export names its machine
  const auto& rows = ex.at("results").as_array();
  // 2 functions x 2 sizes x (2 CPU paths + 2 GPU timings when the worker got a GPU context).
  const bool gpu = ex.at("gpu").as_string().find("unavailable") == std::string::npos;
  EXPECT_EQ(rows.size(), gpu ? 16u : 8u) << ex.at("gpu").as_string();
  // CSV: a header and one line per exported row.
  const std::string& csv = s.meta.at("csv").as_string();
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), rows.size() + 1);

  ASSERT_EQ(s.meta.at("bars").as_array().size(), rows.size() / 2);  // the bars show one size (the largest)
  EXPECT_GE(check_bar_tops(s, img, 65536), 4);
}

TEST(PlotBars, BarOffsetSplitsTheGroupEvenly) {
  // Four bars in a group 0.8 wide: centres at -0.3, -0.1, 0.1, 0.3 (they touch, symmetric about 0).
  EXPECT_DOUBLE_EQ(gelu::plot::bar_offset(0, 4, 0.8), -0.3);
  EXPECT_DOUBLE_EQ(gelu::plot::bar_offset(1, 4, 0.8), -0.1);
  EXPECT_DOUBLE_EQ(gelu::plot::bar_offset(3, 4, 0.8), 0.3);
  EXPECT_DOUBLE_EQ(gelu::plot::bar_offset(0, 1, 0.8), 0.0);
  EXPECT_DOUBLE_EQ(gelu::plot::bar_offset(0, 0, 0.8), 0.0);
}

}  // namespace

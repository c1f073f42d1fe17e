// The plot layer's ImGui-free core: ticks, scales, transforms, zoom/pan, re-sampling, NaN gaps, fitting.
#include "plot/plot_core.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace gelu::plot;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kMinus = "\xE2\x88\x92";

Axis linear(double a, double b) {
  Axis ax;
  ax.range = {a, b};
  return ax;
}

std::vector<double> major_values(const std::vector<Tick>& t) {
  std::vector<double> v;
  for (const Tick& k : t)
    if (k.major) v.push_back(k.value);
  return v;
}

// [SECTION] Ticks

TEST(PlotTicks, NiceStepIsOneTwoFive) {
  EXPECT_DOUBLE_EQ(nice_step(0.13), 0.2);
  EXPECT_DOUBLE_EQ(nice_step(0.2), 0.2);
  EXPECT_DOUBLE_EQ(nice_step(3), 5);
  EXPECT_DOUBLE_EQ(nice_step(7), 10);
  EXPECT_DOUBLE_EQ(nice_step(1), 1);
  EXPECT_DOUBLE_EQ(nice_step(1.0000001), 2);
  EXPECT_DOUBLE_EQ(nice_step(4.2e-7), 5e-7);
  EXPECT_DOUBLE_EQ(nice_step(-1), 1);  // nonsense in, sane out
}

TEST(PlotTicks, LinearMajorsAreMultiplesOfTheStepInsideTheRange) {
  // 8 units over 800 px with >= 100 px between majors: at most 8 majors -> step 1.
  const auto t = make_ticks(linear(-4, 4), 800, 100);
  EXPECT_EQ(major_values(t), (std::vector<double>{-4, -3, -2, -1, 0, 1, 2, 3, 4}));
  for (const Tick& k : t) {
    EXPECT_GE(k.value, -4);
    EXPECT_LE(k.value, 4);
    EXPECT_EQ(k.label.empty(), !k.major);
  }
  // Minor ticks: 5 per step of 1.
  EXPECT_EQ(t.size(), 8u * 5u + 1u);
  // Fewer pixels -> coarser step (2).
  EXPECT_EQ(major_values(make_ticks(linear(-4, 4), 400, 100)), (std::vector<double>{-4, -2, 0, 2, 4}));
}

TEST(PlotTicks, AShortAxisKeepsTwoLabelsWhereTheSpacingAllows) {
  // [0, 4.8] on 150 px with majors >= 68 px apart: 1-2-5 from 4.8 / 2 gives 5 and labels 0 alone; a step of 2
  // is 62 px apart (at least 2/3 of 68), so 0, 2, 4.
  EXPECT_EQ(major_values(make_ticks(linear(0, 4.8), 150, 68)), (std::vector<double>{0, 2, 4}));
  EXPECT_EQ(major_values(make_ticks(linear(0, 4.8), 195, 68)), (std::vector<double>{0, 2, 4}));
  // [-4, 4] on 320 px at 214 px (x labels at 3× text): 5 labels 0 alone, 2 would be 80 px apart; 4 is 160.
  const auto t = make_ticks(linear(-4, 4), 320, 214);
  EXPECT_EQ(major_values(t), (std::vector<double>{-4, 0, 4}));
  EXPECT_EQ(t.size(), 9u);  // minor ticks at every unit
  // [-0.2, 0.4] on 151 px at 133 px (y labels at 3×): 0 and 0.4, 100 px apart (0.2 would be 50).
  EXPECT_EQ(major_values(make_ticks(linear(-0.2, 0.4), 151, 133)), (std::vector<double>{0, 0.4}));
  // Short of 2/3 of the spacing, the largest step at least 0.46 of it ([0, 4.8] on 60 px: 4, 50 px apart).
  EXPECT_EQ(major_values(make_ticks(linear(0, 4.8), 60, 68)), (std::vector<double>{0, 4}));
  // Where no step keeps that, the one label stays ([0, 4.8] on 30 px).
  EXPECT_EQ(major_values(make_ticks(linear(0, 4.8), 30, 68)), (std::vector<double>{0}));
  // A log axis labels every decade rather than one: [0.0011, 0.97] on 151 px at 88 px apart took every other
  // decade (10⁻² alone, then a linear 0.5 alone); its decades are 51 px apart.
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {0.0011, 0.97};
  EXPECT_EQ(major_values(make_ticks(lg, 151, 88)), (std::vector<double>{0.01, 0.1}));
  // A range that already has two labels keeps its step ([0, 10] on 195 px: 0, 5, 10).
  EXPECT_EQ(major_values(make_ticks(linear(0, 10), 195, 68)), (std::vector<double>{0, 5, 10}));
}

TEST(PlotTicks, TickValuesDoNotDriftOnTinyOffsetRanges) {
  // A range far from zero and 1e-9 wide: ticks are exact integer multiples, labels distinct.
  const auto t = make_ticks(linear(1000.0, 1000.0 + 1e-9), 1000, 100);
  const auto m = major_values(t);
  ASSERT_GE(m.size(), 3u);
  const double step = m[1] - m[0];
  // Spacing exact up to the double spacing at 1000 (1.1e-13), not accumulated rounding.
  for (std::size_t i = 1; i < m.size(); ++i) EXPECT_NEAR(m[i] - m[i - 1], step, 3e-13);
  std::vector<std::string> labels;
  for (const Tick& k : t)
    if (k.major) labels.push_back(k.label);
  for (std::size_t i = 1; i < labels.size(); ++i) EXPECT_NE(labels[i], labels[i - 1]);
}

TEST(PlotTicks, LabelsUseAsFewDigitsAsTheStepNeedsAndAUnicodeMinus) {
  EXPECT_EQ(format_tick(0.5, 0.5), "0.5");
  EXPECT_EQ(format_tick(2, 1), "2");
  EXPECT_EQ(format_tick(-0.25, 0.05), kMinus + "0.25");
  EXPECT_EQ(format_tick(1e-17, 0.1), "0");  // no "-0" or 1e-17 from rounding
  EXPECT_EQ(format_tick(-1e-17, 0.1), "0");
  EXPECT_EQ(format_tick(2e-5, 1e-5), "2e-05");
  EXPECT_EQ(format_tick(3e6, 1e6), "3e+06");
}

TEST(PlotTicks, LogAxisGetsDecadesAndMinors) {
  Axis a;
  a.scale = Scale::Log10;
  a.range = {1e-8, 1};
  const auto t = make_ticks(a, 900, 40);
  const auto m = major_values(t);
  ASSERT_EQ(m.size(), 9u);
  for (int k = 0; k <= 8; ++k) EXPECT_DOUBLE_EQ(m[static_cast<std::size_t>(k)], std::pow(10.0, k - 8));
  EXPECT_EQ(t.front().label, "10\xE2\x81\xBB\xE2\x81\xB8");  // 10⁻⁸
  EXPECT_EQ(t.back().label, "1");
  // Few pixels per decade: every other decade, no minors.
  const auto coarse = make_ticks(a, 120, 40);
  EXPECT_LT(major_values(coarse).size(), 6u);
  for (const Tick& k : coarse) EXPECT_TRUE(k.major);
  // Every other decade counts from the first decade inside the range: [0.05, 70] on a short axis labels 0.1
  // and 10 (counted from 10⁰ it labelled 1 alone, then fell back to a linear grid with the single label 50).
  a.range = {0.05, 70};
  EXPECT_EQ(major_values(make_ticks(a, 100, 60)), (std::vector<double>{0.1, 10}));
}

TEST(PlotTicks, DegenerateAxesGiveFewTicksQuickly) {
  // A linear range switched to log before it was refitted (min <= 0) once looped over INT_MIN decades.
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {-0.01, 0.03};
  EXPECT_TRUE(make_ticks(lg, 800, 40).empty());
  lg.range = {0.0, 1.0};
  EXPECT_TRUE(make_ticks(lg, 800, 40).empty());
  // Far from zero and narrow: k + 1 == k in double beyond 2^53, so the count must bound the loop.
  EXPECT_LE(make_ticks(linear(1e17, 1e17 + 64), 800, 40).size(), 2000u);
  EXPECT_LE(make_ticks(linear(-1e300, 1e300), 800, 40).size(), 2000u);
  Axis sl;
  sl.scale = Scale::SymLog;
  sl.symlog_c = 0;
  sl.range = {-1, 1};
  EXPECT_TRUE(make_ticks(sl, 800, 40).empty());
}

TEST(PlotTicks, SymLogAxisHasZeroAndSignedDecades) {
  Axis a;
  a.scale = Scale::SymLog;
  a.symlog_c = 1;
  a.range = {-1000, 1000};
  const auto m = major_values(make_ticks(a, 1000, 40));
  EXPECT_EQ(m, (std::vector<double>{-1000, -100, -10, -1, 0, 1, 10, 100, 1000}));
}

// [SECTION] Scales and transforms

TEST(PlotTransform, RoundTripsInDoublePrecision) {
  Transform t;
  t.x = linear(-4, 4);
  t.y = linear(-1, 4);
  t.left = 100;
  t.right = 900;
  t.top = 50;
  t.bottom = 550;
  EXPECT_DOUBLE_EQ(t.px_x(-4), 100);
  EXPECT_DOUBLE_EQ(t.px_x(4), 900);
  EXPECT_DOUBLE_EQ(t.px_x(1), 600);
  EXPECT_DOUBLE_EQ(t.px_y(-1), 550);  // y grows downwards on screen
  EXPECT_DOUBLE_EQ(t.px_y(4), 50);
  EXPECT_NEAR(t.px_y(0.8413447460685429), 550 - 1.8413447460685429 * 100, 1e-9);
  for (double v : {-3.7, 0.0, 1e-9, 2.5}) EXPECT_NEAR(t.data_x(t.px_x(v)), v, 1e-14);
  // Deep zoom: a 1e-12 wide window about 1 still resolves sub-pixel positions (a float transform would not).
  t.x.range = {1.0, 1.0 + 1e-12};
  EXPECT_NEAR(t.px_x(1.0 + 0.5e-12), 500, 1e-3);
}

TEST(PlotTransform, LogAndSymLogScales) {
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {1e-6, 1};
  EXPECT_DOUBLE_EQ(scale_forward(lg, 1e-3), -3);
  EXPECT_TRUE(std::isnan(scale_forward(lg, 0)));
  EXPECT_TRUE(std::isnan(scale_forward(lg, -1)));
  Transform t;
  t.x = linear(0, 1);
  t.y = lg;
  t.top = 0;
  t.bottom = 600;
  EXPECT_NEAR(t.px_y(1e-3), 300, 1e-9);  // halfway in decades
  EXPECT_NEAR(t.data_y(100), 1e-1, 1e-15);

  Axis sl;
  sl.scale = Scale::SymLog;
  sl.symlog_c = 0.5;
  for (double v : {-1e6, -3.0, -1e-3, 0.0, 2e-4, 7.0, 1e9})
    EXPECT_NEAR(scale_inverse(sl, scale_forward(sl, v)), v, std::fabs(v) * 1e-12);
  EXPECT_EQ(scale_forward(sl, 0.0), 0.0);
  EXPECT_LT(scale_forward(sl, -2.0), 0.0);
  EXPECT_NEAR(scale_forward(sl, 1e-6), 1e-6 / 0.5 / std::log(10.0), 1e-12);  // linear near zero
}

TEST(PlotInteraction, WheelZoomKeepsTheValueUnderTheCursor) {
  Axis a = linear(-4, 4);
  const double px0 = 100, px1 = 900, anchor = 700;  // data value 2 under the cursor
  const Range r = zoom_about(a, px0, px1, anchor, 0.5);
  EXPECT_NEAR(r.min, -1, 1e-12);
  EXPECT_NEAR(r.max, 3, 1e-12);
  Axis b = a;
  b.range = r;
  const Transform t{b, b, px0, 0, px1, 1};
  EXPECT_NEAR(t.data_x(anchor), 2, 1e-12);
  // Log axis zooms evenly in decades about the cursor.
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {1e-8, 1};
  const Range lr = zoom_about(lg, 600, 0, 300, 0.5);  // y axis: px0 is the bottom; cursor at 1e-4
  EXPECT_NEAR(std::log10(lr.min), -6, 1e-9);
  EXPECT_NEAR(std::log10(lr.max), -2, 1e-9);
}

TEST(PlotInteraction, PanMovesByPixelsAndRangesStaySane) {
  Axis a = linear(-4, 4);
  const Range r = pan(a, 100, 900, 100);  // drag right by 100 px = 1 unit: the view moves left
  EXPECT_NEAR(r.min, -5, 1e-12);
  EXPECT_NEAR(r.max, 3, 1e-12);
  // Absurd requests fall back to the previous range.
  EXPECT_EQ(sanitize(a, Range{3, 3}, a.range), a.range);
  EXPECT_EQ(sanitize(a, Range{kNaN, 1}, a.range), a.range);
  EXPECT_EQ(sanitize(a, Range{1, 1 + 1e-15}, a.range), a.range);
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {1e-3, 1};
  EXPECT_EQ(sanitize(lg, Range{-2, -1}, lg.range), lg.range);
  EXPECT_NEAR(sanitize(lg, Range{-2, 10}, lg.range).min, 1e-5, 1e-20);  // six decades below the max
  // Zooming in forever stops at a sane width instead of collapsing.
  Axis z = linear(0, 1);
  for (int i = 0; i < 400; ++i) z.range = zoom_about(z, 0, 1000, 500, 0.5);
  EXPECT_LT(z.range.min, z.range.max);
  EXPECT_GT(z.range.size(), 0.0);
}

// [SECTION] Sampling, gaps and fitting

TEST(PlotSampling, FunctionsAreResampledOnTheVisibleRange) {
  std::vector<double> xs, ys;
  int calls = 0;
  const BatchFn square = [&](std::span<const double> x, std::span<double> y) {
    ++calls;  // one batched call per re-sample
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] * x[i];
  };
  Axis a = linear(-2, 3);
  sample_function(a, 501, square, xs, ys);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(xs.size(), 501u);
  EXPECT_EQ(xs.front(), -2);
  EXPECT_EQ(xs.back(), 3);
  EXPECT_NEAR(xs[250], 0.5, 1e-15);
  EXPECT_EQ(ys[100], xs[100] * xs[100]);
  // Zoomed far in: the samples are all inside the new window, so the curve stays exact at any zoom.
  a.range = {1.0, 1.0 + 1e-10};
  sample_function(a, 101, square, xs, ys);
  for (std::size_t i = 1; i < xs.size(); ++i) EXPECT_GT(xs[i], xs[i - 1]);
  EXPECT_NEAR(ys[50], (1.0 + 0.5e-10) * (1.0 + 0.5e-10), 1e-15);
  // Log x axes sample evenly in decades.
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {1, 1000};
  sample_function(lg, 4, square, xs, ys);
  EXPECT_NEAR(xs[1], 10, 1e-12);
  EXPECT_NEAR(xs[2], 100, 1e-10);
}

TEST(PlotSampling, NonFiniteValuesSplitPolylinesIntoRuns) {
  const std::vector<double> xs{0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<double> ys{1, 2, kNaN, 4, 5, std::numeric_limits<double>::infinity(), 7, 8};
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for_each_finite_run(xs, ys, linear(0, 1), [&](std::size_t b, std::size_t e) { runs.emplace_back(b, e); });
  EXPECT_EQ(runs, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {3, 5}, {6, 8}}));
  // On a log axis, values <= 0 are gaps too.
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {1e-3, 10};
  const std::vector<double> e{1e-3, 0.0, 2e-3, -1.0, 3e-3, 4e-3};
  runs.clear();
  for_each_finite_run(std::span<const double>(xs).first(6), e, lg,
                      [&](std::size_t b, std::size_t en) { runs.emplace_back(b, en); });
  EXPECT_EQ(runs, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {2, 3}, {4, 6}}));
  runs.clear();
  const std::vector<double> all_nan(4, kNaN);
  for_each_finite_run(std::span<const double>(xs).first(4), all_nan, lg,
                      [&](std::size_t b, std::size_t en) { runs.emplace_back(b, en); });
  EXPECT_TRUE(runs.empty());
}

TEST(PlotSampling, FittingIgnoresNonFiniteAndPads) {
  const std::vector<double> v{kNaN, -2, 5, std::numeric_limits<double>::infinity(), 1};
  const Range b = data_bounds(v, linear(0, 1));
  EXPECT_EQ(b.min, -2);
  EXPECT_EQ(b.max, 5);
  const Range p = padded(linear(0, 1), b, 0.1);
  EXPECT_NEAR(p.min, -2.7, 1e-12);
  EXPECT_NEAR(p.max, 5.7, 1e-12);
  Axis lg;
  lg.scale = Scale::Log10;
  lg.range = {1, 10};
  const std::vector<double> w{0.0, 1e-6, 1e-2, -3};
  const Range lb = data_bounds(w, lg);
  EXPECT_EQ(lb.min, 1e-6);
  EXPECT_EQ(lb.max, 1e-2);
  const Range lp = padded(lg, lb, 0.25);  // a quarter of 4 decades each side
  EXPECT_NEAR(std::log10(lp.min), -7, 1e-9);
  EXPECT_NEAR(std::log10(lp.max), -1, 1e-9);
  // A constant series gets a unit window around it.
  const Range c = padded(linear(0, 1), Range{3, 3}, 0.1);
  EXPECT_NEAR(c.min, 2.5, 1e-12);
  EXPECT_NEAR(c.max, 3.5, 1e-12);
}

TEST(PlotSampling, InterpolationAndSlopeForTheHoverReadout) {
  const std::vector<double> xs{0, 1, 3};
  const std::vector<double> ys{0, 2, 3};
  double slope = 0;
  EXPECT_DOUBLE_EQ(interpolate(xs, ys, 0.5, &slope), 1.0);
  EXPECT_DOUBLE_EQ(slope, 2.0);
  EXPECT_DOUBLE_EQ(interpolate(xs, ys, 2.0, &slope), 2.5);
  EXPECT_DOUBLE_EQ(slope, 0.5);
  EXPECT_DOUBLE_EQ(interpolate(xs, ys, 3.0), 3.0);
  EXPECT_TRUE(std::isnan(interpolate(xs, ys, 3.5)));
  EXPECT_TRUE(std::isnan(interpolate(xs, ys, kNaN)));
}

}  // namespace

namespace {

struct Pt {
  float x, y;
};
double segment_distance(Pt p, Pt a, Pt b) {
  const double dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy;
  const double u = l2 > 0 ? std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / l2, 0.0, 1.0) : 0.0;
  return std::hypot(p.x - a.x - u * dx, p.y - a.y - u * dy);
}

TEST(PlotSimplify, EveryDroppedPointStaysWithinTheToleranceOfTheLineDrawn) {
  // GELU on a 900-pixel plot of [-4, 3] × [-0.6, 3], sampled twice a pixel column as Plot::function does, and
  // a noisy series and a spiral (not a function of x) for good measure.
  std::vector<std::vector<Pt>> curves(3);
  for (int i = 0; i <= 1800; ++i) {
    const double x = -4 + 7.0 * i / 1800, g = 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    curves[0].push_back(
        {static_cast<float>(100 + 900 * (x + 4) / 7), static_cast<float>(600 - 500 * (g + 0.6) / 3.6)});
    curves[1].push_back({static_cast<float>(i * 0.5),
                         static_cast<float>(300 + 40 * std::sin(i * 0.37) * std::cos(i * 0.011))});
    const double t = i * 0.02;
    curves[2].push_back(
        {static_cast<float>(500 + t * 20 * std::cos(t)), static_cast<float>(400 + t * 20 * std::sin(t))});
  }
  const float tol = 0.1f;
  for (std::size_t c = 0; c < curves.size(); ++c) {
    std::vector<Pt> kept = curves[c];
    kept.resize(simplify_polyline(std::span<Pt>(kept), tol));
    ASSERT_GE(kept.size(), 2u);
    EXPECT_EQ(kept.front().x, curves[c].front().x);
    EXPECT_EQ(kept.back().y, curves[c].back().y);
    // Every original point is within tol (plus float rounding) of the line drawn through the kept points.
    double worst = 0;
    for (const Pt& p : curves[c]) {
      double best = 1e9;
      for (std::size_t j = 0; j + 1 < kept.size(); ++j)
        best = std::min(best, segment_distance(p, kept[j], kept[j + 1]));
      worst = std::max(worst, best);
    }
    EXPECT_LE(worst, tol * 1.001) << "curve " << c;
    if (c == 0) {
      EXPECT_LT(kept.size() * 8, curves[c].size())
          << "GELU's straight stretches are dropped: " << kept.size();
    }
  }
  std::vector<Pt> two = {{0, 0}, {5, 5}};
  EXPECT_EQ(simplify_polyline(std::span<Pt>(two), tol), 2u);
  std::vector<Pt> line = {{0, 0}, {1, 1}, {2, 2}, {3, 3.05f}, {4, 4}};
  EXPECT_EQ(simplify_polyline(std::span<Pt>(line), tol), 2u);
  std::vector<Pt> bend = {{0, 0}, {1, 0}, {2, 0.5f}, {3, 0}, {4, 0}};
  EXPECT_EQ(simplify_polyline(std::span<Pt>(bend), tol), 5u) << "a bend of half a pixel is kept";
}

}  // namespace

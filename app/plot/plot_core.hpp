// GELU Lab plot layer, part 1: the ImGui-free core — ranges, axis scales, double-precision transforms,
// nice 1-2-5 ticks, function re-sampling, NaN-gap runs and data fitting. Unit-tested in tests/app.
//
// The pipeline (after ImPlot): getter (a function or arrays) -> fitter (data bounds) -> transformer
// (data -> pixels, all in double) -> renderer (plot.hpp, batched ImDrawList polylines).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gelu::plot {

// [SECTION] Ranges and scales

/// A closed interval of data values; min < max for a valid range.
struct Range {
  double min = 0.0, max = 1.0;
  double size() const { return max - min; }
  bool contains(double v) const { return v >= min && v <= max; }
  bool valid() const;  // finite, min < max
  bool operator==(const Range&) const = default;
};

/// How an axis maps data to its linear "scaled" space before the affine map to pixels.
enum class Scale {
  Linear,
  Log10,   // log10(v); v <= 0 maps to NaN (a gap)
  SymLog,  // sign(v)·log10(1 + |v|/c): linear near 0 (|v| << c), logarithmic beyond
};

struct Axis {
  Range range;
  Scale scale = Scale::Linear;
  double symlog_c = 1.0;  // SymLog's linear threshold, > 0
};

/// Data -> scaled space. NaN for values outside the scale's domain (log of v <= 0).
double scale_forward(const Axis& a, double v);
/// Scaled space -> data (inverse of scale_forward on its domain).
double scale_inverse(const Axis& a, double s);

// [SECTION] Transform

/// Maps data to pixels and back in double precision. Pixel y grows downwards (screen convention):
/// range.min of the y axis sits at the bottom pixel, range.max at the top.
struct Transform {
  Axis x, y;
  double left = 0, top = 0, right = 1, bottom = 1;  // plot area in pixels

  double px_x(double vx) const;
  double px_y(double vy) const;
  double data_x(double px) const;
  double data_y(double py) const;
};

// [SECTION] Interaction math (pure functions, so zoom/pan are testable)

/// Zooms `a` by `factor` (< 1 zooms in) keeping the data value under `anchor_px` fixed, where the axis
/// spans [px0, px1] pixels (px1 may be < px0 for y). Works in scaled space, so log axes zoom evenly.
Range zoom_about(const Axis& a, double px0, double px1, double anchor_px, double factor);
/// Moves the range by a pixel delta (drag of `delta_px` pixels along an axis spanning [px0, px1]).
Range pan(const Axis& a, double px0, double px1, double delta_px);
/// Clamps a range to sane limits: non-degenerate (relative width >= 1e-12), finite, |v| <= 1e300,
/// and strictly positive for Log10 axes. Returns `fallback` when nothing sane is left.
Range sanitize(const Axis& a, Range r, Range fallback);

// [SECTION] Ticks

struct Tick {
  double value;
  bool major;
  std::string label;  // empty for minor ticks
};

/// The 1-2-5 step nearest above `raw_step` (e.g. 0.13 -> 0.2, 3 -> 5, 7 -> 10).
double nice_step(double raw_step);
/// Ticks for an axis of `pixels` length with major ticks at least `min_spacing_px` apart: linear axes
/// get 1-2-5 steps; Log10 decades (plus 2..9 minor ticks when decades are wide); SymLog 0 and ±decades.
std::vector<Tick> make_ticks(const Axis& a, double pixels, double min_spacing_px);
/// Label text for a tick value on a grid of `step`: as few digits as the step needs, no "-0",
/// scientific notation for very small or large magnitudes.
std::string format_tick(double v, double step);

// [SECTION] Sampling

/// Evaluates y[i] = f(x[i]) for a whole batch (the registry's batched evaluators fit this signature).
using BatchFn = std::function<void(std::span<const double> x, std::span<double> y)>;

/// Re-samples a function on the visible range: `n` abscissae evenly spaced in the x axis's scaled
/// space (so log x axes sample evenly too), endpoints included, evaluated in one batch.
void sample_function(const Axis& x_axis, std::size_t n, const BatchFn& f, std::vector<double>& xs,
                     std::vector<double>& ys);

/// Calls `run(begin, end)` for every maximal run [begin, end) of points whose x and y are finite and
/// inside the y scale's domain; NaN/Inf (or log of v <= 0) split the polyline into separate runs.
void for_each_finite_run(std::span<const double> xs, std::span<const double> ys, const Axis& y_axis,
                         const std::function<void(std::size_t, std::size_t)>& run);

/// Drops the points of a polyline (in pixels) that lie within `tol` pixels of the line drawn without them
/// (Ramer–Douglas–Peucker: every dropped point is within `tol` of the segment between the two kept points
/// around it), in place, first and last kept; returns how many remain. A curve sampled twice a pixel column
/// keeps its bends and loses its straight stretches: a GELU plot's polyline shrinks ~10×, and so does the
/// browser's software WebGL's work drawing it (docs/performance.md). P has float members x and y.
template <class P>
std::size_t simplify_polyline(std::span<P> pts, float tol) {
  const std::size_t n = pts.size();
  if (n < 3) return n;
  static thread_local std::vector<unsigned char> keep;
  static thread_local std::vector<std::pair<std::size_t, std::size_t>> todo;
  keep.assign(n, 0);
  keep[0] = keep[n - 1] = 1;
  todo.assign(1, {0, n - 1});
  const float tol2 = tol * tol;
  while (!todo.empty()) {
    const auto [a, b] = todo.back();
    todo.pop_back();
    const float ax = pts[a].x, ay = pts[a].y, dx = pts[b].x - ax, dy = pts[b].y - ay;
    const float len2 = dx * dx + dy * dy;
    float worst = -1;
    std::size_t at = a;
    for (std::size_t i = a + 1; i < b; ++i) {  // squared distance from point i to the segment a–b
      float ex = pts[i].x - ax, ey = pts[i].y - ay;
      const float u = len2 > 0 ? std::clamp((ex * dx + ey * dy) / len2, 0.0f, 1.0f) : 0.0f;
      ex -= u * dx;
      ey -= u * dy;
      const float d2 = ex * ex + ey * ey;
      if (d2 > worst) worst = d2, at = i;
    }
    if (worst > tol2) {
      keep[at] = 1;
      if (at - a > 1) todo.push_back({a, at});
      if (b - at > 1) todo.push_back({at, b});
    }
  }
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i]) pts[m++] = pts[i];
  return m;
}

/// Bounds of the finite values (in the scale's domain) of v; invalid Range{+inf, -inf} when none.
Range data_bounds(std::span<const double> v, const Axis& a);
/// A range showing `bounds` with `pad` (fraction of the width in scaled space) on both sides; a
/// degenerate bound gets a unit-width (or one-decade) window around it.
Range padded(const Axis& a, Range bounds, double pad);

// [SECTION] Bar groups

/// Centre offset of bar `index` of `count` bars sharing a group of `group_width` data units centred on the
/// group's x (bars touch; the group is split evenly). Width of one bar: group_width / count.
double bar_offset(int index, int count, double group_width);

/// Linear interpolation of the polyline (xs ascending) at x; NaN outside [xs.front(), xs.back()].
/// *slope (optional) receives the slope of the segment containing x.
double interpolate(std::span<const double> xs, std::span<const double> ys, double x, double* slope = nullptr);

}  // namespace gelu::plot

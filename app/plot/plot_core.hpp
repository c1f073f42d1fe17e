// GELU Lab plot layer, part 1: the ImGui-free core — ranges, axis scales, double-precision transforms,
// nice 1-2-5 ticks, function re-sampling, NaN-gap runs and data fitting. Unit-tested in tests/app.
//
// The pipeline (after ImPlot): getter (a function or arrays) -> fitter (data bounds) -> transformer
// (data -> pixels, all in double) -> renderer (plot.hpp, batched ImDrawList polylines).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
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

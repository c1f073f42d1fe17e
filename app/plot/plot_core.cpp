// GELU Lab plot layer core: scales, transforms, ticks, sampling. No ImGui here (see plot_core.hpp).
#include "plot/plot_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace gelu::plot {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxMagnitude = 1e300;
constexpr std::size_t kMaxTicks = 2000;

// Unicode minus (U+2212) reads better than a hyphen on a projector.
std::string with_unicode_minus(std::string s) {
  if (!s.empty() && s[0] == '-') s.replace(0, 1, "\xE2\x88\x92");
  return s;
}

// "10" followed by the exponent in Unicode superscripts, e.g. 10⁻³.
std::string power_of_ten_label(int k) {
  static const char* const digits[] = {"\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",
                                       "\xE2\x81\xB4", "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7",
                                       "\xE2\x81\xB8", "\xE2\x81\xB9"};
  if (k == 0) return "1";
  if (k == 1) return "10";
  std::string s = "10";
  if (k < 0) s += "\xE2\x81\xBB";  // superscript minus
  const std::string mag = std::to_string(std::abs(k));
  for (char c : mag) s += digits[c - '0'];
  return s;
}
}  // namespace

bool Range::valid() const {
  return std::isfinite(min) && std::isfinite(max) && min < max;
}

// [SECTION] Scales

double scale_forward(const Axis& a, double v) {
  switch (a.scale) {
    case Scale::Linear:
      return v;
    case Scale::Log10:
      return v > 0 ? std::log10(v) : kNaN;
    case Scale::SymLog:
      return std::copysign(std::log10(1.0 + std::fabs(v) / a.symlog_c), v);
  }
  return v;
}

double scale_inverse(const Axis& a, double s) {
  switch (a.scale) {
    case Scale::Linear:
      return s;
    case Scale::Log10:
      return std::pow(10.0, s);
    case Scale::SymLog:
      return std::copysign(a.symlog_c * (std::pow(10.0, std::fabs(s)) - 1.0), s);
  }
  return s;
}

// [SECTION] Transform

double Transform::px_x(double vx) const {
  const double s0 = scale_forward(x, x.range.min), s1 = scale_forward(x, x.range.max);
  return left + (scale_forward(x, vx) - s0) / (s1 - s0) * (right - left);
}
double Transform::px_y(double vy) const {
  const double s0 = scale_forward(y, y.range.min), s1 = scale_forward(y, y.range.max);
  return bottom + (scale_forward(y, vy) - s0) / (s1 - s0) * (top - bottom);
}
double Transform::data_x(double px) const {
  const double s0 = scale_forward(x, x.range.min), s1 = scale_forward(x, x.range.max);
  return scale_inverse(x, s0 + (px - left) / (right - left) * (s1 - s0));
}
double Transform::data_y(double py) const {
  const double s0 = scale_forward(y, y.range.min), s1 = scale_forward(y, y.range.max);
  return scale_inverse(y, s0 + (py - bottom) / (top - bottom) * (s1 - s0));
}

// [SECTION] Interaction math

Range zoom_about(const Axis& a, double px0, double px1, double anchor_px, double factor) {
  const double s0 = scale_forward(a, a.range.min), s1 = scale_forward(a, a.range.max);
  const double t = (anchor_px - px0) / (px1 - px0);
  const double s = s0 + t * (s1 - s0);
  Range r{scale_inverse(a, s + (s0 - s) * factor), scale_inverse(a, s + (s1 - s) * factor)};
  return sanitize(a, r, a.range);
}

Range pan(const Axis& a, double px0, double px1, double delta_px) {
  const double s0 = scale_forward(a, a.range.min), s1 = scale_forward(a, a.range.max);
  const double ds = -delta_px / (px1 - px0) * (s1 - s0);
  return sanitize(a, Range{scale_inverse(a, s0 + ds), scale_inverse(a, s1 + ds)}, a.range);
}

Range sanitize(const Axis& a, Range r, Range fallback) {
  if (!std::isfinite(r.min) || !std::isfinite(r.max) || !(r.min < r.max)) return fallback;
  r.min = std::max(r.min, -kMaxMagnitude);
  r.max = std::min(r.max, kMaxMagnitude);
  if (a.scale == Scale::Log10) {
    if (r.max <= 0) return fallback;
    if (r.min <= 0) r.min = r.max * 1e-6;  // e.g. a linear range switched to log: show six decades
    r.min = std::max(r.min, 1e-300);
  }
  const double mag = std::max({std::fabs(r.min), std::fabs(r.max), 1e-290});
  if (r.max - r.min < mag * 1e-12) return fallback;
  return r.valid() ? r : fallback;
}

// [SECTION] Ticks

double nice_step(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  // A hair of tolerance so that exact powers (m == 1.0000000001 from rounding) stay put.
  if (m <= 1.0 + 1e-9) return p;
  if (m <= 2.0 + 1e-9) return 2 * p;
  if (m <= 5.0 + 1e-9) return 5 * p;
  return 10 * p;
}

std::string format_tick(double v, double step) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "\xE2\x88\x92inf" : "nan");
  if (std::fabs(v) < std::fabs(step) * 1e-6) return "0";
  char buf[64];
  const double av = std::fabs(v);
  if (av >= 1e6 || av < 1e-4) {
    // digits of the mantissa that the step resolves
    const int e = static_cast<int>(std::floor(std::log10(av)));
    const int se = static_cast<int>(std::floor(std::log10(std::fabs(step)) + 1e-9));
    const int digits = std::clamp(e - se, 0, 15);
    std::snprintf(buf, sizeof buf, "%.*e", digits, v);
  } else {
    const int digits = std::clamp(-static_cast<int>(std::floor(std::log10(std::fabs(step)) + 1e-9)), 0, 15);
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  }
  return with_unicode_minus(buf);
}

std::vector<Tick> make_ticks(const Axis& a, double pixels, double min_spacing_px) {
  std::vector<Tick> ticks;
  if (!a.range.valid() || !(pixels > 0)) return ticks;
  const double max_majors = std::max(2.0, std::floor(pixels / std::max(1.0, min_spacing_px)));

  if (a.scale == Scale::Linear) {
    double step = nice_step(a.range.size() / max_majors);
    // Rounding up to 1-2-5 can leave one labelled value in the range ([-4, 4] on 320 px at 214 px apart:
    // 4 -> 5, only 0 labelled), and one number is no scale at all. Then smaller steps (4, 2, 1, 0.5, 0.4, …):
    // the smallest with two labels at least 2/3 of the spacing apart (4: −4, 0, 4), else the largest with two
    // labels at least 0.46 of it apart (for y labels, one line each, 1.2 of the 2.6 em asked for).
    const auto majors_in = [&](double st) {
      return std::floor(a.range.max / st + 1e-9) - std::ceil(a.range.min / st - 1e-9) + 1;
    };
    if (majors_in(step) < 2) {
      const double per_px = a.range.size() / pixels, sp = std::max(1.0, min_spacing_px);
      double near = 0, far = 0, st = step;
      for (int down = 0; down < 6; ++down) {
        const double p = std::pow(10.0, std::floor(std::log10(st) + 1e-9)), m = st / p;
        st = m > 4.5 ? 4 * p : m > 2.5 ? 2 * p : m > 1.5 ? p : 0.5 * p;  // 5 -> 4 -> 2 -> 1 -> 0.5 -> 0.4
        if (!(st >= 0.46 * sp * per_px * (1 - 1e-9))) break;
        if (majors_in(st) < 2) continue;
        if (far == 0) far = st;
        if (st >= 0.66 * sp * per_px * (1 - 1e-9)) near = st;
      }
      if (near > 0 || far > 0) step = near > 0 ? near : far;
    }
    const double p = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const bool two = std::fabs(step / p - 2.0) < 1e-6, four = std::fabs(step / p - 4.0) < 1e-6;
    const int minor_div = two || four ? 4 : 5;
    const double minor = step / minor_div;
    const double k0 = std::ceil(a.range.min / minor - 1e-9), k1 = std::floor(a.range.max / minor + 1e-9);
    // Bounded by a count, not by k <= k1: beyond 2^53, k + 1 == k.
    if (!(k1 - k0 <= static_cast<double>(kMaxTicks)) || std::fabs(k0) > 0x1p52) return ticks;
    const auto count = static_cast<std::size_t>(k1 - k0);
    for (std::size_t i = 0; i <= count; ++i) {
      const double k = k0 + static_cast<double>(i);
      const double v = k * minor;  // integer multiple: no accumulated drift
      const bool major = std::fmod(std::fabs(k), minor_div) == 0;
      ticks.push_back({v, major, major ? format_tick(v, step) : std::string()});
    }
    return ticks;
  }

  if (a.scale == Scale::Log10) {
    // Decade labels (10³) are short: allow them closer than linear labels.
    const double max_decades = std::max(2.0, std::floor(pixels / std::max(1.0, 0.6 * min_spacing_px)));
    const double d0 = std::log10(a.range.min), d1 = std::log10(a.range.max);
    if (!std::isfinite(d0) || !std::isfinite(d1)) return ticks;  // min <= 0: not a log range
    const double decades = d1 - d0;
    int every = std::max(1, static_cast<int>(std::ceil(decades / max_decades)));
    if (decades > static_cast<double>(kMaxTicks)) return ticks;
    // Every `every`-th decade counted from the first one inside the range (not from 10⁰: [0.05, 70] with
    // every other decade would label 1 alone, then fall back to a linear "50").
    int majors = 0;
    const auto label_decades = [&] {
      ticks.clear();
      majors = 0;
      const bool minors = every == 1 && pixels / std::max(decades, 1e-9) > 2.5 * min_spacing_px;
      std::optional<int> first;
      for (int k = static_cast<int>(std::floor(d0)); k <= static_cast<int>(std::ceil(d1)); ++k) {
        const double base = std::pow(10.0, k);
        if (a.range.contains(base) && !first) first = k;
        if (first && (k - *first) % every == 0 && a.range.contains(base)) {
          ticks.push_back({base, true, power_of_ten_label(k)});
          ++majors;
        }
        if (minors)
          for (int m = 2; m <= 9; ++m)
            if (a.range.contains(m * base)) ticks.push_back({m * base, false, {}});
      }
    };
    label_decades();
    // One decade labelled where two fit closer together ([10⁻³, 1] on 151 px at 88 px apart: every other
    // decade labels 10⁻² alone; every decade is 51 px apart, at least 0.38 of 88: a y label's line, 1 em of
    // the 2.6 asked for; a linear fallback would put its 1-2-5 values a fraction of a decade apart).
    while (majors < 2 && every > 1 &&
           pixels / std::max(decades, 1e-9) * (every - 1) >= 0.38 * min_spacing_px) {
      --every;
      label_decades();
    }
    // A narrow log range (less than a decade) gets no decade: fall back to linear 1-2-5 labels.
    if (majors < 2) {
      Axis lin = a;
      lin.scale = Scale::Linear;
      std::vector<Tick> lt = make_ticks(lin, pixels, min_spacing_px);
      // A linear grid on a log axis crowds at the top; keep majors only.
      ticks.clear();
      for (Tick& t : lt)
        if (t.major && t.value > 0) ticks.push_back(std::move(t));
    }
    return ticks;
  }

  // SymLog: 0 and ±c·10^k decades beyond the linear threshold.
  const double c = a.symlog_c;
  if (!(c > 0) || !std::isfinite(c)) return ticks;
  const double lim = std::max(std::fabs(a.range.min), std::fabs(a.range.max));
  const int kc = static_cast<int>(std::floor(std::log10(c)));
  const int kmax = static_cast<int>(std::ceil(std::log10(std::max(lim, c))));
  const double span_s = scale_forward(a, a.range.max) - scale_forward(a, a.range.min);
  const double px_per_decade = pixels / std::max(span_s, 1e-9);
  const int every = std::max(1, static_cast<int>(std::ceil(min_spacing_px / std::max(px_per_decade, 1e-9))));
  if (a.range.contains(0.0)) ticks.push_back({0.0, true, "0"});
  for (int k = kc; k <= kmax && ticks.size() < kMaxTicks; ++k) {
    if ((k - kc) % every) continue;
    const double v = std::pow(10.0, k);
    if (v < c * 0.999) continue;
    if (a.range.contains(v)) ticks.push_back({v, true, power_of_ten_label(k)});
    if (a.range.contains(-v)) ticks.push_back({-v, true, "\xE2\x88\x92" + power_of_ten_label(k)});
  }
  std::sort(ticks.begin(), ticks.end(), [](const Tick& l, const Tick& r) { return l.value < r.value; });
  return ticks;
}

// [SECTION] Sampling and fitting

void sample_function(const Axis& x_axis, std::size_t n, const BatchFn& f, std::vector<double>& xs,
                     std::vector<double>& ys) {
  n = std::max<std::size_t>(n, 2);
  xs.resize(n);
  ys.resize(n);
  const double s0 = scale_forward(x_axis, x_axis.range.min), s1 = scale_forward(x_axis, x_axis.range.max);
  const double ds = (s1 - s0) / static_cast<double>(n - 1);
  for (std::size_t i = 0; i < n; ++i) xs[i] = scale_inverse(x_axis, s0 + ds * static_cast<double>(i));
  xs.front() = x_axis.range.min;
  xs.back() = x_axis.range.max;
  f(xs, ys);
}

void for_each_finite_run(std::span<const double> xs, std::span<const double> ys, const Axis& y_axis,
                         const std::function<void(std::size_t, std::size_t)>& run) {
  const std::size_t n = std::min(xs.size(), ys.size());
  std::size_t begin = 0;
  auto ok = [&](std::size_t i) {
    return std::isfinite(xs[i]) && std::isfinite(ys[i]) && (y_axis.scale != Scale::Log10 || ys[i] > 0);
  };
  while (begin < n) {
    while (begin < n && !ok(begin)) ++begin;
    std::size_t end = begin;
    while (end < n && ok(end)) ++end;
    if (end > begin) run(begin, end);
    begin = end;
  }
}

Range data_bounds(std::span<const double> v, const Axis& a) {
  Range r{kInf, -kInf};
  for (double d : v) {
    if (!std::isfinite(d) || (a.scale == Scale::Log10 && d <= 0)) continue;
    r.min = std::min(r.min, d);
    r.max = std::max(r.max, d);
  }
  return r;
}

Range padded(const Axis& a, Range b, double pad) {
  if (!std::isfinite(b.min) || !std::isfinite(b.max) || b.min > b.max) return a.range;
  double s0 = scale_forward(a, b.min), s1 = scale_forward(a, b.max);
  if (s1 - s0 < 1e-12 * std::max(1.0, std::fabs(s0))) {
    s0 -= 0.5;
    s1 += 0.5;
  } else {
    const double w = s1 - s0;
    s0 -= w * pad;
    s1 += w * pad;
  }
  return sanitize(a, Range{scale_inverse(a, s0), scale_inverse(a, s1)}, a.range);
}

double interpolate(std::span<const double> xs, std::span<const double> ys, double x, double* slope) {
  const std::size_t n = std::min(xs.size(), ys.size());
  if (slope) *slope = kNaN;
  if (n < 2 || !(x >= xs.front() && x <= xs[n - 1])) return kNaN;
  std::size_t i = static_cast<std::size_t>(
      std::upper_bound(xs.begin(), xs.begin() + static_cast<long>(n), x) - xs.begin());
  i = std::clamp<std::size_t>(i, 1, n - 1);
  const double x0 = xs[i - 1], x1 = xs[i], y0 = ys[i - 1], y1 = ys[i];
  const double s = (y1 - y0) / (x1 - x0);
  if (slope) *slope = s;
  if (x == x0) return y0;
  return y0 + s * (x - x0);
}

double bar_offset(int index, int count, double group_width) {
  if (count <= 0) return 0.0;
  const double w = group_width / count;
  return (index + 0.5) * w - group_width / 2;
}

}  // namespace gelu::plot

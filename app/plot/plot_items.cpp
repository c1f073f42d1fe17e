// GELU Lab plot layer: the series a plot draws (lines, functions, dots, bars, rings, images, shadings, lines
// across, markers, tangents, the probe, hatching). See plot_internal.hpp for how the plot's files are split.
#include <imgui_internal.h>

#include "plot/plot_internal.hpp"

namespace gelu::plot {

using namespace detail;  // NOLINT: the plot's own internals

// [SECTION] Series

bool Plot::begin_series(const char* label, ImU32 color, bool readout, Entry** out) {
  *out = nullptr;
  if (!label || !label[0] || (label[0] == '#' && label[1] == '#')) return true;
  const std::string_view l(label);
  const auto hash = l.find("##");
  std::string text(l.substr(0, hash)), key(hash == std::string_view::npos ? l : l.substr(hash + 2));
  if (context().view_filter && context().series_names) {
    if (!text.empty()) context().series_names->insert(text);
    context().series_names->insert(key);
  }
  if (context().view_filter && context().view_filter->hides(text, key))
    return false;  // not on this lesson step
  const bool hidden = s_.hidden.count(key) > 0;
  entries_.push_back(Entry{std::move(text), std::move(key), color, hidden, readout, false, {}, {}, {}, {}});
  *out = &entries_.back();
  return !hidden;
}

void Plot::polyline(std::span<const double> xs, std::span<const double> ys, ImU32 color, float thickness) {
  // A whole number of pixels: ImGui draws such a line from its font atlas's baked line texture, two triangles
  // a segment, where a fractional width takes six (the browser's software WebGL draws a Curves frame in a
  // third of the time: docs/performance.md).
  thickness = std::round(std::max(kMinLine, thickness * context().line_scale));
  // Long data series are strided to about two points per pixel column.
  const std::size_t n = std::min(xs.size(), ys.size());
  const std::size_t cols = static_cast<std::size_t>(std::max(1.0f, area_max_.x - area_min_.x));
  const std::size_t stride = n > 4 * cols ? n / (2 * cols) : 1;
  static thread_local std::vector<ImVec2> pts;
  for_each_finite_run(xs.first(n), ys.first(n), s_.y, [&](std::size_t b, std::size_t e) {
    pts.clear();
    for (std::size_t i = b; i < e; i += stride) pts.push_back(px(xs[i], ys[i]));
    if (stride > 1 && (e - 1 - b) % stride) pts.push_back(px(xs[e - 1], ys[e - 1]));
    pts.resize(simplify_polyline(std::span<ImVec2>(pts), kPolylineTolerance));
    for (std::size_t i = 0; i < pts.size(); ++i)
      place_.ink.push_back({pt(pts[i]), pt(pts[i + 1 < pts.size() ? i + 1 : i]), thickness * 0.5f});
    if (pts.size() == 1) {
      dl_->AddCircleFilled(pts[0], thickness * 0.5f, color);
    } else {
      dl_->AddPolyline(pts.data(), static_cast<int>(pts.size()), color, ImDrawFlags_None, thickness);
    }
  });
}

void Plot::function(const char* label, ImU32 color, const BatchFn& f, const BatchFn* df, float thickness_em,
                    std::string_view key) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, true, &e);
  if (e) {
    e->f = f;
    if (df) e->df = *df;
  }
  if (!visible) return;
  const auto n = static_cast<std::size_t>(std::clamp(area_max_.x - area_min_.x, 32.0f, 8192.0f)) + 1;
  PlotState::Samples* kept = key.empty() ? nullptr : &s_.samples[label];
  if (kept && kept->key == key && kept->n == n && kept->x.range.min == s_.x.range.min &&
      kept->x.range.max == s_.x.range.max && kept->x.scale == s_.x.scale &&
      kept->x.symlog_c == s_.x.symlog_c) {
    sx_ = kept->xs;
    sy_ = kept->ys;
  } else {
    sample_function(s_.x, n, f, sx_, sy_);
    if (kept) *kept = {std::string(key), s_.x, n, sx_, sy_};
  }
  ++items_;
  if (s_.capture && e) s_.captured.push_back({e->label, sx_, sy_, {}});
  const Range b = data_bounds(sy_, s_.y);
  fit_y_.min = std::min(fit_y_.min, b.min);
  fit_y_.max = std::max(fit_y_.max, b.max);
  polyline(sx_, sy_, color, thickness_em * lu_);
  if (e) {
    e->end = line_end(sx_, sy_);
    e->mid = line_at(sx_, sy_, 0.6);
  }
}

ImVec2 Plot::line_at(std::span<const double> xs, std::span<const double> ys, double share) const {
  const double target = s_.x.range.min + share * (s_.x.range.max - s_.x.range.min);
  std::size_t best = SIZE_MAX;
  for (std::size_t i = 0; i < std::min(xs.size(), ys.size()); ++i)
    if (std::isfinite(xs[i]) && std::isfinite(ys[i]) && s_.x.range.contains(xs[i]) &&
        (s_.y.scale != Scale::Log10 || ys[i] > 0) &&
        (best == SIZE_MAX || std::fabs(xs[i] - target) < std::fabs(xs[best] - target)))
      best = i;
  return best == SIZE_MAX ? ImVec2(NAN, NAN) : px(xs[best], ys[best]);
}

ImVec2 Plot::line_end(std::span<const double> xs, std::span<const double> ys) const {
  for (std::size_t i = std::min(xs.size(), ys.size()); i-- > 0;)
    if (std::isfinite(xs[i]) && std::isfinite(ys[i]) && s_.x.range.contains(xs[i]) &&
        (s_.y.scale != Scale::Log10 || ys[i] > 0))
      return px(xs[i], ys[i]);
  return ImVec2(NAN, NAN);
}

void Plot::line(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
                float thickness_em) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, true, &e);
  if (e) {
    e->xs = xs;
    e->ys = ys;
  }
  if (!visible) return;
  items_ += static_cast<int>(std::min(xs.size(), ys.size()));
  if (s_.capture && e) capture(e->label, xs, ys);
  const Range bx = data_bounds(xs, s_.x), by = data_bounds(ys, s_.y);
  fit_x_ = {std::min(fit_x_.min, bx.min), std::max(fit_x_.max, bx.max)};
  fit_y_ = {std::min(fit_y_.min, by.min), std::max(fit_y_.max, by.max)};
  polyline(xs, ys, color, thickness_em * lu_);
  if (e) {
    e->end = line_end(xs, ys);
    e->mid = line_at(xs, ys, 0.6);
  }
}

void Plot::scatter(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
                   float radius_em) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, false, &e);
  if (e) e->dot = true;
  if (!visible) return;
  items_ += static_cast<int>(std::min(xs.size(), ys.size()));
  if (s_.capture && e) capture(e->label, xs, ys);
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
    const ImVec2 p = px(xs[i], ys[i]);
    dl_->AddCircleFilled(p, radius_em * lu_ * context().line_scale, color, 12);
    place_.ink.push_back({pt(p), pt(p), radius_em * lu_ * context().line_scale});
    place_.dots.push_back({pt(p), color});
  }
  const Range bx = data_bounds(xs, s_.x), by = data_bounds(ys, s_.y);
  fit_x_ = {std::min(fit_x_.min, bx.min), std::max(fit_x_.max, bx.max)};
  fit_y_ = {std::min(fit_y_.min, by.min), std::max(fit_y_.max, by.max)};
  // A few named dots (inflection points) are named beside the last of them on a slide; a cloud of points
  // (a data set) keeps its legend entry.
  if (e && n <= 8) e->end = line_end(xs, ys);
}

void Plot::bars(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> heights,
                double width) {
  Entry* e = nullptr;
  if (!begin_series(label, color, false, &e)) return;
  items_ += static_cast<int>(std::min(xs.size(), heights.size()));
  if (s_.capture && e) capture(e->label, xs, heights);
  const double base = s_.y.scale == Scale::Log10 ? s_.y.range.min : 0.0;
  const std::size_t n = std::min(xs.size(), heights.size());
  const ImU32 edge = (color & ~IM_COL32_A_MASK) | (255u << IM_COL32_A_SHIFT);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(heights[i])) continue;
    const ImVec2 a = px(xs[i] - width / 2, heights[i]), b = px(xs[i] + width / 2, base);
    const ImVec2 lo(std::min(a.x, b.x), std::min(a.y, b.y)), hi(std::max(a.x, b.x), std::max(a.y, b.y));
    dl_->AddRectFilled(lo, hi, color);
    place_.ink_rects.push_back(rect(lo, hi));
    if (hi.x - lo.x > 4) dl_->AddRect(lo, hi, edge, 0.0f, ImDrawFlags_None, 1.0f);
  }
  const Range by = data_bounds(heights, s_.y);
  fit_y_ = {std::min({fit_y_.min, by.min, base}), std::max({fit_y_.max, by.max, base})};
  if (n) {
    const Range bx = data_bounds(xs, s_.x);
    fit_x_ = {std::min(fit_x_.min, bx.min - width), std::max(fit_x_.max, bx.max + width)};
  }
}

void Plot::whisker_bars(const char* label, ImU32 color, std::span<const double> xs,
                        std::span<const double> lo, std::span<const double> mid, std::span<const double> hi,
                        double width) {
  const std::size_t before = entries_.size();
  bars(label, color, xs, mid, width);
  if (entries_.size() > before && entries_.back().hidden) return;
  const ImU32 ink = IM_COL32(25, 25, 25, 255);
  const float t = std::max(1.0f, 0.09f * lu_);
  const std::size_t n = std::min({xs.size(), lo.size(), hi.size()});
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(lo[i]) || !std::isfinite(hi[i])) continue;
    const ImVec2 a = px(xs[i], lo[i]), b = px(xs[i], hi[i]);
    const float cap =
        std::min(0.35f * em_, 0.3f * std::fabs(px(xs[i] + width / 2, 0).x - px(xs[i] - width / 2, 0).x));
    dl_->AddLine(a, b, ink, t);
    place_.ink.push_back({pt(a), pt(b), t});
    dl_->AddLine(ImVec2(a.x - cap, a.y), ImVec2(a.x + cap, a.y), ink, t);
    dl_->AddLine(ImVec2(b.x - cap, b.y), ImVec2(b.x + cap, b.y), ink, t);
  }
  const Range bh = data_bounds(hi.first(n), s_.y), bl = data_bounds(lo.first(n), s_.y);
  fit_y_ = {std::min({fit_y_.min, bl.min}), std::max({fit_y_.max, bh.max})};
}

void Plot::rings(const char* label, ImU32 color, std::span<const double> xs, std::span<const double> ys,
                 float radius_em, float thickness_em) {
  Entry* e = nullptr;
  const bool visible = begin_series(label, color, false, &e);
  if (e) e->dot = true;
  if (!visible) return;
  items_ += static_cast<int>(std::min(xs.size(), ys.size()));
  const std::size_t n = std::min(xs.size(), ys.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
    const ImVec2 p = px(xs[i], ys[i]);
    dl_->AddCircle(p, radius_em * lu_, color, 12, thickness_em * lu_);
    place_.ink.push_back({pt(p), pt(p), radius_em * lu_});
  }
}

void Plot::image(ImTextureID texture, double x0, double y0, double x1, double y1, ImVec2 uv_lo,
                 ImVec2 uv_hi) {
  ++items_;
  const ImVec2 a = px(x0, y0), b = px(x1, y1);  // a: (x0, y0), b: (x1, y1) on screen
  // AddImage wants the top-left corner first; swap texture coordinates along with the corners.
  ImVec2 p0(a.x, b.y), p1(b.x, a.y), uv0(uv_lo.x, uv_hi.y), uv1(uv_hi.x, uv_lo.y);
  if (p0.x > p1.x) {
    std::swap(p0.x, p1.x);
    std::swap(uv0.x, uv1.x);
  }
  if (p0.y > p1.y) {
    std::swap(p0.y, p1.y);
    std::swap(uv0.y, uv1.y);
  }
  dl_->AddImage(texture, p0, p1, uv0, uv1);
  place_.ink_rects.push_back(rect(p0, p1));
}

void Plot::shade_x(const char* label, ImU32 color, double x0, double x1) {
  Entry* e = nullptr;
  if (!begin_series(label, color, false, &e)) return;
  const float a = std::isinf(x0) ? area_min_.x : px(x0, 0).x, b = std::isinf(x1) ? area_max_.x : px(x1, 0).x;
  dl_->AddRectFilled(ImVec2(std::min(a, b), area_min_.y), ImVec2(std::max(a, b), area_max_.y), color);
  place_.soft_rects.push_back({{std::min(a, b), area_min_.y}, {std::max(a, b), area_max_.y}});
  // On a slide its name goes near the band's top (draw_inline_labels).
  if (e && std::max(a, b) - std::min(a, b) >= 1.0f) {
    e->end = ImVec2((a + b) / 2, area_min_.y + 0.5f * em_);
    e->mid = ImVec2((a + b) / 2, area_max_.y - 1.5f * em_);  // (or near its bottom)
  }
}

void Plot::shade_between(const char* label, ImU32 color, std::span<const double> xs,
                         std::span<const double> y0, std::span<const double> y1) {
  Entry* e = nullptr;
  if (!begin_series(label, color, false, &e)) return;
  const std::size_t n = std::min({xs.size(), y0.size(), y1.size()});
  items_ += static_cast<int>(n);
  const std::size_t cols = static_cast<std::size_t>(std::max(1.0f, area_max_.x - area_min_.x));
  const std::size_t stride = n > 4 * cols ? n / (2 * cols) : 1;
  auto ok = [&](std::size_t i) {
    return std::isfinite(xs[i]) && std::isfinite(y0[i]) && std::isfinite(y1[i]);
  };
  // Without anti-aliased fill: the triangles share edges, and AA fringes would overlap into visible seams.
  const ImDrawListFlags saved = dl_->Flags;
  dl_->Flags &= ~ImDrawListFlags_AntiAliasedFill;
  for (std::size_t i = 0; i + 1 < n; i += stride) {
    const std::size_t j = std::min(i + stride, n - 1);
    if (!ok(i) || !ok(j)) continue;
    const ImVec2 a = px(xs[i], y0[i]), b = px(xs[j], y0[j]), c = px(xs[j], y1[j]), d = px(xs[i], y1[i]);
    // Two triangles: a quad between crossing curves is not convex.
    dl_->AddTriangleFilled(a, b, c, color);
    dl_->AddTriangleFilled(a, c, d, color);
    place_.ink_rects.push_back({{std::min(a.x, d.x), std::min({a.y, b.y, c.y, d.y})},
                                {std::max(b.x, c.x), std::max({a.y, b.y, c.y, d.y})}});
  }
  dl_->Flags = saved;
  // On a slide its name goes by the middle of the shaded region (draw_inline_labels).
  for (std::size_t k = 0, i = n / 2; e && k < n; ++k, i = (i + 1) % n)
    if (ok(i) && s_.x.range.contains(xs[i])) {
      e->end = px(xs[i], 0.5 * (y0[i] + y1[i]));
      break;
    }
}

void Plot::hline(double y, ImU32 color, float thickness_em, bool dashed) {
  const float py = px(0, y).y;
  thickness_em = std::max(kMinLine / lu_, thickness_em);
  place_.ink.push_back({{area_min_.x, py}, {area_max_.x, py}, 1.0f});  // a legend does not hide it
  if (!dashed) {
    dl_->AddLine(ImVec2(area_min_.x, py), ImVec2(area_max_.x, py), color, thickness_em * lu_);
    return;
  }
  for (float x = area_min_.x; x < area_max_.x; x += 0.9f * em_)
    dl_->AddLine(ImVec2(x, py), ImVec2(std::min(x + 0.5f * em_, area_max_.x), py), color, thickness_em * lu_);
}

void Plot::vline(double x, ImU32 color, float thickness_em, bool dashed) {
  const float pxx = px(x, 0).x;
  thickness_em = std::max(kMinLine / lu_, thickness_em);
  place_.ink.push_back({{pxx, area_min_.y}, {pxx, area_max_.y}, 1.0f});  // a legend does not hide it
  if (!dashed) {
    dl_->AddLine(ImVec2(pxx, area_min_.y), ImVec2(pxx, area_max_.y), color, thickness_em * lu_);
    return;
  }
  for (float y = area_min_.y; y < area_max_.y; y += 0.9f * em_)
    dl_->AddLine(ImVec2(pxx, y), ImVec2(pxx, std::min(y + 0.5f * em_, area_max_.y)), color,
                 thickness_em * lu_);
}

void Plot::marker(double x, double y, ImU32 color, const char* text, float radius_em) {
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  const ImVec2 p = px(x, y);
  radius_em *= context().line_scale;
  // The dot on the top channel: no label (placed before or after it) nor curve covers it.
  // White halos under every dot's colour (channel 2 under 3): a halo never covers a neighbouring dot.
  layers_.SetCurrentChannel(dl_, 2);
  dl_->AddCircleFilled(p, radius_em * lu_, IM_COL32_WHITE, 16);
  layers_.SetCurrentChannel(dl_, 3);
  dl_->AddCircleFilled(p, radius_em * lu_ * 0.72f, color, 16);
  layers_.SetCurrentChannel(dl_, 0);
  place_.ink.push_back({pt(p), pt(p), radius_em * lu_});
  place_.dots.push_back({pt(p), color});
  if (!text || !text[0]) return;
  named_dots_.push_back({p, radius_em * lu_, text, color, in_view_notes_});
}

void Plot::tangent(double x0, double y0, double slope, ImU32 color, float thickness_em) {
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(slope)) return;
  // A segment about 14 em long centred on the point: long enough to read the slope, short enough not to
  // pass for another curve. Sampled, so it is right on log and symlog y axes too (where it bends).
  const double L = 7.0 * em_;
  const double sx =
      (tf_.right - tf_.left) / (scale_forward(s_.x, s_.x.range.max) - scale_forward(s_.x, s_.x.range.min));
  const double sy = (tf_.bottom - tf_.top) / s_.y.range.size();
  const double hx =
      s_.y.scale == Scale::Linear && s_.x.scale == Scale::Linear ? L / std::hypot(sx, slope * sy) : L / sx;
  constexpr int n = 33;
  double xs[n], ys[n];
  for (int i = 0; i < n; ++i) {
    xs[i] = x0 + hx * (2.0 * i / (n - 1.0) - 1.0);
    ys[i] = y0 + slope * (xs[i] - x0);
  }
  polyline(std::span<const double>(xs, n), std::span<const double>(ys, n), color, thickness_em * lu_);
}

bool Plot::probe(double* x, ImU32 color) {
  bool changed = false;
  const ImGuiIO& io = ImGui::GetIO();
  if (s_.drag == 4 && ImGui::IsMouseDown(0)) {
    const double mx = std::clamp(static_cast<double>(io.MousePos.x), tf_.left, tf_.right);
    const double nx = tf_.data_x(mx);
    changed = nx != *x;
    *x = nx;
  }
  s_.probe_px = tf_.px_x(*x);
  if (!std::isfinite(*x) || !s_.x.range.contains(*x)) return changed;
  const float p = px(*x, 0).x;
  const bool near = s_.drag == 4 || (hovered_ && std::fabs(io.MousePos.x - p) < 0.7f * em_ &&
                                     inside(io.MousePos, area_min_, area_max_));
  if (near) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  dl_->AddLine(ImVec2(p, area_min_.y), ImVec2(p, area_max_.y), color, (near ? 0.16f : 0.1f) * em_);
  const float r = 0.45f * em_;
  dl_->AddTriangleFilled(ImVec2(p - r, area_min_.y), ImVec2(p + r, area_min_.y),
                         ImVec2(p, area_min_.y + r * 1.3f), color);
  return changed;
}

void Plot::hatch(ImU32 color, float spacing_em) {
  const float step = std::max(4.0f, spacing_em * em_), thick = std::max(1.0f, 0.1f * em_);
  const float w = area_max_.x - area_min_.x, h = area_max_.y - area_min_.y;
  if (w <= 0 || h <= 0) return;
  // 45° lines from the bottom edge up to the right, each clipped to the data area.
  for (float t = -h; t < w; t += step) {
    ImVec2 a(area_min_.x + t, area_max_.y), b(area_min_.x + t + h, area_min_.y);
    if (a.x < area_min_.x) a = ImVec2(area_min_.x, area_max_.y - (area_min_.x - a.x));
    if (b.x > area_max_.x) b = ImVec2(area_max_.x, area_min_.y + (b.x - area_max_.x));
    dl_->AddLine(a, b, color, thick);
  }
}

}  // namespace gelu::plot

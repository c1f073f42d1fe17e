// GELU Lab plot layer: where things go in and around a plot, on rectangles (see place.hpp; no ImGui).
//
// Index of this file:
//   [SECTION] Geometry
//   [SECTION] Labels
//   [SECTION] Notes
//   [SECTION] The legend
#include "plot/place.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace gelu::plot {

// [SECTION] Geometry

bool boxes_meet(const Rect& a, const Rect& b) {
  return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y;
}

bool segment_hits(Point a, Point b, float r, const Rect& box) {
  const Point lo{box.min.x - r, box.min.y - r}, hi{box.max.x + r, box.max.y + r};
  float t0 = 0, t1 = 1;
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float p[4] = {-dx, dx, -dy, dy}, q[4] = {a.x - lo.x, hi.x - a.x, a.y - lo.y, hi.y - a.y};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const float t = q[i] / p[i];
    if (p[i] < 0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 > t1) return false;
  }
  return true;
}

float box_distance(Point q, const Rect& b) {
  const float dx = std::max({b.min.x - q.x, 0.0f, q.x - b.max.x});
  const float dy = std::max({b.min.y - q.y, 0.0f, q.y - b.max.y});
  return std::hypot(dx, dy);
}

std::vector<std::string> wrap_words(const std::string& text, float width, const MeasureText& measure) {
  std::vector<std::string> lines;
  if (text.empty()) return lines;
  if (measure(text).x <= width) return {text};
  std::string cur;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    const std::string joined = cur.empty() ? word : cur + " " + word;
    if (!cur.empty() && measure(joined).x > width) {
      lines.push_back(cur);
      cur = word;
    } else {
      cur = joined;
    }
    at = end + 1;
    while (at < text.size() && text[at] == ' ') ++at;  // runs of spaces (title gaps) collapse at a break
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

Rect around(Point p, float r) {
  return {{p.x - r, p.y - r}, {p.x + r, p.y + r}};
}

}  // namespace

// [SECTION] Labels

LabelPlace place_label(Scene& s, const LabelAsk& ask) {
  const Point p = ask.p;
  const float em = s.em;
  const Rect& area = s.area;
  std::string t = ask.text;
  const std::string one_line = t;
  // A marker left or right of the view is not seen: its label, at that edge, points to it.
  const bool off_view = ask.marker && (p.x < area.min.x || p.x > area.max.x);
  if (off_view) t = p.x < area.min.x ? "← " + t : t + " →";
  // Wider than the plot: wrapped at spaces (never cut at the plot's edge).
  if (const float room = area.max.x - area.min.x - 0.6f * em; s.measure(t).x > room)
    t = joined(wrap_words(t, room, s.measure));
  // The label beside the dot: right-below, right-above, left-below, left-above, further out, the first that
  // stays inside the plot and clear of the labels and dots placed before it (else the least crowded).
  const float dx = 0.6f * em, dy = 0.35f * em, m = 0.2f * em;
  auto box_of = [&](Point tp, Point ts) {
    return Rect{{tp.x - m, tp.y - 0.05f * em}, {tp.x + ts.x + m, tp.y + ts.y}};
  };
  struct Spot {
    Point at;
    std::int64_t score = std::int64_t{1} << 40;
    bool on_data = false;  // it covers a curve or a filled area
  };
  // The best place for a text of size ts.
  auto search = [&](Point ts) {
    // Never cut by the plot's edge: a place partly outside is pushed in.
    auto clamp_in = [&](Point tp) {
      return Point{std::max(area.min.x + m, std::min(tp.x, area.max.x - m - ts.x)),
                   std::max(area.min.y + m, std::min(tp.y, area.max.y - m - ts.y))};
    };
    Spot best;
    best.at = Point{p.x + dx, p.y + dy};
    if (best.at.x + ts.x > area.max.x - m) best.at.x = p.x - dx - ts.x;
    if (best.at.y + ts.y > area.max.y - m) best.at.y = p.y - dy - ts.y;
    best.at = clamp_in(best.at);
    // A callout (a lesson's arrow) stands further off, so that its arrow is seen; a marker's label in a plot
    // of many (near: labels_near) stays beside its dot.
    const std::vector<float> reaches = ask.callout ? std::vector<float>{3.6f, 5.0f, 2.2f, 7.0f}
                                       : ask.near  ? std::vector<float>{1.0f, 2.2f}
                                                   : std::vector<float>{1.0f, 2.2f, 3.6f, 5.0f};
    for (const float reach : reaches) {
      for (Point tp :
           {Point{p.x + dx * reach, p.y + dy * reach}, Point{p.x + dx * reach, p.y - dy * reach - ts.y},
            Point{p.x - dx * reach - ts.x, p.y + dy * reach},
            Point{p.x - dx * reach - ts.x, p.y - dy * reach - ts.y},
            Point{p.x - ts.x / 2, p.y + dy * reach + 0.3f * em},
            Point{p.x - ts.x / 2, p.y - dy * reach - 0.3f * em - ts.y}}) {
        tp = clamp_in(tp);
        const Rect b = box_of(tp, ts);
        // Another label under it is worst, then drawn data (each segment of a curve it covers), then a dot
        // (it stays on top, but reads as part of the text).
        std::int64_t score = 0;
        for (const Rect& l : s.labels) score += boxes_meet(b, l) ? 1000 : 0;
        long data = 0;
        for (const Ink& k : s.ink) data += segment_hits(k.a, k.b, k.r, b) ? 3 : 0;
        for (const Rect& r : s.ink_rects) data += boxes_meet(b, r) ? 30 : 0;
        score += data;
        const bool on_data = data > 0;
        for (const Rect& r : s.soft_rects) score += boxes_meet(b, r) ? 10 : 0;
        const float r = 0.3f * em;
        for (const InkDot& d : s.dots) score += boxes_meet(b, around(d.p, r)) ? 1 : 0;
        // A marker's label over its own dot hides what it names (a dot at the plot's edge can push it there).
        if (ask.marker && boxes_meet(b, around(p, r))) score += 100;
        // A marker's label nearer another dot of its colour than its own reads as that dot's (a label in
        // another colour than the dots around it is told by its colour).
        if (ask.marker) {
          const Rect glyphs{tp, {tp.x + ts.x, tp.y + ts.y}};
          const float own = box_distance(p, glyphs);
          for (const InkDot& d : s.dots)
            if (d.color == ask.color && box_distance(d.p, glyphs) < own - 0.5f) {
              score += 100;
              break;
            }
        }
        if (score < best.score) best = {tp, score, on_data};
        if (score == 0) break;
      }
      if (best.score == 0) break;
    }
    return best;
  };
  Point ts = s.measure(t);
  Spot spot = search(ts);
  // A one-line label that lies on a curve or a filled area wherever it goes, or finds no place clear of the
  // labels before it (a long label in a small plot, or at 2× and 3× text), may do better on two lines: it
  // takes them where they lie clear of data (shadings, shade_x, are not data here: a place that only covers
  // one beats a place on a curve), or, for a label that would be left out, clear of the other labels.
  const auto rank = [](const Spot& q) { return q.score >= 1000 ? 2 : q.on_data ? 1 : 0; };
  // (Not a label of a dot out of view: on data it goes beside the legend, below.)
  if (!ask.callout && !off_view && rank(spot) > 0 && t.find('\n') == std::string::npos &&
      t.find(' ') != std::string::npos) {
    // Broken at the space that makes the longer line shortest.
    std::string two;
    float widest = ts.x;
    for (std::size_t at = t.find(' '); at != std::string::npos; at = t.find(' ', at + 1)) {
      const std::string a = t.substr(0, at), b = t.substr(at + 1);
      const float w = std::max(s.measure(a).x, s.measure(b).x);
      if (w < widest) {
        widest = w;
        two = a + "\n" + b;
      }
    }
    if (!two.empty()) {
      const Point ts2 = s.measure(two);
      const Spot alt = search(ts2);
      if (rank(alt) < rank(spot) && (rank(alt) == 1 || alt.score < 100)) {
        t = std::move(two);
        ts = ts2;
        spot = alt;
      }
    }
  }
  LabelPlace out;
  // No place without another label under it: the label is left out (the dot stays; it would only be read as
  // part of the other text). In a plot of many labelled dots (near), nor one on its own dot or nearer another
  // dot of its colour (the dot shows it when hovered).
  if (spot.score >= 1000 && !ask.callout) return out;
  if (ask.near && spot.score >= 100) return out;
  const Rect b = box_of(spot.at, ts);
  // A label that would cover a sixth of the plot or more and lies on its curves hides more than it says
  // (a small plot at 3× text): under the legend when that is at the plot's right (as the plot's notes), else
  // left out; its dot shows it when hovered.
  if (ask.optional && spot.on_data &&
      (b.max.x - b.min.x) * (b.max.y - b.min.y) >=
          0.15f * (area.max.x - area.min.x) * (area.max.y - area.min.y)) {
    if (!ask.near && s.outside == LegendSlot::Right && place_outside_note(s, one_line, {}, ask.color, false))
      out.where = LabelPlace::Where::Outside;
    return out;
  }
  // The label of a dot left or right of the view names something the plot does not show: where it would lie
  // on the data, it goes beside the legend when that is outside the plot (as the plot's notes); else it
  // stays here, the only place it is seen (an unseen dot has no hover).
  if (off_view && spot.on_data && place_outside_note(s, one_line, {}, ask.color, false)) {
    out.where = LabelPlace::Where::Outside;
    return out;
  }
  s.labels.push_back(b);
  if (ask.callout) {
    out.callout_box = {{b.min.x - 0.15f * em, b.min.y - 0.1f * em},
                       {b.max.x + 0.15f * em, b.max.y + 0.1f * em}};
    s.ink_rects.push_back(out.callout_box);
  }
  out.where = LabelPlace::Where::Here;
  out.at = spot.at;
  out.text = std::move(t);
  out.box = b;
  return out;
}

std::string compact_label(const std::string& label) {
  std::string t = label.substr(0, label.find("  "));
  for (std::size_t at = t.find(" ("); at != std::string::npos; at = t.find(" (", at + 1)) {
    const std::size_t close = t.find(')', at);
    if (close == std::string::npos) break;
    if (t.substr(at, close - at).find('=') == std::string::npos) continue;
    t.erase(at, close + 1 - at);
    if (at-- == 0) break;
  }
  return t.empty() ? label : t;
}

std::vector<std::string> inline_label_texts(const std::string& label, bool curve) {
  // A shading's name without its explanation ("ReLU dead zone: f = f′ = 0" -> "ReLU dead zone").
  std::string t = compact_label(label);
  if (!curve && t.find(": ") != std::string::npos) t.resize(t.find(": "));
  std::vector<std::string> out{t};
  // Where it has no room, its name alone (before ": ").
  if (t.find(": ") != std::string::npos) out.push_back(t.substr(0, t.find(": ")));
  return out;
}

// [SECTION] Notes

NotePlace place_note(Scene& s, const std::string& text_in, int corner, std::uint32_t color,
                     const std::string& compact) {
  const float em = s.em, pad = 0.5f * em;
  const Rect& area = s.area;
  // Wrapped at spaces to the data area's width: never cut by the plot's edge.
  std::string wrapped;
  const float max_lines = std::max(1.0f, std::floor((area.max.y - area.min.y - 2 * pad) / s.line_height));
  auto wrap = [&](std::string_view all) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= all.size();) {  // its own lines, each wrapped
      std::size_t end = all.find('\n', at);
      if (end == std::string_view::npos) end = all.size();
      for (std::string& l :
           wrap_words(std::string(all.substr(at, end - at)), area.max.x - area.min.x - 2 * pad, s.measure))
        out.push_back(std::move(l));
      at = end + 1;
    }
    return out;
  };
  std::vector<std::string> lines = wrap(text_in);
  if (!compact.empty() && static_cast<float>(lines.size()) * s.line_height > (area.max.y - area.min.y) / 3)
    lines = wrap(compact);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (static_cast<float>(i) + 1 > max_lines) {  // taller than the plot: the lines that fit, then "…"
      wrapped += "…";
      break;
    }
    wrapped += (wrapped.empty() ? "" : "\n") + lines[i];
  }
  const Point ts = s.measure(wrapped);
  // The asked-for corner, unless another covers less of the data drawn so far and no other label.
  auto at_corner = [&](int c) {
    return Point{c == 1 || c == 2 ? area.max.x - ts.x - pad : area.min.x + pad,
                 c >= 2 ? area.max.y - ts.y - pad : area.min.y + pad};
  };
  auto cost = [&](Point q) {
    const Rect box{{q.x - 0.25f * em, q.y - 0.1f * em}, {q.x + ts.x + 0.25f * em, q.y + ts.y + 0.1f * em}};
    long n = 0;
    for (const Ink& k : s.ink) n += segment_hits(k.a, k.b, k.r, box) ? 3 : 0;
    for (const Rect& r : s.ink_rects) n += boxes_meet(r, box) ? 30 : 0;
    for (const Rect& l : s.labels) n += boxes_meet(l, box) ? 1000 : 0;
    return n;
  };
  Point p = at_corner(corner);
  long best = cost(p);
  for (int c = 0; c < 4 && best > 0; ++c) {
    if (c == corner) continue;
    const long n = cost(at_corner(c));
    if (n < best) best = n, p = at_corner(c);
  }
  NotePlace out;
  if (best > 0 && s.outside != LegendSlot::Inside) {
    if (const auto box = place_outside_note(s, text_in, compact, color, true)) {
      out.outside = true;
      out.box = *box;
      return out;
    }
  }
  out.at = p;
  out.size = ts;
  out.text = std::move(wrapped);
  out.box = {{p.x - 0.25f * em, p.y - 0.1f * em}, {p.x + ts.x + 0.25f * em, p.y + ts.y}};
  s.labels.push_back(out.box);
  return out;
}

std::optional<Rect> place_outside_note(Scene& s, const std::string& text, const std::string& compact,
                                       std::uint32_t color, bool is_note) {
  // The room the legend leaves in its own place: under a legend at the right (as wide as it, down to the
  // frame's bottom), or beside a legend below the plot (to the frame's right edge, as tall as the legend).
  const float em = s.em, gap = 0.6f * em, pad = 0.25f * em;
  const bool below = s.outside == LegendSlot::Below;
  float x0, width, top, bottom;
  if (s.outside == LegendSlot::Right) {
    x0 = s.area.max.x + gap;
    width = s.legend_size.x;
    top = s.area.min.y + s.legend_size.y + gap;
    // A marker's label keeps above the row of the axis's ticks and title, which can reach under the legend.
    bottom = is_note ? s.frame.max.y : s.area.max.y;
  } else if (below) {
    x0 = s.frame.min.x + 0.5f * em + s.legend_size.x + gap;
    width = s.frame.max.x - x0;
    top = s.frame.max.y - s.legend_size.y;
    bottom = s.frame.max.y;
  } else {
    return std::nullopt;
  }
  if (width < 4 * em) return std::nullopt;
  const bool stacked = !s.outside_notes.empty();  // below the notes placed before, not centred
  if (stacked) top = std::max(top, s.outside_next_y);
  for (const std::string* t : {&text, &compact}) {
    if (t == &compact && compact.empty()) continue;
    const std::string wrapped = joined(wrap_words(*t, width - 2 * pad, s.measure));
    const Point ts = s.measure(wrapped);
    const float margin = below ? 0.0f : 0.2f * em;  // beside a legend below: as tall as it, centred on it
    if (ts.x > width - 2 * pad + 0.5f || top + ts.y + margin > bottom + 0.5f) continue;
    const float y = below && !stacked ? std::floor(top + (bottom - top - ts.y) / 2) : top;
    const Point pos{x0 + pad, y};
    s.outside_notes.push_back({pos, color, wrapped});
    s.outside_next_y = pos.y + ts.y + 0.1f * em;
    const Rect box{{pos.x - pad, pos.y - 0.1f * em}, {pos.x + ts.x + pad, pos.y + ts.y}};
    s.labels.push_back(box);
    return box;
  }
  return std::nullopt;
}

// [SECTION] The legend

LegendShape legend_shape(const std::vector<std::string>& labels, float em, float line_height, float flow_room,
                         const MeasureText& measure) {
  LegendShape sh;
  sh.pad = 0.4f * em;
  sh.swatch = 1.6f * em;
  sh.row = line_height + 0.2f * em;
  const float pad = sh.pad, swatch = sh.swatch, row = sh.row, item_gap = 1.2f * em;
  float wmax = 0;
  std::vector<float> widths;
  for (const std::string& l : labels) {
    widths.push_back(measure(l).x);
    wmax = std::max(wmax, widths.back());
  }
  sh.box = {2 * pad + swatch + 0.5f * em + wmax, 2 * pad + row * static_cast<float>(labels.size())};
  // Below the plot the entries flow in rows across the plot's width; an entry wider than the plot wraps at
  // spaces onto more lines (never past the plot's side).
  float fx = pad, fy = pad, flow_right = 0, row_h = row;
  const float text_room = std::max(4.0f * em, flow_room - 2 * pad - swatch - 0.5f * em);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::string t = labels[i];
    float tw = widths[i], th = row;
    if (tw > text_room) {
      const std::vector<std::string> lines = wrap_words(t, text_room, measure);
      t.clear();
      tw = 0;
      for (const std::string& l : lines) {
        t += (t.empty() ? "" : "\n") + l;
        tw = std::max(tw, measure(l).x);
      }
      th = measure(t).y + 0.2f * em;
    }
    const float w = swatch + 0.5f * em + tw;
    if (fx > pad && fx + w + pad > flow_room) {
      fx = pad;
      fy += row_h;
      row_h = row;
    }
    row_h = std::max(row_h, th);
    sh.flow.push_back({fx, fy});
    sh.flow_text.push_back(std::move(t));
    sh.flow_width.push_back(w);
    flow_right = std::max(flow_right, fx + w);
    fx += w + item_gap;
  }
  sh.flow_box = {flow_right + pad, fy + row_h + pad};
  return sh;
}

LegendCover legend_cover(const Scene& s, const Rect& box) {
  LegendCover c;
  for (const Ink& k : s.ink) c.hard += segment_hits(k.a, k.b, k.r + 1.0f, box);
  for (const Rect& r : s.ink_rects) c.hard += boxes_meet(r, box);
  for (const Rect& l : s.labels) c.hard += boxes_meet(l, box);
  for (const Rect& r : s.soft_rects)
    if (boxes_meet(r, box))
      c.soft += (std::min(r.max.x, box.max.x) - std::max(r.min.x, box.min.x)) *
                (std::min(r.max.y, box.max.y) - std::max(r.min.y, box.min.y));
  return c;
}

Point legend_corner(const Rect& area, Point box, Point anchor, float inset) {
  const float aw = area.max.x - area.min.x, ah = area.max.y - area.min.y;
  return {std::floor(area.min.x + inset + (aw - 2 * inset - box.x) * anchor.x),
          std::floor(area.min.y + inset + (ah - 2 * inset - box.y) * anchor.y)};
}

LegendInside legend_inside(const Scene& s, Point box, Point preferred, float inset) {
  auto cover_at = [&](Point lo) { return legend_cover(s, {lo, {lo.x + box.x, lo.y + box.y}}); };
  LegendInside best{legend_corner(s.area, box, preferred, inset), {}};
  best.cover = cover_at(best.at);
  for (const Point anchor :
       {Point{1, 0}, Point{0, 0}, Point{1, 1}, Point{0, 1}, Point{0.5f, 0}, Point{0.5f, 1}, Point{1, 0.5f},
        Point{0, 0.5f}, Point{0.75f, 0}, Point{0.25f, 0}, Point{0.75f, 1}, Point{0.25f, 1}}) {
    if (best.cover.hard == 0 && best.cover.soft == 0) break;
    const Point c = legend_corner(s.area, box, anchor, inset);
    const LegendCover n = cover_at(c);
    if (n.hard < best.cover.hard || (n.hard == best.cover.hard && n.soft < best.cover.soft)) best = {c, n};
  }
  return best;
}

LegendChoice choose_legend(const Scene& s, const LegendAsk& ask, LegendMemory& memory) {
  const float em = s.em, inset = ask.inset;
  const Point box = ask.shape->box;
  const float aw = s.area.max.x - s.area.min.x, ah = s.area.max.y - s.area.min.y;
  // A new size (beyond a scrollbar's width, which comes and goes with the view's content), text size or
  // number of entries decides again.
  const bool redecide = memory.key.x < 0 || std::fabs(memory.key.x - ask.key.x) > 3 * em ||
                        std::fabs(memory.key.y - ask.key.y) > 3 * em || memory.em != em ||
                        memory.n != ask.n_entries;
  const float fw = ask.free_area.x, fh = ask.free_area.y;
  const bool fits = box.x <= std::min(aw, fw) - 2 * inset && box.y <= std::min(ah, fh) - 2 * inset &&
                    box.x * box.y <= 0.3f * fw * fh;
  const LegendInside in = legend_inside(s, box, ask.preferred, inset);
  LegendChoice out{ask.now, in.at, false};
  const bool inside_ok = fits && in.cover.hard == 0;
  if (redecide || (ask.now == LegendSlot::Inside && !inside_ok)) {
    // (The slot itself is slide.hpp's: legend_slot.)
    LegendRoom room;
    room.free_w = fw;
    room.free_h = fh;
    room.box_w = box.x;
    room.box_h = box.y;
    room.flow_h = ask.shape->flow_box.y;
    room.gap = ask.gap;
    room.min_area_w = ask.min_area_w;
    room.inside_ok = inside_ok;
    room.bar_groups = ask.bar_groups;
    out.slot = legend_slot(room);
    out.decided = true;
    memory.key = ask.key;
    memory.em = em;
    memory.n = ask.n_entries;
  }
  return out;
}

}  // namespace gelu::plot

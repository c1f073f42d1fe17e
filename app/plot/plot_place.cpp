// GELU Lab plot layer: where things go in and around a plot: curves' names at their line ends, labels beside
// their dots, notes, and the legend (inside where it covers no data, else right of the plot or below it). See
// plot_internal.hpp for how the plot's files are split.
//
// Index of this file:
//   [SECTION] Labels
//   [SECTION] Notes
//   [SECTION] The legend
#include <imgui_internal.h>

#include "plot/plot_internal.hpp"

namespace gelu::plot {

using namespace detail;  // NOLINT: the plot's own internals

// [SECTION] Labels: curves' names at their line ends, labels beside dots

// Each curve's name at its line's end (slides): beside the last point it drew, where it covers the least; a
// name that finds no room clear of the other labels stays in the legend.
void Plot::draw_inline_labels() {
  if (!context().inline_legends || !s_.legend_shown) return;
  // The curves first (what the step talks about), then the shadings.
  for (const bool curves : {true, false})
    for (Entry& e : entries_) {
      if (e.hidden || std::isnan(e.end.x) || e.readout != curves) continue;
      // A shading's name without its explanation ("ReLU dead zone: f = f′ = 0" -> "ReLU dead zone").
      std::string t = compact_label(e.label);
      if (!curves && t.find(": ") != std::string::npos) t.resize(t.find(": "));
      // At its end, else at 60 % of the view; where neither has room, its name alone (before ": ").
      const ImU32 col = e.color | IM_COL32_A_MASK;
      auto place = [&](const std::string& text) {
        return label_near(e.end, text.c_str(), col, false).has_value() ||
               (!std::isnan(e.mid.x) && label_near(e.mid, text.c_str(), col, false).has_value());
      };
      e.inlined = place(t) || (t.find(": ") != std::string::npos && place(t.substr(0, t.find(": "))));
    }
}

std::optional<std::pair<ImVec2, ImVec2>> Plot::label_near(ImVec2 p, const char* text, ImU32 color,
                                                          bool callout, bool marker, bool near,
                                                          bool optional) {
  std::string t = unicode_minus(text);
  const std::string one_line = t;
  // A marker left or right of the view is not seen: its label, at that edge, points to it.
  const bool off_view = marker && (p.x < area_min_.x || p.x > area_max_.x);
  if (off_view) t = p.x < area_min_.x ? "← " + t : t + " →";
  // Wider than the plot: wrapped at spaces (never cut at the plot's edge).
  if (const float room = area_max_.x - area_min_.x - 0.6f * em_; ImGui::CalcTextSize(t.c_str()).x > room) {
    std::string w;
    for (const std::string& l : wrap_words(t, room)) w += (w.empty() ? "" : "\n") + l;
    t = std::move(w);
  }
  // The label beside the dot: right-below, right-above, left-below, left-above, further out, the first that
  // stays inside the plot and clear of the labels and dots placed before it (else the least crowded).
  const float dx = 0.6f * em_, dy = 0.35f * em_, m = 0.2f * em_;
  auto box_of = [&](ImVec2 tp, ImVec2 ts) {
    return std::pair<ImVec2, ImVec2>(ImVec2(tp.x - m, tp.y - 0.05f * em_),
                                     ImVec2(tp.x + ts.x + m, tp.y + ts.y));
  };
  auto overlap = [](const std::pair<ImVec2, ImVec2>& a, const std::pair<ImVec2, ImVec2>& b) {
    return a.first.x < b.second.x && b.first.x < a.second.x && a.first.y < b.second.y &&
           b.first.y < a.second.y;
  };
  struct Place {
    ImVec2 at;
    long score = 1L << 40;
    bool on_data = false;  // it covers a curve or a filled area
  };
  // The best place for a text of size ts.
  auto search = [&](ImVec2 ts) {
    // Never cut by the plot's edge: a place partly outside is pushed in.
    auto clamp_in = [&](ImVec2 tp) {
      return ImVec2(std::max(area_min_.x + m, std::min(tp.x, area_max_.x - m - ts.x)),
                    std::max(area_min_.y + m, std::min(tp.y, area_max_.y - m - ts.y)));
    };
    Place best;
    best.at = ImVec2(p.x + dx, p.y + dy);
    if (best.at.x + ts.x > area_max_.x - m) best.at.x = p.x - dx - ts.x;
    if (best.at.y + ts.y > area_max_.y - m) best.at.y = p.y - dy - ts.y;
    best.at = clamp_in(best.at);
    // A callout (a lesson's arrow) stands further off, so that its arrow is seen; a marker's label in a plot
    // of many (near: labels_near) stays beside its dot.
    const std::vector<float> reaches = callout ? std::vector<float>{3.6f, 5.0f, 2.2f, 7.0f}
                                       : near  ? std::vector<float>{1.0f, 2.2f}
                                               : std::vector<float>{1.0f, 2.2f, 3.6f, 5.0f};
    for (const float reach : reaches) {
      for (ImVec2 tp :
           {ImVec2(p.x + dx * reach, p.y + dy * reach), ImVec2(p.x + dx * reach, p.y - dy * reach - ts.y),
            ImVec2(p.x - dx * reach - ts.x, p.y + dy * reach),
            ImVec2(p.x - dx * reach - ts.x, p.y - dy * reach - ts.y),
            ImVec2(p.x - ts.x / 2, p.y + dy * reach + 0.3f * em_),
            ImVec2(p.x - ts.x / 2, p.y - dy * reach - 0.3f * em_ - ts.y)}) {
        tp = clamp_in(tp);
        const auto b = box_of(tp, ts);
        // Another label under it is worst, then drawn data (each segment of a curve it covers), then a dot
        // (it stays on top, but reads as part of the text).
        long score = 0;
        for (const auto& l : labels_) score += overlap(b, l) ? 1000 : 0;
        long data = 0;
        for (const Ink& k : ink_) data += segment_hits(k.a, k.b, k.r, b.first, b.second) ? 3 : 0;
        for (const auto& r : ink_rects_) data += overlap(b, r) ? 30 : 0;
        score += data;
        const bool on_data = data > 0;
        for (const auto& r : soft_rects_) score += overlap(b, r) ? 10 : 0;
        const float r = 0.3f * em_;
        for (const Dot& d : dots_)
          score += overlap(b, {ImVec2(d.p.x - r, d.p.y - r), ImVec2(d.p.x + r, d.p.y + r)}) ? 1 : 0;
        // A marker's label over its own dot hides what it names (a dot at the plot's edge can push it there).
        if (marker && overlap(b, {ImVec2(p.x - r, p.y - r), ImVec2(p.x + r, p.y + r)})) score += 100;
        // A marker's label nearer another dot of its colour than its own reads as that dot's (a label in
        // another colour than the dots around it is told by its colour).
        if (marker) {
          const std::pair<ImVec2, ImVec2> glyphs(tp, ImVec2(tp.x + ts.x, tp.y + ts.y));
          const float own = box_distance(p, glyphs);
          for (const Dot& d : dots_)
            if (d.color == color && box_distance(d.p, glyphs) < own - 0.5f) {
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
  ImVec2 ts = ImGui::CalcTextSize(t.c_str());
  Place place = search(ts);
  // A one-line label that lies on a curve or a filled area wherever it goes, or finds no place clear of the
  // labels before it (a long label in a small plot, or at 2× and 3× text), may do better on two lines: it
  // takes them where they lie clear of data (shadings, shade_x, are not data here: a place that only covers
  // one beats a place on a curve), or, for a label that would be left out, clear of the other labels.
  const auto rank = [](const Place& q) { return q.score >= 1000 ? 2 : q.on_data ? 1 : 0; };
  // (Not a label of a dot out of view: on data it goes beside the legend, below.)
  if (!callout && !off_view && rank(place) > 0 && t.find('\n') == std::string::npos &&
      t.find(' ') != std::string::npos) {
    // Broken at the space that makes the longer line shortest.
    std::string two;
    float widest = ts.x;
    for (std::size_t at = t.find(' '); at != std::string::npos; at = t.find(' ', at + 1)) {
      const std::string a = t.substr(0, at), b = t.substr(at + 1);
      const float w = std::max(ImGui::CalcTextSize(a.c_str()).x, ImGui::CalcTextSize(b.c_str()).x);
      if (w < widest) {
        widest = w;
        two = a + "\n" + b;
      }
    }
    if (!two.empty()) {
      const ImVec2 ts2 = ImGui::CalcTextSize(two.c_str());
      const Place alt = search(ts2);
      if (rank(alt) < rank(place) && (rank(alt) == 1 || alt.score < 100)) {
        t = std::move(two);
        ts = ts2;
        place = alt;
      }
    }
  }
  text = t.c_str();
  const ImVec2 best = place.at;
  const long best_score = place.score;
  const bool best_on_data = place.on_data;
  // No place without another label under it: the label is left out (the dot stays; it would only be read as
  // part of the other text). In a plot of many labelled dots (near), nor one on its own dot or nearer another
  // dot of its colour (the dot shows it when hovered).
  if (best_score >= 1000 && !callout) return std::nullopt;
  if (near && best_score >= 100) return std::nullopt;
  const auto b = box_of(best, ts);
  // A label that would cover a sixth of the plot or more and lies on its curves hides more than it says
  // (a small plot at 3× text): under the legend when that is at the plot's right (as the plot's notes), else
  // left out; its dot shows it when hovered.
  if (optional && best_on_data &&
      (b.second.x - b.first.x) * (b.second.y - b.first.y) >=
          0.15f * (area_max_.x - area_min_.x) * (area_max_.y - area_min_.y)) {
    if (!near && s_.legend_shown && reserved_place_ == LegendPlace::Right)
      outside_note(one_line.c_str(), nullptr, color, false);
    return std::nullopt;
  }
  // The label of a dot left or right of the view names something the plot does not show: where it would lie
  // on the data, it goes beside the legend when that is outside the plot (as the plot's notes); else it
  // stays here, the only place it is seen (an unseen dot has no hover).
  if (off_view && best_on_data && s_.legend_shown && outside_note(one_line.c_str(), nullptr, color, false))
    return std::nullopt;
  labels_.push_back(b);
  layers_.SetCurrentChannel(dl_, 1);
  if (callout) {
    const std::pair<ImVec2, ImVec2> c(ImVec2(b.first.x - 0.15f * em_, b.first.y - 0.1f * em_),
                                      ImVec2(b.second.x + 0.15f * em_, b.second.y + 0.1f * em_));
    dl_->AddRectFilled(c.first, c.second, IM_COL32(255, 247, 214, 240), 0.25f * em_);
    dl_->AddRect(c.first, c.second, color, 0.25f * em_, ImDrawFlags_None, std::max(1.0f, 0.08f * em_));
    ink_rects_.push_back(c);
  } else {
    dl_->AddRectFilled(b.first, b.second, IM_COL32(255, 255, 255, 235), 0.2f * em_);
  }
  text_at(best, color, text, TextKind::Label);
  if (marker) {
    s_.texts.back().anchor = p;
    s_.texts.back().color = color;
  }
  layers_.SetCurrentChannel(dl_, 0);
  return b;
}

// [SECTION] Notes

void Plot::note(const char* text_in, int corner, ImU32 color, const char* compact) {
  const float pad = 0.5f * em_;
  // Wrapped at spaces to the data area's width: never cut by the plot's edge.
  std::string wrapped;
  const float max_lines =
      std::max(1.0f, std::floor((area_max_.y - area_min_.y - 2 * pad) / ImGui::GetTextLineHeight()));
  auto wrap = [&](std::string_view all) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= all.size();) {  // its own lines, each wrapped
      std::size_t end = all.find('\n', at);
      if (end == std::string_view::npos) end = all.size();
      for (std::string& l :
           wrap_words(std::string(all.substr(at, end - at)), area_max_.x - area_min_.x - 2 * pad))
        out.push_back(std::move(l));
      at = end + 1;
    }
    return out;
  };
  std::vector<std::string> lines = wrap(text_in);
  if (compact &&
      static_cast<float>(lines.size()) * ImGui::GetTextLineHeight() > (area_max_.y - area_min_.y) / 3)
    lines = wrap(compact);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (static_cast<float>(i) + 1 > max_lines) {  // taller than the plot: the lines that fit, then "…"
      wrapped += "…";
      break;
    }
    wrapped += (wrapped.empty() ? "" : "\n") + lines[i];
  }
  const char* text = wrapped.c_str();
  const ImVec2 ts = ImGui::CalcTextSize(text);
  layers_.SetCurrentChannel(dl_, 1);
  // The asked-for corner, unless another covers less of the data drawn so far and no other label.
  auto at_corner = [&](int c) {
    return ImVec2(c == 1 || c == 2 ? area_max_.x - ts.x - pad : area_min_.x + pad,
                  c >= 2 ? area_max_.y - ts.y - pad : area_min_.y + pad);
  };
  auto cost = [&](ImVec2 q) {
    const ImVec2 lo(q.x - 0.25f * em_, q.y - 0.1f * em_),
        hi(q.x + ts.x + 0.25f * em_, q.y + ts.y + 0.1f * em_);
    long n = 0;
    for (const Ink& k : ink_) n += segment_hits(k.a, k.b, k.r, lo, hi) ? 3 : 0;
    for (const auto& r : ink_rects_) n += boxes_meet(r.first, r.second, lo, hi) ? 30 : 0;
    for (const auto& l : labels_) n += boxes_meet(l.first, l.second, lo, hi) ? 1000 : 0;
    return n;
  };
  ImVec2 p = at_corner(corner);
  long best = cost(p);
  for (int c = 0; c < 4 && best > 0; ++c) {
    if (c == corner) continue;
    const long n = cost(at_corner(c));
    if (n < best) best = n, p = at_corner(c);
  }
  if (best > 0 && s_.legend_shown && reserved_place_ != LegendPlace::Inside &&
      outside_note(text_in, compact, color)) {
    layers_.SetCurrentChannel(dl_, 0);
    return;
  }
  dl_->AddRectFilled(ImVec2(p.x - 0.25f * em_, p.y - 0.1f * em_),
                     ImVec2(p.x + ts.x + 0.25f * em_, p.y + ts.y + 0.1f * em_), IM_COL32(255, 255, 255, 225),
                     0.25f * em_);
  text_at(p, color, text, TextKind::Label);
  labels_.push_back(
      {ImVec2(p.x - 0.25f * em_, p.y - 0.1f * em_), ImVec2(p.x + ts.x + 0.25f * em_, p.y + ts.y)});
  s_.note_min = labels_.back().first;
  s_.note_max = labels_.back().second;
  layers_.SetCurrentChannel(dl_, 0);
}

bool Plot::outside_note(const char* text_in, const char* compact, ImU32 color, bool is_note) {
  // The room the legend leaves in its own place: under a legend at the right (as wide as it, down to the
  // frame's bottom), or beside a legend below the plot (to the frame's right edge, as tall as the legend).
  const float gap = 0.6f * em_, pad = 0.25f * em_;
  const bool below = reserved_place_ == LegendPlace::Below;
  float x0, width, top, bottom;
  if (reserved_place_ == LegendPlace::Right) {
    x0 = area_max_.x + gap;
    width = s_.legend_out.x;
    top = area_min_.y + s_.legend_out.y + gap;
    // A marker's label keeps above the row of the axis's ticks and title, which can reach under the legend.
    bottom = is_note ? frame_max_.y : area_max_.y;
  } else if (below) {
    x0 = frame_min_.x + 0.5f * em_ + s_.legend_out.x + gap;
    width = frame_max_.x - x0;
    top = frame_max_.y - s_.legend_out.y;
    bottom = frame_max_.y;
  } else {
    return false;
  }
  if (width < 4 * em_) return false;
  const bool stacked = !outside_notes_.empty();  // below the notes placed before, not centred
  if (stacked) top = std::max(top, outside_next_y_);
  for (const char* t : {text_in, compact}) {
    if (!t) continue;
    std::string wrapped;
    for (const std::string& l : wrap_words(t, width - 2 * pad)) wrapped += (wrapped.empty() ? "" : "\n") + l;
    const ImVec2 ts = ImGui::CalcTextSize(wrapped.c_str());
    const float margin = below ? 0.0f : 0.2f * em_;  // beside a legend below: as tall as it, centred on it
    if (ts.x > width - 2 * pad + 0.5f || top + ts.y + margin > bottom + 0.5f) continue;
    const float y = below && !stacked ? std::floor(top + (bottom - top - ts.y) / 2) : top;
    const ImVec2 pos(x0 + pad, y);
    outside_notes_.push_back({pos, color, wrapped});
    outside_next_y_ = pos.y + ts.y + 0.1f * em_;
    labels_.push_back({ImVec2(pos.x - pad, pos.y - 0.1f * em_), ImVec2(pos.x + ts.x + pad, pos.y + ts.y)});
    if (is_note) {
      s_.note_min = labels_.back().first;
      s_.note_max = labels_.back().second;
    }
    return true;
  }
  return false;
}

void Plot::draw_outside_notes() {
  // Only where the legend is in the place its room was kept for this frame (the frame it moves out, neither
  // is drawn).
  if (s_.legend_shown && s_.legend_place != LegendPlace::Inside && s_.legend_place == reserved_place_)
    for (const OutsideNote& n : outside_notes_) text_at(n.pos, n.color, n.text.c_str(), TextKind::Label);
  outside_notes_.clear();
}

// [SECTION] The legend

void Plot::draw_legend() {
  s_.legend_min = s_.legend_max = ImVec2(0, 0);
  if (entries_.empty()) {  // nothing to list: no room kept for it either
    s_.legend_place = LegendPlace::Inside;
    s_.legend_key = ImVec2(-1, -1);
    return;
  }
  if (!s_.legend_shown) return;
  if (!legend_first_.empty())
    std::stable_partition(entries_.begin(), entries_.end(),
                          [&](const Entry& e) { return e.key == legend_first_; });
  const float pad = 0.4f * em_, swatch = 1.6f * em_, row = ImGui::GetTextLineHeight() + 0.2f * em_;
  const float gap = 0.6f * em_, item_gap = 1.2f * em_;
  float wmax = 0;
  std::vector<float> widths;
  for (const Entry& e : entries_) {
    widths.push_back(ImGui::CalcTextSize(e.label.c_str()).x);
    wmax = std::max(wmax, widths.back());
  }
  const ImVec2 box(2 * pad + swatch + 0.5f * em_ + wmax, 2 * pad + row * static_cast<float>(entries_.size()));
  // Below the plot the entries flow in rows across the plot's width.
  const float flow_w = frame_max_.x - frame_min_.x - 1.0f * em_;
  // An entry wider than the plot wraps at spaces onto more lines (never past the plot's side).
  std::vector<ImVec2> flow;            // each entry's offset in the flow box
  std::vector<std::string> flow_text;  // each entry's text there (wrapped)
  std::vector<float> flow_w_item;
  float fx = pad, fy = pad, flow_right = 0, row_h = row;
  const float text_room = std::max(4.0f * em_, flow_w - 2 * pad - swatch - 0.5f * em_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    std::string t = entries_[i].label;
    float tw = widths[i], th = row;
    if (tw > text_room) {
      const std::vector<std::string> lines = wrap_words(t, text_room);
      t.clear();
      tw = 0;
      for (const std::string& l : lines) {
        t += (t.empty() ? "" : "\n") + l;
        tw = std::max(tw, ImGui::CalcTextSize(l.c_str()).x);
      }
      th = ImGui::CalcTextSize(t.c_str()).y + 0.2f * em_;
    }
    const float w = swatch + 0.5f * em_ + tw;
    if (fx > pad && fx + w + pad > flow_w) {
      fx = pad;
      fy += row_h;
      row_h = row;
    }
    row_h = std::max(row_h, th);
    flow.emplace_back(fx, fy);
    flow_text.push_back(std::move(t));
    flow_w_item.push_back(w);
    flow_right = std::max(flow_right, fx + w);
    fx += w + item_gap;
  }
  const ImVec2 flow_box(flow_right + pad, fy + row_h + pad);

  // The data area without the room kept outside it, and the places inside it, the preferred one first.
  const float inset = 0.6f * em_;
  const float aw = area_max_.x - area_min_.x, ah = area_max_.y - area_min_.y;
  auto corner = [&](ImVec2 anchor) {
    return ImVec2(std::floor(area_min_.x + inset + (aw - 2 * inset - box.x) * anchor.x),
                  std::floor(area_min_.y + inset + (ah - 2 * inset - box.y) * anchor.y));
  };
  struct Cover {
    int hard = 0;
    float soft = 0;
  };
  auto covered = [&](ImVec2 lo) {
    const ImVec2 hi(lo.x + box.x, lo.y + box.y);
    Cover c;
    for (const Ink& k : ink_) c.hard += segment_hits(k.a, k.b, k.r + 1.0f, lo, hi);
    for (const auto& r : ink_rects_) c.hard += boxes_meet(r.first, r.second, lo, hi);
    for (const auto& l : labels_) c.hard += boxes_meet(l.first, l.second, lo, hi);
    for (const auto& r : soft_rects_)
      if (boxes_meet(r.first, r.second, lo, hi))
        c.soft += (std::min(r.second.x, hi.x) - std::max(r.first.x, lo.x)) *
                  (std::min(r.second.y, hi.y) - std::max(r.first.y, lo.y));
    return c;
  };
  const ImVec2 m = ImGui::GetIO().MousePos;
  ImVec2 a;
  LegendPlace place = s_.legend_place;
  if (s_.drag == 5 && s_.legend_moved) {  // dragged: inside, where the mouse puts it
    place = LegendPlace::Inside;
    a = ImVec2(std::clamp(m.x - s_.legend_grab.x, area_min_.x + inset, area_max_.x - inset - box.x),
               std::clamp(m.y - s_.legend_grab.y, area_min_.y + inset, area_max_.y - inset - box.y));
    if (aw - 2 * inset > box.x) s_.legend_anchor.x = (a.x - area_min_.x - inset) / (aw - 2 * inset - box.x);
    if (ah - 2 * inset > box.y) s_.legend_anchor.y = (a.y - area_min_.y - inset) / (ah - 2 * inset - box.y);
    s_.legend_anchor =
        ImVec2(std::clamp(s_.legend_anchor.x, 0.0f, 1.0f), std::clamp(s_.legend_anchor.y, 0.0f, 1.0f));
  } else if (s_.legend_user) {
    place = LegendPlace::Inside;
    a = corner(s_.legend_anchor);
  } else {
    // Inside only where it covers no data and leaves most of the plot free; a new plot size or new entries
    // decide again from the start, otherwise a legend once outside stays there (no flicker).
    // A new size (beyond a scrollbar's width, which comes and goes with the view's content), text size or
    // number of entries decides again.
    const float n_entries = static_cast<float>(entries_.size());
    const bool redecide = s_.legend_key.x < 0 || std::fabs(s_.legend_key.x - key_size_.x) > 3 * em_ ||
                          std::fabs(s_.legend_key.y - key_size_.y) > 3 * em_ || s_.legend_key_em != em_ ||
                          s_.legend_key_n != n_entries;
    const float fw = free_area_.x, fh = free_area_.y;
    const bool fits = box.x <= std::min(aw, fw) - 2 * inset && box.y <= std::min(ah, fh) - 2 * inset &&
                      box.x * box.y <= 0.3f * fw * fh;
    a = corner(s_.legend_anchor);
    Cover best = covered(a);
    for (const ImVec2 anchor : {ImVec2(1, 0), ImVec2(0, 0), ImVec2(1, 1), ImVec2(0, 1), ImVec2(0.5f, 0),
                                ImVec2(0.5f, 1), ImVec2(1, 0.5f), ImVec2(0, 0.5f), ImVec2(0.75f, 0),
                                ImVec2(0.25f, 0), ImVec2(0.75f, 1), ImVec2(0.25f, 1)}) {
      if (best.hard == 0 && best.soft == 0) break;
      const ImVec2 c = corner(anchor);
      const Cover n = covered(c);
      if (n.hard < best.hard || (n.hard == best.hard && n.soft < best.soft)) best = n, a = c;
    }
    const bool inside_ok = fits && best.hard == 0;
    if (redecide || (place == LegendPlace::Inside && !inside_ok)) {
      // (The decision is slide.hpp's, on rectangles: legend_slot.)
      LegendRoom room;
      room.free_w = fw;
      room.free_h = fh;
      room.box_w = box.x;
      room.box_h = box.y;
      room.flow_h = flow_box.y;
      room.gap = gap;
      room.min_area_w = kMinAreaWidth;
      room.inside_ok = inside_ok;
      room.bar_groups = s_.x_categories.size() > 1;
      const LegendSlot slot = legend_slot(room);
      place = slot == LegendSlot::Inside  ? LegendPlace::Inside
              : slot == LegendSlot::Right ? LegendPlace::Right
                                          : LegendPlace::Below;
      if (place == LegendPlace::Right) s_.legend_out = box;
      if (place == LegendPlace::Below) s_.legend_out = flow_box;
      s_.legend_key = key_size_;
      s_.legend_key_em = em_;
      s_.legend_key_n = n_entries;
    }
  }
  s_.legend_place = place;
  // The room kept next frame follows the legend's size now (its texts, the plot's width).
  if (place == LegendPlace::Right) s_.legend_out = box;
  if (place == LegendPlace::Below) s_.legend_out = flow_box;
  bool flowing = false;
  ImVec2 size = box;
  // Outside but without its room yet (the frame it moves out): not drawn this one frame, rather than over
  // the data or the plot beside it.
  if (place != LegendPlace::Inside && place != reserved_place_) return;
  if (place != LegendPlace::Inside) {
    if (place == LegendPlace::Right) {
      a = ImVec2(area_max_.x + gap, area_min_.y);
    } else {
      a = ImVec2(frame_min_.x + 0.5f * em_, frame_max_.y - reserved_.y + gap);
      size = flow_box;
      flowing = true;
    }
  }
  const ImVec2 b(a.x + size.x, a.y + size.y);
  s_.legend_min = a;
  s_.legend_max = b;
  s_.texts.push_back({a, b, TextKind::Legend});
  if (!context().draw_legends) return;  // (tests: the picture under the legend, same layout)
  dl_->AddRectFilled(a, b, IM_COL32(255, 255, 255, 230), 0.3f * em_);
  dl_->AddRect(a, b, IM_COL32(0, 0, 0, 60), 0.3f * em_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    const ImVec2 o = flowing ? flow[i] : ImVec2(pad, pad + row * static_cast<float>(i));
    const float x = a.x + o.x, y = a.y + o.y;
    const ImVec2 ra(flowing ? x : a.x, y), rb(flowing ? x + flow_w_item[i] : b.x, y + row);
    if (hovered_ && inside(m, ra, rb)) {
      dl_->AddRectFilled(ra, rb, IM_COL32(0, 0, 0, 18));
      if (s_.legend_click) {
        if (e.hidden) {
          s_.hidden.erase(e.key);
        } else {
          s_.hidden.insert(e.key);
        }
        e.hidden = !e.hidden;
      }
    }
    const ImU32 col = e.hidden ? IM_COL32(150, 150, 150, 255) : (e.color | IM_COL32_A_MASK);
    const float cy = y + row / 2;
    if (e.dot) {
      dl_->AddCircleFilled(ImVec2(x + swatch / 2, cy), 0.3f * em_, col, 16);
    } else if (e.readout) {
      dl_->AddLine(ImVec2(x, cy), ImVec2(x + swatch, cy), col, 0.22f * em_);
    } else {
      dl_->AddRectFilled(ImVec2(x, cy - 0.35f * em_), ImVec2(x + swatch, cy + 0.35f * em_),
                         e.hidden ? IM_COL32(150, 150, 150, 90) : e.color);
    }
    dl_->AddText(ImVec2(x + swatch + 0.5f * em_, y + 0.1f * em_),
                 e.hidden ? IM_COL32(140, 140, 140, 255) : kText,
                 flowing ? flow_text[i].c_str() : e.label.c_str());
  }
  s_.legend_click = false;
}

}  // namespace gelu::plot

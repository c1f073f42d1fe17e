// GELU Lab plot layer, the ImGui side of placement: curves' names at their line ends, labels beside their
// dots, notes, and the legend (inside where it covers no data, else right of the plot or below it). Where
// each goes is decided on rectangles by place.hpp (no ImGui, tested in tests/app/place_test.cpp); this file
// measures the text with the font, asks there, and draws. See plot_internal.hpp for how the plot's files
// are split.
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

void Plot::sync_outside_room() {
  place_.outside = !s_.legend_shown                        ? LegendSlot::Inside
                   : reserved_place_ == LegendPlace::Right ? LegendSlot::Right
                   : reserved_place_ == LegendPlace::Below ? LegendSlot::Below
                                                           : LegendSlot::Inside;
  place_.legend_size = pt(s_.legend_out);
}

// Each curve's name at its line's end (slides): beside the last point it drew, where it covers the least; a
// name that finds no room clear of the other labels stays in the legend.
void Plot::draw_inline_labels() {
  if (!context().inline_legends || !s_.legend_shown) return;
  // The curves first (what the step talks about), then the shadings.
  for (const bool curves : {true, false})
    for (Entry& e : entries_) {
      if (e.hidden || std::isnan(e.end.x) || e.readout != curves) continue;
      // At its end, else at 60 % of the view; where neither has room, its name alone (before ": ").
      const ImU32 col = e.color | IM_COL32_A_MASK;
      e.inlined = false;
      for (const std::string& t : inline_label_texts(e.label, curves)) {
        e.inlined = label_near(e.end, t.c_str(), col, false).has_value() ||
                    (!std::isnan(e.mid.x) && label_near(e.mid, t.c_str(), col, false).has_value());
        if (e.inlined) break;
      }
    }
}

std::optional<std::pair<ImVec2, ImVec2>> Plot::label_near(ImVec2 p, const char* text, ImU32 color,
                                                          bool callout, bool marker, bool near,
                                                          bool optional) {
  sync_outside_room();
  LabelAsk ask;
  ask.p = pt(p);
  ask.text = unicode_minus(text);
  ask.color = color;
  ask.callout = callout;
  ask.marker = marker;
  ask.near = near;
  ask.optional = optional;
  const LabelPlace at = place_label(place_, ask);
  if (at.where != LabelPlace::Where::Here) return std::nullopt;
  const std::pair<ImVec2, ImVec2> b(iv(at.box.min), iv(at.box.max));
  layers_.SetCurrentChannel(dl_, 1);
  if (callout) {
    const ImVec2 c0 = iv(at.callout_box.min), c1 = iv(at.callout_box.max);
    dl_->AddRectFilled(c0, c1, IM_COL32(255, 247, 214, 240), 0.25f * em_);
    dl_->AddRect(c0, c1, color, 0.25f * em_, ImDrawFlags_None, std::max(1.0f, 0.08f * em_));
  } else {
    dl_->AddRectFilled(b.first, b.second, IM_COL32(255, 255, 255, 235), 0.2f * em_);
  }
  text_at(iv(at.at), color, at.text.c_str(), TextKind::Label);
  if (marker) {
    s_.texts.back().anchor = p;
    s_.texts.back().color = color;
  }
  layers_.SetCurrentChannel(dl_, 0);
  return b;
}

// [SECTION] Notes

void Plot::note(const char* text, int corner, ImU32 color, const char* compact) {
  sync_outside_room();
  const NotePlace at = place_note(place_, text, corner, color, compact ? compact : "");
  s_.note_min = iv(at.box.min);
  s_.note_max = iv(at.box.max);
  if (at.outside) return;  // drawn by end(), beside the legend
  const ImVec2 p = iv(at.at), ts = iv(at.size);
  layers_.SetCurrentChannel(dl_, 1);
  dl_->AddRectFilled(ImVec2(p.x - 0.25f * em_, p.y - 0.1f * em_),
                     ImVec2(p.x + ts.x + 0.25f * em_, p.y + ts.y + 0.1f * em_), IM_COL32(255, 255, 255, 225),
                     0.25f * em_);
  text_at(p, color, at.text.c_str(), TextKind::Label);
  layers_.SetCurrentChannel(dl_, 0);
}

void Plot::draw_outside_notes() {
  // Only where the legend is in the place its room was kept for this frame (the frame it moves out, neither
  // is drawn).
  if (s_.legend_shown && s_.legend_place != LegendPlace::Inside && s_.legend_place == reserved_place_)
    for (const OutsideNote& n : place_.outside_notes)
      text_at(iv(n.pos), n.color, n.text.c_str(), TextKind::Label);
  place_.outside_notes.clear();
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
  // The legend's shapes and its place inside are place.hpp's (legend_shape, choose_legend), on rectangles.
  std::vector<std::string> labels;
  for (const Entry& e : entries_) labels.push_back(e.label);
  // Below the plot the entries flow in rows across the plot's width.
  const LegendShape shape = legend_shape(labels, em_, ImGui::GetTextLineHeight(),
                                         frame_max_.x - frame_min_.x - 1.0f * em_, measure_text);
  const float pad = shape.pad, row = shape.row, swatch = shape.swatch;
  const ImVec2 box = iv(shape.box), flow_box = iv(shape.flow_box);
  const float gap = 0.6f * em_;
  const float inset = 0.6f * em_;
  const float aw = area_max_.x - area_min_.x, ah = area_max_.y - area_min_.y;
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
    a = iv(legend_corner(place_.area, shape.box, pt(s_.legend_anchor), inset));
  } else {
    // Inside only where it covers no data and leaves most of the plot free; a new plot size or new entries
    // decide again from the start, otherwise a legend once outside stays there (no flicker).
    LegendAsk ask;
    ask.shape = &shape;
    ask.preferred = pt(s_.legend_anchor);
    ask.key = pt(key_size_);
    ask.free_area = pt(free_area_);
    ask.n_entries = static_cast<float>(entries_.size());
    ask.gap = gap;
    ask.min_area_w = kMinAreaWidth;
    ask.inset = inset;
    ask.bar_groups = s_.x_categories.size() > 1;
    ask.now = place == LegendPlace::Inside  ? LegendSlot::Inside
              : place == LegendPlace::Right ? LegendSlot::Right
                                            : LegendSlot::Below;
    LegendMemory memory{pt(s_.legend_key), s_.legend_key_em, s_.legend_key_n};
    const LegendChoice choice = choose_legend(place_, ask, memory);
    a = iv(choice.at);
    if (choice.decided) {
      place = choice.slot == LegendSlot::Inside  ? LegendPlace::Inside
              : choice.slot == LegendSlot::Right ? LegendPlace::Right
                                                 : LegendPlace::Below;
      s_.legend_key = iv(memory.key);
      s_.legend_key_em = memory.em;
      s_.legend_key_n = memory.n;
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
    const ImVec2 o = flowing ? iv(shape.flow[i]) : ImVec2(pad, pad + row * static_cast<float>(i));
    const float x = a.x + o.x, y = a.y + o.y;
    const ImVec2 ra(flowing ? x : a.x, y), rb(flowing ? x + shape.flow_width[i] : b.x, y + row);
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
                 flowing ? shape.flow_text[i].c_str() : e.label.c_str());
  }
  s_.legend_click = false;
}

}  // namespace gelu::plot

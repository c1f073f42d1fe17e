// The panel base, the panel factories and the helpers panels share for meta() (see panel.hpp).
#include "gui/panels/panel.hpp"

#include <cstdio>
#include <map>
#include <stdexcept>

namespace gelu::app {
namespace {

std::map<std::string, PanelFactory, std::less<>>& factories() {
  static std::map<std::string, PanelFactory, std::less<>> f;
  return f;
}

}  // namespace

Panel::Panel(std::string_view kind_id) : kind_(model::find_panel_kind(kind_id)) {
  if (!kind_) throw std::logic_error("panel '" + std::string(kind_id) + "' is not in model::panel_kinds()");
}

PanelRegistrar::PanelRegistrar(const char* id, PanelFactory make) {
  factories()[id] = make;
}

std::unique_ptr<Panel> make_panel(std::string_view id) {
  const auto it = factories().find(id);
  return it == factories().end() ? nullptr : it->second();
}

std::vector<std::unique_ptr<Panel>> make_panels() {
  std::vector<std::unique_ptr<Panel>> panels;
  for (const model::PanelKind& k : model::panel_kinds())
    if (auto p = make_panel(k.id)) panels.push_back(std::move(p));
  return panels;
}

std::vector<std::string> registered_panel_ids() {
  std::vector<std::string> ids;
  for (const auto& [id, make] : factories()) ids.push_back(id);
  return ids;
}

std::string color_hex(unsigned int c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff);
  return buf;
}

std::vector<std::string> text_overlaps(
    const std::vector<std::pair<std::string, const plot::PlotState*>>& plots, std::size_t max) {
  struct Seen {
    const std::string* plot;
    const plot::TextBox* box;
  };
  std::vector<Seen> boxes;
  for (const auto& [id, st] : plots)
    for (const plot::TextBox& t : st->texts) boxes.push_back({&id, &t});
  const auto kind = [](plot::TextKind k) {
    return k == plot::TextKind::Axis ? "axis text" : k == plot::TextKind::Label ? "label" : "legend";
  };
  const auto where = [](const plot::TextBox& t) {
    char b[96];
    std::snprintf(b, sizeof b, " [%.1f, %.1f, %.1f, %.1f]", static_cast<double>(t.min.x),
                  static_cast<double>(t.min.y), static_cast<double>(t.max.x), static_cast<double>(t.max.y));
    return std::string(b);
  };
  constexpr float kSlack = 1.0f;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < boxes.size() && out.size() < max; ++i)
    for (std::size_t j = i + 1; j < boxes.size() && out.size() < max; ++j) {
      const plot::TextBox &a = *boxes[i].box, &b = *boxes[j].box;
      if (a.min.x + kSlack < b.max.x && b.min.x + kSlack < a.max.x && a.min.y + kSlack < b.max.y &&
          b.min.y + kSlack < a.max.y)
        out.push_back(std::string(kind(a.kind)) + " of " + *boxes[i].plot + where(a) + " overlaps " +
                      kind(b.kind) + " of " + *boxes[j].plot + where(b));
    }
  return out;
}

plot::Box plot_extent(const plot::PlotState& s) {
  auto box = [](ImVec2 a, ImVec2 b) { return plot::Box{a.x, a.y, b.x, b.y}; };
  plot::Box e = box(s.frame_min, s.frame_max);
  for (const plot::TextBox& t : s.texts) e = plot::unite(e, box(t.min, t.max));
  e = plot::unite(e, box(s.legend_min, s.legend_max));
  e = plot::unite(e, box(s.note_min, s.note_max));
  return e;
}

json::Value plot_meta(const plot::PlotState& s) {
  const plot::Transform& t = s.last;
  auto scale = [](plot::Scale sc) {
    return sc == plot::Scale::Linear ? "linear" : sc == plot::Scale::Log10 ? "log" : "symlog";
  };
  json::Object o;
  o["left"] = t.left;
  o["top"] = t.top;
  o["right"] = t.right;
  o["bottom"] = t.bottom;
  o["x_min"] = t.x.range.min;
  o["x_max"] = t.x.range.max;
  o["y_min"] = t.y.range.min;
  o["y_max"] = t.y.range.max;
  o["x_scale"] = scale(t.x.scale);
  o["y_scale"] = scale(t.y.scale);
  o["symlog_c"] = t.y.symlog_c;
  // The legend's rectangle in pixels (null: none drawn) and where it went: inside the data area, right of
  // it or below the plot.
  if (s.legend_max.x > s.legend_min.x) {
    json::Object l;
    l["left"] = static_cast<double>(s.legend_min.x);
    l["top"] = static_cast<double>(s.legend_min.y);
    l["right"] = static_cast<double>(s.legend_max.x);
    l["bottom"] = static_cast<double>(s.legend_max.y);
    l["place"] = s.legend_place == plot::LegendPlace::Inside  ? "inside"
                 : s.legend_place == plot::LegendPlace::Right ? "right"
                                                              : "below";
    o["legend"] = std::move(l);
  } else {
    o["legend"] = json::Value();
  }
  json::Object f;  // the whole plot: title, axes, labels, legend and data area
  f["left"] = static_cast<double>(s.frame_min.x);
  f["top"] = static_cast<double>(s.frame_min.y);
  f["right"] = static_cast<double>(s.frame_max.x);
  f["bottom"] = static_cast<double>(s.frame_max.y);
  o["frame"] = std::move(f);
  o["data_items"] = s.drawn_items;           // 0: no data yet (a CSV of it writes nothing and says so)
  o["category_labels"] = s.category_labels;  // x category labels drawn (bar plots)
  o["category_labels_cut"] = s.category_labels_cut;  // of those, cut with "…"
  o["x_tick_labels"] = s.x_tick_labels;              // numbers on the x axis (0 on a bar plot's)
  o["y_tick_labels"] = s.y_tick_labels;
  return o;
}

}  // namespace gelu::app

// Where legends, labels and notes go in and around a plot (plot/place.hpp, no ImGui), on rectangles: text is
// measured by a fixed-width rule (every character half an em wide, every line one em tall), the data a plot
// drew is given as segments, dots and boxes, and each test asks for a decision that a wrong rule would miss.
//
// Index of this file:
//   [SECTION] Geometry
//   [SECTION] The legend
//   [SECTION] Labels
//   [SECTION] Notes
#include "plot/place.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace gelu::plot;

constexpr float kEm = 10;  // font size and line height, in pixels

// Every character (UTF-8 code point) kEm / 2 wide, every line kEm tall.
Point fixed_width(const std::string& text) {
  float widest = 0, width = 0, lines = 1;
  for (const char c : text) {
    if (c == '\n') {
      ++lines;
      width = 0;
      continue;
    }
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) width += kEm / 2;
    widest = std::max(widest, width);
  }
  return {widest, lines * kEm};
}

// A 400 × 200 px data area at (50, 20) in a 500 × 280 px frame.
Scene scene() {
  Scene s;
  s.area = {{50, 20}, {450, 220}};
  s.frame = {{0, 0}, {500, 280}};
  s.em = kEm;
  s.line_height = kEm;
  s.measure = fixed_width;
  return s;
}

bool inside(const Rect& inner, const Rect& outer) {
  return inner.min.x >= outer.min.x && inner.min.y >= outer.min.y && inner.max.x <= outer.max.x &&
         inner.max.y <= outer.max.y;
}

// A horizontal curve across the whole data area at y.
Ink across(const Scene& s, float y) {
  return {{s.area.min.x, y}, {s.area.max.x, y}, 1.0f};
}

// [SECTION] Geometry

TEST(PlaceGeometry, SegmentsAndBoxes) {
  const Rect box{{10, 10}, {20, 20}};
  EXPECT_TRUE(segment_hits({0, 0}, {30, 30}, 0, box));    // the diagonal through it
  EXPECT_FALSE(segment_hits({0, 25}, {30, 25}, 1, box));  // 5 px below, 1 px wide
  EXPECT_TRUE(segment_hits({0, 25}, {30, 25}, 6, box));   // 6 px wide: it reaches the box
  EXPECT_TRUE(segment_hits({15, 15}, {15, 15}, 0, box));  // a dot inside
  EXPECT_FALSE(boxes_meet(box, {{20, 10}, {30, 20}}));    // touching edges do not overlap
  EXPECT_TRUE(boxes_meet(box, {{19, 19}, {30, 30}}));
  EXPECT_FLOAT_EQ(box_distance({23, 24}, box), 5.0f);
  EXPECT_FLOAT_EQ(box_distance({15, 12}, box), 0.0f);
}

TEST(PlaceGeometry, WrapsAtSpacesOnly) {
  // 5 px a character: "0.0139 ulp max" is 70 px; at 40 px it breaks at a space, never inside the number
  // (which keeps its own line though wider than 40 px).
  const std::vector<std::string> lines = wrap_words("0.0139 ulp max", 40, fixed_width);
  EXPECT_EQ(lines, (std::vector<std::string>{"0.0139", "ulp max"}));
  EXPECT_EQ(wrap_words("0.0139 ulp max", 70, fixed_width), std::vector<std::string>{"0.0139 ulp max"});
  EXPECT_TRUE(wrap_words("", 40, fixed_width).empty());
}

// [SECTION] The legend

TEST(PlaceLegend, AvoidsTheCornerWhereACurveRuns) {
  Scene s = scene();
  const Point box{100, 50};
  const float inset = 6;
  // Free: the preferred corner (top-right).
  LegendInside in = legend_inside(s, box, {1, 0}, inset);
  EXPECT_FLOAT_EQ(in.at.x, s.area.max.x - inset - box.x);
  EXPECT_FLOAT_EQ(in.at.y, s.area.min.y + inset);
  EXPECT_EQ(in.cover.hard, 0);
  // A curve through the top-right corner only (from its corner to the area's middle): the top-left.
  s.ink.push_back({{s.area.max.x, s.area.min.y}, {350, 120}, 1.0f});
  in = legend_inside(s, box, {1, 0}, inset);
  EXPECT_EQ(in.cover.hard, 0);
  EXPECT_FLOAT_EQ(in.at.x, s.area.min.x + inset);
  EXPECT_FLOAT_EQ(in.at.y, s.area.min.y + inset);
  EXPECT_FALSE(segment_hits(s.ink[0].a, s.ink[0].b, 1, {in.at, {in.at.x + box.x, in.at.y + box.y}}));
}

TEST(PlaceLegend, FallsBackToTheLeastCoveredPlace) {
  Scene s = scene();
  const Point box{100, 50};
  // Places are 56 px tall rows at the top (y 26–76), middle (95–145) and bottom (164–214): two curves cross
  // the top and the middle, one the bottom.
  for (const float y : {45.0f, 60.0f, 115.0f, 130.0f, 190.0f}) s.ink.push_back(across(s, y));
  const LegendInside in = legend_inside(s, box, {1, 0}, 6);
  EXPECT_EQ(in.cover.hard, 1);
  // The first of the least covered in the order of places: bottom-right.
  EXPECT_FLOAT_EQ(in.at.x, s.area.max.x - 6 - box.x);
  EXPECT_FLOAT_EQ(in.at.y, s.area.max.y - 6 - box.y);
}

TEST(PlaceLegend, ShadingOnlyDecidesBetweenPlacesThatCoverNoData) {
  Scene s = scene();
  const Point box{100, 50};
  // A shaded band over the right half: the legend goes left (top-left, the first place clear of it).
  s.soft_rects.push_back({{250, s.area.min.y}, {s.area.max.x, s.area.max.y}});
  LegendInside in = legend_inside(s, box, {1, 0}, 6);
  EXPECT_EQ(in.cover.hard, 0);
  EXPECT_FLOAT_EQ(in.cover.soft, 0);
  EXPECT_FLOAT_EQ(in.at.x, s.area.min.x + 6);
  // A curve over the left half's places as well: on the shading, never on the curve.
  for (const float y : {45.0f, 115.0f, 190.0f}) s.ink.push_back({{s.area.min.x, y}, {240, y}, 1.0f});
  in = legend_inside(s, box, {1, 0}, 6);
  EXPECT_EQ(in.cover.hard, 0);
  EXPECT_GT(in.cover.soft, 0);
  EXPECT_GE(in.at.x, 250 - box.x);
}

LegendShape shape_of(Point box) {
  LegendShape sh;
  sh.box = box;
  sh.flow_box = {300, 30};
  return sh;
}

LegendAsk ask_for(const LegendShape& sh, Point free_area) {
  LegendAsk a;
  a.shape = &sh;
  a.preferred = {1, 0};
  a.key = {600, 300};
  a.free_area = free_area;
  a.n_entries = 2;
  a.gap = 6;
  a.inset = 6;
  return a;
}

TEST(PlaceLegend, GoesOutsideWhenEveryPlaceIsCovered) {
  const LegendShape sh = shape_of({100, 50});
  // Clear: inside, decided the first time and remembered.
  Scene s = scene();
  LegendMemory mem;
  LegendChoice c = choose_legend(s, ask_for(sh, {400, 200}), mem);
  EXPECT_EQ(c.slot, LegendSlot::Inside);
  EXPECT_TRUE(c.decided);
  EXPECT_FLOAT_EQ(mem.key.x, 600);
  EXPECT_FLOAT_EQ(mem.em, kEm);
  // Curves over every place: outside. Below, where the width beside it would leave the area under 300 px...
  for (const float y : {45.0f, 115.0f, 190.0f}) s.ink.push_back(across(s, y));
  LegendAsk ask = ask_for(sh, {400, 200});
  ask.now = LegendSlot::Inside;
  mem = {};
  c = choose_legend(s, ask, mem);
  EXPECT_EQ(c.slot, LegendSlot::Below);
  // ...at the right where it leaves 300 (a 500 px wide area: 500 − 100 − 6 ≥ 300).
  mem = {};
  c = choose_legend(s, ask_for(sh, {500, 200}), mem);
  EXPECT_EQ(c.slot, LegendSlot::Right);
}

TEST(PlaceLegend, TooLargeForInsideGoesOutEvenOverNoData) {
  // 200 × 100 is a quarter of a 400 × 200 area, under 0.3: inside; 220 × 120 is a third: outside.
  Scene s = scene();
  LegendShape sh = shape_of({200, 100});
  LegendMemory mem;
  EXPECT_EQ(choose_legend(s, ask_for(sh, {400, 200}), mem).slot, LegendSlot::Inside);
  sh = shape_of({220, 120});
  mem = {};
  EXPECT_NE(choose_legend(s, ask_for(sh, {400, 200}), mem).slot, LegendSlot::Inside);
}

TEST(PlaceLegend, OnceOutsideItStaysUntilTheSizeChanges) {
  const LegendShape sh = shape_of({100, 50});
  Scene s = scene();  // clear: inside would be fine
  LegendAsk ask = ask_for(sh, {500, 200});
  ask.now = LegendSlot::Right;
  LegendMemory mem{{600, 300}, kEm, 2};  // decided for this size, text size and number of entries
  LegendChoice c = choose_legend(s, ask, mem);
  EXPECT_FALSE(c.decided);
  EXPECT_EQ(c.slot, LegendSlot::Right);  // no flicker
  // A scrollbar's width (2 em) does not decide again; a new size (over 3 em), text size or entry count does.
  ask.key = {620, 300};
  EXPECT_FALSE(choose_legend(s, ask, mem).decided);
  ask.key = {640, 300};
  c = choose_legend(s, ask, mem);
  EXPECT_TRUE(c.decided);
  EXPECT_EQ(c.slot, LegendSlot::Inside);
  EXPECT_FLOAT_EQ(mem.key.x, 640);
  ask.now = LegendSlot::Right;
  ask.n_entries = 3;
  EXPECT_TRUE(choose_legend(s, ask, mem).decided);
}

TEST(PlaceLegend, ShapeFlowsInRowsAndWrapsALongEntry) {
  // Three entries of 10 characters (50 px): a column 0.8 + 1.6 + 0.5 em + 50 px wide, three rows tall.
  const std::vector<std::string> labels{"aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"};
  LegendShape sh = legend_shape(labels, kEm, kEm, 1000, fixed_width);
  EXPECT_FLOAT_EQ(sh.box.x, 2 * 4 + 16 + 5 + 50);
  EXPECT_FLOAT_EQ(sh.box.y, 2 * 4 + 3 * 12);
  // Wide room: one row of three.
  EXPECT_FLOAT_EQ(sh.flow[0].y, sh.flow[2].y);
  EXPECT_GT(sh.flow[2].x, sh.flow[1].x);
  // Room for two a row (each 71 px with its swatch, 12 px apart): the third starts the second row.
  sh = legend_shape(labels, kEm, kEm, 170, fixed_width);
  EXPECT_FLOAT_EQ(sh.flow[1].y, sh.flow[0].y);
  EXPECT_FLOAT_EQ(sh.flow[2].y, sh.flow[0].y + 12);
  EXPECT_FLOAT_EQ(sh.flow[2].x, sh.pad);
  EXPECT_FLOAT_EQ(sh.flow_box.y, 4 + 2 * 12 + 4);
  // An entry wider than the plot wraps at its spaces, never past the plot's side.
  sh = legend_shape({"a very long legend entry text"}, kEm, kEm, 120, fixed_width);
  EXPECT_NE(sh.flow_text[0].find('\n'), std::string::npos);
  EXPECT_LE(sh.flow_box.x, 120);
}

// [SECTION] Labels

LabelAsk marker_label(Point p, const std::string& text) {
  LabelAsk a;
  a.p = p;
  a.text = text;
  a.color = 0xff0000ff;
  a.marker = true;
  return a;
}

TEST(PlaceLabel, BesideItsDot) {
  Scene s = scene();
  s.dots.push_back({{200, 100}, 0xff0000ff});
  const LabelPlace l = place_label(s, marker_label({200, 100}, "x = 1"));
  ASSERT_EQ(l.where, LabelPlace::Where::Here);
  // Right-below, 0.6 em right and 0.35 em below the dot, not on it.
  EXPECT_FLOAT_EQ(l.at.x, 206);
  EXPECT_FLOAT_EQ(l.at.y, 103.5f);
  EXPECT_EQ(l.text, "x = 1");
  EXPECT_FALSE(boxes_meet(l.box, {{197, 97}, {203, 103}}));
  ASSERT_EQ(s.labels.size(), 1u);  // recorded for the labels after it
}

TEST(PlaceLabel, NotOnAPreviousLabel) {
  Scene s = scene();
  s.dots.push_back({{200, 100}, 0xff0000ff});
  s.dots.push_back({{200, 100}, 0x00ff00ff});
  const LabelPlace first = place_label(s, marker_label({200, 100}, "first label"));
  LabelAsk second_ask = marker_label({200, 100}, "second one");
  second_ask.color = 0x00ff00ff;
  const LabelPlace second = place_label(s, second_ask);
  ASSERT_EQ(first.where, LabelPlace::Where::Here);
  ASSERT_EQ(second.where, LabelPlace::Where::Here);
  EXPECT_FALSE(boxes_meet(first.box, second.box));
  EXPECT_LT(box_distance({200, 100}, second.box), 1.5f * kEm);  // still beside the dot
}

TEST(PlaceLabel, OffTheCurves) {
  Scene s = scene();
  const Point p{200, 100};
  s.dots.push_back({p, 0xff0000ff});
  // A curve right-below and right-above the dot, where the label would go first.
  s.ink.push_back({{200, 108}, {300, 108}, 1.5f});
  s.ink.push_back({{200, 92}, {300, 92}, 1.5f});
  const LabelPlace l = place_label(s, marker_label(p, "x = 1"));
  ASSERT_EQ(l.where, LabelPlace::Where::Here);
  for (const Ink& k : s.ink) EXPECT_FALSE(segment_hits(k.a, k.b, k.r, l.box));
  EXPECT_LT(l.box.max.x, p.x);  // it went left of the dot
  EXPECT_LT(box_distance(p, l.box), 1.5f * kEm);
}

TEST(PlaceLabel, TwoLinesWhereOneLiesOnTheData) {
  Scene s = scene();
  const Point p{250, 120};
  // Filled data everywhere but an 80 px wide slot around the dot: "maximum error here" on one line (90 px)
  // lies on the data wherever it goes; on two lines (50 px) it fits the slot.
  s.ink_rects.push_back({{s.area.min.x, s.area.min.y}, {p.x - 40, s.area.max.y}});
  s.ink_rects.push_back({{p.x + 40, s.area.min.y}, {s.area.max.x, s.area.max.y}});
  const LabelPlace l = place_label(s, marker_label(p, "maximum error here"));
  ASSERT_EQ(l.where, LabelPlace::Where::Here);
  EXPECT_EQ(l.text, "maximum\nerror here");  // broken where the longer line is shortest
  for (const Rect& r : s.ink_rects) EXPECT_FALSE(boxes_meet(l.box, r));
}

TEST(PlaceLabel, LeftOutWhereOnlyAPlaceOnALabelIsLeft) {
  Scene s = scene();
  s.labels.push_back(s.area);  // a label (a note) over the whole data area
  EXPECT_EQ(place_label(s, marker_label({200, 100}, "x = 1")).where, LabelPlace::Where::Left);
  EXPECT_EQ(s.labels.size(), 1u);
  // A lesson's callout is never left out; its bordered box is data for what comes after.
  LabelAsk callout;
  callout.p = {200, 100};
  callout.text = "look here";
  callout.callout = true;
  const LabelPlace c = place_label(s, callout);
  EXPECT_EQ(c.where, LabelPlace::Where::Here);
  EXPECT_EQ(s.ink_rects.size(), 1u);
  EXPECT_TRUE(inside(c.box, s.ink_rects[0]));
}

TEST(PlaceLabel, NearPlotsKeepLabelsWithinReachOfTheirDots) {
  // A label covering 25 px around the dot: the places within 2.2 reaches (13 px) all meet it.
  auto with_block = [] {
    Scene s = scene();
    s.labels.push_back({{175, 75}, {225, 125}});
    return s;
  };
  Scene far = with_block();
  const LabelPlace f = place_label(far, marker_label({200, 100}, "x = 1"));
  ASSERT_EQ(f.where, LabelPlace::Where::Here);  // further out (5 reaches)
  EXPECT_GE(box_distance({200, 100}, f.box), 25);
  Scene near = with_block();
  LabelAsk ask = marker_label({200, 100}, "x = 1");
  ask.near = true;
  EXPECT_EQ(place_label(near, ask).where, LabelPlace::Where::Left);
}

TEST(PlaceLabel, NearPlotsLeaveOutALabelNearerAnotherDotOfItsColour) {
  // Dots of one colour 12 px apart in a row: a label beside the middle one is nearer a neighbour wherever it
  // goes within reach (labels_near): left out; in an ordinary plot it is placed (the least crowded place).
  auto row = [] {
    Scene s = scene();
    for (float x = 140; x <= 260; x += 12)
      for (float y = 64; y <= 136; y += 12) s.dots.push_back({{x, y}, 0xff0000ff});
    return s;
  };
  Scene a = row();
  LabelAsk ask = marker_label({200, 100}, "x = 1");
  ask.near = true;
  EXPECT_EQ(place_label(a, ask).where, LabelPlace::Where::Left);
  Scene b = row();
  ask.near = false;
  EXPECT_EQ(place_label(b, ask).where, LabelPlace::Where::Here);
}

TEST(PlaceLabel, OffViewDotsLabelSitsAtTheEdgeWithAnArrow) {
  Scene s = scene();
  // Left of the view: at its left edge (0.2 em in), pointing out.
  const LabelPlace l = place_label(s, marker_label({-40, 100}, "x = −13.6"));
  ASSERT_EQ(l.where, LabelPlace::Where::Here);
  EXPECT_EQ(l.text, "← x = −13.6");
  EXPECT_FLOAT_EQ(l.at.x, s.area.min.x + 2);
  EXPECT_TRUE(inside(l.box, s.area));
  // Right of it: at the right edge.
  const LabelPlace r = place_label(s, marker_label({600, 150}, "x = 20"));
  ASSERT_EQ(r.where, LabelPlace::Where::Here);
  EXPECT_EQ(r.text, "x = 20 →");
  EXPECT_FLOAT_EQ(r.box.max.x, s.area.max.x);
  // Not a marker (a curve's name): no arrow.
  LabelAsk plain = marker_label({-40, 60}, "GELU");
  plain.marker = false;
  EXPECT_EQ(place_label(s, plain).text, "GELU");
}

TEST(PlaceLabel, OffViewOnTheDataGoesBesideALegendOutside) {
  Scene s = scene();
  for (float y = 25; y < 220; y += 8) s.ink.push_back(across(s, y));  // curves everywhere
  // No legend outside: it stays at the edge, the only place it is seen.
  EXPECT_EQ(place_label(s, marker_label({-40, 100}, "x = −13.6")).where, LabelPlace::Where::Here);
  // A legend at the right (100 × 40): under it, without the arrow.
  s = scene();
  for (float y = 25; y < 220; y += 8) s.ink.push_back(across(s, y));
  s.outside = LegendSlot::Right;
  s.legend_size = {100, 40};
  EXPECT_EQ(place_label(s, marker_label({-40, 100}, "x = −13.6")).where, LabelPlace::Where::Outside);
  ASSERT_EQ(s.outside_notes.size(), 1u);
  EXPECT_EQ(s.outside_notes[0].text, "x = −13.6");
  EXPECT_FLOAT_EQ(s.outside_notes[0].pos.x, s.area.max.x + 6 + 2.5f);
  EXPECT_FLOAT_EQ(s.outside_notes[0].pos.y, s.area.min.y + 40 + 6);
}

TEST(PlaceLabel, OptionalLabelThatHidesTooMuchLeavesTheArea) {
  // A 100 × 60 area: a 3-line label of 60 px width covers over a sixth of it, on the curves.
  auto small = [] {
    Scene s = scene();
    s.area = {{50, 20}, {150, 80}};
    for (float y = 22; y < 80; y += 6) s.ink.push_back(across(s, y));
    return s;
  };
  LabelAsk ask = marker_label({100, 50}, "twelve chars long label here");
  ask.optional = true;
  Scene a = small();
  EXPECT_EQ(place_label(a, ask).where, LabelPlace::Where::Left);  // legend inside: left out
  Scene b = small();
  b.outside = LegendSlot::Right;
  b.legend_size = {100, 20};
  EXPECT_EQ(place_label(b, ask).where, LabelPlace::Where::Outside);  // under the legend at the right
  ASSERT_EQ(b.outside_notes.size(), 1u);
  // Not optional (a lesson's marker): it stays, on the data.
  ask.optional = false;
  Scene c = small();
  EXPECT_EQ(place_label(c, ask).where, LabelPlace::Where::Here);
}

TEST(PlaceLabel, InlineTextsOfACurvesName) {
  EXPECT_EQ(compact_label("exact GELU  x·Φ(x)"), "exact GELU");
  EXPECT_EQ(compact_label("tanh form (c = 0.044715): max 3 ULP"), "tanh form: max 3 ULP");
  EXPECT_EQ(compact_label("GELU (exact)"), "GELU (exact)");
  EXPECT_EQ(inline_label_texts("tanh form (c = 0.044715): max 3 ULP", true),
            (std::vector<std::string>{"tanh form: max 3 ULP", "tanh form"}));
  EXPECT_EQ(inline_label_texts("ReLU dead zone: f = f′ = 0", false),
            std::vector<std::string>{"ReLU dead zone"});
  EXPECT_EQ(inline_label_texts("GELU", true), std::vector<std::string>{"GELU"});
}

// [SECTION] Notes

TEST(PlaceNote, TakesTheAskedCornerWhenItIsFree) {
  Scene s = scene();
  const NotePlace n = place_note(s, "max 3 ULP", 1, 0);  // top-right
  ASSERT_FALSE(n.outside);
  EXPECT_FLOAT_EQ(n.at.x + n.size.x, s.area.max.x - 5);
  EXPECT_FLOAT_EQ(n.at.y, s.area.min.y + 5);
  EXPECT_EQ(n.text, "max 3 ULP");
  ASSERT_EQ(s.labels.size(), 1u);
  EXPECT_FLOAT_EQ(s.labels[0].min.x, n.box.min.x);
}

TEST(PlaceNote, TakesTheCornerThatCoversLeast) {
  Scene s = scene();
  // Curves through the top-left, top-right and bottom-left corners; the bottom-right is clear.
  s.ink.push_back({{s.area.min.x, 30}, {s.area.max.x, 30}, 1});
  s.ink.push_back({{s.area.min.x, 210}, {200, 210}, 1});
  const NotePlace n = place_note(s, "max 3 ULP", 0, 0);
  ASSERT_FALSE(n.outside);
  EXPECT_FLOAT_EQ(n.at.x + n.size.x, s.area.max.x - 5);  // right
  EXPECT_FLOAT_EQ(n.at.y + n.size.y, s.area.max.y - 5);  // bottom
  // Every corner covered, one of them by a curve only, the others by a label: on the curve, never on a label.
  Scene t = scene();
  t.ink.push_back({{t.area.min.x, 30}, {t.area.max.x, 30}, 1});
  t.labels.push_back({{t.area.min.x, 150}, {t.area.max.x, 220}});
  const NotePlace m = place_note(t, "max 3 ULP", 2, 0);
  ASSERT_FALSE(m.outside);
  EXPECT_LT(m.at.y, 100);
}

TEST(PlaceNote, CompactTextWhereTheFullOneIsTooTall) {
  const std::string full = "line one\nline two\nline three\nline four\nline five";  // 50 px
  // A 200 px tall area: 50 px is under a third, the full text.
  Scene s = scene();
  EXPECT_EQ(place_note(s, full, 3, 0, "short").text, full);
  // A 120 px tall one: over a third (40 px), the compact text.
  Scene t = scene();
  t.area.max.y = t.area.min.y + 120;
  const NotePlace n = place_note(t, full, 3, 0, "short");
  EXPECT_EQ(n.text, "short");
  EXPECT_FLOAT_EQ(n.at.y + n.size.y, t.area.max.y - 5);
  // No compact text: the lines that fit (the area's height less the padding), then "…".
  Scene u = scene();
  u.area.max.y = u.area.min.y + 40;  // 30 px inside the padding: three lines
  EXPECT_EQ(place_note(u, full, 0, 0).text, "line one\nline two\nline three…");
}

TEST(PlaceNote, WrappedToTheAreasWidth) {
  Scene s = scene();
  s.area.max.x = s.area.min.x + 110;  // 100 px inside the padding: 20 characters a line
  const NotePlace n = place_note(s, "0.0139 ULP at x = 2.5 and 7 ULP at x = 3", 0, 0);
  EXPECT_EQ(n.text, "0.0139 ULP at x =\n2.5 and 7 ULP at x =\n3");
  EXPECT_LE(n.size.x, 100);
}

TEST(PlaceNote, BesideALegendOutsideWhenEveryCornerIsCovered) {
  auto covered = [] {
    Scene s = scene();
    for (float y = 25; y < 220; y += 8) s.ink.push_back(across(s, y));
    return s;
  };
  // Legend inside: the note stays on the data, in the asked corner.
  Scene a = covered();
  EXPECT_FALSE(place_note(a, "max 3 ULP", 1, 0).outside);
  // A legend at the right, 100 × 40: under it, wrapped to its width.
  Scene b = covered();
  b.outside = LegendSlot::Right;
  b.legend_size = {100, 40};
  const NotePlace n = place_note(b, "max 3 ULP at x = 2.5", 1, 0);
  ASSERT_TRUE(n.outside);
  ASSERT_EQ(b.outside_notes.size(), 1u);
  EXPECT_EQ(b.outside_notes[0].text, "max 3 ULP at x =\n2.5");
  EXPECT_GE(n.box.min.x, b.area.max.x);
  EXPECT_FLOAT_EQ(n.box.min.y, b.area.min.y + 40 + 6 - 1);
  // A second one stacks below the first.
  const NotePlace m = place_note(b, "second", 1, 0);
  ASSERT_TRUE(m.outside);
  EXPECT_GE(m.box.min.y, n.box.max.y);
  // A legend below the plot (200 × 40): beside it, centred on its height.
  Scene c = covered();
  c.outside = LegendSlot::Below;
  c.legend_size = {200, 40};
  const NotePlace o = place_note(c, "max 3 ULP", 1, 0);
  ASSERT_TRUE(o.outside);
  EXPECT_FLOAT_EQ(c.outside_notes[0].pos.x, c.frame.min.x + 5 + 200 + 6 + 2.5f);
  EXPECT_FLOAT_EQ(c.outside_notes[0].pos.y, c.frame.max.y - 40 + 15);
  // A room narrower than 4 em: inside after all.
  Scene d = covered();
  d.outside = LegendSlot::Right;
  d.legend_size = {35, 40};
  EXPECT_FALSE(place_note(d, "max 3 ULP at x = 2.5", 1, 0, "max 3 ULP").outside);
}

}  // namespace

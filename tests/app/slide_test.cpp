// The slide's geometry on rectangles (plot/slide.hpp, no ImGui): what share of a plot the class sees, and
// what does not fit, in the words `gelulab lessons` prints.
#include "plot/slide.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace gelu::plot;

TEST(SlideBox, IntersectAndUnite) {
  const Box a{0, 0, 10, 10}, b{5, 5, 20, 8};
  const Box i = intersect(a, b);
  EXPECT_EQ(i.l, 5);
  EXPECT_EQ(i.t, 5);
  EXPECT_EQ(i.r, 10);
  EXPECT_EQ(i.b, 8);
  EXPECT_TRUE(intersect(a, Box{11, 0, 12, 5}).empty());
  EXPECT_EQ(intersect(a, Box{11, 0, 12, 5}).area(), 0);
  const Box u = unite(a, b);
  EXPECT_EQ(u.r, 20);
  EXPECT_EQ(u.b, 10);
  // An empty box adds nothing.
  const Box e = unite(a, Box{});
  EXPECT_EQ(e.r, 10);
  EXPECT_EQ(e.b, 10);
}

TEST(SlideBox, VisibleFraction) {
  const Box seen{0, 0, 1000, 500};
  EXPECT_DOUBLE_EQ(visible_fraction({100, 100, 300, 300}, seen), 1.0);
  EXPECT_DOUBLE_EQ(visible_fraction({100, 400, 300, 600}, seen), 0.5);  // half under the bar
  EXPECT_DOUBLE_EQ(visible_fraction({100, 500, 300, 700}, seen), 0.0);  // wholly under it
  EXPECT_DOUBLE_EQ(visible_fraction({900, 0, 1100, 100}, seen), 0.5);   // half past the right edge
  EXPECT_DOUBLE_EQ(visible_fraction({}, seen), 1.0);                    // drew nothing: nothing missed
}

SlideFrame frame_1024() {
  SlideFrame f;
  f.window = {0, 0, 1024, 768};
  f.room = {0, 60, 1024, 520};  // the lesson bar starts at 520 (plus spacing)
  f.lesson_bar = true;
  return f;
}

TEST(SlideProblems, AFittingSlideHasNone) {
  SlideFrame f = frame_1024();
  f.text_lines = 3;
  f.bar_lines = 3;
  EXPECT_TRUE(slide_problems({{"plot0", {10, 70, 1000, 519.7}}}, f).empty());
}

TEST(SlideProblems, NamesThePlotAndHowFarItRunsUnderTheBar) {
  const SlideFrame f = frame_1024();
  const std::vector<std::string> p =
      slide_problems({{"keep", {10, 70, 1000, 300}}, {"histograms", {10, 310, 1000, 652}}}, f);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "plot 'histograms' ends 132 px under the lesson bar");
}

TEST(SlideProblems, APlotWhollyUnderTheBarIsNotOnScreen) {
  const std::vector<std::string> p = slide_problems({{"errors", {10, 530, 1000, 760}}}, frame_1024());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "plot 'errors' is not on screen (under the lesson bar)");
}

TEST(SlideProblems, EdgesTextAndScrolling) {
  SlideFrame f = frame_1024();
  f.text_lines = 6;
  f.bar_lines = 4;
  f.text_overflow_px = 80;
  f.panel_overflow_px = 40;
  const std::vector<std::string> p = slide_problems({{"wide", {-5, 70, 1036, 500}}}, f);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], "plot 'wide' runs 12 px past the window's right edge");
  EXPECT_EQ(p[1], "plot 'wide' runs 5 px past the window's left edge");
  EXPECT_EQ(p[2], "text needs 6 lines, the bar shows 4");
  EXPECT_EQ(p[3], "the panel scrolls: 40 px of it below the lesson bar");
  // Without a lesson the room ends at the window's bottom edge.
  SlideFrame w;
  w.window = {0, 0, 800, 600};
  w.room = {0, 50, 800, 600};
  const std::vector<std::string> q = slide_problems({{"a", {0, 100, 800, 610}}}, w);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0], "plot 'a' ends 10 px under the window's bottom edge");
}

// Linked plots on rectangles: stacked plots of one axis share the narrowest x extent; plots side by side, of
// another axis or of none keep their own.
TEST(LinkedPlots, StackedPlotsOfOneAxisShareTheNarrowestXExtent) {
  int axis = 0, other = 0;
  const LinkedArea curve{&axis, 373, 418, 1252}, errors{&axis, 373, 418, 780};
  // The curve plot learns the error plot's extent (narrowed by its legend at the right), and the error plot
  // keeps its own.
  EXPECT_EQ(shared_x_extent({curve, errors}, curve), std::make_pair(418.0, 780.0));
  EXPECT_EQ(shared_x_extent({curve, errors}, errors), std::make_pair(418.0, 780.0));
  // Within a pixel of the same frame left is the same column; a frame whose data starts further right moves
  // the others' left edge.
  const LinkedArea wide_left{&axis, 373.6, 430, 1252};
  EXPECT_EQ(shared_x_extent({wide_left}, curve), std::make_pair(430.0, 1252.0));
  // Side by side (another frame left), another axis, no axis: their own.
  const LinkedArea beside{&axis, 820, 865, 1252};
  EXPECT_EQ(shared_x_extent({beside}, errors), std::make_pair(418.0, 780.0));
  const LinkedArea unrelated{&other, 373, 418, 600};
  EXPECT_EQ(shared_x_extent({unrelated}, curve), std::make_pair(418.0, 1252.0));
  const LinkedArea alone{nullptr, 373, 418, 1252};
  EXPECT_EQ(shared_x_extent({errors}, alone), std::make_pair(418.0, 1252.0));
  // Last frame's plots only: with none drawn yet a plot keeps its own.
  EXPECT_EQ(shared_x_extent({}, curve), std::make_pair(418.0, 1252.0));
  // Extents that do not meet (a column whose plots moved apart) are not forced onto each other.
  const LinkedArea apart{&axis, 373, 900, 1252};
  EXPECT_EQ(shared_x_extent({apart}, errors), std::make_pair(418.0, 780.0));
}

// The legend's place on rectangles: the F6 case of issue 52 (the controls shown beside a plot in presentation
// mode at 2x: a plot asked to be 650 px wide has a 504 px data area, too narrow for a 469 px legend at its
// right and a 300 px data area beside it) goes below; the same plot 1245 px wide keeps it at the right.
TEST(LegendSlot, RightWhereTheWidthAllowsElseBelow) {
  LegendRoom r;
  r.free_w = 1096;
  r.free_h = 270;
  r.box_w = 469;
  r.box_h = 250;
  r.flow_h = 240;
  r.gap = 17;
  EXPECT_EQ(legend_slot(r), LegendSlot::Right);
  r.free_w = 650 - 146;  // the width asked for, less the 5 em of axes
  EXPECT_EQ(legend_slot(r), LegendSlot::Below);
  r.free_w = 469 + 17 + 300;  // exactly a 300 px data area beside it
  EXPECT_EQ(legend_slot(r), LegendSlot::Right);
  // Inside wins where it may be.
  r.inside_ok = true;
  EXPECT_EQ(legend_slot(r), LegendSlot::Inside);
  r.inside_ok = false;
  // Taller than the data area: at the right only where it grows the plot less than below would.
  r.free_w = 1096;
  r.box_h = 400;
  EXPECT_EQ(legend_slot(r), LegendSlot::Right);  // 400 <= 270 + 240 + 17
  r.box_h = 600;
  EXPECT_EQ(legend_slot(r), LegendSlot::Below);
  // Bar groups keep the width for their names unless the legend fits the height as it is.
  r.box_h = 400;
  r.bar_groups = true;
  EXPECT_EQ(legend_slot(r), LegendSlot::Below);
  r.box_h = 250;
  EXPECT_EQ(legend_slot(r), LegendSlot::Right);
}

}  // namespace

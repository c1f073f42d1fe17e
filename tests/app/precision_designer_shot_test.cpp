// The Precision and Designer panels rendered headless by `gelulab shot` (EGL, no X), with meta and pixel
// checks against numbers computed here from gelu::core (sweeps, verdicts, tails, fits), lesson 7's verdicts
// computed at run time, sessions that carry candidates into the comparison, and presentation mode. Without
// a GL context the shot exits non-zero and these tests FAIL (never skip).
//
// Index of this file:
//   [SECTION] Helpers
//   [SECTION] Precision
//   [SECTION] Designer
//   [SECTION] Sessions and the comparison
//   [SECTION] Lesson 7
//   [SECTION] Rounding-point chains
//   [SECTION] Presentation mode
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/fit.hpp"
#include "gelu/json.hpp"
#include "gelu/precision.hpp"
#include "gelu/stochastic.hpp"
#include "model/designer_lab.hpp"
#include "model/panel_states.hpp"
#include "support/files.hpp"
#include "support/png_image.hpp"
#include "support/scratch.hpp"
#include "support/shot.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::Format;
using gelu::FormatId;
using gelu::json::Value;
using gelu::test::dist;
using gelu::test::hex;
using gelu::test::Image;
using gelu::test::Rgb;
using Geom = gelu::test::PlotGeom;
namespace P = gelu::precision;

// [SECTION] Helpers

fs::path test_dir() {
  return gelu::test::scratch_dir("gelulab_lab_shots");  // new with each process
}

std::string read_text(const fs::path& p) {
  return gelu::test::slurp(p);
}

struct Shot {
  int status = -1;
  std::string png, err;
  Value meta;
};

/// `gelulab shot ARGS` at 1280x800 (or `size`) with no display; the PNG and meta under test_dir()/name.
Shot shot(const std::string& name, const std::string& args, const std::string& size = "1280x800") {
  const fs::path png = test_dir() / (name + ".png"), meta = test_dir() / (name + ".meta.json"),
                 err = test_dir() / (name + ".err");
  const std::string cmd = std::string("env -u DISPLAY -u WAYLAND_DISPLAY '") + GELULAB_EXE +
                          "' shot --size " + size + " --out '" + png.string() + "' --meta '" + meta.string() +
                          "' " + args + " 2> '" + err.string() + "'";
  Shot s;
  const int st = std::system(cmd.c_str());
  s.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  s.png = png.string();
  s.err = read_text(err);
  if (s.status == 0) s.meta = gelu::json::parse(read_text(meta));
  return s;
}

fs::path file(const std::string& name, const std::string& text) {
  const fs::path p = test_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

Shot state_shot(const std::string& panel, const std::string& name, const std::string& state,
                const std::string& more = "") {
  return shot(name,
              "--panel " + panel + " --state '" + file(name + ".state.json", state).string() + "' " + more);
}

P::Sweep core_sweep(const std::string& id, FormatId storage, FormatId compute, int order = 0) {
  P::SweepSpec spec;
  spec.storage = Format(storage);
  spec.compute = Format(compute);
  spec.order = order;
  return P::sweep(*gelu::zoo::find(id), gelu::analysis::spec(*gelu::find_activation("gelu")), spec);
}

const Value* find_cell(const Value& meta, const std::string& entry, const std::string& format) {
  for (const Value& c : meta.at("cells").as_array())
    if (c.at("entry").as_string() == entry && c.at("format").as_string() == format) return &c;
  return nullptr;
}

/// Pixels of colour c (within tol) in the column x over [y0, y1).
int column_count(const Image& img, int x, int y0, int y1, Rgb c, double tol = 40) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(img.h(), y1); ++y) n += dist(img.at(x, y), c) < tol;
  return n;
}

// [SECTION] Precision

TEST(PrecisionShot, UlpCurvesVerdictsAndTailsAreCores) {
  const Shot s = state_shot("precision", "prec_bf16_f16",
                            R"({"entries": ["tanh_form", "erf_naive"], "formats": ["bf16", "f16"],
                                "x": [-16, 8]})");
  ASSERT_EQ(s.status, 0) << s.err;
  const Image img(s.png);
  ASSERT_TRUE(img.ok());
  EXPECT_FALSE(s.meta.at("running").as_bool());
  ASSERT_EQ(s.meta.at("cells").as_array().size(), 4u);
  for (const std::string id : {"tanh_form", "erf_naive"})
    for (const auto& [fmt, fid] : {std::pair{"bf16", FormatId::BF16}, std::pair{"f16", FormatId::F16}}) {
      SCOPED_TRACE(id + " " + fmt);
      const Value* c = find_cell(s.meta, id, fmt);
      ASSERT_NE(c, nullptr);
      const P::Sweep sw = core_sweep(id, fid, FormatId::F32);
      EXPECT_EQ(c->at("verdict").as_string(), P::verdict(sw).text);
      EXPECT_EQ(c->at("mismatch").as_number(), static_cast<double>(sw.errors.ulp_stats.mismatch));
      EXPECT_EQ(c->at("max_ulp").as_number(), sw.errors.ulp_stats.max);
      std::printf("[ sweep ] %s %s: %.1f ms in the panel's worker (wall)\n", id.c_str(), fmt,
                  c->at("sweep_ms").as_number());
    }
  // The tanh form's largest bf16 error is drawn where it is: the curve's colour at (x_at_max, max_ULP).
  const Value& tanh = *find_cell(s.meta, "tanh_form", "bf16");
  const Geom g(s.meta.at("plots").at("ulp_bf16"));
  EXPECT_TRUE(g.log_y);
  const Rgb col = hex(tanh.at("color").as_string());
  const double xm = tanh.at("x_at_max").as_number(), ym = tanh.at("max_ulp").as_number();
  ASSERT_GT(xm, g.x_min);
  EXPECT_LT(img.nearest(g.px(xm), g.py(ym), col, 3), 40.0);
  // (Nothing is asserted below the maximum in that column: the entry's dashed "0 from here down" line, in the
  // same colour, runs through x_at_max = its first zero.)
  // Where the verdict says "identical", nothing of its colour is drawn (the lower half of the plot, below the
  // legend and the markers' labels).
  const P::Verdict v = P::verdict(core_sweep("tanh_form", FormatId::BF16, FormatId::F32));
  ASSERT_TRUE(v.identical_from.has_value());
  int drawn = 0;
  for (double x = *v.identical_from + 0.3; x < g.x_max - 0.2; x += 0.05)
    drawn += column_count(img, static_cast<int>(std::lround(g.px(x))),
                          static_cast<int>((g.top + g.bottom) / 2), static_cast<int>(g.bottom) - 2, col);
  EXPECT_EQ(drawn, 0);
  // Exact GELU is 0 in bf16 from −13.5625 down: marked by a dark dashed line there.
  EXPECT_EQ(s.meta.at("exact_first_zero").at("bf16").as_number(), -13.5625);
  bool marked = false;
  for (const Value& d : s.meta.at("drawn").as_array())
    marked = marked || (d.at("kind").as_string() == "exact_zero" && d.at("plot").as_string() == "ulp_bf16" &&
                        d.at("x").as_number() == -13.5625);
  EXPECT_TRUE(marked);
  EXPECT_GT(column_count(img, static_cast<int>(std::lround(g.px(-13.5625))), static_cast<int>(g.top),
                         static_cast<int>(g.bottom), Rgb{20, 20, 20}, 80),
            static_cast<int>((g.bottom - g.top) / 4));
  // erf_naive's own zero (−5.54 in f32, as docs/precision.md states) is marked in its colour.
  const Value& naive = *find_cell(s.meta, "erf_naive", "bf16");
  EXPECT_NEAR(naive.at("first_zero").as_number(), -5.5625, 0.05);
  EXPECT_GT(
      column_count(img, static_cast<int>(std::lround(g.px(naive.at("first_zero").as_number()))),
                   static_cast<int>(g.top), static_cast<int>(g.bottom), hex(naive.at("color").as_string())),
      10);
}

TEST(PrecisionShot, HalfPrecisionArithmeticMarksTheOverflows) {
  const Shot s =
      state_shot("precision", "prec_f16_compute",
                 R"({"entries": ["tanh_form"], "formats": ["f16"], "compute": "f16", "x": [-45, 45]})");
  ASSERT_EQ(s.status, 0) << s.err;
  const Value& c = *find_cell(s.meta, "tanh_form", "f16");
  EXPECT_EQ(c.at("compute").as_string(), "f16");
  EXPECT_EQ(c.at("overflow_above").as_number(), 40.34375);
  EXPECT_EQ(c.at("overflow_below").as_number(), -40.34375);
  EXPECT_EQ(c.at("verdict").as_string(),
            P::verdict(core_sweep("tanh_form", FormatId::F16, FormatId::F16)).text);
  const Image img(s.png);
  const Geom g(s.meta.at("plots").at("ulp_f16"));
  int overflows = 0;
  for (const Value& d : s.meta.at("drawn").as_array()) {
    if (d.at("kind").as_string() != "overflow") continue;
    ++overflows;
    // A solid line of the entry's colour over much of the plot's height.
    EXPECT_GT(
        column_count(img, static_cast<int>(std::lround(g.px(d.at("x").as_number()))), static_cast<int>(g.top),
                     static_cast<int>(g.bottom), hex(c.at("color").as_string())),
        static_cast<int>((g.bottom - g.top) / 3));
  }
  EXPECT_EQ(overflows, 2);
}

TEST(PrecisionShot, DerivativesInt8AndTheZooAgainstCost) {
  const Shot s =
      state_shot("precision", "prec_d1", R"({"entries": ["tanh_form", "f16_lut"], "formats": ["bf16"],
                                                         "derivatives": true})");
  ASSERT_EQ(s.status, 0) << s.err;
  const Value& d = *find_cell(s.meta, "tanh_form", "bf16");
  EXPECT_EQ(d.at("order").as_number(), 1);
  EXPECT_EQ(d.at("verdict").as_string(),
            P::verdict(core_sweep("tanh_form", FormatId::BF16, FormatId::F32, 1)).text);
  EXPECT_NE(find_cell(s.meta, "f16_lut", "bf16")->at("error").as_string().find("no derivative"),
            std::string::npos);

  const Shot q = state_shot("precision", "prec_int8", R"({"entries": ["tanh_form", "sigmoid_form"],
                                                          "formats": ["bf16"], "int8_scale": 0.03125})");
  ASSERT_EQ(q.status, 0) << q.err;
  const auto& int8 = q.meta.at("int8").as_array();
  ASSERT_EQ(int8.size(), 2u);
  for (const Value& c : int8) {
    const P::Int8View v = P::int8_view(*gelu::zoo::find(c.at("entry").as_string()),
                                       gelu::Quantization{0.03125, 0}, Format(FormatId::F32));
    EXPECT_EQ(c.at("lobe_codes").as_number(), v.lobe_codes);
    EXPECT_EQ(c.at("lobe_codes_reached").as_number(), v.lobe_codes_reached);
    EXPECT_EQ(c.at("max_ulp").as_number(), v.ulp.max);
  }
  EXPECT_EQ(int8[0].at("lobe_codes").as_number(), 5);  // round(−0.16997 · 32) = −5
  // Every zoo entry on the cost plot, each at its dot. Entries with the same cost and nearly the same error
  // (tanh_form and oneDNN's gelu_tanh: cost 24, 4.732e-4 vs 4.734e-4) share a pixel, where only one colour
  // can show: there the dot passes when one of the colours drawn within 3 px of it is seen.
  const Image img(q.png);
  const Geom g(q.meta.at("plots").at("cost"));
  struct Dot {
    double px, py;
    Rgb color;
    std::string label;
  };
  std::vector<Dot> dots;
  for (const Value& m : q.meta.at("drawn").as_array()) {
    if (m.at("plot").as_string() != "cost") continue;
    const double y = std::max(m.at("y").as_number(), 1e-17);
    dots.push_back(
        {g.px(m.at("x").as_number()), g.py(y), hex(m.at("color").as_string()), m.at("label").as_string()});
  }
  for (const Dot& dot : dots) {
    double best = img.nearest(dot.px, dot.py, dot.color, 1);
    for (const Dot& o : dots)
      if (&o != &dot && std::hypot(o.px - dot.px, o.py - dot.py) <= 3.0)
        best = std::min(best, img.nearest(dot.px, dot.py, o.color, 1));
    EXPECT_LT(best, 60.0) << dot.label;
  }
  EXPECT_GE(dots.size(), 16u);
}

// [SECTION] Designer

TEST(DesignerShot, ErrorCurveEquioscillationAndCoefficientsAreTheFits) {
  const Shot s = state_shot("designer", "designer_default", "{}");
  ASSERT_EQ(s.status, 0) << s.err;
  const gelu::fit::Candidate c = gelu::fit::fit(gelu::app::model::default_designer_spec());
  const Value& m = s.meta.at("candidate");
  ASSERT_TRUE(m.is_object());
  const auto& coefs = m.at("coefficients").as_array();
  ASSERT_EQ(coefs.size(), c.coefficients.size());
  for (std::size_t i = 0; i < coefs.size(); ++i) EXPECT_EQ(coefs[i].as_number(), c.coefficients[i]);
  EXPECT_EQ(m.at("max_error").as_number(), c.max_error);
  EXPECT_EQ(m.at("coefficients_hex").as_array()[0].as_string(), "0x1.606fcap-10f");  // docs/designer.md's c0
  std::printf("[ fit ] the panel's fit took %.1f ms\n", s.meta.at("fit_ms").as_number());
  const Image img(s.png);
  const Geom g(s.meta.at("plots").at("error"));
  const Rgb curve = hex(s.meta.at("curve_color").as_string());
  // The error curve is c.error_at(x) ...
  for (double x : {-3.3, -1.2, 0.5, 2.2, 3.5}) {
    EXPECT_LT(img.nearest(g.px(x), g.py(c.error_at(x)), curve, 2), 40.0) << x;
    EXPECT_GT(img.nearest(g.px(x), g.py(c.error_at(x) + 0.4 * c.max_error), curve, 1), 60.0) << x;
  }
  // ... and its equioscillation points are marked: d + 2 = 8 of them, alternating in sign.
  int refs = 0;
  double last = 0;
  for (const Value& k : s.meta.at("marks").as_array()) {
    if (k.at("kind").as_string() != "reference") continue;
    ++refs;
    const double y = k.at("y").as_number();
    EXPECT_NEAR(std::fabs(y), c.max_error, 0.01 * c.max_error);
    if (refs > 1) {
      EXPECT_LT(y * last, 0);
    }
    last = y;
    EXPECT_LT(img.nearest(g.px(k.at("x").as_number()), g.py(y), hex(k.at("color").as_string()), 2), 40.0);
  }
  EXPECT_EQ(refs, 8);
}

// The error plot's note (max, equioscillation points, extrema) is in words where the plot has room, and only
// the maximum where the full words would cover more than a third of a small plot (presentation mode: 3 lines
// and an ellipsis over 70% of it before). Inside the data area it keeps to two lines and half the plot's
// height; where every corner would cover the curve it goes under the legend at the right instead.
TEST(DesignerShot, TheErrorNoteKeepsToTheMaximumOnASmallPlot) {
  for (const bool pres : {false, true}) {
    SCOPED_TRACE(pres ? "presentation 2" : "normal");
    const Shot s = shot(pres ? "designer_note_pres" : "designer_note",
                        pres ? "--panel designer --presentation 2" : "--panel designer");
    ASSERT_EQ(s.status, 0) << s.err;
    const Value& marks = s.meta.at("ui_marks");
    ASSERT_NE(marks.find("note:error"), nullptr);
    const Value& n = marks.at("note:error");
    const Value& p = marks.at("plot:error");
    const double note_h = n.as_array()[3].as_number() - n.as_array()[1].as_number();
    const double plot_h = p.as_array()[3].as_number() - p.as_array()[1].as_number();
    const double font = s.meta.at("font_px").as_number();
    const bool outside = n.as_array()[0].as_number() >= p.as_array()[2].as_number();
    if (outside) {
      EXPECT_LE(note_h, 3.3 * font) << "more than three lines beside the plot";
    } else {
      EXPECT_LE(note_h, 2.3 * font) << "more than two lines";
      EXPECT_LE(note_h, 0.5 * plot_h);
    }
  }
}

// Projected (presentation 2 and 3 at 1280x800 and 1024x768) the small error plot has no corner its note can
// take without covering the curve (at 3× it covered a third of the plot's height across the middle before):
// no point of the error curve lies under the note, and the note stays within the plot's frame — under the
// legend at the right, or beside it below the plot (1024x768 at 2×).
TEST(DesignerShot, TheErrorNoteDoesNotCoverTheCurveWhenProjected) {
  const gelu::fit::Candidate c = gelu::fit::fit(gelu::app::model::default_designer_spec());
  for (const std::string size : {"1280x800", "1024x768"})
    for (const int pres : {2, 3}) {
      SCOPED_TRACE(size + ", presentation " + std::to_string(pres));
      const Shot s = shot("designer_note_cover_" + size + "_" + std::to_string(pres),
                          "--panel designer --presentation " + std::to_string(pres), size);
      ASSERT_EQ(s.status, 0) << s.err;
      const Value& n = s.meta.at("ui_marks").at("note:error");
      const double x0 = n.as_array()[0].as_number(), y0 = n.as_array()[1].as_number(),
                   x1 = n.as_array()[2].as_number(), y1 = n.as_array()[3].as_number();
      const Geom g(s.meta.at("plots").at("error"));
      int under = 0;
      for (double x = -4.2; x <= 4.2; x += 0.01) {
        const double px = g.px(x), py = g.py(c.error_at(x));
        if (px >= x0 && px <= x1 && py >= y0 && py <= y1) ++under;
      }
      EXPECT_EQ(under, 0) << "curve points under the note box " << x0 << "," << y0 << " – " << x1 << ","
                          << y1;
      // Whatever the note's place, it stays within the plot's frame.
      const Value& f = s.meta.at("plots").at("error").at("frame");
      EXPECT_GE(x0, f.at("left").as_number());
      EXPECT_LE(x1, f.at("right").as_number());
      EXPECT_LE(y1, f.at("bottom").as_number());
    }
}

std::string kept_state(const std::vector<std::pair<std::string, gelu::fit::Spec>>& kept, bool compared) {
  gelu::json::Array a;
  for (const auto& [id, spec] : kept) {
    gelu::json::Object o = gelu::app::candidate_json(gelu::fit::fit(spec)).as_object();
    o["id"] = id;
    o["compared"] = compared;
    a.emplace_back(std::move(o));
  }
  gelu::json::Object st;
  st["candidates"] = std::move(a);
  return gelu::json::write(gelu::json::Value(std::move(st)));
}

TEST(DesignerShot, TheParetoPlotShowsTheZooAndTheKeptCandidates) {
  gelu::fit::Spec a = gelu::app::model::default_designer_spec(), b = a;
  a.degree = 4;
  b.degree = 10;
  const Shot s = state_shot("designer", "designer_pareto", kept_state({{"fit_a", a}, {"fit_b", b}}, false));
  ASSERT_EQ(s.status, 0) << s.err;
  const Image img(s.png);
  const Geom g(s.meta.at("plots").at("pareto"));
  EXPECT_TRUE(g.log_y);
  int zoo = 0, kept = 0, current = 0;
  for (const Value& k : s.meta.at("marks").as_array()) {
    if (k.at("plot").as_string() != "pareto") continue;
    const std::string kind = k.at("kind").as_string();
    zoo += kind == "zoo";
    kept += kind == "kept";
    current += kind == "current";
    EXPECT_LT(img.nearest(g.px(k.at("x").as_number()), g.py(k.at("y").as_number()),
                          hex(k.at("color").as_string()), 1),
              60.0)
        << k.at("label").as_string();
    if (k.at("label").as_string() == "tanh_form") {
      EXPECT_EQ(k.at("x").as_number(), gelu::zoo::find("tanh_form")->cost.weighted());
      EXPECT_NEAR(k.at("y").as_number(), 4.73e-4, 1e-6);  // docs/precision.md
    }
  }
  EXPECT_GE(zoo, 16);
  EXPECT_EQ(kept, 2);
  EXPECT_EQ(current, 1);
}

// [SECTION] Sessions and the comparison

TEST(ComparisonShot, ACandidateInTheSessionIsAZooEntryOfTheApproximationsAndPrecisionPanels) {
  gelu::fit::Spec a = gelu::app::model::default_designer_spec();
  a.degree = 8;
  const fs::path session = test_dir() / "cmp_session.json";
  const Shot d = state_shot("designer", "cmp_designer", kept_state({{"fit_mine", a}}, true),
                            "--session-out '" + session.string() + "'");
  ASSERT_EQ(d.status, 0) << d.err;
  const Value saved = gelu::json::parse(read_text(session));
  // Saved: the candidate (spec, coefficients) and, in the panels that never drew, the comparison's entry.
  const Value& cand = saved.at("panels").at("designer").at("candidates").as_array()[0];
  EXPECT_EQ(cand.at("id").as_string(), "fit_mine");
  EXPECT_TRUE(cand.at("compared").as_bool());
  EXPECT_EQ(cand.at("spec").at("degree").as_number(), 8);
  bool in_precision = false, in_approx = false;
  for (const Value& id : saved.at("panels").at("precision").at("entries").as_array())
    in_precision = in_precision || id.as_string() == "fit_mine";
  for (const Value& id : saved.at("panels").at("approx").at("compare").as_array())
    in_approx = in_approx || id.as_string() == "fit_mine";
  EXPECT_TRUE(in_precision);
  EXPECT_TRUE(in_approx);

  // Restored: the Precision panel sweeps the candidate as a zoo entry of its own ...
  const Shot p = shot("cmp_precision", "--session '" + session.string() + "' --panel precision");
  ASSERT_EQ(p.status, 0) << p.err;
  const gelu::fit::Candidate c = gelu::fit::fit(a);
  const Value* cell = find_cell(p.meta, "fit_mine", "bf16");
  ASSERT_NE(cell, nullptr);
  auto cp = std::make_shared<const gelu::fit::Candidate>(c);
  P::SweepSpec spec;
  spec.storage = Format(FormatId::BF16);
  const P::Sweep sw = P::sweep(gelu::app::candidate_entry(cp, "fit_mine"),
                               gelu::analysis::spec(*gelu::find_activation("gelu")), spec);
  EXPECT_EQ(cell->at("verdict").as_string(), P::verdict(sw).text);
  // ... and the Approximations panel draws it beside the forms.
  const Shot ap = shot("cmp_approx", "--session '" + session.string() + "' --panel approx");
  ASSERT_EQ(ap.status, 0) << ap.err;
  const auto& compared = ap.meta.at("compared").as_array();
  ASSERT_EQ(compared.size(), 1u);
  EXPECT_TRUE(compared[0].at("in_zoo").as_bool());
  double worst = 0;
  for (int i = 0; i <= 2000; ++i) {
    const double x = -6 + 12.0 * i / 2000;
    worst = std::max(worst, std::fabs(c.eval(x) - gelu::find_activation("gelu")->eval(x)));
  }
  EXPECT_NEAR(compared[0].at("max_error").as_number(), worst, 1e-12);
  const Image img(ap.png);
  const Geom f(ap.meta.at("plots").at("functions"));
  // At x = 2.5, inside the plot's y range (the session's [−0.5, 3]; at x = 5 the curve is above the plot).
  ASSERT_LT(c.eval(2.5), f.y_max);
  EXPECT_LT(img.nearest(f.px(2.5), f.py(c.eval(2.5)), hex(compared[0].at("color").as_string()), 2), 60.0);
}

// [SECTION] Lesson 7

std::string lesson7() {
  return (fs::path(GELU_SOURCE_DIR) / "assets/lessons/7_gelu_in_low_precision.json").string();
}

TEST(Lesson7Shot, ItsVerdictsAreComputedNowAndFollowTheFormat) {
  const Shot s = shot("lesson7_1", "--lesson '" + lesson7() + "' --step 1");
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(s.meta.at("lesson").at("steps").as_number(), 7);
  const std::string text = s.meta.at("lesson").at("text").as_string();
  // The verdict is over the x range the step's plot shows.
  const Value lesson_doc = gelu::json::parse(read_text(lesson7()));
  const Value& x = lesson_doc.at("steps").as_array()[0].at("state").at("x");
  const double lo = x.as_array()[0].as_number(), hi = x.as_array()[1].as_number();
  const std::string bf16 =
      P::verdict(core_sweep("tanh_form", FormatId::BF16, FormatId::F32), {}, lo, hi).text;
  EXPECT_NE(text.find(bf16), std::string::npos) << text;
  EXPECT_EQ(text.find("{"), std::string::npos) << text;
  EXPECT_EQ(text.find("…"), std::string::npos) << text;
  // The same step with the format changed: the text follows (computed, not typed in).
  gelu::json::Value doc = gelu::json::parse(read_text(lesson7()));
  gelu::json::Value& state = doc.as_object()["steps"].as_array()[0].as_object()["state"];
  ASSERT_EQ(state.at("formats").as_array().size(), 1u);
  ASSERT_EQ(state.at("formats").as_array()[0].as_string(), "bf16");
  state.as_object()["formats"] = gelu::json::Array{gelu::json::Value("f16")};
  const std::string lesson = gelu::json::write(doc, 2);
  const fs::path f16 = file("lesson7_f16.json", lesson);
  const Shot t = shot("lesson7_1_f16", "--lesson '" + f16.string() + "' --step 1");
  ASSERT_EQ(t.status, 0) << t.err;
  const std::string text16 = t.meta.at("lesson").at("text").as_string();
  const std::string f16v = P::verdict(core_sweep("tanh_form", FormatId::F16, FormatId::F32), {}, lo, hi).text;
  EXPECT_NE(f16v, bf16);
  EXPECT_NE(text16.find(f16v), std::string::npos) << text16;
  EXPECT_EQ(text16.find(bf16), std::string::npos);
  // Every step fills every quoted text.
  for (int step = 2; step <= 7; ++step) {
    const Shot k = shot("lesson7_" + std::to_string(step),
                        "--lesson '" + lesson7() + "' --step " + std::to_string(step));
    ASSERT_EQ(k.status, 0) << k.err;
    const std::string tx = k.meta.at("lesson").at("text").as_string();
    EXPECT_EQ(tx.find("…"), std::string::npos) << step << ": " << tx;
    EXPECT_EQ(tx.find("{"), std::string::npos) << step << ": " << tx;
  }
}

// [SECTION] Rounding-point chains

TEST(Lesson8Shot, Step3ShowsTheWholeSurvivalTableBesideTheLobeOnA1024x768ProjectorAt2x) {
  const std::string lesson = std::string(GELU_SOURCE_DIR) + "/assets/lessons/8_gelu_in_four_bits.json";
  const Shot s = shot("lesson8_3", "--lesson '" + lesson + "' --step 3 --presentation 2", "1024x768");
  ASSERT_EQ(s.status, 0) << s.err;
  // Nothing of the panel scrolls: the table's own rows count (a table cut under its header did once).
  EXPECT_EQ(s.meta.at("panel_overflow_px").as_number(), 0);
  EXPECT_TRUE(s.meta.at("slide_problems").as_array().empty());
  const auto& table = s.meta.at("ui_marks").at("table:survival").as_array();
  const auto& bar = s.meta.at("ui_marks").at("lesson_bar").as_array();
  EXPECT_LE(table[3].as_number(), bar[1].as_number());  // above the lesson bar
  const Value& plot = s.meta.at("plots").at("block").at("frame");
  EXPECT_LE(plot.at("right").as_number(), table[0].as_number());  // beside the lobe, not under it
  EXPECT_LE(plot.at("bottom").as_number(), bar[1].as_number());
  // Every block format's row, with the shares the model computes.
  const gelu::app::SurvivalView v = gelu::app::survival_view();
  const auto& rows = s.meta.at("survival").as_array();
  ASSERT_EQ(rows.size(), v.rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at("format").as_string(), v.rows[i].format);
    EXPECT_EQ(rows[i].at("gelu").as_number(), v.rows[i].gelu);
  }
}

/// `gelulab gui --headless ARGS` in dir; the exit status (stderr into dir/name.err).
int gui(const fs::path& dir, const std::string& name, const std::string& args) {
  const std::string cmd = std::string("cd '") + dir.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY '" +
                          GELULAB_EXE + "' gui --headless --size 1600x1000 " + args + " 2> '" + name +
                          ".err'";
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(PrecisionChains, ChoosingTheChainsInThePanelShowsThemSideBySideAndTheSessionKeepsThem) {
  const fs::path d = test_dir() / "chains";
  fs::create_directories(d);
  std::ofstream(d / "state.json") << R"({"block_view": true})";
  // The user picks f16 as the first chain's storage and f32 as the second's compute format, then ticks the
  // backward pass.
  std::ofstream(d / "script.txt")
      << "panel precision\nwait 3\n"
         "click combo:chain_a_store\nwait 2\nclick option:chain_a_store:f16\nwait 2\n"
         "click combo:chain_b_compute\nwait 2\nclick option:chain_b_compute:f32\n"
         "wait 2\nclick check:chain_backward\nwait 3\n";
  ASSERT_EQ(gui(d, "run1",
                "--frames 40 --panel precision --state state.json --session s.json --script script.txt "
                "--report r1.json"),
            0)
      << read_text(d / "run1.err");
  const Value r1 = gelu::json::parse(read_text(d / "r1.json"));
  const Value& c = r1.at("panels").at("precision").at("chains");
  const auto& sides = c.at("chains").as_array();
  ASSERT_EQ(sides.size(), 2u);
  EXPECT_EQ(sides[0].at("chain").as_string(), "f32:f32:f16");
  EXPECT_EQ(sides[1].at("chain").as_string(), "bf16:f32:bf16");
  EXPECT_EQ(c.at("order").as_number(), 1);
  // What the table shows is GELU′ through those chains on the same inputs, computed here.
  const std::vector<double> x = gelu::stochastic::sample_normal(0, 1, 8192, 1);
  std::vector<double> exact(x.size()), a(x.size()), b(x.size());
  const Format f32(FormatId::F32), f16(FormatId::F16), bf16(FormatId::BF16);
  const auto d1 = [](double t) {
    return 0.5 * std::erfc(-t / std::sqrt(2.0)) + t * std::exp(-t * t / 2) / std::sqrt(2 * M_PI);
  };
  std::size_t differ = 0;
  double max_a = 0, max_b = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    exact[i] = d1(x[i]);
    a[i] = f16.round(f32.round(d1(f32.round(x[i]))));
    b[i] = bf16.round(f32.round(d1(bf16.round(x[i]))));
    differ += a[i] != b[i];
    max_a = std::max(max_a, std::fabs(a[i] - exact[i]));
    max_b = std::max(max_b, std::fabs(b[i] - exact[i]));
  }
  EXPECT_EQ(c.at("n").as_number(), 8192);
  EXPECT_NEAR(c.at("differ").as_number(), static_cast<double>(differ), 2);  // erfc vs the registry: ties
  EXPECT_NEAR(sides[0].at("max_abs").as_number(), max_a, 1e-6);
  EXPECT_NEAR(sides[1].at("max_abs").as_number(), max_b, 1e-4);
  // The recompute from the pre-activation saved in the storage format: f32 in, f16 saved differs wherever
  // GELU′ of f16(x) stores other bits than GELU′ of f32(x); bf16 in, bf16 saved is the forward pass itself.
  std::size_t recompute_differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    recompute_differ += f16.round(f32.round(d1(f32.round(f16.round(x[i]))))) != a[i];
  EXPECT_GT(recompute_differ, 0u);
  EXPECT_FALSE(sides[0].at("recompute_identical").as_bool());
  EXPECT_TRUE(sides[1].at("recompute_identical").as_bool());
  EXPECT_EQ(c.at("differences").as_array().size(), 10u);
  // The session keeps the chains: the next start shows them without a script.
  const Value s = gelu::json::parse(read_text(d / "s.json"));
  const Value& ps = s.at("panels").at("precision");
  EXPECT_EQ(ps.at("chain_a").as_string(), "f32:f32:f16");
  EXPECT_EQ(ps.at("chain_b").as_string(), "bf16:f32:bf16");
  EXPECT_TRUE(ps.at("chain_backward").as_bool());
  EXPECT_EQ(ps.at("block_table").as_string(), "chains");  // choosing a chain shows the chains
  ASSERT_EQ(gui(d, "run2", "--frames 5 --session s.json --report r2.json"), 0) << read_text(d / "run2.err");
  const Value r2 = gelu::json::parse(read_text(d / "r2.json"));
  const Value& c2 = r2.at("panels").at("precision").at("chains");
  EXPECT_EQ(c2.at("chains").as_array()[0].at("chain").as_string(), "f32:f32:f16");
  EXPECT_EQ(c2.at("differ").as_number(), c.at("differ").as_number());
  // A chain the panel does not offer is refused with its name.
  std::ofstream(d / "bad.json") << R"({"block_view": true, "chain_a": "f32:int8:bf16"})";
  EXPECT_NE(gui(d, "bad", "--frames 2 --panel precision --state bad.json"), 0);
  EXPECT_NE(read_text(d / "bad.err").find("'chain_a' must be a chain ACC:COMPUTE:STORE"), std::string::npos)
      << read_text(d / "bad.err");
}

// [SECTION] Presentation mode

TEST(LabShots, BothPanelsLayOutInPresentationMode) {
  for (const std::string panel : {"precision", "designer"}) {
    SCOPED_TRACE(panel);
    const Shot s = shot(panel + "_pres", "--panel " + panel + " --presentation 2");
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_TRUE(s.meta.at("presentation").at("on").as_bool());
    EXPECT_GE(s.meta.at("font_px").as_number(), 30);
    // Every plot has room (at least 8 × 5 em) and lies inside the picture; no two plots overlap.
    std::vector<Geom> plots;
    for (const auto& [id, v] : s.meta.at("plots").as_object()) {
      const Geom g(v);
      EXPECT_GT(g.right - g.left, 100) << id;
      EXPECT_GT(g.bottom - g.top, 60) << id;
      EXPECT_GE(g.left, 0) << id;
      EXPECT_LE(g.right, 1280) << id;
      EXPECT_LE(g.bottom, 800) << id;
      plots.push_back(g);
    }
    for (std::size_t i = 0; i < plots.size(); ++i)
      for (std::size_t j = i + 1; j < plots.size(); ++j) {
        const bool apart = plots[i].right <= plots[j].left || plots[j].right <= plots[i].left ||
                           plots[i].bottom <= plots[j].top || plots[j].bottom <= plots[i].top;
        EXPECT_TRUE(apart) << i << " " << j;
      }
  }
}

}  // namespace

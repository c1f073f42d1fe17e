// Fitted minimax errors against an independent computation: tests/ref/minimax/minimax.csv holds, per case,
// the optimum of a linear programme on a dense grid (scipy's HiGHS; rational: bisection on the level with a
// feasibility LP), made by tests/ref/minimax/make_minimax.py with mpmath targets. And the equioscillation
// property: d + 2 alternating extrema of equal magnitude for a polynomial of d + 1 coefficients.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/fit.hpp"
#include "gelu/numio.hpp"

namespace {

using namespace gelu::fit;

struct Row {
  std::string id;
  Spec spec;
  double lp = 0;
  std::size_t grid = 0;
};

std::vector<Row> rows() {
  std::ifstream in(std::string(GELU_REF_DIR) + "/minimax/minimax.csv");
  std::vector<Row> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("id,", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    if (f.size() != 12) continue;
    Row r;
    r.id = f[0];
    r.spec.target = *parse_target(f[1]);
    r.spec.form = *parse_form(f[2]);
    r.spec.degree = std::stoi(f[3]);
    r.spec.denominator_degree = std::stoi(f[4]);
    r.spec.pieces = std::stoi(f[5]);
    r.spec.a = *gelu::parse_f64(f[6]);
    r.spec.b = *gelu::parse_f64(f[7]);
    r.spec.weight = *parse_weight(f[8]);
    r.spec.format = gelu::Format::parse(f[9])->id();
    r.grid = std::stoul(f[10]);
    r.lp = *gelu::parse_f64(f[11]);
    out.push_back(r);
  }
  return out;
}

bool linear(const Spec& s) {
  return s.form != Form::Rational;
}
/// The half-x forms of a target other than GELU on a range across 0 are not Haar systems (|x|^k is even, the
/// target minus 0.5·x is not): the minimax exists but need not equioscillate d + 2 times.
bool haar(const Spec& s) {
  if (s.form == Form::Rational || s.form == Form::Piecewise) return false;
  if ((s.form == Form::HalfXPolyAbs || s.form == Form::Even) && s.target != Target::Gelu && s.a < 0 &&
      s.b > 0)
    return false;
  return true;
}

// A discrete optimum is a lower bound of the continuous one, below it by ~(π d h/(B − A))²/2 relative for a
// grid of step h (≈ 1e-6 at degree 12 on 20001 points); the ulp weight's jumps are between grid points.
constexpr double kLinearTolerance = 2e-5;
// Rational: the LP's bisection is an upper bound of its 4001-point discrete optimum (HiGHS's feasibility
// tolerance 1e-10 absolute), itself a lower bound of the continuous one.
constexpr double kRationalTolerance = 1e-4;

TEST(Minimax, AgreesWithAnIndependentLinearProgramme) {
  const std::vector<Row> table = rows();
  ASSERT_GE(table.size(), 15u) << "tests/ref/minimax/minimax.csv is missing or short";
  std::printf("%-20s %-14s %-14s %-12s %s\n", "case", "LP", "designer", "rel. diff", "fit ms");
  for (const Row& r : table) {
    SCOPED_TRACE(r.id);
    Candidate c;
    ASSERT_NO_THROW(c = fit(r.spec)) << r.id;
    // The fit's own best error: its coefficients as doubles, before any rounding to the ulp weight's format.
    const double ours = c.unrounded_max_error;
    const double diff = (ours - r.lp) / r.lp;
    std::printf("%-20s %-14.8g %-14.8g %-+12.2e %.1f\n", r.id.c_str(), r.lp, ours, diff, c.fit_seconds * 1e3);
    if (linear(r.spec)) {
      EXPECT_GE(ours, r.lp * (1 - 1e-9)) << "a continuous maximum below the discrete optimum";
      EXPECT_LE(ours, r.lp * (1 + kLinearTolerance));
      EXPECT_LE(c.level, ours * (1 + 1e-12)) << "the level is a lower bound";
    } else {
      EXPECT_NEAR(ours, r.lp, kRationalTolerance * r.lp);
    }
  }
}

TEST(Minimax, EquioscillatesDPlus2TimesForHaarForms) {
  for (const Row& r : rows()) {
    if (!haar(r.spec)) continue;
    SCOPED_TRACE(r.id);
    const Candidate c = fit(r.spec);
    const std::size_t want = static_cast<std::size_t>(r.spec.degree) + 2;
    ASSERT_EQ(c.reference.size(), want);
    double lo = INFINITY, hi = 0;
    for (std::size_t i = 0; i < c.reference.size(); ++i) {
      const double e = c.reference[i].error;
      lo = std::min(lo, std::fabs(e));
      hi = std::max(hi, std::fabs(e));
      if (i > 0) {
        EXPECT_LT(c.reference[i - 1].x, c.reference[i].x);
        EXPECT_NE(std::signbit(c.reference[i - 1].error), std::signbit(e)) << "no alternation at " << i;
      }
    }
    // Equal magnitude: within 1e-6 relative (the exchange stops at 1e-9 in long double; the reference errors
    // here are of the coefficients rounded to double).
    EXPECT_LE(hi / lo - 1, 1e-6) << "extrema from " << lo << " to " << hi;
    // And they are the largest errors: the sampled maximum is the level.
    EXPECT_LE(c.unrounded_max_error, hi * (1 + 1e-6));
  }
}

TEST(Minimax, PiecewiseEquioscillatesPerPiece) {
  Spec s;
  s.form = Form::Piecewise;
  s.degree = 3;
  s.pieces = 4;
  s.a = -4;
  s.b = 4;
  const Candidate c = fit(s);
  ASSERT_EQ(c.reference.size(), 4u * 5u);
  for (std::size_t j = 0; j < 4; ++j) {
    double lo = INFINITY, hi = 0;
    for (std::size_t i = 0; i < 5; ++i) {
      const ErrorPoint& p = c.reference[j * 5 + i];
      EXPECT_GE(p.x, c.breakpoints[j]);
      EXPECT_LE(p.x, c.breakpoints[j + 1]);
      lo = std::min(lo, std::fabs(p.error));
      hi = std::max(hi, std::fabs(p.error));
      if (i > 0) {
        EXPECT_NE(std::signbit(c.reference[j * 5 + i - 1].error), std::signbit(p.error));
      }
    }
    EXPECT_LE(hi / lo - 1, 1e-6) << "piece " << j;
  }
}

}  // namespace

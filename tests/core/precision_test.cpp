// The precision lab: exhaustive sweep semantics (inputs, n, mismatch, ULP as a count of representable
// values), the facts (where results vanish and intermediates overflow, computed — never typed in — and
// checked against independent computations), verdicts, the int8 view, summary tables, pair checks,
// cancellation.
#include "gelu/precision.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "formulas.hpp"

namespace {

using gelu::Format;
using gelu::FormatId;
namespace P = gelu::precision;
namespace zoo = gelu::zoo;

const Format kF64(FormatId::F64), kF32(FormatId::F32), kF16(FormatId::F16), kBF16(FormatId::BF16);

gelu::analysis::FunctionSpec gelu_ref(int order = 0) {
  return gelu::analysis::spec(*gelu::find_activation("gelu"), order);
}
zoo::Entry exact() {
  return zoo::from_registry(*gelu::find_activation("gelu"));
}

TEST(Sweep, InputsAreEveryValueOfTheFormatInTheRange) {
  const std::vector<double> x = P::inputs(kBF16, 1.0, 2.0);
  ASSERT_EQ(x.size(), 129u);  // 1, 1 + 2^-7, …, 2
  EXPECT_EQ(x.front(), 1.0);
  EXPECT_EQ(x.back(), 2.0);
  for (std::size_t i = 1; i < x.size(); ++i) EXPECT_EQ(kBF16.ulp_distance(x[i - 1], x[i]), 1u);
  EXPECT_EQ(P::inputs(kBF16, -INFINITY, INFINITY).size(), kBF16.count_finite());
  EXPECT_EQ(P::inputs(Format(FormatId::E4M3), -INFINITY, INFINITY).size(), 254u);  // ±0 and 2·126
  EXPECT_EQ(P::inputs(Format(FormatId::Int8, gelu::Quantization::symmetric(4)), -INFINITY, INFINITY).size(),
            256u);
  EXPECT_THROW(P::inputs(kF32, -1, 1), std::invalid_argument);  // 2^32 values: give samples
  const std::vector<double> s = P::inputs(kBF16, -1, 1, 5);
  EXPECT_EQ(s, (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
}

/// Exact GELU moved by a known number of bf16 values: 0 for x < 0, 1 on [0, 1), 3 from 1 on.
zoo::Entry shifted() {
  zoo::Entry e;
  e.id = "test_shifted";
  e.f = [](double x, const Format&) {
    const double r = gelu::correctly_rounded(*gelu::find_activation("gelu"), kBF16, x);
    const int k = std::signbit(x) ? 0 : (x < 1 ? 1 : 3);
    return kBF16.from_ordinal(kBF16.ordinal(r) + k);
  };
  return e;
}

TEST(Sweep, UlpIsTheNumberOfRepresentableValuesBetweenTheRoundedResults) {
  const P::Sweep s = P::sweep(shifted(), gelu_ref(), {kBF16, kF32, 0, -2.0, 2.0});
  const gelu::analysis::ErrorReport& r = s.errors;
  const std::size_t n = P::inputs(kBF16, -2, 2).size();
  ASSERT_EQ(r.x.size(), n);
  std::size_t positive = 0, ones = 0, threes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double want = std::signbit(r.x[i]) ? 0 : (r.x[i] < 1 ? 1 : 3);
    EXPECT_EQ(r.ulp[i], want) << r.x[i];
    EXPECT_EQ(r.abs[i], std::fabs(r.value[i] - r.ref_value[i])) << r.x[i];  // against the double reference
    positive += !std::signbit(r.x[i]);
    ones += want == 1;
    threes += want == 3;
  }
  for (const gelu::analysis::ErrorStats* st : {&r.abs_stats, &r.rel_stats, &r.ulp_stats}) {
    EXPECT_EQ(st->n, n);
    EXPECT_EQ(st->mismatch, positive);  // every input from +0 on differs after rounding
  }
  EXPECT_EQ(r.ulp_stats.max, 3.0);
  EXPECT_EQ(r.ulp_stats.x_at_max, 1.0);  // the first input with the largest error
  EXPECT_DOUBLE_EQ(r.ulp_stats.mean, static_cast<double>(ones + 3 * threes) / static_cast<double>(n));
  EXPECT_EQ(s.overflows, 0u);
}

TEST(Sweep, TheCorrectlyRoundedFunctionHasNoMismatch) {
  for (FormatId id : {FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2}) {
    const Format f(id);
    const P::Sweep s = P::sweep(exact(), gelu_ref(), {f, kF32});
    EXPECT_EQ(s.errors.ulp_stats.n, f.count_finite()) << f.name();
    EXPECT_EQ(s.errors.ulp_stats.mismatch, 0u) << f.name();
    EXPECT_EQ(s.errors.ulp_stats.max, 0.0) << f.name();
  }
  // f', order 1, against the reference's f'.
  const P::Sweep d = P::sweep(exact(), gelu_ref(), {kBF16, kF32, 1});
  EXPECT_EQ(d.errors.ulp_stats.mismatch, 0u);
  EXPECT_EQ(d.order, 1);
}

TEST(Sweep, AsComputedErrorsShowInTheStorageFormat) {
  // The tanh form's 4.7e-4 is far below a bf16 ULP near x = 2.7 (2^-6: at most one value off, where the exact
  // value lies near a rounding boundary) but many bf16 ULPs on the negative lobe.
  const P::Sweep s = P::sweep(*zoo::find("tanh_form"), gelu_ref(), {kBF16, kF32, 0, -20.0, 20.0});
  const gelu::analysis::ErrorReport& r = s.errors;
  double near_27 = 0, lobe = 0;
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    if (r.x[i] > 2.6 && r.x[i] < 2.8) near_27 = std::max(near_27, r.ulp[i]);
    if (r.x[i] > -8 && r.x[i] < -4) lobe = std::max(lobe, r.ulp[i]);
  }
  EXPECT_LE(near_27, 1.0);
  EXPECT_GT(lobe, 100.0);
  // Derivatives as computed too.
  const P::Sweep d = P::sweep(*zoo::find("tanh_form"), gelu_ref(), {kBF16, kF32, 1, -4.0, 4.0});
  EXPECT_GT(d.errors.ulp_stats.mismatch, 0u);
  EXPECT_THROW(P::sweep(*zoo::find("f16_lut"), gelu_ref(), {kBF16, kF32, 1}), std::invalid_argument);
}

TEST(Sweep, ProgressAndCancel) {
  std::vector<double> seen;
  const P::Sweep s = P::sweep(*zoo::find("tanh_form"), gelu_ref(), {kBF16, kF32}, [&](double f) {
    seen.push_back(f);
    return true;
  });
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 1.0);
  EXPECT_FALSE(s.cancelled);
  int calls = 0;
  const P::Sweep c =
      P::sweep(*zoo::find("tanh_form"), gelu_ref(), {kBF16, kF32}, [&](double) { return ++calls < 3; });
  EXPECT_TRUE(c.cancelled);
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(c.errors.x.empty());
}

// The browser's Precision panel computes a sweep a chunk at a time between frames (sweep_job, sweep_some):
// stopped after every chunk and resumed, the sweep is sweep()'s bit for bit, and a finished job stays done.
TEST(Sweep, AJobResumedChunkByChunkIsTheWholeSweep) {
  for (const char* id : {"tanh_form", "erf_naive", "pwl32"}) {
    const zoo::Entry e = *zoo::find(id);
    const P::Sweep whole = P::sweep(e, gelu_ref(), {kBF16, kF32});
    P::SweepJob job = P::sweep_job(e, gelu_ref(), {kBF16, kF32});
    int calls = 0;
    while (!P::sweep_some(job, [&](double) { return false; })) ++calls;
    EXPECT_EQ(calls, static_cast<int>((whole.errors.x.size() + 4095) / 4096) - 1) << id;
    EXPECT_TRUE(job.done);
    EXPECT_TRUE(P::sweep_some(job, [](double) { return false; }));
    const P::Sweep& part = job.sweep;
    ASSERT_EQ(part.errors.x.size(), whole.errors.x.size()) << id;
    EXPECT_EQ(part.errors.x, whole.errors.x) << id;
    EXPECT_EQ(part.errors.value, whole.errors.value) << id;
    EXPECT_EQ(part.errors.ref_value, whole.errors.ref_value) << id;
    EXPECT_EQ(part.errors.ulp, whole.errors.ulp) << id;
    EXPECT_EQ(part.errors.ulp_stats.max, whole.errors.ulp_stats.max) << id;
    EXPECT_EQ(part.errors.ulp_stats.mismatch, whole.errors.ulp_stats.mismatch) << id;
    EXPECT_EQ(part.overflowed, whole.overflowed) << id;
    EXPECT_EQ(P::differing(part), P::differing(whole)) << id;
  }
  EXPECT_THROW(P::sweep_job(exact(), gelu::analysis::FunctionSpec{}, {kBF16, kF32}), std::invalid_argument);
}

TEST(Facts, ExactGeluIsNonZeroInBf16DownToAbout13p5) {
  const P::Tails t = P::tails(exact(), kBF16, kF32);
  ASSERT_TRUE(t.lowest_nonzero && t.first_zero);
  EXPECT_NEAR(*t.lowest_nonzero, -13.5, 0.1);
  EXPECT_EQ(kBF16.next_down(*t.lowest_nonzero), *t.first_zero);
  // Independently: GELU there is above half the smallest bf16 subnormal, and below it one value lower.
  const double half_min = kBF16.min_positive() / 2;
  EXPECT_GT(std::fabs(gelu::formulas::gelu(*t.lowest_nonzero)), half_min);
  EXPECT_LE(std::fabs(gelu::formulas::gelu(*t.first_zero)), half_min);
  EXPECT_FALSE(t.overflow_above);  // a registry function has no intermediates to overflow
}

TEST(Facts, NaiveErfFormInF32IsZeroFromAbout5p54) {
  const P::Tails naive = P::tails(*zoo::find("erf_naive"), kF32, kF32);
  ASSERT_TRUE(naive.first_zero && naive.lowest_nonzero);
  EXPECT_NEAR(*naive.first_zero, -5.54, 0.01);
  EXPECT_EQ(kF32.next_up(*naive.first_zero), *naive.lowest_nonzero);
  // Independently: erf(x/√2) in float rounds to -1 where 1 + erf = 2Φ(x) is below half a float ULP of 1.
  const auto cdf2 = [](double x) { return 2 * gelu::formulas::normal_cdf(x); };
  EXPECT_LT(cdf2(*naive.first_zero), 0x1p-24 * 1.01);
  EXPECT_GT(cdf2(*naive.lowest_nonzero), 0x1p-25 * 0.99);
  // The erfc form goes on to where float itself underflows.
  const P::Tails careful = P::tails(*zoo::find("erfc_form"), kF32, kF32);
  ASSERT_TRUE(careful.lowest_nonzero);
  EXPECT_LT(*careful.lowest_nonzero, -14.0);
}

TEST(Facts, Fp16CubeOverflowsBeyond40p3) {
  const P::Tails t = P::tails(*zoo::find("tanh_form"), kF16, kF16);
  ASSERT_TRUE(t.overflow_above && t.overflow_below);
  // Independently: the first f16 value whose x·x·x (each product rounded to f16) is beyond 65504.
  double first = 0;
  for (double v = 1; v < 100; v = kF16.next_up(v))
    if (std::isinf(kF16.round(kF16.round(v * v) * v))) {
      first = v;
      break;
    }
  EXPECT_EQ(*t.overflow_above, first);
  EXPECT_EQ(*t.overflow_below, -first);
  EXPECT_NEAR(first, 40.3, 0.05);
  // In f32 (bisection over the 2^32 values) x³ overflows from the cube root of FLT_MAX.
  const P::Tails f = P::tails(*zoo::find("tanh_form"), kF32, kF32);
  ASSERT_TRUE(f.overflow_above);
  EXPECT_NEAR(*f.overflow_above, std::cbrt(3.4028234663852886e38), 1e-6 * 7e12);
  // Computing in f32 from f16 inputs, nothing overflows.
  EXPECT_FALSE(P::tails(*zoo::find("tanh_form"), kF16, kF32).overflow_above);
}

TEST(Verdict, IsComputedFromTheSweep) {
  const P::Sweep s = P::sweep(*zoo::find("tanh_form"), gelu_ref(), {kBF16, kF32});
  const P::Verdict v = P::verdict(s);
  ASSERT_TRUE(v.identical_from && v.identical_to);
  EXPECT_GT(*v.identical_from, 2.0);
  EXPECT_LT(*v.identical_from, 3.0);
  EXPECT_LT(*v.identical_to, -13.0);
  EXPECT_EQ(v.mismatch, s.errors.ulp_stats.mismatch);
  EXPECT_EQ(v.text.rfind("identical to exact in bf16 for x ≥ ", 0), 0u) << v.text;
  EXPECT_NE(v.text.find(" ULP on ["), std::string::npos) << v.text;
  EXPECT_NE(v.text.find("% of 65280 inputs differ"), std::string::npos) << v.text;
  // Every input from identical_from on is identical, and the one before it is not.
  for (std::size_t i = 0; i < s.errors.x.size(); ++i) {
    if (s.errors.x[i] >= *v.identical_from) {
      EXPECT_EQ(s.errors.ulp[i], 0.0) << s.errors.x[i];
    }
  }
  EXPECT_GT(s.errors.ulp[static_cast<std::size_t>(
                std::find(s.errors.x.begin(), s.errors.x.end(), v.differ_hi) - s.errors.x.begin())],
            0.0);
  // erfc_form computed in f32 is GELU rounded once from its f32 result: at the 128 bf16 subnormal ties of x/2
  // (tiny x, where the exact value lies above x/2) it rounds to even, so it is not identical there.
  const P::Verdict same = P::verdict(P::sweep(*zoo::find("erfc_form"), gelu_ref(), {kBF16, kF32}));
  EXPECT_EQ(same.mismatch, 128u) << same.text;
  EXPECT_TRUE(same.differ_lo < 0 && same.differ_hi > -1e-37) << same.text;
}

TEST(Int8View, CodesOfTheNegativeLobe) {
  // Symmetric over ±8: scale 8/127, GELU's minimum -0.16997 rounds to code -3: three codes for the lobe.
  const P::Int8View v = P::int8_view(exact(), gelu::Quantization::symmetric(8), kF32);
  EXPECT_NEAR(v.lobe_min, -0.16997, 1e-5);
  EXPECT_NEAR(v.lobe_min_x, -0.75179, 1e-5);
  EXPECT_EQ(v.lobe_codes, 3);
  EXPECT_LE(v.lobe_codes_reached, 3);
  EXPECT_GE(v.lobe_codes_reached, 1);
  EXPECT_EQ(v.ulp.mismatch, 0u);  // the correctly rounded function
  EXPECT_LE(v.abs.max, 8.0 / 127 / 2 * (1 + 1e-12));
  EXPECT_EQ(v.abs.n, 256u);
  // A finer scale gives the lobe more codes; round(-0.16997·32) = -5.
  EXPECT_EQ(P::int8_view(exact(), gelu::Quantization{1.0 / 32, 0}, kF32).lobe_codes, 5);
  // An approximation's error shows as codes.
  const P::Int8View h = P::int8_view(*zoo::find("hgelu"), gelu::Quantization{1.0 / 64, 0}, kF32);
  EXPECT_GT(h.ulp.max, 1.0);
  EXPECT_GT(h.lobe_abs.max, 0.0);
}

TEST(Summary, CsvMarkdownAndText) {
  std::vector<P::SummaryRow> rows;
  for (const char* id : {"tanh_form", "f16_lut"}) {
    const zoo::Entry e = *zoo::find(id);
    rows.push_back(P::summary_row(P::sweep(e, gelu_ref(), {kBF16, kF32}), e, "gelu"));
  }
  const std::string csv = P::summary_csv(rows);
  const std::string header =
      "fn,vs,format,compute,order,n,mismatch,mismatch_pct,max_abs,mean_abs,max_rel,mean_rel,max_ulp,mean_ulp,"
      "x_at_max_ulp,cost,cost_text\n";
  EXPECT_EQ(csv.rfind(header, 0), 0u) << csv;
  EXPECT_NE(csv.find("\ntanh_form,gelu,bf16,f32,0,65280,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nf16_lut,gelu,bf16,,0,65280,"), std::string::npos) << csv;  // ignores compute
  EXPECT_NE(csv.find(",\"2 cmp, 128 KiB table\"\n"), std::string::npos) << csv;    // quoted: has a comma
  const std::string md = P::summary_markdown(rows);
  EXPECT_EQ(md.rfind("| fn | vs | format |", 0), 0u) << md;
  EXPECT_NE(md.find("\n|---|---|---|---|--:|"), std::string::npos) << md;
  EXPECT_NE(md.find("| tanh_form | gelu | bf16 | f32 | 0 | 65280 |"), std::string::npos) << md;
  const std::string text = P::summary_text(rows);
  EXPECT_EQ(text.rfind("fn ", 0), 0u) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
}

TEST(PairCheck, HistogramWorstAndMean) {
  P::PairCheck c(exact(), kBF16);
  const double x0 = 1.0, want = c.expected(x0);
  EXPECT_EQ(want, kBF16.round(gelu::formulas::gelu(1.0)));
  const auto off = [&](int k) { return kBF16.from_ordinal(kBF16.ordinal(want) + k); };
  // Errors 0, 0, 1, 2, 3, 5, 9, 9 at rows 1..8.
  const int ulps[] = {0, 0, 1, 2, 3, 5, 9, 9};
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(c.add(i + 1, x0, off(ulps[i])), static_cast<std::uint64_t>(ulps[i]));
  const P::PairCheckResult r = c.result();
  EXPECT_EQ(r.n, 8u);
  EXPECT_EQ(r.mismatch, 6u);
  EXPECT_EQ(r.max_ulp, 9u);
  EXPECT_EQ(r.x_at_max, 1.0);
  EXPECT_DOUBLE_EQ(r.mean_ulp, 29.0 / 8);
  // Buckets 0, 1, 2, 3-4, 5-8, 9-16.
  ASSERT_EQ(r.histogram.size(), 6u);
  const std::uint64_t lo[] = {0, 1, 2, 3, 5, 9}, hi[] = {0, 1, 2, 4, 8, 16};
  const std::size_t count[] = {2, 1, 1, 1, 1, 2};
  for (std::size_t b = 0; b < 6; ++b) {
    EXPECT_EQ(r.histogram[b].lo, lo[b]);
    EXPECT_EQ(r.histogram[b].hi, hi[b]);
    EXPECT_EQ(r.histogram[b].count, count[b]) << b;
  }
  // The worst, largest first and earlier rows first among equals; zero errors are not listed.
  ASSERT_EQ(r.worst.size(), 6u);
  EXPECT_EQ(r.worst[0].row, 7u);
  EXPECT_EQ(r.worst[1].row, 8u);
  EXPECT_EQ(r.worst[0].ulp, 9u);
  EXPECT_EQ(r.worst.back().ulp, 1u);
  EXPECT_EQ(r.worst[0].expected, want);
}

TEST(PairCheck, KeepsTheTenWorstWithConstantMemory) {
  P::PairCheck c(exact(), kBF16);
  const std::vector<double> x = P::inputs(kBF16, 0.5, 4.0);
  std::size_t row = 0;
  for (int pass = 0; pass < 20; ++pass)
    for (double v : x) c.add(row++, v, kBF16.next_up(c.expected(v)));  // one ULP everywhere
  c.add(row++, 2.0, kBF16.from_ordinal(kBF16.ordinal(c.expected(2.0)) + 7));
  const P::PairCheckResult r = c.result();
  EXPECT_EQ(r.n, row);
  EXPECT_EQ(r.worst.size(), 10u);
  EXPECT_EQ(r.worst[0].ulp, 7u);
  EXPECT_EQ(r.worst[1].row, 0u);  // among the 1-ULP pairs the earliest rows stay
  EXPECT_EQ(r.max_ulp, 7u);
  EXPECT_EQ(r.x_at_max, 2.0);
}

}  // namespace

// Rounding-point chains (gelu/chain.hpp) against the composition written out: accumulator rounding, the
// function in double rounded to the compute format, then the storage format's rounding or block storage.
#include "gelu/chain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/stochastic.hpp"

namespace {

using gelu::Chain;
using gelu::Format;
using gelu::FormatId;

double gelu_exact(double x) {
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

TEST(Chain, ParseAndName) {
  const auto c = Chain::parse("f32:bf16:mxfp4");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name(), "f32:bf16:mxfp4");
  EXPECT_TRUE(c->store.block.has_value());
  std::string why;
  EXPECT_FALSE(Chain::parse("f32:bf16", &why));
  EXPECT_EQ(why, "is not ACC:COMPUTE:STORE");
  EXPECT_FALSE(Chain::parse("f32:int8:bf16", &why));
  EXPECT_NE(why.find("compute format int8"), std::string::npos) << why;
  EXPECT_FALSE(Chain::parse("f32:f32:e8m0", &why));
  EXPECT_FALSE(Chain::parse("f32:f32:mxfp5", &why));
  EXPECT_NE(why.find("nvfp4"), std::string::npos) << why;
}

TEST(Chain, ForwardIsTheCompositionOfItsRoundings) {
  const gelu::zoo::Entry e = gelu::zoo::from_registry(*gelu::find_activation("gelu"));
  const std::vector<double> x = gelu::stochastic::sample_normal(0, 1.5, 32 * 20, 7);
  const Format f32(FormatId::F32), bf16(FormatId::BF16);
  // bf16 in, GELU in bf16, bf16 out.
  const std::vector<double> b = gelu::run_chain(e, *Chain::parse("bf16:bf16:bf16"), x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = bf16.round(gelu_exact(bf16.round(x[i])));
    ASSERT_NEAR(b[i], want, 1e-12 + bf16.spacing(want)) << x[i];  // erfc vs the registry: at most a tie away
  }
  // GELU in float32 on the accumulator, then MXFP4 blocks of 32.
  const std::vector<double> m = gelu::run_chain(e, *Chain::parse("f32:f32:mxfp4"), x);
  std::vector<double> y(x.size()), want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = f32.round(gelu_exact(f32.round(x[i])));
  gelu::BlockFormat(gelu::BlockFormatId::MXFP4).quantize_blocks(y, want);
  std::size_t same = 0;
  for (std::size_t i = 0; i < x.size(); ++i) same += m[i] == want[i];
  EXPECT_EQ(same, x.size());
  // The two chains differ, and the MXFP4 one stores some negative outputs as 0 where bf16 keeps them.
  std::size_t flushed_only_in_mx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) flushed_only_in_mx += m[i] == 0 && b[i] < 0;
  EXPECT_GT(flushed_only_in_mx, 0u);
}

TEST(Chain, BackwardThroughTheChain) {
  const gelu::zoo::Entry e = gelu::zoo::from_registry(*gelu::find_activation("gelu"));
  const std::vector<double> x = {-1.0, 0.0, 0.5, 2.0};
  const std::vector<double> d = gelu::run_chain(e, *Chain::parse("f32:bf16:bf16"), x, 1);
  const Format bf16(FormatId::BF16);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = x[i];
    const double exact =
        0.5 * std::erfc(-t / std::sqrt(2.0)) + t * std::exp(-t * t / 2) / std::sqrt(2 * M_PI);
    EXPECT_NEAR(d[i], bf16.round(exact), bf16.spacing(exact)) << t;
  }
}

TEST(Chain, BlockMaxAndErrorsOfTheStoredValues) {
  const gelu::zoo::Entry e = gelu::zoo::from_registry(*gelu::find_activation("gelu"));
  const std::vector<double> x = gelu::stochastic::sample_normal(0, 1, 32 * 6, 3);
  // eval --block-max: every value in a block of max 3 (MXFP4 scale 2^-1): GELU(-0.75) is -0.25.
  const gelu::ChainValues v =
      gelu::run_chain_values(e, *Chain::parse("f32:f32:mxfp4"), std::vector{-0.75}, 0, 3.0);
  ASSERT_EQ(v.scales.size(), 1u);
  EXPECT_EQ(v.scales[0].value, 0.5);
  EXPECT_EQ(v.stored[0], -0.25);
  EXPECT_THROW(gelu::run_chain_values(e, *Chain::parse("f32:f32:bf16"), x, 0, 3.0), std::invalid_argument);
  std::vector<double> ref(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ref[i] = gelu_exact(x[i]);
  // Block storage: what block_error says of the computed outputs.
  const Chain m = *Chain::parse("bf16:bf16:mxfp4");
  const gelu::BlockErrorReport r = gelu::chain_error(e, m, x, ref);
  const gelu::BlockErrorReport b =
      gelu::block_error(*m.store.block, x, gelu::run_chain_values(e, m, x).computed, ref);
  EXPECT_EQ(r.max_ulp, b.max_ulp);
  EXPECT_EQ(r.flushed, b.flushed);
  EXPECT_GT(r.flushed, 0u);
  // A number format: values of bf16 between the stored value and the reference rounded to bf16.
  const Chain c = *Chain::parse("bf16:bf16:bf16");
  const gelu::BlockErrorReport p = gelu::chain_error(e, c, x, ref);
  const Format bf16(FormatId::BF16);
  // bf16's ordinal from its bits (the top half of a float): neighbours differ by 1, ±0 are 0.
  const auto ordinal = [](double t) {
    const float f = static_cast<float>(t);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    bits >>= 16;
    return (bits & 0x8000) ? -static_cast<long>(bits & 0x7fff) : static_cast<long>(bits);
  };
  long worst = 0;
  std::size_t mismatch = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double s = bf16.round(gelu_exact(bf16.round(x[i]))), want = bf16.round(ref[i]);
    worst = std::max(worst, std::labs(ordinal(s) - ordinal(want)));
    mismatch += s != want;
  }
  EXPECT_EQ(p.mismatch, mismatch);
  EXPECT_EQ(p.max_ulp, static_cast<std::uint64_t>(worst));
  EXPECT_GT(p.max_ulp, 1u);
  EXPECT_EQ(p.blocks, 0u);
  EXPECT_EQ(p.flushed, 0u);
}

}  // namespace

namespace {

TEST(Chain, RecomputeFromTheInputSavedInTheStorageFormat) {
  const gelu::zoo::Entry e = gelu::zoo::from_registry(*gelu::find_activation("gelu"));
  const Format bf16(FormatId::BF16);
  std::vector<double> x = gelu::stochastic::sample_normal(0, 1, 32 * 64, 5);
  std::vector<double> exact(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) exact[i] = gelu::find_activation("gelu")->eval(x[i]);
  const std::vector<Chain> chains{*Chain::parse("f32:f32:bf16"), *Chain::parse("bf16:bf16:bf16"),
                                  *Chain::parse("f32:f32:mxfp4")};
  for (const int order : {0, 1}) {
    const gelu::ChainComparison r = gelu::compare_chains(e, chains, x, exact, order);
    ASSERT_EQ(r.sides.size(), 3u);
    // f32 in, bf16 saved: the recompute sees bf16(x), not the f32 the forward pass saw.
    std::size_t differ = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::vector<double> a =
          gelu::run_chain(e, chains[0], std::vector<double>{bf16.round(x[i])}, order);
      if (std::memcmp(&a[0], &r.sides[0].stored[i], sizeof(double)) != 0) ++differ;
    }
    EXPECT_GT(differ, x.size() / 8);  // bf16 outputs: many inputs still land on the same value
    EXPECT_EQ(r.sides[0].recompute_differ, differ);
    EXPECT_FALSE(r.sides[0].recompute_identical);
    // bf16 in, bf16 saved: the saved input is what the accumulator held.
    EXPECT_TRUE(r.sides[1].recompute_identical);
    EXPECT_EQ(r.sides[1].recompute_differ, 0u);
    EXPECT_FALSE(r.sides[2].recompute_identical);
  }
  // Inputs already bf16: saving them in bf16 changes nothing.
  for (double& v : x) v = bf16.round(v);
  EXPECT_TRUE(gelu::compare_chains(e, chains, x, exact).sides[0].recompute_identical);
}

}  // namespace

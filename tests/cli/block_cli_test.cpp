// The block formats on the command line (docs/precision.md, "Block formats"), end to end with the built
// gelulab: eval --block-max (GELU's lobe in MXFP4), eval in consecutive blocks, error on drawn blocks and on
// a .npy of pre-activations (text and JSON, checked against the core computing the same in this process),
// check of a kernel's stored outputs, and the one-line messages for bad block options.
//
// Index of this file:
//   [SECTION] --dtype BLOCK on eval, error and check
//   [SECTION] --accumulator, --compute, --store on eval, error and check
//   [SECTION] Semantics
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/block_format.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "gelu/stochastic.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::BlockFormat;
using gelu::BlockFormatId;
using gelu::test::ExecResult;

fs::path scratch() {
  return gelu::test::scratch_dir("block_cli");
}

ExecResult run(const std::vector<std::string>& args, const std::string& input = "") {
  return gelu::test::exec_gelulab(args, input, scratch().string(), {}, 120);
}

std::vector<double> numbers(const std::string& s) {
  std::vector<double> v;
  std::stringstream ss(s);
  for (std::string t; ss >> t;) v.push_back(*gelu::parse_f64(t));
  return v;
}

void write_npy_f64(const fs::path& p, const std::string& shape, const std::vector<double>& v) {
  std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  std::string data(v.size() * 8, '\0');
  std::memcpy(data.data(), v.data(), data.size());
  std::ofstream(p, std::ios::binary) << out << h << data;
}

// [SECTION] --dtype BLOCK on eval, error and check

TEST(CliBlocks, EvalGeluLobeInMxfp4) {
  // The numbers: GELU(-0.75) = -0.170 is -0.25 in a block of max in [2, 4), 0 from 4 on; SiLU's
  // deeper lobe survives up to 8.
  for (const char* a : {"2", "3.5", "3.99"}) {
    const ExecResult e = run({"eval", "--fn", "gelu", "--dtype", "mxfp4", "--block-max", a}, "-0.75\n");
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(numbers(e.out), std::vector<double>{-0.25}) << a;
  }
  const ExecResult z =
      run({"eval", "--fn", "gelu", "--dtype", "mxfp4", "--block-max", "4"}, "-0.75 -2 -0.3\n");
  ASSERT_EQ(z.status, 0) << z.err;
  EXPECT_EQ(numbers(z.out), (std::vector<double>{0, 0, 0}));
  const ExecResult s7 = run({"eval", "--fn", "silu", "--dtype", "mxfp4", "--block-max", "7.5"}, "-1.28\n");
  const ExecResult s8 = run({"eval", "--fn", "silu", "--dtype", "mxfp4", "--block-max", "8"}, "-1.28\n");
  EXPECT_EQ(numbers(s7.out), std::vector<double>{-0.5});
  EXPECT_EQ(numbers(s8.out), std::vector<double>{0});
}

TEST(CliBlocks, EvalInConsecutiveBlocksMatchesTheCore) {
  const gelu::Activation& g = *gelu::find_activation("gelu");
  std::vector<double> x = gelu::stochastic::sample_normal(0, 2, 70, 3), y(70), want(70);
  std::string in;
  for (double v : x) in += gelu::format_f64(v) + "\n";
  g.eval(std::span<const double>(x), std::span<double>(y));
  for (const char* name : {"mxfp6_e3m2", "nvfp4"}) {
    const BlockFormat f = *BlockFormat::parse(name, 20);
    f.quantize_blocks(y, want);
    const ExecResult e = run({"eval", "--fn", "gelu", "--dtype", name, "--block-size", "20"}, in);
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(numbers(e.out), want) << name;
  }
}

TEST(CliBlocks, ErrorOnDrawnBlocksMatchesTheCore) {
  const ExecResult e = run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype", "mxfp4", "--block-dist",
                            "normal:0,1", "--num-blocks", "500", "--seed", "9", "--json"});
  ASSERT_EQ(e.status, 0) << e.err;
  const BlockFormat f(BlockFormatId::MXFP4);
  const std::vector<double> x = gelu::stochastic::sample_normal(0, 1, 500 * 32, 9);
  std::vector<double> y(x.size()), ref(x.size());
  gelu::find_activation("gelu_tanh")->eval(std::span<const double>(x), std::span<double>(y));
  gelu::find_activation("gelu")->eval(std::span<const double>(x), std::span<double>(ref));
  const gelu::BlockErrorReport r = gelu::block_error(f, x, y, ref);
  gelu::json::Value j = gelu::json::parse(e.out);
  EXPECT_EQ(j.at("dtype").as_string(), "mxfp4");
  EXPECT_EQ(j.at("blocks").as_number(), 500);
  EXPECT_EQ(j.at("max_ulp").as_number(), static_cast<double>(r.max_ulp));
  EXPECT_EQ(j.at("negative").as_number(), static_cast<double>(r.negative));
  EXPECT_EQ(j.at("flushed").as_number(), static_cast<double>(r.flushed));
  EXPECT_GT(r.flushed, 0u);
  EXPECT_LT(r.flushed, r.negative);
  EXPECT_EQ(j.at("at_max").at("x").as_number(), r.at_x);
  EXPECT_EQ(j.at("flushed_x").as_array().size(), 2u);
  // Text: the same numbers.
  const ExecResult t = run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype", "mxfp4", "--block-dist",
                            "normal:0,1", "--num-blocks", "500", "--seed", "9"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("stored as 0: " + std::to_string(r.flushed)), std::string::npos) << t.out;
}

TEST(CliBlocks, ErrorOnNpyBlocksAlongTheLastAxis) {
  const fs::path p = scratch() / "acts.npy";
  const std::vector<double> x = gelu::stochastic::sample_normal(-0.5, 1, 4 * 64, 2);
  write_npy_f64(p, "(4, 64)", x);
  const ExecResult e =
      run({"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "nvfp4", "--blocks", p.string(), "--json"});
  ASSERT_EQ(e.status, 0) << e.err;
  gelu::json::Value j = gelu::json::parse(e.out);
  EXPECT_EQ(j.at("blocks").as_number(), 16);  // 4 rows of 64 in blocks of 16
  EXPECT_EQ(j.at("max_ulp").as_number(), 0);  // the function is its own reference: the best each block stores
  write_npy_f64(p, "(4, 60)", std::vector<double>(240, 0.5));
  const ExecResult bad =
      run({"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "nvfp4", "--blocks", p.string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("not a multiple of the block size 16"), std::string::npos) << bad.err;
}

TEST(CliBlocks, CheckAKernelsStoredOutputs) {
  const BlockFormat f(BlockFormatId::MXFP4);
  const std::vector<double> x = gelu::stochastic::sample_normal(0, 1.5, 96, 4);
  std::vector<double> y(x.size()), stored(x.size());
  gelu::find_activation("gelu")->eval(std::span<const double>(x), std::span<double>(y));
  f.quantize_blocks(y, stored);
  const fs::path px = scratch() / "cx.npy", py = scratch() / "cy.npy";
  write_npy_f64(px, "(96,)", x);
  write_npy_f64(py, "(96,)", stored);
  const ExecResult ok = run({"check", "--fn", "gelu", "--dtype", "mxfp4", "--x", px.string(), "--y",
                             py.string(), "--max-ulp", "0", "--json"});
  ASSERT_EQ(ok.status, 0) << ok.err << ok.out;
  EXPECT_EQ(gelu::json::parse(ok.out).at("max_ulp").as_number(), 0);
  // A kernel that flushes one more negative output than the rule: one ULP off in that block.
  std::size_t k = 0;
  while (!(stored[k] < 0)) ++k;
  stored[k] = 0;
  write_npy_f64(py, "(96,)", stored);
  const ExecResult off = run({"check", "--fn", "gelu", "--dtype", "mxfp4", "--x", px.string(), "--y",
                              py.string(), "--max-ulp", "0"});
  EXPECT_EQ(off.status, 1) << off.out << off.err;
  EXPECT_NE(off.err.find("exceeds --max-ulp 0"), std::string::npos) << off.err;
}

TEST(CliBlocks, BadBlockOptionsAreOneLine) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {{"eval", "--fn", "gelu", "--dtype", "mxfp4", "--block-max", "-1"},
            "--block-max: -1 is not a finite number > 0"},
           {{"eval", "--fn", "gelu", "--dtype", "mxfp4", "--block-size", "0"}, "--block-size"},
           {{"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "mxfp4"}, "needs the blocks"},
           {{"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "mxfp4", "--block-dist", "uniform:0,1"},
            "is not normal:MU,SIGMA"},
           {{"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "mxfp4", "--block-dist", "normal:0,-1"},
            "SIGMA must be"},
           {{"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "mxfp4", "--block-dist", "normal:0,1",
             "--all"},
            "--all: not with a block format"},
           {{"eval", "--fn", "gelu", "--dtype", "mxfp4", "--order", "1"}, "derivatives are not stored"},
           {{"eval", "--fn", "tanh_form", "--dtype", "bf16", "--compute", "e8m0"}, "e8m0 is a scale format"},
       }) {
    const ExecResult e = run(c.args, "1\n");
    EXPECT_EQ(e.status, 2) << c.message;
    EXPECT_NE(e.err.find(c.message), std::string::npos) << e.err;
    EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
  }
}

TEST(CliBlocks, ChainsSideBySide) {
  const ExecResult e = run({"chain", "--fn", "gelu", "--chain", "f32:f32:mxfp4", "--chain", "bf16:bf16:bf16",
                            "--num-blocks", "50", "--json"});
  ASSERT_EQ(e.status, 0) << e.err;
  gelu::json::Value j = gelu::json::parse(e.out);
  EXPECT_EQ(j.at("n").as_number(), 1600);
  const auto& chains = j.at("chains").as_array();
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains[0].at("chain").as_string(), "f32:f32:mxfp4");
  // Recomputed from the pre-activations saved in MXFP4 blocks: not GELU of the inputs the forward pass saw;
  // bf16 in, bf16 saved: the accumulator's rounding is the saved one, so the recompute is the forward pass.
  EXPECT_FALSE(chains[0].at("recompute_identical").as_bool());
  EXPECT_GT(chains[0].at("recompute_differ").as_number(), 0);
  EXPECT_TRUE(chains[1].at("recompute_identical").as_bool());
  EXPECT_EQ(chains[1].at("recompute_differ").as_number(), 0);
  EXPECT_GT(chains[0].at("flushed").as_number(), 0);  // MXFP4 stores some of GELU's lobe as 0 …
  EXPECT_EQ(chains[1].at("flushed").as_number(), 0);  // … bf16 none of it (N(0,1) inputs)
  EXPECT_GT(j.at("differ").as_number(), 0);
  EXPECT_EQ(j.at("differences").as_array().size(), 10u);
  const ExecResult bad = run({"chain", "--fn", "gelu", "--chain", "f32:int8:bf16", "--chain", "f32:f32:f32"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("compute format int8 is not one to compute in"), std::string::npos) << bad.err;
}

// [SECTION] --accumulator, --compute, --store on eval, error and check: the chain's values written out here
// (bf16 and MXFP4's e2m1 elements rounded with frexp/ldexp, ties to even; the MX scale from the block max).

/// v rounded to a binary format of `p` significant bits (normal range only: the values below are).
double round_bits(double v, int p) {
  if (v == 0 || !std::isfinite(v)) return v;
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m·2^e, 0.5 ≤ |m| < 1
  return std::ldexp(std::nearbyint(std::ldexp(m, p)), e - p);
}
double bf16(double v) {
  return round_bits(v, 8);
}
/// The stored value of v in an MXFP4 block of scale 2^k: e2m1 (0, 0.5, 1, 1.5, 2, 3, 4, 6), ties to even
/// codes.
double mxfp4_stored(double v, int k) {
  const double a = std::fabs(v) / std::ldexp(1.0, k);
  static const double grid[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  int best = 0;
  for (int i = 1; i < 8; ++i) {
    const double d = std::fabs(a - grid[i]), db = std::fabs(a - grid[best]);
    if (d < db || (d == db && i % 2 == 0)) best = i;
  }
  return std::copysign(grid[best] * std::ldexp(1.0, k), v);
}
int mx_scale_exp(double amax) {
  return static_cast<int>(std::floor(std::log2(amax))) - 2;  // e2m1's emax is 2
}
double gelu_exact(double x) {
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}
/// bf16 ordinal: neighbours differ by 1, ±0 are both 0.
long bf16_ordinal(double v) {
  const float f = static_cast<float>(bf16(v));
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  b >>= 16;
  return (b & 0x8000) ? -static_cast<long>(b & 0x7fff) : static_cast<long>(b);
}

std::vector<double> bf16_values(const std::string& text) {
  std::vector<double> v = numbers(text);
  for (double& t : v) t = bf16(t);
  return v;
}

TEST(CliChainOptions, EvalStoresThroughTheChain) {
  const std::vector<double> x = {-0.75, -2.3, -0.1, 0.3, 1.1, 2.5};
  std::string in;
  for (double v : x) in += gelu::format_f64(v) + "\n";
  // bf16 in, GELU in bf16, bf16 out.
  const ExecResult b =
      run({"eval", "--fn", "gelu", "--accumulator", "bf16", "--compute", "bf16", "--store", "bf16"}, in);
  ASSERT_EQ(b.status, 0) << b.err;
  std::vector<double> want;
  for (double v : x) want.push_back(bf16(gelu_exact(bf16(v))));
  // Printed in the shortest text that reads back to the same bf16 value.
  EXPECT_EQ(bf16_values(b.out), want);
  // GELU in float32 on the accumulator, then MXFP4 in a block of max 3 (scale 2^-1): -0.75 → -0.25.
  const ExecResult m = run({"eval", "--fn", "gelu", "--store", "mxfp4", "--block-max", "3"}, in);
  ASSERT_EQ(m.status, 0) << m.err;
  want.clear();
  for (double v : x)
    want.push_back(mxfp4_stored(static_cast<float>(gelu_exact(static_cast<float>(v))), mx_scale_exp(3)));
  EXPECT_EQ(numbers(m.out), want);
  EXPECT_EQ(numbers(m.out)[0], -0.25);
  // The same in bf16 first: bf16's rounding moves GELU(-2.3) but MXFP4's lattice is what shows.
  const ExecResult mb = run({"eval", "--fn", "gelu", "--accumulator", "bf16", "--compute", "bf16", "--store",
                             "mxfp4", "--block-max", "5"},
                            in);
  ASSERT_EQ(mb.status, 0) << mb.err;
  want.clear();
  for (double v : x) want.push_back(mxfp4_stored(bf16(gelu_exact(bf16(v))), mx_scale_exp(5)));
  EXPECT_EQ(numbers(mb.out), want);
  EXPECT_EQ(numbers(mb.out)[0], 0);  // from a block max of 4 on, GELU(-0.75) is stored as 0
  // The backward pass through the chain: GELU' in bf16.
  const ExecResult d =
      run({"eval", "--fn", "gelu", "--order", "1", "--compute", "bf16", "--store", "bf16"}, "-1\n0.5\n");
  ASSERT_EQ(d.status, 0) << d.err;
  const auto d1 = [](double t) {
    return 0.5 * std::erfc(-t / std::sqrt(2.0)) + t * std::exp(-t * t / 2) / std::sqrt(2 * M_PI);
  };
  EXPECT_EQ(bf16_values(d.out), (std::vector<double>{bf16(d1(-1)), bf16(d1(0.5))}));
}

TEST(CliChainOptions, ErrorOnBlocksOfAFile) {
  std::vector<double> x = gelu::stochastic::sample_normal(-0.5, 1.5, 32 * 8, 11);
  const fs::path p = scratch() / "chain_pre.npy";
  write_npy_f64(p, "(8, 32)", x);
  // bf16:bf16:bf16 against exact GELU: ULPs of bf16 between the stored value and GELU(x) rounded to bf16.
  const ExecResult e = run({"error", "--fn", "gelu", "--vs", "gelu", "--accumulator", "bf16", "--compute",
                            "bf16", "--store", "bf16", "--blocks", p.string(), "--json"});
  ASSERT_EQ(e.status, 0) << e.err;
  gelu::json::Value j = gelu::json::parse(e.out);
  long worst = 0;
  std::size_t mismatch = 0, negative = 0;
  for (double v : x) {
    const long dist = std::labs(bf16_ordinal(bf16(gelu_exact(bf16(v)))) - bf16_ordinal(gelu_exact(v)));
    worst = std::max(worst, dist);
    mismatch += dist != 0;
    negative += gelu_exact(v) < 0;
  }
  EXPECT_GT(worst, 1);  // the input's rounding to bf16 costs more than the output's
  EXPECT_EQ(j.at("chain").as_string(), "bf16:bf16:bf16");
  EXPECT_EQ(j.at("max_ulp").as_number(), static_cast<double>(worst));
  EXPECT_EQ(j.at("mismatch").as_number(), static_cast<double>(mismatch));
  EXPECT_EQ(j.at("negative").as_number(), static_cast<double>(negative));
  EXPECT_EQ(j.at("flushed").as_number(), 0);
  // f32:f32:mxfp4: blocks of 32 along the rows; the negative outputs stored as 0 counted here.
  const ExecResult m =
      run({"error", "--fn", "gelu", "--vs", "gelu", "--store", "mxfp4", "--blocks", p.string(), "--json"});
  ASSERT_EQ(m.status, 0) << m.err;
  gelu::json::Value k = gelu::json::parse(m.out);
  std::size_t flushed = 0;
  for (std::size_t b = 0; b < 8; ++b) {
    std::vector<double> y(32);
    double amax = 0;
    for (std::size_t i = 0; i < 32; ++i) {
      y[i] = static_cast<float>(gelu_exact(static_cast<float>(x[b * 32 + i])));
      amax = std::max(amax, std::fabs(y[i]));
    }
    for (std::size_t i = 0; i < 32; ++i)
      flushed += gelu_exact(x[b * 32 + i]) < 0 && mxfp4_stored(y[i], mx_scale_exp(amax)) == 0;
  }
  EXPECT_GT(flushed, 0u);
  EXPECT_EQ(k.at("flushed").as_number(), static_cast<double>(flushed));
  EXPECT_EQ(k.at("negative").as_number(), static_cast<double>(negative));
  EXPECT_EQ(k.at("blocks").as_number(), 8);
  // The text says the same.
  const ExecResult t =
      run({"error", "--fn", "gelu", "--vs", "gelu", "--store", "mxfp4", "--blocks", p.string()});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("stored as 0: " + std::to_string(flushed) + " "), std::string::npos) << t.out;
}

TEST(CliChainOptions, CheckAKernelsStoredOutputs) {
  const std::vector<double> x = gelu::stochastic::sample_normal(0, 2, 64, 5);
  std::vector<double> y;
  for (double v : x) y.push_back(bf16(gelu_exact(static_cast<float>(v))));  // f32 in, GELU in f32, bf16 out
  const fs::path px = scratch() / "chain_x.npy", py = scratch() / "chain_y.npy";
  write_npy_f64(px, "(64,)", x);
  write_npy_f64(py, "(64,)", y);
  const std::vector<std::string> cmd = {"check",     "--fn", "gelu",      "--store",   "bf16", "--x",
                                        px.string(), "--y",  py.string(), "--max-ulp", "0",    "--json"};
  const ExecResult ok = run(cmd);
  ASSERT_EQ(ok.status, 0) << ok.err << ok.out;
  EXPECT_EQ(gelu::json::parse(ok.out).at("mismatch").as_number(), 0);
  // One value a bf16 step off: one mismatch of 1 ULP, and the gate fails.
  y[7] += std::ldexp(1.0, std::ilogb(y[7]) - 7);  // bf16's spacing there (8 significant bits)
  write_npy_f64(py, "(64,)", y);
  const ExecResult bad = run(cmd);
  EXPECT_EQ(bad.status, 1);
  gelu::json::Value j = gelu::json::parse(bad.out);
  EXPECT_EQ(j.at("mismatch").as_number(), 1);
  EXPECT_EQ(j.at("max_ulp").as_number(), 1);
  EXPECT_EQ(j.at("x_at_max").as_number(), x[7]);
  EXPECT_NE(bad.err.find("exceeds --max-ulp 0"), std::string::npos) << bad.err;
}

TEST(CliChainOptions, BadChainOptionsNameTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"eval", "--fn", "gelu", "--store", "e8m0"}, "--store 'e8m0': storage format e8m0 is a scale format"},
      {{"eval", "--fn", "gelu", "--compute", "int8", "--store", "bf16"}, "--compute 'int8'"},
      {{"eval", "--fn", "gelu", "--accumulator", "mxfp4", "--store", "bf16"}, "--accumulator 'mxfp4'"},
      {{"eval", "--fn", "gelu", "--dtype", "bf16", "--store", "bf16"}, "--dtype bf16: not with --store"},
      {{"eval", "--fn", "gelu", "--store", "bf16", "--block-max", "3"},
       "--block-max: applies to a block format"},
      {{"eval", "--fn", "gelu", "--store", "f32:f32:bf16"}, "is one format, not a chain"},
      {{"error", "--fn", "gelu", "--vs", "gelu", "--store", "mxfp4"}, "needs the inputs"},
      {{"check", "--fn", "gelu", "--store", "mxfp4"}, "needs --x X.npy --y Y.npy"},
  };
  for (const Case& c : cases) {
    const ExecResult e = run(c.args, "1\n");
    EXPECT_EQ(e.status, 2) << c.message;
    EXPECT_NE(e.err.find(c.message), std::string::npos) << e.err;
    EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
  }
}

}  // namespace

// [SECTION] Semantics: every block and chain output names the one it used

namespace {

// gelu_tanh (the registry function) and tanh_form (the zoo entry as shipped) are one formula with two
// semantics: every block and chain output names the one it used, in text and in JSON, and the two differ in
// what they store (the bf16 chain: the registry function correctly rounded to bf16, the zoo entry computed in
// bf16 with its intermediates there).
TEST(CliSemantics, EveryBlockAndChainOutputSaysWhichSemanticsItUsed) {
  const std::string reg = "registry function gelu_tanh", zoo = "zoo entry tanh_form as shipped";
  for (const char* fn : {"gelu_tanh", "tanh_form"}) {
    SCOPED_TRACE(fn);
    const std::string want = std::string(fn) == "gelu_tanh" ? reg : zoo;
    const std::vector<std::vector<std::string>> commands = {
        {"error", "--fn", fn, "--vs", "gelu", "--dtype", "mxfp4", "--block-dist", "normal:0,1",
         "--num-blocks", "20"},
        {"error", "--fn", fn, "--vs", "gelu", "--store", "mxfp4", "--compute", "bf16", "--block-dist",
         "normal:0,1", "--num-blocks", "20"},
        {"chain", "--fn", fn, "--chain", "f32:bf16:bf16", "--chain", "f32:f32:mxfp4", "--num-blocks", "20"}};
    for (const auto& c : commands) {
      SCOPED_TRACE(c[0] + " " + c[5]);
      const ExecResult text = run(c);
      ASSERT_EQ(text.status, 0) << text.err;
      EXPECT_NE(text.out.find("evaluated as: " + want), std::string::npos) << text.out;
      std::vector<std::string> j = c;
      j.push_back("--json");
      const ExecResult json = run(j);
      ASSERT_EQ(json.status, 0) << json.err;
      EXPECT_EQ(gelu::json::parse(json.out).at("semantics").as_string().rfind(want, 0), 0u) << json.out;
    }
    const ExecResult blocks = run({"eval", "--fn", fn, "--dtype", "mxfp4", "--block-max", "3"}, "-0.75\n");
    ASSERT_EQ(blocks.status, 0) << blocks.err;
    EXPECT_EQ(blocks.err.rfind("gelulab eval: evaluated as " + want, 0), 0u) << blocks.err;
    const ExecResult stored = run({"eval", "--fn", fn, "--compute", "bf16", "--store", "bf16"}, "-5.2\n");
    ASSERT_EQ(stored.status, 0) << stored.err;
    EXPECT_EQ(stored.err.rfind("gelulab eval: evaluated as " + want, 0), 0u) << stored.err;
  }
  // The two semantics store different values through the same bf16 chain.
  std::string xs;
  for (double x = -9.0; x <= -3.0; x += 1.0 / 32) xs += gelu::format_f64(x) + "\n";
  const ExecResult a = run({"eval", "--fn", "gelu_tanh", "--compute", "bf16", "--store", "bf16"}, xs);
  const ExecResult b = run({"eval", "--fn", "tanh_form", "--compute", "bf16", "--store", "bf16"}, xs);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_NE(a.out, b.out);
}

}  // namespace

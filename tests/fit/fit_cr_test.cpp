// Correctly rounded fits (gelu/fit_cr.hpp, built with GLPK and MPFR): the MPFR reference against the
// registry's double reference, the rounding intervals' edges, fits that must cover every input (checked here
// by an evaluation loop of its own through Candidate::eval, not the fitter's count), the one-line failures,
// and the exported C++ compiled, run over every bf16 input and passed through `gelulab check
// --max-mismatch 0`.
#include "gelu/fit_cr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/format.hpp"
#include "gelu/kernels.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"
#include "support/files.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

using namespace gelu;
using namespace gelu::fit;
namespace fs = std::filesystem;

/// The candidate's result for x, rounded to the format, through the candidate's public evaluators.
double result_of(const CrResult& r, double x) {
  const Format fmt(r.spec.format);
  const double y = r.spec.compute == FormatId::F32
                       ? static_cast<double>(r.candidate.eval(static_cast<float>(x)))
                       : r.candidate.eval(x);
  return fmt.round(y);
}

/// Every finite input of the format, through result_of, against the table's correctly rounded values.
std::size_t wrong_results(const CrResult& r) {
  const auto t = cr_table(r.spec.target, r.spec.format, r.spec.compute);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < t->x.size(); ++i)
    if (!(result_of(r, t->x[i]) == t->r[i])) ++wrong;
  return wrong;
}

TEST(FitCr, ReferenceAgreesWithTheDoubleReferenceAwayFromTies) {
  // The registry's double GELU rounded once can differ from the correctly rounded value only where the
  // double sits within a double rounding of a tie; then by one ULP. Everywhere else they must agree.
  const zoo::Entry gelu = zoo::from_registry(*find_activation("gelu"));
  for (FormatId f : {FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2}) {
    const Format fmt(f);
    std::size_t differ = 0;
    for (int order : {0, 1}) {
      const auto t = cr_table(order ? Target::GeluPrime : Target::Gelu, f, FormatId::F32);
      ASSERT_EQ(t->x.size(), fmt.enumerate().size());
      for (std::size_t i = 0; i < t->x.size(); ++i) {
        const double d = gelu.eval(t->x[i], order, Format(FormatId::F64));
        const std::uint64_t u = fmt.ulp_distance(fmt.round(d), t->r[i]);
        EXPECT_LE(u, 1u) << fmt.name() << " order " << order << " x = " << t->x[i];
        differ += u;
      }
    }
    // bf16: the 128 subnormal ties at tiny negative x (GELU(x) = x/2 + x²/√(2π), the double keeps x/2 only).
    EXPECT_LE(differ, f == FormatId::BF16 ? 128u : 0u) << fmt.name();
  }
  EXPECT_EQ(correctly_rounded(Target::Gelu, FormatId::BF16, 1.0), 0.83984375);  // GELU(1) = 0.841344…
  EXPECT_EQ(correctly_rounded(Target::GeluPrime, FormatId::BF16, 0.0), 0.5);
  EXPECT_TRUE(std::signbit(correctly_rounded(Target::Gelu, FormatId::BF16, -100.0)));
}

TEST(FitCr, EveryPathRoundingTheRegistryDoubleIsCorrectlyRounded) {
  // The one source of truth (gelu::correctly_rounded, the tie rule of Format::round_beside) against MPFR at
  // every input of every format fit_cr enumerates, and the paths built on it: the precision lab's PairCheck,
  // `error`'s scoring (analysis::compare_at: no mismatch of GELU against itself) and its values.
  const Activation& g = *find_activation("gelu");
  const zoo::Entry entry = zoo::from_registry(g);
  for (FormatId f : {FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2}) {
    const Format fmt(f);
    std::size_t ties = 0;
    for (int order : {0, 1}) {
      const auto t = cr_table(order ? Target::GeluPrime : Target::Gelu, f, FormatId::F32);
      precision::PairCheck pc(entry, fmt, order);
      std::vector<double> xs;
      for (std::size_t i = 0; i < t->x.size(); ++i) {
        const double d = g.eval(t->x[i], order);
        ties += fmt.round(d) != fmt.round_beside(d, 1) ? 1 : 0;
        EXPECT_EQ(gelu::correctly_rounded(g, fmt, t->x[i], order), t->r[i])
            << fmt.name() << " x = " << t->x[i];
        EXPECT_EQ(pc.expected(t->x[i]), t->r[i]) << fmt.name() << " x = " << t->x[i];
        if (std::isfinite(t->x[i])) xs.push_back(t->x[i]);
      }
      const analysis::FunctionSpec s = analysis::spec(g, order);
      const analysis::ErrorReport r = analysis::compare_at(s, s, xs, fmt);
      EXPECT_EQ(r.ulp_stats.mismatch, 0u) << fmt.name() << " order " << order;
      for (std::size_t i = 0; i < r.x.size(); ++i)
        EXPECT_EQ(r.value[i], correctly_rounded(order ? Target::GeluPrime : Target::Gelu, f, r.x[i]))
            << fmt.name() << " x = " << r.x[i];
    }
    // bf16 has its 256 ties of x/2 (half of them round the same either way); the assertion could be false.
    if (f == FormatId::BF16) {
      EXPECT_GT(ties, 0u);
    }
  }
  // f32: every subnormal x with an odd last bit has x/2 exactly on a midpoint; the float kernels and the
  // double path agree with MPFR there.
  const Format f32(FormatId::F32);
  for (std::uint32_t k : {1u, 3u, 5u, 0x7FFFFFu}) {
    for (double sgn : {1.0, -1.0}) {
      const double x = sgn * std::ldexp(static_cast<double>(k), -149);
      const double want = correctly_rounded(Target::Gelu, FormatId::F32, x);
      EXPECT_EQ(gelu::correctly_rounded(g, f32, x), want) << x;
      EXPECT_EQ(static_cast<double>(g.eval(static_cast<float>(x))), want) << x;
      // The batched float kernels: right at the smallest subnormals; at the largest, (2^23 − 1)·2^-149, both
      // still give x/2 rounded to even (a kernel defect, not a rounding of the registry's double).
      if (k == 0x7FFFFFu) continue;
      for (Path path : {Path::Fast, Path::Accurate}) {
        const float xf[1] = {static_cast<float>(x)};
        float yf[1] = {0};
        g.eval(std::span<const float>(xf), std::span<float>(yf), 0, nullptr, path);
        EXPECT_EQ(static_cast<double>(yf[0]), want) << x << (path == Path::Fast ? " fast" : " accurate");
      }
      // The double rounded once (ties to even) is wrong where the exact value's side is the odd neighbour.
      if ((sgn > 0) == (k % 4 == 1)) {
        EXPECT_NE(f32.round(x * 0.5), want) << x;
      }
    }
  }
}

TEST(FitCr, TodaysBf16KernelsAgreeWithTheMpfrReference) {
  for (int d1 : {0, 1}) {
    const auto t = cr_table(d1 ? Target::GeluPrime : Target::Gelu, FormatId::BF16, FormatId::F32);
    const Format b(FormatId::BF16);
    std::vector<std::uint16_t> x(t->x.size()), y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint16_t>(b.encode(t->x[i]));
    (d1 ? bf16::gelu_d1 : bf16::gelu)(x.data(), y.data(), x.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!(b.decode(y[i]) == t->r[i])) ++wrong;
    EXPECT_EQ(wrong, 0u) << (d1 ? "gelu_d1" : "gelu");
  }
}

TEST(FitCr, RoundingIntervalsAreExactlyTheValuesThatRoundToTheResult) {
  for (FormatId f : {FormatId::BF16, FormatId::E4M3}) {
    const Format fmt(f);
    const auto t = cr_table(Target::Gelu, f, FormatId::F32);
    for (std::size_t i = 0; i < t->x.size(); i += 7) {
      const float lo = static_cast<float>(t->lo[i]), hi = static_cast<float>(t->hi[i]);
      ASSERT_EQ(static_cast<double>(lo), t->lo[i]);
      ASSERT_EQ(fmt.round(lo), t->r[i]) << t->x[i];
      ASSERT_EQ(fmt.round(hi), t->r[i]) << t->x[i];
      ASSERT_NE(fmt.round(std::nextafter(lo, -INFINITY)), t->r[i]) << t->x[i];
      if (std::fabs(t->r[i]) < fmt.max_finite()) {
        ASSERT_NE(fmt.round(std::nextafter(hi, INFINITY)), t->r[i]) << t->x[i];
      }
    }
  }
}

TEST(FitCr, Bf16GeluPiecewiseIsCorrectlyRoundedForEveryInput) {
  CrSpec s;
  s.format = FormatId::BF16;
  const CrResult r = fit_correctly_rounded(s);
  EXPECT_EQ(r.inputs, 65280u);  // 65,536 patterns less ±inf and 254 NaNs
  EXPECT_EQ(r.correct, r.inputs);
  EXPECT_EQ(wrong_results(r), 0u);
  EXPECT_EQ(r.candidate.spec.form, Form::Piecewise);
  EXPECT_LE(r.candidate.spec.degree, 6);
  // Outside the range the clamp is what GELU rounds to: −0 / 0 below, x above.
  EXPECT_EQ(result_of(r, -20.0), 0.0);
  EXPECT_EQ(result_of(r, 100.0), 100.0);
  EXPECT_LT(*r.spec.a, -13.0);
  EXPECT_GT(*r.spec.b, 2.5);
}

TEST(FitCr, GeluPrimeWithoutFmaAndSmallFormats) {
  for (FormatId f : {FormatId::BF16, FormatId::E4M3, FormatId::E5M2}) {
    CrSpec s;
    s.target = Target::GeluPrime;
    s.format = f;
    s.fma = false;
    const CrResult r = fit_correctly_rounded(s);
    EXPECT_EQ(r.correct, r.inputs) << number_format(f).name;
    EXPECT_EQ(wrong_results(r), 0u) << number_format(f).name;
    EXPECT_FALSE(r.candidate.spec.fma);
  }
  CrSpec p;  // one polynomial suffices for the 8-bit formats
  p.format = FormatId::E4M3;
  p.form = Form::Poly;
  const CrResult r = fit_correctly_rounded(p);
  EXPECT_EQ(r.candidate.spec.form, Form::Poly);
  EXPECT_EQ(wrong_results(r), 0u);
}

TEST(FitCr, ImpossibleRequestsAreOneLineNamingThePiece) {
  CrSpec s;
  s.format = FormatId::BF16;
  s.form = Form::Poly;  // one polynomial over [-13.5, 2.77] cannot follow GELU's tail to 1e-40
  try {
    fit_correctly_rounded(s);
    FAIL() << "a single bf16 polynomial passed";
  } catch (const CrError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("piece 0 of 1"), std::string::npos) << w;
    EXPECT_NE(w.find("degree cap 12"), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  }
  CrSpec narrow;
  narrow.format = FormatId::BF16;
  narrow.a = -2.0;  // below −2 the clamp gives 0, but GELU(−3) rounds to −0.00405
  try {
    fit_correctly_rounded(narrow);
    FAIL();
  } catch (const CrError& e) {
    EXPECT_NE(std::string(e.what()).find("below A = -2"), std::string::npos) << e.what();
  }
  CrSpec bad;
  bad.format = FormatId::F32;
  EXPECT_THROW(validate(bad), CrError);
  bad.format = FormatId::BF16;
  bad.target = Target::Phi;
  EXPECT_THROW(validate(bad), CrError);
}

TEST(FitCr, ExportedCppOverEveryBf16InputPassesTheCheckWithNoMismatch) {
  const fs::path dir = gelu::test::scratch_dir("gelulab_fit_cr");
  const fs::path hpp = dir / "gelu_cr.hpp", vec = dir / "vectors.txt";
  const auto fit = test::run_gelulab("fit", "--target gelu --correctly-rounded bf16 --export-cpp " +
                                                hpp.string() + " --vectors " + vec.string());
  ASSERT_EQ(fit.status, 0) << fit.out;
  EXPECT_NE(fit.out.find("correctly rounded: 65280 of 65280 inputs"), std::string::npos) << fit.out;
  const std::string check_line =
      "gelulab check --fn gelu --dtype bf16 --pairs your_outputs.txt --max-mismatch 0";
  EXPECT_NE(fit.out.find(check_line), std::string::npos) << fit.out;
  // A harness of its own: read x, call the exported float function, round to bf16 by its bits (nearest,
  // ties to even), print the pair.
  std::ofstream(dir / "main.cpp")
      << "#include <cstdint>\n#include <cstdio>\n#include <cstring>\n#include \"gelu_cr.hpp\"\n"
         "int main(int, char** argv) {\n"
         "  std::FILE* in = std::fopen(argv[1], \"r\"); std::FILE* out = std::fopen(argv[2], \"w\");\n"
         "  float x, y0;\n"
         "  while (std::fscanf(in, \"%f %f\", &x, &y0) == 2) {\n"
         "    float y = gelu_cr(x); std::uint32_t b; std::memcpy(&b, &y, 4);\n"
         "    b = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u; std::memcpy(&y, &b, 4);\n"
         "    std::fprintf(out, \"%a %a\\n\", x, y);\n"
         "  }\n"
         "  return std::fclose(out) == 0 ? 0 : 1;\n}\n";
  const fs::path exe = dir / "harness", log = dir / "compile.log";
  const std::string cc = std::string(GELU_TEST_CXX) + " -std=c++17 -O2 -ffp-contract=off -march=native -o " +
                         exe.string() + " " + (dir / "main.cpp").string() + " > " + log.string() + " 2>&1";
  ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
  const fs::path pairs = dir / "pairs.txt";
  ASSERT_EQ(std::system((exe.string() + " " + vec.string() + " " + pairs.string()).c_str()), 0);
  const auto check =
      test::run_gelulab("check", "--fn gelu --dtype bf16 --pairs " + pairs.string() + " --max-mismatch 0");
  EXPECT_EQ(check.status, 0) << check.out;
  EXPECT_NE(check.out.find("0 of 65280 differ"), std::string::npos) << check.out;
  // The check can fail: one wrong result is a mismatch, exit 1.
  std::string text = gelu::test::slurp(pairs);
  const std::size_t line = text.find("\n0x1p+0 ");  // x = 1: GELU(1) rounds to 0.83984375 = 0x1.aep-1
  ASSERT_NE(line, std::string::npos);
  const std::size_t end = text.find('\n', line + 1);
  text.replace(line + 1, end - line - 1, "0x1p+0 0x1.bp-1");
  std::ofstream(dir / "bad.txt") << text;
  const auto bad = test::run_gelulab(
      "check", "--fn gelu --dtype bf16 --pairs " + (dir / "bad.txt").string() + " --max-mismatch 0");
  EXPECT_EQ(bad.status, 1) << bad.out;
}

TEST(FitCr, CliRefusesAndFailsInOneLine) {
  auto r = test::run_gelulab("fit", "--target phi --correctly-rounded bf16");
  EXPECT_EQ(r.status, 2) << r.out;
  r = test::run_gelulab("fit", "--correctly-rounded f32");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("bf16, f16, e4m3, e5m2"), std::string::npos) << r.out;
  r = test::run_gelulab("fit", "--correctly-rounded bf16 --form poly");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("piece 0 of 1"), std::string::npos) << r.out;
  r = test::run_gelulab("fit", "--correctly-rounded e5m2 --form poly --json");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"correct\":248"), std::string::npos) << r.out;
}

}  // namespace

// The exported C++ compiled by the system compiler at test time (GELU_TEST_CXX, the compiler that built this
// test) and run on the test vectors and outside the range: its scalar function and its array loop return the
// designer's own evaluation (Candidate::eval) bit for bit; with GCC, -fopt-info-vec shows the array loop of
// every non-piecewise candidate vectorized. The GLSL export runs on the GPU in tests/gpu/fit_glsl_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/fit.hpp"
#include "gelu/fit_export.hpp"
#include "gelu/numio.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gelu::fit;
using gelu::FormatId;

struct Item {
  std::string name;
  Spec spec;
  Candidate c;
  bool dbl() const { return spec.format == FormatId::F64; }
};

std::vector<Item> items() {
  const auto mk = [](std::string name, Target t, Form f, int d, double a, double b, FormatId fmt) {
    Item it;
    it.name = std::move(name);
    it.spec.target = t;
    it.spec.form = f;
    it.spec.degree = d;
    it.spec.a = a;
    it.spec.b = b;
    it.spec.format = fmt;
    return it;
  };
  std::vector<Item> v = {
      mk("g_half", Target::Gelu, Form::HalfXPolyAbs, 8, -4, 4, FormatId::F32),
      mk("g_poly64", Target::Gelu, Form::Poly, 10, -5, 5, FormatId::F64),
      mk("g_even16", Target::Gelu, Form::Even, 4, -3, 3, FormatId::F16),
      mk("g_phi", Target::Phi, Form::Poly, 7, -4, 4, FormatId::F32),
      mk("g_erf", Target::Erf, Form::Poly, 9, -3, 3, FormatId::BF16),
      mk("g_prime", Target::GeluPrime, Form::Poly, 8, -4, 4, FormatId::F32),
      mk("g_rat", Target::Gelu, Form::Rational, 3, -4, 4, FormatId::F32),
      mk("g_pw", Target::Gelu, Form::Piecewise, 3, -4, 4, FormatId::F32),
      mk("g_pwo", Target::Gelu, Form::Piecewise, 2, -6, 6, FormatId::F32),
  };
  v[6].spec.denominator_degree = 3;
  v[7].spec.pieces = 6;
  v[8].spec.pieces = 5;
  v[8].spec.breakpoints = Breakpoints::Optimized;
  v[8].spec.clamp = Clamp::X;
  v[3].spec.clamp = Clamp::Zero;
  for (Item& it : v) it.c = fit(it.spec);
  return v;
}

using gelu::test::slurp;

/// The harness: `harness NAME IN OUT` reads x (bit patterns in hex, one a line), writes "scalar loop" bits.
std::string harness(const std::vector<Item>& v) {
  std::string h = "#include <cstdint>\n#include <cstdio>\n#include <cstring>\n#include <vector>\n";
  for (const Item& it : v) h += "#include \"" + it.name + ".hpp\"\n";
  h += R"(
template <class T, class U, class F, class L>
int run(const char* in, const char* out, F f, L loop) {
  std::FILE* fi = std::fopen(in, "r");
  std::FILE* fo = std::fopen(out, "w");
  if (!fi || !fo) return 2;
  std::vector<T> x;
  unsigned long long b;
  while (std::fscanf(fi, "%llx", &b) == 1) {
    U u = static_cast<U>(b);
    T t;
    std::memcpy(&t, &u, sizeof t);
    x.push_back(t);
  }
  std::vector<T> y(x.size());
  loop(x.data(), y.data(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T s = f(x[i]);
    U a, c;
    std::memcpy(&a, &s, sizeof a);
    std::memcpy(&c, &y[i], sizeof c);
    std::fprintf(fo, "%llx %llx\n", static_cast<unsigned long long>(a), static_cast<unsigned long long>(c));
  }
  std::fclose(fi);
  return std::fclose(fo) == 0 ? 0 : 2;
}
int main(int argc, char** argv) {
  if (argc != 4) return 2;
)";
  for (const Item& it : v) {
    const std::string T = it.dbl() ? "double, std::uint64_t" : "float, std::uint32_t";
    h += "  if (!std::strcmp(argv[1], \"" + it.name + "\")) return run<" + T + ">(argv[2], argv[3], " +
         it.name + ", " + it.name + "_n);\n";
  }
  h += "  return 2;\n}\n";
  return h;
}

TEST(FitExport, ExportedCppCompilesAndMatchesTheDesignerBitForBit) {
  const std::vector<Item> v = items();
  const fs::path dir = gelu::test::scratch_dir("gelulab_fit_export");
  for (const Item& it : v) {
    ExportOptions o;
    o.name = it.name;
    o.command = "export_test";
    std::ofstream(dir / (it.name + ".hpp")) << export_cpp(it.c, o);
  }
  std::ofstream(dir / "harness.cpp") << harness(v);
  const fs::path exe = dir / "harness", log = dir / "compile.log";
  const std::string cmd = std::string(GELU_TEST_CXX) + " -std=c++17 -O3 -march=native" +
                          (GELU_TEST_CXX_GNU ? " -fopt-info-vec-optimized" : "") + " -o " + exe.string() +
                          " " + (dir / "harness.cpp").string() + " > " + log.string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << slurp(log);
  const std::string opt = slurp(log);

  for (const Item& it : v) {
    SCOPED_TRACE(it.name);
    // Inputs: the test vectors (every value for f16/bf16) and points outside [A, B], NaN and ±inf.
    std::vector<double> xs = test_vectors(it.c, 2001).x;
    for (double x : {it.spec.a - 1, it.spec.b + 1, -1e30, 1e30, 0.0, -0.0, -HUGE_VAL, HUGE_VAL})
      xs.push_back(x);
    std::ofstream in(dir / (it.name + ".in"));
    for (double x : xs) {
      char buf[32];
      if (it.dbl()) {
        std::uint64_t b;
        std::memcpy(&b, &x, sizeof b);
        std::snprintf(buf, sizeof buf, "%llx\n", static_cast<unsigned long long>(b));
      } else {
        const float f = static_cast<float>(x);
        std::uint32_t b;
        std::memcpy(&b, &f, sizeof b);
        std::snprintf(buf, sizeof buf, "%x\n", b);
      }
      in << buf;
    }
    in.close();
    const fs::path out = dir / (it.name + ".out");
    const std::string run =
        exe.string() + " " + it.name + " " + (dir / (it.name + ".in")).string() + " " + out.string();
    ASSERT_EQ(std::system(run.c_str()), 0) << run;
    std::ifstream res(out);
    std::size_t i = 0, mismatches = 0;
    unsigned long long s = 0, l = 0;
    while (res >> std::hex >> s >> l) {
      ASSERT_LT(i, xs.size());
      unsigned long long want;
      if (it.dbl()) {
        const double y = it.c.eval(xs[i]);
        std::uint64_t b;
        std::memcpy(&b, &y, sizeof b);
        want = b;
      } else {
        const float y = it.c.eval(static_cast<float>(xs[i]));
        std::uint32_t b;
        std::memcpy(&b, &y, sizeof b);
        want = b;
      }
      if (s != want || l != want) {
        if (++mismatches <= 5)
          ADD_FAILURE() << "x = " << xs[i] << ": exported scalar " << std::hex << s << ", loop " << l
                        << ", designer " << want;
      }
      ++i;
    }
    EXPECT_EQ(i, xs.size());
    EXPECT_EQ(mismatches, 0u);
    // The array loop vectorized (GCC reports it on the loop's line in NAME.hpp).
    if (GELU_TEST_CXX_GNU && it.spec.form != Form::Piecewise) {
      const std::string src = slurp(dir / (it.name + ".hpp"));
      int line = 1;
      const std::size_t at = src.find("for (std::size_t i = 0; i < n; ++i)");
      for (std::size_t k = 0; k < at; ++k) line += src[k] == '\n';
      const std::string needle = it.name + ".hpp:" + std::to_string(line) + ":";
      bool vectorized = false;
      std::istringstream report(opt);
      for (std::string msg; std::getline(report, msg);)
        vectorized = vectorized || (msg.find(needle) != std::string::npos &&
                                    msg.find("loop vectorized") != std::string::npos);
      EXPECT_TRUE(vectorized) << it.name << "_n not vectorized; compiler said:\n" << opt;
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(FitExport, SourcesCarryHexCoefficientsAndTheCheckCommand) {
  Spec s;
  s.form = Form::HalfXPolyAbs;
  s.degree = 6;
  s.format = FormatId::F32;
  const Candidate c = fit(s);
  const TestVectors v = test_vectors(c);
  ExportOptions o;
  o.name = "my_gelu";
  o.vectors_file = "my_gelu_vectors.txt";
  o.check = check_command(c, v);
  for (const std::string& src : {export_cpp(c, o), export_glsl(c, o), export_cuda(c, o)}) {
    EXPECT_NE(src.find("my_gelu"), std::string::npos);
    EXPECT_NE(src.find(o.check), std::string::npos) << src;
    EXPECT_NE(src.find("my_gelu_vectors.txt"), std::string::npos);
    for (double k : c.coefficients) EXPECT_NE(src.find(hex_literal(k, true)), std::string::npos) << k;
  }
  EXPECT_NE(export_glsl(c, o).find("uintBitsToFloat(0x"), std::string::npos);
  EXPECT_NE(export_cuda(c, o).find("__global__ void my_gelu_kernel"), std::string::npos);
  // An absolute-error fit's gate is its largest absolute error over the vectors, which is stated exactly.
  EXPECT_EQ(o.check, "gelulab check --fn gelu --dtype f32 --pairs your_outputs.txt --max-abs " +
                         gelu::format_f64(v.max_abs));
  EXPECT_GT(v.max_abs, 0.0);
  // Vectors: "x y" lines, both values of the format.
  std::istringstream text(v.text());
  std::string line;
  std::size_t n = 0;
  while (std::getline(text, line)) {
    std::istringstream ls(line);
    float x, y;
    ASSERT_TRUE(ls >> x >> y) << line;
    ++n;
  }
  EXPECT_EQ(n, v.x.size());
  EXPECT_TRUE(is_identifier("gelu_fit2"));
  EXPECT_FALSE(is_identifier("2gelu"));
  EXPECT_FALSE(is_identifier("float"));
  EXPECT_FALSE(is_identifier("a-b"));
  EXPECT_FALSE(is_identifier(""));
}

}  // namespace

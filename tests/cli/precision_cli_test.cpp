// The precision lab on the command line, end to end with the built gelulab: error --dtype for every format,
// --all, several --fn (text, JSON, CSV, Markdown), --order 1; eval --dtype with shortest decimals per format;
// check with text, .npy pairs and two .npy columns, --max-ulp, --json. The numbers are checked against the
// core (gelu::precision) computing the same thing in this process.
//
// Index of this file:
//   [SECTION] error
//   [SECTION] eval
//   [SECTION] check
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"
#include "support/files.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::Format;
using gelu::FormatId;
using gelu::test::ExecResult;

fs::path scratch() {
  return gelu::test::scratch_dir("precision_cli");
}

ExecResult run(const std::vector<std::string>& args, const std::string& input = "") {
  return gelu::test::exec_gelulab(args, input, scratch().string(), {}, 120);
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

using gelu::test::slurp;

/// The number after "key": in a JSON text (the first occurrence after `from`).
double json_number(const std::string& json, const std::string& key, std::size_t from = 0) {
  const std::size_t at = json.find("\"" + key + "\":", from);
  EXPECT_NE(at, std::string::npos) << key << " not in " << json;
  if (at == std::string::npos) return NAN;
  return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

gelu::analysis::FunctionSpec gelu_ref() {
  return gelu::analysis::spec(*gelu::find_activation("gelu"));
}

// [SECTION] error

TEST(CliPrecisionError, AllValuesOfBf16MatchTheCore) {
  const ExecResult r = run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "bf16", "--all",
                            "--metric", "ulp", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const gelu::precision::Sweep s = gelu::precision::sweep(*gelu::zoo::find("tanh_form"), gelu_ref(),
                                                          {Format(FormatId::BF16), Format(FormatId::F32)});
  const std::size_t ulp = r.out.find("\"ulp\":{");
  ASSERT_NE(ulp, std::string::npos) << r.out;
  EXPECT_EQ(json_number(r.out, "n", ulp), static_cast<double>(s.errors.ulp_stats.n));
  EXPECT_EQ(json_number(r.out, "n", ulp), 65280.0);  // every finite bf16 value, ±0 counted twice
  EXPECT_EQ(json_number(r.out, "mismatch", ulp), static_cast<double>(s.errors.ulp_stats.mismatch));
  EXPECT_EQ(json_number(r.out, "max", ulp), s.errors.ulp_stats.max);
  EXPECT_EQ(json_number(r.out, "x_at_max", ulp), s.errors.ulp_stats.x_at_max);
  EXPECT_NE(r.out.find("\"dtype\":\"bf16\""), std::string::npos);
  EXPECT_NE(r.out.find("\"compute\":\"f32\""), std::string::npos);
  EXPECT_NE(r.out.find("\"samples\":65280,\"all\":true,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"abs\""), std::string::npos);
  // A range restricts the inputs to the values in it.
  const ExecResult part = run(
      {"error", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype", "bf16", "--all", "--range", "1:2", "--json"});
  ASSERT_EQ(part.status, 0) << part.err;
  EXPECT_EQ(json_number(part.out, "samples"), 129.0);
  EXPECT_EQ(json_number(part.out, "n"), 129.0);
}

TEST(CliPrecisionError, EveryFormatAndInt8Quantization) {
  for (const char* f : {"f64", "f32", "bf16", "f16", "e4m3", "e5m2", "int8"}) {
    const ExecResult r = run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype", f, "--json"});
    ASSERT_EQ(r.status, 0) << f << ": " << r.err;
    EXPECT_NE(r.out.find(std::string("\"dtype\":\"") + f + "\""), std::string::npos) << r.out;
    EXPECT_EQ(json_number(r.out, "samples"), 100001.0);
  }
  const ExecResult q = run({"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "int8", "--int8-range",
                            "-4:4", "--all", "--json"});
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_EQ(json_number(q.out, "samples"), 256.0);
  EXPECT_DOUBLE_EQ(json_number(q.out, "scale"), 4.0 / 127);
  EXPECT_EQ(json_number(q.out, "zero_point"), 0.0);
  EXPECT_EQ(json_number(q.out, "mismatch"), 0.0);  // the correctly rounded function
  const ExecResult a = run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "int8", "--scale",
                            "0.05", "--zero-point", "-100", "--all", "--json"});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(json_number(a.out, "zero_point"), -100.0);
  const ExecResult text = run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "e4m3", "--all"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("all 254 values of e4m3, computed in f32"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("mismatch: "), std::string::npos) << text.out;
}

TEST(CliPrecisionError, VerdictZeroAndOverflowLines) {
  const Format f16(FormatId::F16), bf16(FormatId::BF16);
  const ExecResult t =
      run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "f16", "--compute", "f16", "--all"});
  ASSERT_EQ(t.status, 0) << t.err;
  const gelu::precision::Tails tails = gelu::precision::tails(*gelu::zoo::find("tanh_form"), f16, f16);
  EXPECT_NE(t.out.find("overflow: an intermediate overflows in f16 from x = " +
                       gelu::format_in(*tails.overflow_above, f16) +
                       " up and from x = " + gelu::format_in(*tails.overflow_below, f16) + " down\n"),
            std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("verdict: identical to exact in f16 for x ≥ "), std::string::npos) << t.out;
  const ExecResult g = run({"error", "--fn", "gelu", "--vs", "gelu", "--dtype", "bf16", "--all"});
  ASSERT_EQ(g.status, 0) << g.err;
  const gelu::precision::Tails z = gelu::precision::tails(
      gelu::zoo::from_registry(*gelu::find_activation("gelu")), bf16, Format(FormatId::F32));
  EXPECT_NE(g.out.find("verdict: identical to exact in bf16 on all 65280 inputs\n"), std::string::npos)
      << g.out;
  EXPECT_NE(g.out.find("zero: gelu is 0 from x = " + gelu::format_in(*z.first_zero, bf16) +
                       " down (non-zero down to x = " + gelu::format_in(*z.lowest_nonzero, bf16) + ")"),
            std::string::npos)
      << g.out;
}

TEST(CliPrecisionError, SaysWhichSemanticsItUsed) {
  // One formula, two semantics, two answers: the registry's gelu_tanh correctly rounded, the zoo's tanh_form
  // as shipped in f32 (their largest bf16 ULP errors differ).
  const ExecResult reg =
      run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype", "bf16", "--all", "--json"});
  const ExecResult zoo =
      run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "bf16", "--all", "--json"});
  ASSERT_EQ(reg.status, 0) << reg.err;
  ASSERT_EQ(zoo.status, 0) << zoo.err;
  const gelu::json::Value r = gelu::json::parse(reg.out), z = gelu::json::parse(zoo.out);
  EXPECT_EQ(r.at("semantics").as_string(), "registry function gelu_tanh, correctly rounded to bf16");
  EXPECT_EQ(z.at("semantics").as_string(),
            "zoo entry tanh_form as shipped, computed in f32, rounded to bf16");
  EXPECT_NE(r.at("ulp").at("max").as_number(), z.at("ulp").at("max").as_number());
  const ExecResult text = run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "bf16", "--all"});
  EXPECT_NE(
      text.out.find("\nevaluated as: zoo entry tanh_form as shipped, computed in f32, rounded to bf16\n"),
      std::string::npos)
      << text.out;
}

TEST(CliPrecisionError, SeveralFunctionsAndFormatsMakeOneTable) {
  const std::vector<std::string> base = {"error",     "--fn", "tanh_form", "--fn",    "erf_naive", "--fn",
                                         "gelu_tanh", "--vs", "gelu",      "--dtype", "bf16,f16",  "--all"};
  const ExecResult text = run(base);
  ASSERT_EQ(text.status, 0) << text.err;
  const std::vector<std::string> l = lines(text.out);
  ASSERT_EQ(l.size(), 9u) << text.out;  // a title, the header, 3 functions x 2 formats and the semantics
  EXPECT_EQ(l[1].rfind("fn ", 0), 0u) << l[1];
  EXPECT_NE(l[2].find("tanh_form"), std::string::npos);
  EXPECT_NE(l[7].find("f16"), std::string::npos);
  // gelu_tanh (registry) and tanh_form (zoo) differ: the compute column and the last line say which is which.
  EXPECT_NE(l[4].find("gelu_tanh"), std::string::npos);
  EXPECT_NE(l[4].find(" - "), std::string::npos) << l[4];
  EXPECT_EQ(l[8].rfind("semantics: ", 0), 0u) << l[8];

  std::vector<std::string> args = base;
  args.push_back("--json");
  const ExecResult json = run(args);
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(json.out.front(), '[');
  std::size_t objects = 0;
  for (std::size_t at = 0; (at = json.out.find("{\"fn\":", at)) != std::string::npos; ++at) ++objects;
  EXPECT_EQ(objects, 6u);

  args = base;
  args.push_back("--markdown");
  const ExecResult md = run(args);
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_EQ(md.out.rfind("| fn | vs | format | compute |", 0), 0u) << md.out;
  EXPECT_EQ(lines(md.out).size(), 8u);

  const fs::path csv = scratch() / "summary.csv";
  args = base;
  args.insert(args.end(), {"--csv", csv.string()});
  ASSERT_EQ(run(args).status, 0);
  const std::vector<std::string> c = lines(slurp(csv));
  ASSERT_EQ(c.size(), 7u);
  EXPECT_EQ(c[0].rfind("fn,vs,format,compute,order,n,mismatch,", 0), 0u) << c[0];
  EXPECT_EQ(c[1].rfind("tanh_form,gelu,bf16,f32,0,65280,", 0), 0u) << c[1];
  args = base;
  args.insert(args.end(), {"--csv", "-"});
  const ExecResult out = run(args);
  EXPECT_EQ(out.out, slurp(csv));
}

TEST(CliPrecisionError, DerivativesAndCurves) {
  const ExecResult d = run({"error", "--fn", "tanh_form", "--fn", "erfc_form", "--vs", "gelu", "--order", "1",
                            "--dtype", "bf16", "--all", "--json"});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("\"fn\":\"tanh_form'\""), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("\"vs\":\"gelu'\""), std::string::npos) << d.out;
  const ExecResult none = run({"error", "--fn", "f16_lut", "--vs", "gelu", "--order", "1"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("no meaningful derivative"), std::string::npos) << none.err;
  // One function and format with --csv: the curve, values printed in the format's shortest decimals.
  const fs::path csv = scratch() / "curve.csv";
  ASSERT_EQ(run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "bf16", "--range", "2:2.05",
                 "--all", "--csv", csv.string()})
                .status,
            0);
  const std::vector<std::string> c = lines(slurp(csv));
  ASSERT_EQ(c.size(), 5u);  // 2, 2.015625, 2.03125, 2.046875
  EXPECT_EQ(c[0], "x,value,reference,abs,rel,ulp");
  EXPECT_EQ(c[1].rfind("2,1.95,", 0), 0u) << c[1];
}

// [SECTION] eval

TEST(CliPrecisionEval, RoundsInputsAndPrintsShortestDecimalsPerFormat) {
  const std::vector<std::string> in = {"-3",  "2.7",   "0.1", "1e-30", "-13.5",
                                       "-14", "65504", "300", "-0.75", "1.00390625000000001"};
  std::string input;
  for (const std::string& s : in) input += s + "\n";
  const gelu::Activation& g = *gelu::find_activation("gelu");
  for (FormatId id : {FormatId::BF16, FormatId::F16, FormatId::E4M3, FormatId::E5M2}) {
    const Format f(id);
    const ExecResult r = run({"eval", "--fn", "gelu", "--dtype", std::string(f.name())}, input);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> l = lines(r.out);
    ASSERT_EQ(l.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      const double x = *gelu::parse_in_format(in[i], f);
      const double want = f.round(g.eval(x));
      EXPECT_EQ(l[i], gelu::format_in(want, f)) << f.name() << " at " << in[i];
      EXPECT_EQ(gelu::parse_in_format(l[i], f), want) << l[i];
    }
  }
  const ExecResult bf =
      run({"eval", "--fn", "relu", "--dtype", "bf16"}, "1.00390625000000001 1.00390625 0.1\n");
  EXPECT_EQ(bf.out, "1.01\n1\n0.1\n");  // rounded once from the text: the first is above the midpoint
  const ExecResult q = run({"eval", "--fn", "gelu", "--dtype", "int8", "--scale", "0.03125"}, "-3 0.5 100\n");
  EXPECT_EQ(q.out, "0\n0.34\n3.97\n") << q.err;  // codes 0 (-0.004), 11, 127 (clamped)
  // A zoo entry as computed: the tanh form's x³ overflows f16 beyond 40.3, the result does not.
  const ExecResult t = run({"eval", "--fn", "tanh_form", "--dtype", "f16", "--compute", "f16"}, "41 -41\n");
  EXPECT_EQ(t.out, "41\n-0\n") << t.err;
  const ExecResult e = run({"eval", "--fn", "gelu", "--compute", "f16"}, "1");
  EXPECT_EQ(e.status, 2);
  EXPECT_NE(e.err.find("--compute: applies to zoo entries"), std::string::npos) << e.err;
}

// [SECTION] check

/// Writes a .npy file of shape `shape` and dtype descr with the raw little-endian data.
void write_npy(const fs::path& p, const std::string& descr, const std::string& shape,
               const std::string& data) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  std::ofstream(p, std::ios::binary) << out << h << data;
}

template <class T>
std::string raw(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

TEST(CliPrecisionCheck, TextPairsAgainstTheCorrectlyRoundedFunction) {
  const Format bf16(FormatId::BF16);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const std::vector<double> x = gelu::precision::inputs(bf16, -4, 4);
  std::string text = "x,y\n# correctly rounded except where stated\n";
  std::size_t off = 0;
  // The correctly rounded values: the double rounded once, except at the 128 bf16 subnormal ties of x/2
  // (PairCheck's rule, checked against MPFR in fit_cr_tests).
  gelu::precision::PairCheck reference(gelu::zoo::from_registry(g), bf16, 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    double y = reference.expected(x[i]);
    if (i % 100 == 7) {  // two values off
      y = bf16.from_ordinal(bf16.ordinal(y) + 2);
      ++off;
    }
    text +=
        gelu::format_in(x[i], bf16) + (i % 2 ? ", " : " ") + gelu::format_f32(static_cast<float>(y)) + "\n";
  }
  const fs::path p = scratch() / "pairs.txt";
  std::ofstream(p) << text;
  const ExecResult r = run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_number(r.out, "n"), static_cast<double>(x.size()));
  EXPECT_EQ(json_number(r.out, "max_ulp"), 2.0);
  EXPECT_EQ(json_number(r.out, "mismatch"), static_cast<double>(off));
  EXPECT_DOUBLE_EQ(json_number(r.out, "mean_ulp"),
                   2.0 * static_cast<double>(off) / static_cast<double>(x.size()));
  EXPECT_EQ(json_number(r.out, "x_at_max"), x[7]);
  EXPECT_NE(r.out.find("\"histogram\":[{\"min\":0,\"max\":0,\"count\":" + std::to_string(x.size() - off) +
                       "},{\"min\":1,\"max\":1,\"count\":0},{\"min\":2,\"max\":2,\"count\":" +
                       std::to_string(off) + "}]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"worst\":[{\"row\":10,"), std::string::npos) << r.out;  // line 10 holds x[7]
  // --max-ulp: the report, then exit 1 with one line on stderr.
  const ExecResult fail =
      run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--max-ulp", "1"});
  EXPECT_EQ(fail.status, 1);
  EXPECT_NE(fail.out.find("max ULP error 2 at x = "), std::string::npos) << fail.out;
  EXPECT_EQ(fail.err.rfind("gelulab check: max ULP error 2 exceeds --max-ulp 1", 0), 0u) << fail.err;
  EXPECT_EQ(run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--max-ulp", "2"}).status,
            0);
}

TEST(CliPrecisionCheck, NpyPairsAndColumns) {
  const Format bf16(FormatId::BF16);
  const gelu::Activation& g = *gelu::find_activation("gelu_tanh");
  std::vector<std::uint16_t> xb, yb;
  std::vector<float> pairs;
  for (std::uint32_t b = 0; b < 65536; b += 7) {
    const double x = bf16.decode(b);
    if (!std::isfinite(x)) continue;
    const double y = gelu::correctly_rounded(g, bf16, x);  // the subnormal ties of x/2 included
    xb.push_back(static_cast<std::uint16_t>(b));
    yb.push_back(static_cast<std::uint16_t>(bf16.encode(y)));
    pairs.push_back(static_cast<float>(x));
    pairs.push_back(static_cast<float>(y));
  }
  const fs::path px = scratch() / "x.npy", py = scratch() / "y.npy", pp = scratch() / "pairs.npy";
  const std::string n = std::to_string(xb.size());
  write_npy(px, "<u2", std::string("(").append(n).append(",)"), raw(xb));
  write_npy(py, "<u2", std::string("(").append(n).append(",)"), raw(yb));
  write_npy(pp, "<f4", std::string("(").append(n).append(", 2)"), raw(pairs));
  for (const std::vector<std::string>& a : {std::vector<std::string>{"--x", px.string(), "--y", py.string()},
                                            std::vector<std::string>{"--pairs", pp.string()}}) {
    std::vector<std::string> args = {"check", "--fn",   "gelu_tanh", "--dtype",
                                     "bf16",  "--json", "--max-ulp", "0"};
    args.insert(args.end(), a.begin(), a.end());
    const ExecResult r = run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(json_number(r.out, "n"), static_cast<double>(xb.size()));
    EXPECT_EQ(json_number(r.out, "mismatch"), 0.0);
    EXPECT_NE(r.out.find("\"worst\":[]"), std::string::npos) << r.out;
  }
  // Against exact GELU the same pairs differ on the negative lobe.
  const ExecResult vs =
      run({"check", "--fn", "gelu", "--dtype", "bf16", "--x", px.string(), "--y", py.string()});
  ASSERT_EQ(vs.status, 0) << vs.err;
  EXPECT_NE(vs.out.find("histogram (ULP: pairs):"), std::string::npos) << vs.out;
  EXPECT_NE(vs.out.find("worst (row: x, y, expected, ULP):"), std::string::npos) << vs.out;
}

// The gate a CI can trust (issue 53): no input is an error; %.9g prints are read as the floats they are; the
// special pairs are compared and reported; --range and budget files gate each range on its own.
TEST(CliPrecisionCheck, AGateThatDoesNotPassOnNothing) {
  const fs::path d = scratch() / "gate";
  fs::create_directories(d);
  for (const auto& [name, content] : {std::pair<std::string, std::string>{"empty.txt", ""},
                                      {"header.txt", "x,y\n"},
                                      {"quoted.txt", "\"x\",\"y\"\n"}}) {
    std::ofstream(d / name) << content;
    const ExecResult r = run(
        {"check", "--fn", "gelu", "--dtype", "f32", "--pairs", (d / name).string(), "--max-ulp", "1000000"});
    EXPECT_EQ(r.status, 2) << name;
    EXPECT_NE(r.err.find("--pairs '" + (d / name).string() + "': no pairs"), std::string::npos) << r.err;
  }
  write_npy(d / "empty.npy", "<f4", "(0,)", "");
  const ExecResult cols = run({"check", "--fn", "gelu", "--dtype", "f32", "--x", (d / "empty.npy").string(),
                               "--y", (d / "empty.npy").string()});
  EXPECT_EQ(cols.status, 2);
  EXPECT_NE(cols.err.find("no pairs"), std::string::npos) << cols.err;
}

TEST(CliPrecisionCheck, PrintfDigitsQuotedHeaderAndSpecials) {
  const Format f32(FormatId::F32);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const fs::path p = scratch() / "printf.csv";
  std::string text = "\"x\",\"y\"\n";
  std::size_t n = 0;
  for (double x = -6; x <= 6; x += 0.0625, ++n) {
    char line[96];
    std::snprintf(line, sizeof line, "%.9g,%.9g\n", x, static_cast<double>(static_cast<float>(g.eval(x))));
    text += line;
  }
  text += "-inf,nan\ninf,inf\n";  // torch 1.13's bf16 gelu(-inf) is NaN; the right value is -0
  std::ofstream(p) << text;
  const ExecResult r = run({"check", "--fn", "gelu", "--dtype", "f32", "--pairs", p.string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const gelu::json::Value v = gelu::json::parse(r.out);
  EXPECT_EQ(v.at("n").as_number(), static_cast<double>(n + 2));
  EXPECT_LE(v.at("max_ulp").as_number(), 1.0);  // the float of g.eval: within one ULP of the correct rounding
  EXPECT_EQ(v.at("specials").at("n").as_number(), 2.0);
  EXPECT_EQ(v.at("specials").at("mismatch").as_number(), 1.0);
  EXPECT_EQ(v.at("specials").at("differ").as_array()[0].at("x").as_string(), "-inf");
  EXPECT_EQ(v.at("specials").at("differ").as_array()[0].at("expected").as_string(), "-0");
  EXPECT_EQ(v.at("verdict").as_string(), "no budget");
  EXPECT_NE(v.at("semantics").as_string().find("correctly rounded"), std::string::npos);
  // Under a budget, the NaN breaks it (exit 1, naming x = -inf) unless the budget file ignores specials.
  const ExecResult gate =
      run({"check", "--fn", "gelu", "--dtype", "f32", "--pairs", p.string(), "--max-ulp", "1"});
  EXPECT_EQ(gate.status, 1);
  EXPECT_NE(gate.err.find("special pairs"), std::string::npos) << gate.err;
  EXPECT_NE(gate.err.find("first at x = -inf: y = nan, expected -0"), std::string::npos) << gate.err;
  const fs::path b = scratch() / "ignore.json";
  std::ofstream(b) << R"({"max_ulp": 1, "specials": "ignore"})";
  EXPECT_EQ(
      run({"check", "--fn", "gelu", "--dtype", "f32", "--pairs", p.string(), "--budget", b.string()}).status,
      0);
}

TEST(CliPrecisionCheck, RangesAndBudgetFile) {
  const Format bf16(FormatId::BF16);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  const std::vector<double> x = gelu::precision::inputs(bf16, -8, 8);
  std::string text;
  for (double xi : x) {
    double y = gelu::correctly_rounded(g, bf16, xi);  // the 128 subnormal ties of x/2 included
    if (xi < -5) y = 0;                               // a kernel that flushes its left tail on purpose
    text += gelu::format_in(xi, bf16) + " " + gelu::format_in(y, bf16) + "\n";
  }
  const fs::path p = scratch() / "tail.txt";
  std::ofstream(p) << text;
  // The whole range: far off in the tail.
  const ExecResult all =
      run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--max-ulp", "0"});
  EXPECT_EQ(all.status, 1);
  // --range skips the tail.
  const ExecResult core = run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--range",
                               "-5:8", "--max-ulp", "0"});
  EXPECT_EQ(core.status, 0) << core.err;
  EXPECT_NE(core.out.find("pairs outside it skipped"), std::string::npos) << core.out;
  // A budget per range: the tail gets an absolute bound, the core ULP 0.
  const fs::path b = scratch() / "tail_budget.json";
  std::ofstream(b)
      << R"({"ranges": [{"range": [-5, 8], "max_ulp": 0}, {"range": ["-inf", -5], "max_abs": 1e-5}]})";
  const ExecResult ok = run(
      {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--budget", b.string(), "--json"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  const gelu::json::Value v = gelu::json::parse(ok.out);
  EXPECT_EQ(v.at("verdict").as_string(), "pass");
  ASSERT_EQ(v.at("budgets").as_array().size(), 2u);
  EXPECT_EQ(v.at("budgets").as_array()[1].at("range").as_array()[0].as_string(), "-inf");
  std::ofstream(b)
      << R"({"ranges": [{"range": [-5, 8], "max_ulp": 0}, {"range": ["-inf", -5], "max_abs": 1e-9}]})";
  const ExecResult broken = run(
      {"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--budget", b.string(), "--json"});
  EXPECT_EQ(broken.status, 1);
  EXPECT_NE(broken.err.find("range [-inf, -5]: max_abs 1e-09"), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("(at x = "), std::string::npos) << broken.err;
  const gelu::json::Value w = gelu::json::parse(broken.out);
  EXPECT_EQ(w.at("verdict").as_string(), "fail");
  EXPECT_EQ(w.at("broken").as_array().size(), 1u);
  // --max-mismatch: a count or a percentage of the pairs.
  std::size_t tail = 0;
  for (double xi : x) tail += xi < -5 && bf16.round(g.eval(xi)) != 0;
  EXPECT_EQ(run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--max-mismatch",
                 std::to_string(tail)})
                .status,
            0);
  EXPECT_EQ(run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--max-mismatch",
                 std::to_string(tail - 1)})
                .status,
            1);
  EXPECT_EQ(
      run({"check", "--fn", "gelu", "--dtype", "bf16", "--pairs", p.string(), "--max-mismatch", "0.01%"})
          .status,
      1);
}

TEST(CliPrecisionCheck, RawBitNpyForTheNarrowFormats) {
  const fs::path d = scratch() / "bits";
  fs::create_directories(d);
  for (const char* name : {"e4m3", "e5m2"}) {
    const Format f = *Format::parse(name);
    const gelu::Activation& g = *gelu::find_activation("gelu");
    std::vector<std::uint8_t> xb, yb;
    for (unsigned b = 0; b < 256; ++b) {
      const double x = f.decode(b);
      if (!std::isfinite(x)) continue;
      xb.push_back(static_cast<std::uint8_t>(b));
      yb.push_back(static_cast<std::uint8_t>(f.encode(f.round(g.eval(x)))));
    }
    const std::string n = std::to_string(xb.size());
    write_npy(d / "x.npy", "|u1", "(" + n + ",)", raw(xb));
    write_npy(d / "y.npy", "|u1", "(" + n + ",)", raw(yb));
    const ExecResult r = run({"check", "--fn", "gelu", "--dtype", name, "--x", (d / "x.npy").string(), "--y",
                              (d / "y.npy").string(), "--max-ulp", "0", "--json"});
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(gelu::json::parse(r.out).at("n").as_number(), static_cast<double>(xb.size())) << name;
    const ExecResult wrong = run({"check", "--fn", "gelu", "--dtype", "bf16", "--x", (d / "x.npy").string(),
                                  "--y", (d / "y.npy").string()});
    EXPECT_EQ(wrong.status, 2);
    EXPECT_NE(wrong.err.find("holds 8-bit patterns"), std::string::npos) << wrong.err;
  }
}

// --json carries what the text says (verdict, zero, overflow); the tables print only the metrics asked for.
TEST(CliPrecisionError, JsonCarriesTheTextAndTablesOnlyTheMetricsAsked) {
  const ExecResult text = run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "bf16", "--all"});
  ASSERT_EQ(text.status, 0) << text.err;
  const ExecResult js =
      run({"error", "--fn", "tanh_form", "--vs", "gelu", "--dtype", "bf16", "--all", "--json"});
  ASSERT_EQ(js.status, 0) << js.err;
  const gelu::json::Value v = gelu::json::parse(js.out);
  const std::string verdict = v.at("verdict").as_string();
  EXPECT_NE(text.out.find("verdict: " + verdict + "\n"), std::string::npos) << text.out;
  const std::string zero = v.at("zero").at("from").as_string();
  EXPECT_NE(text.out.find("is 0 from x = " + zero + " down (non-zero down to x = " +
                          v.at("zero").at("lowest_nonzero").as_string() + ")"),
            std::string::npos)
      << text.out;
  const std::string above = v.at("overflow").at("above").as_string();
  EXPECT_NE(
      text.out.find("overflows in " + v.at("overflow").at("compute").as_string() + " from x = " + above),
      std::string::npos)
      << text.out;
  for (const char* m : {"abs", "rel", "ulp"}) {
    const ExecResult md = run({"error", "--fn", "tanh_form", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype",
                               "bf16", "--markdown", "--metric", m, "--samples", "1001"});
    ASSERT_EQ(md.status, 0) << md.err;
    const std::string head = md.out.substr(0, md.out.find('\n'));
    for (const char* other : {"abs", "rel", "ulp"}) {
      const bool want = std::string(other) == m;
      EXPECT_EQ(head.find(std::string("max_") + other) != std::string::npos, want) << m << ": " << head;
    }
    const ExecResult csv = run({"error", "--fn", "tanh_form", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype",
                                "bf16", "--csv", "-", "--metric", m, "--samples", "1001"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    const std::string chead = csv.out.substr(0, csv.out.find('\n'));
    for (const char* other : {"abs", "rel", "ulp"})
      EXPECT_EQ(chead.find(std::string("max_") + other) != std::string::npos, std::string(other) == m)
          << chead;
  }
  // The maximum ULP error is a count: an integer in the tables.
  const ExecResult md = run({"error", "--fn", "tanh_form", "--fn", "gelu_tanh", "--vs", "gelu", "--dtype",
                             "bf16", "--markdown", "--metric", "ulp", "--all"});
  EXPECT_EQ(md.out.find("e+0"), std::string::npos) << md.out;
}

}  // namespace

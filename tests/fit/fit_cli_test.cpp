// gelulab fit end to end: the text and JSON outputs, the exports and vectors written, and every class of bad
// input (degree above 30, an empty or reversed range, an unknown form, a weight that makes no sense for the
// target, non-convergence, misuse of the options) as one line on stderr with exit status 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/fit.hpp"
#include "gelu/json.hpp"
#include "support/files.hpp"
#include "support/run_gelulab.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::test::exec_gelulab;
using gelu::test::ExecResult;

fs::path scratch() {
  return gelu::test::scratch_dir("gelulab_fit_cli");
}

ExecResult fit(std::vector<std::string> args) {
  args.insert(args.begin(), "fit");
  return exec_gelulab(args, "", scratch().string(), {}, 120);
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

using gelu::test::slurp;

void expect_usage_error(const ExecResult& r, const std::string& needle) {
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("gelulab fit: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
}

const std::vector<std::string> kBase = {"--target", "gelu",    "--form", "half_x_poly_abs", "--degree",
                                        "6",        "--range", "-4:4",   "--weight",        "abs"};

TEST(CliFit, TextOutputListsCoefficientsAsHexAndDecimal) {
  std::vector<std::string> a = kBase;
  a.insert(a.end(), {"--format", "f32"});
  const ExecResult r = fit(a);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> l = lines(r.out);
  ASSERT_GE(l.size(), 12u);
  EXPECT_NE(r.out.find("coef   hex"), std::string::npos);
  for (int k = 0; k <= 6; ++k)
    EXPECT_NE(r.out.find("\nc" + std::to_string(k) + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0x1."), std::string::npos);
  EXPECT_NE(r.out.find("max error  0.00134"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equioscillation: 8 reference points"), std::string::npos);
  EXPECT_NE(r.out.find("check  gelulab check --fn gelu --dtype f32 --pairs your_outputs.txt --max-abs "),
            std::string::npos)
      << r.out;
}

TEST(CliFit, JsonHasTheSpecifiedKeys) {
  std::vector<std::string> a = kBase;
  a.insert(a.end(), {"--format", "f32", "--json"});
  const ExecResult r = fit(a);
  ASSERT_EQ(r.status, 0) << r.err;
  const gelu::json::Value v = gelu::json::parse(r.out);
  const gelu::json::Object& o = v.as_object();
  EXPECT_EQ(o.at("form").as_string(), "half_x_poly_abs");
  EXPECT_EQ(o.at("degree").as_number(), 6);
  ASSERT_EQ(o.at("range").as_array().size(), 2u);
  EXPECT_EQ(o.at("range").as_array()[0].as_number(), -4);
  EXPECT_EQ(o.at("range").as_array()[1].as_number(), 4);
  const auto& c = o.at("coefficients").as_array();
  ASSERT_EQ(c.size(), 7u);
  for (const auto& k : c) EXPECT_EQ(static_cast<double>(static_cast<float>(k.as_number())), k.as_number());
  EXPECT_GT(o.at("max_error").as_number(), 1.3e-3);
  EXPECT_LT(o.at("max_error").as_number(), 1.4e-3);
  EXPECT_GE(o.at("x_at_max").as_number(), -4);
  EXPECT_LE(o.at("x_at_max").as_number(), 4);
  EXPECT_TRUE(o.at("certified").is_bool());
#ifdef GELU_TEST_HAVE_SOLLYA
  EXPECT_TRUE(o.at("certified").as_bool());
#endif
  EXPECT_EQ(o.at("reference").as_array().size(), 8u);
  EXPECT_EQ(o.at("cost").as_object().at("multiply_adds").as_number(), 7);
}

TEST(CliFit, OtherForms) {
  const ExecResult rat = fit({"--form", "rational", "--degree", "3,3", "--range", "-4:4", "--json"});
  ASSERT_EQ(rat.status, 0) << rat.err;
  const gelu::json::Value rv = gelu::json::parse(rat.out);
  EXPECT_EQ(rv.as_object().at("degree").as_array().size(), 2u);
  EXPECT_EQ(rv.as_object().at("coefficients").as_array().size(), 8u);
  const ExecResult pw = fit({"--form", "piecewise", "--pieces", "4", "--degree", "3", "--range", "-4:4",
                             "--format", "f16", "--json"});
  ASSERT_EQ(pw.status, 0) << pw.err;
  const gelu::json::Value pv = gelu::json::parse(pw.out);
  EXPECT_EQ(pv.as_object().at("coefficients").as_array().size(), 16u);
  EXPECT_EQ(pv.as_object().at("breakpoints").as_array().size(), 5u);
  for (const char* form : {"poly", "even"}) {
    const ExecResult r = fit({"--target", "erf", "--form", form, "--degree", "5", "--range", "-3:3"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("max |GELU - candidate|"), std::string::npos);
  }
}

TEST(CliFit, WritesExportsAndVectors) {
  const fs::path d = scratch();
  std::vector<std::string> a = kBase;
  a.insert(a.end(), {"--format", "bf16", "--export-cpp", (d / "g.hpp").string(), "--export-glsl",
                     (d / "g.glsl").string(), "--export-cuda", (d / "g.cuh").string(), "--vectors",
                     (d / "g.txt").string(), "--name", "my_gelu"});
  const ExecResult r = fit(a);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(slurp(d / "g.hpp").find("inline float my_gelu(float x)"), std::string::npos);
  EXPECT_NE(slurp(d / "g.glsl").find("float my_gelu(float x)"), std::string::npos);
  EXPECT_NE(slurp(d / "g.cuh").find("__global__ void my_gelu_kernel"), std::string::npos);
  const std::vector<std::string> v = lines(slurp(d / "g.txt"));
  EXPECT_GT(v.size(), 1000u);  // every bf16 value in [-4, 4]
  float x, y;
  std::istringstream first(v.front());
  EXPECT_TRUE(first >> x >> y);
  EXPECT_EQ(x, -4.0f);
  // The check command is printed and written into the code's comment.
  const std::size_t at = r.out.find("gelulab check --fn gelu --dtype bf16");
  ASSERT_NE(at, std::string::npos);
  const std::string check = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(slurp(d / "g.hpp").find(check), std::string::npos);
  // With --vectors the gate is a budget file next to them: ranges, each with the vectors' own figures.
  EXPECT_NE(check.find("--budget " + (d / "g.txt").string() + ".budget.json"), std::string::npos) << check;
  EXPECT_NE(slurp(d / "g.txt.budget.json").find("\"ranges\""), std::string::npos);
}

TEST(CliFit, BadInputIsOneLineAndStatus2) {
  const auto with = [](std::vector<std::string> extra) {
    std::vector<std::string> a = kBase;
    for (std::size_t i = 0; i + 1 < extra.size(); i += 2) {
      bool replaced = false;
      for (std::size_t j = 0; j + 1 < a.size(); j += 2)
        if (a[j] == extra[i]) a[j + 1] = extra[i + 1], replaced = true;
      if (!replaced) a.insert(a.end(), {extra[i], extra[i + 1]});
    }
    return a;
  };
  expect_usage_error(fit(with({"--degree", "31"})), "--degree: degree 31 is above 30");
  expect_usage_error(fit(with({"--degree", "-2"})), "is negative");
  expect_usage_error(fit(with({"--degree", "six"})), "--degree: 'six' is not an integer");
  expect_usage_error(fit(with({"--range", "1:1"})), "is an empty range");
  expect_usage_error(fit(with({"--range", "4:-4"})), "is reversed");
  expect_usage_error(fit(with({"--range", "-inf:4"})), "finite ends");
  expect_usage_error(fit(with({"--range", "-1e7:4"})), "beyond");
  expect_usage_error(fit(with({"--form", "spline"})),
                     "--form: unknown form 'spline' (one of poly, half_x_poly_abs");
  expect_usage_error(fit(with({"--weight", "rel"})), "relative error makes no sense for gelu on [-4, 4]");
  expect_usage_error(fit(with({"--weight", "ulp", "--format", "f32"})),
                     "an error in ULPs makes no sense for gelu");
  expect_usage_error(fit(with({"--weight", "ulp", "--range", "0.5:4"})), "choose f32, bf16 or f16");
  expect_usage_error(fit(with({"--weight", "bogus"})), "--weight: 'bogus' is not one of abs, rel, ulp");
  expect_usage_error(fit(with({"--target", "tanh"})),
                     "--target: 'tanh' is not one of gelu, phi, erf, gelu_prime");
  expect_usage_error(fit(with({"--format", "e4m3"})), "--format: 'e4m3' is not one of f64, f32, bf16, f16");
  expect_usage_error(fit(with({"--clamp", "wall"})), "--clamp");
  expect_usage_error(fit(with({"--degree", "3,2"})), "M,N is for --form rational");
  expect_usage_error(fit({"--form", "rational", "--degree", "3", "--range", "-4:4"}), "needs M,N");
  expect_usage_error(fit({"--form", "rational", "--degree", "3,0", "--range", "-4:4"}), "at least 1");
  expect_usage_error(fit({"--form", "rational", "--degree", "3,3", "--range", "-4:4", "--method", "lsq"}),
                     "least squares");
  expect_usage_error(fit({"--form", "piecewise", "--degree", "3", "--range", "-4:4"}), "needs --pieces");
  expect_usage_error(fit({"--form", "piecewise", "--pieces", "65", "--degree", "3", "--range", "-4:4"}),
                     "[1, 64]");
  expect_usage_error(fit(with({"--pieces", "4"})), "--pieces is for --form piecewise");
  expect_usage_error(fit(with({"--breakpoints", "optimized"})), "--breakpoints is for --form piecewise");
  expect_usage_error(fit({"--degree", "4", "--range", "-4:4"}), "missing --form");
  expect_usage_error(fit({"--form", "poly", "--range", "-4:4"}), "missing --degree");
  expect_usage_error(fit({"--form", "poly", "--degree", "4"}), "missing --range");
  expect_usage_error(fit({"--form", "poly", "--degree", "4", "--degree", "5", "--range", "-4:4"}),
                     "--degree is given 2 times");
  expect_usage_error(fit(with({"--name", "2bad"})), "--name: '2bad' is not an identifier");
  expect_usage_error(fit(with({"--export-cpp", (scratch() / "no_dir" / "x.hpp").string()})),
                     "--export-cpp: cannot write");
  expect_usage_error(fit(with({"--vectors", scratch().string()})), "--vectors: cannot write");
  // Non-convergence: a rational fit whose every start meets a pole.
  expect_usage_error(fit({"--form", "rational", "--degree", "5,4", "--range", "-4:4"}),
                     "rational fit did not converge");
}

TEST(CliFit, HelpShowsUsage) {
  const ExecResult r = fit({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("usage: gelulab fit --form poly|half_x_poly_abs|even|rational|piecewise"),
            std::string::npos);
}

}  // namespace

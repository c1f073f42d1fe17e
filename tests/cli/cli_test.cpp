// gelulab eval / error / props end to end: outputs, one-line errors with exit status 2, --help, volume.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/bench.hpp"
#include "gelu/format.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string temp_path(const std::string& name) {
  return (gelu::test::scratch_dir("cli") / name).string();
}

using gelu::test::slurp;

/// Runs gelulab with args, stdin from `input` (through a file), capturing stdout and stderr in files.
Result run(const std::vector<std::string>& args, const std::string& input = "") {
  const std::string in = temp_path("in"), out = temp_path("out"), err = temp_path("err");
  std::ofstream(in, std::ios::binary) << input;
  const pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen(in.c_str(), "rb", stdin) || !std::freopen(out.c_str(), "wb", stdout) ||
        !std::freopen(err.c_str(), "wb", stderr))
      _exit(127);
    std::vector<char*> argv;
    std::string exe = GELULAB_EXE;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  Result r;
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string l;
  while (std::getline(ss, l)) v.push_back(l);
  return v;
}

/// A usage error: exit 2, nothing on stdout, exactly one line on stderr starting "gelulab CMD: " and
/// containing `needle`.
void expect_usage_error(const Result& r, const std::string& cmd, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("gelulab " + cmd + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
}

// [SECTION] eval

TEST(CliEval, OneResultPerInputInShortestRoundTripForm) {
  const Result r = run({"eval", "--fn", "gelu"}, "-0.75 1 0x1.8p-3\n  nan\tinf -inf\n-1e400 0\n");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> l = lines(r.out);
  ASSERT_EQ(l.size(), 8u);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  EXPECT_EQ(l[0], gelu::format_f64(g.eval(-0.75)));
  EXPECT_EQ(gelu::parse_f64(l[1]), g.eval(1.0));  // reads back to the same double
  EXPECT_EQ(l[2], gelu::format_f64(g.eval(0x1.8p-3)));
  EXPECT_EQ(l[3], "nan");
  EXPECT_EQ(l[4], "inf");
  EXPECT_EQ(l[5], "-0");  // f(-inf) = -0
  EXPECT_EQ(l[6], "-0");  // -1e400 overflows to -inf
  EXPECT_EQ(l[7], "0");
}

// gelu_tanh (the registry function, correctly rounded) and tanh_form (the zoo entry, as shipped in f32) are
// one formula with two semantics: over bf16's deep negative inputs their results differ, and each run's
// stderr says which semantics it used.
TEST(CliEval, SaysWhichSemanticsItUsed) {
  std::string xs;
  for (double x = -9.0; x <= -3.0; x += 1.0 / 64) xs += gelu::format_f64(x) + "\n";
  const Result reg = run({"eval", "--fn", "gelu_tanh", "--dtype", "bf16"}, xs);
  const Result zoo = run({"eval", "--fn", "tanh_form", "--dtype", "bf16"}, xs);
  ASSERT_EQ(reg.status, 0) << reg.err;
  ASSERT_EQ(zoo.status, 0) << zoo.err;
  EXPECT_EQ(reg.err, "gelulab eval: evaluated as registry function gelu_tanh, correctly rounded to bf16\n");
  EXPECT_EQ(zoo.err,
            "gelulab eval: evaluated as zoo entry tanh_form as shipped, computed in f32, rounded to bf16\n");
  const std::vector<std::string> a = lines(reg.out), b = lines(zoo.out);
  ASSERT_EQ(a.size(), b.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i];
  EXPECT_GT(differ, 0u) << "the two semantics gave the same bf16 results on [-9, -3]";
  // f64 and f32 name their own paths.
  EXPECT_EQ(run({"eval", "--fn", "gelu"}, "1\n").err,
            "gelulab eval: evaluated as registry function gelu, in double\n");
  EXPECT_EQ(run({"eval", "--fn", "gelu", "--dtype", "f32"}, "1\n").err,
            "gelulab eval: evaluated as registry function gelu, its float path\n");
}

TEST(CliEval, FloatDtypeOrdersAndParameters) {
  const Result r =
      run({"eval", "--fn", "gelu_tanh", "--dtype", "f32", "--order", "1", "--param", "c=0.035"}, "0.5 -2");
  ASSERT_EQ(r.status, 0) << r.err;
  const gelu::Activation& a = *gelu::find_activation("gelu_tanh");
  gelu::Params p = a.defaults();
  p[0] = 0.035;
  const std::vector<std::string> l = lines(r.out);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], gelu::format_f32(a.eval(0.5f, 1, &p)));
  EXPECT_EQ(l[1], gelu::format_f32(a.eval(-2.0f, 1, &p)));
  EXPECT_NE(l[0], gelu::format_f32(a.eval(0.5f, 1)));  // the parameter was used
  // Float text is the shortest for float: 0.1f prints as 0.1, not 0.10000000149011612.
  const Result id = run({"eval", "--fn", "relu", "--dtype", "f32"}, "0.1");
  EXPECT_EQ(id.out, "0.1\n");
}

TEST(CliEval, Bf16SubnormalTieIsCorrectlyRounded) {
  // x = 2^-133, bf16's smallest subnormal: the registry's double is x/2 exactly, the midpoint of 0 and x,
  // while GELU(x) = x/2 + x²/√(2π) + … lies above it: the correctly rounded bf16 value is x, not 0 (ties to
  // even). x = -3·2^-133: -1.5·2^-133 lies between -2^-132 (even) and -2^-133; GELU(x) is above, so -2^-133.
  const Result r =
      run({"eval", "--fn", "gelu", "--dtype", "bf16"}, "9.183549615799121e-41 -2.7550648847397363e-40");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> l = lines(r.out);
  ASSERT_EQ(l.size(), 2u);
  const gelu::Format b(gelu::FormatId::BF16);
  EXPECT_EQ(b.round(std::stod(l[0])), std::ldexp(1.0, -133)) << l[0];
  EXPECT_EQ(b.round(std::stod(l[1])), -std::ldexp(1.0, -133)) << l[1];
}

TEST(CliEval, ReadsAFileAndEmptyInput) {
  const std::string path = temp_path("numbers.txt");
  std::ofstream(path) << "1\n2\n3\n";
  const Result r = run({"eval", "--fn", "relu", "--input", path});
  std::remove(path.c_str());
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "1\n2\n3\n");
  const Result empty = run({"eval", "--fn", "gelu"}, "  \n\n");
  EXPECT_EQ(empty.status, 0);
  EXPECT_EQ(empty.out, "");
}

TEST(CliEval, BadTokenNamesItsLineAndNothingIsWritten) {
  const Result r = run({"eval", "--fn", "gelu"}, "1 2\n3\n\n4 abc 5\n");
  expect_usage_error(r, "eval", "line 4: 'abc' is not a number");
  expect_usage_error(run({"eval", "--fn", "gelu"}, "1.5e"), "eval", "line 1: '1.5e' is not a number");
}

TEST(CliEval, UsageErrors) {
  expect_usage_error(run({"eval", "--fn", "nope"}), "eval", "unknown function 'nope'");
  expect_usage_error(run({"eval"}), "eval", "missing --fn");
  expect_usage_error(run({"eval", "--fn", "gelu", "--param", "c=1"}), "eval", "unknown parameter 'c'");
  expect_usage_error(run({"eval", "--fn", "gelu_tanh", "--param", "c=5"}), "eval", "outside [0, 0.1]");
  expect_usage_error(run({"eval", "--fn", "gelu_tanh", "--param", "c=x"}), "eval", "is not a number");
  expect_usage_error(run({"eval", "--fn", "gelu_tanh", "--param", "c"}), "eval", "is not NAME=VALUE");
  expect_usage_error(run({"eval", "--fn", "elu", "--param", "alpha=nan"}), "eval", "outside");
  expect_usage_error(run({"eval", "--fn", "gelu", "--order", "3"}), "eval", "--order");
  expect_usage_error(run({"eval", "--fn", "gelu", "--dtype", "f12"}), "eval", "--dtype");
  expect_usage_error(run({"eval", "--fn", "gelu", "--frobnicate"}), "eval", "unknown option '--frobnicate'");
  expect_usage_error(run({"eval", "--fn", "gelu", "--input", "/nonexistent/file"}), "eval", "cannot read");
  expect_usage_error(run({"eval", "--fn", "gelu", "--input", "/"}), "eval", "is a directory");
  expect_usage_error(run({"eval", "--fn", "gelu", "--backend", "tpu"}), "eval", "--backend");
  expect_usage_error(run({"eval", "--fn", "gelu", "--backend", "gpu", "--dtype", "f64"}), "eval", "float32");
}

TEST(CliEval, GpuBackendEvaluatesOrExplains) {
  const Result r = run({"eval", "--fn", "gelu", "--backend", "gpu"}, "0.5 -1");
  if (r.status == 0) {
    // A GPU is there: results are float32 within a couple of ULP of the CPU's.
    const std::vector<std::string> l = lines(r.out);
    ASSERT_EQ(l.size(), 2u);
    EXPECT_NEAR(gelu::parse_f32(l[0]).value(), gelu::find_activation("gelu")->eval(0.5f), 1e-6f);
  } else {
    expect_usage_error(r, "eval", "--backend gpu");
  }
}

TEST(CliEval, GpuSubnormalsMatchTheCpuOrANoteSaysWhy) {
  // 1e-40 is a subnormal input (GELU ≈ 5e-41), −13.5 gives a subnormal result (≈ −1.1e-40). A GPU that keeps
  // subnormals (llvmpipe) matches the CPU there and says nothing; one that flushes them (NVIDIA) prints ±0
  // and a note on stderr that counts those results and names the cause.
  const Result r = run({"eval", "--fn", "gelu", "--backend", "gpu"}, "1e-40 -13.5 1");
  if (r.status != 0) {
    expect_usage_error(r, "eval", "--backend gpu");
    return;
  }
  const std::vector<std::string> l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;
  const gelu::Activation* a = gelu::find_activation("gelu");
  const float xs[3] = {1e-40f, -13.5f, 1.0f};
  const bool note = r.err.find("subnormals flushed to zero") != std::string::npos;
  for (int i = 0; i < 3; ++i) {
    const float gpu = gelu::parse_f32(l[static_cast<std::size_t>(i)]).value();
    const float cpu = a->eval(xs[i]);
    if (note && i < 2) {
      EXPECT_EQ(gpu, 0.0f) << l[static_cast<std::size_t>(i)];
    } else {
      EXPECT_NEAR(gpu, cpu, std::fabs(cpu) * 1e-6f) << "x=" << xs[i] << " " << r.err;
    }
  }
  if (note) {
    EXPECT_NE(r.err.find("2 of 3 results differ"), std::string::npos) << r.err;
  } else {
    EXPECT_EQ(r.err, "gelulab eval: evaluated as registry function gelu, its float path, on the GPU\n");
  }
}

TEST(CliEval, TenMillionNumbers) {
  const std::string path = temp_path("ten_million.txt");
  {
    std::string text;
    text.reserve(10'000'000 * 8);
    for (int i = 0; i < 10'000'000; ++i) {
      text += std::to_string((i % 20001) - 10000);
      text += (i % 8 == 7) ? '\n' : ' ';
    }
    std::ofstream(path, std::ios::binary) << text;
  }
  const std::string out = temp_path("ten_million.out");
  const std::string cmd =
      std::string(GELULAB_EXE) + " eval --fn gelu --dtype f32 --input " + path + " > " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out, std::ios::binary);
  std::size_t n = 0;
  std::string l, last;
  while (std::getline(in, l)) {
    ++n;
    last = l;
  }
  std::remove(path.c_str());
  std::remove(out.c_str());
  EXPECT_EQ(n, 10'000'000u);
  EXPECT_EQ(last, gelu::format_f32(
                      gelu::find_activation("gelu")->eval(static_cast<float>((9'999'999 % 20001) - 10000))));
}

// [SECTION] error

TEST(CliError, ReportsMaxWhereAndMean) {
  const Result r = run({"error", "--fn", "gelu_tanh", "--vs", "gelu", "--range", "-6:6", "--samples", "12001",
                        "--metric", "abs", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"abs\":{\"max\":0.000473"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"samples\":12001"), std::string::npos);
  EXPECT_EQ(r.out.find("\"ulp\""), std::string::npos);  // only the requested metric
  const Result text = run({"error", "--fn", "gelu", "--vs", "gelu"});
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("ulp    0 "), std::string::npos) << text.out;
}

TEST(CliError, WritesTheCurveAsCsv) {
  const std::string csv = temp_path("curve.csv");
  const Result r =
      run({"error", "--fn", "relu", "--vs", "gelu", "--range", "-1:1", "--samples", "5", "--csv", csv});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> l = lines(slurp(csv));
  std::remove(csv.c_str());
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(l[0], "x,value,reference,abs,rel,ulp");
  EXPECT_EQ(l[1].rfind("-1,0,", 0), 0u) << l[1];
  EXPECT_EQ(l[3], "0,0,0,0,0,0");
}

TEST(CliError, UsageErrors) {
  expect_usage_error(run({"error", "--fn", "gelu"}), "error", "missing --vs");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "what"}), "error", "unknown function 'what'");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--range", "1:-1"}), "error", "reversed");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--range", "2:2"}), "error",
                     "empty range");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--range", "2"}), "error", "not A:B");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--range", "0:inf"}), "error", "finite");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--samples", "-5"}), "error", "--samples");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--samples", "0"}), "error", "--samples");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--samples", "1000000000000"}), "error",
                     "out of range");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--samples", "ten"}), "error",
                     "not an integer");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--metric", "max"}), "error", "--metric");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--vs-param", "alpha=1"}), "error",
                     "unknown parameter 'alpha'");
  expect_usage_error(run({"error", "--fn", "gelu", "--vs", "relu", "--csv", "/nonexistent/dir/x.csv"}),
                     "error", "cannot write");
}

// [SECTION] props

TEST(CliProps, GeluMinimumAndAsymptotes) {
  const Result r = run({"props", "--fn", "gelu"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("global minimum:  f(-0.7517915246935645) = -0.16997120747990366"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("x = -1.4142135623730951"), std::string::npos);
  EXPECT_NE(r.out.find("asymptote x → −∞:  y = 0\n"), std::string::npos);
  EXPECT_NE(r.out.find("asymptote x → +∞:  y = x\n"), std::string::npos);
  const Result j = run({"props", "--fn", "elu", "--param", "alpha=2", "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_NE(j.out.find("\"asymptote_minus_inf\":{\"slope\":0,\"intercept\":-2}"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"global_minimum\":null"), std::string::npos);
}

TEST(CliProps, UsageErrors) {
  expect_usage_error(run({"props"}), "props", "missing --fn");
  expect_usage_error(run({"props", "--fn", "gelu", "--range", "5:1"}), "props", "reversed");
  expect_usage_error(run({"props", "--fn", "silu", "--param", "beta=100"}), "props", "outside");
  expect_usage_error(run({"props", "--fn", "gelu", "extra"}), "props", "unexpected argument 'extra'");
}

// [SECTION] help and subcommands

TEST(Cli, HelpOnEverySubcommand) {
  for (const char* cmd : {"eval", "error", "props"}) {
    const Result r = run({cmd, "--help"});
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_EQ(r.out.rfind(std::string("usage: gelulab ") + cmd, 0), 0u) << r.out;
  }
  const Result r = run({"frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'frobnicate'"), std::string::npos);
}

}  // namespace

namespace {

TEST(CliBench, PathAndThreadsSelectTheKernelsTimed) {
  // --path both: one row per path for each cell, each saying which kernels it timed; --threads 1 is reported.
  const Result r = run({"bench", "--fn", "gelu_tanh", "--fn", "silu", "--size", "4096", "--reps", "2",
                        "--path", "both", "--threads", "1", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const gelu::json::Value v = gelu::json::parse(r.out);
  EXPECT_EQ(v.at("cpu_threads").as_number(), 1);
  EXPECT_EQ(v.at("cpu_path").as_string(), "both");
  EXPECT_EQ(v.at("cpu_model").as_string(), gelu::bench::cpu_model());  // the machine the figures came from
  const auto& rows = v.at("results").as_array();
  ASSERT_EQ(rows.size(), 4u);
  int fast = 0, accurate = 0;
  for (const auto& row : rows) {
    const std::string path = row.at("path").as_string();
    fast += path == "fast";
    accurate += path == "accurate";
    EXPECT_EQ(row.at("backend").as_string(), path == "fast" ? "cpu" : "cpu_accurate");
    EXPECT_GT(row.at("wall").at("median_s").as_number(), 0);
  }
  EXPECT_EQ(fast, 2);
  EXPECT_EQ(accurate, 2);
  // The text output names the kernels and the threads.
  const Result t =
      run({"bench", "--fn", "gelu", "--size", "100", "--reps", "1", "--path", "accurate", "--threads", "2"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("CPU: accurate kernels, 2 threads"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("CPU model: " + gelu::bench::cpu_model() + "\n"), std::string::npos) << t.out;
  // Usage errors name the option.
  const Result bad = run({"bench", "--fn", "gelu", "--path", "quick"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--path"), std::string::npos) << bad.err;
  const Result gpu = run({"bench", "--fn", "gelu", "--backend", "gpu", "--threads", "2"});
  EXPECT_EQ(gpu.status, 2);
  EXPECT_NE(gpu.err.find("--threads"), std::string::npos) << gpu.err;
}

}  // namespace

// gelulab error: one function against another over a range (gelu::analysis::compare): max error and
// where, mean error, per metric; the curve as CSV on request.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "cli/json_writer.hpp"
#include "gelu/analysis.hpp"
#include "gelu/fileio.hpp"
#include "gelu/numio.hpp"

namespace gelu::cli {
namespace {

using analysis::Dtype;
using analysis::ErrorMetric;

// 10^7 samples hold ~0.5 GB of curves (1.6 GB while --csv formats them) and take a few seconds; 10^8 would
// need 5 GB, 16 GB with --csv.
constexpr std::int64_t kMaxSamples = 10'000'000;

std::vector<ErrorMetric> parse_metrics(const std::optional<std::string>& m) {
  if (!m) return {ErrorMetric::Abs, ErrorMetric::Rel, ErrorMetric::Ulp};
  if (*m == "abs") return {ErrorMetric::Abs};
  if (*m == "rel") return {ErrorMetric::Rel};
  if (*m == "ulp") return {ErrorMetric::Ulp};
  throw UsageError("--metric: " + quote(*m) + " is not one of abs, rel, ulp");
}

std::string describe(const analysis::FunctionSpec& s) {
  std::string d = s.fn->id;
  for (std::size_t i = 0; i < s.fn->params.size(); ++i)
    d += std::string(i ? "," : "(") + s.fn->params[i].name + "=" + format_f64(s.params[static_cast<int>(i)]) +
         (i + 1 == s.fn->params.size() ? ")" : "");
  if (s.order > 0) d += std::string(static_cast<std::size_t>(s.order), '\'');
  return d;
}

void write_csv(const std::string& path, const analysis::ErrorReport& r,
               const std::vector<ErrorMetric>& metrics) {
  std::string out = "x,value,reference";
  for (ErrorMetric m : metrics) out.append(",").append(analysis::to_string(m));
  out += '\n';
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    append_f64(out, r.x[i]);
    out += ',';
    if (r.dtype == Dtype::F32)
      append_f32(out, static_cast<float>(r.value[i]));
    else
      append_f64(out, r.value[i]);
    out += ',';
    append_f64(out, r.ref_value[i]);
    for (ErrorMetric m : metrics) {
      out += ',';
      append_f64(out, r.curve(m)[i]);
    }
    out += '\n';
  }
  try {
    write_file_atomic(path, out);
  } catch (const FileError& e) {
    throw UsageError(std::string("--csv: ") + e.what());
  }
}

int run_error(Args& args) {
  const Activation& fn = required_function(args, "fn");
  const Activation& vs = required_function(args, "vs");
  const Params fn_params = parse_params(fn, args.options("param"), "param");
  const Params vs_params = parse_params(vs, args.options("vs-param"), "vs-param");
  const int order = parse_order(args);
  const auto range_text = args.option("range");
  const Range range = range_text ? parse_range(*range_text, "range") : Range{-10.0, 10.0};
  const auto samples_text = args.option("samples");
  const std::int64_t samples =
      samples_text ? Args::to_int("samples", *samples_text, 1, kMaxSamples) : 100'001;
  const std::vector<ErrorMetric> metrics = parse_metrics(args.option("metric"));
  const Dtype dtype = parse_dtype(args).value_or(Dtype::F64);
  const bool json = args.flag("json");
  const auto csv = args.option("csv");
  args.finish();
  if (csv) check_output_path("csv", *csv);
  if (dry_run()) return 0;

  const analysis::FunctionSpec a{&fn, fn_params, order}, b{&vs, vs_params, order};
  const analysis::ErrorReport r =
      analysis::compare(a, b, range.a, range.b, static_cast<std::size_t>(samples), dtype);
  if (csv) write_csv(*csv, r, metrics);

  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("fn").value(describe(a));
    w.key("vs").value(describe(b));
    w.key("order").value(order);
    w.key("dtype").value(analysis::to_string(dtype));
    w.key("range").begin_array().value(range.a).value(range.b).end_array();
    w.key("samples").value(static_cast<std::size_t>(samples));
    for (ErrorMetric m : metrics) {
      const analysis::ErrorStats& s = r.stats(m);
      w.key(analysis::to_string(m)).begin_object();
      w.key("max").value(s.max);  // JsonWriter writes inf as null; nonfinite says how many there were
      w.key("x_at_max").value(s.x_at_max);
      w.key("mean").value(s.mean);
      w.key("nonfinite").value(s.nonfinite);
      w.end_object();
    }
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }

  std::printf("%s vs %s on [%s, %s], %lld samples, %s\n", describe(a).c_str(), describe(b).c_str(),
              format_f64(range.a).c_str(), format_f64(range.b).c_str(), static_cast<long long>(samples),
              std::string(analysis::to_string(dtype)).c_str());
  std::printf("%-6s %-24s %-24s %s\n", "metric", "max", "at x", "mean");
  for (ErrorMetric m : metrics) {
    const analysis::ErrorStats& s = r.stats(m);
    std::string mean = format_f64(s.mean);
    if (s.nonfinite) mean += " (" + std::to_string(s.nonfinite) + " infinite, excluded)";
    std::printf("%-6s %-24s %-24s %s\n", std::string(analysis::to_string(m)).c_str(),
                format_f64(s.max).c_str(), format_f64(s.x_at_max).c_str(), mean.c_str());
  }
  return 0;
}

}  // namespace

GELU_COMMAND(
    error, "error", "error of one function against another over a range (abs, rel, ULP)",
    "usage: gelulab error --fn ID --vs ID [--range A:B] [--samples N] [--metric abs|rel|ulp]\n"
    "                     [--dtype f32|f64] [--order 0|1|2] [--param NAME=VALUE]...\n"
    "                     [--vs-param NAME=VALUE]... [--json] [--csv FILE]\n\n"
    "Evaluates --fn in the dtype and --vs (the reference) in double at N evenly spaced points of\n"
    "[A, B] (rounded to float for f32) and reports, per metric, the largest error, the first x\n"
    "where it occurs and the mean error.\n"
    "  abs  |f - ref|          rel  |f - ref| / |ref|      ulp  |f - ref| / spacing of the dtype at ref\n"
    "NaN against non-NaN, or an infinity against anything else, is an infinite error; such samples\n"
    "are counted and left out of the mean. +0 and -0 are equal.\n\n"
    "  --fn ID, --vs ID        the function and the reference (see gelulab list)\n"
    "  --range A:B             default -10:10; A < B\n"
    "  --samples N             default 100001; 1 <= N <= 10000000\n"
    "  --metric abs|rel|ulp    only this metric (default: all three)\n"
    "  --dtype f32|f64         precision of --fn (default f64)\n"
    "  --order N               compare f (0, default), f' (1) or f'' (2) of both\n"
    "  --param NAME=VALUE      parameter of --fn; --vs-param for --vs (repeatable)\n"
    "  --json                  the summary as one JSON object\n"
    "  --csv FILE              the curve: x,value,reference and the error columns\n\n"
    "Example: gelulab error --fn gelu_tanh --vs gelu --metric ulp --dtype f32\n",
    run_error);

}  // namespace gelu::cli

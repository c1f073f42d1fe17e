// gelulab error: functions against a reference over a range or over every value of a format: max error and
// where, mean error, mismatches, per metric; several functions and formats as one summary table; the curve
// as CSV on request. Registry functions go through gelu::analysis::compare (f32 through the batched float
// path), zoo entries through gelu::precision::sweep (evaluated as computed); both are scored alike.
//
// Index of this file:
//   [SECTION] Options and reports
//   [SECTION] The command
//   [SECTION] Usage
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cli/block_dtype.hpp"
#include "cli/chain_options.hpp"
#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/analysis.hpp"
#include "gelu/fileio.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"

namespace gelu::cli {
namespace {

using analysis::ErrorMetric;

// 10^7 samples hold ~0.5 GB of curves (1.6 GB while --csv formats them) and take a few seconds; 10^8 would
// need 5 GB, 16 GB with --csv.
constexpr std::int64_t kMaxSamples = 10'000'000;
constexpr std::size_t kMaxFunctions = 64;

// [SECTION] Options and reports

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

/// One function in one format, compared.
struct Result {
  std::string fn;       // as described in the output
  std::string compute;  // empty for a registry function (it is evaluated as the registry does)
  std::optional<Cost> cost;
  analysis::ErrorReport report;
  // With --all: the precision lab's verdict, where the function becomes 0 and where intermediates overflow.
  bool have_tails = false;
  std::string verdict;
  precision::Tails tails;
  std::string compute_name;  // the compute format the tails were found in
  std::string semantics;     // how it was evaluated (precision::semantics): registry function or zoo entry
  std::vector<std::uint8_t> overflowed;  // a zoo entry's sweep: per input, an intermediate overflowed
  Format compute_format{FormatId::F32};
};

void append_value(std::string& out, double v, const Format& f) {
  if (f.id() == FormatId::F64)
    append_f64(out, v);
  else if (f.id() == FormatId::F32)
    append_f32(out, static_cast<float>(v));
  else
    out += format_in(v, f);
}

void write_out(const std::string& option, const std::string& path, const std::string& text) {
  try {
    write_output(path, text);  // "-": standard output
  } catch (const FileError& e) {
    throw UsageError("--" + option + ": " + e.what());
  }
}

std::string curve_csv(const analysis::ErrorReport& r, const std::vector<ErrorMetric>& metrics) {
  std::string out = "x,value,reference";
  for (ErrorMetric m : metrics) out.append(",").append(analysis::to_string(m));
  out += '\n';
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    append_value(out, r.x[i], r.format);
    out += ',';
    append_value(out, r.value[i], r.format);
    out += ',';
    append_f64(out, r.ref_value[i]);
    for (ErrorMetric m : metrics) {
      out += ',';
      append_f64(out, r.curve(m)[i]);
    }
    out += '\n';
  }
  return out;
}

void json_result(json::Builder& w, const Result& res, const std::string& vs, int order, bool all,
                 const std::vector<ErrorMetric>& metrics) {
  const analysis::ErrorReport& r = res.report;
  w.begin_object();
  w.key("fn").value(res.fn);
  w.key("vs").value(vs);
  w.key("order").value(order);
  w.key("dtype").value(r.format.name());
  w.key("semantics").value(res.semantics);
  if (r.format.id() == FormatId::Int8) {
    w.key("scale").value(r.format.quantization().scale);
    w.key("zero_point").value(r.format.quantization().zero_point);
  }
  if (!res.compute.empty()) w.key("compute").value(res.compute);
  w.key("range").begin_array().value(r.a).value(r.b).end_array();
  w.key("samples").value(r.x.size());  // with --all: every value of the format in the range
  w.key("all").value(all);
  if (res.have_tails) {
    const Format& f = r.format;
    w.key("verdict").value(res.verdict);
    w.key("zero");
    if (res.tails.first_zero) {
      w.begin_object().key("from").value(format_in(*res.tails.first_zero, f));
      w.key("lowest_nonzero");
      if (res.tails.lowest_nonzero)
        w.value(format_in(*res.tails.lowest_nonzero, f));
      else
        w.null();
      w.end_object();
    } else {
      w.null();
    }
    w.key("overflow");
    if (res.tails.overflow_above || res.tails.overflow_below) {
      w.begin_object().key("compute").value(res.compute_name);
      w.key("above");
      if (res.tails.overflow_above)
        w.value(format_in(*res.tails.overflow_above, f));
      else
        w.null();
      w.key("below");
      if (res.tails.overflow_below)
        w.value(format_in(*res.tails.overflow_below, f));
      else
        w.null();
      w.end_object();
    } else {
      w.null();
    }
  }
  for (ErrorMetric m : metrics) {
    const analysis::ErrorStats& s = r.stats(m);
    w.key(analysis::to_string(m)).begin_object();
    w.key("max").value(s.max);  // json::Builder writes inf as null; nonfinite says how many there were
    w.key("x_at_max").value(s.x_at_max);
    w.key("mean").value(s.mean);
    w.key("nonfinite").value(s.nonfinite);
    w.key("mismatch").value(s.mismatch);
    w.key("n").value(s.n);
    w.end_object();
  }
  w.end_object();
}

// [SECTION] The command

int run_error(Args& args) {
  if (has_store(args)) return run_error_chain(args);        // cmd_blocks.cpp
  if (is_block_dtype(args)) return run_error_blocks(args);  // cmd_blocks.cpp
  const std::vector<std::string> fn_ids = args.options("fn");
  if (fn_ids.empty()) throw UsageError("missing --fn ID (" + function_choices() + ")");
  if (fn_ids.size() > kMaxFunctions)
    throw UsageError("--fn is given " + std::to_string(fn_ids.size()) + " times; at most " +
                     std::to_string(kMaxFunctions));
  std::vector<Subject> fns;
  for (const std::string& id : fn_ids) {
    Subject s = subject(id, "fn");
    for (const Subject& t : fns)
      if (t.id() == s.id()) throw UsageError("--fn: " + quote(id) + " is given twice");
    fns.push_back(std::move(s));
  }
  const Activation& vs = required_function(args, "vs");
  const std::vector<std::string> param_text = args.options("param");
  const Params vs_params = parse_params(vs, args.options("vs-param"), "vs-param");
  const int order = parse_order(args);
  const auto range_text = args.option("range");
  // Plain values rather than an optional<Range>: GCC 12 sees "maybe uninitialized" through the optional.
  const bool have_range = range_text.has_value();
  const Range range = have_range ? parse_range(*range_text, "range") : Range{0, 0};
  const auto samples_text = args.option("samples");
  const std::int64_t samples =
      samples_text ? Args::to_int("samples", *samples_text, 1, kMaxSamples) : 100'001;
  const bool all = args.flag("all");
  const std::vector<ErrorMetric> metrics = parse_metrics(args.option("metric"));
  std::vector<Format> formats = parse_dtypes(args);
  const std::optional<Format> compute = parse_compute(args);
  const bool json = args.flag("json");
  const bool markdown = args.flag("markdown");
  const auto csv = args.option("csv");
  args.finish();

  // Checks that need several options.
  if (formats.empty()) formats.push_back(Format(FormatId::F64));
  if (!param_text.empty() && (fns.size() != 1 || !fns[0].fn))
    throw UsageError("--param: applies to a single --fn that is a registry function");
  const Params fn_params = fns[0].fn ? parse_params(*fns[0].fn, param_text, "param") : Params{};
  if (all && samples_text) throw UsageError("--all: every value of the format is an input; drop --samples");
  if (all)
    for (const Format& f : formats)
      if (!f.enumerable())
        throw UsageError("--all: " + std::string(f.name()) + " has " + std::to_string(f.count_finite()) +
                         " values; --all takes the 8- and 16-bit formats (bf16, f16, e4m3, e5m2, int8)");
  for (const Subject& s : fns) {
    if (s.fn) continue;
    if (order == 2) throw UsageError("--order 2: zoo entries have f and f' only (" + s.id() + ")");
    if (order == 1 && !s.entry->has_d1())
      throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  }
  if (json && markdown) throw UsageError("--markdown: give one of --json and --markdown");
  command::check_outputs({{"csv", &csv}}, json ? "the JSON" : markdown ? "the Markdown" : nullptr);
  if (dry_run()) return 0;

  const analysis::FunctionSpec ref{&vs, vs_params, order};
  const std::string vs_text = describe(ref);
  std::vector<Result> results;
  for (const Format& f : formats) {
    // The inputs: every value of the format in the range (--all), or the samples.
    const double lo = have_range ? range.a : (all ? -std::numeric_limits<double>::infinity() : -10.0);
    const double hi = have_range ? range.b : (all ? std::numeric_limits<double>::infinity() : 10.0);
    const std::vector<double> x = precision::inputs(f, lo, hi, all ? 0 : static_cast<std::size_t>(samples));
    if (x.empty())
      throw UsageError("--range: no value of " + std::string(f.name()) + " lies in [" + format_f64(lo) +
                       ", " + format_f64(hi) + "]");
    for (const Subject& s : fns) {
      Result res;
      if (s.fn) {
        const analysis::FunctionSpec a{s.fn, fns.size() == 1 ? fn_params : s.fn->defaults(), order};
        res.fn = describe(a);
        res.report = all ? analysis::compare_at(a, ref, x, f)
                         : analysis::compare(a, ref, lo, hi, static_cast<std::size_t>(samples), f);
        res.semantics = precision::semantics(s.fn->id, f, f);
      } else {
        const Format c = compute.value_or(precision::default_compute(f));
        const precision::Sweep sw = precision::sweep_at(*s.entry, ref, x, f, c, order);
        res.fn = s.entry->id + std::string(static_cast<std::size_t>(order), '\'');
        res.compute = s.entry->uses_compute ? std::string(c.name()) : "";
        res.cost = s.entry->cost;
        res.report = sw.errors;
        res.overflowed = sw.overflowed;
        res.compute_format = c;
        res.semantics = precision::semantics(s.entry->id, f, c);
        if (!all) {
          res.report.a = lo;
          res.report.b = hi;
        }
      }
      if (all) {
        precision::Sweep sw;
        sw.errors = res.report;
        sw.order = order;
        sw.overflowed = res.overflowed;
        sw.compute = res.compute_format;
        res.have_tails = true;
        res.verdict = precision::verdict(sw).text;
        const zoo::Entry e =
            s.fn ? zoo::from_registry(*s.fn, fns.size() == 1 ? fn_params : s.fn->defaults()) : *s.entry;
        const Format c = compute.value_or(precision::default_compute(f));
        res.compute_name = std::string(c.name());
        // Within --range: every x reported lies in it, and every number printed is one.
        res.tails = precision::tails(e, f, c, order, lo, hi);
      }
      results.push_back(std::move(res));
    }
  }

  std::vector<precision::SummaryRow> rows;
  for (const Result& r : results)
    rows.push_back(precision::summary_row(r.report, r.fn, vs_text, r.compute, order, r.cost));
  const bool single = results.size() == 1;
  if (csv)
    write_out("csv", *csv,
              single ? curve_csv(results[0].report, metrics) : precision::summary_csv(rows, metrics));
  if (csv && *csv == "-") return 0;

  if (json) {
    json::Builder w;
    if (!single) w.begin_array();
    for (const Result& r : results) json_result(w, r, vs_text, order, all, metrics);
    if (!single) w.end_array();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }
  if (markdown) {
    std::fputs(precision::summary_markdown(rows, metrics).c_str(), stdout);
    return 0;
  }
  if (!single) {
    std::printf(
        "vs %s, %s\n", vs_text.c_str(),
        all ? "every value of each format in the range" : (std::to_string(samples) + " samples").c_str());
    std::fputs(precision::summary_text(rows, metrics).c_str(), stdout);
    // gelu_tanh (the registry function) and tanh_form (the zoo entry) are one formula that gives different
    // answers: the compute column says which semantics each row used.
    std::printf(
        "semantics: compute - is a registry function correctly rounded to the format (its float path in "
        "f32); a compute format is a zoo entry as shipped, computed in it and rounded once\n");
    return 0;
  }
  const Result& res = results[0];
  const analysis::ErrorReport& r = res.report;
  const std::string fmt(r.format.name());
  std::string inputs = all ? "all " + std::to_string(r.x.size()) + " values of " + fmt
                           : std::to_string(r.x.size()) + " samples, " + fmt;
  if (r.format.id() == FormatId::Int8)
    inputs += " (scale " + format_f64(r.format.quantization().scale) + ", zero point " +
              std::to_string(r.format.quantization().zero_point) + ")";
  if (!res.compute.empty()) inputs += ", computed in " + res.compute;
  std::printf("%s vs %s on [%s, %s], %s\n", res.fn.c_str(), vs_text.c_str(), format_f64(r.a).c_str(),
              format_f64(r.b).c_str(), inputs.c_str());
  if (!res.semantics.empty()) std::printf("evaluated as: %s\n", res.semantics.c_str());
  std::printf("%-6s %-24s %-24s %s\n", "metric", "max", "at x", "mean");
  for (ErrorMetric m : metrics) {
    const analysis::ErrorStats& s = r.stats(m);
    std::string mean = format_f64(s.mean);
    if (s.nonfinite) mean += " (" + std::to_string(s.nonfinite) + " infinite, excluded)";
    std::printf("%-6s %-24s %-24s %s\n", std::string(analysis::to_string(m)).c_str(),
                format_f64(s.max).c_str(), format_f64(s.x_at_max).c_str(), mean.c_str());
  }
  const analysis::ErrorStats& s = r.ulp_stats;
  std::printf("mismatch: %zu of %zu inputs differ from the reference after rounding to %s\n", s.mismatch, s.n,
              fmt.c_str());
  if (res.have_tails) {
    // The precision lab's verdict and where results vanish and intermediates overflow, over the whole format.
    std::printf("verdict: %s\n", res.verdict.c_str());
    const precision::Tails& t = res.tails;
    const std::string c = res.compute_name;
    if (t.first_zero && t.lowest_nonzero)
      std::printf("zero: %s is 0 from x = %s down (non-zero down to x = %s)\n", res.fn.c_str(),
                  format_in(*t.first_zero, r.format).c_str(), format_in(*t.lowest_nonzero, r.format).c_str());
    else if (t.first_zero)
      std::printf("zero: %s is 0 at every input%s\n", res.fn.c_str(), have_range ? " in the range" : "");
    if (t.overflow_above || t.overflow_below) {
      std::string where;
      if (t.overflow_above) where += "from x = " + format_in(*t.overflow_above, r.format) + " up";
      if (t.overflow_below)
        where +=
            (where.empty() ? "" : " and ") + ("from x = " + format_in(*t.overflow_below, r.format) + " down");
      std::printf("overflow: an intermediate overflows in %s %s\n", c.c_str(), where.c_str());
    }
  }
  return 0;
}

}  // namespace

// [SECTION] Usage

GELU_COMMAND(
    error, "error", "error of functions against a reference over a range or every value of a format",
    "usage: gelulab error --fn ID [--fn ID]... --vs ID [--range A:B] [--samples N | --all]\n"
    "                     [--metric abs|rel|ulp] [--dtype FMT[,FMT]...] [--compute FMT] [--order 0|1|2]\n"
    "                     [--scale S [--zero-point Z] | --int8-range A:B] [--param NAME=VALUE]...\n"
    "                     [--vs-param NAME=VALUE]... [--json | --markdown] [--csv FILE]\n\n"
    "Evaluates each --fn in the format and --vs (the reference, a registry function) in double at N\n"
    "evenly spaced points of [A, B] rounded to the format, or with --all at every finite value of the\n"
    "format in [A, B] (the whole format without --range), and reports per metric the largest error, the\n"
    "first x where it occurs, the mean error and the mismatches (inputs whose result and reference differ\n"
    "once both are rounded to the format).\n"
    "  abs  |f - ref|          rel  |f - ref| / |ref|\n"
    "  ulp  f64, f32: |f - ref| / spacing of the format at ref (a real number);\n"
    "       bf16, f16, e4m3, e5m2, int8: the number of values of the format between the rounded f and the\n"
    "       rounded ref (0 = identical after rounding)\n"
    "NaN against non-NaN, or an infinity against anything else, is an infinite error; such samples\n"
    "are counted and left out of the mean. +0 and -0 are equal. With --all and one --fn the text ends\n"
    "with the verdict (where it is identical to the reference, where not, how many ULP), where the\n"
    "function becomes 0 on the negative side and where an intermediate overflows.\n\n"
    "A --fn is a registry function (see gelulab list), evaluated as the registry does (f32: the batched\n"
    "float path; f64: double; the 8- and 16-bit formats: double rounded once, the correctly rounded\n"
    "function), or a zoo entry (see gelulab list --zoo), evaluated as shipped with its intermediates\n"
    "in the compute format and its result rounded to the format.\n\n"
    "  --fn ID                 a function; repeat it for a summary table of several\n"
    "  --vs ID                 the reference: a registry function\n"
    "  --range A:B             default -10:10 (with --all: the whole format); A < B\n"
    "  --samples N             default 100001; 1 <= N <= 10000000\n"
    "  --all                   every finite value of the format in [A, B] (8- and 16-bit formats)\n"
    "  --metric abs|rel|ulp    only this metric (default: all three)\n"
    "  --dtype FMT[,FMT]...    f64 (default), f32, bf16, f16, e4m3 (OCP FN, saturating at ±448), e5m2,\n"
    "                          int8, e2m3, e3m2, e2m1 (OCP MX, FN), e8m0, ue4m3 (scales); a list gives\n"
    "                          one row per function and format; or one block format (below)\n"
    "  --compute FMT           what zoo entries compute in (default: f64 for f64, else f32)\n"
    "  --scale S, --zero-point Z   int8: value = S·(code - Z), Z in [-128, 127] (default 1/32 and 0)\n"
    "  --int8-range A:B        int8 from a range instead: symmetric when A = -B (codes ±127 at ±B),\n"
    "                          else asymmetric over the 256 codes\n"
    "  --order N               compare f (0, default), f' (1) or f'' (2, registry functions only)\n"
    "  --param NAME=VALUE      parameter of a single registry --fn; --vs-param for --vs (repeatable)\n"
    "  --json                  one --fn and format: one JSON object; several: an array of them\n"
    "  --markdown              the summary table in Markdown\n"
    "  --csv FILE              one --fn and format: the curve (x,value,reference and the error columns);\n"
    "                          several: the summary table; FILE '-' is stdout\n\n"
    "Block formats: gelulab error --fn ID --vs ID --dtype mxfp8_e4m3|mxfp8_e5m2|mxfp6_e2m3|mxfp6_e3m2|\n"
    "mxfp4|nvfp4 (--blocks FILE.npy | --block-dist normal:MU,SIGMA [--num-blocks N] [--seed S])\n"
    "[--block-size N] [--compute FMT] [--json]: pre-activations from a .npy file (blocks along its last\n"
    "axis) or N blocks (default 10000) drawn from N(MU, SIGMA^2); --fn's outputs stored block by block\n"
    "(OCP MX v1.0 / NVFP4 rules); the error of each value in ULPs of its block's lattice against --vs\n"
    "rounded to that lattice; the share of negative outputs stored as 0, and at which x. See\n"
    "docs/precision.md, \"Block formats\".\n\n"
    "A rounding-point chain: gelulab error --fn ID --vs ID --store FMT [--compute FMT] [--accumulator FMT]\n"
    "[--order 0|1] (--blocks FILE.npy | --block-dist normal:MU,SIGMA [--num-blocks N] [--seed S]) [--json]:\n"
    "each pre-activation rounded to the accumulator format (default f32), --fn computed in the compute\n"
    "format (default f32; a registry function correctly rounded to it), the result stored in FMT (any\n"
    "number format, or a block format in blocks of its size); errors in ULPs of FMT (or of the block's\n"
    "lattice) against --vs at the unrounded input, and the negative outputs stored as 0. See\n"
    "docs/precision.md, \"Rounding-point chains\".\n\n"
    "Examples: gelulab error --fn gelu_tanh --vs gelu --metric ulp --dtype f32\n"
    "          gelulab error --fn tanh_form --vs gelu --dtype bf16 --all --metric ulp --json\n"
    "          gelulab error --fn tanh_form --fn erf_naive --fn f16_lut --vs gelu --dtype bf16,f16 --all\n"
    "          gelulab error --fn gelu --vs gelu --dtype mxfp4 --block-dist normal:0,1 --json\n"
    "          gelulab error --fn gelu --vs gelu --compute bf16 --store mxfp4 --block-dist normal:0,1\n",
    run_error);

}  // namespace gelu::cli

// gelulab fit: the approximation designer on the command line (gelu::fit): fit a form to GELU, Φ, erf or
// GELU′ on [A, B], round its coefficients, print them (hex and decimal) with the maximum error and the cost,
// and optionally export C++, GLSL and CUDA C with a test-vector file and the `gelulab check` command.
//
// Index of this file:
//   [SECTION] Options, outputs and the fit
//   [SECTION] The command
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/cmd_fit_cr.hpp"
#include "cli/fn_options.hpp"
#include "gelu/fileio.hpp"
#include "gelu/fit.hpp"
#include "gelu/fit_export.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#ifdef GELU_HAVE_SOLLYA
#include "gelu/fit_sollya.hpp"
#endif

namespace gelu::cli {
namespace {

// [SECTION] Options, outputs and the fit

using fit::Form;

template <class E>
E parse_choice(Args& args, const char* option, std::optional<E> (*parse)(std::string_view),
               std::span<const fit::Named<E>> table, E fallback) {
  const auto v = args.option(option);
  if (!v) return fallback;
  if (const auto e = parse(*v)) return *e;
  throw UsageError("--" + std::string(option) + ": " + quote(*v) + " is not one of " + fit::names(table));
}

int parse_degree_value(const std::string& text, const std::string& what) {
  const std::int64_t d = Args::to_int("degree", text, INT32_MIN, INT32_MAX);
  if (d < 0) throw UsageError("--degree: " + what + " " + text + " is negative");
  if (d > fit::kMaxDegree)
    throw UsageError("--degree: " + what + " " + printable(text) + " is above " +
                     std::to_string(fit::kMaxDegree) + ", the highest degree the designer fits");
  return static_cast<int>(d);
}

/// A value of the candidate's format: its exact hex float, and its shortest decimal (of the format's float).
std::string hex_of(double v, FormatId) {
  return fit::hex_literal(v, false);
}
std::string dec_of(double v, FormatId f) {
  return f == FormatId::F64 ? format_f64(v) : format_f32(static_cast<float>(v));
}

void write_export(const char* option, const std::string& path, const std::string& text) {
  try {
    write_output(path, text);  // "-": standard output
  } catch (const FileError& e) {
    throw UsageError("--" + std::string(option) + ": " + e.what());
  }
}

/// The budget file beside the vectors: their name + ".budget.json", the name's end cut (never inside a UTF-8
/// character) where that would pass NAME_MAX, so every name the vectors may have gets its budget beside it
/// (the printed check command names it).
std::string budget_file_for(const std::string& vectors) {
  constexpr std::size_t kNameMax = 255;
  const std::string suffix = ".budget.json";
  const std::size_t slash = vectors.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  std::string name = vectors.substr(base);
  if (name.size() + suffix.size() > kNameMax) {
    std::size_t keep = kNameMax - suffix.size();
    while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
    name.resize(keep);
  }
  return vectors.substr(0, base) + name + suffix;
}

int run_fit(Args& args) {
  if (const auto cr = args.option("correctly-rounded")) return run_fit_cr(args, *cr);
  fit::Spec s;
  s.target = parse_choice<fit::Target>(args, "target", fit::parse_target, fit::targets(), fit::Target::Gelu);
  const auto form_text = args.option("form");
  if (!form_text) throw UsageError("missing --form (one of " + fit::names(fit::forms()) + ")");
  if (const auto f = fit::parse_form(*form_text))
    s.form = *f;
  else
    throw UsageError("--form: unknown form " + quote(*form_text) + " (one of " + fit::names(fit::forms()) +
                     ")");
  const auto degree_text = args.option("degree");
  if (!degree_text)
    throw UsageError(s.form == Form::Rational ? "missing --degree M,N" : "missing --degree D (0 to 30)");
  if (const auto comma = degree_text->find(','); comma != std::string::npos) {
    if (s.form != Form::Rational)
      throw UsageError("--degree: " + quote(*degree_text) + ": M,N is for --form rational (give one degree)");
    s.degree = parse_degree_value(degree_text->substr(0, comma), "numerator degree");
    s.denominator_degree = parse_degree_value(degree_text->substr(comma + 1), "denominator degree");
  } else {
    if (s.form == Form::Rational)
      throw UsageError("--degree: --form rational needs M,N (numerator and denominator degrees), got " +
                       quote(*degree_text));
    s.degree = parse_degree_value(*degree_text, "degree");
  }
  const auto pieces = args.option("pieces");
  if (s.form == Form::Piecewise) {
    if (!pieces)
      throw UsageError("--form piecewise needs --pieces K (1 to " + std::to_string(fit::kMaxPieces) + ")");
    s.pieces = static_cast<int>(Args::to_int("pieces", *pieces, 1, fit::kMaxPieces));
  } else if (pieces) {
    throw UsageError("--pieces is for --form piecewise");
  }
  const auto breakpoints_given = args.option("breakpoints");
  if (breakpoints_given && s.form != Form::Piecewise)
    throw UsageError("--breakpoints is for --form piecewise");
  if (breakpoints_given) {
    const auto b = fit::parse_breakpoints(*breakpoints_given);
    if (!b)
      throw UsageError("--breakpoints: " + quote(*breakpoints_given) + " is not one of " +
                       fit::names(fit::breakpoint_rules()));
    s.breakpoints = *b;
  }
  const auto range_text = args.option("range");
  if (!range_text) throw UsageError("missing --range A:B");
  const Range range = parse_range(*range_text, "range");
  s.a = range.a;
  s.b = range.b;
  s.weight = parse_choice<fit::Weight>(args, "weight", fit::parse_weight, fit::weights(), fit::Weight::Abs);
  if (const auto f = args.option("format")) {
    const auto fmt = Format::parse(*f);
    if (!fmt || (fmt->id() != FormatId::F64 && fmt->id() != FormatId::F32 && fmt->id() != FormatId::BF16 &&
                 fmt->id() != FormatId::F16))
      throw UsageError("--format: " + quote(*f) + " is not one of f64, f32, bf16, f16");
    s.format = fmt->id();
  }
  s.clamp = parse_choice<fit::Clamp>(args, "clamp", fit::parse_clamp, fit::clamps(), fit::Clamp::Limits);
  s.method =
      parse_choice<fit::Method>(args, "method", fit::parse_method, fit::methods(), fit::Method::Minimax);
  s.reoptimize = !args.flag("no-reoptimize");
  const bool json = args.flag("json");
  const auto export_cpp = args.option("export-cpp");
  const auto export_glsl = args.option("export-glsl");
  const auto export_cuda = args.option("export-cuda");
  const auto vectors = args.option("vectors");
  const auto name = args.option("name");
  args.finish();
  if (name)
    if (const auto why = fit::why_not_identifier(*name))
      throw UsageError("--name: " + quote(*name) + " " + *why + "; the export could not compile with it");
  // The output-path policy (command.hpp): "-" is standard output (the report then gives way), one file per
  // output; the vectors' budget file lies beside them.
  const std::optional<std::string> budget_path =
      vectors && *vectors != "-" ? std::optional<std::string>(budget_file_for(*vectors)) : std::nullopt;
  const bool report_gives_way =
      !command::check_outputs({{"export-cpp", &export_cpp},
                               {"export-glsl", &export_glsl},
                               {"export-cuda", &export_cuda},
                               {"vectors", &vectors},
                               {"vectors", &budget_path, "the vectors' budget file"}},
                              json ? "the JSON" : nullptr)
           .empty();
  try {
    fit::validate(s);
  } catch (const fit::FitError& e) {
    throw UsageError(e.what());
  }
  if (dry_run()) return 0;

  fit::Candidate c;
  try {
    c = fit::fit(s);
  } catch (const fit::FitError& e) {  // NotConverged included: its message names the best candidate
    throw UsageError(e.what());
  }
  std::string certify_note = "sampled: dense sampling + local maximization";
#ifdef GELU_HAVE_SOLLYA
  {
    std::string why;
    if (fit::certify(c, &why))
      certify_note = "certified by Sollya's supnorm";
    else
      certify_note += "; not certified: " + why;
  }
#else
  certify_note += "; built without Sollya";
#endif
  const fit::TestVectors tv = fit::test_vectors(c);
  const std::string pairs = "your_outputs.txt";
  // With --vectors, a budget file next to them (ranges with their own bounds) makes the printed check a gate
  // that a moved coefficient fails.
  const std::string budget = budget_path.value_or("");
  const std::string check = fit::check_command(c, tv, pairs, budget);
  fit::ExportOptions eo;
  eo.name = name.value_or("gelu_fit");
  eo.command = fit::command_line(c.spec);
  eo.vectors_file = vectors.value_or("");
  eo.check = check;
  if (export_cpp) write_export("export-cpp", *export_cpp, fit::export_cpp(c, eo));
  if (export_glsl) write_export("export-glsl", *export_glsl, fit::export_glsl(c, eo));
  if (export_cuda) write_export("export-cuda", *export_cuda, fit::export_cuda(c, eo));
  if (vectors) write_export("vectors", *vectors, tv.text());
  if (budget_path) write_export("vectors", *budget_path, tv.budget_json());
  if (report_gives_way) return 0;
  const Cost cost = c.cost();
  const FormatId f = c.spec.format;

  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("form").value(fit::name(c.spec.form));
    w.key("target").value(fit::name(c.spec.target));
    w.key("degree");
    if (c.spec.form == Form::Rational)
      w.begin_array().value(c.spec.degree).value(c.spec.denominator_degree).end_array();
    else
      w.value(c.spec.degree);
    if (c.spec.form == Form::Piecewise) {
      w.key("pieces").value(c.spec.pieces);
      w.key("breakpoints_rule").value(fit::name(c.spec.breakpoints));
      w.key("breakpoints").begin_array();
      for (double b : c.breakpoints) w.value(b);
      w.end_array();
      w.key("centers").begin_array();
      for (double m : c.centers) w.value(m);
      w.end_array();
    }
    w.key("range").begin_array().value(c.spec.a).value(c.spec.b).end_array();
    w.key("weight").value(fit::name(c.spec.weight));
    w.key("format").value(number_format(f).name);
    w.key("clamp").value(fit::name(c.spec.clamp));
    w.key("method").value(fit::name(c.spec.method));
    w.key("coefficients").begin_array();
    for (double v : c.coefficients) w.value(v);
    w.end_array();
    w.key("coefficients_hex").begin_array();
    for (double v : c.coefficients) w.value(hex_of(v, f));
    w.end_array();
    w.key("max_error").value(c.max_error);
    w.key("x_at_max").value(c.x_at_max);
    w.key("certified").value(c.certified);
    w.key("certified_bound");
    if (c.certified)
      w.begin_array().value(c.certified_lo).value(c.certified_hi).end_array();
    else
      w.null();
    w.key("unrounded_max_error").value(c.unrounded_max_error);
    w.key("naive_max_error").value(c.naive_max_error);
    w.key("level").value(c.level);
    w.key("gelu_abs_error").value(c.gelu_abs_error);
    w.key("reference").begin_array();
    for (const fit::ErrorPoint& p : c.reference) w.begin_array().value(p.x).value(p.error).end_array();
    w.end_array();
    w.key("cost").begin_object();
    w.key("multiply_adds").value(cost.multiply_adds);
    w.key("divisions").value(cost.divisions);
    w.key("transcendentals").value(cost.transcendentals);
    w.key("comparisons").value(cost.comparisons);
    w.key("table_bytes").value(cost.table_bytes);
    w.key("weighted").value(cost.weighted());
    w.end_object();
    w.key("fit_ms").value(c.fit_seconds * 1e3);
    w.key("max_ulp").value(static_cast<unsigned long long>(tv.max_ulp));
    w.key("vectors_max_abs").value(tv.max_abs);
    w.key("check").value(check);
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }

  std::printf("%s: %s ≈ %s\n", c.name().c_str(),
              c.spec.target == fit::Target::GeluPrime ? "GELU′(x)" : "GELU(x)", c.formula().c_str());
  std::printf("weight %s, %s, coefficients %s%s\n", fit::name(c.spec.weight),
              c.spec.method == fit::Method::Minimax ? "minimax (Remez exchange)" : "least squares",
              number_format(f).name,
              f == FormatId::F64
                  ? ""
                  : (c.spec.reoptimize ? " (greedy + lattice re-optimized)" : " (rounded to nearest)"));
  const std::size_t n = static_cast<std::size_t>(c.spec.degree) + 1;
  if (c.spec.form == Form::Piecewise) {
    std::printf("%-4s %-22s %-26s %s\n", "piece", "from", "to", "centre");
    for (std::size_t j = 0; j + 1 < c.breakpoints.size(); ++j)
      std::printf("%-4zu  %-22s %-26s %s\n", j, hex_of(c.breakpoints[j], f).c_str(),
                  hex_of(c.breakpoints[j + 1], f).c_str(), hex_of(c.centers[j], f).c_str());
  }
  std::printf("%-6s %-26s %s\n", "coef", "hex", "decimal");
  for (std::size_t i = 0; i < c.coefficients.size(); ++i) {
    char label[48];  // (snprintf: GCC 12 reports a false -Wrestrict on "p" + std::to_string(i))
    if (c.spec.form == Form::Rational)
      std::snprintf(label, sizeof label, "%c%zu", i < n ? 'p' : 'q', i < n ? i : i - n);
    else if (c.spec.form == Form::Piecewise)
      std::snprintf(label, sizeof label, "%zu.%zu", i / n, i % n);
    else
      std::snprintf(label, sizeof label, "c%zu", i);
    std::printf("%-6s %-26s %s\n", label, hex_of(c.coefficients[i], f).c_str(),
                dec_of(c.coefficients[i], f).c_str());
  }
  std::printf("max error  %.6g at x = %s (%s)\n", c.max_error, format_f64(c.x_at_max).c_str(),
              certify_note.c_str());
  if (c.certified)
    std::printf("certified  [%.9g, %.9g] (sampled %.9g)\n", c.certified_lo, c.certified_hi, c.max_error);
  std::printf("before rounding %.6g, rounded to nearest %.6g, minimax level %.6g\n", c.unrounded_max_error,
              c.naive_max_error, c.level);
  if (c.spec.target != fit::Target::Gelu && c.spec.target != fit::Target::GeluPrime)
    std::printf("max |GELU - candidate| %.6g\n", c.gelu_abs_error);
  if (!c.reference.empty()) {
    double lo = INFINITY, hi = 0;
    for (const fit::ErrorPoint& p : c.reference)
      lo = std::min(lo, std::fabs(p.error)), hi = std::max(hi, std::fabs(p.error));
    std::printf("equioscillation: %zu reference points, |error| from %.6g to %.6g\n", c.reference.size(), lo,
                hi);
  }
  std::printf("cost  %s (weighted %g)\n", cost.text().c_str(), cost.weighted());
  std::printf("fit time  %.1f ms\n", c.fit_seconds * 1e3);
  std::printf("check  %s\n", check.c_str());
  for (const auto& [what, path] : {std::pair{"C++", export_cpp},
                                   {"GLSL", export_glsl},
                                   {"CUDA C", export_cuda},
                                   {"test vectors", vectors}})
    if (path) std::printf("wrote %s: %s\n", what, path->c_str());
  if (budget_path) std::printf("wrote check budget: %s\n", budget.c_str());
  return 0;
}

}  // namespace

// [SECTION] The command

GELU_COMMAND(
    fit, "fit", "design a GELU approximation: fit a form, round it, measure its error and cost, export it",
    "usage: gelulab fit --form poly|half_x_poly_abs|even|rational|piecewise --degree D|M,N --range A:B\n"
    "                   [--target gelu|phi|erf|gelu_prime] [--weight abs|rel|ulp] [--format "
    "f64|f32|bf16|f16]\n"
    "                   [--pieces K] [--breakpoints uniform|optimized] [--clamp limits|zero|x|none]\n"
    "                   [--method minimax|lsq] [--no-reoptimize] [--json]\n"
    "                   [--export-cpp FILE] [--export-glsl FILE] [--export-cuda FILE] [--vectors FILE]\n"
    "                   [--name IDENT]\n\n"
    "Fits the form to the target on [A, B] by minimax (Remez exchange, in long double) or least squares,\n"
    "rounds the coefficients to --format (re-optimized: greedy re-fits and a lattice search, never worse\n"
    "than rounding to nearest) and prints them lowest power first, as hex floats and decimals, with the\n"
    "maximum error (sampled, or certified by Sollya's supnorm when built with it) and the cost.\n\n"
    "  --target T        gelu (default); phi: GELU = x·f; erf: f ≈ erf(x/√2), GELU = ½x(1 + f); gelu_prime\n"
    "  --form F          poly: Σ c_k x^k;  half_x_poly_abs: 0.5x + Σ c_k |x|^k;  even: 0.5x + Σ c_k x^(2k);\n"
    "                    rational: P_M/Q_N (q_0 = 1);  piecewise: K pieces Σ c_jk (x - m_j)^k\n"
    "  --degree D|M,N    0 to 30 (M,N for rational)\n"
    "  --range A:B       A < B, within [-1e6, 1e6]; rounded outward to the format\n"
    "  --weight W        abs (default), rel, or ulp (ULPs of --format; needs f32, bf16 or f16);\n"
    "                    rel and ulp need a range where the target is not 0\n"
    "  --format F        the coefficients' format: f64 (default: no rounding), f32, bf16, f16\n"
    "  --pieces K        piecewise: 1 to 64 pieces; --breakpoints uniform (default) or optimized\n"
    "  --clamp C         outside [A, B]: limits (default: GELU's 0 and x), zero, x, or none\n"
    "  --method M        minimax (default) or lsq (least squares; not for rational)\n"
    "  --no-reoptimize   round the coefficients to nearest only\n"
    "  --json            one JSON object: form, degree, range, coefficients, max_error, x_at_max,\n"
    "                    certified, and more\n"
    "  --export-cpp F    C++: a scalar function and a loop that compilers vectorize (hex float literals)\n"
    "  --export-glsl F   GLSL: float NAME(float x)\n"
    "  --export-cuda F   CUDA C: a __device__ function and a kernel\n"
    "  --vectors F       test vectors: 'x y' lines, x in [A, B] and the candidate's value in --format\n"
    "  --name IDENT      the exported function's name (default gelu_fit)\n"
    "An output given as - goes to standard output (one of them; the report then gives way, and --json\n"
    "with - is refused); two outputs naming one file are refused before the fit.\n\n"
    "The printed (and exported) check command verifies an implementation's x y pairs against the correctly\n"
    "rounded GELU with the candidate's own measured ULP distance + 1 as the bound.\n"
    "A rational fit that does not converge is an error (exit 2) naming why and the best candidate found.\n\n"
    "Correctly rounded (built with GLPK and MPFR; docs/designer.md):\n"
    "       gelulab fit --target gelu|gelu_prime --correctly-rounded bf16|f16|e4m3|e5m2 [--compute f32|f64]\n"
    "                   [--fma on|off] [--form poly|piecewise] [--pieces K|auto] [--range A:B]\n"
    "                   [--max-degree D] [--json] [--export-cpp F] [--export-glsl F] [--export-cuda F]\n"
    "                   [--vectors F] [--name IDENT]\n"
    "  --correctly-rounded FMT  coefficients in --compute (f32 default) such that the exported evaluation\n"
    "                    (Horner, with fma unless --fma off), rounded to FMT (nearest even), is the "
    "correctly\n"
    "                    rounded target for EVERY finite input of FMT: per-input rounding intervals from an\n"
    "                    MPFR reference, a linear programme per piece (GLPK), coefficients rounded and\n"
    "                    re-solved until they pass, then verified over every input. --form piecewise\n"
    "                    (default; uniform pieces, --pieces auto: the cheapest of 64, 32, …, 1) or poly;\n"
    "                    --range default: the smallest outside which 0 (below) and x or 1 (above) are "
    "right;\n"
    "                    --max-degree: the cap per piece (default 12). Prints degree, pieces, cost and\n"
    "                    'correctly rounded: N of N inputs'; --vectors writes every input with its "
    "correctly\n"
    "                    rounded value; the check command uses --max-mismatch 0. A piece that cannot be "
    "fitted\n"
    "                    is one line naming it and why, exit 2.\n\n"
    "Example: gelulab fit --target gelu --form half_x_poly_abs --degree 6 --range -4:4 --weight abs --format "
    "f32\n"
    "         gelulab fit --target gelu --correctly-rounded bf16 --pieces auto\n",
    run_fit);

}  // namespace gelu::cli
